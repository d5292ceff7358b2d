#!/usr/bin/env bash
# Run the tests: installs the test tools and the optional extras first (bash scripts/setup.sh --all; a no-op
# when ./.venv has them), so this is the one command a contributor and CI run.
#
#   bash scripts/test.sh            every test, the slow ones too (what CI runs); builds the local LLM
#                                   server the LLM-path tests use, unless EV2R_SKIP_LLM_SERVER=1
#   bash scripts/test.sh --quick    for iteration: deselects the tests marked slow (-m "not slow": model
#                                   loads, the llama.cpp server) and does not build the LLM server
#
# Every other argument goes to pytest, e.g. `bash scripts/test.sh --quick tests/claimalign -k meteor`.
# The import contract (tests/test_layers.py) and the docstring examples (tests/test_doctests.py) are tests.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
args=()
for a in "$@"; do
  if [ "$a" = "--quick" ]; then quick=1; else args+=("$a"); fi
done
if [ "$quick" = "1" ]; then
  export EV2R_SKIP_LLM_SERVER="${EV2R_SKIP_LLM_SERVER:-1}"
  # the quick tests' models are tiny or fakes: one torch (OpenMP) thread runs them faster than threads that wait
  # on each other, most of all on a loaded machine; set OMP_NUM_THREADS to choose
  export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
  args=(-m "not slow" ${args[@]+"${args[@]}"})
fi
# the test tools and every optional extra (ev2r[all]: pytest, hypothesis, the linters, evaluate, Ray,
# Playwright, ...) on top of what scoring needs; a no-op when .venv has them for this pyproject.toml
if [ "${EV2R_FORCE_SETUP:-0}" = "1" ]; then
  rm -f .venv/.ev2r-all-extras
fi
bash scripts/setup.sh --all
if [ "${EV2R_SKIP_LLM_SERVER:-0}" != "1" ]; then
  bash scripts/install_llm_server.sh
fi
export NLTK_DATA="${NLTK_DATA:-$(cd .. && pwd)/shared/data/nltk_data}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_EVALUATE_OFFLINE=1 HF_DATASETS_OFFLINE=1
exec .venv/bin/python -m pytest -q ${args[@]+"${args[@]}"}
