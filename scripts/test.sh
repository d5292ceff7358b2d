#!/usr/bin/env bash
# Run the whole test suite (sets up ./.venv first when needed, and builds the local LLM server the
# LLM-path tests use unless EV2R_SKIP_LLM_SERVER=1). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/ev2r ] || [ "${EV2R_FORCE_SETUP:-0}" = "1" ]; then
  bash scripts/setup.sh
fi
if [ "${EV2R_SKIP_LLM_SERVER:-0}" != "1" ]; then
  bash scripts/install_llm_server.sh
fi
export NLTK_DATA="${NLTK_DATA:-$(cd .. && pwd)/shared/data/nltk_data}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_EVALUATE_OFFLINE=1 HF_DATASETS_OFFLINE=1
exec .venv/bin/python -m pytest -q "$@"
