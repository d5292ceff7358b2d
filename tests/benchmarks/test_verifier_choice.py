"""benchmarks/agreement/verifier_choice.py (a verifier chosen on the ratings, out of system) and
benchmarks/robustness/edits_blind_bound.py: the maximin choice by hand, a
fold never sees its held-out system, and the oracle Ev2R of a scored item computed by hand."""

import numpy as np
import pytest

from support.modules import load_file_module
from support.paths import REPO


@pytest.fixture(scope="module")
def vc():
    return load_file_module("verifier_choice", REPO / "benchmarks" / "agreement" / "verifier_choice.py")


@pytest.fixture(scope="module")
def bound():
    return load_file_module("edits_blind_bound", REPO / "benchmarks" / "robustness" / "edits_blind_bound.py")


def _family(vc, cols_144, cols_86, systems, cov_144, ver_144, cov_86, ver_86):
    def one(c144, c86):
        return {"144": {"cols": {"ev2r": np.array(c144, float)}, "system": np.array(systems),
                        "ratings": {"semantic_coverage": np.array(cov_144, float),
                                    "verdict_agreement": np.array(ver_144, float)}},
                "86": {"cols": {"ev2r": np.array(c86, float)}, "system": np.array([vc.BASELINE_SYSTEM] * len(c86)),
                       "ratings": {"semantic_coverage": np.array(cov_86, float),
                                   "verdict_agreement": np.array(ver_86, float)}}}
    return {name: one(c144, c86) for name, (c144, c86) in zip(("a", "b"), zip(cols_144, cols_86))}


def test_maximin_choice_by_hand_and_folds_never_see_their_system(vc):
    # 144 rows: two teams of 4 rows; variant a ranks coverage and verdicts perfectly on team T1 and backwards on T2,
    # variant b the reverse. 86 rows: both perfect.
    systems = ["T1"] * 4 + ["T2"] * 4
    cov = [1, 2, 3, 4, 1, 2, 3, 4]
    ver = [0, 0, 1, 1, 0, 0, 1, 1]
    a = [0.1, 0.2, 0.3, 0.4, 0.4, 0.3, 0.2, 0.1]
    b = [0.4, 0.3, 0.2, 0.1, 0.1, 0.2, 0.3, 0.4]
    fam = _family(vc, (a, b), ([1, 2, 3], [1, 2, 3]), systems, cov, ver, [1, 2, 3], [0, 1, 1])
    res = vc.run(fam, "ev2r")
    # leaving T1 out, only T2 trains: b ranks it perfectly, so T1's rows are b's; and the reverse for T2
    assert res["folds"]["T1"] == "b" and res["folds"]["T2"] == "a"
    assert np.allclose(res["oos"]["144"], b[:4] + a[4:])
    # on all rows a and b tie (each perfect on one team, backwards on the other): the first variant wins the tie
    assert res["in_sample"] == "a"
    # the 86 rows' fold trains on the 144 only, where a and b tie: the first variant
    assert res["folds"][vc.BASELINE_SYSTEM] == "a"


def test_oracle_ev2r_by_hand(bound):
    row = {"id": "x", "proxy": 0.6,
           "predicted_facts": [{"supported": True, "pair_index": 0}, {"supported": True, "pair_index": 0},
                               {"supported": True, "pair_index": 1}, {"supported": False, "pair_index": 1}],
           "reference_facts": [{"supported": True, "pair_index": 0}, {"supported": True, "pair_index": 0},
                               {"supported": True, "pair_index": 1}]}
    # one fact of pair 0 lost on each side: P = 2/4, R = 2/3, F1 = 4/7; Ev2R = 0.5 * 4/7 + 0.5 * 0.6
    assert bound.oracle_ev2r(row, 0, "one fact", 0.5) == pytest.approx(0.5 * 4 / 7 + 0.3)
    # the whole pair 0 lost: P = 1/4, R = 1/3, F1 = 2/7
    assert bound.oracle_ev2r(row, 0, "whole pair", 0.5) == pytest.approx(0.5 * 2 / 7 + 0.3)
    # pair 1 holds one supported predicted fact: both modes lose it alone; alpha weighs F1
    assert bound.oracle_ev2r(row, 1, "one fact", 0.25) == pytest.approx(0.25 * (2 * (2 / 4) * (2 / 3) / (2 / 4 + 2 / 3))
                                                                        + 0.75 * 0.6)
    with pytest.raises(ValueError, match="mode: 'all' not among"):
        bound.oracle_ev2r(row, 0, "all", 0.5)
    with pytest.raises(ValueError, match="no reference_facts"):
        bound.oracle_ev2r({**row, "reference_facts": []}, 0, "one fact", 0.5)
