"""LLM backends of the metric: reference-based P/R/F1 and the proxy-reference score.

:class:`LLMReferenceScorer` (Akhtar et al. 2024, sec. 3.1): **one call per item**; the ``reference_prf`` prompt asks
the model to decompose both evidences into atomic facts and check each against the other side. The answer is
validated by :func:`ev2r.llm.parse.parse_reference_answer` and scored as a recorded answer is replayed
(:mod:`ev2r.facts.replay`):

    precision = support predicted evidence / facts count predicted evidence
    recall    = support reference evidence / facts count reference evidence

:class:`LLMProxyScorer` (sec. 3.2): the ``proxy_verdict`` prompt asks for the verdict as one letter; P(gold verdict)
is read from that token's log-probabilities.

Per-item statuses (:mod:`ev2r.types`: ``ok``, ``parse_error``, ``api_error``, ``timeout``, ``replay_missing``,
``replay_inconsistent``, ``no_reference``) are never raised for the batch, never NaN, never 0 in place of a score.
Empty predicted evidence is scored without a call: precision = recall = F1 = 0. Both ask through the one call loop
(:func:`ev2r.llm.loop.ask`: cache, retries, re-asks), and each result carries its cost in ``llm``
(:class:`ev2r.types.LLMUsage`): a run's accounting is the sum over its items, whatever the chunks or the engine.
"""

from __future__ import annotations

import collections
import dataclasses
from pathlib import Path
from typing import Any, Optional, Sequence

from ev2r.config import LLM_DEFAULTS
from ev2r.labels import Verdict
from ev2r.scores import ProxyResult
from ev2r.scores import ReferenceResult
from ev2r.types import STATUS_ERROR, STATUS_NO_LABEL, STATUS_NO_REFERENCE, STATUS_OK, Item, LLMUsage
from ev2r.llm.client import CostEstimate, LLMClient, LLMRequest
from ev2r.llm.loop import answer_text, ask, estimate_asks
from ev2r.facts.replay import SCORE_SOURCES, content_sha256, copied_example_fact
from ev2r.llm.parse import (DEFAULT_SCORES_FROM, REFERENCE_KEYS, AnswerCutOff, ParseError, extract_json_object,
                            finish_reason, parse_reference_response,
                            response_text, verdict_distribution)
from ev2r.llm.prompts import resolve_prompt

REASK_MESSAGE = (
    "Your previous answer could not be used: {error}. Reply again with only the JSON object, with "
    "every key of the schema, whole-number counts that match the numbered facts, and precision and "
    "recall equal to support / count."
)
#: the re-ask of a reply that copied the prompt's worked example (:class:`ExampleCopied`): it names
#: the claim to judge instead of repeating the schema (the 1.5B Qwen model copied the example again
#: under the generic message, 6 of its 8 failures on the two development sets)
REASK_EXAMPLE_MESSAGE = (
    "Your previous answer repeated the worked example ({error}), which is about another claim. "
    "Judge the claim given at the end of my message instead: \"{claim}\". Split its predicted evidence "
    "and its reference evidence into facts, check each one, and reply with only the JSON object."
)
#: the re-ask of an answer cut off at ``max_tokens`` (:class:`~ev2r.llm.parse.AnswerCutOff`)
REASK_CUT_OFF_MESSAGE = (
    "Your previous answer was cut off at the length limit before the JSON object was complete. "
    "Reply again with only the JSON object, and keep every fact to one short sentence of the evidence "
    "instead of copying whole passages."
)
#: version of the re-ask messages, in the ``reask`` field of the signature (``1@typed``): a re-asked
#: item's answer depends on what the re-ask said
REASK_MESSAGES_VERSION = "typed"


class ExampleCopied(ParseError):
    """A reply that copied the prompt's worked example instead of judging the item."""
#: the JSON schema of a reference-based answer (the keys of the shipped prompt, in its order: fact
#: lists and checks as text, counts as integers, precision/recall as numbers), sent as
#: ``response_format`` when ``constrain_answers`` is on
REFERENCE_SCHEMA = {
    "type": "object",
    "properties": {k: ({"type": "integer"} if k.startswith(("facts count", "support")) else
                       {"type": "number"} if k in ("precision", "recall") else {"type": "string"})
                   for k in REFERENCE_KEYS},
    "required": list(REFERENCE_KEYS),
}
#: GBNF grammar for the proxy's one-letter verdict (llama.cpp's ``grammar`` field)
VERDICT_GRAMMAR = 'root ::= "A" | "B" | "C" | "D"'
#: the proxy's verdict order (the distribution's columns)
_VERDICT_ORDER = (Verdict.SUPPORTED, Verdict.REFUTED, Verdict.NOT_ENOUGH_EVIDENCE, Verdict.CONFLICTING)


def _make_client(llm_client: Optional[LLMClient], what: str, **kwargs) -> LLMClient:
    """``llm_client``, or a new :class:`LLMClient` from ``kwargs`` (which must name a ``model``).

    Raises:
        ValueError: neither a client nor a model name.
    """
    if llm_client is not None:
        return llm_client
    if kwargs.get("model") is None:
        raise ValueError(f"model: the LLM {what} needs a model name (--llm-model)")
    return LLMClient(**kwargs)


def _check_int(name: str, value: Any, lo: int, hi: Optional[int] = None) -> int:
    """``value`` when it is an int in ``lo..hi`` (``>= lo`` without ``hi``).

    Raises:
        ValueError: naming ``name`` and the allowed range.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < lo or (hi is not None and value > hi):
        allowed = f">= {lo}" if hi is None else f"in {lo}..{hi}"
        raise ValueError(f"{name}: must be an int {allowed}, got {value!r}")
    return value


class LLMReferenceScorer:
    """Reference-based precision/recall/F1 from an LLM over an OpenAI-compatible API.

    Implements the :class:`~ev2r.metric.reference.ReferenceScorer` protocol.

    Args:
        base_url: OpenAI-compatible endpoint (``http://127.0.0.1:8000/v1``); None for OpenAI.
        model: model name (required); part of the signature and of every cache key.
        cache_dir: answer cache folder (None: the default, see
            :func:`ev2r.llm.client.default_cache_dir`; False: no cache).
        offline: serve only from the cache (and ``recorded``); refuse the network.
        api_key_env: environment variable with the API key.
        concurrency, timeout, max_retries, backoff, temperature, seed: see
            :class:`~ev2r.llm.client.LLMClient`.
        max_tokens: generation limit per answer (the answer lists every fact: 1024 is ample for
            AVeriTeC evidence; a cut-off answer is a ``parse_error``).
        max_reasks: re-asks after an unusable answer (0..3); each re-ask sends the conversation
            with the model's answer and the reason it was rejected.
        prompt: a shipped prompt name, a :class:`~ev2r.llm.prompts.Prompt`, or template text
            with ``$claim``, ``$predicted_evidence``, ``$reference_evidence``.
        recorded: JSONL of recorded answers (the ``shared/data/ev2r_replay`` schema: ``model``,
            ``id``, ``llm_response``; or rows of :meth:`score_and_record`); an item with a recording
            of its content (for ``recorded_model``; :meth:`ev2r.facts.replay.ReplayReferenceScorer.recording_for`)
            is served from it without a call, read as ``scores_from`` says; any other item is asked.
        recorded_model: which recorded model to use when the file holds several.
        llm_client: a ready :class:`~ev2r.llm.client.LLMClient` (shared with the proxy scorer).
        scores_from: how a reply is read (:func:`ev2r.llm.parse.parse_reference_answer`):
            ``checks`` (default; the per-fact checks, else the stated counts), ``counts`` (the
            stated counts, else the checks) or ``strict`` (all must agree); the ``read`` field of
            the signature. Both readings go into the item's extra scores (``precision_from_checks``,
            ``precision_from_counts``, ... and ``reading_disagreements``).
        constrain_answers: send :data:`REFERENCE_SCHEMA` as ``response_format`` (``{"type":
            "json_object", "schema": ...}``, which llama.cpp servers turn into a grammar and OpenAI
            reads as JSON mode), so that the answer is a JSON object with every key; ``constrain:json``
            in the signature.

    Raises:
        ValueError: missing ``model``, an argument out of range, an unknown prompt name or
            ``scores_from``.
    """

    def __init__(self, base_url: Optional[str] = None, model: Optional[str] = None, cache_dir: Any = None,
                 offline: bool = False, api_key_env: str = "OPENAI_API_KEY",
                 concurrency: int = LLM_DEFAULTS.concurrency,
                 timeout: float = LLM_DEFAULTS.timeout, max_retries: int = LLM_DEFAULTS.max_retries,
                 backoff: float = LLM_DEFAULTS.backoff, temperature: float = 0.0,
                 seed: Optional[int] = 0, max_tokens: int = 1024, max_reasks: int = 1, prompt: Any = None,
                 recorded: Optional[str | Path] = None, recorded_model: Optional[str] = None,
                 llm_client: Optional[LLMClient] = None, scores_from: str = DEFAULT_SCORES_FROM,
                 constrain_answers: bool = False):
        if not isinstance(constrain_answers, bool):
            raise ValueError(f"constrain_answers: expected True or False, got {constrain_answers!r}")
        self.constrain_answers = constrain_answers
        if scores_from not in SCORE_SOURCES:
            raise ValueError(f"scores_from: {scores_from!r} is not one of {SCORE_SOURCES}")
        self.scores_from = scores_from
        self.max_tokens = _check_int("max_tokens", max_tokens, 1)
        self.max_reasks = _check_int("max_reasks", max_reasks, 0, 3)
        self.client = _make_client(llm_client, "decomposer", model=model, base_url=base_url, api_key_env=api_key_env,
                                   cache_dir=cache_dir, offline=offline, concurrency=concurrency, timeout=timeout,
                                   max_retries=max_retries, backoff=backoff, temperature=temperature, seed=seed)
        self.prompt = resolve_prompt(prompt, "reference_prf")
        self.recorded = None
        if recorded is not None:
            from ev2r.facts.replay import ReplayReferenceScorer

            from ev2r.llm.prompts import example_facts_of

            self.recorded = ReplayReferenceScorer(recorded, model=recorded_model, scores_from=scores_from,
                                                  example_facts=example_facts_of)
        self.name = f"llm:{self.client.model}"

    # -- protocol -------------------------------------------------------------------------------
    def signature_fields(self) -> dict[str, str]:
        """ref, decomp, support, prompt id (name@sha256[:12]), model, decoding, max_tokens, reasks."""
        fields = {"ref": "llm", "decomp": f"llm-{self.client.model}", "support": "llm",
                  "prompt": self.prompt.id}
        fields.update(self.client.signature_fields())
        fields["maxtok"] = str(self.max_tokens)
        fields["reask"] = f"{self.max_reasks}@{REASK_MESSAGES_VERSION}" if self.max_reasks else "0"
        fields["read"] = {"checks": "checks>counts", "counts": "counts>checks"}.get(self.scores_from, self.scores_from)
        if self.constrain_answers:
            fields["constrain"] = "json"
        if self.recorded is not None:
            fields["recorded"] = f"{self.recorded.path.name}:{self.recorded.model}"
        return fields

    def request_for(self, item: Item) -> LLMRequest:
        """The first-round request for an item."""
        # content-free pairs ("...", emoji) are no evidence: the LLM is never shown them to count as facts
        text = self.prompt.render(claim=item.claim, predicted_evidence=item.predicted_evidence.with_content().render(),
                                  reference_evidence=item.reference_evidence.with_content().render())
        params: dict = {"max_tokens": self.max_tokens}
        if self.constrain_answers:
            params["response_format"] = {"type": "json_object", "schema": REFERENCE_SCHEMA}
        return LLMRequest([{"role": "user", "content": text}], params)

    def _needs_call(self, item: Item) -> Optional[ReferenceResult]:
        """A result decided without the LLM, or None when the LLM must be asked."""
        if not item.reference_evidence.with_content().pairs:
            return ReferenceResult(status=STATUS_NO_REFERENCE, error="reference_evidence is empty (or states nothing: "
                                                                      "no answer holds a letter or digit)")
        if not item.predicted_evidence.with_content().pairs:
            return ReferenceResult(precision=0.0, recall=0.0, f1=0.0)
        if self.recorded is not None and self.recorded.recording_for(item)[0] is not None:
            return self.recorded.score_reference([item])[0]  # a recording of this very content; else ask
        return None

    def _plan(self, items: Sequence[Item]):
        """``(decided, pending, requests)``: results decided without a call by position, the
        positions to ask and their first-round requests."""
        decided: dict[int, ReferenceResult] = {}
        pending: list[int] = []
        requests: list[LLMRequest] = []
        for i, item in enumerate(items):
            try:
                res = self._needs_call(item)
                if res is None:
                    requests.append(self.request_for(item))
                    pending.append(i)
                else:
                    decided[i] = res
            except Exception as e:  # e.g. a custom prompt with a missing field: this item only
                decided[i] = ReferenceResult(status=STATUS_ERROR, error=f"{type(e).__name__}: {e}")
        return decided, pending, requests

    def _parse(self, index: int, response: dict) -> ReferenceResult:
        return parse_reference_response(response, self.scores_from)

    def _parse_for(self, item: Item, response: dict) -> ReferenceResult:
        """:meth:`_parse`, refusing a reply that copies the prompt's worked example: a fact of the
        example's answer that the item's claim and evidence do not contain (small models echo it)."""
        res = self._parse(0, response)
        copied = copied_example_fact(res, item, self.prompt.example_facts())
        if copied is not None:
            raise ExampleCopied(f"the reply copies the prompt's example instead of judging this item ({copied!r})")
        return res

    def _reask_for(self, item: Item, error: BaseException) -> str:
        """The re-ask of ``item`` after ``error``: :data:`REASK_EXAMPLE_MESSAGE` for a copied example,
        :data:`REASK_CUT_OFF_MESSAGE` for a cut-off answer, else :data:`REASK_MESSAGE`."""
        if isinstance(error, ExampleCopied):
            return REASK_EXAMPLE_MESSAGE.format(error=error, claim=item.claim)
        if isinstance(error, AnswerCutOff):
            return REASK_CUT_OFF_MESSAGE
        return REASK_MESSAGE.format(error=error)

    def score_reference(self, items: Sequence[Item]) -> list[ReferenceResult]:
        """One :class:`~ev2r.metric.reference.ReferenceResult` per item, in order; never raises for the
        batch (see the module docstring for the statuses). Each result's ``llm`` is what the item
        cost (:class:`~ev2r.types.LLMUsage`; zero for an item decided without a call)."""
        return self.score_and_record(items)[0]

    def score_and_record(self, items: Sequence[Item]) -> tuple[list[ReferenceResult], list[Optional[dict]]]:
        """:meth:`score_reference`, and what a replay file records of each asked item.

        Returns:
            ``(results, records)``: ``records[i]`` is None for an item decided without a call (or
            whose request failed without an answer), else a row of the replay schema
            (``shared/data/ev2r_replay``; :class:`ev2r.facts.replay.ReplayReferenceScorer`): ``model``,
            ``id``, ``claim``, ``content_sha256`` (:func:`ev2r.facts.replay.content_sha256`: a replay joins
            only the content that was judged), ``prompt`` (its id: a replay refuses a reply that copies
            that prompt's worked example, as the live run did), ``llm_response``, the JSON
            object of the last answer (after re-asks), or its text when it holds no object (a
            replay reads it as the live run did: by its keys when only unescaped quotes spoil the
            JSON, else unreadable), and ``finish_reason`` (a text cut off at the length limit,
            ``length``, is never read).
        """
        decided, pending, requests = self._plan(items)
        results = {i: dataclasses.replace(r, llm=LLMUsage()) for i, r in decided.items()}
        records: list[Optional[dict]] = [None] * len(items)
        asked = [items[i] for i in pending]
        answers = ask(self.client, requests, lambda k, response: self._parse_for(asked[k], response),
                      max_reasks=self.max_reasks, reask_message=lambda k, e: self._reask_for(asked[k], e))
        for i, a in zip(pending, answers):
            results[i] = (dataclasses.replace(a.value, llm=a.usage) if a.ok else
                          ReferenceResult(status=a.status, error=a.error_with_attempt(), llm=a.usage))
            response = a.outcome.response if a.outcome is not None else None
            if response is None:
                continue
            try:
                reply: Any = extract_json_object(response_text(response))
            except ParseError:
                reply = answer_text(response)
            item = items[i]
            records[i] = {"model": self.client.model, "id": item.id, "claim": item.claim,
                          "content_sha256": content_sha256(item), "prompt": self.prompt.id, "llm_response": reply,
                          "finish_reason": finish_reason(response)}
        return [results[i] for i in range(len(items))], records

    def estimate(self, items: Sequence[Item], price_in_per_mtok: Optional[float] = None,
                 price_out_per_mtok: Optional[float] = None) -> CostEstimate:
        """Dry run of :meth:`score_reference` (sends nothing): the requests these items need, those
        answered by the cache, the upper bound of the re-asks, and ``not_counted`` items (with the
        reason) whose request cannot be built (:func:`ev2r.llm.loop.estimate_asks`)."""
        decided, pending, requests = self._plan(items)
        asked = [items[i] for i in pending]
        not_counted = collections.Counter(f"request cannot be built ({r.error})"[:200] for r in decided.values()
                                          if r.status == STATUS_ERROR)
        return estimate_asks(self.client, requests, lambda k, response: self._parse_for(asked[k], response),
                             max_reasks=self.max_reasks, reask_message=lambda k, e: self._reask_for(asked[k], e),
                             not_counted=not_counted, price_in_per_mtok=price_in_per_mtok,
                             price_out_per_mtok=price_out_per_mtok,
                             reask_errors=(ParseError, ExampleCopied, AnswerCutOff))


class LLMProxyScorer:
    """Proxy-reference score P(verdict | claim, predicted evidence) from an LLM's logprobs.

    The model answers one letter (A supported, B refuted, C not enough evidence, D conflicting);
    the letter token's ``top_logprobs`` give P over the four verdicts
    (:func:`ev2r.llm.parse.verdict_distribution`); the score is P(gold verdict) in [0, 1] (signature
    ``proxy:llm-gold``; the annotators' verdict, ``target="human"``, is computed by commit e43eb97).
    Needs a server that returns ``logprobs``/``top_logprobs`` (OpenAI, vLLM, llama.cpp).

    Args:
        model, base_url, cache_dir, offline, ...: as :class:`LLMReferenceScorer`.
        max_tokens: generation limit (1..16; the letter should come first).
        top_logprobs: alternatives per position (5..20).
        constrain_answers: send :data:`VERDICT_GRAMMAR` (``extra_body``; llama.cpp servers) so the
            answer is one of the four letters; ``proxy_constrain:letter`` in the signature.

    ``score_proxy(items)`` returns one :class:`~ev2r.metric.proxy.ProxyResult` per item whose
    ``distribution`` is (P(supported), P(refuted), P(not enough evidence), P(conflicting)).
    Predicted evidence with no text is not sent: it is "not enough evidence" with probability 1.
    """

    #: Whose verdict the proxy scores (the signature's ``proxy:llm-gold``).
    target = "gold"

    def __init__(self, base_url: Optional[str] = None, model: Optional[str] = None, cache_dir: Any = None,
                 offline: bool = False, api_key_env: str = "OPENAI_API_KEY",
                 concurrency: int = LLM_DEFAULTS.concurrency,
                 timeout: float = 60.0, max_retries: int = LLM_DEFAULTS.max_retries,
                 backoff: float = LLM_DEFAULTS.backoff, seed: Optional[int] = 0,
                 max_tokens: int = 4, top_logprobs: int = 20, prompt: Any = None,
                 llm_client: Optional[LLMClient] = None, constrain_answers: bool = False):
        if not isinstance(constrain_answers, bool):
            raise ValueError(f"constrain_answers: expected True or False, got {constrain_answers!r}")
        self.constrain_answers = constrain_answers
        self.max_tokens = _check_int("max_tokens", max_tokens, 1, 16)
        self.top_logprobs = _check_int("top_logprobs", top_logprobs, 5, 20)
        self.client = _make_client(llm_client, "proxy", model=model, base_url=base_url, api_key_env=api_key_env,
                                   cache_dir=cache_dir, offline=offline, concurrency=concurrency, timeout=timeout,
                                   max_retries=max_retries, backoff=backoff, seed=seed)
        self.prompt = resolve_prompt(prompt, "proxy_verdict")

    def signature_fields(self) -> dict[str, str]:
        fields = {"proxy": f"llm-{self.target}", "proxy_prompt": self.prompt.id, "proxy_llm": self.client.model}
        if self.constrain_answers:
            fields["proxy_constrain"] = "letter"
        return fields

    def request_for(self, item: Item) -> LLMRequest:
        text = self.prompt.render(claim=item.claim, evidence=item.predicted_evidence.with_content().render())
        params: dict = {"max_tokens": self.max_tokens, "logprobs": True, "top_logprobs": self.top_logprobs}
        if self.constrain_answers:
            params["extra_body"] = {"grammar": VERDICT_GRAMMAR}
        return LLMRequest([{"role": "user", "content": text}], params)

    def score_proxy(self, items: Sequence[Item]) -> list[ProxyResult]:
        """One result per item, in order; never raises for the batch. Each result's ``llm`` is what
        the item cost (zero for an item decided without a call)."""
        results: list[Optional[ProxyResult]] = [None] * len(items)
        todo: list[tuple[int, Verdict]] = []
        for i, item in enumerate(items):
            target = item.gold_label
            if target is None:
                results[i] = ProxyResult(None, None, STATUS_NO_LABEL, "the verdict to score is missing", llm=LLMUsage())
                continue
            if item.predicted_evidence.is_empty:
                results[i] = ProxyResult(1.0 if target == Verdict.NOT_ENOUGH_EVIDENCE else 0.0,
                                         (0.0, 0.0, 1.0, 0.0), llm=LLMUsage())
                continue
            todo.append((i, target))
        answers = ask(self.client, [self.request_for(items[i]) for i, _ in todo],
                      lambda i, response: verdict_distribution(response))
        for (i, target), a in zip(todo, answers):
            if not a.ok:
                results[i] = ProxyResult(None, None, a.status, a.error, llm=a.usage)
                continue
            dist = a.value
            results[i] = ProxyResult(float(dist[target]), tuple(round(dist[v], 6) for v in _VERDICT_ORDER), STATUS_OK,
                                     llm=a.usage)
        return results  # type: ignore[return-value]
