"""benchmarks/agreement/pruning.py: the recording verifier answers from its record, and the comparison of a pruned run
with the exhaustive one (differences, support flips, Spearman changes, the bars); and that the shipped
default k is one the committed table says holds the bars on both development sets."""

import json
import sys

import pytest

from ev2r.config import DEFAULTS
from ev2r.types import FactSupport, ItemScore
from support.fakes import KeywordVerifier
from support.modules import load_file_module
from support.paths import REPO

BENCH = REPO / "benchmarks" / "agreement" / "pruning.py"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(REPO / "benchmarks" / "agreement"))
    return load_file_module("pruning", BENCH)


def test_recording_verifier_asks_each_pair_once(bench):
    inner = KeywordVerifier()
    rec = bench.RecordingVerifier(inner)
    a = rec.predict(["the cat sat", "a dog ran"], ["cat sat", "dog"])
    b = rec.predict(["a dog ran", "the cat sat"], ["dog", "cat sat"])
    assert rec.n_asked == 2 and len(inner.calls) == 1
    assert (a[::-1] == b).all() and rec.name == inner.name


def _score(ev2r, recall, supported):
    s = ItemScore(id="x", row=0, precision=0.5, recall=recall, f1=0.5, ev2r=ev2r)
    s.reference_facts = [FactSupport(fact="f", supported=supported, probability=0.9 if supported else 0.1)]
    s.extra_scores = {"graded_recall": recall, "ev2r_hybrid": ev2r}
    return s


def test_compare_by_hand(bench):
    base = [_score(0.1, 0.0, False), _score(0.5, 1.0, True), _score(0.9, 1.0, True), _score(0.3, 0.5, True)]
    same = bench.compare(base, base, {"r": [1, 2, 3, 4]})
    assert same["ev2r_max"] == 0.0 and same["flips"] == 0 and same["rho_max"] == 0.0 and same["holds"]
    moved = [base[0], base[1], _score(0.05, 0.0, False), base[3]]  # item 3 loses its one supported fact
    row = bench.compare(base, moved, {"r": [1, 2, 3, 4]})
    assert row["ev2r_max"] == pytest.approx(0.85) and row["ev2r_mean"] == pytest.approx(0.85 / 4)
    assert row["flips"] == 1 and not row["holds"]
    # Spearman with r: ranks (1, 3, 4, 2) -> 1 - 6*6/60 = 0.4; after, ranks (2, 4, 1, 3) -> 1 - 6*10/60 = 0
    assert row["rho_changes"]["ev2r/r"] == pytest.approx(0.0 - 0.4)


def test_shipped_default_holds_the_bars_on_both_sets():
    table = json.loads((REPO / "benchmarks" / "results" / "pruning.json").read_text(encoding="utf-8"))
    rows = [r for r in table["rows"] if r["k"] == DEFAULTS.premise_top_k]
    assert {r["file"] for r in rows} == {"86 rows", "144 rows"}
    for r in rows:  # the bars on Ev2R
        assert r["ev2r_mean"] <= 0.005 and r["ev2r_max"] <= 0.05 and r["rho_ev2r_max"] <= 0.01
