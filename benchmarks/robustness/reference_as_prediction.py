"""The reference given as the prediction: what the ideal evidence scores.

For ``--n`` AVeriTeC dev claims (drawn with ``--seed``), the gold question/answer pairs are both the
predicted and the reference evidence; every score column is averaged, overall and per gold verdict.
Precision, recall and F1 of the ideal evidence are 1 by the definition of the reference-based scores
(Akhtar et al. 2024, sec. 3.1); the proxy (sec. 3.2) is the verifier's P(gold verdict | claim, gold
evidence) and has no such ceiling. Targets: proxy >= 0.70, Ev2R and ``ev2r_hybrid`` >= 0.85.

Usage (from the repository root)::

    python benchmarks/robustness/reference_as_prediction.py --n 120 --out benchmarks/results/reference_as_prediction
    python benchmarks/robustness/reference_as_prediction.py --n 120 --proxy-model averitec --out benchmarks/results/reference_as_prediction_averitec

writes ``.md`` and ``.json`` (the per-claim rows too).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402

COLUMNS = ("precision", "recall", "f1", "proxy", "ev2r", "hybrid_meteor", "verified_meteor", "mutual_meteor",
           "ev2r_hybrid")
TARGETS = {"proxy": 0.70, "ev2r": 0.85, "ev2r_hybrid": 0.85}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dev", default=str(bl.DATA / "averitec" / "dev.json"), help="AVeriTeC dev.json")
    ap.add_argument("--n", type=int, default=120, help="claims drawn (seeded); 0 = all")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--model", default="bundled", help="verifier (any --model value of ev2r score)")
    ap.add_argument("--proxy-model", default=None,
                    help="the proxy's own verifier (any --proxy-model value of ev2r score, e.g. averitec); default: --model")
    ap.add_argument("--out", default=str(bl.RESULTS / "reference_as_prediction"))
    args = ap.parse_args(argv)
    if args.n < 0:
        ap.error(f"--n: must be >= 0, got {args.n}")
    from ev2r.io.averitec import averitec_questions_to_evidence
    from ev2r.metric.factory import build_scorer
    from ev2r.types import Item

    records = json.loads(Path(args.dev).read_text(encoding="utf-8"))
    n = len(records) if args.n == 0 else min(args.n, len(records))
    idx = sorted(np.random.default_rng(args.seed).choice(len(records), size=n, replace=False).tolist())
    items = []
    for i in idx:
        ev = averitec_questions_to_evidence(records[i]["questions"], f"dev row {i}")
        items.append(Item(id=str(i), claim=records[i]["claim"], predicted_evidence=ev, reference_evidence=ev,
                          gold_label=records[i]["label"]))
    scorer = build_scorer(verifier=args.model, proxy_verifier=args.proxy_model, hybrid_columns="all")
    scores = scorer.score(items)
    rows = []
    for i, s in zip(idx, scores):
        row = {"dev_row": i, "gold_label": records[i]["label"], "status": s.status}
        for c in COLUMNS:
            row[c] = getattr(s, c) if c in ("precision", "recall", "f1", "proxy", "ev2r") else s.extra_scores.get(c)
        rows.append(row)
    groups = {"all": rows}
    for label in sorted({r["gold_label"] for r in rows}):
        groups[label] = [r for r in rows if r["gold_label"] == label]

    def mean(rs, c):
        v = [r[c] for r in rs if r[c] is not None]
        return float(np.mean(v)) if v else None

    summary = {g: {"n": len(rs), **{c: mean(rs, c) for c in COLUMNS}} for g, rs in groups.items()}
    info = {"command": bl.command(), "machine": bl.machine(), "signature": str(scorer.signature()),
            "dev": bl.display_path(args.dev), "n": n, "seed": args.seed, "n_failed": sum(not s.ok for s in scores)}
    lines = ["# The reference as the prediction (AVeriTeC dev)", "", f"Command: `{info['command']}`",
             f"Machine: {info['machine']}", f"Signature: `{info['signature']}`", "",
             f"{n} claims of {info['dev']} (seed {args.seed}), their gold evidence given as the prediction; "
             f"{info['n_failed']} failed. Mean of each score; the targets in the last row.", "",
             "| gold verdict | n | " + " | ".join(COLUMNS) + " |", "|---|---:|" + "---:|" * len(COLUMNS)]
    for g, sm in summary.items():
        lines.append(f"| {g} | {sm['n']} | " + " | ".join("—" if sm[c] is None else f"{sm[c]:.3f}" for c in COLUMNS) + " |")
    lines.append("| *target* | | " + " | ".join(f">= {TARGETS[c]:.2f}" if c in TARGETS else "" for c in COLUMNS) + " |")
    md = "\n".join(lines) + "\n"
    bl.write(Path(args.out), md, {**info, "summary": summary, "rows": rows})
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
