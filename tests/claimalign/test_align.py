import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from claimalign import align


def test_square_hand_computed():
    # The diagonal (0.9 + 0.8) beats the anti-diagonal (0.3 + 0.4).
    s = [[0.9, 0.3], [0.4, 0.8]]
    r = align(s)
    assert r.pairs == ((0, 0), (1, 1))
    assert r.pair_scores == (0.9, 0.8)
    assert r.total == pytest.approx(1.7)
    assert r.score == pytest.approx(0.85)
    assert r.precision == pytest.approx(0.85)
    assert r.recall == pytest.approx(0.85)
    assert r.unmatched_left == () and r.unmatched_right == ()


def test_hungarian_beats_greedy():
    # Greedy would take 0.9 (0,0) and then 0.1 (1,1) = 1.0; optimal is 0.8 + 0.8 = 1.6.
    s = [[0.9, 0.8], [0.8, 0.1]]
    r = align(s)
    assert set(r.pairs) == {(0, 1), (1, 0)}
    assert r.total == pytest.approx(1.6)
    assert r.score == pytest.approx(0.8)


def test_over_generation_is_penalised():
    # 3 candidates, 1 reference: n = 3 -> score 0.9 / 3, precision /3, recall /1.
    s = [[0.2], [0.9], [0.5]]
    r = align(s)
    assert r.pairs == ((1, 0),)
    assert r.unmatched_left == (0, 2)
    assert r.unmatched_right == ()
    assert r.score == pytest.approx(0.3)
    assert r.precision == pytest.approx(0.3)
    assert r.recall == pytest.approx(0.9)


def test_under_generation_is_penalised():
    s = [[0.6, 0.2, 1.0, 0.0]]
    r = align(s)
    assert r.pairs == ((0, 2),)
    assert r.unmatched_right == (0, 1, 3)
    assert r.score == pytest.approx(0.25)
    assert r.precision == pytest.approx(1.0)
    assert r.recall == pytest.approx(0.25)


def test_empty_sets_defined():
    both = align(np.zeros((0, 0)))
    assert (both.score, both.precision, both.recall) == (1.0, 1.0, 1.0)
    assert both.pairs == ()
    left_empty = align(np.zeros((0, 3)))
    assert left_empty.score == 0.0 and left_empty.recall == 0.0 and left_empty.precision == 0.0
    assert left_empty.unmatched_right == (0, 1, 2)
    right_empty = align(np.zeros((2, 0)), zero_division=1.0)
    assert right_empty.score == 0.0 and right_empty.precision == 0.0 and right_empty.recall == 1.0
    assert right_empty.unmatched_left == (0, 1)


@pytest.mark.parametrize("bad,msg", [
    ([0.1, 0.2], "2-D"),
    ([[0.1, float("nan")]], "NaN"),
    ([[0.1, 1.5]], r"\[0, 1\]"),
    ([[-0.1, 0.5]], r"\[0, 1\]"),
    ("0.5", "string"),
    ([["a", "b"]], "numeric"),
])
def test_bad_matrix_raises(bad, msg):
    with pytest.raises(ValueError, match=msg):
        align(bad)


def test_bad_zero_division():
    with pytest.raises(ValueError, match="zero_division"):
        align([[0.5]], zero_division=2)


def test_deterministic_with_ties():
    s = np.full((4, 4), 0.5)
    results = {align(s).pairs for _ in range(5)}
    assert len(results) == 1
    assert align(s).score == pytest.approx(0.5)


def _brute_force_total(s):
    m, k = s.shape
    n = max(m, k)
    if n == 0:
        return 0.0
    p = np.zeros((n, n))
    p[:m, :k] = s
    return max(sum(p[i, perm[i]] for i in range(n)) for perm in itertools.permutations(range(n)))


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 5).flatmap(lambda m: st.integers(0, 5).flatmap(
    lambda k: arrays(np.float64, (m, k), elements=st.floats(0.0, 1.0, allow_nan=False)))))
def test_property_matches_brute_force(s):
    r = align(s)
    m, k = s.shape
    n = max(m, k)
    best = _brute_force_total(s)
    assert r.total == pytest.approx(best, abs=1e-9)
    assert len(r.pairs) == min(m, k)
    assert sum(r.pair_scores) == pytest.approx(r.total)
    assert all(s[i, j] == v for (i, j), v in zip(r.pairs, r.pair_scores))
    assert len({i for i, _ in r.pairs}) == len(r.pairs) == len({j for _, j in r.pairs})
    assert set(r.unmatched_left) == set(range(m)) - {i for i, _ in r.pairs}
    assert set(r.unmatched_right) == set(range(k)) - {j for _, j in r.pairs}
    if n:
        assert r.score == pytest.approx(best / n, abs=1e-9)
        assert 0.0 <= r.score <= 1.0
        if m:
            assert r.precision == pytest.approx(best / m, abs=1e-9)
        if k:
            assert r.recall == pytest.approx(best / k, abs=1e-9)
        # the /n score never exceeds either one-sided normalisation
        assert r.score <= min(r.precision, r.recall) + 1e-12 or min(m, k) == 0
