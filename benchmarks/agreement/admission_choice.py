"""How the learned reading of non-evidence enters the default: ``benchmarks/results/admission_choice.md``.

Each variant is a directory of ``ev2r score -o`` rows for both development rating sets (``--variant
NAME=PREFIX``: ``PREFIX_86.jsonl`` and ``PREFIX_144.jsonl``, scored with ``python benchmarks/agreement/score_with.py
hybrid_columns=all admission=SPEC -- INPUT -o ... --scorer ev2r --scorer hu-meteor``). For each, Spearman of the main scores with semantic coverage and
verdict agreement on both sets, with 95% percentile bootstrap CIs (rows resampled, seeded). The default is the
variant with the best smaller-of-two-sets Ev2R agreement among those whose gaming is closed
(``gaming_heldout.md``); the held-out families choose nothing.

    python benchmarks/agreement/admission_choice.py --variant none=/tmp/exp/none --variant p0.05=/tmp/exp/p0.05 ...
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
from _benchlib import DATA, RESULTS, command, machine  # noqa: E402

SETS = {"86": "averitec_manual_eval_subset", "144": "averitec_shared_task_dev"}
RATINGS = ("semantic_coverage", "verdict_agreement")
SCORES = ("precision", "recall", "f1", "proxy", "ev2r", "hybrid_meteor", "ev2r_hybrid", "hu_meteor")


def spearman_ci(x, y, n_boot, seed):
    """(rho, lo, hi): Spearman and its 95% percentile bootstrap CI (pairs resampled)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    rho = float(spearmanr(x, y)[0])
    rng = np.random.default_rng(seed)
    boots = []
    for _ in range(n_boot):
        idx = rng.integers(0, len(x), len(x))
        if np.ptp(x[idx]) > 0 and np.ptp(y[idx]) > 0:
            boots.append(spearmanr(x[idx], y[idx])[0])
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return rho, float(lo), float(hi)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", action="append", required=True, metavar="NAME=PREFIX")
    ap.add_argument("--note", action="append", default=[], metavar="NAME=TEXT", help="what a variant is")
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=RESULTS / "admission_choice.md")
    args = ap.parse_args(argv)
    notes = dict(n.split("=", 1) for n in args.note)
    ratings = {n: [json.loads(line) for line in (DATA / "ev2r_human_eval" / f"{f}.jsonl").read_text().splitlines() if line]
               for n, f in SETS.items()}
    m = machine()
    lines = ["# The learned reading in the default: where and at what threshold\n",
             f"Command: `{command()}`  ", f"Machine: {m['platform']}, {m['cpu_count']} CPUs, {m['utc']}\n",
             "Spearman with the human ratings (95% bootstrap CI, rows resampled, seed "
             f"{args.seed}, {args.n_boot} resamples); cov = semantic_coverage, va = verdict_agreement.\n"]
    for spec in args.variant:
        name, prefix = spec.split("=", 1)
        lines += [f"## `{name}`" + (f": {notes[name]}" if name in notes else "") + "\n",
                  "| score | 86 cov | 86 va | 144 cov | 144 va |", "|---|---|---|---|---|"]
        rows = {n: {json.loads(x)["row"]: json.loads(x) for x in Path(f"{prefix}_{n}.jsonl").read_text().splitlines() if x}
                for n in SETS}
        for score in SCORES:
            cells = []
            for n in SETS:
                for rating in RATINGS:
                    xs, ys = [], []
                    for i, r in enumerate(ratings[n]):
                        s, v = rows[n].get(i), r["human_ratings"].get(rating)
                        if s is None or s.get("status") != "ok" or s.get(score) is None or v is None:
                            continue
                        xs.append(s[score])
                        ys.append(v)
                    rho, lo, hi = spearman_ci(xs, ys, args.n_boot, args.seed)
                    cells.append(f"{rho:+.3f} [{lo:+.2f}, {hi:+.2f}]")
            lines.append(f"| {score} | " + " | ".join(cells) + " |")
        lines.append("")
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
