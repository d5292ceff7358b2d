"""The LLM path of ev2r: the only network I/O in the package.

* :class:`LLMClient` (:mod:`ev2r.llm.client`): one client over the ``openai`` package for any
  OpenAI-compatible server -- cache first, offline replay, bounded concurrency, timeouts,
  retries with backoff, per-request usage (:class:`ev2r.types.LLMUsage`), dry-run cost estimates.
* :func:`ask` / :func:`estimate_asks` (:mod:`ev2r.llm.loop`): the one call loop -- requests ->
  client -> parse -> re-ask with the reason -> per-request :class:`Answer` with status and usage --
  and its dry run; used by the scorers, the AVeriTeC 2025 judge and the arena.
* :class:`ResponseCache` (:mod:`ev2r.llm.cache`): content-addressed on-disk answers.
* :class:`LLMReferenceScorer`, :class:`LLMProxyScorer` (:mod:`ev2r.llm.scorers`): the metric's
  reference-based and proxy-reference scores from an LLM.
* :mod:`ev2r.llm.parse`: tolerant extraction, strict validation; :mod:`ev2r.llm.prompts`:
  prompts shipped as package data, hashed into the signature.
* :mod:`ev2r.llm.local_server`: a llama.cpp server for a GGUF on loopback, and a scripted
  OpenAI-compatible server (tests, benchmarks); imported only when used.

Importing this package does not import ``openai``; the HTTP client is built on the first request
that is not in the cache.
"""

from ev2r.llm.cache import ResponseCache, request_key
from ev2r.llm.client import CostEstimate, LLMClient, LLMOutcome, LLMRequest, default_cache_dir
from ev2r.llm.loop import Answer, ask, estimate_asks
from ev2r.llm.parse import AnswerCutOff, ParseError, extract_json_object, parse_reference_answer, verdict_distribution
from ev2r.llm.prompts import Prompt, load_prompt, resolve_prompt
from ev2r.llm.scorers import ExampleCopied, LLMProxyScorer, LLMReferenceScorer
from ev2r.types import LLMUsage

__all__ = [
    "LLMClient", "LLMRequest", "LLMOutcome", "LLMUsage", "CostEstimate", "ResponseCache", "request_key",
    "default_cache_dir", "Answer", "ask", "estimate_asks", "LLMReferenceScorer", "LLMProxyScorer", "ParseError",
    "AnswerCutOff", "ExampleCopied",
    "extract_json_object", "parse_reference_answer", "verdict_distribution", "Prompt", "load_prompt",
    "resolve_prompt",
]
