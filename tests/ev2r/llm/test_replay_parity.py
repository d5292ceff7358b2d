"""Replay parity: the 158 recorded GPT-4o / GPT-3.5 answers, replayed through ev2r, reproduce the
authors' per-row precision/recall and their published correlations on the 86-row subset.
The computation is benchmarks/parity/replay_parity.py's (one implementation, loaded from its path)."""

import math

import pytest

from support.paths import REPO
from support.modules import load_file_module

BENCH = REPO / "benchmarks" / "parity" / "replay_parity.py"

FLAGGED = {("gpt-4o-2024-05-13", 35), ("gpt-3.5-turbo-1106", 268), ("gpt-3.5-turbo-1106", 66)}


@pytest.fixture(scope="module")
def parity():
    mod = load_file_module("replay_parity", BENCH)
    return mod


@pytest.fixture(scope="module")
def rows(parity, shared_data):
    return parity.replay_rows(shared_data)


def test_every_recording_replays_to_its_recorded_scores(rows):
    assert len(rows) == 158
    assert sum(r["model"] == "gpt-4o-2024-05-13" for r in rows) == 73
    ok = [r for r in rows if r["status"] == "ok"]
    assert len(ok) == 155 and all(r["match"] for r in ok)
    flagged = {(r["model"], r["id"]) for r in rows if r["status"] != "ok"}
    assert flagged == FLAGGED  # inconsistent recordings are flagged, never scored
    for r in rows:
        if r["status"] != "ok":
            assert r["status"] == "replay_inconsistent" and r["error"]
            assert r["replayed_precision"] is None and r["replayed_recall"] is None
        else:
            for k in ("replayed_precision", "replayed_recall"):
                assert 0.0 <= r[k] <= 1.0 and not math.isnan(r[k])


def test_published_correlations_are_reproduced(parity, rows, shared_data):
    cors = parity.correlations(shared_data, rows)
    assert len(cors) == 24  # 2 models x {precision, recall} x 6 human dimensions
    for c in cors:
        assert c["authors_n"] == c["published_n"], c
        assert c["authors_spearman"] == pytest.approx(c["published_spearman"], abs=1e-6), c
        assert c["authors_pearson"] == pytest.approx(c["published_pearson"], abs=1e-6), c
        # ev2r's own protocol leaves the flagged rows out instead of scoring them
        assert c["ev2r_n"] == c["published_n"] - (1 if c["llm"].startswith("gpt-4o") else 2)
        assert abs(c["ev2r_spearman"] - c["published_spearman"]) < 0.05
    assert sum(c["authors_null_as_0"] for c in cors) == 12  # gpt-3.5 id 268, in each of its 12 rows


def test_benchmark_script_writes_its_outputs(parity, shared_data, tmp_path):
    assert parity.main(["--data", str(shared_data), "--out", str(tmp_path)]) == 0
    for name in ("replay_parity.csv", "replay_parity_rows.csv", "replay_parity.md"):
        assert (tmp_path / name).stat().st_size > 0
