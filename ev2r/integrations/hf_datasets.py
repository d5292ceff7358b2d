"""``datasets`` integration: the package's item schema as a :class:`datasets.Dataset`, loaders for
AVeriTeC, FEVER-style and VitaminC files, and scoring straight from a ``Dataset``.

Schema (:data:`FEATURES`), one row per item, the fields ``ev2r score`` reads from JSONL: ``id`` (the input row's
id, else its row), ``row`` (0-based row in the source file; ids can repeat, join on it), ``claim``,
``predicted_evidence`` and ``reference_evidence`` (``Question: q\nAnswer: a`` blocks or plain text; '' when there
is none), ``gold_label`` (the canonical verdict or null), ``predicted_label`` (or null) and ``extra`` (a JSON object
of every other input field).

The loaders map the formats of :mod:`ev2r.io.readers`: an AVeriTeC gold file gives ``reference_evidence`` (and,
with a predictions file joined on ``claim_id`` or position, ``predicted_evidence``); FEVER-style and VitaminC
claim/evidence rows give ``predicted_evidence`` without a reference (reference-based scores get status
``no_reference``); VitaminC evidence pairs give the candidate as ``predicted_evidence``, gold = the reference's label.

Requires the ``hf`` extra (``pip install ev2r[hf]``: ``datasets``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional, Sequence

from ev2r.types import Item

COLUMNS = ("id", "row", "claim", "predicted_evidence", "reference_evidence", "gold_label", "predicted_label", "extra")
SCORE_COLUMNS = ("precision", "recall", "f1", "proxy", "ev2r", "status", "error")


def _features():
    import datasets

    s = datasets.Value("string")
    return datasets.Features({"id": s, "row": datasets.Value("int64"), "claim": s, "predicted_evidence": s,
                              "reference_evidence": s, "gold_label": s, "predicted_label": s, "extra": s})


def __getattr__(name):  # FEATURES built lazily: importing this module does not import datasets
    if name == "FEATURES":
        return _features()
    raise AttributeError(name)


def item_to_row(item: Item) -> dict:
    """One :class:`Item` as a row of the schema."""
    return {
        "id": item.id, "row": item.row, "claim": item.claim,
        "predicted_evidence": item.predicted_evidence.render(),
        "reference_evidence": item.reference_evidence.render(),
        "gold_label": item.gold_label.value if item.gold_label is not None else None,
        "predicted_label": item.predicted_label.value if item.predicted_label is not None else None,
        "extra": json.dumps(item.extra, ensure_ascii=False, sort_keys=True, default=str),
    }


def items_to_dataset(items: Sequence[Item]):
    """:class:`datasets.Dataset` with the package schema from items (order kept)."""
    import datasets

    rows = [item_to_row(it) for it in items]
    cols = {c: [r[c] for r in rows] for c in COLUMNS}
    return datasets.Dataset.from_dict(cols, features=_features())


def dataset_to_items(dataset) -> list[Item]:
    """Items from a ``Dataset`` (or any iterable of row dicts) in the package schema, or with the
    raw fields of any format :func:`ev2r.io.readers.item_from_row` reads (``evidence``/``label`` ...).

    Text is normalised as in every reader (:mod:`claimalign.text`: NFC, LF line ends); an
    optional verdict field that is not a verdict gives one :class:`ev2r.io.readers.InputWarning`.

    Raises:
        ValueError (:class:`ev2r.io.readers.InputError`): a row without a claim or evidence, an unknown
            gold verdict, or an ``extra`` column that is not a JSON object -- naming the row and field.
    """
    from dataclasses import replace

    from ev2r.io.readers import InputError, items_from_rows

    rows, positions = [], []
    for n, row in enumerate(dataset):
        row = dict(row)
        extra = row.pop("extra", None)
        if extra:
            try:
                parsed = json.loads(extra) if isinstance(extra, str) else extra
            except json.JSONDecodeError as e:
                raise InputError(f"<dataset>: row {n}: field 'extra' is not valid JSON ({e.msg})") from None
            if not isinstance(parsed, dict):
                raise InputError(f"<dataset>: row {n}: field 'extra' must be a JSON object")
            for k, v in parsed.items():
                row.setdefault(k, v)
        pos = row.pop("row", None)
        if "predicted_evidence" in row and row.get("reference_evidence") is None:
            row["reference_evidence"] = ""
        rows.append(row)
        positions.append(pos)
    items = items_from_rows(rows, "<dataset>")
    return [replace(item, row=pos) if isinstance(pos, int) else item for item, pos in zip(items, positions)]


def load_items_dataset(path: str | Path, references: Optional[str | Path] = None, limit: Optional[int] = None):
    """Any file :func:`ev2r.io.readers.read_items` reads -> ``Dataset`` with the package schema."""
    from ev2r.io.readers import read_items

    return items_to_dataset(read_items(path, references=references, limit=limit))


def load_averitec(path: str | Path, predictions: Optional[str | Path] = None, limit: Optional[int] = None):
    """AVeriTeC JSON -> ``Dataset``.

    Args:
        path: the AVeriTeC gold file (list of ``{claim, label, questions, ...}``).
        predictions: optional predictions file in the AVeriTeC shared-task format, joined with
            ``path`` on ``claim_id`` (position when the gold rows have no ids).
        limit: only the first ``limit`` rows (of ``predictions`` when given, else of ``path``).

    Raises:
        ValueError (:class:`ev2r.io.readers.InputError`): unreadable file or a bad row, naming it.
    """
    from ev2r.io.readers import InputError, averitec_questions_to_evidence, read_items, read_rows, _label, _where
    from ev2r.types import Evidence

    if predictions is not None:
        return items_to_dataset(read_items(predictions, references=path, limit=limit))
    rows = read_rows(path)
    if not isinstance(rows, list):
        raise InputError(f"{path}: expected a JSON list of AVeriTeC claims")
    if limit is not None:
        if limit < 1:
            raise InputError(f"limit: must be >= 1, got {limit}")
        rows = rows[:limit]
    items = []
    for n, r in enumerate(rows):
        where = _where(str(path), n)
        if not isinstance(r, dict) or "questions" not in r:
            raise InputError(f"{where}: an AVeriTeC row needs field 'questions'")
        claim = r.get("claim")
        if not isinstance(claim, str) or not claim.strip():
            raise InputError(f"{where}: field 'claim' must be a non-empty string, got {claim!r}")
        rid = str(r.get("claim_id", r.get("id", n)))
        ref = averitec_questions_to_evidence(r["questions"], where)
        extra = {k: v for k, v in r.items() if k not in ("claim", "questions", "label", "claim_id", "id")}
        items.append(Item(id=rid, claim=claim.strip(), predicted_evidence=Evidence(()), reference_evidence=ref,
                          gold_label=_label(r.get("label"), where, "label"), row=n, extra=extra))
    return items_to_dataset(items)


def load_fever(path: str | Path, limit: Optional[int] = None):
    """FEVER-style JSONL (``claim``, ``evidence``, ``label``) -> ``Dataset`` (evidence as the
    predicted evidence, no reference)."""
    return load_items_dataset(path, limit=limit)


def load_vitaminc(path: str | Path, limit: Optional[int] = None):
    """VitaminC JSONL -> ``Dataset``: claim/evidence rows as :func:`load_fever`; evidence-pair rows
    (``reference_evidence``, ``candidate_evidence``) with the candidate as predicted evidence."""
    return load_items_dataset(path, limit=limit)


def score_dataset(dataset, scorer=None, **build_options):
    """Score a ``Dataset`` in the package schema.

    Args:
        dataset: a ``datasets.Dataset`` (package schema, or raw fields :func:`dataset_to_items` reads).
        scorer: an :class:`~ev2r.metric.scorer.Ev2RScorer`; built with ``build_options`` (see
            :func:`ev2r.metric.factory.build_scorer`) when None.

    Returns:
        ``(scored, corpus)``: the dataset with columns ``precision``, ``recall``, ``f1``, ``proxy``,
        ``ev2r`` (float or null), ``status``, ``error`` (and any baseline columns) added in row
        order, and the :class:`~ev2r.types.CorpusScore`.
    """
    import datasets

    if scorer is None:
        from ev2r.metric.factory import build_scorer

        scorer = build_scorer(**build_options)
    elif build_options:
        raise ValueError(f"build_options: given together with a scorer: {sorted(build_options)}")
    items = dataset_to_items(dataset)
    scores = scorer.score(items)
    extra_names = sorted({k for s in scores for k in s.extra_scores})
    scored = dataset
    for name in SCORE_COLUMNS + tuple(extra_names):
        if name in scored.column_names:
            scored = scored.remove_columns(name)
    for name in ("precision", "recall", "f1", "proxy", "ev2r"):
        scored = scored.add_column(name, [getattr(s, name) for s in scores],
                                   feature=datasets.Value("float64"))
    scored = scored.add_column("status", [s.status for s in scores], feature=datasets.Value("string"))
    scored = scored.add_column("error", [s.error for s in scores], feature=datasets.Value("string"))
    for name in extra_names:
        scored = scored.add_column(name, [s.extra_scores.get(name) for s in scores], feature=datasets.Value("float64"))
    return scored, scorer.corpus(scores)
