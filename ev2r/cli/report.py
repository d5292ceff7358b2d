"""``ev2r report SCORES.jsonl -o report.html``: one self-contained HTML page of a scored run
(:mod:`ev2r.reporting.html`)."""

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
    p.add_argument("--compare", default=None, metavar="OTHER.jsonl",
                   help="add a comparison with another run's score rows on the same items (matched by id): "
                        "difference = OTHER - SCORES on the headline and ev2r, with the paired bootstrap interval and "
                        "approximate randomisation p of `ev2r compare SCORES.jsonl OTHER.jsonl`; runs scored under "
                        "different definitions are refused (exit 2)")
    p.add_argument("--allow-different-definitions", action="store_true",
                   help="with --compare: compare runs scored under different definitions (the page says so)")


def run(args) -> int:
    """Write the report; prints one line naming it. Returns 0 (2 on unusable input, via the caller)."""
    from ev2r.reporting.html import write_report

    check_output(args.output, inputs=input_paths(("SCORES.jsonl", args.scores),
                                                 ("the run record of SCORES.jsonl", args.scores + ".ev2r-run.json"),
                                                 ("--input", args.input), ("--references", args.references),
                                                 ("--compare", args.compare),
                                                 ("the run record of --compare",
                                                  args.compare and args.compare + ".ev2r-run.json")))
    if args.references and not args.input:
        raise ValueError("--references: only with --input (the AVeriTeC predictions file it joins)")
    if args.allow_different_definitions and not args.compare:
        raise ValueError("--allow-different-definitions: only with --compare")
    comparison = _comparison(args.scores, args.compare, args.allow_different_definitions) if args.compare else None
    n = write_report(args.scores, args.output, input_path=args.input, references=args.references, title=args.title,
                     comparison=comparison)
    print(f"ev2r report: {n} items -> {args.output}", file=sys.stderr)
    return 0


def _comparison(scores: str, other: str, allow_different_definitions: bool) -> dict:
    """``ev2r compare SCORES OTHER`` on the headline and ``ev2r`` (those both files have), as a dict for the page.

    Raises:
        ev2r.reporting.compare.DefinitionMismatch: the runs' definitions differ (without the flag).
        ValueError: a file that is not score rows, no column in common, fewer than 2 items in common (naming what).
    """
    from ev2r.config import HEADLINE_SCORE
    from ev2r.reporting.compare import compare_runs, load_run, score_columns

    base, system = load_run(scores, score_predictions=False), load_run(other, score_predictions=False)
    common = set(score_columns(base)) & set(score_columns(system))
    columns = [c for c in (HEADLINE_SCORE, "ev2r") if c in common]
    if not columns:
        raise ValueError(f"--compare: {scores} and {other} share neither {HEADLINE_SCORE} nor ev2r")
    return compare_runs(base, [system], columns, allow_different_definitions=allow_different_definitions).to_dict()
