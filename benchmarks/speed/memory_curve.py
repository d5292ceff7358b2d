"""Resident memory of one ``ev2r score`` run as the items go by: is it flat in the number of items?

Runs ``python -m ev2r.cli score`` on N AVeriTeC dev items (``speed/throughput.py``'s ``dev_items``: the 500 dev
claims with a synthetic system's evidence, repeated with new ids beyond 500) in a fresh process, and reads
``/proc/PID/status`` every ``--every`` seconds: the resident set (VmRSS), its peak so far (VmHWM), and the rows the
run has written (the lines of its ``.part`` file). The table gives, for each tenth of the run, the rows written and
the memory then; a flat run's resident set stops growing once the models are loaded and the first chunk is scored.

    python benchmarks/speed/memory_curve.py --averitec-dev 1000 --out benchmarks/results/memory_curve_1000

Linux only (``/proc``). Extra ``ev2r score`` options go after ``--`` (e.g. ``-- --chunk-size 64``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib

import _benchlib as bl  # noqa: E402
from end_to_end import write_dev_items  # noqa: E402


def _status(pid: int) -> dict:
    """VmRSS and VmHWM of ``pid`` in MB (empty once the process is gone)."""
    out = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(("VmRSS:", "VmHWM:")):
                key, value = line.split(":", 1)
                out[key] = int(value.split()[0]) / 1024
    except (FileNotFoundError, ProcessLookupError):
        pass
    return out


def _rows(path: Path) -> int:
    try:
        with path.open("rb") as f:
            return sum(1 for _ in f)
    except FileNotFoundError:
        return 0


def run(input_path: Path, out_dir: Path, every: float, extra: list[str]) -> dict:
    """Score ``input_path`` once, sampling memory and rows written; the samples and the run's wall time."""
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / "rows.jsonl"
    for p in (target, Path(str(target) + ".part"), Path(str(target) + ".ev2r-run.json")):
        p.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "ev2r.cli", "score", str(input_path), "-o", str(target), "--no-progress",
           "--no-resume", *extra]
    start = time.perf_counter()
    err_path = out_dir / "stderr.txt"  # a file, not a pipe: a child that writes much to stderr never blocks on it
    with err_path.open("w", encoding="utf-8") as err_file:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err_file, text=True)
        samples = _sample(proc, target, start, every)
    if proc.returncode != 0:
        err = err_path.read_text(encoding="utf-8", errors="replace")
        raise SystemExit(f"ev2r score failed ({proc.returncode}): {err[-2000:]}")
    return {"wall_s": round(time.perf_counter() - start, 1), "samples": samples, "rows": _rows(target),
            "command": " ".join(cmd[1:])}


def _sample(proc: subprocess.Popen, target: Path, start: float, every: float) -> list[dict]:
    """Read ``proc``'s memory and the rows written every ``every`` seconds until it exits."""
    samples = []
    while proc.poll() is None:
        st = _status(proc.pid)
        if st:
            rows = _rows(Path(str(target) + ".part")) or _rows(target)
            samples.append({"t": round(time.perf_counter() - start, 1), "rows": rows,
                            "rss_mb": round(st.get("VmRSS", 0)), "peak_mb": round(st.get("VmHWM", 0))})
        time.sleep(every)
    return samples


def table(result: dict, n: int) -> list[str]:
    """Markdown rows: the sample nearest each tenth of the items, and the last one."""
    samples = [s for s in result["samples"] if s["rows"] > 0]
    lines = ["| rows written | elapsed s | resident MB | peak so far MB |", "|---:|---:|---:|---:|"]
    chosen = []
    for k in range(1, 11):
        goal = n * k / 10
        best = min(samples, key=lambda s: abs(s["rows"] - goal), default=None)
        if best is not None and best not in chosen:
            chosen.append(best)
    for s in chosen:
        lines.append(f"| {s['rows']} | {s['t']} | {s['rss_mb']} | {s['peak_mb']} |")
    return lines


def _shown(argv: list[str]) -> str:
    """The command's arguments with the folder given to ``--work`` named ``WORK`` (no machine's folders in a table)."""
    out, hide = [], False
    for a in argv:
        out.append("WORK" if hide else ("--work=WORK" if a.startswith("--work=") else a))
        hide = a == "--work"
    return " ".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--averitec-dev", type=int, required=True, metavar="N", help="N AVeriTeC dev items (docstring)")
    ap.add_argument("--every", type=float, default=1.0, help="seconds between samples (default 1)")
    ap.add_argument("--work", default=None, help="folder for the run's rows (default: a temporary folder)")
    ap.add_argument("--out", default=None, help="write OUT.md and OUT.json")
    ap.add_argument("extra", nargs="*", help="ev2r score options, after --")
    args = ap.parse_args(argv)
    if args.averitec_dev < 1:
        ap.error(f"--averitec-dev: must be >= 1, got {args.averitec_dev}")
    if not args.every > 0:
        ap.error(f"--every: must be > 0 seconds, got {args.every}")
    import tempfile

    source = write_dev_items(args.averitec_dev)
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="ev2r_mem_"))
    info = bl.machine()
    result = run(source, work, args.every, args.extra)
    result["command"] = result["command"].replace(str(source), "DEV_ITEMS").replace(str(work), "WORK")
    peak = max((s["peak_mb"] for s in result["samples"]), default=0)
    first = next((s for s in result["samples"] if s["rows"] > 0), None)
    result.update({"n": args.averitec_dev, "machine": info, "peak_mb": peak,
                   "rss_at_first_rows_mb": first["rss_mb"] if first else None})
    lines = [f"# Resident memory of `ev2r score` over {args.averitec_dev} AVeriTeC dev items", "",
             f"Command: `python benchmarks/speed/memory_curve.py {_shown(argv if argv is not None else sys.argv[1:])}`"
             f" (the run: `{result['command']}`)", "",
             f"Machine: {info}", "",
             f"Wall {result['wall_s']} s; rows {result['rows']}; peak resident memory **{peak} MB**; resident memory when"
             f" the first rows were written {result['rss_at_first_rows_mb']} MB.", ""] + table(result, args.averitec_dev)
    print("\n".join(lines))
    if args.out:
        Path(args.out + ".md").write_text("\n".join(lines) + "\n", encoding="utf-8")
        Path(args.out + ".json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
