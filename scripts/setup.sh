#!/usr/bin/env bash
# Create ./.venv (if missing) and install ev2r.
#
#   bash scripts/setup.sh          what scoring needs: ev2r and its core dependencies (no Ray, Playwright,
#                                  evaluate, linters or test tools) -- the README's first command
#   bash scripts/setup.sh --all    also every optional backend and the test tools (ev2r[all]); scripts/test.sh
#                                  and CI run this (skipped when .venv already has them for this pyproject.toml)
#
# torch is pinned to the CPU build that the project's machines carry; an unpinned torch pulls CUDA.
# The local LLM server that only the LLM-path tests need is not built here (scripts/test.sh builds
# it; set EV2R_LLM_SERVER=1 to build it here too).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
extras=0
for a in "$@"; do
  case "$a" in
    --all) extras=1 ;;
    *) echo "setup: unknown option $a (use --all for the optional backends and the test tools)" >&2; exit 2 ;;
  esac
done
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
. .venv/bin/activate
# the extras' stamp: the pyproject.toml they were installed for (a changed pyproject.toml installs again)
STAMP=.venv/.ev2r-all-extras
want="$(sha256sum pyproject.toml | cut -d' ' -f1)"
if [ "$extras" = "1" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && [ -x .venv/bin/ev2r ]; then
  echo "setup: .venv already has ev2r[all] for this pyproject.toml"
else
  python -m pip install --quiet --upgrade pip
  python -m pip install --quiet "torch==2.13.0"
  if [ "$extras" = "1" ]; then
    python -m pip install --quiet -e ".[all]"
    echo "$want" > "$STAMP"
  else
    python -m pip install --quiet -e .
  fi
fi
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
