"""End-to-end `ev2r score` time, one release beside another, rounds interleaved.

Each run is a fresh process (import, model load, scoring, writing), timed by wall clock and by the child's CPU
(user + system, from os.wait4) with its peak resident memory. Checkouts are given as NAME=PATH (run with
PYTHONPATH=PATH, this interpreter); an optional environment per configuration (NAME=PATH:VAR=VALUE,...).
``--averitec-dev N`` scores N AVeriTeC dev items instead of ``--input`` (``speed/throughput.py``'s ``dev_items``: the
parity system joined to dev.json's 500 claims, repeated with new ids), written to a temporary JSONL.
A configuration's ``EV2R_E2E_ARGS=...`` is not put in the environment: its value (split as a shell would) is added
to that configuration's ``ev2r score`` options, to time a candidate definition beside the default.

    python benchmarks/speed/end_to_end.py --input FILE --rounds 3 --config old=/tmp/wt180 new=/tmp/wtnew \
        'new-passive=/tmp/wtnew:OMP_WAIT_POLICY=PASSIVE' --out benchmarks/results/end_to_end_v1272_86
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name

#: The configuration variable that holds extra ``ev2r score`` options.
ARGS_VAR = "EV2R_E2E_ARGS"
import _benchlib as bl  # noqa: E402


def run_once(checkout: str, env_extra: dict, inp: str) -> dict:
    env_extra = dict(env_extra)
    extra_args = shlex.split(env_extra.pop(ARGS_VAR, ""))  # a candidate's score options (module docstring)
    env = dict(os.environ, PYTHONPATH=checkout, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", **env_extra)
    with tempfile.TemporaryDirectory() as tmp:
        # the child says which ev2r it imported: a checkout without one would silently time the installed package
        code = ("import sys, ev2r; print('EV2R_FROM', ev2r.__file__, file=sys.stderr); "
                "from ev2r.cli.main import main; sys.exit(main())")
        argv = ["-c", code, "score", inp, "-o", str(Path(tmp) / "rows.jsonl"), "--json", "--no-progress",
                "--no-resume", *extra_args]
        res = bl.timed_score(argv, checkout, env, Path(tmp) / "stderr.txt", f"end_to_end: {checkout}")
    stderr, summary = res.pop("stderr"), res.pop("summary")
    origin = next((line.split(" ", 1)[1] for line in stderr.splitlines() if line.startswith("EV2R_FROM ")), "")
    if not Path(origin).resolve().is_relative_to(Path(checkout).resolve()):
        raise SystemExit(f"end_to_end: the run for {checkout} imported ev2r from {origin}, not from the checkout")
    return {**res, "ev2r": summary.get("ev2r"), "ev2r_hybrid": summary.get("ev2r_hybrid"),
            "n": summary.get("n"), "n_failed": summary.get("n_failed")}


def checkout_commit(path: str) -> str:
    """The commit a checkout holds (``git rev-parse --short HEAD``, ``+changes`` when its tracked files differ), the
    name the tables record instead of the machine's folder; ``unknown`` outside git."""
    import subprocess

    def git(*a):
        return subprocess.run(["git", "-C", path, *a], capture_output=True, text=True).stdout.strip()

    head = git("rev-parse", "--short", "HEAD")
    return (head + ("+changes" if git("status", "--porcelain", "--untracked-files=no") else "")) if head else "unknown"


def write_dev_items(n: int) -> Path:
    """``n`` AVeriTeC dev items (``throughput.dev_items``) as an input JSONL in a temporary folder; its path."""
    from throughput import dev_items

    out = Path(tempfile.mkdtemp(prefix="ev2r_dev_")) / f"averitec_dev_{n}.jsonl"
    with open(out, "w", encoding="utf-8") as f:
        for it in dev_items(n):
            f.write(json.dumps({"id": it.id, "claim": it.claim, "gold_label": it.gold_label,
                                "predicted_evidence": [{"question": p.question, "answer": p.answer}
                                                       for p in it.predicted_evidence.pairs],
                                "reference_evidence": [{"question": p.question, "answer": p.answer}
                                                       for p in it.reference_evidence.pairs]},
                               ensure_ascii=False) + "\n")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = ap.add_mutually_exclusive_group(required=True)
    source.add_argument("--input", help="an ev2r score input (JSONL)")
    source.add_argument("--averitec-dev", type=int, metavar="N", help="N AVeriTeC dev items (module docstring)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--config", nargs="+", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error(f"--rounds: must be >= 1, got {args.rounds}")
    if args.averitec_dev is not None:
        if args.averitec_dev < 1:
            ap.error(f"--averitec-dev: must be >= 1, got {args.averitec_dev}")
        inp = write_dev_items(args.averitec_dev)
    else:
        inp = Path(args.input).resolve()  # each run's working folder is its checkout
        if not inp.is_file():
            ap.error(f"--input: no such file: {args.input}")
    configs: dict[str, tuple[str, dict]] = {}
    for c in args.config:
        name, sep, rest = c.partition("=")
        path, _, envs = rest.partition(":")
        pairs = [kv.partition("=") for kv in envs.split(",") if kv]
        if not sep or not name or not path or any(not k or not s for k, s, _ in pairs):
            ap.error(f"--config: expected NAME=PATH or NAME=PATH:VAR=VALUE,..., got {c!r}")
        if name in configs:
            ap.error(f"--config: the name {name!r} is given twice")
        if not (Path(path) / "ev2r" / "__init__.py").is_file():
            ap.error(f"--config {name}: {path} holds no ev2r package (a checkout of this repository)")
        configs[name] = (str(Path(path).resolve()), {k: v for k, _, v in pairs})
    runs: dict[str, list] = {k: [] for k in configs}
    for r in range(args.rounds):
        for name, (path, env) in configs.items():
            res = run_once(path, env, str(inp))
            runs[name].append(res)
            print(f"round {r + 1} {name}: {res['wall_s']:.1f} s wall, {res['cpu_s']:.1f} CPU s, "
                  f"{res['max_rss_mb']:.0f} MB, load {res['load_1m']:.2f}, ev2r {res['ev2r']:.4f}", flush=True)
    machine = bl.machine()
    base = next(iter(configs))
    best = {k: min(x["wall_s"] for x in v) for k, v in runs.items()}
    best_cpu = {k: min(x["cpu_s"] for x in v) for k, v in runs.items()}
    what = f"{args.averitec_dev} AVeriTeC dev items" if args.averitec_dev else Path(args.input).name
    lines = [f"# End-to-end `ev2r score` on {what}", "",
             f"Command: `python {' '.join(sys.argv)}`", "", f"Machine: {machine}", "",
             "Each run a fresh process (import, load, scoring, write), rounds interleaved; best of the rounds.", "",
             f"| configuration | checkout | rounds: wall s (CPU s, load) | best wall s | x {base} | best CPU s | "
             f"x {base} | peak RSS MB | ev2r | ev2r_hybrid |", "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    commits = {k: checkout_commit(path) for k, (path, _) in configs.items()}
    for k, v in runs.items():
        rounds = "; ".join(f"{x['wall_s']:.1f} ({x['cpu_s']:.1f}, {x['load_1m']:.2f})" for x in v)
        lines.append(f"| {k} | `{commits[k]}` {configs[k][1] or ''} | {rounds} | {best[k]:.1f} | "
                     f"{best[k] / best[base]:.2f} | {best_cpu[k]:.1f} | {best_cpu[k] / best_cpu[base]:.2f} | "
                     f"{max(x['max_rss_mb'] for x in v):.0f} | {v[0]['ev2r']:.4f} | {v[0]['ev2r_hybrid']:.4f} |")
    Path(args.out + ".md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    Path(args.out + ".json").write_text(json.dumps({"machine": machine, "configs": {k: [commits[k], v[1]] for k, v in configs.items()},
                                                    "runs": runs}, indent=1), encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
