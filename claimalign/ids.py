"""Row identifiers: the one rule every command applies when it reads ids.

An id is compared as text in Unicode NFC (:func:`id_key`): ``1`` and ``"1"`` are one id, and so are the NFC
and NFD spellings of one name (``"Ř"`` and ``"R"`` + combining caron). A row without an id is given its
0-based row number as its id by the readers that allow that (``ev2r score``'s items). Two rows of one file
whose ids are one id are a **collision**, refused when the file is read -- never scored first and refused
later by ``ev2r rank`` / ``ev2r align`` ("a second score") -- with an error that names both rows and what
made them collide (:class:`IdRegistry`):

* the same id written twice;
* a number and a text (``1`` and ``"1"``);
* two spellings that differ only by Unicode normalisation (NFC and NFD);
* a row without an id, whose row number is another row's id.
"""

from __future__ import annotations

from typing import Any, Optional

from claimalign.text import normalize_text

__all__ = ["id_key", "IdCollisionError", "IdRegistry", "collision_reason"]


class IdCollisionError(ValueError):
    """Two rows of one file have one id (:class:`IdRegistry`); the message names both rows and why."""


def id_key(value: Any) -> str:
    """The text an id is compared by: ``str(value)`` in Unicode NFC (an integer by its decimal digits).

    >>> id_key(1) == id_key("1"), id_key("R\\u030c") == id_key("\\u0158")
    (True, True)
    """
    return normalize_text(str(value))


def collision_reason(first: Any, second: Any, first_numbered: bool = False, second_numbered: bool = False) -> str:
    """Why two raw ids are one id (:func:`id_key`), in words: ``numbered`` marks an id that is the row number
    of a row without one.

    >>> collision_reason(1, "1")
    "1 (a number) and '1' (text) are the same id"
    >>> collision_reason("R\\u030c", "\\u0158")
    "'Ř' and 'Ř' are the same id in Unicode NFC (one is written decomposed, NFD)"
    """
    if first_numbered or second_numbered:
        n = first if first_numbered else second
        return f"a row without an id gets its row number {n} as its id, which the other row gives as its id"
    if type(first) is not type(second):
        def desc(v: Any) -> str:
            return f"{v!r} ({'a number' if isinstance(v, int) else 'text'})"
        return f"{desc(first)} and {desc(second)} are the same id"
    if first != second:
        return (f"{normalize_text(str(first))!r} and {normalize_text(str(second))!r} are the same id in Unicode NFC "
                "(one is written decomposed, NFD)")
    return "the same id is written twice (ids are read in Unicode NFC: NFC and NFD spellings are one id)"


class IdRegistry:
    """The ids of one file as they are read, refusing the second row of an id (module docstring).

    Args:
        source: the file, for messages.
        field: the id field's name, for messages.
        error: the exception class raised (a subclass of ValueError, e.g. ``ev2r.io.errors.InputError``);
            :class:`IdCollisionError` by default.

    >>> reg = IdRegistry("a.jsonl")
    >>> reg.add(1, "row 0 (line 1)")
    '1'
    >>> try:  # doctest: +NORMALIZE_WHITESPACE
    ...     reg.add("1", "row 3 (line 4)")
    ... except IdCollisionError as e:
    ...     print(e)
    a.jsonl: rows 0 (line 1) and 3 (line 4) have one id '1': 1 (a number) and '1' (text) are the same id; ids must be
    unique within a file (give each row its own id)
    """

    def __init__(self, source: str, field: str = "id", error: type = IdCollisionError):
        if not (isinstance(error, type) and issubclass(error, ValueError)):
            raise ValueError(f"error: expected a ValueError subclass, got {error!r}")
        self.source, self.field, self.error = source, field, error
        self._seen: dict[str, tuple[Any, str, bool]] = {}

    def add(self, raw: Any, where: str, numbered: bool = False, key: Optional[str] = None) -> str:
        """Record one row's id and return its key (:func:`id_key`).

        Args:
            raw: the id as the file gives it (before normalisation), or the row number when ``numbered``.
            where: the row, for messages (``"row 3 (line 4)"``).
            numbered: the row has no id and ``raw`` is its row number.
            key: the key when the caller computed it; default ``id_key(raw)``.

        Raises:
            ``self.error``: an earlier row has the same key: naming both rows, the id and why they collide
                (:func:`collision_reason`).
        """
        key = id_key(raw) if key is None else key
        if key in self._seen:
            first, first_where, first_numbered = self._seen[key]
            rows = (f"rows {first_where.removeprefix('row ')} and {where.removeprefix('row ')}"
                    if first_where.startswith("row ") and where.startswith("row ") else f"{first_where} and {where}")
            raise self.error(f"{self.source}: {rows} have one {'id' if self.field == 'id' else repr(self.field)} "
                             f"{key!r}: {collision_reason(first, raw, first_numbered, numbered)}; ids must be unique "
                             "within a file (give each row its own id)")
        self._seen[key] = (raw, where, numbered)
        return key
