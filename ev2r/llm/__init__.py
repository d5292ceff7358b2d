"""The LLM path of ev2r: the only network I/O in the package.

* :class:`LLMClient` (:mod:`ev2r.llm.client`): one client over the ``openai`` package for any
  OpenAI-compatible server -- cache first, offline replay, bounded concurrency, timeouts,
  retries with backoff, token accounting, dry-run cost estimates.
* :class:`ResponseCache` (:mod:`ev2r.llm.cache`): content-addressed on-disk answers.
* :class:`LLMReferenceScorer`, :class:`LLMProxyScorer` (:mod:`ev2r.llm.scorers`): the metric's
  reference-based and proxy-reference scores from an LLM.
* :mod:`ev2r.llm.parse`: tolerant extraction, strict validation; :mod:`ev2r.llm.prompts`:
  prompts shipped as package data, hashed into the signature.

Importing this package does not import ``openai``; the HTTP client is built on the first request
that is not in the cache.
"""

from ev2r.llm.cache import ResponseCache, request_key
from ev2r.llm.client import CostEstimate, LLMClient, LLMOutcome, LLMRequest, default_cache_dir
from ev2r.llm.parse import ParseError, extract_json_object, parse_reference_answer, verdict_distribution
from ev2r.llm.prompts import Prompt, load_prompt
from ev2r.llm.scorers import LLMProxyScorer, LLMReferenceScorer

__all__ = [
    "LLMClient", "LLMRequest", "LLMOutcome", "CostEstimate", "ResponseCache", "request_key",
    "default_cache_dir", "LLMReferenceScorer", "LLMProxyScorer", "ParseError", "extract_json_object",
    "parse_reference_answer", "verdict_distribution", "Prompt", "load_prompt",
]
