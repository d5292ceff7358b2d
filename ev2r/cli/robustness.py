"""``ev2r robustness INPUT [-o DIR] [--suite perturbations|gaming] [--sample N] [--seed S] ...``: run the
perturbation suite, or the gaming suite (``--suite gaming``: evidence a cheating system could output
must not score above each item's real predicted evidence, :mod:`adversarial.perturbations.gaming`).

Mounted by ``ev2r.cli.main`` (``add_arguments`` + ``run``); also runnable alone
as ``python -m ev2r.cli.robustness INPUT ...``.

Writes ``DIR/report.json``, ``DIR/report.md``, ``DIR/report.png`` (a summary that fits a screen: one
row per perturbation, one cell per score, coloured by verdict; ``--png-details`` adds
``DIR/report_details.png``, one bar per score and perturbation with its CI95) and ``DIR/per_item.jsonl``
(each item's scores before and after, with the perturbed evidence), and prints the summary table
(Markdown) to stdout. Exit status: 0 when every counted expectation was judged and holds, 3 when none is
violated but some reached no verdict (INCONCLUSIVE: too few items; 0 with ``--allow-inconclusive``), 1 when one is
(``--fail-on-violation``: ``gated``, the default, counts the checks declared gated; ``all`` counts every check; ``none``
never fails), 2 on unusable input or options (unreadable file, no items, bad ``--sample``, unknown perturbation or
scorer, a scorer output that breaks the protocol).
"""

from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence, TextIO

from adversarial.perturbations import GAMING_STRATEGIES, PERTURBATIONS
from ev2r.config import DEFAULTS
from adversarial.suite import FAIL_MODES, Scorer
from ev2r.cli.common import METRIC_FIELDS, add_config_args, config_defaults, config_from_args, warn_ignored

#: The scorer configuration's options ``ev2r robustness`` takes (:func:`ev2r.cli.common.add_config_args`): the
#: verifier, its precision, the decomposer and those that change Ev2R's values (as ``ev2r score``'s).
CONFIG_FIELDS = ("verifier", "decomposer", "dtype") + METRIC_FIELDS

SCORERS = ("ev2r", "bleu", "edit", "hu_meteor")
#: What ``--suite`` runs: the perturbations (meaning kept or damaged) or the gaming strategies.
SUITES = ("perturbations", "gaming")
#: The files ``ev2r robustness`` writes into its ``-o`` folder (:func:`adversarial.report.write_report`).
OUTPUT_FILES = ("report.json", "report.md", "report.png", "report_details.png", "per_item.jsonl")


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add the ``robustness`` options to ``parser`` (returned)."""
    parser.add_argument("input", help="items: JSON or JSONL readable by ev2r.io.readers.read_items (claim, "
                                      "predicted_evidence, reference_evidence, gold_label, ...)")
    parser.add_argument("-o", "--output-dir", default="robustness",
                        help="folder for report.json, report.md, report.png, per_item.jsonl (default: robustness)")
    parser.add_argument("--sample", type=int, default=None,
                        help="score a random sample of N items (drawn with --seed, kept in file order); default: all")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample, the perturbations and the bootstrap")
    parser.add_argument("--scorer", default="ev2r",
                        help=f"the scorers to test, comma-separated ({', '.join(SCORERS)}; default: ev2r = "
                             "precision, recall, f1, proxy, ev2r with the bundled verifier)")
    parser.add_argument("--suite", choices=SUITES, default="perturbations",
                        help="the suite to run, perturbations or gaming: perturbations (default: the "
                             "meaning-preserving and meaning-damaging perturbations) or gaming (evidence a cheating "
                             "system could output; every score must stay at or below the item's real predicted "
                             "evidence)")
    parser.add_argument("--perturbations", default=None,
                        help=f"comma-separated perturbations (default: all of the suite): {', '.join(PERTURBATIONS)}; "
                             f"with --suite gaming: {', '.join(GAMING_STRATEGIES)}")
    parser.add_argument("--fail-on-violation", choices=FAIL_MODES, default="gated",
                        help="which violated expectations make the exit status 1: gated (default: the checks "
                             "declared gated), all, none")
    parser.add_argument("--allow-inconclusive", action="store_true",
                        help="exit 0 when no counted check is violated but some reached no verdict (too few items): "
                             "the report still says INCONCLUSIVE. Without it such a gate exits 3 (a gate that judged "
                             "only part of its checks has not passed). A gate that judged none of them exits 2 "
                             "either way: use more items")
    parser.add_argument("--gold-as-prediction", action="store_true",
                        help="use each item's reference evidence as its predicted evidence too (the base is "
                             "then gold vs gold, as in the Ev2R paper's checklist tests)")
    parser.add_argument("--references", default=None, help="AVeriTeC gold file to join a predictions file with")
    # the ev2r scorer's options are ev2r score's own (the one option table; --verifier is the older spelling of
    # --model): any definition ev2r score computes can be tested here
    add_config_args(parser, CONFIG_FIELDS, aliases={"verifier": ("--verifier",)}, help_prefix="ev2r scorer: ")
    parser.add_argument("--nltk-data", default=None,
                        help="folder with nltk data (corpora/wordnet) for the synonyms perturbation and METEOR; "
                             "default: NLTK_DATA / nltk's usual folders")
    parser.add_argument("--n-boot", type=int, default=2000, help="bootstrap resamples (default 2000)")
    parser.add_argument("--no-png", action="store_true", help="do not draw report.png")
    parser.add_argument("--png-details", action="store_true",
                        help="also draw report_details.png: one bar per perturbation and score with its CI95 (tall)")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress on stderr (default: a bar on a terminal, else a plain line every 10%% or "
                             "60 s, for the base items and then the perturbed items)")
    return parser


def with_progress(scorer: Scorer, enabled: bool = True, stream: Optional[TextIO] = None) -> Scorer:
    """``scorer`` reporting its progress on ``stream`` (stderr) per call (:class:`ev2r.cli.progress.Progress`):
    the suite calls it on the base items, then on all perturbed items. An ev2r scorer
    (:func:`ev2r.metric.factory.make_item_scorer`) reports as its chunks complete; any other at the
    end of each call. ``enabled=False`` returns ``scorer`` itself."""
    if not enabled:
        return scorer
    from ev2r.cli.progress import Progress

    phases = iter(("base items", "perturbed items"))
    inner = getattr(scorer, "scorer", None)

    def scored(items):
        items = list(items)
        bar = Progress(f"ev2r robustness ({next(phases, 'items')})", len(items), enabled=len(items) > 1,
                       stream=stream if stream is not None else sys.stderr)
        had = getattr(inner, "progress", None) if inner is not None else None
        if inner is not None and hasattr(inner, "progress"):
            inner.progress = bar.update
        try:
            out = scorer(items)
            bar.update(len(items))
        finally:
            if inner is not None and hasattr(inner, "progress"):
                inner.progress = had
            bar.close()
        return out

    scored.__name__ = getattr(scorer, "__name__", "scorer")
    return scored


def _split(value: Optional[str], option: str = "--perturbations") -> Optional[list[str]]:
    """Comma-separated names; None when the option was not given.

    Raises:
        ValueError: the option was given but names nothing (e.g. ``,``).
    """
    if value is None:
        return None
    names = [v.strip() for v in value.split(",") if v.strip()]
    if not names:
        raise ValueError(f"{option}: {value!r} names nothing; give comma-separated names or leave the option out")
    return names


def build_scorer(names: Sequence[str], args: argparse.Namespace) -> Scorer:
    """The scorer for ``--scorer`` names (several are combined).

    Raises:
        ValueError: an unknown name, ``--alpha`` outside [0, 1] (for any scorer), or an ev2r option
            value ev2r rejects.
    """
    from adversarial.baselines import combine_scorers, get_baseline

    import math

    alpha = getattr(args, "alpha", DEFAULTS.alpha)
    if not (isinstance(alpha, (int, float)) and math.isfinite(alpha) and 0.0 <= alpha <= 1.0):
        # checked whatever the scorer, so a bad value is never silently ignored
        raise ValueError(f"--alpha: must be a number in [0, 1], got {alpha!r}")
    if "ev2r" not in names:
        warn_ignored("ev2r robustness", args, config_defaults(CONFIG_FIELDS),
                     f"with --scorer {','.join(names)} (they configure the ev2r scorer only)")
    parts = []
    signature: Optional[str] = None
    for n in names:
        if n not in SCORERS:
            raise ValueError(f"--scorer: unknown scorer {n!r}; allowed: {', '.join(SCORERS)}")
        if n == "ev2r":
            from ev2r.metric.factory import make_item_scorer

            part = make_item_scorer(config_from_args(args))
            signature = str(part.scorer.signature())  # type: ignore[attr-defined]
            parts.append(part)
        else:
            parts.append(get_baseline(n))
    out = parts[0] if len(parts) == 1 else combine_scorers(parts)
    if signature is not None:
        out.ev2r_signature = signature  # type: ignore[attr-defined]  # into the report's settings
    return out


def run(args: argparse.Namespace, scorer: Optional[Scorer] = None,
                   stdout: Optional[TextIO] = None) -> int:
    """Run the suite as the CLI does. ``scorer`` replaces ``--scorer`` (tests, other metrics).

    Returns:
        0 every counted expectation judged and holding, 1 one is violated, 2 unusable input or options (or no
        counted check judged at all), 3 none violated but some reached no verdict (INCONCLUSIVE; 0 with
        ``--allow-inconclusive``).
    """
    import numpy as np

    from adversarial.report import render_markdown, write_report
    from adversarial.resources import add_nltk_data_path
    from adversarial.suite import run_suite

    out = stdout or sys.stdout
    err = sys.stderr

    def fail(msg: str) -> int:
        print(f"ev2r robustness: error: {msg}", file=err)
        return 2

    try:  # before any work: the folder can be written and none of its files is an input
        from ev2r.cli.common import check_output, input_paths

        check_output(args.output_dir, option="-o/--output-dir", kind="dir", files=OUTPUT_FILES,
                     inputs=input_paths(("input", args.input), ("--references", args.references)))
    except ValueError as e:
        return fail(str(e))
    if args.nltk_data:
        try:
            add_nltk_data_path(args.nltk_data)
        except ValueError as e:
            return fail(str(e))
    try:
        names = [n.replace("-", "_") for n in (_split(args.scorer, "--scorer") or ["ev2r"])]  # hu-meteor as in score
    except ValueError as e:
        return fail(str(e))
    # the verdict the ev2r scorer's proxy needs is checked for every row here, before any model loads (as ev2r score)
    need = "gold_label" if "ev2r" in names else None
    try:
        from ev2r.io.readers import read_items

        items = read_items(args.input, references=args.references, require_label=need)
    except (OSError, ValueError) as e:
        return fail(f"cannot read {args.input}: {e}")
    if not items:
        return fail(f"{args.input}: no items")
    if args.seed is None or args.seed < 0:
        return fail(f"--seed: expected a non-negative integer, got {args.seed}")
    if args.sample is not None:
        if args.sample < 1:
            return fail(f"--sample: expected N >= 1, got {args.sample}")
        if args.sample < len(items):
            idx = np.random.default_rng(args.seed).choice(len(items), size=args.sample, replace=False)
            items = [items[i] for i in sorted(idx.tolist())]
    if args.gold_as_prediction:
        items = [it.with_predicted(it.reference_evidence) for it in items]
    try:
        from adversarial.perturbations import get_gaming_strategies, get_perturbations

        suite = getattr(args, "suite", "perturbations")
        if suite == "gaming" and args.gold_as_prediction:
            return fail("--gold-as-prediction with --suite gaming: the gaming suite compares each strategy with the "
                        "item's real predicted evidence; leave --gold-as-prediction out")
        perts = (get_gaming_strategies if suite == "gaming" else get_perturbations)(_split(args.perturbations))
        if scorer is None:
            scorer = build_scorer(names, args)
            scorer_name = "+".join(names)
        else:
            scorer_name = getattr(scorer, "__name__", "scorer")
        signature = getattr(scorer, "ev2r_signature", None)  # the ev2r scorer's settings, into the report
    except (ValueError, OSError, ImportError) as e:  # bad option, missing verifier weights or library
        return fail(str(e))
    scorer = with_progress(scorer, enabled=not getattr(args, "no_progress", False), stream=err)
    try:
        report = run_suite(items, scorer, perts, seed=args.seed, n_boot=args.n_boot, scorer_name=scorer_name)
    except ValueError as e:
        return fail(str(e))
    if signature is not None:
        report.settings["ev2r_signature"] = signature
    paths = write_report(report, args.output_dir, mode=args.fail_on_violation, png=not args.no_png,
                         png_details=getattr(args, "png_details", False) and not args.no_png)
    print(render_markdown(report, args.fail_on_violation, detail=False), file=out)
    print("\nwrote " + ", ".join(paths[k] for k in ("json", "md", "png", "png_details", "per_item") if k in paths),
          file=out)
    viol = report.violations(args.fail_on_violation)
    if args.fail_on_violation != "none" and not report.judged(args.fail_on_violation):
        print(f"ev2r robustness: error: no counted check had enough scored items for a verdict (each needs >= "
              f"{report.settings.get('min_n', 3)}); the gate cannot pass on no evidence -- use more items",
              file=err)
        return 2
    if viol:
        print(f"ev2r robustness: {len(viol)} expectation(s) violated (--fail-on-violation "
              f"{args.fail_on_violation}): " + ", ".join(f"{c.perturbation}/{c.score}" for c in viol), file=err)
        return 1
    undecided = report.not_judged(args.fail_on_violation)
    if undecided:
        print(f"ev2r robustness: INCONCLUSIVE: {len(undecided)} counted check(s) reached no verdict (too few items, "
              "or an interval on both sides of the expectation): " + ", ".join(f"{c.perturbation}/{c.score}"
                                                                               for c in undecided)
              + ("; exit 0 (--allow-inconclusive)" if getattr(args, "allow_inconclusive", False)
                 else " -- score more items (--sample), or pass --allow-inconclusive; exit 3"), file=err)
        return 0 if getattr(args, "allow_inconclusive", False) else 3
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m ev2r.cli.robustness INPUT ...`` (same options as ``ev2r robustness``)."""
    parser = add_arguments(argparse.ArgumentParser(prog="ev2r robustness", description=__doc__.split("\n\n")[0]))
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
