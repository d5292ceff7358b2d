"""``ev2r verify``: input fields named like its outputs are refused (never overwritten), a null
premise/hypothesis falls back to its alias, and a huge integer id names the file and field."""

from __future__ import annotations

import json
import math
import shutil

import pytest
from hypothesis import given, settings, strategies as st

from ev2r.cli.main import main
from ev2r.cli.verify import OUTPUT_FIELDS, pair_from_row
from ev2r.io.readers import InputError
from support.paths import SHARED_CASES

CASE = SHARED_CASES / "turn3" / "verify_output_fields_collide.jsonl"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.skipif(not CASE.exists(), reason="shared cases not present")
def test_the_colliding_fields_case_is_refused_naming_row_and_fields(tmp_path, capsys, tiny_nli_model):
    inp = tmp_path / "in.jsonl"
    shutil.copy(CASE, inp)
    out = tmp_path / "out.jsonl"
    code, _, err = run(capsys, "verify", inp, "-o", out, "--model", tiny_nli_model)
    assert code == 2 and f"{inp}: row 0" in err and "'entailment', 'neutral'" in err and "never" in err
    assert not out.exists()


def test_null_premise_or_hypothesis_falls_back_to_the_alias(tmp_path, capsys, tiny_nli_model):
    inp = tmp_path / "in.jsonl"
    inp.write_text('{"premise": null, "evidence": "Paris is in France.", "hypothesis": null, "claim": "Paris is '
                   'French."}\n{"premise": "A man sleeps.", "hypothesis": "A man is awake.", "note": 1}\n')
    out = tmp_path / "out.jsonl"
    code, _, err = run(capsys, "verify", inp, "-o", out, "--model", tiny_nli_model)
    assert code == 0, err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["premise"] is None and rows[0]["evidence"] == "Paris is in France." and rows[1]["note"] == 1
    for r in rows:
        assert math.isclose(sum(r[f] for f in OUTPUT_FIELDS), 1.0, abs_tol=1e-6)
    assert pair_from_row({"premise": None, "evidence": "e", "hypothesis": "h"}, "w") == ("e", "h")
    assert pair_from_row({"premise": "p", "evidence": "e", "claim": "c"}, "w") == ("p", "c")


@settings(max_examples=40, deadline=None)
@given(taken=st.sets(st.sampled_from(OUTPUT_FIELDS), min_size=1),
       value=st.one_of(st.none(), st.integers(), st.text(max_size=5), st.floats(allow_nan=False)))
def test_any_output_field_in_the_input_is_refused(taken, value):
    row = {"premise": "p", "hypothesis": "h", **{f: value for f in taken}}
    with pytest.raises(InputError, match="never overwritten") as e:
        pair_from_row(row, "f: row 3")
    assert str(e.value).startswith("f: row 3") and all(repr(f) in str(e.value) for f in taken)


@pytest.mark.parametrize("row, match", [
    ({"premise": None, "evidence": None, "hypothesis": "h"}, "premise \\(or evidence\\)"),
    ({"premise": "  ", "evidence": "e", "hypothesis": "h"}, "field premise must"),
    ({"premise": "p", "hypothesis": 3}, "field hypothesis must"),
    ([1], "expected a JSON object"),
])
def test_unusable_rows(row, match):
    with pytest.raises(InputError, match=match):
        pair_from_row(row, "w")


def test_a_huge_integer_id_names_the_file_and_field(tmp_path, capsys):
    inp = tmp_path / "in.jsonl"
    inp.write_text('{"id": ' + "7" * 5000 + ', "premise": "p", "hypothesis": "h"}\n')
    code, _, err = run(capsys, "verify", inp, "-o", tmp_path / "out.jsonl")
    assert code == 2 and str(inp) in err and "field 'id' holds an integer of 5000 digits" in err
    code, _, err = run(capsys, "score", inp, "--scorer", "hu-meteor")
    assert code == 2 and str(inp) in err and "field 'id'" in err


def test_output_onto_input_is_refused_before_the_model_loads(tmp_path, capsys, monkeypatch):
    import ev2r.metric.factory as factory

    monkeypatch.setattr(factory, "get_verifier", lambda *a, **k: pytest.fail("the verifier was loaded"))
    inp = tmp_path / "in.jsonl"
    inp.write_text('{"premise": "p", "hypothesis": "h"}\n')
    code, _, err = run(capsys, "verify", inp, "-o", inp)
    assert code == 2 and "same file as input" in err and inp.read_text() == '{"premise": "p", "hypothesis": "h"}\n'
