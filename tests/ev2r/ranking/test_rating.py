"""Arena ranking: battles, Bradley-Terry MLE with ties as half wins, bootstrap, Elo, CLI."""

import json
import math
import warnings

import numpy as np
import pytest

from ev2r.ranking.rating import (ELO_SCALE, RankingWarning, elo_online, fit_bradley_terry, make_battles, rank_systems,
                       scores_table, to_rating)

LOG4 = 400 * math.log10(4)  # 240.82: Elo gap for 4:1 odds
LOG2 = 400 * math.log10(2)  # 120.41
#: the toy table's one warning: each pair of systems battles on items of its own (tests expect it)
TOY_WARNING = r"systems were scored on different numbers of items \(A: 55, B: 60, C: 55\)"


def toy_table():
    """3 systems whose empirical win rates are exactly Bradley-Terry with strengths 4 : 2 : 1:
    A beats B 20/30 (= 4/6), A beats C 20/25 (= 4/5), B beats C 20/30 (= 2/3); one battle per item."""
    table, n = {}, 0

    def add(x, y, wins, losses):
        nonlocal n
        for k in range(wins + losses):
            table[f"i{n}"] = {x: 1.0, y: 0.0} if k < wins else {x: 0.0, y: 1.0}
            n += 1

    add("A", "B", 20, 10)
    add("A", "C", 20, 5)
    add("B", "C", 20, 10)
    return table


def test_bt_recovers_known_strengths():
    W = np.array([[0, 20, 20], [10, 0, 20], [5, 10, 0]], float)
    theta, info = fit_bradley_terry(W)
    r = to_rating(theta)
    assert info["mle_exists"] and info["components"] == [[0, 1, 2]]
    assert math.isclose(r[0] - r[2], LOG4, abs_tol=1e-4)
    assert math.isclose(r[1] - r[2], LOG2, abs_tol=1e-4)
    assert math.isclose(r.mean(), 1000.0, abs_tol=1e-9)
    # 1000-centred: B sits exactly in the middle (log-strengths ln4, ln2, 0 -> mean ln2)
    assert math.isclose(r[1], 1000.0, abs_tol=1e-4)


def test_rank_systems_on_toy_items():
    with pytest.warns(RankingWarning, match=TOY_WARNING) as rec:
        res = rank_systems(toy_table(), n_bootstrap=0)
    assert len(rec) == 1 and res["warnings"] == [str(rec[0].message)]
    R = res["ratings"]
    assert res["ranking"] == ["A", "B", "C"]
    assert math.isclose(R["A"]["rating"] - R["C"]["rating"], LOG4, abs_tol=1e-2)
    assert math.isclose(R["B"]["rating"] - R["C"]["rating"], LOG2, abs_tol=1e-2)
    assert (R["A"]["wins"], R["A"]["losses"], R["A"]["ties"]) == (40, 15, 0)
    assert res["n_battles"] == 85 and res["n_items"] == 85


def test_ties_count_half():
    # A beats B 3 times, ties twice, loses once -> W_AB = 4, W_BA = 2 -> 2:1 odds
    table = {f"w{k}": {"A": 0.9, "B": 0.1} for k in range(3)}
    table.update({f"t{k}": {"A": 0.5, "B": 0.5} for k in range(2)})
    table["l"] = {"A": 0.1, "B": 0.9}
    res = rank_systems(table, n_bootstrap=0)
    assert math.isclose(res["ratings"]["A"]["rating"] - res["ratings"]["B"]["rating"], LOG2, abs_tol=1e-2)
    assert res["ratings"]["A"]["ties"] == 2


def test_margin_turns_small_differences_into_ties():
    table = {"1": {"A": 0.50, "B": 0.48}, "2": {"A": 0.9, "B": 0.1}, "3": {"A": 0.1, "B": 0.9}}
    b0 = make_battles(table, margin=0.0)
    assert b0.wins[0, 1] == 2 and b0.ties.sum() == 0
    b = make_battles(table, margin=0.05)
    assert b.wins[0, 1] == 1 and b.wins[1, 0] == 1 and b.ties[0, 1] == 1
    with pytest.raises(ValueError, match="margin"):
        make_battles(table, margin=-1)


def test_invariant_to_battle_order_and_row_order():
    W = np.array([[0, 7, 3], [2, 0, 5], [4, 1, 0]], float)
    rng = np.random.default_rng(1)
    perm = rng.permutation(3)
    theta, _ = fit_bradley_terry(W)
    theta_p, _ = fit_bradley_terry(W[np.ix_(perm, perm)])
    assert np.allclose(theta[perm], theta_p, atol=1e-6)
    # shuffled input rows -> identical result, Elo included (battles are put in canonical order)
    rows = [{"id": i, "system": s, "ev2r": v} for i, d in toy_table().items() for s, v in d.items()]
    with pytest.warns(RankingWarning, match=TOY_WARNING):
        a = rank_systems(scores_table(rows), n_bootstrap=20, seed=3)
    rng.shuffle(rows)
    with pytest.warns(RankingWarning, match=TOY_WARNING):
        b = rank_systems(scores_table(rows), n_bootstrap=20, seed=3)
    assert a == b


def test_invariant_to_renaming():
    table = toy_table()
    names = {"A": "zeta", "B": "alpha", "C": "mid"}
    renamed = {i: {names[s]: v for s, v in d.items()} for i, d in table.items()}
    with pytest.warns(RankingWarning, match=TOY_WARNING):
        a = rank_systems(table, n_bootstrap=40, seed=0)
    with pytest.warns(RankingWarning, match=TOY_WARNING.replace("A: 55, B: 60, C: 55", "alpha: 60, mid: 55, zeta: 55")):
        b = rank_systems(renamed, n_bootstrap=40, seed=0)
    for s, t in names.items():
        assert math.isclose(a["ratings"][s]["rating"], b["ratings"][t]["rating"], abs_tol=1e-3)
        # the bootstrap resamples items, whose order does not depend on system names
        assert np.allclose(a["ratings"][s]["ci95"], b["ratings"][t]["ci95"], atol=1e-3)
    assert [names[s] for s in a["ranking"]] == b["ranking"]


def test_disconnected_graph_warns_with_components():
    table = {"1": {"A": 1.0, "B": 0.0}, "2": {"A": 0.0, "B": 1.0}, "3": {"C": 1.0, "D": 0.5},
             "4": {"C": 0.2, "D": 0.5}}
    with pytest.warns(RankingWarning, match=r"disconnected.*\{A, B\}; \{C, D\}"):
        res = rank_systems(table, n_bootstrap=0)
    assert res["components"] == [["A", "B"], ["C", "D"]]
    assert any("disconnected" in w for w in res["warnings"])
    # each component centred on 1000
    assert math.isclose(res["ratings"]["A"]["rating"] + res["ratings"]["B"]["rating"], 2000, abs_tol=1e-6)
    assert math.isclose(res["ratings"]["C"]["rating"] + res["ratings"]["D"]["rating"], 2000, abs_tol=1e-6)


def test_no_finite_mle_warns_and_stays_finite():
    table = {str(k): {"A": 1.0, "B": 0.0} for k in range(5)}
    with pytest.warns(RankingWarning, match="no finite Bradley-Terry MLE"):
        res = rank_systems(table, n_bootstrap=20)
    assert res["ratings"]["A"]["rating"] > res["ratings"]["B"]["rating"]
    # the warning says it in words: who never lost / never won, and what the penalty does
    (msg,) = [w for w in res["warnings"] if w.startswith("no finite")]
    assert "A never lost a battle; B never won or tied one" in msg and "L2 penalty of 0.01" in msg
    assert "the order is sound" in msg
    assert all(math.isfinite(x) for s in res["ratings"].values() for x in [s["rating"], *s["ci95"]])


def test_connected_graph_has_no_warning():
    table = {str(k): {"A": 0.1 * (k % 3), "B": 0.1 * (k % 2), "C": 0.05 * k} for k in range(8)}
    with warnings.catch_warnings():
        warnings.simplefilter("error", RankingWarning)
        res = rank_systems(table, n_bootstrap=20)
    assert res["warnings"] == []


def test_unequal_item_coverage_warns_with_counts():
    # toy_table: one battle per item, so A, B, C are scored on 55, 60, 55 items
    with pytest.warns(RankingWarning, match=r"different numbers of items \(A: 55, B: 60, C: 55\)"):
        res = rank_systems(toy_table(), n_bootstrap=0)
    assert len(res["warnings"]) == 1


def test_bootstrap_ci_contains_point_and_is_seeded():
    with pytest.warns(RankingWarning, match=TOY_WARNING):
        a = rank_systems(toy_table(), n_bootstrap=60, seed=7)
    with pytest.warns(RankingWarning, match=TOY_WARNING):
        b = rank_systems(toy_table(), n_bootstrap=60, seed=7)
    assert a == b
    for r in a["ratings"].values():
        lo, hi = r["ci95"]
        assert lo <= r["rating"] <= hi and hi - lo > 10


def test_elo_order_matters_less_when_averaged():
    # Elo on the toy: order of ratings as BT; the averaged Elo gaps are smaller than BT's (K=4, few battles)
    with pytest.warns(RankingWarning, match=TOY_WARNING):
        res = rank_systems(toy_table(), n_bootstrap=0, elo_k=16, elo_orders=50)
    e = {s: r["elo"] for s, r in res["ratings"].items()}
    assert e["A"] > e["B"] > e["C"]
    assert math.isclose(sum(e.values()), 3000, abs_tol=0.01)  # zero-sum updates (values rounded)


def test_elo_single_battle_hand_value():
    # equal start: E = 0.5, winner gains K/2
    r = elo_online([("i", 0, 1, 1.0)], 2, k_factor=32, orders=1)
    assert np.allclose(r, [1016, 984])
    with pytest.raises(ValueError, match="elo_k"):
        elo_online([], 2, k_factor=0)


def test_elo_scale_constant():
    assert math.isclose(ELO_SCALE * math.log(10), 400)


@pytest.mark.parametrize("row,match", [
    ({"system": "A", "ev2r": 0.1}, "'id' is missing"),
    ({"id": 1, "ev2r": 0.1}, "'system' is missing"),
    ({"id": 1, "system": "A"}, "'ev2r' is missing"),
    ({"id": 1, "system": "A", "ev2r": "high"}, "'ev2r' must be a number"),
    ({"id": 1, "system": "", "ev2r": 0.1}, "'system' must be a non-empty string"),
    ({"id": 1, "system": "A", "ev2r": float("nan")}, "finite"),
    ({"id": None, "system": "A", "ev2r": 0.1}, "'id' must be a non-empty string or an integer"),
    ({"id": " ", "system": "A", "ev2r": 0.1}, "'id' must be a non-empty string or an integer"),
    ({"id": [1], "system": "A", "ev2r": 0.1}, "'id' must be a non-empty string or an integer"),
])
def test_bad_rows_name_the_field(row, match):
    with pytest.raises(ValueError, match=match):
        scores_table([row])


def test_duplicate_and_null_scores():
    with pytest.raises(ValueError, match=r"rows 0 and 1 have one 'id' '1' for system 'A': the same id is written twice"):
        scores_table([{"id": 1, "system": "A", "ev2r": 0.1}, {"id": 1, "system": "A", "ev2r": 0.2}])
    # one id rule in every command -- 1 and "1", NFC and NFD are one id, both rows named
    with pytest.raises(ValueError, match=r"rows 0 and 2 have one 'id' '1' for system 'A': 1 \(a number\) and '1' \(text\)"):
        scores_table([{"id": 1, "system": "A", "ev2r": 0.1}, {"id": 2, "system": "A", "ev2r": 0.1},
                      {"id": "1", "system": "A", "ev2r": 0.2}])
    with pytest.raises(ValueError, match=r"rows 0 and 1 have one 'id' '\u0158' .*Unicode NFC"):
        scores_table([{"id": "\u0158", "system": "A", "ev2r": 0.1}, {"id": "R\u030c", "system": "A", "ev2r": 0.2}])
    t = scores_table([{"id": 1, "system": "A", "ev2r": None}, {"id": 1, "system": "B", "ev2r": 0.2}])
    assert t == {"1": {"B": 0.2}}
    with pytest.raises(ValueError, match="no item was scored by two"):
        rank_systems({"1": {"B": 0.2}, "2": {"A": 0.1}})
    with pytest.raises(ValueError, match="at least two systems"):
        make_battles({"1": {"A": 0.2}})


def test_cli(tmp_path, capsys):
    from ev2r.cli.main import main

    rows = [{"id": i, "system": s, "ev2r": v} for i, d in toy_table().items() for s, v in d.items()]
    path = tmp_path / "scores.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "rank.json"
    rc = main(["rank", str(path), "-o", str(out), "--bootstrap", "10", "--table", str(tmp_path / "t.md"),
               "--plot", str(tmp_path / "p.png")])
    assert rc == 0
    res = json.loads(out.read_text())
    assert set(res["ratings"]) == {"A", "B", "C"}
    r = res["ratings"]["A"]
    assert set(r) >= {"rating", "ci95", "elo"} and len(r["ci95"]) == 2
    assert (tmp_path / "p.png").stat().st_size > 1000
    assert "| 1 | A |" in (tmp_path / "t.md").read_text()
    assert "| 1 | A |" in capsys.readouterr().out


def test_cli_system_from_file_name_and_fields(tmp_path):
    from ev2r.cli.main import main

    a = tmp_path / "a.jsonl"
    b = tmp_path / "b.jsonl"
    a.write_text("".join(json.dumps({"row_id": k, "f1": 0.8}) + "\n" for k in range(4)), encoding="utf-8")
    b.write_text("".join(json.dumps({"row_id": k, "f1": 0.2 if k else 0.9}) + "\n" for k in range(4)), encoding="utf-8")
    out = tmp_path / "r.json"
    assert main(["rank", f"sysA={a}", f"sysB={b}", "--id-field", "row_id", "--score-field", "f1",
                 "-o", str(out), "--bootstrap", "0"]) == 0
    res = json.loads(out.read_text())
    assert res["ranking"] == ["sysA", "sysB"]
    assert math.isclose(res["ratings"]["sysA"]["rating"] - res["ratings"]["sysB"]["rating"], 400 * math.log10(3),
                        abs_tol=1e-2)


def test_cli_bad_field_exit_code(tmp_path, capsys):
    from ev2r.cli.main import main

    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"id": 1, "model": "A", "ev2r": 0.3}) + "\n", encoding="utf-8")
    assert main(["rank", str(path), "-o", str(tmp_path / "o.json")]) == 2
    assert "'system' is missing" in capsys.readouterr().err


@pytest.mark.parametrize("kwargs,match", [
    ({"l2": float("nan")}, "l2: must be a finite number"),
    ({"l2": -1.0}, "l2: must be a finite number"),
    ({"seed": -1}, "seed: must be an integer >= 0"),
    ({"elo_k": float("nan")}, "elo_k: must be > 0"),
])
def test_bad_settings_name_the_setting(kwargs, match):
    table = {"1": {"A": 0.1, "B": 0.2}, "2": {"A": 0.3, "B": 0.2}}
    with pytest.raises(ValueError, match=match):
        rank_systems(table, n_bootstrap=5, **kwargs)
