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
# nltk's punkt_tab and WordNet (METEOR, HU-METEOR, ev2r_hybrid) are never downloaded; where the project's data
# folder sits beside the checkout, its nltk_data is linked to .venv/nltk_data, a folder nltk searches by default
# (sys.prefix/nltk_data), so `ev2r score` finds them without NLTK_DATA. Elsewhere: set NLTK_DATA yourself.
if [ -d ../shared/data/nltk_data ] && [ ! -e .venv/nltk_data ]; then
  ln -s "$(cd ../shared/data/nltk_data && pwd)" .venv/nltk_data
fi
if [ ! -e .venv/nltk_data ] && [ -z "${NLTK_DATA:-}" ]; then
  echo "setup: note: no ../shared/data/nltk_data beside this checkout and NLTK_DATA is not set: METEOR, HU-METEOR and" \
       "ev2r_hybrid need punkt_tab and WordNet -- pass --nltk-data DIR to ev2r, or set NLTK_DATA" >&2
fi
if [ "${EV2R_LLM_SERVER:-0}" = "1" ] && [ "${EV2R_SKIP_LLM_SERVER:-0}" != "1" ]; then
  bash scripts/install_llm_server.sh
fi
echo "ev2r installed in $(pwd)/.venv"
