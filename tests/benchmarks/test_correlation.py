"""benchmarks/agreement/correlation.py: the multi-file table, the paired bootstrap of a Spearman difference, the
reading of ``ev2r score -o`` rows, and a whole run from score files (no model). The script is loaded
from its path (benchmarks/ is no package)."""

import json

import numpy as np
import pytest
from scipy import stats

from ev2r.io.readers import item_hash, items_from_rows
from support.paths import REPO
from support.modules import load_file_module

BENCH = REPO / "benchmarks" / "agreement" / "correlation.py"


@pytest.fixture(scope="module")
def corr():
    mod = load_file_module("correlation_bench", BENCH)
    return mod


# -- paired bootstrap -----------------------------------------------------------------------------
def test_paired_diff_of_a_perfect_and_a_reversed_score_is_exactly_two(corr):
    y = [1, 2, 3, 4, 5, 6, 7, 8]
    a = [10 * v for v in y]          # rho(a, y) = 1 on every resample
    b = [-v for v in y]              # rho(b, y) = -1 on every resample
    r = corr.paired_spearman_diff(a, b, y, n_boot=300, seed=1)
    assert (r["n"], r["n_dropped"], r["rho_a"], r["rho_b"]) == (8, 0, 1.0, -1.0)
    assert r["diff"] == pytest.approx(2.0) and r["ci95"] == pytest.approx([2.0, 2.0])
    assert r["share_diff_le_0"] == 0.0 and 290 <= r["n_boot_used"] <= 300


def test_paired_diff_of_a_score_with_itself_is_zero_on_every_resample(corr):
    rng = np.random.default_rng(3)
    a, y = rng.normal(size=40).tolist(), rng.integers(1, 6, 40).tolist()
    r = corr.paired_spearman_diff(a, a, y, n_boot=200, seed=0)
    assert r["diff"] == 0.0 and r["ci95"] == [0.0, 0.0] and r["share_diff_le_0"] == 1.0


def test_paired_diff_matches_a_scipy_loop_on_the_same_resamples(corr):
    rng = np.random.default_rng(7)
    n = 30
    y = rng.integers(1, 6, n).astype(float)          # ratings with ties, as the real ones
    a = y + rng.normal(0, 1.5, n)
    b = np.round(y + rng.normal(0, 2.5, n))          # a score with ties too
    r = corr.paired_spearman_diff(a.tolist(), b.tolist(), y.tolist(), n_boot=250, seed=5)
    idx = np.random.default_rng(5).integers(0, n, (250, n))
    ref = [stats.spearmanr(a[i], y[i])[0] - stats.spearmanr(b[i], y[i])[0] for i in idx]
    assert r["diff"] == pytest.approx(stats.spearmanr(a, y)[0] - stats.spearmanr(b, y)[0], abs=1e-12)
    assert r["ci95"] == pytest.approx([np.percentile(ref, 2.5), np.percentile(ref, 97.5)], abs=1e-12)
    assert r["share_diff_le_0"] == pytest.approx(np.mean(np.array(ref) <= 0))


def test_paired_diff_is_deterministic_per_seed(corr):
    rng = np.random.default_rng(11)
    y = rng.integers(1, 6, 50).tolist()
    a = (np.array(y) + rng.normal(0, 1, 50)).tolist()
    b = (np.array(y) + rng.normal(0, 2, 50)).tolist()
    first = corr.paired_spearman_diff(a, b, y, n_boot=200, seed=4)
    assert corr.paired_spearman_diff(a, b, y, n_boot=200, seed=4) == first
    assert corr.paired_spearman_diff(a, b, y, n_boot=200, seed=5)["ci95"] != first["ci95"]


def test_paired_diff_uses_only_rows_all_three_have(corr):
    a = [1, 2, None, 4, 5]
    b = [5, 4, 3, None, 1]
    y = [1, 2, 3, 4, None]
    r = corr.paired_spearman_diff(a, b, y, n_boot=50, seed=0)
    # rows 0 and 1 only: fewer than 3, undefined (None, never NaN)
    assert r["n"] == 2 and r["n_dropped"] == 3 and r["diff"] is None and r["ci95"] is None
    r = corr.paired_spearman_diff([1, 2, 3, None], [3, 2, 1, 0], [1, 2, 3, 4], n_boot=50, seed=0)
    assert (r["n"], r["rho_a"], r["rho_b"], r["diff"]) == (3, 1.0, -1.0, 2.0)


def test_paired_diff_refuses_bad_arguments(corr):
    with pytest.raises(ValueError, match="lengths 2, 3, 3"):
        corr.paired_spearman_diff([1, 2], [1, 2, 3], [1, 2, 3])
    with pytest.raises(ValueError, match="n_boot must be >= 1, got 0"):
        corr.paired_spearman_diff([1, 2, 3], [1, 2, 3], [1, 2, 3], n_boot=0)
    r = corr.paired_spearman_diff([1, 1, 1, 1], [1, 2, 3, 4], [1, 2, 3, 4])
    assert r["rho_a"] is None and r["diff"] is None  # a constant score: undefined


def test_rowwise_spearman_equals_scipy_with_ties(corr):
    rng = np.random.default_rng(2)
    x = rng.integers(0, 4, (5, 20)).astype(float)
    y = rng.integers(0, 3, (5, 20)).astype(float)
    got = corr._rowwise_spearman(x, y)
    assert got == pytest.approx([stats.spearmanr(x[i], y[i])[0] for i in range(5)], abs=1e-12)
    assert np.isnan(corr._rowwise_spearman(np.ones((1, 5)), np.arange(5.0)[None]))[0]


# -- the multi-file table ---------------------------------------------------------------------------
def _res(rho, n, ci=(0.1, 0.5)):
    return {"spearman": rho, "spearman_ci95": list(ci) if ci else None, "n": n}


def test_multi_file_rows_take_the_minimum_over_files_where_defined(corr):
    tables = {"86": {"ev2r/semantic_coverage": _res(0.40, 86), "gpt/semantic_coverage": _res(0.51, 72)},
              "144": {"ev2r/semantic_coverage": _res(0.21, 143), "gpt/semantic_coverage": None}}
    tables["144"].pop("gpt/semantic_coverage")
    rows = corr.multi_file_rows(tables, ["ev2r", "gpt", "absent"], ["semantic_coverage"], {"86": 86, "144": 144})
    assert [(r["score"], r["min"], r["min_over"]) for r in rows] == [
        ("ev2r", 0.21, ["86", "144"]), ("gpt", 0.51, ["86"])]
    assert rows[0]["cells"] == {"86": "+0.400 [+0.10, +0.50]", "144": "+0.210 [+0.10, +0.50] (n=143)"}
    assert rows[1]["cells"]["144"] == "–" and rows[1]["cells"]["86"].endswith("(n=72)")
    md = corr.markdown_table(rows, ["86", "144"], {"86": 86, "144": 144})
    assert md[0] == "| score | rating | 86 (86 rows) | 144 (144 rows) | min over files |"
    assert md[2].endswith("| +0.210 |") and md[3].endswith("| +0.510 (86 only) |")


def test_an_undefined_coefficient_is_a_dash_and_not_a_minimum(corr):
    tables = {"a": {"s/r": _res(None, 10, None)}, "b": {"s/r": _res(-0.2, 10)}}
    (row,) = corr.multi_file_rows(tables, ["s"], ["r"], {"a": 10, "b": 10})
    assert row["cells"]["a"] == "–" and row["min"] == -0.2 and row["min_over"] == ["b"]


def test_a_single_file_table_has_no_min_column(corr):
    rows = corr.multi_file_rows({"86": {"s/r": _res(0.3, 86)}}, ["s"], ["r"], {"86": 86})
    md = corr.markdown_table(rows, ["86"], {"86": 86}, published={("s", "r"): "86: +0.500 (x)"})
    assert md[0] == "| score | rating | 86 (86 rows) | published Spearman |"
    assert md[2] == "| s | r | +0.300 [+0.10, +0.50] | 86: +0.500 (x) |"


def test_compare_rows_read_win_loss_and_tie_per_file(corr):
    def d(diff, lo, hi):
        return {"diff": diff, "ci95": [lo, hi], "n": 9}

    diffs = {("a", "b", "r"): {"86": d(0.1, 0.02, 0.2), "144": d(0.05, -0.01, 0.1)},
             ("a", "c", "r"): {"86": d(0.1, 0.02, 0.2), "144": d(-0.1, -0.2, -0.03)},
             ("a", "e", "r"): {"86": d(0.1, 0.02, 0.2), "144": d(0.2, 0.1, 0.3)},
             ("a", "g", "r"): {"86": d(0.1, 0.02, 0.2), "144": None}}
    lines = corr.compare_rows(diffs, ["86", "144"])
    assert lines[2] == ("| a - b | r | +0.100 [+0.02, +0.20] win (n=9) | +0.050 [-0.01, +0.10] tie (n=9) | +0.050 | "
                        "wins on 86, ties elsewhere |")
    assert lines[3].endswith("| -0.100 | loses on 144 |")
    assert lines[4].endswith("| wins on every file |")
    assert lines[5].endswith("| – | +0.100 | not on 144: no two-set result |")


def test_order_columns_puts_known_scores_first_and_variants_last(corr):
    names = ["hu_meteor_q", "v2:ev2r", "ev2r", "replay_x_recall", "v2:recall", "precision", "v1:f1"]
    assert corr.order_columns(names) == ["precision", "ev2r", "hu_meteor_q", "replay_x_recall",
                                         "v2:recall", "v2:ev2r", "v1:f1"]


# -- ev2r score -o rows ------------------------------------------------------------------------------
def _items(n=5):
    rows = [{"id": 10 + i, "claim": f"Claim {i}.", "predicted_evidence": f"Question: q{i}?\nAnswer: a{i}.",
             "reference_evidence": f"Question: r{i}?\nAnswer: b{i}.", "gold_label": "refuted",
             "human_ratings": {"semantic_coverage": [1, 3, 2, 5, 4][i], "verdict_agreement": [0, 1, 0, 1, 1][i],
                               "coherence": [2, 2, 3, 3, 1][i], "flag": True}} for i in range(n)]
    return rows, items_from_rows(rows, "ratings.jsonl")


def _score_rows(items, ev2r, other):
    return [{"id": it.source_id, "row": it.row, "precision": None, "recall": 0.5, "f1": None, "proxy": None,
             "ev2r": ev2r[k], "status": "ok", "error": None, "combined": other[k], "never": None, "ok_flag": True,
             "item_hash": item_hash(it)} for k, it in enumerate(items)]


def test_columns_from_score_rows_join_on_row_and_keep_numeric_fields(corr):
    _, items = _items()
    rows = _score_rows(items, [0.1, 0.2, 0.3, 0.4, float("nan")], [1, 2, 3, 4, 5])[::-1]  # any order
    cols, info = corr.columns_from_score_rows(rows, items, "s.jsonl")
    assert list(cols) == ["recall", "ev2r", "combined"]  # None on every row (precision, never) or a bool: no column
    assert cols["ev2r"] == [0.1, 0.2, 0.3, 0.4, None] and cols["combined"] == [1, 2, 3, 4, 5]
    assert info == {"rows": 5, "hash_checked": 5, "hash_missing": 0}
    # the reasons of an explained run (ev2r score --explain) are no scores, though proxy_decided_by is a number
    for r in rows:
        r.update(proxy_premises=[], proxy_decided_by=0, hybrid_alignment=[], contradicted_pairs=[])
    assert list(corr.columns_from_score_rows(rows, items, "s.jsonl")[0]) == ["recall", "ev2r", "combined"]
    assert corr.ratings_of(items) == {"coherence": [2, 2, 3, 3, 1], "semantic_coverage": [1, 3, 2, 5, 4],
                                      "verdict_agreement": [0, 1, 0, 1, 1]}  # the bool is no rating


@pytest.mark.parametrize("edit, message", [
    (lambda rows: rows.pop(2), r"no scores for rating row\(s\) \[2\]"),
    (lambda rows: rows.append(dict(rows[0])), "row 0 is given twice"),
    (lambda rows: rows[1].update(row=9), "'row' = 9 is outside the rating file's rows 0..4"),
    (lambda rows: rows[1].update(id=99), "row 1: field 'id' = 99, but the rating file's row 1 has id '11'"),
    (lambda rows: rows[3].update(item_hash="0" * 64), "row 3 .id '13'.: field 'item_hash' differs"),
    (lambda rows: rows[0].pop("row"), "line 1: expected an `ev2r score -o` row"),
])
def test_score_rows_of_another_input_are_refused(corr, edit, message):
    _, items = _items()
    rows = _score_rows(items, [0.1] * 5, [1] * 5)
    edit(rows)
    with pytest.raises(ValueError, match=message):
        corr.columns_from_score_rows(rows, items, "s.jsonl")


def test_no_hash_check_joins_on_row_and_id(corr):
    _, items = _items()
    rows = _score_rows(items, [0.1] * 5, [1] * 5)
    rows[3]["item_hash"] = "0" * 64
    del rows[4]["item_hash"]
    cols, info = corr.columns_from_score_rows(rows, items, "s.jsonl", check_hash=False)
    assert cols["ev2r"] == [0.1] * 5 and info["hash_checked"] == 0
    _, info = corr.columns_from_score_rows([r for r in rows if r["row"] != 3] + [dict(rows[3], item_hash=None)],
                                           items, "s.jsonl")
    assert info == {"rows": 5, "hash_checked": 3, "hash_missing": 2}


# -- a whole run from score files -------------------------------------------------------------------
def test_main_reads_scores_of_two_files_and_compares_variants(corr, tmp_path):
    raw, items = _items()
    data_a, data_b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    data_a.write_text("".join(json.dumps(r) + "\n" for r in raw), encoding="utf-8")
    data_b.write_text("".join(json.dumps(r) + "\n" for r in raw[:4]), encoding="utf-8")
    items_b = items_from_rows(raw[:4], str(data_b))
    ev2r_a, comb_a = [0.1, 0.3, 0.2, 0.5, 0.4], [0.5, 0.4, 0.3, 0.2, 0.1]
    files = {"sa": _score_rows(items, ev2r_a, comb_a), "sa2": _score_rows(items, comb_a, ev2r_a),
             "sb": _score_rows(items_b, [0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4])}
    for name, rows in files.items():
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out_json, out_md = tmp_path / "c.json", tmp_path / "c.md"
    assert corr.main(["--data", str(data_a), "--data", f"dev={data_b}", "--scores", f"5={tmp_path / 'sa.jsonl'}",
                      "--scores", f"5:alt={tmp_path / 'sa2.jsonl'}", "--scores", f"dev={tmp_path / 'sb.jsonl'}",
                      "--compare", "ev2r", "combined", "--compare", "ev2r", "alt:ev2r", "--n-boot", "50",
                      "--json", str(out_json), "--out", str(out_md)]) == 0
    table = json.loads(out_json.read_text(encoding="utf-8"))
    assert list(table) == ["5", "dev"]
    # the ratings 1,3,2,5,4 against ev2r 0.1,0.3,0.2,0.5,0.4: identical ranks
    assert table["5"]["ev2r/semantic_coverage"]["spearman"] == pytest.approx(1.0)
    assert table["5"]["combined/semantic_coverage"]["spearman"] == pytest.approx(
        stats.spearmanr(comb_a, [1, 3, 2, 5, 4])[0])
    assert table["5"]["alt:ev2r/semantic_coverage"] == table["5"]["combined/semantic_coverage"]
    assert table["dev"]["ev2r/semantic_coverage"]["spearman"] == pytest.approx(-0.8)  # 4 rows: 1,3,2,5 vs 4,3,2,1
    assert "alt:ev2r/semantic_coverage" not in table["dev"]
    diff = table["5"]["ev2r - combined/semantic_coverage"]
    assert diff["diff"] == pytest.approx(1.0 - stats.spearmanr(comb_a, [1, 3, 2, 5, 4])[0])
    assert table["5"]["ev2r - alt:ev2r/verdict_agreement"]["n"] == 5
    md = out_md.read_text(encoding="utf-8")
    assert "| score | rating | 5 (5 rows) | dev (4 rows) | min over files |" in md
    assert "| ev2r | semantic_coverage | +1.000" in md and "| -0.800 |" in md
    assert "| alt:ev2r | semantic_coverage |" in md and "(5 only)" in md
    assert "## Other ratings" in md and "| ev2r | coherence |" in md
    assert "| ev2r - alt:ev2r | semantic_coverage |" in md and "not on dev: no two-set result" in md


def test_main_names_an_unknown_file_or_score(corr, tmp_path, capsys):
    raw, items = _items()
    data = tmp_path / "a.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in raw), encoding="utf-8")
    scores = tmp_path / "s.jsonl"
    scores.write_text("".join(json.dumps(r) + "\n" for r in _score_rows(items, [0.1] * 5, [1] * 5)), encoding="utf-8")
    with pytest.raises(SystemExit):
        corr.main(["--data", str(data), "--scores", f"86={scores}"])
    assert "no --data file is named '86' (names: ['5'])" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        corr.main(["--data", str(data), "--scores", f"5={scores}", "--compare", "ev2r", "nope"])
    assert "'nope' is not a score of any file" in capsys.readouterr().err


def test_docstring_examples(corr):
    import doctest

    res = doctest.testmod(corr)
    assert res.attempted >= 1 and res.failed == 0


# -- system level: correlation of the systems' mean score with their mean rating ----------------
def test_system_level_hand_values(corr):
    # three teams, two rows each: team means of the score 0.15, 0.45, 0.8; of the rating 1.5, 3.5, 2.5
    score = [0.1, 0.2, 0.4, 0.5, 0.7, 0.9]
    rating = [1, 2, 3, 4, 2, 3]
    teams = ["a", "a", "b", "b", "c", "c"]
    r = corr.system_level(score, rating, teams, n_boot=200, seed=0)
    assert r["n_teams"] == 3 and r["n_rows"] == 6
    assert r["team_means"]["a"] == pytest.approx([0.15, 1.5, 2]) and r["team_means"]["c"] == pytest.approx([0.8, 2.5, 2])
    # pairs (a,b) agree, (a,c) agree, (b,c) disagree: accuracy 2/3, tau-b (2 - 1) / 3
    assert r["pairwise_accuracy"] == pytest.approx(2 / 3)
    assert r["kendall_tau"] == pytest.approx(stats.kendalltau([0.15, 0.45, 0.8], [1.5, 3.5, 2.5]).statistic)
    assert r["kendall_tau"] == pytest.approx(1 / 3)
    lo, hi = r["pairwise_accuracy_ci95"]
    assert 0.0 <= lo <= r["pairwise_accuracy"] <= hi <= 1.0
    assert corr.system_level(score, rating, teams, n_boot=200, seed=0) == r  # deterministic per seed


def test_system_level_drops_missing_rows_and_needs_three_teams(corr):
    r = corr.system_level([0.1, None, 0.3, 0.4], [1, 2, None, 4], ["a", "a", "b", "b"], n_boot=10)
    assert r["n_teams"] == 2 and r["n_rows"] == 2 and r["kendall_tau"] is None and r["pairwise_accuracy"] is None


def test_pairwise_accuracy_counts_ties_half_and_refuses_short_input(corr):
    assert corr.pairwise_accuracy([1, 2], [5, 5]) == 0.5
    assert corr.pairwise_accuracy([3, 2, 1], [1, 2, 3]) == 0.0
    with pytest.raises(ValueError, match="pairwise_accuracy"):
        corr.pairwise_accuracy([1], [1])
