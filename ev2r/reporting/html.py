"""``ev2r report``: one self-contained HTML page of a scored run.

The page holds, in this order: the corpus summary with the headline score first
(:data:`ev2r.config.HEADLINE_SCORE`, with a 95% bootstrap interval over items), the distribution of the
per-item scores (a matplotlib histogram embedded as a PNG data URI), a sortable table of the items, and a
drill-down per item with its reasons when the rows were written by ``ev2r score --explain``: each reference
and predicted atomic fact with the premise (question/answer pair of the other side) that decided it and the
verifier's entailment / neutral / contradiction as bars, the proxy's premises with the deciding one, the
Hungarian alignment behind ``hybrid_meteor`` as a small matrix, and the one-line reading of
:func:`ev2r.reporting.reasons.reading`.

Self-contained: inline CSS and JavaScript, no network request (no CDN, no font, no external image), so the
file opens offline and can be attached to a paper's supplementary material. Rendered with jinja2
(autoescaping on: evidence text never becomes markup).

Nothing is recomputed: the numbers are the rows' own (the corpus means by
:func:`ev2r.metric.scorer.corpus_summary`, the function ``ev2r score`` prints its summary with).
"""

from __future__ import annotations

import base64
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

from ev2r.config import HEADLINE_SCORE
from ev2r.reporting.reasons import ev2r_terms, hybrid_terms, proxy_breakdown, reading, run_weights
from ev2r.types import EXPLAIN_FIELDS, ROW_META_FIELDS

__all__ = ["TABLE_COLUMNS", "ReportItem", "report_items", "corpus_means", "headline_interval", "render_report",
           "run_headline", "write_report"]

#: The score columns of the item table, the headline first (those a run has).
TABLE_COLUMNS = (HEADLINE_SCORE, "ev2r", "precision", "recall", "f1", "proxy", "hybrid_meteor", "verified_meteor")
_BASE_FIELDS = ("precision", "recall", "f1", "proxy", "ev2r")
_NOT_SCORES = {*ROW_META_FIELDS, *EXPLAIN_FIELDS}


@dataclass(frozen=True)
class ReportItem:
    """One item of the report: its score row and, when the input was given, what was scored.

    Attributes:
        row: the score row (a dict, as ``ev2r score -o`` wrote it).
        claim: the claim text, or None when the items were not given (``--input``).
        gold: the gold verdict's name (``Supported``, ``Refuted``, ...), or None.
        predicted_pairs / reference_pairs: ``(question, answer)`` tuples of each side's evidence, in order
            (empty when the items were not given).
    """

    row: dict
    claim: Optional[str] = None
    gold: Optional[str] = None
    predicted_pairs: tuple = ()
    reference_pairs: tuple = ()


#: Score columns ``ev2r score`` writes: each must be a number in [0, 1] or null in a row.
KNOWN_SCORES = ("precision", "recall", "f1", "proxy", "ev2r", "ev2r_hybrid", "graded_precision", "graded_recall",
                "graded_f1", "hybrid_meteor", "verified_meteor", "hybrid_embedding", "hu_meteor", "hu_meteor_q")


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _unit(v: Any, where: str, null: bool = True) -> Optional[float]:
    """``v`` as a float in [0, 1] (None when ``null`` allows it), else ValueError naming ``where``."""
    if v is None and null:
        return None
    try:
        ok = _number(v) and math.isfinite(float(v)) and -1e-9 <= float(v) <= 1 + 1e-9
    except OverflowError:
        ok = False
    if not ok:
        raise ValueError(f"{where} = {v!r:.60}: expected a number in [0, 1]{' or null' if null else ''}")
    return float(v)


def _index(v: Any, where: str, n: Optional[int] = None, null: bool = True) -> Optional[int]:
    if v is None and null:
        return None
    if not isinstance(v, int) or isinstance(v, bool) or v < 0 or (n is not None and v >= n):
        allowed = f"an integer in [0, {n - 1}]" if n else "an integer >= 0"
        raise ValueError(f"{where} = {v!r:.60}: expected {allowed}{' or null' if null else ''}")
    return v


def _distribution(d: Any, where: str, keys: Sequence[str] = ()) -> dict:
    if not isinstance(d, dict):
        raise ValueError(f"{where}: expected an object, got {type(d).__name__}")
    out = dict(d)
    for k in ("entailment", "neutral", "contradiction"):
        out[k] = _unit(d.get(k), f"{where}.{k}", null=False)
    for k in keys:
        if not isinstance(d.get(k), str):
            raise ValueError(f"{where}.{k}: expected text, got {d.get(k)!r:.60}")
    return out


def _facts(v: Any, where: str) -> list:
    if v is None:
        return []
    if not isinstance(v, list):
        raise ValueError(f"{where}: expected a list of facts, got {type(v).__name__}")
    out = []
    for k, f in enumerate(v):
        w = f"{where}[{k}]"
        if not isinstance(f, dict) or not isinstance(f.get("fact"), str) or not isinstance(f.get("supported"), bool):
            raise ValueError(f"{w}: expected an object with fact (text) and supported (true/false)")
        g = dict(f, probability=_unit(f.get("probability"), f"{w}.probability"), decided_by=None)
        d = f.get("decided_by")
        if d is not None:
            d = _distribution(d, f"{w}.decided_by", ("premise",))
            d["pair_index"] = _index(d.get("pair_index"), f"{w}.decided_by.pair_index")
            n_prem = _index(d.get("n_premises"), f"{w}.decided_by.n_premises", null=False)
            d["n_premises"] = n_prem
            d["n_checked"] = _index(d.get("n_checked"), f"{w}.decided_by.n_checked", null=False)
            g["decided_by"] = d
        out.append(g)
    return out


def clean_row(r: Any, n: int, source: str, line: Optional[int] = None) -> dict:
    """One score row checked and normalised for the report: ``id`` and ``status`` present, every known score
    column a number in [0, 1] or null (a boolean, text or list is refused), ``row`` an integer, and the
    reasons of an ``--explain`` row well formed (facts with ``fact`` / ``supported`` / ``decided_by``,
    ``proxy_premises`` distributions, ``proxy_decided_by`` an index into them, ``hybrid_alignment`` pairs of
    indices with a METEOR in [0, 1]). A row written without ``--explain`` has ``explained`` False.

    ``line``: the 1-based line of the file the row starts on, where known (messages name it).

    Raises:
        ValueError: naming ``source``, the row (counted from 0), its line and the field.
    """
    from claimalign.jsonio import row_where

    where = row_where(source, n, line)
    if not isinstance(r, dict):
        raise ValueError(f"{where} is a {type(r).__name__}, not a score row (an object with id and status)")
    for key in ("id", "status"):
        if key not in r:
            raise ValueError(f"{where} has no field {key!r}; expected rows written by `ev2r score -o` "
                             "(fields id, status, precision, recall, f1, proxy, ev2r, ...)")
    if isinstance(r["id"], (dict, list)):
        raise ValueError(f"{where} field 'id': expected text or a number, got {type(r['id']).__name__}")
    if not isinstance(r["status"], str):
        raise ValueError(f"{where} field 'status': expected text, got {r['status']!r:.60}")
    out = dict(r)
    out["row"] = _index(r.get("row"), f"{where} field 'row'")
    if r.get("error") is not None and not isinstance(r["error"], str):
        raise ValueError(f"{where} field 'error': expected text or null, got {r['error']!r:.60}")
    out["error"] = r.get("error")  # a row without the field reads as no error (never a template error)
    for key in KNOWN_SCORES:
        if key in r:
            out[key] = _unit(r[key], f"{where} field {key!r}")
    for key, v in r.items():  # other numeric columns (a scorer's own): in [0, 1] when they are numbers
        if key not in KNOWN_SCORES and key not in _NOT_SCORES and _number(v):
            _unit(v, f"{where} field {key!r}")
    for side in ("predicted_facts", "reference_facts"):
        out[side] = _facts(r.get(side), f"{where} field {side!r}")
    out["explained"] = "proxy_premises" in r
    if out["explained"]:
        prem = r.get("proxy_premises")
        if not isinstance(prem, list):
            raise ValueError(f"{where} field 'proxy_premises': expected a list, got {type(prem).__name__}")
        out["proxy_premises"] = [_distribution(p, f"{where} field 'proxy_premises'[{k}]", ("premise",))
                                 for k, p in enumerate(prem)]
        for k, p in enumerate(out["proxy_premises"]):
            p["pair_index"] = _index(p.get("pair_index"), f"{where} field 'proxy_premises'[{k}].pair_index")
        out["proxy_decided_by"] = _index(r.get("proxy_decided_by"), f"{where} field 'proxy_decided_by'",
                                         n=len(prem) or None) if prem else None
        align = r.get("hybrid_alignment") or []
        if not isinstance(align, list):
            raise ValueError(f"{where} field 'hybrid_alignment': expected a list, got {type(align).__name__}")
        clean = []
        for k, a in enumerate(align):
            w = f"{where} field 'hybrid_alignment'[{k}]"
            if not isinstance(a, dict):
                raise ValueError(f"{w}: expected an object {{predicted, reference, meteor}}")
            clean.append({"predicted": _index(a.get("predicted"), f"{w}.predicted", null=False),
                          "reference": _index(a.get("reference"), f"{w}.reference", null=False),
                          "meteor": _unit(a.get("meteor"), f"{w}.meteor", null=False)})
        out["hybrid_alignment"] = clean
        contra = r.get("contradicted_pairs") or []
        if not isinstance(contra, list):
            raise ValueError(f"{where} field 'contradicted_pairs': expected a list, got {type(contra).__name__}")
        out["contradicted_pairs"] = []
        for k, c in enumerate(contra):
            w = f"{where} field 'contradicted_pairs'[{k}]"
            if not isinstance(c, dict):
                raise ValueError(f"{w}: expected an object {{predicted, reference, premise, entailment, neutral, "
                                 "contradiction}")
            d = _distribution(c, w, ("premise",))
            d["predicted"] = _index(c.get("predicted"), f"{w}.predicted", null=False)
            d["reference"] = _index(c.get("reference"), f"{w}.reference", null=False)
            out["contradicted_pairs"].append(d)
        adm = r.get("admission") or []
        if not isinstance(adm, list):
            raise ValueError(f"{where} field 'admission': expected a list, got {type(adm).__name__}")
        out["admission"] = []
        for k, a in enumerate(adm):
            w = f"{where} field 'admission'[{k}]"
            if not isinstance(a, dict) or not isinstance(a.get("kept"), bool) or not isinstance(a.get("reason"), str):
                raise ValueError(f"{w}: expected an object {{pair, kept, reason, decided_by}}")
            out["admission"].append({"pair": _index(a.get("pair"), f"{w}.pair", null=False), "kept": a["kept"],
                                     "reason": a["reason"], "decided_by": str(a.get("decided_by", "")),
                                     "p_evidence": _unit(a.get("p_evidence"), f"{w}.p_evidence"),
                                     "label": a.get("label")})
    return out


def clean_rows(rows: Sequence[Any], source: str) -> list[dict]:
    """:func:`clean_row` for every row; ValueError for no rows."""
    if not rows:
        raise ValueError(f"{source}: no rows to report")
    from claimalign.jsonio import line_of

    return [clean_row(r, n, source, line_of(rows, n)) for n, r in enumerate(rows)]


def report_items(rows: Sequence[dict], items: Optional[Sequence[Any]] = None, source: str = "rows") -> list[ReportItem]:
    """Join score rows with the items they score (optional).

    Args:
        rows: score rows (dicts with at least ``id`` and ``status``; score fields in [0, 1] or null).
        items: :class:`ev2r.types.Item` objects read from the scored input, or None. A row is joined to the
            item with the same content hash (``item_hash``, what a resume matches on: the same claim, evidence,
            labels and row), never by id alone, so an edited input cannot put a new claim beside old scores.
        source: the rows' file, for messages.

    Raises:
        ValueError: as :func:`clean_rows` (naming the row and field).
    """
    rows = clean_rows(rows, source)
    by_hash: dict[str, Any] = {}
    if items:
        from ev2r.io.readers import item_hash

        by_hash = {item_hash(it): it for it in items}
    out = []
    for r in rows:
        it = by_hash.get(r.get("item_hash"))
        if it is None:
            out.append(ReportItem(row=r))
            continue
        out.append(ReportItem(row=r, claim=it.claim, gold=it.gold_label.value if it.gold_label is not None else None,
                              predicted_pairs=tuple((p.question, p.answer) for p in it.predicted_evidence.pairs),
                              reference_pairs=tuple((p.question, p.answer) for p in it.reference_evidence.pairs)))
    return out


def _score_names(rows: Sequence[dict]) -> list[str]:
    names = []
    for r in rows:
        for k, v in r.items():
            if k not in _NOT_SCORES and k != "explained" and k not in names and (v is None or _number(v)):
                names.append(k)
    return names


def corpus_means(rows: Sequence[dict], signature: str = "") -> dict:
    """The corpus summary of score rows, as ``ev2r score`` prints it (:func:`ev2r.metric.scorer.corpus_summary`:
    means over rows whose status is ``ok``, None values left out, ``ev2r_hybrid`` None unless every ok row has
    it), as a dict (``n``, ``n_failed``, ``failures``, one mean per score column)."""
    from ev2r.metric.scorer import corpus_summary
    from ev2r.types import ItemScore

    names = _score_names(rows)
    scores = [ItemScore(id=str(r["id"]), row=r.get("row") or 0, status=r["status"],
                        **{k: r.get(k) for k in _BASE_FIELDS},
                        extra_scores={k: r.get(k) for k in names if k not in _BASE_FIELDS}) for r in rows]
    return corpus_summary(scores, signature).to_dict()


def headline_interval(rows: Sequence[dict], column: str, n_boot: int = 2000, seed: int = 0) -> Optional[tuple]:
    """95% percentile bootstrap interval (over items, ``n_boot`` resamples, seeded) of the mean of ``column``
    over the ok rows that have it; None with fewer than 2 such rows."""
    import numpy as np

    vals = np.asarray([r[column] for r in rows if r.get("status") == "ok" and r.get(column) is not None], float)
    if len(vals) < 2:
        return None
    rng = np.random.default_rng(seed)
    means = vals[rng.integers(0, len(vals), size=(n_boot, len(vals)))].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def _histogram_png(rows: Sequence[dict], columns: Sequence[str]) -> Optional[str]:
    """A histogram of the per-item values of ``columns`` (ok rows), as a base64 PNG; None without values."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = [(c, [r[c] for r in rows if r.get("status") == "ok" and r.get(c) is not None]) for c in columns]
    series = [(c, v) for c, v in series if v]
    if not series:
        return None
    fig, ax = plt.subplots(figsize=(6.4, 2.6), dpi=100)
    bins = [i / 20 for i in range(21)]
    for c, v in series:
        ax.hist(v, bins=bins, alpha=0.55, label=f"{c} (mean {sum(v) / len(v):.3f}, n={len(v)})")
    ax.set_xlim(0, 1)
    ax.set_xlabel("per-item score")
    ax.set_ylabel("items")
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _alignment_matrix(row: dict) -> Optional[dict]:
    """The Hungarian alignment of an explained row as a small matrix: predicted pair indices (rows) x reference
    pair indices (columns), the METEOR of each aligned cell and, when ``verified_meteor`` was computed, the
    reference pair's support that weighs it."""
    align = row.get("hybrid_alignment")
    if not align:
        return None
    from ev2r.metric.combined import reference_pair_support
    from ev2r.types import FactSupport

    support = reference_pair_support([FactSupport.from_dict(f) for f in row.get("reference_facts") or []])
    preds = sorted({a["predicted"] for a in align})
    refs = sorted({a["reference"] for a in align} | set(support))
    cells = {(a["predicted"], a["reference"]): a["meteor"] for a in align}
    return {"predicted": preds, "reference": refs, "cells": cells, "support": support,
            "verified": "verified_meteor" in row}


def render_report(items: Sequence[ReportItem], record: Optional[dict] = None, title: str = "ev2r report",
                  source: str = "", comparison: Optional[dict] = None) -> str:
    """The HTML text of the report (module docstring).

    Args:
        items: the :class:`ReportItem` objects (:func:`report_items`), in the rows' order.
        record: the run record ``ev2r score`` wrote beside its output (``OUT.ev2r-run.json``: signature,
            options), or None.
        title: the page title.
        source: the score file's name, shown under the title.
        comparison: a comparison of this run with another on the same items
            (:meth:`ev2r.reporting.compare.Comparison.to_dict`, this run the baseline), shown after the summary; or
            None.

    Returns:
        A complete HTML5 document (str) with no external resource.
    """
    import jinja2

    rows = [it.row for it in items]
    signature = (record or {}).get("signature") or ""
    summary = corpus_means(rows, signature)
    names = _score_names(rows)
    alpha, hybrid = run_weights(signature)  # the formulas with the run's own weights, never the defaults'
    headline = run_headline(rows, signature)
    version = headline_version(headline, signature)
    columns = [c for c in TABLE_COLUMNS if c in names and (c != HEADLINE_SCORE or headline == HEADLINE_SCORE)]
    if headline not in columns:  # a run of the baselines alone (--scorer hu-meteor): its own score heads the table
        columns.insert(0, headline)
    others = [c for c in names if c not in columns]
    missing = [r for r in rows if r["status"] == "ok" and r.get(headline) is None]
    explained = any("proxy_premises" in r for r in rows)
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(Path(__file__).parent / "templates")),
                             autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["f3"] = lambda v: "n/a" if v is None else f"{v:.3f}"
    env.filters["pct"] = lambda v: "0" if v is None else f"{100 * max(0.0, min(1.0, float(v))):.1f}"
    tpl = env.get_template("report.html.j2")
    return tpl.render(
        title=title, source=source, signature=signature, summary=summary, headline=headline, version=version,
        headline_ci=headline_interval(rows, headline) if summary.get(headline) is not None else None,
        headline_missing=len(missing), headline_noted=sum(1 for r in missing if r.get("error")),
        columns=columns, others=others, with_claims=any(it.claim is not None for it in items),
        histogram=_histogram_png(rows, [headline] + (["ev2r"] if headline != "ev2r" else [])),
        items=[{"it": it, "k": k, "explained": it.row["explained"],
                "reading": reading(it.row, it.gold) if it.row["explained"] else None,
                "proxy": proxy_breakdown(it.row, it.gold, it.claim) if it.row["explained"] else None,
                "alignment": _alignment_matrix(it.row) if it.row["explained"] else None}
               for k, it in enumerate(items)],
        explained=explained, alpha=alpha, with_proxy=any(r.get("proxy") is not None for r in rows),
        ev2r_run=alpha is not None or any(r.get("ev2r") is not None for r in rows),
        ev2r_formula=ev2r_terms(alpha, times="\u00d7"), hybrid_formula=hybrid_terms(hybrid, times="\u00d7"),
        item_formulas=[(ev2r_terms(alpha, it.row, "\u00d7"), hybrid_terms(hybrid, it.row, "\u00d7")) for it in items],
        comparison=comparison,
    )


def headline_version(headline: str, signature: str) -> Optional[str]:
    """The versioned name to cite for the ``headline`` column of a run with ``signature``
    (:func:`ev2r.versions.identify`: ``"ev2r-hybrid/4"``, or ``"ev2r/custom-<fingerprint>"`` for an unregistered
    definition); None without a signature, for a column no version names (a baseline) or a signature it cannot read.
    """
    from ev2r.versions import SCORE_COLUMNS, identify

    name = next((n for n, col in SCORE_COLUMNS.items() if col == headline), None)
    if not signature or name is None:
        return None
    try:
        found = identify(signature).get(name)
    except ValueError:
        return None
    return found.label if found is not None else None


def run_headline(rows: Sequence[dict], signature: str = "") -> str:
    """The score a run's report heads with: ``ev2r_hybrid`` (:data:`ev2r.config.HEADLINE_SCORE`) when the rows hold
    the column, else ``ev2r`` when the run computed it (a value in a row, or ``alpha`` in its signature), else -- a run
    of the baselines alone (``ev2r score --scorer hu-meteor``), whose rows hold Ev2R's columns empty -- the first score
    column with a value (``hu_meteor``, what ``ev2r score`` prints first); ``ev2r`` when no column has one.

    >>> run_headline([{"id": 1, "status": "ok", "ev2r": None, "hu_meteor": 0.4}])
    'hu_meteor'
    """
    names = _score_names(rows)
    if HEADLINE_SCORE in names:
        return HEADLINE_SCORE
    if run_weights(signature)[0] is not None or any(r.get("ev2r") is not None for r in rows):
        return "ev2r"
    return next((c for c in names if any(r.get(c) is not None for r in rows)), "ev2r")


def read_run_record(scores_path: str | Path) -> Optional[dict]:
    """The run record ``ev2r score`` wrote beside ``scores_path`` (``SCORES.ev2r-run.json``), or None when there
    is none.

    Raises:
        ValueError: the record is there but is not a JSON object with a text ``signature`` (naming the file).
    """
    path = Path(str(scores_path) + ".ev2r-run.json")
    if not path.is_file():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: not a readable run record ({e}); remove it or score again") from None
    if not isinstance(record, dict) or not isinstance(record.get("signature", ""), str):
        raise ValueError(f"{path}: not a run record (expected a JSON object with a text signature, as `ev2r score` "
                         "writes); remove it or score again")
    return record


def write_report(scores_path: str | Path, out_path: str | Path, input_path: Optional[str] = None,
                 references: Optional[str] = None, title: Optional[str] = None,
                 comparison: Optional[dict] = None) -> int:
    """Read ``ev2r score`` rows (and the run record beside them, and the scored items when ``input_path`` is
    given), write the HTML report to ``out_path`` atomically (with ``comparison``, as :func:`render_report`).
    Returns the number of items.

    Raises:
        ev2r.io.readers.InputError / ValueError: unreadable rows or items (naming the file and row).
    """
    from claimalign.files import atomic_write
    from ev2r.io.readers import read_items, read_rows

    scores_path = Path(scores_path)
    rows = read_rows(scores_path)
    record = read_run_record(scores_path)
    from ev2r.io.rows import rows_problem

    problem = rows_problem(rows, record, str(scores_path))
    if problem is not None:  # a page would show numbers the named definition did not compute
        raise ValueError(problem)
    items = read_items(input_path, references=references) if input_path else None
    joined = report_items(rows, items, source=str(scores_path))
    if items is not None:
        unmatched = sum(1 for it in joined if it.claim is None)
        if unmatched:
            import warnings

            from ev2r.io.readers import InputWarning

            warnings.warn(f"--input {input_path}: {unmatched} of {len(joined)} rows have no item with the same content "
                          "(item_hash: claim, evidence, labels and row as scored): they are shown without claim and "
                          "evidence; give the file that was scored, unchanged", InputWarning, stacklevel=2)
    html = render_report(joined, record, title=title or f"ev2r report: {scores_path.name}", source=str(scores_path),
                         comparison=comparison)
    with atomic_write(out_path) as fh:
        fh.write(html)
    return len(joined)
