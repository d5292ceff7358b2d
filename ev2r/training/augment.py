"""Rule-based augmentation of the training pool: negated hypotheses, negated premises, and
label-preserving variants made by the meaning-preserving perturbations of :mod:`adversarial`.
Every function is a pure function of its input pairs and the ``rng`` it is given."""

from __future__ import annotations

import random
import re
from typing import Sequence

from ev2r.training.data import Pair

__all__ = ["negate", "augment_negation", "augment_negated_premise", "INVARIANT_PERTURBATIONS", "augment_invariant"]

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
