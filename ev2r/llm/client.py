"""One client for OpenAI-compatible chat-completion servers (OpenAI, vLLM, llama.cpp, Ollama).

:class:`LLMClient` wraps the ``openai`` package and adds what scoring needs:

* **cache first** (:class:`~ev2r.llm.cache.ResponseCache`): an answered request is never sent again; each answer is
  stored as it arrives, so a killed run resumes;
* **offline replay** (``offline=True``): answers only from the cache, no HTTP client built; a miss is
  ``replay_missing``;
* **bounded concurrency** (``concurrency`` workers), **timeouts and retries** (429, 5xx, 408, connection failures
  and timeouts retried up to ``max_retries`` times with jittered exponential backoff capped at ``max_backoff``,
  ``Retry-After`` honoured; other errors fail at once);
* **deterministic decoding**: ``temperature`` (0) and ``seed`` (0; None leaves it out) sent and part of the key;
* **accounting**: each :class:`LLMOutcome` carries its :class:`ev2r.types.LLMUsage`; :attr:`LLMClient.stats` sums
  them; :meth:`LLMClient.estimate` is a dry run.

A request never raises out of :meth:`LLMClient.complete_many`: a failure is its outcome's status. The API key is read
from ``api_key_env`` (``OPENAI_API_KEY``; ``"EMPTY"`` for a ``base_url`` without a key) and never written to the
cache or to results.
"""

from __future__ import annotations

import math
import os
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

from ev2r.config import LLM_DEFAULTS
from ev2r.llm.cache import ResponseCache, request_key
from ev2r.types import STATUS_API_ERROR, STATUS_OK, STATUS_REPLAY_MISSING, STATUS_TIMEOUT, LLMUsage

ENDPOINT_CHAT = "chat"
CHARS_PER_TOKEN = 4.0  # dry-run heuristic for English text (OpenAI's rule of thumb)
TOKENS_PER_MESSAGE = 4  # chat-format overhead per message (role markers)


def default_cache_dir() -> Path:
    """``$EV2R_LLM_CACHE``, else ``$XDG_CACHE_HOME/ev2r/llm``, else ``~/.cache/ev2r/llm``."""
    env = os.environ.get("EV2R_LLM_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ev2r" / "llm"


@dataclass
class LLMRequest:
    """One chat-completion request.

    Attributes:
        messages: the chat messages (``[{"role": "user", "content": ...}, ...]``), verbatim.
        params: per-request decoding parameters (``max_tokens``, ``logprobs``, ``top_logprobs``,
            ...); the client adds ``temperature`` and ``seed``.
    """

    messages: list
    params: dict = field(default_factory=dict)


@dataclass
class LLMOutcome:
    """The result of one request: ``status`` ``ok`` with the server's ``response`` (a dict), or a
    failure status (``api_error``, ``timeout``, ``replay_missing``; :data:`ev2r.types.CALL_STATUSES`)
    with ``error``. ``usage`` is what this request cost (:class:`ev2r.types.LLMUsage`: one request,
    its attempts, retries, tokens, a cache hit)."""

    status: str
    response: Optional[dict] = None
    error: Optional[str] = None
    from_cache: bool = False
    attempts: int = 0
    key: str = ""
    usage: LLMUsage = field(default_factory=LLMUsage)

    @property
    def ok(self) -> bool:
        return self.status == STATUS_OK


#: ``not_counted_reasons`` key of the requests an offline run cannot answer from the cache.
OFFLINE_MISSING = "offline: not in the cache (the run records them replay_missing)"


@dataclass
class CostEstimate:
    """What a run would send (from :meth:`LLMClient.estimate` or :func:`ev2r.llm.loop.estimate_asks`;
    nothing is sent).

    First round: ``n_requests`` requests, ``n_cached`` of them already answered in the cache,
    ``n_to_send`` not; ``prompt_tokens`` is estimated from characters (``CHARS_PER_TOKEN``, plus a
    per-message overhead) for the requests to send; ``max_completion_tokens`` is ``sum(max_tokens)``.

    Re-asks (``max_reasks`` > 0): a cached answer is parsed, so a cached unusable answer whose
    re-ask is cached too costs nothing; otherwise every request still to send may be re-asked up to
    ``max_reasks`` times: ``reask_requests_max`` such requests at most, with the upper bounds
    ``reask_prompt_tokens_max`` (each re-ask resends the conversation, the answer at ``max_tokens``
    and the reason) and ``reask_completion_tokens_max``.

    Not counted: ``not_counted`` items or requests the estimate could not build or price, with
    ``not_counted_reasons`` (reason -> count); the numbers above leave them out, so the estimate is
    a lower bound when ``not_counted`` > 0.

    ``cost_first_round`` and ``cost`` (the upper bound with every re-ask) use the prices per
    million tokens given (None without prices).
    """

    n_requests: int
    n_cached: int
    n_to_send: int
    prompt_tokens: int
    max_completion_tokens: int
    price_in_per_mtok: Optional[float] = None
    price_out_per_mtok: Optional[float] = None
    max_reasks: int = 0
    reask_requests_max: int = 0
    reask_prompt_tokens_max: int = 0
    reask_completion_tokens_max: int = 0
    not_counted: int = 0
    not_counted_reasons: dict = field(default_factory=dict)

    def _price(self, prompt: int, completion: int) -> Optional[float]:
        if self.price_in_per_mtok is None or self.price_out_per_mtok is None:
            return None
        return (prompt * self.price_in_per_mtok + completion * self.price_out_per_mtok) / 1e6

    @property
    def cost_first_round(self) -> Optional[float]:
        """Cost of the first-round requests to send (no re-ask)."""
        return self._price(self.prompt_tokens, self.max_completion_tokens)

    @property
    def cost(self) -> Optional[float]:
        """Upper bound of the cost: the first round and every possible re-ask."""
        return self._price(self.prompt_tokens + self.reask_prompt_tokens_max,
                           self.max_completion_tokens + self.reask_completion_tokens_max)

    def to_dict(self) -> dict:
        return {"n_requests": self.n_requests, "n_cached": self.n_cached, "n_to_send": self.n_to_send,
                "prompt_tokens_est": self.prompt_tokens, "max_completion_tokens": self.max_completion_tokens,
                "max_reasks": self.max_reasks, "reask_requests_max": self.reask_requests_max,
                "reask_prompt_tokens_max": self.reask_prompt_tokens_max,
                "reask_completion_tokens_max": self.reask_completion_tokens_max,
                "not_counted": self.not_counted, "not_counted_reasons": dict(self.not_counted_reasons),
                "price_in_per_mtok": self.price_in_per_mtok, "price_out_per_mtok": self.price_out_per_mtok,
                "cost_first_round": self.cost_first_round, "cost_upper_bound": self.cost}


def _reported_tokens(response: dict) -> tuple[int, int]:
    """(prompt tokens, completion tokens) as the server reported them in ``usage`` (0 when absent)."""
    usage = response.get("usage") or {}
    return int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)


def estimate_tokens(messages: Sequence[dict]) -> int:
    """Rough prompt-token count: ``ceil(chars / 4) + 4`` per message (no tokenizer download)."""
    return sum(math.ceil(len(str(m.get("content", ""))) / CHARS_PER_TOKEN) + TOKENS_PER_MESSAGE for m in messages)


class LLMClient:
    """Cached, retrying, bounded-concurrency client of an OpenAI-compatible chat endpoint.

    Args:
        model: the model name the server expects (also part of every cache key).
        base_url: endpoint such as ``http://127.0.0.1:8000/v1``; None for the OpenAI API.
        api_key_env: environment variable holding the key.
        cache_dir: cache folder; None -> :func:`default_cache_dir`; ``False`` -> no cache.
        offline: serve only from the cache; never touch the network.
        concurrency: parallel requests (>= 1).
        timeout: seconds per attempt (> 0).
        max_retries: retries after the first attempt for retryable failures (>= 0).
        backoff: first backoff in seconds (doubles per retry); max_backoff caps it.
        temperature: sampling temperature (0 = greedy).
        seed: sampling seed sent to servers that support it; None to omit.
        client: a ready ``openai.OpenAI``-like object (custom transport); overrides base_url/key.
        limiter: None, or a callable returning a context manager that is held around every
            attempt sent to the server (cache hits never take it), e.g. a permit of a cluster-wide
            semaphore (:class:`ev2r.engines.ray_engine.RayRequestLimiter`); settable as ``.limiter``.

    Raises:
        ValueError: an argument out of range; no key for the OpenAI API (only when a request
            actually has to be sent).
    """

    def __init__(self, model: str, base_url: Optional[str] = None, api_key_env: str = "OPENAI_API_KEY",
                 cache_dir: Any = None, offline: bool = False, concurrency: int = LLM_DEFAULTS.concurrency,
                 timeout: float = LLM_DEFAULTS.timeout, max_retries: int = LLM_DEFAULTS.max_retries,
                 backoff: float = LLM_DEFAULTS.backoff, max_backoff: float = 30.0,
                 temperature: float = 0.0, seed: Optional[int] = 0, client: Any = None, limiter: Any = None):
        if not isinstance(model, str) or not model:
            raise ValueError(f"model: expected a non-empty model name (--llm-model), got {model!r}")
        if not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(f"concurrency: must be an int >= 1, got {concurrency!r}")
        if not (isinstance(timeout, (int, float)) and timeout > 0):
            raise ValueError(f"timeout: must be > 0 seconds, got {timeout!r}")
        if not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries: must be an int >= 0, got {max_retries!r}")
        if backoff < 0 or max_backoff < 0:
            raise ValueError("backoff, max_backoff: must be >= 0")
        if not (0.0 <= float(temperature) <= 2.0):
            raise ValueError(f"temperature: expected a value in [0, 2], got {temperature!r}")
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.offline = bool(offline)
        self.concurrency = concurrency
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.temperature = float(temperature)
        self.seed = seed
        if cache_dir is False:
            self.cache: Optional[ResponseCache] = None
        else:
            self.cache = ResponseCache(default_cache_dir() if cache_dir is None else cache_dir)
        self._client = client
        self.limiter = limiter
        self._lock = threading.Lock()
        #: counters over the client's lifetime (:data:`ev2r.types.LLMUsage.COUNTERS`); the usage of one
        #: request is on its :class:`LLMOutcome`, so a caller sums those instead of diffing these
        self.stats = dict.fromkeys(LLMUsage.COUNTERS, 0)

    # -- request identity ---------------------------------------------------------------------
    def full_params(self, request: LLMRequest) -> dict:
        """Decoding parameters as sent: the request's plus temperature and (when set) seed."""
        params = dict(request.params)
        params["temperature"] = self.temperature
        if self.seed is not None:
            params["seed"] = self.seed
        return params

    def key(self, request: LLMRequest) -> str:
        """The request's cache key (model, full prompt, decoding parameters)."""
        return request_key(self.model, ENDPOINT_CHAT, request.messages, self.full_params(request))

    def signature_fields(self) -> dict[str, str]:
        seed = "none" if self.seed is None else str(self.seed)
        return {"llm": self.model, "decoding": f"t{self.temperature:g}-seed{seed}"}

    # -- the network ----------------------------------------------------------------------------
    def _get_client(self) -> Any:
        if self.offline:  # defensive: offline never reaches here
            raise RuntimeError("offline mode: the network is refused")
        with self._lock:
            if self._client is None:
                from openai import OpenAI  # the only network I/O of the package goes through here

                key = os.environ.get(self.api_key_env)
                if key is None:
                    if self.base_url is None:
                        raise ValueError(f"api_key_env: environment variable {self.api_key_env} is not set "
                                         "(needed for the OpenAI API; give --llm-base-url for a local server)")
                    key = "EMPTY"
                self._client = OpenAI(base_url=self.base_url, api_key=key, timeout=self.timeout, max_retries=0)
            return self._client

    @staticmethod
    def _classify(exc: BaseException) -> tuple[str, bool, Optional[float]]:
        """(status, retryable, retry-after seconds) for an exception from the openai client."""
        try:
            import openai
        except ImportError:  # pragma: no cover - a custom client without openai installed
            openai = None
        name = type(exc).__name__
        if openai is not None:
            if isinstance(exc, openai.APITimeoutError):
                return STATUS_TIMEOUT, True, None
            if isinstance(exc, openai.APIConnectionError):
                return STATUS_API_ERROR, True, None
            if isinstance(exc, openai.APIStatusError):
                code = exc.status_code
                retry_after = None
                try:
                    ra = exc.response.headers.get("retry-after")
                    retry_after = float(ra) if ra is not None else None
                except (AttributeError, TypeError, ValueError):
                    retry_after = None
                return STATUS_API_ERROR, code in (408, 409, 429) or code >= 500, retry_after
        if isinstance(exc, TimeoutError) or "Timeout" in name:
            return STATUS_TIMEOUT, True, None
        if isinstance(exc, ConnectionError):
            return STATUS_API_ERROR, True, None
        return STATUS_API_ERROR, False, None

    def _send(self, request: LLMRequest) -> dict:
        params = self.full_params(request)
        resp = self._get_client().chat.completions.create(model=self.model, messages=request.messages,
                                                           timeout=self.timeout, **params)
        if isinstance(resp, dict):
            return resp
        if hasattr(resp, "model_dump"):
            return resp.model_dump(mode="json")
        raise TypeError(f"unexpected response type {type(resp).__name__}")

    def complete(self, request: LLMRequest) -> LLMOutcome:
        """Answer one request: from the cache, or from the server with retries. Never raises.

        The outcome's ``usage`` says what it cost; :attr:`stats` adds it up over the client's life.
        """
        key = self.key(request)
        if self.cache is not None:
            cached = self.cache.get(key)
            if cached is not None:
                pt, ct = _reported_tokens(cached)
                return self._record(LLMOutcome(STATUS_OK, cached, from_cache=True, key=key, usage=LLMUsage(
                    requests=1, cache_hits=1, cached_prompt_tokens=pt, cached_completion_tokens=ct)))
        if self.offline:
            where = self.cache.directory if self.cache is not None else "(no cache)"
            return self._record(LLMOutcome(
                STATUS_REPLAY_MISSING, error=f"offline: no cached answer in {where} for key {key[:16]}", key=key,
                usage=LLMUsage(requests=1, failures=1)))
        attempts = 0
        status, error = STATUS_API_ERROR, "not attempted"
        while attempts <= self.max_retries:
            attempts += 1
            try:
                if self.limiter is not None:
                    with self.limiter():
                        response = self._send(request)
                else:
                    response = self._send(request)
            except Exception as exc:  # classified below; recorded on the outcome, never raised
                status, retryable, retry_after = self._classify(exc)
                error = f"{type(exc).__name__}: {exc}"[:500]
                if not retryable or attempts > self.max_retries:
                    break
                delay = min(self.max_backoff, self.backoff * (2 ** (attempts - 1)) * random.uniform(0.5, 1.0))
                if retry_after is not None:
                    delay = min(self.max_backoff, max(delay, retry_after))
                time.sleep(delay)
                continue
            if self.cache is not None:
                try:
                    self.cache.put(key, {"model": self.model, "messages": request.messages,
                                         "params": self.full_params(request)}, response)
                except OSError as exc:  # the answer is still used; the failure is not silent
                    import warnings

                    warnings.warn(f"ev2r.llm: could not write cache entry {key[:16]}: {exc}", stacklevel=2)
            pt, ct = _reported_tokens(response)
            return self._record(LLMOutcome(STATUS_OK, response, attempts=attempts, key=key, usage=LLMUsage(
                requests=1, calls=attempts, retries=attempts - 1, prompt_tokens=pt, completion_tokens=ct)))
        return self._record(LLMOutcome(
            status, error=f"{error} (after {attempts} attempt{'s' if attempts > 1 else ''})", attempts=attempts,
            key=key, usage=LLMUsage(requests=1, calls=attempts, retries=attempts - 1, failures=1)))

    def complete_many(self, requests: Sequence[LLMRequest]) -> list[LLMOutcome]:
        """Answer requests with at most ``concurrency`` in flight; results in input order."""
        if not requests:
            return []
        if self.concurrency == 1 or len(requests) == 1:
            return [self._safe(r) for r in requests]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(requests))) as pool:
            return list(pool.map(self._safe, requests))

    def chat(self, conversations: Sequence[Sequence[dict]], **params: Any) -> list[LLMOutcome]:
        """:meth:`complete_many` of one request per conversation (a list of chat messages), each with
        the decoding parameters ``params`` (``max_tokens``, ``logprobs``, ``top_logprobs``, ...).

        This is the chat-client protocol of :class:`claimalign.similarity.llm_judge.ChatClient`, so
        claimalign's LLM judge asks through this cached, retrying client.
        """
        return self.complete_many([LLMRequest([dict(m) for m in conv], dict(params)) for conv in conversations])

    def _safe(self, request: LLMRequest) -> LLMOutcome:
        try:
            return self.complete(request)
        except Exception as exc:  # a bug or a cache failure: recorded on the request, never raised
            return self._record(LLMOutcome(STATUS_API_ERROR, error=f"{type(exc).__name__}: {exc}"[:500],
                                           usage=LLMUsage(requests=1, failures=1)))

    def _record(self, outcome: LLMOutcome) -> LLMOutcome:
        """Add the outcome's usage to :attr:`stats`; return the outcome."""
        with self._lock:
            for k, v in outcome.usage.counters().items():
                self.stats[k] += v
        return outcome

    # -- dry run -------------------------------------------------------------------------------
    def estimate(self, requests: Sequence[LLMRequest], price_in_per_mtok: Optional[float] = None,
                 price_out_per_mtok: Optional[float] = None) -> CostEstimate:
        """What sending ``requests`` once would cost; sends nothing (cached requests are free).

        Re-asks are not counted here (they depend on the answers): :func:`ev2r.llm.loop.estimate_asks`
        adds their upper bound for the callers that re-ask. Offline, nothing is to send: the
        requests the cache cannot answer are counted in ``not_counted`` (reason
        :data:`OFFLINE_MISSING`), as the run would record them ``replay_missing``.
        """
        n_cached, prompt_tokens, completion = 0, 0, 0
        for r in requests:
            if self.cache is not None and self.key(r) in self.cache:
                n_cached += 1
                continue
            prompt_tokens += estimate_tokens(r.messages)
            completion += int(r.params.get("max_tokens") or 0)
        if self.offline:  # nothing is sent offline: an uncached request gets no answer (replay_missing)
            n_missing = len(requests) - n_cached
            return CostEstimate(len(requests), n_cached, 0, 0, 0, price_in_per_mtok, price_out_per_mtok,
                                not_counted=n_missing,
                                not_counted_reasons={OFFLINE_MISSING: n_missing} if n_missing else {})
        return CostEstimate(len(requests), n_cached, len(requests) - n_cached, prompt_tokens, completion,
                            price_in_per_mtok, price_out_per_mtok)
