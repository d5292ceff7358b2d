#!/usr/bin/env bash
# The package as users get it: build the sdist and the wheel, install the wheel -- not the checkout --
# into a fresh virtual environment, and run the quick start and `evaluate.load` from it, outside the checkout.
# A file missing from the package (a template, the bundled verifier, a data table) fails here.
#
#   bash scripts/check_wheel.sh            build into a temporary folder, check, remove it
#   KEEP=1 bash scripts/check_wheel.sh     keep the folder (its path is printed)
#
# Needs: ./.venv with `build` (bash scripts/test.sh installs it: the dev extra), NLTK data (punkt_tab, WordNet) in
# $NLTK_DATA or ../shared/data/nltk_data. torch is installed pinned (torch==2.13.0, the CPU build on the project's
# machines) before the wheel: an unpinned torch pulls CUDA.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"
PY=${PYTHON:-python3}
export NLTK_DATA="${NLTK_DATA:-$(cd .. && pwd)/shared/data/nltk_data}"
if [ ! -d "$NLTK_DATA/corpora/wordnet" ]; then
  echo "check_wheel: ERROR: no WordNet under NLTK_DATA=$NLTK_DATA (the quick start's ev2r_hybrid needs punkt_tab and" \
       "WordNet); set NLTK_DATA" >&2
  exit 1
fi
if ! .venv/bin/python -c "import build" 2>/dev/null; then
  echo "check_wheel: ERROR: .venv has no 'build' (python -m build); run bash scripts/test.sh --quick once, or" \
       ".venv/bin/pip install build" >&2
  exit 1
fi
WORK="$(mktemp -d "${TMPDIR:-/tmp}/ev2r-wheel.XXXXXX")"
if [ "${KEEP:-0}" = "1" ]; then
  echo "check_wheel: keeping $WORK"
else
  trap 'rm -rf "$WORK"' EXIT
fi
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_EVALUATE_OFFLINE=1 HF_DATASETS_OFFLINE=1

echo "== check_wheel: building the sdist and the wheel =="
.venv/bin/python -m build --sdist --wheel --outdir "$WORK/dist" . >"$WORK/build.log" 2>&1 || {
  tail -30 "$WORK/build.log" >&2; echo "check_wheel: ERROR: python -m build failed (log above)" >&2; exit 1; }
WHEEL="$(ls "$WORK"/dist/ev2r-*.whl)"
SDIST="$(ls "$WORK"/dist/ev2r-*.tar.gz)"
VERSION="$(.venv/bin/python -c 'import runpy; print(runpy.run_path("ev2r/_version.py")["__version__"])')"
case "$(basename "$WHEEL")" in
  "ev2r-$VERSION-"*) ;;
  *) echo "check_wheel: ERROR: $(basename "$WHEEL") is not version $VERSION (ev2r/_version.py)" >&2; exit 1 ;;
esac
echo "built $(basename "$SDIST") and $(basename "$WHEEL")"

echo "== check_wheel: a fresh virtual environment with the wheel (torch==2.13.0 first) =="
"$PY" -m venv "$WORK/venv"
VPY="$WORK/venv/bin/python"
"$VPY" -m pip install --quiet --upgrade pip
"$VPY" -m pip install --quiet "torch==2.13.0"
"$VPY" -m pip install --quiet "$WHEEL[hf]"

echo "== check_wheel: the quick start from the installed wheel, outside the checkout =="
mkdir "$WORK/run"
cp examples/averitec_sample.jsonl "$WORK/run/"
cd "$WORK/run"
"$VPY" - "$ROOT" <<'EOF'
import sys
from pathlib import Path

import ev2r

where = Path(ev2r.__file__).resolve()
assert Path(sys.argv[1]).resolve() not in where.parents, f"ev2r imported from the checkout: {where}"
print(f"ev2r {ev2r.__version__} from {where.parent}")
EOF
"$WORK/venv/bin/ev2r" score averitec_sample.jsonl -o sample_scores.jsonl --no-progress >score.txt 2>score.err || {
  cat score.err >&2; echo "check_wheel: ERROR: ev2r score failed from the wheel" >&2; exit 1; }
cat score.txt
"$VPY" - <<'EOF'
import json

rows = [json.loads(line) for line in open("sample_scores.jsonl", encoding="utf-8")]
assert len(rows) == 12 and all(r["status"] == "ok" for r in rows), [r.get("status") for r in rows]
text = open("score.txt", encoding="utf-8").read()
assert "headline: ev2r_hybrid = " in text and "\nversion: ev2r-hybrid/" in text, text
short = next(line for line in text.splitlines() if line.strip().startswith("signature:")).split(": ", 1)[1]
assert len(short) <= 200 and "|verifier:ev2r-minilm-nli@" in short, short
record = json.load(open("sample_scores.jsonl.ev2r-run.json", encoding="utf-8"))
assert "prem-rule:" in record["signature"], "the run record lacks the full signature"
print(f"quick start: 12 rows, short signature {len(short)} characters")
EOF

echo "== check_wheel: evaluate.load of the metric from the installed wheel =="
"$VPY" - <<'EOF'
import evaluate

import ev2r

metric = evaluate.load(ev2r.evaluate_module_path())
# the README's evaluate example: the same numbers from the wheel as from the checkout (bf16 CPU: within 0.01)
r = metric.compute(predictions=["Question: What is Kerala's population?\nAnswer: 33,387,677 in the 2011 census."],
                   references=["Question: What is the total population of Kerala?\nAnswer: 3,33,87,677 (2011 census)."],
                   claims=["The total population of Kerala, India is 3,56,99,443"], labels=["refuted"])
assert r["n"] == 1 and r["n_failed"] == 0, r
assert abs(r["ev2r"] - 0.277) < 0.01 and abs(r["ev2r_hybrid"] - 0.105) < 0.01, r
assert r["versions"]["ev2r_hybrid"].startswith("ev2r-hybrid/"), r
print(f"evaluate.load: ev2r = {r['ev2r']:.4f}, ev2r_hybrid = {r['ev2r_hybrid']:.4f} ({r['short_signature']})")
EOF
echo "check_wheel: OK ($(basename "$WHEEL"))"
