"""``ev2r averitec``: the AVeriTeC shared-task tables (2024 and 2025 editions)."""

from __future__ import annotations

import argparse
import json
import sys

from ev2r.cli.common import VERIFIER_FIELDS, add_config_args, check_output, config_flags, config_from_args, input_paths
from ev2r.config import LLM_DEFAULTS
from ev2r.io.averitec import JOIN_MODES
from ev2r.shared_task.averitec2024.scoring import METEOR_IMPLEMENTATIONS


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The ``averitec`` command's options."""
    p.add_argument("predictions", help="predictions JSON/JSONL: original AVeriTeC format (claim_id, label, questions "
                                       "or string_evidence, justification?) or 2024 submission format (claim_id, "
                                       "pred_label, evidence: [{question, answer}])")
    p.add_argument("--references", required=True, help="gold AVeriTeC JSON (e.g. dev.json); a claim's id is its "
                                                       "position in the file")
    p.add_argument("--edition", choices=["2024", "2025", "all"], default="2024",
                   help="shared-task edition: 2024 (Hungarian METEOR table, default), 2025 (FEVER-8: Ev2R recall "
                        "judged by an LLM and the new AVeriTeC score) or all (both tables)")
    p.add_argument("--join", choices=JOIN_MODES, default="id",
                   help="id (default): predictions join on claim_id; position: i-th prediction = i-th gold claim")
    p.add_argument("--subset", action="store_true",
                   help="score only the gold claims that have a prediction (e.g. the 5 of "
                        "examples/averitec_predictions_sample.json) instead of refusing predictions that miss gold "
                        "claims; the table and the JSON are then marked SUBSET (n of N gold claims) and are not the "
                        "official shared-task numbers, which score every gold claim. 2024 edition, --join id only")
    p.add_argument("--meteor", choices=METEOR_IMPLEMENTATIONS, default="fast",
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
                   help="new AVeriTeC score: a claim counts when its verdict is right and its Q+A recall is > 0.5 "
                        "(gt, default, as the organisers' final FEVER-8 leaderboard script) or >= 0.5 (ge, as their "
                        "April 2025 script); the table gives both and counts the claims at exactly 0.5")
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
    # the verifier's options as ev2r score's (the one option table), unset by default: given only with --judge bundled
    add_config_args(g, VERIFIER_FIELDS, unset=True, help_prefix="--judge bundled: ")


#: how many of the gold claims without a prediction an error message names; the file it names holds every one
MISSING_SHOWN = 10


def short_missing(e, n_gold: int) -> str:
    """``e``'s message with its list of gold claims without a prediction cut to a count and the first
    :data:`MISSING_SHOWN` ids, the whole list written to a new file in the temporary folder, one id a line as JSON
    (``ev2r-averitec-missing-claim-ids-*.txt``), which the message names (so that hundreds of ids do not
    fill one line)."""
    import tempfile

    from ev2r.io.averitec import _show

    missing = list(e.problems["missing_prediction"])
    fd, path = tempfile.mkstemp(prefix="ev2r-averitec-missing-claim-ids-", suffix=".txt")
    with open(fd, "w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(cid) + "\n" for cid in missing)
    first = ", ".join(repr(x) for x in missing[:MISSING_SHOWN])
    short = (f"{len(missing)} of {n_gold} (the first {min(len(missing), MISSING_SHOWN)}: [{first}"
             f"{', ...' if len(missing) > MISSING_SHOWN else ''}]; all {len(missing)}, one a line: {path})")
    label = "gold claims without a prediction: "
    text = str(e)
    if label + _show(missing) in text:
        return text.replace(label + _show(missing), label + short, 1)
    return f"{text}; {label}{short}"


def run(args) -> int:
    """``ev2r averitec``: the AVeriTeC shared-task tables (see :mod:`ev2r.shared_task.averitec2024` for 2024,
    the official names and numbers, and :mod:`ev2r.shared_task.averitec2025` for 2025, FEVER-8: Ev2R recall
    judged by an LLM and the new AVeriTeC score). Exit 2 on unusable input or options, naming the
    record/field, the option or the ids that do not join the gold file one-to-one."""
    from ev2r.shared_task.averitec2024 import JoinError, evaluate_averitec, format_official_table
    from ev2r.io.readers import read_rows, write_jsonl

    editions = ("2024", "2025") if args.edition == "all" else (args.edition,)
    llm_only = {"--llm-base-url": args.llm_base_url, "--llm-model": args.llm_model, "--llm-cache": args.llm_cache,
                "--llm-offline": args.llm_offline or None, "--llm-concurrency": args.llm_concurrency,
                "--llm-timeout": args.llm_timeout, "--llm-max-retries": args.llm_max_retries,
                "--llm-max-tokens": args.llm_max_tokens, "--llm-max-reasks": args.llm_max_reasks,
                "--prompt-file": args.prompt_file, "--question-prompt-file": args.question_prompt_file,
                "--dry-run": args.dry_run or None}
    nli_only = {flag: getattr(args, name) for name, flag in config_flags(VERIFIER_FIELDS).items()}
    given = [k for k, v in {"--judge": args.judge, "--recall-comparison": args.recall_comparison, **llm_only,
                            **nli_only}.items() if v is not None]
    if "2025" not in editions and given:
        raise ValueError(f"{', '.join(given)}: only used with --edition 2025 or --edition all (the 2024 table "
                         "has no judge)")
    subset = getattr(args, "subset", False)
    if subset and "2025" in editions:
        raise ValueError(f"--subset: only with --edition 2024 (got --edition {args.edition}; the 2025 table scores "
                         "every gold claim)")
    if subset and args.join != "id":
        raise ValueError("--subset: needs --join id (a subset of the gold claims joins on claim_id, not by position)")
    judge_kind = args.judge or "llm"
    wrong = [k for k in given if k in (nli_only if judge_kind == "llm" else llm_only)]
    if wrong:
        raise ValueError(f"{', '.join(wrong)}: not used with --judge {judge_kind} (the LLM judge takes the --llm-* "
                         "options, --prompt-file, --question-prompt-file and --dry-run; --judge bundled takes "
                         "--model, --device, --batch-size, --dtype)")
    if args.nltk_data:
        from claimalign.nltk_data import add_nltk_data_path

        add_nltk_data_path(args.nltk_data)
    check_output(args.output, inputs=input_paths(("the predictions", args.predictions),
                                                 ("--references", args.references), ("--prompt-file", args.prompt_file),
                                                 ("--question-prompt-file", args.question_prompt_file)))
    predictions = read_rows(args.predictions)
    references = read_rows(args.references)
    judge = None
    if "2025" in editions:
        from ev2r.shared_task.averitec2025 import DEFAULT_MAX_TOKENS, build_judge

        judge = build_judge(
            judge_kind, llm_model=args.llm_model, llm_base_url=args.llm_base_url, llm_cache=args.llm_cache,
            llm_offline=args.llm_offline,
            llm_concurrency=LLM_DEFAULTS.concurrency if args.llm_concurrency is None else args.llm_concurrency,
            llm_timeout=LLM_DEFAULTS.timeout if args.llm_timeout is None else args.llm_timeout,
            llm_max_retries=LLM_DEFAULTS.max_retries if args.llm_max_retries is None else args.llm_max_retries,
            max_tokens=DEFAULT_MAX_TOKENS if args.llm_max_tokens is None else args.llm_max_tokens,
            max_reasks=0 if args.llm_max_reasks is None else args.llm_max_reasks, prompt_file=args.prompt_file,
            question_prompt_file=args.question_prompt_file,
            **{k: v for k, v in config_from_args(args).to_dict().items() if k in VERIFIER_FIELDS})
        if args.dry_run:
            from ev2r.shared_task.averitec2025 import estimate_averitec_2025

            est = estimate_averitec_2025(predictions, references, judge, join=args.join)
            print(json.dumps(est.to_dict()))
            return 0
    reports = {}
    if "2024" in editions:
        try:
            reports["2024"] = evaluate_averitec(predictions, references, edition="2024", join=args.join,
                                                meteor=args.meteor, subset=subset)
        except RuntimeError as e:  # nltk data missing
            raise ValueError(str(e)) from None
        except JoinError as e:
            if "missing_prediction" not in e.problems:
                raise
            hint = ("" if "2025" in editions else "; or pass --subset to score only the predicted claims (the table is "
                    "then marked SUBSET, not the official number)")
            raise JoinError(short_missing(e, len(references)) + hint, e.problems) from None
        if reports["2024"].subset:
            r = reports["2024"]
            print(f"ev2r averitec: note: --subset: {r.n_claims} of {r.n_gold_claims} gold claims scored; not the "
                  "official shared-task numbers", file=sys.stderr)
    if "2025" in editions:
        from ev2r.shared_task.averitec2025 import DEFAULT_RECALL_COMPARISON, evaluate_averitec_2025

        try:
            comparison = args.recall_comparison or DEFAULT_RECALL_COMPARISON
            reports["2025"] = evaluate_averitec_2025(predictions, references, judge, recall_comparison=comparison,
                                                     join=args.join)
        except JoinError as e:
            if "missing_prediction" not in e.problems:
                raise
            raise JoinError(short_missing(e, len(references)), e.problems) from None
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
        if "2024" in reports:  # this package's status lines: stderr, so stdout is the official table
            from ev2r.shared_task.averitec2024 import table_notes

            for line in table_notes(reports["2024"]):
                print(f"ev2r averitec: note: {line}", file=sys.stderr)
        if "2025" in reports:
            tables.append(format_2025_table(reports["2025"]))
        print("\n\n".join(tables))
    return 0
