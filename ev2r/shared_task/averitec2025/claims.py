"""What the AVeriTeC 2025 judge reads: gold and predicted records joined one-to-one and rendered
as the FEVER-8 scorer renders them (see :mod:`ev2r.shared_task.averitec2025`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Mapping, Sequence, Tuple

from ev2r.shared_task.averitec2024 import join_claims, prepare_gold, prepare_predictions
from ev2r.shared_task.averitec2025.settings import NO_ANSWER


@dataclass(frozen=True)
class Claim2025:
    """One joined claim, as the 2025 judge sees it.

    Attributes:
        claim_id: the gold claim's id (its position in the gold file unless the gold records
            carry ``claim_id``).
        claim: claim text ("" when neither record has one).
        gold_label, pred_label: verdicts from :data:`~ev2r.shared_task.averitec2024.VERDICTS`.
        reference_pairs: ``(question, first answer)`` per gold question.
        reference_questions: the gold questions.
        predicted_pairs: ``(question, answer)`` per predicted evidence item with an answer
            (``("", text)`` for ``string_evidence``).
        predicted_questions: every predicted question.
        notes: ``reference_question_without_answer``, ``predicted_question_without_answer``.
    """

    claim_id: Any
    claim: str
    gold_label: str
    pred_label: str
    reference_pairs: Tuple[Tuple[str, str], ...]
    reference_questions: Tuple[str, ...]
    predicted_pairs: Tuple[Tuple[str, str], ...]
    predicted_questions: Tuple[str, ...]
    notes: Tuple[str, ...] = ()


def _as_list(answers: Any) -> list:
    if answers is None:
        return []
    return answers if isinstance(answers, list) else [answers]


def _gold_view(rec: Mapping[str, Any]) -> Tuple[List[Tuple[str, str]], List[str], bool]:
    pairs, questions, unanswered = [], [], False
    for q in rec.get("questions") or []:
        answers = _as_list(q.get("answers"))
        if answers:
            pairs.append((q["question"], answers[0]["answer"]))  # officially answers[0] only
        else:
            pairs.append((q["question"], NO_ANSWER))
            unanswered = True
        questions.append(q["question"])
    return pairs, questions, unanswered


def _predicted_view(rec: Mapping[str, Any], fmt: str) -> Tuple[List[Tuple[str, str]], List[str], bool]:
    pairs, questions, unanswered = [], [], False
    if fmt == "submission-2024":
        for item in rec.get("evidence") or []:
            questions.append(item["question"])
            if item.get("answer") is None:
                unanswered = True
            else:
                pairs.append((item["question"], item["answer"]))
    else:
        for q in rec.get("questions") or []:
            questions.append(q["question"])
            answers = _as_list(q.get("answers"))
            if not answers:
                unanswered = True
            for a in answers:
                text = a["answer"]
                if a.get("answer_type") == "Boolean":
                    text += ". " + a["boolean_explanation"]
                pairs.append((q["question"], text))
    for s in rec.get("string_evidence") or []:
        pairs.append(("", s))
    return pairs, questions, unanswered


def prepare_claims_2025(predictions: Sequence[Any], references: Sequence[Any], join: str = "id") -> List[Claim2025]:
    """Validate, join and extract what the 2025 judge reads.

    Args:
        predictions: list of prediction dicts, 2024/2025 submission format (``claim_id``,
            ``pred_label``, ``evidence: [{question, answer}]``) or the original AVeriTeC format
            (``claim_id``, ``label``, ``questions``/``string_evidence``); not modified.
        references: list of gold AVeriTeC claim dicts (``claim``, ``label``, ``questions:
            [{question, answers: [{answer, ...}]}]``); not modified.
        join: ``"id"`` (default) or ``"position"`` (see :func:`ev2r.shared_task.averitec2024.join_claims`).

    Returns:
        one :class:`Claim2025` per gold claim, in gold order.

    Raises:
        AveritecInputError: malformed records (record, field and allowed values named).
        JoinError: predictions that do not join the gold file one-to-one.
        ValueError: unknown ``join``.
    """
    gold = prepare_gold(references)
    preds = prepare_predictions(predictions)
    out: List[Claim2025] = []
    for p, g in join_claims(preds, gold, join=join):
        ref_pairs, ref_q, ref_unanswered = _gold_view(references[g.index])
        pred_pairs, pred_q, pred_unanswered = _predicted_view(predictions[p.index], p.format)
        notes = []
        if ref_unanswered:
            notes.append("reference_question_without_answer")
        if pred_unanswered:
            notes.append("predicted_question_without_answer")
        claim = g.claim if g.claim is not None else (p.claim or "")
        out.append(Claim2025(claim_id=g.claim_id, claim=claim, gold_label=g.label, pred_label=p.label,
                             reference_pairs=tuple(ref_pairs), reference_questions=tuple(ref_q),
                             predicted_pairs=tuple(pred_pairs), predicted_questions=tuple(pred_q),
                             notes=tuple(notes)))
    return out


def render_pairs(pairs: Sequence[Tuple[str, str]]) -> str:
    """Q + A evidence as the FEVER-8 scorer renders it: ``question + "\\t\\t\\n" + answer +
    "\\t\\t\\n\\n"`` per pair, concatenated (an answer-only pair: ``answer + "\\t\\t\\n\\n"``).

    >>> render_pairs([("Who?", "Ann."), ("", "Plain text.")])
    'Who?\\t\\t\\nAnn.\\t\\t\\n\\nPlain text.\\t\\t\\n\\n'
    """
    return "".join((q + "\t\t\n" if q else "") + a + "\t\t\n\n" for q, a in pairs)


def render_questions(questions: Sequence[str]) -> str:
    """Question-only evidence as the FEVER-8 scorer passes it to ``str.format``: a Python list
    literal.

    >>> render_questions(["Who?", "When?"])
    "['Who?', 'When?']"
    """
    return str(list(questions))
