"""Which aggregation of premise windows works best when the evidence exceeds the model's window?

    python benchmarks/long_premise.py --data ../shared/data/nli/wice.jsonl --limit 300 \
        --out benchmarks/results/long_premise

WiCE (Kamoi et al. 2023) pairs real claims with long web-page evidence; this keeps only pairs
whose premise is longer than the verifier's window (``--max-length`` tokens), then compares
``truncate`` (first window), ``mean`` and ``max`` (see :mod:`ev2r.verify`) by accuracy and
macro-F1 on the 3 classes, and by 2-way accuracy (entailment vs not). WiCE's "not supported"
was mapped to neutral (shared data README), so the 2-way number is the fairer one.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--model", default="bundled")
    ap.add_argument("--max-length", type=int, default=256)
    ap.add_argument("--limit", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)

    from sklearn.metrics import f1_score

    from ev2r.verify import load_verifier

    rows = [json.loads(l) for l in open(args.data) if l.strip()]
    base = load_verifier(args.model, max_length=args.max_length)
    base._load()
    tok = base._tokenizer
    long_rows = [r for r in rows if len(tok(r["premise"], add_special_tokens=False)["input_ids"]) > args.max_length - 40]
    random.Random(args.seed).shuffle(long_rows)
    long_rows = long_rows[: args.limit]
    labels = ["entailment", "neutral", "contradiction"]
    gold = [labels.index(r["label"]) for r in long_rows]
    results = {}
    for policy in ("truncate", "mean", "max"):
        ver = load_verifier(args.model, max_length=args.max_length, long_premise=policy)
        t0 = time.time()
        p = ver.predict([r["premise"] for r in long_rows], [r["hypothesis"] for r in long_rows])
        pred = p.argmax(1).tolist()
        acc = sum(int(a == b) for a, b in zip(pred, gold)) / len(gold)
        two = sum(int((a == 0) == (b == 0)) for a, b in zip(pred, gold)) / len(gold)
        results[policy] = {"accuracy": round(acc, 4), "macro_f1": round(float(f1_score(gold, pred, average="macro")), 4),
                           "accuracy_2way": round(two, 4), "windows": ver.n_model_pairs,
                           "seconds": round(time.time() - t0, 1)}
    counts = {lab: gold.count(i) for i, lab in enumerate(labels)}
    lines = [f"# Long-premise aggregation on {Path(args.data).name}", "",
             f"Command: `python benchmarks/long_premise.py {' '.join(argv if argv is not None else sys.argv[1:])}`",
             f"Machine: {platform.platform()}, {os.cpu_count()} CPUs; verifier: {base.name}; window {args.max_length} tokens",
             f"Pairs with a premise longer than the window: {len(long_rows)} (gold: {counts})", "",
             "| policy | accuracy | macro-F1 | 2-way accuracy | windows scored | seconds |", "|---|---|---|---|---|---|"]
    for k, v in results.items():
        lines.append(f"| {k} | {v['accuracy']:.3f} | {v['macro_f1']:.3f} | {v['accuracy_2way']:.3f} | {v['windows']} | {v['seconds']} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).with_suffix(".md").write_text(text)
        Path(args.out).with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
