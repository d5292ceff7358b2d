"""``ev2r verify``: P(entailment, neutral, contradiction) for premise/hypothesis rows."""

from __future__ import annotations

import argparse
import sys

from ev2r.cli.common import add_verifier_args, check_output
from ev2r.types import clean_text


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The ``verify`` command's options."""
    p.add_argument("input", help="JSONL rows with premise/hypothesis (or evidence/claim)")
    p.add_argument("-o", "--output", required=True)
    add_verifier_args(p)


def run(args) -> int:
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
    check_output(args.output)
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
