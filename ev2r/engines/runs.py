"""A scoring run's files beside its output ``OUT``, and what a rerun resumes: the one resume code of both engines
(:mod:`ev2r.engines.local_engine` and :mod:`ev2r.engines.ray_engine`).

* ``OUT.ev2r-run.json``, the run record, written **before** any scoring: the engine, the scorer options
  (:func:`options_record`), ``with_facts``, the signature and the content hash of every input item.
* ``OUT.part``: finished chunks, appended and flushed as they are scored (:func:`append_rows`); ``OUT`` is written
  at the end by atomic rename (:func:`finish_run`).
* :func:`plan_run`: which items an earlier run already scored. A row is reused only when its status is reusable
  (:data:`REUSABLE_STATUSES`), every component was computed, its ``item_hash`` is that of an item of this run and
  the record has the same options; ``OUT`` without a run record is refused unless ``resume=False``
  (``--no-resume``), which starts afresh and deletes nothing until the new rows replace ``OUT``.
* :func:`output_lock`: one run at a time per ``OUT`` (``OUT.lock``, taken over with a :class:`RunWarning` from a run
  that died).

A run never deletes or replaces what is not a regular file ev2r wrote (refused by name; a symlink is followed), and
a resume never drops an earlier run's rows silently (:class:`DroppedRowsError`; changed items are counted in a
:class:`RunWarning` and scored again). The scorer options are checked on the driver without loading a model
(:func:`check_scorer_options`) and their paths made absolute for workers on other nodes (:func:`absolute_paths`).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Optional, Sequence

from claimalign import files, jsonio
from ev2r.config import options_match
from ev2r.io.rows import (ROW_HASH, SIGNATURE_HASH, output_row, row_problem, row_seal,  # noqa: F401 (re-exported)
                          score_from_row)
from ev2r.types import STATUS_NO_LABEL, STATUS_NO_REFERENCE, STATUS_OK, Item, ItemScore
from ev2r.verifier.cache import cache_record

#: Suffixes of the files kept beside ``OUT``: finished chunks so far, and the run record.
PART_SUFFIX = ".part"
RUN_SUFFIX = ".ev2r-run.json"
#: Suffix of the lock file a run holds beside ``OUT`` (:func:`output_lock`).
LOCK_SUFFIX = ".lock"


class RunWarning(UserWarning):
    """Something a run into ``OUT`` did that the user should know: rows of changed items replaced, a stale
    lock of a dead run taken over."""


class OutputLocked(ValueError):
    """Another run holds ``OUT`` (:func:`output_lock`); the message names its pid, host and start time."""


class DroppedRowsError(ValueError):
    """A resume would drop rows of ``OUT`` whose items are not in this run (:func:`plan_run`)."""

#: Statuses of rows a resume reuses: ``ok``, and the failures that are a property of the item itself
#: (no reference evidence, no gold verdict: scored again they fail again, with the same reference-free
#: values). Rows that failed for a passing reason (``error``, ``api_error``, ``timeout``,
#: ``parse_error``, replay statuses...) are scored again.
REUSABLE_STATUSES = (STATUS_OK, STATUS_NO_REFERENCE, STATUS_NO_LABEL)

#: The format of the run record (1: the records before item hashes, which no row matches; 2: rows without
#: ``signature_hash`` / ``row_hash``, before 1.8.0). A record of another format is never resumed.
RUN_FORMAT = 3



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
    if isinstance(opts.get("cache"), (str, os.PathLike)):
        opts["cache"] = os.path.abspath(os.path.expanduser(opts["cache"]))
    if opts.get("decomposer") == "llm":
        llm = dict(opts.get("llm_options") or {})
        if llm.get("cache_dir") is not False and llm.get("llm_client") is None:
            from ev2r.llm.client import default_cache_dir

            llm["cache_dir"] = os.path.abspath(llm.get("cache_dir") or default_cache_dir())
        opts["llm_options"] = llm
    return opts


def options_record(options: dict) -> str:
    """A canonical JSON text of the scorer options, for the run record (objects by class name). The on-disk cache
    (``cache``, :mod:`ev2r.verifier.cache`) is left out: it changes no number's definition, so a run resumes with or
    without it; the record names it apart (:func:`ev2r.verifier.cache.cache_record`)."""
    def enc(o):
        return f"<{type(o).__module__}.{type(o).__qualname__}>"

    return json.dumps({k: v for k, v in options.items() if k != "cache"}, sort_keys=True, default=enc)


# -- rows and files -------------------------------------------------------------------------------------
def previous_rows(output: Path, include_out: bool = True) -> list[dict]:
    """Rows of an earlier run: ``OUT`` (unless ``include_out`` is False: a ``--no-resume`` run was
    interrupted before replacing it) then ``OUT.part`` (a later row for the same key wins). A
    truncated last line of ``OUT.part`` (a run killed while writing) is ignored."""
    return [r for _, r in previous_rows_at(output, include_out)]


def previous_rows_at(output: Path, include_out: bool = True, include_part: bool = True) -> list[tuple[str, dict]]:
    """:func:`previous_rows` with where each row is (``"OUT line N"``, ``"OUT.part line N"``), for messages."""
    from ev2r.io.readers import InputError, read_rows

    rows: list[tuple[str, dict]] = []
    if include_out and output.exists():
        try:
            rows.extend((f"{output} line {k}", r) for k, r in enumerate(read_rows(output), 1) if isinstance(r, dict))
        except InputError as e:
            raise ValueError(f"-o/--output: {output} exists but cannot be read back to resume ({e}); "
                             "delete it or pass another -o") from None
    part = Path(str(output) + PART_SUFFIX)
    if include_part and part.exists():
        for k, line in enumerate(part.read_text(encoding="utf-8").split("\n"), 1):
            try:
                r = jsonio.loads_checked(line, f"{part}")
            except ValueError:  # a torn last line of a killed run (or a row too deep to be ours)
                continue
            if isinstance(r, dict):
                rows.append((f"{part} line {k}", r))
    return rows


def _read_record(path: Optional[Path]) -> Optional[dict]:
    """The run record at ``path`` as a dict, or None (missing, unreadable, not an object)."""
    if path is None or not path.exists():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def write_atomic(rows: Sequence[dict], path: Path) -> None:
    """Write ``rows`` as JSONL to ``path`` through :func:`claimalign.files.atomic_write` (``path`` is
    either the old file or the complete new one, never a torn one; a symlink is followed, its target
    replaced and the link kept).

    Raises:
        OSError: the folder cannot be written (the temporary file is removed).
    """
    with files.atomic_write(path) as fh:
        for r in rows:
            fh.write(jsonio.dumps_jsonl(r) + "\n")


def append_rows(fh, rows: Sequence[dict]) -> None:
    """Append ``rows`` (one JSON line each) to the open file ``fh``, flushed and synced to disk."""
    from claimalign.jsonio import dumps_jsonl

    fh.write("".join(dumps_jsonl(r) + "\n" for r in rows))
    fh.flush()
    os.fsync(fh.fileno())


# -- ev2r's own files, and the lock ----------------------------------------------------------------------------
def _is_ev2r_rows(path: Path) -> bool:
    """True when ``path`` (a regular file) is empty or holds score rows as ev2r writes them: every complete
    line a JSON object with ``id`` and ``status`` (a torn last line, as a killed run leaves in ``OUT.part``,
    is allowed)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    lines = text.split("\n")
    if lines and not text.endswith("\n"):
        lines = lines[:-1]  # a torn last line
    for line in lines:
        if not line.strip():
            continue
        try:
            r = json.loads(line)
        except ValueError:
            return False
        if not (isinstance(r, dict) and "id" in r and "status" in r):
            return False
    return True


def _check_ours(path: Path, what: str, record: bool = False) -> None:
    """Refuse (ValueError naming ``path``) to replace or empty ``path`` unless it is a regular file ev2r
    wrote: score rows (:func:`_is_ev2r_rows`) or, with ``record``, a run record (a JSON object with
    ``format``). A symlink to such a file is followed. Nothing there: nothing to check."""
    if not os.path.lexists(path):
        return
    kind = files.output_kind(path)
    if kind != "file":
        raise ValueError(f"-o/--output: {path} ({what}) is not a regular file ({kind}); ev2r replaces or removes "
                         "only regular files it wrote: move it away or pass another -o")
    if record:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            doc = None
        ok = isinstance(doc, dict) and "format" in doc
    else:
        ok = _is_ev2r_rows(path)
    if not ok:
        raise ValueError(f"-o/--output: {path} ({what}) exists and was not written by ev2r score (not "
                         f"{'a run record' if record else 'score rows: JSON objects with id and status'}); "
                         "ev2r replaces only files it wrote, even with --no-resume: move it away or pass another -o")


def _pid_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _holder_text(info: dict) -> str:
    when = info.get("started")
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(when)) if isinstance(when, (int, float)) else "?"
    return f"pid {info.get('pid', '?')} on {info.get('host', '?')}, started {started}"


def _is_ev2r_lock(path: Path) -> bool:
    """Whether ``path`` is a lock file an ev2r run wrote: empty (a run that died while writing it) or a JSON
    object with the holder's ``pid``, ``host`` and ``started``."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")[:4096]
    except OSError:
        return False
    if not text.strip():
        return True
    try:
        record = json.loads(text)
    except ValueError:
        return False
    return isinstance(record, dict) and {"pid", "host", "started"} <= set(record)


@contextlib.contextmanager
def output_lock(output: Optional[str | os.PathLike]) -> Iterator[Optional[dict]]:
    """Hold ``OUT.lock`` while a run plans, scores and writes ``OUT``, so two runs into one ``OUT`` cannot
    lose each other's rows. The lock file holds the holder's pid, host and start time (JSON); the lock
    itself is the kernel's ``flock`` on it, released when the holder exits however it ends, so a lock file
    left by a run that was killed is stale and detected: it is taken over with a :class:`RunWarning` naming
    the dead holder. Where ``flock`` is unavailable, a holder whose pid no longer runs on this host is stale.

    Args:
        output: ``OUT``; None: nothing is locked (yields None).

    Yields:
        the lock's content (``pid``, ``host``, ``started``), or None without ``output``.

    Raises:
        OutputLocked: (a ValueError) another live run holds ``OUT.lock``, naming its pid, host and start.
        ValueError: ``OUT.lock`` is not a regular file (a device, a FIFO, a folder): never replaced.
    """
    if output is None:
        yield None
        return
    path = Path(str(output) + LOCK_SUFFIX)
    if os.path.lexists(path) and (os.path.islink(path) or files.output_kind(path) != "file"):
        raise ValueError(f"-o/--output: the lock file {path} is not a regular file "
                         f"({'a symlink' if os.path.islink(path) else files.output_kind(path)}); "
                         "ev2r never replaces it: move it away or pass another -o")
    if os.path.lexists(path) and not _is_ev2r_lock(path):
        raise ValueError(f"-o/--output: {path} exists and is not an ev2r lock file (it holds no ev2r holder record); "
                         "ev2r never replaces a file it did not write: move it away or pass another -o")
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        fcntl = None  # type: ignore[assignment]
    me = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.time()}
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        try:
            previous_text = os.read(fd, 4096).decode("utf-8", "replace")
            try:
                previous = json.loads(previous_text) if previous_text.strip() else None
            except ValueError:
                previous = None
            if fcntl is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    raise OutputLocked(
                        f"-o/--output: {output} is being written by another ev2r score run "
                        f"({_holder_text(previous or {})}; lock file {path}): wait for it to finish or pass another "
                        "-o (two runs into one output would lose each other's rows)") from None
            elif (isinstance(previous, dict) and previous.get("host") == me["host"]
                  and isinstance(previous.get("pid"), int) and previous["pid"] != me["pid"]
                  and _pid_running(previous["pid"])):  # pragma: no cover - not POSIX
                raise OutputLocked(f"-o/--output: {output} is being written by another ev2r score run "
                                   f"({_holder_text(previous)}; lock file {path})")
            try:  # the file we locked is still the one at the path (a holder that finished removes it)
                same = os.stat(path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if not same:
                os.close(fd)
                continue
        except BaseException:
            with contextlib.suppress(OSError):
                os.close(fd)
            raise
        break
    try:
        if isinstance(previous, dict) and previous.get("pid") is not None:
            warnings.warn(f"{output}: took over the stale lock {path.name} of a run that is no longer running "
                          f"({_holder_text(previous)}); its rows so far are resumed as usual", RunWarning,
                          stacklevel=3)
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, (json.dumps(me) + "\n").encode("utf-8"))
        os.fsync(fd)
        yield me
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)  # ours: we hold the flock on it
        os.close(fd)


# -- what is left to score --------------------------------------------------------------------------------
@dataclass
class RunPlan:
    """What :func:`plan_run` found.

    Attributes:
        out_path, record_path, part_path: ``OUT``, ``OUT.ev2r-run.json``, ``OUT.part`` (None without OUT).
        record: the run record written (``format``, ``engine``, ``options``, ``with_facts``,
            ``signature`` -- this run's, or an earlier run's with the same options, or None --,
            ``n_items``, ``item_hashes``).
        hashes: the content hash of each item (:func:`ev2r.io.readers.item_hash`), in input order.
        done: ``{position: row}`` of the items an earlier run scored (a status in
            :data:`REUSABLE_STATUSES`) with the same hash.
        pending: positions of the items left to score, in input order.
    """

    out_path: Optional[Path]
    record_path: Optional[Path]
    part_path: Optional[Path]
    record: dict
    hashes: list = field(default_factory=list)
    done: dict = field(default_factory=dict)
    pending: list = field(default_factory=list)

    @property
    def n_resumed(self) -> int:
        """Items taken from the earlier run."""
        return len(self.done)


def _reusable(row: dict) -> bool:
    """A row a resume may keep: status ``ok``, or a failure that is the item's own (:data:`REUSABLE_STATUSES`)
    and nothing else failed beside it (e.g. a proxy that raised), and every component computed: a row
    whose ``error`` says a component was unavailable in the environment it was scored in
    (:data:`ev2r.metric.combined.UNAVAILABLE`: nltk data, the encoder) is scored again when this run can
    compute it (the nltk data is found now; an encoder is always tried again), since what a row was scored
    with includes what it lacked."""
    from ev2r.metric.combined import UNAVAILABLE

    status, error = row.get("status"), str(row.get("error") or "")
    if UNAVAILABLE in error and not _still_unavailable(error):
        return False
    if status == STATUS_OK:
        return True
    return status in REUSABLE_STATUSES and "scoring failed" not in error


def _still_unavailable(error: str) -> bool:
    """True when what ``error`` says was unavailable is unavailable now too, so that scoring the row again
    would give it again: the nltk data of the METEOR columns (checked here); an encoder is never assumed
    to be still missing (the row is scored again)."""
    from ev2r.metric.combined import EMBEDDING_COLUMN, UNAVAILABLE

    if f"{EMBEDDING_COLUMN} {UNAVAILABLE}" in error:
        return False
    from claimalign.nltk_data import require_nltk_data

    try:
        require_nltk_data()
    except RuntimeError:
        return True
    return False


def _facts_mode(with_facts) -> object:
    """``False``, ``True`` or ``"explain"``: what the rows carry (:func:`ev2r.io.readers.score_row`)."""
    return "explain" if with_facts == "explain" else bool(with_facts)


def _no_record_message(out_path: Path, record_path: Path, found: str) -> str:
    return (f"-o/--output: {found} exists but has no run record {record_path.name} (not written by a resumable "
            f"ev2r score run, or by an older ev2r), so ev2r cannot tell which input and options its rows were "
            f"scored with: pass another -o, or --no-resume to score afresh and replace {out_path}")


def _check_dropped(dropped: list[dict], ids: set, out_path: Path, items: Sequence[Item] = ()) -> None:
    """Say what a resume does with the earlier rows no item of this run takes (see :func:`plan_run`):
    rows whose id is not in this run are refused (:class:`DroppedRowsError`; named by id, the key a resume
    joins on: their items are in no input of this run); rows of an id of this run (its content changed) are
    counted in a :class:`RunWarning`, named as every message names a row of the input: its row, line and id
    (:func:`ev2r.io.readers.row_ref`, ``items``: this run's)."""
    from ev2r.io.readers import row_ref

    def shown(rows: list[dict]) -> str:
        first = ", ".join(repr(r.get("id")) for r in rows[:5])
        return first + (f" and {len(rows) - 5} more" if len(rows) > 5 else "")

    by_id = {str(it.id): it for it in items}

    def shown_here(rows: list[dict]) -> str:
        its = [by_id.get(str(r.get("id"))) for r in rows[:5]]
        refs = [row_ref(it.row, it.line, f"id {it.id}") if it is not None else repr(r.get("id"))
                for it, r in zip(its, rows)]
        return ", ".join(refs) + (f" and {len(rows) - 5} more" if len(rows) > 5 else "")

    gone = [r for r in dropped if str(r.get("id")) not in ids]
    changed = [r for r in dropped if str(r.get("id")) in ids]
    if gone:
        raise DroppedRowsError(
            f"-o/--output: {out_path} holds {len(gone)} row(s) of items that are not in this run (ids {shown(gone)}): "
            "another input, or a smaller --limit, than the run that wrote them; resuming would drop them from "
            f"{out_path}. Pass another -o, or --no-resume to replace {out_path} with this run's rows "
            "only")
    if changed:
        warnings.warn(f"{out_path}: {len(changed)} earlier row(s) are of items whose content changed since they were "
                      f"scored (rows (from 0; line = the line of the file): {shown_here(changed)}; another "
                      "item_hash): they are scored again and their old rows "
                      "dropped", RunWarning, stacklevel=3)


def plan_run(items: Sequence[Item], output: Optional[str | os.PathLike], options: dict, resume: bool,
             engine: str = "ray", with_facts: bool = False, signature: Optional[str] = None) -> RunPlan:
    """Find what an earlier run into ``output`` already scored, and write this run's record.

    Args:
        items: the items of this run, in input order.
        output: ``OUT``, or None (nothing resumed, nothing written).
        options: the scorer options (as the engine builds its scorers with them).
        resume: reuse the rows ``OUT``/``OUT.part`` hold with a status in :data:`REUSABLE_STATUSES`
            whose ``item_hash`` is an item's of this run; False: start afresh -- nothing is deleted:
            ``OUT.part`` is emptied and ``OUT`` kept until this run's rows replace it (the record marks its
            rows as not to be resumed meanwhile), each only when it is a regular file ev2r wrote.
        engine: the engine named in the run record (``local`` or ``ray``); an earlier run of either
            engine is resumed (they write the same rows).
        with_facts: the rows carry the atomic facts (True), and their reasons too (``"explain"``, ``--explain``);
            part of what must match.
        signature: this run's scorer signature when known before scoring (the local engine); it must
            equal an earlier record's, if that has one.

    Raises:
        ValueError: with ``resume``: ``OUT`` or ``OUT.part`` exists without a run record; the run
            record cannot be read; it was made with other scorer options, another ``with_facts``
            or another signature; ``OUT`` exists but cannot be read back. Each message says what
            to do (another ``-o``, or ``--no-resume``). Without ``resume``: ``OUT``, ``OUT.part`` or the
            record is not a regular file ev2r wrote (never replaced).
        DroppedRowsError: (a ValueError) with ``resume``: ``OUT`` / ``OUT.part`` hold rows of items that
            are not in this run (another input, a smaller ``--limit``), which the run would drop: their
            number and first ids are named; ``--no-resume`` (``resume=False``) or another ``-o``.

    Warns:
        RunWarning: rows of items of this run whose content changed since (same id, another
            ``item_hash``) are scored again and replace the old rows: counted, with their ids.
    """
    from ev2r.io.readers import item_hash

    out_path = Path(output) if output else None
    record_path = Path(str(out_path) + RUN_SUFFIX) if out_path else None
    part_path = Path(str(out_path) + PART_SUFFIX) if out_path else None
    hashes = [item_hash(it) for it in items]
    record = {"format": RUN_FORMAT, "engine": engine, "options": options_record(options),
              "with_facts": _facts_mode(with_facts), "signature": signature, "n_items": len(items),
              "item_hashes": hashes}
    cache = cache_record(options)
    if cache is not None:
        record["cache"] = cache
    plan = RunPlan(out_path, record_path, part_path, record, hashes)
    if out_path is not None and resume:
        found = [p for p in (out_path, part_path) if p.exists()]
        if found and not record_path.exists():
            raise ValueError(_no_record_message(out_path, record_path, found[0]))
        if record_path.exists():
            try:
                old = json.loads(record_path.read_text(encoding="utf-8"))
                if not isinstance(old, dict):
                    raise ValueError("not a JSON object")
            except (OSError, ValueError) as e:
                raise ValueError(f"-o/--output: the run record {record_path} cannot be read ({e}): pass another "
                                 f"-o, or --no-resume to score afresh and replace {out_path}") from None
            again = f"pass another -o, or --no-resume to score afresh and replace {out_path}"
            if old.get("format") != RUN_FORMAT:
                raise ValueError(f"-o/--output: the run record {record_path} has format {old.get('format')!r}; this "
                                 f"ev2r writes and resumes format {RUN_FORMAT} only (its rows name the definition that "
                                 f"made them): {again}")
            if old.get("previous_out") and not options_match(old.get("options"), record["options"]):
                kept = old.get("previous_record")
                if isinstance(kept, dict) and options_match(kept.get("options"), record["options"]):
                    # this run's options are those of the complete output an interrupted --no-resume run left: resume
                    # that output, and leave the interrupted run's rows (in OUT.part, other options) out
                    warnings.warn(f"{out_path}: an interrupted --no-resume run with other options left {out_path.name}"
                                  f"{PART_SUFFIX}; this run has the options of the complete {out_path.name} before it, "
                                  f"so that output is resumed and the interrupted run's rows are dropped", RunWarning,
                                  stacklevel=3)
                    old = {**kept, "previous_out": False}
                    record["discard_part"] = True
                else:
                    raise ValueError(
                        f"-o/--output: a --no-resume run with other scorer options was interrupted before it replaced "
                        f"{out_path} ({record_path.name} is that run's); {out_path} still holds the earlier run's "
                        "rows. Rerun the interrupted command to finish it; to keep the earlier output instead, pass "
                        f"the earlier run's options (its rows are then resumed), or move {out_path} away first")
            if not options_match(old.get("options"), record["options"]):
                raise ValueError(f"-o/--output: {out_path} was written with other scorer options "
                                 f"({record_path.name}); resuming would mix numbers: {again}")
            if _facts_mode(old.get("with_facts", False)) != record["with_facts"]:
                had = {False: "without --explain", True: "with its atomic facts but no reasons (the Python API's "
                       "facts alone, or ev2r 1.9)", "explain": "with --explain"}[
                    _facts_mode(old.get("with_facts", False))]
                raise ValueError(f"-o/--output: {out_path} was written {had} ({record_path.name}); "
                                 f"give the same --explain to resume, or {again}")
            if signature is not None and old.get("signature") not in (None, signature):
                raise ValueError(f"-o/--output: {out_path} was scored under another signature "
                                 f"({old.get('signature')!r}, this run {signature!r}: another model, version or "
                                 f"setting); resuming would mix numbers: {again}")
            if record["signature"] is None:
                record["signature"] = old.get("signature")
            if old.get("previous_out"):  # a --no-resume run was interrupted: OUT's rows are not its own
                record["previous_out"] = True
                if isinstance(old.get("previous_record"), dict):
                    record["previous_record"] = old["previous_record"]
        position = {h: k for k, h in enumerate(hashes)}  # a hash names one position (it includes the row)
        ids = {it.id for it in items}
        dropped: dict[str, dict] = {}  # item_hash (or the row's text) -> an earlier row no item of this run takes
        discard_part = bool(record.pop("discard_part", False))
        for where, r in previous_rows_at(out_path, include_out=not record.get("previous_out"),
                                         include_part=not discard_part):
            k = position.get(str(r.get("item_hash")))
            if k is not None and _reusable(r):  # a row to reuse: it must be this definition's, as it was written
                problem = row_problem(r, record["signature"])
                if problem is not None:
                    raise ValueError(f"-o/--output: {where} (id {r.get('id')!r}) cannot be resumed: {problem}. "
                                     f"Resuming would report numbers this run's definition did not compute: {again}")
                plan.done[k] = r
            elif k is None:
                dropped[str(r.get("item_hash") or json.dumps(r, sort_keys=True))] = r
        _check_dropped(list(dropped.values()), ids, out_path, items)
        if discard_part and part_path.exists() and files.output_kind(part_path) == "file":
            with open(part_path, "w", encoding="utf-8"):  # the interrupted run's rows: emptied, never unlinked
                pass
    elif out_path is not None:
        assert part_path is not None and record_path is not None  # set with out_path
        _check_ours(out_path, "the output")
        _check_ours(part_path, "the rows of an unfinished run")
        _check_ours(record_path, "the run record", record=True)
        if part_path.exists():
            with open(part_path, "w", encoding="utf-8"):  # emptied, never unlinked (a symlink is followed)
                pass
        if out_path.exists():
            record["previous_out"] = True  # OUT's rows are not this run's until finish_run replaces it
            kept = _read_record(record_path)
            if kept is not None and not kept.get("previous_out"):  # the record of OUT's rows, to resume them later
                record["previous_record"] = {k: v for k, v in kept.items() if k != "previous_record"}
            elif kept is not None and isinstance(kept.get("previous_record"), dict):
                record["previous_record"] = kept["previous_record"]
    plan.pending = [k for k in range(len(items)) if k not in plan.done]
    if out_path is not None:
        out_path.parent.mkdir(parents=True, exist_ok=True)
        write_record(plan)
    return plan


def check_resumed_rows(plan: "RunPlan", signature: str) -> None:
    """That every row ``plan`` reuses was made under ``signature``, this run's (:func:`ev2r.io.rows.row_problem`): an
    interrupted run's record may hold none, and the files a definition reads may have changed since. Raises:
    ValueError naming the output, the row's id, what is wrong and what to do."""
    for k in sorted(plan.done):
        r = plan.done[k]
        problem = row_problem(r, signature)
        if problem is not None:
            raise ValueError(f"-o/--output: the row of id {r.get('id')!r} in {plan.out_path} (or its .part) cannot be "
                             f"resumed: {problem}. Resuming would report numbers this run's definition did not "
                             f"compute: pass another -o, or --no-resume to score afresh and replace {plan.out_path}")


def chunk_grid(positions: Sequence[int], chunk_size: int) -> dict[int, list[int]]:
    """The local scorer's chunk grid over the positions left: ``{chunk: positions}``, chunk ``c``
    holding the positions in ``[c * chunk_size, (c + 1) * chunk_size)`` (so an item keeps its chunk
    whatever else was resumed)."""
    grid: dict[int, list[int]] = {}
    for k in positions:
        grid.setdefault(k // chunk_size, []).append(k)
    return grid


def finish_run(plan: RunPlan, items: Sequence[Item], new_scores: dict, with_facts: bool,
               signature: Optional[str]) -> tuple[list[dict], list[ItemScore]]:
    """The rows and scores of the whole run in input order (new scores through
    :func:`ev2r.io.readers.score_row`, resumed rows as they were); with ``OUT``: ``OUT`` written
    atomically, ``OUT.part`` removed, the record updated with ``signature``.

    Args:
        plan: what :func:`plan_run` returned.
        items: the items of the run, in input order.
        new_scores: ``{position: ItemScore}`` for every position in ``plan.pending``.
        with_facts: keep the atomic facts in new rows.
        signature: the scorer signature of this run (without an engine suffix).

    Raises:
        OSError: ``OUT`` cannot be written (``OUT.part`` is kept, so a rerun resumes).
    """
    rows, scores = [], []
    for k, it in enumerate(items):
        if k in new_scores:
            s = new_scores[k]
            rows.append(output_row(it, s, with_facts, str(signature)))
            scores.append(s)
        else:
            r = dict(plan.done[k])
            rows.append(r)
            scores.append(score_from_row(r))
    if plan.out_path is not None:
        write_atomic(rows, plan.out_path)
        if plan.part_path is not None and plan.part_path.exists() and files.output_kind(plan.part_path) == "file":
            plan.part_path.unlink()  # this run's own rows, now in OUT
        plan.record["signature"] = signature
        plan.record.pop("previous_out", None)
        plan.record.pop("previous_record", None)
        write_record(plan)
    return rows, scores


class RunInterrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C (a :class:`KeyboardInterrupt`): the rows scored so far are in
    ``OUT.part`` beside the run record, and the same call (or command) resumes.

    Attributes:
        done: items finished (resumed or scored) when it stopped; ``total``: items of the run;
        part_path: ``OUT.part`` (None without an output file).
    """

    def __init__(self, done: int, total: int, part_path: Optional[Path]):
        self.done, self.total, self.part_path = done, total, part_path
        super().__init__(self.message())

    def message(self) -> str:
        """What was kept and how to resume, in words."""
        if self.part_path is None:
            return (f"interrupted after {self.done} of {self.total} item(s); nothing was written (no -o): "
                    "pass -o OUT to keep rows as they are scored")
        out = str(self.part_path)[:-len(PART_SUFFIX)]
        return (f"interrupted after {self.done} of {self.total} item(s); the rows scored so far are in "
                f"{self.part_path}: run the same command again without --no-resume (same -o {out} and options) to "
                "resume; with --no-resume it starts afresh")


def write_record(plan: RunPlan) -> None:
    """Write the run record ``OUT.ev2r-run.json`` (nothing without OUT)."""
    if plan.record_path is not None:
        files.write_text(json.dumps(plan.record, indent=1) + "\n", plan.record_path)
