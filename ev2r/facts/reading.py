"""One reading of a text's words, made once and read by every rule: :func:`read_text` reads a text with the word
utilities of :mod:`claimalign.words` into a :class:`TextReading`, a frozen value whose fields are all computed when it
is made. The admission rules, the restatement rule and the reference scorer read these fields instead of reading the
text again pair by pair.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Optional

from claimalign.text import normalize_text
from claimalign.words import (content_tokens, has_content, is_bare_answer, is_unanswerable, stem_word,
                              strip_unanswerable, word_tokens)

__all__ = ["TextReading", "read_text", "PIECE"]

#: The pieces :attr:`TextReading.pieces` splits a text into: a number, a run of letters, or one punctuation mark.
PIECE = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+|[^\w\s]")


@dataclass(frozen=True)
class TextReading:
    """What the rules read of one text, read once (:func:`read_text`); every field is computed when it is made.

    Attributes:
        text: the text as given ("" for None).
        has_content: it holds a letter or digit (:func:`claimalign.words.has_content`).
        unanswerable: it is AVeriTeC's Unanswerable text (:func:`claimalign.words.is_unanswerable`).
        answered: the text less its Unanswerable sentences (:func:`claimalign.words.strip_unanswerable`; the text
            itself when it has none).
        content: its content tokens (:func:`claimalign.words.content_tokens`: stems, numbers; a frozenset of str).
        words: its case-folded words and numbers in order, URLs left out (:func:`claimalign.words.word_tokens`).
        stems: the stem of each of ``words`` (:func:`claimalign.words.stem_word`), as many as ``words``.
        span: its words and numbers, URLs included, joined by one space (a span of it is a substring of this).
        bare: it has text but no content word (:func:`claimalign.words.is_bare_answer`).
        content_words: how many of its whitespace-separated words hold a letter or digit (>= 0).
        pieces: (piece, the piece's content tokens) for each :data:`PIECE` of the text, in order.
        colon_tail: the reading of the normalised text after its last colon, or None when it has none.
    """

    text: str
    has_content: bool
    unanswerable: bool
    answered: str
    content: frozenset
    words: tuple
    stems: tuple
    span: str
    bare: bool
    content_words: int
    pieces: tuple
    colon_tail: Optional["TextReading"]


def _read(text: str) -> TextReading:
    """The reading of ``text`` (a str)."""
    # the word utilities in one run, each read once
    head, colon, tail = normalize_text(text).rpartition(":") if text else ("", "", "")
    bare = is_bare_answer(text)
    content = content_tokens(text)
    flags = (has_content(text), is_unanswerable(text))
    answered = strip_unanswerable(text)
    pieces = PIECE.findall(text)
    piece_content = tuple(map(content_tokens, pieces))
    content_words = sum(map(has_content, text.split()))
    words = tuple(word_tokens(text))
    span = " ".join(word_tokens(text, urls=True))
    stems = tuple(map(stem_word, words))
    return TextReading(text, flags[0], flags[1], answered, content, words, stems, span, bare, content_words,
                       tuple(zip(pieces, piece_content)), read_text(tail) if colon else None)


@functools.lru_cache(maxsize=1 << 13)
def read_text(text: Optional[str]) -> TextReading:
    """The reading of ``text`` (a str, or None read as ""), made once per distinct text (memoised: the 8,192 texts
    read last, about 9 KB each, are kept; an item's texts are read by several rules within its chunk).

    >>> r = read_text("Reuters: the vaccine was approved in 2021.")
    >>> sorted(r.content), r.bare, r.content_words, r.colon_tail.span
    (['2021', 'approv', 'reuter', 'vaccin'], False, 7, 'the vaccine was approved in 2021')
    """
    return _read(text or "")
