"""``ev2r report SCORES.jsonl -o report.html``: one self-contained HTML page of a scored run
(:mod:`ev2r.reporting.html`; issue 34)."""

from __future__ import annotations

import sys

from ev2r.cli.common import check_output, input_paths


def add_arguments(p) -> None:
    """Arguments of ``ev2r report``."""
    p.add_argument("scores", metavar="SCORES.jsonl",
                   help="the rows `ev2r score -o` wrote (with --explain for the reasons: deciding premises, the "
                        "proxy's pairs, the alignment); the run record beside it (SCORES.jsonl.ev2r-run.json) gives "
                        "the signature when it is there")
    p.add_argument("-o", "--output", required=True, metavar="REPORT.html", help="the HTML file to write")
    p.add_argument("--input", default=None, metavar="ITEMS",
                   help="the file that was scored (JSONL / AVeriTeC JSON): adds each item's claim, gold verdict and "
                        "evidence (rows are joined by their item_hash)")
    p.add_argument("--references", default=None, metavar="GOLD",
                   help="AVeriTeC gold JSON, when --input is an AVeriTeC predictions file (as for ev2r score)")
    p.add_argument("--title", default=None, help="the page title (default: 'ev2r report: <scores file name>')")


def run(args) -> int:
    """Write the report; prints one line naming it. Returns 0 (2 on unusable input, via the caller)."""
    from ev2r.reporting.html import write_report

    check_output(args.output, inputs=input_paths(("SCORES.jsonl", args.scores),
                                                 ("the run record of SCORES.jsonl", args.scores + ".ev2r-run.json"),
                                                 ("--input", args.input), ("--references", args.references)))
    if args.references and not args.input:
        raise ValueError("--references: only with --input (the AVeriTeC predictions file it joins)")
    n = write_report(args.scores, args.output, input_path=args.input, references=args.references, title=args.title)
    print(f"ev2r report: {n} items -> {args.output}", file=sys.stderr)
    return 0
