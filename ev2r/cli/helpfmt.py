"""Help a person can scan: ``ev2r COMMAND -h`` shows the common options in one screen, ``--help-all`` every one.

:func:`two_level_help` changes only how a parser prints its help: the options, their groups and what they
parse stay as declared. ``-h`` lists the options named ``common`` (with a one-line help each, from ``short``
or the first clause of the full help), a short usage line, and a last line saying how many options are left
out and that ``--help-all`` prints them. A command whose full help already fits :data:`SCREEN_LINES` is
left as it is (no ``--help-all``).
"""

from __future__ import annotations

import argparse
import re
from typing import Iterable, Mapping, Optional

#: The lines of one screen: ``ev2r COMMAND -h`` stays within it (tests/ev2r/cli/test_helpfmt.py).
SCREEN_LINES = 50
#: Width the screen is measured at (argparse reads $COLUMNS; 80 when unset).
SCREEN_COLUMNS = 80


class _HelpAll(argparse.Action):
    """``--help-all``: print every option (the full help) and exit 0."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        import sys

        parser._print_message(parser._ev2r_full_help(), sys.stdout)  # type: ignore[attr-defined]
        parser.exit()


def first_clause(text: Optional[str], limit: int = 70) -> str:
    """The start of a help text, up to its first ``:``, ``;``, `` (`` or sentence end, at most ``limit``
    characters (a word boundary, then ``...``).

    >>> first_clause("verifier batch size (default 32)")
    'verifier batch size'
    >>> first_clause("NLI verifier: 'bundled' (default, English), 'fast' (3 layers)")
    'NLI verifier'
    >>> first_clause("the judge's server, e.g. http://localhost:8000/v1. More below")
    "the judge's server, e.g. http://localhost:8000/v1"
    """
    if not text or text == argparse.SUPPRESS:
        return ""
    head = re.split(r":\s|;\s|\s\(|(?<!e\.g)(?<!i\.e)\.\s", text, maxsplit=1)[0].strip()  # "e.g. " ends no clause
    if len(head) > limit:
        head = head[:limit].rsplit(" ", 1)[0] + "..."
    return head


def _key(action: argparse.Action) -> str:
    return action.option_strings[-1] if action.option_strings else action.dest


def two_level_help(parser: argparse.ArgumentParser, common: Iterable[str],
                   short: Optional[Mapping[str, str]] = None, usage: Optional[str] = None) -> None:
    """Make ``parser -h`` print the ``common`` options only and add ``--help-all`` (the full help).

    Args:
        parser: a command's parser with its options added (in their argument groups).
        common: the options shown by ``-h``, by their long option string (``"--json"``) or, for a
            positional, its name (``"input"``); ``-h`` and ``--help-all`` are always shown.
        short: option -> the one-line help ``-h`` shows (default: :func:`first_clause` of the full help).
        usage: the usage line of ``-h`` without the program name (default: the positionals and ``[options]``).

    Raises:
        ValueError: a ``common`` or ``short`` name that is no option of ``parser`` (naming it).
    """
    common = set(common)
    short = dict(short or {})
    known = {_key(a) for a in parser._actions} | {s for a in parser._actions for s in a.option_strings}
    for name in list(common) + list(short):
        if name not in known:
            raise ValueError(f"two_level_help: {name!r} is not an option of {parser.prog!r}")
    full = parser.format_help
    if len(full().splitlines()) <= SCREEN_LINES:
        return
    parser.add_argument("--help-all", action=_HelpAll, help="show every option, grouped, with its full help")
    parser._ev2r_full_help = full  # type: ignore[attr-defined]
    always = {"--help", "--help-all"}

    def shown(a: argparse.Action) -> bool:
        return bool({_key(a), *a.option_strings} & (common | always)) and a.help != argparse.SUPPRESS

    def short_help() -> str:
        hidden = [a for a in parser._actions if not shown(a) and a.help != argparse.SUPPRESS]
        saved = [(a, a.help) for a in parser._actions]
        saved_usage, saved_epilog = parser.usage, parser.epilog
        try:
            for a in parser._actions:
                if not shown(a):
                    a.help = argparse.SUPPRESS
                elif _key(a) not in always:
                    a.help = short.get(_key(a)) or first_clause(a.help)
            positionals = " ".join(str(a.metavar or a.dest.upper()) for a in parser._actions if not a.option_strings)
            parser.usage = f"{parser.prog} {usage or (positionals + ' [options]').strip()}"
            parser.epilog = (f"{len(hidden)} more options ({', '.join(_key(a) for a in hidden[:4])}, ...): "
                             f"{parser.prog} --help-all")
            return full()
        finally:
            for a, h in saved:
                a.help = h
            parser.usage, parser.epilog = saved_usage, saved_epilog

    parser.format_help = short_help  # type: ignore[method-assign]


#: The options ``ev2r COMMAND -h`` shows for the commands whose full help is longer than a screen (``score``
#: declares its own, :data:`ev2r.cli.score.COMMON_OPTIONS`); ``ev2r.cli.main.build_parser`` and
#: ``ev2r.cli.train.main`` apply them. A command left out keeps its full help (it fits a screen).
COMMON_BY_COMMAND: dict[str, tuple[str, ...]] = {
    "explain": ("input", "--id", "--references", "--json", "--scores", "--model"),
    "robustness": ("input", "--output-dir", "--sample", "--seed", "--scorer", "--suite", "--fail-on-violation",
                   "--allow-inconclusive", "--gold-as-prediction", "--references", "--verifier", "--no-progress"),
    "arena": ("systems", "--judge", "--output", "--pairs-per-claim", "--seed", "--limit", "--llm-cache",
              "--dry-run"),
    "averitec": ("predictions", "--references", "--edition", "--json", "--output", "--judge", "--llm-base-url",
                 "--llm-model", "--dry-run"),
    "train-verifier": ("--data-dir", "--out", "--resume", "--encoder", "--steps", "--batch-size", "--lr",
                       "--time-budget-min", "--seed", "--device"),
}


def apply_common(command: str, parser: argparse.ArgumentParser) -> None:
    """:func:`two_level_help` with the :data:`COMMON_BY_COMMAND` options of ``command`` (nothing for a
    command not listed). A listed name the parser no longer has is skipped here, so a renamed option never
    stops the command line (tests/ev2r/cli/test_score_versions.py fails on it instead)."""
    if command in COMMON_BY_COMMAND:
        known = {_key(a) for a in parser._actions}
        two_level_help(parser, [n for n in COMMON_BY_COMMAND[command] if n in known])
