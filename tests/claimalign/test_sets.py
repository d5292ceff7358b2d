import numpy as np
import pytest

from claimalign import agreement, align_sets, claim_count_difference, max_pool
from claimalign.similarity import EditSimilarity


class TableSimilarity:
    """Similarity looked up in a dict; unknown pairs 0."""

    name = "table"

    def __init__(self, table):
        self.table = table

    def matrix(self, left, right):
        return np.array([[self.table.get((a, b), 0.0) for b in right] for a in left]).reshape(len(left), len(right))


def test_claim_count_difference_signed():
    assert claim_count_difference([["a", "b", "c"], []], [["x"], ["y", "z"]]) == pytest.approx((2 - 2) / 2)
    assert claim_count_difference([["a", "b", "c"], ["d"]], [["x"], []]) == pytest.approx(1.5)
    with pytest.raises(ValueError, match="different numbers"):
        claim_count_difference([["a"]], [])
    with pytest.raises(ValueError, match="no documents"):
        claim_count_difference([], [])
    with pytest.raises(ValueError, match=r"candidates\[0\]"):
        claim_count_difference(["abc"], [["x"]])


def test_align_sets_and_shape_check():
    sim = TableSimilarity({("a", "x"): 0.5, ("b", "y"): 1.0})
    r = align_sets(["a", "b"], ["x", "y", "z"], sim)
    assert r.pairs == ((0, 0), (1, 1))
    assert r.score == pytest.approx(1.5 / 3) and r.precision == pytest.approx(0.75)
    assert align_sets([], [], sim).score == 1.0

    class Wrong:
        name = "wrong"

        def matrix(self, a, b):
            return np.zeros((1, 1))

    with pytest.raises(ValueError, match="shape"):
        align_sets(["a", "b"], ["x"], Wrong())


def test_max_pool_picks_better_annotator():
    sim = TableSimilarity({("a", "x"): 0.9, ("b", "y"): 0.2, ("a", "p"): 0.6, ("b", "q"): 0.6})
    idx, res = max_pool(["a", "b"], [["x", "y"], ["p", "q"]], sim)
    assert idx == 1 and res.score == pytest.approx(0.6)  # (0.9 + 0.2)/2 = 0.55 < 0.6
    idx, res = max_pool(["a", "b"], [["x", "y"], ["p", "q"]], sim, key="recall")
    assert idx == 1
    idx, res = max_pool(["a"], [["x", "y"], ["p", "q"]], sim, key="precision")
    assert idx == 0 and res.precision == pytest.approx(0.9)
    with pytest.raises(ValueError, match="key"):
        max_pool(["a"], [["x"]], sim, key="f1")
    with pytest.raises(ValueError, match="references"):
        max_pool(["a"], [], sim)


def test_agreement_hand_computed():
    a = [["same claim", "extra"], ["one"]]
    b = [["same claim"], ["one", "two", "three"]]
    res = agreement(a, b, EditSimilarity())
    # doc 0: 1.0 / max(2, 1); doc 1: "one"/"one" 1.0 / 3
    assert res.score == pytest.approx((0.5 + 1 / 3) / 2)
    assert res.precision == pytest.approx((0.5 + 1.0) / 2)
    assert res.recall == pytest.approx((1.0 + 1 / 3) / 2)
    assert res.count_difference == pytest.approx((1 - 2) / 2)
    assert len(res.per_document) == 2
    # symmetric similarity -> symmetric /n score
    assert agreement(b, a, EditSimilarity()).score == pytest.approx(res.score)
