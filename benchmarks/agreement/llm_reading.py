"""Which reading of an LLM reply agrees better with people: per-fact checks or stated counts?

    python benchmarks/agreement/llm_reading.py --out benchmarks/results/llm_reading

The replay files of ``benchmarks/agreement/llm_record.py`` (default: the 1.5B model's on both development
sets) read with ``--reply-reading checks`` and with ``counts``; Spearman with the human ratings
(95% bootstrap CI) and the paired difference checks - counts on the rows both readings score
(paired bootstrap, ``benchmarks/agreement/correlation.py``). Offline, seconds.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402
from correlation import correlate, paired_spearman_diff, ratings_of  # noqa: E402

REPLAY = bl.REPO / "benchmarks" / "data" / "llm_replay"
DEFAULT = [("86", bl.DATA / "ev2r_human_eval" / "averitec_manual_eval_subset.jsonl",
            REPLAY / "qwen2.5-coder-1.5b-instruct_86.jsonl"),
           ("144", bl.DATA / "ev2r_human_eval" / "averitec_shared_task_dev.jsonl",
            REPLAY / "qwen2.5-coder-1.5b-instruct_144.jsonl")]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)

    from ev2r.facts.replay import ReplayReferenceScorer
    from ev2r.llm.prompts import example_facts_of
    from ev2r.io.readers import read_items

    lines = ["# Reading LLM replies: per-fact checks vs stated counts", "", f"Command: `{bl.command()}`", "",
             "| file | score | rating | checks | counts | checks - counts (paired, 95% CI) |", "|---|---|---|---|---|---|"]
    data: dict = {}
    for name, path, rep in DEFAULT:
        if not Path(rep).exists():
            continue
        items = read_items(path)
        rat = ratings_of(items)
        res = {m: ReplayReferenceScorer(rep, scores_from=m, example_facts=example_facts_of).score_reference(items) for m in ("checks", "counts")}
        for score in ("precision", "recall", "f1"):
            a, b = ([getattr(r, score) if r.status == "ok" else None for r in res[m]] for m in ("checks", "counts"))
            for rt in ("semantic_coverage", "verdict_agreement"):
                ca, cb = correlate(a, rat[rt], args.n_boot), correlate(b, rat[rt], args.n_boot)
                rows = [i for i in range(len(items)) if None not in (a[i], b[i], rat[rt][i])]
                d = paired_spearman_diff([a[i] for i in rows], [b[i] for i in rows], [rat[rt][i] for i in rows],
                                         args.n_boot)
                data[f"{name}|{score}|{rt}"] = {"checks": ca, "counts": cb, "diff": d}
                lo, hi = d["ci95"]
                verdict = "checks wins" if lo > 0 else "counts wins" if hi < 0 else "tie"
                lines.append(f"| {name} | {score} | {rt} | {ca['spearman']:+.3f} (n={ca['n']}) | "
                             f"{cb['spearman']:+.3f} (n={cb['n']}) | {d['diff']:+.3f} [{lo:+.3f}, {hi:+.3f}] {verdict} |")
    lines += ["", "The default (`checks`, the definition) is kept only if it loses on neither development set."]
    md = "\n".join(lines) + "\n"
    print(md)
    if args.out:
        bl.write(args.out, md, data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
