"""``ev2r score`` with fields of the research hook set: what the benchmarks that fit or compare them need.

    python benchmarks/agreement/score_with.py hybrid_columns=all -- INPUT -o S.jsonl --json --scorer ev2r --scorer hu-meteor
    python benchmarks/agreement/score_with.py admission=none threshold=0.6 -- INPUT -o S.jsonl

Since ev2r 2.0 ``ev2r score`` has options only for what a user of the shipped definition needs; the fields of
:class:`ev2r.config.ScorerConfig` that only a benchmark sets (:data:`RESEARCH_FIELDS`: ``hybrid_columns``, ``admission``,
``threshold``; the research hook of docs/api.md) are set here, before ``--``; everything after ``--`` is ``ev2r score``'s
own command line (:func:`ev2r.cli.score.run` with ``config``). The rows, the run record and the signature are those of
``ev2r score``: a value other than the default is written in the signature (``hybrid_columns`` alone changes no number,
only which component columns the rows carry).

Exit status as ``ev2r score``'s (2: a field that is not of the hook, or a value outside its field's allowed values).
"""

from __future__ import annotations

import sys
from typing import Optional, Sequence

#: The fields this script sets: the research hook of :class:`ev2r.config.ScorerConfig`.
RESEARCH_FIELDS = ("hybrid_columns", "admission", "threshold")


def parse_fields(pairs: Sequence[str]) -> dict:
    """``NAME=VALUE`` pairs -> the hook's fields (``threshold`` a number, the others text).

    >>> parse_fields(["hybrid_columns=all", "threshold=0.6"])
    {'hybrid_columns': 'all', 'threshold': 0.6}

    Raises:
        ValueError: a pair without ``=``, a name not in :data:`RESEARCH_FIELDS`, or a threshold that is no number.
    """
    out: dict = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or name not in RESEARCH_FIELDS:
            raise ValueError(f"{pair!r}: expected NAME=VALUE with NAME one of {', '.join(RESEARCH_FIELDS)} (the "
                             "research hook; every other option is ev2r score's own, after --)")
        if name == "threshold":
            try:
                out[name] = float(value)
            except ValueError:
                raise ValueError(f"threshold: expected a number in (0, 1), got {value!r}") from None
        else:
            out[name] = value
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run ``ev2r score`` with the hook's fields set; returns its exit status."""
    from ev2r.cli import score
    from ev2r.cli.main import build_parser
    from ev2r.config import DEFAULTS
    from ev2r.io.readers import InputError

    argv = list(sys.argv[1:] if argv is None else argv)
    if "--" not in argv:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    cut = argv.index("--")
    try:
        config = DEFAULTS.replace(**parse_fields(argv[:cut]))
    except ValueError as e:
        print(f"score_with: error: {e}", file=sys.stderr)
        return 2
    args = build_parser().parse_args(["score", *argv[cut + 1:]])
    try:
        return int(score.run(args, config=config) or 0)
    except (InputError, ValueError, OSError) as e:
        print(f"ev2r score: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
