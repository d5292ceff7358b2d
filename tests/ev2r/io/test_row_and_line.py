"""Every message about a row gives the row (0-based, as the score rows' ``row`` field) and the
line of the file it starts on -- one convention (:func:`claimalign.jsonio.row_where`), errors and warnings alike,
and the line is the real one: blank lines of a JSONL file and a pretty-printed JSON list make it differ from
``row + 1``."""

from __future__ import annotations

import json
import warnings

import pytest

from claimalign.jsonio import line_of, parse_json_or_jsonl, row_where
from ev2r.io.errors import InputError, InputWarning
from ev2r.io.readers import read_items

OK = {"claim": "A.", "predicted_evidence": "Question: Q?\nAnswer: A.", "reference_evidence": "Question: Q?\nAnswer: A.",
      "gold_label": "supported"}


def test_row_where_is_the_one_convention():
    assert row_where("f.jsonl", 3, 7, "585") == "f.jsonl: row 3 (line 7, id '585')"
    assert row_where("f.jsonl", 0, 1) == "f.jsonl: row 0 (line 1)"
    assert row_where("<dataset>", 2) == "<dataset>: row 2"  # rows from no file have no line


def test_lines_of_jsonl_with_blank_lines_and_of_a_pretty_printed_json_list():
    rows = parse_json_or_jsonl('{"a": 1}\n\n\n{"a": "x\\ny"}\n{"a": 3}\n')
    assert rows.lines == [1, 4, 5] and line_of(rows, 1) == 4 and line_of(list(rows), 1) is None
    rows = parse_json_or_jsonl(json.dumps([{"a": "[{"}, {"a": [{"b": 1}]}, {"a": 3}], indent=2))
    assert rows.lines == [2, 5, 12]


def test_a_row_error_names_the_row_and_its_real_line(tmp_path):
    p = tmp_path / "in.jsonl"
    p.write_text("\n".join([json.dumps(dict(OK, id="1")), "", "", json.dumps(dict(OK, id="585", gold_label="perhaps"))])
                 + "\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        read_items(p)
    assert f"{p}: row 1 (line 4, id '585'): gold_label" in str(e.value)


def test_a_json_list_row_error_names_its_line(tmp_path):
    p = tmp_path / "in.json"
    p.write_text(json.dumps([dict(OK, id="1"), dict(OK, id="2", claim="")], indent=1), encoding="utf-8")
    with pytest.raises(InputError, match=r"in\.json: row 1 \(line 9, id '2'\): field 'claim'"):
        read_items(p)


def test_warnings_give_the_row_and_the_same_real_line(tmp_path):
    p = tmp_path / "in.jsonl"
    rows = [dict(OK, id="a"), dict(OK, id="b", predicted_evidence=""), dict(OK, id="c", gold_label=None)]
    p.write_text("\n\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")  # lines 1, 3, 5
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        read_items(p, require_label="gold_label")
    msgs = [str(w.message) for w in rec if issubclass(w.category, InputWarning)]
    assert any("no predicted evidence" in m and "1 (line 3; id b)" in m for m in msgs), msgs
    assert any("no verdict" in m and "2 (line 5; id c)" in m for m in msgs), msgs


def test_verify_and_report_rows_name_row_and_line(tmp_path, capsys):
    from ev2r.cli.main import main

    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"premise": "A.", "hypothesis": "A."}\n\n{"premise": "A."}\n', encoding="utf-8")
    assert main(["verify", str(pairs), "-o", str(tmp_path / "v.jsonl")]) == 2
    assert f"{pairs}: row 1 (line 3)" in capsys.readouterr().err
    scores = tmp_path / "s.jsonl"
    scores.write_text('{"id": 1, "status": "ok"}\n\n{"id": 2}\n', encoding="utf-8")
    assert main(["report", str(scores), "-o", str(tmp_path / "r.html")]) == 2
    assert f"{scores}: row 1 (line 3) has no field 'status'" in capsys.readouterr().err
