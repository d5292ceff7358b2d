"""Readers and writers for the dataset formats the project scores.

Accepted inputs (:func:`read_items` detects the format per row):

* **ev2r JSONL** -- ``id``, ``claim``, ``predicted_evidence``, ``reference_evidence`` (text in the
  ``Question: ...\\nAnswer: ...`` form, or a list of ``{question, answer}``), ``gold_label``,
  optional ``predicted_label``; any other field (``human_label``, ``human_ratings`` ...) is
  carried in ``Item.extra``.
* **FEVER / VitaminC JSONL** -- ``claim``, ``evidence`` (text), ``label``: the evidence is the
  predicted evidence, there is no reference evidence (reference-based scores then get status
  ``no_reference``; the proxy still scores).
* **VitaminC evidence pairs** -- ``claim``, ``reference_evidence``, ``candidate_evidence``,
  ``reference_label``: the candidate is scored against the reference; gold = reference label.
* **AVeriTeC JSON** -- a list of claims with ``questions: [{question, answers: [{answer,
  answer_type, boolean_explanation?}]}]`` (gold evidence) and ``label``. A predictions file in
  the AVeriTeC shared-task format (``claim_id``, ``claim``, ``evidence: [{question, answer}]``,
  ``pred_label``) is joined with a gold file given as ``references=`` on ``claim_id`` (or
  position when the gold file has no ids, as in the official dev/test files).

Rows are identified by ``id`` (or ``claim_id``, ``unique_id``; else the 0-based row number) and
by their row number; results are joined back on the row number, because some rating files
repeat an id. A bad row raises :class:`InputError` naming the file, row and field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

from .labels import normalize_verdict
from .types import Evidence, Item, QAPair, clean_text, is_valid_id

ID_FIELDS = ("id", "claim_id", "unique_id")


class InputError(ValueError):
    """Unusable input: the message names the file, the row and the field."""


def _where(path: str, row: int, rid: Any = None) -> str:
    return f"{path}: row {row}" + (f" (id {rid!r})" if rid is not None else "")


def render_averitec_answer(ans: dict) -> str:
    """Render one AVeriTeC answer: the answer text, followed by its ``boolean_explanation``
    for Boolean answers (``"No. The report says ..."``)."""
    text = str(ans.get("answer", "") or "").strip()
    expl = str(ans.get("boolean_explanation", "") or "").strip()
    if expl:
        text = f"{text}. {expl}" if text and not text.endswith((".", "!", "?")) else f"{text} {expl}".strip()
    return text


def averitec_questions_to_evidence(questions: Any, where: str, field: str = "questions") -> Evidence:
    """AVeriTeC ``questions`` list -> :class:`Evidence`; duplicate questions dropped (first kept);
    several answers to one question are joined with a space."""
    if not isinstance(questions, list):
        raise InputError(f"{where}: field {field!r} must be a list of {{question, answers}}, got {type(questions).__name__}")
    pairs, seen = [], set()
    for k, q in enumerate(questions):
        if not isinstance(q, dict) or not isinstance(q.get("question"), str):
            raise InputError(f"{where}: {field}[{k}] must be an object with a string 'question'")
        question = q["question"].strip()
        if question in seen:
            continue
        seen.add(question)
        answers = q.get("answers")
        if answers is None and "answer" in q:
            answers = [q]
        if not isinstance(answers, list):
            raise InputError(f"{where}: {field}[{k}].answers must be a list")
        for j, x in enumerate(answers):
            if not isinstance(x, dict) or not isinstance(x.get("answer"), str):
                got = type(x).__name__ if not isinstance(x, dict) else f"answer={x.get('answer')!r:.60}"
                raise InputError(f"{where}: {field}[{k}].answers[{j}] must be an object with an 'answer' string, "
                                 f"got {got}")
            expl = x.get("boolean_explanation")
            if expl is not None and not isinstance(expl, str):
                raise InputError(f"{where}: {field}[{k}].answers[{j}].boolean_explanation must be a string, "
                                 f"got {expl!r:.60}")
        text = " ".join(a for a in (render_averitec_answer(x) for x in answers) if a)
        pairs.append(QAPair(question, text))
    return Evidence(tuple(pairs))


def parse_evidence(value: Any, where: str, field: str) -> Evidence:
    """Evidence from text (``Question: ...\\nAnswer: ...`` blocks or plain text), a list of
    ``{question, answer}`` objects, or an AVeriTeC ``questions`` list (``{question, answers}``)."""
    if value is None:
        raise InputError(f"{where}: field {field!r} is missing (text or a list of {{question, answer}})")
    if isinstance(value, str):
        return Evidence.from_text(value)
    if isinstance(value, list):
        if value and all(isinstance(v, dict) and "answers" in v for v in value):
            return averitec_questions_to_evidence(value, where, field)
        if value and all(isinstance(v, str) for v in value):  # a list of sentences
            return Evidence(tuple(QAPair("", t) for t in (clean_text(v) for v in value) if t))
        try:
            return Evidence.from_pairs(value, field_name=field)
        except ValueError as e:
            raise InputError(f"{where}: {e}") from None
    raise InputError(f"{where}: field {field!r} must be text or a list of {{question, answer}}, got {type(value).__name__}")


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


def _raw_id(row: dict, n: int, path: str = "<input>") -> Any:
    """The row's identifier as given (first of ``ID_FIELDS`` that is not null), or None.

    Raises:
        InputError: the identifier is not a non-empty string or an integer.
    """
    for f in ID_FIELDS:
        v = row.get(f)
        if v is not None:
            if not is_valid_id(v):
                raise InputError(f"{_where(path, n)}: field {f!r} must be a non-empty string or an integer, got {v!r:.60}")
            return v
    return None


def _row_id(row: dict, n: int, path: str = "<input>") -> str:
    v = _raw_id(row, n, path)
    return str(n) if v is None else str(v)


def item_from_row(row: Any, n: int, path: str = "<input>") -> Item:
    """Build an :class:`Item` from one parsed row of any supported schema (module docstring)."""
    if not isinstance(row, dict):
        raise InputError(f"{_where(path, n)}: expected a JSON object, got {type(row).__name__}")
    rid = _row_id(row, n, path)
    where = _where(path, n, rid)
    claim = row.get("claim")
    if not isinstance(claim, str) or not clean_text(claim):
        raise InputError(f"{where}: field 'claim' must be a non-empty string, got {claim!r}")
    used = {"claim", *ID_FIELDS}
    if "candidate_evidence" in row:  # VitaminC evidence pairs
        pred = parse_evidence(row.get("candidate_evidence"), where, "candidate_evidence")
        ref = parse_evidence(row.get("reference_evidence"), where, "reference_evidence")
        gold = _label(row.get("reference_label"), where, "reference_label")
        plabel = _label(row.get("candidate_label"), where, "candidate_label")
        used |= {"candidate_evidence", "reference_evidence", "reference_label", "candidate_label"}
    elif "predicted_evidence" in row or "reference_evidence" in row:
        pred = parse_evidence(row.get("predicted_evidence"), where, "predicted_evidence")
        ref = parse_evidence(row.get("reference_evidence", ""), where, "reference_evidence")
        gold = _gold_label(row, where)
        plabel = _label(row.get("predicted_label"), where, "predicted_label")
        used |= {"predicted_evidence", "reference_evidence", "gold_label", "label", "predicted_label"}
    elif "questions" in row:  # AVeriTeC gold row, optionally with a system's evidence
        ref = averitec_questions_to_evidence(row["questions"], where)
        if "evidence" not in row:
            raise InputError(f"{where}: an AVeriTeC gold row has reference evidence ('questions') but no predicted "
                             "evidence; score a predictions file (claim_id, evidence, pred_label) with "
                             "references=<gold file> (CLI: --references GOLD.json)")
        pred = parse_evidence(row["evidence"], where, "evidence")
        gold = _label(row.get("label"), where, "label")
        plabel = _label(row.get("pred_label"), where, "pred_label")
        used |= {"questions", "evidence", "label", "pred_label"}
    elif "evidence" in row and "claim_id" in row and "pred_label" in row and isinstance(row["evidence"], list):
        raise InputError(f"{where}: this looks like an AVeriTeC predictions row (claim_id, evidence, pred_label) "
                         "without its reference evidence; pass the gold file with references=<gold.json> "
                         "(CLI: --references GOLD.json)")
    elif "evidence" in row:  # FEVER / VitaminC claim-evidence rows
        pred = parse_evidence(row["evidence"], where, "evidence")
        ref = Evidence(())
        gold = _gold_label(row, where)
        plabel = _label(row.get("predicted_label"), where, "predicted_label")
        used |= {"evidence", "label", "gold_label", "predicted_label"}
    else:
        raise InputError(f"{where}: no evidence field; expected 'predicted_evidence' + 'reference_evidence' "
                         "(ev2r), 'evidence' (FEVER/VitaminC), 'candidate_evidence' (VitaminC pairs) or "
                         "'questions' (AVeriTeC)")
    extra = {k: v for k, v in row.items() if k not in used}
    _label(extra.get("human_label"), where, "human_label")  # read by --proxy-target human: check it here
    source_id = _raw_id(row, n, path)
    return Item(id=rid, claim=clean_text(claim), predicted_evidence=pred, reference_evidence=ref,
                gold_label=gold, predicted_label=plabel, row=n, extra=extra, source_id=source_id)


def read_rows(path: str | Path) -> list[Any]:
    """Parsed rows of a JSON list file or a JSONL file. Raises :class:`InputError` on bad JSON."""
    if not isinstance(path, (str, Path)):
        raise InputError(f"path: expected a file path, got {type(path).__name__}")
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if not path.is_file():
        raise InputError(f"{path}: not a file")
    try:
        text = path.read_text(encoding="utf-8-sig")  # a UTF-8 byte-order mark is accepted
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise InputError(f"{path}: cannot be read ({e.strerror})") from None
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            rows = json.loads(text)
        except json.JSONDecodeError as e:
            raise InputError(f"{path}: not valid JSON ({e.msg} at line {e.lineno})") from None
        if not rows:
            raise InputError(f"{path}: no rows (an empty JSON list)")
        if not isinstance(rows, list):
            return rows  # read_items reports a JSON value that is not a list of rows
    else:
        rows = _jsonl_rows(path, text)
    for n, r in enumerate(rows):
        check_encodable(r, f"{path}: row {n}", "")
    return rows


def _jsonl_rows(path: Path, text: str) -> list[Any]:
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as e:
            raise InputError(f"{path}: line {n} is not valid JSON ({e.msg})") from None
    if not rows:
        raise InputError(f"{path}: no rows")
    return rows


def check_encodable(value: Any, where: str, field: str) -> None:
    """Every string in a parsed row must be valid Unicode text: JSON escapes such as ``"\\ud800"``
    decode to lone surrogates, which no tokenizer or UTF-8 writer accepts.

    Raises:
        InputError: naming the row and the field path.
    """
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:
            raise InputError(f"{where}: field {field or '(row)'!r} holds an invalid character "
                             f"({value[e.start]!r} at position {e.start}: a lone surrogate, not text)") from None
    elif isinstance(value, dict):
        for k, v in value.items():
            check_encodable(k, where, field)
            check_encodable(v, where, f"{field}.{k}" if field else str(k))
    elif isinstance(value, list):
        for j, v in enumerate(value):
            check_encodable(v, where, f"{field}[{j}]")


def join_averitec_predictions(preds: Sequence[Any], gold: Sequence[Any], pred_path: str, gold_path: str) -> list[dict]:
    """Attach gold ``questions``/``label`` to AVeriTeC prediction rows by ``claim_id`` (position
    in the gold file when gold rows carry no id)."""
    by_id: dict[str, dict] = {}
    for n, g in enumerate(gold):
        if not isinstance(g, dict) or "questions" not in g:
            raise InputError(f"{_where(gold_path, n)}: a references row needs 'questions' (AVeriTeC gold format)")
        gid = _row_id(g, n, gold_path)
        if gid in by_id:
            raise InputError(f"{_where(gold_path, n, gid)}: a second gold row with id {gid!r} (ids must be unique "
                             "in the references file)")
        by_id[gid] = g
    out = []
    for n, p in enumerate(preds):
        if not isinstance(p, dict):
            raise InputError(f"{_where(pred_path, n)}: expected a JSON object")
        key = _row_id(p, n, pred_path)
        if key not in by_id:
            raise InputError(f"{_where(pred_path, n, key)}: no gold row with id {key!r} in {gold_path}")
        g = by_id[key]
        pc, gc = p.get("claim"), g.get("claim")
        if isinstance(pc, str) and isinstance(gc, str) and " ".join(pc.split()) != " ".join(gc.split()):
            raise InputError(f"{_where(pred_path, n, key)}: claim {pc[:60]!r} differs from the gold claim of id "
                             f"{key!r} in {gold_path} ({gc[:60]!r}): the files are not aligned")
        merged = dict(p)
        merged["questions"] = g["questions"]
        merged.setdefault("label", g.get("label"))
        merged.setdefault("claim", g.get("claim"))
        if "evidence" not in merged:
            raise InputError(f"{_where(pred_path, n, key)}: field 'evidence' is missing (list of {{question, answer}})")
        out.append(merged)
    return out


def read_items(path: str | Path, references: Optional[str | Path] = None, limit: Optional[int] = None) -> list[Item]:
    """Read every row of ``path`` as :class:`Item` (format per module docstring).

    Args:
        path: JSON list or JSONL file.
        references: AVeriTeC gold file to join a predictions file with.
        limit: read only the first ``limit`` rows (>= 1).

    Raises:
        InputError: unreadable file or an unusable row (naming the row and field).
    """
    rows = read_rows(path)
    if not isinstance(rows, list):
        raise InputError(f"{path}: expected a JSON list of rows or JSONL")
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise InputError(f"limit: must be >= 1, got {limit}")
        rows = rows[:limit]
    if references is not None:
        rows = join_averitec_predictions(rows, read_rows(references), str(path), str(references))
    return [item_from_row(r, n, str(path)) for n, r in enumerate(rows)]


def write_jsonl(rows: Iterable[dict], path: str | Path) -> None:
    """Write dicts as JSON lines (UTF-8, no ASCII escaping)."""
    with open(path, "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
