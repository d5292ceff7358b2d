"""What pruning premises costs: the lexical first stage (``premise_top_k``) against the exhaustive run.

For each rating file (default: both development sets) the items are scored once exhaustively with the
bundled verifier, every (premise, hypothesis) probability recorded; each ``k`` of ``--k`` is then scored
from the recorded probabilities (the pairs a pruned run sends are a subset of the exhaustive ones), so
the differences are those of pruning alone. The chosen default (``--real K``) is also scored with a fresh
verifier, as a user's run is (its batches differ, so bf16 rounding differs too), and that row is the one
the bars apply to.

Bars (issue 24): per-item |dEv2R| mean <= 0.005 and max <= 0.05; Spearman with every human rating of every
score within 0.01 of the exhaustive run. Reported per k: pairs per item sent to the verifier, the share
pruned, |d| of Ev2R / recall / precision / graded_recall / ev2r_hybrid (mean, max), the number of
facts whose support flipped, and the largest Spearman change over ratings x scores.

Usage::

    python benchmarks/agreement/pruning.py --k 1 2 3 4 --real 3
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from pathlib import Path
from typing import Optional

import numpy as np
from scipy.stats import spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402

DEV_SETS = {"86 rows": bl.DATA / "ev2r_human_eval" / "averitec_manual_eval_subset.jsonl",
            "144 rows": bl.DATA / "ev2r_human_eval" / "averitec_shared_task_dev.jsonl"}
SCORES = ("ev2r", "recall", "precision", "f1", "graded_recall", "ev2r_hybrid")
BAR_MEAN, BAR_MAX, BAR_RHO = 0.005, 0.05, 0.01


class RecordingVerifier:
    """Wraps a verifier: answers from the recorded (premise, hypothesis) rows, asks the wrapped one for
    the rest and records them. ``name`` and ``signature_fields`` are the wrapped verifier's."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name
        self.memo: dict = {}
        self.n_asked = 0

    def __getattr__(self, name):  # model_id, signature_fields, ...: the wrapped verifier's
        return getattr(self.inner, name)

    def predict(self, premises, hypotheses):
        todo = sorted({(p, h) for p, h in zip(premises, hypotheses) if (p, h) not in self.memo})
        if todo:
            self.n_asked += len(todo)
            out = self.inner.predict([t[0] for t in todo], [t[1] for t in todo])
            self.memo.update(zip(todo, out))
        if not premises:
            return np.zeros((0, 3))
        return np.stack([self.memo[(p, h)] for p, h in zip(premises, hypotheses)])


def _values(scores) -> dict[str, list]:
    out: dict[str, list] = {}
    for name in SCORES:
        out[name] = [getattr(s, name) if hasattr(s, name) and name not in s.extra_scores else s.extra_scores.get(name)
                     for s in scores]
    return out


def _flips(base, other) -> int:
    n = 0
    for a, b in zip(base, other):
        for fa, fb in zip(a.reference_facts + a.predicted_facts, b.reference_facts + b.predicted_facts):
            n += fa.supported != fb.supported
    return n


def _rho(x, y) -> Optional[float]:
    pairs = [(a, b) for a, b in zip(x, y) if a is not None and b is not None]
    if len(pairs) < 3:
        return None
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    if len(set(xs)) == 1 or len(set(ys)) == 1:  # a constant column has no rank correlation (scipy warns, gives nan)
        return None
    r = spearmanr(xs, ys).statistic
    return None if np.isnan(r) else float(r)


def compare(base, other, ratings: dict) -> dict:
    """Differences of ``other`` from ``base`` (lists of ItemScore, same items)."""
    vb, vo = _values(base), _values(other)
    row: dict = {}
    for name in SCORES:
        d = [abs(a - b) for a, b in zip(vb[name], vo[name]) if a is not None and b is not None]
        row[f"{name}_mean"] = float(np.mean(d)) if d else 0.0
        row[f"{name}_max"] = float(np.max(d)) if d else 0.0
    worst, changes = 0.0, {}
    for rname, r in ratings.items():
        for name in SCORES:
            a, b = _rho(vb[name], r), _rho(vo[name], r)
            if a is not None and b is not None:
                worst = max(worst, abs(a - b))
                changes[f"{name}/{rname}"] = b - a
    row["rho_max"] = worst
    row["rho_changes"] = changes
    big = max(changes, key=lambda c: abs(changes[c])) if changes else None
    row["rho_worst"] = f"{big} {changes[big]:+.4f}" if big else "--"
    ev = [abs(v) for c, v in changes.items() if c.startswith("ev2r/")]
    row["rho_ev2r_max"] = max(ev) if ev else 0.0
    row["flips"] = _flips(base, other)
    row["holds"] = row["ev2r_mean"] <= BAR_MEAN and row["ev2r_max"] <= BAR_MAX and worst <= BAR_RHO
    return row


def _num(v) -> str:
    return "n/a" if v is None else f"{v:+.4f}"


def robustness_rows(args, inner) -> list[dict]:
    """Verdicts of the robustness suite, exhaustive vs each k (recorded probabilities)."""
    from adversarial.suite import run_suite
    from robustness import load_averitec_gold  # benchmarks/robustness/robustness.py: the same draw of dev claims

    from ev2r.metric.factory import make_item_scorer

    items = load_averitec_gold(str(bl.DATA / "averitec" / "dev.json"), args.robustness, seed=0)
    rec = RecordingVerifier(inner)

    def suite(k):
        scorer = make_item_scorer(verifier=rec, premise_top_k=k)
        return {(c.perturbation, c.score): c for c in run_suite(items, scorer, seed=0, n_boot=500).checks()}

    base = suite(None)
    rows = []
    for k in args.k:
        got = suite(k)
        which = [f"{p}/{sc} ({c.verdict} -> {got[(p, sc)].verdict}; mean change {_num(c.mean_change)} -> "
                 f"{_num(got[(p, sc)].mean_change)})"
                 for (p, sc), c in base.items() if got[(p, sc)].verdict != c.verdict]
        deltas = [abs((got[key].mean_change or 0.0) - (c.mean_change or 0.0)) for key, c in base.items()]
        rows.append({"k": k, "checks": len(base), "changed": len(which), "which": which,
                     "max_delta": max(deltas) if deltas else 0.0})
        print(f"robustness k={k}: {len(which)} of {len(base)} verdicts changed", flush=True)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", action="append", default=None, metavar="NAME=PATH",
                    help="rating file(s); default both development sets")
    ap.add_argument("--k", type=int, nargs="+", default=[1, 2, 3, 4])
    ap.add_argument("--real", type=int, default=None, help="also score this k with a fresh verifier")
    ap.add_argument("--out", default=str(bl.RESULTS / "pruning"))
    ap.add_argument("--robustness", type=int, default=0, metavar="N",
                    help="also run the robustness suite on N AVeriTeC dev claims (gold evidence as the prediction, "
                         "seed 0) exhaustively and with each k, and compare every check's verdict")
    ap.add_argument("--memo", default=None, metavar="DIR",
                    help="keep the exhaustive runs' recorded probabilities here (one pickle per file) and reuse them")
    args = ap.parse_args(argv)

    from correlation import ratings_of  # the rating columns, as benchmarks/agreement/correlation.py reads them

    from ev2r import read_items
    from ev2r.config import DEFAULTS
    from ev2r.metric.factory import build_scorer, get_verifier

    files = dict(bl.parse_named(d, "--data") for d in args.data) if args.data else {k: str(v) for k, v in DEV_SETS.items()}
    inner = get_verifier("bundled")
    result: dict = {"machine": bl.machine(), "command": bl.command(), "verifier": bl.verifier_info("bundled", inner),
                    "files": {}, "rows": []}
    lines = []
    for fname, path in files.items():
        items = list(read_items(path))
        ratings = ratings_of(items)
        rec = RecordingVerifier(inner)
        memo_file = Path(args.memo) / f"{Path(path).stem}.pkl" if args.memo else None
        if memo_file is not None and memo_file.exists():
            rec.memo = pickle.loads(memo_file.read_bytes())

        def run(k, verifier, items=items):
            scorer = build_scorer(config=DEFAULTS.replace(verifier=verifier, premise_top_k=k))
            t0 = time.perf_counter()
            out = scorer.score(items)
            ref = scorer.reference_scorer
            return out, time.perf_counter() - t0, ref.n_pairs_considered, ref.n_pairs_pruned

        base, t_base, n_all, _ = run(None, rec)
        if memo_file is not None:
            memo_file.parent.mkdir(parents=True, exist_ok=True)
            memo_file.write_bytes(pickle.dumps(rec.memo))
        result["files"][fname] = {"path": bl.display_path(path), "n": len(items), "pairs": n_all,
                                  "seconds_exhaustive": round(t_base, 1)}
        print(f"{fname}: exhaustive {n_all} fact-premise pairs ({n_all / len(items):.1f}/item), {t_base:.1f} s",
              flush=True)
        variants = [(k, "recorded", rec) for k in args.k]
        if args.real is not None:
            variants.append((args.real, "fresh verifier", get_verifier("bundled")))
        for k, how, ver in variants:
            scores, secs, considered, pruned = run(k, ver)
            row = {"file": fname, "k": k, "how": how, "pairs_per_item": (considered - pruned) / len(items),
                   "pruned_share": pruned / max(1, considered), "seconds": round(secs, 1),
                   **compare(base, scores, ratings)}
            result["rows"].append(row)
            print(f"  k={k} ({how}): {row['pairs_per_item']:.1f} pairs/item, pruned {row['pruned_share']:.0%}, "
                  f"|dEv2R| mean {row['ev2r_mean']:.4f} max {row['ev2r_max']:.4f}, rho {row['rho_max']:.4f}, "
                  f"flips {row['flips']}", flush=True)
    if args.robustness:
        result["robustness"] = robustness_rows(args, inner)
        lines_r = ["", f"Robustness suite (`adversarial.run_suite`, all perturbations) on {args.robustness} AVeriTeC dev "
                   "claims, gold evidence as the prediction, seed 0; every k scored from the exhaustive run's recorded "
                   "probabilities. A changed verdict is any (perturbation, score) check whose pass / fail / n/a differs.",
                   "", "| k | checks | verdicts changed | which | max abs change of a mean change |", "|---|---:|---:|---|---:|"]
        for r in result["robustness"]:
            lines_r.append(f"| {r['k']} | {r['checks']} | {r['changed']} | {', '.join(r['which']) or '--'} | "
                           f"{r['max_delta']:.4f} |")
    else:
        lines_r = []
    head = ["file", "k", "scored from", "fact-premise pairs / item", "pruned", "|dEv2R| mean", "|dEv2R| max",
            "|d recall| max", "|d precision| max", "|d graded_recall| max", "|d ev2r_hybrid| max",
            "support flips", "max |d Spearman|", "largest change (score/rating)", "max |d Spearman| of Ev2R",
            "holds the bars"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    for fname, info in result["files"].items():
        lines.append(f"| {fname} | all | exhaustive | {info['pairs'] / info['n']:.1f} | 0% | 0 | 0 | 0 | 0 | 0 | 0 "
                     "| 0 | 0 | -- | 0 | -- |")
        for r in (r for r in result["rows"] if r["file"] == fname):
            lines.append(f"| {fname} | {r['k']} | {r['how']} | {r['pairs_per_item']:.1f} | {r['pruned_share']:.0%} "
                         f"| {r['ev2r_mean']:.4f} | {r['ev2r_max']:.4f} | {r['recall_max']:.4f} "
                         f"| {r['precision_max']:.4f} | {r['graded_recall_max']:.4f} | {r['ev2r_hybrid_max']:.4f} "
                         f"| {r['flips']} | {r['rho_max']:.4f} | {r['rho_worst']} | {r['rho_ev2r_max']:.4f} "
                         f"| {'yes' if r['holds'] else 'no'} |")
    md = bl.header("Pruning premises: the lexical first stage against the exhaustive run", result) + "\n".join([
        "", f"Bars: per-item |dEv2R| mean <= {BAR_MEAN}, max <= {BAR_MAX}; Spearman of every score "
        f"({', '.join(SCORES)}) with every human rating within {BAR_RHO} of the exhaustive run.",
        "'recorded' rows reuse the exhaustive run's probabilities (the effect of pruning alone); the 'fresh "
        "verifier' row is a user's run (new batches, so bf16 rounding differs as well).", "", *lines, *lines_r, ""])
    bl.write(Path(args.out), md, result)
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
