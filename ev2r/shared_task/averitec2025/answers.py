"""Judgements of the AVeriTeC 2025 table: the task a judge gets, the judgement it gives, and the
strict reading of a judge's answer (:func:`parse_recall_answer`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Optional, Tuple

from ev2r.llm.parse import ParseError, extract_json_object, response_text
from ev2r.shared_task.averitec2025.settings import PARTS
from ev2r.types import (STATUS_BAD_COUNTS, STATUS_MISSING_KEYS, STATUS_OK, STATUS_PARSE_ERROR, STATUS_ZERO_FACTS,
                        LLMUsage)


@dataclass(frozen=True)
class JudgeTask:
    """One judgement to make.

    Attributes:
        claim_id: the claim's id; part: ``"question_only"`` or ``"question_answer"``.
        claim: claim text.
        reference, predicted: questions (str) for ``question_only``; ``(question, answer)``
            pairs for ``question_answer``. Both non-empty (empty cases are decided without a
            judge).
    """

    claim_id: Any
    part: str
    claim: str
    reference: tuple
    predicted: tuple


@dataclass
class Judgement:
    """The outcome of one judgement.

    Attributes:
        status: one of :data:`ev2r.types.JUDGEMENT_STATUSES`.
        recall: ``support / facts`` in [0, 1] when ``ok``, else None.
        support, facts: the judge's counts (None when unknown).
        error: why it failed (None when ``ok``).
        from_cache: LLM judge: the answer came from the cache (None for other judges or no call).
        called: whether the judge was asked at all (False for decided cases).
        llm: LLM judge: what this judgement cost (:class:`ev2r.types.LLMUsage`: requests, calls,
            cache hits, tokens, re-asks); None for other judges and decided cases. Accounting, not
            part of :meth:`to_dict`; the report's ``judge_run`` is its sum.
    """

    status: str
    recall: Optional[float] = None
    support: Optional[int] = None
    facts: Optional[int] = None
    error: Optional[str] = None
    from_cache: Optional[bool] = None
    called: bool = True
    llm: Optional[LLMUsage] = field(default=None, compare=False)

    @property
    def ok(self) -> bool:
        return self.status == STATUS_OK

    def to_dict(self) -> dict:
        return {"status": self.status, "recall": self.recall, "support": self.support, "facts": self.facts,
                "error": self.error, "from_cache": self.from_cache, "called": self.called}


class JudgeAnswerError(ValueError):
    """An answer that gives no recall; ``status`` is ``parse_error``, ``missing_keys``,
    ``bad_counts`` or ``zero_facts``."""

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status = status


_KEY_FAMILIES = {"question_only": ("reference questions", "reference evidence"),
                 "question_answer": ("reference evidence", "reference questions")}


def _count(value: Any, key: str) -> int:
    v = value
    if isinstance(v, str):
        try:
            v = float(v.strip())
        except ValueError:
            raise JudgeAnswerError(STATUS_BAD_COUNTS, f"{key!r}: expected a whole number >= 0, got {value!r}") from None
    if isinstance(v, float) and math.isfinite(v) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise JudgeAnswerError(STATUS_BAD_COUNTS, f"{key!r}: expected a whole number >= 0, got {value!r}")
    return v


def parse_recall_answer(response: Any, part: str) -> Tuple[int, int]:
    """``(support, facts)`` from a judge's chat-completion response.

    Args:
        response: the server's response dict (``choices[0].message.content`` holds the answer)
            or the answer text itself.
        part: ``"question_only"`` (keys ``facts count reference questions``, ``support reference
            questions``) or ``"question_answer"`` (``... reference evidence``); either family is
            accepted for either part, the part's own first.

    Returns:
        ``(support, facts)`` with ``0 <= support <= facts`` and ``facts >= 1``; recall is
        ``support / facts`` (Ev2R paper sec. 3.1; FEVER-8 scorer).

    Raises:
        JudgeAnswerError: ``parse_error`` (no JSON object), ``missing_keys``, ``bad_counts``
            (not a whole number >= 0, or support > facts), ``zero_facts`` (facts count 0).
        ValueError: unknown ``part``.
    """
    if part not in PARTS:
        raise ValueError(f"part: {part!r} is not one of {PARTS}")
    try:
        text = response if isinstance(response, str) else response_text(response)
        obj = extract_json_object(text)
    except ParseError as e:
        raise JudgeAnswerError(STATUS_PARSE_ERROR, str(e)) from None
    except (AttributeError, TypeError) as e:  # not a response dict
        raise JudgeAnswerError(STATUS_PARSE_ERROR, f"unexpected response shape: {type(e).__name__}: {e}") from None
    for fam in _KEY_FAMILIES[part]:
        count_key, support_key = f"facts count {fam}", f"support {fam}"
        if count_key in obj and support_key in obj:
            break
    else:
        fam = _KEY_FAMILIES[part][0]
        raise JudgeAnswerError(STATUS_MISSING_KEYS, f"the answer lacks 'facts count {fam}' and 'support {fam}' (or the "
                                               f"'{_KEY_FAMILIES[part][1]}' pair); keys given: {sorted(obj)[:10]}")
    facts = _count(obj[count_key], count_key)
    support = _count(obj[support_key], support_key)
    if facts == 0:
        raise JudgeAnswerError(STATUS_ZERO_FACTS, f"{count_key!r} is 0: recall undefined (the organisers' script "
                                                  "divides "
                                             "by it and scores the claim 0)")
    if support > facts:
        raise JudgeAnswerError(STATUS_BAD_COUNTS, f"{support_key!r} ({support}) is above {count_key!r} ({facts})")
    return support, facts


REASK_MESSAGE = ("Your previous answer could not be used: {error}. Reply again with only the JSON object, with the "
                 "keys \"facts count {family}\" and \"support {family}\" as whole numbers (support at most the "
                 "facts count, facts count at least 1).")
