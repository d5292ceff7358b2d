"""Where the offline Ev2R recall loses to GPT-4o's: in the facts, or in the support judgement?

    python benchmarks/agreement/gap_to_llm.py --model bundled --decomposers rules-v1,rules-v2 \
        --data 86=../shared/data/ev2r_human_eval/averitec_manual_eval_subset.jsonl \
        --data 144=../shared/data/ev2r_human_eval/averitec_shared_task_dev.jsonl --out benchmarks/results/gap_to_llm

One table, a column per rating file (default: both development sets). On the rated rows whose
recorded GPT-4o reply parses (`ev2r_replay`: 72 of the 86; the recordings exist for the 86-row file
only, and a recording counts only when its claim and predicted evidence are the row's), each row's
reference-side recall is computed four ways and correlated (Spearman, 95% percentile bootstrap CI
over rows) with the human semantic-coverage rating; on a file without recordings (the 144 rows),
every row, with our facts only (the GPT-4o rows of the table read `–`):

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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402
from correlation import correlate, markdown_table, multi_file_rows  # noqa: E402


def _recall_from_support(probs: list[float], threshold: float) -> float | None:
    return None if not probs else float(np.mean([p >= threshold for p in probs]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", action="append", default=None, metavar="[NAME=]PATH",
                    help="rating file (repeat for a column per file; NAME defaults to the row count); default: "
                         "both development sets, the 86 rows and the 144 shared-task rows")
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

    data = args.data or [str(bl.DATA / "ev2r_human_eval" / "averitec_manual_eval_subset.jsonl"),
                         str(bl.DATA / "ev2r_human_eval" / "averitec_shared_task_dev.jsonl")]
    try:
        specs = [bl.parse_named(s, "--data") for s in data]
        items_of = [read_items(p) for _, p in specs]
        names = bl.default_names([p for _, p in specs], [len(i) for i in items_of], [n for n, _ in specs])
    except ValueError as e:
        ap.error(str(e))
    replayer = ReplayReferenceScorer(args.replay, model=args.replay_model)
    kwargs = {"dtype": args.dtype} if args.dtype else {}
    ver = bl.load(args.model, **kwargs)
    decomposers = [d.strip() for d in args.decomposers.split(",") if d.strip()]
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

    per_file: dict = {}
    for fname, items in zip(names, items_of):
        # a recorded reply counts only when it was made for this row (ids of different rating files collide)
        match = [bl.replay_content_matches(replayer.records.get(str(it.id)), it) for it in items]
        replay = replayer.score_reference(items)
        with_replay = [(it, r) for it, r, ok in zip(items, replay, match) if ok and r.status == "ok" and r.reference_facts]
        # the rows whose GPT-4o reply parses, when the file has any (paired comparisons); else every row
        rows = with_replay or [(it, None) for it in items]
        rating = [(it.extra.get("human_ratings") or {}).get(args.rating) for it, _ in rows]
        pred_prem = [pair_premises(it.predicted_evidence) for it, _ in rows]
        pred_stmt = [stmt_premises(it.predicted_evidence) for it, _ in rows]
        columns: dict = {}
        agreement: dict = {}
        gpt_ref_facts = [[f.fact for f in r.reference_facts] for _, r in rows] if with_replay else None
        if gpt_ref_facts is not None:
            columns["gpt4o"] = [r.recall for _, r in rows]
            columns["verifier_on_gpt4o_facts"] = [_recall_from_support(p, args.threshold)
                                                  for p in max_entail(pred_prem, gpt_ref_facts)]
            columns["verifier_on_gpt4o_facts_stmt_premises"] = [_recall_from_support(p, args.threshold)
                                                                for p in max_entail(pred_stmt, gpt_ref_facts)]
        for name in decomposers:
            dec = get_rule_decomposer(name)
            ours = [[f.text for f in dec.decompose(it.reference_evidence, it.claim)] for it, _ in rows]
            columns[f"verifier_on_{name}"] = [_recall_from_support(p, args.threshold)
                                              for p in max_entail(pred_prem, ours)]
            columns[f"verifier_on_{name}_stmt_premises"] = [_recall_from_support(p, args.threshold)
                                                            for p in max_entail(pred_stmt, ours)]
            if gpt_ref_facts is None:
                continue
            theirs_covered = max_entail(ours, gpt_ref_facts)   # a GPT-4o fact entailed by one of ours
            ours_covered = max_entail(gpt_ref_facts, ours)     # one of ours entailed by one of GPT-4o's
            flat_t = [p >= args.threshold for row in theirs_covered for p in row]
            flat_o = [p >= args.threshold for row in ours_covered for p in row]
            agreement[name] = {"facts_ours": int(sum(len(o) for o in ours)),
                               "facts_gpt4o": int(sum(len(g) for g in gpt_ref_facts)),
                               "gpt4o_fact_entailed_by_ours": round(float(np.mean(flat_t)), 4) if flat_t else None,
                               "our_fact_entailed_by_gpt4o": round(float(np.mean(flat_o)), 4) if flat_o else None}
        table = {name: correlate(vals, rating, n_boot=args.n_boot) for name, vals in columns.items()}
        per_file[fname] = {
            "path": bl.display_path(dict(zip(names, [p for _, p in specs]))[fname]), "rows": len(rows), "rows_in_file": len(items),
            "rows_are": "replay_parses" if with_replay else "all",
            "replay_rows_for_another_claim": sum(str(it.id) in replayer.records and not ok
                                                 for it, ok in zip(items, match)),
            "spearman": table, "fact_agreement": agreement,
            "means": {k: (float(np.mean(v)) if (v := [x for x in vals if x is not None]) else None)
                      for k, vals in columns.items()}}
    elapsed = time.time() - t0
    info = {"command": bl.command(), "machine": bl.machine(), "verifier": bl.verifier_info(args.model, ver),
            "rating": args.rating, "replay_model": args.replay_model, "seconds": round(elapsed, 1), "files": per_file}

    methods = list(dict.fromkeys(k for pf in per_file.values() for k in pf["spearman"]))
    tables = {f: {f"{k}/{args.rating}": v for k, v in pf["spearman"].items()} for f, pf in per_file.items()}
    n_rows = {f: pf["rows"] for f, pf in per_file.items()}
    rows_md = multi_file_rows(tables, methods, [args.rating], n_rows)
    lines = [bl.header("Gap to GPT-4o's recall: facts vs judgement", info), "",
             f"Rating `{args.rating}`; support = max P(entailment) over premises >= {args.threshold}; "
             f"{elapsed:.1f} s for all files.", ""]
    for f, pf in per_file.items():
        if pf["rows_are"] == "replay_parses":
            lines.append(f"* `{f}` ({pf['path']}): {pf['rows']} of {pf['rows_in_file']} rows, those whose recorded "
                         f"{args.replay_model} reply parses (and was made for the row's claim and evidence), so "
                         "every method is compared on the same rows.")
        else:
            lines.append(f"* `{f}` ({pf['path']}): all {pf['rows']} rows; **no replayed {args.replay_model} outputs "
                         "exist for these rows**, so the `gpt4o` rows and the fact agreement are not available here "
                         "(`–`)" + (f"; {pf['replay_rows_for_another_claim']} row ids have a recording of another "
                                    "claim, not used" if pf["replay_rows_for_another_claim"] else "") + ".")
    lines += ["", "Spearman [95% CI] per file (`min over files`: the two-set rule; `(X only)`: the method exists for "
                  "some files only):", "",
              *markdown_table(rows_md, list(per_file), n_rows), "",
              "Mean recall:", "", "| recall computed by | " + " | ".join(per_file) + " |",
              "|---|" + "---|" * len(per_file)]
    for m in methods:
        cells = [("–" if (v := pf["means"].get(m)) is None else f"{v:.3f}") for pf in per_file.values()]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    lines += ["", "`stmt_premises`: each predicted Q/A pair given to the verifier as its rules-v2 statements "
                  "instead of `Question: ...\\nAnswer: ...`.", ""]
    for f, pf in per_file.items():
        if not pf["fact_agreement"]:
            continue
        lines += [f"Fact agreement on the reference side, `{f}` (same verifier, entailment >= threshold):", "",
                  "| decomposer | our facts | GPT-4o facts | GPT-4o fact entailed by one of ours | our fact entailed by "
                  "one of GPT-4o's |", "|---|---|---|---|---|"]
        for name, a in pf["fact_agreement"].items():
            lines.append(f"| {name} | {a['facts_ours']} | {a['facts_gpt4o']} | {a['gpt4o_fact_entailed_by_ours']} | "
                         f"{a['our_fact_entailed_by_gpt4o']} |")
        lines.append("")
    md = "\n".join(lines).rstrip("\n") + "\n"
    print(md)
    if args.out:
        bl.write(Path(args.out), md, info)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
