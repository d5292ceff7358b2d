"""``ev2r compare``: is a system better than a baseline on the same items, or is the difference noise?

The files are score files ``ev2r score -o`` wrote (rows with ``id``, ``status`` and score columns, the run record
``FILE.ev2r-run.json`` beside each) or, for convenience, prediction files (rows without a score column: any input
``ev2r score`` reads), which are scored here first, all with one scorer, the default
(:func:`ev2r.metric.factory.build_scorer`).

What is compared, per system against the baseline:

1. **the definitions** (:func:`definition_differences`): the full signatures in the run records, every field but the
   library versions and the engine (``ev2r``, ``transformers``, ``torch``, ``engine``: noted, not refused), so the
   versioned score names, the verifier and its weights' hash, its compute precision (``+bf16``: ``--dtype``), the
   decomposer and every rule; and the replay file (``--replay``, by file name), which the signature does not name.
   Files whose definitions differ, or a score file without a run record (or whose record is not of its rows), are
   refused (:class:`DefinitionMismatch`) unless ``allow_different_definitions``: a difference between them would
   mix the systems with the scorers.
2. **the items** (:func:`match_items`): rows are matched by ``id`` (as text: ``585`` and ``"585"`` are one item);
   an item that only one file holds, or that failed (``status`` other than ``ok``) on either side, is left out and
   counted, with its id; so is an ok item whose column is null on either side (e.g. ``ev2r_hybrid`` without nltk data).
3. **the statistics** (:mod:`ev2r.stats`) per score column on the paired items: both means, the difference
   (system - baseline) with its 95% paired bootstrap interval (Koehn 2004), the p-value of paired approximate
   randomisation (Riezler and Maxwell 2005), Holm-corrected over the systems when there are several, the items each
   side scores higher, and the items of largest absolute difference (to read with ``ev2r explain``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from ev2r.config import HEADLINE_SCORE
from ev2r.reporting.html import _NOT_SCORES, clean_rows
from ev2r.stats import (CONFIDENCE, DEFAULT_PERMUTATIONS, DEFAULT_RESAMPLES, DEFAULT_SEED, TIE_TOLERANCE,
                        PairedComparison, holm, paired_comparison)

__all__ = ["DefinitionMismatch", "ScoreRun", "Matching", "ColumnComparison", "SystemComparison", "Comparison",
           "load_run", "definition_differences", "match_items", "score_columns", "compare_runs", "format_text",
           "SHOWN_IDS", "LEVEL"]

#: How many ids a line of text names (the JSON has them all).
SHOWN_IDS = 5
#: The significance level the one-line readings use.
LEVEL = 0.05
_RUN_SUFFIX = ".ev2r-run.json"  # ev2r.engines.runs.RUN_SUFFIX (the engines are a sibling layer)
_FLAG = "--allow-different-definitions"


class DefinitionMismatch(ValueError):
    """Two files scored under different definitions (or one without a run record); the message names both files and
    what differs. ``ev2r compare`` exits 2 with it."""


@dataclass
class ScoreRun:
    """One file to compare, as score rows.

    Attributes:
        path: the file as given.
        rows: its score rows (checked by :func:`ev2r.reporting.html.clean_rows`: ``id``, ``status``, every score in
            [0, 1] or null).
        record: the run record (``signature``, ``options``, ``item_hashes``...), or None when there is none.
        record_problem: why the record cannot vouch for the rows (none beside the file, no signature, rows it does not
            hold), or None.
        scored_here: True for a prediction file scored by :func:`load_run` (its record is made here).
    """

    path: str
    rows: list[dict]
    record: Optional[dict] = None
    record_problem: Optional[str] = None
    scored_here: bool = False

    @property
    def signature(self) -> Optional[str]:
        """The full signature of the run, or None."""
        sig = (self.record or {}).get("signature")
        return sig if isinstance(sig, str) and sig else None


def _read_record(path: Path) -> tuple[Optional[dict], Optional[str]]:
    rec_path = Path(str(path) + _RUN_SUFFIX)
    if not rec_path.is_file():
        return None, f"{path} has no run record ({rec_path.name} beside it)"
    try:
        record = json.loads(rec_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"{rec_path}: not a readable run record ({e}); remove it or score again") from None
    if not isinstance(record, dict):
        raise ValueError(f"{rec_path}: not a run record (expected a JSON object, as `ev2r score` writes)")
    if not isinstance(record.get("signature"), str) or not record["signature"]:
        return record, f"{rec_path.name} holds no signature (a run that never scored?)"
    return record, None


def _rows_record(record: dict, path: str) -> tuple[dict, Optional[str]]:
    """The record of the rows ``path`` holds: an interrupted ``--no-resume`` run leaves its own record beside the
    earlier run's rows (``previous_out``), with that run's record in ``previous_record`` (record format 3)."""
    if not record.get("previous_out"):
        return record, None
    kept = record.get("previous_record")
    if isinstance(kept, dict) and isinstance(kept.get("signature"), str) and kept["signature"]:
        return kept, None
    return record, (f"the run record of {path} is of an interrupted --no-resume run, not of the rows {path} holds "
                    "(an earlier run's, whose record it does not keep)")


def _record_holds_rows(record: dict, rows: Sequence[dict], path: str) -> Optional[str]:
    """Why ``record`` is not the record of ``rows`` (a row made under another signature, a row of an item the record
    does not hold: a file edited, copied or resumed elsewhere), or None."""
    from ev2r.signature import text_digest

    # rows that carry their definition and seal (1.8.0 on): each checked as a resume does
    if record.get("format", 0) >= 3:
        from ev2r.io.rows import row_problem

        bad = [(r.get("id"), why) for r in rows if (why := row_problem(r, str(record.get("signature")))) is not None]
        if bad:
            return (f"{len(bad)} row(s) of {path} are not as the run that made them wrote them (id {bad[0][0]!r}: "
                    f"{bad[0][1]})")
    digest = text_digest(str(record.get("signature")))
    other = [r["id"] for r in rows if isinstance(r.get("signature_hash"), str) and r["signature_hash"] != digest]
    if other:
        return (f"{len(other)} row(s) of {path} were made under another definition than its run record's "
                f"(signature_hash; ids {_ids(other)})")
    hashes = record.get("item_hashes")
    if isinstance(hashes, list):
        known = set(hashes)
        foreign = [r["id"] for r in rows if r.get("item_hash") is not None and r["item_hash"] not in known]
        if foreign:
            return (f"{len(foreign)} row(s) of {path} are not items of its run record (ids {_ids(foreign)}): the "
                    "record is another run's")
    return None


def _is_score_rows(rows: Sequence[Any]) -> bool:
    from ev2r.reporting.html import KNOWN_SCORES

    return all(isinstance(r, dict) and "status" in r and "id" in r for r in rows) and any(
        k in r for r in rows for k in KNOWN_SCORES)


def load_run(path: str, *, references: Optional[str] = None,
             scorer: Optional[Callable[[], Any]] = None,
             on_scoring: Optional[Callable[[str, int], None]] = None, score_predictions: bool = True) -> ScoreRun:
    """Read one file to compare.

    Args:
        path: a score file (rows written by ``ev2r score -o``, with ``id``, ``status`` and score columns) or a
            prediction file (any input ``ev2r score`` reads; told apart by having no ``status`` or no score column).
        references: AVeriTeC gold JSON, for a prediction file in the AVeriTeC predictions format (as ``ev2r score``).
        scorer: returns the scorer to score a prediction file with (called once per file; pass a cached one to score
            several files under one definition); default :func:`ev2r.metric.factory.build_scorer` with no option.
        on_scoring: called ``(path, n_items)`` before a prediction file is scored (the CLI prints a line).
        score_predictions: False: a prediction file is refused (ValueError) instead of scored.

    Returns:
        A :class:`ScoreRun`; for a prediction file its record holds the scorer's signature and ``scored_by``.

    Raises:
        ev2r.io.readers.InputError / ValueError: an unreadable file, rows that are neither score rows nor items, a
            score value outside [0, 1], an unreadable run record (naming the file, row and field).
    """
    from ev2r.io.readers import read_rows

    rows = read_rows(path)
    if _is_score_rows(rows):
        cleaned = clean_rows(rows, str(path))
        record, problem = _read_record(Path(path))
        if record is not None and problem is None:
            record, problem = _rows_record(record, str(path))
        if record is not None and problem is None:
            problem = _record_holds_rows(record, rows, str(path))  # the rows as written: their seals hold those
        return ScoreRun(str(path), cleaned, record, problem)
    if not score_predictions:
        raise ValueError(f"{path}: not score rows (each row an object with id, status and score columns, as `ev2r "
                         "score -o` writes)")
    from ev2r.io.readers import items_from_rows, read_items, score_row

    items = read_items(path, references=references) if references else items_from_rows(rows, str(path))
    if scorer is None:
        from ev2r.metric.factory import build_scorer

        scorer = build_scorer
    if on_scoring is not None:
        on_scoring(str(path), len(items))
    s = scorer()
    scores = s.score(items)
    out = [score_row(it, sc) for it, sc in zip(items, scores)]
    record = {"signature": str(s.signature()), "scored_by": "ev2r compare (the default scorer)", "n_items": len(out)}
    return ScoreRun(str(path), clean_rows(out, str(path)), record, None, scored_here=True)


def _ids(ids: Sequence[Any], k: int = SHOWN_IDS) -> str:
    shown = ", ".join(str(i) for i in list(ids)[:k])
    return shown + (f", ... ({len(ids) - k} more)" if len(ids) > k else "")


def _dtype(value: str) -> str:
    """The compute precision a verifier's signature value ends with (``name@hash+bf16``), ``fp32`` without one."""
    head, plus, tail = value.rpartition("+")
    return tail if plus and "@" in head else "fp32"


def _weights(value: str) -> str:
    """A verifier's signature value without its compute precision (``name@hash``)."""
    return value if _dtype(value) == "fp32" else value.rpartition("+")[0]


def definition_differences(baseline: ScoreRun, system: ScoreRun) -> tuple[list[str], list[str]]:
    """What makes the two runs' numbers incomparable, and what differs without changing a number.

    Returns:
        ``(differences, notes)``, lists of text. ``differences``: a record problem of either file
        (:attr:`ScoreRun.record_problem`), the versioned score names (``ev2r-hybrid/4`` against a custom one), then
        every signature field that differs, the library versions and the engine aside (``verifier: A vs B``; a
        compute precision named as ``--dtype``), and the replay file's name. A field of the baseline columns
        (``extra-*``) or the graded columns' calibration (``cal``) counts only when both have it with other values.
        ``notes``: the library versions or engine that differ, and such fields only one side has.

    Raises:
        ValueError: a signature that is not ``key:value|...`` (naming the file).
    """
    from ev2r.signature import Signature
    from ev2r.versions import NON_SCORE_FIELDS, NON_SCORE_PREFIXES, RUNTIME_FIELDS, VERIFIER_FIELDS, identify

    differences = [p for p in (baseline.record_problem, system.record_problem) if p]
    if baseline.signature is None or system.signature is None:
        return differences, []
    fields, names = [], []
    for run, sig in ((baseline, baseline.signature), (system, system.signature)):
        try:
            fields.append(Signature.parse(sig or "").fields)
            names.append({name: ident.label for name, ident in identify(sig or "").items()})
        except ValueError as e:
            raise ValueError(f"{run.path}: the run record's signature cannot be read ({e})") from None
    fa, fb = fields
    for name in dict.fromkeys([*names[0], *names[1]]):
        la, lb = names[0].get(name, "not computed"), names[1].get(name, "not computed")
        if la != lb:
            differences.append(f"score version: {la} vs {lb}")
    notes = []
    for key in dict.fromkeys([*fa, *fb]):
        va, vb = fa.get(key), fb.get(key)
        if va == vb:
            continue
        shown = f"{key}: {va or 'absent'} vs {vb or 'absent'}"
        if key in RUNTIME_FIELDS:
            notes.append(f"{shown} (a library or engine, not the definition)")
        elif (key in NON_SCORE_FIELDS or key.startswith(NON_SCORE_PREFIXES)) and (va is None or vb is None):
            notes.append(f"{shown} (columns only one run has)")
        elif key in VERIFIER_FIELDS and va and vb and _weights(va) == _weights(vb):
            differences.append(f"{key} compute precision (--dtype): {_dtype(va)} vs {_dtype(vb)} ({va} vs {vb})")
        else:
            differences.append(shown)
    replay = []
    for run in (baseline, system):
        try:
            options = json.loads((run.record or {}).get("options") or "{}")
        except (TypeError, ValueError):
            options = {}
        path = options.get("replay") if isinstance(options, dict) else None
        replay.append(Path(path).name if isinstance(path, str) and path else None)
    if replay[0] != replay[1]:
        differences.append(f"replay file (--replay): {replay[0] or 'none'} vs {replay[1] or 'none'}")
    return differences, notes


@dataclass(frozen=True)
class Matching:
    """How two files' rows pair up by id (:func:`match_items`).

    Attributes:
        paired: ids (as text) of the items both hold with status ``ok``, in the baseline's order.
        only_baseline / only_system: ids only one file holds.
        failed_baseline / failed_system: ``(id, status)`` of items both hold that failed on that side.
        n_baseline / n_system: the rows of each file.
    """

    paired: list[str]
    only_baseline: list[str]
    only_system: list[str]
    failed_baseline: list[tuple[str, str]]
    failed_system: list[tuple[str, str]]
    n_baseline: int
    n_system: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, the failures as ``{id, status}`` objects."""
        return {"n_baseline": self.n_baseline, "n_system": self.n_system, "paired": len(self.paired),
                "only_baseline": self.only_baseline, "only_system": self.only_system,
                "failed_baseline": [{"id": i, "status": s} for i, s in self.failed_baseline],
                "failed_system": [{"id": i, "status": s} for i, s in self.failed_system]}

    def left_out(self, baseline: str, system: str) -> str:
        """One line on the items left out, each group with its count and first ids; ``nothing left out``."""
        parts = []
        if self.only_baseline:
            parts.append(f"{len(self.only_baseline)} not in {system} (ids {_ids(self.only_baseline)})")
        if self.only_system:
            parts.append(f"{len(self.only_system)} not in {baseline} (ids {_ids(self.only_system)})")
        for side, failed in ((baseline, self.failed_baseline), (system, self.failed_system)):
            if failed:
                shown = _ids([f"{i} {s}" for i, s in failed])
                parts.append(f"{len(failed)} failed in {side} (status other than ok: {shown})")
        return "left out: " + "; ".join(parts) if parts else "nothing left out"


def _by_id(run: ScoreRun) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for r in run.rows:
        key = str(r["id"])
        if key in out:
            raise ValueError(f"{run.path}: id {key!r} is in rows {out[key].get('row')} and {r.get('row')}: items are "
                             "matched by id, so each id must be one item")
        out[key] = r
    return out


def match_items(baseline: ScoreRun, system: ScoreRun) -> Matching:
    """Pair the two files' rows by id (module docstring).

    Raises:
        ValueError: an id repeated within a file (naming the file, the id and its rows).
    """
    a, b = _by_id(baseline), _by_id(system)
    both = [k for k in a if k in b]
    return Matching(
        paired=[k for k in both if a[k]["status"] == "ok" and b[k]["status"] == "ok"],
        only_baseline=[k for k in a if k not in b], only_system=[k for k in b if k not in a],
        failed_baseline=[(k, a[k]["status"]) for k in both if a[k]["status"] != "ok"],
        failed_system=[(k, b[k]["status"]) for k in both if b[k]["status"] != "ok"],
        n_baseline=len(a), n_system=len(b))


def score_columns(run: ScoreRun) -> list[str]:
    """The score columns of a file: fields that are numbers (or null) in its rows, in first-seen order."""
    names: list[str] = []
    for r in run.rows:
        for k, v in r.items():
            if (k not in _NOT_SCORES and k != "explained" and k not in names and not isinstance(v, bool)
                    and isinstance(v, (int, float))):
                names.append(k)
    return names


@dataclass
class ColumnComparison:
    """One score column of a system against the baseline.

    Attributes:
        column: the column (``ev2r_hybrid``).
        stats: the :class:`ev2r.stats.PairedComparison` over the paired items with a value on both sides.
        p_holm: the Holm-corrected p-value over the systems (the p-value itself for one system).
        no_value: ids of paired items left out because the column is null on either side.
        largest: the items of largest ``|system - baseline|`` (ties, within :data:`ev2r.stats.TIE_TOLERANCE`, left
            out): ``{id, baseline, system, difference}``.
    """

    column: str
    stats: PairedComparison
    p_holm: float
    no_value: list[str]
    largest: list[dict]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"column": self.column, **self.stats.to_dict(), "p_holm": self.p_holm, "no_value": self.no_value,
                "largest_differences": self.largest}


@dataclass
class SystemComparison:
    """One system against the baseline: definitions (:func:`definition_differences`: ``differences`` empty when
    they are the same), items (:class:`Matching`), one :class:`ColumnComparison` per column; ``scored_here``: a
    prediction file scored by :func:`load_run`; ``explained``: its rows hold reasons (``ev2r score --explain``)."""

    path: str
    baseline: str
    differences: list[str]
    notes: list[str]
    matching: Matching
    columns: dict[str, ColumnComparison]
    scored_here: bool = False
    explained: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; ``left_out`` is :meth:`Matching.left_out` in words."""
        return {"path": self.path, "same_definition": not self.differences, "differences": self.differences,
                "notes": self.notes, "scored_here": self.scored_here, "items": self.matching.to_dict(),
                "left_out": self.matching.left_out(self.baseline, self.path),
                "columns": {c: r.to_dict() for c, r in self.columns.items()}}


@dataclass
class Comparison:
    """Every system against one baseline (:func:`compare_runs`)."""

    baseline: str
    baseline_signature: Optional[str]
    systems: list[SystemComparison]
    columns: list[str]
    settings: dict = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON ``ev2r compare --json`` prints."""
        short = None
        if self.baseline_signature:
            from ev2r.versions import short_signature

            try:
                short = short_signature(self.baseline_signature)
            except ValueError:
                short = None
        return {"baseline": self.baseline, "baseline_short_signature": short, "columns": self.columns,
                "settings": self.settings, "systems": [s.to_dict() for s in self.systems]}


def _check_setting(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name}: expected an integer >= {minimum}, got {value!r}")
    return value


def compare_runs(baseline: ScoreRun, systems: Sequence[ScoreRun], columns: Optional[Sequence[str]] = None, *,
                 n_resamples: int = DEFAULT_RESAMPLES, n_permutations: int = DEFAULT_PERMUTATIONS,
                 seed: int = DEFAULT_SEED, top: int = 5, allow_different_definitions: bool = False) -> Comparison:
    """Compare every system with the baseline (module docstring).

    Args:
        baseline / systems: the runs (:func:`load_run`); at least one system.
        columns: score columns to compare (default: the headline, :data:`ev2r.config.HEADLINE_SCORE`); each must be a
            score column of every file.
        n_resamples / n_permutations / seed: the statistics' settings (:func:`ev2r.stats.paired_comparison`).
        top: how many items of largest absolute difference to keep per column (>= 0).
        allow_different_definitions: compare runs whose definitions differ (each :class:`SystemComparison` keeps
            ``differences``; the text says so on every line of a table).

    Raises:
        DefinitionMismatch: definitions that differ (or a missing or foreign run record) without
            ``allow_different_definitions``: naming both files and what differs.
        ValueError: no system, a column a file lacks (naming the file and its columns), fewer than 2 paired items
            with a value (naming both files and what was left out), an id repeated in a file, a bad setting.
    """
    if not systems:
        raise ValueError("SYSTEM: give at least one system to compare with the baseline")
    _check_setting("--resamples", n_resamples, 1)
    _check_setting("--permutations", n_permutations, 1)
    _check_setting("--top", top, 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"--seed: expected an integer >= 0, got {seed!r}")
    columns = list(dict.fromkeys(columns or [HEADLINE_SCORE]))
    for run in (baseline, *systems):
        have = score_columns(run)
        missing = [c for c in columns if c not in have]
        if missing:
            raise ValueError(f"--columns: {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not a score "
                             f"column of {run.path} (its columns: {', '.join(have) or 'none'})")
    results = []
    for run in systems:
        differences, notes = definition_differences(baseline, run)
        if differences and not allow_different_definitions:
            raise DefinitionMismatch(
                f"{baseline.path} and {run.path} were not scored under one definition: {'; '.join(differences)}. "
                f"A difference between them would mix the systems with the scorers: score both with the same options "
                f"(a prediction file given here is scored with the default scorer), or pass {_FLAG} (every line of "
                "the table then says so)")
        matching = match_items(baseline, run)
        a, b = _by_id(baseline), _by_id(run)
        cols = {}
        for c in columns:
            ids = [k for k in matching.paired if a[k].get(c) is not None and b[k].get(c) is not None]
            with_value = set(ids)
            no_value = [k for k in matching.paired if k not in with_value]
            if len(ids) < 2:
                raise ValueError(
                    f"{baseline.path} vs {run.path}: {len(ids)} item(s) with {c} on both sides ({len(matching.paired)} "
                    f"ok items in common of {matching.n_baseline} and {matching.n_system} rows; "
                    f"{matching.left_out(baseline.path, run.path)}"
                    f"{f'; {len(no_value)} without {c}' if no_value else ''}"
                    "): a paired comparison needs at least 2 of the same items (ids) scored in both files; runs on "
                    "different claims are not paired: read each run's own interval (`ev2r score`)")
            va = [float(a[k][c]) for k in ids]
            vb = [float(b[k][c]) for k in ids]
            stats = paired_comparison(va, vb, n_resamples=n_resamples, n_permutations=n_permutations, seed=seed)
            order = [j for j in sorted(range(len(ids)), key=lambda j: -abs(vb[j] - va[j]))
                     if abs(vb[j] - va[j]) > TIE_TOLERANCE][:top]
            largest = [{"id": a[ids[j]]["id"], "baseline": va[j], "system": vb[j], "difference": vb[j] - va[j]}
                       for j in order]
            cols[c] = ColumnComparison(c, stats, stats.p_value, no_value, largest)
        results.append(SystemComparison(run.path, baseline.path, differences, notes, matching, cols, run.scored_here,
                                        explained=any(r.get("explained") for r in run.rows)))
    if len(results) > 1:
        for c in columns:
            adjusted = holm([s.columns[c].stats.p_value for s in results])
            for s, p in zip(results, adjusted):
                s.columns[c].p_holm = p
    settings = {"resamples": n_resamples, "permutations": n_permutations, "seed": seed, "confidence": CONFIDENCE,
                "tie_tolerance": TIE_TOLERANCE, "top": top,
                "interval": "percentile paired bootstrap of the mean difference (Koehn 2004; scipy.stats.bootstrap)",
                "test": "paired approximate randomisation, two-sided: sign flips of the per-item differences "
                        "(Riezler and Maxwell 2005; scipy.stats.permutation_test, permutation_type='samples')",
                "correction": ("holm over the systems, per column (Holm 1979)" if len(results) > 1 else None),
                "allow_different_definitions": allow_different_definitions}
    return Comparison(baseline.path, baseline.signature, results, columns, settings)


# -- text for people ----------------------------------------------------------------------------------------------
def _signed(v: float) -> str:
    return f"{v:+.4f}"


def _p(v: float) -> str:
    return f"{v:.4f}" if v >= 1e-4 else f"{v:.1e}"


def _flips(s: PairedComparison) -> str:
    return f"exact, all 2^{s.n} sign flips" if s.exact else f"{s.n_permutations} random sign flips"


def format_text(comparison: Comparison) -> str:
    """The report ``ev2r compare`` prints: the items each system pairs with the baseline, the definitions, then per
    column a table (one row per system) with a one-line reading per system, and its items of largest difference
    with the ``ev2r explain`` command that shows why."""
    base = comparison.baseline
    systems = comparison.systems
    settings = comparison.settings
    many = len(systems) > 1
    differ = any(s.differences for s in systems)
    lines = [f"ev2r compare: baseline {base}; items matched by id, paired over those both files scored (status ok)"]
    for s in systems:
        lines.append(f"  {s.path}: {len(s.matching.paired)} items paired; {s.matching.left_out(base, s.path)}")
    if comparison.baseline_signature and not differ:
        short = comparison.to_dict()["baseline_short_signature"] or comparison.baseline_signature
        lines.append(f"definitions: the same in every file ({short})")
    for s in systems:
        if s.differences:
            lines.append(f"DIFFERENT DEFINITIONS ({_FLAG}): {s.path} vs {base}: {'; '.join(s.differences)}")
        for note in s.notes:
            lines.append(f"note: {s.path} vs {base}: {note}")
    for c in comparison.columns:
        first = systems[0].columns[c].stats
        what = " (the headline)" if c == HEADLINE_SCORE else ""
        lines += ["", f"{c}{what}: difference = system - baseline, with its {first.confidence:.0%} paired bootstrap "
                      f"interval ({settings['resamples']} resamples, seed {settings['seed']}); p = paired approximate "
                      f"randomisation (sign flips, up to {settings['permutations']}, seed {settings['seed']})"
                      + (f"; p (Holm) corrected over the {len(systems)} systems" if many else ""), ""]
        head = ["system", "n", "baseline", "system mean", "difference", "95% interval", "p"]
        head += ["p (Holm)"] if many else []
        head += ["items higher: system / baseline / tie"] + (["definition"] if differ else [])
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "|".join("---" if h in ("system", "95% interval", "definition") or h.startswith("items")
                                    else "---:" for h in head) + "|")
        for s in systems:
            r = s.columns[c]
            st = r.stats
            cells = [s.path, str(st.n), f"{st.baseline_mean:.4f}", f"{st.system_mean:.4f}", _signed(st.difference),
                     f"[{_signed(st.interval[0])}, {_signed(st.interval[1])}]", _p(st.p_value)]
            cells += [_p(r.p_holm)] if many else []
            cells += [f"{st.system_higher} / {st.baseline_higher} / {st.ties}"]
            cells += [("DIFFERENT: " + ", ".join(d.split(":")[0] for d in s.differences)) if s.differences
                      else "same"] if differ else []
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
        for s in systems:
            r = s.columns[c]
            st = r.stats
            p = r.p_holm if many else st.p_value
            name = "p (Holm)" if many else "p"
            verdict = ("unlikely to be noise" if p < LEVEL else "within noise") + f" at the {LEVEL:.0%} level"
            lines.append(f"{s.path} - {base} on {c}: {_signed(st.difference)} "
                         f"[{_signed(st.interval[0])}, {_signed(st.interval[1])}], {name} = {_p(p)} ({_flips(st)}): "
                         f"{verdict}" + (" (DIFFERENT DEFINITIONS)" if s.differences else ""))
            if r.no_value:
                lines.append(f"  {len(r.no_value)} paired item(s) left out, without {c} on both sides: "
                             f"ids {_ids(r.no_value)}")
            if r.largest:
                shown = ", ".join(f"{d['id']} {_signed(d['difference'])} ({d['baseline']:.3f} -> {d['system']:.3f})"
                                  for d in r.largest)
                lines.append(f"  largest differences (id, system - baseline, baseline -> system): {shown}")
                example = r.largest[0]["id"]
                if s.scored_here:
                    lines.append(f"  why an item scored what it did: ev2r explain {s.path} --id {example}")
                else:
                    rows = f" --scores {s.path}" if s.explained else ""
                    lines.append(f"  why an item scored what it did: ev2r explain INPUT --id {example}{rows} (INPUT: "
                                 f"the file {s.path} scored; the baseline's likewise)")
            elif settings.get("top"):
                lines.append("  no item differs")
    return "\n".join(lines) + "\n"

