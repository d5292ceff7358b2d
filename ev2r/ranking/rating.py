"""Rank systems from per-item scores: pairwise battles -> Bradley-Terry (MLE) + online Elo.

Input: rows ``{id, <system field>, <score field>}`` -- one score per (item, system), e.g. the
per-item Ev2R scores ``ev2r score -o`` writes, one file per system. Each item on which two
systems both have a score is one *battle* between them (FactArena-style arena ranking of
fact-checking systems, arXiv 2601.02669; Chatbot Arena, Chiang et al. 2024, arXiv 2403.04132):

* system a **wins** when ``score_a - score_b > margin``; ``|score_a - score_b| <= margin`` is a
  **tie** (``margin`` >= 0, default :data:`DEFAULT_MARGIN` = 1e-6 absolute: a rerun whose scores
  differ only by float noise -- different hardware, batch order, dtype -- ties rather than winning
  or losing every battle; pass ``margin=0`` for exact comparison).

Bradley-Terry: ``P(a beats b) = 1 / (1 + exp(theta_b - theta_a))``. The strengths maximise the
likelihood with ties counted as half a win for each side (Rao & Kupper's simple convention):

    NLL(theta) = - sum_{a != b} W[a, b] * log sigmoid(theta_a - theta_b) + l2/2 * ||theta||^2
    W[a, b] = wins of a over b + 0.5 * ties between a and b

minimised with ``scipy.optimize.minimize`` (trust-region Newton, analytic gradient and Hessian). theta is only defined up
to a constant: ratings are reported centred on a mean of 1000 within each connected component
(a choice that does not depend on names or order) on the Elo scale ``rating = 1000 + 400 *
log10(e) * theta``: a 400-point gap means 10:1 odds. The fit depends on the battles only through
``W``, so it is invariant to the order of battles and of input rows, and renaming systems renames
the ratings.

A finite MLE exists only when, in every split of a component into two groups, each group beats
or ties the other at least once (Zermelo 1929; Ford 1957): the "beats or ties" graph must be
strongly connected. When it is not (a system wins or loses every battle), a warning is emitted
and a weak L2 penalty ``l2_fallback`` keeps the ratings finite. When the comparison graph itself
is disconnected (some systems never meet on a common item), ratings of different components are
not comparable: a warning names the components and each is centred on 1000 separately.

Ranks: systems are ordered by rating; systems whose ratings differ by at most
:data:`RATING_TIE_POINTS` (0.001 Elo points, the precision ratings are reported with) share a
rank (standard competition ranking: 1, 1, 3).

Confidence intervals: percentile bootstrap over **items** (items resampled with replacement,
battles rebuilt from the resampled items), seeded, ``n_bootstrap`` replicates (default 1000).

Judged battles: rows ``{id, system_a, system_b, winner: "a" | "b" | "tie" | null, status, judge}``
(one per judgement, as ``ev2r arena`` writes them; :func:`battles_from_rows`) are read as they are:
each ok judgement is one battle (a tie half a win for each side), a judgement without a verdict
(``status`` other than ``ok``) is counted and left out, never a win; the bootstrap resamples items
with all their judgements; ``mean_score`` is then the system's win share.

Elo (for comparison): online updates ``R_a += K (S_a - E_a)`` with ``E_a = 1 / (1 + 10^((R_b -
R_a)/400))``, start 1000, K = 4 by default (Chatbot Arena), over the battle list in
``elo_orders`` random orders (default 20, seed ``seed``) and averaged, which reduces, but does not
remove, its dependence on battle order.
"""

from __future__ import annotations

import json
import math
import os
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional, Sequence

import numpy as np

from ev2r.types import is_valid_id

ELO_SCALE = 400.0 / math.log(10.0)  # theta (natural log odds) -> Elo points
BASE_RATING = 1000.0
#: Default tie margin on per-item scores: differences up to 1e-6 (absolute) are float noise, a tie.
DEFAULT_MARGIN = 1e-6
#: Ratings this close (Elo points) share a rank.
RATING_TIE_POINTS = 1e-3


class RankingWarning(UserWarning):
    """Disconnected comparisons or a non-existent MLE (see module docstring)."""


@dataclass
class Battles:
    """Pairwise outcomes of ``systems`` (sorted names) on ``items`` (sorted ids).

    ``per_item[i]`` is a (k, k) array: ``per_item[i][a, b]`` = 1 when a beat b on item i, 0.5
    for a tie (both ``[a, b]`` and ``[b, a]``), else 0. ``played[i][a, b]`` = 1 when a and b met.
    ``wins``/``ties`` are totals (ties symmetric). ``sequence`` lists battles ``(item, a, b,
    outcome)`` with outcome 1 (a wins), 0.5 (tie), in canonical order (items, then system pairs).
    """

    systems: list[str]
    items: list[str]
    per_item: np.ndarray
    played: np.ndarray
    sequence: list[tuple[str, int, int, float]] = field(default_factory=list)
    #: explicit (k, k) totals when an item holds several battles per pair (judged battles,
    #: :func:`battles_from_rows`): ``per_item`` then sums their outcomes and ``played`` counts them.
    win_counts: Optional[np.ndarray] = None
    tie_counts: Optional[np.ndarray] = None

    @property
    def wins(self) -> np.ndarray:
        if self.win_counts is not None:
            return self.win_counts
        return (self.per_item == 1.0).sum(0).astype(float)

    @property
    def ties(self) -> np.ndarray:
        if self.tie_counts is not None:
            return self.tie_counts
        return (self.per_item == 0.5).sum(0).astype(float)

    @property
    def counts(self) -> np.ndarray:
        """W[a, b] = wins + ties / 2."""
        return self.per_item.sum(0)

    @property
    def n_battles(self) -> int:
        return int(np.triu(self.played.sum(0), 1).sum())


def _check_number(v: Any, where: str, fld: str) -> Optional[float]:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"{where}: field {fld!r} must be a number or null, got {v!r}")
    if not math.isfinite(float(v)):
        raise ValueError(f"{where}: field {fld!r} must be finite, got {v!r}")
    return float(v)


def scores_table(rows: Iterable[Any], system_field: str = "system", score_field: str = "ev2r",
                 id_field: str = "id", source: str = "<input>") -> dict[str, dict[str, float]]:
    """``{item id: {system: score}}`` from rows; rows whose score is null are left out (a failed
    item does not battle).

    Raises:
        ValueError: a row that is not an object, lacks ``id_field``/``system_field``/``score_field``,
            has a null/empty/non-scalar id, a non-numeric score, or repeats an (id, system) pair -- naming the row and field.
    """
    table: dict[str, dict[str, float]] = {}
    seen: set[tuple[str, str]] = set()
    for n, r in enumerate(rows):
        where = f"{source}: row {n}"
        if not isinstance(r, dict):
            raise ValueError(f"{where}: expected a JSON object, got {type(r).__name__}")
        for f in (id_field, system_field, score_field):
            if f not in r:
                hint = (" or name the system of every row of a file with SYSTEM=PATH, e.g. "
                        "`ev2r rank rules=scores_a.jsonl gpt4o=scores_b.jsonl -o ranking.json` (the output of "
                        "`ev2r score` has no system field)") if f == system_field else ""
                raise ValueError(f"{where}: field {f!r} is missing (set --id-field / --system-field / --score-field"
                                 f"{hint})")
        sysname = r[system_field]
        if not isinstance(sysname, str) or not sysname:
            raise ValueError(f"{where}: field {system_field!r} must be a non-empty string, got {sysname!r}")
        score = _check_number(r[score_field], where, score_field)
        rid = r[id_field]
        if not is_valid_id(rid):
            raise ValueError(f"{where}: field {id_field!r} must be a non-empty string or an integer, got {rid!r}")
        rid = str(rid)
        if (rid, sysname) in seen:
            raise ValueError(f"{where}: item {rid!r} has a second score for system {sysname!r} "
                             f"(field {id_field!r} must be unique per system)")
        seen.add((rid, sysname))
        if score is not None:
            table.setdefault(rid, {})[sysname] = score
    return table


def make_battles(table: dict[str, dict[str, float]], margin: float = DEFAULT_MARGIN) -> Battles:
    """All pairwise battles from ``{item: {system: score}}`` (module docstring for the rule).

    Raises:
        ValueError: ``margin`` < 0, fewer than two systems, or no item scored by two systems.
    """
    if not (margin >= 0.0 and math.isfinite(margin)):
        raise ValueError(f"margin: must be a finite number >= 0, got {margin!r}")
    systems = sorted({s for d in table.values() for s in d})
    if len(systems) < 2:
        raise ValueError(f"system: need at least two systems to rank, found {systems}")
    index = {s: k for k, s in enumerate(systems)}
    items = sorted(i for i, d in table.items() if len(d) >= 2)
    if not items:
        raise ValueError("id: no item was scored by two or more systems; battles need common item ids")
    k = len(systems)
    per_item = np.zeros((len(items), k, k))
    played = np.zeros((len(items), k, k))
    seq = []
    for t, item in enumerate(items):
        d = table[item]
        names = sorted(d)
        for x in range(len(names)):
            for y in range(x + 1, len(names)):
                a, b = index[names[x]], index[names[y]]
                diff = d[names[x]] - d[names[y]]
                played[t, a, b] = played[t, b, a] = 1
                if diff > margin:
                    per_item[t, a, b] = 1.0
                    seq.append((item, a, b, 1.0))
                elif -diff > margin:
                    per_item[t, b, a] = 1.0
                    seq.append((item, a, b, 0.0))
                else:
                    per_item[t, a, b] = per_item[t, b, a] = 0.5
                    seq.append((item, a, b, 0.5))
    return Battles(systems, items, per_item, played, seq)


#: Fields of a judged battle row (``ev2r arena``'s ``battles.jsonl``; any file with these fields).
BATTLE_FIELDS = ("system_a", "system_b", "winner")
#: ``winner`` values of a judged battle row: system_a won, system_b won, a tie; null = no verdict.
WINNERS = ("a", "b", "tie")


def is_battle_row(row: Any) -> bool:
    """True for a judged battle row (an object with ``system_a``, ``system_b`` and ``winner``)."""
    return isinstance(row, dict) and all(f in row for f in BATTLE_FIELDS)


def battles_from_rows(rows: Iterable[Any], id_field: str = "id", source: str = "<input>") -> tuple[Battles, dict]:
    """Battles from judged battle rows ``{id, system_a, system_b, winner, status?, judge?}`` -- one
    row per judgement, e.g. ``ev2r arena``'s ``battles.jsonl`` (FactArena, arXiv 2601.02669,
    sec. III-C: pairwise judgements, ties split into half wins).

    ``winner`` is ``"a"`` (``system_a`` won), ``"b"`` or ``"tie"``; a row whose ``status`` is not
    ``"ok"`` or whose ``winner`` is null is a judgement that failed (or was never made): it is
    counted in the returned info, never a win or a tie. An item (``id_field``) may hold any number
    of judgements of any pairs; the bootstrap resamples items with all their judgements.

    Returns:
        ``(battles, info)``; ``info`` = ``{"n_rows", "n_used", "not_used": {status: count}}``.

    Raises:
        ValueError: a row that is not an object, lacks a field, names the same system twice, has
            a ``winner`` outside :data:`WINNERS` (or null with status ok), repeats a judgement
            (same item, pair and ``judge``), fewer than two systems, or no usable judgement --
            naming the row and field.
    """
    per: dict[str, list[tuple[str, str, float]]] = {}
    seen: set = set()
    not_used: dict[str, int] = {}
    n_rows = 0
    names: set[str] = set()
    for n, r in enumerate(rows):
        n_rows += 1
        where = f"{source}: row {n}"
        if not isinstance(r, dict):
            raise ValueError(f"{where}: expected a JSON object, got {type(r).__name__}")
        for f in (id_field,) + BATTLE_FIELDS:
            if f not in r:
                raise ValueError(f"{where}: field {f!r} is missing (a judged battle row has "
                                 f"{id_field}, system_a, system_b, winner)")
        a, b, winner, rid = r["system_a"], r["system_b"], r["winner"], r[id_field]
        for f, v in (("system_a", a), ("system_b", b)):
            if not isinstance(v, str) or not v:
                raise ValueError(f"{where}: field {f!r} must be a non-empty string, got {v!r}")
        if a == b:
            raise ValueError(f"{where}: fields 'system_a' and 'system_b' name the same system {a!r}")
        if not is_valid_id(rid):
            raise ValueError(f"{where}: field {id_field!r} must be a non-empty string or an integer, got {rid!r}")
        status = r.get("status", "ok")
        if winner is not None and winner not in WINNERS:
            raise ValueError(f"{where}: field 'winner' must be one of {', '.join(WINNERS)} or null, got {winner!r}")
        key = (str(rid), frozenset((a, b)), json.dumps(r.get("judge"), sort_keys=True))
        if key in seen:
            raise ValueError(f"{where}: item {rid!r} has a second judgement of {a!r} vs {b!r} by judge "
                             f"{r.get('judge')!r} (one row per item, pair and judge)")
        seen.add(key)
        names.update((a, b))
        if status != "ok" or winner is None:
            if status == "ok":
                raise ValueError(f"{where}: field 'winner' is null but status is 'ok'")
            not_used[str(status)] = not_used.get(str(status), 0) + 1
            continue
        per.setdefault(str(rid), []).append((a, b, {"a": 1.0, "b": 0.0, "tie": 0.5}[winner]))
    systems = sorted(names)
    if len(systems) < 2:
        raise ValueError(f"system_a/system_b: need at least two systems to rank, found {systems}")
    if not per:
        raise ValueError(f"winner: no usable judgement in {source} (statuses: {not_used or 'none'})")
    index = {s: i for i, s in enumerate(systems)}
    items = sorted(per)
    k = len(systems)
    per_item = np.zeros((len(items), k, k))
    played = np.zeros((len(items), k, k))
    wins = np.zeros((k, k))
    ties = np.zeros((k, k))
    seq = []
    for t, item in enumerate(items):
        for a_name, b_name, out in per[item]:
            a, b = index[a_name], index[b_name]
            played[t, a, b] += 1
            played[t, b, a] += 1
            per_item[t, a, b] += out
            per_item[t, b, a] += 1.0 - out
            if out == 0.5:
                ties[a, b] += 1
                ties[b, a] += 1
            else:
                wins[(a, b) if out == 1.0 else (b, a)] += 1
            seq.append((item, a, b, out))
    info = {"n_rows": n_rows, "n_used": len(seq), "not_used": not_used}
    return Battles(systems, items, per_item, played, seq, win_counts=wins, tie_counts=ties), info


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
                 seed: int = 0, elo_k: float = 4.0, elo_orders: int = 20, l2: float = 0.0) -> dict:
    """Rank systems from ``{item: {system: score}}``: Bradley-Terry ratings with bootstrap 95%
    intervals, online Elo, battle counts and warnings (see the module docstring).

    Args:
        table: ``{item id: {system: score}}`` (:func:`scores_table`).
        margin: score differences up to ``margin`` are ties (default :data:`DEFAULT_MARGIN`).
        n_bootstrap, seed, elo_k, elo_orders, l2: see the module docstring.

    Returns a JSON-ready dict: ``ratings`` (system -> ``rank``, ``rating``, ``ci95`` [lo, hi],
    ``elo``, ``mean_score``, ``n_items``, ``wins``, ``losses``, ``ties``), ``ranking`` (systems by
    rank, then name; systems with equal ratings share a rank), ``components``, ``warnings``,
    ``settings``, ``n_items``, ``n_battles``.

    Raises:
        ValueError: bad settings or unusable input (see :func:`make_battles`).
    """
    _check_rank_settings(n_bootstrap, seed)
    battles = make_battles(table, margin)
    covered = {sname: sum(1 for d in table.values() if sname in d) for sname in battles.systems}
    notes = []
    if len(set(covered.values())) > 1:
        notes.append("systems were scored on different numbers of items ("
                     + ", ".join(f"{sname}: {c}" for sname, c in covered.items())
                     + "); battles use only items both systems scored, so ratings and mean scores can disagree")
    means = {s: (float(np.mean([d[s] for d in table.values() if s in d])), covered[s]) for s in battles.systems}
    result = rank_battles(battles, n_bootstrap=n_bootstrap, seed=seed, elo_k=elo_k, elo_orders=elo_orders, l2=l2,
                          means=means, extra_notes=notes, _stacklevel=3)
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
        "settings": {"ties": "half win", "rank_tie_points": RATING_TIE_POINTS, "model": "bradley-terry-mle", "scale": "elo 400*log10, mean 1000",
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


# -- output ---------------------------------------------------------------------------------------
def ranking_table(result: dict, score_field: str = "score") -> str:
    """Markdown table of a :func:`rank_systems` result, best first."""
    lines = [f"| rank | system | BT rating | 95% CI | Elo | mean {score_field} | items | W / L / T |",
             "|---:|---|---:|---|---:|---:|---:|---|"]
    for n, s in enumerate(result["ranking"], 1):
        r = result["ratings"][s]
        n = r.get("rank", n)  # equal ratings share a rank
        ci = f"[{r['ci95'][0]:.1f}, {r['ci95'][1]:.1f}]" if r.get("ci95") else "n/a"
        lines.append(f"| {n} | {s} | {r['rating']:.1f} | {ci} | {r['elo']:.1f} | {r['mean_score']:.4f} | "
                     f"{r['n_items']} | {r['wins']} / {r['losses']} / {r['ties']} |")
    return "\n".join(lines) + "\n"


def forest_plot(result: dict, path: str, title: str = "Bradley-Terry ratings (95% bootstrap CI)") -> None:
    """Forest plot (PNG): BT rating and CI per system, best at the top, Elo as a hollow marker."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = result["ranking"][::-1]
    y = np.arange(len(order))
    r = np.array([result["ratings"][s]["rating"] for s in order])
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(order) + 1.5))
    if all(result["ratings"][s].get("ci95") for s in order):
        lo = np.array([result["ratings"][s]["ci95"][0] for s in order])
        hi = np.array([result["ratings"][s]["ci95"][1] for s in order])
        ax.errorbar(r, y, xerr=[r - lo, hi - r], fmt="o", color="C0", capsize=3, label="Bradley-Terry (95% CI)")
    else:
        ax.plot(r, y, "o", color="C0", label="Bradley-Terry")
    ax.plot([result["ratings"][s]["elo"] for s in order], y, "D", mfc="none", color="C1", label="Elo (online, averaged)")
    ax.axvline(BASE_RATING, color="grey", lw=0.8, ls=":")
    ax.set_yticks(y, order)
    ax.set_xlabel("rating (Elo scale)")
    ax.set_title(title)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def read_system_rows(spec: str, system_field: str) -> tuple[list, str]:
    """Rows of ``spec`` = ``PATH`` or ``SYSTEM=PATH`` (then every row gets ``system_field = SYSTEM``).

    Returns ``(rows, path)``. Raises:
        ValueError: an empty system name before ``=``; :class:`ev2r.io.InputError` for unreadable rows.
    """
    from ev2r.io.readers import read_rows

    system = None
    path = spec
    if "=" in spec and not os.path.exists(spec):
        system, path = spec.split("=", 1)
        if not system:
            raise ValueError(f"inputs: {spec!r}: empty system name before '='")
    rows = read_rows(path)
    if system is not None:
        rows = [dict(r, **{system_field: system}) if isinstance(r, dict) else r for r in rows]
    return rows, path
