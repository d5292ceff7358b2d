"""A row without ``claim`` once said ``got None`` as if the key held a null. A missing key is called
missing (as a missing ``predicted_evidence`` already is); a present null is called null, the JSON word.

The message is made in ``ev2r/io/readers.py`` (``item_from_row``).
"""

from __future__ import annotations

import json

import pytest

from ev2r.io.errors import InputError
from ev2r.io.readers import read_items

ROW = {"id": 1, "predicted_evidence": "Question: Who?\nAnswer: Bob.", "reference_evidence": "Question: Who?\nAnswer: Bob.",
       "gold_label": "supported"}


def _error(tmp_path, row: dict) -> str:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        read_items(path)
    return str(e.value)


def test_a_missing_claim_is_called_missing_and_a_null_claim_null(tmp_path):
    assert _error(tmp_path, ROW).endswith(
        "rows.jsonl: row 0 (line 1, id '1'): field 'claim' is missing (a non-empty string)")
    assert _error(tmp_path, {**ROW, "claim": None}).endswith(
        "rows.jsonl: row 0 (line 1, id '1'): field 'claim' must be a non-empty string, got null")


def test_an_empty_claim_and_a_missing_evidence_field_say_what_they_are(tmp_path):
    """What already reads right, and stays so."""
    assert _error(tmp_path, {**ROW, "claim": ""}).endswith("field 'claim' must be a non-empty string, got ''")
    row = {k: v for k, v in ROW.items() if k != "predicted_evidence"}
    assert _error(tmp_path, {**row, "claim": "Bob won."}).endswith(
        "field 'predicted_evidence' is missing (text or a list of {question, answer})")
