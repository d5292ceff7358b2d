#!/usr/bin/env bash
# Create ./.venv (if missing) and install ev2r with every optional backend and the test tools.
# torch is pinned to the CPU build that the project's machines carry; an unpinned torch pulls CUDA.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
. .venv/bin/activate
python -m pip install --quiet --upgrade pip
python -m pip install --quiet "torch==2.13.0"
python -m pip install --quiet -e ".[all]"
# The local LLM server used by the LLM-path tests (llama.cpp, built from source: a few minutes).
if [ "${EV2R_SKIP_LLM_SERVER:-0}" != "1" ]; then
  # portable build; the multimodal module is not used. A failed build does not stop the set-up:
  # the tests that need the server then skip and say why.
  CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF}" python -m pip install --quiet -r requirements-llm-server.txt \
    || { if [ "${EV2R_REQUIRE_LLM_SERVER:-0}" = "1" ]; then
           echo "ERROR: llama-cpp-python[server] could not be installed and EV2R_REQUIRE_LLM_SERVER=1" >&2; exit 1
         fi
         echo "WARNING: llama-cpp-python[server] could not be installed; the LLM-server tests will be skipped" >&2; }
fi
echo "ev2r installed in $(pwd)/.venv"
