"""Ratings from battles (:mod:`ev2r.ranking.rating`, module docstring): the Bradley-Terry MLE
(:func:`fit_bradley_terry`), online Elo (:func:`elo_online`), bootstrap intervals and shared ranks
(:func:`rank_battles`, :func:`rank_systems`, :func:`share_ranks`).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Optional, Sequence

import numpy as np

from ev2r.ranking.battles import DEFAULT_MARGIN, Battles, make_battles, skipped_text

__all__ = ["ELO_SCALE", "BASE_RATING", "RATING_TIE_POINTS", "RankingWarning", "fit_bradley_terry", "to_rating",
           "elo_online", "rank_systems", "rank_battles", "share_ranks"]

ELO_SCALE = 400.0 / math.log(10.0)  # theta (natural log odds) -> Elo points
BASE_RATING = 1000.0
#: Ratings this close (Elo points) share a rank.
RATING_TIE_POINTS = 1e-3


class RankingWarning(UserWarning):
    """Disconnected comparisons or a non-existent MLE (see :mod:`ev2r.ranking.rating`)."""


def _components(adj: np.ndarray, strong: bool = False) -> list[list[int]]:
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    n, labels = connected_components(csr_matrix(adj > 0), directed=strong,
                                     connection="strong" if strong else "weak")
    groups: dict[int, list[int]] = {}
    for i, c in enumerate(labels):
        groups.setdefault(int(c), []).append(i)
    return sorted(groups.values(), key=lambda g: g[0])


def fit_bradley_terry(counts: np.ndarray, l2: float = 0.0, l2_fallback: float = 1e-2,
                      warn: bool = True, x0: Optional[np.ndarray] = None) -> tuple[np.ndarray, dict]:
    """Bradley-Terry strengths (natural-log scale, centred on 0 per component) by maximum likelihood.

    Args:
        counts: (k, k) array, ``counts[a, b]`` = wins of a over b + half the ties (>= 0).
        l2: L2 penalty on theta (0: pure MLE).
        l2_fallback: penalty used when no finite MLE exists (module docstring), > 0.
        warn: emit :class:`RankingWarning` for disconnected comparisons / a missing MLE.
        x0: starting strengths (e.g. the full-data fit for bootstrap replicates); default zeros.

    Returns:
        ``(theta, info)``; ``info`` has ``components`` (lists of indices), ``mle_exists`` and the
        ``l2`` actually used.

    Raises:
        ValueError: a non-square or negative ``counts``, or a negative penalty.
    """
    from scipy.optimize import minimize

    W = np.asarray(counts, dtype=float)
    if W.ndim != 2 or W.shape[0] != W.shape[1]:
        raise ValueError(f"counts: expected a square (k, k) array, got shape {W.shape}")
    if (W < 0).any() or not np.isfinite(W).all():
        raise ValueError("counts: must be finite and >= 0")
    if not (np.isfinite(l2) and np.isfinite(l2_fallback)) or l2 < 0 or l2_fallback <= 0:
        raise ValueError(f"l2: must be a finite number >= 0 (l2_fallback > 0), got {l2}, {l2_fallback}")
    k = W.shape[0]
    np.fill_diagonal(W, 0.0)
    N = W + W.T
    comps = _components(N)
    strong = _components(W, strong=True)
    mle_exists = len(strong) == len(comps)
    used = l2
    if not mle_exists and l2 == 0:
        used = l2_fallback
        if warn:
            warnings.warn(f"no finite Bradley-Terry MLE: some systems win (or lose) every battle against the rest "
                          f"of their component; using an L2 penalty of {used:g}", RankingWarning, stacklevel=2)

    # NLL is invariant to shifting all strengths of a component; the term 1/2 (sum_c theta)^2 per
    # component pins each component's mean at 0 without moving the optimum (a shift-free choice).
    C = np.zeros((len(comps), k))
    for c, comp in enumerate(comps):
        C[c, comp] = 1.0
    pin = C.T @ C

    def nll(theta):
        d = theta[:, None] - theta[None, :]
        # -W * log sigmoid(d) = W * softplus(-d)
        val = float((W * np.logaddexp(0.0, -d)).sum()) + 0.5 * used * float(theta @ theta) \
            + 0.5 * float(theta @ pin @ theta)
        p = 1.0 / (1.0 + np.exp(-d))
        g = W * (1.0 - p)  # d/d theta_a of W[a,b] log sig(theta_a - theta_b)
        grad = -(g.sum(1) - g.sum(0)) + used * theta + pin @ theta
        return val, grad

    def hess(theta):
        d = theta[:, None] - theta[None, :]
        p = 1.0 / (1.0 + np.exp(-d))
        v = N * p * (1.0 - p)  # symmetric
        H = -v
        np.fill_diagonal(H, v.sum(1))
        return H + used * np.eye(k) + pin

    theta = np.zeros(k)
    if k > 1 and W.sum() > 0:
        start = np.zeros(k) if x0 is None else np.asarray(x0, dtype=float)
        res = minimize(nll, start, jac=True, hess=hess, method="trust-exact", options={"gtol": 1e-9})
        theta = res.x
    for comp in comps:
        theta[comp] -= theta[comp].mean()
    return theta, {"components": comps, "mle_exists": mle_exists, "l2": used}


def _no_mle_words(counts: np.ndarray, systems: Sequence[str], used: float) -> str:
    """The missing-MLE warning in words: who won or lost every battle, and what the penalty does."""
    W = np.asarray(counts, dtype=float).copy()
    np.fill_diagonal(W, 0.0)
    played = (W + W.T).sum(1) > 0
    unbeaten = [systems[i] for i in range(len(systems)) if played[i] and W[:, i].sum() == 0]
    winless = [systems[i] for i in range(len(systems)) if played[i] and W[i, :].sum() == 0]
    who = "; ".join(x for x in (f"{', '.join(unbeaten)} never lost a battle" if unbeaten else "",
                                 f"{', '.join(winless)} never won or tied one" if winless else "") if x) \
        or "one group of systems beat the rest in every battle between them"
    return (f"no finite Bradley-Terry MLE: {who}, so the maximum-likelihood ratings would be infinitely far apart; "
            f"the ratings are pulled slightly towards each other (an L2 penalty of {used:g} on the strengths, "
            "--l2 to set it): the order is sound, but the size of those gaps is set by the penalty, not the data")


def to_rating(theta: np.ndarray) -> np.ndarray:
    """Natural-log strengths -> Elo-scale ratings centred on 1000."""
    return BASE_RATING + ELO_SCALE * np.asarray(theta, dtype=float)


def elo_online(sequence: Sequence[tuple[Any, int, int, float]], k_systems: int, k_factor: float = 4.0,
               orders: int = 20, seed: int = 0) -> np.ndarray:
    """Online Elo over ``sequence`` (battles ``(item, a, b, outcome for a)``) averaged over
    ``orders`` seeded random orders (module docstring). Returns ratings (start 1000).

    Raises:
        ValueError: ``k_factor`` <= 0 or ``orders`` < 1.
    """
    if not (k_factor > 0 and math.isfinite(k_factor)):
        raise ValueError(f"elo_k: must be > 0, got {k_factor}")
    if orders < 1:
        raise ValueError(f"elo_orders: must be >= 1, got {orders}")
    rng = np.random.default_rng(seed)
    arr = np.array([(a, b, s) for _, a, b, s in sequence], dtype=float).reshape(-1, 3)
    total = np.zeros(k_systems)
    for _ in range(orders):
        r = np.full(k_systems, BASE_RATING)
        for a, b, s in arr[rng.permutation(len(arr))]:
            a, b = int(a), int(b)
            e = 1.0 / (1.0 + 10.0 ** ((r[b] - r[a]) / 400.0))
            r[a] += k_factor * (s - e)
            r[b] -= k_factor * (s - e)
        total += r
    return total / orders


def rank_systems(table: dict[str, dict[str, float]], margin: float = DEFAULT_MARGIN, n_bootstrap: int = 1000,
                 seed: int = 0, elo_k: float = 4.0, elo_orders: int = 20, l2: float = 0.0,
                 skipped: Optional[dict[str, dict[str, int]]] = None) -> dict:
    """Rank systems from ``{item: {system: score}}``: Bradley-Terry ratings with bootstrap 95%
    intervals, online Elo, battle counts and warnings (see the module docstring).

    Args:
        table: ``{item id: {system: score}}`` (:func:`scores_table`).
        margin: score differences up to ``margin`` are ties (default :data:`DEFAULT_MARGIN`).
        n_bootstrap, seed, elo_k, elo_orders, l2: see the module docstring.
        skipped: ``{system: {status: rows}}`` of the rows left out of ``table`` because they do not
            count (:func:`~ev2r.ranking.battles.counted_scores_table`); reported, never ranked.

    Returns a JSON-ready dict: ``ratings`` (system -> ``rank``, ``rating``, ``ci95`` [lo, hi],
    ``elo``, ``mean_score``, ``n_items``, ``n_skipped``, ``wins``, ``losses``, ``ties``), ``ranking``
    (systems by rank, then name; systems with equal ratings share a rank), ``components``,
    ``warnings``, ``settings``, ``n_items``, ``n_battles``, ``skipped`` (``skipped`` as given, only
    systems with skipped rows, also those left with no counted row) and ``n_skipped`` (their total).

    Raises:
        ValueError: bad settings or unusable input (see :func:`make_battles`; the message then
            says which rows were skipped).
    """
    _check_rank_settings(n_bootstrap, seed)
    skipped = {s: dict(sorted(d.items())) for s, d in sorted((skipped or {}).items()) if d}
    try:
        battles = make_battles(table, margin)
    except ValueError as e:
        if skipped:
            raise ValueError(f"{e} (rows skipped, status not ok or no score: {skipped_text(skipped)})") from None
        raise
    covered = {sname: sum(1 for d in table.values() if sname in d) for sname in battles.systems}
    notes = []
    if len(set(covered.values())) > 1:
        notes.append("systems were scored on different numbers of items ("
                     + ", ".join(f"{sname}: {c}" for sname, c in covered.items())
                     + "); battles use only items both systems scored, so ratings and mean scores can disagree")
    means = {s: (float(np.mean([d[s] for d in table.values() if s in d])), covered[s]) for s in battles.systems}
    if skipped:
        notes.append(f"{sum(sum(d.values()) for d in skipped.values())} row(s) skipped (status not ok, or no score): "
                     f"{skipped_text(skipped)}; they neither battle nor enter mean_score")
        unranked = sorted(set(skipped) - set(battles.systems))
        if unranked:
            notes.append(f"system(s) with no counted row, not ranked: {', '.join(unranked)}")
    result = rank_battles(battles, n_bootstrap=n_bootstrap, seed=seed, elo_k=elo_k, elo_orders=elo_orders, l2=l2,
                          means=means, extra_notes=notes, _stacklevel=3)
    for sname, r in result["ratings"].items():
        r["n_skipped"] = sum(skipped.get(sname, {}).values())
    result["skipped"] = skipped
    result["n_skipped"] = sum(sum(d.values()) for d in skipped.values())
    result["settings"] = {"margin": margin, **result["settings"]}
    return result


def _check_rank_settings(n_bootstrap: int, seed: Any) -> None:
    if n_bootstrap < 0:
        raise ValueError(f"bootstrap: must be >= 0, got {n_bootstrap}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed: must be an integer >= 0, got {seed!r}")


def rank_battles(battles: Battles, n_bootstrap: int = 1000, seed: int = 0, elo_k: float = 4.0,
                 elo_orders: int = 20, l2: float = 0.0, means: Optional[dict[str, tuple[float, int]]] = None,
                 extra_notes: Sequence[str] = (), _stacklevel: int = 2) -> dict:
    """Bradley-Terry ratings (bootstrap 95% CIs over ``battles.items``), online Elo and counts from
    ready-made battles (:func:`make_battles` for per-item scores, :func:`battles_from_rows` for
    judged battles such as ``ev2r arena`` writes). Same result layout as :func:`rank_systems`.

    Args:
        battles: the battles; each bootstrap replicate resamples its items with replacement.
        means: ``{system: (mean score, items scored)}`` for the ``mean_score`` / ``n_items``
            columns; None (judged battles) -> ``mean_score`` is the system's win share
            ``(wins + ties / 2) / battles`` in [0, 1] and ``n_items`` the items it battled on.
        extra_notes: warnings to report with the ones found here.

    Raises:
        ValueError: bad settings.
    """
    _check_rank_settings(n_bootstrap, seed)
    systems = battles.systems
    k = len(systems)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        theta, info = fit_bradley_terry(battles.counts, l2=l2)
    notes = [str(w.message) for w in caught]
    if not info["mle_exists"] and l2 == 0:
        notes = [m for m in notes if not m.startswith("no finite Bradley-Terry MLE")]
        notes.append(_no_mle_words(battles.counts, systems, info["l2"]))
    if len(info["components"]) > 1:
        names = [[systems[i] for i in comp] for comp in info["components"]]
        notes.insert(0, "the comparison graph is disconnected (systems in different components never scored the "
                        "same item); ratings are only comparable within a component: "
                        + "; ".join("{" + ", ".join(c) + "}" for c in names))
    notes.extend(extra_notes)
    for msg in notes:
        warnings.warn(msg, RankingWarning, stacklevel=_stacklevel)
    rating = to_rating(theta)
    ci = np.full((k, 2), np.nan)
    n_fallback = 0
    if n_bootstrap > 0:
        rng = np.random.default_rng(seed)
        n = len(battles.items)
        boots = np.empty((n_bootstrap, k))
        flat = battles.per_item.reshape(n, -1)
        for b in range(n_bootstrap):
            w = np.bincount(rng.integers(0, n, n), minlength=n).astype(float)
            counts = (w @ flat).reshape(k, k)
            th, inf = fit_bradley_terry(counts, l2=l2, warn=False, x0=theta)
            n_fallback += not inf["mle_exists"]
            boots[b] = to_rating(th)
        ci = np.percentile(boots, [2.5, 97.5], axis=0).T
    elo = elo_online(battles.sequence, k, k_factor=elo_k, orders=elo_orders, seed=seed)
    wins, ties = battles.wins, battles.ties
    games = battles.played.sum(0)
    ratings = {}
    for i, s in enumerate(systems):
        if means is not None:
            mean, n_items = means[s]
        else:
            n_games = float(games[i].sum())
            mean = (float(wins[i].sum()) + 0.5 * float(ties[i].sum())) / n_games if n_games else 0.0
            n_items = int((battles.played[:, i, :].sum(1) > 0).sum())
        ratings[s] = {
            "rating": round(float(rating[i]), 3),
            "ci95": [round(float(ci[i, 0]), 3), round(float(ci[i, 1]), 3)] if n_bootstrap else None,
            "elo": round(float(elo[i]), 3),
            "mean_score": round(float(mean), 6),
            "n_items": n_items,
            "wins": int(wins[i].sum()), "losses": int(wins[:, i].sum()), "ties": int(ties[i].sum()),
        }
    ranks = share_ranks({s: float(rating[i]) for i, s in enumerate(systems)})
    for s in systems:
        ratings[s] = {"rank": ranks[s], **ratings[s]}
    order = sorted(systems, key=lambda s: (ranks[s], s))
    return {
        "ratings": ratings,
        "ranking": order,
        "components": [[systems[i] for i in comp] for comp in info["components"]],
        "warnings": notes,
        "n_items": len(battles.items),
        "n_battles": battles.n_battles,
        "settings": {"ties": "half win", "rank_tie_points": RATING_TIE_POINTS, "model": "bradley-terry-mle",
                     "scale": "elo 400*log10, mean 1000",
                     "l2": l2, "l2_used": info["l2"], "bootstrap": n_bootstrap, "bootstrap_unit": "item",
                     "bootstrap_fallback_l2": n_fallback, "seed": seed, "elo_k": elo_k,
                     "elo_orders": elo_orders, "elo_start": BASE_RATING},
    }


def share_ranks(values: dict[str, float], tol: float = RATING_TIE_POINTS) -> dict[str, int]:
    """Competition ranks (1, 1, 3, ...) of ``{name: rating}``, highest first: a rating within ``tol``
    of the first rating of the current group joins that group's rank.

    Raises:
        ValueError: a non-finite rating or a negative ``tol``.
    """
    if not (tol >= 0 and math.isfinite(tol)):
        raise ValueError(f"tol: must be a finite number >= 0, got {tol!r}")
    for name, v in values.items():
        if not math.isfinite(v):
            raise ValueError(f"rating of {name!r}: must be finite, got {v!r}")
    order = sorted(values, key=lambda s: (-values[s], s))
    ranks: dict[str, int] = {}
    lead = None
    for pos, s in enumerate(order, 1):
        if lead is None or values[lead] - values[s] > tol:
            lead, rank = s, pos
        ranks[s] = rank
    return ranks
