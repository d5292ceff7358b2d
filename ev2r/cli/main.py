"""The ``ev2r`` command line.

    ev2r score INPUT [-o OUT.jsonl] [--json] [--model M] [--decomposer rules|rules-v1|rules-v2|replay|llm]
                     [--replay FILE] [--llm-model M] [--scorer ev2r|hu-meteor] [--alpha A] [--dtype D]
                     [--engine local|ray] [--workers N]     (a Ray cluster: $RAY_ADDRESS)
    ev2r explain INPUT --id ID [--json] [--model M]
    ev2r report SCORES.jsonl -o REPORT.html [--input ITEMS] [--compare OTHER.jsonl]
    ev2r compare BASELINE.jsonl SYSTEM.jsonl [SYSTEM2.jsonl ...] [--columns C,...] [--json]
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
import importlib
import os
import sys
from typing import Optional, Sequence

#: oneDNN's cache of compiled kernels (primitives), capped for a command-line run (a value the user set is kept): the
#: verifier's passes come in many shapes (length buckets x batch sizes), and with oneDNN's default of 1,024 the cache
#: grows with the number of items. Capped at 16, 300 AVeriTeC items peaked at 1,296 MB against 1,459 MB, at no
#: measured cost in CPU (benchmarks/results/memory_300.md). Numbers do not change: it caches kernels, not results.
ONEDNN_KERNEL_CACHE = "16"
os.environ.setdefault("ONEDNN_PRIMITIVE_CACHE_CAPACITY", ONEDNN_KERNEL_CACHE)

#: command -> (module in ev2r.cli, help line). Each module has ``add_arguments(parser)`` and ``run(args)``.
COMMANDS = {
    "score": ("score", "score predicted evidence against reference evidence"),
    "explain": ("explain", "why one item scored what it did: facts, deciding premises, proxy, alignment"),
    "report": ("report", "one self-contained HTML page of a scored run: summary, distribution, items, reasons"),
    "compare": ("compare", "is a system better than a baseline on the same items, or noise? (paired bootstrap, "
                           "approximate randomisation)"),
    "verify": ("verify", "NLI probabilities for premise/hypothesis rows"),
    "align": ("align", "Hungarian alignment of two sets of claims per row"),
    "robustness": ("robustness", "perturbation suite and robustness report"),
    "rank": ("rank", "rank systems from per-item scores (Bradley-Terry, Elo)"),
    "arena": ("arena", "rank systems from pairwise evidence battles judged by an LLM panel"),
    "averitec": ("averitec", "AVeriTeC shared-task table (official eval.py names and numbers)"),
}


def build_parser() -> argparse.ArgumentParser:
    """The ``ev2r`` parser with every subcommand (``train-verifier`` is dispatched before parsing)."""
    from ev2r._version import __version__
    from ev2r.cli.helpfmt import apply_common

    ap = argparse.ArgumentParser(prog="ev2r", description="Evaluate retrieved fact-checking evidence (Ev2R).")
    ap.add_argument("--version", action="version", version=f"ev2r {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)
    for name, (module, help_line) in COMMANDS.items():
        mod = importlib.import_module(f"ev2r.cli.{module}")
        p = sub.add_parser(name, help=help_line)
        mod.add_arguments(p)
        apply_common(name, p)  # -h fits a screen, --help-all has the rest (ev2r.cli.helpfmt)
        p.set_defaults(func=mod.run)
    p = sub.add_parser("train-verifier", help="train the bundled NLI verifier (see ev2r.training)",
                       add_help=False)
    p.set_defaults(func=None)
    return ap


def _plain_warnings(command: str) -> None:
    """Print the project's own warnings (``InputWarning``, ``LanguageWarning``, ...) as one line each,
    ``ev2r COMMAND: InputWarning: ...``, without the file name and source line Python adds (which would name a line
    inside ev2r and a line of code); other warnings as Python formats them. Only the format changes
    (``warnings.formatwarning``, :func:`ev2r._warnfmt.install`, which ``import ev2r`` runs with the prefix ``ev2r``):
    filters and recording are untouched."""
    from ev2r._warnfmt import install

    install(f"ev2r {command}")


#: Command-line options that left in 2.0 -> what to use instead (CHANGELOG.md, 2.0.0, "Migration").
REMOVED_OPTIONS = {
    "--support": "left in 2.0 (the 0/1 support of the paper is the only one; commit e43eb97 computes 'soft')",
    "--proxy-target": "left in 2.0 (the proxy scores the gold verdict; commit e43eb97 computes 'human')",
    "--unanswerable": "left in 2.0 (an Unanswerable pair is no evidence; commit e43eb97 computes 'statement')",
    "--meteor-match": "left in 2.0 (the fuzzy METEOR is the only one; commit e43eb97 computes 'exact')",
    "--no-contradiction": "left in 2.0 (the contradiction veto is always on; commit e43eb97 computes it off)",
    "--premise-top-k": "left in 2.0 (5 premises per fact, ev2r.config.PREMISE_TOP_K; commit e43eb97 computes others)",
    "--copy-reading": "left in 2.0 (the near-copy reading of ev2r/4 is the only one; commit e43eb97 computes others)",
    "--restatement": "left in 2.0 (the lexical reading is the only one; commit e43eb97 computes 'mutual')",
    "--hybrid-columns": "left the command line in 2.0: build_scorer(hybrid_columns='all') in Python, or "
                        "benchmarks/agreement/score_with.py hybrid_columns=all -- <ev2r score options>",
    "--admission": "left the command line in 2.0: build_scorer(admission=SPEC) in Python, or "
                   "benchmarks/agreement/score_with.py admission=SPEC -- <ev2r score options>",
    "--threshold": "left the command line in 2.0: build_scorer(threshold=P) in Python, or "
                   "benchmarks/agreement/score_with.py threshold=P -- <ev2r score options>",
    "--with-facts": "left in 2.0: use --explain (the facts with their support and reasons)",
    "--llm-price-in": "left in 2.0: use --llm-price IN,OUT",
    "--llm-price-out": "left in 2.0: use --llm-price IN,OUT",
    "--replay-model": "left in 2.0: use --llm-model MODEL with --decomposer replay",
    "--ray-address": "left in 2.0: set $RAY_ADDRESS",
}


def removed_option_message(argv: Sequence[str]) -> Optional[str]:
    """The message for the first option of ``argv`` that left in 2.0 (:data:`REMOVED_OPTIONS`), naming what replaces
    it; None when there is none (anything else is argparse's to judge). Arguments after ``--`` are not options.

    >>> removed_option_message(["score", "in.jsonl", "--llm-price-in=1"])
    '--llm-price-in: left in 2.0: use --llm-price IN,OUT'
    >>> removed_option_message(["score", "in.jsonl", "--alpha", "0.5"]) is None
    True
    """
    for arg in argv:
        if arg == "--":
            break
        flag = arg.split("=", 1)[0]
        if flag in REMOVED_OPTIONS:
            return f"{flag}: {REMOVED_OPTIONS[flag]}"
    return None


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run one ``ev2r`` command; returns the exit status (0 ok, 1 every item failed, 2 bad input)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "train-verifier":
        from ev2r.cli.train import main as train_main

        return train_main(argv[1:])
    removed = removed_option_message(argv)
    if removed is not None:
        print(f"ev2r: error: {removed}", file=sys.stderr)
        return 2
    args = build_parser().parse_args(argv)
    from ev2r.io.readers import InputError

    _plain_warnings(args.command)

    try:
        return int(args.func(args) or 0)
    except (InputError, ValueError, OSError) as e:
        print(f"ev2r {args.command}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
