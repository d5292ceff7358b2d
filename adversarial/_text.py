"""Small text helpers shared by the perturbations (regex based: no tokenizer data is needed).

Private module: the functions here are building blocks of :mod:`adversarial.perturbations`.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Callable, Optional, Union

import numpy as np

RNG = Union[np.random.Generator, random.Random]

#: A word: letters, possibly with inner apostrophes or hyphens ("don't", "Ocasio-Cortez").
WORD_RE = re.compile(r"[A-Za-z]+(?:['\u2019\-][A-Za-z]+)*")

#: A number written with digits: optional "$", thousands separators, decimals, optional "%".
#: Digits glued to letters, hyphens, slashes or colons (COVID-19, 3rd, 12/05, 10:30) are not numbers
#: here: changing or spelling them out would not be a clean edit.
NUMBER_RE = re.compile(
    r"(?<![\w.,/:\-\u2019'])(?P<cur>\$)?(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?P<dec>\.\d+)?(?P<pct>%)?"
    r"(?![\w/:\-]|[.,]\d)"
)

#: Sentence boundary: after ., ! or ? followed by whitespace.
_SENT_SPLIT_RE = re.compile(r"(?<=[.!?])\s+")


def as_generator(rng: RNG) -> np.random.Generator:
    """A numpy Generator from either a numpy Generator (returned as is) or a ``random.Random``
    (seeded from 64 bits drawn from it, so the result is a deterministic function of its state).

    Raises:
        ValueError: ``rng`` is neither.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, random.Random):
        return np.random.default_rng(rng.getrandbits(64))
    raise ValueError(f"rng: expected numpy.random.Generator or random.Random, got {type(rng).__name__}")


def split_sentences(text: str) -> list[tuple[str, str]]:
    """Split ``text`` into (sentence, following whitespace) pieces; joining them gives ``text`` back."""
    pieces: list[tuple[str, str]] = []
    pos = 0
    for m in _SENT_SPLIT_RE.finditer(text):
        pieces.append((text[pos:m.start()], m.group(0)))
        pos = m.end()
    if pos < len(text) or not pieces:
        pieces.append((text[pos:], ""))
    return pieces


def map_sentences(text: str, fn: Callable[[str], str]) -> str:
    """Apply ``fn`` to every non-blank sentence of ``text``, keeping the whitespace between them."""
    return "".join((fn(s) if s.strip() else s) + ws for s, ws in split_sentences(text))


def match_case(template: str, word: str) -> str:
    """``word`` with the capitalisation of ``template`` (all caps, capitalised, or as is)."""
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


@dataclass(frozen=True)
class NumberToken:
    """A number found by :data:`NUMBER_RE` in a text."""

    start: int
    end: int
    text: str
    value: Decimal
    has_commas: bool
    decimals: int
    currency: bool
    percent: bool

    @property
    def is_integer(self) -> bool:
        return self.decimals == 0

    @property
    def is_year(self) -> bool:
        """Four digits without separators, 1100-2099: read as a year."""
        digits = self.text.lstrip("$").rstrip("%")
        return self.is_integer and not self.has_commas and len(digits) == 4 and 1100 <= self.value <= 2099


def find_numbers(text: str) -> list[NumberToken]:
    """All digit-written numbers in ``text`` (see :data:`NUMBER_RE`)."""
    out = []
    for m in NUMBER_RE.finditer(text):
        dec = m.group("dec") or ""
        value = Decimal(m.group("int").replace(",", "") + dec)
        out.append(NumberToken(m.start(), m.end(), m.group(0), value, "," in m.group("int"),
                               len(dec) - 1 if dec else 0, bool(m.group("cur")), bool(m.group("pct"))))
    return out


def format_number(value: Decimal, like: NumberToken) -> str:
    """``value`` written the way ``like`` was (currency sign, separators, decimals, percent)."""
    if like.decimals:
        body = f"{value:,.{like.decimals}f}" if like.has_commas else f"{value:.{like.decimals}f}"
    else:
        iv = int(value.to_integral_value())
        body = f"{iv:,}" if like.has_commas else str(iv)
    return ("$" if like.currency else "") + body + ("%" if like.percent else "")


def replace_spans(text: str, spans: list[tuple[int, int, str]]) -> str:
    """Replace non-overlapping (start, end, new) spans of ``text``."""
    out, pos = [], 0
    for start, end, new in sorted(spans):
        out.append(text[pos:start])
        out.append(new)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def first_index(seq, pred: Callable) -> Optional[int]:
    """Index of the first element of ``seq`` satisfying ``pred``, or None."""
    for i, x in enumerate(seq):
        if pred(x):
            return i
    return None
