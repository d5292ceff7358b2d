"""Battles between systems (:mod:`ev2r.ranking.rating`, module docstring): from per-item scores
(:func:`scores_table`, :func:`make_battles`, a tie within ``margin``; only rows whose ``status`` is ok or
absent count, :func:`counted_scores_table` counts the others) or from judged battle rows
(:func:`battles_from_rows`, as ``ev2r arena`` writes them); the rows of one system's file
(:func:`read_system_rows`).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

import numpy as np

from claimalign.ids import collision_reason, id_key
from claimalign.jsonio import line_of, row_where

from ev2r.types import is_valid_id

__all__ = ["DEFAULT_MARGIN", "BATTLE_FIELDS", "WINNERS", "NULL_SCORE", "Battles", "scores_table",
           "counted_scores_table",
           "row_counts", "skipped_text", "make_battles", "is_battle_row", "battles_from_rows", "read_system_rows"]

#: Default tie margin on per-item scores: differences up to 1e-6 (absolute) are float noise, a tie.
DEFAULT_MARGIN = 1e-6


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
    """``{item id: {system: score}}`` from rows; only rows that count (:func:`counted_scores_table`:
    ``status`` ok or absent, a score that is not null) enter it.

    Raises:
        ValueError: as :func:`counted_scores_table`.
    """
    return counted_scores_table(rows, system_field, score_field, id_field, source)[0]


#: Reason under which a row with status ``ok`` (or no ``status``) but a null score is skipped.
NULL_SCORE = "null score"


def row_counts(row: dict, where: str = "<row>") -> Optional[str]:
    """Why ``row`` does not battle, or None when it counts: a row counts when its ``status`` is
    ``"ok"`` (any case, outer spaces ignored) or it has no ``status`` field (a user's own score
    table); otherwise the reason is its status (``"replay_missing"``, ``"no_reference"``, ...).

    Raises:
        ValueError: a ``status`` that is not a non-empty string, naming ``where`` and the field.
    """
    if "status" not in row:
        return None
    status = row["status"]
    if not isinstance(status, str) or not status.strip():
        raise ValueError(f"{where}: field 'status' must be a non-empty string such as 'ok' (or left out), "
                         f"got {status!r}")
    return None if status.strip().lower() == "ok" else status.strip()


def counted_scores_table(rows: Iterable[Any], system_field: str = "system", score_field: str = "ev2r",
                         id_field: str = "id", source: str = "<input>"
                         ) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]:
    """``({item id: {system: score}}, {system: {reason: rows skipped}})`` from rows.

    Only rows that count battle and enter ``mean_score``: ``status`` ``"ok"`` or no ``status``
    field (:func:`row_counts`), and a score that is not null. Every other row is skipped and
    counted per system under its status (``replay_missing``, ``no_reference``, ...; a failed item
    can still carry a number, e.g. the reference-free ``proxy`` of a ``no_reference`` row), or
    under :data:`NULL_SCORE` when its status is ok but its score is null. Systems without skipped
    rows are absent from the second dict.

    Raises:
        ValueError: a row that is not an object, lacks ``id_field``/``system_field``/``score_field``,
            has a null/empty/non-scalar id, a non-numeric score, a ``status`` that is not a string,
            or repeats an (id, system) pair -- naming the row and field.
    """
    table: dict[str, dict[str, float]] = {}
    skipped: dict[str, dict[str, int]] = {}
    seen: dict[tuple[str, str], tuple[Any, str]] = {}
    for n, r in enumerate(rows):
        where = row_where(source, n, line_of(rows, n))
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
        raw, rid = rid, id_key(rid)
        if (rid, sysname) in seen:  # the one rule of every command (claimalign.ids), naming both rows
            first, first_where = seen[(rid, sysname)]
            raise ValueError(f"{source}: rows {first_where.rsplit('row ', 1)[1]} and {n} have one {id_field!r} "
                             f"{rid!r} for system {sysname!r}: {collision_reason(first, raw)}; an item has one score "
                             f"per system (field {id_field!r} must be unique per system)")
        seen[(rid, sysname)] = (raw, where)
        reason = row_counts(r, where)
        if reason is None and score is None:
            reason = NULL_SCORE
        if reason is not None:
            per = skipped.setdefault(sysname, {})
            per[reason] = per.get(reason, 0) + 1
            continue
        table.setdefault(rid, {})[sysname] = score  # type: ignore[assignment]
    return table, skipped


def skipped_text(skipped: dict[str, dict[str, int]]) -> str:
    """``"A: 5 (replay_missing 5); B: 1 (null score 1)"`` for :func:`counted_scores_table`'s
    skipped rows, systems by name; ``""`` when nothing was skipped."""
    return "; ".join(f"{s}: {sum(d.values())} (" + ", ".join(f"{k} {v}" for k, v in sorted(d.items())) + ")"
                     for s, d in sorted(skipped.items()) if d)


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
        where = row_where(source, n, line_of(rows, n))
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
