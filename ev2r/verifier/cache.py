"""Work done once across runs: an on-disk cache of the verifier's pair probabilities and of the admission reading's
sentence encodings (``ev2r score --cache DIR``, ``build_scorer(cache=DIR)``; opt-in, off by default).

One SQLite file, ``DIR/ev2r-cache.sqlite`` (:data:`CACHE_FILE`; WAL journal, so several processes may read and fill
one cache at once, each write one short transaction). Every entry is filed under a **definition key**
(:func:`definition_key`): 16 hex digits of the SHA-256 of what the numbers depend on beside the text, as a JSON object
stored in the ``definitions`` table:

* a verifier's pair probabilities (:meth:`ev2r.verifier.nli.HFNLIVerifier.cache_definition`): its signature name
  (which hashes its weights and names its precision), its weights and configuration files (hashed), the token window,
  the long-premise and long-hypothesis rules, the padding bucket, the label columns, the device type and the
  torch / transformers versions; an entry is keyed by the exact (premise, hypothesis) texts the model reads (after
  NFC normalisation and the special-token guard);
* a sentence encoder's embeddings (:func:`encoder_definition`): its checkpoint's weights and configuration
  (hashed), its token limit, the device type and the library versions; an entry is keyed by the exact text.

An entry is only ever looked up under the key of the verifier or encoder asking, so a cache filled under another
definition (another model, precision, window, device or library version) is never read: its entries stay in the
file, unread (:meth:`DiskCache.other_definitions` counts them for the run's note). Values are stored exactly
(little-endian float64, or float32 where that holds the value bit for bit), so a warm run reads the very numbers the
run that filled the cache computed: on the same input its rows are identical, field by field, to a run without the
cache. On another input a cached pair carries the value computed in the filling run's batch; the verifier's pass is
batch-invariant (docs/metric.md, Determinism), so this is the value a fresh computation gives, except on a CPU with
AMX (oneDNN's AMX bf16 kernels: up to ~7e-3 on a pair) and, for the sentence encoder (fp32, batches padded to their
longest text), in the last bits of fp32.

The cache changes no number's definition: the score's signature and version name are those of a run without it; the
run record (``OUT.ev2r-run.json``) names the cache (path and definition keys) apart from the options a resume compares.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence

import numpy as np

__all__ = ["CACHE_FILE", "CACHE_FORMAT", "DiskCache", "cache_record", "definition_key", "encoder_definition",
           "open_cache"]

#: The cache file inside the cache folder.
CACHE_FILE = "ev2r-cache.sqlite"
#: The layout of the file (tables and value encoding); a file of another format is refused, never read.
CACHE_FORMAT = 1
#: Seconds a process waits for another's write to end before it gives up (SQLite's busy timeout).
BUSY_TIMEOUT_S = 120.0

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS definitions (key TEXT PRIMARY KEY, kind TEXT NOT NULL, spec TEXT NOT NULL, "
    "created REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS pairs (def TEXT NOT NULL, premise TEXT NOT NULL, hypothesis TEXT NOT NULL, "
    "dtype TEXT NOT NULL, value BLOB NOT NULL, PRIMARY KEY (def, premise, hypothesis)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS texts (def TEXT NOT NULL, text TEXT NOT NULL, dtype TEXT NOT NULL, "
    "value BLOB NOT NULL, PRIMARY KEY (def, text)) WITHOUT ROWID",
)


def definition_key(spec: Mapping[str, Any]) -> str:
    """16 hex digits of the SHA-256 of ``spec`` as canonical JSON (keys sorted, no spaces).

    >>> definition_key({"kind": "x", "a": 1}) == definition_key({"a": 1, "kind": "x"})
    True
    """
    blob = json.dumps(dict(spec), sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def _library_versions() -> dict:
    from ev2r.signature import package_version

    return {"torch": package_version("torch"), "transformers": package_version("transformers")}


def encoder_definition(encoder: Any) -> Optional[dict]:
    """What a sentence encoder's embeddings depend on beside the text: for a
    :class:`claimalign.similarity.EmbeddingSimilarity`, its checkpoint's weights and configuration
    (:func:`ev2r.verifier.nli.checkpoint_digest`), token limit, device type and the library versions; None for any
    other encoder object (it cannot be known by its content, so it is never cached)."""
    from claimalign.models import default_encoder_path
    from claimalign.similarity.embedding import EmbeddingSimilarity
    from ev2r.verifier.nli import checkpoint_digest

    if type(encoder) is not EmbeddingSimilarity:
        return None
    path = encoder.model_path if encoder.model_path is not None else default_encoder_path()
    if not Path(path).is_dir():
        return None  # a hub id: no files here to hash
    return {"kind": "sentence-encoder", "format": CACHE_FORMAT, "checkpoint": checkpoint_digest(str(path)),
            "name": encoder.name, "max_length": encoder.max_length, "device": _device_type(encoder.device),
            **_library_versions()}


def _device_type(device: str) -> str:
    return str(device).split(":", 1)[0]


def _encode_value(v: np.ndarray) -> tuple[str, bytes]:
    """``(dtype, bytes)``: float32 where it holds ``v`` bit for bit, else float64 (little-endian)."""
    v64 = np.ascontiguousarray(np.asarray(v, dtype="<f8"))
    v32 = v64.astype("<f4")
    if np.array_equal(v32.astype("<f8"), v64, equal_nan=True):
        return "f4", v32.tobytes()
    return "f8", v64.tobytes()


def _decode_value(dtype: str, blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype="<f4" if dtype == "f4" else "<f8").astype(np.float64)


class DiskCache:
    """The on-disk cache in a folder (module docstring); the folder and its file are created when missing.

    Args:
        directory: the cache folder (str or path-like).
        option: how messages name the option that gave it (``--cache`` for the CLI, ``cache`` for the API).

    Attributes:
        directory: the folder, resolved; ``path``: the SQLite file.
        definitions: ``{role: definition key}`` of the readers registered (:meth:`register`), e.g. ``verifier``,
            ``proxy-verifier``, ``admission-encoder``.
        stats: per definition key, ``{"read": entries found, "written": entries stored}``.

    Thread-safe (one lock around the connection); a process that forks opens its own connection. Pickled (a Ray
    worker), it carries the folder and reopens there.

    Raises:
        ValueError: the folder cannot be created or written, or its ``ev2r-cache.sqlite`` is not an ev2r cache of
            format :data:`CACHE_FORMAT` (another file, another format, damaged): the message names the option, the
            path and what to do.
    """

    def __init__(self, directory: "str | os.PathLike", option: str = "cache"):
        if isinstance(directory, bool) or not isinstance(directory, (str, os.PathLike)) or not os.fspath(directory):
            raise ValueError(f"{option}: expected a folder path, got {directory!r}")
        self.option = option
        try:
            self.directory = Path(os.fspath(directory)).expanduser().resolve()
        except RuntimeError as e:  # "~user/..." naming no user
            raise ValueError(f"{option}: cannot read the folder {os.fspath(directory)!r} ({e}); give a folder path") \
                from None
        self.path = self.directory / CACHE_FILE
        self.definitions: dict[str, str] = {}
        self.specs: dict[str, dict] = {}
        self.stats: dict[str, dict[str, int]] = {}
        self._lock = threading.Lock()
        self._conn: Optional[sqlite3.Connection] = None
        self._encoder_keys: dict[int, tuple[Any, Optional[str]]] = {}  # id -> (encoder, key), per process
        self._pid = -1
        self._check_folder()
        self._connect()

    # -- opening ---------------------------------------------------------------------------------------------
    def _check_folder(self) -> None:
        d = self.directory
        if d.exists() and not d.is_dir():
            raise ValueError(f"{self.option}: {str(d)!r} is a file; give a folder (the cache is {CACHE_FILE} in it)")
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ValueError(f"{self.option}: cannot create the cache folder {str(d)!r} ({e.strerror or e}); give a "
                             "folder you can write") from None
        if not os.access(d, os.W_OK | os.X_OK):
            raise ValueError(f"{self.option}: the cache folder {str(d)!r} is not writable; give a folder you can "
                             "write (or leave the option out: no cache)")
        if self.path.exists() and not os.access(self.path, os.R_OK | os.W_OK):
            raise ValueError(f"{self.option}: the cache file {str(self.path)!r} cannot be read and written; give "
                             "another folder")

    def _connect(self) -> sqlite3.Connection:
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        try:
            conn = sqlite3.connect(str(self.path), timeout=BUSY_TIMEOUT_S, check_same_thread=False,
                                   isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            with conn:
                conn.execute("BEGIN IMMEDIATE")
                for statement in _SCHEMA:
                    conn.execute(statement)
                conn.execute("INSERT OR IGNORE INTO meta (name, value) VALUES ('format', ?)", (str(CACHE_FORMAT),))
            row = conn.execute("SELECT value FROM meta WHERE name = 'format'").fetchone()
        except sqlite3.DatabaseError as e:
            raise ValueError(f"{self.option}: {str(self.path)!r} is not an ev2r cache that can be opened ({e}); move "
                             "it away or give another folder") from None
        if row is None or row[0] != str(CACHE_FORMAT):
            conn.close()
            raise ValueError(f"{self.option}: {str(self.path)!r} is an ev2r cache of format {row and row[0]!r}; this "
                             f"ev2r reads format {CACHE_FORMAT} only (its entries are never read): give another "
                             "folder, or move the file away")
        self._conn, self._pid = conn, os.getpid()
        return conn

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_conn"], state["_pid"], state["_lock"] = None, -1, None
        state["_encoder_keys"] = {}  # the encoder objects stay in this process
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close this process's connection (it reopens on the next use)."""
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    @contextlib.contextmanager
    def _intact(self):
        """Turn a damaged file's error (a malformed page found while reading or writing) into one naming the option
        and the file; a busy or locked database stays sqlite's own error."""
        try:
            yield
        except sqlite3.OperationalError:
            raise
        except sqlite3.DatabaseError as e:
            raise ValueError(f"{self.option}: the cache file {str(self.path)!r} is damaged ({e}); move it away or "
                             "give another folder (a new cache is filled by the next run)") from None

    # -- definitions -----------------------------------------------------------------------------------------
    def register(self, role: str, spec: Mapping[str, Any]) -> str:
        """File ``spec`` (what a reader's numbers depend on; must hold ``kind``) under its :func:`definition_key`, name
        it ``role`` for the run record, and return the key."""
        key = definition_key(spec)
        blob = json.dumps(dict(spec), sort_keys=True, ensure_ascii=False, default=str)
        with self._lock, self._intact():
            conn = self._connect()
            with conn:
                conn.execute("INSERT OR IGNORE INTO definitions (key, kind, spec, created) VALUES (?, ?, ?, ?)",
                             (key, str(spec.get("kind", "")), blob, time.time()))
            self.definitions[role] = key
            self.specs[key] = dict(spec)
            self.stats.setdefault(key, {"read": 0, "written": 0})
        return key

    def other_definitions(self) -> int:
        """How many definitions the file holds besides those registered here (their entries are not read)."""
        with self._lock, self._intact():
            keys = {r[0] for r in self._connect().execute("SELECT key FROM definitions")}
        return len(keys - set(self.definitions.values()))

    def record(self) -> dict:
        """What the run record says of the cache: its file, format and ``{role: definition key}``."""
        return {"path": str(self.path), "format": CACHE_FORMAT, "definitions": dict(self.definitions)}

    def summary(self) -> str:
        """One line: entries read and written per role, and the other definitions left unread."""
        roles = {key: role for role, key in self.definitions.items()}
        parts = [f"{roles[k]} {s['read']} read, {s['written']} written" for k, s in self.stats.items() if k in roles]
        other = self.other_definitions()
        tail = f"; {other} other definition(s) in the file, not read" if other else ""
        return f"cache {self.path}: {'; '.join(parts) or 'nothing asked'}{tail}"

    # -- entries ---------------------------------------------------------------------------------------------
    def get_pairs(self, key: str, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], np.ndarray]:
        """The stored distributions of those ``(premise, hypothesis)`` pairs that definition ``key`` holds."""
        out: dict[tuple[str, str], np.ndarray] = {}
        if not pairs:
            return out
        with self._lock, self._intact():
            conn = self._connect()
            for p, h in pairs:
                row = conn.execute("SELECT dtype, value FROM pairs WHERE def = ? AND premise = ? AND hypothesis = ?",
                                   (key, p, h)).fetchone()
                if row is not None:
                    out[(p, h)] = _decode_value(row[0], row[1])
            self.stats.setdefault(key, {"read": 0, "written": 0})["read"] += len(out)
        return out

    def put_pairs(self, key: str, entries: Iterable[tuple[tuple[str, str], np.ndarray]]) -> None:
        """Store ``((premise, hypothesis), distribution)`` entries under definition ``key`` (one transaction; an entry
        already there is kept)."""
        rows = [(key, p, h, *_encode_value(v)) for (p, h), v in entries]
        self._write("INSERT OR IGNORE INTO pairs (def, premise, hypothesis, dtype, value) VALUES (?, ?, ?, ?, ?)",
                    rows, key)

    def get_texts(self, key: str, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of those ``texts`` that definition ``key`` holds."""
        out: dict[str, np.ndarray] = {}
        if not texts:
            return out
        with self._lock, self._intact():
            conn = self._connect()
            for t in texts:
                row = conn.execute("SELECT dtype, value FROM texts WHERE def = ? AND text = ?", (key, t)).fetchone()
                if row is not None:
                    out[t] = _decode_value(row[0], row[1])
            self.stats.setdefault(key, {"read": 0, "written": 0})["read"] += len(out)
        return out

    def put_texts(self, key: str, entries: Iterable[tuple[str, np.ndarray]]) -> None:
        """Store ``(text, vector)`` entries under definition ``key`` (one transaction; an entry already there is
        kept)."""
        rows = [(key, t, *_encode_value(v)) for t, v in entries]
        self._write("INSERT OR IGNORE INTO texts (def, text, dtype, value) VALUES (?, ?, ?, ?)", rows, key)

    def _write(self, sql: str, rows: list, key: str) -> None:
        if not rows:
            return
        with self._lock, self._intact():
            conn = self._connect()
            try:
                with conn:
                    conn.execute("BEGIN IMMEDIATE")
                    conn.executemany(sql, rows)
            except sqlite3.OperationalError as e:  # a full disk, a folder made read-only meanwhile
                raise ValueError(f"{self.option}: cannot write to the cache {str(self.path)!r} ({e})") from None
            self.stats.setdefault(key, {"read": 0, "written": 0})["written"] += len(rows)

    # -- the sentence encoder --------------------------------------------------------------------------------
    def encode(self, encoder: Any, texts: Sequence[str], role: str = "admission-encoder") -> np.ndarray:
        """``encoder.encode(texts)`` as float64 (n, d), each distinct text read from the cache where definition
        :func:`encoder_definition` of ``encoder`` holds it, the others encoded in one call and stored. An encoder that
        cannot be known by its content is asked directly (nothing cached)."""
        texts = list(texts)
        key = self.encoder_key(encoder, role)
        if key is None:
            return np.asarray(encoder.encode(texts), dtype=np.float64)
        uniq = list(dict.fromkeys(texts))
        found = self.get_texts(key, uniq)
        todo = [t for t in uniq if t not in found]
        if todo:
            vecs = np.asarray(encoder.encode(todo), dtype=np.float64)
            new = dict(zip(todo, vecs))
            self.put_texts(key, new.items())
            found.update(new)
        if not texts:
            return np.zeros((0, 0), dtype=np.float64)
        return np.stack([found[t] for t in texts])

    def encoder_key(self, encoder: Any, role: str = "admission-encoder") -> Optional[str]:
        """The definition key ``encoder``'s embeddings are filed under (registered as ``role`` on first use), or None
        for an encoder that cannot be known by its content (:func:`encoder_definition`)."""
        cached = self._encoder_keys
        if id(encoder) not in cached:
            spec = encoder_definition(encoder)
            cached[id(encoder)] = (encoder, None if spec is None else self.register(role, spec))
        return cached[id(encoder)][1]


def open_cache(cache: Any, option: str = "cache") -> Optional[DiskCache]:
    """``cache`` as a :class:`DiskCache`: None (no cache) stays None, a :class:`DiskCache` is returned as is, a
    folder path is opened (created when missing).

    Raises:
        ValueError: see :class:`DiskCache` (naming ``option``).
    """
    if cache is None or isinstance(cache, DiskCache):
        return cache
    return DiskCache(cache, option=option)


def cache_record(options: Mapping[str, Any], scorer: Any = None) -> Optional[dict]:
    """What a run record (``OUT.ev2r-run.json``) says of the on-disk cache: the opened cache's
    :meth:`DiskCache.record` (its file, format and the definition key of each reader: ``verifier``, ``proxy-verifier``,
    ``admission-encoder``) when ``scorer`` holds one, else the cache folder the scorer ``options`` name
    (``{"path": DIR/ev2r-cache.sqlite, "format": ...}``: the Ray engine's driver loads no model, so its workers'
    keys are not known there); None without a cache."""
    cache = getattr(scorer, "cache", None)
    if cache is not None:
        return cache.record()
    given = options.get("cache")
    if given is None:
        return None
    if isinstance(given, DiskCache):
        return given.record()
    return {"path": os.path.join(os.path.abspath(os.path.expanduser(os.fspath(given))), CACHE_FILE),
            "format": CACHE_FORMAT}
