"""Text normalisation and JSON / JSONL files: the one place where text enters the packages (``claimalign`` imports
nothing from ``ev2r`` or ``adversarial``; both import this).

* :func:`normalize_text`, applied to every string read: Unicode NFC (NFD "r" + combining caron and NFC "ř" are one
  text) and CR LF / lone CR as LF. Nothing else: U+2028, U+2029, NEL are data; no NFKC ("²" stays "²").
* Reading: a record may be nested at most :data:`MAX_JSON_DEPTH` deep, hold integers Python can convert, and give a
  key once per object; anything else is refused naming the file, row and field, never a RecursionError or a silent
  last-wins (:func:`loads_checked`). JSONL records are split on LF, CR LF or CR only, never with
  :meth:`str.splitlines` (U+2028 and the like may stand raw inside a JSON string).
* Writing: through :func:`atomic_write` (a temporary file renamed onto the target: a failed write leaves the old
  file); a symlink is followed, a device, FIFO or ``/dev/stdout`` written through, never replaced
  (:func:`atomic_path`, :func:`output_kind`); :func:`dumps_jsonl` escapes U+2028, U+2029 and U+0085 so every line
  ev2r writes is one line for any reader, and :func:`read_rows_file` reads back everything written here.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import secrets
import stat
import sys
import unicodedata
import warnings
from pathlib import Path
from typing import IO, Any, Iterable, Iterator, Optional

__all__ = [
    "normalize_text", "normalize_strings", "clean_text", "is_valid_id", "check_encodable", "INVISIBLE",
    "split_jsonl_lines", "parse_jsonl", "parse_json_or_jsonl", "RowList", "row_where", "line_of", "list_element_lines",
    "read_text_file", "read_rows_file",
    "dumps_jsonl", "write_jsonl", "MAX_JSON_DEPTH", "json_depth", "check_depth", "loads_checked", "atomic_path",
    "atomic_write", "output_kind", "WRITE_THROUGH_KINDS", "write_json", "write_text", "same_file",
    "guard_special_tokens", "neutralize_special_tokens", "UNSPACED_SCRIPTS",
    "has_unspaced_script", "split_unspaced_script", "ScriptWarning", "warn_unspaced_script", "non_ascii_letter_share",
]

_CR = re.compile(r"\r\n?")
#: JSONL record separators: LF, CR LF or a lone CR -- nothing else (see module docstring).
_RECORD_SEP = re.compile(r"\r\n|\r|\n")
#: Characters that str.splitlines treats as line breaks but json.dumps(ensure_ascii=False) writes raw.
_RAW_LINE_BREAKS = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\u0085": "\\u0085"}
_RAW_LINE_BREAK_RE = re.compile("[\u2028\u2029\u0085]")

#: Characters that render as nothing: zero-width space/joiners, word joiner, BOM, soft hyphen.
INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad"
_EDGE = re.compile(rf"^[\s{INVISIBLE}]+|[\s{INVISIBLE}]+$")


# ----------------------------------------------------------------------------------------------
# Normalisation
# ----------------------------------------------------------------------------------------------

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


# ----------------------------------------------------------------------------------------------
# Parsing one JSON text: nesting depth and integer length
# ----------------------------------------------------------------------------------------------

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
            "(claimalign.textio.MAX_JSON_DEPTH); no supported format nests more than a few levels")


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


# ----------------------------------------------------------------------------------------------
# Files
# ----------------------------------------------------------------------------------------------

def read_text_file(path: Any, error: type = ValueError) -> str:
    """The text of a UTF-8 file (a byte-order mark is accepted and dropped), not yet normalised.

    Raises:
        ``error``: ``path`` is not a path, does not exist, is not a file, cannot be read or is not
            UTF-8 (naming the path and the byte offset).
    """
    if not isinstance(path, (str, Path)):
        raise error(f"path: expected a file path, got {type(path).__name__}")
    p = Path(path)
    if not p.exists():
        raise error(f"{p}: no such file")
    if not p.is_file():
        raise error(f"{p}: not a file")
    try:
        data = p.read_bytes()
    except OSError as e:
        raise error(f"{p}: cannot be read ({e.strerror})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise error(f"{p}: not UTF-8 text ({e.reason} at byte {e.start})") from None


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


def write_text(text: str, path: Any) -> None:
    """Write ``text`` (UTF-8, as given) through :func:`atomic_write`.

    Raises:
        OSError: the file cannot be written. TypeError: ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise TypeError(f"text: expected a string, got {type(text).__name__}")
    with atomic_write(path) as fh:
        fh.write(text)


#: Paths that name an open file descriptor (the process's stdout, a shell's ``>(...)``), not a file of a folder.
_FD_LINK = re.compile(r"^/(?:dev/(?:stdout|stderr|stdin|fd/[0-9]+)|proc/[^/]+/fd/[0-9]+)$")


def output_kind(path: Any) -> str:
    """What an output path names, symlinks followed: ``"missing"`` (nothing there yet, or a dangling
    link: its target is created), ``"file"`` (a regular file), ``"dir"``, ``"device"`` (a character or
    block device, e.g. ``/dev/null``), ``"fifo"`` (a named pipe), ``"socket"``, ``"fd"`` (a file
    descriptor link such as ``/dev/stdout`` or ``/proc/self/fd/1``, whatever it points to) or
    ``"loop"`` (a symlink loop).

    >>> output_kind("/dev/null"), output_kind("/dev/stdout"), output_kind("/nonexistent/x")
    ('device', 'fd', 'missing')
    """
    p = os.path.abspath(os.fspath(path))
    seen = 0
    while True:  # the link chain: /dev/stdout -> /proc/self/fd/1 -> ...
        if _FD_LINK.match(p):
            return "fd"
        if not os.path.islink(p) or seen > 40:
            break
        seen += 1
        p = os.path.join(os.path.dirname(p), os.readlink(p))
        p = os.path.abspath(p)
    try:
        st = os.stat(os.fspath(path))
    except FileNotFoundError:
        return "missing"
    except OSError as e:
        if e.errno == errno.ELOOP:
            return "loop"
        raise
    mode = st.st_mode
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "other"


#: :func:`output_kind` values that :func:`atomic_path` writes through (opens and writes in place).
WRITE_THROUGH_KINDS = ("device", "fifo", "fd")


@contextlib.contextmanager
def atomic_path(path: Any) -> Iterator[str]:
    """A path to write an output at, such that what ``path`` names is never destroyed.

    * a regular file, or nothing yet: a fresh temporary path beside the file ``path`` names, with the
      same extension (so writers that go by it, e.g. matplotlib, still work); when the block ends
      without an exception the temporary file replaces the target in one step (:func:`os.replace`,
      keeping an existing target's permissions); on any exception, KeyboardInterrupt included, it is
      removed and the target is left as it was;
    * **a symlink is followed**: the file it points to is replaced (a dangling link's target is
      created) and the link itself is kept, in every command;
    * **a device, a FIFO or a file-descriptor link** (``/dev/null``, ``mkfifo`` pipes, ``/dev/stdout``,
      ``/dev/fd/N``; :data:`WRITE_THROUGH_KINDS`): ``path`` itself is yielded and the writer writes
      through to it; nothing is created beside it, renamed or removed (a FIFO's open waits for a reader,
      as a shell's ``>`` does);
    * a folder, a socket, a symlink loop: refused (``IsADirectoryError`` / ``OSError`` naming it).

    Raises:
        OSError: the rename fails (e.g. the block wrote nothing at the temporary path), or ``path``
            names something that cannot be written (above).
    """
    kind = output_kind(path)
    if kind in WRITE_THROUGH_KINDS:
        yield os.fspath(path)
        return
    if kind == "dir":
        raise IsADirectoryError(f"{os.fspath(path)!r} is a directory, not a file to write")
    if kind in ("socket", "loop", "other"):
        raise OSError(f"{os.fspath(path)!r} is {'a symlink loop' if kind == 'loop' else 'a ' + kind}: "
                      "not a file to write")
    target = os.path.realpath(os.fspath(path))
    folder, base = os.path.split(target)
    tmp = os.path.join(folder, f".{base}.{secrets.token_hex(6)}.tmp{os.path.splitext(base)[1]}")
    try:
        yield tmp
        try:
            os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))
        except FileNotFoundError:
            pass
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_write(path: Any, encoding: str = "utf-8", newline: Optional[str] = "\n") -> Iterator[IO[str]]:
    """A text file to write whose content replaces ``path`` only once it is complete (flushed and
    synced; :func:`atomic_path`): a failure while writing -- an exception, a full disk, Ctrl-C --
    never leaves a half-written file nor destroys the previous one. A symlink is followed (its target
    replaced, the link kept); a device, FIFO or ``/dev/stdout`` is written through, never replaced.

    >>> import tempfile, os; d = tempfile.mkdtemp(); p = os.path.join(d, "out.txt")
    >>> with atomic_write(p) as fh:
    ...     _ = fh.write("done")
    >>> open(p).read(), os.listdir(d)
    ('done', ['out.txt'])
    >>> with atomic_write("/dev/null") as fh:  # written through: /dev/null stays a device
    ...     _ = fh.write("gone")

    Raises:
        OSError: the file cannot be created or renamed into place (:func:`atomic_path`).
    """
    with atomic_path(path) as tmp:
        through = tmp == os.fspath(path)
        with open(tmp, "w" if through else "x", encoding=encoding, newline=newline) as fh:
            yield fh
            fh.flush()
            if not through:
                os.fsync(fh.fileno())


def same_file(a: Any, b: Any) -> bool:
    """True when paths ``a`` and ``b`` name one file: the same resolved path (symlinks, ``./x``,
    ``..``), or -- both existing -- the same file (:func:`os.path.samefile`: hard links)."""
    ra, rb = os.path.realpath(os.fspath(a)), os.path.realpath(os.fspath(b))
    if ra == rb:
        return True
    try:
        return os.path.samefile(ra, rb)
    except OSError:
        return False


# Tokenizer control strings: claimalign.tokens (re-exported here, where callers have always found them)
from claimalign.tokens import guard_special_tokens, neutralize_special_tokens  # noqa: E402,F401


# ----------------------------------------------------------------------------------------------
# Scripts written without spaces between words
# ----------------------------------------------------------------------------------------------

#: Scripts written without spaces between words (for word-based measures such as METEOR a whole
#: sentence is then one "word"): Han (CJK ideographs), Hiragana, Katakana, Thai, Lao, Khmer,
#: Myanmar, Tibetan.
UNSPACED_SCRIPTS = ("Han", "Hiragana", "Katakana", "Thai", "Lao", "Khmer", "Myanmar", "Tibetan")
_UNSPACED_RANGES = (
    "\u2e80-\u2fdf\u3005-\u3007\u3021-\u3029\u3038-\u303b\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # Han
    "\U00020000-\U0002fa1f\U00030000-\U0003134f"
    "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f"  # Hiragana, Katakana
    # Thai, Lao, Khmer, Myanmar, Tibetan
    "\u0e00-\u0e7f\u0e80-\u0eff\u1780-\u17ff\u19e0-\u19ff\u1000-\u109f\u0f00-\u0fff"
)
_UNSPACED_CHAR = re.compile(f"[{_UNSPACED_RANGES}]")
_UNSPACED_RUN = re.compile(f"[{_UNSPACED_RANGES}]|[^{_UNSPACED_RANGES}]+")


def non_ascii_letter_share(text: str) -> float:
    """The share of ``text``'s letters (``str.isalpha``) that are not ASCII A-Z / a-z: about 0 for English, a few
    percent and more for Czech, Slovak, French or German prose, 1.0 for Cyrillic or Chinese; 0.0 without letters.

    >>> round(non_ascii_letter_share("Praha je hlavním městem České republiky."), 3)
    0.118
    >>> non_ascii_letter_share("The bridge opened in 1998.")
    0.0
    """
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    return sum(not c.isascii() for c in letters) / len(letters)


class ScriptWarning(UserWarning):
    """A similarity met text in a script it cannot judge word by word."""


def has_unspaced_script(text: str) -> bool:
    """True when ``text`` holds a character of a script written without spaces
    (:data:`UNSPACED_SCRIPTS`)."""
    return bool(_UNSPACED_CHAR.search(text))


def split_unspaced_script(token: str) -> list[str]:
    """A word token cut so that each character of an unspaced script (:data:`UNSPACED_SCRIPTS`) is
    its own token and the other runs stay whole: ``"于2019年"`` -> ``["于", "2019", "年"]``;
    a token without such characters is returned alone."""
    if not _UNSPACED_CHAR.search(token):
        return [token]
    return _UNSPACED_RUN.findall(token)


def warn_unspaced_script(texts: Iterable[str], measure: str, stacklevel: int = 3) -> bool:
    """Emit a :class:`ScriptWarning` when any of ``texts`` is in a script written without spaces,
    saying that ``measure`` cannot judge it word by word. The message does not depend on the texts,
    so Python's default warning filter shows it once per call site. Returns whether it warned."""
    found = any(has_unspaced_script(t) for t in texts)
    if found:
        warnings.warn(
            f"{measure}: text written in a script without spaces between words ({', '.join(UNSPACED_SCRIPTS)}); "
            f"{measure} is a word-based measure and cannot judge such text word by word: it is compared character "
            "by character there, without stemming or synonyms. Prefer the edit or embedding similarity for these "
            "scripts.", ScriptWarning, stacklevel=stacklevel)
    return found
