"""``ev2r arena``: rank systems from pairwise evidence battles judged by an LLM panel
(:mod:`ev2r.ranking.arena`): writes ``battles.jsonl`` (read by ``ev2r rank``), ``ranking.json``,
``reliability.json`` and ``arena.md`` to the output folder."""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
from typing import Optional, Sequence

from claimalign.files import write_text
from claimalign.jsonio import write_json
from ev2r.cli.common import check_output, input_paths
from ev2r.ranking.arena import DEFAULT_MAX_TOKENS, POSITION_DEBIAS
from ev2r.config import LLM_DEFAULTS

#: The files ``ev2r arena`` writes into its ``-o`` folder.
OUTPUT_FILES = ("battles.jsonl", "ranking.json", "reliability.json", "arena.md")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The ``arena`` command's options."""
    p.add_argument("systems", nargs="+", metavar="SYSTEM[:FAMILY]=PATH",
                   help="each system's evidence (JSONL/JSON rows with id, claim, predicted_evidence, "
                        "reference_evidence), with an optional model family (a judge of that family never judges it)")
    p.add_argument("--judge", action="append", required=True, metavar="BASE_URL=MODEL[:FAMILY]",
                   help="a judge of the panel (repeatable): OpenAI-compatible server, model name and optional family "
                        "(the text after the last ':'; empty BASE_URL = the OpenAI API)")
    p.add_argument("-o", "--output", required=True, metavar="DIR",
                   help="folder for battles.jsonl (read by `ev2r rank`), ranking.json, reliability.json, arena.md")
    p.add_argument("--pairs-per-claim", type=int, default=None, help="distinct system pairs per claim (default: all)")
    p.add_argument("--seed", type=int, default=0, help="seed of the pair sampling, bootstrap and Elo orders")
    p.add_argument("--limit", type=int, default=None, help="only the first N common claims")
    p.add_argument("--scores", action="append", default=[], metavar="[SYSTEM=]SCORES.jsonl",
                   help="per-item scores (repeatable): SYSTEM=PATH for one system's `ev2r score -o` file, or a file "
                        "with a 'system' field; for the Kendall tau of the arena ranking against the score ranking")
    p.add_argument("--score-field", default="ev2r", help="score field of --scores files (default ev2r)")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap replicates (default 1000)")
    p.add_argument("--max-tokens", type=int, default=DEFAULT_MAX_TOKENS,
                   help=f"generation limit per answer (default {DEFAULT_MAX_TOKENS})")
    p.add_argument("--constrain-answers", action="store_true",
                   help="send a grammar that lets a llama.cpp server reply only A, B or tie (for small or base "
                        "models that otherwise do not answer)")
    p.add_argument("--position-debias", choices=POSITION_DEBIAS, default="none",
                   help="none (default: both orders' answers must agree, else a tie) or probabilities: read P(A), "
                        "P(B), P(tie) from the log-probabilities and give the battle to the set ahead by more than "
                        "--debias-margin averaged over both positions (for judges that always pick the first set)")
    p.add_argument("--debias-margin", type=float, default=0.05,
                   help="margin of --position-debias probabilities (default 0.05)")
    p.add_argument("--prompt-file", metavar="FILE", help="judge prompt template ($claim, $reference_evidence, "
                                                         "$evidence_a, $evidence_b); default: arena_pairwise")
    p.add_argument("--llm-cache", help="answer cache folder (default: $EV2R_LLM_CACHE, else ~/.cache/ev2r/llm); "
                                       "a rerun sends only what is missing")
    p.add_argument("--llm-offline", action="store_true", help="serve answers only from the cache (replay)")
    p.add_argument("--llm-concurrency", type=int, default=LLM_DEFAULTS.concurrency,
                   help=f"parallel requests per judge (default {LLM_DEFAULTS.concurrency})")
    p.add_argument("--llm-timeout", type=float, default=LLM_DEFAULTS.timeout,
                   help=f"seconds per request attempt (default {LLM_DEFAULTS.timeout:g})")
    p.add_argument("--llm-max-retries", type=int, default=LLM_DEFAULTS.max_retries,
                   help=f"retries after 429/5xx/timeouts (default {LLM_DEFAULTS.max_retries})")
    p.add_argument("--dry-run", action="store_true", help="print the requests per judge (cached, to send, "
                                                         "estimated tokens) as JSON; send nothing")


def _load_scores(specs: Sequence[str], score_field: str) -> Optional[dict]:
    from ev2r.ranking.battles import counted_scores_table
    from ev2r.ranking.rating import read_system_rows

    if not specs:
        return None
    table: dict[str, dict[str, float]] = {}
    for spec in specs:
        rows, path = read_system_rows(spec, "system")
        part, skipped = counted_scores_table(rows, "system", score_field, source=path)
        for system, reasons in skipped.items():  # rows that failed never count, but are never dropped unsaid
            print(f"ev2r arena: warning: --scores {path}: {sum(reasons.values())} row(s) of {system} left out "
                  f"(by status: {reasons})", file=sys.stderr)
        for item, d in part.items():
            for s, v in d.items():
                if s in table.get(item, {}):
                    raise ValueError(f"--scores: {path}: item {item!r} has a second score for system {s!r}")
                table.setdefault(item, {})[s] = v
    return table


def run(args: argparse.Namespace) -> int:
    """``ev2r arena``: returns 0, or 1 when no judgement succeeded (the statuses are printed).

    Raises:
        ValueError: a bad system or judge spec, a system given twice, an output path that is a file or
            whose files would overwrite an input (checked before any work),
            bad settings (see :func:`ev2r.ranking.arena.run_arena`).
    """
    from ev2r.io.readers import read_items, write_jsonl
    from ev2r.ranking.arena import estimate_arena, parse_judge_spec, parse_system_spec, render_markdown, run_arena

    specs = [parse_system_spec(s) for s in args.systems]
    dup = [n for n, k in collections.Counter(n for n, _, _ in specs).items() if k > 1]
    if dup:
        raise ValueError(f"systems: {dup[0]!r} is given twice")
    score_paths = [s if "=" not in s or os.path.exists(s) else s.split("=", 1)[1] for s in args.scores]
    check_output(args.output, kind="dir", files=OUTPUT_FILES,
                 inputs=input_paths(("system file", [p for _, _, p in specs]), ("--scores", score_paths),
                                    ("--prompt-file", args.prompt_file)))
    if not 0 <= args.debias_margin < 1:
        raise ValueError(f"--debias-margin: must be in [0, 1), got {args.debias_margin}")
    judges = [parse_judge_spec(j) for j in args.judge]
    systems = {name: read_items(path) for name, _, path in specs}
    families = {name: fam for name, fam, _ in specs if fam}
    prompt = None
    if args.prompt_file:
        from ev2r.llm.prompts import prompt_from_text

        with open(args.prompt_file, encoding="utf-8") as fh:
            prompt = prompt_from_text(fh.read(), name=os.path.basename(args.prompt_file))
    scores = _load_scores(args.scores, args.score_field)
    kw = dict(pairs_per_claim=args.pairs_per_claim, seed=args.seed, limit=args.limit, cache_dir=args.llm_cache,
              offline=args.llm_offline, concurrency=args.llm_concurrency, timeout=args.llm_timeout,
              max_retries=args.llm_max_retries, max_tokens=args.max_tokens, prompt=prompt,
              n_bootstrap=args.bootstrap, reference_scores=scores, constrain_answers=args.constrain_answers,
              position_debias=args.position_debias, debias_margin=args.debias_margin)
    print("ev2r arena: judges: " + ", ".join(f"{j.model} (family {j.family or 'none'}) at {j.base_url or 'OpenAI API'}"
                                             for j in judges), file=sys.stderr)
    if args.dry_run:
        print(json.dumps(estimate_arena(systems, judges, families, **{k: v for k, v in kw.items() if k in (
            "pairs_per_claim", "seed", "limit", "cache_dir", "max_tokens", "prompt", "constrain_answers",
            "position_debias")})))
        return 0
    result = run_arena(systems, judges, families, **kw)
    os.makedirs(args.output, exist_ok=True)  # each file through a temporary file renamed into place
    write_jsonl(result.battles, os.path.join(args.output, "battles.jsonl"))
    if result.ranking is not None:
        write_json({**result.ranking, "arena": result.settings}, os.path.join(args.output, "ranking.json"))
    write_json({"judges": result.reliability, "agreement": result.agreement, "statuses": result.statuses,
                "llm": result.llm, "settings": result.settings}, os.path.join(args.output, "reliability.json"))
    text = render_markdown(result)
    write_text(text, os.path.join(args.output, "arena.md"))
    for name, st in result.llm.items():  # accounting (calls, cache hits, tokens) goes to stderr
        print(f"llm {name}: " + " ".join(f"{k}={v}" for k, v in st.items()), file=sys.stderr)
    print(text)
    if result.ranking is None:
        print(f"ev2r arena: error: no judgement succeeded ({result.statuses}); "
              + "; ".join(result.settings["notes"]), file=sys.stderr)
        return 1
    return 0
