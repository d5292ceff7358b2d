"""Team-level agreement on the 144 shared-task rows: ``benchmarks/results/team_ranking.md``.

Each of the 7 teams' mean score against its mean human rating (semantic coverage; verdict agreement): the share
of the 21 team pairs a score orders as people do (pairwise ranking accuracy; a tie in either counts half).

    python benchmarks/agreement/team_ranking.py --scores NAME=PATH [--scores NAME=PATH ...] --columns ev2r_hybrid ev2r hu_meteor
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
from _benchlib import DATA, RESULTS, command, machine  # noqa: E402

RATINGS = ("semantic_coverage", "verdict_agreement")


def pairwise_accuracy(score: dict, human: dict) -> float:
    """Share of team pairs ordered alike by ``score`` and ``human`` (team -> mean); ties count half.

    >>> pairwise_accuracy({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 3, "c": 2})
    0.6666666666666666
    """
    pairs = list(itertools.combinations(sorted(score), 2))
    right = 0.0
    for a, b in pairs:
        s, h = score[a] - score[b], human[a] - human[b]
        right += 0.5 if s == 0 or h == 0 else float((s > 0) == (h > 0))
    return right / len(pairs)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scores", action="append", required=True, metavar="NAME=PATH", help="`ev2r score -o` rows of the 144")
    ap.add_argument("--columns", nargs="+", default=["ev2r_hybrid", "ev2r", "proxy", "hu_meteor"])
    ap.add_argument("--out", type=Path, default=RESULTS / "team_ranking.md")
    args = ap.parse_args(argv)
    rows = [json.loads(x) for x in (DATA / "ev2r_human_eval" / "averitec_shared_task_dev.jsonl").read_text().splitlines() if x]
    m = machine()
    lines = ["# Team-level agreement, 144 shared-task rows (7 teams, 21 pairs)\n", f"Command: `{command()}`  ",
             f"Machine: {m['platform']}, {m['utc']}\n", "| scores | column | " + " | ".join(RATINGS) + " |",
             "|---|---|" + "---|" * len(RATINGS)]
    for spec in args.scores:
        name, path = spec.split("=", 1)
        sc = {r["row"]: r for r in map(json.loads, Path(path).read_text().splitlines()) if r.get("status") == "ok"}
        for col in args.columns:
            cells = []
            for rating in RATINGS:
                per: dict = {}
                for i, r in enumerate(rows):
                    v, s = r["human_ratings"].get(rating), sc.get(i, {}).get(col)
                    if v is None or s is None:
                        continue
                    per.setdefault(r["team"], []).append((s, v))
                score = {t: sum(a for a, _ in xs) / len(xs) for t, xs in per.items()}
                human = {t: sum(b for _, b in xs) / len(xs) for t, xs in per.items()}
                cells.append(f"{pairwise_accuracy(score, human):.3f}")
            lines.append(f"| {name} | {col} | " + " | ".join(cells) + " |")
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
