"""The CI gate of the blind edit benchmark (``benchmarks/edits_blind.py --gate``): the committed default's table
passes; one more edit wrong than a ceiling allows fails, naming the side, the score and the counts."""

import copy
import json
from pathlib import Path

from tests.support.modules import load_file_module

ROOT = Path(__file__).resolve().parents[2]
eb = load_file_module("edits_blind_gate", ROOT / "benchmarks" / "robustness" / "edits_blind.py")


def _table():
    return json.loads((ROOT / "benchmarks" / "results" / "edits_blind.json").read_text(encoding="utf-8"))["table"]


def test_the_recorded_default_passes_its_gate(capsys):
    assert eb.gate(_table()) == 0
    assert "edits gate: passed (4 of 4 checks)" in capsys.readouterr().err


def test_one_edit_over_a_ceiling_fails(capsys):
    table = copy.deepcopy(_table())
    row = next(r for r in table if r["family"] == "all preserving")
    row["ev2r_hybrid"]["count"] = eb.GATE_MAX[("preserving", "ev2r_hybrid")] + 1
    assert eb.gate(table) == 1
    err = capsys.readouterr().err
    most = eb.GATE_MAX[("preserving", "ev2r_hybrid")]
    assert f"preserving / ev2r_hybrid: {most + 1} of 72 wrong, at most {most} allowed" in err
    assert "failed (3 of 4 checks)" in err


def test_unscored_edits_fail_the_gate(capsys):
    table = copy.deepcopy(_table())
    row = next(r for r in table if r["family"] == "all changing")
    row["ev2r"]["of"], row["ev2r"]["count"] = 0, 0  # every edit failed: nothing wrong, nothing judged
    assert eb.gate(table) == 1
    assert "changing / ev2r: 99 of 99 edits have no score" in capsys.readouterr().err


def test_bad_score_files_exit_2_with_the_file_and_line(tmp_path, capsys):
    import pytest

    cases = {"notjson.jsonl": '{"id": "a"}\nnot json\n', "list.jsonl": "[1, 2]\n", "noid.jsonl": '{"x": 1}\n'}
    for name, text in cases.items():
        f = tmp_path / name
        f.write_text(text, encoding="utf-8")
        with pytest.raises(SystemExit) as e:
            eb.read_jsonl(f)
        assert e.value.code == 2
    err = capsys.readouterr().err
    assert "notjson.jsonl, line 2: not JSON" in err and "list.jsonl, line 1: expected a JSON object" in err
    with pytest.raises(SystemExit) as e:
        eb.read_jsonl(tmp_path / "missing.jsonl")
    assert e.value.code == 2 and "cannot be read as UTF-8 JSONL (FileNotFoundError" in capsys.readouterr().err
