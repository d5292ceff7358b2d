"""benchmarks/agreement/combination.py (the weights of ev2r_hybrid): the grid, the fits, the join of score rows
with rating rows, the bootstrap's Spearman, and that ev2r.config ships the weights its JSON chose."""

import json

import numpy as np
import pytest
from scipy import stats

from ev2r.config import HYBRID_COMPONENTS, HYBRID_WEIGHTS
from support.paths import REPO
from support.modules import load_file_module

BENCH = REPO / "benchmarks" / "agreement" / "combination.py"
RESULT = REPO / "benchmarks" / "results" / "combination.json"


@pytest.fixture(scope="module")
def bench():
    mod = load_file_module("combination", BENCH)
    return mod


def test_config_weights_are_the_ones_the_benchmark_chose():
    data = json.loads(RESULT.read_text(encoding="utf-8"))
    assert data["components"] == list(HYBRID_COMPONENTS)
    assert data["shipping"]["rule"] == "maximin"
    assert tuple(data["shipping"]["weights_list"]) == pytest.approx(HYBRID_WEIGHTS, abs=1e-9)
    assert [data["shipping"]["weights"][c] for c in HYBRID_COMPONENTS] == pytest.approx(list(HYBRID_WEIGHTS))
    # both dev sets were used, with the leave-one-set-out results beside the in-sample ones
    assert set(data["sets"]) == {"86", "144"} and set(data["loso"]) == {"86", "144"}
    assert data["sets"]["86"]["n_rows"] == 86 and data["sets"]["144"]["n_rows"] == 144


def test_simplex_grid(bench):
    g = bench.simplex_grid(4, 0.1)
    assert g.shape == (286, 4)  # C(13, 3)
    assert np.allclose(g.sum(1), 1.0) and g.min() >= 0
    assert len({tuple(r) for r in np.round(g, 9)}) == 286
    assert [1.0, 0, 0, 0] in g.tolist() and [0, 0, 0, 1.0] in g.tolist()
    assert bench.simplex_grid(3, 0.5).tolist() == [[0, 0, 1], [0, 0.5, 0.5], [0, 1, 0], [0.5, 0, 0.5],
                                                    [0.5, 0.5, 0], [1, 0, 0]]
    with pytest.raises(ValueError, match="whole number"):
        bench.simplex_grid(4, 0.3)


def test_rowwise_spearman_equals_scipy_with_ties(bench):
    rng = np.random.default_rng(1)
    a = rng.integers(0, 4, size=(5, 30)).astype(float)
    b = rng.random((5, 30))
    got = bench._rowwise_spearman(a, b)
    assert got == pytest.approx([stats.spearmanr(x, y)[0] for x, y in zip(a, b)])
    assert np.isnan(bench._rowwise_spearman(np.ones((1, 5)), b[:1, :5])[0])


def _set(X, y):
    return {"X": X, "n_used": len(X), "ratings": {"semantic_coverage": y, "verdict_agreement": y},
            "baselines": {}}


def test_fit_recovers_the_informative_component(bench):
    rng = np.random.default_rng(0)
    grid = bench.simplex_grid(4, 0.1)
    # component 2 orders the ratings exactly on both sets; the others are noise
    sets = {}
    for name, n in (("86", 40), ("144", 60)):
        X = rng.random((n, 4))
        sets[name] = _set(X, X[:, 2] * 4 + 1)
    fits = bench.fit(sets, grid)
    assert grid[fits["maximin"]].tolist() == [0, 0, 1, 0]
    assert grid[fits["pooled"]].tolist() == [0, 0, 1, 0]
    assert all(grid[i].tolist() == [0, 0, 1, 0] for i in fits["per_set"].values())
    assert fits["rho"]["86"][fits["maximin"]] == pytest.approx(1.0)


def test_maximin_prefers_the_vector_no_set_loses_on(bench):
    grid = np.array([[1.0, 0, 0, 0], [0, 1.0, 0, 0], [0.5, 0.5, 0, 0]])
    # set A is ordered by component 0, set B by component 1: each single fit loses the other set
    a0 = np.arange(10.0)
    X_a = np.column_stack([a0, a0[::-1] * 0.1 + np.sin(a0), np.zeros(10), np.zeros(10)])
    X_b = np.column_stack([a0[::-1] * 0.1 + np.cos(a0), a0, np.zeros(10), np.zeros(10)])
    fits = bench.fit({"A": _set(X_a, a0), "B": _set(X_b, a0)}, grid)
    assert fits["per_set"] == {"A": 0, "B": 1}
    assert fits["maximin"] == 2


def test_gaming_violations_and_the_fewest_rule(bench):
    """A vector gains from a strategy when its mean change is above the noise floor or too many rows rise; when no
    vector resists every strategy, the fit keeps those gaining from the fewest set/strategy pairs."""
    grid = np.array([[1.0, 0, 0, 0], [0, 1.0, 0, 0], [0.5, 0.5, 0, 0]])
    base = np.zeros((10, 4))
    up0 = base.copy()
    up0[:, 0] = 0.2  # raises component 0 on every row
    up1 = base.copy()
    up1[:3, 1] = 0.1  # raises component 1 on 3 of 10 rows (> 10%)
    gaming = {"A": {"s0": (base, up0), "s1": (base, up1)}, "B": {"s0": (base, up0)}}
    count, excluded = bench.gaming_violations(grid, gaming)
    assert count.tolist() == [2, 1, 3] and excluded == {"A/s0": 2, "A/s1": 2, "B/s0": 2}
    a0 = np.arange(10.0)
    X = np.column_stack([a0, a0 * 0.5 + np.sin(a0), np.zeros(10), np.zeros(10)])
    fits = bench.fit({"A": _set(X, a0), "B": _set(X, a0)}, grid, extra_ok=count == 0, violations=count)
    assert fits["fewest_violations"] == 1 and fits["maximin"] == 1  # vector 0 fits better but gains from 2 pairs


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_load_set_joins_on_row_checks_ids_and_counts_left_out_rows(bench, tmp_path):
    comp = {"recall": 0.5, "proxy": 0.4, "hu_meteor": 0.3, "hybrid_meteor": 0.3, "hybrid_embedding": 0.2, "precision": 0.6, "verified_meteor": 0.1, "mutual_meteor": 0.05, "ev2r": 0.45, "f1": 0.5}
    scores = [{"id": 7, "row": 1, "status": "ok", **comp},
              {"id": 5, "row": 0, "status": "ok", **comp, "recall": 0.9},
              {"id": 7, "row": 2, "status": "no_reference", **comp},
              {"id": 8, "row": 3, "status": "ok", **comp, "ev2r_hybrid": None, "hu_meteor": None}]
    ratings = [{"id": 5, "human_ratings": {"semantic_coverage": 4, "verdict_agreement": 1}},
               {"id": 7, "human_ratings": {"semantic_coverage": 2, "verdict_agreement": 0}},
               {"id": 7, "human_ratings": {"semantic_coverage": 3, "verdict_agreement": 1}},
               {"id": 8, "human_ratings": {"semantic_coverage": 3, "verdict_agreement": 1}}]
    s, r = tmp_path / "s.jsonl", tmp_path / "r.jsonl"
    _write(s, scores)
    _write(r, ratings)
    d = bench.load_set(s, r)
    assert d["n_rows"] == 4 and d["n_used"] == 2
    assert d["left_out"] == {"status no_reference": 1, "missing hu_meteor": 1}
    assert d["X"][:, 0].tolist() == [0.9, 0.5]  # row order of the rating file
    assert d["ratings"]["semantic_coverage"].tolist() == [4.0, 2.0]
    ratings[1]["id"] = 99
    _write(r, ratings)
    with pytest.raises(SystemExit, match="row 1: id 7 but .* has id 99"):
        bench.load_set(s, r)
