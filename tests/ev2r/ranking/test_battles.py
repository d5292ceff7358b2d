"""Which per-item score rows battle (:mod:`ev2r.ranking.battles`): only rows whose ``status`` is ok
or absent and whose score is not null; the others are counted per system and status."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ev2r.ranking.rating import (NULL_SCORE, RankingWarning, counted_scores_table, rank_systems, ranking_table,
                                 row_counts, scores_table)
from ev2r.types import ITEM_STATUSES

CASE = Path(__file__).resolve().parents[2] / "data" / "cases" / "turn3" / "rank_failed_status_with_score.jsonl"


def test_failed_statuses_do_not_battle_and_are_counted():
    rows = [{"id": 0, "system": "A", "ev2r": 0.9, "status": "replay_missing"},
            {"id": 1, "system": "A", "ev2r": 0.9, "status": "no_reference"},
            {"id": 2, "system": "A", "ev2r": None, "status": "ok"},
            {"id": 3, "system": "A", "ev2r": 0.2, "status": "ok"},
            {"id": 3, "system": "B", "ev2r": 0.4},  # no status field: a user's own table, counts
            {"id": 0, "system": "B", "ev2r": 0.1, "status": " OK "}]
    table, skipped = counted_scores_table(rows)
    assert table == {"3": {"A": 0.2, "B": 0.4}, "0": {"B": 0.1}}
    assert skipped == {"A": {"replay_missing": 1, "no_reference": 1, NULL_SCORE: 1}}
    assert scores_table(rows) == table
    with pytest.warns(RankingWarning) as rec:  # B beat A on their one shared item, and 3 of A's rows were skipped
        res = rank_systems(table, n_bootstrap=0, skipped=skipped)
    assert [str(w.message) for w in rec] == res["warnings"]
    assert res["warnings"][0].startswith("no finite Bradley-Terry MLE: B never lost a battle; A never won or tied one")
    assert res["ratings"]["A"]["mean_score"] == 0.2 and res["ratings"]["A"]["n_items"] == 1
    assert res["ratings"]["A"]["n_skipped"] == 3 and res["ratings"]["B"]["n_skipped"] == 0
    assert res["n_skipped"] == 3 and res["skipped"]["A"]["replay_missing"] == 1
    assert any("3 row(s) skipped" in w for w in res["warnings"])
    assert "Skipped rows" in ranking_table(res) and "A: 3 (no_reference 1, null score 1, replay_missing 1)" in \
        ranking_table(res)


@pytest.mark.parametrize("status", [None, "", 3, ["ok"]])
def test_status_must_be_a_string(status):
    with pytest.raises(ValueError, match=r"row 0: field 'status' must be a non-empty string"):
        counted_scores_table([{"id": 0, "system": "A", "ev2r": 0.5, "status": status}])


def test_case_rank_failed_status_with_score():
    """turn3/rank_failed_status_with_score.jsonl: every row replay_missing with ev2r 0.9 -- none battles."""
    rows = [dict(r, system="A") for r in map(json.loads, CASE.read_text().splitlines())]
    table, skipped = counted_scores_table(rows, source=str(CASE))
    assert table == {} and skipped == {"A": {"replay_missing": 5}}
    ok = [{"id": i, "system": s, "ev2r": v, "status": "ok"} for i in range(5) for s, v in (("B", 0.5), ("C", 0.4))]
    t2, s2 = counted_scores_table(rows + ok)
    with pytest.warns(RankingWarning) as rec:  # B beats C on every item
        res = rank_systems(t2, n_bootstrap=0, skipped=s2)
    assert [str(w.message) for w in rec] == res["warnings"]
    assert res["warnings"][0].startswith("no finite Bradley-Terry MLE: B never lost a battle; C never won or tied one")
    assert res["ranking"] == ["B", "C"] and "A" not in res["ratings"]
    assert res["skipped"] == {"A": {"replay_missing": 5}}
    assert "Not ranked (no counted row): A" in ranking_table(res)
    with pytest.raises(ValueError, match=r"at least two systems.*A: 5 \(replay_missing 5\)"):
        rank_systems(counted_scores_table(rows + ok[::2])[0], n_bootstrap=0, skipped=s2)


row = st.fixed_dictionaries({"ev2r": st.one_of(st.none(), st.floats(0, 1)),
                             "status": st.sampled_from(ITEM_STATUSES + ("OK", "absent"))})


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("ABC"), row), max_size=30))
def test_only_ok_rows_enter_and_every_row_is_accounted_for(rows):
    data = []
    for n, (s, r) in enumerate(rows):
        d = {"id": n, "system": s, "ev2r": r["ev2r"]}
        if r["status"] != "absent":
            d["status"] = r["status"]
        data.append(d)
    table, skipped = counted_scores_table(data)
    entered = sum(len(d) for d in table.values())
    assert entered + sum(sum(d.values()) for d in skipped.values()) == len(data)
    for d in data:
        ok = row_counts(d) is None and d["ev2r"] is not None
        assert (d["system"] in table.get(str(d["id"]), {})) == ok

