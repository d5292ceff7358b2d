"""Items for timing ``ev2r score`` at scale: AVeriTeC train claims, predicted evidence filled to the
10-pair cap of the official scorer.

Item ``i`` is train claim ``i``. Its reference is the claim's gold question/answer pairs; its prediction is those
pairs followed by the gold pairs of the next claims, up to 10 pairs. The first answer of each question is used; a
Boolean answer gets its explanation appended. The file is for timing, not for agreement with people.

Usage (from the repository root)::

    python benchmarks/speed/train_items.py --n 1000 --out runs/train1000.jsonl
    /usr/bin/time -v ev2r score runs/train1000.jsonl -o runs/train1000_scores.jsonl --json --no-progress --no-resume
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402

CAP = 10


def gold_pairs(record: dict) -> list[tuple[str, str]]:
    """``(question, answer)`` of one AVeriTeC record: the first answer of each question (a Boolean one with
    its explanation)."""
    out = []
    for q in record.get("questions") or []:
        answers = q.get("answers") or []
        first = answers[0] if answers else {}
        a = (first.get("answer") or "").strip()
        if first.get("answer_type") == "Boolean" and first.get("boolean_explanation"):
            a = f"{a}. {first['boolean_explanation']}"
        out.append((q.get("question") or "", a))
    return out


def render(pairs) -> str:
    return "\n\n".join(f"Question: {q}\nAnswer: {a}" for q, a in pairs) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--train", default=str(bl.DATA / "averitec" / "train.json"))
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    records = json.loads(Path(args.train).read_text(encoding="utf-8"))
    if not 1 <= args.n <= len(records):
        ap.error(f"--n: must be in [1, {len(records)}], got {args.n}")
    with open(args.out, "w", encoding="utf-8") as f:
        for i in range(args.n):
            own = gold_pairs(records[i])
            pred, j = list(own), i + 1
            while len(pred) < CAP:
                pred += gold_pairs(records[j % len(records)])
                j += 1
            f.write(json.dumps({"id": i, "claim": records[i]["claim"], "predicted_evidence": render(pred[:CAP]),
                                "reference_evidence": render(own), "gold_label": records[i]["label"]}) + "\n")
    print(f"wrote {args.n} items to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
