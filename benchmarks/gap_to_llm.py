"""Where the offline Ev2R recall loses to GPT-4o's: in the facts, or in the support judgement?

    python benchmarks/gap_to_llm.py --model bundled --decomposers rules-v1,rules-v2 \
        --out benchmarks/results/gap_to_llm

On the rated AVeriTeC rows whose recorded GPT-4o reply parses (`ev2r_replay`, 73 of the 86), each
row's reference-side recall is computed four ways and correlated (Spearman, 95% percentile
bootstrap CI over rows) with the human semantic-coverage rating:

* ``gpt4o``: GPT-4o's own recall (its facts, its judgement; the published 0.509);
* ``verifier_on_gpt4o_facts``: GPT-4o's reference facts, judged by our verifier against the
  predicted evidence (each fact a hypothesis, each predicted Q/A pair a premise, max P(entailment)
  >= 0.5) -- the judgement alone;
* ``verifier_on_<decomposer>``: our facts, our verifier -- the offline recall as shipped;
* ``verifier_on_<decomposer>_stmt_premises``: the same, with each predicted pair's premise written
  as that pair's declarative statements (rules-v2) instead of ``Question: ...\\nAnswer: ...``.

Fact agreement per decomposer: facts per side (ours vs GPT-4o's), and how often a GPT-4o
reference fact is entailed by one of our reference facts (coverage of theirs) and one of ours by
one of theirs (coverage of ours), by the same verifier.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _benchlib as bl  # noqa: E402
from correlation import correlate  # noqa: E402


def _recall_from_support(probs: list[float], threshold: float) -> float | None:
    return None if not probs else float(np.mean([p >= threshold for p in probs]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(bl.DATA / "ev2r_human_eval" / "averitec_manual_eval_subset.jsonl"))
    ap.add_argument("--replay", default=str(bl.DATA / "ev2r_replay" / "replay_atomic_reference_prec_recall.jsonl"))
    ap.add_argument("--replay-model", default="gpt-4o-2024-05-13")
    ap.add_argument("--model", default="bundled", help="verifier: bundled, a checkpoint path or a hub id")
    ap.add_argument("--dtype", default=None, help="verifier dtype (when the verifier supports it)")
    ap.add_argument("--decomposers", default="rules-v1,rules-v2")
    ap.add_argument("--rating", default="semantic_coverage")
    ap.add_argument("--threshold", type=float, default=0.5)
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument("--out", default=None, help="write OUT.md and OUT.json")
    args = ap.parse_args(argv)

    from ev2r.facts.declarative import qa_to_statements
    from ev2r.facts.rules import get_rule_decomposer, split_sentences
    from ev2r.io.readers import read_items
    from ev2r.metric.reference import pair_premises
    from ev2r.facts.replay import ReplayReferenceScorer

    items = read_items(args.data)
    replay = ReplayReferenceScorer(args.replay, model=args.replay_model).score_reference(items)
    rows = [(it, r) for it, r in zip(items, replay) if r.status == "ok" and r.reference_facts]
    rating = [(it.extra.get("human_ratings") or {}).get(args.rating) for it, _ in rows]
    kwargs = {"dtype": args.dtype} if args.dtype else {}
    ver = bl.load(args.model, **kwargs)
    t0 = time.time()

    def max_entail(premises_per_row, hyps_per_row) -> list[list[float]]:
        prem, hyp, spans = [], [], []
        for ps, hs in zip(premises_per_row, hyps_per_row):
            row = []
            for h in hs:
                row.append((len(prem), len(prem) + len(ps)))
                prem.extend(ps)
                hyp.extend([h] * len(ps))
            spans.append(row)
        probs = ver.predict(prem, hyp)[:, 0] if prem else np.zeros(0)
        return [[float(probs[a:b].max()) if b > a else 0.0 for a, b in row] for row in spans]

    def stmt_premises(evidence) -> list[str]:
        out = []
        for p in evidence.pairs:
            if p.answer.strip():
                out.append(" ".join(s for s, _ in qa_to_statements(p.question, split_sentences(p.answer))))
        return out

    pred_prem = [pair_premises(it.predicted_evidence) for it, _ in rows]
    pred_stmt = [stmt_premises(it.predicted_evidence) for it, _ in rows]
    gpt_ref_facts = [[f.fact for f in r.reference_facts] for _, r in rows]
    columns = {"gpt4o": [r.recall for _, r in rows]}
    columns["verifier_on_gpt4o_facts"] = [_recall_from_support(p, args.threshold)
                                          for p in max_entail(pred_prem, gpt_ref_facts)]
    columns["verifier_on_gpt4o_facts_stmt_premises"] = [_recall_from_support(p, args.threshold)
                                                        for p in max_entail(pred_stmt, gpt_ref_facts)]
    agreement = {}
    for name in [d.strip() for d in args.decomposers.split(",") if d.strip()]:
        dec = get_rule_decomposer(name)
        ours = [[f.text for f in dec.decompose(it.reference_evidence, it.claim)] for it, _ in rows]
        columns[f"verifier_on_{name}"] = [_recall_from_support(p, args.threshold) for p in max_entail(pred_prem, ours)]
        columns[f"verifier_on_{name}_stmt_premises"] = [_recall_from_support(p, args.threshold)
                                                        for p in max_entail(pred_stmt, ours)]
        theirs_covered = max_entail(ours, gpt_ref_facts)   # a GPT-4o fact entailed by one of ours
        ours_covered = max_entail(gpt_ref_facts, ours)     # one of ours entailed by one of GPT-4o's
        flat_t = [p >= args.threshold for row in theirs_covered for p in row]
        flat_o = [p >= args.threshold for row in ours_covered for p in row]
        agreement[name] = {"facts_ours": int(sum(len(o) for o in ours)),
                           "facts_gpt4o": int(sum(len(g) for g in gpt_ref_facts)),
                           "gpt4o_fact_entailed_by_ours": round(float(np.mean(flat_t)), 4) if flat_t else None,
                           "our_fact_entailed_by_gpt4o": round(float(np.mean(flat_o)), 4) if flat_o else None}
    elapsed = time.time() - t0
    table = {name: correlate(vals, rating, n_boot=args.n_boot) for name, vals in columns.items()}
    info = {"command": bl.command(), "machine": bl.machine(), "verifier": bl.verifier_info(args.model, ver),
            "rows": len(rows), "rows_in_file": len(items), "rating": args.rating, "seconds": round(elapsed, 1),
            "spearman": table, "fact_agreement": agreement,
            "means": {k: float(np.mean([v for v in vals if v is not None])) for k, vals in columns.items()}}

    def ci(v):
        return "" if not v else f" [{v[0]:+.2f}, {v[1]:+.2f}]"

    lines = [bl.header("Gap to GPT-4o's recall: facts vs judgement", info), "",
             f"Rows: {len(rows)} of {len(items)} (those whose recorded {args.replay_model} reply parses); rating "
             f"`{args.rating}`; support = max P(entailment) over premises >= {args.threshold}; {elapsed:.1f} s.", "",
             "| recall computed by | mean recall | Spearman [95% CI] | n |", "|---|---|---|---|"]
    for name, r in table.items():
        sp = "–" if r["spearman"] is None else f"{r['spearman']:+.3f}"
        lines.append(f"| {name} | {info['means'][name]:.3f} | {sp}{ci(r.get('spearman_ci95'))} | {r['n']} |")
    lines += ["", "`stmt_premises`: each predicted Q/A pair given to the verifier as its rules-v2 statements "
                  "instead of `Question: ...\\nAnswer: ...`.", "",
              "Fact agreement on the reference side (same verifier, entailment >= threshold):", "",
              "| decomposer | our facts | GPT-4o facts | GPT-4o fact entailed by one of ours | our fact entailed by one of GPT-4o's |",
              "|---|---|---|---|---|"]
    for name, a in agreement.items():
        lines.append(f"| {name} | {a['facts_ours']} | {a['facts_gpt4o']} | {a['gpt4o_fact_entailed_by_ours']} | "
                     f"{a['our_fact_entailed_by_gpt4o']} |")
    md = "\n".join(lines) + "\n"
    print(md)
    if args.out:
        bl.write(Path(args.out), md, info)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
