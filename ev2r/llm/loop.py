"""The one LLM call loop: requests -> client -> parse -> re-ask with the reason -> per-request
answer, status and usage. Every LLM user of the package goes through it: the reference-based and
proxy scorers (:mod:`ev2r.llm.scorers`), the AVeriTeC 2025 judge
(:mod:`ev2r.shared_task.averitec2025`) and the arena (:mod:`ev2r.ranking.arena`).

:func:`ask` sends all first-round requests through :meth:`ev2r.llm.LLMClient.complete_many`
(cache first, bounded concurrency, retries), parses each answer with the caller's ``parse``, and
sends the requests whose answer was rejected again, at most ``max_reasks`` times, as the
conversation so far plus the model's answer and a user message saying why it was rejected
(:func:`reask_request`). A failed call (``api_error``, ``timeout``, ``replay_missing``) is not
re-asked: the client has already retried it. Nothing raises for the batch: every request ends
in an :class:`Answer` with a status and its own :class:`ev2r.types.LLMUsage` (requests, calls,
cache hits, retries, tokens, re-asks), so totals are sums over answers.

:func:`estimate_asks` is the dry run of :func:`ask` (nothing is sent): cached answers are parsed
as the run would parse them, the requests still to send are counted with the upper bound of
their re-asks, and what could not be counted is reported (:class:`ev2r.llm.CostEstimate`).
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Mapping, Optional, Sequence, TypeVar

from ev2r.llm.client import (OFFLINE_MISSING, TOKENS_PER_MESSAGE, CostEstimate, LLMOutcome, LLMRequest,
                             estimate_tokens)
from ev2r.llm.parse import ParseError
from ev2r.types import STATUS_OK, STATUS_PARSE_ERROR, LLMUsage

T = TypeVar("T")

#: characters allowed for the rejection reason when a re-ask's prompt is estimated (the reason is
#: only known once the answer is)
REASON_CHARS_ESTIMATE = 200


@dataclass
class Answer(Generic[T]):
    """What one request came to, after its re-asks.

    Attributes:
        status: ``ok``; a call status of the last request (``api_error``, ``timeout``,
            ``replay_missing``); or the rejection status of the last answer (``parse_error``, or
            what the caller's ``status_of`` names, e.g. ``missing_keys``).
        value: what ``parse`` returned (``ok`` only).
        error: why it failed (None when ``ok``): the client's message, or the rejection's.
        rejected: True when the server answered and ``parse`` rejected the answer.
        rounds: requests made for it (1 + re-asks).
        outcome: the last :class:`~ev2r.llm.LLMOutcome` (its ``from_cache``, ``response``).
        usage: the :class:`~ev2r.types.LLMUsage` of every round, re-asks counted.
    """

    status: str
    value: Optional[T] = None
    error: Optional[str] = None
    rejected: bool = False
    rounds: int = 0
    outcome: Optional[LLMOutcome] = None
    usage: LLMUsage = field(default_factory=LLMUsage)

    @property
    def ok(self) -> bool:
        return self.status == STATUS_OK

    def error_with_attempt(self) -> Optional[str]:
        """``error``, with ``" (attempt N)"`` appended when the answer of round N was rejected."""
        return f"{self.error} (attempt {self.rounds})" if self.rejected else self.error


def answer_text(response: Any) -> str:
    """The model's text in ``choices[0].message.content`` ("" when there is none), for a re-ask."""
    try:
        return response["choices"][0]["message"]["content"] or ""
    except (KeyError, IndexError, TypeError):
        return ""


def reask_request(request: LLMRequest, response: Any, message: str) -> LLMRequest:
    """The re-ask of ``request``: its messages, the model's answer as the assistant turn, and
    ``message`` (why the answer was rejected) as the next user turn; the same parameters."""
    return LLMRequest(list(request.messages) + [{"role": "assistant", "content": answer_text(response)},
                                                {"role": "user", "content": message}], dict(request.params))


def _default_status(exc: BaseException) -> str:
    return STATUS_PARSE_ERROR


def _check_reask(max_reasks: int, reask_message: Optional[Callable]) -> None:
    if isinstance(max_reasks, bool) or not isinstance(max_reasks, int) or max_reasks < 0:
        raise ValueError(f"max_reasks: must be an int >= 0, got {max_reasks!r}")
    if max_reasks and reask_message is None:
        raise ValueError("reask_message: needed when max_reasks > 0 (what the re-ask tells the model)")


def ask(client: Any, requests: Sequence[LLMRequest], parse: Callable[[int, dict], T], *,
        rejects: tuple = (ParseError,), status_of: Callable[[BaseException], str] = _default_status,
        max_reasks: int = 0, reask_message: Optional[Callable[[int, BaseException], str]] = None) -> list[Answer[T]]:
    """Ask every request, re-asking rejected answers; one :class:`Answer` per request, in order.

    Args:
        client: an :class:`ev2r.llm.LLMClient` (or any object whose ``complete_many(requests)``
            returns one :class:`~ev2r.llm.LLMOutcome` per request, in order).
        requests: the first-round requests.
        parse: ``parse(index, response dict) -> value``; raises one of ``rejects`` for an answer
            that cannot be used (the message says why; it goes into the re-ask and the error).
        rejects: the exception classes that mean "unusable answer" (others propagate: a bug).
        status_of: the status of a rejection (default ``parse_error``).
        max_reasks: re-asks per request after a rejected answer (>= 0).
        reask_message: ``reask_message(index, exception) -> str``, the user turn of a re-ask.

    Raises:
        ValueError: ``max_reasks`` < 0, no ``reask_message`` with re-asks, or a client that
            returns the wrong number of outcomes.
    """
    _check_reask(max_reasks, reask_message)
    answers: list[Optional[Answer]] = [None] * len(requests)
    usage = [LLMUsage()] * len(requests)
    reasks = [0] * len(requests)
    pending = dict(enumerate(requests))
    for round_ in range(max_reasks + 1):
        if not pending:
            break
        order = sorted(pending)
        outcomes = list(client.complete_many([pending[i] for i in order]))
        if len(outcomes) != len(order):
            raise ValueError(f"client: complete_many returned {len(outcomes)} outcomes for {len(order)} requests")
        nxt: dict[int, LLMRequest] = {}
        for i, out in zip(order, outcomes):
            usage[i] = usage[i] + out.usage
            if not out.ok:
                answers[i] = Answer(out.status, error=out.error, rounds=round_ + 1, outcome=out)
                continue
            try:
                value = parse(i, out.response)
            except rejects as e:
                answers[i] = Answer(status_of(e), error=str(e), rejected=True, rounds=round_ + 1, outcome=out)
                if round_ < max_reasks:
                    nxt[i] = reask_request(pending[i], out.response, reask_message(i, e))
                    reasks[i] += 1
                continue
            answers[i] = Answer(STATUS_OK, value=value, rounds=round_ + 1, outcome=out)
        pending = nxt
    for i, a in enumerate(answers):
        a.usage = usage[i] + LLMUsage(reasks=reasks[i])
    return answers  # type: ignore[return-value]


def estimate_asks(client: Any, requests: Sequence[LLMRequest], parse: Callable[[int, dict], Any], *,
                  rejects: tuple = (ParseError,), status_of: Callable[[BaseException], str] = _default_status,
                  max_reasks: int = 0,
                  reask_message: Optional[Callable[[int, BaseException], str]] = None,
                  not_counted: Optional[Mapping[str, int]] = None, price_in_per_mtok: Optional[float] = None,
                  price_out_per_mtok: Optional[float] = None,
                  reask_errors: Sequence[type] = (ParseError,)) -> CostEstimate:
    """The dry run of :func:`ask` with the same arguments: what it would send; sends nothing.

    The first round is :meth:`ev2r.llm.LLMClient.estimate` of ``requests``. A cached answer is
    parsed as :func:`ask` would parse it; when it is rejected and re-asks remain, its re-ask is
    looked up in the cache in turn. The first request of a chain that is not cached is to send,
    and so, at most, are the re-asks after it (each resends the conversation, the answer at
    ``max_tokens`` and the reason, counted as :data:`REASON_CHARS_ESTIMATE` characters).

    Args:
        client, requests, parse, rejects, status_of, max_reasks, reask_message: as :func:`ask`
            (``status_of`` does not change an estimate).
        not_counted: ``{reason: count}`` of items the caller could not turn into requests (e.g. a
            prompt that cannot be filled); reported in the estimate, never dropped silently.
        reask_errors: the rejection classes whose re-ask messages bound a re-ask's length (the
            longest of ``reask_message(i, cls(reason))`` over them; pass each class that
            ``reask_message`` answers with its own text).

    Raises:
        ValueError: as :func:`ask`.
    """
    _check_reask(max_reasks, reask_message)
    est = client.estimate(list(requests), price_in_per_mtok, price_out_per_mtok)
    skipped = collections.Counter(dict(not_counted or {}))
    skipped.update(est.not_counted_reasons or {})  # e.g. offline requests the cache cannot answer
    offline = bool(getattr(client, "offline", False))
    cache = getattr(client, "cache", None)
    reask_n = reask_prompt = reask_completion = 0
    for i, req in enumerate(requests):
        round_ = 0
        while True:
            cached = cache.get(client.key(req)) if cache is not None else None
            if cached is None and offline:  # never sent: counted as not answerable above (first round)
                if round_ > 0:
                    skipped[OFFLINE_MISSING] += 1
                break
            if cached is None:  # to send; then at most max_reasks - round_ re-asks
                remaining = max_reasks - round_
                if round_ > 0:
                    reask_n += 1
                    reask_prompt += estimate_tokens(req.messages)
                    reask_completion += _max_tokens(req)
                if remaining > 0:
                    grow = _max_tokens(req) + TOKENS_PER_MESSAGE + _reask_tokens(reask_message, i, reask_errors)
                    base = estimate_tokens(req.messages)
                    reask_n += remaining
                    reask_prompt += sum(base + k * grow for k in range(1, remaining + 1))
                    reask_completion += remaining * _max_tokens(req)
                break
            if round_ >= max_reasks:
                break
            try:
                parse(i, cached)
                break
            except rejects as e:
                req = reask_request(req, cached, reask_message(i, e))
                round_ += 1
    est.max_reasks = max_reasks
    est.reask_requests_max = reask_n
    est.reask_prompt_tokens_max = reask_prompt
    est.reask_completion_tokens_max = reask_completion
    est.not_counted = sum(skipped.values())
    est.not_counted_reasons = dict(skipped)
    return est


def _max_tokens(req: LLMRequest) -> int:
    return int(req.params.get("max_tokens") or 0)


def _reask_tokens(reask_message: Optional[Callable], index: int, errors: Sequence[type] = (ParseError,)) -> int:
    if not reask_message:
        return estimate_tokens([{"role": "user", "content": ""}])
    return max(estimate_tokens([{"role": "user", "content": reask_message(index, cls("." * REASON_CHARS_ESTIMATE))}])
               for cls in (errors or (ParseError,)))
