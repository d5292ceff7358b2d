"""``ev2r.stats`` (behind ``ev2r compare``): paired bootstrap interval, paired approximate randomisation, Holm.

Hand-computed values, properties, and parity with scipy's own paired forms of the two procedures."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats as sst

from ev2r.stats import (TIE_TOLERANCE, holm, paired_bootstrap_interval, paired_comparison,
                        paired_permutation_pvalue)

# Four items whose values are exact in binary, so every sum below is exact.
BASE = [0.25, 0.5, 0.125, 0.5]
SYS = [0.625, 0.625, 0.375, 0.375]  # differences 3/8, 1/8, 2/8, -1/8: mean 5/32


def test_exact_permutation_p_value_by_hand():
    """The 16 sign flips of the differences (3, 1, 2, -1)/8, written out with their sums in eighths (+-7 once,
    +-5 twice, +-3 twice, +-1 three times): 6 of 16 are at least as far from 0 as the observed 5."""
    flips = {  # signs of (3, 1, 2, -1) -> sum, in eighths
        (+1, +1, +1, +1): 5, (+1, +1, +1, -1): 7, (+1, +1, -1, +1): 1, (+1, +1, -1, -1): 3,
        (+1, -1, +1, +1): 3, (+1, -1, +1, -1): 5, (+1, -1, -1, +1): -1, (+1, -1, -1, -1): 1,
        (-1, +1, +1, +1): -1, (-1, +1, +1, -1): 1, (-1, +1, -1, +1): -5, (-1, +1, -1, -1): -3,
        (-1, -1, +1, +1): -3, (-1, -1, +1, -1): -1, (-1, -1, -1, +1): -7, (-1, -1, -1, -1): -5,
    }
    assert len(flips) == 16 and all(sum(s * d for s, d in zip(k, (3, 1, 2, -1))) == v for k, v in flips.items())
    observed = 5  # the unflipped sum
    as_extreme = [k for k, v in flips.items() if abs(v) >= observed]  # 7, 5, 5 and their negatives
    assert len(as_extreme) == 6
    r = paired_comparison(BASE, SYS)
    assert r.exact and r.p_value == pytest.approx(6 / 16, abs=1e-12)
    assert r.difference == pytest.approx(5 / 32) and r.baseline_mean == pytest.approx(1.375 / 4)
    assert r.system_mean == pytest.approx(2.0 / 4)
    assert (r.system_higher, r.baseline_higher, r.ties) == (3, 1, 0)


def test_exact_p_value_is_the_share_of_sign_flips_as_extreme_brute_force():
    """Against an enumeration of all 2^n flips (the definition), for random data of 2 to 9 items."""
    rng = np.random.default_rng(5)
    for n in range(2, 10):
        d = rng.normal(0.05, 0.2, size=n)
        sums = [abs(np.dot(s, d)) for s in itertools.product((1, -1), repeat=n)]
        want = sum(v >= abs(d.sum()) * (1 - 1e-12) for v in sums) / 2 ** n
        p, exact = paired_permutation_pvalue(d, n_permutations=2 ** n)
        assert exact and p == pytest.approx(want, abs=1e-12), n


def test_randomised_p_value_counts_the_observed_flip_and_is_never_zero():
    """With fewer flips than 2^n each one-sided p-value is (count + 1) / (R + 1) (the observed flip counted, as
    Riezler and Maxwell do) and the two-sided one twice the smaller: never 0. A difference of one sign on all 30
    items (no random flip as extreme) gives 2 / (R + 1)."""
    d = np.full(30, 0.1)
    p, exact = paired_permutation_pvalue(d, n_permutations=999, seed=3)
    assert not exact and p == pytest.approx(2 * 1 / 1000)  # two-sided: both tails' 1/(R+1), doubled
    p_big, _ = paired_permutation_pvalue(d, n_permutations=9999)
    assert p_big == pytest.approx(2 / 10000)


def test_bootstrap_interval_by_hand_two_items():
    """With two items a resample's mean difference is d1, d2 or (d1 + d2)/2 (probabilities 1/4, 1/4, 1/2): over
    2000 resamples the 2.5th and 97.5th percentiles are the two differences themselves."""
    assert paired_bootstrap_interval([0.1, 0.3]) == pytest.approx((0.1, 0.3), abs=1e-15)
    assert paired_bootstrap_interval([0.0, 0.0]) == (0.0, 0.0)


def test_same_system_gives_zero_difference_and_p_one():
    vals = [0.1, 0.7, 0.3, 0.3, 0.9, 0.05]
    r = paired_comparison(vals, vals)
    assert r.difference == 0.0 and r.interval == (0.0, 0.0) and r.p_value == 1.0
    assert (r.system_higher, r.baseline_higher, r.ties) == (0, 0, 6)
    big = list(np.random.default_rng(1).uniform(size=40))  # the randomised test too
    r = paired_comparison(big, big, n_permutations=500)
    assert not r.exact and r.p_value == 1.0 and r.interval == (0.0, 0.0)


def test_swapping_sides_negates_difference_and_interval_keeps_p():
    rng = np.random.default_rng(7)
    a, b = rng.uniform(size=25), rng.uniform(size=25)
    ab = paired_comparison(a, b, n_permutations=3000, seed=2)
    ba = paired_comparison(b, a, n_permutations=3000, seed=2)
    assert ba.difference == pytest.approx(-ab.difference, abs=1e-15)
    assert ba.interval == pytest.approx((-ab.interval[1], -ab.interval[0]), abs=1e-12)
    assert ba.p_value == ab.p_value and not ab.exact
    assert (ba.system_higher, ba.baseline_higher, ba.ties) == (ab.baseline_higher, ab.system_higher, ab.ties)
    assert ab.interval[0] <= ab.difference <= ab.interval[1]


def test_parity_with_scipy_paired_forms():
    """The interval on the differences is scipy's paired bootstrap of mean(b) - mean(a) (``paired=True``: the same
    items resampled for both), and the exact p-value is scipy's paired permutation test (``permutation_type=
    'samples'`` with two samples: values swapped within each pair), which a sign flip of the difference is."""
    rng = np.random.default_rng(11)
    a, b = rng.uniform(size=12), np.clip(rng.uniform(size=12) + 0.1, 0, 1)

    def stat(x, y, axis=-1):
        return np.mean(y, axis=axis) - np.mean(x, axis=axis)

    ref = sst.bootstrap((a, b), stat, paired=True, n_resamples=2000, method="percentile", vectorized=True,
                        rng=np.random.default_rng(0)).confidence_interval
    assert paired_bootstrap_interval(b - a, n_resamples=2000, seed=0) == pytest.approx((ref.low, ref.high), abs=1e-12)
    ref_p = sst.permutation_test((a, b), stat, permutation_type="samples", n_resamples=2 ** 12, vectorized=True,
                                 rng=np.random.default_rng(0)).pvalue
    p, exact = paired_permutation_pvalue(b - a, n_permutations=10000)
    assert exact and p == pytest.approx(ref_p, abs=1e-12)


def test_ties_within_the_tolerance():
    a = [0.5, 0.5, 0.5]
    b = [0.5 + TIE_TOLERANCE / 2, 0.6, 0.4]
    r = paired_comparison(a, b)
    assert (r.system_higher, r.baseline_higher, r.ties) == (1, 1, 1)


def test_holm_by_hand():
    # sorted 0.01, 0.03, 0.04 -> 3 x 0.01 = 0.03, 2 x 0.03 = 0.06, max(0.06, 1 x 0.04) = 0.06
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    # 4 x 0.001, 3 x 0.02, 2 x 0.04, 1 x 0.2
    assert holm([0.001, 0.2, 0.02, 0.04]) == pytest.approx([0.004, 0.2, 0.06, 0.08])
    assert holm([0.5, 0.6]) == [1.0, 1.0]  # capped at 1, then non-decreasing
    assert holm([0.3]) == [0.3] and holm([]) == []
    assert holm([0.02, 0.02]) == [0.04, 0.04]


@pytest.mark.parametrize("bad", [[1.5], [-0.1], [math.nan]])
def test_holm_refuses_values_outside_0_1(bad):
    with pytest.raises(ValueError, match=r"p_values: every value must be a number in \[0, 1\]"):
        holm(bad)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="equal length"):
        paired_comparison([0.1, 0.2], [0.1])
    with pytest.raises(ValueError, match="at least 2 items, got 1"):
        paired_comparison([0.1], [0.2])
    with pytest.raises(ValueError, match="system: every value must be a finite number"):
        paired_comparison([0.1, 0.2], [0.1, math.nan])
    with pytest.raises(ValueError, match="n_resamples: expected an integer >= 1, got 0"):
        paired_bootstrap_interval([0.1, 0.2], n_resamples=0)
    with pytest.raises(ValueError, match="n_permutations: expected an integer >= 1, got True"):
        paired_permutation_pvalue([0.1, 0.2], n_permutations=True)
    with pytest.raises(ValueError, match=r"confidence: expected a number in \(0, 1\)"):
        paired_bootstrap_interval([0.1, 0.2], confidence=95)


def test_batched_resampling_gives_the_same_kind_of_answer(monkeypatch):
    """Large inputs are resampled in batches (bounded memory): the exact p-value and the two-item interval do not
    depend on it."""
    import ev2r.stats as S

    monkeypatch.setattr(S, "MAX_BATCH_VALUES", 10)
    assert S._batch(2000, 4) == 2
    assert paired_comparison(BASE, SYS).p_value == pytest.approx(6 / 16, abs=1e-12)
    assert paired_bootstrap_interval([0.1, 0.3]) == pytest.approx((0.1, 0.3), abs=1e-15)
