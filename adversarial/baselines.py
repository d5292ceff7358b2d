"""Baseline evidence scorers with the suite's scorer protocol, and a way to combine scorers.

Each builder returns ``items -> [ {name: float | None} ]`` comparing an item's predicted evidence
with its reference evidence (None when the item has no reference evidence):

* :func:`bleu_scorer`: sentence BLEU of the rendered evidence texts (``sacrebleu.sentence_bleu``,
  default 13a tokenisation and exponential smoothing), divided by 100 -> [0, 1];
* :func:`edit_scorer`: normalised Levenshtein similarity of the rendered texts
  (``rapidfuzz.distance.Levenshtein.normalized_similarity``) -> [0, 1];
* :func:`hu_meteor_scorer`: AVeriTeC's Hungarian METEOR over question/answer pairs
  (:func:`claimalign.hu_meteor`, Schlichtkrull et al. 2023) -> [0, 1]; needs nltk's WordNet.

Libraries are imported when a scorer is built, not at import time.
"""

from __future__ import annotations

from typing import Callable, Mapping, Optional, Sequence

from claimalign.evidence import Item

from adversarial.suite import Scorer

BASELINES = ("bleu", "edit", "hu_meteor")


def _per_item(name: str, fn: Callable[[Item], Optional[float]]) -> Scorer:
    def score(items: Sequence[Item]) -> list[dict[str, Optional[float]]]:
        return [{name: (fn(it) if it.reference_evidence.pairs else None)} for it in items]

    score.__name__ = f"{name}_scorer"
    return score


def bleu_scorer(name: str = "bleu") -> Scorer:
    """Sentence BLEU / 100 of ``predicted_evidence.render()`` against ``reference_evidence.render()``.

    Raises:
        ImportError: sacrebleu is not installed.
    """
    from sacrebleu.metrics import BLEU

    bleu = BLEU(effective_order=True)
    return _per_item(name, lambda it: bleu.sentence_score(it.predicted_evidence.render(),
                                                          [it.reference_evidence.render()]).score / 100.0)


def edit_scorer(name: str = "edit") -> Scorer:
    """Normalised Levenshtein similarity (1 - distance / max length) of the rendered evidence texts.

    Raises:
        ImportError: rapidfuzz is not installed.
    """
    from rapidfuzz.distance import Levenshtein

    return _per_item(name, lambda it: float(Levenshtein.normalized_similarity(it.predicted_evidence.render(),
                                                                              it.reference_evidence.render())))


def hu_meteor_scorer(name: str = "hu_meteor", variant: str = "qa") -> Scorer:
    """Hungarian METEOR (``claimalign.hu_meteor``, ``variant`` ``"qa"`` or ``"q"``) of the predicted
    question/answer pairs against the reference pairs.

    Raises:
        ImportError: claimalign is not importable.
    """
    from claimalign import hu_meteor

    def fn(it: Item) -> float:
        return float(hu_meteor([(p.question, p.answer) for p in it.predicted_evidence.pairs],
                               [(p.question, p.answer) for p in it.reference_evidence.pairs], variant=variant))

    return _per_item(name, fn)


def get_baseline(name: str) -> Scorer:
    """The baseline scorer called ``name`` (one of :data:`BASELINES`).

    Raises:
        ValueError: unknown name, listing the allowed ones.
    """
    builders = {"bleu": bleu_scorer, "edit": edit_scorer, "hu_meteor": hu_meteor_scorer}
    if name not in builders:
        raise ValueError(f"scorer: unknown baseline {name!r}; allowed: {', '.join(BASELINES)}")
    return builders[name]()


def combine_scorers(scorers: Sequence[Scorer] | Mapping[str, Scorer]) -> Scorer:
    """One scorer whose per-item dicts merge those of ``scorers`` (called in order, on the same items).

    Raises:
        ValueError: (when called) two scorers return the same score name, or a scorer returns a
            list of the wrong length.
    """
    parts = list(scorers.values()) if isinstance(scorers, Mapping) else list(scorers)
    if not parts:
        raise ValueError("scorers: expected at least one scorer")

    def score(items: Sequence[Item]) -> list[dict[str, Optional[float]]]:
        items = list(items)
        rows: list[dict] = [{} for _ in items]
        for sc in parts:
            out = sc(items)
            if len(out) != len(items):
                raise ValueError(f"scorer {getattr(sc, '__name__', sc)!r}: returned {len(out)} results "
                                 f"for {len(items)} items")
            for row, d in zip(rows, out):
                clash = set(row) & set(d)
                if clash:
                    raise ValueError(f"combine_scorers: score name(s) {sorted(clash)} returned by two scorers")
                row.update(d)
        return rows

    return score
