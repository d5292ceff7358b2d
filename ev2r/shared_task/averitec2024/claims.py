"""Gold claims and predictions of the AVeriTeC 2024 table, ready to score: validated (by the one
AVeriTeC prediction reader, :mod:`ev2r.io.averitec`), joined one-to-one, with the official comparison
strings (:func:`claimalign.averitec.averitec_comparison_strings`; see the package docstring).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from claimalign.averitec import MAX_PREDICTED, averitec_comparison_strings

from ev2r.io.averitec import (FORMATS, VERDICTS, AveritecInputError, JoinError, check_verdict, gold_claim_ids,
                              join_on_claim_id, optional_text, read_predictions, record_location)

__all__ = ["MAX_QUESTIONS", "FORMATS", "VERDICTS", "AveritecInputError", "JoinError", "GoldClaim", "PredictedClaim",
           "prepare_gold", "prepare_predictions", "join_claims"]

MAX_QUESTIONS = MAX_PREDICTED  # 10, the official max_questions


@dataclass(frozen=True)
class _Claim:
    """What gold claims and predictions share: id, position, claim text, verdict, comparison
    strings, justification (see :class:`GoldClaim` / :class:`PredictedClaim`)."""

    claim_id: Any
    index: int
    claim: Optional[str]
    label: str
    qa_strings: Tuple[str, ...]
    q_strings: Tuple[str, ...]
    justification: Optional[str]


@dataclass(frozen=True)
class GoldClaim(_Claim):
    """One gold claim, ready to score.

    Attributes:
        claim_id: the record's ``claim_id`` when every gold record has one, else its position.
        index: position in the gold file.
        claim: claim text (None when absent).
        label: one of :data:`VERDICTS`.
        qa_strings: question+answer comparison strings (official construction, then any
            ``string_evidence``; never capped).
        q_strings: gold questions.
        justification: gold justification, or None when missing.
        claim_types: gold ``claim_types`` (empty when absent).
    """

    claim_types: Tuple[str, ...]


@dataclass(frozen=True)
class PredictedClaim(_Claim):
    """One prediction, ready to score.

    Attributes:
        claim_id: the record's ``claim_id`` (None when absent).
        index: position in the predictions file.
        claim: claim text or None.
        label: predicted verdict, one of :data:`VERDICTS`.
        qa_strings: all question+answer comparison strings (the cap is applied when scoring).
        q_strings: all question-only comparison strings.
        justification: the record's justification, or None (then the evidence fallback is used).
        format: ``"averitec"`` (original format) or ``"submission-2024"`` (:data:`FORMATS`).
    """

    format: str

    @property
    def justification_text(self) -> str:
        """The justification scored: the record's own, else the official fallback (first 10
        question+answer strings joined by a space)."""
        if self.justification is not None:
            return self.justification
        return " ".join(self.qa_strings[:MAX_QUESTIONS])


def _str_list(rec: Mapping[str, Any], key: str, where: str) -> Optional[List[str]]:
    v = rec.get(key)
    if v is None:
        return None
    if not isinstance(v, list) or not all(isinstance(s, str) for s in v):
        raise AveritecInputError(f"{where}: field {key!r} must be a list of strings, got {v!r:.120}")
    return v


def _comparison_strings(rec: Mapping[str, Any], variant: str, where: str) -> List[str]:
    try:
        return averitec_comparison_strings(rec, variant)
    except ValueError as exc:
        raise AveritecInputError(f"{where}: {str(exc).replace('example', 'record')}") from None


def prepare_gold(records: Sequence[Any]) -> List[GoldClaim]:
    """Validate AVeriTeC gold records and build their comparison strings.

    Args:
        records: list of dicts in the AVeriTeC data format (``claim``, ``label``,
            ``questions: [{question, answers: [...]}]``, ``justification``, ``claim_types``).

    Returns:
        list of :class:`GoldClaim`, in file order. Ids are the positions 0..N-1 unless every
        record has a ``claim_id`` (then those, which must be unique;
        :func:`ev2r.io.averitec.gold_claim_ids`).

    Raises:
        AveritecInputError: not a non-empty list of dicts, a ``label`` outside :data:`VERDICTS`,
            ``questions`` not a list of ``{question: str, answers: [...]}`` (a Boolean answer
            without ``boolean_explanation``), ``justification`` not a string, ``claim_types``
            not a list of strings, some but not all records with ``claim_id``, a ``claim_id``
            that is not an integer or a non-empty string, duplicate ids.
    """
    if isinstance(records, (str, bytes, Mapping)) or not isinstance(records, Sequence):
        raise AveritecInputError(f"references: expected a list of AVeriTeC claim records, got {type(records).__name__}")
    if not records:
        raise AveritecInputError("references: no gold claims")
    ids = gold_claim_ids(records)
    out: List[GoldClaim] = []
    for i, rec in enumerate(records):
        where = record_location("references", i, rec)
        if not isinstance(rec, Mapping):
            raise AveritecInputError(f"{where}: expected a JSON object, got {type(rec).__name__}")
        label = check_verdict(rec.get("label"), where, "label")
        questions = rec.get("questions")
        if questions is None:
            questions = []
        if not isinstance(questions, list):
            raise AveritecInputError(f"{where}: field 'questions' must be a list, got {type(questions).__name__}")
        view: Dict[str, Any] = {"questions": questions}
        q = _comparison_strings(view, "q", where)
        strings = _str_list(rec, "string_evidence", where)
        if strings is not None:  # the official target strings include any string_evidence
            view["string_evidence"] = strings
        qa = _comparison_strings(view, "qa", where)
        types = rec.get("claim_types")
        if types is None:
            types = []
        if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
            raise AveritecInputError(f"{where}: field 'claim_types' must be a list of strings, got {types!r:.120}")
        out.append(GoldClaim(claim_id=ids[i], index=i, claim=optional_text(rec, "claim", where), label=label,
                             qa_strings=tuple(qa), q_strings=tuple(q),
                             justification=optional_text(rec, "justification", where),
                             claim_types=tuple(types)))
    return out


def prepare_predictions(records: Sequence[Any]) -> List[PredictedClaim]:
    """Validate prediction records (either format, :func:`ev2r.io.averitec.read_predictions` with the
    official verdicts) and build their comparison strings.

    Args:
        records: list of dicts, each either in the original AVeriTeC format (``claim_id``,
            ``label``, ``questions`` with ``answers`` and/or ``string_evidence``, optional
            ``justification``) or the 2024 submission format (``claim_id``, ``pred_label``,
            ``evidence: [{question, answer}]``). Formats may be mixed.

    Returns:
        list of :class:`PredictedClaim`, in file order.

    Raises:
        AveritecInputError: not a non-empty list of dicts; no label (``pred_label`` or
            ``label``) or one outside :data:`VERDICTS`; ``pred_label`` and ``label`` that
            disagree; ``evidence`` not a list of ``{question: str, answer: str|null}``; both
            formats in one record; ``questions``/``string_evidence``/``justification``/``claim``
            of the wrong type; a bad ``claim_id`` type.
    """
    out: List[PredictedClaim] = []
    for p in read_predictions(records, labels="official"):
        if p.format == "averitec":
            if p.questions is None and p.string_evidence is None:
                qa, q = [], []  # no evidence at all: scores 0, as officially
            else:
                where = record_location("predictions", p.index, p.record)
                view: Dict[str, Any] = {}
                if p.questions is not None:
                    view["questions"] = list(p.questions)
                if p.string_evidence is not None:
                    view["string_evidence"] = list(p.string_evidence)
                qa = _comparison_strings(view, "qa", where)
                q = _comparison_strings(view, "q", where)
        else:  # null answers drop from the question+answer strings only; the first MAX_QUESTIONS are scored
            qa = [question + " " + answer for question, answer in p.evidence if answer is not None]
            q = [question for question, _ in p.evidence]
            # the 2024 baseline's extra strings (official: qa, and q without evidence)
            if p.string_evidence is not None:
                qa.extend(p.string_evidence)
                if "evidence" not in p.record:
                    q = list(p.string_evidence)
        out.append(PredictedClaim(claim_id=p.claim_id, index=p.index, format=p.format, claim=p.claim, label=p.label,
                                  qa_strings=tuple(qa), q_strings=tuple(q), justification=p.justification))
    return out


def join_claims(predictions: Sequence[PredictedClaim], gold: Sequence[GoldClaim],
                join: str = "id", complete: bool = True) -> List[Tuple[PredictedClaim, GoldClaim]]:
    """Pair every gold claim with exactly one prediction (:func:`ev2r.io.averitec.join_on_claim_id`
    with ``complete=True``), or, with ``complete=False`` (``ev2r averitec --subset``), every predicted
    claim with its gold claim (gold claims without a prediction are left out; ``join="id"`` only).

    Args:
        predictions, gold: from :func:`prepare_predictions` / :func:`prepare_gold`.
        join: ``"id"`` (default): a prediction's ``claim_id`` is the gold claim's id (its
            position in the gold file unless the gold records carry ``claim_id``);
            ``"position"``: the i-th prediction is the i-th gold claim (the official script's
            zip), allowed only for lists of equal length.

    Returns:
        ``(prediction, gold)`` pairs in gold-file order.

    Raises:
        JoinError: any prediction without ``claim_id`` (``join="id"``), duplicate ids, ids not
            in the gold file, gold claims without a prediction, different lengths
            (``join="position"``), or a prediction whose ``claim`` text (whitespace-normalised)
            differs from its gold claim's. The message names every offending id.
        ValueError: unknown ``join``, or ``complete=False`` with ``join="position"`` (the i-th
            prediction is the i-th gold claim only when every gold claim has one).
    """
    if not complete and join == "position":
        raise ValueError("join: a subset of the gold claims (--subset) joins on claim_id only, not by position")
    return join_on_claim_id(predictions, gold, join=join, complete=complete)
