"""The errors and warnings of the readers (:mod:`ev2r.io.readers`, :mod:`ev2r.io.averitec`), and how a
message names where the problem is.
"""

from __future__ import annotations

from typing import Any

__all__ = ["InputError", "InputWarning", "where"]


class InputError(ValueError):
    """Unusable input: the message names the file, the row and the field."""


class InputWarning(UserWarning):
    """A field the run does not need could not be read; the run goes on (the message counts the rows)."""


def where(path: str, row: int, rid: Any = None) -> str:
    """``FILE: row 3`` or ``FILE: row 3 (id '7')``: the start of an error message about one row."""
    return f"{path}: row {row}" + (f" (id {rid!r})" if rid is not None else "")
