"""The training pool and the evaluation sets of one training run, assembled from the readers of
:mod:`ev2r.training.data` and the augmentations of :mod:`ev2r.training.augment`."""

from __future__ import annotations

import random
import time
from pathlib import Path

from ev2r.training.augment import (augment_invariant, augment_negated_premise, augment_negation, augment_structure,
                                   augment_structure_reverse, augment_denial, augment_qa_layout)
from ev2r.training.data import (DATA_FILES, NLI_LABELS, REDISTRIBUTABLE, Pair, load_averitec_pairs,
                                load_averitec_witness_pairs, load_ctkfacts, czech_negation_probe,
                                augment_czech_negation, load_fever_symmetric, load_vitaminc, read_jsonl)

__all__ = ["AVERITEC_PREMISES", "build_training_pool", "check_witness_encoder", "training_pool", "witness_verifier"]


#: ``--averitec-premises`` values: how the AVeriTeC training pairs are made (:func:`training_pool`).
AVERITEC_PREMISES = ("evidence", "pair-witness")


def check_witness_encoder(encoder) -> None:
    """Check that ``encoder`` (``--encoder``) can pick the witness pairs of ``--averitec-premises pair-witness``:
    a checkpoint folder with weights whose ``config.id2label`` is the 3 NLI classes in training's order
    (:data:`NLI_LABELS`).

    Raises:
        ValueError: no encoder given (the bare MiniLM has no verdicts to pick witnesses by), a file instead of
            a folder, a config that cannot be read, other labels or another order, no weights; the message
            names the option.
    """
    from transformers import AutoConfig

    if encoder is None:
        raise ValueError("--averitec-premises pair-witness: needs --encoder, a 3-way NLI checkpoint such as "
                         "ev2r/verifier/models/minilm-nli (the witnesses are the pairs it finds most in favour of "
                         "the verdict; the bare MiniLM encoder has no verdicts)")
    folder = Path(str(encoder))
    if folder.is_file():
        raise ValueError(f"--averitec-premises pair-witness: --encoder {encoder} is a file; give the checkpoint's "
                         "folder")
    try:
        config = AutoConfig.from_pretrained(str(encoder))
    except (OSError, ValueError) as e:
        raise ValueError(f"--averitec-premises pair-witness: cannot read a model config from --encoder {encoder}: "
                         f"{str(e).splitlines()[0]}") from None
    id2label = {int(k): str(v).lower() for k, v in (getattr(config, "id2label", None) or {}).items()}
    if [id2label.get(i) for i in range(len(id2label))] != list(NLI_LABELS):
        raise ValueError(f"--averitec-premises pair-witness: --encoder {encoder} has labels {id2label}, not the 3-way "
                         f"NLI classes in training's order {dict(enumerate(NLI_LABELS))}")
    if folder.is_dir() and not any((folder / w).is_file() for w in ("model.safetensors", "pytorch_model.bin",
                                                                     "model.safetensors.index.json")):
        raise ValueError(f"--averitec-premises pair-witness: --encoder {encoder} holds a config but no weights "
                         "(model.safetensors or pytorch_model.bin)")


def witness_verifier(args):
    """The verifier that picks the witness pairs of ``--averitec-premises pair-witness``: the checkpoint
    training starts from (``args.encoder``), in fp32 (the same witnesses on every run and resume), with
    ``args.max_length`` tokens and its premise windows.

    Raises:
        ValueError: as :func:`check_witness_encoder`.
    """
    from ev2r.verifier.nli import HFNLIVerifier

    check_witness_encoder(args.encoder)
    return HFNLIVerifier(str(args.encoder), max_length=args.max_length, batch_size=64)


def build_training_pool(data_dir: Path, heldout_percent: int, seed: int, vitaminc_real_repeat: int,
                        breaking_nli_cap: int, aug_entail: int, aug_neutral: int):
    """Assemble the training pool and the evaluation sets. Returns (train, evals, stats)."""
    rng = random.Random(seed)
    vc_real_train, vc_real_held = load_vitaminc(data_dir / DATA_FILES["vitaminc_real"], heldout_percent)
    vc_syn_train, vc_syn_held = load_vitaminc(data_dir / DATA_FILES["vitaminc_synthetic"], heldout_percent)
    fever_sym = load_fever_symmetric(data_dir / DATA_FILES["fever_symmetric"])
    eval_claims = {p.hypothesis.strip().lower() for p in fever_sym}
    eval_claims |= {r["claim"].strip().lower() for r in read_jsonl(data_dir / DATA_FILES["fever_adversarial"])}
    eval_claims |= {p.hypothesis.strip().lower() for p in vc_real_held + vc_syn_held}

    nli: list[Pair] = []
    stats: dict[str, int] = {}
    for name in REDISTRIBUTABLE:
        rows = [Pair(r["premise"], r["hypothesis"], r["label"], name) for r in read_jsonl(data_dir / DATA_FILES[name])]
        if name == "breaking_nli" and len(rows) > breaking_nli_cap:
            rows = rng.sample(rows, breaking_nli_cap)
        nli.extend(rows)
    train = vc_real_train * vitaminc_real_repeat + vc_syn_train + nli
    before = len(train)
    train = [p for p in train if p.hypothesis.strip().lower() not in eval_claims]
    stats["removed_eval_claim_overlap"] = before - len(train)
    train += augment_negation(train, rng, aug_entail, aug_neutral)
    for p in train:
        stats[p.source] = stats.get(p.source, 0) + 1
    evals = {
        "vitaminc_real_heldout": vc_real_held,
        "vitaminc_synthetic_heldout": vc_syn_held,
        "fever_symmetric": fever_sym,
    }
    return train, evals, stats


def training_pool(args, rng: random.Random) -> tuple[list[Pair], dict[str, list[Pair]], dict[str, int]]:
    """The pool of one training run, as its options ask: :func:`build_training_pool`, then the
    invariance (``args.aug_invariant``), premise-negation (``args.aug_negated_premise``) and
    negation / word-order (``args.aug_structure``, and in the hypothesis ``args.aug_structure_reverse``) composed-denial
    (``args.aug_denial``), question/answer-layout (``args.aug_qa_layout``,
    :func:`ev2r.training.augment.augment_qa_layout`) and one-word meaning-edit (``args.aug_meaning_edits``,
    :func:`ev2r.training.edits.augment_meaning_edits`) augmentations, the AVeriTeC pairs (``args.averitec_train``,
    ``args.averitec_repeat`` copies) and the Czech CTKFacts pairs (``args.ctkfacts_train``, ``args.ctkfacts_repeat``
    copies, added after the augmentations: the English rules never rewrite Czech text; ``args.aug_czech_negation``
    copies of their Czech negations, :func:`ev2r.training.data.augment_czech_negation`), drawing from the run's ``rng``;
    with ``args.ctkfacts_dev``, ``evals["ctkfacts_dev"]`` is that split's pairs and ``evals["czech_negation_probe"]`` /
    ``["czech_negation_control"]`` the Czech negation probe built from it
    (:func:`ev2r.training.data.czech_negation_probe`). Returns (train, evals, stats) with ``stats`` counting the pairs
    per source (plus ``removed_eval_claim_overlap``).

    Raises:
        adversarial.resources.ResourceMissingError: a ``synonyms`` quota without WordNet.
        ValueError: a malformed CTKFacts row (:func:`ev2r.training.data.load_ctkfacts`).
    """
    train, evals, stats = build_training_pool(args.data_dir, args.heldout_percent, args.seed,
                                              args.vitaminc_real_repeat, args.breaking_nli_cap,
                                              args.aug_entail, args.aug_neutral)
    if args.aug_invariant:
        train += augment_invariant(train, rng, args.aug_invariant)
    if args.aug_negated_premise:
        train += augment_negated_premise(train, rng, args.aug_negated_premise)
    if getattr(args, "aug_structure", 0):
        train += augment_structure(train, rng, args.aug_structure)
    if getattr(args, "aug_structure_reverse", 0):
        train += augment_structure_reverse(train, rng, args.aug_structure_reverse)
    if getattr(args, "aug_denial", 0):
        kinds = getattr(args, "aug_denial_kinds", None)
        train += augment_denial(train, rng, args.aug_denial, kinds.split(",") if kinds else None)
    if getattr(args, "aug_qa_layout", 0):
        from ev2r.training.admission import CORPUS, read_corpus

        train += augment_qa_layout(train, rng, args.aug_qa_layout, read_corpus(CORPUS))
    if getattr(args, "aug_meaning_edits", 0):
        from ev2r.training.edits import augment_meaning_edits

        train += augment_meaning_edits(train, rng, args.aug_meaning_edits,
                                       getattr(args, "aug_meaning_change_share", 0.6),
                                       getattr(args, "aug_meaning_pair_share", 0.0),
                                       families=getattr(args, "aug_edit_families", None))
    if getattr(args, "aug_contained", 0):
        from ev2r.training.contained import augment_contained

        train += augment_contained(train, rng, args.aug_contained, getattr(args, "aug_contained_edit_share", 0.5),
                                   polar_share=getattr(args, "aug_contained_polar_share", 0.0),
                                   polar_balanced=getattr(args, "aug_contained_polar_balanced", False),
                                   families=getattr(args, "aug_edit_families", None))
    if args.averitec_train is not None:
        repeat = {"entailment": 2, "neutral": 2}
        if getattr(args, "averitec_premises", None) == "pair-witness":
            t0 = time.time()
            print(f"choosing witness pairs of {args.averitec_train} with {args.encoder} (a few minutes on 2 CPU "
                  "cores: every pair of every Supported / Refuted claim is scored once)", flush=True)
            predict = witness_verifier(args).predict
            av = load_averitec_witness_pairs(args.averitec_train, rng, predict, repeat)
            print(f"witness pairs chosen in {time.time() - t0:.0f}s: {len(av)} pairs", flush=True)
            av = av * args.averitec_repeat
        else:
            av = load_averitec_pairs(args.averitec_train, rng, repeat) * args.averitec_repeat
        train += av
    if getattr(args, "ctkfacts_train", None) is not None:
        ctk = load_ctkfacts(args.ctkfacts_train, "ctkfacts_train")
        train += ctk * args.ctkfacts_repeat
        if getattr(args, "aug_czech_negation", 0):
            train += augment_czech_negation(ctk, args.aug_czech_negation)
    if getattr(args, "ctkfacts_dev", None) is not None:
        probe = czech_negation_probe(args.ctkfacts_dev)
        evals = {**evals, "ctkfacts_dev": load_ctkfacts(args.ctkfacts_dev, "ctkfacts_dev"),
                 **({"czech_negation_probe": probe["negated"], "czech_negation_control": probe["control"]}
                    if probe["negated"] else {})}  # a split without a negatable SUPPORTS claim has no probe
    stats = {k: v for k, v in stats.items() if k == "removed_eval_claim_overlap"}
    for p in train:
        stats[p.source] = stats.get(p.source, 0) + 1
    return train, evals, stats
