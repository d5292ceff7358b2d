"""How far the arena's judges can be trusted (FactArena reports these per judge), and how the
arena's ranking agrees with a score-based one (module docstring of :mod:`ev2r.ranking.arena`)."""

from __future__ import annotations

import collections
import math
from typing import Mapping, Optional, Sequence

import numpy as np

from ev2r.types import STATUS_OK


def judge_reliability(rows: Sequence[dict]) -> dict:
    """Per judge: ``n_judgements`` (rows), ``n_ok``, ``statuses``, ``self_consistency`` (+ ``n``),
    ``position_bias`` (share of first-shown wins among decisive per-order answers, + ``n``,
    ``p_value`` of the two-sided exact binomial test against 0.5), ``tie_rate`` (share of ok
    judgements that are ties), ``majority_agreement`` (+ ``n``) with the other judges' majority
    (module docstring). Values are None where their ``n`` is 0.

    Args:
        rows: battle rows as :func:`run_arena` writes them (``orders`` needed for position bias).
    """
    from scipy.stats import binomtest

    by_judge: dict[str, list[dict]] = {}
    for r in rows:
        if r.get("judge") is not None:
            by_judge.setdefault(r["judge"], []).append(r)
    battles: dict[tuple, dict[str, str]] = {}
    for r in rows:
        if r.get("judge") is not None and r.get("status") == STATUS_OK:
            battles.setdefault((str(r["id"]), r["system_a"], r["system_b"]), {})[r["judge"]] = r["winner"]
    out = {}
    for name, rs in sorted(by_judge.items()):
        ok = [r for r in rs if r["status"] == STATUS_OK]
        consistent = [bool(r["consistent"]) for r in ok if r.get("consistent") is not None]
        decisive = [o["answer"] == "A" for r in rs for o in r.get("orders") or []
                    if o.get("status") == STATUS_OK and o.get("answer") in ("A", "B")]
        agree = []
        for r in ok:
            others = [w for j, w in battles[(str(r["id"]), r["system_a"], r["system_b"])].items() if j != name]
            if not others:
                continue
            top = collections.Counter(others).most_common()
            if len(top) > 1 and top[0][1] == top[1][1]:
                continue  # the other judges are split evenly: no majority
            agree.append(r["winner"] == top[0][0])
        k_first = sum(decisive)
        out[name] = {
            "family": rs[0].get("judge_family"),
            "n_judgements": len(rs), "n_ok": len(ok),
            "statuses": dict(collections.Counter(r["status"] for r in rs)),
            "self_consistency": _share(consistent), "n_self_consistency": len(consistent),
            "position_bias": _share(decisive), "n_position": len(decisive),
            "position_p_value": float(binomtest(k_first, len(decisive), 0.5).pvalue) if decisive else None,
            "tie_rate": _share([r["winner"] == "tie" for r in ok]),
            "majority_agreement": _share(agree), "n_majority": len(agree),
        }
    return out


def _share(flags: Sequence[bool]) -> Optional[float]:
    return round(sum(flags) / len(flags), 6) if flags else None


def ranking_agreement(battles, scores: Mapping[str, Mapping[str, float]], n_bootstrap: int = 1000,
                      seed: int = 0) -> dict:
    """Kendall's tau-b between the arena's Bradley-Terry strengths and the systems' mean scores on the
    claims both cover, with a percentile bootstrap 95% CI over those claims (module docstring).

    Args:
        battles: :class:`ev2r.ranking.rating.Battles` of the arena (e.g. :func:`ev2r.ranking.rating.battles_from_rows`).
        scores: ``{item id: {system: score}}`` (:func:`ev2r.ranking.rating.scores_table`); a claim counts when
            every compared system has a score for it.
        n_bootstrap: replicates (>= 0); seed: their seed.

    Returns:
        ``{"tau", "p_value", "ci95" ([lo, hi] or None), "n_claims", "systems", "arena_rating",
        "mean_score", "n_bootstrap", "n_undefined"}`` (replicates where a ranking is constant and
        tau undefined are left out and counted). ``tau`` is None when undefined.

    Raises:
        ValueError: fewer than two systems or no claim in common.
    """
    from scipy.stats import kendalltau

    from ev2r.ranking.rating import fit_bradley_terry, to_rating

    systems = [s for s in battles.systems if any(s in d for d in scores.values())]
    if len(systems) < 2:
        raise ValueError(f"scores: need scores for at least two arena systems, found {systems}")
    idx = [battles.systems.index(s) for s in systems]
    claims = [t for t, item in enumerate(battles.items)
              if all(s in scores.get(item, {}) for s in systems)]
    if not claims:
        raise ValueError("scores: no judged claim has a score for every system (ids must match the arena's)")
    per_item = battles.per_item[np.ix_(claims, idx, idx)]
    vals = np.array([[scores[battles.items[t]][s] for s in systems] for t in claims])

    def tau_of(w: np.ndarray) -> tuple[Optional[float], Optional[float], np.ndarray, np.ndarray]:
        counts = np.tensordot(w, per_item, axes=1)
        theta, _ = fit_bradley_terry(counts, warn=False)
        means = w @ vals / w.sum()
        if np.ptp(theta) < 1e-9 or np.ptp(means) < 1e-12:
            return None, None, theta, means
        res = kendalltau(theta, means)
        return float(res.statistic), float(res.pvalue), theta, means

    n = len(claims)
    tau, p, theta, means = tau_of(np.ones(n))
    boots, undefined = [], 0
    rng = np.random.default_rng(seed)
    for _ in range(n_bootstrap):
        w = np.bincount(rng.integers(0, n, n), minlength=n).astype(float)
        t, _, _, _ = tau_of(w)
        if t is None or math.isnan(t):
            undefined += 1
        else:
            boots.append(t)
    ci = [round(float(x), 4) for x in np.percentile(boots, [2.5, 97.5])] if boots else None
    return {"tau": None if tau is None else round(tau, 4), "p_value": None if p is None else round(p, 6),
            "ci95": ci, "n_claims": n, "systems": systems,
            "arena_rating": {s: round(float(r), 3) for s, r in zip(systems, to_rating(theta))},
            "mean_score": {s: round(float(m), 6) for s, m in zip(systems, means)},
            "n_bootstrap": n_bootstrap, "n_undefined": undefined}
