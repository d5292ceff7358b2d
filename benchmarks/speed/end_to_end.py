"""End-to-end `ev2r score` time, one release beside another, rounds interleaved (issue 76).

Each run is a fresh process (import, model load, scoring, writing), timed by wall clock and by the child's CPU
(user + system, from os.wait4) with its peak resident memory. Checkouts are given as NAME=PATH (run with
PYTHONPATH=PATH, this interpreter); an optional environment per configuration (NAME=PATH:VAR=VALUE,...).

    python benchmarks/speed/end_to_end.py --input FILE --rounds 3 --config old=/tmp/wt180 new=/tmp/wtnew \
        'new-passive=/tmp/wtnew:OMP_WAIT_POLICY=PASSIVE' --out benchmarks/results/end_to_end_v1272_86
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def cpu_flags() -> str:
    try:
        flags = Path("/proc/cpuinfo").read_text().split("flags")[1].split("\n")[0].split()
    except (OSError, IndexError):
        return "?"
    return " ".join(f for f in ("avx512f", "avx512_bf16", "amx_bf16", "amx_tile") if f in flags)


def run_once(checkout: str, env_extra: dict, inp: str) -> dict:
    env = dict(os.environ, PYTHONPATH=checkout, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", **env_extra)
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-c", "import sys; from ev2r.cli.main import main; sys.exit(main())", "score", inp,
               "-o", str(Path(tmp) / "rows.jsonl"), "--json", "--no-progress", "--no-resume"]
        load0 = os.getloadavg()[0]
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=checkout, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        out = proc.stdout.read().decode() if proc.stdout else ""
    if status != 0:
        raise RuntimeError(f"{checkout}: exit status {status}")
    summary = json.loads(out.strip().splitlines()[-1])
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "max_rss_mb": usage.ru_maxrss / 1024,
            "load_1m": load0, "ev2r": summary.get("ev2r"), "ev2r_hybrid": summary.get("ev2r_hybrid"),
            "n": summary.get("n"), "n_failed": summary.get("n_failed")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--config", nargs="+", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    configs = {}
    for c in args.config:
        name, rest = c.split("=", 1)
        path, _, envs = rest.partition(":")
        configs[name] = (path, dict(kv.split("=", 1) for kv in envs.split(",") if kv))
    runs: dict[str, list] = {k: [] for k in configs}
    for r in range(args.rounds):
        for name, (path, env) in configs.items():
            res = run_once(path, env, args.input)
            runs[name].append(res)
            print(f"round {r + 1} {name}: {res['wall_s']:.1f} s wall, {res['cpu_s']:.1f} CPU s, "
                  f"{res['max_rss_mb']:.0f} MB, load {res['load_1m']:.2f}, ev2r {res['ev2r']:.4f}", flush=True)
    machine = {"platform": platform.platform(), "cpus": os.cpu_count(), "cpu_flags": cpu_flags(),
               "python": platform.python_version(), "utc": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    base = next(iter(configs))
    best = {k: min(x["wall_s"] for x in v) for k, v in runs.items()}
    best_cpu = {k: min(x["cpu_s"] for x in v) for k, v in runs.items()}
    lines = [f"# End-to-end `ev2r score` on {Path(args.input).name}", "",
             f"Command: `python {' '.join(sys.argv)}`", "", f"Machine: {machine}", "",
             "Each run a fresh process (import, load, scoring, write), rounds interleaved; best of the rounds.", "",
             f"| configuration | checkout | rounds: wall s (CPU s, load) | best wall s | x {base} | best CPU s | "
             f"x {base} | peak RSS MB | ev2r | ev2r_hybrid |", "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for k, v in runs.items():
        rounds = "; ".join(f"{x['wall_s']:.1f} ({x['cpu_s']:.1f}, {x['load_1m']:.2f})" for x in v)
        lines.append(f"| {k} | `{configs[k][0]}` {configs[k][1] or ''} | {rounds} | {best[k]:.1f} | "
                     f"{best[k] / best[base]:.2f} | {best_cpu[k]:.1f} | {best_cpu[k] / best_cpu[base]:.2f} | "
                     f"{max(x['max_rss_mb'] for x in v):.0f} | {v[0]['ev2r']:.4f} | {v[0]['ev2r_hybrid']:.4f} |")
    Path(args.out + ".md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    Path(args.out + ".json").write_text(json.dumps({"machine": machine, "configs": {k: list(v) for k, v in configs.items()},
                                                    "runs": runs}, indent=1), encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
