"""Hungarian alignment of two sets from a similarity matrix.

Algorithm 1 of *Examining the Metrics for Document-Level Claim Extraction in Czech and Slovak*
(the "claim-set alignment" of that paper): given sets C1 and C2 and a pairwise similarity,
build ``S`` of shape ``n x n`` with ``n = max(|C1|, |C2|)``, initialised with zeros, fill
``S[i, j] = score(c_i, c_j)`` for real pairs, find the assignment maximising the total
similarity with the Hungarian algorithm (``scipy.optimize.linear_sum_assignment``), and report
``sum of paired similarities / n``. The zero padding is what penalises over- and
under-generation: an item without a real partner contributes 0 while still counting in ``n``.

Besides the paper's ``/n`` score, the result carries the same total divided by ``|C1|``
(precision-style, C1 read as the candidate) and by ``|C2|`` (recall-style, C2 read as the
reference). The recall-style value is what AVeriTeC's Hungarian METEOR reports
(Schlichtkrull et al., 2023, official ``eval.py``: normalised by the number of reference items).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Tuple

import numpy as np

__all__ = ["AlignmentResult", "align", "validate_similarity_matrix"]


@dataclass(frozen=True)
class AlignmentResult:
    """Outcome of :func:`align`.

    Attributes:
        pairs: ``(i, j)`` index pairs, ``i`` into C1 (rows), ``j`` into C2 (columns), sorted by
            ``i``; ``min(|C1|, |C2|)`` pairs (items matched only to padding are not pairs).
        pair_scores: similarity of each pair, same order as ``pairs``, each in [0, 1].
        unmatched_left: indices of C1 items paired with padding (sorted).
        unmatched_right: indices of C2 items paired with padding (sorted).
        n_left, n_right: ``|C1|``, ``|C2|``.
        total: sum of ``pair_scores`` (in [0, min(|C1|, |C2|)]).
        score: ``total / max(|C1|, |C2|)`` -- the paper's set score, in [0, 1] (x100 for the
            paper's 0-100 scale).
        precision: ``total / |C1|`` in [0, 1].
        recall: ``total / |C2|`` in [0, 1].
    """

    pairs: Tuple[Tuple[int, int], ...]
    pair_scores: Tuple[float, ...]
    unmatched_left: Tuple[int, ...]
    unmatched_right: Tuple[int, ...]
    n_left: int
    n_right: int
    total: float
    score: float
    precision: float
    recall: float

    def to_dict(self) -> dict:
        """Plain-JSON form (lists instead of tuples)."""
        return {
            "pairs": [list(p) for p in self.pairs],
            "pair_scores": list(self.pair_scores),
            "unmatched_left": list(self.unmatched_left),
            "unmatched_right": list(self.unmatched_right),
            "n_left": self.n_left,
            "n_right": self.n_right,
            "total": self.total,
            "score": self.score,
            "precision": self.precision,
            "recall": self.recall,
        }


def validate_similarity_matrix(similarity_matrix: Any, name: str = "similarity_matrix") -> np.ndarray:
    """Return ``similarity_matrix`` as a float64 2-D array, checking shape and range.

    Args:
        similarity_matrix: array-like of shape ``(|C1|, |C2|)``; either side may be 0
            (e.g. ``np.zeros((0, 3))``). Values must be finite and in [0, 1].
        name: argument name used in error messages.

    Raises:
        ValueError: not 2-D, non-numeric, NaN/inf, or values outside [0, 1].
    """
    if isinstance(similarity_matrix, (str, bytes)):
        raise ValueError(f"{name}: expected a 2-D numeric array of shape (|C1|, |C2|), got a string")
    try:
        s = np.asarray(similarity_matrix, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: expected a 2-D numeric array of shape (|C1|, |C2|): {exc}") from None
    if s.ndim != 2:
        raise ValueError(
            f"{name}: expected a 2-D array of shape (|C1|, |C2|), got {s.ndim}-D shape {s.shape}"
            " (for empty sets pass e.g. np.zeros((0, k)))"
        )
    if s.size and not np.all(np.isfinite(s)):
        raise ValueError(f"{name}: contains NaN or infinite values")
    if s.size and (s.min() < 0.0 or s.max() > 1.0):
        raise ValueError(
            f"{name}: similarities must lie in [0, 1] (zero padding assumes non-negative scores);"
            f" got min {s.min():.6g}, max {s.max():.6g}"
        )
    return s


def _ratio(total: float, denom: int, both_empty: bool, zero_division: float) -> float:
    if denom > 0:
        return total / denom
    return 1.0 if both_empty else zero_division


def align(similarity_matrix: Any, *, zero_division: float = 0.0) -> AlignmentResult:
    """Optimal one-to-one alignment of C1 (rows) and C2 (columns), Algorithm 1 with zero padding.

    Source: *Examining the Metrics for Document-Level Claim Extraction in Czech and Slovak*,
    Algorithm 1: ``S`` is ``n x n``, ``n = max(|C1|, |C2|)``, zeros outside the real block;
    the Hungarian algorithm (``scipy.optimize.linear_sum_assignment(S, maximize=True)``)
    gives the pairing; ``score = sum(S[i, pi(i)]) / n``. ``precision = total / |C1|`` and
    ``recall = total / |C2|`` are the same total normalised by one side (AVeriTeC's
    Hungarian METEOR is the recall-style value: Schlichtkrull et al. 2023, official ``eval.py``).

    Args:
        similarity_matrix: array-like, shape ``(|C1|, |C2|)``, finite values in [0, 1].
            A side may be empty (shape ``(0, k)`` / ``(k, 0)`` / ``(0, 0)``).
        zero_division: value in [0, 1] returned for ``precision`` when ``|C1| = 0`` (or
            ``recall`` when ``|C2| = 0``) while the other set is non-empty. Default 0.0: an empty
            candidate earns nothing.

    Returns:
        :class:`AlignmentResult`. Empty sets: both empty -> ``score = precision = recall = 1.0``
        (two empty sets agree exactly), no pairs; one side empty -> ``score = 0.0``, the ratio
        over the non-empty side 0.0, the ratio over the empty side ``zero_division``, every
        item of the non-empty side unmatched.

    Raises:
        ValueError: ``similarity_matrix`` is not 2-D, has NaN/inf or values outside [0, 1];
            ``zero_division`` outside [0, 1].

    Ties between equally good assignments are broken by scipy's deterministic solver, so the
    same matrix always gives the same pairs.
    """
    if not isinstance(zero_division, (int, float)) or not 0.0 <= float(zero_division) <= 1.0:
        raise ValueError(f"zero_division: must be a number in [0, 1], got {zero_division!r}")
    s = validate_similarity_matrix(similarity_matrix)
    n_left, n_right = s.shape
    n = max(n_left, n_right)
    both_empty = n == 0
    if n_left == 0 or n_right == 0:
        total = 0.0
        pairs: Tuple[Tuple[int, int], ...] = ()
        scores: Tuple[float, ...] = ()
        unmatched_left = tuple(range(n_left))
        unmatched_right = tuple(range(n_right))
    else:
        from scipy.optimize import linear_sum_assignment

        padded = np.zeros((n, n), dtype=np.float64)
        padded[:n_left, :n_right] = s
        rows, cols = linear_sum_assignment(padded, maximize=True)
        real = (rows < n_left) & (cols < n_right)
        r, c = rows[real], cols[real]
        pair_vals = s[r, c]
        pairs = tuple((int(i), int(j)) for i, j in zip(r, c))
        scores = tuple(float(v) for v in pair_vals)
        total = float(pair_vals.sum())
        matched_left = set(r.tolist())
        matched_right = set(c.tolist())
        unmatched_left = tuple(i for i in range(n_left) if i not in matched_left)
        unmatched_right = tuple(j for j in range(n_right) if j not in matched_right)
    return AlignmentResult(
        pairs=pairs,
        pair_scores=scores,
        unmatched_left=unmatched_left,
        unmatched_right=unmatched_right,
        n_left=n_left,
        n_right=n_right,
        total=total,
        score=1.0 if both_empty else total / n,
        precision=_ratio(total, n_left, both_empty, float(zero_division)),
        recall=_ratio(total, n_right, both_empty, float(zero_division)),
    )
