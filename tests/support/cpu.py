"""The CPU's bf16 kernels, for the tests whose claim holds only without oneDNN's AMX kernels.

On a CPU with AMX, oneDNN's AMX bf16 kernels make a pair's numbers depend slightly on its batch and on the thread
count (up to ~5e-3: ``benchmarks/results/batch_invariance_v1272.md``); with them off
(``ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16``, read by oneDNN before its first kernel) an item's numbers are the same in
any batch. A test of that claim runs itself again in a fresh interpreter with the variable set."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support.paths import REPO

#: the oneDNN ISA cap that keeps the AVX512-BF16 kernels and leaves out AMX
NO_AMX = "AVX512_CORE_BF16"


def has_amx() -> bool:
    """Whether this CPU has AMX bf16 tiles (Linux: /proc/cpuinfo; False where it cannot be read)."""
    try:
        return "amx_bf16" in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def amx_in_use() -> bool:
    """True on a CPU with AMX where oneDNN has not been told to leave it out."""
    return has_amx() and not os.environ.get("ONEDNN_MAX_CPU_ISA")


def rerun_without_amx(test_file: str, test_name: str) -> None:
    """Run ``test_file::test_name`` in a fresh pytest with oneDNN's AMX kernels off; fail with its output if it fails."""
    env = {**os.environ, "ONEDNN_MAX_CPU_ISA": NO_AMX}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"{test_file}::{test_name}"],
                         env=env, capture_output=True, text=True, cwd=REPO)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
