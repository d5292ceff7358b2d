"""``ev2r averitec --subset``: the shipped 5-prediction example scores against the 500-claim dev
file only when asked, marked SUBSET in the table and the JSON (issue 21, item 8)."""

from __future__ import annotations

import json

import pytest

from ev2r.cli.main import main
from support.paths import NLTK_DATA, REPO, SHARED_DATA

SAMPLE = REPO / "examples" / "averitec_predictions_sample.json"
DEV = SHARED_DATA / "averitec" / "dev.json"

pytestmark = pytest.mark.skipif(not DEV.is_file() or not (NLTK_DATA / "corpora" / "wordnet").is_dir(),
                                reason=f"AVeriTeC dev.json or nltk data not found under {SHARED_DATA}")


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_sample_without_subset_says_what_to_do(capsys):
    code, _, err = run(capsys, "averitec", SAMPLE, "--references", DEV, "--nltk-data", NLTK_DATA)
    assert code == 2 and "495 in all" in err and "pass --subset" in err


def test_sample_with_subset_is_marked_in_table_and_json(capsys, tmp_path):
    code, out, err = run(capsys, "averitec", SAMPLE, "--references", DEV, "--nltk-data", NLTK_DATA, "--subset")
    assert code == 0
    assert out.splitlines()[0].startswith("SUBSET: 5 of 500 gold claims scored") and "NOT the official" in out
    assert "--subset: 5 of 500 gold claims scored" in err
    code, out, _ = run(capsys, "averitec", SAMPLE, "--references", DEV, "--nltk-data", NLTK_DATA, "--subset", "--json")
    d = json.loads(out)
    assert code == 0 and d["subset"] is True and d["n_claims"] == 5 and d["n_gold_claims"] == 500
    assert "not the official" in d["subset_note"]


@pytest.mark.parametrize("extra,msg", [(["--edition", "2025"], "--subset: only with --edition 2024"),
                                       (["--join", "position"], "--subset: needs --join id")])
def test_subset_refuses_what_it_cannot_mark(capsys, extra, msg):
    code, _, err = run(capsys, "averitec", SAMPLE, "--references", DEV, "--subset", *extra)
    assert code == 2 and msg in err
