"""Arena ranking demo: rank evidence "systems" of known quality by per-item Ev2R battles.

On the AVeriTeC manual-evaluation subset (86 claims) five evidence sets are scored with Ev2R
against the reference evidence; ``ev2r rank`` then turns the per-item scores into pairwise battles
and fits Bradley-Terry (bootstrap CIs over items) and online Elo. The systems have a known
expected order, which the ranking should recover:

* ``reference``: the reference evidence itself (oracle),
* ``reference_half``: the first half of the reference question/answer pairs,
* ``baseline``: the released baseline retriever's evidence (``predicted_evidence``),
* ``baseline_first_pair``: only the first pair of that evidence,
* ``other_claim``: the baseline evidence retrieved for the next claim in the file (off-topic).

Writes ``ranking_scores.jsonl`` (id, system, precision, recall, f1, proxy, ev2r), ``ranking.json``,
``ranking.md`` and ``ranking_forest.png`` -- the same as::

    ev2r rank benchmarks/results/ranking_scores.jsonl --score-field ev2r -o benchmarks/results/ranking.json \\
        --table benchmarks/results/ranking.md --plot benchmarks/results/ranking_forest.png

Usage (full size, with the final verifier)::

    python benchmarks/ranking/ranking.py --model bundled
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402


def systems(items):
    from ev2r.types import Evidence

    n = len(items)
    out = {}
    for k, it in enumerate(items):
        ref, pred = it.reference_evidence, it.predicted_evidence
        half = Evidence(ref.pairs[: max(1, len(ref.pairs) // 2)])
        out.setdefault("reference", []).append(it.with_predicted(ref))
        out.setdefault("reference_half", []).append(it.with_predicted(half))
        out.setdefault("baseline", []).append(it)
        out.setdefault("baseline_first_pair", []).append(it.with_predicted(Evidence(pred.pairs[:1])))
        out.setdefault("other_claim", []).append(it.with_predicted(items[(k + 1) % n].predicted_evidence))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--input", type=Path, default=bl.DATA / "ev2r_human_eval" / "averitec_manual_eval_subset.jsonl")
    ap.add_argument("--model", default="bundled")
    ap.add_argument("--limit", type=int, default=None, help="only the first N rows (default all 86)")
    ap.add_argument("--score-field", default="ev2r", choices=["ev2r", "f1", "proxy", "precision", "recall"])
    ap.add_argument("--margin", type=float, default=0.0)
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--out-dir", type=Path, default=bl.RESULTS)
    args = ap.parse_args(argv)

    from ev2r.metric.factory import build_scorer
    from ev2r.io.readers import read_items, write_jsonl
    from ev2r.cli.rank import add_arguments as add_rank_arguments, run as run_rank

    items = read_items(args.input, limit=args.limit)
    verifier = bl.load(args.model, args.device, args.batch_size)
    scorer = build_scorer(verifier=verifier)
    rows, t0 = [], time.perf_counter()
    for name, its in systems(items).items():
        for s in scorer.score(its):
            rows.append({"id": s.id, "row": s.row, "system": name, **{k: getattr(s, k) for k in
                                                                       ("precision", "recall", "f1", "proxy", "ev2r")},
                         "status": s.status})
    seconds = time.perf_counter() - t0
    out = args.out_dir
    out.mkdir(parents=True, exist_ok=True)
    scores_path = out / "ranking_scores.jsonl"
    write_jsonl(rows, scores_path)

    p = argparse.ArgumentParser()
    add_rank_arguments(p)
    rank_args = p.parse_args([str(scores_path), "-o", str(out / "ranking.json"), "--score-field", args.score_field,
                              "--margin", str(args.margin), "--bootstrap", str(args.bootstrap), "--seed",
                              str(args.seed), "--plot", str(out / "ranking_forest.png")])
    run_rank(rank_args)
    result = json.loads((out / "ranking.json").read_text(encoding="utf-8"))
    from ev2r.ranking.rating import ranking_table

    info = {"command": bl.command(), "machine": bl.machine(), "verifier": bl.verifier_info(args.model, verifier)}
    result["settings"]["inputs"] = [str(scores_path.relative_to(bl.REPO)) if scores_path.is_relative_to(bl.REPO)
                                    else scores_path.name]
    result.update(info | {"scoring_seconds": round(seconds, 1), "n_input_rows": len(items),
                          "expected_order": ["reference", "reference_half", "baseline", "baseline_first_pair",
                                             "other_claim"]})
    (out / "ranking.json").write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    md = [bl.header("Arena ranking of evidence sets (Bradley-Terry over per-item Ev2R battles)", info), ""]
    md.append(f"{len(items)} AVeriTeC claims; 5 evidence sets scored with Ev2R ({seconds:.0f} s), battles on "
              f"`{args.score_field}` with margin {args.margin} (ties = half wins), {result['n_battles']} battles; "
              f"Bradley-Terry MLE on the Elo scale (mean 1000), 95% CI from {args.bootstrap} bootstrap resamples of "
              f"items (seed {args.seed}); Elo: K=4, averaged over 20 seeded battle orders. Equivalent CLI: "
              f"`ev2r rank {scores_path.relative_to(bl.REPO)} --score-field {args.score_field} -o ranking.json`.\n")
    md.append("Expected order: reference > reference_half > baseline > baseline_first_pair ~ other_claim.\n")
    md.append(ranking_table(result, args.score_field))
    if result["warnings"]:
        md.append("\nWarnings: " + "; ".join(result["warnings"]) + "\n")
    md.append("\nForest plot: `ranking_forest.png`.\n")
    (out / "ranking.md").write_text("\n".join(md), encoding="utf-8")
    print(f"wrote {out / 'ranking.md'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
