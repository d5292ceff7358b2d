"""The AVeriTeC 2025 (FEVER-8) table with a local instruct LLM as judge, on the first claims of the parity fixture.

    python benchmarks/parity/averitec2025_llm.py --first 20 --serve 1.5b     # asks a local llama.cpp server
    python benchmarks/parity/averitec2025_llm.py --first 20 --offline         # rebuilds the table from the recorded answers

Runs ``ev2r averitec --edition 2025 --judge llm`` on the first ``--first`` claims of
``averitec/parity/predictions_1.json`` against the same claims of ``averitec/dev.json`` (``--join
position``; the 2025 table scores every gold claim it is given, so both files are cut to the same
claims), with Qwen2.5-Coder-1.5B-Instruct (``scripts/install_llm_server.sh --with-1.5b``) served by
llama-cpp-python on this machine's CPU threads. **It is not the official judge** (the organisers used
Llama-3.3-70B-Instruct): the numbers say what the pipeline does with a small judge that follows the
prompt -- wall-clock time per claim, judgement failures by cause, the LLM accounting -- not what the
leaderboard would say. The same claims are also scored with ``--judge bundled`` (the offline NLI verifier).

Every answer goes into ``--cache`` (default ``benchmarks/data/llm_replay/averitec2025_qwen1.5b``, the
content-addressed cache of :mod:`ev2r.llm.cache`), so ``--offline`` rebuilds the table without a server
(``--llm-offline``). Writes OUT.md, OUT.json and OUT_claims.jsonl (the per-claim rows).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402

DEFAULT_CACHE = bl.REPO / "benchmarks" / "data" / "llm_replay" / "averitec2025_qwen1.5b"


def run_ev2r(args: list[str]) -> tuple[float, str, str]:
    """``ev2r ARGS`` in a fresh process: (wall-clock seconds, stdout, stderr); exits on a non-zero status."""
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "ev2r.cli.main", *args], capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if out.returncode != 0:
        raise SystemExit(f"ev2r {' '.join(args)} exited {out.returncode}:\n{out.stderr[-3000:]}")
    return dt, out.stdout, out.stderr


def cut(data: Path, first: int, folder: Path) -> tuple[Path, Path]:
    """The first ``first`` claims of the parity predictions and of dev.json, written to ``folder``."""
    pred = json.loads((data / "parity" / "predictions_1.json").read_text(encoding="utf-8"))[:first]
    gold = json.loads((data / "dev.json").read_text(encoding="utf-8"))[:first]
    if len(pred) < first or len(gold) < first:
        raise SystemExit(f"--first: {first} claims asked, the fixture has {min(len(pred), len(gold))}")
    (folder / "pred.json").write_text(json.dumps(pred), encoding="utf-8")
    (folder / "gold.json").write_text(json.dumps(gold), encoding="utf-8")
    return folder / "pred.json", folder / "gold.json"


def statuses(rows: list[dict]) -> dict:
    """Claims by status and judgement failures by part and cause."""
    failures: Counter = Counter()
    for r in rows:
        for part, cause in (r.get("failures") or {}).items():
            failures[f"{part}: {cause}"] += 1
    return {"status": dict(Counter(r["status"] for r in rows)), "failures": dict(failures)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=bl.DATA / "averitec",
                    help="the shared data's averitec/ folder (dev.json, parity/predictions_1.json)")
    ap.add_argument("--first", type=int, default=10, help="claims from the start of the fixture (>= 1; the committed "
                                                          "answers cover the first 10)")
    ap.add_argument("--serve", choices=("0.5b", "1.5b"), default="1.5b", help="the installer's Qwen instruct model")
    ap.add_argument("--threads", type=int, default=2, help="llama.cpp threads")
    ap.add_argument("--offline", action="store_true", help="no server: answers only from --cache")
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                    help="the judge's answers (ev2r.llm.cache folder): filled by a served run, read by --offline")
    ap.add_argument("--out", type=Path, default=None,
                    help="prefix of the outputs: OUT.md, OUT.json, OUT_claims.jsonl (default: "
                         "benchmarks/results/averitec2025_llm, or averitec2025_llm_offline with --offline, so that a "
                         "rebuild never overwrites the recorded run's table)")
    args = ap.parse_args(argv)
    if args.first < 1:
        ap.error(f"--first: must be >= 1, got {args.first}")
    if args.out is None:
        args.out = bl.RESULTS / ("averitec2025_llm_offline" if args.offline else "averitec2025_llm")
    inputs = [args.data / "dev.json", args.data / "parity" / "predictions_1.json"]
    for suffix in (".md", ".json", "_claims.jsonl"):
        target = Path(f"{args.out}{suffix}")
        if any(target.resolve() == p.resolve() for p in inputs) or args.cache.resolve() in target.resolve().parents:
            ap.error(f"--out: {target} would overwrite an input (the fixture or the recorded answers)")
        if target.exists() and not target.is_file():
            ap.error(f"--out: {target} exists and is not a file")
    if not args.out.parent.is_dir():
        ap.error(f"--out: the folder {args.out.parent} does not exist")
    if args.offline and not any(args.cache.glob("*/*.json")):
        ap.error(f"--offline: no recorded answers in --cache {bl.display_path(args.cache)} (run once with a server "
                 "to fill it, or point --cache at the folder that holds them)")
    from ev2r.llm.local_server import INSTRUCT_MODELS

    alias = INSTRUCT_MODELS[args.serve][0]
    server = None
    with tempfile.TemporaryDirectory() as tmp:
        pred, gold = cut(args.data, args.first, Path(tmp))
        base = ["averitec", str(pred), "--references", str(gold), "--edition", "2025", "--join", "position", "--json"]
        try:
            if args.offline:
                url, server_note = "http://127.0.0.1:9/v1", "none (--offline: every answer from the cache)"
            else:
                from ev2r.llm.local_server import LlamaServer, find_instruct_gguf

                server = LlamaServer(find_instruct_gguf(args.serve), alias=alias, threads=args.threads, n_ctx=8192,
                                     log=Path(tmp) / "server.log", ready_timeout=600.0)
                url = server.base_url
                server_note = (f"llama-cpp-python server, {args.threads} CPU threads, n_ctx 8192 (ready in "
                               f"{server.ready_seconds:.1f} s, first chat {server.first_chat_seconds:.1f} s)")
            llm = ["--judge", "llm", "--llm-base-url", url, "--llm-model", alias, "--llm-cache", str(args.cache),
                   "--llm-concurrency", "1", "-o", str(Path(tmp) / "llm.jsonl")] + (["--llm-offline"] if args.offline else [])
            t_llm, out_llm, err_llm = run_ev2r(base + llm)
        finally:
            if server is not None:
                server.stop()
        t_nli, out_nli, _ = run_ev2r(base + ["--judge", "bundled", "-o", str(Path(tmp) / "nli.jsonl")])
        rows_llm = bl.read_jsonl(Path(tmp) / "llm.jsonl")
        rows_nli = bl.read_jsonl(Path(tmp) / "nli.jsonl")
    missing = [r["claim_id"] for r in rows_llm if "replay_missing" in (r.get("failures") or {}).values()]
    if args.offline and missing:
        raise SystemExit(f"averitec2025_llm: --offline: no recorded answers for claims {missing[:10]} in --cache "
                         f"{bl.display_path(args.cache)}; rebuild with --first at most the recorded run's (nothing written)")
    table_llm, table_nli = json.loads(out_llm), json.loads(out_nli)
    accounting = next((line[5:] for line in err_llm.splitlines() if line.startswith("llm: ")), "")
    st_llm, st_nli = statuses(rows_llm), statuses(rows_nli)
    meta = bl.machine()

    def score_row(name: str, t: dict) -> str:
        s = t.get(name) or {}
        judged = "n/a" if s.get("judged") is None else f"{s['judged']:.3f}"
        return f"{judged} ({s.get('n_judged', 0)} judged) / {s.get('failures_as_zero', 0.0):.3f}"

    md = ["# AVeriTeC 2025 (FEVER-8) table with a small local LLM judge", "",
          f"Command: `{bl.command()}`", "",
          f"Machine: {meta['platform']}, {meta['cpu_count']} CPUs, Python {meta['python']}, {meta['utc']}, "
          f"1-min load average {meta['load_average_1m']}.", "",
          f"Input: the first {args.first} claims of `parity/predictions_1.json` against the same claims of `dev.json` "
          "(`--join position`). **Not the official judge** (the organisers': Llama-3.3-70B-Instruct) and not the "
          "whole fixture: what the 2025 pipeline does with a small instruct judge, not a leaderboard number.", "",
          f"Judge: `{alias}` (Qwen2.5-Coder instruct GGUF); server: {server_note}; answers recorded in "
          f"`{bl.display_path(args.cache)}` (`--offline` rebuilds this table from them).", "",
          "| | LLM judge | bundled NLI verifier |", "|---|---|---|",
          f"| wall-clock seconds (process start and model load included{'; LLM answers replayed' if args.offline else ''}) "
          f"| {t_llm:.1f} | {t_nli:.1f} |",
          f"| seconds per claim | {t_llm / args.first:.1f} | {t_nli / args.first:.2f} |",
          f"| claims by status | {st_llm['status']} | {st_nli['status']} |",
          f"| judgement failures (part: cause) | {st_llm['failures'] or 'none'} | {st_nli['failures'] or 'none'} |",
          "| Q-only Ev2R recall: judged mean / failures as 0 | "
          f"{score_row('question_only', table_llm)} | {score_row('question_only', table_nli)} |",
          "| Q+A Ev2R recall: judged mean / failures as 0 | "
          f"{score_row('question_answer', table_llm)} | {score_row('question_answer', table_nli)} |",
          "| new AVeriTeC score: judged mean / failures as 0 | "
          f"{score_row('new_averitec', table_llm)} | {score_row('new_averitec', table_nli)} |", "",
          f"LLM accounting: `{accounting or 'n/a'}`", "",
          f"Signatures: LLM `{table_llm.get('signature')}`; bundled `{table_nli.get('signature')}`.", ""]
    data = {"command": bl.command(), "machine": meta, "first": args.first, "judge_model": alias,
            "offline": args.offline, "seconds_llm": t_llm, "seconds_bundled": t_nli, "llm_accounting": accounting,
            "statuses_llm": st_llm, "statuses_bundled": st_nli, "table_llm": table_llm, "table_bundled": table_nli}
    bl.write(args.out, "\n".join(md), data)
    with open(f"{args.out}_claims.jsonl", "w", encoding="utf-8") as fh:
        for a, b in zip(rows_llm, rows_nli):
            fh.write(json.dumps({"claim_id": a["claim_id"], "llm": a, "bundled": b}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
