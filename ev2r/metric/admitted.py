"""The admission stage run once per item: each side's pairs are read once
(:func:`ev2r.metric.admission.read_evidence`), and every part of the score -- the atomic facts, the premises of
precision and recall, the proxy, the contradiction veto, the alignments of the combination, ``explain`` and the row's
record -- reads a *view* of that one reading (:func:`admit`). Nothing downstream decides evidence again.

A view differs from another only in what the part asks of the same readings:

==================  ==============================================================================================
``claim``           with the claim (the predicted side): every rule; without (the reference side, or a predicted
                    pair as a copy candidate): the content rules only (:attr:`PairReading.plain`)
``unanswerable``    ``"drop"``, or ``"statement"`` (an Unanswerable pair kept, for decomposers that state it)
``relevant``        leave out the off-topic pairs (:attr:`PairReading.off_topic`): the predicted side's premises
``dedupe``          leave out a pair whose answer says what an earlier kept one says
                    (:func:`ev2r.metric.admission.same_meaning`): the alignments, where a copy must not take a second
                    reference pair
``exclude``         the pairs the reference contradicts (:mod:`ev2r.metric.contradiction`), reason ``contradicted``
==================  ==============================================================================================

:class:`ev2r.metric.scorer.Ev2RScorer` opens one :func:`admission_pass` per chunk and reads every item there
(:func:`admit_item`); inside it, a reading is kept per (evidence, claim, gold evidence, settings in force) and every
view is taken from it, so a pair's rules run once per item whatever the number of parts that read it. Outside a pass
(a part called on its own) each call reads afresh, with the same result.
"""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass
from typing import Collection, Iterator, Optional

from ev2r.config import UNANSWERABLE_MODES
from ev2r.metric import admission
from ev2r.metric.admission import PairReading, same_meaning
from ev2r.metric.scoped import scoped
from ev2r.types import Evidence, Item, QAPair

@dataclass(frozen=True)
class Admission:
    """The stage's decision on one pair.

    Attributes:
        index: the pair's position in its evidence (0-based).
        kept: whether the pair is evidence.
        reason: one of :data:`REASONS` (``"kept"`` when kept).
        pair: the pair as admitted (its answer less boilerplate and salad) or, when dropped, as given.
        decided_by: what decided: ``"rule:<name>"`` or ``"model:<name>"``.
        p_evidence: the learned reading's P(evidence) in [0, 1] where it was asked, else None.
        label: the learned class of highest probability where it was asked, else None.
        duplicate_of: for ``reason="duplicate"``, the index of the pair it repeats.
    """

    index: int
    kept: bool
    reason: str
    pair: QAPair
    decided_by: str = "rule:none"
    p_evidence: Optional[float] = None
    label: Optional[str] = None
    duplicate_of: Optional[int] = None

    def to_dict(self) -> dict:
        """A JSON-ready record (``explain`` and the report)."""
        d = {"pair": self.index, "kept": self.kept, "reason": self.reason, "decided_by": self.decided_by}
        if self.p_evidence is not None:
            d["p_evidence"] = round(self.p_evidence, 4)
            d["label"] = self.label
        if self.duplicate_of is not None:
            d["duplicate_of"] = self.duplicate_of
        return d


_PASS: contextvars.ContextVar = contextvars.ContextVar("ev2r_admission_pass", default=None)


@contextlib.contextmanager
def admission_pass() -> Iterator[None]:
    """Within the block, each evidence is read once per setting in force (the learned reading, the rule families,
    the copy and restatement readings): every later view of it reuses that reading."""
    with scoped(_PASS, {}):
        yield


def _settings(cache: dict) -> tuple:
    """The settings a reading depends on. The objects in force (the learned reading, the verifiers) are keyed by
    identity and kept alive by the pass, so that an identity cannot be reused by another object within it; a pass
    assumes they are not changed in place (the learned reading's threshold is read each time)."""
    from ev2r.metric.restatement import current_restatement_verifier

    model = admission.current_model()
    _, copy_verifier = admission.copy_setting()
    restate = current_restatement_verifier()
    alive = cache.setdefault("in force", {})
    for obj in (model, copy_verifier, restate):
        if obj is not None:
            alive[id(obj)] = obj
    return (getattr(model, "name", None), id(model), getattr(model, "threshold", None), admission.rules_off(),
            id(copy_verifier), id(restate), admission.respell_reads_synonyms())


def readings(evidence: Evidence, claim: Optional[str] = None,
             gold: Optional[Evidence] = None) -> tuple[PairReading, ...]:
    """The stage's reading of ``evidence`` (:func:`ev2r.metric.admission.read_evidence`): inside an
    :func:`admission_pass`, read once and reused. A request without a claim reuses a reading made with one (its
    ``plain`` fields are what a reading without a claim holds)."""
    cache = _PASS.get()
    if cache is None:
        return admission.read_evidence(evidence, claim, gold)
    settings = _settings(cache)
    key = (evidence, claim, gold if claim is not None else None, settings)
    hit = cache.get(key)
    if hit is None and claim is None:
        hit = cache.get(("any", evidence, settings))
    if hit is None:
        hit = admission.read_evidence(evidence, claim, gold)
        cache[key] = hit
        cache.setdefault(("any", evidence, settings), hit)
    return hit


def admit(evidence: Evidence, claim: Optional[str] = None, unanswerable: str = "drop", relevant: bool = False,
          gold: Optional[Evidence] = None, dedupe: bool = False, exclude: Collection[int] = ()) -> list[Admission]:
    """The stage's decision on every pair of ``evidence``, in order: a view (module docstring) of its one reading
    (:func:`readings`).

    Args:
        evidence: the evidence whose pairs are judged.
        claim: the item's claim, for the predicted side (None: the reference side, content rules only).
        unanswerable: ``"drop"`` or ``"statement"`` (an Unanswerable pair kept, for decomposers that state it).
        relevant: leave out pairs about something else (the predicted side's premises).
        gold: the item's reference evidence: a copy of one of its pairs is read as the reference reads it.
        dedupe: leave out a pair whose answer says what an earlier kept one says.
        exclude: pair indexes dropped beforehand (the pairs the reference contradicts): not admitted, reason
            ``"contradicted"``.

    Returns:
        One :class:`ev2r.metric.admitted.Admission` per pair, in order.

    Raises:
        ValueError: ``unanswerable`` not among :data:`ev2r.config.UNANSWERABLE_MODES`.
    """
    if unanswerable not in UNANSWERABLE_MODES:
        raise ValueError(f"unanswerable: {unanswerable!r} not among {list(UNANSWERABLE_MODES)}")
    with_claim = claim is not None
    model = admission.current_model() if with_claim else None
    out: list[Admission] = []
    kept_answers: list[tuple[int, str]] = []
    for r in readings(evidence, claim, gold):
        k, given = r.index, r.given
        if k in exclude:
            out.append(Admission(k, False, "contradicted", given, "rule:contradiction"))
            continue
        if with_claim:
            reason, pair, by, p_ev, label = r.reason, r.pair, r.decided_by, r.p_evidence, r.label
        else:
            reason, pair, by, p_ev, label = r.plain, r.plain_pair or given, r.plain_by, None, None
        if reason == "unanswerable":
            out.append(Admission(k, True, "kept", given, "rule:unanswerable-statement") if unanswerable == "statement"
                       else Admission(k, False, "unanswerable", given, "rule:unanswerable"))
            continue
        if reason != "kept":
            out.append(Admission(k, False, reason, given, by, p_evidence=p_ev, label=label))
            continue
        if relevant and with_claim and r.off_topic:
            out.append(Admission(k, False, "off_topic", given, "rule:relevance", p_evidence=p_ev, label=label))
            continue
        if dedupe and admission.rule_on("duplicate"):
            first = next((j for j, a in kept_answers if same_meaning(pair.answer, a)), None)
            if first is not None:
                out.append(Admission(k, False, "duplicate", given,
                                     "model:similarity" if model is not None else "rule:folded-text",
                                     p_evidence=p_ev, label=label, duplicate_of=first))
                continue
        kept_answers.append((k, pair.answer))
        out.append(Admission(k, True, "kept", pair, by, p_evidence=p_ev, label=label))
    return out


def admit_item(item: Item) -> None:
    """Read ``item``'s pairs (the predicted side with its claim and gold evidence, the reference side without a
    claim) into the :func:`admission_pass` open, so that every part of its score reads views of that one reading;
    outside a pass, nothing is kept. A reading that raises is left unmade: each part of the score meets the error on
    this item alone and records it there, and the other items go on."""
    try:
        readings(item.predicted_evidence, item.claim, item.reference_evidence)
        readings(item.reference_evidence)
    except Exception:  # noqa: S110 - recorded on the item by the part that meets it again
        pass


def item_record(item: Item, contradicted: Collection[int] = ()) -> list[dict]:
    """The row's record of the stage (``explain``, the report): per predicted pair, what the verifier read
    (``kept``, ``reason``: the view of the proxy and of recall's premises, on topic, ``contradicted`` pairs left
    out) and whether the alignments of the combination read it (``aligned``; a pair saying what an earlier one says
    is read once: ``duplicate_of``)."""
    seen = admit(item.predicted_evidence, item.claim, relevant=True, gold=item.reference_evidence,
                 exclude=tuple(contradicted))
    aligned = admit(item.predicted_evidence, item.claim, relevant=True, gold=item.reference_evidence, dedupe=True,
                    exclude=tuple(contradicted))
    from claimalign.averitec import MAX_PREDICTED

    out = []
    n_aligned = 0
    for a, b in zip(seen, aligned):
        d = a.to_dict()
        if a.kept:
            n_aligned += b.kept
            d["aligned"] = b.kept and n_aligned <= MAX_PREDICTED  # the alignments read the first MAX_PREDICTED
            if b.duplicate_of is not None:
                d["duplicate_of"] = b.duplicate_of
        out.append(d)
    return out
