"""Scoring of the AVeriTeC 2024 table: per-claim Hungarian METEOR, justification METEOR, verdict F1 and
accuracy, the Averitec scores at each level and the by-type blocks (definitions in the package
docstring, :mod:`ev2r.shared_task.averitec2024`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ev2r.io.averitec import VERDICTS
from ev2r.shared_task.averitec2024.claims import MAX_QUESTIONS, join_claims, prepare_gold, prepare_predictions

__all__ = ["EDITIONS", "AVERITEC_LEVELS", "TYPE_THRESHOLDS", "FAILURE_CAUSES", "METEOR_IMPLEMENTATIONS", "ClaimResult",
           "AveritecReport", "averitec_contribution", "thresholded_evidence", "evaluate_averitec"]

EDITIONS = ("2024",)
AVERITEC_LEVELS = (0.1, 0.2, 0.25, 0.3, 0.4, 0.5)
TYPE_THRESHOLDS = (0.2, 0.3)
FAILURE_CAUSES = ("no_reference_evidence", "no_reference_questions", "no_reference_justification")
METEOR_IMPLEMENTATIONS = ("fast", "nltk")


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
        n_gold_claims: claims in the gold file (None: not recorded).
        subset: True when only the predicted claims were scored (``subset=True`` in
            :func:`evaluate_averitec` and fewer joined claims than gold claims): the numbers are
            then **not** the official shared-task numbers, which score every gold claim.
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
    n_gold_claims: Optional[int] = None
    subset: bool = False

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
            "n_gold_claims": self.n_gold_claims,
            "subset": self.subset,
        }
        if self.subset:
            d["subset_note"] = (f"SUBSET: {self.n_claims} of {self.n_gold_claims} gold claims (only the predicted "
                                "ones, --subset); not the official shared-task numbers, which score every gold claim")
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
    from claimalign.meteor_fast import meteor_tokens_nltk

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
                      join: str = "id", meteor: str = "fast", subset: bool = False) -> AveritecReport:
    """The AVeriTeC shared-task table of ``predictions`` against ``references``.

    Args:
        predictions: list of prediction dicts (see :func:`prepare_predictions`); not modified.
        references: list of gold AVeriTeC claim dicts (see :func:`prepare_gold`); not modified.
        edition: ``"2024"`` (the only one so far).
        join: ``"id"`` (default) or ``"position"`` (see :func:`join_claims`).
        meteor: ``"fast"`` (default; :mod:`claimalign.meteor_fast`, identical values) or
            ``"nltk"`` (nltk's ``single_meteor_score`` itself).
        subset: False (default, the shared task): every gold claim needs a prediction. True: score
            only the gold claims that have a prediction (``join="id"`` only); the report is then
            marked ``subset`` (when any gold claim is left out) and is not the official number.

    Returns:
        :class:`AveritecReport`.

    Raises:
        ValueError: unknown ``edition`` / ``join`` / ``meteor``, or ``subset`` with ``join="position"``.
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
    pairs = join_claims(preds, gold, join=join, complete=not subset)

    from sklearn.metrics import accuracy_score, f1_score

    from claimalign.meteor_fast import tokenize
    from claimalign.nltk_data import require_nltk_data

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
        n_gold_claims=len(gold),
        subset=bool(subset) and len(claims) < len(gold),
    )
