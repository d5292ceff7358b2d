"""``ev2r verify``: P(entailment, neutral, contradiction) for premise/hypothesis rows.

Each output row is the input row with three fields added, ``entailment``, ``neutral`` and
``contradiction``. An input row that already has a field of one of these names is refused (exit
status 2, naming the rows and fields): an input field is never overwritten silently. The premise
is ``premise``, or ``evidence`` where ``premise`` is absent or null; the hypothesis is
``hypothesis``, else ``claim``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ev2r.cli.common import add_verifier_args, check_output, input_paths
from ev2r.types import clean_text

#: The fields ``ev2r verify`` adds to each row.
OUTPUT_FIELDS = ("entailment", "neutral", "contradiction")
#: (field, alias read where the field is absent or null).
TEXT_FIELDS = (("premise", "evidence"), ("hypothesis", "claim"))


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The ``verify`` command's options."""
    p.add_argument("input", help="JSONL rows with premise/hypothesis (or evidence/claim, read where premise/hypothesis "
                                 "is absent or null)")
    p.add_argument("-o", "--output", required=True,
                   help="each input row with entailment, neutral, contradiction (probabilities) added; a row that "
                        "already has one of these fields is refused, never overwritten (rename or drop the field), "
                        "and OUTPUT must not be INPUT")
    add_verifier_args(p)


def pair_from_row(row: Any, where: str) -> tuple[str, str]:
    """``(premise, hypothesis)`` of one ``ev2r verify`` input row (module docstring).

    Args:
        row: a parsed JSON object.
        where: ``FILE: row N`` for messages.

    Raises:
        InputError: not an object, a field of :data:`OUTPUT_FIELDS` already present, or no
            non-empty string for the premise or the hypothesis (naming the fields read).
    """
    from ev2r.io.readers import InputError

    if not isinstance(row, dict):
        raise InputError(f"{where}: expected a JSON object, got {type(row).__name__}")
    taken = [f for f in OUTPUT_FIELDS if f in row]
    if taken:
        raise InputError(f"{where}: the input already has field(s) {', '.join(map(repr, taken))}, which ev2r verify "
                         f"writes ({', '.join(OUTPUT_FIELDS)}); rename or drop them -- an input field is never "
                         "overwritten")
    texts = []
    for field, alias in TEXT_FIELDS:
        v = row.get(field)
        name = field
        if v is None:
            v, name = row.get(alias), f"{field} (or {alias})"
        if not isinstance(v, str) or not clean_text(v):
            raise InputError(f"{where}: field {name} must be a non-empty string, got {v!r:.80}")
        texts.append(v)
    return texts[0], texts[1]


def run(args) -> int:
    """``ev2r verify``: read the rows, check them all, run the verifier, write ``-o``. Returns 0.

    Raises:
        InputError, ValueError: (exit status 2) unusable rows (:func:`pair_from_row`), an output that
            cannot be written or is the input (:func:`ev2r.cli.common.check_output`).
    """
    from ev2r.metric.factory import get_verifier
    from claimalign.jsonio import line_of, row_where
    from ev2r.io.readers import read_rows, write_jsonl

    check_output(args.output, inputs=input_paths(("input", args.input)))
    rows = read_rows(args.input)
    pairs = [pair_from_row(r, row_where(args.input, n, line_of(rows, n))) for n, r in enumerate(rows)]
    premises = [p for p, _ in pairs]
    hypotheses = [h for _, h in pairs]
    verifier = get_verifier(args.verifier, device=args.device or "cpu", batch_size=args.batch_size, dtype=args.dtype)
    probs = verifier.predict(premises, hypotheses)
    out = []
    for r, p in zip(rows, probs):
        d = dict(r)
        d.update({"entailment": float(p[0]), "neutral": float(p[1]), "contradiction": float(p[2])})
        out.append(d)
    write_jsonl(out, args.output)
    print(f"wrote {len(out)} rows to {args.output} (verifier {verifier.name})", file=sys.stderr)
    return 0
