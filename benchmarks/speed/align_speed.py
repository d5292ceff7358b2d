"""Speed of claimalign.align and of Hungarian METEOR.

1. 1,000 alignments of 10x10 similarity matrices (precomputed, seeded random) with
   ``claimalign.align``, against a bare ``scipy.optimize.linear_sum_assignment`` loop.
2. Hungarian METEOR (question+answer) over the rows of the Ev2R manual-evaluation subset with
   ``claimalign.hu_meteor_batch`` (each distinct string tokenised once, each distinct pair
   scored once) against a plain all-pairs loop (``word_tokenize`` + nltk METEOR for every pair,
   as the official scorer does); both give the same values (checked).
3. End to end, in process (file read to summary written): ``ev2r score --scorer hu-meteor`` over
   the same rows (no verifier is loaded), and the 2024 ``ev2r averitec`` table over
   ``averitec/parity/predictions_1.json`` (500 claims) with ``--meteor fast`` (default) and
   ``--meteor nltk`` (nltk's METEOR per pair); the official ``eval.py`` took 80-88 s for that file on
   this machine type (recorded, it is not shipped here).

Writes ``benchmarks/results/align_speed.{md,json}``. Timings are wall-clock on a shared machine.

Usage (from the repository root):  python benchmarks/speed/align_speed.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402


def best_of(fn, repeats):
    times = []
    out = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), float(np.median(times)), out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-matrices", type=int, default=1000)
    ap.add_argument("--size", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--human-eval", default="../shared/data/ev2r_human_eval/averitec_manual_eval_subset.jsonl")
    ap.add_argument("--nltk-data", default="../shared/data/nltk_data")
    ap.add_argument("--out-dir", default="benchmarks/results")
    ap.add_argument("--averitec", default="../shared/data/averitec",
                    help="folder with dev.json and parity/predictions_1.json ('' skips the table timing)")
    args = ap.parse_args(argv)
    if args.n_matrices < 1 or args.size < 1 or args.repeats < 1:
        raise SystemExit("--n-matrices, --size and --repeats must be >= 1")
    if args.nltk_data and "NLTK_DATA" not in os.environ:
        os.environ["NLTK_DATA"] = str(Path(args.nltk_data).resolve())

    from nltk import word_tokenize
    from nltk.translate.meteor_score import single_meteor_score
    from scipy.optimize import linear_sum_assignment

    from claimalign import align, hu_meteor_batch
    from ev2r.io import parse_qa_text
    from claimalign import meteor_fast
    from claimalign.averitec import pair_strings

    rng = np.random.default_rng(args.seed)
    mats = rng.random((args.n_matrices, args.size, args.size))
    align([[0.5]])  # import scipy outside the timing
    t_align, t_align_med, res = best_of(lambda: [align(m) for m in mats], args.repeats)
    t_lsa, t_lsa_med, _ = best_of(lambda: [linear_sum_assignment(m, maximize=True) for m in mats], args.repeats)

    rows = [json.loads(line) for line in open(args.human_eval, encoding="utf-8") if line.strip()]
    preds = [parse_qa_text(r["predicted_evidence"]) for r in rows]
    refs = [parse_qa_text(r["reference_evidence"]) for r in rows]
    single_meteor_score(word_tokenize("warm up wordnet"), word_tokenize("warm up"))  # load WordNet/punkt first

    def plain():
        out = []
        for p, r in zip(preds, refs):
            ps, rs = pair_strings(p, "qa")[:10], pair_strings(r, "qa")
            x = np.array([[single_meteor_score(word_tokenize(b), word_tokenize(a)) for b in rs] for a in ps])
            if x.size == 0:
                out.append(0.0)
                continue
            i, j = linear_sum_assignment(x, maximize=True)
            out.append(x[i, j].sum() / len(rs))
        return np.array(out)

    def ours_cold():
        meteor_fast.tokenize.cache_clear()
        from claimalign.meteor_fast import meteor_tokens_fast

        meteor_tokens_fast.cache_clear()
        return hu_meteor_batch(preds, refs, "qa")

    t_plain, t_plain_med, v_plain = best_of(plain, args.repeats)
    t_hu, t_hu_med, v_hu = best_of(ours_cold, args.repeats)
    max_diff = float(np.max(np.abs(v_plain - v_hu)))
    n_pairs = sum(min(len(p), 10) * len(r) for p, r in zip(preds, refs))

    # 3. end to end through the CLI, in process; caches cleared before each run
    import tempfile

    from claimalign.meteor_fast import meteor_tokens_fast
    from ev2r.cli.main import main as ev2r_main

    def cold(fn):
        def run():
            meteor_fast.tokenize.cache_clear()
            meteor_tokens_fast.cache_clear()
            return fn()
        return run

    tmp = Path(tempfile.mkdtemp())

    def cli_hu():
        assert ev2r_main(["score", args.human_eval, "--scorer", "hu-meteor", "-o", str(tmp / "hu.jsonl"),
                          "--no-progress", "--json"]) == 0
        return [json.loads(x)["hu_meteor"] for x in open(tmp / "hu.jsonl", encoding="utf-8")]

    import contextlib
    import io

    def quiet(fn):
        def run():
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                return fn()
        return run

    t_cli, t_cli_med, v_cli = best_of(quiet(cold(cli_hu)), args.repeats)
    cli_diff = float(np.max(np.abs(np.array(v_cli) - v_plain)))
    table = {}
    if args.averitec:
        av = Path(args.averitec)
        for how in ("fast", "nltk"):
            def tab(how=how):
                assert ev2r_main(["averitec", str(av / "parity" / "predictions_1.json"), "--references",
                                  str(av / "dev.json"), "--meteor", how, "--json"]) == 0
            table[how] = best_of(quiet(cold(tab)), 1 if how == "nltk" else args.repeats)[:2]

    meta = bl.machine()
    cmd = "python " + " ".join([Path(sys.argv[0]).as_posix()] + (argv if argv is not None else sys.argv[1:]))
    record = {"command": cmd, "machine": meta, "repeats": args.repeats, "seed": args.seed,
              "align": {"n_matrices": args.n_matrices, "size": args.size, "claimalign_align_s": t_align,
                        "claimalign_align_median_s": t_align_med, "bare_linear_sum_assignment_s": t_lsa,
                        "bare_linear_sum_assignment_median_s": t_lsa_med,
                        "mean_score": float(np.mean([r.score for r in res]))},
              "hu_meteor": {"n_rows": len(rows), "n_meteor_pairs": n_pairs, "claimalign_batch_s": t_hu,
                            "claimalign_batch_median_s": t_hu_med, "plain_loop_s": t_plain,
                            "plain_loop_median_s": t_plain_med, "max_abs_difference": max_diff,
                            "cli_score_hu_meteor_s": t_cli, "cli_score_hu_meteor_median_s": t_cli_med,
                            "cli_max_abs_difference": cli_diff},
              "averitec_2024_table_s": {k: {"best": v[0], "median": v[1]} for k, v in table.items()},
              "official_eval_py_recorded_s": [80, 88]}
    L = ["# Alignment and Hungarian METEOR speed", "",
         f"Best of {args.repeats} runs (median in brackets), wall-clock seconds.", "",
         "| task | claimalign | baseline | baseline is |", "|---|---:|---:|---|",
         f"| align {args.n_matrices} precomputed {args.size}x{args.size} matrices | {t_align:.3f} ({t_align_med:.3f}) | "
         f"{t_lsa:.3f} ({t_lsa_med:.3f}) | bare `linear_sum_assignment` loop (no padding, no result object) |",
         f"| Hungarian METEOR (qa), {len(rows)} rows, {n_pairs} METEOR pairs | {t_hu:.2f} ({t_hu_med:.2f}) | "
         f"{t_plain:.2f} ({t_plain_med:.2f}) | plain all-pairs loop: word_tokenize + nltk METEOR per pair |",
         f"| `ev2r score --scorer hu-meteor`, {len(rows)} rows, end to end in process | {t_cli:.2f} ({t_cli_med:.2f}) | "
         f"{t_plain:.2f} | the plain loop above (the official scorer's computation; it took 4.3 s here as a script) |"]
    if table:
        L += [f"| `ev2r averitec` 2024 table, 500 claims (`--meteor fast`) | {table['fast'][0]:.2f} ({table['fast'][1]:.2f}) | "
              f"80-88 | official `eval.py` on the same file (recorded, not rerun) |",
              f"| `ev2r averitec` 2024 table, 500 claims (`--meteor nltk`) | {table['nltk'][0]:.2f} | 80-88 | same |"]
    L += ["",
         f"HU-METEOR of the CLI run differs from the plain loop by at most {cli_diff:.1e}.",
         f"Hungarian METEOR values of the two computations differ by at most {max_diff:.1e}. claimalign's run starts "
         "with empty tokenisation/METEOR caches each time (WordNet already loaded for both).", "",
         f"Command: `{cmd}`",
         f"Machine: {meta['platform']}, {meta['cpu_count']} CPUs (1-min load average {meta['load_average_1m']:.2f}: "
         f"shared with other jobs), Python {meta['python']}, {meta['utc']}"]
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "align_speed.md").write_text("\n".join(L) + "\n", encoding="utf-8")
    (out_dir / "align_speed.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print("\n".join(L))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
