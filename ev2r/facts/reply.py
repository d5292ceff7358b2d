"""Reading an LLM's reply to the reference-based prompt (Akhtar et al. 2024, sec. 3.1): numbered atomic facts of
each side, a check per fact, the stated counts and precision / recall -- as recorded by the Ev2R authors
(:func:`parse_recorded_response`, strict) or as far as a live reply goes (:func:`read_reference_reply`).
Used by the replay (:mod:`ev2r.facts.replay`) and the live LLM scorer (:mod:`ev2r.llm`).
"""

from __future__ import annotations

import functools
import json
import math
import re
from typing import Optional, Sequence

from ev2r.config import REPLY_READINGS
from ev2r.scores import ReferenceResult, f1_score
from ev2r.types import FactSupport

__all__ = ["SIDES", "SCORE_SOURCES", "REPLY_KEYS", "split_numbered", "check_says_supported", "parse_recorded_response",
           "check_verdict", "split_enumeration", "check_flags", "is_placeholder", "normalize_reply",
           "keyed_object_from_text", "read_reference_reply"]

SIDES = (("predicted", "precision"), ("reference", "recall"))


def split_numbered(text: str) -> list[str]:
    """Split ``"1. A. 2. B. 3. C."`` into ``["A.", "B.", "C."]``.

    Only *sequential* markers count (1, then 2, ...), each at the start or after whitespace
    and followed by whitespace, so numbers inside a fact ("in 2014. It ...", "5.18") are kept.
    Text without a leading "1." is returned as one element (or [] when empty).
    """
    text = (text or "").strip()
    if not text:
        return []
    positions = []
    expected, pos = 1, 0
    while True:
        m = re.compile(rf"(?:^|(?<=\s)){expected}\.\s").search(text, pos)
        if m is None:
            break
        positions.append((m.start(), m.end()))
        expected, pos = expected + 1, m.end()
    if not positions or positions[0][0] != 0:
        return [text]
    out = []
    for k, (_start, e) in enumerate(positions):
        stop = positions[k + 1][0] if k + 1 < len(positions) else len(text)
        out.append(text[e:stop].strip())
    return out


_NEG = re.compile(r"\b(not|no|partially|contradict\w*|unsupported|does ?n[o']t)\b", re.I)
_POS = re.compile(r"\b(support(ed|s)?|aligns?|confirm(ed|s)?|consistent)\b", re.I)


def check_says_supported(check: str) -> bool:
    """Read one per-fact check sentence: supported unless its verdict part is negative.

    The verdict is the check's last sentence (the model restates the fact first)."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", check.strip()) if s.strip()]
    verdict = sentences[-1] if sentences else check
    if "not enough information" in verdict.lower():
        return False
    return bool(_POS.search(verdict)) and not _NEG.search(verdict)


def _as_count(v) -> Optional[int]:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return None


def parse_recorded_response(resp: dict) -> ReferenceResult:
    """Turn one recorded ``llm_response`` dict into a :class:`ReferenceResult` (module doc)."""
    res = ReferenceResult()
    problems: list[str] = []
    values = {}
    for side, score_name in SIDES:
        texts = [resp.get(f"facts in {side} evidence", "") or "", resp.get(f"fact check {side} evidence", "") or ""]
        if not all(isinstance(t, str) for t in texts):
            res.status = "replay_inconsistent"
            res.error = f"{side}: 'facts in'/'fact check' fields must be text, got {[type(t).__name__ for t in texts]}"
            return res
        facts = split_numbered(texts[0])
        checks = split_numbered(texts[1])
        count = _as_count(resp.get(f"facts count {side} evidence"))
        support = _as_count(resp.get(f"support {side} evidence"))
        stated = resp.get(score_name)
        flags = [check_says_supported(checks[k]) if k < len(checks) else False for k in range(len(facts))]
        fs = [FactSupport(fact=f, supported=s) for f, s in zip(facts, flags)]
        if side == "predicted":
            res.predicted_facts = fs
        else:
            res.reference_facts = fs
        if count is None or support is None:
            problems.append(f"{side}: count/support missing or not whole numbers "
                            f"({resp.get(f'facts count {side} evidence')!r}, {resp.get(f'support {side} evidence')!r})")
            continue
        if count != len(facts):
            problems.append(f"{side}: stated {count} facts but {len(facts)} enumerated")
        if support > count or support < 0:
            problems.append(f"{side}: support {support} outside 0..{count}")
        if count == 0:
            problems.append(f"{side}: zero facts")
            continue
        value = support / count
        if (not isinstance(stated, (int, float)) or isinstance(stated, bool)
                or not math.isclose(stated, value, abs_tol=1e-6)):
            problems.append(f"{side}: stated {score_name} {stated!r} != support/count = {value:.6f}")
        values[score_name] = value
    if problems:
        res.status, res.error = "replay_inconsistent", "; ".join(problems)
        return res
    res.precision, res.recall = values["precision"], values["recall"]
    res.f1 = f1_score(res.precision, res.recall)
    return res


# -- reading a reply as far as it goes ----------------------------------------
#: where precision / recall come from when a reply is read (:func:`read_reference_reply`):
#: ``checks`` -- the share of per-fact checks that say "supported" (the definition, Akhtar et al.
#: 2024 sec. 3.1), else the stated counts; ``counts`` -- support / count as stated (what the
#: FEVER-8 scorer reads), else the checks; ``strict`` -- both must be there and agree with each
#: other and with the stated precision/recall, else the item is not scored (the authors' replay).
SCORE_SOURCES = REPLY_READINGS

_MARKER_STYLES = (r"{n}\.", r"{n}\)", r"\({n}\)", r"\[{n}\]", r"{n}:", r"{n} -")
_BULLET = re.compile(r"^\s*(?:[-*\u2022\u2013\u2014\u25cf\u25aa]|\d+[.):])\s+")
_LINE_MARKER = re.compile(r"^\s*(?:\(?\d+[.):\]]|\[\d+\]|[-*\u2022\u2013\u2014\u25cf\u25aa])(?:\s+|$)")
_FACT_KEYS = ("fact", "statement", "text", "claim", "atomic_fact", "content")
_VERDICT_KEYS = ("verdict", "check", "label", "result", "status", "judgement", "judgment", "support", "supported",
                 "is_supported")
_PLACEHOLDER = re.compile(r"\W*(?:<[^<>]*>|\[[^\[\]]*\]|\{[^{}]*\})\W*")

# a verdict phrase at the end of a check ("... Not supported.") or at its start ("Supported. ..."); the
# negative forms first, so "not supported" is never read as "supported"
_VERDICT_WORDS = (r"neither\s+supported\s+nor\s+\w+|not\s+enough\s+(?:information|evidence)|"
                  r"(?:is|are|was|were)?\s*n[o']t\s+supported|not\s+supported|unsupported|partially\s+supported|"
                  r"partly\s+supported|refuted|contradict(?:ed|s)?|nepodporov\w*|nepodlo\w*|"
                  r"supported|podporov\w*|podlo\w*|true|false|yes|no")
_VERDICT_END = re.compile(rf"(?i)\b({_VERDICT_WORDS})\b\s*[.!)\]\u3002]*\s*(?:\([^()]*\)\s*[.!]*\s*)?$")
_VERDICT_START = re.compile(rf"(?i)^\s*[\W\d]*?\b({_VERDICT_WORDS})\b\s*[.:!\-\u2013\u2014]")
_POSITIVE = re.compile(r"(?i)^(supported|podporov\w*|podlo\w*|true|yes)$")


def check_verdict(check) -> Optional[bool]:
    """The verdict of one per-fact check, or None when it states none.

    Text: a verdict phrase that ends the check ("A is red. Supported.", "A is not red: Supported",
    "Supported (the date is not given).") or opens it ("Supported. A is red."); "supported",
    "yes", "true" (and Czech "podporováno") are positive; "not supported", "isn't supported",
    "unsupported", "partially supported", "neither supported nor refuted", "not enough information",
    "refuted", "contradicted", "no", "false" are negative; "Supported?" or a restated fact alone
    has no verdict. A boolean, 1/0, or a check object's ``supported`` / ``verdict`` value is read
    the same way (the object's fact text is never scanned).
    """
    if isinstance(check, bool):
        return check
    if isinstance(check, (int, float)) and check in (0, 1):
        return bool(check)
    if isinstance(check, dict):
        for k in _VERDICT_KEYS:
            if k in check:
                v = check_verdict(check[k])
                if v is not None:
                    return v
        return None
    if not isinstance(check, str):
        return None
    text = check.strip()
    m = _VERDICT_END.search(text) or _VERDICT_START.search(text)
    if m is None:
        return None
    word = re.sub(r"\s+", " ", m.group(1).strip())
    return bool(_POSITIVE.match(word))


def _strip_verdict(check: str) -> str:
    """A check's text without its verdict phrase (the fact it restates)."""
    out = _VERDICT_END.sub("", check).strip()
    if out == check.strip():
        out = _VERDICT_START.sub("", check).strip()
    return out.rstrip(" :-\u2013\u2014").strip()


def _sequential(text: str, style: str, line_start: bool = False) -> list[str]:
    """Items of ``text`` under one marker style, when its first marker opens the text (``line_start``:
    markers only at the start of a line)."""
    positions = []
    expected, pos = 1, 0
    lead = r"(?:^|(?<=\n))[ \t]*" if line_start else r"(?:^|(?<=\s))"
    while True:
        m = re.compile(lead + style.format(n=expected) + r"(?=\s|$)", re.M if line_start else 0).search(text, pos)
        if m is None:
            break
        positions.append((m.start(), m.end()))
        expected, pos = expected + 1, m.end()
    if not positions or positions[0][0] != 0:
        return []
    return [text[e:(positions[k + 1][0] if k + 1 < len(positions) else len(text))].strip()
            for k, (_s, e) in enumerate(positions)]


def _dict_text(d: dict) -> Optional[str]:
    for k in _FACT_KEYS:
        if isinstance(d.get(k), str) and d[k].strip():
            return d[k].strip()
    texts = [v for k, v in d.items() if isinstance(v, str) and v.strip() and k not in _VERDICT_KEYS]
    return max(texts, key=len).strip() if texts else None


def split_enumeration(value, expected: Optional[int] = None) -> Optional[list[str]]:
    """The items of an enumeration in any common layout, or None when ``value`` is not one.

    * a JSON list of strings (empty strings dropped), or of objects with a text field (``fact``,
      ``statement``, ``text``, ...; else their longest text that is not a verdict);
    * text with several lines, each item opening a line (numbered ``1.`` ``1)`` ``(1)`` ``[1]``
      ``1:`` or bulleted ``-`` ``*`` ``\u2022``); lines before the first marker ("Facts:") are a
      preamble, not an item;
    * text numbered with sequential markers of one style on one line -- ``1. a 2. b``, ``1) a 2) b``,
      ``(1) a``, ``[1] a``, ``1: a``, ``1 - a`` (numbers inside an item, "in 2014. It", "5.18", stay in
      it; the first marker must open the text). Where a number inside an item reads as the next
      marker ("finished in 2. place. 2. ..."), the split at markers that follow a sentence end is
      taken when it has as many items, or when its length is ``expected`` (the reply's stated
      count);
    * otherwise several non-empty lines are several items, and one line is one item.

    Returns [] for empty text or an empty list; None for a number, a mapping, or a list holding
    anything else (that is not an enumeration).
    """
    if isinstance(value, list):
        out = []
        for v in value:
            if isinstance(v, str):
                if v.strip():
                    out.append(v.strip())
            elif isinstance(v, dict):
                t = _dict_text(v)
                if t is None:
                    return None
                out.append(t)
            else:
                return None
        return out
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text:
        return []
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) > 1:
        first = next((k for k, ln in enumerate(lines) if _LINE_MARKER.match(ln)), None)
        if first is not None:
            body = "\n".join(lines[first:])
            best: list[str] = []
            for style in _MARKER_STYLES:
                items = _sequential(body, style, line_start=True)
                if len(items) > len(best):
                    best = items
            marked = [ln for ln in lines[first:] if _LINE_MARKER.match(ln)]
            if len(best) >= max(2, len(marked)):
                return [b for b in best if b]
            if len(marked) == len(lines) - first and all(_BULLET.match(ln) for ln in marked):
                return [t for t in (_BULLET.sub("", ln).strip() for ln in marked) if t]
    candidates: list[list[str]] = []
    for style in _MARKER_STYLES:
        items = _sequential(text, style)
        if items:
            candidates.append(items)
    if candidates:
        longest = [x for x in max(candidates, key=len) if x]
        sentence = [x for x in _sequential_after_sentence(text) if x]
        if expected is not None:
            for c in (sentence, longest):
                if len(c) == expected:
                    return c
        if len(sentence) >= 2 and len(sentence) == len(longest):
            # as many items either way: the split at sentence ends keeps "finished in 2. place" whole
            return sentence
        return longest
    if len(lines) > 1:
        return [ln.strip() for ln in lines]
    return [text]


def _sequential_after_sentence(text: str) -> list[str]:
    """``1. a. 2. b.`` split only at markers after a sentence end (or the text's start)."""
    positions = []
    expected, pos = 1, 0
    while True:
        lead = r"^" if expected == 1 else r"(?<=[.!?;)\]\"'\u201d\u3002])\s+"
        m = re.compile(lead + rf"{expected}\.(?=\s|$)").search(text, pos)
        if m is None:
            break
        start = m.start() if expected == 1 else m.end() - len(f"{expected}.")
        positions.append((start, m.end()))
        expected, pos = expected + 1, m.end()
    if not positions:
        return []
    return [text[e:(positions[k + 1][0] if k + 1 < len(positions) else len(text))].strip()
            for k, (_s, e) in enumerate(positions)]


def check_flags(value, expected: Optional[int] = None) -> Optional[list[Optional[bool]]]:
    """Per-fact verdicts of a check field (:func:`check_verdict` of each item of
    :func:`split_enumeration`; a JSON list of booleans or of check objects is read item by item);
    an item without a verdict is None. None when the field is not an enumeration."""
    if isinstance(value, list) and value and all(isinstance(v, (dict, bool)) for v in value):
        return [check_verdict(v) for v in value]
    items = split_enumeration(value, expected)
    return None if items is None else [check_verdict(c) for c in items]


def _as_number(v) -> Optional[float]:
    if isinstance(v, bool) or v is None:
        return None
    try:
        if isinstance(v, (int, float)):
            x = float(v)
        elif isinstance(v, str):
            x = float(v.strip().rstrip("%"))
        else:
            return None
    except (ValueError, OverflowError):
        return None
    return x if math.isfinite(x) else None


def _whole(v) -> Optional[int]:
    x = _as_number(v)
    return int(x) if x is not None and x.is_integer() and 0 <= x < 1e9 else None


def is_placeholder(fact: str) -> bool:
    """A template placeholder instead of a fact: no letter or digit ("...", "-"), or a bracketed
    slot such as "<fact>", "<fact>.", "[fact]", "{fact}"."""
    from claimalign.words import has_content

    return not has_content(fact) or bool(_PLACEHOLDER.fullmatch(fact))


def normalize_reply(resp: dict) -> dict:
    """A copy of a reply with fact lists written as JSON lists turned into numbered text and
    numeric strings ("3", "0.5") turned into numbers -- the one normalisation every reading applies
    before the recorded schema's checks, live or replayed."""
    out = dict(resp)
    for side in ("predicted", "reference"):
        for key in (f"facts in {side} evidence", f"fact check {side} evidence"):
            v = out.get(key)
            if isinstance(v, list) and all(isinstance(x, str) for x in v):
                out[key] = " ".join(f"{k}. {x.strip()}" for k, x in enumerate(v, 1))
        for key in (f"facts count {side} evidence", f"support {side} evidence"):
            v = out.get(key)
            if isinstance(v, str):
                x = _as_number(v)
                out[key] = int(x) if x is not None and x.is_integer() else x if x is not None else v
    for key in ("precision", "recall"):
        v = out.get(key)
        if isinstance(v, str) and _as_number(v) is not None:
            out[key] = _as_number(v)
    return out


#: the keys of a reference-based reply, in the prompt's order (the Ev2R authors' schema;
#: :data:`ev2r.llm.parse.REFERENCE_KEYS` is this tuple)
REPLY_KEYS = (
    "facts in predicted evidence", "fact check predicted evidence", "facts count predicted evidence",
    "support predicted evidence", "facts in reference evidence", "fact check reference evidence",
    "facts count reference evidence", "support reference evidence", "precision", "recall",
)


@functools.lru_cache(maxsize=8)
def _key_pattern(keys: tuple) -> "re.Pattern[str]":
    """``"key":`` for any of ``keys`` (spaces allowed inside the quotes and before the colon)."""
    return re.compile(r'"\s*(' + "|".join(re.escape(k) for k in keys) + r')\s*"\s*:')


def keyed_object_from_text(text: str, keys: Sequence[str] = REPLY_KEYS) -> Optional[dict]:
    """A reply object read from text that is JSON but for unescaped double quotes inside string
    values (small models quote a phrase: ``"... as the "greatest natural disaster.""``), or None.

    The text must hold an object that closes (from its first ``{`` to its last ``}``: a reply cut
    off at the length limit is never read this way) and at least two of ``keys`` written as
    ``"key":``, the last of which holds a whole JSON value up to the closing brace (an object
    that stops inside a value is not read). Every such occurrence starts a value that runs to the
    next one (or to the closing brace); a value is decoded as JSON when it is valid JSON, else, when it is quoted, taken
    as the text between its outer quotes (``\\n`` and ``\\"`` unescaped). A key given twice keeps its last value, as
    :func:`json.loads` does. Keys not in ``keys`` are not read (their text stays in the value before them).
    """
    if not isinstance(text, str):
        return None
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    body = text[start + 1:end]
    hits = list(_key_pattern(tuple(keys)).finditer(body))
    if len({m.group(1) for m in hits}) < 2:
        return None
    obj: dict = {}
    for m, nxt in zip(hits, hits[1:] + [None]):
        raw = body[m.end():nxt.start() if nxt is not None else len(body)].strip().rstrip(",").strip()
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            if nxt is None:  # the last value must be whole JSON: else the object did not close there
                return None
            if len(raw) >= 2 and raw[0] == raw[-1] == '"':
                value = raw[1:-1].replace("\\n", "\n").replace('\\"', '"')
            else:
                value = raw
        obj[m.group(1)] = value
    return obj


def read_reference_reply(resp: dict, scores_from: str = "checks") -> ReferenceResult:
    """Read a reference-based reply (the recorded schema's keys, :data:`ev2r.llm.parse.REFERENCE_KEYS`)
    as far as it goes, and score it.

    Per side (predicted -> precision, reference -> recall), two readings:

    * *checks*: the per-fact checks (:func:`check_flags`), when every check states a verdict and
      there is one check per enumerated fact (or checks and no separate fact list, the facts then
      being the checks without their verdicts): supported checks / checks;
    * *counts*: ``support ... / facts count ...`` when both are whole numbers with
      0 <= support <= count and count > 0 (numeric strings accepted).

    ``scores_from`` (:data:`SCORE_SOURCES`) says which reading scores the side and which is the
    fallback; ``strict`` is :func:`parse_recorded_response` after :func:`normalize_reply` (all must
    agree). In the other modes both readings and the stated value go into ``extra_scores``
    (``precision_from_checks``, ``precision_from_counts``, ``precision_stated``, and the same for
    recall; None where a reading fails), and ``reading_disagreements`` counts the sides on which the
    two readings differ (> 1e-6): a disagreement is recorded on the item, never a reason to drop it.
    Facts that are template placeholders (:func:`is_placeholder`) make the reply unreadable in
    every mode.

    Returns:
        a :class:`~ev2r.scores.ReferenceResult`: status ``ok`` when both sides could be read
        (precision and recall in [0, 1]); ``replay_inconsistent`` with the reasons otherwise (the
        live LLM path turns it into a ``parse_error``).

    Raises:
        ValueError: ``scores_from`` not in :data:`SCORE_SOURCES`.
    """
    if scores_from not in SCORE_SOURCES:
        raise ValueError(f"scores_from: {scores_from!r} is not one of {SCORE_SOURCES}")
    if scores_from == "strict":
        try:
            res = parse_recorded_response(normalize_reply(resp))
        except (TypeError, ValueError, OverflowError) as e:  # a value no schema check foresaw
            return ReferenceResult(status="replay_inconsistent", error=f"unreadable reply ({type(e).__name__}: {e})")
        return _refuse_placeholders(res)
    res = ReferenceResult()
    problems: list[str] = []
    values: dict[str, float] = {}
    extra: dict[str, Optional[float]] = {}
    disagreements = 0
    for side, score_name in SIDES:
        count, support = _whole(resp.get(f"facts count {side} evidence")), _whole(resp.get(f"support {side} evidence"))
        facts = split_enumeration(resp.get(f"facts in {side} evidence"), count)
        check_value = resp.get(f"fact check {side} evidence")
        flags = check_flags(check_value, count if not facts else len(facts))
        from_checks = None
        if flags and all(f is not None for f in flags) and (not facts or len(flags) == len(facts)):
            from_checks = sum(bool(f) for f in flags) / len(flags)
            if not facts:
                texts = split_enumeration(check_value, len(flags)) or []
                facts = [_strip_verdict(t) if isinstance(t, str) else t for t in texts]
        from_counts = support / count if count and support is not None and support <= count else None
        stated = _as_number(resp.get(score_name))
        extra[f"{score_name}_from_checks"] = from_checks
        extra[f"{score_name}_from_counts"] = from_counts
        extra[f"{score_name}_stated"] = stated if stated is not None and 0.0 <= stated <= 1.0 else None
        fs = [FactSupport(fact=f, supported=bool(flags[k]) if from_checks is not None and flags else False)
              for k, f in enumerate(facts or [])]
        if side == "predicted":
            res.predicted_facts = fs
        else:
            res.reference_facts = fs
        if from_checks is not None and from_counts is not None and abs(from_checks - from_counts) > 1e-6:
            disagreements += 1
        order = (from_checks, from_counts) if scores_from == "checks" else (from_counts, from_checks)
        value = next((v for v in order if v is not None), None)
        if value is None:
            why = []
            if not flags:
                why.append("no per-fact checks")
            elif any(f is None for f in flags):
                why.append(f"{sum(f is None for f in flags)} of {len(flags)} checks state no verdict")
            elif facts and len(flags) != len(facts):
                why.append(f"{len(flags)} checks for {len(facts)} facts")
            why.append(f"counts {resp.get(f'facts count {side} evidence')!r} / "
                       f"{resp.get(f'support {side} evidence')!r} not usable")
            problems.append(f"{side}: " + ", ".join(why))
            continue
        values[score_name] = value
    res.extra_scores = {**extra, "reading_disagreements": float(disagreements)}
    if problems:
        res.status, res.error = "replay_inconsistent", "; ".join(problems)
        return res
    res.precision, res.recall = values["precision"], values["recall"]
    res.f1 = f1_score(res.precision, res.recall)
    return _refuse_placeholders(res)


def _refuse_placeholders(res: ReferenceResult) -> ReferenceResult:
    if res.status != "ok":
        return res
    for side, facts in (("predicted", res.predicted_facts), ("reference", res.reference_facts)):
        bad = [f.fact for f in facts if not isinstance(f.fact, str) or is_placeholder(f.fact)]
        if bad:
            return ReferenceResult(status="replay_inconsistent", error=f"{side}: placeholder facts instead of content "
                                                                       f"({bad[:2]!r})", extra_scores=res.extra_scores)
    return res
