"""``ev2r averitec --subset``: the shipped 5-prediction example scores against the 500-claim dev
file only when asked, marked SUBSET in the table and the JSON."""

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


def test_sample_without_subset_says_what_to_do(capsys, tmp_path, monkeypatch):
    """A count and the first 10 of the 495 gold claims without a prediction, not 100 ids on one line; every
    id is in the file the message names (a new file in the temporary folder, one id a line)."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    code, _, err = run(capsys, "averitec", SAMPLE, "--references", DEV, "--nltk-data", NLTK_DATA)
    assert code == 2 and "pass --subset" in err
    assert ("gold claims without a prediction: 495 of 500 (the first 10: [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, ...]; "
            "all 495, one a line: ") in err
    (written,) = tmp_path.glob("ev2r-averitec-missing-claim-ids-*.txt")
    assert f"one a line: {written})" in err and len(err) < 800
    predicted = {p["claim_id"] for p in json.loads(SAMPLE.read_text(encoding="utf-8"))}
    assert predicted == {0, 1, 2, 3, 4}
    assert [json.loads(x) for x in written.read_text(encoding="utf-8").splitlines()] == list(range(5, 500))


def test_2025_edition_names_the_missing_claims_the_same_way(capsys, tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    code, _, err = run(capsys, "averitec", SAMPLE, "--references", DEV, "--edition", "2025", "--llm-offline",
                       "--llm-cache", tmp_path / "cache", "--llm-model", "m", "--llm-base-url", "http://127.0.0.1:9/v1")
    assert code == 2 and "pass --subset" not in err  # 2025 scores every gold claim: no --subset
    assert "gold claims without a prediction: 495 of 500 (the first 10: [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, ...]" in err
    (written,) = tmp_path.glob("ev2r-averitec-missing-claim-ids-*.txt")
    assert written.read_text(encoding="utf-8").count("\n") == 495


def test_short_missing_keeps_the_other_problems_and_short_lists_whole():
    from ev2r.cli.averitec import short_missing
    from ev2r.io.averitec import JoinError

    e = JoinError("predictions do not join the gold file one-to-one: claim_id given more than once: [3]; gold claims "
                  "without a prediction: [1, 2]; the shared-task table scores every gold claim",
                  {"duplicate_claim_id": [3], "missing_prediction": [1, 2]})
    msg = short_missing(e, 4)
    assert msg.startswith("predictions do not join the gold file one-to-one: claim_id given more than once: [3]; gold "
                          "claims without a prediction: 2 of 4 (the first 2: [1, 2]; all 2, one a line: ")
    assert msg.endswith("); the shared-task table scores every gold claim")
    path = msg.split("one a line: ")[1].split(")")[0]
    import os

    try:
        with open(path, encoding="utf-8") as fh:
            assert fh.read() == "1\n2\n"
    finally:
        os.remove(path)


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
