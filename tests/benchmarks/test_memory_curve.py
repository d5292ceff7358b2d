"""benchmarks/speed/memory_curve.py: the samples it reads and the table it writes."""

import os

import pytest

from support.modules import load_file_module
from support.paths import REPO


@pytest.fixture(scope="module")
def curve():
    return load_file_module("memory_curve_under_test", REPO / "benchmarks" / "speed" / "memory_curve.py")


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads /proc (Linux)")
def test_a_live_process_has_its_resident_memory_and_peak_read(curve):
    st = curve._status(os.getpid())
    assert set(st) == {"VmRSS", "VmHWM"} and 0 < st["VmRSS"] <= st["VmHWM"]
    assert curve._status(2 ** 22 + 12345) == {}  # no such process: nothing, no error


def test_the_table_takes_the_sample_nearest_each_tenth_once(curve):
    samples = [{"t": float(k), "rows": r, "rss_mb": 500 + r, "peak_mb": 900} for k, r in
               enumerate([0, 0, 32, 32, 64, 96, 96, 128, 160])]
    lines = curve.table({"samples": samples}, 160)
    rows = [int(line.split("|")[1]) for line in lines[2:]]
    assert rows == [32, 64, 96, 128, 160]  # 16 -> 32, 32 -> 32 (taken once), 48 -> 32 or 64, ...
    assert lines[2] == "| 32 | 2.0 | 532 | 900 |"  # the first sample that reached 32 rows
