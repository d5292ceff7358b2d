"""Scaling with Ray: items/s of the local path against ``--engine ray`` with 1 and 2 workers on this
machine, Ray's overhead per item, and a simulated projection to N nodes.

Input: ``--n`` rows cycled from the 86-row AVeriTeC manual-evaluation subset
(../shared/data/ev2r_human_eval/averitec_manual_eval_subset.jsonl; each copy gets its own id, the
work per row is real), scored with the bundled verifier at its default options (batch 32, dtype
auto). Each configuration is one end-to-end run in this process, timed from the call to the last
row, model loading included, since a distributed run pays it in every actor:

* ``local (torch threads T)``: ``build_scorer(...).score(items)`` as ``ev2r score`` runs it, with the
  machine's default threads and with 1 thread (what one Ray worker gets);
* ``ray, W worker(s)``: :func:`ev2r.engines.ray_engine.score_ray` on a local Ray instance started for the
  run (``ray.init`` timed apart), 1 CPU and 1 torch thread per actor.

Ray overhead = (ray with 1 worker - local with 1 thread) / n: actor start, model load in the actor,
serialising items and scores, scheduling. Every Ray run's rows are compared with the local rows
(numbers equal to the last bit expected).

Projection (a simulation, not a measurement): a cluster of K nodes like this one, each running
``--workers-per-node`` actors at the per-worker rate measured with 2 workers here; the job is cut
into 32-item chunks handed to free workers in order (list scheduling of equal chunks), plus the
measured fixed start-up cost. It assumes the driver, the network and the storage are not the
bottleneck.

Usage::

    python benchmarks/speed/scale_ray.py --n 128
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402

SUBSET = bl.DATA / "ev2r_human_eval" / "averitec_manual_eval_subset.jsonl"
CHUNK = 32


def make_input(n: int, folder: Path) -> Path:
    src = bl.read_jsonl(SUBSET)
    rows = []
    for k in range(n):
        r = dict(src[k % len(src)])
        r["id"] = f"{r.get('id', k)}-{k // len(src)}"
        rows.append(r)
    path = folder / "scale_input.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def run_local(items, threads: int, options: dict) -> dict:
    import torch

    from ev2r.metric.factory import build_scorer
    from ev2r.io.readers import score_row

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        from ev2r.metric import factory as api

        api.clear_verifier_cache()  # load the model inside the timed run, as an actor does
        t0 = time.perf_counter()
        scorer = build_scorer(**options)
        t_load = time.perf_counter() - t0
        scores = scorer.score(items)
        wall = time.perf_counter() - t0
    finally:
        torch.set_num_threads(before)
    return {"wall_s": wall, "load_s": t_load, "rows": [score_row(it, s) for it, s in zip(items, scores)],
            "signature": scorer.corpus(scores).signature}


def run_ray(items, workers: int, options: dict) -> dict:
    import ray

    from ev2r.engines.ray_engine import score_ray

    t0 = time.perf_counter()
    ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False)
    t_init = time.perf_counter() - t0
    try:
        t1 = time.perf_counter()
        res = score_ray(items, None, scorer_options=options, workers=workers)
        wall = time.perf_counter() - t1
    finally:
        ray.shutdown()
    return {"wall_s": wall, "init_s": t_init, "rows": res.rows, "signature": res.summary.signature,
            "workers": res.workers}


def project(n_items: int, per_worker_rate: float, fixed_s: float, nodes: list[int], per_node: int) -> list[dict]:
    """Simulated wall time for ``n_items`` on K nodes (equal 32-item chunks, list scheduling)."""
    chunks = math.ceil(n_items / CHUNK)
    t_chunk = CHUNK / per_worker_rate
    out = []
    for k in nodes:
        w = k * per_node
        rounds = math.ceil(chunks / w)
        wall = fixed_s + rounds * t_chunk
        out.append({"nodes": k, "workers": w, "wall_s": wall, "items_per_s": n_items / wall})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=128, help="rows to score (cycled from the 86-row subset)")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="Ray pool sizes to measure")
    ap.add_argument("--project-items", type=int, default=20_000,
                    help="job size of the projection (default: 20 systems x 1,000 claims)")
    ap.add_argument("--project-nodes", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32])
    ap.add_argument("--workers-per-node", type=int, default=2)
    ap.add_argument("--out", default=str(bl.RESULTS / "scale_ray"))
    args = ap.parse_args(argv)
    if args.n < 1 or any(w < 1 for w in args.workers) or args.workers_per_node < 1:
        raise SystemExit("--n, --workers and --workers-per-node must be >= 1")
    if not SUBSET.exists():
        raise SystemExit(f"{SUBSET} not found (the project's shared data beside the checkout)")
    import torch

    from ev2r.io.readers import read_items

    default_threads = torch.get_num_threads()
    options = {"verifier": "bundled"}
    with tempfile.TemporaryDirectory() as tmp:
        items = read_items(make_input(args.n, Path(tmp)))
    runs = {}
    print("warm-up (not timed) ...", file=sys.stderr)  # first-use costs (imports, kernels) out of the first run
    run_local(items[:8], default_threads, options)
    print(f"local, {default_threads} threads ...", file=sys.stderr)
    runs["local_default"] = run_local(items, default_threads, options)
    print("local, 1 thread ...", file=sys.stderr)
    runs["local_1"] = run_local(items, 1, options)
    for w in args.workers:
        print(f"ray, {w} worker(s) ...", file=sys.stderr)
        runs[f"ray_{w}"] = run_ray(items, w, options)
    ref = runs["local_default"]["rows"]
    n = args.n
    table = []
    for key, r in runs.items():
        label = (f"local, torch threads {default_threads}" if key == "local_default" else
                 "local, torch threads 1" if key == "local_1" else f"ray, {r['workers']} worker(s) x 1 thread")
        table.append({"config": label, "wall_s": r["wall_s"], "items_per_s": n / r["wall_s"],
                      "init_s": r.get("init_s"), "load_s": r.get("load_s"),
                      "rows_equal_local": r["rows"] == ref})
    if "ray_1" not in runs:
        raise SystemExit("--workers must include 1 (the overhead is measured against the local path at 1 thread)")
    overhead = (runs["ray_1"]["wall_s"] - runs["local_1"]["wall_s"]) / n
    # fixed cost of a Ray run: everything in the 1-worker run that is not scoring (actor start, model
    # load in the actor, scheduling), plus ray.init
    scoring_1 = runs["local_1"]["wall_s"] - runs["local_1"]["load_s"]
    fixed_run = max(0.0, runs["ray_1"]["wall_s"] - scoring_1)
    fixed = fixed_run + runs["ray_1"]["init_s"]
    # per-worker rate with the most workers measured sharing this node (what a node like it gives per actor)
    wmax = max(args.workers)
    key = f"ray_{wmax}"
    per_worker = (n / wmax) / max(1e-9, runs[key]["wall_s"] - fixed_run)
    proj = project(args.project_items, per_worker, fixed, args.project_nodes, args.workers_per_node)
    info = bl.machine()
    md = ["# Scaling with Ray (`ev2r score --engine ray`)", "",
          f"Command: `{bl.command()}`", "",
          f"Machine: {info['platform']}, {info['cpu_count']} CPUs (torch threads {info['torch_threads']}), "
          f"torch {info['torch']}, transformers {info['transformers']}, ray {_ray_version()}, {info['utc']}, "
          f"1-min load average {info['load_average_1m']} (other jobs on the machine slow timings).", "",
          f"Input: {n} rows cycled from `averitec_manual_eval_subset.jsonl` (86 rows; each copy its own id), "
          f"bundled verifier, default options (batch 32, dtype auto: `{runs['local_default']['signature']}`). "
          f"One end-to-end run per configuration, model loading included (every actor loads its own); "
          f"`ray.init` is timed apart and not included; an untimed warm-up pass on 8 rows runs first.", "",
          "| configuration | wall s | items/s | model load s | ray.init s | rows equal to local |",
          "|---|---:|---:|---:|---:|:---:|"]
    for t in table:
        load = "" if t["load_s"] is None else f"{t['load_s']:.1f}"
        init = "" if t["init_s"] is None else f"{t['init_s']:.1f}"
        same = "yes" if t["rows_equal_local"] else "NO"
        md.append(f"| {t['config']} | {t['wall_s']:.1f} | {t['items_per_s']:.2f} | {load} | {init} | {same} |")
    md += ["", f"Ray overhead (ray with 1 worker - local with 1 thread, / {n} items): "
               f"{overhead:.3f} s per item ({overhead * n:.1f} s in all: actor start-up, model load in the actor, "
               f"moving items and scores, scheduling; it does not grow with the input size as fast as the "
               f"work does, so it weighs less on bigger inputs).", "",
           f"Work is cut into chunks of {CHUNK} items (the local scorer's chunks, which keeps the numbers "
           f"bit-identical); {math.ceil(n / CHUNK)} chunks here, so with 2 workers the split is "
           f"{'even' if math.ceil(n / CHUNK) % 2 == 0 else 'uneven'}. A node with 2 cores running 2 single-thread "
           f"workers is compared with one process using both cores: on one machine Ray adds parallelism only "
           f"where one process cannot use all cores; it pays off across machines.", "",
           "## Projection to N nodes (SIMULATED, not measured)", "",
           f"{args.project_items:,} items (e.g. 20 systems x 1,000 claims) on K nodes like this one, "
           f"{args.workers_per_node} workers per node at the per-worker rate measured here with {wmax} workers "
           f"({per_worker:.3f} items/s per worker), equal {CHUNK}-item chunks handed to free workers, plus "
           f"{fixed:.0f} s fixed start-up (ray.init {runs['ray_1']['init_s']:.0f} s; actor start, model load and "
           f"scheduling {fixed_run:.0f} s, measured as the 1-worker Ray run less the local 1-thread scoring time). Assumes the driver, the network "
           f"and the storage keep up (with an LLM judge, the endpoint and `--llm-concurrency` set the pace).", "",
           "| nodes | workers | projected wall | projected items/s |", "|---:|---:|---:|---:|"]
    for p in proj:
        md.append(f"| {p['nodes']} | {p['workers']} | {_hms(p['wall_s'])} | {p['items_per_s']:.1f} |")
    local_rate = n / runs["local_default"]["wall_s"]
    md += ["", f"For comparison, the local path on one such machine: {_hms(args.project_items / local_rate)} "
               f"({local_rate:.2f} items/s)."]
    data = {"command": bl.command(), "machine": info, "n": n, "runs": [
        {k: v for k, v in t.items()} for t in table], "overhead_s_per_item": overhead,
        "per_worker_items_per_s": per_worker, "fixed_s": fixed, "fixed_run_s": fixed_run, "projection": proj,
        "projection_note": "simulated: list scheduling of equal 32-item chunks at the measured per-worker rate"}
    bl.write(Path(args.out), "\n".join(md) + "\n", data)
    print("\n".join(md))
    return 0


def _ray_version() -> str:
    from ev2r.signature import package_version

    return package_version("ray")


def _hms(s: float) -> str:
    s = int(round(s))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}h {m:02d}m" if h else f"{m}m {sec:02d}s"


if __name__ == "__main__":
    raise SystemExit(main())
