"""Weights of the combined score ``ev2r_hybrid``, fitted on BOTH dev rating sets.

    python benchmarks/agreement/score_with.py hybrid_columns=all -- ../shared/data/ev2r_human_eval/averitec_manual_eval_subset.jsonl \
        -o S86.jsonl --json --scorer ev2r --scorer hu-meteor
    python benchmarks/agreement/score_with.py hybrid_columns=all -- ../shared/data/ev2r_human_eval/averitec_shared_task_dev.jsonl \
        -o S144.jsonl --json --scorer ev2r --scorer hu-meteor
    python benchmarks/agreement/combination.py --scores-86 S86.jsonl --scores-144 S144.jsonl

(``score_with.py`` is ``ev2r score`` with the research hook's ``hybrid_columns="all"``: every component column,
the zero-weight ones too.) Reads the per-item rows of ``ev2r score -o`` (they carry the component columns of
:data:`ev2r.config.HYBRID_COMPONENTS`: ``recall``, ``proxy``, ``hu_meteor``, ``hybrid_embedding``) and
the rating files (``human_ratings.semantic_coverage``, ``verdict_agreement``), joined on ``row``
(rating files repeat ids; the ids are checked to agree). Rows whose status is not ok or that lack
a component are left out, and counted.

What it does, kept small on purpose (4 components, a coarse grid):

* every weight vector on the simplex with step ``--step`` (0.1: 286 vectors);
* **leave-one-set-out**: the vector with the highest Spearman vs semantic_coverage on one set,
  evaluated on the other (the honest estimate of what a fit buys on unseen systems);
* **shipping**: among the vectors at least as good as Ev2R on both sets and both ratings (semantic
  coverage and verdict agreement: "not worse than Ev2R on either dev set"), the one maximising the
  *smaller* of the two sets' Spearman vs semantic coverage (maximin), because the project's rule is
  that a change winning on one set and losing on the other is no win;
  the pooled fit (one Spearman over both sets' rows) is reported beside it, not shipped: pooled
  Spearman mixes two rating populations (one baseline system vs 7 teams, 3 annotators vs 1) and is
  dominated by the larger set;
* for the shipped, LOSO and pooled vectors and for Ev2R, recall, proxy, HU-METEOR and hybrid_embedding:
  Spearman vs semantic_coverage and vs verdict_agreement per set with 95% percentile bootstrap CIs
  (rows resampled, seeded), and paired bootstrap CIs of hybrid minus Ev2R / HU-METEOR.

**The gaming suite as a constraint** (``--gaming NAME=PATH``, the per-item rows of
``benchmarks/robustness/gaming.py`` for each set, which carry every component for the real and the gamed
evidence): a weight vector qualifies only if, on every set and every strategy, ``ev2r_hybrid`` gains
nothing over the real evidence (mean change <= 0.001 and at most 10% of rows rising by more than
0.005: the suite's ``no_gain_over_original``). The table counts the vectors each rule leaves and names
the strategies that exclude the most.

The in-sample numbers of the shipped vector are optimistic (it was chosen on them); read the LOSO
rows beside them. Writes ``--out`` (default ``benchmarks/results/combination``) ``.md`` and
``.json`` with the command and the machine; the JSON's ``shipping.weights`` is what
``ev2r.config.HYBRID_WEIGHTS`` must hold (tests/benchmarks/test_combination.py checks it).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path
from typing import Optional, Sequence

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402

from ev2r.config import HYBRID_COMPONENTS, HYBRID_WEIGHTS  # noqa: E402

RATINGS = ("semantic_coverage", "verdict_agreement")
BASELINES = ("ev2r", "recall", "f1", "proxy", "hu_meteor", "hybrid_meteor", "hybrid_embedding")
SET_NAMES = ("86", "144")
DEFAULT_RATINGS = {"86": bl.DATA / "ev2r_human_eval" / "averitec_manual_eval_subset.jsonl",
                   "144": bl.DATA / "ev2r_human_eval" / "averitec_shared_task_dev.jsonl"}


# -- data --------------------------------------------------------------------------------------------
def load_set(scores_path, ratings_path, components: Sequence[str] = HYBRID_COMPONENTS) -> dict:
    """One dev set: per-row component and baseline values and ratings, joined on ``row``.

    Returns ``{"n_rows", "n_used", "left_out": {reason: count}, "X": (n, k) components,
    "baselines": {name: (n,)}, "ratings": {name: (n,)}}`` over the rows that are ok and have every
    component, baseline and rating.

    Raises:
        SystemExit: a scores row without ``row``, a row number missing from the scores file, or an
            id that differs between the two files at the same row (naming both files and the row).
    """
    scores = bl.read_jsonl(scores_path)
    ratings = bl.read_jsonl(ratings_path)
    by_row = {}
    for k, r in enumerate(scores):
        if "row" not in r:
            raise SystemExit(f"{scores_path}: line {k + 1} has no 'row' field (not an `ev2r score -o` file?)")
        by_row[r["row"]] = r
    absent = [c for c in dict.fromkeys((*components, *BASELINES)) if by_row and all(c not in r for r in by_row.values())]
    if absent:
        raise SystemExit(f"{scores_path}: no row has {', '.join(absent)}; score with `python "
                         "benchmarks/agreement/score_with.py hybrid_columns=all -- INPUT ...` (a zero-weight component "
                         "is left out by default) and --scorer ev2r --scorer hu-meteor")
    left_out: dict = {}
    X, base, rat = [], {b: [] for b in BASELINES}, {q: [] for q in RATINGS}
    for n, h in enumerate(ratings):
        r = by_row.get(n)
        if r is None:
            raise SystemExit(f"{scores_path}: no row {n} of {ratings_path} (score the whole rating file)")
        if h.get("id") is not None and str(r.get("id")) != str(h.get("id")):
            raise SystemExit(f"{scores_path} row {n}: id {r.get('id')!r} but {ratings_path} row {n} has id "
                             f"{h.get('id')!r}: not the same file")
        if r.get("status") != "ok":
            left_out[f"status {r.get('status')}"] = left_out.get(f"status {r.get('status')}", 0) + 1
            continue
        missing = [c for c in dict.fromkeys((*components, *BASELINES)) if r.get(c) is None]
        hr = h.get("human_ratings") or {}
        missing += [q for q in RATINGS if hr.get(q) is None]
        if missing:
            key = "missing " + ",".join(missing)
            left_out[key] = left_out.get(key, 0) + 1
            continue
        X.append([float(r[c]) for c in components])
        for b in BASELINES:
            base[b].append(float(r[b]))
        for q in RATINGS:
            rat[q].append(float(hr[q]))
    return {"n_rows": len(ratings), "n_used": len(X), "left_out": left_out,
            "X": np.array(X, dtype=np.float64).reshape(len(X), len(components)),
            "baselines": {b: np.array(v) for b, v in base.items()}, "ratings": {q: np.array(v) for q, v in rat.items()}}


# -- grid and fits -----------------------------------------------------------------------------------
def simplex_grid(k: int, step: float) -> np.ndarray:
    """Every weight vector of ``k`` components in multiples of ``step`` summing to 1, in
    lexicographic order of the integer counts, shape (C(m + k - 1, k - 1), k) with m = 1 / step.

    Raises:
        ValueError: ``1 / step`` is not a whole number, or k < 1.
    """
    m = round(1.0 / step)
    if k < 1 or not np.isclose(m * step, 1.0):
        raise ValueError(f"--step: 1/step must be a whole number (e.g. 0.1, 0.25), got {step}; k={k}")
    rows = [c for c in itertools.product(range(m + 1), repeat=k) if sum(c) == m]
    return np.array(rows, dtype=np.float64) / m


def spearman(x: np.ndarray, y: np.ndarray) -> Optional[float]:
    """Spearman's rho (scipy), None when either side is constant."""
    if len(x) < 3 or np.all(x == x[0]) or np.all(y == y[0]):
        return None
    return float(stats.spearmanr(x, y)[0])


def grid_spearman(X: np.ndarray, y: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Spearman vs ``y`` of ``X @ w`` for every row ``w`` of ``grid`` (NaN where undefined)."""
    out = np.full(len(grid), np.nan)
    for g, w in enumerate(grid):
        v = spearman(X @ w, y)
        out[g] = np.nan if v is None else v
    return out


def best(values: np.ndarray) -> int:
    """Index of the largest value (the first on ties: the grid's lexicographic order)."""
    return int(np.nanargmax(values))


def load_gaming(path, components: Sequence[str] = HYBRID_COMPONENTS, zero: Sequence[str] = (),
                gated_only: bool = False) -> dict:
    """The per-item rows of ``benchmarks/robustness/gaming.py`` (``<out>_<set>_per_item.jsonl.gz``) or of ``ev2r robustness
    --suite gaming`` (``per_item.jsonl``): strategy -> ``(base, gamed)`` arrays of shape (n, k) over the applied
    rows that have every component both ways. A component of ``zero`` (held at weight 0) may be absent and
    reads 0; ``gated_only``: only the strategies the CI gate counts (not :data:`adversarial.perturbations.GAMING_OPEN`)."""
    from adversarial.perturbations import GAMING_OPEN

    out: dict = {}
    for r in bl.read_jsonl(path):
        if not r.get("applied") or not r.get("perturbed"):
            continue
        if gated_only and r.get("perturbation") in GAMING_OPEN:
            continue
        b = {**dict.fromkeys(zero, 0.0), **{k: v for k, v in r["base"].items() if v is not None}}
        q = {**dict.fromkeys(zero, 0.0), **{k: v for k, v in r["perturbed"].items() if v is not None}}
        if any(b.get(c) is None or q.get(c) is None for c in components):
            continue
        base, gamed = out.setdefault(r["perturbation"], ([], []))
        base.append([float(b[c]) for c in components])
        gamed.append([float(q[c]) for c in components])
    return {k: (np.array(b), np.array(g)) for k, (b, g) in out.items()}


#: The suite's ``no_gain_over_original`` rule, from where it is defined (adversarial.suite, adversarial.perturbations).
from adversarial.perturbations import GAMING_RISE_PCT  # noqa: E402
from adversarial.suite import GAIN_NOISE, RISE_MIN  # noqa: E402

RISE_SHARE = GAMING_RISE_PCT / 100.0


def gaming_violations(grid: np.ndarray, gaming: dict) -> tuple[np.ndarray, dict]:
    """For each grid vector, the number of ``set/strategy`` pairs it gains from (module docstring: mean change
    above the noise floor or more than the suite's share of rows rising), and for each ``set/strategy`` how many
    vectors it excludes."""
    count = np.zeros(len(grid), dtype=int)
    excluded = {}
    for set_name, strategies in gaming.items():
        for name, (base, gamed) in strategies.items():
            if not len(base):
                continue
            d = (gamed - base) @ grid.T  # (n, G)
            good = (d.mean(axis=0) <= GAIN_NOISE) & ((d > RISE_MIN).mean(axis=0) <= RISE_SHARE + 1e-12)
            excluded[f"{set_name}/{name}"] = int((~good).sum())
            count += ~good
    return count, excluded


def gaming_ok(grid: np.ndarray, gaming: dict) -> tuple[np.ndarray, dict]:
    """Which grid vectors gain nothing from any strategy on any set (module docstring), and for each
    ``set/strategy`` how many vectors it excludes."""
    count, excluded = gaming_violations(grid, gaming)
    return count == 0, excluded


def fit(sets: dict, grid: np.ndarray, rating: str = "semantic_coverage", extra_ok: Optional[np.ndarray] = None,
        violations: Optional[np.ndarray] = None, floors: Sequence[str] = ("ev2r",)) -> dict:
    """Per-set in-sample fits, leave-one-set-out, maximin and pooled fits over ``grid``.

    ``maximin`` is the constrained maximin: among the grid points whose Spearman is at least Ev2R's
    on every set *and* every rating of :data:`RATINGS` (the combined score's requirement: it "must not be worse
    than Ev2R on either dev set"), the one whose worse set (on ``rating``) is best; when no point
    qualifies, the unconstrained maximin (``feasible`` = 0 says so). With ``violations`` (per grid point, the
    number of gaming set/strategy pairs it gains from) and no two-set point free of them, the points that gain
    from the fewest pairs stand in for ``extra_ok`` (``fewest_violations`` says how many).

    Returns ``{"per_set": {name: index}, "maximin": index, "pooled": index, "rho": {name: (G,)},
    "rho_pooled": (G,), "feasible": int}`` (indices into ``grid``).
    """
    rho = {s: grid_spearman(d["X"], d["ratings"][rating], grid) for s, d in sets.items()}
    Xp = np.vstack([d["X"] for d in sets.values()])
    yp = np.concatenate([d["ratings"][rating] for d in sets.values()])
    rho_pooled = grid_spearman(Xp, yp, grid)
    worst = np.nanmin(np.vstack(list(rho.values())), axis=0)
    ok = np.ones(len(grid), dtype=bool)
    for d in sets.values():
        for floor in floors:  # at least as good as each floor score (--floor: ev2r by default; hu_meteor for HU-METEOR)
            if floor not in d.get("baselines", {}):
                continue  # nothing to hold the fit to
            for q in RATINGS:
                if q not in d["ratings"]:
                    continue
                floor_rho = spearman(d["baselines"][floor], d["ratings"][q])
                if floor_rho is not None:
                    ok &= np.nan_to_num(grid_spearman(d["X"], d["ratings"][q], grid), nan=-2.0) >= floor_rho - 1e-12
    two_set = int(ok.sum())
    fewest = None
    if violations is not None and ok.any() and not (ok & (violations == 0)).any():
        # no two-set point resists every strategy: keep those that gain from the fewest set/strategy pairs
        fewest = int(violations[ok].min())
        extra_ok = violations == fewest
    if extra_ok is not None:
        ok &= extra_ok
    chosen = best(np.where(ok, worst, np.nan)) if ok.any() else best(worst)
    return {"per_set": {s: best(r) for s, r in rho.items()}, "maximin": chosen, "pooled": best(rho_pooled),
            "rho": rho, "rho_pooled": rho_pooled, "feasible": int(ok.sum()), "feasible_two_set": two_set,
            "feasible_gaming": None if extra_ok is None else int(extra_ok.sum()), "fewest_violations": fewest}


# -- bootstrap ---------------------------------------------------------------------------------------
def _rowwise_spearman(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Spearman of each row of A with the same row of B (average ranks for ties); NaN where constant."""
    ra = stats.rankdata(A, axis=1)
    rb = stats.rankdata(B, axis=1)
    ra -= ra.mean(axis=1, keepdims=True)
    rb -= rb.mean(axis=1, keepdims=True)
    den = np.sqrt((ra ** 2).sum(1) * (rb ** 2).sum(1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (ra * rb).sum(1) / den, np.nan)


def boot_indices(n: int, n_boot: int, seed: int) -> np.ndarray:
    """``n_boot`` resamples of ``n`` rows with replacement, seeded, shape (n_boot, n)."""
    return np.random.default_rng(seed).integers(0, n, size=(n_boot, n))


def ci(values: np.ndarray) -> Optional[list]:
    v = values[~np.isnan(values)]
    return [float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5))] if len(v) > 10 else None


def correlation(x: np.ndarray, y: np.ndarray, idx: np.ndarray) -> dict:
    """Spearman with its 95% percentile bootstrap CI over the resamples ``idx``."""
    return {"spearman": spearman(x, y), "ci95": ci(_rowwise_spearman(x[idx], y[idx])), "n": int(len(x))}


def paired_difference(a: np.ndarray, b: np.ndarray, y: np.ndarray, idx: np.ndarray) -> dict:
    """Spearman(a, y) - Spearman(b, y), with a paired bootstrap 95% CI (the same resamples)."""
    ra, rb = spearman(a, y), spearman(b, y)
    diff = _rowwise_spearman(a[idx], y[idx]) - _rowwise_spearman(b[idx], y[idx])
    return {"difference": None if ra is None or rb is None else ra - rb, "ci95": ci(diff)}


# -- report ------------------------------------------------------------------------------------------
def weights_dict(w: np.ndarray) -> dict:
    return {c: round(float(v), 6) for c, v in zip(HYBRID_COMPONENTS, w)}


def evaluate(sets: dict, grid: np.ndarray, fits: dict, n_boot: int, seed: int) -> dict:
    """The table: for each candidate weight vector and each baseline, per set and rating, the
    Spearman with CI; paired differences of each candidate vs Ev2R and HU-METEOR."""
    candidates = {"shipping (maximin)": fits["maximin"], "pooled fit": fits["pooled"],
                  **{f"fit on {s} only": i for s, i in fits["per_set"].items()}}
    out: dict = {"candidates": {}, "baselines": {}}
    for s, d in sets.items():
        idx = boot_indices(d["n_used"], n_boot, seed)
        for name, g in candidates.items():
            x = d["X"] @ grid[g]
            entry = out["candidates"].setdefault(name, {"weights": weights_dict(grid[g]), "sets": {}})
            held_out = name.startswith("fit on ") and not name.endswith(f" {s} only")
            in_sample = name.startswith("fit on ") and name.endswith(f" {s} only")
            cell = {"role": "held out" if held_out else ("in sample" if in_sample else "in sample (both sets)")}
            for q in RATINGS:
                y = d["ratings"][q]
                cell[q] = correlation(x, y, idx)
                cell[q]["minus_ev2r"] = paired_difference(x, d["baselines"]["ev2r"], y, idx)
                cell[q]["minus_hu_meteor"] = paired_difference(x, d["baselines"]["hu_meteor"], y, idx)
            entry["sets"][s] = cell
        for b in BASELINES:
            out["baselines"].setdefault(b, {})[s] = {q: correlation(d["baselines"][b], d["ratings"][q], idx)
                                                     for q in RATINGS}
    return out


def fmt(c: Optional[dict]) -> str:
    if c is None or c.get("spearman") is None:
        return "n/a"
    lo_hi = c.get("ci95")
    return f"{c['spearman']:.3f}" + (f" [{lo_hi[0]:.2f}, {lo_hi[1]:.2f}]" if lo_hi else "")


def fmt_diff(c: dict) -> str:
    if c.get("difference") is None:
        return "n/a"
    lo_hi = c.get("ci95")
    return f"{c['difference']:+.3f}" + (f" [{lo_hi[0]:+.2f}, {lo_hi[1]:+.2f}]" if lo_hi else "")


def markdown(info: dict) -> str:
    t = info["table"]
    sets = list(info["sets"])
    lines = ["# Combined score `ev2r_hybrid`: weights from both dev sets", "",
             f"Command: `{info['command']}`", "",
             f"Machine: {info['machine']['platform']}, {info['machine']['cpu_count']} CPUs, "
             f"{info['machine']['utc']}.", "",
             "Inputs (joined on row): " + "; ".join(f"{s}: `{d['scores']}` + `{d['ratings']}` ({d['n_used']} of "
                                                     f"{d['n_rows']} rows used"
                                                     + (f", left out: {d['left_out']}" if d["left_out"] else "")
                                                     + ")" for s, d in info["sets"].items()), "",
             f"Signature of the scores ({sets[0]}): `{info['sets'][sets[0]].get('signature')}`", "",
             "`ev2r_hybrid = " + " + ".join(f"w_{c}*{c}" for c in info["components"]) + "`, weights on the simplex "
             f"in steps of {info['step']:g} ({info['grid_size']} vectors), fitted to Spearman vs semantic_coverage.",
             "", "## Weights", "",
             "| rule | " + " | ".join(info["components"]) + " |", "|---|" + "---|" * len(info["components"])]
    for name, c in t["candidates"].items():
        lines.append(f"| {name} | " + " | ".join(f"{c['weights'][k]:g}" for k in info["components"]) + " |")
    lines += ["", f"**Shipped: maximin** ({info['shipping']['why']}).", ""]
    if info["shipping"].get("gaming_excluded"):
        ex = info["shipping"]["gaming_excluded"]
        lines += [f"Gaming constraint (`{info['shipping']['gaming_inputs']}`): vectors each set/strategy excludes "
                  "(of the grid): " + ", ".join(f"{k} {v}" for k, v in ex.items() if v) + ".", ""]
    lines += ["## Spearman with 95% bootstrap CIs", ""]
    for q in RATINGS:
        lines += [f"### vs {q}", "", "| score | " + " | ".join(f"{s} rows" for s in sets) + " |",
                  "|---|" + "---|" * len(sets)]
        for name, c in t["candidates"].items():
            cells = [f"{fmt(c['sets'][s][q])} ({c['sets'][s]['role']})" for s in sets]
            lines.append(f"| ev2r_hybrid, {name} | " + " | ".join(cells) + " |")
        for b, per in t["baselines"].items():
            lines.append(f"| {b} | " + " | ".join(fmt(per[s][q]) for s in sets) + " |")
        lines += ["", f"Paired bootstrap differences (vs {q}):", "",
                  "| score | " + " | ".join(f"{s}: minus Ev2R | {s}: minus HU-METEOR" for s in sets) + " |",
                  "|---|" + "---|---|" * len(sets)]
        for name, c in t["candidates"].items():
            cells = []
            for s in sets:
                cells += [fmt_diff(c["sets"][s][q]["minus_ev2r"]), fmt_diff(c["sets"][s][q]["minus_hu_meteor"])]
            lines.append(f"| ev2r_hybrid, {name} | " + " | ".join(cells) + " |")
        lines.append("")
    lo = info["loso"]
    lines += ["## Leave-one-set-out", "",
              "| fitted on | weights | in-sample rho | held-out set | held-out rho (semantic_coverage) | "
              "Ev2R there | HU-METEOR there |", "|---|---|---|---|---|---|---|"]
    for s, e in lo.items():
        lines.append(f"| {s} | {e['weights']} | {e['in_sample']:.3f} | {e['held_out_set']} | "
                     f"{fmt(e['held_out'])} | {fmt(e['ev2r_there'])} | {fmt(e['hu_meteor_there'])} |")
    lines += ["", "The shipped vector's in-sample numbers are optimistic (it was chosen on both sets); the "
              "held-out rows estimate what a fit on one set of systems buys on another.", ""]
    return "\n".join(lines)


def run_signature(scores_path) -> Optional[str]:
    """The signature in the run record ``ev2r score -o`` leaves beside its rows (``OUT.ev2r-run.json``),
    or None when there is none."""
    record = Path(str(scores_path) + ".ev2r-run.json")
    try:
        return json.loads(record.read_text(encoding="utf-8")).get("signature")
    except (OSError, json.JSONDecodeError, AttributeError):
        return None


def run(scores: dict, ratings: dict, step: float = 0.1, n_boot: int = 2000, seed: int = 0,
        gaming: Optional[dict] = None, zero: Sequence[str] = (), gated_only: bool = False,
        floors: Sequence[str] = ("ev2r",), reference_free: bool = False) -> dict:
    """Everything the report holds (without command / machine): see the module docstring.

    Args:
        scores, ratings: set name -> path of the ``ev2r score -o`` rows / of the rating file.
        step: grid step (1/step whole). n_boot, seed: bootstrap resamples and their seed.
        gaming: set name -> path of the gaming suite's per-item rows (the constraint), or None.
        zero: components held at weight 0. gated_only: the gaming constraint counts only the strategies the
            CI gate counts (the open ones raise every METEOR-bearing vector: the verifier's part, not the weights').
    """
    sets = {s: load_set(scores[s], ratings[s]) for s in scores}
    for s, d in sets.items():
        if d["n_used"] < 10:
            raise SystemExit(f"{scores[s]}: only {d['n_used']} usable rows (left out: {d['left_out']}); were the "
                             "scores made with the hybrid columns (not --no-hybrid, the ev2r scorer on)?")
    grid = simplex_grid(len(HYBRID_COMPONENTS), step)
    for name in zero:  # components held at weight 0 (e.g. one that costs a model load and breaks bit-identical resume)
        grid = grid[grid[:, list(HYBRID_COMPONENTS).index(name)] == 0.0]
    g_sets = {s: load_gaming(p, zero=zero, gated_only=gated_only) for s, p in (gaming or {}).items()}
    if reference_free:  # rewrites of the reference are meaning-sensitivity tests, reported, not a constraint
        g_sets = {s: {k: v for k, v in d.items() if "reference" not in k} for s, d in g_sets.items()}
    g_count, g_excluded = gaming_violations(grid, g_sets) if gaming else (None, {})
    fits = fit(sets, grid, extra_ok=None if g_count is None else g_count == 0, violations=g_count, floors=floors)
    table = evaluate(sets, grid, fits, n_boot, seed)
    names = list(sets)
    loso = {}
    for s in names:
        other = [o for o in names if o != s][0]
        g = fits["per_set"][s]
        cand = table["candidates"][f"fit on {s} only"]
        loso[s] = {"weights": weights_dict(grid[g]), "in_sample": float(fits["rho"][s][g]), "held_out_set": other,
                   "held_out": cand["sets"][other]["semantic_coverage"],
                   "held_out_verdict_agreement": cand["sets"][other]["verdict_agreement"],
                   "ev2r_there": table["baselines"]["ev2r"][other]["semantic_coverage"],
                   "hu_meteor_there": table["baselines"]["hu_meteor"][other]["semantic_coverage"]}
    g = fits["maximin"]
    sig = {s: run_signature(scores[s]) for s in names}
    return {
        "components": list(HYBRID_COMPONENTS), "step": step, "grid_size": int(len(grid)), "n_boot": n_boot,
        "held_at_zero": list(zero), "floors": list(floors), "gaming_reference_free_only": reference_free,
        "seed": seed, "objective": "Spearman vs semantic_coverage",
        "sets": {s: {"scores": bl.display_path(scores[s]), "ratings": bl.display_path(ratings[s]), "n_rows": d["n_rows"],
                     "n_used": d["n_used"], "left_out": d["left_out"], "signature": sig[s]}
                 for s, d in sets.items()},
        "shipping": {"rule": "maximin", "weights": weights_dict(grid[g]), "weights_list": [float(v) for v in grid[g]],
                     "min_in_sample_rho": float(np.nanmin([fits["rho"][s][g] for s in names])),
                     "why": f"among the grid points at least as good as {' and '.join(floors)} on both dev sets and both ratings "
                            f"({fits['feasible_two_set']} of {len(grid)})"
                            + ((f" and gaining nothing from any gaming strategy on either set ({fits['feasible_gaming']}; "
                                f"both: {fits['feasible']})" if fits.get("fewest_violations") is None else
                                f" and gaining from the fewest gaming set/strategy pairs that any of them allows "
                                f"({fits['fewest_violations']}: none resists every strategy; {fits['feasible']} points)")
                               if gaming else "")
                            + ", the one whose worse dev set is best on "
                            "semantic coverage: the two-set rule (a win on one set and a loss on the other is no "
                            "win) as an objective; the pooled fit is reported, not shipped, since one Spearman over "
                            "both sets mixes two rating populations and follows the larger",
                     "feasible": fits["feasible"], "feasible_two_set": fits["feasible_two_set"],
                     "feasible_gaming": fits["feasible_gaming"], "fewest_violations": fits.get("fewest_violations"),
                     "violations_of_shipped": None if g_count is None else int(g_count[g]),
                     "gaming_excluded": dict(sorted(g_excluded.items(), key=lambda kv: -kv[1])),
                     "gaming_inputs": {s: bl.display_path(p) for s, p in (gaming or {}).items()},
                     "config_weights_when_run": [float(v) for v in HYBRID_WEIGHTS]},
        "pooled": {"weights": weights_dict(grid[fits["pooled"]]), "rho": float(fits["rho_pooled"][fits["pooled"]])},
        "loso": loso, "table": table,
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scores-86", required=True, help="`ev2r score -o` rows of the 86-row rating file")
    p.add_argument("--scores-144", required=True, help="`ev2r score -o` rows of the 144-row rating file")
    p.add_argument("--ratings-86", default=str(DEFAULT_RATINGS["86"]))
    p.add_argument("--ratings-144", default=str(DEFAULT_RATINGS["144"]))
    p.add_argument("--step", type=float, default=0.1, help="grid step on the weight simplex (default 0.1)")
    p.add_argument("--boot", type=int, default=2000, help="bootstrap resamples (default 2000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=str(bl.RESULTS / "combination"), help="output prefix (.md and .json)")
    p.add_argument("--gaming", action="append", default=None, metavar="SET=PATH",
                   help="per-item rows of benchmarks/robustness/gaming.py for a set (86 or 144): the weights must gain nothing "
                        "from any strategy there; repeat for both sets")
    p.add_argument("--gaming-gated-only", action="store_true",
                   help="with --gaming: only the strategies the CI gate counts (not adversarial.perturbations.GAMING_OPEN)")
    p.add_argument("--zero", action="append", default=[], choices=HYBRID_COMPONENTS,
                   help="hold this component's weight at 0 (repeatable)")
    p.add_argument("--gaming-reference-free", action="store_true",
                   help="with --gaming: only the strategies a system can play without the reference (the "
                        "reference's rewrites are meaning-sensitivity tests, reported in the gaming tables)")
    p.add_argument("--floor", action="append", default=None, choices=("ev2r", "hu_meteor"),
                   help="a score the fit must match on both sets and both ratings (repeatable; default ev2r)")
    args = p.parse_args(argv)
    gaming = None
    if args.gaming:
        gaming = {}
        for spec in args.gaming:
            name, _, path = spec.partition("=")
            if name not in SET_NAMES or not path:
                p.error(f"--gaming: expected SET=PATH with SET one of {SET_NAMES}, got {spec!r}")
            gaming[name] = path
    info = run({"86": args.scores_86, "144": args.scores_144}, {"86": args.ratings_86, "144": args.ratings_144},
               step=args.step, n_boot=args.boot, seed=args.seed, gaming=gaming, zero=args.zero,
               gated_only=args.gaming_gated_only, floors=tuple(args.floor or ("ev2r",)),
               reference_free=args.gaming_reference_free)
    info = {"command": bl.command(), "machine": bl.machine(), **info}
    bl.write(Path(args.out), markdown(info), info)
    ship = info["shipping"]
    print(f"shipping weights (maximin): {ship['weights']}  min in-sample rho {ship['min_in_sample_rho']:.3f}")
    if ship["weights_list"] != ship["config_weights_when_run"]:
        print(f"note: ev2r.config.HYBRID_WEIGHTS is {tuple(ship['config_weights_when_run'])}; set it to "
              f"{tuple(ship['weights_list'])} (and rescore) to ship this fit", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
