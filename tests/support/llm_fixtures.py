"""Fixtures for the LLM path (imported by the root ``tests/conftest.py``, so every folder has them).

* ``fake_server``: a scripted OpenAI-compatible HTTP server on 127.0.0.1
  (:class:`ev2r.llm.local_server.FakeChatServer`, stdlib only) for fast, exact tests of retries,
  timeouts, concurrency, caching and parsing.
* ``llama_server`` / ``start_llama``: the real thing -- :class:`ev2r.llm.local_server.LlamaServer`
  (``python -m llama_cpp.server``) serving Qwen2.5-Coder-0.5B-Instruct (the GGUF that
  ``scripts/install_llm_server.sh`` assembles, :func:`~ev2r.llm.local_server.find_instruct_gguf`)
  on a free loopback port, ready once it answered one chat completion. The tests that use them are
  marked ``llm`` and are skipped only when ``llama_cpp`` or the GGUF is not installed -- and fail
  instead when ``EV2R_REQUIRE_LLM_SERVER=1`` (as ``.ci/run`` sets).
* A server that dies: ``llama_server`` fails the next test at once with the exit code and the
  log's tail (never a run of "connection refused"), and :func:`pytest_runtest_makereport` adds the
  same to the report of a test that failed while a server it used had died.
* ``llm_helpers.DelayProxy``: a loopback proxy in front of a server that holds back the answer to
  any request whose body contains a marker, to make one response slow.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.llm import FakeServer

from ev2r.llm.local_server import LlamaServer, find_instruct_gguf

REPO = Path(__file__).resolve().parents[2]
LLAMA_READY_TIMEOUT = float(os.environ.get("EV2R_LLAMA_READY_TIMEOUT", "180"))
# one thread by default: on 2 cores shared with other work, llama.cpp's 2 spinning threads were
# 15x slower per token than 1 (benchmarks/results/llm_server.md); EV2R_LLAMA_THREADS overrides
LLAMA_THREADS = int(os.environ.get("EV2R_LLAMA_THREADS", "1"))


@pytest.fixture
def fake_server():
    pytest.importorskip("openai", reason="the LLM client needs the 'openai' package (pip install ev2r[llm])")
    s = FakeServer()
    yield s
    s.close()


# -- the real llama.cpp server -------------------------------------------------------------------
def gguf_path() -> str:
    """The instruct GGUF (:func:`ev2r.llm.local_server.find_instruct_gguf`); skips the test when it
    or llama_cpp is missing, or fails it under ``EV2R_REQUIRE_LLM_SERVER=1`` (CI)."""
    try:
        return find_instruct_gguf()
    except (ImportError, FileNotFoundError) as e:
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
        s = LlamaServer(model, threads=LLAMA_THREADS, log=log,
                        ready_timeout=LLAMA_READY_TIMEOUT)
        started.append(s)
        return s

    yield start
    for s in started:
        s.stop()


@pytest.fixture(scope="session")
def shared_llama(start_llama) -> LlamaServer:
    """The one server shared by the tests that do not kill it (use ``llama_server``)."""
    return start_llama()


@pytest.fixture
def llama_server(shared_llama) -> LlamaServer:
    """The shared server, checked alive before each test: a dead one fails the test at once with
    its exit code and log tail."""
    if not shared_llama.alive():
        pytest.fail(shared_llama.died_message(), pytrace=False)
    return shared_llama


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test that used ``llama_server`` while the server died gets a report section with
    the exit code and the log's tail (the cause, rather than the client's connection errors)."""
    outcome = yield
    report = outcome.get_result()
    server = getattr(item, "funcargs", {}).get("llama_server")
    if report.failed and isinstance(server, LlamaServer) and not server.alive():
        report.sections.append(("llama.cpp server died", server.died_message()))
