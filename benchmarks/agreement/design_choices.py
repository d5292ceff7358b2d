"""Measured design choices of the offline Ev2R pipeline (what was tried, and what it cost).

    python benchmarks/agreement/design_choices.py --data ../shared/data/ev2r_human_eval/averitec_manual_eval_subset.jsonl \
        --out benchmarks/results/design_choices

Variants (each scored end to end on the rating file, Spearman with every human rating):
support by threshold (P(entailment) >= 0.5) vs soft (expected counts: read here from the same facts' probabilities,
:func:`soft_reading`; the library computes only the threshold since 2.0); facts with / without
their question as context; fp32 vs int8 dynamic quantisation (speed and agreement). With 86
rows the standard error of a Spearman correlation is about 0.11 (shared/design/VERIFIER_NOTES.md):
differences below ~0.2 are not evidence, and defaults were chosen on principle, not on this table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402


class CachedVerifier:
    """Memoises ``predict`` per (premise, hypothesis) so variants sharing pairs cost nothing."""

    def __init__(self, inner):
        self.inner, self.name, self.cache = inner, inner.name, {}

    def predict(self, premises, hypotheses):
        todo = sorted({(p, h) for p, h in zip(premises, hypotheses) if (p, h) not in self.cache})
        if todo:
            out = self.inner.predict([p for p, _ in todo], [h for _, h in todo])
            self.cache.update(zip(todo, out))
        return np.array([self.cache[(p, h)] for p, h in zip(premises, hypotheses)]).reshape(-1, 3)


def soft_reading(scores, alpha: float = 0.5) -> list:
    """The soft support of ``scores`` (Ev2R's items): precision, recall and F1 from each fact's P(entailment) itself
    (:func:`ev2r.scores.prf_from_support` over the facts' ``probability``) instead of its 0/1 support, Ev2R from that
    F1 and the same proxy; None where the item did not score. The library's ``support="soft"`` up to commit e43eb97.

    >>> from types import SimpleNamespace as N
    >>> f = lambda p: N(probability=p)
    >>> s = soft_reading([N(status="ok", predicted_facts=[f(0.9), f(0.3)], reference_facts=[f(0.6)], proxy=0.8)])[0]
    >>> round(s.precision, 3), s.recall, round(s.ev2r, 4)
    (0.6, 0.6, 0.7)
    """
    from types import SimpleNamespace

    from ev2r.scores import ev2r_combine, prf_from_support

    out = []
    for s in scores:
        if s.status != "ok" or not s.reference_facts:
            out.append(SimpleNamespace(precision=None, recall=None, f1=None, proxy=s.proxy, ev2r=None))
            continue
        p, r, f1 = prf_from_support([f.probability for f in s.predicted_facts],
                                    [f.probability for f in s.reference_facts])
        ev = ev2r_combine(f1, s.proxy, alpha) if f1 is not None and s.proxy is not None else None
        out.append(SimpleNamespace(precision=p, recall=r, f1=f1, proxy=s.proxy, ev2r=ev))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--model", default="bundled")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)

    from ev2r.facts.rules import RuleBasedDecomposer
    from ev2r.io.readers import read_items
    from ev2r.metric.scorer import Ev2RScorer
    from ev2r.metric.proxy import NLIProxyScorer
    from ev2r.metric.reference import NLIReferenceScorer
    from ev2r.verifier.loading import load_verifier

    items = read_items(args.data)
    dims = sorted({k for it in items for k, v in (it.extra.get("human_ratings") or {}).items() if isinstance(v, (int, float))})
    ratings = {d: [it.extra["human_ratings"].get(d) for it in items] for d in dims}
    rows = []
    per_item: dict = {}
    for quant in (False, True):
        base = load_verifier(args.model, quantize=quant)
        base.predict(["warm up"], ["warm up"])
        ver = CachedVerifier(base)
        for keep_q in (True, False):
            t0 = time.time()
            scorer = Ev2RScorer(NLIReferenceScorer(ver, RuleBasedDecomposer(keep_question=keep_q)),
                                NLIProxyScorer(ver), verifier_name=ver.name)
            thresholded = scorer.score(items)
            secs = time.time() - t0
            for support in ("threshold", "soft"):
                scores = thresholded if support == "threshold" else soft_reading(thresholded)
                row = {"verifier": "int8" if quant else "fp32", "facts": "question+sentence" if keep_q else "sentence",
                       "support": support, "seconds": round(secs, 1)}
                for name in ("recall", "f1", "proxy", "ev2r"):
                    vals = [getattr(s, name) for s in scores]
                    for d in ("semantic_coverage", "verdict_agreement"):
                        if d in ratings:
                            ok = [(v, r) for v, r in zip(vals, ratings[d]) if v is not None and r is not None]
                            row[f"{name}/{d}"] = round(float(stats.spearmanr(*zip(*ok))[0]), 3)
                per_item[(row["verifier"], row["facts"], row["support"])] = [s.ev2r for s in scores]
                rows.append(row)
                print(json.dumps(row), flush=True)
    for r in rows:  # how far int8 moves each item's Ev2R from fp32 (same facts and support)
        if r["verifier"] == "int8":
            a = per_item[("fp32", r["facts"], r["support"])]
            b = per_item[("int8", r["facts"], r["support"])]
            d = [abs(x - y) for x, y in zip(a, b) if x is not None and y is not None]
            r["int8_vs_fp32_max_abs_ev2r_diff"] = round(max(d), 4) if d else None
            r["int8_vs_fp32_mean_abs_ev2r_diff"] = round(sum(d) / len(d), 4) if d else None
    cols = [k for k in rows[0] if "/" in k]
    meta = bl.machine()
    lines = ["# Design choices of the offline pipeline, measured", "",
             f"Command: `{bl.command()}`", "",
             f"Machine: {meta['platform']}, {meta['cpu_count']} CPUs, torch {meta['torch']}, {meta['utc']} (1-min load "
             f"average {meta['load_average_1m']}); verifier {base.name.replace('+int8', '')}.", "",
             f"Spearman on {len(items)} rows (standard error about 0.11: differences under ~0.2 are noise); "
             "seconds = end-to-end scoring after model load (the first variant of each verifier pays for all "
             "verifier calls; later ones reuse cached pairs).", "",
             "| verifier | facts | support | seconds | " + " | ".join(cols) + " |",
             "|---|---|---|---|" + "---|" * len(cols)]
    for r in rows:
        lines.append(f"| {r['verifier']} | {r['facts']} | {r['support']} | {r['seconds']} | " +
                     " | ".join(f"{r[c]:+.3f}" for c in cols) + " |")
    lines.append("")
    for r in rows:
        if r.get("int8_vs_fp32_max_abs_ev2r_diff") is not None:
            lines.append(f"- int8 vs fp32 ({r['facts']}, {r['support']}): per-item Ev2R differs by "
                         f"{r['int8_vs_fp32_mean_abs_ev2r_diff']:.4f} on average, at most "
                         f"{r['int8_vs_fp32_max_abs_ev2r_diff']:.4f}.")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).with_suffix(".md").write_text(text)
        Path(args.out).with_suffix(".json").write_text(json.dumps(
            {"command": bl.command(), "machine": meta, "n": len(items), "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
