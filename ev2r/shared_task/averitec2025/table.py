"""Scores, report and table of the AVeriTeC 2025 edition (FEVER-8): Ev2R recall both ways
(over judged claims; failures counted as 0), the new AVeriTeC score, failures by cause."""

from __future__ import annotations

import collections
import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ev2r.llm.client import CostEstimate
from ev2r.shared_task.averitec2025.answers import Judgement, JudgeTask
from ev2r.shared_task.averitec2025.claims import Claim2025, prepare_claims_2025
from ev2r.shared_task.averitec2025.judges import LLMRecallJudge
from ev2r.shared_task.averitec2025.settings import (_COMPARISON_SYMBOL, _MAX_IDS_SHOWN, _PART_NAMES,
                                                    BUNDLED_JUDGE_LABEL, COMPARISON_SOURCES,
                                                    DEFAULT_RECALL_COMPARISON, EDITION, PARTS, RECALL_COMPARISONS,
                                                    RECALL_LEVEL)
from ev2r.signature import Signature
from ev2r.types import STATUS_BAD_COUNTS, STATUS_FAILED, STATUS_NO_REFERENCE_QUESTIONS, STATUS_OK, LLMUsage


def meets_recall_level(recall: float, comparison: str = DEFAULT_RECALL_COMPARISON, level: float = RECALL_LEVEL) -> bool:
    """Whether a Q + A recall reaches the new AVeriTeC score's level (FEVER-8: 0.5).

    ``"gt"`` (default): ``recall > level`` (the organisers' final FEVER-8 leaderboard script);
    ``"ge"``: ``recall >= level`` (their April 2025 script). See
    :data:`~ev2r.shared_task.averitec2025.settings.DEFAULT_RECALL_COMPARISON`.

    Args:
        recall: a Q + A recall in [0, 1].
        comparison: ``"gt"`` or ``"ge"``.
        level: the level (0.5).

    >>> meets_recall_level(0.5, "ge"), meets_recall_level(0.5, "gt")
    (True, False)

    Raises:
        ValueError: unknown ``comparison``.
    """
    if comparison not in RECALL_COMPARISONS:
        raise ValueError(f"recall_comparison (--recall-comparison): {comparison!r} is not one of "
                         f"{RECALL_COMPARISONS} (ge: recall >= {level:g}, gt: recall > {level:g})")
    return recall >= level if comparison == "ge" else recall > level


def new_averitec_contribution(recall: float, label_correct: bool, comparison: str = DEFAULT_RECALL_COMPARISON,
                              level: float = RECALL_LEVEL) -> float:
    """One claim's share of the new AVeriTeC score (FEVER-8): 1.0 when the verdict is right
    **and** the Q + A recall reaches ``level`` (:func:`meets_recall_level`), else 0.0."""
    return 1.0 if (label_correct and meets_recall_level(recall, comparison, level)) else 0.0


def plan_judgements(claims: Sequence[Claim2025]):
    """Split the work: judgements decided without a judge, and the :class:`JudgeTask` list.

    Per claim and part (``question_only``, ``question_answer``): no gold questions -> status
    ``no_reference_questions`` (no call); no predicted questions / Q + A evidence -> recall 0.0,
    status ``ok``, note ``no_predicted_questions`` / ``no_predicted_evidence`` (no call);
    otherwise a task.

    Returns:
        ``(decided, notes, tasks, keys)``: ``decided`` maps ``(claim index, part)`` to a
        :class:`Judgement`; ``notes`` maps a claim index to its extra notes; ``keys[i]`` is the
        ``(claim index, part)`` of ``tasks[i]``.
    """
    decided: Dict[Tuple[int, str], Judgement] = {}
    notes: Dict[int, List[str]] = collections.defaultdict(list)
    tasks: List[JudgeTask] = []
    keys: List[Tuple[int, str]] = []
    for k, c in enumerate(claims):
        for part in PARTS:
            ref = c.reference_questions if part == "question_only" else c.reference_pairs
            pred = c.predicted_questions if part == "question_only" else c.predicted_pairs
            if not ref:
                decided[(k, part)] = Judgement(STATUS_NO_REFERENCE_QUESTIONS, called=False,
                                               error="the gold claim has no questions: nothing to compare with")
            elif not pred:
                decided[(k, part)] = Judgement(STATUS_OK, recall=0.0, support=0, facts=None, called=False)
                notes[k].append("no_predicted_questions" if part == "question_only" else "no_predicted_evidence")
            else:
                tasks.append(JudgeTask(c.claim_id, part, c.claim, tuple(ref), tuple(pred)))
                keys.append((k, part))
    return decided, notes, tasks, keys


def estimate_averitec_2025(predictions: Sequence[Any], references: Sequence[Any], judge: "LLMRecallJudge",
                           join: str = "id", price_in_per_mtok: Optional[float] = None,
                           price_out_per_mtok: Optional[float] = None) -> CostEstimate:
    """Dry run of the LLM judge: the requests the table needs, those already cached, estimated
    tokens, the upper bound of the re-asks and what could not be counted
    (:meth:`LLMRecallJudge.estimate`, :class:`ev2r.llm.CostEstimate`); sends nothing.

    Raises:
        ValueError: ``judge`` is not an :class:`LLMRecallJudge`; bad records (as
            :func:`evaluate_averitec_2025`).
    """
    if not isinstance(judge, LLMRecallJudge):
        raise ValueError("--dry-run: only meaningful with the LLM judge (--judge llm)")
    _, _, tasks, _ = plan_judgements(prepare_claims_2025(predictions, references, join=join))
    return judge.estimate(tasks, price_in_per_mtok, price_out_per_mtok)


@dataclass
class ClaimResult2025:
    """The 2025 scores of one claim.

    Attributes:
        claim_id: the gold claim's id.
        status: ``"ok"`` when both judgements are ``ok``, else ``"failed"``.
        failures: ``{part: cause}`` for the parts that failed.
        notes: ``no_predicted_evidence``, ``no_predicted_questions``,
            ``reference_question_without_answer``, ``predicted_question_without_answer``.
        pred_label, gold_label, label_correct: verdicts and their equality.
        q_recall, qa_recall: recalls in [0, 1], None when that judgement failed.
        meets_level: whether ``qa_recall`` reaches 0.5 under the comparison (None when failed).
        new_averitec: 1.0 or 0.0 (None when the Q + A judgement failed).
        question_only, question_answer: the :class:`Judgement` of each part.
        n_reference_questions, n_predicted_questions, n_predicted_pairs: sizes.
        judge: the judge's label.
    """

    claim_id: Any
    status: str
    failures: Dict[str, str]
    notes: Tuple[str, ...]
    pred_label: str
    gold_label: str
    label_correct: bool
    q_recall: Optional[float]
    qa_recall: Optional[float]
    meets_level: Optional[bool]
    new_averitec: Optional[float]
    question_only: Judgement
    question_answer: Judgement
    n_reference_questions: int
    n_predicted_questions: int
    n_predicted_pairs: int
    judge: str

    def to_dict(self) -> dict:
        return {"claim_id": self.claim_id, "edition": EDITION, "status": self.status,
                "failures": dict(self.failures), "notes": list(self.notes), "pred_label": self.pred_label,
                "gold_label": self.gold_label, "label_correct": self.label_correct, "q_recall": self.q_recall,
                "qa_recall": self.qa_recall, "meets_level": self.meets_level, "new_averitec": self.new_averitec,
                "question_only": self.question_only.to_dict(), "question_answer": self.question_answer.to_dict(),
                "n_reference_questions": self.n_reference_questions,
                "n_predicted_questions": self.n_predicted_questions, "n_predicted_pairs": self.n_predicted_pairs,
                "judge": self.judge}


@dataclass
class ScoreSummary:
    """One score both ways.

    Attributes:
        judged: mean over the ``n_judged`` claims whose judgement succeeded (None when none).
        n_judged: how many.
        failures_as_zero: sum over judged claims / ``n_claims`` -- every failure counted as 0,
            the organisers' convention.
        n_claims: all joined claims.
    """

    judged: Optional[float]
    n_judged: int
    failures_as_zero: float
    n_claims: int

    def to_dict(self) -> dict:
        return {"judged": self.judged, "n_judged": self.n_judged, "failures_as_zero": self.failures_as_zero,
                "n_claims": self.n_claims}


def _summary(values: Sequence[float], n_claims: int) -> ScoreSummary:
    total = math.fsum(values)
    return ScoreSummary(judged=total / len(values) if values else None, n_judged=len(values),
                        failures_as_zero=total / n_claims, n_claims=n_claims)


@dataclass
class Averitec2025Report:
    """The 2025 table and per-claim results.

    Attributes:
        edition: ``"2025"``.
        n_claims: joined claims.
        judge: the judge's label (says ``not the official LLM judge`` for the bundled judge).
        judge_kind: ``"llm"`` or ``"bundled"`` (or the custom judge's ``kind``).
        official_judge: False for the bundled judge (its numbers are not the leaderboard's).
        recall_comparison: ``"gt"`` (default) or ``"ge"``; recall_level: 0.5.
        question_only, question_answer: :class:`ScoreSummary` of the Ev2R recalls.
        new_averitec: :class:`ScoreSummary` of the new AVeriTeC score.
        n_at_level: judged claims whose Q + A recall is exactly the level (0.5): where ``ge`` and ``gt``
            differ; ``n_at_level_correct`` of them have the right verdict (the claims the two scores differ on).
        other_comparison: the comparison not chosen; new_averitec_other: the new AVeriTeC score under it.
        n_failed: ``{part: {cause: count}}``; failed_ids: ``{part: {cause: [ids]}}``.
        notes: ``{note: count}`` over claims.
        judge_run: the judge's accounting (:func:`judge_accounting`: the sum of the judgements' LLM
            usage -- calls, cache hits, retries, tokens, re-asks -- and their statuses).
        signature: the settings that change the numbers, ``k:v|k:v`` (:class:`ev2r.signature.Signature`).
        claims: per-claim :class:`ClaimResult2025`, in gold order.
    """

    edition: str
    n_claims: int
    judge: str
    judge_kind: str
    official_judge: bool
    recall_comparison: str
    recall_level: float
    question_only: ScoreSummary
    question_answer: ScoreSummary
    new_averitec: ScoreSummary
    n_at_level: int
    n_at_level_correct: int
    other_comparison: str
    new_averitec_other: ScoreSummary
    n_failed: Dict[str, Dict[str, int]]
    failed_ids: Dict[str, Dict[str, list]]
    notes: Dict[str, int]
    judge_run: dict
    signature: str
    claims: List[ClaimResult2025] = field(default_factory=list, repr=False)

    @property
    def comparison_text(self) -> str:
        return f"Q + A recall {_COMPARISON_SYMBOL[self.recall_comparison]} {self.recall_level:g}"

    def to_dict(self, with_claims: bool = False) -> dict:
        """Plain-JSON form."""
        d = {"edition": self.edition, "n_claims": self.n_claims, "judge": self.judge, "judge_kind": self.judge_kind,
             "official_judge": self.official_judge, "recall_comparison": self.recall_comparison,
             "recall_level": self.recall_level, "new_averitec_rule": f"label correct and {self.comparison_text}",
             "question_only": self.question_only.to_dict(), "question_answer": self.question_answer.to_dict(),
             "new_averitec": self.new_averitec.to_dict(), "n_at_level": self.n_at_level,
             "n_at_level_correct": self.n_at_level_correct, "other_comparison": self.other_comparison,
             "new_averitec_other": self.new_averitec_other.to_dict(),
             "n_failed": {k: dict(v) for k, v in self.n_failed.items()},
             "failed_ids": {k: {c: list(ids) for c, ids in v.items()} for k, v in self.failed_ids.items()},
             "notes": dict(self.notes), "judge_run": dict(self.judge_run), "signature": self.signature}
        if with_claims:
            d["claims"] = [c.to_dict() for c in self.claims]
        return d


def _signature(judge: Any, comparison: str) -> Signature:
    from ev2r._version import __version__

    declared = getattr(judge, "signature_fields", None)  # a custom judge may declare none
    judge_fields = declared() if callable(declared) else {"judge": str(getattr(judge, "kind", type(judge).__name__))}
    return Signature.from_parts({"averitec": EDITION}, judge_fields,
                                {"cmp": f"{comparison}{RECALL_LEVEL:g}", "ev2r": __version__})


def judge_accounting(judgements: Sequence[Judgement]) -> dict:
    """The judge's accounting of a table: the sum of the judgements' LLM usage (requests, calls,
    cache hits, retries, failures, tokens, re-asks; absent when no judgement used an LLM) and
    ``statuses`` (status -> count over the judgements asked); ``{}`` when nothing was asked."""
    if not judgements:
        return {}
    usage = LLMUsage.total(j.llm for j in judgements)
    return {**(usage.to_dict() if usage is not None else {}),
            "statuses": dict(collections.Counter(j.status for j in judgements))}


def evaluate_averitec_2025(predictions: Sequence[Any], references: Sequence[Any], judge: Any,
                           recall_comparison: str = DEFAULT_RECALL_COMPARISON, join: str = "id") -> Averitec2025Report:
    """The AVeriTeC 2025 (FEVER-8) table of ``predictions`` against ``references``.

    Args:
        predictions: list of prediction dicts (see :func:`prepare_claims_2025`); not modified.
        references: list of gold AVeriTeC claim dicts; not modified.
        judge: an :class:`LLMRecallJudge`, an :class:`NLIRecallJudge`, or any object with
            ``judge(tasks) -> list[Judgement]`` (one per :class:`JudgeTask`, in order),
            ``label`` and ``kind``.
        recall_comparison: ``"gt"`` (default; recall > 0.5, the organisers' final FEVER-8 leaderboard script)
            or ``"ge"`` (recall >= 0.5, their April 2025 script), for the new AVeriTeC score; the report also
            gives the score under the other one and counts the claims judged at exactly 0.5.
        join: ``"id"`` (default) or ``"position"``.

    Returns:
        :class:`Averitec2025Report`: per score the mean over judged claims and the mean with
        failures counted as 0 (the organisers' convention), failures by cause with ids.

    Raises:
        ValueError: unknown ``recall_comparison`` / ``join``; a ``judge`` without ``judge()``,
            or one that returns the wrong number of judgements.
        AveritecInputError, JoinError: malformed or non-joining records (see
            :mod:`ev2r.shared_task.averitec2024`).
    """
    if recall_comparison not in RECALL_COMPARISONS:
        raise ValueError(f"recall_comparison (--recall-comparison): {recall_comparison!r} is not one of "
                         f"{RECALL_COMPARISONS} (ge: recall >= {RECALL_LEVEL:g}, gt: recall > {RECALL_LEVEL:g})")
    if not callable(getattr(judge, "judge", None)):
        raise ValueError(f"judge: expected an LLMRecallJudge, an NLIRecallJudge or an object with "
                         f"judge(tasks), got {type(judge).__name__}")
    claims = prepare_claims_2025(predictions, references, join=join)
    decided, notes_by_claim, tasks, keys = plan_judgements(claims)
    got = list(judge.judge(tasks)) if tasks else []
    if len(got) != len(tasks):
        raise ValueError(f"judge: returned {len(got)} judgements for {len(tasks)} tasks")
    judgements = decided
    for key, j in zip(keys, got):
        if not isinstance(j, Judgement):
            raise ValueError(f"judge: expected Judgement objects, got {type(j).__name__}")
        if j.status == STATUS_OK and (j.recall is None or not (0.0 <= j.recall <= 1.0)):
            j = Judgement(STATUS_BAD_COUNTS, support=j.support, facts=j.facts, from_cache=j.from_cache,
                          error=f"recall outside [0, 1]: {j.recall!r}", llm=j.llm)
        judgements[key] = j

    label = str(getattr(judge, "label", getattr(judge, "kind", type(judge).__name__)))
    results: List[ClaimResult2025] = []
    for k, c in enumerate(claims):
        jq, jqa = judgements[(k, "question_only")], judgements[(k, "question_answer")]
        failures = {part: j.status for part, j in (("question_only", jq), ("question_answer", jqa)) if not j.ok}
        correct = c.pred_label == c.gold_label
        meets = None if not jqa.ok else meets_recall_level(jqa.recall, recall_comparison)
        results.append(ClaimResult2025(
            claim_id=c.claim_id, status=STATUS_FAILED if failures else STATUS_OK, failures=failures,
            notes=tuple(notes_by_claim[k]) + c.notes, pred_label=c.pred_label, gold_label=c.gold_label,
            label_correct=correct, q_recall=jq.recall if jq.ok else None, qa_recall=jqa.recall if jqa.ok else None,
            meets_level=meets, new_averitec=None if meets is None else (1.0 if (correct and meets) else 0.0),
            question_only=jq, question_answer=jqa, n_reference_questions=len(c.reference_questions),
            n_predicted_questions=len(c.predicted_questions), n_predicted_pairs=len(c.predicted_pairs), judge=label))

    n = len(results)
    failed_ids: Dict[str, Dict[str, list]] = {}
    for part in PARTS:
        by: Dict[str, list] = {}
        for r in results:
            if part in r.failures:
                by.setdefault(r.failures[part], []).append(r.claim_id)
        failed_ids[part] = by
    notes = collections.Counter(note for r in results for note in r.notes)
    other = next(c for c in RECALL_COMPARISONS if c != recall_comparison)
    at_level = [r for r in results if r.qa_recall is not None and r.qa_recall == RECALL_LEVEL]
    other_values = [new_averitec_contribution(r.qa_recall, r.label_correct, other)
                    for r in results if r.qa_recall is not None]
    return Averitec2025Report(
        edition=EDITION, n_claims=n, judge=label, judge_kind=str(getattr(judge, "kind", "custom")),
        official_judge=getattr(judge, "kind", None) != "bundled", recall_comparison=recall_comparison,
        recall_level=RECALL_LEVEL,
        question_only=_summary([r.q_recall for r in results if r.q_recall is not None], n),
        question_answer=_summary([r.qa_recall for r in results if r.qa_recall is not None], n),
        new_averitec=_summary([r.new_averitec for r in results if r.new_averitec is not None], n),
        n_at_level=len(at_level), n_at_level_correct=sum(r.label_correct for r in at_level), other_comparison=other,
        new_averitec_other=_summary(other_values, n),
        n_failed={part: {c: len(ids) for c, ids in by.items()} for part, by in failed_ids.items()},
        failed_ids=failed_ids, notes=dict(notes), judge_run=judge_accounting(got),
        signature=_signature(judge, recall_comparison), claims=results)


# ----------------------------------------------------------------------------- printing


def _line(left: str, right: str) -> str:
    return left + " " * (40 - len(left)) + right


def _num(v: Optional[float]) -> str:
    return "n/a" if v is None else repr(float(v))


def _show(ids: Sequence[Any]) -> str:
    ids = list(ids)
    head = ", ".join(repr(x) for x in ids[:_MAX_IDS_SHOWN])
    return f"[{head}, ...] ({len(ids)} in all)" if len(ids) > _MAX_IDS_SHOWN else f"[{head}]"


def format_2025_table(report: Averitec2025Report) -> str:
    """The 2025 table: the organisers' score names (``Q only (Ev2R recall)``, ``Q + A (Ev2R
    recall)``) and the new AVeriTeC score, first with failures counted as 0 (the organisers'
    convention), then over judged claims only; then the judge, the comparison, failures by cause
    with ids, notes and the signature."""
    r = report
    rule = r.comparison_text
    title = "AVeriTeC 2025 (FEVER-8) evaluation:"
    if not r.official_judge:
        title = "AVeriTeC 2025 (FEVER-8) evaluation -- " + BUNDLED_JUDGE_LABEL + ":"
    other = f"recall {_COMPARISON_SYMBOL[r.other_comparison]} {r.recall_level:g}"
    out = [title, "====================", r.judge, f"new AVeriTeC score: label correct and {rule} "
           f"(--recall-comparison {r.recall_comparison}: {COMPARISON_SOURCES[r.recall_comparison]}; "
           f"--recall-comparison {r.other_comparison}, {other}: {COMPARISON_SOURCES[r.other_comparison]})",
           f"claims judged at exactly Q + A recall {r.recall_level:g}: {r.n_at_level} ({r.n_at_level_correct} with the "
           f"right verdict: the claims the two comparisons score differently)", "===================="]
    names = (("Q only (Ev2R recall):", "question_only"), ("Q + A (Ev2R recall):", "question_answer"),
             (f"new AVeriTeC score (recall {_COMPARISON_SYMBOL[r.recall_comparison]} {r.recall_level:g}):",
              "new_averitec"))
    out.append(f"Failures counted as 0 (official convention, n={r.n_claims}):")
    for name, key in names:
        out.append(_line(name, _num(getattr(r, key).failures_as_zero)))
    out.append("--------------------")
    out.append("Over judged claims only (failures left out):")
    for name, key in names:
        s = getattr(r, key)
        out.append(_line(name, f"{_num(s.judged)} (n={s.n_judged})"))
    out.append(_line(f"new AVeriTeC score ({other}):", f"{_num(r.new_averitec_other.failures_as_zero)} "
                     f"(failures as 0; {_num(r.new_averitec_other.judged)} over judged claims)"))
    out.append("====================")
    for part in PARTS:
        by = r.failed_ids[part]
        text = "; ".join(f"{cause} {len(ids)} {_show(ids)}" for cause, ids in by.items()) or "none"
        out.append(f"failed {_PART_NAMES[part]}: {text}")
    if r.notes:
        out.append("notes: " + ", ".join(f"{k} {v}" for k, v in sorted(r.notes.items())))
    if not r.official_judge:
        out.append("NOTE: " + BUNDLED_JUDGE_LABEL + "; these numbers are not comparable with the FEVER-8 leaderboard")
    out.append(f"signature: {r.signature}")
    return "\n".join(out)
