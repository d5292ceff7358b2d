"""``ev2r compare BASELINE SYSTEM [SYSTEM ...]``: is a system better than the baseline, or is the difference noise?

Paired significance on the items both files scored, as sacrebleu does it for BLEU: the difference of the means with
its 95% paired bootstrap interval (Koehn 2004) and the p-value of paired approximate randomisation (Riezler and
Maxwell 2005), Holm-corrected over several systems (:mod:`ev2r.stats`); files, items and definitions:
:mod:`ev2r.reporting.compare`. Exit status 0, or 2 for files scored under different definitions (unless
``--allow-different-definitions``), too few common items, or unusable input (the message names the file and what).
"""

from __future__ import annotations

import argparse
import json
import sys

from ev2r.config import HEADLINE_SCORE
from ev2r.stats import DEFAULT_PERMUTATIONS, DEFAULT_RESAMPLES, DEFAULT_SEED


def _integer(minimum: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < minimum:
            raise argparse.ArgumentTypeError(f"expected an integer >= {minimum}, got {text!r}")
        return value

    return parse


def columns_arg(text: str) -> list:
    """``--columns``: comma-separated score columns, none empty.

    >>> columns_arg("ev2r_hybrid, precision")
    ['ev2r_hybrid', 'precision']
    """
    names = [c.strip() for c in text.split(",")]
    if not text.strip() or any(not c for c in names):
        raise argparse.ArgumentTypeError("expected score columns separated by commas (e.g. "
                                         f"ev2r_hybrid,ev2r,precision), got {text!r}")
    return names


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of ``ev2r compare``."""
    p.add_argument("baseline", metavar="BASELINE.jsonl",
                   help="the baseline: rows `ev2r score -o` wrote (its run record BASELINE.jsonl.ev2r-run.json beside "
                        "it), or a prediction file (no score columns), scored here with the default scorer")
    p.add_argument("systems", nargs="+", metavar="SYSTEM.jsonl",
                   help="one or more systems to compare with the baseline, likewise; items are matched by id")
    p.add_argument("--columns", type=columns_arg, default=[HEADLINE_SCORE], metavar="COL[,COL...]",
                   help=f"score columns to compare (default {HEADLINE_SCORE}, the headline), "
                        "e.g. ev2r,precision,recall")
    p.add_argument("--json", action="store_true", help="print the comparison as one JSON object (for machines)")
    p.add_argument("--resamples", type=_integer(1), default=DEFAULT_RESAMPLES,
                   help=f"paired bootstrap resamples of the items (default {DEFAULT_RESAMPLES})")
    p.add_argument("--permutations", type=_integer(1), default=DEFAULT_PERMUTATIONS,
                   help=f"random sign flips of paired approximate randomisation (default {DEFAULT_PERMUTATIONS}); "
                        "every one of the 2^n flips when that is no more")
    p.add_argument("--seed", type=_integer(0), default=DEFAULT_SEED,
                   help=f"seed of the resamples and flips (default {DEFAULT_SEED})")
    p.add_argument("--top", type=_integer(0), default=5,
                   help="items of largest absolute difference to list per system and column (default 5)")
    p.add_argument("--allow-different-definitions", action="store_true",
                   help="compare files scored under different definitions (score version, verifier and its weights, "
                        "--dtype, decomposer, replay file...) or without a run record; every line of the table then "
                        "says so (default: refused, exit 2, naming both files and what differs)")
    p.add_argument("--references", default=None, metavar="GOLD",
                   help="AVeriTeC gold JSON, for prediction files in the AVeriTeC predictions format (as ev2r score)")


def run(args) -> int:
    """Compare; prints the table (or ``--json``). Returns 0 (2 on refusal or unusable input, via the caller)."""
    from ev2r.reporting.compare import compare_runs, format_text, load_run

    cache: dict = {}

    def scorer():  # one scorer for every prediction file: one definition
        if "scorer" not in cache:
            from ev2r.metric.factory import build_scorer

            cache["scorer"] = build_scorer()
        return cache["scorer"]

    def on_scoring(path: str, n: int) -> None:
        print(f"ev2r compare: {path} has no score columns: scoring its {n} item(s) with the default scorer "
              "(as `ev2r score` with no option) ...", file=sys.stderr)

    runs = [load_run(path, references=args.references, scorer=scorer, on_scoring=on_scoring)
            for path in [args.baseline, *args.systems]]
    comparison = compare_runs(runs[0], runs[1:], args.columns, n_resamples=args.resamples,
                              n_permutations=args.permutations, seed=args.seed, top=args.top,
                              allow_different_definitions=args.allow_different_definitions)
    if args.json:
        print(json.dumps(comparison.to_dict(), ensure_ascii=False))
    else:
        print(format_text(comparison), end="")
    return 0
