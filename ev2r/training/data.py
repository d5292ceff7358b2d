"""Training and evaluation data of the verifier: the shared data files, the (premise, hypothesis,
label) :class:`Pair`, and readers of VitaminC, FEVER-Symmetric, the negation probe, AVeriTeC and
CTKFacts (Czech).

Labels are the NLI classes of :mod:`claimalign.nli` (:data:`NLI_LABELS`, output ids :data:`LABEL2ID`);
dataset verdicts are mapped onto them by the project's one vocabulary (:func:`claimalign.nli.normalize_nli_label`,
:data:`ev2r.labels.VERDICT_TO_NLI`).
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

# the gaming suite's Czech rule
from adversarial.perturbations.meaning import CZECH_NEGATED_AUX, negate_czech  # noqa: F401
from claimalign.nli import NLI_LABELS, normalize_nli_label
from ev2r.labels import VERDICT_TO_NLI, normalize_verdict

__all__ = ["NLI_LABELS", "LABEL2ID", "REDISTRIBUTABLE", "DATA_FILES", "VITAMINC_TO_NLI", "AVERITEC_TO_NLI",
           "PROBE_PATH", "Pair", "read_jsonl", "heldout_case", "load_vitaminc", "load_fever_symmetric", "load_probe",
           "load_averitec_pairs", "load_averitec_witness_pairs", "load_averitec_items", "CTKFACTS_FILES",
           "load_ctkfacts"]

#: Output id of each class in a model this package trains (``config.id2label`` = {0: entailment, ...}).
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

#: CTKFacts splits under the shared data folder (CC BY-SA 3.0; Czech claims against Czech News Agency paragraphs).
CTKFACTS_FILES = {"train": "ctkfacts/ctkfacts_train.jsonl", "dev": "ctkfacts/ctkfacts_dev.jsonl"}

#: VitaminC / FEVER verdict strings -> NLI class name.
VITAMINC_TO_NLI = {v: normalize_nli_label(v).value for v in ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")}
#: AVeriTeC verdicts with a single NLI class -> its name (Conflicting Evidence/Cherrypicking has none).
AVERITEC_TO_NLI = {v: VERDICT_TO_NLI[normalize_verdict(v)] for v in ("Supported", "Refuted", "Not Enough Evidence")}
#: The hand-written negation probe (20 negations that must be contradictions, 8 paraphrases with negation).
PROBE_PATH = Path(__file__).parent / "data" / "negation_probe.jsonl"


@dataclass(frozen=True)
class Pair:
    """One (premise, hypothesis) training or evaluation pair with its NLI label."""

    premise: str
    hypothesis: str
    label: str
    source: str


def read_jsonl(path: Path) -> list[dict]:
    """The JSON objects of a JSONL file (blank lines skipped)."""
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
    for row in read_jsonl(path):
        pair = Pair(row["evidence"], row["claim"], VITAMINC_TO_NLI[row["label"]], source)
        (held if heldout_case(row["case_id"], heldout_percent) else train).append(pair)
    return train, held


def load_fever_symmetric(path: Path) -> list[Pair]:
    """FEVER-Symmetric pairs (evidence, claim, SUPPORTS / REFUTES as NLI)."""
    return [
        Pair(r["evidence"], r["claim"], VITAMINC_TO_NLI[r["label"]], "fever_symmetric")
        for r in read_jsonl(path)
    ]


def load_probe(path: Path = PROBE_PATH) -> list[Pair]:
    """The negation probe's (premise, hypothesis, label) pairs."""
    return [Pair(r["premise"], r["hypothesis"], r["label"], "negation_probe") for r in read_jsonl(path)]


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
    repeat = {"entailment": 1, "contradiction": 1, "neutral": 1, **(class_repeat or {})}
    usable = [(claim, ev.render(), label) for claim, ev, label in _averitec_claims(path) if not ev.is_empty]
    if negatives:
        _check_usable(usable, path)
    out: list[Pair] = []
    for k, (claim, evidence, label) in enumerate(usable):
        out.extend([Pair(evidence, claim, label, "averitec_train")] * repeat[label])
        if negatives:
            out.append(Pair(usable[_other_claim(rng, k, len(usable))][1], claim, "neutral",
                            "averitec_train_mismatched"))
    return out


def _averitec_claims(path: Path) -> list:
    """(claim, :class:`ev2r.types.Evidence`, NLI class name) of each row of an AVeriTeC split whose verdict has
    one NLI class (:data:`AVERITEC_TO_NLI`; any spelling :func:`ev2r.labels.normalize_verdict` reads), in file order.

    Raises:
        ValueError: a verdict no spelling rule reads (the message names the file and row).
    """
    from ev2r.io.readers import averitec_questions_to_evidence

    from claimalign.jsonio import list_element_lines, row_where

    nli_of = {normalize_verdict(k): v for k, v in AVERITEC_TO_NLI.items()}
    text = path.read_text(encoding="utf-8")
    rows = json.loads(text)
    lines = list_element_lines(text, len(rows)) or [None] * len(rows)
    out = []
    for k, row in enumerate(rows):
        at = row_where(path, k, lines[k])
        label = nli_of.get(normalize_verdict(row.get("label"), field=f"{at}: label"))
        if label is not None:
            out.append((row["claim"], averitec_questions_to_evidence(row.get("questions") or [], at), label))
    return out


def _check_usable(usable: list, path: Path) -> None:
    """Mismatched negatives need a second claim to draw from: refuse fewer than 2 usable claims by name."""
    if len(usable) < 2:
        raise ValueError(f"{path}: {len(usable)} usable claim(s) (a Supported / Refuted / Not Enough Evidence verdict "
                         "and an answer that states something); at least 2 are needed (each claim's negative is "
                         "another claim's evidence)")


def _other_claim(rng: random.Random, k: int, n: int) -> int:
    """A uniformly drawn index in ``range(n)`` other than ``k`` (the source of a mismatched negative)."""
    other = rng.randrange(n - 1)
    return other + (other >= k)


def load_averitec_witness_pairs(path: Path, rng: random.Random, predict, class_repeat: dict[str, int] | None = None,
                                neutral_cap: int = 3) -> list[Pair]:
    """In-domain pairs from an AVeriTeC split with each question/answer pair a premise on its own, as the
    proxy and the support checks read predicted evidence (:func:`ev2r.metric.reference.pair_premises`),
    labelled the way the proxy aggregates them (max over pairs, Akhtar et al. 2024 sec. 3.2 as
    implemented in :mod:`ev2r.metric.proxy`). AVeriTeC is CC BY-NC 4.0.

    The verdict belongs to the claim's evidence as a whole, not to each pair, so the pairs are labelled
    as in multiple-instance learning with a max-instance witness:

    * Supported (Refuted): the one *witness* pair to which ``predict`` (the verifier training starts from)
      gives the highest P(entailment) (P(contradiction)) -> entailment (contradiction); the other pairs of
      the claim are left out (their label is unknown);
    * Not Enough Evidence: every pair, at most ``neutral_cap`` of them (drawn with ``rng``) -> neutral (the
      aggregate is neutral only when no pair entails or contradicts);
    * per claim one negative: a pair of another, randomly drawn claim's evidence -> neutral
      (``averitec_pair_mismatched``), so that the label cannot be read off the claim alone;
    * labelled pairs repeated ``class_repeat[label]`` times (the split is 58% Refuted).

    Args:
        path: an AVeriTeC JSON split (``train.json``; never dev, which is for evaluation).
        rng: draws the negatives and the Not Enough Evidence sample.
        predict: ``predict(premises, hypotheses) -> (n, 3)`` probabilities in the order
            (entailment, neutral, contradiction), e.g. :meth:`ev2r.verifier.nli.HFNLIVerifier.predict`.
        class_repeat: copies per NLI class name (default 1 each).
        neutral_cap: most Not Enough Evidence pairs per claim (>= 1).

    Raises:
        ValueError: ``neutral_cap`` < 1; fewer than 2 usable claims; an unreadable verdict; ``predict``
            returns another shape or values that are not probabilities (:func:`claimalign.nli.check_probabilities`).
    """
    import numpy as np

    from claimalign.nli import check_probabilities
    from ev2r.metric.reference import pair_premises

    if isinstance(neutral_cap, bool) or not isinstance(neutral_cap, int) or neutral_cap < 1:
        raise ValueError(f"neutral_cap: expected an int >= 1, got {neutral_cap!r}")
    repeat = {"entailment": 1, "contradiction": 1, "neutral": 1, **(class_repeat or {})}
    usable = [(claim, premises, label) for claim, ev, label in _averitec_claims(path)
              if (premises := pair_premises(ev))]
    _check_usable(usable, path)
    todo = [(k, j) for k, (_, prem, label) in enumerate(usable) if label != "neutral" for j in range(len(prem))]
    probs = (check_probabilities(predict([usable[k][1][j] for k, j in todo], [usable[k][0] for k, _ in todo]),
                                 len(todo), source="witness verifier") if todo else np.zeros((0, 3)))
    best: dict[int, tuple[float, int]] = {}
    for (k, j), p in zip(todo, probs):
        v = float(p[LABEL2ID[usable[k][2]]])
        if k not in best or v > best[k][0]:
            best[k] = (v, j)
    out: list[Pair] = []
    for k, (claim, premises, label) in enumerate(usable):
        if label == "neutral":
            chosen = premises if len(premises) <= neutral_cap else rng.sample(premises, neutral_cap)
        else:
            chosen = [premises[best[k][1]]]
        for premise in chosen:
            out.extend([Pair(premise, claim, label, "averitec_pair_witness")] * repeat[label])
        other = usable[_other_claim(rng, k, len(usable))][1]
        out.append(Pair(rng.choice(other), claim, "neutral", "averitec_pair_mismatched"))
    return out


def load_averitec_items(path: Path) -> list:
    """AVeriTeC claims with a Supported / Refuted / Not Enough Evidence verdict, as :class:`ev2r.types.Item`
    whose predicted evidence is the gold evidence: the proxy's verdict on them measures how well a
    verifier reads question/answer evidence (Conflicting Evidence/Cherrypicking has no single NLI
    class and is left out)."""
    from ev2r.io.readers import averitec_questions_to_evidence
    from ev2r.types import Item

    from claimalign.jsonio import list_element_lines, row_where

    text = path.read_text(encoding="utf-8")
    rows = json.loads(text)
    lines = list_element_lines(text, len(rows)) or [None] * len(rows)
    items = []
    for k, row in enumerate(rows):
        if row.get("label") not in AVERITEC_TO_NLI:
            continue
        ev = averitec_questions_to_evidence(row.get("questions") or [], row_where(path, k, lines[k]))
        if ev.is_empty:
            continue
        items.append(Item(id=str(k), claim=row["claim"], predicted_evidence=ev, reference_evidence=ev,
                          gold_label=normalize_verdict(row["label"], field="label"), row=k))
    return items


def load_ctkfacts(path: Path, source: str = "ctkfacts_train") -> list[Pair]:
    """CTKFacts rows (``../shared/data/ctkfacts/``, CC BY-SA 3.0) as NLI pairs: premise = the row's
    ``premise`` (the annotated Czech News Agency paragraphs; ``evidence`` where ``premise`` is absent),
    hypothesis = its ``hypothesis`` (``claim`` where absent), label = its ``nli_label`` (else ``label``,
    a FEVER verdict), read by the project's one vocabulary (:func:`claimalign.nli.normalize_nli_label`:
    ``SUPPORTS`` / ``entailment`` -> entailment, ``REFUTES`` -> contradiction, ``NOT ENOUGH INFO`` -> neutral).
    Text is NFC-normalised (:func:`claimalign.text.normalize_text`), as every reader does.

    Raises:
        ValueError: a row without premise/evidence or hypothesis/claim text, or with a label that is
            not an NLI class or FEVER verdict, naming the file, the row (0-based), its line and the field.
    """
    from claimalign.jsonio import row_where
    from claimalign.text import normalize_text

    out: list[Pair] = []
    k = -1  # the row, blank lines skipped (messages name it and the line)
    with open(path, encoding="utf-8") as fh:
        for line_no, line in enumerate(fh, 1):
            if not line.strip():
                continue
            k += 1
            row = json.loads(line)
            texts = []
            for fields in (("premise", "evidence"), ("hypothesis", "claim")):
                value = next((row[f] for f in fields if isinstance(row.get(f), str) and row[f].strip()), None)
                if value is None:
                    raise ValueError(f"{row_where(path, k, line_no)}: no text in "
                                     f"{' or '.join(repr(f) for f in fields)}")
                texts.append(normalize_text(value))
            field = "nli_label" if row.get("nli_label") is not None else "label"
            try:
                label = normalize_nli_label(row.get(field)).value
            except (ValueError, TypeError, AttributeError):
                raise ValueError(f"{row_where(path, k, line_no)}: field {field!r} is {row.get(field)!r}, not one of "
                                 f"{', '.join(NLI_LABELS)} or SUPPORTS / REFUTES / NOT ENOUGH INFO") from None
            out.append(Pair(texts[0], texts[1], label, source))
    return out


# ----------------------------------------------------------------------------- the Czech negation probe

def czech_negation_probe(path: Path) -> dict[str, list[Pair]]:
    """The Czech negation probe built from a CTKFacts split (``ctkfacts_dev.jsonl``): for every
    SUPPORTS claim that :func:`negate_czech` can negate, ``(premise, negated claim)`` -> contradiction
    (``"negated"``) and, as its control, ``(premise, claim)`` -> entailment (``"control"``). Built on the fly
    from the data (CC BY-SA 3.0), never stored in the package. On CTKFacts dev: 88 of the 108 SUPPORTS claims.

    Raises:
        ValueError: a malformed row (:func:`load_ctkfacts`).
    """
    from claimalign.text import normalize_text

    negated, control = [], []
    for p in load_ctkfacts(path, "ctkfacts_negation_probe"):
        if p.label != "entailment":
            continue
        neg = negate_czech(p.hypothesis)
        if neg is None:
            continue
        negated.append(Pair(p.premise, normalize_text(neg), "contradiction", "czech_negation_probe"))
        control.append(Pair(p.premise, p.hypothesis, "entailment", "czech_negation_probe_control"))
    return {"negated": negated, "control": control}


def augment_czech_negation(pairs: Sequence[Pair], copies: int) -> list[Pair]:
    """Czech negation pairs from CTKFacts *train* pairs (the multilingual verifier read "nezatkla" as
    "zatkla"), ``copies`` times each: an entailed claim with its first verb negated (:func:`negate_czech`) ->
    contradiction, and a neutral (NOT ENOUGH INFO) claim negated -> neutral, so that the prefix ``ne-`` alone is
    no cue. The Czech negation probe is built by the same rule from the *dev* split (other documents), so it
    measures the rule on unseen text; the natural negation pairs of CTKFacts dev
    (``benchmarks/results/czech_claims_nli.md``, negation subset) are the check made by people. Deterministic.
    """
    from claimalign.text import normalize_text

    out: list[Pair] = []
    for p in pairs:
        if p.label not in ("entailment", "neutral"):
            continue
        neg = negate_czech(p.hypothesis)
        if neg is None:
            continue
        label = "contradiction" if p.label == "entailment" else "neutral"
        out += [Pair(p.premise, normalize_text(neg), label, f"czech_negation_aug_{p.label}")] * copies
    return out
