"""`ev2r score` without the on-disk cache, with an empty one (cold: it fills it) and with the cache the cold run
filled (warm), rounds interleaved (the cache: work done once across runs).

Each run is a fresh process (import, model load, scoring, writing), timed by wall clock and by the child's CPU (user +
system, from os.wait4) with its peak resident memory; each round's cold run starts from a new empty folder and its
warm run reads it. The rows are compared: warm against cold byte for byte (the run that filled the cache), and
without-cache against cold field by field (the largest difference of any number).

    python benchmarks/speed/score_cache.py --input ../shared/data/ev2r_human_eval/averitec_manual_eval_subset.jsonl \
        --rounds 3 --out benchmarks/results/score_cache_86
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib
import _benchlib as bl  # noqa: E402

from ev2r.verifier.cache import CACHE_FILE  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
MODES = ("no cache", "cold", "warm")


def run_once(inp: str, out: Path, cache: "Path | None", extra: list) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    argv = ["-m", "ev2r.cli.main", "score", inp, "-o", str(out), "--json", "--no-progress", "--no-resume",
            *extra] + (["--cache", str(cache)] if cache is not None else [])
    res = bl.timed_score(argv, REPO, env, str(out) + ".stderr", "score_cache")
    summary = res.pop("summary")
    note = next((line for line in res.pop("stderr").splitlines() if line.startswith("ev2r score: cache ")), "")
    note = note.replace(str(cache / CACHE_FILE), "DIR/" + CACHE_FILE) if cache is not None else note  # no tmp path
    return {**res, "ev2r": summary.get("ev2r"), "ev2r_hybrid": summary.get("ev2r_hybrid"), "n": summary.get("n"),
            "cache_note": note, "rows": out.read_text(encoding="utf-8")}


def largest_difference(a: str, b: str) -> float:
    """The largest absolute difference between two runs' rows over every number (fields in the same places)."""
    worst = 0.0

    def walk(x, y):
        nonlocal worst
        if isinstance(x, bool) or isinstance(y, bool):
            return
        if isinstance(x, (int, float)) and isinstance(y, (int, float)):
            worst = max(worst, abs(float(x) - float(y)))
        elif isinstance(x, dict) and isinstance(y, dict):
            for k in x.keys() & y.keys():
                walk(x[k], y[k])
        elif isinstance(x, list) and isinstance(y, list):
            for u, v in zip(x, y):
                walk(u, v)

    for la, lb in zip(a.splitlines(), b.splitlines()):
        walk(json.loads(la), json.loads(lb))
    return worst


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", required=True, help="an ev2r score input (JSONL)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", required=True, help="OUT.md and OUT.json are written")
    ap.add_argument("--score-args", default="", help="more ev2r score options, one string (e.g. '--explain')")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error(f"--rounds: must be >= 1, got {args.rounds}")
    inp = str(Path(args.input).resolve())
    if not Path(inp).is_file():
        ap.error(f"--input: no such file: {args.input}")
    extra = args.score_args.split()
    runs: dict[str, list] = {m: [] for m in MODES}
    checks = []
    with tempfile.TemporaryDirectory(prefix="ev2r_cache_bench_") as tmp:
        for r in range(args.rounds):
            cache = Path(tmp) / f"cache{r}"
            got = {}
            for mode in MODES:
                got[mode] = run_once(inp, Path(tmp) / f"{mode.replace(' ', '_')}{r}.jsonl",
                                     None if mode == "no cache" else cache, extra)
                size = (cache / "ev2r-cache.sqlite").stat().st_size / 1e6 if mode == "cold" else None
                got[mode]["cache_mb"] = size
                runs[mode].append({k: v for k, v in got[mode].items() if k != "rows"})
                x = got[mode]
                print(f"round {r + 1} {mode}: {x['wall_s']:.1f} s wall, {x.get('cpu_s', 0):.1f} CPU s, "
                      f"{x['max_rss_mb']:.0f} MB, load {x['load_1m']:.2f}  {x['cache_note']}", flush=True)
            checks.append({"warm_rows_equal_cold": got["warm"]["rows"] == got["cold"]["rows"],
                           "no_cache_vs_cold_max_abs": largest_difference(got["no cache"]["rows"], got["cold"]["rows"])})
            shutil.rmtree(cache, ignore_errors=True)
    machine = bl.machine()
    best = {m: min(x["wall_s"] for x in v) for m, v in runs.items()}
    best_cpu = {m: min(x["cpu_s"] for x in v) for m, v in runs.items()}
    lines = [f"# `ev2r score --cache` on {Path(args.input).name}: no cache, cold, warm", "",
             f"Command: `python {' '.join(sys.argv)}`", "", f"Machine: {machine}", "",
             "Each run a fresh process (import, load, scoring, write), rounds interleaved (no cache, cold, warm); a "
             "round's cold run fills a new empty cache folder and its warm run reads it; best of the rounds.", "",
             "| run | rounds: wall s (CPU s, load) | best wall s | x no cache | best CPU s | peak RSS MB | ev2r | "
             "ev2r_hybrid |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for m, v in runs.items():
        rounds = "; ".join(f"{x['wall_s']:.1f} ({x['cpu_s']:.1f}, {x['load_1m']:.2f})" for x in v)
        lines.append(f"| {m} | {rounds} | {best[m]:.1f} | {best[m] / best['no cache']:.2f} | {best_cpu[m]:.1f} | "
                     f"{max(x['max_rss_mb'] for x in v):.0f} | {v[0]['ev2r']:.4f} | {v[0]['ev2r_hybrid']:.4f} |")
    sizes = [x["cache_mb"] for x in runs["cold"] if x["cache_mb"] is not None]
    lines += ["", f"Cache file after the cold run: {max(sizes):.1f} MB. What the runs said: "
              f"cold `{runs['cold'][0]['cache_note']}`; warm `{runs['warm'][0]['cache_note']}`.", "",
              "Rows: warm identical to cold, byte for byte, in every round: "
              f"{all(c['warm_rows_equal_cold'] for c in checks)}; largest difference of any number between the run "
              f"without the cache and the cold run: {max(c['no_cache_vs_cold_max_abs'] for c in checks):.3g} "
              "(0 where the verifier's pass is batch-invariant; docs/metric.md, Determinism)."]
    Path(args.out + ".md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    Path(args.out + ".json").write_text(json.dumps({"machine": machine, "runs": runs, "checks": checks}, indent=1),
                                        encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
