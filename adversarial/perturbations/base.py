"""What every perturbation shares: its result, its declared expectation, its registry record, and
the building blocks that read and rebuild the question/answer pairs of an item's predicted evidence.

A perturbation is a pure function ``(item, rng) -> PerturbationResult``; the kinds live in
:mod:`adversarial.perturbations.words`, :mod:`~adversarial.perturbations.pairs` and
:mod:`~adversarial.perturbations.meaning`, the catalogue in :mod:`adversarial.perturbations`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional, Sequence

import numpy as np

from claimalign.evidence import Evidence, Item, QAPair

from adversarial._text import RNG, WORD_RE, as_generator, replace_spans


INVARIANT = "invariant"
DECREASE = "decrease"
#: the score may fall or stay, but must not rise beyond the tolerance (padding that adds nothing)
NO_INCREASE = "no_increase"
#: gamed evidence (:mod:`adversarial.perturbations.gaming`): the score must not rise above the real evidence's
NO_GAIN = "no_gain_over_original"
EFFECTS = (INVARIANT, DECREASE, NO_INCREASE, NO_GAIN)
MEANING_PRESERVING = "meaning-preserving"
MEANING_DAMAGING = "meaning-damaging"


@dataclass(frozen=True)
class PerturbationResult:
    """What a perturbation returns: a new item, or a skip.

    Attributes:
        item: the perturbed item (a new object), or None when skipped.
        skip_reason: why the perturbation does not apply to this item (None when applied).
        n_edits: how many edits were made (words changed, pairs moved, ...), >= 1 when applied.
    """

    item: Optional[Item]
    skip_reason: Optional[str] = None
    n_edits: int = 0

    @property
    def applied(self) -> bool:
        return self.item is not None

    @classmethod
    def skip(cls, reason: str) -> "PerturbationResult":
        """A skip with ``reason``."""
        return cls(None, reason, 0)


@dataclass(frozen=True)
class Expectation:
    """The declared effect of a perturbation on one score.

    Attributes:
        effect: ``"invariant"``, ``"decrease"``, ``"no_increase"`` or ``"no_gain_over_original"``.
        tolerance_pct: invariant: the largest allowed ``|% change|`` of the mean score;
            decrease: the smallest required drop of the mean score, in % of its base (> 0);
            no_increase: the largest allowed rise of the mean score, in % of its base;
            no_gain_over_original: the largest share of items (in %) whose score may rise at all
            (10 by default for the gaming strategies); the mean may not rise.
        gated: whether the CI gate enforces this check by default.

    Raises:
        ValueError: unknown ``effect`` or negative ``tolerance_pct``.
    """

    effect: str
    tolerance_pct: float
    gated: bool = False

    def __post_init__(self):
        if self.effect not in EFFECTS:
            raise ValueError(f"effect: expected one of {', '.join(EFFECTS)}, got {self.effect!r}")
        if not (self.tolerance_pct >= 0):
            raise ValueError(f"tolerance_pct: expected a number >= 0, got {self.tolerance_pct!r}")


PerturbFn = Callable[[Item, RNG], PerturbationResult]


@dataclass(frozen=True)
class Perturbation:
    """A named perturbation with its declared expectations.

    Attributes:
        name: registry name (``typos``, ``negate_answers``, ...).
        fn: the pure function ``(item, rng) -> PerturbationResult``.
        kind: ``"meaning-preserving"`` or ``"meaning-damaging"``.
        description: one line for reports.
        expect: the default expectation (any score without an override).
        expect_by_score: overrides by score name (``precision``, ``recall``, ``proxy``, ...).
        bind: optional ``items -> fn`` giving a version of ``fn`` that draws on the other items of
            the run (``off_topic_pair`` takes its pair from another claim's evidence).
        target: what the perturbation changes: ``"evidence"`` (the predicted evidence; all but one)
            or ``"claim"`` (the claim and its gold verdict: ``contrastive_claim``).
    """

    name: str
    fn: PerturbFn
    kind: str
    description: str
    expect: Expectation
    expect_by_score: Mapping[str, Expectation] = field(default_factory=dict)
    bind: Optional[Callable[[Sequence[Item]], PerturbFn]] = None
    target: str = "evidence"

    def __call__(self, item: Item, rng: RNG) -> PerturbationResult:
        return self.fn(item, rng)

    def expectation(self, score: str) -> Expectation:
        """The expectation for score ``score`` (its override, else the default)."""
        return self.expect_by_score.get(score, self.expect)


# ----------------------------------------------------------------------------- the pairs of the predicted evidence

#: The fields of a pair that an edit may change: questions and answers, or answers only.
FIELDS_QA = ("question", "answer")
FIELDS_A = ("answer",)


def field_texts(item: Item, fields: Sequence[str]) -> list[str]:
    """The texts of ``fields`` (a subset of :data:`FIELDS_QA`) of every pair of ``item``'s predicted
    evidence, pair by pair, in ``fields`` order: what :func:`rebuild` takes back."""
    return [getattr(p, f) for p in item.predicted_evidence.pairs for f in fields]


def rebuild(item: Item, texts: Sequence[str], fields: Sequence[str]) -> Item:
    """A new item whose predicted evidence has ``texts`` (laid out as :func:`field_texts` gives them)
    in ``fields``; the other fields, the claim and the reference evidence are kept."""
    pairs = []
    it = iter(texts)
    for p in item.predicted_evidence.pairs:
        values = {f: getattr(p, f) for f in FIELDS_QA}
        for f in fields:
            values[f] = next(it)
        pairs.append(QAPair(values["question"], values["answer"]))
    return item.with_predicted(Evidence(tuple(pairs)))


def result_from(item: Item, texts: list[str], new_texts: list[str], fields: Sequence[str], n_edits: int,
                no_change_reason: str) -> PerturbationResult:
    """The applied result with ``new_texts`` put back (:func:`rebuild`), or a skip with
    ``no_change_reason`` when nothing was edited or the texts came out unchanged."""
    if n_edits == 0 or new_texts == texts:
        return PerturbationResult.skip(no_change_reason)
    return PerturbationResult(rebuild(item, new_texts, fields), None, n_edits)


def no_evidence(item: Item) -> Optional[PerturbationResult]:
    """A skip when ``item`` has no predicted evidence (no pair, or only blank ones), else None."""
    if not item.predicted_evidence.pairs or item.predicted_evidence.is_empty:
        return PerturbationResult.skip("predicted evidence is empty")
    return None


#: ``edit(text, start, end, word, generator) -> (start, end, replacement)``: one word edit of :func:`edit_words`.
EditFn = Callable[[str, int, int, str, np.random.Generator], tuple[int, int, str]]


def edit_words(item: Item, rng: RNG, rate: float, eligible: Callable[[str], bool], edit: EditFn,
               fields: Sequence[str], reason: str, *, min_one: bool = True) -> PerturbationResult:
    """Edit ``rate`` of the eligible words (at least one unless ``min_one`` is False) chosen uniformly
    over the whole evidence; skipped with ``reason`` when no word is eligible.

    Raises:
        ValueError: ``rng`` is neither a numpy Generator nor a ``random.Random``.
    """
    skip = no_evidence(item)
    if skip:
        return skip
    g = as_generator(rng)
    texts = field_texts(item, fields)
    cands = [(ti, m.start(), m.end(), m.group(0))
             for ti, t in enumerate(texts) for m in WORD_RE.finditer(t) if eligible(m.group(0))]
    if not cands:
        return PerturbationResult.skip(reason)
    k = min(len(cands), max(1 if min_one else 0, int(round(rate * len(cands)))))
    chosen = sorted(g.choice(len(cands), size=k, replace=False).tolist())
    spans: dict[int, list[tuple[int, int, str]]] = {}
    for c in chosen:
        ti, s, e, w = cands[c]
        spans.setdefault(ti, []).append(edit(texts[ti], s, e, w, g))
    new = [replace_spans(t, spans.get(ti, [])) for ti, t in enumerate(texts)]
    return result_from(item, texts, new, fields, len(chosen), reason)


def rewrite_spans(item: Item, spans_of: Callable[[str], list], reason: str) -> PerturbationResult:
    """Replace the ``(start, end, replacement)`` spans ``spans_of(text)`` finds in each question
    and answer of the predicted evidence; skipped with ``reason`` when none is found."""
    skip = no_evidence(item)
    if skip:
        return skip
    texts = field_texts(item, FIELDS_QA)
    found = [spans_of(t) for t in texts]
    new = [replace_spans(t, sp) for t, sp in zip(texts, found)]
    return result_from(item, texts, new, FIELDS_QA, sum(len(sp) for sp in found), reason)


def apply_to_text(fn: PerturbFn, text: str, rng: RNG) -> Optional[str]:
    """Apply the perturbation function ``fn`` (of predicted evidence) to one plain string, read as one answer
    with no question (what :func:`adversarial.perturbations.perturb_text` does for a name or a function).

    Args:
        fn: a perturbation function ``(item, rng) -> PerturbationResult``.
        text: the string to perturb.
        rng: ``numpy.random.Generator`` or ``random.Random``; same state, same output.

    Returns:
        The perturbed string, or None when the perturbation does not apply (no eligible word, no number, ...).
    """
    item = Item(id="text", claim="", predicted_evidence=Evidence((QAPair("", text),)), reference_evidence=Evidence(()))
    res = fn(item, rng)
    return res.item.predicted_evidence.pairs[0].answer if res.item is not None else None
