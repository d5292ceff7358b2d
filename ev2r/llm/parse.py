"""Tolerant extraction, strict validation of LLM answers.

Tolerant: the JSON object may sit in a Markdown code fence, after a preamble, or before
trailing text; fact lists may come in any common layout (numbered on one line or several,
bulleted, one per line, JSON lists of strings or of objects). A reply is read as far as it goes
(:func:`ev2r.facts.replay.read_reference_reply`): by default precision and recall come from the
per-fact checks (the definition), else from the stated counts; both readings are kept on the item
with the number of sides on which they disagree. ``scores_from="strict"`` is the old rule (every
key of the recorded schema, counts agreeing with the enumerations and with the stated
precision/recall), which is how the authors' recordings are replayed. A reply that no reading can
score raises :class:`ParseError`; the caller records status ``parse_error`` -- never NaN, never a
0 in place of a missing score.

The proxy answer is one letter (A-D); :func:`verdict_distribution` reads P(letter) from the
letter token's ``top_logprobs`` (as G-Eval reads a score token; Liu et al. 2023, sec. 2.3).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Callable, Optional, Sequence

from ev2r.labels import Verdict
from ev2r.scores import ReferenceResult
from ev2r.facts.reply import REPLY_KEYS, SCORE_SOURCES, keyed_object_from_text, read_reference_reply

#: where a live reply's precision/recall come from (the ``read:`` field of the signature)
DEFAULT_SCORES_FROM = "checks"

REFERENCE_KEYS = REPLY_KEYS
_TEXT_KEYS = REFERENCE_KEYS[0:2] + REFERENCE_KEYS[4:6]

#: answer letter -> verdict, in the order of the ``proxy_verdict`` prompt
VERDICT_LETTERS = {"A": Verdict.SUPPORTED, "B": Verdict.REFUTED, "C": Verdict.NOT_ENOUGH_EVIDENCE,
                   "D": Verdict.CONFLICTING}


class ParseError(ValueError):
    """An answer that cannot be used; the message says why (it goes to the item's ``error``)."""


class AnswerCutOff(ParseError):
    """An answer that stopped at the generation limit (``finish_reason == "length"``) before its
    JSON object closed: the re-ask asks for shorter facts rather than the whole schema again."""


def response_text(response: dict) -> str:
    """The generated text of ``choices[0]`` of a chat (or legacy completions) response dict.

    Raises:
        ParseError: no choices, or no text at all (an empty answer).
    """
    choices = response.get("choices") or []
    if not choices:
        raise ParseError("the response has no choices")
    ch = choices[0] or {}
    msg = ch.get("message") or {}
    text = msg.get("content") if isinstance(msg, dict) else None
    if text is None:
        text = ch.get("text")
    if not isinstance(text, str) or not text.strip():
        raise ParseError(f"empty answer (finish_reason={ch.get('finish_reason')!r})")
    return text


_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.S)


def extract_json_object(text: str) -> dict:
    """The first JSON object in ``text``: inside a code fence if there is one, else anywhere,
    ignoring text before and after it.

    Raises:
        ParseError: no complete JSON object can be decoded (the message shows the text's start).
    """
    if not isinstance(text, str):
        raise ParseError(f"expected text, got {type(text).__name__}")
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for cand in candidates:
        for k, m in enumerate(re.finditer(r"\{", cand)):
            if k >= 200:
                break
            try:
                obj, _ = decoder.raw_decode(cand, m.start())
            except (ValueError, RecursionError):  # JSONDecodeError, an integer past Python's digit limit, nesting
                continue
            if isinstance(obj, dict):
                return obj
    snippet = text.strip().replace("\n", " ")[:120]
    if "{" not in text:
        reason = "no '{' in the answer"
    elif text.rfind("}") > text.find("{"):
        reason = "not valid JSON (a quote left unescaped inside a value?)"
    else:
        reason = "unterminated (answer cut off?)"
    raise ParseError(f"no JSON object found: {reason}; answer starts {snippet!r}")


def parse_reference_answer(obj: Any, scores_from: str = DEFAULT_SCORES_FROM) -> ReferenceResult:
    """Validate a decoded reference-based answer and score it.

    Args:
        obj: the decoded JSON object (keys of :data:`REFERENCE_KEYS`).
        scores_from: ``checks`` (default: precision/recall from the per-fact checks, the
            definition; the stated counts when the checks cannot be read), ``counts`` (the stated
            support / count first, as the FEVER-8 scorer reads), or ``strict`` (every key present
            and counts, enumerations and stated precision/recall all agreeing -- how the authors'
            recordings are replayed). See :func:`ev2r.facts.replay.read_reference_reply`, which a
            replay of the recorded answer uses too, so live and replayed readings agree; fact lists
            may be in any common layout (numbered, bulleted, one per line, JSON lists), numbers may
            be numeric strings.

    Returns:
        a :class:`~ev2r.scores.ReferenceResult` with status ``ok``; its ``extra_scores`` hold both
        readings per side and ``reading_disagreements`` (0, 1 or 2), except in ``strict`` mode.

    Raises:
        ParseError: not an object, a side that neither reading can score, placeholder facts
            ("<fact>", "[fact]", "...") instead of content, a value no reading foresaw (an integer
            too large for a float); in ``strict`` mode also a missing key, a wrong type or counts
            that disagree.
        ValueError: ``scores_from`` not in :data:`~ev2r.facts.replay.SCORE_SOURCES`.
    """
    if scores_from not in SCORE_SOURCES:
        raise ValueError(f"scores_from: {scores_from!r} is not one of {SCORE_SOURCES}")
    if not isinstance(obj, dict):
        raise ParseError(f"expected a JSON object, got {type(obj).__name__}")
    if scores_from == "strict":
        missing = [k for k in REFERENCE_KEYS if k not in obj]
        if missing:
            raise ParseError(f"missing keys {missing}")
        for k in REFERENCE_KEYS:
            v = obj[k]
            if k in _TEXT_KEYS:
                continue
            if v is None or isinstance(v, bool) or not isinstance(v, (int, float, str)) or (
                    isinstance(v, float) and not math.isfinite(v)):
                raise ParseError(f"{k!r}: expected a number, got {v!r}")
            if isinstance(v, str):
                try:
                    float(v.strip())
                except ValueError:
                    raise ParseError(f"{k!r}: expected a number, got {v!r}") from None
    try:
        res = read_reference_reply(obj, scores_from)
    except (TypeError, ValueError, OverflowError, RecursionError) as e:  # a reply no reading foresaw: unusable
        raise ParseError(f"unreadable answer ({type(e).__name__}: {str(e)[:200]})") from None
    if res.status != "ok":
        raise ParseError(res.error or "unreadable answer")
    return res


def parse_reference_response(response: dict, scores_from: str = DEFAULT_SCORES_FROM) -> ReferenceResult:
    """:func:`response_text` -> :func:`extract_json_object` -> :func:`parse_reference_answer`.

    An answer that is JSON but for unescaped double quotes inside a value (a fact that quotes a
    phrase) is read by its keys (:func:`ev2r.facts.replay.keyed_object_from_text`; not in
    ``strict`` mode) and flagged ``reply_json_repaired`` = 1 in ``extra_scores``; a replay of
    the recorded text reads it the same way.

    Raises:
        AnswerCutOff: no complete JSON object and the answer stopped at the length limit.
        ParseError: any other unusable answer.
    """
    text = response_text(response)
    repaired = False
    try:
        obj = extract_json_object(text)
    except ParseError as e:
        if finish_reason(response) == "length":
            raise AnswerCutOff("the answer reached the length limit (max_tokens) before its JSON object closed; "
                               f"{e}") from e
        keyed = keyed_object_from_text(text) if scores_from != "strict" else None
        if keyed is None:
            raise
        obj, repaired = keyed, True  # JSON but for unescaped quotes in a value: read by its keys
    res = parse_reference_answer(obj, scores_from)
    if repaired:
        res.extra_scores["reply_json_repaired"] = 1.0
    return res


def finish_reason(response: dict) -> Optional[str]:
    """``choices[0].finish_reason`` of a response dict ("stop", "length", ...), or None."""
    try:
        reason = (response.get("choices") or [{}])[0].get("finish_reason")
    except (AttributeError, IndexError, TypeError):
        return None
    return reason if isinstance(reason, str) else None


# -- proxy: P(verdict) from the letter token's log-probabilities ---------------------------------
def _letter(token: str) -> Optional[str]:
    t = token.strip().strip(".):*(").strip()
    return t if t in VERDICT_LETTERS else None


def _logprob(value: Any) -> float:
    """A log-probability as a float; anything that is not a number (None, text) is -inf (no mass)."""
    if isinstance(value, bool):
        return -math.inf
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        return -math.inf
    return v if v == v else -math.inf  # NaN: no mass


def _top_pairs(tops: Any) -> list[tuple[str, float]]:
    """``(token, logprob)`` pairs of a ``top_logprobs`` entry: a list of ``{token, logprob}``
    objects (chat) or a ``{token: logprob}`` mapping (completions); other shapes give none."""
    if isinstance(tops, dict):
        return [(str(k), _logprob(v)) for k, v in tops.items()]
    if isinstance(tops, list):
        return [(str(t.get("token")), _logprob(t.get("logprob"))) for t in tops if isinstance(t, dict)]
    return []


def _token_stream(response: dict) -> list[tuple[str, float, dict[str, float]]]:
    choices = response.get("choices") or []
    if not choices:
        raise ParseError("the response has no choices")
    lp = (choices[0] or {}).get("logprobs")
    if not lp or not isinstance(lp, dict):
        raise ParseError("the response carries no logprobs (the server must support logprobs/top_logprobs)")
    stream = []
    if lp.get("content") is not None:
        if not isinstance(lp["content"], list):
            raise ParseError(f"logprobs.content: expected a list, got {type(lp['content']).__name__}")
        for item in lp["content"]:
            if not isinstance(item, dict):
                continue
            tops: dict[str, float] = {}
            for t, v in _top_pairs(item.get("top_logprobs")):
                tops.setdefault(t, v)
            stream.append((str(item.get("token")), _logprob(item.get("logprob")), tops))
        return stream
    tokens = lp.get("tokens")
    if not isinstance(tokens, list):
        raise ParseError("logprobs has neither 'content' (chat) nor 'tokens' (completions)")
    tlps = lp.get("token_logprobs") or [None] * len(tokens)
    tops_l = lp.get("top_logprobs") or [None] * len(tokens)
    for tok, tlp, tops in zip(tokens, tlps, tops_l):
        stream.append((str(tok), _logprob(tlp), dict(_top_pairs(tops))))
    return stream


def label_distribution(response: dict, label_of: Callable[[str], Optional[str]], labels: Sequence[str],
                       what: str = "a label", first: Optional[str] = None) -> dict[str, float]:
    """P(label) over ``labels`` from the first generated token that ``label_of`` maps to a label
    (to ``first``, when given: e.g. the ``tie`` of "A tie", whose "A" is an article).

    That token's ``top_logprobs`` alternatives that also map to labels are pooled per label
    (log-sum-exp: "A" and " A" are one answer) and softmax-normalised over the labels; a label
    absent from the top list gets 0 (below the server's cut-off).

    Args:
        response: a chat (``logprobs.content``) or completions (``logprobs.tokens``) response dict.
        label_of: ``token text -> label or None``.
        labels: the labels, the keys of the result.
        what: how the error names the labels.

    Raises:
        ParseError: no logprobs, or no generated token is a label.
    """
    stream = _token_stream(response)
    for tok, tok_lp, tops in stream:
        label = label_of(tok)
        if label is None or (first is not None and label != first):
            continue
        pooled: dict[str, list[float]] = {}
        for t, lp in tops.items():
            k = label_of(t)
            if k is not None and math.isfinite(lp):
                pooled.setdefault(k, []).append(lp)
        if not math.isfinite(tops.get(tok, -math.inf)) and math.isfinite(tok_lp):
            pooled.setdefault(label, []).append(tok_lp)  # the generated token's own value, when the list lacks it
        if not pooled:
            continue
        logits = {}
        for k, lps in pooled.items():
            m = max(lps)
            logits[k] = m + math.log(sum(math.exp(x - m) for x in lps))
        top = max(logits.values())
        z = sum(math.exp(v - top) for v in logits.values())
        return {k: (math.exp(logits[k] - top) / z if k in logits else 0.0) for k in labels}
    text = "".join(t for t, _, _ in stream)
    raise ParseError(f"no generated token is {what} (generated {text[:80]!r})")


def verdict_distribution(response: dict) -> dict[Verdict, float]:
    """P(verdict) for the four verdicts, from the first generated token that is a letter A-D
    (:func:`label_distribution`; letters read after stripping spaces and ``.):*(``).

    Raises:
        ParseError: no logprobs, or no generated token is a verdict letter A-D.
    """
    dist = label_distribution(response, _letter, list(VERDICT_LETTERS), what="a verdict letter A-D")
    return {v: dist[k] for k, v in VERDICT_LETTERS.items()}
