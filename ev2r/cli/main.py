"""The ``ev2r`` command line.

    ev2r score INPUT [-o OUT.jsonl] [--json] [--model M] [--decomposer rules|rules-v1|rules-v2|replay|llm]
                     [--replay FILE] [--replay-model M] [--scorer ev2r|hu-meteor] [--alpha A] [--dtype D]
                     [--engine local|ray] [--ray-address ADDR] [--workers N]
    ev2r verify INPUT.jsonl -o OUT.jsonl [--model M]
    ev2r averitec PREDICTIONS --references GOLD [--json] [-o PER_CLAIM.jsonl]
    ev2r align A.jsonl B.jsonl [-o OUT.jsonl] [--similarity ...]
    ev2r robustness INPUT [-o DIR] [--sample N] [--seed S]
    ev2r rank SCORES.jsonl [--system-field system] [--score-field ev2r] -o OUT.json   (or judged battles.jsonl)
    ev2r arena SYSTEM[:FAMILY]=PATH ... --judge BASE_URL=MODEL[:FAMILY] ... -o DIR [--pairs-per-claim N]
    ev2r train-verifier --data-dir DIR --out DIR [...]

Exit status: 0 success, 1 ``ev2r score`` ran but every item failed (the reason is printed), 2 unusable
input or options (the message names the row and field).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Optional, Sequence

from ev2r.types import clean_text


def _add_verifier_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default="bundled",
                   help="NLI verifier: 'bundled' (default), a local checkpoint or a Hugging Face id "
                        "(e.g. MoritzLaurer/DeBERTa-v3-large-mnli-fever-anli-ling-wanli; needs a network)")
    p.add_argument("--device", default=None, help="torch device (default: $EV2R_DEVICE, else cuda if available, else cpu)")
    p.add_argument("--batch-size", type=int, default=32, help="verifier batch size (default 32)")
    p.add_argument("--dtype", choices=["auto", "fp32", "bf16", "int8"], default="auto",
                   help="verifier precision (default auto: bf16 on CUDA or on a CPU with native bf16 -- AVX512-BF16/AMX "
                        "-- else fp32; int8 = CPU dynamic quantisation); part of the signature")


def _fmt(v) -> str:
    return "n/a" if v is None else f"{v:.4f}"


def cmd_score(args) -> int:
    from ev2r.metric.factory import build_scorer
    from ev2r.io.readers import read_items, score_row, write_jsonl

    if args.nltk_data:
        from claimalign.nltk_data import add_nltk_data_path

        add_nltk_data_path(args.nltk_data)
    _check_output(args.output)
    from ev2r.engines.ray_engine import check_engine_options

    check_engine_options(args.engine, args.ray_address, args.workers)
    for opt in ("llm_price_in", "llm_price_out"):
        v = getattr(args, opt, None)
        if v is not None and not (math.isfinite(v) and v >= 0):
            raise ValueError(f"--{opt.replace('_', '-')}: must be a finite price >= 0 (USD per 1M tokens), got {v}")
    items = read_items(args.input, references=args.references, limit=args.limit,
                       strict_labels=("human_label",) if args.proxy_target == "human" else ())
    bar = None
    if not args.no_progress and len(items) > 1:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(items), unit="item", desc="ev2r score", file=sys.stderr,
                   disable=None)  # disable=None: no bar when stderr is not a terminal

    def progress(done, total):
        if bar is not None:
            bar.update(done - bar.n)

    llm_options = None
    if args.decomposer == "llm":
        llm_options = {"base_url": args.llm_base_url, "model": args.llm_model, "cache_dir": args.llm_cache,
                       "offline": args.llm_offline, "concurrency": args.llm_concurrency,
                       "timeout": args.llm_timeout}
    if args.dry_run:
        if args.decomposer != "llm":
            raise ValueError("--dry-run: only meaningful with --decomposer llm (nothing else calls a paid API)")
        from ev2r.llm import LLMReferenceScorer

        est = LLMReferenceScorer(**llm_options).estimate(items, args.llm_price_in, args.llm_price_out)
        if bar is not None:
            bar.close()
        print(json.dumps(est.to_dict()))
        return 0
    wanted = args.scorer or ["ev2r"]
    options = dict(verifier=args.model, decomposer=args.decomposer, alpha=args.alpha, threshold=args.threshold,
                   support=args.support, proxy_target=args.proxy_target, replay=args.replay,
                   replay_model=args.replay_model, llm_options=llm_options,
                   baselines=[s for s in wanted if s != "ev2r"], device=args.device, batch_size=args.batch_size,
                   dtype=args.dtype, ev2r="ev2r" in wanted)
    if args.engine == "ray":  # the same scorer options, one scorer per Ray actor (ev2r.engines.ray_engine)
        from ev2r.engines.ray_engine import score_ray

        try:
            result = score_ray(items, args.output, scorer_options=options, address=args.ray_address,
                               workers=args.workers, with_facts=args.with_facts, progress=progress,
                               nltk_data=args.nltk_data)
        finally:
            if bar is not None:
                bar.close()
        if result.llm_run:
            print("llm: " + " ".join(f"{k}={v}" for k, v in result.llm_run.items()), file=sys.stderr)
        print(f"ev2r score: engine ray: {result.n_scored} item(s) scored on {result.workers} worker(s), "
              f"{result.n_resumed} resumed from {args.output}", file=sys.stderr)
        return _report_score(args, result.summary, result.scores, wanted)
    scorer = build_scorer(**options, progress=progress)
    scores = scorer.score(items)
    if bar is not None:
        bar.close()
    summary = scorer.corpus(scores)
    run = getattr(scorer.reference_scorer, "last_run", None)
    if run:  # LLM accounting (calls sent, cache hits, tokens) goes to stderr, not into the results
        print("llm: " + " ".join(f"{k}={v}" for k, v in run.items()), file=sys.stderr)
    if args.output:
        write_jsonl([score_row(item, s, args.with_facts) for item, s in zip(items, scores)], args.output)
    return _report_score(args, summary, scores, wanted)


def _report_score(args, summary, scores, wanted) -> int:
    """Print what ``ev2r score`` reports after scoring (notes, the summary) for any engine; the
    exit status (1 when every item failed)."""
    n_noref = (summary.failures or {}).get("no_reference", 0)
    if n_noref:
        print(f"ev2r score: note: {n_noref} item(s) have no reference evidence, so no precision/recall/F1/Ev2R: "
              "give 'reference_evidence' in each row, or for AVeriTeC prediction files (claim_id, evidence, "
              "pred_label) pass --references GOLD.json", file=sys.stderr)
    all_failed = summary.n > 0 and summary.n_failed == summary.n
    if all_failed:
        first = next((s.error for s in scores if s.error), "")
        print(f"ev2r score: error: every item failed ({summary.failures}); first error: {first}", file=sys.stderr)
    if args.json:
        print(json.dumps(summary.to_dict(), ensure_ascii=False))
    else:
        print(f"n={summary.n} n_failed={summary.n_failed}" + (f" {summary.failures}" if summary.failures else ""))
        names = ["precision", "recall", "f1", "proxy", "ev2r"] if "ev2r" in wanted else []
        width = max(len(k) for k in names + list(summary.extra) + ["signature"])
        for k in names:
            print(f"{k:>{width}}: {_fmt(getattr(summary, k))}")
        for k, v in summary.extra.items():
            print(f"{k:>{width}}: {_fmt(v)}")
        print(f"{'signature':>{width}}: {summary.signature}")
    return 1 if all_failed else 0


def _check_output(path) -> None:
    """Fail before any work when ``-o PATH`` cannot be written (missing folder, a directory)."""
    if not path:
        return
    import os

    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"-o/--output: folder {folder!r} does not exist")
    if os.path.isdir(path):
        raise ValueError(f"-o/--output: {path!r} is a directory, not a file")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"-o/--output: folder {folder!r} is not writable")


def cmd_verify(args) -> int:
    from ev2r.metric.factory import get_verifier
    from ev2r.io.readers import InputError, read_rows, write_jsonl

    rows = read_rows(args.input)
    premises, hypotheses = [], []
    for n, r in enumerate(rows):
        if not isinstance(r, dict):
            raise InputError(f"{args.input}: row {n}: expected a JSON object")
        prem = r.get("premise", r.get("evidence"))
        hyp = r.get("hypothesis", r.get("claim"))
        for field, v in (("premise (or evidence)", prem), ("hypothesis (or claim)", hyp)):
            if not isinstance(v, str) or not clean_text(v):
                raise InputError(f"{args.input}: row {n}: field {field} must be a non-empty string, got {v!r}")
        premises.append(prem)
        hypotheses.append(hyp)
    _check_output(args.output)
    verifier = get_verifier(args.model, device=args.device or "cpu", batch_size=args.batch_size, dtype=args.dtype)
    probs = verifier.predict(premises, hypotheses)
    out = []
    for r, p in zip(rows, probs):
        d = dict(r)
        d.update({"entailment": float(p[0]), "neutral": float(p[1]), "contradiction": float(p[2])})
        out.append(d)
    write_jsonl(out, args.output)
    print(f"wrote {len(out)} rows to {args.output} (verifier {verifier.name})", file=sys.stderr)
    return 0


def cmd_averitec(args) -> int:
    """``ev2r averitec``: the AVeriTeC shared-task tables (see :mod:`ev2r.shared_task.averitec2024` for 2024,
    the official names and numbers, and :mod:`ev2r.shared_task.averitec2025` for 2025, FEVER-8: Ev2R recall
    judged by an LLM and the new AVeriTeC score). Exit 2 on unusable input or options, naming the
    record/field, the option or the ids that do not join the gold file one-to-one."""
    from ev2r.shared_task.averitec2024 import evaluate_averitec, format_official_table
    from ev2r.io.readers import read_rows, write_jsonl

    editions = ("2024", "2025") if args.edition == "all" else (args.edition,)
    llm_only = {"--llm-base-url": args.llm_base_url, "--llm-model": args.llm_model, "--llm-cache": args.llm_cache,
                "--llm-offline": args.llm_offline or None, "--llm-concurrency": args.llm_concurrency,
                "--llm-timeout": args.llm_timeout, "--llm-max-retries": args.llm_max_retries,
                "--llm-max-tokens": args.llm_max_tokens, "--llm-max-reasks": args.llm_max_reasks,
                "--prompt-file": args.prompt_file, "--question-prompt-file": args.question_prompt_file,
                "--dry-run": args.dry_run or None}
    nli_only = {"--model": args.model, "--device": args.device, "--batch-size": args.batch_size, "--dtype": args.dtype}
    given = [k for k, v in {"--judge": args.judge, "--recall-comparison": args.recall_comparison, **llm_only,
                            **nli_only}.items() if v is not None]
    if "2025" not in editions and given:
        raise ValueError(f"{', '.join(given)}: only used with --edition 2025 or --edition all (the 2024 table "
                         "has no judge)")
    judge_kind = args.judge or "llm"
    wrong = [k for k in given if k in (nli_only if judge_kind == "llm" else llm_only)]
    if wrong:
        raise ValueError(f"{', '.join(wrong)}: not used with --judge {judge_kind} (the LLM judge takes the --llm-* "
                         "options, --prompt-file, --question-prompt-file and --dry-run; --judge bundled takes "
                         "--model, --device, --batch-size, --dtype)")
    if args.nltk_data:
        from claimalign.nltk_data import add_nltk_data_path

        add_nltk_data_path(args.nltk_data)
    _check_output(args.output)
    predictions = read_rows(args.predictions)
    references = read_rows(args.references)
    judge = None
    if "2025" in editions:
        from ev2r.shared_task.averitec2025 import DEFAULT_MAX_TOKENS, build_judge

        judge = build_judge(
            judge_kind, llm_model=args.llm_model, llm_base_url=args.llm_base_url, llm_cache=args.llm_cache,
            llm_offline=args.llm_offline, llm_concurrency=4 if args.llm_concurrency is None else args.llm_concurrency,
            llm_timeout=120.0 if args.llm_timeout is None else args.llm_timeout,
            llm_max_retries=3 if args.llm_max_retries is None else args.llm_max_retries,
            max_tokens=DEFAULT_MAX_TOKENS if args.llm_max_tokens is None else args.llm_max_tokens,
            max_reasks=0 if args.llm_max_reasks is None else args.llm_max_reasks, prompt_file=args.prompt_file,
            question_prompt_file=args.question_prompt_file, verifier=args.model or "bundled", device=args.device,
            batch_size=32 if args.batch_size is None else args.batch_size, dtype=args.dtype or "auto")
        if args.dry_run:
            from ev2r.shared_task.averitec2025 import estimate_averitec_2025

            est = estimate_averitec_2025(predictions, references, judge, join=args.join)
            print(json.dumps(est.to_dict()))
            return 0
    reports = {}
    if "2024" in editions:
        try:
            reports["2024"] = evaluate_averitec(predictions, references, edition="2024", join=args.join,
                                                meteor=args.meteor)
        except RuntimeError as e:  # nltk data missing
            raise ValueError(str(e)) from None
    if "2025" in editions:
        from ev2r.shared_task.averitec2025 import evaluate_averitec_2025

        reports["2025"] = evaluate_averitec_2025(predictions, references, judge,
                                                 recall_comparison=args.recall_comparison or "ge", join=args.join)
        run = reports["2025"].judge_run
        if run and judge_kind == "llm":  # accounting (calls, cache hits, tokens) goes to stderr
            print("llm: " + " ".join(f"{k}={v}" for k, v in run.items()), file=sys.stderr)
    if args.output:
        if len(reports) == 1:
            rows = [c.to_dict() for c in next(iter(reports.values())).claims]
        else:  # both editions: one row per claim, gold order in both
            rows = [{"claim_id": a.claim_id, "2024": a.to_dict(), "2025": b.to_dict()}
                    for a, b in zip(reports["2024"].claims, reports["2025"].claims)]
        write_jsonl(rows, args.output)
    if args.json:
        if len(reports) == 1:
            print(json.dumps(next(iter(reports.values())).to_dict()))
        else:
            print(json.dumps({k: r.to_dict() for k, r in reports.items()}))
    else:
        from ev2r.shared_task.averitec2025 import format_2025_table

        tables = [format_official_table(reports["2024"])] if "2024" in reports else []
        if "2025" in reports:
            tables.append(format_2025_table(reports["2025"]))
        print("\n\n".join(tables))
    return 0


def build_parser() -> argparse.ArgumentParser:
    from ev2r import __version__

    ap = argparse.ArgumentParser(prog="ev2r", description="Evaluate retrieved fact-checking evidence (Ev2R).")
    ap.add_argument("--version", action="version", version=f"ev2r {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("score", help="score predicted evidence against reference evidence")
    p.add_argument("input", help="JSONL (id, claim, predicted_evidence, reference_evidence, gold_label), "
                                 "FEVER/VitaminC JSONL, or AVeriTeC JSON")
    p.add_argument("-o", "--output", help="write one JSON object per input row")
    p.add_argument("--json", action="store_true", help="print the corpus summary as one JSON object")
    p.add_argument("--references", help="AVeriTeC gold JSON to join an AVeriTeC predictions file with")
    p.add_argument("--limit", type=int, help="score only the first N rows")
    p.add_argument("--decomposer", choices=["rules", "rules-v1", "rules-v2", "replay", "llm"], default="rules",
                   help="atomic facts: rules = rules-v2 (declarative statements, offline), rules-v1 (question + answer "
                        "sentence), replay (recorded LLM outputs), llm (OpenAI-compatible server)")
    p.add_argument("--replay", help="recorded LLM outputs (JSONL) for --decomposer replay")
    p.add_argument("--replay-model", help="which recorded model to replay (when the file holds several)")
    p.add_argument("--llm-base-url", help="OpenAI-compatible server for --decomposer llm")
    p.add_argument("--llm-model", help="model name on that server")
    p.add_argument("--llm-cache", help="on-disk cache folder for LLM answers")
    p.add_argument("--llm-offline", action="store_true", help="serve LLM answers only from the cache")
    p.add_argument("--llm-concurrency", type=int, default=4, help="parallel LLM requests (default 4)")
    p.add_argument("--llm-timeout", type=float, default=120.0, help="seconds per LLM request attempt (default 120)")
    p.add_argument("--dry-run", action="store_true",
                   help="with --decomposer llm: print the requests, cached answers, estimated tokens and cost; send nothing")
    p.add_argument("--llm-price-in", type=float, help="USD per million prompt tokens, for --dry-run's cost")
    p.add_argument("--llm-price-out", type=float, help="USD per million completion tokens, for --dry-run's cost")
    p.add_argument("--scorer", action="append", choices=["ev2r", "hu-meteor"],
                   help="scores to compute (repeatable; default ev2r): ev2r = precision, recall, F1, proxy, Ev2R "
                        "(loads the verifier); hu-meteor = AVeriTeC's Hungarian METEOR, hu_meteor (question+answer) "
                        "and hu_meteor_q. '--scorer hu-meteor' alone loads no model; '--scorer ev2r --scorer "
                        "hu-meteor' gives both")
    p.add_argument("--nltk-data", default=None, metavar="DIR",
                   help="nltk data folder (punkt_tab, WordNet) for --scorer hu-meteor; default: $NLTK_DATA")
    p.add_argument("--alpha", type=float, default=0.5, help="Ev2R weight of F1 (default 0.5)")
    p.add_argument("--threshold", type=float, default=0.5, help="P(entailment) at which a fact is supported")
    p.add_argument("--support", choices=["threshold", "soft"], default="threshold")
    p.add_argument("--proxy-target", choices=["gold", "human"], default="gold",
                   help="gold verdict (default) or the annotators' verdict (authors' variant, comparison only)")
    p.add_argument("--with-facts", action="store_true", help="include atomic facts and their support in -o rows")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--engine", choices=["local", "ray"], default="local",
                   help="local (default): score in this process; ray: a Ray Data actor pool, one loaded scorer per "
                        "actor, the same numbers and row order (needs pip install 'ev2r[ray]'); with -o, a rerun "
                        "skips rows already in OUT with status ok")
    p.add_argument("--ray-address", metavar="ADDR", default=None,
                   help="--engine ray: cluster to join (e.g. ray://head:10001 or auto); default: $RAY_ADDRESS, "
                        "else a local Ray instance started for this run")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="--engine ray: scorer actors, 1 CPU each (default: the cluster's CPUs)")
    _add_verifier_args(p)
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("verify", help="NLI probabilities for premise/hypothesis rows")
    p.add_argument("input", help="JSONL rows with premise/hypothesis (or evidence/claim)")
    p.add_argument("-o", "--output", required=True)
    _add_verifier_args(p)
    p.set_defaults(func=cmd_verify)

    try:
        from ev2r.cli.align import add_align_arguments, run_align
    except ImportError:  # pragma: no cover - claimalign ships with ev2r
        add_align_arguments = run_align = None
    if add_align_arguments is not None:
        p = sub.add_parser("align", help="Hungarian alignment of two sets of claims per row")
        add_align_arguments(p)
        p.set_defaults(func=run_align)

    try:
        from ev2r.cli.robustness import add_robustness_arguments, run_robustness
    except ImportError:  # pragma: no cover
        add_robustness_arguments = run_robustness = None
    if add_robustness_arguments is not None:
        p = sub.add_parser("robustness", help="perturbation suite and robustness report")
        add_robustness_arguments(p)
        p.set_defaults(func=run_robustness)

    try:
        from ev2r.ranking.rating import add_rank_arguments, run_rank
    except ImportError:
        add_rank_arguments = run_rank = None
    if add_rank_arguments is not None:
        p = sub.add_parser("rank", help="rank systems from per-item scores (Bradley-Terry, Elo)")
        add_rank_arguments(p)
        p.set_defaults(func=run_rank)

    from ev2r.ranking.arena import add_arena_arguments, run_arena_cli

    p = sub.add_parser("arena", help="rank systems from pairwise evidence battles judged by an LLM panel")
    add_arena_arguments(p)
    p.set_defaults(func=run_arena_cli)

    p = sub.add_parser("averitec", help="AVeriTeC shared-task table (official eval.py names and numbers)")
    p.add_argument("predictions", help="predictions JSON/JSONL: original AVeriTeC format (claim_id, label, questions "
                                       "or string_evidence, justification?) or 2024 submission format (claim_id, "
                                       "pred_label, evidence: [{question, answer}])")
    p.add_argument("--references", required=True, help="gold AVeriTeC JSON (e.g. dev.json); a claim's id is its "
                                                       "position in the file")
    p.add_argument("--edition", choices=["2024", "2025", "all"], default="2024",
                   help="shared-task edition: 2024 (Hungarian METEOR table, default), 2025 (FEVER-8: Ev2R recall "
                        "judged by an LLM and the new AVeriTeC score) or all (both tables)")
    p.add_argument("--join", choices=["id", "position"], default="id",
                   help="id (default): predictions join on claim_id; position: i-th prediction = i-th gold claim")
    p.add_argument("--meteor", choices=["fast", "nltk"], default="fast",
                   help="METEOR implementation: fast (cached, same values) or nltk's own function")
    p.add_argument("--json", action="store_true", help="print the table as one JSON object")
    p.add_argument("-o", "--output", help="write one JSON object per claim (scores, status, notes)")
    p.add_argument("--nltk-data", default=None, metavar="DIR", help="nltk data folder (punkt_tab, WordNet); "
                                                                     "default: $NLTK_DATA")
    g = p.add_argument_group("2025 edition (FEVER-8; --edition 2025 or all)")
    g.add_argument("--judge", choices=["llm", "bundled"], default=None,
                   help="who judges Ev2R recall: llm (default; the official kind of judge -- the organisers used "
                        "Llama-3.3-70B-Instruct -- through --llm-base-url/--llm-model) or bundled (the offline NLI "
                        "verifier: labelled 'not the official LLM judge', not comparable with the leaderboard)")
    g.add_argument("--recall-comparison", choices=["ge", "gt"], default=None,
                   help="new AVeriTeC score: a claim counts when its verdict is right and its Q+A recall is >= 0.5 "
                        "(ge, default, as the FEVER-8 scoring script) or > 0.5 (gt, as another published script)")
    g.add_argument("--llm-base-url", help="OpenAI-compatible server of the judge, e.g. http://127.0.0.1:8000/v1")
    g.add_argument("--llm-model", help="judge model name on that server (e.g. Llama-3.3-70B-Instruct)")
    g.add_argument("--llm-cache", help="on-disk cache folder for the judge's answers (default: $EV2R_LLM_CACHE, else "
                                       "~/.cache/ev2r/llm); a rerun sends only what is missing")
    g.add_argument("--llm-offline", action="store_true", help="serve the judge's answers only from the cache (replay)")
    g.add_argument("--llm-concurrency", type=int, default=None, help="parallel judge requests (default 4)")
    g.add_argument("--llm-timeout", type=float, default=None, help="seconds per request attempt (default 120)")
    g.add_argument("--llm-max-retries", type=int, default=None,
                   help="retries after a 429/5xx/timeout/connection failure (default 3)")
    g.add_argument("--llm-max-tokens", type=int, default=None, help="generation limit per answer (default 3000, "
                                                                    "the organisers' setting)")
    g.add_argument("--llm-max-reasks", type=int, default=None,
                   help="re-asks after an unusable answer, 0..3 (default 0: the organisers do not re-ask)")
    g.add_argument("--prompt-file", metavar="FILE",
                   help="Q+A judge prompt: your own copy of the organisers' prompt text (str.format '{}' "
                        "placeholders: claim, reference evidence, predicted evidence) or a template with $claim, "
                        "$reference_evidence, $predicted_evidence; default: the project's own prompt")
    g.add_argument("--question-prompt-file", metavar="FILE", help="Q-only judge prompt, likewise")
    g.add_argument("--dry-run", action="store_true",
                   help="print the judge requests, cached answers and estimated tokens as JSON; send nothing")
    g.add_argument("--model", default=None, help="--judge bundled: NLI verifier, 'bundled' (default), a local "
                                                "checkpoint or a Hugging Face id")
    g.add_argument("--device", default=None, help="--judge bundled: torch device (default: $EV2R_DEVICE, else cuda "
                                                  "if available, else cpu)")
    g.add_argument("--batch-size", type=int, default=None, help="--judge bundled: verifier batch size (default 32)")
    g.add_argument("--dtype", choices=["auto", "fp32", "bf16", "int8"], default=None,
                   help="--judge bundled: verifier precision (default auto)")
    p.set_defaults(func=cmd_averitec)

    p = sub.add_parser("train-verifier", help="train the bundled NLI verifier (see ev2r.training.trainer)",
                       add_help=False)
    p.set_defaults(func=None)
    return ap


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "train-verifier":
        from ev2r.training.trainer import main as train_main

        return train_main(argv[1:])
    args = build_parser().parse_args(argv)
    from ev2r.io.readers import InputError

    try:
        return int(args.func(args) or 0)
    except (InputError, ValueError, OSError) as e:
        print(f"ev2r {args.command}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
