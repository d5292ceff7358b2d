"""Choices about real systems' evidence, measured on both development rating sets.

    python benchmarks/agreement/real_evidence.py --out benchmarks/results/real_evidence

Variants, each scored end to end on the 86 baseline rows and the 144 shared-task rows (bundled
verifier; verifier calls cached across variants that share pairs):

* ``unanswerable``: AVeriTeC's Unanswerable answers ("No answer could be found.") give no fact and no
  premise (``drop``, the library's only reading since 2.0; the ``statement`` variant, one fact "No answer could be
  found to the question: Q", is computed by this script at commit e43eb97, ``results/real_evidence.md``);
* ``long_hypothesis``: a claim or fact longer than the verifier's window is scored in windows, entailed
  only when every window is (``window``), or cut to the window (``truncate``, the old behaviour).

For each variant: Spearman (95% bootstrap CI) of recall, F1, proxy and Ev2R with semantic coverage and
verdict agreement on each set, and the paired bootstrap CI of the difference from the default
variant on the same rows (``correlation.paired_spearman_diff``). The two-set rule (README,
Benchmarks): a variant replaces the default only when it does not lose on either set.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import _benchlib as bl  # noqa: E402
from correlation import correlate, paired_spearman_diff  # noqa: E402

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "ev2r_human_eval"
SETS = {"86": DATA / "averitec_manual_eval_subset.jsonl", "144": DATA / "averitec_shared_task_dev.jsonl"}
SCORES = ("recall", "f1", "proxy", "ev2r")
RATINGS = ("semantic_coverage", "verdict_agreement")
DEFAULT = ("drop", "window")
VARIANTS = [("drop", "window"), ("drop", "truncate")]


class PolicyVerifier:
    """The bundled verifier under one long-hypothesis policy, with its own memo of (premise,
    hypothesis) -> probabilities, so that variants sharing pairs cost one model call."""

    def __init__(self, inner, policy: str):
        self.inner, self.policy, self.cache = inner, policy, {}
        self.name = inner.name

    def signature_fields(self):
        old = self.inner.long_hypothesis
        self.inner.long_hypothesis = self.policy
        try:
            return self.inner.signature_fields()
        finally:
            self.inner.long_hypothesis = old

    def predict(self, premises, hypotheses):
        todo = sorted({(p, h) for p, h in zip(premises, hypotheses) if (p, h) not in self.cache})
        if todo:
            old = self.inner.long_hypothesis
            self.inner.long_hypothesis = self.policy
            try:
                out = self.inner.predict([p for p, _ in todo], [h for _, h in todo])
            finally:
                self.inner.long_hypothesis = old
            self.cache.update(zip(todo, out))
        return np.array([self.cache[(p, h)] for p, h in zip(premises, hypotheses)]).reshape(-1, 3)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="bundled")
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument("--out", default="benchmarks/results/real_evidence")
    args = ap.parse_args(argv)

    from ev2r.io.readers import read_items
    from ev2r.metric.factory import build_scorer

    inner = bl.load(args.model)
    verifiers = {p: PolicyVerifier(inner, p) for p in ("window", "truncate")}
    results: dict = {}
    timings: dict = {}
    for name, path in SETS.items():
        items = read_items(path)
        ratings = {r: [(it.extra.get("human_ratings") or {}).get(r) for it in items] for r in RATINGS}
        for unans, hyp in VARIANTS:
            t0 = time.time()
            scorer = build_scorer(verifier=verifiers[hyp])
            scores = scorer.score(items)
            timings[f"{name}/{unans}/{hyp}"] = round(time.time() - t0, 1)
            cols = {k: [getattr(s, k) if s.ok else None for s in scores] for k in SCORES}
            results[(name, unans, hyp)] = {"cols": cols, "ratings": ratings, "n_failed": sum(not s.ok for s in scores),
                                           "signature": str(scorer.corpus(scores).signature)}
    table: dict = {}
    for (name, unans, hyp), r in results.items():
        base = results[(name, *DEFAULT)]
        for k in SCORES:
            for rating in RATINGS:
                cell = correlate(r["cols"][k], r["ratings"][rating], n_boot=args.n_boot)
                if (unans, hyp) != DEFAULT:
                    cell["vs_default"] = paired_spearman_diff(r["cols"][k], base["cols"][k], r["ratings"][rating],
                                                              n_boot=args.n_boot)
                table[f"{name}|{unans}|{hyp}|{k}|{rating}"] = cell

    info = {"command": bl.command(), "machine": bl.machine(), "verifier": bl.verifier_info(args.model, inner)}
    lines = [bl.header("Real systems' evidence: unanswerable pairs and long hypotheses, on both dev sets", info), "",
             "Spearman with 95% bootstrap CI; for a non-default variant, the paired bootstrap CI of its difference "
             "from the default (unanswerable=drop, long_hypothesis=window) on the same rows follows as "
             "`Δ [lo, hi]`. Rows whose item failed (e.g. `no_reference`: every reference answer unanswerable or "
             "content-free) are left out and counted.", ""]
    for rating in RATINGS:
        lines += [f"## vs {rating}", "", "| variant | score | 86 | 144 |", "|---|---|---|---|"]
        for unans, hyp in VARIANTS:
            for k in SCORES:
                cells = []
                for name in SETS:
                    c = table[f"{name}|{unans}|{hyp}|{k}|{rating}"]
                    s = "–" if c["spearman"] is None else f"{c['spearman']:+.3f}"
                    if c.get("spearman_ci95"):
                        s += f" [{c['spearman_ci95'][0]:+.2f}, {c['spearman_ci95'][1]:+.2f}]"
                    d = c.get("vs_default")
                    if d and d.get("diff") is not None and d.get("ci95"):
                        s += f"; Δ {d['diff']:+.3f} [{d['ci95'][0]:+.2f}, {d['ci95'][1]:+.2f}]"
                    cells.append(s)
                lines.append(f"| unanswerable={unans}, long_hypothesis={hyp} | {k} | {cells[0]} | {cells[1]} |")
        lines.append("")
    lines += ["Failed items per variant: " + ", ".join(f"{n}/{u}/{h}: {r['n_failed']}"
                                                       for (n, u, h), r in results.items()),
              "", "Seconds per variant (after model load; later variants reuse cached pairs): "
              + ", ".join(f"{k}: {v}" for k, v in timings.items()), ""]
    lines += ["Signatures:", ""] + [f"- {n}/{u}/{h}: `{r['signature']}`" for (n, u, h), r in results.items()]
    data = {"table": table, "timings": timings,
            "n_failed": {f"{n}/{u}/{h}": r["n_failed"] for (n, u, h), r in results.items()}, "info": info}
    bl.write(Path(args.out), "\n".join(lines) + "\n", data)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
