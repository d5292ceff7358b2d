"""The AVeriTeC shared-task table (2024 edition), with the organisers' names and numbers.

Reproduces what the organisers' official ``eval.py`` (AVeriTeC repository, Schlichtkrull et
al., 2023; the scorer of the AVeriTeC shared task at FEVER 2024, Schlichtkrull et al., 2024,
*The Automated Verification of Textual Claims (AVeriTeC) Shared Task*) prints, from
predictions joined to a gold file:

* **Question-only score (HU-meteor)**: per claim, Hungarian METEOR of the predicted questions
  against the gold questions; mean over claims.
* **Question-answer score (HU-meteor)**: the same over question+answer strings (the claim's
  *evidence score*, below ``e``).
* **Veracity F1** per class (``Supported``, ``Refuted``, ``Not Enough Evidence``,
  ``Conflicting Evidence/Cherrypicking``), **macro** F1 and **acc**uracy
  (``sklearn.metrics.f1_score`` / ``accuracy_score``, the official calls).
* **Justification score (meteor)**: METEOR of the predicted justification against the gold
  one; a prediction without a ``justification`` uses its first 10 evidence strings joined by a
  space (the official fallback).
* **Averitec scores** at levels 0.1, 0.2, 0.25, 0.3, 0.4, 0.5: *Veracity* = share of claims
  whose label is right **and** ``e > level`` (strictly, as officially); *Justification* = mean
  of the justification METEOR counted only where ``e > level`` (0 elsewhere).
* **Veracity scores by claim type**, two blocks, thresholds 0.2 then 0.3: per gold
  ``claim_types`` entry, the mean over its claims of ``e`` where ``e > threshold``, else 0.
  Despite the official name this block does **not** look at labels: it is the thresholded
  evidence score (checked on the parity fixture).

Hungarian METEOR (Schlichtkrull et al. 2023, Sec. 5; official ``compute_pairwise_evidence_score``):
``M[i, j] = METEOR(reference=tok(gold_j), hypothesis=tok(pred_i))`` (nltk
``single_meteor_score``: alpha 0.9, beta 3, gamma 0.5, WordNet; ``tok`` = ``nltk.word_tokenize``),
optimal one-to-one assignment (``scipy.optimize.linear_sum_assignment``, maximise), assigned
total / **number of gold strings**; in [0, 1].

Comparison strings (official ``extract_full_comparison_strings``; this module builds them with
:func:`claimalign.averitec.averitec_comparison_strings` for the original format):

* original AVeriTeC format (``questions: [{question, answers: [{answer, answer_type,
  boolean_explanation?}]}]`` and/or ``string_evidence: [str]``, ``label``, optional
  ``justification``): one ``question + " " + answer`` per answer (a Boolean answer followed by
  ``". " + boolean_explanation``; a question without answers gives ``question + " No answer could
  be found."``), then the ``string_evidence`` strings. Question-only: the questions, or, when the
  record has no ``questions`` field, its ``string_evidence``.
* 2024 submission format (``claim_id``, ``evidence: [{question, answer, ...}]``, ``pred_label``):
  ``question + " " + answer`` for each item whose ``answer`` is not null, then any
  ``string_evidence``; question-only: the first 10 items' questions (or ``string_evidence`` when
  ``evidence`` is absent/null), as the organisers' 2024 baseline scorer does. The 2024 format has
  no justification; its fallback is the joined evidence strings as above (documented choice: the
  2024 scorer printed no justification score).

**The 10-pair cap** (official ``max_questions = 10``) is kept: only the first 10 predicted
question+answer strings (first 10 questions for the question-only score) are scored; gold
strings are never cut. Each claim records whether it was capped.

**Joining.** The gold file (e.g. AVeriTeC ``dev.json``) has no ``claim_id``: a gold claim's id is
its 0-based position in the file (when every gold record carries a ``claim_id``, that is used
instead). Predictions join on their ``claim_id``; the join must be one-to-one, otherwise
:class:`JoinError` names the offending ids (duplicates, ids absent from the gold file, gold ids
without a prediction, a prediction whose ``claim`` text differs from the gold claim's). The
official script zips the two lists by position instead; ``join="position"`` does that, but
only for lists of equal length whose ``claim`` texts (where given) agree.

**Departures from the official script on malformed input** (well-formed input, such as the
parity fixture, gets the official numbers to floating-point rounding):

* a gold claim with no questions (the official script raises ``ZeroDivisionError``: its
  Hungarian METEOR divides by the number of gold strings) or no justification (``KeyError``)
  gets status ``failed`` with its causes (``no_reference_questions``, ``no_reference_evidence``,
  ``no_reference_justification``); it is left out of the means that need the missing part
  (``n_scored`` says how many claims each mean covers), and the report gives ``n_failed`` by
  cause with the ids. On the parity fixture no claim fails;
* a prediction with no evidence scores 0 (as officially; a retrieval that found nothing earns
  nothing) but is flagged ``no_predicted_evidence``;
* an F1 class with neither gold nor predicted claims is 0 (sklearn ``zero_division=0``, as
  officially) and is listed in ``f1_undefined_classes``;
* bad labels or fields raise :class:`AveritecInputError` (a ``ValueError``) naming the record,
  the field and the allowed values; the input objects are never modified (the official script
  rewrites non-list ``answers`` in place).

Tokens are exactly ``nltk.word_tokenize``'s (:func:`claimalign.nltk_data.tokenize`), with no Unicode
normalisation or splitting of unspaced scripts, so the numbers stay the official ones on any text
(:func:`claimalign.hu_meteor` departs from the official tokens there on purpose).

Speed: each distinct string is tokenised once and each distinct (gold, predicted) token pair is
scored once, with :mod:`claimalign.meteor_fast` (nltk's METEOR, identical values, per-word
stemming and WordNet look-ups cached); ``meteor="nltk"`` calls nltk's own function instead.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from claimalign.averitec import MAX_PREDICTED, averitec_comparison_strings

__all__ = [
    "EDITIONS", "VERDICTS", "AVERITEC_LEVELS", "TYPE_THRESHOLDS", "MAX_QUESTIONS", "FORMATS",
    "FAILURE_CAUSES", "AveritecInputError", "JoinError", "GoldClaim", "PredictedClaim",
    "ClaimResult", "AveritecReport", "prepare_gold", "prepare_predictions", "join_claims",
    "evaluate_averitec", "format_official_table", "averitec_contribution", "thresholded_evidence",
]

EDITIONS = ("2024",)
VERDICTS = ("Supported", "Refuted", "Not Enough Evidence", "Conflicting Evidence/Cherrypicking")
AVERITEC_LEVELS = (0.1, 0.2, 0.25, 0.3, 0.4, 0.5)
TYPE_THRESHOLDS = (0.2, 0.3)
MAX_QUESTIONS = MAX_PREDICTED  # 10, the official max_questions
FORMATS = ("averitec", "submission-2024")
FAILURE_CAUSES = ("no_reference_evidence", "no_reference_questions", "no_reference_justification")
JOIN_MODES = ("id", "position")
METEOR_IMPLEMENTATIONS = ("fast", "nltk")
_MAX_IDS_SHOWN = 100


class AveritecInputError(ValueError):
    """Unusable predictions or gold records; the message names the record and field."""


class JoinError(AveritecInputError):
    """Predictions that do not join the gold file one-to-one.

    Attributes:
        problems: ``{cause: [ids or indices]}`` with causes ``missing_claim_id`` (prediction
            indices), ``duplicate_claim_id``, ``unknown_claim_id``, ``missing_prediction`` (gold
            ids), ``claim_mismatch`` (ids), ``length_mismatch`` (``[n_pred, n_gold]``).
    """

    def __init__(self, message: str, problems: Dict[str, list]):
        super().__init__(message)
        self.problems = problems


# ----------------------------------------------------------------------------- records


@dataclass(frozen=True)
class GoldClaim:
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

    claim_id: Any
    index: int
    claim: Optional[str]
    label: str
    qa_strings: Tuple[str, ...]
    q_strings: Tuple[str, ...]
    justification: Optional[str]
    claim_types: Tuple[str, ...]


@dataclass(frozen=True)
class PredictedClaim:
    """One prediction, ready to score.

    Attributes:
        claim_id: the record's ``claim_id`` (None when absent).
        index: position in the predictions file.
        format: ``"averitec"`` (original format) or ``"submission-2024"``.
        claim: claim text or None.
        label: predicted verdict, one of :data:`VERDICTS`.
        qa_strings: all question+answer comparison strings (the cap is applied when scoring).
        q_strings: all question-only comparison strings.
        justification: the record's justification, or None (then the evidence fallback is used).
    """

    claim_id: Any
    index: int
    format: str
    claim: Optional[str]
    label: str
    qa_strings: Tuple[str, ...]
    q_strings: Tuple[str, ...]
    justification: Optional[str]

    @property
    def justification_text(self) -> str:
        """The justification scored: the record's own, else the official fallback (first 10
        question+answer strings joined by a space)."""
        if self.justification is not None:
            return self.justification
        return " ".join(self.qa_strings[:MAX_QUESTIONS])


def _rid(rec: Mapping[str, Any], index: int, what: str) -> str:
    cid = rec.get("claim_id") if isinstance(rec, Mapping) else None
    return f"{what}[{index}]" + (f" (claim_id {cid!r})" if cid is not None else "")


def _check_label(value: Any, where: str, field_name: str) -> str:
    if not isinstance(value, str) or value not in VERDICTS:
        raise AveritecInputError(f"{where}: field {field_name!r} is {value!r}; allowed values: "
                                 + ", ".join(repr(v) for v in VERDICTS))
    return value


def _check_id(value: Any, where: str) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise AveritecInputError(f"{where}: field 'claim_id' must be an integer (the gold claim's position) or a "
                                 f"string, got {value!r}")
    return value


def _str_list(rec: Mapping[str, Any], key: str, where: str) -> Optional[List[str]]:
    v = rec.get(key)
    if v is None:
        return None
    if not isinstance(v, list) or not all(isinstance(s, str) for s in v):
        raise AveritecInputError(f"{where}: field {key!r} must be a list of strings, got {v!r:.120}")
    return v


def _optional_text(rec: Mapping[str, Any], key: str, where: str) -> Optional[str]:
    v = rec.get(key)
    if v is None:
        return None
    if not isinstance(v, str):
        raise AveritecInputError(f"{where}: field {key!r} must be a string (or absent/null), got {v!r:.120}")
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
        record has a ``claim_id`` (then those, which must be unique).

    Raises:
        AveritecInputError: not a non-empty list of dicts, a ``label`` outside :data:`VERDICTS`,
            ``questions`` not a list of ``{question: str, answers: [...]}`` (a Boolean answer
            without ``boolean_explanation``), ``justification`` not a string, ``claim_types``
            not a list of strings, some but not all records with ``claim_id``, duplicate ids.
    """
    if isinstance(records, (str, bytes, Mapping)) or not isinstance(records, Sequence):
        raise AveritecInputError(f"references: expected a list of AVeriTeC claim records, got {type(records).__name__}")
    if not records:
        raise AveritecInputError("references: no gold claims")
    with_id = [isinstance(r, Mapping) and r.get("claim_id") is not None for r in records]
    use_ids = all(with_id)
    if any(with_id) and not use_ids:
        missing = [i for i, w in enumerate(with_id) if not w]
        raise AveritecInputError(f"references: some gold records have a 'claim_id' and others do not (without: "
                                 f"{_show(missing)}); give every record one, or none (then the position is the id)")
    out: List[GoldClaim] = []
    for i, rec in enumerate(records):
        where = _rid(rec, i, "references")
        if not isinstance(rec, Mapping):
            raise AveritecInputError(f"{where}: expected a JSON object, got {type(rec).__name__}")
        label = _check_label(rec.get("label"), where, "label")
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
        cid = _check_id(rec["claim_id"], where) if use_ids else i
        out.append(GoldClaim(claim_id=cid, index=i, claim=_optional_text(rec, "claim", where), label=label,
                             qa_strings=tuple(qa), q_strings=tuple(q),
                             justification=_optional_text(rec, "justification", where),
                             claim_types=tuple(types)))
    dup = [k for k, c in Counter(g.claim_id for g in out).items() if c > 1]
    if dup:
        raise AveritecInputError(f"references: duplicate claim_id {_show(dup)}")
    return out


def _prediction_format(rec: Mapping[str, Any], where: str) -> str:
    if "evidence" in rec and "questions" in rec:
        raise AveritecInputError(f"{where}: has both 'evidence' (2024 submission format) and 'questions' (original "
                                 "format); give one")
    if "evidence" in rec:
        return "submission-2024"
    if "questions" in rec or "string_evidence" in rec:
        return "averitec"
    return "submission-2024" if "pred_label" in rec else "averitec"


def prepare_predictions(records: Sequence[Any]) -> List[PredictedClaim]:
    """Validate prediction records (either format) and build their comparison strings.

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
            disagree; ``evidence`` not a list of ``{question: str, answer: str|null}``;
            ``questions``/``string_evidence``/``justification`` of the wrong type; a bad
            ``claim_id`` type.
    """
    if isinstance(records, (str, bytes, Mapping)) or not isinstance(records, Sequence):
        raise AveritecInputError(f"predictions: expected a list of prediction records, got {type(records).__name__}")
    if not records:
        raise AveritecInputError("predictions: no predictions")
    out: List[PredictedClaim] = []
    for i, rec in enumerate(records):
        where = _rid(rec, i, "predictions")
        if not isinstance(rec, Mapping):
            raise AveritecInputError(f"{where}: expected a JSON object, got {type(rec).__name__}")
        fmt = _prediction_format(rec, where)
        if "pred_label" in rec:
            label = _check_label(rec["pred_label"], where, "pred_label")
            if "label" in rec and rec["label"] != label:
                raise AveritecInputError(f"{where}: 'pred_label' {label!r} and 'label' {rec['label']!r} disagree; "
                                         "give one")
        elif "label" in rec:
            label = _check_label(rec["label"], where, "label")
        else:
            raise AveritecInputError(f"{where}: no predicted verdict: field 'pred_label' (2024 submission format) or "
                                     "'label' (original format) is required; allowed values: "
                                     + ", ".join(repr(v) for v in VERDICTS))
        strings = _str_list(rec, "string_evidence", where)
        if fmt == "averitec":
            questions = rec.get("questions")
            if questions is not None and not isinstance(questions, list):
                raise AveritecInputError(f"{where}: field 'questions' must be a list, got {type(questions).__name__}")
            if questions is None and strings is None:
                qa, q = [], []  # no evidence at all: scores 0, as officially
            else:
                view: Dict[str, Any] = {}
                if questions is not None:
                    view["questions"] = questions
                if strings is not None:
                    view["string_evidence"] = strings
                qa = _comparison_strings(view, "qa", where)
                q = _comparison_strings(view, "q", where)
        else:
            evidence = rec.get("evidence")
            if evidence is not None and not isinstance(evidence, list):
                raise AveritecInputError(f"{where}: field 'evidence' must be a list of {{question, answer}} objects, "
                                         f"got {type(evidence).__name__}")
            qa, q = [], []
            for k, item in enumerate(evidence or []):
                if (not isinstance(item, Mapping) or not isinstance(item.get("question"), str)
                        or not (item.get("answer") is None or isinstance(item.get("answer"), str))):
                    raise AveritecInputError(f"{where}: evidence[{k}] must be {{'question': str, 'answer': str or "
                                             f"null}}, got {item!r:.120}")
                if item.get("answer") is not None:
                    qa.append(item["question"] + " " + item["answer"])
                q.append(item["question"])  # the first MAX_QUESTIONS are scored
            if strings is not None:
                qa.extend(strings)
                if evidence is None:
                    q = list(strings)
        cid = rec.get("claim_id")
        if cid is not None:
            _check_id(cid, where)
        out.append(PredictedClaim(claim_id=cid, index=i, format=fmt, claim=_optional_text(rec, "claim", where),
                                  label=label, qa_strings=tuple(qa), q_strings=tuple(q),
                                  justification=_optional_text(rec, "justification", where)))
    return out


def _show(ids: Sequence[Any]) -> str:
    ids = list(ids)
    if len(ids) <= _MAX_IDS_SHOWN:
        return "[" + ", ".join(repr(x) for x in ids) + "]"
    return ("[" + ", ".join(repr(x) for x in ids[:_MAX_IDS_SHOWN]) + f", ...] ({len(ids)} in all)")


_WS = re.compile(r"\s+")


def _same_claim(a: Optional[str], b: Optional[str]) -> bool:
    if a is None or b is None:
        return True
    return _WS.sub(" ", a).strip() == _WS.sub(" ", b).strip()


def join_claims(predictions: Sequence[PredictedClaim], gold: Sequence[GoldClaim],
                join: str = "id") -> List[Tuple[PredictedClaim, GoldClaim]]:
    """Pair every gold claim with exactly one prediction.

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
        ValueError: unknown ``join``.
    """
    if join not in JOIN_MODES:
        raise ValueError(f"join: {join!r} is not one of {JOIN_MODES}")
    problems: Dict[str, list] = {}
    pairs: List[Tuple[PredictedClaim, GoldClaim]] = []
    if join == "position":
        if len(predictions) != len(gold):
            problems["length_mismatch"] = [len(predictions), len(gold)]
        else:
            pairs = list(zip(predictions, gold))
    else:
        no_id = [p.index for p in predictions if p.claim_id is None]
        if no_id:
            problems["missing_claim_id"] = no_id
        by_id: Dict[Any, PredictedClaim] = {}
        dup: List[Any] = []
        for p in predictions:
            if p.claim_id is None:
                continue
            if p.claim_id in by_id:
                if p.claim_id not in dup:
                    dup.append(p.claim_id)
            else:
                by_id[p.claim_id] = p
        if dup:
            problems["duplicate_claim_id"] = dup
        gold_ids = {g.claim_id for g in gold}
        unknown = [cid for cid in by_id if cid not in gold_ids]
        if unknown:
            problems["unknown_claim_id"] = unknown
        missing = [g.claim_id for g in gold if g.claim_id not in by_id]
        if missing:
            problems["missing_prediction"] = missing
        pairs = [(by_id[g.claim_id], g) for g in gold if g.claim_id in by_id]
    mismatch = [g.claim_id for p, g in pairs if not _same_claim(p.claim, g.claim)]
    if mismatch:
        problems["claim_mismatch"] = mismatch
    if problems:
        text = {
            "missing_claim_id": "predictions without 'claim_id' (by position in the predictions file)",
            "duplicate_claim_id": "claim_id given more than once",
            "unknown_claim_id": "claim_id not in the gold file (gold ids are "
                                + ("its records' claim_id" if any(g.claim_id != g.index for g in gold)
                                   else f"positions 0..{len(gold) - 1}") + ")",
            "missing_prediction": "gold claims without a prediction",
            "claim_mismatch": "prediction 'claim' text differs from the gold claim's",
            "length_mismatch": "--join position needs as many predictions as gold claims [predictions, gold]",
        }
        parts = [f"{text[k]}: {_show(v)}" for k, v in problems.items()]
        raise JoinError("predictions do not join the gold file one-to-one: " + "; ".join(parts), problems)
    return pairs


# ----------------------------------------------------------------------------- scoring


@dataclass
class ClaimResult:
    """Scores of one claim.

    Attributes:
        claim_id: the gold claim's id.
        status: ``"ok"`` or ``"failed"`` (some score undefined; see ``failures``).
        failures: causes from :data:`FAILURE_CAUSES`.
        notes: ``capped`` (over 10 predicted strings, only the first 10 scored),
            ``no_predicted_evidence`` (score 0), ``justification_from_evidence`` (fallback).
        format: the prediction's format.
        pred_label, gold_label: verdicts; ``label_correct`` their equality.
        claim_types: gold claim types.
        q_score, qa_score: Hungarian METEOR in [0, 1] (None when undefined).
        justification_score: METEOR in [0, 1] (None when undefined).
        averitec: ``{level: 1.0 or 0.0}``, the claim's contribution to the Averitec veracity
            score (None when ``qa_score`` is undefined).
        n_predicted_qa, n_predicted_q: predicted strings before the cap; n_reference_qa,
            n_reference_q: gold strings.
    """

    claim_id: Any
    status: str
    failures: Tuple[str, ...]
    notes: Tuple[str, ...]
    format: str
    pred_label: str
    gold_label: str
    label_correct: bool
    claim_types: Tuple[str, ...]
    q_score: Optional[float]
    qa_score: Optional[float]
    justification_score: Optional[float]
    averitec: Optional[Dict[float, float]]
    n_predicted_qa: int
    n_predicted_q: int
    n_reference_qa: int
    n_reference_q: int

    def to_dict(self) -> dict:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["failures"] = list(self.failures)
        d["notes"] = list(self.notes)
        d["claim_types"] = list(self.claim_types)
        if self.averitec is not None:
            d["averitec"] = {str(k): v for k, v in self.averitec.items()}
        return d


@dataclass
class AveritecReport:
    """The shared-task table and per-claim results.

    All scores are floats in [0, 1] or None when no claim defines them. Means are over the
    claims for which the score is defined (all claims on well-formed input): ``n_scored`` says
    how many per score.

    Attributes:
        edition: ``"2024"``.
        n_claims: joined claims.
        question_only, question_answer: mean Hungarian METEOR (``Question-only score``,
            ``Question-answer score``).
        veracity_f1: ``{verdict: F1}`` for :data:`VERDICTS`; ``macro_f1``; ``accuracy``.
        f1_undefined_classes: verdicts with neither gold nor predicted claims (F1 0 by convention).
        justification: mean justification METEOR.
        averitec_veracity, averitec_justification: ``{level: score}`` for :data:`AVERITEC_LEVELS`.
        by_type: ``{threshold: {claim_type: score}}`` for :data:`TYPE_THRESHOLDS`, types in
            order of first appearance in the gold file.
        type_counts: claims per type.
        n_scored: ``{"question_only", "question_answer", "justification", "averitec_justification": n}``.
        n_failed: ``{cause: count}``; ``failed_ids``: ``{cause: [ids]}``.
        n_capped, n_no_predicted_evidence, n_justification_from_evidence: note counts.
        formats: prediction formats seen, with counts.
        claims: per-claim :class:`ClaimResult`, in gold order.
    """

    edition: str
    n_claims: int
    question_only: Optional[float]
    question_answer: Optional[float]
    veracity_f1: Dict[str, float]
    macro_f1: float
    accuracy: float
    f1_undefined_classes: List[str]
    justification: Optional[float]
    averitec_veracity: Dict[float, Optional[float]]
    averitec_justification: Dict[float, Optional[float]]
    by_type: Dict[float, Dict[str, Optional[float]]]
    type_counts: Dict[str, int]
    n_scored: Dict[str, int]
    n_failed: Dict[str, int]
    failed_ids: Dict[str, list]
    n_capped: int
    n_no_predicted_evidence: int
    n_justification_from_evidence: int
    formats: Dict[str, int]
    meteor: str
    claims: List[ClaimResult] = field(default_factory=list, repr=False)

    def official_rows(self) -> List[Tuple[str, Optional[float]]]:
        """``(name, value)`` rows in the official script's order and with its names."""
        rows: List[Tuple[str, Optional[float]]] = [
            ("Question-only score (HU-meteor):", self.question_only),
            ("Question-answer score (HU-meteor):", self.question_answer),
        ]
        rows += [(f" * {v}:", self.veracity_f1[v]) for v in VERDICTS]
        rows += [(" * macro:", self.macro_f1), (" * acc:", self.accuracy),
                 ("Justification score (meteor):", self.justification)]
        for level in AVERITEC_LEVELS:
            rows.append((f" * Veracity scores (meteor @ {level}):", self.averitec_veracity[level]))
            rows.append((f" * Justification scores (meteor @ {level}):", self.averitec_justification[level]))
        for t in TYPE_THRESHOLDS:
            rows += [(f" * Veracity scores ({ty}):", v) for ty, v in self.by_type[t].items()]
        return rows

    def to_dict(self, with_claims: bool = False) -> dict:
        """Plain-JSON form (level and threshold keys as strings, e.g. ``"0.25"``)."""
        d = {
            "edition": self.edition,
            "n_claims": self.n_claims,
            "question_only": self.question_only,
            "question_answer": self.question_answer,
            "veracity_f1": dict(self.veracity_f1),
            "macro_f1": self.macro_f1,
            "accuracy": self.accuracy,
            "f1_undefined_classes": list(self.f1_undefined_classes),
            "justification": self.justification,
            "averitec_veracity": {str(k): v for k, v in self.averitec_veracity.items()},
            "averitec_justification": {str(k): v for k, v in self.averitec_justification.items()},
            "by_type": {str(t): dict(v) for t, v in self.by_type.items()},
            "type_counts": dict(self.type_counts),
            "n_scored": dict(self.n_scored),
            "n_failed": dict(self.n_failed),
            "failed_ids": {k: list(v) for k, v in self.failed_ids.items()},
            "n_capped": self.n_capped,
            "n_no_predicted_evidence": self.n_no_predicted_evidence,
            "n_justification_from_evidence": self.n_justification_from_evidence,
            "formats": dict(self.formats),
            "meteor": self.meteor,
            "max_questions": MAX_QUESTIONS,
        }
        if with_claims:
            d["claims"] = [c.to_dict() for c in self.claims]
        return d


def averitec_contribution(evidence_score: float, label_correct: bool, level: float) -> float:
    """One claim's share of the Averitec veracity score at ``level`` (official
    ``evaluate_averitec_score``): 1.0 when the label is right **and** ``evidence_score > level``
    (strictly), else 0.0."""
    return (1.0 if label_correct else 0.0) if evidence_score > level else 0.0


def thresholded_evidence(evidence_score: float, threshold: float) -> float:
    """The by-type block's per-claim value (official ``evaluate_averitec_veracity_by_type``):
    ``evidence_score`` when it is strictly above ``threshold``, else 0.0."""
    return evidence_score if evidence_score > threshold else 0.0


def _meteor_function(name: str) -> Callable[[Tuple[str, ...], Tuple[str, ...]], float]:
    if name == "fast":
        from claimalign.meteor_fast import meteor_tokens_fast

        return meteor_tokens_fast
    from claimalign.nltk_data import meteor_tokens_nltk

    return meteor_tokens_nltk


def _hungarian(pred: Sequence[Tuple[str, ...]], ref: Sequence[Tuple[str, ...]],
               meteor: Callable[[Tuple[str, ...], Tuple[str, ...]], float]) -> float:
    """Hungarian METEOR of token tuples (``len(ref) >= 1``); 0.0 without predictions."""
    if not pred:
        return 0.0
    from claimalign.align import align

    m = np.array([[meteor(r, h) for r in ref] for h in pred], dtype=np.float64)
    return align(m).recall


def _level_means(rows: np.ndarray) -> Dict[float, Optional[float]]:
    # np.mean(axis=0) over the (claims x levels) array, as the official evaluate_averitec_score
    if rows.shape[0] == 0:
        return {lv: None for lv in AVERITEC_LEVELS}
    means = np.mean(rows.reshape(-1, len(AVERITEC_LEVELS)), axis=0)
    return {lv: float(means[k]) for k, lv in enumerate(AVERITEC_LEVELS)}


def _mean(values: Sequence[float]) -> Optional[float]:
    return float(np.mean(values)) if len(values) else None


def evaluate_averitec(predictions: Sequence[Any], references: Sequence[Any], edition: str = "2024",
                      join: str = "id", meteor: str = "fast") -> AveritecReport:
    """The AVeriTeC shared-task table of ``predictions`` against ``references``.

    Args:
        predictions: list of prediction dicts (see :func:`prepare_predictions`); not modified.
        references: list of gold AVeriTeC claim dicts (see :func:`prepare_gold`); not modified.
        edition: ``"2024"`` (the only one so far).
        join: ``"id"`` (default) or ``"position"`` (see :func:`join_claims`).
        meteor: ``"fast"`` (default; :mod:`claimalign.meteor_fast`, identical values) or
            ``"nltk"`` (nltk's ``single_meteor_score`` itself).

    Returns:
        :class:`AveritecReport`.

    Raises:
        ValueError: unknown ``edition`` / ``join`` / ``meteor``.
        AveritecInputError: malformed records (names record, field and allowed values).
        JoinError: predictions that do not join the gold file one-to-one.
        RuntimeError: nltk data (punkt_tab, WordNet) not found.
    """
    if edition not in EDITIONS:
        raise ValueError(f"edition: {edition!r} is not one of {EDITIONS}")
    if meteor not in METEOR_IMPLEMENTATIONS:
        raise ValueError(f"meteor: {meteor!r} is not one of {METEOR_IMPLEMENTATIONS}")
    gold = prepare_gold(references)
    preds = prepare_predictions(predictions)
    pairs = join_claims(preds, gold, join=join)

    from sklearn.metrics import accuracy_score, f1_score

    from claimalign.nltk_data import require_nltk_data, tokenize

    require_nltk_data()
    score = _meteor_function(meteor)
    tok: Dict[str, Tuple[str, ...]] = {}

    def toks(strings: Sequence[str]) -> List[Tuple[str, ...]]:
        out = []
        for s in strings:
            t = tok.get(s)
            if t is None:
                t = tok[s] = tokenize(s)
            out.append(t)
        return out

    claims: List[ClaimResult] = []
    for p, g in pairs:
        failures: List[str] = []
        notes: List[str] = []
        if len(p.qa_strings) > MAX_QUESTIONS or len(p.q_strings) > MAX_QUESTIONS:
            notes.append("capped")
        if not p.qa_strings and not p.q_strings:
            notes.append("no_predicted_evidence")
        if g.qa_strings:
            qa_score = _hungarian(toks(p.qa_strings[:MAX_QUESTIONS]), toks(g.qa_strings), score)
        else:
            failures.append("no_reference_evidence")
            qa_score = None
        if g.q_strings:
            q_score = _hungarian(toks(p.q_strings[:MAX_QUESTIONS]), toks(g.q_strings), score)
        else:
            failures.append("no_reference_questions")
            q_score = None
        if p.justification is None:
            notes.append("justification_from_evidence")
        if g.justification is not None:
            j_text = p.justification_text
            j_score = score(toks([g.justification])[0], toks([j_text])[0])
        else:
            failures.append("no_reference_justification")
            j_score = None
        correct = p.label == g.label
        averitec = None if qa_score is None else {
            level: averitec_contribution(qa_score, correct, level) for level in AVERITEC_LEVELS}
        claims.append(ClaimResult(
            claim_id=g.claim_id, status="failed" if failures else "ok", failures=tuple(failures),
            notes=tuple(notes), format=p.format, pred_label=p.label, gold_label=g.label, label_correct=correct,
            claim_types=g.claim_types, q_score=q_score, qa_score=qa_score, justification_score=j_score,
            averitec=averitec, n_predicted_qa=len(p.qa_strings), n_predicted_q=len(p.q_strings),
            n_reference_qa=len(g.qa_strings), n_reference_q=len(g.q_strings)))

    gold_labels = [c.gold_label for c in claims]
    pred_labels = [c.pred_label for c in claims]
    per_class = f1_score(gold_labels, pred_labels, labels=list(VERDICTS), average=None, zero_division=0.0)
    macro = f1_score(gold_labels, pred_labels, labels=list(VERDICTS), average="macro", zero_division=0.0)
    present = set(gold_labels) | set(pred_labels)

    with_e = [c for c in claims if c.qa_score is not None]
    with_ej = [c for c in with_e if c.justification_score is not None]
    v_at = np.array([[c.averitec[level] for level in AVERITEC_LEVELS] for c in with_e], dtype=np.float64)
    # official: the justification score counts where the evidence score is strictly above the level
    j_at = np.array([[c.justification_score if c.qa_score > level else 0.0 for level in AVERITEC_LEVELS]
                     for c in with_ej], dtype=np.float64)
    types: Dict[str, List[ClaimResult]] = {}
    for c in claims:
        for t in c.claim_types:
            types.setdefault(t, []).append(c)
    by_type = {thr: {t: _mean([thresholded_evidence(c.qa_score, thr) for c in cs if c.qa_score is not None])
                     for t, cs in types.items()} for thr in TYPE_THRESHOLDS}
    failed_ids = {cause: [c.claim_id for c in claims if cause in c.failures] for cause in FAILURE_CAUSES}
    failed_ids = {k: v for k, v in failed_ids.items() if v}
    return AveritecReport(
        edition=edition,
        n_claims=len(claims),
        question_only=_mean([c.q_score for c in claims if c.q_score is not None]),
        question_answer=_mean([c.qa_score for c in with_e]),
        veracity_f1={v: float(x) for v, x in zip(VERDICTS, per_class)},
        macro_f1=float(macro),
        accuracy=float(accuracy_score(gold_labels, pred_labels)),
        f1_undefined_classes=[v for v in VERDICTS if v not in present],
        justification=_mean([c.justification_score for c in claims if c.justification_score is not None]),
        averitec_veracity=_level_means(v_at),
        averitec_justification=_level_means(j_at),
        by_type=by_type,
        type_counts={t: len(cs) for t, cs in types.items()},
        n_scored={"question_only": sum(c.q_score is not None for c in claims), "question_answer": len(with_e),
                  "justification": sum(c.justification_score is not None for c in claims),
                  "averitec_justification": len(with_ej)},
        n_failed={k: len(v) for k, v in failed_ids.items()},
        failed_ids=failed_ids,
        n_capped=sum("capped" in c.notes for c in claims),
        n_no_predicted_evidence=sum("no_predicted_evidence" in c.notes for c in claims),
        n_justification_from_evidence=sum("justification_from_evidence" in c.notes for c in claims),
        formats=dict(Counter(p.format for p, _ in pairs)),
        meteor=meteor,
        claims=claims,
    )


def _line(left: str, right: str) -> str:
    # the official print_with_space: pad the name to 40 characters (no space when longer)
    return left + " " * (40 - len(left)) + right


def _num(v: Optional[float]) -> str:
    return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else repr(float(v))


def format_official_table(report: AveritecReport) -> str:
    """The table as the official script prints it (same names, order and layout; numbers as
    Python ``repr`` of the float), followed by this package's status lines."""
    r = report
    out = ["AVeriTeC evaluation:", "====================",
           _line("Question-only score (HU-meteor):", _num(r.question_only)),
           _line("Question-answer score (HU-meteor):", _num(r.question_answer)),
           "====================", "Veracity F1 scores:"]
    for v in VERDICTS:
        out.append(_line(f" * {v}:", _num(r.veracity_f1[v])))
    out.append(_line(" * macro:", _num(r.macro_f1)))
    out.append(_line(" * acc:", _num(r.accuracy)))
    out.append(_line("Justification score (meteor):", _num(r.justification)))
    out += ["--------------------", "Averitec scores:"]
    for level in AVERITEC_LEVELS:
        out.append(_line(f" * Veracity scores (meteor @ {level}):", _num(r.averitec_veracity[level])))
        out.append(_line(f" * Justification scores (meteor @ {level}):", _num(r.averitec_justification[level])))
    for thr in TYPE_THRESHOLDS:
        out.append("--------------------")
        for t, v in r.by_type[thr].items():
            out.append(_line(f" * Veracity scores ({t}):", _num(v)))
    out.append("====================")
    failed = ", ".join(f"{k} {n}" for k, n in r.n_failed.items()) or "none"
    out.append(f"claims: {r.n_claims} joined; failed: {failed}; capped at {MAX_QUESTIONS} predicted pairs: "
               f"{r.n_capped}; no predicted evidence: {r.n_no_predicted_evidence}; justification from evidence: "
               f"{r.n_justification_from_evidence}")
    out.append("by-type blocks: thresholds " + " then ".join(str(t) for t in TYPE_THRESHOLDS)
               + " (mean evidence score above the threshold, else 0; labels not used)")
    if r.f1_undefined_classes:
        out.append("F1 undefined (no gold, no prediction; shown as 0): " + ", ".join(r.f1_undefined_classes))
    return "\n".join(out)
