"""Record an LLM's reference-based replies on rating files, as replay files.

    python benchmarks/agreement/llm_record.py --serve 1.5b \
        --data 86=../shared/data/ev2r_human_eval/averitec_manual_eval_subset.jsonl \
        --data 144=../shared/data/ev2r_human_eval/averitec_shared_task_dev.jsonl \
        --prompt reference_prf_example --out-dir benchmarks/data/llm_replay --time-budget-min 95

Each item is sent once through :class:`ev2r.llm.LLMReferenceScorer` (the shipped ``reference_prf``
prompt, greedy, one re-ask after an unusable answer, replies read with ``--reply-reading``) and
its final reply is appended at once to ``OUT_DIR/<model>_<NAME>.jsonl`` in the replay schema
(:meth:`~ev2r.llm.LLMReferenceScorer.score_and_record`), with the run's own columns beside it:
``status`` (what the live run gave), ``seconds`` (wall time of the item, re-asks included),
``rounds``, ``prompt_tokens``, ``completion_tokens``, ``prompt`` (the prompt's id, name@sha256),
``reask`` (the re-asks and their messages' version, ``1@typed``). ``--redo`` asks again the items
whose row failed or was re-asked under other re-ask messages (only those replies depend on them).
A rerun resumes: an item is skipped only when a row with its id, its ``content_sha256`` *and* the
prompt id is already in the file (a changed item or an edited prompt is asked again, and the
stale rows are dropped when the file is rewritten at the end). The
replies are then scored offline by ``ev2r score --decomposer replay --replay FILE`` and tabled by
``benchmarks/agreement/llm_path.py``.

``--serve 0.5b|1.5b`` starts the installer's llama.cpp server for that model
(``scripts/install_llm_server.sh [--with-1.5b]``) with ``--threads`` threads; otherwise
``--llm-base-url`` and ``--llm-model`` name a running OpenAI-compatible server.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402
from ev2r.config import REPLY_READINGS  # noqa: E402


def _key(item_id, sha: str, prompt: str) -> tuple[str, str, str]:
    return str(item_id), sha, prompt


def _read_done(path: Path) -> dict[tuple[str, str, str], dict]:
    done: dict[tuple[str, str, str], dict] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                done[_key(row["id"], row.get("content_sha256", ""), row.get("prompt", ""))] = row
    return done


def needs_redo(row: dict) -> bool:
    """A recorded row whose reply depended on the re-ask messages: it failed, or it was re-asked
    (a first-round answer does not depend on them: greedy decoding, the same first request)."""
    return row.get("status") != "ok" or int(row.get("rounds") or 1) > 1


def record_file(scorer, items, out: Path, deadline: float, log, redo: bool = False) -> dict:
    """Ask every item not yet recorded (same id and content hash) and append its row at once;
    with ``redo``, also the recorded items :func:`needs_redo` picks (the new row replaces the old)."""
    from ev2r.facts.replay import content_sha256

    done = _read_done(out)
    prompt = scorer.prompt.id
    wanted = {_key(it.id, content_sha256(it), prompt) for it in items}
    stale = [k for k in done if k not in wanted]
    out.parent.mkdir(parents=True, exist_ok=True)
    asked = skipped = 0
    reask = scorer.signature_fields()["reask"]
    with out.open("a", encoding="utf-8") as f:
        for n, item in enumerate(items, 1):
            key = _key(item.id, content_sha256(item), prompt)
            if key in done and not (redo and needs_redo(done[key]) and done[key].get("reask") != reask):
                skipped += 1
                continue
            if time.monotonic() > deadline:
                log(f"{out.name}: time budget reached after {asked} items asked this run")
                break
            t0 = time.monotonic()
            (res,), (rec,) = scorer.score_and_record([item])
            secs = time.monotonic() - t0
            if rec is None:  # decided without a call (no reference, empty prediction) or no answer at all
                rec = {"model": scorer.client.model, "id": item.id, "claim": item.claim,
                       "content_sha256": key[1], "llm_response": None}
            u = res.llm
            rec.update(prompt=prompt, reask=reask, status=res.status, error=res.error, seconds=round(secs, 2),
                       rounds=(u.requests if u else 0), prompt_tokens=(u.prompt_tokens if u else 0),
                       completion_tokens=(u.completion_tokens if u else 0))
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
            f.flush()
            done[key] = rec
            asked += 1
            log(f"{out.name} {n}/{len(items)} id={item.id} {res.status} {secs:.1f}s "
                f"P={res.precision} R={res.recall}")
    # rewrite without stale rows (items whose content changed), in input order
    order = {_key(it.id, content_sha256(it), prompt): k for k, it in enumerate(items)}
    rows = sorted((r for k, r in done.items() if k in order),
                  key=lambda r: order[_key(r["id"], r["content_sha256"], r.get("prompt", ""))])
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    tmp.replace(out)
    return {"asked": asked, "skipped": skipped, "stale_dropped": len(stale), "rows": len(rows), "items": len(items)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", action="append", metavar="NAME=PATH", required=True)
    ap.add_argument("--serve", choices=("0.5b", "1.5b"), help="start the installer's llama.cpp server for this model")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--n-ctx", type=int, default=8192)
    ap.add_argument("--llm-base-url")
    ap.add_argument("--llm-model")
    ap.add_argument("--reply-reading", default="checks", choices=REPLY_READINGS)
    ap.add_argument("--prompt", default="reference_prf_example",
                    help="shipped prompt name (default reference_prf_example: the 1.5B model copies reference_prf's "
                         "template back)")
    ap.add_argument("--max-reasks", type=int, default=1)
    ap.add_argument("--constrain-answers", action="store_true",
                    help="send the reply's JSON schema as response_format (llama.cpp: a grammar); files get _constrained")
    ap.add_argument("--redo", action="store_true",
                    help="ask again the recorded items that failed or were re-asked under other re-ask messages "
                         "(their rows' reask field differs from this scorer's)")
    ap.add_argument("--limit", type=int, default=None, help="first N items of each file")
    ap.add_argument("--out-dir", default=str(bl.REPO / "benchmarks" / "data" / "llm_replay"))
    ap.add_argument("--log", default=None, help="progress log file (default: stderr)")
    ap.add_argument("--time-budget-min", type=float, default=120.0)
    args = ap.parse_args(argv)

    from ev2r.io.readers import read_items
    from ev2r.llm import LLMReferenceScorer

    logf = open(args.log, "a", encoding="utf-8") if args.log else sys.stderr

    def log(msg: str) -> None:
        print(time.strftime("%H:%M:%S"), msg, file=logf, flush=True)

    deadline = time.monotonic() + 60 * args.time_budget_min
    server = None
    if args.serve:
        from ev2r.llm.local_server import INSTRUCT_MODELS, LlamaServer, find_instruct_gguf

        alias = INSTRUCT_MODELS[args.serve][0]
        Path(args.out_dir).mkdir(parents=True, exist_ok=True)
        server = LlamaServer(find_instruct_gguf(args.serve), alias=alias, threads=args.threads, n_ctx=args.n_ctx,
                             log=Path(args.out_dir) / f".server_{alias}.log", ready_timeout=600)
        base_url, model = server.base_url, server.model
        log(f"server {model} ready in {server.ready_seconds:.1f} s (first chat {server.first_chat_seconds:.1f} s)")
    else:
        if not (args.llm_base_url and args.llm_model):
            ap.error("give --serve, or both --llm-base-url and --llm-model")
        base_url, model = args.llm_base_url, args.llm_model
    summary = {}
    try:
        scorer = LLMReferenceScorer(base_url=base_url, model=model, cache_dir=False, concurrency=1, timeout=900,
                                    max_tokens=1024, max_reasks=args.max_reasks, scores_from=args.reply_reading, prompt=args.prompt,
                                    constrain_answers=args.constrain_answers)
        for spec in args.data:
            name, path = spec.split("=", 1)
            items = read_items(path, limit=args.limit)
            suffix = "_constrained" if args.constrain_answers else ""
            out = Path(args.out_dir) / f"{model}_{name}{suffix}.jsonl"
            summary[name] = record_file(scorer, items, out, deadline, log, redo=args.redo)
            log(f"{out.name}: {summary[name]}")
    finally:
        if server is not None:
            server.stop()
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
