"""Both AVeriTeC shared-task tables for the parity fixture system, with timings.

    python benchmarks/parity/averitec_eval.py [--out benchmarks/results/averitec_eval]

Runs ``ev2r averitec`` on ``averitec/parity/predictions_1.json`` (a synthetic system on the 500 dev
claims) against ``averitec/dev.json``: the 2024 table (official ``eval.py`` names and numbers; the
official script's own output ``parity/official_eval_1.txt`` is compared number by number) and the
2025 table with ``--judge bundled`` (the offline NLI verifier's recall, *not* the organisers' LLM
judge: not comparable with the leaderboard). Each run is a fresh process; wall-clock seconds include
start-up and, for 2025, loading the verifier. Writes OUT.md and OUT.json.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402

NUM = re.compile(r"(-?\d+\.\d+)")


def run(args: list[str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "ev2r.cli.main", *args], capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if out.returncode != 0:
        raise SystemExit(f"ev2r {' '.join(args)} exited {out.returncode}:\n{out.stderr[-2000:]}")
    return dt, out.stdout


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=bl.DATA / "averitec")
    ap.add_argument("--out", type=Path, default=bl.RESULTS / "averitec_eval")
    args = ap.parse_args(argv)
    pred, gold = args.data / "parity" / "predictions_1.json", args.data / "dev.json"
    official = (args.data / "parity" / "official_eval_1.txt").read_text(encoding="utf-8")
    t24, out24 = run(["averitec", str(pred), "--references", str(gold), "--edition", "2024"])
    t25, out25 = run(["averitec", str(pred), "--references", str(gold), "--edition", "2025", "--judge", "bundled"])
    ours = [float(x) for x in NUM.findall(out24)]
    theirs = [float(x) for x in NUM.findall(official)]
    missing = [x for x in theirs if not any(abs(x - y) <= 1e-9 for y in ours)]
    meta = bl.machine()
    md = ["# AVeriTeC shared-task tables for the parity fixture system", "",
          f"Command: `{bl.command()}`", "",
          f"Machine: {meta['platform']}, {meta['cpu_count']} CPUs, Python {meta['python']}, torch {meta['torch']}, "
          f"{meta['utc']}, 1-min load average {meta['load_average_1m']}.", "",
          "Input: `parity/predictions_1.json` (500 claims) against `dev.json`.", "",
          f"## 2024 edition ({t24:.1f} s wall-clock, one process, start-up included; the official `eval.py` "
          "took 80-88 s on this machine type)", "",
          f"Numbers of the official script's output (`official_eval_1.txt`) found in ours to 1e-9: "
          f"{len(theirs) - len(missing)} of {len(theirs)}" + (f"; missing: {missing}" if missing else "") + ".", "",
          "```", out24.rstrip(), "```", "",
          f"## 2025 edition with the bundled verifier as judge ({t25:.1f} s, verifier load included)", "",
          "Labelled *not the official LLM judge*: the organisers' 2025 numbers come from an LLM judge "
          "(`--judge llm --llm-base-url ... --llm-model ...`); these are not comparable with the leaderboard.", "",
          "```", out25.rstrip(), "```", ""]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    Path(f"{args.out}.md").write_text("\n".join(md), encoding="utf-8")
    Path(f"{args.out}.json").write_text(json.dumps({"command": bl.command(), "machine": meta, "seconds_2024": t24,
                                                    "seconds_2025_bundled": t25, "official_numbers": len(theirs),
                                                    "official_numbers_missing": missing}, indent=2) + "\n")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
