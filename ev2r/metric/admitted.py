"""The admission stage run once per item: each side's pairs are read once
(:func:`ev2r.metric.admission.read_evidence`), and every part of the score -- the atomic facts, the premises of
precision and recall, the proxy, the contradiction veto, the alignments of the combination, ``explain`` and the row's
record -- reads a *view* of that one reading (:func:`admit`). Nothing downstream decides evidence again.

What the stage reads with is a value, :class:`AdmissionSettings` (the learned reading of non-evidence, or none),
built by :func:`ev2r.metric.factory.build_scorer`. :class:`ev2r.metric.scorer.Ev2RScorer` reads a chunk's items
once (:func:`admit_items`) and passes the result, an :class:`Admitted`, as an argument to the reference scorer, the
proxy scorer, the combination and the row's record. A part called on its own (no ``admitted`` given) reads afresh
with the rules alone, with the same result as the rules give inside a run.

A view differs from another only in what the part asks of the same readings:

==================  ==============================================================================================
``claim``           with the claim (the predicted side): every rule; without (the reference side, or a predicted
                    pair as a copy candidate): the content rules only (:attr:`PairReading.plain`)
``relevant``        leave out the off-topic pairs (:attr:`PairReading.off_topic`): the predicted side's premises
``dedupe``          leave out a pair whose answer says what an earlier kept one says
                    (:func:`ev2r.metric.admission.same_meaning`): the alignments, where a copy must not take a second
                    reference pair
``exclude``         the pairs the reference contradicts (:mod:`ev2r.metric.contradiction`), reason ``contradicted``
==================  ==============================================================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Collection, Optional, Sequence

from ev2r.config import admission_model_problem
from ev2r.metric import admission
from ev2r.metric.admission import PairReading, same_meaning
from ev2r.types import Evidence, Item, QAPair


@dataclass(frozen=True, eq=False)
class AdmissionSettings:
    """What the admission stage reads with, as a value (built once per scorer by
    :func:`ev2r.metric.factory.build_scorer`).

    Attributes:
        model: the learned reading of non-evidence (an :class:`ev2r.metric.admission_model.AdmissionModel`, or any
            object with what :func:`ev2r.config.admission_model_problem` asks), or None for the rules alone. Its
            ``scope`` (``"all"``, the default, or ``"proxy"``) says which parts of the score read it: with
            ``"proxy"``, the reference side and the alignments read the rules alone (:meth:`for_part`).

    Raises:
        ValueError: ``model`` is a spec (``"bundled"``, ``"none"``, a folder: :func:`ev2r.build_scorer` loads those)
            or an object the stage cannot ask (naming what it lacks).
    """

    model: Any = None

    def __post_init__(self):
        if isinstance(self.model, (str, bytes)) or hasattr(self.model, "__fspath__"):
            raise ValueError(f"admission: {self.model!r} is a spec that build_scorer(admission=...) loads; "
                             "AdmissionSettings takes the loaded model (an AdmissionModel) or None")
        if self.model is not None:
            problem = admission_model_problem(self.model)
            if problem is not None:
                raise ValueError(f"admission: expected an AdmissionModel or None; {problem}")

    @property
    def name(self) -> str:
        """The learned reading's name as the signature's ``adm`` field writes it (``"none"`` without one)."""
        return getattr(self.model, "name", "none") if self.model is not None else "none"

    def for_part(self, part: str) -> "AdmissionSettings":
        """The settings ``part`` of the score reads with: ``"proxy"`` always reads the learned reading; ``"reference"``
        and ``"alignment"`` read it only where its scope is ``"all"``.

        Raises:
            ValueError: ``part`` not one of ``"proxy"``, ``"reference"``, ``"alignment"``.
        """
        if part not in ("proxy", "reference", "alignment"):
            raise ValueError(f"part: {part!r} is not one of ('proxy', 'reference', 'alignment')")
        if part == "proxy" or getattr(self.model, "scope", "all") == "all":
            return self
        return AdmissionSettings(None)


#: The settings of a part called on its own: the rules alone.
RULES_ALONE = AdmissionSettings(None)


class Admitted:
    """The admission stage's readings under one :class:`AdmissionSettings`, each evidence read once: what
    :func:`admit_items` returns and every part of a chunk's score is given. Readings are kept by value (the evidence,
    the claim and the gold evidence, all hashable), so an evidence met again, in any part, reuses its reading.

    Args:
        settings: what the stage reads with (default: the rules alone).
    """

    def __init__(self, settings: AdmissionSettings = RULES_ALONE):
        if not isinstance(settings, AdmissionSettings):
            raise ValueError(f"settings: expected an AdmissionSettings, got {type(settings).__name__}")
        self.settings = settings
        self._readings: dict = {}
        self._parts: dict = {}

    def for_part(self, part: str) -> "Admitted":
        """The readings ``part`` of the score (``"proxy"``, ``"reference"``, ``"alignment"``) reads: these, or, for
        a learned reading of scope ``"proxy"``, readings with the rules alone (made once, shared by the reference
        side and the alignments). Each part of the score takes its own view, so a part called on its own with a
        chunk's readings reads what it reads inside :meth:`ev2r.metric.scorer.Ev2RScorer.score`.

        Raises:
            ValueError: ``part`` not one of ``"proxy"``, ``"reference"``, ``"alignment"``.
        """
        own = self.settings.for_part(part)
        if own is self.settings:
            return self
        if "rules" not in self._parts:
            self._parts["rules"] = Admitted(own)
        return self._parts["rules"]

    @property
    def model(self):
        """The learned reading these readings were made with, or None."""
        return self.settings.model

    def readings(self, evidence: Evidence, claim: Optional[str] = None,
                 gold: Optional[Evidence] = None) -> tuple[PairReading, ...]:
        """The stage's reading of ``evidence`` (:func:`ev2r.metric.admission.read_evidence`), read once and reused. A
        request without a claim reuses a reading made with one (its ``plain`` fields are what a reading without a
        claim holds)."""
        key = (evidence, claim, gold if claim is not None else None)
        hit = self._readings.get(key)
        if hit is None and claim is None:
            hit = self._readings.get(("any", evidence))
        if hit is None:
            hit = admission.read_evidence(evidence, claim, gold, model=self.settings.model)
            self._readings[key] = hit
            self._readings.setdefault(("any", evidence), hit)
        return hit


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


def admit(evidence: Evidence, claim: Optional[str] = None, relevant: bool = False, gold: Optional[Evidence] = None,
          dedupe: bool = False, exclude: Collection[int] = (), admitted: Optional[Admitted] = None) -> list[Admission]:
    """The stage's decision on every pair of ``evidence``, in order: a view (module docstring) of its one reading
    (:meth:`Admitted.readings`).

    Args:
        evidence: the evidence whose pairs are judged.
        claim: the item's claim, for the predicted side (None: the reference side, content rules only).
        relevant: leave out pairs about something else (the predicted side's premises).
        gold: the item's reference evidence: a copy of one of its pairs is read as the reference reads it.
        dedupe: leave out a pair whose answer says what an earlier kept one says.
        exclude: pair indexes dropped beforehand (the pairs the reference contradicts): not admitted, reason
            ``"contradicted"``.
        admitted: the chunk's readings (:func:`admit_items`); None reads ``evidence`` afresh with the rules alone.

    Returns:
        One :class:`ev2r.metric.admitted.Admission` per pair, in order.

    """
    if admitted is None:
        admitted = Admitted()
    elif not isinstance(admitted, Admitted):
        raise ValueError(f"admitted: expected an Admitted (admit_items(items, settings) makes one), got "
                         f"{type(admitted).__name__}")
    with_claim = claim is not None
    model = admitted.model if with_claim else None
    out: list[Admission] = []
    kept_answers: list[tuple[int, str]] = []
    for r in admitted.readings(evidence, claim, gold):
        k, given = r.index, r.given
        if k in exclude:
            out.append(Admission(k, False, "contradicted", given, "rule:contradiction"))
            continue
        if with_claim:
            reason, pair, by, p_ev, label = r.reason, r.pair, r.decided_by, r.p_evidence, r.label
        else:
            reason, pair, by, p_ev, label = r.plain, r.plain_pair or given, r.plain_by, None, None
        if reason == "unanswerable":  # AVeriTeC's Unanswerable text: no evidence
            out.append(Admission(k, False, "unanswerable", given, "rule:unanswerable"))
            continue
        if reason != "kept":
            out.append(Admission(k, False, reason, given, by, p_evidence=p_ev, label=label))
            continue
        if relevant and with_claim and r.off_topic:
            out.append(Admission(k, False, "off_topic", given, "rule:relevance", p_evidence=p_ev, label=label))
            continue
        if dedupe:
            # by meaning with the learned reading's encoder, on either side (the reference's copies too)
            first = next((j for j, a in kept_answers if same_meaning(pair.answer, a, admitted.model)), None)
            if first is not None:
                out.append(Admission(k, False, "duplicate", given,
                                     "model:similarity" if model is not None else "rule:folded-text",
                                     p_evidence=p_ev, label=label, duplicate_of=first))
                continue
        kept_answers.append((k, pair.answer))
        out.append(Admission(k, True, "kept", pair, by, p_evidence=p_ev, label=label))
    return out


def admit_items(items: Sequence[Item], settings: AdmissionSettings = RULES_ALONE) -> Admitted:
    """Read every item's pairs once under ``settings`` (the predicted side with its claim and gold evidence, the
    reference side without a claim): every part of their score then reads views of these readings.

    The learned reading is asked once, in one batch, for every predicted pair. A reading that raises is left unmade:
    each part of the score meets the error on that item alone and records it there, and the other items go on.

    Args:
        items: the chunk's items.
        settings: what the stage reads with (:class:`AdmissionSettings`).

    Returns:
        An :class:`Admitted` holding the readings, to pass to each part of the score.
    """
    admitted = Admitted(settings)
    if settings.model is not None:
        try:
            admission.prime([(it.claim, p.question, p.answer) for it in items for p in it.predicted_evidence.pairs],
                            settings.model)
        except Exception:  # noqa: S110 - item by item below: an item whose reading fails fails alone
            pass
    for it in items:
        try:
            admitted.readings(it.predicted_evidence, it.claim, it.reference_evidence)
            admitted.readings(it.reference_evidence)
        except Exception:  # noqa: S110 - recorded on the item by the part that meets it again
            pass
    return admitted


def item_record(item: Item, contradicted: Collection[int] = (), admitted: Optional[Admitted] = None) -> list[dict]:
    """The row's record of the stage (``explain``, the report): per predicted pair, what the verifier read
    (``kept``, ``reason``: the view of the proxy and of recall's premises, on topic, ``contradicted`` pairs left
    out) and whether the alignments of the combination read it (``aligned``; a pair saying what an earlier one says
    is read once: ``duplicate_of``)."""
    admitted = admitted if admitted is not None else Admitted()
    seen = admit(item.predicted_evidence, item.claim, relevant=True, gold=item.reference_evidence,
                 exclude=tuple(contradicted), admitted=admitted.for_part("proxy"))
    aligned = admit(item.predicted_evidence, item.claim, relevant=True, gold=item.reference_evidence, dedupe=True,
                    exclude=tuple(contradicted), admitted=admitted.for_part("alignment"))
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
