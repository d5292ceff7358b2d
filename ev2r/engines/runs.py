"""A scoring run's files beside its output ``OUT``, and what a rerun resumes (the Ray engine,
:mod:`ev2r.engines.ray_engine`, module docstring "Resuming").

* ``OUT.part``: finished chunks, appended (and flushed) as they come back (:func:`append_rows`);
  ``OUT`` is written at the end by atomic rename (:func:`write_atomic`).
* ``OUT.ev2r-run.json``: the run record, the scorer options (:func:`options_record`) and the
  signature; a rerun with other options is refused.
* :func:`plan_run`: which items an earlier run already scored with status ``ok`` (matched on
  ``id``; on ``id`` and ``row`` where the input repeats an id), which are left.

The scorer options are checked on the driver without loading a model (:func:`check_scorer_options`)
and their paths made absolute for workers on other nodes (:func:`absolute_paths`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

from ev2r.types import FactSupport, Item, ItemScore

#: Suffixes of the files kept beside ``OUT``: finished chunks so far, and the run record.
PART_SUFFIX = ".part"
RUN_SUFFIX = ".ev2r-run.json"

_ROW_FIELDS = ("id", "row", "precision", "recall", "f1", "proxy", "ev2r", "status", "error", "predicted_facts",
               "reference_facts")


# -- options ----------------------------------------------------------------------------------------------
class _Unloaded:
    """A verifier stand-in for validating options on the driver without loading a model."""

    name = "unloaded"

    def predict(self, premises, hypotheses):  # pragma: no cover - never called
        raise RuntimeError("the driver's option check never scores")


def check_scorer_options(options: dict):
    """Validate ``options`` as :func:`ev2r.metric.factory.build_scorer` would, without loading a model; the
    probe scorer (its ``chunk_size`` is the local chunk grid)."""
    from ev2r.metric.factory import build_scorer
    from claimalign.models import resolve_dtype

    opts = dict(options)
    if "progress" in opts:
        raise ValueError("scorer_options: 'progress' runs on the driver; pass progress= to score_ray")
    bs = opts.get("batch_size", 32)
    if isinstance(bs, bool) or not isinstance(bs, int) or bs < 1:
        raise ValueError(f"batch_size: must be an integer >= 1, got {bs!r}")
    dtype = opts.get("dtype", "auto")
    resolve_dtype(dtype, "cpu")  # names the allowed values; the device is resolved on each worker
    if isinstance(opts.get("verifier", "bundled"), str):
        opts["verifier"] = _Unloaded()
    return build_scorer(**opts)


def absolute_paths(options: dict) -> dict:
    """Relative paths in the options made absolute (workers do not share the driver's folder), and
    the LLM cache folder resolved on the driver (see the module docstring: one shared cache)."""
    opts = dict(options)
    v = opts.get("verifier", "bundled")
    if isinstance(v, str) and v != "bundled" and os.path.exists(v):
        opts["verifier"] = os.path.abspath(v)
    if opts.get("replay"):
        opts["replay"] = os.path.abspath(opts["replay"])
    if opts.get("decomposer") == "llm":
        llm = dict(opts.get("llm_options") or {})
        if llm.get("cache_dir") is not False and llm.get("llm_client") is None:
            from ev2r.llm.client import default_cache_dir

            llm["cache_dir"] = os.path.abspath(llm.get("cache_dir") or default_cache_dir())
        opts["llm_options"] = llm
    return opts


def options_record(options: dict) -> str:
    """A canonical JSON text of the scorer options, for the run record (objects by class name)."""
    def enc(o):
        return f"<{type(o).__module__}.{type(o).__qualname__}>"

    return json.dumps(options, sort_keys=True, default=enc)


# -- rows and files -------------------------------------------------------------------------------------
def row_key(row_id: Any, row: Any, repeated: set) -> Any:
    rid = str(row_id)
    return (rid, row) if rid in repeated else rid


def score_from_row(d: dict) -> ItemScore:
    """Rebuild an :class:`ItemScore` from an output row (for the corpus summary of resumed items)."""
    def facts(v):
        return [FactSupport(**f) if isinstance(f, dict) else f for f in (v or [])]

    extra = {k: v for k, v in d.items() if k not in _ROW_FIELDS}
    return ItemScore(id=str(d["id"]), row=d.get("row", 0), precision=d.get("precision"), recall=d.get("recall"),
                     f1=d.get("f1"), proxy=d.get("proxy"), ev2r=d.get("ev2r"), status=d.get("status", "ok"),
                     error=d.get("error"), predicted_facts=facts(d.get("predicted_facts")),
                     reference_facts=facts(d.get("reference_facts")), extra_scores=extra)


def previous_rows(output: Path) -> list[dict]:
    """Rows of an earlier run: ``OUT`` then ``OUT.part`` (a later row for the same key wins). A
    truncated last line of ``OUT.part`` (a run killed while writing) is ignored."""
    from ev2r.io.readers import InputError, read_rows

    rows: list[dict] = []
    if output.exists():
        try:
            rows.extend(r for r in read_rows(output) if isinstance(r, dict))
        except InputError as e:
            raise ValueError(f"-o/--output: {output} exists but cannot be read back to resume ({e}); "
                             "delete it or pass another -o") from None
    part = Path(str(output) + PART_SUFFIX)
    if part.exists():
        for line in part.read_text(encoding="utf-8").split("\n"):
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if isinstance(r, dict):
                rows.append(r)
    return rows


def write_atomic(rows: Sequence[dict], path: Path) -> None:
    from ev2r.io.readers import write_jsonl

    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    write_jsonl(rows, tmp)
    os.replace(tmp, path)


def append_rows(fh, rows: Sequence[dict]) -> None:
    from claimalign.textio import dumps_jsonl

    fh.write("".join(dumps_jsonl(r) + "\n" for r in rows))
    fh.flush()
    os.fsync(fh.fileno())


# -- what is left to score --------------------------------------------------------------------------------
@dataclass
class RunPlan:
    """What :func:`plan_run` found.

    Attributes:
        out_path, record_path, part_path: ``OUT``, ``OUT.ev2r-run.json``, ``OUT.part`` (None without OUT).
        record: the run record to write (``engine``, ``options``, ``signature`` of an earlier run or None).
        repeated: item ids that occur more than once in the input (keyed with their row).
        done: ``{row_key: row}`` of the items an earlier run scored with status ok.
        pending: positions of the items left to score, in input order.
    """

    out_path: Optional[Path]
    record_path: Optional[Path]
    part_path: Optional[Path]
    record: dict
    repeated: set
    done: dict = field(default_factory=dict)
    pending: list = field(default_factory=list)

    def key(self, item: Item) -> Any:
        """The key of ``item`` in :attr:`done`."""
        return row_key(item.id, item.row, self.repeated)


def plan_run(items: Sequence[Item], output: Optional[str | os.PathLike], options: dict, resume: bool,
             engine: str = "ray") -> RunPlan:
    """Find what an earlier run into ``output`` already scored, and write the new run record.

    Args:
        items: the items of this run, in input order.
        output: ``OUT``, or None (nothing resumed, nothing written).
        options: the scorer options (as sent to the workers).
        resume: skip the items ``OUT``/``OUT.part`` hold with status ok; False: start afresh
            (``OUT.part`` removed).
        engine: the engine named in the run record.

    Raises:
        ValueError: ``OUT`` was written with other scorer options (its run record says so), or
            ``OUT`` exists but cannot be read back.
    """
    out_path = Path(output) if output else None
    record_path = Path(str(out_path) + RUN_SUFFIX) if out_path else None
    part_path = Path(str(out_path) + PART_SUFFIX) if out_path else None
    record = {"engine": engine, "options": options_record(options), "signature": None}
    counts: dict[str, int] = {}
    for it in items:
        counts[it.id] = counts.get(it.id, 0) + 1
    plan = RunPlan(out_path, record_path, part_path, record, {i for i, c in counts.items() if c > 1})
    if out_path is not None and resume:
        if record_path.exists():
            try:
                old = json.loads(record_path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                old = {}
            if old.get("options") is not None and old.get("options") != record["options"]:
                raise ValueError(f"-o/--output: {out_path} was written with other scorer options "
                                 f"({record_path.name}); resuming would mix numbers: delete {out_path} "
                                 f"(and {record_path.name}) or pass another -o")
            record["signature"] = old.get("signature")
        wanted = {plan.key(it) for it in items}
        for r in previous_rows(out_path):
            if r.get("status") == "ok" and "id" in r:
                key = row_key(r["id"], r.get("row"), plan.repeated)
                if key in wanted:
                    plan.done[key] = r
    elif out_path is not None and part_path.exists():
        part_path.unlink()
    plan.pending = [k for k, it in enumerate(items) if plan.key(it) not in plan.done]
    if out_path is not None:
        out_path.parent.mkdir(parents=True, exist_ok=True)
        write_record(plan)
    return plan


def write_record(plan: RunPlan) -> None:
    """Write the run record ``OUT.ev2r-run.json`` (nothing without OUT)."""
    if plan.record_path is not None:
        plan.record_path.write_text(json.dumps(plan.record, indent=1) + "\n", encoding="utf-8")
