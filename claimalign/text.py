"""Text normalisation: the one form every string read takes (``claimalign`` imports nothing from ``ev2r`` or
``adversarial``; all three packages use this).

* :func:`normalize_text`, applied to every string read: Unicode NFC (NFD "r" + combining caron and NFC "ř" are one
  text) and CR LF / lone CR as LF. Nothing else: U+2028, U+2029, NEL are data; no NFKC ("²" stays "²").
* :func:`clean_text`: that, without edge whitespace and invisible characters (:data:`INVISIBLE`);
  :func:`is_valid_id`, what an item identifier may be; :func:`check_encodable`, no lone surrogate in a parsed row.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Optional

__all__ = ["normalize_text", "normalize_strings", "clean_text", "is_valid_id", "check_encodable", "INVISIBLE"]

_CR = re.compile(r"\r\n?")

#: Characters that render as nothing: zero-width space/joiners, word joiner, BOM, soft hyphen.
INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad"
_EDGE = re.compile(rf"^[\s{INVISIBLE}]+|[\s{INVISIBLE}]+$")


def normalize_text(text: str) -> str:
    """``text`` in Unicode NFC with CR LF and lone CR turned into LF (module docstring).

    Idempotent; leaves every other character as it is.

    Args:
        text: a string.

    Raises:
        TypeError: ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise TypeError(f"text: expected a string, got {type(text).__name__}")
    if "\r" in text:
        text = _CR.sub("\n", text)
    if not text.isascii() and not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return text


def normalize_strings(value: Any) -> Any:
    """A copy of a parsed JSON value with :func:`normalize_text` applied to every string (object
    keys included); numbers, booleans and null are returned as they are. Tuples stay tuples."""
    if isinstance(value, str):
        return normalize_text(value)
    if isinstance(value, dict):
        return {normalize_strings(k): normalize_strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize_strings(v) for v in value]
    if isinstance(value, tuple):
        return tuple(normalize_strings(v) for v in value)
    return value


def clean_text(text: Optional[str]) -> str:
    """:func:`normalize_text` of ``text`` without leading/trailing whitespace and invisible
    characters (zero-width space, joiners, BOM, soft hyphen): ``"\\u200b "`` -> ``""``, so
    invisible-only evidence is empty evidence and never becomes an atomic fact. ``None`` -> ``""``.

    Raises:
        TypeError: ``text`` is neither a string nor None.
    """
    if text is None:
        return ""
    return _EDGE.sub("", normalize_text(text))


def is_valid_id(value: Any) -> bool:
    """True for an item identifier: a non-empty (after :func:`clean_text`) string or an integer
    (not a bool). Used wherever rows are joined on ids (inputs, ``ev2r rank``, ``ev2r align``)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, str) and bool(clean_text(value)))


def check_encodable(value: Any, where: str, field: str, error: type = ValueError) -> None:
    """Every string in a parsed row must be valid Unicode text: JSON escapes such as ``"\\ud800"``
    decode to lone surrogates, which no tokenizer or UTF-8 writer accepts.

    Args:
        value: a parsed JSON value (str, dict, list, number...).
        where: the location for the message (file and row).
        field: the field path of ``value`` ('' for the whole row).
        error: the exception class to raise (a ``ValueError`` subclass).

    Raises:
        ``error``: naming ``where`` and the field path.
    """
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:
            raise error(f"{where}: field {field or '(row)'!r} holds an invalid character "
                        f"({value[e.start]!r} at position {e.start}: a lone surrogate, not text)") from None
    elif isinstance(value, dict):
        for k, v in value.items():
            check_encodable(k, where, field, error)
            check_encodable(v, where, f"{field}.{k}" if field else str(k), error)
    elif isinstance(value, list):
        for j, v in enumerate(value):
            check_encodable(v, where, f"{field}[{j}]", error)
