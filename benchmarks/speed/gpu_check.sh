#!/usr/bin/env bash
# GPU check for a lent accelerator (one CUDA device): throughput (fp32 / bf16, n-scaling) and verdict accuracy
# on CUDA, in under 5 minutes. Writes benchmarks/results/gpu_throughput.{md,json,png} and gpu_verdicts.*
# (or under $OUT when set, e.g. the device tool's output folder).
#
#   bash benchmarks/speed/gpu_check.sh            # after scripts/setup.sh; needs a CUDA build of torch
#
# On a machine without CUDA it stops with a message (exit 2) instead of measuring the CPU.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PY:-.venv/bin/python}
DEST=${OUT:-benchmarks/results}
mkdir -p "$DEST"
export NLTK_DATA="${NLTK_DATA:-$(cd .. && pwd)/shared/data/nltk_data}" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
if ! "$PY" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"; then
  echo "gpu_check: torch.cuda.is_available() is False (torch $("$PY" -c 'import torch; print(torch.__version__)')); install a CUDA build of torch" >&2
  exit 2
fi
"$PY" -c "import torch; print('device:', torch.cuda.get_device_name(0), '| torch', torch.__version__)" | tee "$DEST/gpu_device.txt"
# 86 rated rows, fp32 vs bf16 (int8 dynamic quantisation is CPU-only), then 100/500/1000 AVeriTeC items in bf16
timeout 180 "$PY" benchmarks/speed/throughput.py --device cuda --dtypes fp32 bf16 --batch-sizes 64 --repeats 1 \
  --n 100,500,1000 --scale-dtype bf16 --out "$DEST/gpu_throughput"
# verdict accuracy on the held-out sets (1000 rows per VitaminC set) in bf16
timeout 100 "$PY" benchmarks/verifier/verdicts.py --device cuda --dtype bf16 --limit 1000 --batch-size 64 --out "$DEST/gpu_verdicts"
echo "gpu_check: tables in $DEST"
