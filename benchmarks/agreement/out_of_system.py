"""Choosing the headline out of sample: every choice made on ratings remade without each rated system.

    python benchmarks/agreement/score_with.py hybrid_columns=all -- ../shared/data/ev2r_human_eval/averitec_manual_eval_subset.jsonl \
        -o S86.jsonl --json --scorer ev2r --scorer hu-meteor
    python benchmarks/agreement/score_with.py hybrid_columns=all -- ../shared/data/ev2r_human_eval/averitec_shared_task_dev.jsonl \
        -o S144.jsonl --json --scorer ev2r --scorer hu-meteor
    python benchmarks/agreement/out_of_system.py --scores-86 S86.jsonl --scores-144 S144.jsonl \
        --decision benchmarks/results/out_of_system_decision.md

The score rows of the committed table are ``benchmarks/results/out_of_system_scores/`` (the columns this script
reads, with each run's signature).

The protocol is ``../shared/design/OUT_OF_SAMPLE.md``. The development ratings hold **8 rated systems**: the
AVeriTeC baseline (the 86 rows of ``averitec_manual_eval_subset.jsonl``, two annotators' mean) and the 7 teams of
``averitec_shared_task_dev.jsonl`` (144 rows, one annotator, field ``team``). Both rate ``semantic_coverage``
(1-5) and ``verdict_agreement`` (0/1).

**The candidate family, declared before it was measured** (:data:`CANDIDATES`). Every candidate is a weighted sum
of per-item columns that ``ev2r score --scorer ev2r --scorer hu-meteor`` writes with every component column
(``benchmarks/agreement/score_with.py hybrid_columns=all``); a fixed
candidate has one weight vector (nothing fitted on ratings, scored as it is), a fitted one a grid:

* fixed: ``ev2r`` (the paper's 0.5 F1 + 0.5 proxy, alpha fixed by the paper), ``hu_meteor`` (the AVeriTeC
  baseline), ``hybrid_meteor`` (HU-METEOR over the admitted pairs), ``verified_meteor``, the plain means of
  ``ev2r`` with each of those two METEORs (0.5 / 0.5, fixed before measuring), and ``ev2r-hybrid/4`` as shipped
  (its 7 weights were fitted on all 8 systems: it is in-sample on every row, listed for reference, never a
  held-out figure);
* one constant fitted: ``(1 - b) ev2r + b hybrid_meteor`` and ``(1 - b) ev2r + b verified_meteor``, b in 0, 0.05,
  ..., 1;
* two constants fitted: ``a F1 + c proxy + (1 - a - c) hybrid_meteor``, (a, c) on the simplex in steps of 0.05;
* six constants fitted: **the refit that made ``ev2r-hybrid/4``**, remade in each fold: the 7 hybrid components
  (:data:`ev2r.config.HYBRID_COMPONENTS`) on the simplex in steps of 0.1 (8,008 vectors; 1.2.0 used 0.05), among the
  vectors at least as good as Ev2R and HU-METEOR on every training file and both ratings the one whose worse
  training file is best on semantic coverage (unconstrained when none qualifies).

**The choice inside a fold** (the same rule on any set of systems): for the one- and two-constant families, the
grid point that maximises the smaller, over the two ratings, of the mean over the training files of the Spearman
on that file's training rows (files are kept apart: their annotation differs); ties go to the first point in grid
order. The choice is made among the grid points that gain from no gated gaming strategy on the committed per-item
rows of the full suite (``benchmarks/results/gaming_86_per_item.jsonl.gz``, ``gaming_144_per_item.jsonl.gz``; the suite's
``no_gain_over_original`` rule, as ``benchmarks/agreement/combination.py`` applies it). When no point of a candidate's grid is
free of gains, the points that gain from the fewest set/strategy pairs stand in for them (:func:`allowed_points`,
as ``combination.py``'s ``fit`` does): the choice is still made and reported, the table's ``gaming gains`` column
counts the pairs, and such a candidate cannot qualify under the decision rule below (0 is required of a default).
The gaming rows are data other than the ratings, so this mask is applied outside the loop (it reads the evidence
of every system's rows, none of their ratings).

**The loop**: for each system k of the 8, the choice is made on the other 7 and scored on k's rows. Reported:

* out of system: Spearman over the 144 team rows, each team's rows scored by the choice made without that team
  (pooled), and over the 86 baseline rows scored by the choice made on the 144; the mean of the 7 within-team
  Spearmans (free of the folds' scale differences, noisier: about 20 rows a team);
* in sample: the choice made on all 8 systems, scored on the same rows: the gap to the out-of-system figure is
  the size of the overfit;
* paired bootstrap (rows resampled within a file, 2,000, seed 0) of the out-of-system Spearman minus HU-METEOR's
  and minus ``ev2r-hybrid/4``'s (as shipped, i.e. in-sample for it) on the same rows;
* beside it, the **system-level (cluster) bootstrap** of the same differences on the 144 rows
  (:func:`cluster_bootstrap`, 2,000, seed 0): the 7 teams drawn with replacement, then each drawn team's rows drawn
  with replacement; and the teams drawn with their rows kept. The choice is made per system, so the rows of one
  system are not independent draws and the row intervals are too narrow. The 86 rows are one system: drawing it and
  then its rows is the row bootstrap, so their row interval stands;
* system level: the 8 systems' mean out-of-system scores against their mean ratings, pairwise ranking accuracy
  (a tie on either side counts half) and Kendall's tau-b (scipy); the 86 rows' ratings are a two-annotator mean,
  the 144's one annotator's, so the baseline's place among the teams is read with care;
* each fold's choice (a stable family chooses the same point in every fold).

**The decision rule, declared with the family**: a candidate may replace the default only when its out-of-system
Spearman is at least HU-METEOR's and at least the ``ev2r-hybrid/4`` refit's (remade in the loop) on both rating
files and both ratings; among those, the one with the best worse of the four figures. A candidate whose in-sample
choice gains from a gated gaming strategy (possible only when its grid has no gain-free point) does not qualify.
Nothing qualifying, the default is kept or the most stable candidate named, and the table says which and why. How
*most stable* reads was made precise after the first run had shown that nothing qualifies: a candidate with no
constant fitted on ratings (its in-sample and out-of-system figures are the same numbers) that gains from no gated
gaming strategy, the best worse-of-four figure among those. The table lists every such candidate, and the decision
(``--decision FILE.md``, pasted into the table; ``benchmarks/results/out_of_system_decision.md``) says what the
release did with them.

What this loop does not remake: the admission stage's and the fact rules' own constants that earlier releases
chose while looking at these ratings (they are fixed in the columns read here; remaking them needs a rescoring per
fold). Writes ``--out`` (default ``benchmarks/results/out_of_system``) ``.md`` and ``.json`` with the command and
the machine.
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
from combination import gaming_violations, load_gaming  # noqa: E402

from ev2r.config import HYBRID_COMPONENTS  # noqa: E402

RATINGS = ("semantic_coverage", "verdict_agreement")
FILES = ("86", "144")
DEFAULT_RATINGS = {"86": bl.DATA / "ev2r_human_eval" / "averitec_manual_eval_subset.jsonl",
                   "144": bl.DATA / "ev2r_human_eval" / "averitec_shared_task_dev.jsonl"}
DEFAULT_GAMING = {"86": bl.RESULTS / "gaming_86_per_item.jsonl.gz", "144": bl.RESULTS / "gaming_144_per_item.jsonl.gz"}
BASELINE_SYSTEM = "AVeriTeC baseline (86 rows)"
N_BOOT = 2000
SEED = 0


def simplex(k: int, step: float) -> np.ndarray:
    """Every weight vector of ``k`` components in multiples of ``step`` summing to 1, lexicographic order of the
    integer counts; shape (C(m + k - 1, k - 1), k) with m = round(1 / step)."""
    m = round(1.0 / step)
    rows = [c for c in itertools.product(range(m + 1), repeat=k) if sum(c) == m]
    return np.array(rows, dtype=np.float64) / m


def _line(b_step: float = 0.05) -> np.ndarray:
    b = np.round(np.arange(0.0, 1.0 + 1e-9, b_step), 10)
    return np.stack([1.0 - b, b], axis=1)


#: The declared candidate family: name -> (columns, weight grid (G, k), fitted constants, selection rule).
#: ``rule``: "fixed" (one vector), "maximin" (one and two constants; module docstring), "refit4" (the
#: ``ev2r-hybrid/4`` refit rule).
CANDIDATES: dict = {
    "ev2r (paper, alpha 0.5)": (("ev2r",), np.ones((1, 1)), 0, "fixed"),
    "hu_meteor (AVeriTeC baseline)": (("hu_meteor",), np.ones((1, 1)), 0, "fixed"),
    "hybrid_meteor": (("hybrid_meteor",), np.ones((1, 1)), 0, "fixed"),
    "verified_meteor": (("verified_meteor",), np.ones((1, 1)), 0, "fixed"),
    "mean(ev2r, hybrid_meteor)": (("ev2r", "hybrid_meteor"), np.array([[0.5, 0.5]]), 0, "fixed"),
    "mean(ev2r, verified_meteor)": (("ev2r", "verified_meteor"), np.array([[0.5, 0.5]]), 0, "fixed"),
    "ev2r-hybrid/4 as shipped (fitted on all 8)": (("ev2r_hybrid",), np.ones((1, 1)), 7, "fixed"),
    "(1-b) ev2r + b hybrid_meteor": (("ev2r", "hybrid_meteor"), _line(), 1, "maximin"),
    "(1-b) ev2r + b verified_meteor": (("ev2r", "verified_meteor"), _line(), 1, "maximin"),
    "a f1 + c proxy + (1-a-c) hybrid_meteor": (("f1", "proxy", "hybrid_meteor"), simplex(3, 0.05), 2, "maximin"),
    "ev2r-hybrid/4 refit, remade per fold": (tuple(HYBRID_COMPONENTS), simplex(len(HYBRID_COMPONENTS), 0.1), 6,
                                             "refit4"),
}
DEFAULT_NAME = "ev2r-hybrid/4 as shipped (fitted on all 8)"
DEFAULT_REFIT = "ev2r-hybrid/4 refit, remade per fold"
HU_NAME = "hu_meteor (AVeriTeC baseline)"
NEEDED = sorted({c for cols, *_ in CANDIDATES.values() for c in cols})


# -- data ---------------------------------------------------------------------------------------------------------
def load_file(scores_path, ratings_path, system_of) -> dict:
    """One rating file joined to its ``ev2r score -o`` rows on ``row`` (ids checked): ``{"cols": {name: (n,)},
    "ratings": {rating: (n,)}, "system": [str] * n, "left_out": {reason: count}}`` over the rows that are ok and
    have every needed column and both ratings.

    Raises:
        SystemExit: a score row without ``row``, a rating row without scores, or ids that differ (naming both
            files and the row).
    """
    scores = {r["row"]: r for r in bl.read_jsonl(scores_path) if "row" in r}
    ratings = bl.read_jsonl(ratings_path)
    cols: dict = {c: [] for c in NEEDED}
    rat: dict = {q: [] for q in RATINGS}
    system, left_out = [], {}
    for n, h in enumerate(ratings):
        r = scores.get(n)
        if r is None:
            raise SystemExit(f"{scores_path}: no row {n} of {ratings_path} (score the whole rating file)")
        if h.get("id") is not None and str(r.get("id")) != str(h.get("id")):
            raise SystemExit(f"{scores_path} row {n}: id {r.get('id')!r}, but {ratings_path} row {n} has "
                             f"{h.get('id')!r}")
        hr = h.get("human_ratings") or {}
        missing = [c for c in NEEDED if r.get(c) is None] + [q for q in RATINGS if hr.get(q) is None]
        if r.get("status") != "ok" or missing:
            key = f"status {r.get('status')}" if r.get("status") != "ok" else "missing " + ",".join(missing)
            left_out[key] = left_out.get(key, 0) + 1
            continue
        for c in NEEDED:
            cols[c].append(float(r[c]))
        for q in RATINGS:
            rat[q].append(float(hr[q]))
        system.append(system_of(h))
    return {"cols": {c: np.array(v) for c, v in cols.items()}, "ratings": {q: np.array(v) for q, v in rat.items()},
            "system": np.array(system), "left_out": left_out}


# -- statistics ---------------------------------------------------------------------------------------------------
def spearman_columns(S: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho of every column of ``S`` (n, G) with ``y`` (n,): Pearson of average ranks (ties averaged, as
    scipy's ``spearmanr``); NaN where a side is constant or n < 3."""
    n = len(y)
    out = np.full(S.shape[1], np.nan)
    if n < 3 or np.all(y == y[0]):
        return out
    ry = stats.rankdata(y)
    ry = (ry - ry.mean()) / np.linalg.norm(ry - ry.mean())
    R = stats.rankdata(S, axis=0)
    R = R - R.mean(axis=0)
    norm = np.linalg.norm(R, axis=0)
    ok = norm > 1e-12
    out[ok] = ry @ (R[:, ok] / norm[ok])
    return out


def rho(x: np.ndarray, y: np.ndarray) -> Optional[float]:
    """Spearman's rho (scipy), None when a side is constant or n < 3."""
    if len(x) < 3 or np.all(x == x[0]) or np.all(y == y[0]):
        return None
    return float(stats.spearmanr(x, y)[0])


def pairwise_accuracy(a: Sequence[float], b: Sequence[float]) -> float:
    """Share of pairs of systems that ``a`` orders as ``b`` does (a tie on either side counts half)."""
    agree, pairs = 0.0, 0
    for i, j in itertools.combinations(range(len(a)), 2):
        pairs += 1
        da, db = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])
        agree += 0.5 if da == 0 or db == 0 else float(da == db)
    return agree / pairs if pairs else float("nan")


def cluster_bootstrap(system: np.ndarray, n_boot: int, rng: np.random.Generator, rows: bool = True) -> list:
    """Row indices of ``n_boot`` system-level (cluster) bootstrap samples: each draws as many systems as ``system``
    (n,) names, with replacement (uniformly, in sorted order of the names: one ``rng.integers`` call of shape
    (n_boot, K) for all samples), then, with ``rows``, each drawn system's rows with replacement (as many as it has;
    without ``rows`` they are kept whole). A system drawn twice comes twice. With one row per system and the names
    sorted in row order, the indices are the row bootstrap's ``rng.integers(0, n, (n_boot, n))`` itself."""
    names = np.unique(system)
    members = [np.flatnonzero(system == s) for s in names]
    picks = rng.integers(0, len(names), size=(n_boot, len(names)))
    out = []
    for p in picks:
        parts = [members[c] for c in p]
        if rows:
            parts = [m[rng.integers(0, len(m), size=len(m))] for m in parts]
        out.append(np.concatenate(parts))
    return out


def ci_of(diffs: np.ndarray) -> Optional[list]:
    """The 95% percentile interval of the finite values of ``diffs``, None when there is none."""
    d = diffs[np.isfinite(diffs)]
    return [float(np.percentile(d, 2.5)), float(np.percentile(d, 97.5))] if len(d) else None


# -- the choice ---------------------------------------------------------------------------------------------------
def allowed_points(count: np.ndarray) -> np.ndarray:
    """The grid points a candidate may choose among, from ``count`` (G,), the gaming set/strategy pairs each point
    gains from: the gain-free ones; when there is none, those gaining from the fewest pairs (module docstring; as
    ``combination.fit``)."""
    return count == 0 if (count == 0).any() else count == count.min()


def choose(name: str, train: list, allowed: np.ndarray, floors: dict) -> int:
    """The grid index family ``name`` chooses on ``train`` (a list of (S (n, G), {rating: y})) per training file;
    ``allowed`` (G,) masks the gaming-clean points; ``floors``: per training file and rating, the Spearman the
    ``refit4`` rule must reach (max of Ev2R's and HU-METEOR's on the same rows)."""
    _cols, grid, _k, rule = CANDIDATES[name]
    if rule == "fixed" or len(grid) == 1:
        return 0
    per = {q: np.vstack([spearman_columns(S, y[q]) for S, y in train]) for q in RATINGS}  # (files, G)
    if rule == "maximin":
        obj = np.min(np.vstack([np.nanmean(per[q], axis=0) for q in RATINGS]), axis=0)
    else:  # refit4
        ok = np.ones(len(grid), dtype=bool)
        for f in range(len(train)):
            for q in RATINGS:
                ok &= np.nan_to_num(per[q][f], nan=-2.0) >= floors[f][q] - 1e-12
        obj = np.nanmin(per["semantic_coverage"], axis=0)
        if (ok & allowed).any():
            obj = np.where(ok, obj, -np.inf)
    obj = np.where(allowed, np.nan_to_num(obj, nan=-np.inf), -np.inf)
    return int(np.argmax(obj))


def matrix(name: str, d: dict) -> np.ndarray:
    """Scores (n, G) of every grid point of candidate ``name`` on file ``d``."""
    cols, grid, *_ = CANDIDATES[name]
    X = np.stack([d["cols"][c] for c in cols], axis=1)
    return X @ grid.T


def train_on(S: dict, files: dict, mask_of: dict) -> list:
    """The training data of a fold: per file with training rows, (scores (n, G) of those rows, {rating: (n,)})."""
    return [(S[f][mask_of[f]], {q: files[f]["ratings"][q][mask_of[f]] for q in RATINGS})
            for f in FILES if mask_of[f].any()]


def floors_of(files: dict, mask_of: dict) -> list:
    """Per training file and rating, the larger of Ev2R's and HU-METEOR's Spearman on the fold's training rows (the
    ``refit4`` rule's floor; -1 where undefined)."""
    fl = []
    for f in FILES:
        m = mask_of[f]
        if not m.any():
            continue
        fl.append({q: max(rho(files[f]["cols"][b][m], files[f]["ratings"][q][m]) or -1.0 for b in ("ev2r", "hu_meteor"))
                   for q in RATINGS})
    return fl


def run(files: dict, gaming: dict) -> dict:
    """The whole loop (module docstring). ``files``: {"86": load_file(...), "144": load_file(...)}; ``gaming``:
    {set: {strategy: (base, gamed)}} per candidate's columns is built here from ``gaming`` paths."""
    systems = [(f, s) for f in FILES for s in sorted(set(files[f]["system"]))]
    out: dict = {"systems": [s for _, s in systems], "candidates": {}}
    for name, (cols, grid, n_fit, rule) in CANDIDATES.items():
        g = {k: load_gaming(p, components=cols, gated_only=True) for k, p in gaming.items()}
        count, _excl = gaming_violations(grid, g)
        allowed = allowed_points(count)
        S = {f: matrix(name, files[f]) for f in FILES}

        oos = {f: np.full(len(files[f]["system"]), np.nan) for f in FILES}
        folds = {}
        for f, s in systems:
            mask_of = {h: files[h]["system"] != s if h == f else np.ones(len(files[h]["system"]), dtype=bool)
                       for h in FILES}
            # the 86 rows are one system: its fold trains on the 144 only
            idx = choose(name, train_on(S, files, mask_of), allowed, floors_of(files, mask_of))
            folds[s] = [float(w) for w in grid[idx]]
            held = files[f]["system"] == s
            oos[f][held] = S[f][held, idx]
        all_mask = {h: np.ones(len(files[h]["system"]), dtype=bool) for h in FILES}
        idx_all = choose(name, train_on(S, files, all_mask), allowed, floors_of(files, all_mask))
        ins = {f: S[f][:, idx_all] for f in FILES}
        out["candidates"][name] = {"columns": list(cols), "fitted_constants": n_fit, "rule": rule,
                                   "gaming_violations": int(count[idx_all]),
                                   "grid_points": len(grid), "gaming_clean_points": int((count == 0).sum()),
                                   "in_sample_choice": [float(w) for w in grid[idx_all]], "fold_choices": folds,
                                   "oos": oos, "ins": ins}
    return out


def summarise(files: dict, res: dict) -> dict:
    """Spearmans, bootstrap differences and system-level figures of every candidate (module docstring)."""
    rng = np.random.default_rng(SEED)
    boot = {f: rng.integers(0, len(files[f]["system"]), size=(N_BOOT, len(files[f]["system"]))) for f in FILES}
    summary = {}
    ref = {"HU-METEOR": res["candidates"][HU_NAME]["oos"], "ev2r-hybrid/4": res["candidates"][DEFAULT_NAME]["oos"]}
    for name, c in res["candidates"].items():
        row: dict = {}
        for f in FILES:
            for q in RATINGS:
                y = files[f]["ratings"][q]
                row[f"oos/{f}/{q}"] = rho(c["oos"][f], y)
                row[f"ins/{f}/{q}"] = rho(c["ins"][f], y)
                for rname, rv in ref.items():
                    diffs = []
                    for b in boot[f]:
                        a1, a2 = rho(c["oos"][f][b], y[b]), rho(rv[f][b], y[b])
                        if a1 is not None and a2 is not None:
                            diffs.append(a1 - a2)
                    a1, a2 = rho(c["oos"][f], y), rho(rv[f], y)
                    row[f"diff/{rname}/{f}/{q}"] = {
                        "diff": None if a1 is None or a2 is None else a1 - a2,
                        "ci95": [float(np.percentile(diffs, 2.5)), float(np.percentile(diffs, 97.5))] if diffs
                        else None}
            if f == "144":
                for q in RATINGS:
                    within = [rho(c["oos"][f][files[f]["system"] == s], files[f]["ratings"][q][files[f]["system"] == s])
                              for s in sorted(set(files[f]["system"]))]
                    within = [w for w in within if w is not None]
                    row[f"within/{q}"] = float(np.mean(within)) if within else None
        # system level: 8 systems' means
        means, hum = [], {q: [] for q in RATINGS}
        for f in FILES:
            for s in sorted(set(files[f]["system"])):
                m = files[f]["system"] == s
                means.append(float(np.mean(c["oos"][f][m])))
                for q in RATINGS:
                    hum[q].append(float(np.mean(files[f]["ratings"][q][m])))
        for q in RATINGS:
            row[f"system/pairwise/{q}"] = pairwise_accuracy(means, hum[q])
            row[f"system/kendall/{q}"] = float(stats.kendalltau(means, hum[q]).statistic)
        row["system_means"] = means
        summary[name] = row
    cluster_differences(files, res, summary)
    return summary


def cluster_differences(files: dict, res: dict, summary: dict, f: str = "144") -> None:
    """The system-level bootstrap of every candidate's out-of-system Spearman minus HU-METEOR's and minus
    ``ev2r-hybrid/4``'s on file ``f``'s rows (module docstring), added to ``summary`` as
    ``diff_systems/<ref>/<f>/<rating>``: ``{"diff", "ci95_systems_rows", "ci95_systems"}`` (the teams drawn, then
    their rows; the teams drawn with their rows kept). Each way draws from its own generator seeded :data:`SEED`."""
    names = list(res["candidates"])
    M = np.stack([res["candidates"][n]["oos"][f] for n in names], axis=1)  # (n, candidates)
    refs = {"HU-METEOR": names.index(HU_NAME), "ev2r-hybrid/4": names.index(DEFAULT_NAME)}
    for way, rows in (("systems_rows", True), ("systems", False)):
        samples = cluster_bootstrap(files[f]["system"], N_BOOT, np.random.default_rng(SEED), rows=rows)
        for q in RATINGS:
            y = files[f]["ratings"][q]
            R = np.array([spearman_columns(M[i], y[i]) for i in samples])  # (N_BOOT, candidates)
            for rname, j in refs.items():
                for c, n in enumerate(names):
                    cell = summary[n].setdefault(f"diff_systems/{rname}/{f}/{q}",
                                                 {"diff": summary[n][f"diff/{rname}/{f}/{q}"]["diff"]})
                    cell[f"ci95_{way}"] = ci_of(R[:, c] - R[:, j])


def qualifies(row: dict, hu: dict, refit: dict) -> bool:
    """The declared decision rule: out-of-system Spearman >= HU-METEOR's and >= the /4 refit's on both files and
    both ratings."""
    for f in FILES:
        for q in RATINGS:
            k = f"oos/{f}/{q}"
            if row[k] is None or row[k] < (hu[k] or -1) - 1e-12 or row[k] < (refit[k] or -1) - 1e-12:
                return False
    return True


def _f(v, nd: int = 3) -> str:
    return "n/a" if v is None or (isinstance(v, float) and np.isnan(v)) else f"{v:+.{nd}f}"


def _ci(d: dict) -> str:
    if d["diff"] is None or d["ci95"] is None:
        return "n/a"
    return f"{d['diff']:+.3f} [{d['ci95'][0]:+.3f}, {d['ci95'][1]:+.3f}]"


def widths(summary: dict, f: str = "144") -> dict:
    """Over the cells of file ``f`` whose row interval is not a point (a candidate against itself), how many the
    system-level intervals make wider than the row interval, for each way."""
    out = {"cells": 0, "systems_rows": 0, "systems": 0}
    for r in summary.values():
        for ref in ("HU-METEOR", "ev2r-hybrid/4"):
            for q in RATINGS:
                row, sys_ = r[f"diff/{ref}/{f}/{q}"]["ci95"], r[f"diff_systems/{ref}/{f}/{q}"]
                if row is None or row[1] - row[0] < 1e-12:
                    continue
                out["cells"] += 1
                for way in ("systems_rows", "systems"):
                    ci = sys_[f"ci95_{way}"]
                    out[way] += ci is not None and ci[1] - ci[0] > row[1] - row[0]
    return out


def _ci_only(ci: Optional[list]) -> str:
    return "n/a" if ci is None else f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"


def render(files: dict, res: dict, summary: dict, info: dict, decision: str = "") -> tuple[str, dict]:
    """The Markdown table and the JSON payload."""
    names = list(res["candidates"])
    hu, refit = summary[HU_NAME], summary[DEFAULT_REFIT]
    winners = [n for n in names if n not in (DEFAULT_NAME,) and qualifies(summary[n], hu, refit)
               and res["candidates"][n]["fitted_constants"] <= 2 and res["candidates"][n]["gaming_violations"] == 0]

    def worst(n):
        return min(summary[n][f"oos/{f}/{q}"] or -1 for f in FILES for q in RATINGS)

    winner = max(winners, key=worst) if winners else None
    stable = [n for n in names if res["candidates"][n]["fitted_constants"] == 0
              and res["candidates"][n]["gaming_violations"] == 0]
    most_stable = max(stable, key=worst) if stable else None
    lines = [bl.header("Out of system: every choice made on ratings remade without each rated system",
                       info), "",
             f"Rows: 86 file {len(files['86']['system'])} used, 144 file {len(files['144']['system'])} used; left out: "
             f"86 {files['86']['left_out'] or 'none'}, 144 {files['144']['left_out'] or 'none'}. Systems: "
             + ", ".join(res["systems"]) + ".", "",
             "The candidate family, the rule that chooses within it and the rule that decides were declared before "
             "measuring (benchmarks/agreement/out_of_system.py's docstring). `oos`: each row scored by the choice made without its "
             "system; `ins`: the choice made on all 8 systems. Spearman with semantic coverage (cov) and verdict "
             "agreement (ver).", "",
             "## Row level", "",
             "| candidate | fitted | gaming gains | 144 oos cov | 144 oos ver | 144 within-team cov / ver | 86 oos cov "
             "| 86 oos ver | 144 ins cov | 144 ins ver | 86 ins cov | 86 ins ver |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for n in names:
        r = summary[n]
        lines.append(f"| {n} | {res['candidates'][n]['fitted_constants']} | "
                     f"{res['candidates'][n]['gaming_violations']} | {_f(r['oos/144/semantic_coverage'])} | "
                     f"{_f(r['oos/144/verdict_agreement'])} | {_f(r['within/semantic_coverage'])} / "
                     f"{_f(r['within/verdict_agreement'])} | {_f(r['oos/86/semantic_coverage'])} | "
                     f"{_f(r['oos/86/verdict_agreement'])} | {_f(r['ins/144/semantic_coverage'])} | "
                     f"{_f(r['ins/144/verdict_agreement'])} | {_f(r['ins/86/semantic_coverage'])} | "
                     f"{_f(r['ins/86/verdict_agreement'])} |")
    lines += ["", "`ev2r-hybrid/4 as shipped` was fitted on all 8 systems: its `oos` columns are in-sample figures "
              "(optimistic for it); its fair out-of-system figure is the refit remade per fold.", "",
              "## Paired differences (out of system, rows resampled, 2,000, seed 0; diff [95% CI])", "",
              "| candidate | vs HU-METEOR 144 cov | 144 ver | 86 cov | 86 ver | vs ev2r-hybrid/4 144 cov | 144 ver | "
              "86 cov | 86 ver |", "|---|---|---|---|---|---|---|---|---|"]
    for n in names:
        r = summary[n]
        cells = [_ci(r[f"diff/{ref}/{f}/{q}"]) for ref in ("HU-METEOR", "ev2r-hybrid/4") for f in ("144", "86")
                 for q in RATINGS]
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    lines += ["", f"## Paired differences, systems resampled (144 rows; {N_BOOT:,}, seed {SEED}; 95% CI)", "",
              "The choice is made per system, so one system's rows are not independent draws. Here the 7 teams are "
              "drawn with replacement, then each drawn team's rows (`teams, rows`), or the teams with their rows "
              "kept (`teams`); the differences are those of the table above. The 86 rows are one system: drawing "
              "it, then its rows, is the row bootstrap above.", "",
              "| candidate | vs HU-METEOR 144 cov: teams, rows | teams | 144 ver: teams, rows | teams | vs "
              "ev2r-hybrid/4 144 cov: teams, rows | teams | 144 ver: teams, rows | teams |",
              "|---|---|---|---|---|---|---|---|---|"]
    for n in names:
        cells = [_ci_only(summary[n][f"diff_systems/{ref}/144/{q}"][f"ci95_{way}"])
                 for ref in ("HU-METEOR", "ev2r-hybrid/4") for q in RATINGS for way in ("systems_rows", "systems")]
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    w = widths(summary)
    lines += ["", f"Against the row interval, over the {w['cells']} cells that are not a candidate against itself: "
              f"`teams, rows` is wider in {w['systems_rows']}, `teams` in {w['systems']}. With 7 teams, drawing the "
              "teams alone can be narrower than drawing rows; `teams, rows` is the interval to read for a choice made "
              "per system."]
    lines += ["", "## System level (8 systems, out-of-system means against mean ratings)", "",
              "| candidate | pairwise accuracy cov | Kendall tau cov | pairwise accuracy ver | Kendall tau ver |",
              "|---|---|---|---|---|"]
    for n in names:
        r = summary[n]
        lines.append(f"| {n} | {r['system/pairwise/semantic_coverage']:.2f} | "
                     f"{_f(r['system/kendall/semantic_coverage'], 2)} | {r['system/pairwise/verdict_agreement']:.2f} | "
                     f"{_f(r['system/kendall/verdict_agreement'], 2)} |")
    lines += ["", "## Each fold's choice (weights in the candidate's column order)", "",
              "| candidate | columns | gaming-clean grid points | in-sample choice | fold choices (held-out system: "
              "weights) |", "|---|---|---|---|---|"]
    for n in names:
        c = res["candidates"][n]
        if c["rule"] == "fixed":
            continue
        folds = "; ".join(f"{s}: {', '.join(f'{w:g}' for w in v)}" for s, v in c["fold_choices"].items())
        lines.append(f"| {n} | {', '.join(c['columns'])} | {c['gaming_clean_points']} of {c['grid_points']} | "
                     f"{', '.join(f'{w:g}' for w in c['in_sample_choice'])} | {folds} |")
    lines += ["", "## Decision", ""]
    if winner:
        lines.append(f"Qualifying under the declared rule (out-of-system Spearman >= HU-METEOR's and >= the "
                     f"ev2r-hybrid/4 refit's on both files and both ratings, at most two fitted constants, no gated "
                     f"gaming gain): "
                     f"{', '.join(winners)}. Best worse-of-four: **{winner}**.")
    else:
        lines.append("No candidate qualifies under the declared rule (out-of-system Spearman >= HU-METEOR's and >= "
                     "the ev2r-hybrid/4 refit's on both files and both ratings, at most two fitted constants, no "
                     "gated gaming gain).")
    lines += ["", "Most stable (no constant fitted on ratings, no gated gaming gain; best worse-of-four out-of-system "
              "figure): " + (f"**{most_stable}** (worse of four {worst(most_stable):+.3f}); the others: "
                             + ", ".join(f"{n} {worst(n):+.3f}" for n in stable if n != most_stable)
                             if most_stable else "none"),
              "", "`gaming gains`: the set/strategy pairs of the full gaming suite's committed per-item rows "
              "(gated strategies, both development sets) that the candidate's in-sample choice gains from (the "
              "suite's no_gain_over_original rule); 0 is required of a default."]
    if decision:
        lines += ["", decision]
    data = {"command": info["command"], "machine": info["machine"], "systems": res["systems"],
            "left_out": {f: files[f]["left_out"] for f in FILES},
            "candidates": {n: {k: v for k, v in c.items() if k not in ("oos", "ins")}
                           for n, c in res["candidates"].items()},
            "summary": summary, "qualifying": winners, "winner": winner, "most_stable": most_stable,
            "decision": decision}
    return "\n".join(lines) + "\n", data


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scores-86", required=True, help="ev2r score -o rows of the 86-row rating file")
    ap.add_argument("--scores-144", required=True, help="ev2r score -o rows of the 144-row rating file")
    ap.add_argument("--ratings-86", default=str(DEFAULT_RATINGS["86"]))
    ap.add_argument("--ratings-144", default=str(DEFAULT_RATINGS["144"]))
    ap.add_argument("--gaming-86", default=str(DEFAULT_GAMING["86"]))
    ap.add_argument("--gaming-144", default=str(DEFAULT_GAMING["144"]))
    ap.add_argument("--out", default=str(bl.RESULTS / "out_of_system"))
    ap.add_argument("--decision", default=None, metavar="FILE.md",
                    help="a Markdown file saying what the release did with the result (pasted under Decision)")
    a = ap.parse_args(argv)
    files = {"86": load_file(a.scores_86, a.ratings_86, lambda h: BASELINE_SYSTEM),
             "144": load_file(a.scores_144, a.ratings_144, lambda h: str(h.get("team")))}
    gaming = {"86": a.gaming_86, "144": a.gaming_144}
    res = run(files, gaming)
    summary = summarise(files, res)
    sig = json.loads(Path(a.scores_86 + ".ev2r-run.json").read_text()).get("signature") \
        if Path(a.scores_86 + ".ev2r-run.json").exists() else None
    info = {"command": bl.command(), "machine": bl.machine(), "verifier": {"name": sig or "see the scores' run record",
                                                                            "spec": "bundled"}}
    decision = Path(a.decision).read_text(encoding="utf-8").strip() if a.decision else ""
    md, data = render(files, res, summary, info, decision)
    bl.write(Path(a.out), md, data)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
