"""The errors and warnings of the readers (:mod:`ev2r.io.readers`, :mod:`ev2r.io.averitec`), and how a
message names where the problem is.
"""

from __future__ import annotations

from typing import Any, Optional

from claimalign.jsonio import row_where

__all__ = ["InputError", "InputWarning", "where"]


class InputError(ValueError):
    """Unusable input: the message names the file, the row and the field."""


class InputWarning(UserWarning):
    """A field the run does not need could not be read; the run goes on (the message counts the rows)."""


def where(path: str, row: int, rid: Any = None, line: Optional[int] = None) -> str:
    """``FILE: row 3 (line 5, id '7')``: the start of an error message about one row -- the 0-based row, the
    1-based line of the file it starts on where known, the id where given; the one convention of every message
    (:func:`claimalign.jsonio.row_where`)."""
    return row_where(path, row, line, rid)
