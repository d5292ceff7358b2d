"""On-disk, content-addressed cache of LLM answers.

Key: ``sha256`` of the canonical JSON of ``{"v", "model", "endpoint", "messages", "params"}``
where ``messages`` is the full prompt (every message, verbatim) and ``params`` every decoding
parameter sent (temperature, seed, max_tokens, logprobs, top_logprobs, ...). The server's URL
is deliberately *not* in the key: the same model and request give the same entry whichever
host served them, so a cache filled against a server can be replayed offline.

Layout: ``<dir>/<key[:2]>/<key>.json`` holding ``{"key", "request", "response", "created"}``;
``response`` is the server's JSON answer (an OpenAI chat-completion object as a dict).

Each entry is written as soon as its answer arrives, to a temporary file in the same folder that
is then renamed over the final name (``os.replace``, atomic on POSIX): a run killed half-way
leaves only complete entries (at most a stray ``.tmp-*.part`` file, which is never read), and
re-running it asks only for what is missing. Only answers the
server actually gave are stored; failures (``api_error``, ``timeout``) never are, so they are
retried on the next run. An entry that cannot be read back (edited, truncated by hand) counts as
a miss and is overwritten by the next answer.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Optional

CACHE_FORMAT = 1


def request_key(model: str, endpoint: str, messages: Any, params: dict) -> str:
    """The cache key (64 hex chars) of one request (see the module docstring)."""
    payload = {"v": CACHE_FORMAT, "model": model, "endpoint": endpoint, "messages": messages,
               "params": {k: params[k] for k in sorted(params)}}
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """Content-addressed store of LLM answers in a folder (created on first write).

    Args:
        directory: the cache folder.

    Thread-safe: workers of :class:`ev2r.llm.client.LLMClient` write concurrently; distinct keys
    are distinct files and a rename is atomic.
    """

    def __init__(self, directory: str | os.PathLike):
        self.directory = Path(directory)
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self.writes = 0

    def path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> Optional[dict]:
        """The stored response dict for ``key``, or None (miss, or an unreadable entry)."""
        p = self.path(key)
        try:
            with open(p, encoding="utf-8") as fh:
                entry = json.load(fh)
            resp = entry["response"]
            if entry.get("key") != key or not isinstance(resp, dict):
                raise ValueError("entry does not match its key")
        except FileNotFoundError:
            resp = None
        except (OSError, ValueError, KeyError, TypeError):
            resp = None  # unreadable entry: a miss; the next answer overwrites it
        with self._lock:
            if resp is None:
                self.misses += 1
            else:
                self.hits += 1
        return resp

    def __contains__(self, key: str) -> bool:
        return self.path(key).exists()

    def put(self, key: str, request: dict, response: dict) -> None:
        """Store one answer atomically (temporary file + rename)."""
        p = self.path(key)
        p.parent.mkdir(parents=True, exist_ok=True)
        entry = {"key": key, "request": request, "response": response, "created": time.time()}
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".part", dir=p.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(entry, fh, ensure_ascii=False)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, p)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        with self._lock:
            self.writes += 1

    def __len__(self) -> int:
        if not self.directory.exists():
            return 0
        return sum(1 for p in self.directory.glob("*/*.json") if not p.name.startswith("."))
