"""Readers and writers for the dataset formats the project scores.

Accepted inputs (:func:`read_items` detects the format per row):

* **ev2r JSONL** -- ``id``, ``claim``, ``predicted_evidence``, ``reference_evidence`` (text in the
  ``Question: ...\nAnswer: ...`` form, or a list of ``{question, answer}``), ``gold_label``, optional
  ``predicted_label``; any other field is carried in ``Item.extra``.
* **FEVER / VitaminC JSONL** -- ``claim``, ``evidence``, ``label``: predicted evidence without a reference
  (reference-based scores get status ``no_reference``; the proxy still scores).
* **VitaminC evidence pairs** -- ``claim``, ``reference_evidence``, ``candidate_evidence``, ``reference_label``.
* **AVeriTeC JSON** -- claims with ``questions`` (gold evidence) and ``label``; a predictions file in the
  shared-task format is joined with a gold file given as ``references=`` (:mod:`ev2r.io.averitec`).

Rows are identified by ``id`` (or ``claim_id``, ``unique_id``; else, or when null, the 0-based row number); ids are
unique within a file by the one rule of every command (:mod:`claimalign.ids`). A ``label`` read as the gold verdict
of an ev2r row, and an optional verdict field that is not a verdict, are counted in one :class:`InputWarning` per
file; a bad row raises :class:`InputError` naming the file, row and field. Every string is normalised once where it
enters (:mod:`claimalign.text`: NFC, CR LF as LF); :func:`write_jsonl` writes what :func:`read_rows` reads back.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

import claimalign.text
from claimalign import jsonio

from ev2r.io.averitec import averitec_questions_to_evidence, join_averitec_predictions, render_averitec_answer
from ev2r.io.errors import InputError, InputWarning
from ev2r.io.errors import where as _where
from ev2r.io.qa_text import LAYOUT_NOTES, evidence_from_text, json_pair_problems
from ev2r.labels import normalize_verdict
from ev2r.types import Evidence, Item, clean_text, has_content, is_valid_id

__all__ = ["ID_FIELDS", "OPTIONAL_LABEL_FIELDS", "MAX_ROWS_NAMED", "LABEL_FIELDS", "InputError", "InputWarning",
           "render_averitec_answer", "has_predicted_evidence", "warn_no_evidence", "check_required_label",
           "raise_row_errors", "row_ref",
           "averitec_questions_to_evidence", "parse_evidence", "item_from_row", "read_rows", "check_encodable",
           "items_from_rows", "warn_layout", "warn_notices", "read_items", "write_jsonl", "item_hash", "score_row"]

ID_FIELDS = ("id", "claim_id", "unique_id")
#: How many bad rows an error or warning names before it only counts the rest.
MAX_ROWS_NAMED = 10
#: The verdict a run may need (:func:`check_required_label`) and the fields it is read from, per schema.
LABEL_FIELDS = {"gold_label": ("gold_label", "label", "reference_label"), "human_label": ("human_label",)}


#: Label fields that are optional: no score reads them unless asked (none does since 2.0: they are carried
#: through). A value that is not a verdict there
#: never stops a run (:class:`InputWarning`) unless the caller names the field in ``strict_labels``.
OPTIONAL_LABEL_FIELDS = ("human_label", "predicted_label", "pred_label", "candidate_label")


def parse_evidence(value: Any, where: str, field: str, notes: Optional[set] = None) -> Evidence:
    """Evidence from text (``Question: ...\\nAnswer: ...`` blocks or plain text, read by the one Q/A
    reader :func:`ev2r.io.qa_text.parse_qa_text`), a list of such texts (each read by the same reader,
    so a string ``"Question: a?\\nAnswer: b"`` is the pair (a?, b), never an answer with markers in it),
    a list of ``{question, answer}`` objects, or an AVeriTeC ``questions`` list
    (``{question, answers}``).

    Args:
        notes: a set receiving the layout repairs text evidence needed
            (:data:`ev2r.io.qa_text.LAYOUT_NOTES` keys).
    """
    if value is None:
        raise InputError(f"{where}: field {field!r} is missing (text or a list of {{question, answer}})")
    if isinstance(value, str):
        _check_json_pairs(value, where, field)
        return evidence_from_text(value, notes)
    if isinstance(value, list):
        if value and all(isinstance(v, dict) and "answers" in v for v in value):
            return averitec_questions_to_evidence(value, where, field)
        if value and all(isinstance(v, str) for v in value):  # a list of texts: each read by the one Q/A reader
            for k, v in enumerate(value):
                _check_json_pairs(v, where, f"{field}[{k}]")
            return Evidence(tuple(p for v in value for p in evidence_from_text(v, notes).pairs))
        try:
            return Evidence.from_pairs(value, field_name=field)
        except ValueError as e:
            raise InputError(f"{where}: {e}") from None
    raise InputError(f"{where}: field {field!r} must be text or a list of {{question, answer}}, got "
                     f"{type(value).__name__}")


def _check_json_pairs(text: str, where: str, field: str) -> None:
    """Refuse evidence text holding question/answer pairs written as JSON of which an entry is no pair
    (``{"question": "Q?", "answer": null}``, no ``answer``, ``"answer": NaN``, ``"answer"`` beside ``"Answer"``) or
    that is no valid JSON (``[{"question": "Q?", "answer": "A",}]``): the one Q/A reader would read such text as one
    block of plain text, silently (:func:`ev2r.io.qa_text.json_pair_problems`).

    Raises:
        InputError: naming the row, the field, the entry (or line of the text) and what is allowed.
    """
    problems = json_pair_problems(text)
    if problems:
        more = f" (and {len(problems) - 3} more entries)" if len(problems) > 3 else ""
        raise InputError(f"{where}: {'; '.join(field + p for p in problems[:3])}{more}. Question/answer pairs written "
                         "as JSON need valid JSON with one \"question\" and one \"answer\" (keys in any case), each "
                         "text or a finite number, in every entry (or give the evidence as plain text)")


def _gold_label(row: dict, where: str):
    """The gold verdict from ``gold_label`` or ``label`` (whichever is not null).

    Raises:
        InputError: both are given and name different verdicts, or one is not a verdict.
    """
    g = _label(row.get("gold_label"), where, "gold_label")
    lab = _label(row.get("label"), where, "label")
    if g is not None and lab is not None and g != lab:
        raise InputError(f"{where}: fields 'gold_label' ({row['gold_label']!r}) and 'label' ({row['label']!r}) "
                         "name different verdicts; give one")
    return g if g is not None else lab


def _label(value: Any, where: str, field: str):
    if value is None:
        return None
    try:
        return normalize_verdict(value, field=field)
    except ValueError as e:
        raise InputError(f"{where}: {e}") from None


def _raw_id(row: dict, n: int, path: str = "<input>", line: Optional[int] = None) -> Any:
    """The row's identifier as given (first of ``ID_FIELDS`` that is not null), or None.

    Raises:
        InputError: the identifier is not a non-empty string or an integer.
    """
    for f in ID_FIELDS:
        v = row.get(f)
        if v is not None:
            if not is_valid_id(v):
                raise InputError(f"{_where(path, n, line=line)}: field {f!r} must be a non-empty string or an integer, "
                                 f"got {v!r:.60}")
            return v
    return None


def _row_id(row: dict, n: int, path: str = "<input>", line: Optional[int] = None) -> str:
    v = _raw_id(row, n, path, line)
    return str(n) if v is None else str(v)


def _optional_label(row: dict, field: str, where: str, strict: Iterable[str], problems: Optional[list]):
    """The verdict in optional ``field`` of ``row``, or None when absent -- or when it is not a
    verdict and ``field`` is not in ``strict``: then the problem is recorded in ``problems`` (or
    warned at once when ``problems`` is None) and the run goes on."""
    try:
        return _label(row.get(field), where, field)
    except InputError as e:
        if field in strict:
            raise
        if problems is None:
            warnings.warn(f"{e} (a field this run does not need: kept as given and ignored)", InputWarning,
                          stacklevel=3)
        else:
            problems.append((field, row.get(field)))
        return None


def item_from_row(row: Any, n: int, path: str = "<input>", strict_labels: Iterable[str] = (),
                  problems: Optional[list] = None, layout: Optional[list] = None,
                  notices: Optional[list] = None, line: Optional[int] = None) -> Item:
    """Build an :class:`Item` from one parsed row of any supported schema (module docstring).

    Args:
        row: a parsed JSON object; its strings are normalised here (:mod:`claimalign.text`).
        n: the row's 0-based position (the default id, and ``Item.row``).
        path: the source named in error messages.
        strict_labels: optional verdict fields (:data:`OPTIONAL_LABEL_FIELDS`) that the run needs,
            e.g. ``("human_label",)``: an unreadable value there raises.
        problems: a list collecting ``(field, value)`` for unreadable optional fields (the caller
            warns once with a count); None: warn at once (:class:`InputWarning`).
        layout: a list collecting ``(field, note)`` for evidence text whose Q/A layout needed a
            repair (:data:`ev2r.io.qa_text.LAYOUT_NOTES`; the caller warns once with a count).
        notices: a list collecting what was read but may not be what the row meant (the caller warns
            once per kind with a count; :func:`warn_notices`): ``("gold_from_label", "label")`` for an
            ev2r-schema row whose gold verdict was read from ``label`` (no ``gold_label``), and
            ``("null_id", fields)`` for a row whose id fields (:data:`ID_FIELDS`) are there but null,
            so that its id is its row number ``n``. None: warn at once (:class:`InputWarning`).
        line: the 1-based line of the file the row starts on (``Item.line``; every message names the row
            and this line, :func:`ev2r.io.errors.where`), or None where unknown (rows from no file).

    Raises:
        InputError: a row that is not an object, one nested deeper than
            :data:`claimalign.jsonio.MAX_JSON_DEPTH`, a missing or empty claim, unusable evidence, a
            bad id, a gold verdict (``gold_label``/``label``/``reference_label``) that is not a
            verdict, or an unreadable field named in ``strict_labels`` -- naming the row and field.
    """
    if not isinstance(row, dict):
        raise InputError(f"{_where(path, n, line=line)}: expected a JSON object, got {type(row).__name__}")
    jsonio.check_depth(row, _where(path, n, line=line), InputError)
    check_encodable(row, _where(path, n, line=line), "")
    row = claimalign.text.normalize_strings(row)
    strict = tuple(strict_labels)
    rid = _row_id(row, n, path, line)
    where = _where(path, n, rid, line)
    found: list = []  # notices of this row
    if _raw_id(row, n, path, line) is None and any(f in row for f in ID_FIELDS):
        found.append(("null_id", tuple(f for f in ID_FIELDS if f in row)))

    def _evidence(value, where, field):
        notes: set = set()
        ev = parse_evidence(value, where, field, notes)
        if layout is not None:
            layout.extend((field, note) for note in sorted(notes))
        return ev

    claim = row.get("claim")
    if "claim" not in row:
        raise InputError(f"{where}: field 'claim' is missing (a non-empty string)")
    if not isinstance(claim, str) or not clean_text(claim):
        raise InputError(f"{where}: field 'claim' must be a non-empty string, got "
                         f"{'null' if claim is None else repr(claim)[:60]}")
    used = {"claim", *ID_FIELDS}
    if "candidate_evidence" in row:  # VitaminC evidence pairs
        pred = _evidence(row.get("candidate_evidence"), where, "candidate_evidence")
        ref = _evidence(row.get("reference_evidence"), where, "reference_evidence")
        gold = _label(row.get("reference_label"), where, "reference_label")
        plabel = _optional_label(row, "candidate_label", where, strict, problems)
        used |= {"candidate_evidence", "reference_evidence", "reference_label", "candidate_label"}
    elif "predicted_evidence" in row or "reference_evidence" in row:
        pred = _evidence(row.get("predicted_evidence"), where, "predicted_evidence")
        ref = _evidence(row.get("reference_evidence", ""), where, "reference_evidence")
        gold = _gold_label(row, where)
        if row.get("gold_label") is None and gold is not None:  # read from 'label': maybe the system's verdict
            found.append(("gold_from_label", "label"))
        plabel = _optional_label(row, "predicted_label", where, strict, problems)
        used |= {"predicted_evidence", "reference_evidence", "gold_label", "label", "predicted_label"}
    elif "questions" in row:  # AVeriTeC gold row, optionally with a system's evidence
        ref = averitec_questions_to_evidence(row["questions"], where)
        if "evidence" not in row:
            raise InputError(f"{where}: an AVeriTeC gold row has reference evidence ('questions') but no predicted "
                             "evidence; score a predictions file (claim_id, evidence, pred_label) with "
                             "references=<gold file> (CLI: --references GOLD.json)")
        pred = _evidence(row["evidence"], where, "evidence")
        gold = _label(row.get("label"), where, "label")
        plabel = _optional_label(row, "pred_label", where, strict, problems)
        used |= {"questions", "evidence", "label", "pred_label"}
    elif "evidence" in row and "claim_id" in row and "pred_label" in row and isinstance(row["evidence"], list):
        raise InputError(f"{where}: this looks like an AVeriTeC predictions row (claim_id, evidence, pred_label) "
                         "without its reference evidence; pass the gold file with references=<gold.json> "
                         "(CLI: --references GOLD.json)")
    elif "evidence" in row:  # FEVER / VitaminC claim-evidence rows
        pred = _evidence(row["evidence"], where, "evidence")
        ref = Evidence(())
        gold = _gold_label(row, where)
        plabel = _optional_label(row, "predicted_label", where, strict, problems)
        used |= {"evidence", "label", "gold_label", "predicted_label"}
    else:
        raise InputError(f"{where}: no evidence field; expected 'predicted_evidence' + 'reference_evidence' "
                         "(ev2r), 'evidence' (FEVER/VitaminC), 'candidate_evidence' (VitaminC pairs) or "
                         "'questions' (AVeriTeC)")
    extra = {k: v for k, v in row.items() if k not in used}
    for f in OPTIONAL_LABEL_FIELDS:  # an unreadable system verdict is kept as given, not lost
        if f in row and f not in extra and row[f] is not None and plabel is None:
            extra[f] = row[f]
    _optional_label(extra, "human_label", where, strict, problems)  # carried through (read by no score since 2.0)
    source_id = _raw_id(row, n, path)
    if notices is not None:
        notices.extend(found)
    elif found:
        warn_notices([(kind, detail, n) for kind, detail in found], path, ids=None, stacklevel=3)
    return Item(id=rid, claim=clean_text(claim), predicted_evidence=pred, reference_evidence=ref,
                gold_label=gold, predicted_label=plabel, row=n, extra=extra, source_id=source_id, line=line)


def read_rows(path: str | Path) -> list[Any]:
    """Parsed rows of a JSON list file or a JSONL file, every string normalised
    (:func:`claimalign.text.normalize_text`: NFC, LF line ends). JSONL records are split on LF,
    CR LF or CR only.

    Args:
        path: a file path (str or Path); UTF-8, a byte-order mark is accepted.

    Raises:
        InputError: not a path, a missing or unreadable file, not UTF-8, bad JSON (naming the
            line), a row nested deeper than :data:`claimalign.jsonio.MAX_JSON_DEPTH` or holding an
            integer too long to read (naming the row), no rows, one JSON object instead of rows (e.g. the report
            ``ev2r rank -o`` writes), or a string holding a lone surrogate (naming the row and field).
    """
    rows = jsonio.read_rows_file(path, error=InputError)
    if not isinstance(rows, list):
        raise InputError(f"{path}: one JSON object, not rows: expected a JSON list of rows or JSONL (one object "
                         "per line); a report such as `ev2r rank -o` output is read with json.load")
    for n, r in enumerate(rows):
        check_encodable(r, _where(str(path), n, line=jsonio.line_of(rows, n)), "")
    return rows


def check_encodable(value: Any, where: str, field: str) -> None:
    """Every string in a parsed row must be valid Unicode text: JSON escapes such as ``"\\ud800"``
    decode to lone surrogates, which no tokenizer or UTF-8 writer accepts
    (:func:`claimalign.text.check_encodable`).

    Raises:
        InputError: naming the row and the field path.
    """
    claimalign.text.check_encodable(value, where, field, InputError)


def items_from_rows(rows: Sequence[Any], path: str = "<input>", strict_labels: Iterable[str] = ()) -> list[Item]:
    """:func:`item_from_row` over ``rows``; unreadable optional verdict fields give one
    :class:`InputWarning` that counts the rows (see :data:`OPTIONAL_LABEL_FIELDS`).

    Every row is read before an unusable one is raised: several raise one :class:`InputError` naming each (up to
    :data:`MAX_ROWS_NAMED`, then a count; :func:`raise_row_errors`), so that one run shows every bad row.
    Rows without predicted evidence are counted in one :class:`InputWarning` (:func:`warn_no_evidence`);
    so are, each kind in one :class:`InputWarning` (:func:`warn_notices`), ev2r-schema rows whose gold verdict
    was read from ``label`` and rows whose id field is null (their id is their 0-based row number).

    Raises:
        InputError: as :func:`item_from_row`, for every unusable row at once; or two rows with one id
            (:mod:`claimalign.ids`: ``1`` and ``"1"``, a repeated id, NFC and NFD spellings, a row without an id whose
            row number is another row's id), naming both rows and why.
    """
    from claimalign.ids import IdRegistry

    problems: list = []
    layout: list = []
    notices: list = []
    items = []
    ids = IdRegistry(path, error=InputError)
    errors: list[InputError] = []
    lines = [jsonio.line_of(rows, n) for n in range(len(rows))]
    for n, r in enumerate(rows):
        before, before_layout, before_notices = len(problems), len(layout), len(notices)
        try:
            it = item_from_row(r, n, path, strict_labels=strict_labels, problems=problems, layout=layout,
                               notices=notices, line=lines[n])
        except InputError as e:  # every unusable row is named, not only the first
            errors.append(e)
            del problems[before:], layout[before_layout:], notices[before_notices:]
            continue
        raw = next((r[f] for f in ID_FIELDS if r.get(f) is not None), None)  # as written (before NFC)
        ids.add(n if raw is None else raw, jsonio.row_where(None, n, lines[n]), numbered=raw is None, key=it.id)
        items.append(it)
        problems[before:] = [(f, v, n) for f, v in problems[before:]]
        layout[before_layout:] = [(f, note, n) for f, note in layout[before_layout:]]
        notices[before_notices:] = [(kind, detail, n) for kind, detail in notices[before_notices:]]
    raise_row_errors(errors, len(rows), path)
    warn_no_evidence(items, path)
    if layout:
        warn_layout(layout, path, ids=[it.id for it in items], lines=lines)
    if notices:
        warn_notices(notices, path, ids=[it.id for it in items], n_rows=len(items), lines=lines)
    if problems:
        by_field: dict[str, list[tuple[int, Any]]] = {}
        for f, v, n in problems:
            by_field.setdefault(f, []).append((n, v))
        parts = []
        for f, bad in by_field.items():
            shown = ", ".join(row_ref(n, lines[n], f"{v!r:.40}") for n, v in bad[:5]) + (" ..." if len(bad) > 5 else "")
            parts.append(f"{len(bad)} row(s) whose {f!r} is not a known verdict: rows {shown}")
        need = " (no score reads human_label: the proxy scores the gold verdict)" if "human_label" in by_field else ""
        warnings.warn(f"{path}: " + "; ".join(parts) + f". This run does not need these fields{need}: the values "
                      "are kept as given and ignored. Rows are counted from 0, as the row field of the score rows "
                      "(line = the line of the file the row starts on).", InputWarning, stacklevel=3)
    return items


def row_ref(n: int, line: Optional[int] = None, notes: str = "") -> str:
    """One row in a message that lists rows: ``3 (line 5; id 7)`` -- the 0-based row (as the ``row`` field of
    the score rows), the 1-based line of the file where known, then ``notes``; the list form of
    :func:`ev2r.io.errors.where` (every message gives the row and the line).

    >>> row_ref(3, 5, "id 7"), row_ref(3), row_ref(0, None, "id a")
    ('3 (line 5; id 7)', '3', '0 (id a)')
    """
    parts = ([f"line {line}"] if line is not None else []) + ([notes] if notes else [])
    return f"{n} ({'; '.join(parts)})" if parts else str(n)


def raise_row_errors(errors: Sequence[InputError], n_rows: int, path: str | Path) -> None:
    """Raise the errors of the unusable rows of a file at once: one error as it is; several as one
    :class:`InputError` naming each (up to :data:`MAX_ROWS_NAMED`, then a count of the rest). Nothing when
    ``errors`` is empty.

    Raises:
        InputError: as said.
    """
    if len(errors) == 1:
        raise errors[0]
    if errors:
        shown = "\n  ".join(str(e) for e in errors[:MAX_ROWS_NAMED])
        over = len(errors) > MAX_ROWS_NAMED
        more = f"\n  ... and {len(errors) - MAX_ROWS_NAMED} more row(s)" if over else ""
        raise InputError(f"{path}: {len(errors)} of {n_rows} rows are unusable"
                         f"{f' (the first {MAX_ROWS_NAMED} named)' if over else ''}:\n  {shown}{more}")


def warn_layout(layout: Sequence[tuple[str, str, int]], path: str | Path, ids: Optional[Sequence[Any]] = None,
                lines: Optional[Sequence[Optional[int]]] = None) -> None:
    """One :class:`InputWarning` counting the rows whose evidence text needed a Q/A layout repair
    (``(field, note, row)`` triples, ``row`` 0-based; notes are :data:`ev2r.io.qa_text.LAYOUT_NOTES`
    keys). Rows are shown 0-based, as the ``row`` field of the score rows and the row of every error
    message, with the line of the file (``lines[row]``, :func:`row_ref`), the item's id (``ids[row]``) and the
    field."""
    by_note: dict[str, list[tuple[int, list[str]]]] = {}
    for field_name, note, n in layout:
        rows = by_note.setdefault(note, [])
        if not rows or rows[-1][0] != n:
            rows.append((n, []))
        if field_name not in rows[-1][1]:
            rows[-1][1].append(field_name)

    def where(n: int, fields: list[str]) -> str:
        id_ = f"id {ids[n]}, " if ids is not None and n < len(ids) else ""
        return row_ref(n, lines[n] if lines is not None and n < len(lines) else None, id_ + ", ".join(fields))
    parts = []
    for note, rows in sorted(by_note.items()):
        shown = ", ".join(where(n, fs) for n, fs in rows[:8]) + (" ..." if len(rows) > 8 else "")
        parts.append(f"{len(rows)} row(s) where {LAYOUT_NOTES[note]}: rows {shown}")
    warnings.warn(f"{path}: " + "; ".join(parts) + ". Rows are counted from 0, as the row field of the score rows "
                  "(line = the line of the file the row starts on). They are read as said; check that these rows read "
                  "as intended.", InputWarning, stacklevel=3)


def warn_notices(notices: Sequence[tuple[str, Any, int]], path: str | Path, ids: Optional[Sequence[Any]] = None,
                 n_rows: Optional[int] = None, stacklevel: int = 3,
                 lines: Optional[Sequence[Optional[int]]] = None) -> None:
    """One :class:`InputWarning` per kind of notice (``(kind, detail, row)`` triples, ``row`` 0-based, as
    :func:`item_from_row` collects them), counting the rows and naming up to :data:`MAX_ROWS_NAMED`:

    * ``"gold_from_label"``: ev2r-schema rows (``predicted_evidence`` / ``reference_evidence``) without
      ``gold_label`` whose gold verdict was read from ``label`` -- which may be the system's verdict;
    * ``"null_id"`` (detail: the id fields present): rows whose id field is null, so that their id is their
      0-based row number.

    Args:
        notices: the triples.
        path: the file named in the message.
        ids: the items' ids by row (``ids[row]``), shown beside the rows; None: not shown.
        n_rows: the number of rows read, for "k of n"; None: not shown.
        stacklevel: passed to :func:`warnings.warn`.
        lines: the 1-based line of the file of each row (``lines[row]``), shown beside the rows
            (:func:`row_ref`); None: not known.

    Raises:
        ValueError: an unknown kind.
    """
    by_kind: dict[str, list[tuple[int, Any]]] = {}
    for kind, detail, n in notices:
        if kind not in ("gold_from_label", "null_id"):
            raise ValueError(f"notices: kind must be 'gold_from_label' or 'null_id', got {kind!r}")
        by_kind.setdefault(kind, []).append((n, detail))
    of = f" of {n_rows}" if n_rows is not None else ""

    def shown(rows: list[tuple[int, Any]], with_id: bool) -> str:
        def one(n: int) -> str:
            id_ = f"id {ids[n]}" if with_id and ids is not None and n < len(ids) else ""
            return row_ref(n, lines[n] if lines is not None and n < len(lines) else None, id_)
        more = f" and {len(rows) - MAX_ROWS_NAMED} more" if len(rows) > MAX_ROWS_NAMED else ""
        return ", ".join(one(n) for n, _ in rows[:MAX_ROWS_NAMED]) + more

    rows_note = ("Rows are counted from 0, as the row field of the score rows (line = the line of the file the row "
                 "starts on).")
    if "gold_from_label" in by_kind:
        rows = by_kind["gold_from_label"]
        warnings.warn(f"{path}: {len(rows)}{of} row(s) of the ev2r schema (predicted_evidence / reference_evidence) "
                      f"have no 'gold_label': the gold verdict was read from 'label'. If 'label' is the system's "
                      f"verdict, rename the field to 'predicted_label'; rename it to 'gold_label' to silence this. "
                      f"Rows: {shown(rows, True)}. {rows_note}", InputWarning, stacklevel=stacklevel)
    if "null_id" in by_kind:
        rows = by_kind["null_id"]
        fields = sorted({f for _, detail in rows for f in detail}, key=ID_FIELDS.index)
        named = " / ".join(repr(f) for f in fields)
        warnings.warn(f"{path}: {len(rows)}{of} row(s) have a null id field ({named}): their ids are their row "
                      "numbers, counted from 0 (row 0 gets id '0', row 1 id '1', ...). An id "
                      f"({' / '.join(map(repr, ID_FIELDS))}) must be a non-empty string or an integer: give these rows "
                      f"one, or leave the field out to number the rows on purpose. Rows: {shown(rows, False)}. "
                      f"{rows_note}", InputWarning, stacklevel=stacklevel)


def has_predicted_evidence(item: Item) -> bool:
    """Whether ``item`` has predicted evidence to score: at least one pair whose answer (for plain text: whose
    text) holds a letter or digit. An empty string, ``[]``, or only empty / content-free answers ("", "...")
    is none: every score of such an item is a real 0, which :func:`warn_no_evidence` says."""
    return any(has_content(p.answer) for p in item.predicted_evidence.pairs)


#: The share of items without predicted evidence above which :func:`warn_no_evidence` is loud.
MOSTLY_EMPTY = 0.5


def warn_no_evidence(items: Sequence[Item], path: str | Path) -> int:
    """One :class:`InputWarning` counting the items without predicted evidence (:func:`has_predicted_evidence`)
    and naming up to :data:`MAX_ROWS_NAMED` of them: they score 0 on every score -- right for a system that
    retrieved nothing, but said, never silent. When more than :data:`MOSTLY_EMPTY` of the items (and at least 2)
    have none, the warning starts in capitals and names the likely cause (a converter that wrote empty strings,
    the evidence under another field).

    Args:
        items: the items read.
        path: the file named in the message.

    Returns:
        The number of items without predicted evidence (0: no warning).
    """
    empty = [it for it in items if not has_predicted_evidence(it)]
    if not empty:
        return 0
    shown = ", ".join(row_ref(it.row, it.line, f"id {it.id}") for it in empty[:MAX_ROWS_NAMED]) + (
        f" and {len(empty) - MAX_ROWS_NAMED} more" if len(empty) > MAX_ROWS_NAMED else "")
    msg = (f"{path}: {len(empty)} of {len(items)} item(s) have no predicted evidence (empty, or no answer with a "
           f"letter or digit): each scores 0 on every score. Rows (from 0; line = the line of the file): {shown}")
    if len(empty) >= 2 and len(empty) > MOSTLY_EMPTY * len(items):
        msg = ("MOST ITEMS HAVE NO PREDICTED EVIDENCE -- " + msg + ". Check the file: a converter that wrote empty "
               "strings, or the evidence under a field ev2r does not read (it reads predicted_evidence, evidence, "
               "candidate_evidence), gives this, and a corpus score near 0")
    warnings.warn(msg, InputWarning, stacklevel=3)
    return len(empty)


def check_required_label(items: Sequence[Item], rows: Sequence[Any], field: str, path: str | Path) -> None:
    """Check, before any model loads, that every row has the verdict the run needs: ``"gold_label"`` (read from
    ``gold_label``, ``label`` or, for evidence pairs, ``reference_label``: the proxy's) or ``"human_label"``
    (a caller's own).

    No row has it: :class:`InputError` naming the fields the file does have, and those whose values read as
    verdicts (e.g. ``verdict``). Some rows lack it: one :class:`InputWarning` counting and naming them (up to
    :data:`MAX_ROWS_NAMED`); they get status ``no_label`` (no proxy), the others are scored.

    Args:
        items: the items read from ``rows`` (same order).
        rows: the parsed rows (for the field names the file has).
        field: ``"gold_label"`` or ``"human_label"``.
        path: the file named in the message.

    Raises:
        ValueError: ``field`` is not a key of :data:`LABEL_FIELDS`.
        InputError: no row has the verdict.
    """
    if field not in LABEL_FIELDS:
        raise ValueError(f"field: expected one of {sorted(LABEL_FIELDS)}, got {field!r}")
    if field == "gold_label":
        missing = [it for it in items if it.gold_label is None]
    else:
        missing = [it for it in items if it.extra.get("human_label") in (None, "")]
    if not missing:
        return
    names = LABEL_FIELDS[field]
    columns: dict[str, None] = {}
    for r in rows:
        if isinstance(r, dict):
            columns.update(dict.fromkeys(r))
    verdictish = []
    for c in columns:
        values = [r.get(c) for r in rows[:200] if isinstance(r, dict) and r.get(c) not in (None, "")]
        if c in names or not values or not all(isinstance(v, str) for v in values):
            continue
        try:
            for v in values:
                normalize_verdict(v, field=c)
        except ValueError:
            continue
        verdictish.append(c)
    hint = (f"; the values of {', '.join(repr(c) for c in verdictish)} read as verdicts: rename that field to "
            f"{field!r}" if verdictish else "")
    fields = " / ".join(repr(n) for n in names)
    if len(missing) == len(items):
        need = "the proxy (P(gold verdict | claim, evidence))" if field == "gold_label" else "this run"
        other = "; or score without the proxy: --scorer hu-meteor" if field == "gold_label" else ""
        raise InputError(f"{path}: no row has the verdict {need} needs (field {fields}); the file's fields are "
                         f"{', '.join(repr(c) for c in columns) or 'none'}{hint}{other}")
    shown = ", ".join(row_ref(it.row, it.line, f"id {it.id}") for it in missing[:MAX_ROWS_NAMED]) + (
        f" and {len(missing) - MAX_ROWS_NAMED} more" if len(missing) > MAX_ROWS_NAMED else "")
    warnings.warn(f"{path}: {len(missing)} of {len(items)} row(s) have no verdict in {fields}: they get status "
                  f"no_label (no proxy, no Ev2R). Rows (from 0; line = the line of the file): {shown}{hint}",
                  InputWarning, stacklevel=3)


def read_items(path: str | Path, references: Optional[str | Path] = None, limit: Optional[int] = None,
               strict_labels: Iterable[str] = (), require_label: Optional[str] = None) -> list[Item]:
    """Read every row of ``path`` as :class:`Item` (format per module docstring).

    Args:
        path: JSON list or JSONL file.
        references: AVeriTeC gold file to join an AVeriTeC predictions file with
            (:func:`ev2r.io.averitec.join_averitec_predictions`).
        limit: read only the first ``limit`` rows (>= 1).
        strict_labels: optional verdict fields the run needs (e.g. ``("human_label",)``): a value there that is
            not a verdict raises instead of giving an :class:`InputWarning`.
        require_label: the verdict the run needs, ``"gold_label"`` or ``"human_label"`` (None: none): checked
            for every row here, before any model loads (:func:`check_required_label`).

    Raises:
        InputError: unreadable file or an unusable row (naming the row and field); with
            ``references``, predictions that do not join the gold file
            (:class:`ev2r.io.averitec.JoinError`, an InputError).
    """
    rows = read_rows(path)
    if not isinstance(rows, list):
        raise InputError(f"{path}: expected a JSON list of rows or JSONL")
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise InputError(f"limit: must be >= 1, got {limit}")
        rows = jsonio.RowList(rows[:limit], None if jsonio.line_of(rows, 0) is None else rows.lines[:limit])
    if references is not None:
        rows = join_averitec_predictions(rows, read_rows(references), str(path), str(references))
    items = items_from_rows(rows, str(path), strict_labels=strict_labels)
    if require_label is not None:
        check_required_label(items, rows, require_label, path)
    return items


def write_jsonl(rows: Iterable[dict], path: str | Path) -> None:
    """Write dicts as JSON lines (UTF-8, no ASCII escaping except U+2028, U+2029 and U+0085, so
    each record is one line for every reader; :func:`claimalign.jsonio.write_jsonl`), through a
    temporary file beside ``path`` renamed into place: a failed write leaves the old file intact.
    :func:`read_rows` reads the file back to the same rows.

    Raises:
        OSError: the file cannot be written. TypeError: a value that is not JSON serialisable.
    """
    jsonio.write_jsonl(rows, path)


def item_hash(item: Item) -> str:
    """A stable content hash of an item as read: the SHA-256 (64 lower-case hex digits) of a
    canonical JSON text of its ``id`` (and the id as the input gave it), ``row``, ``claim``, both
    evidences (question/answer pairs, in order), ``gold_label``, ``predicted_label`` and the other
    input fields (``Item.extra``, e.g. ``human_label``). Text is hashed after normalisation (NFC, LF),
    so inputs that read alike hash alike; any other change of content gives another hash. Written
    as ``item_hash`` in every output row (:func:`score_row`); a resumed run reuses a row only when
    its hash is the item's (:mod:`ev2r.engines.runs`).

    Args:
        item: an :class:`Item`.

    Raises:
        ValueError: ``item`` is not an :class:`Item`.

    >>> a = Item(id="1", claim="C.", predicted_evidence=evidence_from_text("x"), reference_evidence=Evidence(()))
    >>> len(item_hash(a)), item_hash(a) == item_hash(a), item_hash(a) == item_hash(a.with_predicted(Evidence(())))
    (64, True, False)
    """
    import hashlib
    import json

    if not isinstance(item, Item):
        raise ValueError(f"item: expected an ev2r.types.Item, got {type(item).__name__}")

    def evidence(e: Evidence) -> list:
        return [[p.question, p.answer] for p in e.pairs]

    def verdict(v: Any) -> Any:
        return None if v is None else getattr(v, "value", str(v))

    content = {"v": 1, "id": item.id, "source_id": item.source_id, "row": item.row, "claim": item.claim,
               "predicted_evidence": evidence(item.predicted_evidence),
               "reference_evidence": evidence(item.reference_evidence),
               "gold_label": verdict(item.gold_label), "predicted_label": verdict(item.predicted_label),
               "extra": item.extra}
    text = json.dumps(content, sort_keys=True, ensure_ascii=True, separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def score_row(item: Item, score: Any, with_facts: bool = False) -> dict:
    """The output row ``ev2r score -o`` writes for one scored item: :meth:`ItemScore.to_dict` with
    the id as the input gave it (``585`` stays a number), unless ``with_facts`` without the atomic
    facts, and last the item's content hash ``item_hash`` (:func:`item_hash`, what a resume matches
    on). Every engine (local, :mod:`ev2r.engines.ray_engine`) writes rows through this.

    Args:
        item: the :class:`Item` that was scored.
        score: its :class:`~ev2r.types.ItemScore`.
        with_facts: keep ``predicted_facts`` / ``reference_facts`` (facts with support probabilities);
            ``"explain"`` (``ev2r score --explain``): the facts with the premise that decided each, and the
            proxy's premises and the hybrid's alignment (:data:`ev2r.types.EXPLAIN_FIELDS`).
    """
    d = score.to_dict(explain=with_facts == "explain")
    if item.source_id is not None and str(item.source_id) == score.id:
        d["id"] = item.source_id  # the id as the input gave it (585 stays a number)
    if not with_facts:
        d.pop("predicted_facts"), d.pop("reference_facts")
    d["item_hash"] = item_hash(item)
    return d
