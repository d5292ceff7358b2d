"""Throughput of the LLM path on a local llama.cpp server.

    python benchmarks/speed/llm_throughput.py --measure --serve 1.5b --requests 4 \
        --server-log benchmarks/data/llm_replay/.server_qwen2.5-coder-1.5b-instruct.log \
        --out benchmarks/results/llm_throughput

Two parts, one table:

* ``--server-log FILE`` (repeatable): the per-request timings llama.cpp prints
  (``Llama.generate: N prefix-match hit, remaining M prompt tokens to eval``, ``prompt eval time``,
  ``eval time``) of a finished run, e.g. the recording of ``benchmarks/agreement/llm_record.py``: prompt
  tokens served from the reused prefix (the shipped prompts put their fixed instructions first
  for this), prefill and decode tokens/s, seconds per request.
* ``--measure``: the same ``--requests`` reference-based requests (the first rows of the 86-row
  file, the shipped ``reference_prf`` prompt, greedy) sent by the library's client at each
  ``--concurrency`` value, against a fresh server per ``--threads`` value: wall seconds,
  requests/s and completion tokens/s. Each configuration first sends one warm-up request (not
  counted) so that every configuration starts with the prompt prefix cached.

Timings depend on everything else the machine runs: the table records the 1-minute load average.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402

_PREFIX = re.compile(r"Llama\.generate: (\d+) prefix-match hit, remaining (\d+) prompt tokens to eval")
_PROMPT = re.compile(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens")
_EVAL = re.compile(r"\beval time =\s*([\d.]+) ms /\s*(\d+) runs")


def parse_server_log(text: str) -> list[dict]:
    """Per request: ``prefix_hit`` and ``prompt_eval`` tokens, prefill ms, ``decode`` tokens and ms
    (from llama.cpp's perf lines; a request whose prompt was wholly cached has no prompt line)."""
    out: list[dict] = []
    cur: dict = {}
    for line in text.splitlines():
        m = _PREFIX.search(line)
        if m:
            cur = {"prefix_hit": int(m.group(1)), "prompt_eval": int(m.group(2))}
            continue
        m = _PROMPT.search(line)
        if m and cur:
            cur["prefill_ms"], cur["prefill_tokens"] = float(m.group(1)), int(m.group(2))
            continue
        m = _EVAL.search(line)
        if m and cur and "prompt eval" not in line:
            cur["decode_ms"], cur["decode_tokens"] = float(m.group(1)), int(m.group(2))
            out.append(cur)
            cur = {}
    return out


def summarize_log(reqs: list[dict]) -> dict:
    if not reqs:
        return {"requests": 0}
    hit = np.array([r["prefix_hit"] for r in reqs], float)
    ev = np.array([r["prompt_eval"] for r in reqs], float)
    pf = [r["prefill_tokens"] / (r["prefill_ms"] / 1000) for r in reqs if r.get("prefill_ms")]
    dc = [r["decode_tokens"] / (r["decode_ms"] / 1000) for r in reqs if r.get("decode_ms")]
    secs = [(r.get("prefill_ms", 0) + r.get("decode_ms", 0)) / 1000 for r in reqs]
    return {"requests": len(reqs), "prefix_hit_mean": float(hit.mean()), "prompt_eval_mean": float(ev.mean()),
            "prompt_share_from_prefix": float(hit.sum() / (hit.sum() + ev.sum())),
            "prefill_tok_s_median": float(np.median(pf)) if pf else None,
            "decode_tok_s_median": float(np.median(dc)) if dc else None,
            "decode_tokens_mean": float(np.mean([r.get("decode_tokens", 0) for r in reqs])),
            "seconds_per_request_median": float(np.median(secs))}


def measure(size: str, threads: int, concurrencies: list[int], n_requests: int, log_dir: Path) -> list[dict]:
    from ev2r.io.readers import read_items
    from ev2r.llm import LLMClient, LLMReferenceScorer
    from ev2r.llm.local_server import INSTRUCT_MODELS, LlamaServer, find_instruct_gguf

    items = read_items(bl.DATA / "ev2r_human_eval" / "averitec_manual_eval_subset.jsonl", limit=n_requests + 1)
    rows = []
    alias = INSTRUCT_MODELS[size][0]
    log_dir.mkdir(parents=True, exist_ok=True)
    with LlamaServer(find_instruct_gguf(size), alias=alias, threads=threads, n_ctx=8192,
                     log=log_dir / f"throughput_{alias}_t{threads}.log", ready_timeout=600) as server:
        for c in concurrencies:
            client = LLMClient(model=alias, base_url=server.base_url, cache_dir=False, concurrency=c, timeout=1800)
            scorer = LLMReferenceScorer(llm_client=client, max_reasks=0)
            client.complete(scorer.request_for(items[0]))  # warm-up: the prompt prefix is cached for everyone
            reqs = [scorer.request_for(it) for it in items[1:n_requests + 1]]
            t0 = time.monotonic()
            outs = client.complete_many(reqs)
            wall = time.monotonic() - t0
            toks = sum(o.usage.completion_tokens for o in outs if o.ok)
            rows.append({"model": alias, "threads": threads, "concurrency": c, "requests": len(reqs),
                         "ok": sum(o.ok for o in outs), "wall_s": round(wall, 1),
                         "requests_per_s": len(reqs) / wall, "completion_tok_s": toks / wall,
                         "load_1m": os.getloadavg()[0]})
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--server-log", action="append", default=[], type=Path)
    ap.add_argument("--measure", action="store_true")
    ap.add_argument("--serve", choices=("0.5b", "1.5b"), default="1.5b")
    ap.add_argument("--threads", type=int, nargs="+", default=[2])
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--requests", type=int, default=4)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)

    logs = {bl.display_path(p): summarize_log(parse_server_log(p.read_text(errors="replace"))) for p in args.server_log}
    runs = []
    if args.measure:
        for t in args.threads:
            runs += measure(args.serve, t, args.concurrency, args.requests, Path(os.environ.get("TMPDIR", "/tmp")))
    report = {"machine": bl.machine(), "logs": logs, "measured": runs}
    lines = ["# Throughput of the LLM path (local llama.cpp server)", "", f"Command: `{bl.command()}`", "",
             f"Machine: {bl.machine()}", ""]
    if logs:
        lines += ["## From the server logs of finished runs", "",
                  "| log | requests | prompt tokens from the reused prefix (mean) | evaluated (mean) | share from prefix "
                  "| prefill tok/s (median) | decode tok/s (median) | completion tokens (mean) | s per request (median) |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for name, s in logs.items():
            if not s.get("requests"):
                lines.append(f"| {name} | 0 | | | | | | | |")
                continue
            lines.append(f"| {name} | {s['requests']} | {s['prefix_hit_mean']:.0f} | {s['prompt_eval_mean']:.0f} | "
                         f"{s['prompt_share_from_prefix']:.0%} | {s['prefill_tok_s_median']:.1f} | "
                         f"{s['decode_tok_s_median']:.1f} | {s['decode_tokens_mean']:.0f} | "
                         f"{s['seconds_per_request_median']:.1f} |")
        lines.append("")
    if runs:
        lines += ["## Client concurrency against one server", "",
                  "| model | threads | concurrency | requests | ok | wall s | requests/s | completion tok/s | load (1 min) |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in runs:
            lines.append(f"| {r['model']} | {r['threads']} | {r['concurrency']} | {r['requests']} | {r['ok']} | "
                         f"{r['wall_s']} | {r['requests_per_s']:.3f} | {r['completion_tok_s']:.1f} | {r['load_1m']:.1f} |")
        lines.append("")
    md = "\n".join(lines) + "\n"
    print(md)
    if args.out:
        bl.write(args.out, md, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
