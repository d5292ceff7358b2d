"""The one reader of question/answer evidence text (the AVeriTeC rendering), used by every scorer.

AVeriTeC renders evidence as blocks ``Question: <q>\nAnswer: <a>`` separated by a blank line (Schlichtkrull et al.
2023; the Ev2R rating files use the same form). :func:`parse_qa_text` also reads how real systems' files bend it:
markers in any case and decorated as LLMs print them (numbering, bullets, Markdown), an answer marker on the
question's line, a block without an answer marker (the lines after its first, or the text after the first ``?``),
an empty question (an answer-only pair), text before the first marker or without any (one pair with an empty
question), pairs written as JSON (a line holding ``{"question": ..., "answer": ...}`` or a whole JSON list of
them; markers inside JSON strings are text), and every line break :meth:`str.splitlines` knows. Layouts that needed
a repair are reported through ``notes`` (:data:`LAYOUT_NOTES`) so that readers warn instead of silently changing a
file's meaning; JSON written as pairs that is none is named by :func:`json_pair_problems`, so readers refuse it.
:func:`evidence_from_text` builds the :class:`~claimalign.evidence.Evidence` of such a text.

It is a reader of an input format, so it lives with the readers (``ev2r.io``); before ev2r 2.0 it was
``claimalign.qa_text`` and ``Evidence.from_text``. What an answer says (content, bare answers, AVeriTeC's
Unanswerable text) is :mod:`claimalign.words`; whether a text *restates the claim* is the metric's decision:
:mod:`ev2r.metric.restatement`.
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Dict, List, Optional, Tuple

from claimalign.evidence import Evidence, QAPair
from claimalign.jsonio import describe_json
from claimalign.text import clean_text, normalize_text

__all__ = ["LAYOUT_NOTES", "evidence_from_text", "parse_qa_text", "json_pair_problems"]

#: What :func:`parse_qa_text` may report about a text's layout (one note per kind, per text).
LAYOUT_NOTES = {
    "answer_inline": "the answer marker stands on the question's line (Question: ... Answer: ...)",
    "multi_line_question": "a question spans several lines before its Answer: marker (read as one question)",
    "no_answer_marker": "a Question: block has no Answer: marker (the text after its first line, or after "
                        "its first '?', read as the answer)",
    "marker_layout": "question/answer markers in another layout (numbered '1. Question:', bulleted '- Question:', "
                     "quoted '> Question:', markdown '**Question:**', 'Question 1:' / 'Answer 1:', 'Q:' / 'A:', "
                     "a fullwidth colon, a marker alone on its line as a markdown heading '### Question' / "
                     "'### Answer' with its text below) read as Question: / Answer:",
    "json_pairs": "question/answer pairs written as JSON objects ({\"question\": ..., \"answer\": ...} a line, or a "
                  "JSON list of them) read as Question: / Answer: pairs",
}

# spaces a marker may stand after at a line start: blanks, NBSP and the invisible characters
# (zero-width space / joiners, word joiner, BOM) that copy-pasted web text carries
_PAD = ("[ \\t\u00a0\u00ad\u034f\u180e\u2000-\u200f\u202a-\u202f\u205f-\u2064\u2066-\u2069\u3000"
        "\ufeff]*")  # spaces and invisible format characters (soft hyphen, directional marks) before a marker
_QUESTION = re.compile(rf"(?im)^{_PAD}(?=question[ \t\u00a0]*:)")
_QUESTION_MARK = re.compile(r"(?i)question[ \t\u00a0]*:")
_ANSWER_LINE = re.compile(rf"(?im)^{_PAD}answer[ \t\u00a0]*:")
# on the question's line: after anything but a letter or digit ("Who won? Answer:", "won?Answer:")
_ANSWER_INLINE = re.compile(r"(?i)(?<![^\W_])answer[ \t\u00a0]*:")
# a marker repeated at the start of the text it introduces ("Answer: Answer: Bob")
_REPEATED = {"question": re.compile(r"(?i)^(?:question[ \t\u00a0]*:\s*)+"),
             "answer": re.compile(r"(?i)^(?:answer[ \t\u00a0]*:\s*)+")}
# a marker line as LLM systems lay it out: list numbering, bullets, quote marks or headings
# before it, markdown emphasis around it, a number after the word, an ASCII or fullwidth colon
_DECOR = r"(?:(?:[-*+\u2022>]|\d{1,3}[.)]|#{1,6})[ \t\u00a0]*)*"
_EMPH = r"(?:\*\*|__|\*|_)?"
_LAYOUT_MARKER = re.compile(
    rf"(?im)^{_PAD}{_DECOR}{_EMPH}(question|answer|q|a)(?:[ \t\u00a0]*(?:\#|\()?\d{{1,3}}\)?)?{_EMPH}[ "
    r"\t\u00a0]*[:\uff1a]"
    rf"{_EMPH}[ \t\u00a0]*")
# on the question's line, an answer marker in the same layouts ("Question 1: Who? Answer 1: Bob")
_LAYOUT_INLINE_ANSWER = re.compile(r"(?i)(?<![^\W_])" + _EMPH + r"answer(?:[ \t\u00a0]*(?:#|\()?\d{1,3}\)?)?" + _EMPH
                                   + r"[ \t\u00a0]*[:\uff1a]" + _EMPH)
_QUOTED_MARKER = re.compile(rf"(?i)^{_PAD}>[ \t\u00a0>]*{_EMPH}(?:question|q)\b")
_QUOTE = re.compile(rf"^{_PAD}>+[ \t\u00a0]?")
_PLAIN_MARKER = re.compile(r"(?i)(?:question|answer)[ \t\u00a0]*:")
# a marker alone on its line, its text on the next lines: a Markdown heading ("### Question", "## Answer 2",
# "#### Q1"), emphasis ("**Question**", "__Answer:__") or the bare word ("Question" / "Answer", a colon or not)
_BARE_MARKER = re.compile(
    rf"(?i)^{_PAD}(#{{1,6}}[ \t\u00a0]*)?({_EMPH})(question|answer|q|a)(?:[ \t\u00a0]*(?:\#|\()?\d{{1,3}}\)?)?{_EMPH}"
    rf"[ \t\u00a0]*[:\uff1a]?{_EMPH}[ \t\u00a0]*$")
# a Markdown heading that only labels a pair ("### Evidence 1", "## Pair 2:", "# Q&A 3"): structure, no evidence, in a
# text whose pairs are marked
_LABEL_HEADING = re.compile(
    rf"(?i)^{_PAD}#{{1,6}}[ \t\u00a0]*{_EMPH}(?:evidence|pair|item|source|q[ \t\u00a0]*&[ \t\u00a0]*a|qa|question[- "
    r"]answer"
    rf"(?: pair)?)s?(?:[ \t\u00a0]*(?:\#|\()?\d{{1,3}}\)?)?{_EMPH}[ \t\u00a0]*[:\uff1a]?{_EMPH}[ \t\u00a0]*$")


def _bare_markers(lines: List[str]) -> Optional[List[str]]:
    """``lines`` with each marker that stands alone on its line (:data:`_BARE_MARKER`) joined to its text (the next
    non-empty line) as ``Question: <text>`` / ``Answer: <text>``; None when the text has no such marker. A bare
    marker counts only in a text whose lines have both a question and an answer one, and a bare ``Q`` / ``A`` only
    as a heading or in emphasis, so that a line "Question" or "A" in plain text stays text; "Question:" alone on
    its line is the plain layout (nothing to repair)."""
    found = [_BARE_MARKER.match(line) for line in lines]
    # a bare Q / A counts only as a heading or in emphasis
    found = [m if m is not None and (m.group(1) or m.group(2) or m.group(3).lower() in ("question", "answer"))
             else None for m in found]
    kinds = {("question" if m.group(3).lower() in ("question", "q") else "answer") for m in found if m}
    pad = " \t\u00a0\u200b\u200c\u200d\u2060\ufeff"
    rewrite = [m is not None and not _PLAIN_MARKER.fullmatch(m.group(0).strip(pad)) for m in found]
    if kinds != {"question", "answer"} or not any(rewrite):
        return None
    out: List[Optional[str]] = list(lines)
    for k, m in enumerate(found):
        if m is None or out[k] is None or not rewrite[k]:
            continue
        word = m.group(3).lower()
        marker = "Question: " if word in ("question", "q") else "Answer: "
        j = k + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j < len(lines) and found[j] is None and not _LAYOUT_MARKER.match(lines[j]):
            out[k] = marker + lines[j].strip()
            for t in range(k + 1, j + 1):
                out[t] = None
        else:
            out[k] = marker
    return [line for line in out if line is not None]


class _Object(dict):
    """A JSON object as :func:`_loads` builds it: ``clashes`` maps a key as :func:`_pair_keys` reads it (any case,
    stripped) to the keys of the object that name it, where there are several (``"answer"`` and ``"Answer"``, or
    ``"answer"`` twice: a plain ``json.loads`` keeps the last one, silently)."""

    clashes: Dict[str, List[str]] = {}


def _object(items: List[Tuple[str, object]]) -> _Object:
    obj = _Object(items)
    names: Dict[str, List[str]] = {}
    for k, _ in items:
        names.setdefault(k.strip().lower(), []).append(k)
    obj.clashes = {n: ks for n, ks in names.items() if len(ks) > 1}
    return obj


def _loads(text: str) -> object:
    """``json.loads(text)`` with objects as :class:`_Object` (their clashing keys kept for :func:`_pair_problem`).

    Raises:
        ValueError: not JSON (``json.JSONDecodeError``), or an integer too long to convert. RecursionError: nested
            past the parser's depth.
    """
    return json.loads(text, object_pairs_hook=_object)


def _json_pair(value: object) -> Optional[Tuple[str, str]]:
    """``(question, answer)`` when ``value`` (a JSON object, or the JSON text of one) has one ``question`` and one
    ``answer`` (keys in any case, text or finite number values; other keys are ignored) -- :func:`_pair_problem` finds
    nothing -- else None."""
    if isinstance(value, str):
        try:
            value = _loads(value)
        except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth: read as text
            return None
    if not isinstance(value, dict) or _pair_problem(value) is not None:
        return None
    keys = _pair_keys(value)
    q, a = keys["question"], keys["answer"]
    # one JSON string is one question or answer: a line inside it that a reader could take for a marker
    # ("Question: ...", "**A2:** ...") is joined to the line before, so that the pair's text stays one field when it is
    # rendered and read again (parse_qa_text never reads the fields as text: _json_pairs holds them out)
    return (_REPEATED["question"].sub("", _one_field(str(q))),
            _REPEATED["answer"].sub("", _one_field(str(a))))


def _json_list(text: str) -> Optional[list]:
    """``text`` read as a JSON list, or None when it is not one (bad JSON, too deep, another JSON value)."""
    try:
        value = _loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, list) else None


def _pair_keys(value: object) -> dict:
    """The keys of a JSON object as :func:`_json_pair` reads them (any case, stripped)."""
    return {str(k).strip().lower(): v for k, v in value.items()} if isinstance(value, dict) else {}


def _pair_problem(value: object) -> Optional[str]:
    """Why ``value``, an entry written as a question/answer pair, is none (``".answer: expected a string or a
    number, got null"``), or None when :func:`_json_pair` reads it: a ``question`` and an ``answer``, each given once
    (keys in any case: ``"answer"`` beside ``"Answer"`` is refused, never one of them kept), each a string or a finite
    number (``NaN``, ``Infinity``, ``1e999`` are refused, never read as the text "nan" / "inf")."""
    if not isinstance(value, dict):
        return f": expected an object {{\"question\": ..., \"answer\": ...}}, got {describe_json(value)}"
    keys = _pair_keys(value)
    clashes = getattr(value, "clashes", {})
    for key in ("question", "answer"):
        if key in clashes:
            return (f": keys {' and '.join(repr(k) for k in clashes[key])} both give the {key} (keys are read in any "
                    "case); give one")
        if key not in keys:
            return f".{key}: missing"
        v = keys[key]
        if not isinstance(v, (str, int, float)) or isinstance(v, bool):
            return f".{key}: expected a string or a number, got {describe_json(v)}"
        if isinstance(v, float) and not math.isfinite(v):
            return f".{key}: expected a string or a finite number, got {describe_json(v)}"
    return None


#: A key of a question/answer pair, in JSON (or Python's) quotes, before its colon: text that holds one is written
#: as pairs, even where it is no valid JSON.
_PAIR_KEY = re.compile(r"""(?i)["']\s*(?:question|answer)\s*["']\s*:""")
#: JSON strings, brackets and commas, to count the entries of a list before an offset (:func:`_entry_at`).
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},]')


def _entry_at(text: str, offset: int) -> Optional[int]:
    """The entry (from 0) of the JSON list ``text`` that ``offset`` falls in, or None when it falls outside the list
    (after its closing bracket)."""
    depth = entry = 0
    for m in _JSON_TOKEN.finditer(text, 0, offset):
        c = m.group(0)
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif c == "," and depth == 1:
            entry += 1
    return entry if depth >= 1 else None


def _unreadable(text: str) -> Optional[Tuple[str, Optional[int]]]:
    """Why the JSON text ``text`` cannot be read, and the offset where (None where unknown), or None when it can."""
    try:
        _loads(text)
    except json.JSONDecodeError as e:
        return f"not valid JSON ({e.msg} at line {e.lineno}, column {e.colno} of the text)", e.pos
    except RecursionError:
        return "nested too deep to read (lists or objects inside each other)", None
    except ValueError:  # int(): more digits than Python converts
        m = re.search(r"\d{%d,}" % (_max_digits() + 1), text)
        return (f"holds an integer of more than {_max_digits()} digits (Python's limit)",
                None if m is None else m.start())
    return None


def _max_digits() -> int:
    return sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 4300


def json_pair_problems(text: str) -> List[str]:
    """The question/answer pairs written as JSON in ``text`` that :func:`parse_qa_text` cannot read as pairs
    (it reads them as plain text), each as where it is and why, to follow a field name: ``"[2].answer: expected
    a string or a number, got null"`` for entry 2 (from 0) of a text that is a JSON list holding pair objects,
    ``" (line 3 of its text).answer: missing"`` for a line that is a JSON object with a ``question`` or
    ``answer`` key. Also JSON written as pairs that is no valid JSON: a text that opens a list of objects (``[{``)
    and holds a ``"question"`` or ``"answer"`` key, or such a line, that JSON cannot read (``"[1]: not valid JSON
    (Expecting ',' delimiter at line 1, column 60 of the text)"``: the entry where reading stopped; one bad entry
    would make the whole text one block of plain text). ``[]``: none (plain text, pairs that all read, JSON that
    holds no pair object).

    >>> json_pair_problems('[{"question": "Q?", "answer": "A."}, {"question": "Q?", "answer": null}]')
    ['[1].answer: expected a string or a number, got null']
    >>> json_pair_problems('Context.\\n{"question": "Who?"}'), json_pair_problems('[1, 2]')
    ([' (line 2 of its text).answer: missing'], [])
    >>> json_pair_problems('[{"question": "Q?", "answer": NaN}, {"question": "Q?", "answer": "A", "Answer": "B"}]')
    ... # doctest: +NORMALIZE_WHITESPACE
    ['[0].answer: expected a string or a finite number, got NaN',
     "[1]: keys 'answer' and 'Answer' both give the answer (keys are read in any case); give one"]
    """
    if not isinstance(text, str):
        return []
    text = normalize_text(text).strip()  # as parse_qa_text reads it: its lines are these lines
    if "{" not in text:
        return []
    if text.startswith("["):
        value = _json_list(text)
        if value:
            if not any(_pair_keys(v).keys() & {"question", "answer"} for v in value):
                return []  # JSON, but no entry is written as a pair: plain text
            return [f"[{k}]{p}" for k, v in enumerate(value) if (p := _pair_problem(v)) is not None]
        bad = _unreadable(text) if re.match(r"\[\s*\{", text) and _PAIR_KEY.search(text) else None
        if bad is not None:
            entry = None if bad[1] is None else _entry_at(text, bad[1])
            return [(f"[{entry}]: " if entry is not None else ": ") + bad[0]]
    out = []
    for j, line in enumerate(_lines(text), 1):
        stripped = line.strip().rstrip(",").strip()
        if not (stripped.startswith("{") and stripped.endswith("}")):
            continue
        try:
            obj = _loads(stripped)
        except (ValueError, RecursionError):
            bad = _unreadable(stripped) if _PAIR_KEY.search(stripped) else None
            if bad is not None:
                out.append(f" (line {j} of its text): {bad[0]}")
            continue
        if _pair_keys(obj).keys() & {"question", "answer"}:
            p = _pair_problem(obj)
            if p is not None:
                out.append(f" (line {j} of its text){p}")
    return out


#: The characters that end a line beside LF (CR is LF by then: :func:`claimalign.text.normalize_text`), as
#: :meth:`str.splitlines` reads them: VT, FF, the file / group / record separators, NEL, U+2028, U+2029. Where pairs
#: are read they are line breaks: a marker after one starts a line.
_OTHER_BREAKS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _lines(text: str) -> List[str]:
    """The lines of ``text`` as pairs are read: split at LF, and a line that is not one JSON object whole is split at
    the other line breaks too (:data:`_OTHER_BREAKS`; a JSON string may hold a raw U+2028 or NEL)."""
    out: List[str] = []
    for line in text.split("\n"):
        if _OTHER_BREAKS.search(line) is None:
            out.append(line)
            continue
        stripped = line.strip().rstrip(",").strip()
        whole = stripped.startswith("{") and stripped.endswith("}")
        if whole:
            try:
                _loads(stripped)
            except (ValueError, RecursionError):
                whole = False
        out.extend([line] if whole else _OTHER_BREAKS.split(line))
    return out


#: A line that begins like a question or answer marker of any layout (``Q2:``, ``**A2:**``, ``Question2:``, ``1.
#: Question:``, ``### Answer``), or like a JSON object or list (for :func:`_one_field`).
_MARKER_LIKE = re.compile(r"^(?:[\W\d_]*(?:question|answer|q|a)(?![^\W\d_])|\s*[\[{])", re.IGNORECASE)


def _one_field(value: str) -> str:
    """``value`` stripped, with each line that starts like a marker joined to the line before by a space; every
    line break (:data:`_OTHER_BREAKS` too) is LF."""
    lines = _OTHER_BREAKS.sub("\n", value).strip().split("\n")
    out = lines[:1]
    for line in lines[1:]:
        if _MARKER_LIKE.match(line):
            while len(out) > 1 and not out[-1].strip():  # blank lines before it go too
                out.pop()
            out[-1] = f"{out[-1].rstrip()} {line.strip()}"
        else:
            out.append(line)
    return "\n".join(out)


def _placeholder_mark(text: str) -> str:
    """A private-use character that ``text`` does not hold, to mark the JSON fields :func:`_json_pairs` holds out."""
    return next(chr(c) for c in range(0xE000, 0xF900) if chr(c) not in text)


def _json_pairs(text: str, notes: Optional[set], fields: List[str], mark: str) -> str:
    """``text`` with question/answer pairs written as JSON (:data:`LAYOUT_NOTES` ``json_pairs``) rewritten as
    ``Question: ...`` / ``Answer: ...`` blocks: a whole text that is a JSON list of pair objects, or each line
    that is one pair object (other lines are left as they are). The question and answer of each pair are held out
    of the text: it holds ``Question: <mark>k<mark>`` / ``Answer: <mark>k+1<mark>`` with the fields appended to
    ``fields`` (:func:`parse_qa_text` puts them back), so that nothing inside a JSON string -- a marker in any
    layout, a blank line, a heading -- is read as layout: one JSON pair is one pair, its answer stays its answer."""
    if "{" not in text:
        return text

    def block(pair: Tuple[str, str]) -> str:
        fields.extend(pair)
        return f"Question: {mark}{len(fields) - 2}{mark}\nAnswer: {mark}{len(fields) - 1}{mark}"

    blocks: Optional[List[Tuple[str, str]]] = None
    if text.startswith("["):
        value = _json_list(text)
        if value:
            found = [_json_pair(v) for v in value]
            blocks = None if None in found else [p for p in found if p is not None]
    if blocks is not None:
        out = [block(p) for p in blocks]
    else:
        out, changed = [], False
        for line in _lines(text):
            stripped = line.strip().rstrip(",").strip()
            pair = _json_pair(stripped) if stripped.startswith("{") and stripped.endswith("}") else None
            if pair is not None:
                changed = True
                out.append(f"\n{block(pair)}\n")
            else:
                out.append(line)
        if not changed:
            return text
    if notes is not None:
        notes.add("json_pairs")
    return "\n\n".join(out) if blocks is not None else "\n".join(out).strip()


def _canonical_markers(text: str, notes: Optional[set]) -> str:
    """``text`` with each marker line of another layout (:data:`LAYOUT_NOTES` ``marker_layout``) rewritten
    as ``Question: ...`` / ``Answer: ...``; lines already in the AVeriTeC layout are left as they are. The
    short markers ``Q:`` / ``A:`` count only in a text whose lines use both (a line "A: ..." alone is no
    answer marker)."""
    lines = text.split("\n")
    changed = False
    bare = _bare_markers(lines)
    if bare is not None:
        lines, changed = bare, True
    if any(_QUOTED_MARKER.match(line) for line in lines):  # a quoted block: the quote marks of every line go
        lines = [_QUOTE.sub("", line) for line in lines]
        changed = True
    found = [_LAYOUT_MARKER.match(line) for line in lines]
    short = {m.group(1).lower() for m in found if m} >= {"q", "a"}
    for k, m in enumerate(found):
        if m is None:
            continue
        word = m.group(1).lower()
        if word in ("q", "a") and not short:
            continue
        rest = lines[k][m.end():]
        inline = _LAYOUT_INLINE_ANSWER.search(rest) if word in ("question", "q") else None
        if inline is not None and _PLAIN_MARKER.fullmatch(inline.group(0)):
            inline = None  # "Answer:" on the question's line: the reader's own repair (answer_inline)
        if _PLAIN_MARKER.fullmatch(m.group(0).strip(" \t\u00a0\u200b\u200c\u200d\u2060\ufeff")) and inline is None:
            continue
        if inline is not None:
            rest = f"{rest[:inline.start()]}Answer: {rest[inline.end():].lstrip()}"
        lines[k] = ("Question: " if word in ("question", "q") else "Answer: ") + rest
        changed = True
    if any(_LABEL_HEADING.match(line) for line in lines) and any(_QUESTION.match(line) for line in lines):
        lines = [line for line in lines if not _LABEL_HEADING.match(line)]  # "### Evidence 1" labels a marked pair
        changed = True
    if changed and notes is not None:
        notes.add("marker_layout")
    return "\n".join(lines) if changed else text


def _split_block(body: str, notes: Optional[set]) -> Tuple[str, str]:
    """(question, answer) of one block's text after its ``Question:`` marker."""
    m = _ANSWER_LINE.search(body)
    if m is None:
        first_line = body.split("\n", 1)[0]
        m = _ANSWER_INLINE.search(first_line)
        if m is not None and notes is not None:
            notes.add("answer_inline")
    if m is not None:
        question, answer = body[:m.start()].strip(), _REPEATED["answer"].sub("", body[m.end():].strip())
        if "\n" in question and notes is not None:
            notes.add("multi_line_question")
        return question, answer
    body = body.strip()
    if "\n" in body:
        question, answer = body.split("\n", 1)
    else:
        k = body.find("?")
        question, answer = (body[:k + 1], body[k + 1:]) if k >= 0 else (body, "")
    question, answer = question.strip(), answer.strip()
    if answer and notes is not None:
        notes.add("no_answer_marker")
    return question, answer


def parse_qa_text(text: str, notes: Optional[set] = None) -> List[Tuple[str, str]]:
    """Split question/answer evidence text into ``(question, answer)`` pairs (module docstring).

    Args:
        text: evidence text; CR LF and lone CR read as LF, NFC-normalised.
        notes: a set that receives the keys of :data:`LAYOUT_NOTES` for repairs this text needed.

    Returns:
        The pairs in text order, stripped; ``question`` is ``""`` for plain text and answer-only
        pairs. Empty or whitespace-only text gives ``[]``. Pairs are kept as given (no deduplication).

    Raises:
        ValueError: ``text`` is not a string.

    >>> parse_qa_text("Question: Who won?\\nAnswer: Bob.\\n\\nquestion: Where? answer: Paris.")
    [('Who won?', 'Bob.'), ('Where?', 'Paris.')]
    >>> parse_qa_text("Question: \\nAnswer: The report says 6%.")
    [('', 'The report says 6%.')]
    """
    if not isinstance(text, str):
        raise ValueError(f"text: expected a string, got {type(text).__name__}")
    text = normalize_text(text).strip()
    if not text:
        return []
    fields: List[str] = []
    mark = _placeholder_mark(text) if "{" in text else ""
    text = _json_pairs(text, notes, fields, mark)
    text = _canonical_markers(_OTHER_BREAKS.sub("\n", text), notes)
    pairs: List[Tuple[str, str]] = []
    for block in _QUESTION.split(text):
        block = block.strip().lstrip("\u200b\u200c\u200d\u2060\ufeff").strip()
        if not block:
            continue
        m = _QUESTION_MARK.match(block)
        if m is None:  # text before the first marker, or no marker at all
            pairs.append(("", block))
            continue
        pairs.append(_split_block(_REPEATED["question"].sub("", block[m.end():].lstrip()), notes))
    if fields:  # the JSON pairs' questions and answers, held out by _json_pairs, back where they stand
        held = re.compile(re.escape(mark) + r"(\d+)" + re.escape(mark))
        pairs = [(held.sub(lambda m: fields[int(m.group(1))], q).strip(),
                  held.sub(lambda m: fields[int(m.group(1))], a).strip())
                 for q, a in pairs]
    return pairs


def evidence_from_text(text: str, notes: Optional[set] = None) -> Evidence:
    """The :class:`~claimalign.evidence.Evidence` of AVeriTeC-rendered text (``Question: ...\\nAnswer: ...``
    blocks), read by :func:`parse_qa_text`: markers in any case, an answer on the question's line, answer-only pairs
    (``Question: \\nAnswer: ...``: plain text). Text without a ``Question:`` marker becomes one pair with an empty
    question. Duplicate questions are kept (the input is taken as given). Each question and answer is
    :func:`claimalign.text.clean_text`-ed. (``Evidence.from_text`` before ev2r 2.0.)

    Args:
        text: the evidence text; None reads as empty text (no pairs).
        notes: a set receiving the layout repairs the text needed (:data:`LAYOUT_NOTES` keys), for readers that
            warn with a count.

    Raises:
        TypeError: ``text`` is neither a string nor None (:func:`claimalign.text.clean_text`).

    >>> evidence_from_text("Paris.\\n\\nQuestion: Who won?\\nAnswer: Bob.").pairs
    (QAPair(question='', answer='Paris.'), QAPair(question='Who won?', answer='Bob.'))
    """
    return Evidence(tuple(QAPair(clean_text(q), clean_text(a)) for q, a in parse_qa_text(clean_text(text), notes)))
