"""Correlation of Ev2R's scores with human ratings of retrieved evidence, on one or several rating files.

    python benchmarks/agreement/correlation.py \
        --data 86=../shared/data/ev2r_human_eval/averitec_manual_eval_subset.jsonl \
        --data 144=../shared/data/ev2r_human_eval/averitec_shared_task_dev.jsonl \
        --anchors ../shared/data/anchors/anchors_correlations.csv \
        --replay ../shared/data/ev2r_replay/replay_atomic_reference_prec_recall.jsonl \
        --out benchmarks/results/correlation_dev --json benchmarks/results/correlation_dev.json

For each score (precision, recall, F1, proxy, Ev2R; Hungarian METEOR as a lexical baseline; every
other per-item score the scorer returns in ``extra_scores``; the proxy with the annotators' own
verdict as target, labelled, only for comparison; replayed GPT-4o / GPT-3.5 precision and recall
when ``--replay`` is given) and each human rating present in a file (``human_ratings``): Spearman
and Pearson over rows, with a 95% percentile bootstrap CI (rows resampled with replacement, seeded).
One table, a column per rating file and a column ``min over files`` (the two-set rule: a default
must not lose on either development set), first for ``semantic_coverage`` and
``verdict_agreement``, then for the other ratings. Rows are joined on position (rating files can
repeat an ``id``). Items whose score is None (failed) are left out of that score's correlation and
counted. Published numbers (``--anchors``) are printed beside ours for the same file.

``--scores FILE=PATH`` reads a file's per-item scores from an ``ev2r score -o PATH`` output instead of
scoring (joined on ``row``; ``id`` and ``item_hash`` checked against the rating file);
``--scores FILE:VARIANT=PATH`` adds that output's scores as ``VARIANT:<score>`` columns, so variants
are compared without rescoring. ``--compare A B`` adds a paired bootstrap of rho(A) - rho(B) (the same
resampled rows for both scores) per file and headline rating.

``--json OUT`` writes ``{"<file>": {"<score>/<rating>": {"spearman", "pearson", "n", ...},
"<A> - <B>/<rating>": {"diff", "ci95", ...}}}``.

**System level** (how shared tasks use a metric): for a rating file whose rows carry a ``team``
field (the 144 shared-task rows: 7 teams), each score's and rating's per-team means, Kendall's tau-b
between them and the pairwise ranking accuracy (the share of team pairs that the score orders as the
people's means do; a tie on either side counts half), with a percentile bootstrap that resamples rows
within each team (seeded), so that every team stays in every resample. Table ``System level``; JSON key
``"<file>": {"system/<score>/<rating>": {...}}``.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import platform
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402
from ev2r.facts.rules import RULE_DECOMPOSERS  # noqa: E402
from ev2r.types import EXPLAIN_FIELDS  # noqa: E402

# score name -> (anchor scorer, anchor llm, anchor metric) of the published counterpart
ANCHOR_OF = {
    "precision": ("atomic_reference_prec_recall", "gpt-4o-2024-05-13", "precision"),
    "recall": ("atomic_reference_prec_recall", "gpt-4o-2024-05-13", "recall"),
    "proxy": ("pseudo_trained", "", "score"),
    "proxy_human_target": ("pseudo_trained", "", "score"),
    "hu_meteor": ("hmeteor", "", "score"),
    "replay_gpt-4o-2024-05-13_precision": ("atomic_reference_prec_recall", "gpt-4o-2024-05-13", "precision"),
    "replay_gpt-4o-2024-05-13_recall": ("atomic_reference_prec_recall", "gpt-4o-2024-05-13", "recall"),
    "replay_gpt-3.5-turbo-1106_precision": ("atomic_reference_prec_recall", "gpt-3.5-turbo-1106", "precision"),
    "replay_gpt-3.5-turbo-1106_recall": ("atomic_reference_prec_recall", "gpt-3.5-turbo-1106", "recall"),
}


def human_target_proxy(proxy_scorer, items) -> list:
    """The proxy with the annotators' verdict (``human_label``) as its target, the authors' released variant (the
    library's ``--proxy-target human`` up to commit e43eb97, which left it in 2.0): the library's proxy of each item
    with its gold verdict replaced by ``human_label`` (None where a row has none), so every other rule is the proxy's
    own. A comparison only: the annotators' verdict is unknowable at scoring time."""
    import dataclasses

    from ev2r.labels import normalize_verdict

    swapped = [dataclasses.replace(it, gold_label=None if it.extra.get("human_label") in (None, "")
                                   else normalize_verdict(it.extra["human_label"], field="human_label"))
               for it in items]
    return [r.proxy for r in proxy_scorer.score_proxy(swapped)]


# the ratings of the first table (the headline ratings, which the targets name); every other rating goes to the second
HEADLINE_RATINGS = ("semantic_coverage", "verdict_agreement")
# the order of the score rows; other columns follow in the order first seen
SCORE_ORDER = ("precision", "recall", "f1", "proxy", "ev2r", "hu_meteor")
# fields of an ``ev2r score -o`` row that are not per-item scores
# the row fields that are no score: bookkeeping, facts, and the reasons of ``ev2r score --explain`` (an index such as
# proxy_decided_by is a number but no score)
ROW_FIELDS = {"id", "row", "status", "error", "item_hash", "predicted_facts", "reference_facts", *EXPLAIN_FIELDS}
# the anchors file's dataset name of a rating file, by its row count (the 278-row shared-task anchors are
# for the whole rating file, not for the 144 development rows, so they are never shown beside them)
ANCHOR_DATASET_BY_ROWS = {86: "averitec_manual_eval_86"}


def correlate(x, y, n_boot: int = 2000, seed: int = 0) -> dict:
    """Spearman and Pearson of paired values with percentile bootstrap 95% CIs.

    Args:
        x, y: equal-length sequences of numbers or None; pairs where either value is None are dropped.
        n_boot: bootstrap resamples (rows drawn with replacement); seed: the resampling seed.

    Returns ``{"n", "n_dropped", "spearman", "pearson", "spearman_ci95", "pearson_ci95"}``, NaN-free: a
    constant input (or fewer than 3 pairs) yields ``None`` for that coefficient (undefined), and a CI is
    None when fewer than 11 resamples gave a defined coefficient. Spearman and Pearson: scipy.stats.
    """
    pairs = [(a, b) for a, b in zip(x, y) if a is not None and b is not None]
    n = len(pairs)
    out = {"n": n, "n_dropped": len(x) - n}
    if n < 3:
        return {**out, "spearman": None, "pearson": None, "spearman_ci95": None, "pearson_ci95": None}
    xa = np.array([p[0] for p in pairs], float)
    ya = np.array([p[1] for p in pairs], float)

    def coef(fn, a, b):
        if np.all(a == a[0]) or np.all(b == b[0]):
            return None
        return float(fn(a, b)[0])

    out["spearman"] = coef(stats.spearmanr, xa, ya)
    out["pearson"] = coef(stats.pearsonr, xa, ya)
    rng = np.random.default_rng(seed)
    boots = {"spearman": [], "pearson": []}
    for _ in range(n_boot):
        idx = rng.integers(0, n, n)
        for name, fn in (("spearman", stats.spearmanr), ("pearson", stats.pearsonr)):
            v = coef(fn, xa[idx], ya[idx])
            if v is not None:
                boots[name].append(v)
    for name in boots:
        b = boots[name]
        out[f"{name}_ci95"] = [float(np.percentile(b, 2.5)), float(np.percentile(b, 97.5))] if len(b) > 10 else None
    return out


def _rowwise_spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman of each row of ``x`` with the same row of ``y`` (2-D arrays of equal shape): Pearson of
    the average ranks (ties share their mean rank, as scipy.stats.spearmanr); NaN for a constant row."""
    rx = stats.rankdata(x, axis=1)
    ry = stats.rankdata(y, axis=1)
    rx -= rx.mean(axis=1, keepdims=True)
    ry -= ry.mean(axis=1, keepdims=True)
    den = np.sqrt((rx * rx).sum(axis=1) * (ry * ry).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (rx * ry).sum(axis=1) / np.where(den > 0, den, 1.0), np.nan)


def paired_spearman_diff(a: Sequence, b: Sequence, y: Sequence, n_boot: int = 2000, seed: int = 0) -> dict:
    """Paired bootstrap of rho(a, y) - rho(b, y): two scores' Spearman with one rating, on the same rows.

    Only rows where ``a``, ``b`` and ``y`` are all given (not None) are used, so both coefficients
    see the same rows; each resample draws those rows with replacement (numpy ``default_rng(seed)``)
    and computes both coefficients on it, so the CI of the difference accounts for their correlation
    (Efron & Tibshirani 1993, ch. 13, percentile interval). Resamples where either coefficient is
    undefined (a constant resample) are dropped and counted.

    Args:
        a, b, y: equal-length sequences of numbers or None (scores in any range, ratings).
        n_boot: resamples (>= 1); seed: resampling seed (same seed, same numbers).

    Returns ``{"n", "n_dropped", "rho_a", "rho_b", "diff", "ci95", "share_diff_le_0", "n_boot_used"}``:
    ``diff`` = rho_a - rho_b on all shared rows (scipy.stats.spearmanr), ``ci95`` its 2.5/97.5
    percentiles over resamples, ``share_diff_le_0`` the share of resamples where a does not beat b.
    Values are None where undefined (fewer than 3 rows, a constant column, fewer than 11 usable
    resamples), never NaN.

    Raises:
        ValueError: lengths differ, or ``n_boot`` < 1.
    """
    if not (len(a) == len(b) == len(y)):
        raise ValueError(f"paired_spearman_diff: a, b and y must have one value per row, got lengths "
                         f"{len(a)}, {len(b)}, {len(y)}")
    if n_boot < 1:
        raise ValueError(f"paired_spearman_diff: n_boot must be >= 1, got {n_boot}")
    keep = [i for i in range(len(y)) if a[i] is not None and b[i] is not None and y[i] is not None]
    n = len(keep)
    out: dict = {"n": n, "n_dropped": len(y) - n, "rho_a": None, "rho_b": None, "diff": None, "ci95": None,
                 "share_diff_le_0": None, "n_boot_used": 0}
    if n < 3:
        return out
    xa = np.array([a[i] for i in keep], float)
    xb = np.array([b[i] for i in keep], float)
    ya = np.array([y[i] for i in keep], float)
    full = _rowwise_spearman(np.stack([xa, xb]), np.stack([ya, ya]))
    if np.isnan(full).any():
        return out
    out.update(rho_a=float(full[0]), rho_b=float(full[1]), diff=float(full[0] - full[1]))
    idx = np.random.default_rng(seed).integers(0, n, (n_boot, n))
    ry = ya[idx]
    diffs = _rowwise_spearman(xa[idx], ry) - _rowwise_spearman(xb[idx], ry)
    diffs = diffs[~np.isnan(diffs)]
    out["n_boot_used"] = int(diffs.size)
    if diffs.size > 10:
        out["ci95"] = [float(np.percentile(diffs, 2.5)), float(np.percentile(diffs, 97.5))]
        out["share_diff_le_0"] = float(np.mean(diffs <= 0))
    return out


def order_columns(names) -> list[str]:
    """Score names in table order: :data:`SCORE_ORDER`, then the others in the order given; names
    ``VARIANT:score`` (from ``--scores FILE:VARIANT=PATH``) after all plain ones, by variant in the order
    first seen, each in the same order.

    >>> order_columns(["ev2r", "v1:recall", "hu_meteor_q", "recall", "v1:ev2r"])
    ['recall', 'ev2r', 'hu_meteor_q', 'v1:recall', 'v1:ev2r']
    """
    names = list(dict.fromkeys(names))

    def plain_order(ns):
        return [n for n in SCORE_ORDER if n in ns] + [n for n in ns if n not in SCORE_ORDER]

    plain = [n for n in names if ":" not in n]
    variants = list(dict.fromkeys(n.split(":", 1)[0] for n in names if ":" in n))
    out = plain_order(plain)
    for v in variants:
        base = [n.split(":", 1)[1] for n in names if n.split(":", 1)[0] == v and ":" in n]
        out += [f"{v}:{b}" for b in plain_order(base)]
    return out


def ratings_of(items) -> dict[str, list]:
    """The numeric human ratings of rating-file items (``Item.extra["human_ratings"]``): rating name ->
    one value (or None) per row, in row order; names sorted. A bool is not a rating value."""
    def num(v):
        return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

    dims = sorted({k for it in items for k, v in (it.extra.get("human_ratings") or {}).items() if num(v)})
    out = {}
    for d in dims:
        out[d] = [v if num(v := (it.extra.get("human_ratings") or {}).get(d)) else None for it in items]
    return out


def columns_from_score_rows(rows: Sequence, items, path: str, check_hash: bool = True) -> tuple[dict, dict]:
    """Per-item score columns from the rows of an ``ev2r score -o`` output, joined on ``row`` to ``items``
    (the rating file read by :func:`ev2r.io.readers.read_items`).

    Every field of a row that holds a number (not a bool) or None and is not in :data:`ROW_FIELDS` is a
    column (``precision`` ... ``ev2r``, ``hu_meteor``, any later ``extra_scores`` field).

    Args:
        rows: the output's rows (dicts); path: its path, for messages; check_hash: compare each row's
            ``item_hash`` with the rating item's (:func:`ev2r.io.readers.item_hash`).

    Returns ``(columns, info)``: score name -> one value per rating row (None where the row gives
    None); ``info`` = ``{"rows", "hash_checked", "hash_missing"}``.

    Raises:
        ValueError: a row that is not an object or lacks an integer ``row``; a ``row`` out of range or
            given twice; a rating row without a score row; an ``id`` or ``item_hash`` that is not the
            rating row's -- each naming ``path``, the row and the field.
    """
    from ev2r.io.readers import item_hash

    by_row: dict[int, dict] = {}
    for k, r in enumerate(rows):
        if not isinstance(r, dict) or isinstance(r.get("row"), bool) or not isinstance(r.get("row"), int):
            raise ValueError(f"--scores {path}: line {k + 1}: expected an `ev2r score -o` row (a JSON object "
                             f"with an integer 'row'), got {str(r)[:80]!r}")
        n = r["row"]
        if not 0 <= n < len(items):
            raise ValueError(f"--scores {path}: line {k + 1}: field 'row' = {n} is outside the rating file's "
                             f"rows 0..{len(items) - 1}: these scores are of another input")
        if n in by_row:
            raise ValueError(f"--scores {path}: line {k + 1}: row {n} is given twice")
        by_row[n] = r
    missing = [n for n in range(len(items)) if n not in by_row]
    if missing:
        raise ValueError(f"--scores {path}: no scores for rating row(s) {missing[:10]}"
                         f"{' ...' if len(missing) > 10 else ''} ({len(missing)} of {len(items)}): score the "
                         "whole rating file (no --limit)")
    names: list[str] = []
    hashed = missing_hash = 0
    for n, it in enumerate(items):
        r = by_row[n]
        if "id" in r and str(r["id"]) != str(it.id):
            raise ValueError(f"--scores {path}: row {n}: field 'id' = {r['id']!r}, but the rating file's row {n} "
                             f"has id {it.id!r}: these scores are of another input")
        if check_hash:
            if r.get("item_hash") is None:
                missing_hash += 1
            elif r["item_hash"] != item_hash(it):
                raise ValueError(f"--scores {path}: row {n} (id {it.id!r}): field 'item_hash' differs from the "
                                 "rating row's: the scores were made from other content (another input, or the "
                                 "same file read by another parser version); rescore it, or pass "
                                 "--no-hash-check to join on row and id only")
            else:
                hashed += 1
        for k, v in r.items():
            if k in ROW_FIELDS or isinstance(v, bool):
                continue
            if isinstance(v, (int, float)):
                names.append(k)  # a field that is None on every row is no column
    names = list(dict.fromkeys(names))
    cols = {k: [by_row[n].get(k) if isinstance(by_row[n].get(k), (int, float)) else None
                for n in range(len(items))] for k in names}
    cols = {k: [None if v is not None and not math.isfinite(v) else v for v in vals] for k, vals in cols.items()}
    return cols, {"rows": len(items), "hash_checked": hashed, "hash_missing": missing_hash}


def pairwise_accuracy(a: Sequence[float], b: Sequence[float]) -> float:
    """Share of the pairs (i < j) that ``a`` and ``b`` order the same way; a pair tied in either counts
    half (0.5 = chance). ``a``, ``b``: equal-length sequences of at least 2 numbers. Returns a float in [0, 1].

    >>> pairwise_accuracy([1, 2, 3], [10, 20, 30]), pairwise_accuracy([1, 2, 3], [30, 20, 10])
    (1.0, 0.0)
    >>> pairwise_accuracy([1, 1, 3], [1, 2, 3])
    0.8333333333333334
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.size < 2:
        raise ValueError(f"pairwise_accuracy: expected two equal-length sequences of >= 2 values, got {a.size}, {b.size}")
    i, j = np.triu_indices(a.size, 1)
    sa, sb = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])
    agree = np.where((sa == 0) | (sb == 0), 0.5, (sa == sb).astype(float))
    return float(agree.mean())


def system_level(score: Sequence, rating: Sequence, teams: Sequence[str], n_boot: int = 2000, seed: int = 0) -> dict:
    """Per-team means of ``score`` and ``rating`` (rows where either is None left out), Kendall's tau-b
    (:func:`scipy.stats.kendalltau`) and :func:`pairwise_accuracy` between them, with percentile bootstrap
    95% CIs that resample rows within each team (teams left with no row in a resample are skipped).

    Returns ``{"n_teams", "n_rows", "kendall_tau", "kendall_tau_ci95", "pairwise_accuracy",
    "pairwise_accuracy_ci95", "team_means": {team: [score mean, rating mean, rows]}}``; tau is None when
    fewer than 3 teams have rows or either side is constant.
    """
    rows: dict[str, list[tuple[float, float]]] = {}
    for x, y, t in zip(score, rating, teams):
        if x is not None and y is not None and t is not None and not (isinstance(x, float) and math.isnan(x)):
            rows.setdefault(str(t), []).append((float(x), float(y)))
    names = sorted(rows)
    out: dict = {"n_teams": len(names), "n_rows": sum(len(v) for v in rows.values()), "kendall_tau": None,
                 "kendall_tau_ci95": None, "pairwise_accuracy": None, "pairwise_accuracy_ci95": None,
                 "team_means": {t: [float(np.mean([r[0] for r in rows[t]])), float(np.mean([r[1] for r in rows[t]])),
                                    len(rows[t])] for t in names}}
    if len(names) < 3:
        return out

    def stats_of(per_team: dict) -> tuple[Optional[float], float]:
        xs = [np.mean([r[0] for r in per_team[t]]) for t in names]
        ys = [np.mean([r[1] for r in per_team[t]]) for t in names]
        tau = stats.kendalltau(xs, ys).statistic if np.ptp(xs) > 0 and np.ptp(ys) > 0 else None
        return (None if tau is None or math.isnan(tau) else float(tau)), pairwise_accuracy(xs, ys)

    out["kendall_tau"], out["pairwise_accuracy"] = stats_of(rows)
    rng = np.random.default_rng(seed)
    taus, accs = [], []
    for _ in range(n_boot):
        sample = {t: [rows[t][k] for k in rng.integers(0, len(rows[t]), len(rows[t]))] for t in names}
        tau, acc = stats_of(sample)
        accs.append(acc)
        if tau is not None:
            taus.append(tau)
    if taus:
        out["kendall_tau_ci95"] = [float(np.percentile(taus, 2.5)), float(np.percentile(taus, 97.5))]
    out["pairwise_accuracy_ci95"] = [float(np.percentile(accs, 2.5)), float(np.percentile(accs, 97.5))]
    return out


def system_rows(tables: dict, files: Sequence[str], scores: Sequence[str], ratings: Sequence[str]) -> list[str]:
    """Markdown lines of the system-level table (one row per score, a column pair per file x rating)."""
    cols = [(f, d) for f in files for d in ratings if any(f"system/{s}/{d}" in tables[f] for s in scores)]
    if not cols:
        return []
    n = {f: next(v["n_teams"] for k, v in tables[f].items() if k.startswith("system/")) for f, _ in cols}
    head = "| score | " + " | ".join(f"`{f}` {d}: tau (CI) / pairwise acc. (CI), {n[f]} teams" for f, d in cols) + " |"
    lines = [head, "|---|" + "---|" * len(cols)]
    for s in scores:
        cells = []
        for f, d in cols:
            r = tables[f].get(f"system/{s}/{d}")
            if r is None:
                cells.append("")
                continue
            tau = "n/a" if r["kendall_tau"] is None else f"{r['kendall_tau']:+.3f}"
            cells.append(f"{tau} {_ci(r['kendall_tau_ci95'])} / {r['pairwise_accuracy']:.3f} {_ci(r['pairwise_accuracy_ci95'])}")
        if any(cells):
            lines.append(f"| {s} | " + " | ".join(cells) + " |")
    return lines


def correlation_table(columns: dict, ratings: dict, n_boot: int = 2000, seed: int = 0) -> dict:
    """``{"<score>/<rating>": correlate(...)}`` over every column and rating of one file."""
    return {f"{name}/{d}": correlate(vals, ratings[d], n_boot=n_boot, seed=seed)
            for name, vals in columns.items() for d in ratings}


def _fmt(v: Optional[float]) -> str:
    return "–" if v is None else f"{v:+.3f}"


def _ci(v) -> str:
    return "" if not v else f" [{v[0]:+.2f}, {v[1]:+.2f}]"


def multi_file_rows(tables: dict, scores: Sequence[str], ratings: Sequence[str], n_rows: dict) -> list[dict]:
    """The rows of the multi-file table: for each score and rating (in the given order) the Spearman
    of each file and the minimum over files.

    Args:
        tables: file name -> ``{"<score>/<rating>": correlate(...) result}``.
        scores, ratings: the row order; a (score, rating) present in no file is left out.
        n_rows: file name -> the file's row count (a cell's ``n`` is shown only where it is smaller).

    Returns a list of ``{"score", "rating", "cells": {file: str}, "spearman": {file: float|None},
    "min": float|None, "min_over": [files]}``. ``min`` is over the files where the coefficient is
    defined; ``min_over`` names them, so a score missing on a file (e.g. replayed GPT-4o outputs exist
    for one file only) is visibly not a two-set result. A cell is ``–`` where the score or rating is
    absent from the file or the coefficient undefined.
    """
    out = []
    for s in scores:
        for d in ratings:
            key = f"{s}/{d}"
            if not any(key in t for t in tables.values()):
                continue
            cells, rhos = {}, {}
            for f, t in tables.items():
                r = t.get(key)
                rho = None if r is None else r.get("spearman")
                rhos[f] = rho
                if r is None:
                    cells[f] = "–"
                    continue
                note = f" (n={r['n']})" if r["n"] < n_rows.get(f, r["n"]) else ""
                cells[f] = f"{_fmt(rho)}{_ci(r.get('spearman_ci95'))}{note}"
            defined = [f for f, v in rhos.items() if v is not None]
            out.append({"score": s, "rating": d, "cells": cells, "spearman": rhos,
                        "min": min(rhos[f] for f in defined) if defined else None, "min_over": defined})
    return out


def markdown_table(rows: list[dict], files: Sequence[str], n_rows: dict, published: Optional[dict] = None) -> list[str]:
    """Markdown lines of :func:`multi_file_rows`' rows: ``| score | rating | <file> (n rows) ... | min over
    files |`` (the last column only with two or more files), and ``published`` when given (``{(score,
    rating): text}``)."""
    many = len(files) > 1
    head = ["score", "rating", *[f"{f} ({n_rows[f]} rows)" for f in files]]
    if many:
        head.append("min over files")
    if published:
        head.append("published Spearman")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r["score"], r["rating"], *[r["cells"].get(f, "–") for f in files]]
        if many:
            m = _fmt(r["min"])
            if r["min"] is not None and len(r["min_over"]) < len(files):
                m += f" ({', '.join(r['min_over'])} only)"
            cells.append(m)
        if published:
            cells.append(published.get((r["score"], r["rating"]), ""))
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def compare_rows(diffs: dict, files: Sequence[str]) -> list[str]:
    """Markdown lines of the paired comparisons: ``diffs`` = ``{(A, B, rating): {file: paired_spearman_diff
    result or None}}``. Per file: rho(A) - rho(B) with its 95% CI and ``win`` (CI above 0), ``loss`` (CI
    below 0) or ``tie``; the last column says whether A wins on none, some or every file and loses on any."""
    head = ["rho(A) - rho(B)", "rating", *files, "min over files", "two-set reading"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (a, b, d), per in diffs.items():
        cells, verdicts, ds = [], {}, []
        for f in files:
            r = per.get(f)
            if r is None or r["diff"] is None:
                cells.append("–")
                continue
            ci = r["ci95"]
            v = "tie" if not ci or ci[0] <= 0 <= ci[1] else ("win" if ci[0] > 0 else "loss")
            verdicts[f] = v
            ds.append(r["diff"])
            cells.append(f"{r['diff']:+.3f}{_ci(ci)} {v} (n={r['n']})")
        missing = [f for f in files if f not in verdicts]
        if missing:
            reading = f"not on {', '.join(missing)}: no two-set result"
        elif any(v == "loss" for v in verdicts.values()):
            reading = "loses on " + ", ".join(f for f, v in verdicts.items() if v == "loss")
        elif all(v == "win" for v in verdicts.values()):
            reading = "wins on every file"
        elif any(v == "win" for v in verdicts.values()):
            reading = "wins on " + ", ".join(f for f, v in verdicts.items() if v == "win") + ", ties elsewhere"
        else:
            reading = "no significant difference"
        lines.append("| " + " | ".join([f"{a} - {b}", d, *cells, _fmt(min(ds)) if ds else "–", reading]) + " |")
    return lines


def load_anchors(path: str | None, dataset: str) -> dict:
    """Published Spearman of ``dataset`` in an ``anchors_correlations.csv``: ``{(scorer, llm, metric,
    rating): value}`` (deprecated rows left out); ``{}`` without a file."""
    if not path or not os.path.exists(path):
        return {}
    found = {}
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh):
            if r["dataset"] != dataset or r.get("deprecated") == "True":
                continue
            found[(r["scorer"], r["llm"], r["metric"], r["dimension"])] = float(r["spearman"])
    return found


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", action="append", required=True, metavar="[NAME=]PATH",
                    help="rating file (ev2r_human_eval schema); repeat for a column per file; NAME defaults to "
                         "the row count (86, 144), else the file's stem")
    ap.add_argument("--scores", action="append", default=[], metavar="NAME[:VARIANT]=PATH",
                    help="read NAME's per-item scores from an `ev2r score -o` output (joined on row) instead of "
                         "scoring it; with :VARIANT, add them as VARIANT:<score> columns (repeatable)")
    ap.add_argument("--no-hash-check", action="store_true",
                    help="--scores: join on row and id without comparing item_hash")
    ap.add_argument("--compare", nargs=2, action="append", default=[], metavar=("A", "B"),
                    help="paired bootstrap CI of rho(A) - rho(B) per file (score names as in the table; repeatable)")
    ap.add_argument("--compare-rating", action="append", default=None,
                    help=f"ratings for --compare (default: {', '.join(HEADLINE_RATINGS)})")
    ap.add_argument("--anchors", default=None, help="anchors_correlations.csv with published numbers")
    ap.add_argument("--anchor-dataset", action="append", default=None, metavar="[NAME=]DATASET",
                    help="the anchors' dataset of a file (bare: the first file); default: "
                         + ", ".join(f"a {k}-row file -> {v}" for k, v in ANCHOR_DATASET_BY_ROWS.items()))
    ap.add_argument("--model", default="bundled", help="verifier: bundled, a checkpoint path or a hub id")
    ap.add_argument("--replay", default=None, help="recorded LLM outputs: adds replayed precision/recall rows "
                    "(kept only where a recording's claim and predicted evidence are the row's)")
    ap.add_argument("--no-hu-meteor", action="store_true")
    ap.add_argument("--decomposer", default="rules", choices=RULE_DECOMPOSERS,
                    help="atomic facts (rules = the default version)")
    ap.add_argument("--dtype", default=None, help="verifier dtype: auto, fp32, bf16, int8 (default: the verifier's default)")
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    ap.add_argument("--out", default=None, help="write OUT.md (table)")
    ap.add_argument("--json", default=None, help="write the correlations as JSON")
    args = ap.parse_args(argv)
    if args.n_boot < 1:
        ap.error(f"--n-boot: must be >= 1, got {args.n_boot}")

    from ev2r.io.readers import read_items, read_rows

    try:
        specs = [bl.parse_named(s, "--data") for s in args.data]
        items_of = [read_items(p) for _, p in specs]
        names = bl.default_names([p for _, p in specs], [len(i) for i in items_of], [n for n, _ in specs])
    except ValueError as e:
        ap.error(str(e))
    files = dict(zip(names, items_of))
    paths = dict(zip(names, [p for _, p in specs]))
    ratings = {f: ratings_of(its) for f, its in files.items()}
    for f, r in ratings.items():
        if not r:
            ap.error(f"--data {paths[f]}: no numeric human_ratings found")

    # --scores: which files are read, not scored
    given: dict[str, list] = {f: [] for f in files}
    for spec in args.scores:
        try:
            name, path = bl.parse_named(spec, "--scores")
        except ValueError as e:
            ap.error(str(e))
        if name is None:
            ap.error(f"--scores {spec!r}: expected NAME=PATH or NAME:VARIANT=PATH (NAME one of {list(files)})")
        fname, _, variant = name.partition(":")
        if fname not in files:
            ap.error(f"--scores {spec!r}: no --data file is named {fname!r} (names: {list(files)})")
        if any(v == variant for v, _ in given[fname]):
            ap.error(f"--scores {spec!r}: {fname}{':' + variant if variant else ''} is given twice")
        given[fname].append((variant, path))

    columns: dict[str, dict] = {f: {} for f in files}
    meta: dict[str, dict] = {f: {"path": paths[f], "rows": len(files[f])} for f in files}
    for f, entries in given.items():
        for variant, path in entries:
            try:
                cols, info = columns_from_score_rows(read_rows(path), files[f], path, check_hash=not args.no_hash_check)
            except (ValueError, OSError) as e:
                raise SystemExit(f"error: {e}") from None
            record = Path(str(path) + ".ev2r-run.json")
            sig = json.loads(record.read_text(encoding="utf-8")).get("signature") if record.exists() else None
            meta[f].setdefault("scores_from", []).append({"variant": variant or None, "path": path, "signature": sig,
                                                          **info})
            columns[f].update({(f"{variant}:{k}" if variant else k): v for k, v in cols.items()})

    to_score = [f for f in files if not given[f]]
    if to_score:
        from ev2r.metric.factory import build_scorer, get_verifier

        ver = get_verifier(args.model, **({"dtype": args.dtype} if args.dtype else {}))
        scorer = build_scorer(verifier=ver, decomposer=args.decomposer,
                              baselines=() if args.no_hu_meteor else ("hu-meteor",))
        for f in to_score:
            t0 = time.time()
            scores = scorer.score(files[f])
            summary = scorer.corpus(scores)
            meta[f].update(signature=summary.signature, n_failed=summary.n_failed,
                           seconds=round(time.time() - t0, 1))
            cols = {k: [getattr(s, k) for s in scores] for k in ("precision", "recall", "f1", "proxy", "ev2r")}
            for k in dict.fromkeys(k for s in scores for k in s.extra_scores):
                cols[k] = [s.extra_scores.get(k) for s in scores]
            cols["proxy_human_target"] = human_target_proxy(scorer.proxy_scorer, files[f])
            columns[f].update(cols)
    if args.replay:
        from ev2r.facts.replay import ReplayReferenceScorer

        models = sorted({json.loads(line)["model"] for line in open(args.replay, encoding="utf-8") if line.strip()})
        for m in models:
            rep = ReplayReferenceScorer(args.replay, model=m)
            for f, its in files.items():
                match = [bl.replay_content_matches(rep.records.get(str(it.id)), it) for it in its]
                other = sum(str(it.id) in rep.records and not ok for it, ok in zip(its, match))
                meta[f].setdefault("replay", {})[m] = {"rows_with_recording": sum(match),
                                                        "id_recorded_for_another_claim": other}
                if not any(match):
                    continue
                res = rep.score_reference(its)
                columns[f][f"replay_{m}_precision"] = [r.precision if ok else None for r, ok in zip(res, match)]
                columns[f][f"replay_{m}_recall"] = [r.recall if ok else None for r, ok in zip(res, match)]

    # anchors: which dataset of the anchors file each rating file is
    anchor_ds: dict[str, str] = {f: ANCHOR_DATASET_BY_ROWS[len(its)] for f, its in files.items()
                                 if len(its) in ANCHOR_DATASET_BY_ROWS}
    for spec in args.anchor_dataset or []:
        n, _, ds = spec.rpartition("=")
        if n and n not in files:
            ap.error(f"--anchor-dataset {spec!r}: no --data file is named {n!r} (names: {list(files)})")
        anchor_ds[n or names[0]] = ds
    tables = {f: correlation_table(columns[f], ratings[f], n_boot=args.n_boot, seed=args.seed) for f in files}
    system_files = []
    for f, its in files.items():
        teams = [it.extra.get("team") for it in its]
        if sum(t is not None for t in teams) and len({t for t in teams if t is not None}) >= 3:
            system_files.append(f)
            for name, col in columns[f].items():
                for d in HEADLINE_RATINGS:
                    if d in ratings[f]:
                        tables[f][f"system/{name}/{d}"] = system_level(col, ratings[f][d], teams,
                                                                       n_boot=args.n_boot, seed=args.seed)
    published: dict = {}  # (score, rating) -> ["<file>: <value> (<anchor>)", ...]
    for f, ds in anchor_ds.items():
        anchors = load_anchors(args.anchors, ds)
        for key, r in tables[f].items():
            name, d = key.rsplit("/", 1)
            a = ANCHOR_OF.get(name)
            if a is not None and (a[0], a[1], a[2], d) in anchors:
                r["published_spearman"] = anchors[(a[0], a[1], a[2], d)]
                r["published_as"] = "/".join(x for x in a if x)
                published.setdefault((name, d), []).append(f"{f}: {r['published_spearman']:+.3f} ({r['published_as']})")

    compare_ratings = args.compare_rating or list(HEADLINE_RATINGS)
    diffs: dict = {}
    for a, b in args.compare:
        if not any(a in columns[f] for f in files) or not any(b in columns[f] for f in files):
            known = order_columns(k for f in files for k in columns[f])
            ap.error(f"--compare {a} {b}: {a if not any(a in columns[f] for f in files) else b!r} is not a score "
                     f"of any file; scores: {known}")
        for d in compare_ratings:
            per = {}
            for f in files:
                if a in columns[f] and b in columns[f] and d in ratings[f]:
                    per[f] = paired_spearman_diff(columns[f][a], columns[f][b], ratings[f][d],
                                                  n_boot=args.n_boot, seed=args.seed)
                    tables[f][f"{a} - {b}/{d}"] = per[f]
                else:
                    per[f] = None
            diffs[(a, b, d)] = per

    score_names = order_columns(k for f in files for k in columns[f])
    all_ratings = sorted({d for r in ratings.values() for d in r})
    head = [d for d in HEADLINE_RATINGS if d in all_ratings]
    rest = [d for d in all_ratings if d not in HEADLINE_RATINGS]
    n_rows = {f: len(its) for f, its in files.items()}
    pub_text = {k: "; ".join(v) for k, v in published.items()}
    lines = [
        "# Correlation with human ratings: " + ", ".join(f"{f} = {Path(paths[f]).name}" for f in files),
        "",
        f"Command: `python benchmarks/agreement/{Path(__file__).name} {' '.join(argv if argv is not None else sys.argv[1:])}`",
        f"Machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "",
    ]
    for f in files:
        m = meta[f]
        if "signature" in m:
            lines.append(f"* `{f}`: {paths[f]}, {m['rows']} rows, failed: {m['n_failed']}; scored in {m['seconds']} s "
                         f"after model load; signature `{m['signature']}`")
        for s in m.get("scores_from", []):
            label = f"`{s['variant']}:` columns" if s["variant"] else "scores"
            check = (f"item_hash checked on {s['hash_checked']} rows" if not args.no_hash_check else "item_hash not checked")
            if s["hash_missing"]:
                check += f", absent on {s['hash_missing']}"
            lines.append(f"* `{f}`: {paths[f]}, {m['rows']} rows; {label} read from {s['path']} (joined on row; {check}); "
                         f"signature `{s['signature'] or 'unknown: no run record beside it'}`")
        for model, rp in m.get("replay", {}).items():
            if rp["rows_with_recording"] or rp["id_recorded_for_another_claim"]:
                lines.append(f"* `{f}`: replayed {model}: {rp['rows_with_recording']} rows"
                             + (f"; {rp['id_recorded_for_another_claim']} rows whose id has a recording of another "
                                "claim left out" if rp["id_recorded_for_another_claim"] else ""))
            else:
                lines.append(f"* `{f}`: no replayed {model} outputs for these rows")
    lines += [
        "",
        "Spearman (95% percentile bootstrap CI, rows resampled, seed "
        f"{args.seed}, {args.n_boot} resamples) per rating file; `(n=..)` where failed items or missing ratings "
        "left rows out. `min over files` is the two-set rule read off the table: a default is chosen on both "
        "development files, and a change that wins on one while losing on the other is not a win; `(X only)` "
        "marks a score that exists for some files only. Pearson is in the JSON. `published` = the Ev2R authors' "
        "number for the same file (precision/recall: GPT-4o atomic reference-based; proxy: fine-tuned DeBERTa "
        "with the annotators' verdict as target; hu_meteor: their Hungarian METEOR, divided by a string length).",
        "`proxy_human_target` scores the annotators' own verdict (unknowable at scoring time), shown only for "
        "comparison.",
        "",
        "## " + " and ".join(head),
        "",
        *markdown_table(multi_file_rows(tables, score_names, head, n_rows), list(files), n_rows, pub_text),
    ]
    if rest:
        lines += ["", "## Other ratings", "",
                  *markdown_table(multi_file_rows(tables, score_names, rest, n_rows), list(files), n_rows, pub_text)]
    if system_files:
        lines += ["", "## System level (per-team means)", "",
                  "How a shared task uses a metric: the teams ranked by their mean score against their mean human "
                  "rating. Kendall's tau-b and pairwise ranking accuracy (share of team pairs ordered as the people's "
                  "means order them; ties count half; 0.5 = chance), 95% percentile bootstrap CIs over rows resampled "
                  f"within each team (seed {args.seed}, {args.n_boot} resamples). With 7 teams, 21 pairs: read the CIs.",
                  "", *system_rows(tables, system_files, score_names, head)]
    if diffs:
        lines += ["", "## Paired comparisons", "",
                  "rho(A) - rho(B) on the rows both scores and the rating have, with a paired percentile bootstrap "
                  "95% CI (both coefficients on the same resampled rows); win / loss = the CI lies above / below "
                  "0, else tie.", "", *compare_rows(diffs, list(files))]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).with_suffix(".md").write_text(text, encoding="utf-8")
    if args.json:
        Path(args.json).write_text(json.dumps(tables, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
