"""JSON and JSONL records: reading them with limits, writing them so that they read back.

* Reading: a record may be nested at most :data:`MAX_JSON_DEPTH` deep, hold integers Python can convert, and give a
  key once per object; anything else is refused naming the file, row and field, never a RecursionError or a silent
  last-wins (:func:`loads_checked`). JSONL records are split on LF, CR LF or CR only, never with
  :meth:`str.splitlines` (U+2028 and the like may stand raw inside a JSON string). Every string read is
  :func:`claimalign.text.normalize_text`-ed; rows carry the line they start on (:class:`RowList`, :func:`row_where`).
* Writing: :func:`dumps_jsonl` escapes U+2028, U+2029 and U+0085 so every line ev2r writes is one line for any
  reader; files are written through :func:`claimalign.files.atomic_write`, and :func:`read_rows_file` reads back
  everything written here.
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any, Iterable, Iterator, Optional

from claimalign.files import atomic_write, read_text_file
from claimalign.text import check_encodable, normalize_strings

__all__ = [
    "split_jsonl_lines", "parse_jsonl", "parse_json_or_jsonl", "RowList", "row_where", "line_of", "list_element_lines",
    "read_rows_file", "dumps_jsonl", "write_jsonl", "write_json", "MAX_JSON_DEPTH", "json_depth", "check_depth",
    "loads_checked", "describe_json",
]

#: JSONL record separators: LF, CR LF or a lone CR -- nothing else (see module docstring).
_RECORD_SEP = re.compile(r"\r\n|\r|\n")
#: Characters that str.splitlines treats as line breaks but json.dumps(ensure_ascii=False) writes raw.
_RAW_LINE_BREAKS = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\u0085": "\\u0085"}
_RAW_LINE_BREAK_RE = re.compile("[\u2028\u2029\u0085]")

#: The deepest nesting (containers in containers) a record may have; see the module docstring.
MAX_JSON_DEPTH = 100

_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
_HUGE_INT_FIELD = r'"((?:[^"\\]|\\.)*)"\s*:\s*-?(\d{%d,})'  # % the digit limit + 1


def json_depth(value: Any, stop: Optional[int] = None) -> int:
    """The nesting depth of a parsed JSON value: 0 for a string, number, bool or null, 1 for a
    flat list or object, 1 + the deepest member otherwise. Iterative (no recursion limit).

    Args:
        value: a parsed JSON value.
        stop: return as soon as the depth exceeds this (``stop + 1``); None: the exact depth.

    >>> json_depth({"a": [1, {"b": []}]}), json_depth("x")
    (4, 0)
    """
    deepest = 0
    todo = [(value, 1)]
    while todo:
        v, d = todo.pop()
        if isinstance(v, dict):
            members: Iterable[Any] = v.values()
        elif isinstance(v, (list, tuple)):
            members = v
        else:
            continue
        if d > deepest:
            deepest = d
            if stop is not None and deepest > stop:
                return deepest
        todo.extend((m, d + 1) for m in members if isinstance(m, (dict, list, tuple)))
    return deepest


def _depth_message(where: str, limit: int) -> str:
    return (f"{where}: nested more than {limit} levels deep (lists/objects inside each other), the limit "
            "(claimalign.jsonio.MAX_JSON_DEPTH); no supported format nests more than a few levels")


def check_depth(value: Any, where: str, error: type = ValueError, limit: int = MAX_JSON_DEPTH) -> None:
    """Refuse a parsed record nested deeper than ``limit`` (:func:`json_depth`).

    Raises:
        ``error``: naming ``where`` (file and row) and the limit.
    """
    if json_depth(value, stop=limit) > limit:
        raise error(_depth_message(where, limit))


def _deep_offset(text: str, limit: int) -> Optional[int]:
    """Offset of the first bracket of ``text`` that opens a level deeper than ``limit`` (outside
    strings), or None."""
    depth = 0
    for m in _STRING_OR_BRACKET.finditer(text):
        c = m.group(0)
        if c in "[{":
            depth += 1
            if depth > limit:
                return m.start()
        elif c in "]}":
            depth -= 1
    return None


class _DuplicateKey(ValueError):
    """A key repeated in one JSON object (:func:`loads_checked`)."""


def _unique_keys(pairs: list) -> dict:
    out: dict = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out


def loads_checked(text: str, where: str, error: type = ValueError, limit: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads(text)`` for one record, refusing what Python's parser cannot take as data:
    nesting deeper than ``limit`` (:func:`check_depth`; also when ``json.loads`` itself runs out of
    recursion) and integers longer than ``sys.get_int_max_str_digits()`` digits (naming the field).

    Args:
        text: the JSON text of one record.
        where: the location for messages (file and row or line).
        error: the exception class to raise (a ``ValueError`` subclass).
        limit: the deepest nesting allowed (>= 1).

    Raises:
        json.JSONDecodeError: ``text`` is not valid JSON (the caller words the message).
        ``error``: too deep, an over-long integer (naming ``where``, the field and the limit), or a key given twice
            in one object (``{"claim": "a", "claim": "b"}``: JSON keeps the last silently; naming the key).
    """
    try:
        value = json.loads(text, object_pairs_hook=_unique_keys)
    except _DuplicateKey as dup:
        raise error(f"{where}: the key {dup.args[0]!r} is given twice in one object; JSON keeps the last silently, "
                    "so ev2r refuses it: give it once") from None
    except RecursionError:
        raise error(_depth_message(where, limit)) from None
    except json.JSONDecodeError:
        raise
    except ValueError as e:  # int(): "Exceeds the limit (4300 digits) for integer string conversion"
        raise error(_huge_int_message(text, where, e)) from None
    if isinstance(value, (dict, list)):
        check_depth(value, where, error, limit)
    return value


def _huge_int_message(text: str, where: str, exc: Exception) -> str:
    max_digits = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 4300
    m = re.search(_HUGE_INT_FIELD % (max_digits + 1), text)
    what = (f"field {m.group(1)!r} holds an integer of {len(m.group(2))} digits" if m
            else "a number is too long to read")
    return (f"{where}: {what}; at most {max_digits} digits are read (Python's int limit) -- an id or score "
            "this long is no number to compute with: give it as a string")


class RowList(list):
    """The rows of a file with ``lines``: the 1-based line each row starts on (blank JSONL lines and a
    pretty-printed JSON list make it differ from ``n + 1``), or None. Slices are plain lists."""

    def __init__(self, rows: Iterable[Any] = (), lines: Optional[Iterable[int]] = None) -> None:
        super().__init__(rows)
        self.lines: Optional[list[int]] = None if lines is None else list(lines)
        if self.lines is not None and len(self.lines) != len(self):
            raise ValueError(f"RowList: {len(self.lines)} lines for {len(self)} rows")


def line_of(rows: Any, n: int) -> Optional[int]:
    """The line row ``n`` of a :class:`RowList` starts on; None for rows from no file (a list, a dataset)."""
    lines = getattr(rows, "lines", None)
    return lines[n] if lines is not None and 0 <= n < len(lines) else None


def row_where(source: Any, row: int, line: Optional[int] = None, rid: Any = None) -> str:
    """Where a message about one row points, the one convention of every reader: the 0-based
    row (the score rows' ``row``), then, where known, the 1-based line it starts on and its id.

    >>> row_where("a.jsonl", 3, 5, "7"), row_where("a.jsonl", 0), row_where(None, 2, line=4)
    ("a.jsonl: row 3 (line 5, id '7')", 'a.jsonl: row 0', 'row 2 (line 4)')
    """
    notes = ([f"line {line}"] if line is not None else []) + ([f"id {rid!r}"] if rid is not None else [])
    head = f"{source}: row {row}" if source not in (None, "") else f"row {row}"
    return head + (f" ({', '.join(notes)})" if notes else "")


def list_element_lines(text: str, n_rows: int) -> Optional[list[int]]:
    """The line each object/list element of the JSON list ``text`` starts on; None unless ``n_rows``."""
    lines, depth, pos, line = [], 0, 0, 1
    for m in _STRING_OR_BRACKET.finditer(text):
        if m.group(0) in "[{":
            depth += 1
            if depth == 2:
                line, pos = line + text.count("\n", pos, m.start()), m.start()
                lines.append(line)
        elif m.group(0) in "]}":
            depth -= 1
    return lines if len(lines) == n_rows else None


def split_jsonl_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(line number from 1, line)`` for each line of JSONL ``text``, split on LF, CR LF or CR
    only (never on U+2028, U+0085 ... that may stand raw inside a JSON string)."""
    for n, line in enumerate(_RECORD_SEP.split(text), 1):
        yield n, line


def parse_jsonl(text: str, source: str = "<input>", error: type = ValueError) -> list[Any]:
    """Parsed records of JSONL ``text`` (blank lines skipped), strings :func:`normalize_text`-ed.

    Raises:
        ``error``: a line that is not valid JSON, a record nested deeper than
            :data:`MAX_JSON_DEPTH`, an integer too long to read, or a string holding a lone
            surrogate (naming ``source`` and the line).
    """
    rows: list = []
    lines: list[int] = []
    for n, line in split_jsonl_lines(text):
        if not line.strip():
            continue
        try:
            row = loads_checked(line, row_where(source, len(rows), n), error)
        except json.JSONDecodeError as e:
            hint = ""
            if not rows:  # the first record: most likely not a JSON file at all (CSV, TSV, text)
                hint = ("; the formats read are JSONL (one JSON object per line), a JSON list of objects, and "
                        "AVeriTeC JSON -- convert CSV/TSV/text first (e.g. pandas: "
                        "df.to_json(path, orient='records', lines=True))")
            raise error(f"{row_where(source, len(rows), n)} is not valid JSON ({e.msg}){hint}") from None
        check_encodable(row, row_where(source, len(rows), n), "", error)
        rows.append(normalize_strings(row))
        lines.append(n)
    return RowList(rows, lines)


def parse_json_or_jsonl(text: str, source: str = "<input>", error: type = ValueError) -> Any:
    """Parse a JSON list (text starting with ``[``), JSONL, or one JSON object spanning several
    lines (as ``ev2r rank`` writes). Strings are :func:`normalize_text`-ed.

    Returns:
        a list of rows (JSON list or JSONL), or the single object.

    Raises:
        ``error``: invalid JSON (naming ``source`` and the line), an empty list or no rows, a
            record nested deeper than :data:`MAX_JSON_DEPTH` or an over-long integer (naming the
            row and the limit).
    """
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            rows = json.loads(text)
        except RecursionError:  # name the row and line of the deep record
            raise error(_deep_list_message(text, source)) from None
        except json.JSONDecodeError as e:
            raise error(f"{source}: not valid JSON ({e.msg} at line {e.lineno})") from None
        except ValueError as e:  # an integer too long to convert
            raise error(_huge_int_message(text, source, e)) from None
        if not rows:
            raise error(f"{source}: no rows (an empty JSON list)")
        lines = list_element_lines(text, len(rows)) if isinstance(rows, list) else None
        for n, r in enumerate(rows):
            at = row_where(source, n, None if lines is None else lines[n])
            check_depth(r, at, error)
            check_encodable(r, at, "", error)
        rows = normalize_strings(rows)
        return RowList(rows, lines) if isinstance(rows, list) else rows
    if stripped.startswith("{"):
        first = next(line for _, line in split_jsonl_lines(stripped) if line.strip())
        try:
            loads_checked(first, f"{source}: line 1 (row 0)", error)
        except json.JSONDecodeError:  # not JSONL: maybe one pretty-printed object (`ev2r rank -o`)
            try:
                obj = loads_checked(text, source, error)
            except json.JSONDecodeError:
                obj = None
            if isinstance(obj, dict):
                check_encodable(obj, source, "", error)
                return normalize_strings(obj)
    rows = parse_jsonl(text, source, error)
    if not rows:
        raise error(f"{source}: no rows")
    return rows


def _deep_list_message(text: str, source: str) -> str:
    """The depth error for a JSON list of rows, naming the row and line of the first too-deep one."""
    off = _deep_offset(text, MAX_JSON_DEPTH + 1)
    if off is None:  # pragma: no cover - json.loads ran out of recursion below the limit
        return _depth_message(source, MAX_JSON_DEPTH)
    row, depth = 0, 0
    for m in _STRING_OR_BRACKET.finditer(text, 0, off):
        c = m.group(0)
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
            if depth == 1:
                row += 1
    line = text.count("\n", 0, off) + 1
    return _depth_message(row_where(source, row, line), MAX_JSON_DEPTH)


def describe_json(value: object) -> str:
    """A parsed JSON value as a message names it: ``null``, ``true``, ``false``, or its kind (``a string``,
    ``a number``, ``a list``, ``an object``).

    >>> describe_json(None), describe_json(False), describe_json(3), describe_json([1]), describe_json({})
    ('null', 'false', 'a number', 'a list', 'an object')
    >>> describe_json(float("nan")), describe_json(float("-inf"))
    ('NaN', '-Infinity')
    """
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, float) and not math.isfinite(value):
        return json.dumps(value)  # NaN, Infinity, -Infinity: as JSON spells them
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, (list, tuple)):
        return "a list"
    return "an object" if isinstance(value, dict) else type(value).__name__



def read_rows_file(path: Any, error: type = ValueError) -> Any:
    """:func:`parse_json_or_jsonl` of a file's text (:func:`read_text_file`)."""
    return parse_json_or_jsonl(read_text_file(path, error), str(path), error)


def dumps_jsonl(obj: Any, **kwargs: Any) -> str:
    """One JSONL line for ``obj`` (no trailing newline): ``json.dumps`` with ``ensure_ascii=False``
    (unless given) and U+2028, U+2029, U+0085 written as ``\\u`` escapes, so the line is one line
    for every reader. ``kwargs`` go to :func:`json.dumps` (e.g. ``allow_nan=False``).

    Raises:
        TypeError, ValueError: as :func:`json.dumps` (a value that is not JSON serialisable, NaN
            with ``allow_nan=False``).
    """
    kwargs.setdefault("ensure_ascii", False)
    line = json.dumps(obj, **kwargs)
    if "\n" in line:
        raise ValueError("dumps_jsonl: the JSON text spans several lines (do not pass indent=)")
    return _RAW_LINE_BREAK_RE.sub(lambda m: _RAW_LINE_BREAKS[m.group(0)], line)


def write_jsonl(rows: Iterable[Any], path: Any, **kwargs: Any) -> None:
    """Write each of ``rows`` as one JSONL line (:func:`dumps_jsonl`, UTF-8, LF line ends);
    :func:`read_rows_file` reads the file back to ``normalize_strings(rows)``. Written through
    :func:`atomic_write`: on any error the previous file at ``path`` is left as it was.

    Raises:
        OSError: the file cannot be written. TypeError, ValueError: as :func:`dumps_jsonl`.
    """
    with atomic_write(path) as fh:
        for r in rows:
            fh.write(dumps_jsonl(r, **kwargs) + "\n")


def write_json(obj: Any, path: Any, indent: Optional[int] = 2, **kwargs: Any) -> None:
    """Write ``obj`` as one JSON document (``json.dump``, ``ensure_ascii=False`` unless given, a final
    newline) through :func:`atomic_write`. ``kwargs`` go to :func:`json.dump`.

    Raises:
        OSError: the file cannot be written. TypeError, ValueError: as :func:`json.dump`.
    """
    kwargs.setdefault("ensure_ascii", False)
    with atomic_write(path) as fh:
        json.dump(obj, fh, indent=indent, **kwargs)
        fh.write("\n")

