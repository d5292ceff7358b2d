"""benchmarks/agreement/out_of_system.py (the headline chosen out of system): the vectorised Spearman against
scipy, the pairwise ranking accuracy by hand, that a fold never sees its held-out system, the declared decision rule,
and that the committed table's decision is what the library ships (the default kept: ev2r-hybrid/4's weights)."""

import json

import numpy as np
import pytest
from scipy import stats

from ev2r import versions as V
from ev2r.metric.combined import weights_field
from support.modules import load_file_module
from support.paths import REPO

BENCH = REPO / "benchmarks" / "agreement" / "out_of_system.py"
RESULT = REPO / "benchmarks" / "results" / "out_of_system.json"


@pytest.fixture(scope="module")
def bench():
    return load_file_module("out_of_system", BENCH)


def test_spearman_columns_equals_scipy_with_ties_and_constants(bench):
    rng = np.random.default_rng(3)
    S = rng.random((40, 4))
    S[:, 1] = np.round(S[:, 1], 1)  # ties
    S[:, 3] = 0.5  # constant: undefined
    y = rng.integers(1, 6, 40).astype(float)
    got = bench.spearman_columns(S, y)
    for j in range(3):
        assert got[j] == pytest.approx(stats.spearmanr(S[:, j], y)[0], abs=1e-12)
    assert np.isnan(got[3])
    assert np.all(np.isnan(bench.spearman_columns(S, np.ones(40))))


def test_pairwise_accuracy_by_hand(bench):
    # 3 systems, pairs (0,1) (0,2) (1,2): agree, disagree, tie on one side (half)
    assert bench.pairwise_accuracy([1.0, 2.0, 2.0], [1.0, 3.0, 0.0]) == pytest.approx((1 + 0 + 0.5) / 3)
    assert bench.pairwise_accuracy([3, 2, 1], [30, 20, 10]) == 1.0
    assert bench.pairwise_accuracy([1, 2, 3], [30, 20, 10]) == 0.0


def _toy_files(bench, rng):
    """Two files with the benchmark's layout: file 144 of 3 systems, file 86 of one; ratings follow column a
    in every system but T3, where they follow column b."""
    def make(systems, n_each):
        sys_, a, b, yc, yv = [], [], [], [], []
        for s in systems:
            xa, xb = rng.random(n_each), rng.random(n_each)
            follow = xb if s == "T3" else xa
            sys_ += [s] * n_each
            a += list(xa)
            b += list(xb)
            yc += list(np.round(1 + 4 * follow))
            yv += list((follow > 0.5).astype(float))
        cols = {c: np.zeros(len(a)) for c in bench.NEEDED}
        cols["ev2r"], cols["hybrid_meteor"] = np.array(a), np.array(b)
        return {"cols": cols, "ratings": {"semantic_coverage": np.array(yc), "verdict_agreement": np.array(yv)},
                "system": np.array(sys_), "left_out": {}}
    return {"144": make(["T1", "T2", "T3"], 30), "86": make(["base"], 30)}


def test_a_fold_chooses_without_its_system(bench):
    files = _toy_files(bench, np.random.default_rng(0))
    name = "(1-b) ev2r + b hybrid_meteor"
    S = {f: bench.matrix(name, files[f]) for f in bench.FILES}
    allowed = np.ones(len(bench.CANDIDATES[name][1]), dtype=bool)
    grid = bench.CANDIDATES[name][1]
    # trained on everything but T3 (where ratings follow hybrid_meteor): all weight on ev2r (b = 0)
    mask = {"144": files["144"]["system"] != "T3", "86": np.ones(30, dtype=bool)}
    idx = bench.choose(name, bench.train_on(S, files, mask), allowed, bench.floors_of(files, mask))
    assert grid[idx].tolist() == [1.0, 0.0]
    # trained on T3 alone: all weight on hybrid_meteor
    mask = {"144": files["144"]["system"] == "T3", "86": np.zeros(30, dtype=bool)}
    idx = bench.choose(name, bench.train_on(S, files, mask), allowed, bench.floors_of(files, mask))
    assert grid[idx].tolist() == [0.0, 1.0]
    # a point gaming forbids is never chosen
    forbid = allowed.copy()
    forbid[-1] = False
    idx = bench.choose(name, bench.train_on(S, files, mask), forbid, bench.floors_of(files, mask))
    assert grid[idx].tolist() != [0.0, 1.0]


def test_decision_rule(bench):
    keys = [f"oos/{f}/{q}" for f in bench.FILES for q in bench.RATINGS]
    hu = dict.fromkeys(keys, 0.3)
    refit = dict.fromkeys(keys, 0.2)
    assert bench.qualifies(dict.fromkeys(keys, 0.3), hu, refit)
    worse_once = {**dict.fromkeys(keys, 0.5), "oos/144/semantic_coverage": 0.29}
    assert not bench.qualifies(worse_once, hu, refit)


def test_committed_decision_is_what_ships():
    data = json.loads(RESULT.read_text(encoding="utf-8"))
    assert len(data["systems"]) == 8
    assert set(data["candidates"]) >= {"ev2r (paper, alpha 0.5)", "hu_meteor (AVeriTeC baseline)",
                                       "ev2r-hybrid/4 refit, remade per fold"}
    # every candidate's out-of-system and in-sample figures are in the table, both files and ratings
    for row in data["summary"].values():
        for f in ("86", "144"):
            for q in ("semantic_coverage", "verdict_agreement"):
                assert f"oos/{f}/{q}" in row and f"ins/{f}/{q}" in row
        assert 0.0 <= row["system/pairwise/semantic_coverage"] <= 1.0
    # a candidate with nothing fitted is scored as it is: out of system = in sample
    ev2r = data["summary"]["ev2r (paper, alpha 0.5)"]
    assert ev2r["oos/144/semantic_coverage"] == pytest.approx(ev2r["ins/144/semantic_coverage"])
    # no winner under the declared rule: the default stayed ev2r-hybrid/4 (its weights, as registered)
    assert data["winner"] is None and "kept" in data["decision"]
    assert V.get("ev2r-hybrid/4").definition["hybrid"] == weights_field((0.0, 0.05, 0.05, 0.0, 0.05, 0.85, 0.0))
