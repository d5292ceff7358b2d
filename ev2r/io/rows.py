"""Output rows that say which definition made them, sealed: what ``ev2r score -o`` writes for one item and
what a resume checks before it reuses a row (:mod:`ev2r.engines.runs`), and what ``ev2r compare`` checks before it
compares two files.

Every row ends with ``signature_hash`` (the first 10 hex digits of the SHA-256 of the run's full signature) and
``row_hash`` (a seal over its numbers, status, ``item_hash`` and ``signature_hash``). A row is reused only when it was
made under the run's signature, its seal holds, every score is None or a number in [0, 1], and its Ev2R and F1 agree
with their formulas (:func:`row_problem`).
"""

from __future__ import annotations

import json
from typing import Optional

from ev2r.types import EXPLAIN_FIELDS, ROW_META_FIELDS, FactSupport, Item, ItemScore, PremiseReason

#: Each output row names the definition that made it and seals its numbers: ``signature_hash`` is the first
#: 10 hex digits of the SHA-256 of the run's full signature (:func:`ev2r.signature.text_digest`); ``row_hash`` the first
#: 16 of the SHA-256 of the row's sealed values (:func:`row_seal`). A resume reuses a row only when both hold.
SIGNATURE_HASH = "signature_hash"
ROW_HASH = "row_hash"
#: The text fields a row's seal covers beside its numbers (the rest of a row's text -- id, error -- is read back
#: normalised, and the item's content is sealed by ``item_hash``).
_SEALED_TEXT = ("status", "item_hash", SIGNATURE_HASH)
#: Row fields that hold text, not a score (every other scalar field of a row is a score: None or a number in [0, 1]).
_TEXT_FIELDS = ("id", "status", "error", "item_hash", SIGNATURE_HASH, ROW_HASH, "proxy_decided_by")

_ROW_FIELDS = (*ROW_META_FIELDS, "precision", "recall", "f1", "proxy", "ev2r", *EXPLAIN_FIELDS)


def _sealed_values(row: dict) -> dict:
    return {k: v for k, v in row.items()
            if k != ROW_HASH and (k in _SEALED_TEXT or v is None or isinstance(v, (bool, int, float)))}


def row_seal(row: dict) -> str:
    """The ``row_hash`` of an output row: the first 16 hex digits of the SHA-256 of its scalar values (every number,
    None and boolean, by field) and its ``status``, ``item_hash`` and ``signature_hash``, as canonical JSON. Editing a
    number, removing one or replacing it by text changes it."""
    from ev2r.signature import text_digest

    return text_digest(json.dumps(_sealed_values(row), sort_keys=True, ensure_ascii=True), 16)


def output_row(item: Item, score: ItemScore, with_facts, signature: str) -> dict:
    """The row ``ev2r score -o`` writes for one item (:func:`ev2r.io.readers.score_row`), ending with the definition
    that made it (``signature_hash``: :func:`ev2r.signature.text_digest` of the run's full ``signature``) and its seal
    (``row_hash``: :func:`row_seal`). Every engine writes rows through this."""
    from ev2r.io.readers import score_row
    from ev2r.signature import text_digest

    row = score_row(item, score, with_facts)
    row[SIGNATURE_HASH] = text_digest(str(signature))
    row[ROW_HASH] = row_seal(row)
    return row


def _hybrid_weights_of(signature: Optional[str]) -> Optional[dict]:
    """The ``ev2r_hybrid`` weights of a signature's ``hybrid`` field (``w=recall:0,proxy:0.05,...``), or None."""
    from ev2r.signature import Signature

    try:
        value = Signature.parse(str(signature)).fields.get("hybrid") if signature else None
        if not value or not value.startswith("w="):
            return None
        return {name: float(w) for name, _, w in (part.partition(":") for part in value[2:].split(","))}
    except ValueError:
        return None


def _alpha_of(signature: Optional[str]) -> Optional[float]:
    from ev2r.signature import Signature

    try:
        value = Signature.parse(str(signature)).fields.get("alpha") if signature else None
        return float(value) if value is not None else None
    except ValueError:
        return None


def row_problem(row: dict, signature: Optional[str]) -> Optional[str]:
    """Why an earlier output row cannot be resumed under ``signature``, in words naming the field; None when it can.

    A row is resumed only when it was made under this very definition (``signature_hash``), its numbers are as they
    were written (``row_hash``), every score field is None or a finite number in [0, 1], and its headline agrees with
    its parts where the formula says so (F1 from precision and recall; Ev2R = alpha F1 + (1 - alpha) proxy, alpha from
    the signature, arXiv 2411.05375, sec. 3.3; ``ev2r_hybrid`` the weighted sum of its parts, the weights from the
    signature's ``hybrid`` field), to 1e-9. The seal catches accidents and hand edits, not forgery: anyone can
    recompute an unkeyed hash.

    Args:
        row: a row of ``OUT`` or ``OUT.part``.
        signature: this run's full signature (or the earlier record's when this run's is not known yet); None: the
            definition is not checked.
    """
    import math

    from ev2r.scores import ev2r_combine, f1_score
    from ev2r.signature import text_digest

    for key, value in row.items():
        if key in _TEXT_FIELDS or isinstance(value, (list, dict)):
            continue
        if key == "row":
            if isinstance(value, bool) or not isinstance(value, int):
                return f"field 'row' is {value!r:.40}, not a row number"
            continue
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not math.isfinite(value) or not 0.0 <= value <= 1.0):
            return f"field {key!r} is {value!r:.40}, not a score (None or a number in [0, 1])"
    if ROW_HASH not in row or SIGNATURE_HASH not in row:
        return (f"it has no {SIGNATURE_HASH} / {ROW_HASH} (written by ev2r before 1.8.0, or by hand): it does not say "
                "which definition made it")
    if row.get(ROW_HASH) != row_seal(row):
        return f"its numbers are not the ones ev2r wrote ({ROW_HASH} does not match: edited after it was written)"
    if signature is not None and row.get(SIGNATURE_HASH) != text_digest(str(signature)):
        return (f"it was made under another definition ({SIGNATURE_HASH} {row.get(SIGNATURE_HASH)!r}, this run's "
                f"{text_digest(str(signature))!r}: other options, model or version)")
    p, r, f1 = row.get("precision"), row.get("recall"), row.get("f1")
    if None not in (p, r, f1):
        want = f1_score(p, r)
        if abs(want - f1) > 1e-9:
            return f"field 'f1' is {f1!r}, not 2PR/(P+R) = {want!r} of its precision and recall"
    alpha, proxy, ev2r_value = _alpha_of(signature), row.get("proxy"), row.get("ev2r")
    if alpha is not None and None not in (f1, proxy, ev2r_value):
        want = ev2r_combine(f1, proxy, alpha)
        if abs(want - ev2r_value) > 1e-9:
            return f"field 'ev2r' is {ev2r_value!r}, not {alpha:g} x F1 + {1 - alpha:g} x proxy = {want!r}"
    weights, hybrid = _hybrid_weights_of(signature), row.get("ev2r_hybrid")
    if weights is not None and hybrid is not None:
        parts = {name: row.get(name) for name, w in weights.items() if w}
        if None not in parts.values() and abs(sum(weights[n] * v for n, v in parts.items()) - hybrid) > 1e-9:
            return (f"field 'ev2r_hybrid' is {hybrid!r}, not the weighted sum of its parts "
                    f"({', '.join(f'{weights[n]:g} x {n}' for n in parts)})")
    return None


def score_from_row(d: dict) -> ItemScore:
    """Rebuild an :class:`ItemScore` from an output row (for the corpus summary of resumed items).

    Raises:
        ValueError: an explain field (``hybrid_alignment``, ``contradicted_pairs``, ``proxy_premises``) that is
            not a list of objects (naming the field and the row's id).
    """
    def facts(v):
        return [FactSupport.from_dict(f) if isinstance(f, dict) else f for f in (v or [])]

    def records(name: str) -> list:
        v = d.get(name) or []
        if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
            raise ValueError(f"{name}: expected a list of objects in the row of id {d.get('id')!r}, got {v!r:.80}")
        return list(v)

    extra = {k: v for k, v in d.items() if k not in _ROW_FIELDS}
    return ItemScore(id=str(d["id"]), row=d.get("row", 0), precision=d.get("precision"), recall=d.get("recall"),
                     f1=d.get("f1"), proxy=d.get("proxy"), ev2r=d.get("ev2r"), status=d.get("status", "ok"),
                     error=d.get("error"), predicted_facts=facts(d.get("predicted_facts")),
                     reference_facts=facts(d.get("reference_facts")), extra_scores=extra,
                     proxy_premises=[PremiseReason(**p) for p in records("proxy_premises")],
                     proxy_decided_by=d.get("proxy_decided_by"), hybrid_alignment=records("hybrid_alignment"),
                     contradicted_pairs=records("contradicted_pairs"))


def rows_problem(rows, record: Optional[dict], path: str) -> Optional[str]:
    """Why the score rows of ``path`` are not as the run that its record ``record`` names wrote them (a row edited, of
    another definition, sealed wrong: :func:`row_problem` on each), or None. Checked only for records of format 3 on
    (1.8.0: rows carry ``signature_hash`` / ``row_hash``); an interrupted ``--no-resume`` run's record is read through
    to the earlier run's it keeps (``previous_record``). For ``ev2r report`` and ``ev2r rank``, which read score files
    the way ``ev2r compare`` and a resume do."""
    if not isinstance(record, dict) or not isinstance(record.get("format"), int) or record["format"] < 3:
        return None
    if record.get("previous_out") and isinstance(record.get("previous_record"), dict):
        record = record["previous_record"]
    signature = record.get("signature")
    for k, r in enumerate(rows, 1):
        if isinstance(r, dict):
            why = row_problem(r, str(signature) if signature else None)
            if why is not None:
                return (f"{path} line {k} (id {r.get('id')!r}) is not as the run that made it wrote it: {why}; score "
                        "it again")
    return None
