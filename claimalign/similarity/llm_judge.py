"""G-Eval style LLM-as-judge similarity over a chat client the caller provides.

G-Eval (Liu et al., EMNLP 2023, sec. 2.3 "Scoring Function"): instead of the sampled digit,
use the probability-weighted score ``sum_s p(s) * s``. As in *Examining the Metrics for
Document-Level Claim Extraction in Czech and Slovak*, the model answers one score token in
{0, 1, 2, 3, 4}; the log-probabilities of those five tokens at the answer position are
softmax-normalised and the expected value (in [0, 4]) is divided by 4 to give [0, 1].

claimalign sends no request itself: :class:`LLMJudgeSimilarity` asks through any object with the
small :class:`ChatClient` protocol (``model`` and ``chat(conversations, **params)``), such as
``ev2r.llm.LLMClient`` -- cached on disk, retrying, bounded concurrency -- which ``ev2r align
--similarity llm`` passes. The maths (:func:`score_distribution`, :func:`expected_score`) stays here.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any, Dict, List, Optional, Protocol, Sequence, Tuple, runtime_checkable

import numpy as np

from claimalign.similarity.base import check_texts, finish_matrix

__all__ = [
    "LLMJudgeError", "LLMJudgeSimilarity", "ChatClient", "ChatOutcome", "DEFAULT_JUDGE_PROMPT", "SCORE_TOKENS",
    "score_distribution", "expected_score",
]

SCORE_TOKENS = ("0", "1", "2", "3", "4")

DEFAULT_JUDGE_PROMPT = (
    "You compare two factual claims. Rate how well claim B expresses the same meaning as claim A "
    "on a scale from 0 to 4:\n"
    "0 = unrelated or contradictory, 1 = same topic but different meaning, 2 = partly the same "
    "meaning, 3 = mostly the same meaning, 4 = exactly the same meaning.\n"
    "A negated or reversed statement is contradictory (0), however many words it shares.\n\n"
    "Claim A: {left}\nClaim B: {right}\n\n"
    "Answer with a single digit from 0 to 4.\nScore:"
)


class LLMJudgeError(RuntimeError):
    """The server's answer cannot be scored: no logprobs, no top_logprobs at the score token,
    or no generated token that is a score in {0,...,4}. Never replaced by a default score."""


def _get(obj: Any, key: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)


def _token_stream(response: Any) -> List[Tuple[str, float, Dict[str, float]]]:
    """(token, logprob, {top token: logprob}) per generated token of ``choices[0]``.

    Accepts the chat-completions shape (``logprobs.content[i].token/.logprob/.top_logprobs``)
    and the legacy completions shape (``logprobs.tokens / token_logprobs / top_logprobs``), as
    objects or dicts.
    """
    choices = _get(response, "choices")
    if not choices:
        raise LLMJudgeError("response has no choices")
    lp = _get(choices[0], "logprobs")
    if lp is None:
        raise LLMJudgeError(
            "response carries no logprobs: the server must support logprobs=True and top_logprobs"
            " (G-Eval scoring needs the score-token distribution; no fallback to the sampled text)"
        )
    content = _get(lp, "content")
    stream: List[Tuple[str, float, Dict[str, float]]] = []
    if content is not None:
        for item in content:
            tops: Dict[str, float] = {}
            for t in _get(item, "top_logprobs") or []:
                tops.setdefault(str(_get(t, "token")), float(_get(t, "logprob")))
            stream.append((str(_get(item, "token")), float(_get(item, "logprob")), tops))
        return stream
    tokens = _get(lp, "tokens")
    if tokens is None:
        raise LLMJudgeError("response logprobs has neither 'content' (chat) nor 'tokens' (completions)")
    token_lps = _get(lp, "token_logprobs") or [None] * len(tokens)
    top_list = _get(lp, "top_logprobs") or [None] * len(tokens)
    for tok, tlp, tops in zip(tokens, token_lps, top_list):
        d = {str(k): float(v) for k, v in (tops or {}).items()}
        stream.append((str(tok), float(tlp) if tlp is not None else float("nan"), d))
    return stream


def score_distribution(response: Any) -> np.ndarray:
    """P(score = s) for s = 0..4 at the answer's score token.

    The score token is the first generated token whose text, stripped of whitespace, is exactly
    one of "0".."4" (so "Score: 3" reads the " 3" token, and a digit inside "2023" or "10" is
    never taken). Its ``top_logprobs`` entries whose stripped text is a score are pooled per
    score (e.g. "3" and " 3" add up) and softmax-normalised over the five scores; a score absent
    from ``top_logprobs`` gets probability 0 (it lies below the server's top-k cut-off, so its
    true mass is small). The generated token itself is included if the server left it out.

    Args:
        response: an OpenAI(-compatible) chat or completions response, object or dict.

    Returns:
        float64 array of shape (5,), non-negative, summing to 1.

    Raises:
        LLMJudgeError: no logprobs, no score token generated, or no top_logprobs at the score
            token.
    """
    stream = _token_stream(response)
    for pos, (tok, tok_lp, tops) in enumerate(stream):
        if tok.strip() not in SCORE_TOKENS:
            continue
        if not tops:
            raise LLMJudgeError(
                f"score token {tok!r} at position {pos} has no top_logprobs; request top_logprobs >= 5"
            )
        pooled: Dict[int, List[float]] = {}
        for t, lp in tops.items():
            key = t.strip()
            if key in SCORE_TOKENS and math.isfinite(lp):
                pooled.setdefault(int(key), []).append(lp)
        if tok not in tops and math.isfinite(tok_lp):
            pooled.setdefault(int(tok.strip()), []).append(tok_lp)
        logits = np.full(5, -np.inf)
        for s, lps in pooled.items():
            m = max(lps)
            logits[s] = m + math.log(sum(math.exp(x - m) for x in lps))
        m = logits.max()
        p = np.exp(logits - m)
        return p / p.sum()
    text = "".join(t for t, _, _ in stream)
    raise LLMJudgeError(f"no generated token is a score in 0-4 (generated text: {text!r})")


def expected_score(response: Any) -> float:
    """G-Eval expected score ``sum_s p(s) * s`` in [0, 4] (see :func:`score_distribution`).

    Raises:
        LLMJudgeError: as :func:`score_distribution`.
    """
    return float(score_distribution(response) @ np.arange(5, dtype=np.float64))


class ChatOutcome(Protocol):
    """One answered request: ``ok``; ``response`` (the chat-completion response, a dict or an
    object, when ok); ``status`` and ``error`` (why it failed, when not ok)."""

    ok: bool
    response: Any
    status: str
    error: Optional[str]


@runtime_checkable
class ChatClient(Protocol):
    """What :class:`LLMJudgeSimilarity` needs from an LLM client (``ev2r.llm.LLMClient`` has it).

    ``model``: the model's name (enters the similarity's ``name``). ``chat(conversations, **params)``:
    one request per conversation (a list of ``{"role", "content"}`` messages) with the decoding
    parameters ``params`` (``max_tokens``, ``logprobs``, ``top_logprobs``); returns one
    :class:`ChatOutcome` per conversation, in order, and does not raise for a failed request.
    The client decides temperature (G-Eval scoring wants 0), caching, retries and concurrency.
    """

    model: str

    def chat(self, conversations: Sequence[Sequence[Dict[str, str]]], **params: Any) -> Sequence[ChatOutcome]: ...


class LLMJudgeSimilarity:
    """LLM-as-judge similarity: ``expected_score(answer) / 4`` in [0, 1] for each pair.

    Each pair is one chat request (``logprobs=True``, ``top_logprobs`` (default 20, the OpenAI
    maximum), a small ``max_tokens``) sent through ``client``.

    Args:
        client: a :class:`ChatClient` -- e.g. ``ev2r.llm.LLMClient(model=..., base_url=...)``,
            which caches answers on disk and retries (claimalign builds no client itself).
        prompt: template with ``{left}`` and ``{right}`` fields.
        max_tokens: generated-token limit (1..64).
        top_logprobs: alternatives per position (5..20).
        symmetric: also ask with the claims swapped and average (two requests per pair).

    ``matrix(left, right)``: sequences of str, lengths m and k -> float64 array (m, k); the distinct
    (left, right) pairs not asked before by this instance are sent in one ``client.chat`` call.

    Raises:
        ValueError: no client (``client`` None or without ``model`` and ``chat``), bad arguments.
        LLMJudgeError: a request that failed (the client's status and error) or a response that
            cannot be scored (see :func:`score_distribution`); never a default score.
    """

    def __init__(self, client: Optional[ChatClient] = None, prompt: str = DEFAULT_JUDGE_PROMPT, max_tokens: int = 8,
                 top_logprobs: int = 20, symmetric: bool = False):
        if client is None:
            raise ValueError("client: the LLM judge needs a chat client, e.g. ev2r.llm.LLMClient(model=..., "
                             "base_url=...) (cached, retrying); claimalign sends no request itself")
        if not isinstance(client, ChatClient) or not isinstance(getattr(client, "model", None), str) \
                or not client.model:
            raise ValueError(f"client: expected an object with a model name and chat(conversations, **params) "
                             f"(e.g. ev2r.llm.LLMClient), got {type(client).__name__}")
        if "{left}" not in prompt or "{right}" not in prompt:
            raise ValueError("prompt: the template must contain the fields {left} and {right}")
        if not isinstance(max_tokens, int) or not 1 <= max_tokens <= 64:
            raise ValueError(f"max_tokens: must be an int in 1..64, got {max_tokens!r}")
        if not isinstance(top_logprobs, int) or not 5 <= top_logprobs <= 20:
            raise ValueError(f"top_logprobs: must be an int in 5..20, got {top_logprobs!r}")
        self.client = client
        self.model = client.model
        self.prompt = prompt
        self.max_tokens = max_tokens
        self.top_logprobs = top_logprobs
        self.symmetric = bool(symmetric)
        self._cache: Dict[Tuple[str, str], float] = {}

    @property
    def name(self) -> str:
        h = hashlib.sha256(self.prompt.encode("utf-8")).hexdigest()[:8]
        return f"llm-geval:{self.model}:prompt-{h}" + (":sym" if self.symmetric else "")

    def _ask(self, pairs: Sequence[Tuple[str, str]]) -> None:
        """Ask the pairs not asked yet (once each, one ``chat`` call) and keep their scores.

        Raises:
            LLMJudgeError: a failed request or an unscorable answer (the scores before it are kept).
        """
        todo = list(dict.fromkeys(p for p in pairs if p not in self._cache))
        if not todo:
            return
        conversations = [[{"role": "user", "content": self.prompt.format(left=a, right=b)}] for a, b in todo]
        outcomes = list(self.client.chat(conversations, max_tokens=self.max_tokens, logprobs=True,
                                         top_logprobs=self.top_logprobs))
        if len(outcomes) != len(todo):
            raise LLMJudgeError(f"the client returned {len(outcomes)} answers for {len(todo)} requests")
        first_error = None
        for pair, out in zip(todo, outcomes):
            if not out.ok:
                first_error = first_error or LLMJudgeError(
                    f"the judge's request failed ({out.status}: {out.error}) for the pair {pair[0][:40]!r} / "
                    f"{pair[1][:40]!r}")
                continue
            try:
                self._cache[pair] = expected_score(out.response) / 4.0
            except LLMJudgeError as e:
                first_error = first_error or e
        if first_error is not None:
            raise first_error

    def score(self, left: str, right: str) -> float:
        """Similarity of one pair in [0, 1] (averaged over both orders when ``symmetric``)."""
        left, right = check_texts([left, right], "pair")
        return float(self.matrix([left], [right])[0, 0])

    def matrix(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        a = check_texts(left, "left")
        b = check_texts(right, "right")
        pairs = [(x, y) for x in a for y in b]
        self._ask(pairs + ([(y, x) for x, y in pairs] if self.symmetric else []))

        def sim(x: str, y: str) -> float:
            s = self._cache[(x, y)]
            return (s + self._cache[(y, x)]) / 2.0 if self.symmetric else s

        m = np.array([[sim(x, y) for y in b] for x in a], dtype=np.float64)
        return finish_matrix(m, (len(a), len(b)))
