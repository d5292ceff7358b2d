"""Paired significance of a difference between two systems scored on the same items (``ev2r compare``).

Both systems are scored on the same ``n`` items, so the question is asked of the per-item differences
``d_i = system_i - baseline_i``, the way sacrebleu's ``--paired-bs`` / ``--paired-ar`` ask it of BLEU:

* **paired bootstrap interval** of the mean difference (Koehn 2004, EMNLP): items resampled with replacement
  ``n_resamples`` times, the 95% percentile interval of the resampled means (:func:`scipy.stats.bootstrap`,
  ``method="percentile"``, the interval ``ev2r score`` and ``ev2r report`` give for a headline).
* **paired approximate randomisation** (Riezler and Maxwell 2005; Noreen 1989): under the null hypothesis each
  ``d_i`` is as likely to have the other sign; :func:`scipy.stats.permutation_test` with
  ``permutation_type="samples"``, two-sided. Exact when ``n_permutations >= 2**n`` (every sign flip enumerated);
  otherwise each one-sided p-value is ``(count + 1) / (n_permutations + 1)`` and the two-sided one twice the
  smaller, capped at 1.
* **Holm's step-down correction** (Holm 1979) of several systems' p-values against one baseline: the ``k``-th
  smallest of ``m`` is multiplied by ``m - k + 1``, made non-decreasing, capped at 1 (:func:`holm`).

Nothing here knows files or score columns: :mod:`ev2r.reporting.compare` reads score files and matches items.

    >>> r = paired_comparison([0.1, 0.2, 0.3, 0.4], [0.2, 0.4, 0.3, 0.5])
    >>> round(r.difference, 4), r.p_value, r.exact, (r.system_higher, r.baseline_higher, r.ties)
    (0.1, 0.25, True, (3, 0, 1))
"""

from __future__ import annotations

import inspect
import math
from dataclasses import asdict, dataclass
from typing import Any, Sequence

import numpy as np

__all__ = ["DEFAULT_RESAMPLES", "DEFAULT_PERMUTATIONS", "DEFAULT_SEED", "CONFIDENCE", "TIE_TOLERANCE",
           "PairedComparison", "paired_comparison", "paired_bootstrap_interval", "paired_permutation_pvalue", "holm",
           "is_significant"]

#: Bootstrap resamples (``ev2r compare --resamples``), as the headline interval of ``ev2r score``.
DEFAULT_RESAMPLES = 2000
#: Random sign flips of the approximate randomisation test (``--permutations``; sacrebleu's ``--paired-ar-n``).
DEFAULT_PERMUTATIONS = 10000
#: The seed of both (``--seed``).
DEFAULT_SEED = 0
#: The confidence level of the interval.
CONFIDENCE = 0.95
#: Two per-item values closer than this are a tie (an item rescored in another batch moves in the 7th decimal;
#: docs/scoring.md, "Determinism"): it counts in neither side's share of items, and still enters every mean.
TIE_TOLERANCE = 1e-6


@dataclass(frozen=True)
class PairedComparison:
    """A system against a baseline on the same ``n`` items (module docstring for the methods).

    Attributes:
        n: the number of paired items (>= 2).
        baseline_mean / system_mean: the two means over those items, each in the scores' range.
        difference: ``system_mean - baseline_mean`` (= the mean of the per-item differences).
        interval: ``(low, high)``, the percentile paired bootstrap interval of ``difference`` at ``confidence``.
        p_value: two-sided p-value of paired approximate randomisation (sign flips of the differences), in (0, 1].
        exact: True when every one of the ``2**n`` sign flips was enumerated (``n_permutations >= 2**n``).
        system_higher / baseline_higher / ties: how many items each side scores higher, and how many are level
            (within :data:`TIE_TOLERANCE`); they sum to ``n``.
        n_resamples / n_permutations / seed / confidence: the settings that produced the numbers.
    """

    n: int
    baseline_mean: float
    system_mean: float
    difference: float
    interval: tuple[float, float]
    p_value: float
    exact: bool
    system_higher: int
    baseline_higher: int
    ties: int
    n_resamples: int
    n_permutations: int
    seed: int
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict (``interval`` as a list)."""
        d = asdict(self)
        d["interval"] = list(self.interval)
        return d


def _rng_keyword(func) -> str:
    """scipy >= 1.15 takes ``rng=`` (``random_state=`` is deprecated there); older releases only ``random_state=``."""
    return "rng" if "rng" in inspect.signature(func).parameters else "random_state"


#: Most values scipy holds at once for the resamples or flips (``batch``): 40 MB of float64, whatever ``n``.
MAX_BATCH_VALUES = 5_000_000


def _batch(n_draws: int, n: int):
    """scipy's ``batch``: None (all at once, as scipy's default) while ``n_draws x n`` fits :data:`MAX_BATCH_VALUES`."""
    return None if n_draws * n <= MAX_BATCH_VALUES else max(1, MAX_BATCH_VALUES // n)


def _mean(x, axis=-1):
    return np.mean(x, axis=axis)


def _count(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name}: expected an integer >= {minimum}, got {value!r}")
    return int(value)


def _differences(differences: Sequence[float]) -> np.ndarray:
    d = np.asarray(differences, dtype=float)
    if d.ndim != 1 or len(d) < 2:
        raise ValueError(f"differences: expected a 1-D sequence of at least 2 numbers, got shape {d.shape}")
    if not np.all(np.isfinite(d)):
        raise ValueError("differences: every value must be a finite number (no NaN or infinity)")
    return d


def paired_bootstrap_interval(differences: Sequence[float], n_resamples: int = DEFAULT_RESAMPLES,
                              seed: int = DEFAULT_SEED, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The percentile bootstrap interval of the mean of paired differences (Koehn 2004; :func:`scipy.stats.bootstrap`).

    Args:
        differences: per-item ``system - baseline``, a 1-D sequence of at least 2 finite numbers.
        n_resamples: resamples of the items, an integer >= 1.
        seed: seed of numpy's ``default_rng`` (the same seed and data give the same interval).
        confidence: the level, in (0, 1).

    Returns:
        ``(low, high)`` with ``low <= mean <= high`` for any sensible data; ``(0.0, 0.0)`` when every difference is 0.

    Raises:
        ValueError: fewer than 2 differences, a value that is not finite, a bad ``n_resamples`` or ``confidence``.
    """
    from scipy import stats

    d = _differences(differences)
    n_resamples = _count("n_resamples", n_resamples, 1)
    if not 0 < confidence < 1:
        raise ValueError(f"confidence: expected a number in (0, 1), got {confidence!r}")
    res = stats.bootstrap((d,), _mean, n_resamples=n_resamples, method="percentile", confidence_level=confidence,
                          vectorized=True, batch=_batch(n_resamples, len(d)),
                          **{_rng_keyword(stats.bootstrap): np.random.default_rng(seed)})
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def paired_permutation_pvalue(differences: Sequence[float], n_permutations: int = DEFAULT_PERMUTATIONS,
                              seed: int = DEFAULT_SEED) -> tuple[float, bool]:
    """Two-sided p-value of paired approximate randomisation of the mean difference (Riezler and Maxwell 2005):
    :func:`scipy.stats.permutation_test` with ``permutation_type="samples"`` on the differences (sign flips).

    Args:
        differences: per-item ``system - baseline``, a 1-D sequence of at least 2 finite numbers.
        n_permutations: random sign flips, an integer >= 1; when it is at least ``2**n`` all flips are enumerated.
        seed: seed of numpy's ``default_rng`` (used only when the flips are drawn).

    Returns:
        ``(p, exact)``: ``p`` in (0, 1] (1 when every difference is 0; at least ``2 / (n_permutations + 1)`` when the
        flips are drawn, at least ``2 / 2**n`` when exact), ``exact`` True when all flips were enumerated.

    Raises:
        ValueError: fewer than 2 differences, a value that is not finite, a bad ``n_permutations``.
    """
    from scipy import stats

    d = _differences(differences)
    n_permutations = _count("n_permutations", n_permutations, 1)
    res = stats.permutation_test((d,), _mean, permutation_type="samples", n_resamples=n_permutations,
                                 alternative="two-sided", vectorized=True, batch=_batch(n_permutations, len(d)),
                                 **{_rng_keyword(stats.permutation_test): np.random.default_rng(seed)})
    return float(res.pvalue), n_permutations >= 2 ** len(d)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (Holm 1979), in the order given.

    With the ``m`` p-values sorted, ``p_(1) <= ... <= p_(m)``, the adjusted ``k``-th is
    ``min(1, max_{j <= k} (m - j + 1) p_(j))``; rejecting where the adjusted value is below ``alpha`` keeps the
    family-wise error rate at ``alpha``. Ties keep their given order (the result does not depend on it).

    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]

    Raises:
        ValueError: a value that is not a number in [0, 1].
    """
    p = [float(v) for v in p_values]
    if any(not (0.0 <= v <= 1.0) for v in p):  # NaN fails both comparisons
        raise ValueError(f"p_values: every value must be a number in [0, 1], got {list(p_values)!r}")
    m = len(p)
    out = [0.0] * m
    running = 0.0
    for k, i in enumerate(sorted(range(m), key=lambda j: p[j])):
        running = max(running, min(1.0, (m - k) * p[i]))
        out[i] = running
    return out


def paired_comparison(baseline: Sequence[float], system: Sequence[float], *, n_resamples: int = DEFAULT_RESAMPLES,
                      n_permutations: int = DEFAULT_PERMUTATIONS, seed: int = DEFAULT_SEED,
                      confidence: float = CONFIDENCE) -> PairedComparison:
    """Compare two systems' per-item scores on the same items (module docstring for the methods).

    Args:
        baseline / system: the per-item values, the same items in the same order; equal lengths >= 2, finite.
        n_resamples: bootstrap resamples (:func:`paired_bootstrap_interval`).
        n_permutations: sign flips (:func:`paired_permutation_pvalue`).
        seed: seed of both.
        confidence: the interval's level, in (0, 1).

    Returns:
        A :class:`PairedComparison`. Swapping ``baseline`` and ``system`` negates ``difference`` and the interval
        (``(low, high)`` -> ``(-high, -low)``) and keeps ``p_value``; ``baseline == system`` gives difference 0,
        interval ``(0, 0)`` and p = 1.

    Raises:
        ValueError: lengths that differ or are below 2, a value that is not finite, a bad setting (naming it).
    """
    a = np.asarray(baseline, dtype=float)
    b = np.asarray(system, dtype=float)
    if a.ndim != 1 or b.ndim != 1 or len(a) != len(b):
        raise ValueError(f"baseline / system: expected two 1-D sequences of equal length (the same items), got shapes "
                         f"{a.shape} and {b.shape}")
    if len(a) < 2:
        raise ValueError(f"baseline / system: a paired comparison needs at least 2 items, got {len(a)}")
    for name, v in (("baseline", a), ("system", b)):
        if not np.all(np.isfinite(v)):
            raise ValueError(f"{name}: every value must be a finite number (no NaN or infinity)")
    d = b - a
    low, high = paired_bootstrap_interval(d, n_resamples, seed, confidence)
    p, exact = paired_permutation_pvalue(d, n_permutations, seed)
    higher = int(np.sum(d > TIE_TOLERANCE))
    lower = int(np.sum(d < -TIE_TOLERANCE))
    mean_a, mean_b = float(a.mean()), float(b.mean())
    return PairedComparison(n=len(d), baseline_mean=mean_a, system_mean=mean_b, difference=float(d.mean()),
                            interval=(low, high), p_value=p, exact=exact, system_higher=higher, baseline_higher=lower,
                            ties=len(d) - higher - lower, n_resamples=n_resamples, n_permutations=n_permutations,
                            seed=seed, confidence=confidence)


def is_significant(p_value: float, level: float = 0.05) -> bool:
    """``p_value < level`` (a NaN p-value is not significant)."""
    return not math.isnan(p_value) and p_value < level
