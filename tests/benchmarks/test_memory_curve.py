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


def test_the_command_line_names_no_work_folder(curve):
    assert curve._shown(["--averitec-dev", "10", "--work", "runs/mine", "--out", "x"]) == \
        "--averitec-dev 10 --work WORK --out x"
    assert curve._shown(["--work=runs/mine"]) == "--work=WORK"


def test_a_child_writing_much_to_stderr_is_not_blocked(curve, tmp_path, monkeypatch):
    """stderr goes to a file: 200 KB of it (beyond a pipe's buffer) does not freeze the run being sampled."""
    import sys

    fake = tmp_path / "fakepy.py"
    fake.write_text("import sys\nsys.stderr.write('w' * 200_000)\nopen(sys.argv[sys.argv.index('-o') + 1], 'w')"
                    ".write('{}\\n')\n")
    popen = curve.subprocess.Popen  # the child: this fake in place of `python -m ev2r.cli`, the same arguments after
    monkeypatch.setattr(curve.subprocess, "Popen", lambda cmd, **kw: popen([sys.executable, str(fake), *cmd[3:]], **kw))
    out = curve.run(tmp_path / "in.jsonl", tmp_path / "work", 0.05, [])
    assert out["rows"] == 1 and (tmp_path / "work" / "stderr.txt").stat().st_size == 200_000
