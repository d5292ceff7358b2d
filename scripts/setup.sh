#!/usr/bin/env bash
# Create ./.venv (if missing) and install ev2r with every optional backend and the test tools.
# torch is pinned to the CPU build that the project's machines carry; an unpinned torch pulls CUDA.
# The local LLM server that only the LLM-path tests need is not built here (scripts/test.sh builds
# it; set EV2R_LLM_SERVER=1 to build it here too).
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
if [ "${EV2R_LLM_SERVER:-0}" = "1" ] && [ "${EV2R_SKIP_LLM_SERVER:-0}" != "1" ]; then
  bash scripts/install_llm_server.sh
fi
echo "ev2r installed in $(pwd)/.venv"
