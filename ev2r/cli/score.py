"""``ev2r score``: per-item and corpus Ev2R (and HU-METEOR) scores of predicted evidence."""

from __future__ import annotations

import argparse
import json
import math
import sys

from ev2r.cli.helpfmt import two_level_help
from ev2r.cli.common import (add_config_args, check_output, config_defaults, config_from_args, fmt, input_paths,
                             warn_ignored)
from ev2r.config import DEFAULTS, LLM_DEFAULTS, SCORER_NAMES


#: The options ``ev2r score -h`` shows (one screen); ``--help-all`` lists every one.
COMMON_OPTIONS = ("input", "--output", "--json", "--references", "--limit", "--explain", "--scorer", "--no-hybrid",
                  "--decomposer", "--model", "--proxy-model", "--device", "--no-resume", "--no-progress", "--engine")
#: Their one-line help on the first screen (the full help is in ``--help-all``).
SHORT_HELP = {
    "input": "JSONL (claim, predicted_evidence, reference_evidence, gold_label), FEVER JSONL or AVeriTeC JSON",
    "--output": "write one JSON row per item (and OUT.ev2r-run.json); a rerun resumes",
    "--json": "print the corpus summary as JSON (with the full signature)",
    "--references": "AVeriTeC gold JSON to join an AVeriTeC predictions file with",
    "--limit": "score only the first N rows",
    "--explain": "rows carry each score's reasons (read one with `ev2r explain`)",
    "--scorer": "ev2r (default: Ev2R and ev2r_hybrid) and/or hu-meteor (no model)",
    "--no-hybrid": "leave out the combined score ev2r_hybrid (the headline)",
    "--decomposer": "atomic facts: rules (default, = rules-v2, offline), rules-v1, rules-v2, replay, llm",
    "--model": "NLI verifier: bundled (default), edits, fast, multilingual, a folder or hub id",
    "--proxy-model": "the proxy's own verifier (bundled, averitec: CC BY-NC); default: --model",
    "--device": "torch device (default: $EV2R_DEVICE, else cuda if available, else cpu)",
    "--no-resume": "with -o: score every item afresh",
    "--no-progress": "no progress line on stderr",
    "--engine": "local (default) or ray (pip install 'ev2r[ray]')",
}


def llm_price_arg(text: str) -> tuple[float, float]:
    """``--llm-price IN,OUT``: USD per million prompt and completion tokens, two finite numbers >= 0.

    >>> llm_price_arg("2.5,10")
    (2.5, 10.0)
    """
    parts = text.split(",")
    try:
        values = tuple(float(v) for v in parts)
    except ValueError:
        values = ()
    if len(values) != 2 or not all(math.isfinite(v) and v >= 0 for v in values):
        raise argparse.ArgumentTypeError(f"expected IN,OUT: two finite prices >= 0 in USD per million prompt and "
                                         f"completion tokens (e.g. 2.5,10), got {text!r}")
    return values  # type: ignore[return-value]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The ``score`` command's options, in argument groups (common ones first); ``-h`` shows the common
    ones (:data:`COMMON_OPTIONS`), ``--help-all`` every one (:func:`ev2r.cli.helpfmt.two_level_help`). The options
    that configure the scorer come from :class:`ev2r.config.ScorerConfig`'s field metadata
    (:func:`ev2r.cli.common.add_config_args`)."""
    g_io = p.add_argument_group("inputs and outputs")
    g_io.add_argument("input", help="JSONL (id, claim, predicted_evidence, reference_evidence, gold_label), "
                                    "FEVER/VitaminC JSONL, or AVeriTeC JSON")
    g_io.add_argument("-o", "--output", help="write one JSON object per input row")
    g_io.add_argument("--json", action="store_true", help="print the corpus summary as one JSON object")
    g_io.add_argument("--references", help="AVeriTeC gold JSON to join an AVeriTeC predictions file with")
    g_io.add_argument("--limit", type=int, help="score only the first N rows")
    g_io.add_argument("--explain", action="store_true",
                      help="-o rows carry the atomic facts with their support and the reasons: each fact's deciding "
                           "premise (decided_by: side, pair_index, premise, entailment/neutral/contradiction, "
                           "n_premises, n_checked), the proxy's premises and deciding pair (proxy_premises, "
                           "proxy_decided_by) and the hybrid's alignment (hybrid_alignment); the scores are the same. "
                           "Read one item with `ev2r explain`")
    g_io.add_argument("--nltk-data", default=None, metavar="DIR",
                      help="nltk data folder (punkt_tab, WordNet): the METEOR columns of ev2r_hybrid and of "
                           "--scorer hu-meteor, and WordNet synonyms; default: $NLTK_DATA")
    g_scores = p.add_argument_group("the scores")
    g_scores.add_argument("--scorer", action="append", choices=SCORER_NAMES,
                          help="scores to compute (repeatable; default ev2r): ev2r = precision, recall, F1, proxy, "
                               "Ev2R (loads the verifier); hu-meteor = AVeriTeC's Hungarian METEOR, hu_meteor "
                               "(question+answer) and hu_meteor_q. '--scorer hu-meteor' alone loads no model; "
                               "'--scorer ev2r --scorer hu-meteor' gives both")
    g_scores.add_argument("--score-version", metavar="NAME/N", default=None,
                          help="pin the run to a registered score version (e.g. ev2r-hybrid/4; docs/versions.md): "
                               "refused before any work when this release does not compute it (the message names the "
                               "commit that does) or when the options given define another score")
    g_models = p.add_argument_group("models")
    g_run = p.add_argument_group("run control")
    g_run.add_argument("--no-progress", action="store_true",
                       help="no progress on stderr (default: a bar on a terminal, else a plain line every 10%% or "
                            "60 s)")
    g_run.add_argument("--no-resume", action="store_true",
                       help="with -o: score every item afresh; OUT is replaced by this run's rows at the end (kept "
                            "until then), OUT.part emptied. Deletes nothing, and replaces only files ev2r score wrote "
                            "(score rows, its run record): another tool's file, a device or a FIFO is refused by name")
    g_run.add_argument("--engine", choices=["local", "ray"], default="local",
                       help="local (default): score in this process; ray: a Ray Data actor pool, one loaded scorer per "
                            "actor, the same numbers and row order (needs pip install 'ev2r[ray]'; joins the cluster "
                            "$RAY_ADDRESS names, e.g. ray://head:10001 or auto, else starts a local Ray instance). "
                            "With -o, either engine keeps rows in OUT.part as they are scored and a rerun with the "
                            "same options resumes: it skips rows of OUT whose item_hash and status ok match")
    g_run.add_argument("--workers", type=int, default=None, metavar="N",
                       help="--engine ray: scorer actors, 1 CPU each (default: the cluster's CPUs)")
    g_llm = p.add_argument_group("LLM facts (--decomposer llm or replay)")
    g_llm.add_argument("--llm-base-url", help="OpenAI-compatible server for --decomposer llm")
    g_llm.add_argument("--llm-model", help="model name on that server; with --decomposer replay, which recorded model "
                                           "to replay (when the file holds several)")
    g_llm.add_argument("--llm-cache", help="on-disk cache folder for LLM answers")
    g_llm.add_argument("--llm-offline", action="store_true", help="serve LLM answers only from the cache")
    g_llm.add_argument("--llm-constrain", action="store_true",
                       help="send the reply's JSON schema as response_format (llama.cpp servers turn it into a "
                            "grammar; OpenAI reads it as JSON mode)")
    g_llm.add_argument("--llm-concurrency", type=int, default=LLM_DEFAULTS.concurrency,
                       help=f"parallel LLM requests (default {LLM_DEFAULTS.concurrency})")
    g_llm.add_argument("--llm-timeout", type=float, default=LLM_DEFAULTS.timeout,
                       help=f"seconds per LLM request attempt (default {LLM_DEFAULTS.timeout:g})")
    g_llm.add_argument("--dry-run", action="store_true",
                       help="with --decomposer llm: print the requests, cached answers, estimated tokens and cost; "
                            "send nothing")
    g_llm.add_argument("--llm-price", type=llm_price_arg, default=None, metavar="IN,OUT",
                       help="USD per million prompt and completion tokens, for --dry-run's cost (e.g. 2.5,10)")
    add_config_args(p, groups={"scores": g_scores, "models": g_models, "run": g_run, "llm": g_llm})
    two_level_help(p, COMMON_OPTIONS, SHORT_HELP, usage="INPUT [-o OUT.jsonl] [--json] [options]")


def run(args, config=None) -> int:
    """``ev2r score``: read the items, score them (resuming ``-o``), print the summary. Returns the exit status (0;
    1 when every item failed; 2 is raised as a ValueError / InputError / OSError that ``ev2r.cli.main`` reports).

    Args:
        args: the parsed options (:func:`add_arguments`).
        config: the :class:`ev2r.config.ScorerConfig` the options apply to (None: :data:`ev2r.config.DEFAULTS`).
            The research hook's way into the command: a configuration with ``hybrid_columns``, ``admission`` or
            ``threshold`` set, which ``ev2r score`` has no option for (``benchmarks/agreement/score_with.py``;
            docs/api.md).
    """
    from ev2r.engines.runs import RunInterrupted
    from ev2r.io.readers import read_items

    if args.nltk_data:
        from claimalign.nltk_data import add_nltk_data_path

        add_nltk_data_path(args.nltk_data)
    # before any work, for every engine: -o must be writable and no input (ray's resume reads -o itself)
    from ev2r.engines.runs import LOCK_SUFFIX, PART_SUFFIX, RUN_SUFFIX

    check_output(args.output, inputs=input_paths(("input", args.input), ("--references", args.references),
                                                 ("--replay", args.replay)),
                                                 sidecars=(PART_SUFFIX, RUN_SUFFIX, LOCK_SUFFIX),
                 special="refuse", special_reason=": ev2r score keeps OUT.part, OUT.ev2r-run.json and OUT.lock beside "
                 "its output and resumes from it, so -o must be a file path (omit -o to write no rows; the summary "
                 "is printed either way)")
    from ev2r.engines.ray_engine import check_engine_options

    check_engine_options(args.engine, None, args.workers)
    if getattr(args, "cache", None) is not None and (args.scorer is None or "ev2r" in args.scorer):
        from ev2r.verifier.cache import DiskCache

        DiskCache(args.cache, option="--cache").close()  # a folder that cannot be written: refused before any work
    if args.score_version is not None:  # a version this release does not compute is refused before any work
        from ev2r.versions import require_computable

        require_computable(args.score_version)
    # the verdict the proxy needs is checked for every row here, before any model loads
    need = "gold_label" if args.scorer is None or "ev2r" in args.scorer else None
    items = read_items(args.input, references=args.references, limit=args.limit, require_label=need)
    if args.scorer is None or "ev2r" in args.scorer:
        from ev2r.verifier.loading import warn_non_english

        from ev2r.io.readers import row_ref

        by_row = {it.row: it for it in items}  # named by row, line and id, as every message about a row
        warn_non_english({it.row: " ".join((it.claim, it.predicted_evidence.render(), it.reference_evidence.render()))
                          for it in items}, args.verifier,
                          where=lambda n: row_ref(n, by_row[n].line, f"id {by_row[n].id}"))
    from ev2r.cli.progress import Progress

    # a tqdm bar on a terminal; plain lines every 10% or 60 s elsewhere (logs, CI); none with --no-progress
    bar = Progress("ev2r score", len(items), enabled=not args.no_progress and len(items) > 1, stream=sys.stderr)
    progress = bar.update

    wanted = args.scorer or ["ev2r"]
    _warn_ignored_options(args, wanted)
    options = scorer_options(args, config)
    llm_options = _llm_options(args)
    if args.score_version is not None:  # what the options define is known now: a pin they break ends here, before work
        from ev2r.metric.factory import build_scorer
        from ev2r.versions import check_computed

        check_computed(args.score_version, build_scorer(**options).signature())
    if args.dry_run:
        if args.decomposer != "llm":
            raise ValueError("--dry-run: only meaningful with --decomposer llm (nothing else calls a paid API)")
        from ev2r.llm import LLMReferenceScorer

        llm_scorer = LLMReferenceScorer(**llm_options, scores_from=args.reply_reading or "checks")
        price_in, price_out = args.llm_price or (None, None)
        est = llm_scorer.estimate(items, price_in, price_out)
        if bar is not None:
            bar.close()
        print(json.dumps(est.to_dict()))
        return 0
    try:
        return _score(args, items, options, wanted, progress, bar)
    except RunInterrupted as e:  # Ctrl-C: finished chunks are in OUT.part; say how to resume, no traceback
        if bar is not None:
            bar.close()
        print(f"\nev2r score: {e.message()}", file=sys.stderr)
        return 130
    finally:
        if bar is not None:
            bar.close()


def scorer_options(args, config=None) -> dict:
    """The scorer options (the fields of :class:`ev2r.config.ScorerConfig`, the keywords of
    :func:`ev2r.metric.factory.build_scorer`, and what the run record keeps) that the options of ``ev2r score`` give
    (:func:`ev2r.cli.common.config_from_args`, with ``ev2r``/``baselines`` from ``--scorer``, ``llm_options`` from
    ``--llm-*`` and ``replay_model`` from ``--llm-model`` with ``--decomposer replay``); nothing is loaded. A
    ``--proxy-model`` that names the ``--model`` verifier is no separate proxy verifier: the run's signature and
    version are the default's. The baselines alone read none of the metric's options: the record keeps the defaults
    then, so that such an output resumes whatever they were set to (they are warned as ignored). ``config``: the
    configuration the options apply to (:func:`run`; None: :data:`ev2r.config.DEFAULTS`).

    Raises:
        ValueError: an option value the configuration refuses, naming the field.
    """
    wanted = args.scorer or ["ev2r"]
    picked = dict(ev2r="ev2r" in wanted, baselines=tuple(s for s in wanted if s != "ev2r"))
    if "ev2r" not in wanted:
        return DEFAULTS.replace(**picked).to_dict()
    replay_model = args.llm_model if args.decomposer == "replay" else None
    return config_from_args(args, config, **picked, llm_options=_llm_options(args), replay_model=replay_model).to_dict()


def _llm_options(args) -> "dict | None":
    """The LLM client's options (``--decomposer llm``), else None."""
    if args.decomposer != "llm":
        return None
    return {"base_url": args.llm_base_url, "model": args.llm_model, "cache_dir": args.llm_cache,
            "offline": args.llm_offline, "concurrency": args.llm_concurrency, "timeout": args.llm_timeout,
            "constrain_answers": args.llm_constrain}


#: The options only ``--decomposer llm`` reads (dest -> default); ``--llm-model`` is read by ``replay`` too.
LLM_ONLY_DEFAULTS = {"llm_base_url": None, "llm_model": None, "llm_cache": None, "llm_offline": False,
                     "llm_constrain": False,
                     "llm_concurrency": LLM_DEFAULTS.concurrency, "llm_timeout": LLM_DEFAULTS.timeout,
                     "llm_price": None}


def _warn_ignored_options(args, wanted) -> None:
    """A warning for each option this run does not use that was set to another value than its default."""
    if "ev2r" not in wanted:
        warn_ignored("ev2r score", args, {**config_defaults(), "explain": False},
                     f"with --scorer {' --scorer '.join(wanted)} alone (no verifier is loaded, no facts are made)")
        return
    if args.decomposer != "llm":
        only = {k: v for k, v in LLM_ONLY_DEFAULTS.items() if k != "llm_model" or args.decomposer != "replay"}
        warn_ignored("ev2r score", args, only, f"with --decomposer {args.decomposer} (only --decomposer llm asks an "
                                               "LLM" + ("; --llm-model names the recorded model with replay)"
                                                        if args.decomposer == "replay" else ")"))


def _score(args, items, options, wanted, progress, bar) -> int:
    """Score with the chosen engine (both write -o as rows are scored and resume from it,
    :mod:`ev2r.engines.runs`), then report."""
    resume = not args.no_resume
    facts_mode = "explain" if getattr(args, "explain", False) else False
    if args.engine == "ray":  # the same scorer options, one scorer per Ray actor (ev2r.engines.ray_engine)
        from ev2r.engines.ray_engine import score_ray

        result = score_ray(items, args.output, scorer_options=options, address=None,
                           workers=args.workers, with_facts=facts_mode, resume=resume, progress=progress,
                           nltk_data=args.nltk_data)
        if bar is not None:
            bar.close()
        if result.llm_run:
            print("llm: " + " ".join(f"{k}={v}" for k, v in result.llm_run.items()), file=sys.stderr)
        print(f"ev2r score: engine ray: {result.n_scored} item(s) scored on {result.workers} worker(s), "
              f"{result.n_resumed} resumed from {args.output}", file=sys.stderr)
        return _report_score(args, result.summary, result.scores, wanted, items=items)
    from ev2r.engines.local_engine import score_local
    from ev2r.engines.runs import absolute_paths
    from ev2r.metric.factory import build_scorer

    built = []

    def scorer(n_left: int):  # built after the resume plan (score_local): its signature checks the resumed rows
        if options.get("ev2r", True) and n_left:
            print(f"ev2r score: loading verifier {options.get('verifier')} ({n_left} item(s) to score) ...",
                  file=sys.stderr)
        built.append(build_scorer(**options))
        return built[-1]

    local = score_local(scorer, items, args.output, options=absolute_paths(options), with_facts=facts_mode,
                        resume=resume, progress=progress)
    if bar is not None:
        bar.close()
    _print_llm_usage(local.scores)
    cache = getattr(built[-1], "cache", None) if built else None
    if cache is not None:  # what the cache served and took, per reader
        print(f"ev2r score: {cache.summary()}", file=sys.stderr)
    if local.n_resumed:
        print(f"ev2r score: {local.n_scored} item(s) scored, {local.n_resumed} resumed from {args.output}",
              file=sys.stderr)
    return _report_score(args, local.summary, local.scores, wanted, items=items)


def _print_llm_usage(scores) -> None:
    """LLM accounting (calls sent, cache hits, tokens, re-asks, statuses) to stderr, not into the
    results: the sum of the items' :class:`~ev2r.types.LLMUsage`; nothing when no LLM scored."""
    from collections import Counter

    from ev2r.types import LLMUsage

    usage = LLMUsage.total(s.llm for s in scores)
    if usage is not None:
        statuses = dict(Counter(s.status for s in scores if s.llm is not None))
        print("llm: " + " ".join(f"{k}={v}" for k, v in {**usage.to_dict(), "statuses": statuses}.items()),
              file=sys.stderr)


def _headline(summary) -> str:
    """The line to quote: :data:`ev2r.config.HEADLINE_SCORE` when the run computed it, else Ev2R;
    "" when neither is there (HU-METEOR alone). The means below it are means of per-item values, so the
    corpus F1 is not the F1 of the corpus precision and recall."""
    from ev2r.config import HEADLINE_SCORE

    from ev2r.reporting.reasons import ev2r_terms, run_weights

    value = summary.extra.get(HEADLINE_SCORE)
    if value is not None:
        alpha = run_weights(str(summary.signature))[0]
        formula = "the paper's 0.5 x F1 + 0.5 x proxy" if alpha == 0.5 else ev2r_terms(alpha)
        return (f"headline: {HEADLINE_SCORE} = {value:.4f} (the score to report; Ev2R, {formula}, = "
                f"{fmt(summary.ev2r)}; every value below is a mean of per-item values)")
    if summary.ev2r is not None:
        return (f"headline: ev2r = {summary.ev2r:.4f} ({HEADLINE_SCORE} not computed; every value below is a mean of "
                "per-item values)")
    return ""


_RUN_SUFFIX = ".ev2r-run.json"  # ev2r.engines.runs.RUN_SUFFIX (not imported at module level: a light CLI import)


#: resamples of the headline's bootstrap interval (``ev2r score``; as the HTML report's)
HEADLINE_CI_RESAMPLES = 2000


def headline_interval(summary, scores) -> dict:
    """The headline score's 95% percentile bootstrap interval over items (the HTML report's
    :func:`ev2r.reporting.html.headline_interval`: :data:`HEADLINE_CI_RESAMPLES` resamples, seed 0): ``{"headline":
    name, "headline_ci95": [low, high] or None, "headline_ci_n": ok items with a value}``; the headline is
    :data:`ev2r.config.HEADLINE_SCORE` when the corpus has it, else ``ev2r``; ``{}`` when neither (HU-METEOR alone).
    The interval is None with fewer than 2 such items.

    Args:
        summary: the run's :class:`~ev2r.types.CorpusScore`.
        scores: its :class:`~ev2r.types.ItemScore` objects.
    """
    from ev2r.config import HEADLINE_SCORE
    from ev2r.reporting.html import headline_interval as bootstrap

    name = HEADLINE_SCORE if summary.extra.get(HEADLINE_SCORE) is not None else (
        "ev2r" if summary.ev2r is not None else None)
    if name is None:
        return {}
    rows = [{"status": s.status, name: s.extra_scores.get(name) if name != "ev2r" else s.ev2r} for s in scores]
    ci = bootstrap(rows, name, n_boot=HEADLINE_CI_RESAMPLES, seed=0)
    n = sum(1 for r in rows if r["status"] == "ok" and r[name] is not None)
    return {"headline": name, "headline_ci95": None if ci is None else [round(ci[0], 6), round(ci[1], 6)],
            "headline_ci_n": n}


def rows_named(scores, items=None) -> str:
    """The rows of ``scores`` as every message about rows names them: ``rows (from 0; line = the
    line of the file): 3 (line 5; id a), 7 (line 9; id b)``, up to :data:`ev2r.io.readers.MAX_ROWS_NAMED`, then
    a count -- each by :func:`ev2r.io.readers.row_ref` (the row, the line of the input from ``items``, the id).

    Args:
        scores: the :class:`~ev2r.types.ItemScore` objects to name.
        items: the run's items (their ``line`` by ``row``); None: lines unknown (not shown).
    """
    from ev2r.io.readers import MAX_ROWS_NAMED, row_ref

    lines = {it.row: it.line for it in items or ()}
    shown = ", ".join(row_ref(s.row, lines.get(s.row), f"id {s.id}") for s in scores[:MAX_ROWS_NAMED])
    more = f" and {len(scores) - MAX_ROWS_NAMED} more" if len(scores) > MAX_ROWS_NAMED else ""
    return f"rows (from 0; line = the line of the file): {shown}{more}"


def _report_score(args, summary, scores, wanted, items=None) -> int:
    """Print what ``ev2r score`` reports after scoring (notes, the summary) for any engine; the
    exit status (1 when every item failed). The text summary names the headline's score version and range
    (:func:`ev2r.versions.describe`) and prints the short signature (:func:`ev2r.versions.short_signature`);
    ``--json`` carries the full ``signature`` with ``versions`` and ``short_signature``. Every note about rows
    names them by row, line and id (:func:`rows_named`; ``items``: the run's items, for the lines)."""
    no_ref = [s for s in scores if s.status == "no_reference"]
    n_noref = (summary.failures or {}).get("no_reference", 0)
    if n_noref:
        print(f"ev2r score: note: {n_noref} item(s) have no reference evidence that states a fact (none given, or "
              "every reference answer empty, content-free or 'No answer could be found.'), so no "
              "precision/recall/F1/Ev2R: give 'reference_evidence' in each row, or for AVeriTeC prediction files "
              "(claim_id, evidence, pred_label) pass --references GOLD.json"
              + (f"; {rows_named(no_ref, items)}" if no_ref else ""), file=sys.stderr)
    no_hybrid = [s for s in scores if s.ok and "ev2r_hybrid: " in (s.error or "")]
    if no_hybrid:  # the reason is in each row's error; say it once here, never a silent n/a
        why = (no_hybrid[0].error or "").split("ev2r_hybrid: ", 1)[1].split("; ")[0]
        print(f"ev2r score: note: {len(no_hybrid)} ok item(s) have no ev2r_hybrid (so the corpus value is n/a); "
              f"first reason: {why[:300]}; {rows_named(no_hybrid, items)}", file=sys.stderr)
    from ev2r.metric.proxy import ABSENCE_ON_CLAIM, LONG_CLAIM

    flags = ((LONG_CLAIM, "have a claim longer than half the verifier's token window, read in part or at the edge of "
                          "what it reads reliably: the proxy may misread a deciding part late in the claim"),
             (ABSENCE_ON_CLAIM, "are Not Enough Evidence claims whose evidence says, on the claim, what is missing: "
                                "absence statements earn no score, so these items score as no evidence would"))
    for flag, what in flags:  # flagged on each row (error, status ok) and counted here, never silent
        hit = [s for s in scores if s.ok and f"{flag}: " in (s.error or "")]
        if hit:
            print(f"ev2r score: note: {len(hit)} item(s) {what} (each row's error says '{flag}: ...'); "
                  f"{rows_named(hit, items)}", file=sys.stderr)
    all_failed = summary.n > 0 and summary.n_failed == summary.n
    if all_failed:
        first = next((s for s in scores if s.error), None)
        at = f" ({rows_named([first], items)})" if first is not None else ""
        print(f"ev2r score: error: every item failed ({summary.failures}); first error{at}: "
              f"{first.error if first is not None else ''}", file=sys.stderr)
    from ev2r.versions import check_computed, describe, summary_fields

    if getattr(args, "score_version", None) is not None and not all_failed:  # the options may define another score
        check_computed(args.score_version, summary.signature)
    interval = headline_interval(summary, scores)
    if args.json:  # the full signature, the versioned names and the short signature
        print(json.dumps({**summary.to_dict(), **summary_fields(summary.signature), **interval}, ensure_ascii=False))
    else:
        print(f"n={summary.n} n_failed={summary.n_failed}" + (f" {summary.failures}" if summary.failures else ""))
        headline = _headline(summary)
        if headline:
            print(headline)
        if interval.get("headline_ci95") is not None:
            lo, hi = interval["headline_ci95"]
            print(f"headline 95% interval: [{lo:.4f}, {hi:.4f}] (bootstrap over the {interval['headline_ci_n']} ok "
                  f"items, {HEADLINE_CI_RESAMPLES} resamples, seed 0)")
        version = describe(summary.signature)  # which version the headline is, the range it takes
        if version:
            print(f"version: {version}")
        names = ["precision", "recall", "f1", "proxy", "ev2r"] if "ev2r" in wanted else []
        width = max(len(k) for k in names + list(summary.extra) + ["signature"])
        for k in names:
            print(f"{k:>{width}}: {fmt(getattr(summary, k))}")
        for k, v in summary.extra.items():
            print(f"{k:>{width}}: {fmt(v)}")
        # the short signature (versioned names, verifier, library versions); every rule is in the full one
        print(f"{'signature':>{width}}: {summary_fields(summary.signature)['short_signature']}")
        print(f"{'':>{width}}  (full signature: --json, or {args.output}{_RUN_SUFFIX})" if args.output else
              f"{'':>{width}}  (full signature: --json)")
    return 1 if all_failed else 0
