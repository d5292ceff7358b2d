"""The one reader of question/answer evidence text (the AVeriTeC rendering), used by every scorer.

AVeriTeC renders evidence as blocks ``Question: <q>\\nAnswer: <a>`` separated by a blank line
(Schlichtkrull et al. 2023; the Ev2R rating files use the same form). Real systems' files bend it;
:func:`parse_qa_text` reads all of these alike:

* a block starts at a ``Question:`` marker at the start of a line, in any case (``question:``,
  ``QUESTION :``); text before the first marker, or text without any marker, is one pair with an
  empty question (plain-text evidence);
* the answer starts at the block's first ``Answer:`` marker, in any case: preferably at the start
  of a line, else anywhere on the question's line after a space (``Question: Who? Answer: Bob``);
* ``Question: \\nAnswer: <a>`` (an empty question) is an answer-only pair: the answer is kept as
  plain-text evidence, never read as the question;
* a block without an answer marker: the lines after its first line are the answer; on a single
  line, the text after the first ``?`` is the answer (a question with no answer text at all stays a
  question with an empty answer, which yields no fact).

Layouts that needed one of the repairs are reported through ``notes`` (:data:`LAYOUT_NOTES`) so
that readers can warn, counting rows, instead of silently changing a file's meaning.

Also here: :func:`is_unanswerable` (AVeriTeC's text for an Unanswerable answer, "No answer could be
found.") and :func:`has_content` (text with at least one letter or digit, in any script).
"""

from __future__ import annotations

import re
from typing import List, Optional, Tuple

from claimalign.textio import normalize_text

__all__ = ["LAYOUT_NOTES", "NO_ANSWER", "parse_qa_text", "is_unanswerable", "has_content"]

#: AVeriTeC's answer text for a question the annotators could not answer (answer_type "Unanswerable").
NO_ANSWER = "No answer could be found."

#: What :func:`parse_qa_text` may report about a text's layout (one note per kind, per text).
LAYOUT_NOTES = {
    "answer_inline": "the answer marker stands on the question's line (Question: ... Answer: ...)",
    "multi_line_question": "a question spans several lines before its Answer: marker (read as one question)",
    "no_answer_marker": "a Question: block has no Answer: marker (the text after its first line, or after "
                        "its first '?', read as the answer)",
}

# spaces a marker may stand after at a line start: blanks, NBSP and the invisible characters
# (zero-width space / joiners, word joiner, BOM) that copy-pasted web text carries
_PAD = "[ \\t\u00a0\u200b\u200c\u200d\u2060\ufeff]*"
_QUESTION = re.compile(rf"(?im)^{_PAD}(?=question[ \t\u00a0]*:)")
_QUESTION_MARK = re.compile(r"(?i)question[ \t\u00a0]*:")
_ANSWER_LINE = re.compile(rf"(?im)^{_PAD}answer[ \t\u00a0]*:")
# on the question's line: after anything but a letter or digit ("Who won? Answer:", "won?Answer:")
_ANSWER_INLINE = re.compile(r"(?i)(?<![^\W_])answer[ \t\u00a0]*:")
# a marker repeated at the start of the text it introduces ("Answer: Answer: Bob")
_REPEATED = {"question": re.compile(r"(?i)^(?:question[ \t\u00a0]*:\s*)+"),
             "answer": re.compile(r"(?i)^(?:answer[ \t\u00a0]*:\s*)+")}
_INVISIBLE = re.compile("[\u00a0\u200b\u200c\u200d\u2060\ufeff\u2018\u2019\u201c\u201d\"'\u00ab\u00bb]")
_UNANSWERABLE = re.compile(r"^no answer could be found[.!?]*$")


def has_content(text: Optional[str]) -> bool:
    """True when ``text`` holds at least one letter or digit (``str.isalnum``, any script).

    Text made only of punctuation, symbols, emoji or whitespace ("...", "?!?!", "🙂") states
    nothing: it is no atomic fact and supports nothing (issue: content-free facts got P(entailment)
    0.73-0.86 against unrelated premises). ``None`` or ``""`` -> False.
    """
    return bool(text) and any(ch.isalnum() for ch in text)  # type: ignore[union-attr]


def is_unanswerable(answer: Optional[str]) -> bool:
    """True when ``answer`` is AVeriTeC's Unanswerable text ("No answer could be found.", any case,
    with or without the final full stop, quotes, repeated punctuation or extra / invisible spaces).
    Such a pair records that a question found no answer: it
    is no fact about the world (issue 20, item 1)."""
    if not answer:
        return False
    text = " ".join(_INVISIBLE.sub(" ", answer).split()).lower()  # quotes, NBSP, zero-width, runs of spaces
    return _UNANSWERABLE.match(re.sub(r"\s+([.!?])", r"\1", text)) is not None


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
    return pairs
