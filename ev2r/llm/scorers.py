"""LLM backends of the metric: reference-based P/R/F1 and the proxy-reference score.

:class:`LLMReferenceScorer` (Akhtar et al. 2024, sec. 3.1): **one call per item**, the
``reference_prf`` prompt asks the model to decompose both the predicted and the reference
evidence into atomic facts and to check each fact against the other side (both directions in
one answer, as the paper's reference-based prompt does). The answer is validated by
:func:`ev2r.llm.parse.parse_reference_answer` and scored

    precision = support predicted evidence / facts count predicted evidence
    recall    = support reference evidence / facts count reference evidence

exactly as a recorded answer is replayed (:mod:`ev2r.facts.replay`).

:class:`LLMProxyScorer` (sec. 3.2): the ``proxy_verdict`` prompt asks for the verdict as one
letter; P(gold verdict) is read from that token's log-probabilities.

Per-item statuses (never raised for the batch, never NaN, never 0 in place of a score):

=================  ==========================================================================
``ok``             scored
``parse_error``    the answer (after ``max_reasks`` re-asks) is not valid JSON of the schema
``api_error``      the server refused or failed (after retries), or could not be reached
``timeout``        every attempt ran past ``timeout``
``replay_missing`` offline mode and no cached (or recorded) answer
``replay_inconsistent`` a recorded answer (``recorded=``) fails the schema checks
``no_reference``   the reference evidence is empty (nothing to compare against; no call)
=================  ==========================================================================

Empty predicted evidence is scored without a call: precision = recall = F1 = 0 (a system that
retrieved nothing is credited with nothing, as in :mod:`ev2r.metric.reference`).
"""

from __future__ import annotations

import collections
from pathlib import Path
from typing import Any, Optional, Sequence

from ev2r.labels import Verdict, normalize_verdict
from ev2r.metric.proxy import ProxyResult
from ev2r.metric.reference import ReferenceResult
from ev2r.types import Item, STATUS_OK
from ev2r.llm.client import CostEstimate, LLMClient, LLMOutcome, LLMRequest
from ev2r.llm.parse import ParseError, parse_reference_response, verdict_distribution
from ev2r.llm.prompts import Prompt, load_prompt, prompt_from_text

STATUS_PARSE_ERROR = "parse_error"

REASK_MESSAGE = (
    "Your previous answer could not be used: {error}. Reply again with only the JSON object, with "
    "every key of the schema, whole-number counts that match the numbered facts, and precision and "
    "recall equal to support / count."
)


def _resolve_prompt(prompt: Any, default: str) -> Prompt:
    if prompt is None:
        return load_prompt(default)
    if isinstance(prompt, Prompt):
        return prompt
    if isinstance(prompt, str) and "$" not in prompt:
        return load_prompt(prompt)
    return prompt_from_text(prompt)


def _make_client(llm_client: Optional[LLMClient], **kwargs) -> LLMClient:
    if llm_client is not None:
        return llm_client
    return LLMClient(**kwargs)


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
            ``id``, ``llm_response``); items whose id is recorded (for ``recorded_model``) are
            served from it without a call.
        recorded_model: which recorded model to use when the file holds several.
        llm_client: a ready :class:`~ev2r.llm.client.LLMClient` (shared with the proxy scorer).

    Raises:
        ValueError: missing ``model``, an argument out of range, an unknown prompt name.
    """

    def __init__(self, base_url: Optional[str] = None, model: Optional[str] = None, cache_dir: Any = None,
                 offline: bool = False, api_key_env: str = "OPENAI_API_KEY", concurrency: int = 4,
                 timeout: float = 120.0, max_retries: int = 3, backoff: float = 1.0, temperature: float = 0.0,
                 seed: Optional[int] = 0, max_tokens: int = 1024, max_reasks: int = 1, prompt: Any = None,
                 recorded: Optional[str | Path] = None, recorded_model: Optional[str] = None,
                 llm_client: Optional[LLMClient] = None):
        if not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError(f"max_tokens: must be an int >= 1, got {max_tokens!r}")
        if not isinstance(max_reasks, int) or not 0 <= max_reasks <= 3:
            raise ValueError(f"max_reasks: must be an int in 0..3, got {max_reasks!r}")
        if llm_client is None and model is None:
            raise ValueError("model: the LLM decomposer needs a model name (--llm-model)")
        self.client = _make_client(llm_client, model=model, base_url=base_url, api_key_env=api_key_env,
                                   cache_dir=cache_dir, offline=offline, concurrency=concurrency,
                                   timeout=timeout, max_retries=max_retries, backoff=backoff,
                                   temperature=temperature, seed=seed)
        self.prompt = _resolve_prompt(prompt, "reference_prf")
        self.max_tokens = max_tokens
        self.max_reasks = max_reasks
        self.recorded = None
        if recorded is not None:
            from ev2r.facts.replay import ReplayReferenceScorer

            self.recorded = ReplayReferenceScorer(recorded, model=recorded_model)
        self.name = f"llm:{self.client.model}"
        self.last_run: dict = {}

    # -- protocol -------------------------------------------------------------------------------
    def signature_fields(self) -> dict[str, str]:
        """ref, decomp, support, prompt id (name@sha256[:12]), model, decoding, max_tokens, reasks."""
        fields = {"ref": "llm", "decomp": f"llm-{self.client.model}", "support": "llm",
                  "prompt": self.prompt.id}
        fields.update(self.client.signature_fields())
        fields["maxtok"] = str(self.max_tokens)
        fields["reask"] = str(self.max_reasks)
        if self.recorded is not None:
            fields["recorded"] = f"{self.recorded.path.name}:{self.recorded.model}"
        return fields

    def request_for(self, item: Item) -> LLMRequest:
        """The first-round request for an item."""
        text = self.prompt.render(claim=item.claim, predicted_evidence=item.predicted_evidence.render(),
                                  reference_evidence=item.reference_evidence.render())
        return LLMRequest([{"role": "user", "content": text}], {"max_tokens": self.max_tokens})

    def _needs_call(self, item: Item) -> Optional[ReferenceResult]:
        """A result decided without the LLM, or None when the LLM must be asked."""
        if item.reference_evidence.is_empty:
            return ReferenceResult(status="no_reference", error="reference_evidence is empty")
        if item.predicted_evidence.is_empty:
            return ReferenceResult(precision=0.0, recall=0.0, f1=0.0)
        if self.recorded is not None and str(item.id) in self.recorded.records:
            return self.recorded.score_reference([item])[0]
        return None

    def score_reference(self, items: Sequence[Item]) -> list[ReferenceResult]:
        """One :class:`~ev2r.metric.reference.ReferenceResult` per item, in order; never raises for the
        batch (see the module docstring for the statuses)."""
        results: list[Optional[ReferenceResult]] = [None] * len(items)
        pending: dict[int, LLMRequest] = {}
        for i, item in enumerate(items):
            try:
                decided = self._needs_call(item)
                if decided is not None:
                    results[i] = decided
                else:
                    pending[i] = self.request_for(item)
            except Exception as e:  # e.g. a custom prompt with a missing field: this item only
                results[i] = ReferenceResult(status="error", error=f"{type(e).__name__}: {e}")
        before = dict(self.client.stats)
        n_reasks = 0
        for round_ in range(self.max_reasks + 1):
            if not pending:
                break
            order = sorted(pending)
            outcomes = self.client.complete_many([pending[i] for i in order])
            next_pending: dict[int, LLMRequest] = {}
            for i, out in zip(order, outcomes):
                res, reask = self._interpret(pending[i], out, round_)
                results[i] = res
                if reask is not None:
                    next_pending[i] = reask
            n_reasks += len(next_pending)
            pending = next_pending
        final = [r if r is not None else ReferenceResult(status="error", error="not scored") for r in results]
        self.last_run = {k: self.client.stats[k] - before.get(k, 0) for k in self.client.stats}
        self.last_run["reasks"] = n_reasks
        self.last_run["statuses"] = dict(collections.Counter(r.status for r in final))
        return final

    def _interpret(self, request: LLMRequest, out: LLMOutcome, round_: int):
        if not out.ok:
            return ReferenceResult(status=out.status, error=out.error), None
        try:
            res = parse_reference_response(out.response)
            return res, None
        except ParseError as e:
            res = ReferenceResult(status=STATUS_PARSE_ERROR, error=f"{e} (attempt {round_ + 1})")
            if round_ >= self.max_reasks:
                return res, None
            answer = ""
            try:
                answer = out.response["choices"][0]["message"]["content"] or ""
            except (KeyError, IndexError, TypeError):
                pass
            messages = list(request.messages) + [{"role": "assistant", "content": answer},
                                                 {"role": "user", "content": REASK_MESSAGE.format(error=e)}]
            return res, LLMRequest(messages, dict(request.params))

    def estimate(self, items: Sequence[Item], price_in_per_mtok: Optional[float] = None,
                 price_out_per_mtok: Optional[float] = None) -> CostEstimate:
        """Dry run: the first-round requests these items need, minus those already cached."""
        reqs = []
        for item in items:
            try:
                if self._needs_call(item) is None:
                    reqs.append(self.request_for(item))
            except Exception:
                continue
        return self.client.estimate(reqs, price_in_per_mtok, price_out_per_mtok)


class LLMProxyScorer:
    """Proxy-reference score P(verdict | claim, predicted evidence) from an LLM's logprobs.

    The model answers one letter (A supported, B refuted, C not enough evidence, D conflicting);
    the letter token's ``top_logprobs`` give P over the four verdicts
    (:func:`ev2r.llm.parse.verdict_distribution`); the score is P(target verdict) in [0, 1].
    Needs a server that returns ``logprobs``/``top_logprobs`` (OpenAI, vLLM, llama.cpp).

    Args:
        model, base_url, cache_dir, offline, ...: as :class:`LLMReferenceScorer`.
        target: ``"gold"`` (item.gold_label) or ``"human"`` (``item.extra["human_label"]``).
        max_tokens: generation limit (1..16; the letter should come first).
        top_logprobs: alternatives per position (5..20).

    ``score_proxy(items)`` returns one :class:`~ev2r.metric.proxy.ProxyResult` per item whose
    ``distribution`` is (P(supported), P(refuted), P(not enough evidence), P(conflicting)).
    Predicted evidence with no text is not sent: it is "not enough evidence" with probability 1.
    """

    def __init__(self, base_url: Optional[str] = None, model: Optional[str] = None, cache_dir: Any = None,
                 offline: bool = False, api_key_env: str = "OPENAI_API_KEY", concurrency: int = 4,
                 timeout: float = 60.0, max_retries: int = 3, backoff: float = 1.0, seed: Optional[int] = 0,
                 target: str = "gold", max_tokens: int = 4, top_logprobs: int = 20, prompt: Any = None,
                 llm_client: Optional[LLMClient] = None):
        if target not in ("gold", "human"):
            raise ValueError(f"target: {target!r} is not one of ('gold', 'human')")
        if not isinstance(max_tokens, int) or not 1 <= max_tokens <= 16:
            raise ValueError(f"max_tokens: must be an int in 1..16, got {max_tokens!r}")
        if not isinstance(top_logprobs, int) or not 5 <= top_logprobs <= 20:
            raise ValueError(f"top_logprobs: must be an int in 5..20, got {top_logprobs!r}")
        if llm_client is None and model is None:
            raise ValueError("model: the LLM proxy needs a model name (--llm-model)")
        self.client = _make_client(llm_client, model=model, base_url=base_url, api_key_env=api_key_env,
                                   cache_dir=cache_dir, offline=offline, concurrency=concurrency,
                                   timeout=timeout, max_retries=max_retries, backoff=backoff, seed=seed)
        self.prompt = _resolve_prompt(prompt, "proxy_verdict")
        self.target = target
        self.max_tokens = max_tokens
        self.top_logprobs = top_logprobs

    def signature_fields(self) -> dict[str, str]:
        return {"proxy": f"llm-{self.target}", "proxy_prompt": self.prompt.id,
                "proxy_llm": self.client.model}

    def request_for(self, item: Item) -> LLMRequest:
        text = self.prompt.render(claim=item.claim, evidence=item.predicted_evidence.render())
        return LLMRequest([{"role": "user", "content": text}],
                          {"max_tokens": self.max_tokens, "logprobs": True, "top_logprobs": self.top_logprobs})

    def _target(self, item: Item) -> Optional[Verdict]:
        if self.target == "gold":
            return item.gold_label
        raw = item.extra.get("human_label")
        return None if raw is None else normalize_verdict(raw, field="human_label")

    def score_proxy(self, items: Sequence[Item]) -> list[ProxyResult]:
        """One result per item, in order; never raises for the batch."""
        results: list[Optional[ProxyResult]] = [None] * len(items)
        todo: list[tuple[int, Verdict]] = []
        for i, item in enumerate(items):
            try:
                target = self._target(item)
            except ValueError as e:
                results[i] = ProxyResult(None, None, "error", str(e))
                continue
            if target is None:
                results[i] = ProxyResult(None, None, "no_label", "the verdict to score is missing")
                continue
            if item.predicted_evidence.is_empty:
                results[i] = ProxyResult(1.0 if target == Verdict.NOT_ENOUGH_EVIDENCE else 0.0,
                                         (0.0, 0.0, 1.0, 0.0))
                continue
            todo.append((i, target))
        outcomes = self.client.complete_many([self.request_for(items[i]) for i, _ in todo])
        for (i, target), out in zip(todo, outcomes):
            if not out.ok:
                results[i] = ProxyResult(None, None, out.status, out.error)
                continue
            try:
                dist = verdict_distribution(out.response)
            except ParseError as e:
                results[i] = ProxyResult(None, None, STATUS_PARSE_ERROR, str(e))
                continue
            order = (Verdict.SUPPORTED, Verdict.REFUTED, Verdict.NOT_ENOUGH_EVIDENCE, Verdict.CONFLICTING)
            results[i] = ProxyResult(float(dist[target]), tuple(round(dist[v], 6) for v in order), STATUS_OK)
        return results  # type: ignore[return-value]
