"""Batch invariance: what it costs to make a pair's verifier distribution a function of the
pair alone, and how far it moves the scores.

In bf16 the padding a pair receives in a batch moves its logits, so before 1.2.x an item's numbers depended on
its batch companions (proxy 0.363 in ``ev2r explain`` and 0.359 in ``ev2r score``). The options measured, each on
exactly the ``verifier.predict`` calls the scorer makes on the rated rows (recorded on a first pass, replayed
per option with the pair cache off; rounds interleaved, best of ``--repeats``):

* ``padded (before)``: length-sorted batches of ``max_batch_tokens`` tokens padded to their longest pair;
* ``exact length``: batches of one token length, nothing padded (``length_bucket=1``, the default now);
* ``bucket 8`` / ``bucket 16``: each pair padded to its length rounded up to a multiple of 8 / 16 tokens,
  batches of one padded length;
* ``batch size 1``: every pair alone, unpadded;
* ``fp32 padded``: the verifier in fp32 with the padded batches;
* ``fp32 exact length`` / ``fp32 bucket 8`` / ``fp32 bucket 16``: the verifier in fp32 (``--dtype fp32``) with
  those paddings.

Invariance per option: ``--check`` distinct pairs (seeded sample) are scored alone, one call per pair, and
compared with their rows in the replayed calls (max |difference| of the three probabilities; 0 = exactly
invariant). End to end (``--e2e OPTION ...``, default ``exact length`` then ``bucket 8``): the rated rows scored
by ``build_scorer(verifier).score(items)`` once per option named, each with a fresh verifier; seconds and the
largest per-item change of every score against the first option named (the recording pass is the first).
``--e2e-json`` keeps every item's scores per option.

The verifier's numbers depend on the torch thread count (bf16: up to 4e-3 between 1 and 2 threads), never on
``OMP_WAIT_POLICY``: under a busy machine ``OMP_WAIT_POLICY=PASSIVE`` gives the same bits far faster (the
threads sleep at the barriers instead of spinning against the other jobs), so checks of values may use it; timings
are taken with the default policy, as ``ev2r score`` runs.

Usage::

    python benchmarks/speed/batch_invariance.py --out benchmarks/results/batch_invariance
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402

RATED = bl.DATA / "ev2r_human_eval" / "averitec_manual_eval_subset.jsonl"
#: option -> (dtype, verifier attributes)
OPTIONS = {"padded (before)": ("auto", {"length_bucket": None}),
           "exact length": ("auto", {"length_bucket": 1}),
           "bucket 8": ("auto", {"length_bucket": 8}),
           "bucket 16": ("auto", {"length_bucket": 16}),
           "batch size 1": ("auto", {"length_bucket": 1, "batch_size": 1, "max_batch_tokens": None}),
           "fp32 padded": ("fp32", {"length_bucket": None}),
           "fp32 exact length": ("fp32", {"length_bucket": 1}),
           "fp32 bucket 8": ("fp32", {"length_bucket": 8}),
           "fp32 bucket 16": ("fp32", {"length_bucket": 16})}
COLUMNS = ("precision", "recall", "f1", "proxy", "ev2r", "ev2r_hybrid", "hybrid_meteor", "verified_meteor",
           "graded_f1")


def make_verifier(model: str, dtype: str, attrs: dict):
    """A fresh verifier (no cross-call cache) with ``attrs`` set, loaded."""
    from ev2r.verifier.loading import load_verifier

    ver = load_verifier(model, dtype=dtype, cache_size=0)
    for k, v in attrs.items():
        setattr(ver, k, v)
    ver._load()
    ver.n_forward = 0  # forward passes so far

    def count(module, args):
        ver.n_forward += 1
    ver._model.register_forward_pre_hook(count)
    return ver


def score_pass(model: str, items, option: str) -> tuple[float, list, list[tuple[list[str], list[str]]]]:
    """One scoring pass with the verifier of ``option`` (:data:`OPTIONS`): seconds (after load), the item
    scores, and the (premises, hypotheses) of every ``verifier.predict`` call."""
    from ev2r.metric.factory import build_scorer

    ver = make_verifier(model, *OPTIONS[option])
    calls = []
    inner = ver.predict

    def recording(premises, hypotheses):
        calls.append((list(premises), list(hypotheses)))
        return inner(premises, hypotheses)

    ver.predict = recording  # type: ignore[method-assign]
    scorer = build_scorer(verifier=ver)
    scorer.score(items[:1])  # warm-up: every model loaded, first passes done
    calls.clear()
    t0 = time.perf_counter()
    scores = scorer.score(items)
    return time.perf_counter() - t0, scores, calls


def replay(ver, calls) -> tuple[float, float, dict]:
    """Wall seconds and this process's CPU seconds to answer every recorded call, and each distinct pair's
    distribution."""
    import numpy as np

    t0, c0 = time.perf_counter(), time.process_time()
    outs = [ver.predict(p, h) for p, h in calls]
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    rows = {}
    for (p, h), out in zip(calls, outs):
        for key, row in zip(zip(p, h), np.asarray(out)):
            rows.setdefault(key, row)
    return dt, cpu, rows


def main(argv=None) -> int:
    import numpy as np

    from ev2r.io.readers import read_items

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(RATED))
    ap.add_argument("--model", default="bundled")
    ap.add_argument("--limit", type=int, default=None, help="first N rows only")
    ap.add_argument("--options", nargs="+", default=list(OPTIONS), choices=list(OPTIONS))
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--check", type=int, default=100, help="distinct pairs scored alone per option")
    ap.add_argument("--no-e2e", action="store_true", help="only the recording pass (the first --e2e option)")
    ap.add_argument("--e2e", nargs="+", default=["exact length", "bucket 8"], choices=list(OPTIONS),
                    help="options scored end to end; the first records the calls and is the reference of the "
                         "per-item change")
    ap.add_argument("--e2e-json", default=None, help="write every item's scores per --e2e option here")
    ap.add_argument("--out", default="benchmarks/results/batch_invariance")
    args = ap.parse_args(argv)

    items = read_items(args.data)[: args.limit]
    info = {"command": bl.command(), "machine": bl.machine(), "data": bl.display_path(args.data), "rows": len(items)}
    import os

    e2e_names = args.e2e[:1] if args.no_e2e else args.e2e
    e2e_s, e2e_scores = {}, {}
    for name in e2e_names:  # the first one's calls are replayed
        dt, sc, rec = score_pass(args.model, items, name)
        e2e_s[name], e2e_scores[name] = round(dt, 1), sc
        if name == e2e_names[0]:
            calls = rec
        print(f"e2e {name}: {dt:.1f} s, load {os.getloadavg()[0]:.2f}", file=sys.stderr)
    n_pairs = sum(len(p) for p, _ in calls)
    vers = {name: make_verifier(args.model, OPTIONS[name][0], OPTIONS[name][1]) for name in args.options}
    info["verifier"] = bl.verifier_info(args.model, vers[args.options[0]])
    seconds: dict = {name: [] for name in args.options}
    cpu: dict = {name: [] for name in args.options}
    rows: dict = {}
    loads: list = []
    passes: dict = {}
    for ver in vers.values():  # warm-up
        ver.predict(*calls[0])
    for r in range(args.repeats):
        for name, ver in vers.items():
            f0 = ver.n_forward
            dt, c, rows[name] = replay(ver, calls)
            passes[name] = ver.n_forward - f0
            seconds[name].append(round(dt, 2))
            cpu[name].append(round(c, 2))
            loads.append(round(os.getloadavg()[0], 2))
            print(f"round {r + 1} {name}: {dt:.2f} s, CPU {c:.2f} s, load {loads[-1]}", file=sys.stderr)
    rng = np.random.default_rng(0)
    keys = sorted(rows[args.options[0]])
    sample = [keys[i] for i in sorted(rng.choice(len(keys), min(args.check, len(keys)), replace=False))]
    results = []
    base_name = args.options[0]
    base = min(seconds[base_name])
    base_cpu = min(cpu[base_name])
    for name, ver in vers.items():
        alone = np.stack([ver.predict([p], [h])[0] for p, h in sample])
        batched = np.stack([rows[name][k] for k in sample])
        ref_name = args.e2e[0] if args.e2e[0] in rows else args.options[0]
        ref = np.stack([rows[ref_name][k] for k in sample])
        results.append({"option": name, "dtype": ver.dtype, "seconds": min(seconds[name]), "runs": seconds[name],
                        "relative": round(min(seconds[name]) / base, 2), "cpu_seconds": min(cpu[name]),
                        "cpu_runs": cpu[name], "cpu_relative": round(min(cpu[name]) / base_cpu, 2),
                        "forward_passes": passes[name], "padding_share": round(1 - ver.n_model_tokens / max(1, ver.n_padded_tokens), 3),
                        "max_abs_alone_vs_batched": float(np.abs(alone - batched).max()),
                        "max_abs_vs_reference": float(np.abs(batched - ref).max()), "reference": ref_name})
        print(results[-1], file=sys.stderr)
    info.update({"n_calls": len(calls), "n_pairs": n_pairs, "n_distinct": len(keys), "n_checked": len(sample),
                 "round_load_averages_1m": loads, "options": results})
    ref_name = e2e_names[0]
    before = e2e_scores[ref_name]
    e2e = {"reference": ref_name, "seconds": e2e_s, "per_item_change": {}}
    for name in e2e_names[1:]:
        after = e2e_scores[name]
        diffs: dict = {}
        for col in COLUMNS:
            va = [a.to_dict().get(col) for a in after]
            vb = [b.to_dict().get(col) for b in before]
            d = [abs(x - y) for x, y, a, b in zip(va, vb, after, before)
                 if a.ok and b.ok and x is not None and y is not None]
            mean_a = np.mean([x for x, a in zip(va, after) if a.ok and x is not None])
            mean_b = np.mean([y for y, b in zip(vb, before) if b.ok and y is not None])
            diffs[col] = {"max_abs": round(max(d), 6) if d else None, "n_changed_1e-4": sum(x > 1e-4 for x in d),
                          "mean_before": round(float(mean_b), 6), "mean_after": round(float(mean_a), 6),
                          "mean_change": round(float(mean_a - mean_b), 6)}
        e2e["per_item_change"][name] = diffs
    info["end_to_end"] = e2e
    if args.e2e_json:
        Path(args.e2e_json).write_text(json.dumps({name: [s.to_dict() for s in sc] for name, sc in e2e_scores.items()},
                                                  default=str) + "\n", encoding="utf-8")
    md = bl.header("Batch invariance: speed cost and score change", info)
    md += (f"\nData: `{info['data']}` ({len(items)} rows): {len(calls)} `verifier.predict` calls, {n_pairs} pairs "
           f"({len(keys)} distinct), replayed per option with the pair cache off, rounds interleaved, best of "
           f"{args.repeats}. `alone vs batched`: {len(sample)} distinct pairs each scored alone (one call per "
           "pair) against their rows in the replayed calls, max |difference| of the probabilities (0: exactly "
           "invariant). `seconds`: wall clock; `CPU s`: this process's CPU time (less disturbed by the other jobs, "
           f"but it counts the threads' spin-waits). 1-min load average after each replay: {loads}.\n\n"
           f"| option | dtype | seconds | x {base_name} | CPU s | x {base_name} | forward passes | padding | "
           f"alone vs batched | vs {results[0]['reference']} |\n"
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    for r in results:
        md += (f"| {r['option']} | {r['dtype']} | {r['seconds']:.1f} | {r['relative']:.2f} | "
               f"{r['cpu_seconds']:.1f} | {r['cpu_relative']:.2f} | {r['forward_passes']} | "
               f"{100 * r['padding_share']:.1f}% | {r['max_abs_alone_vs_batched']:.2g} | "
               f"{r['max_abs_vs_reference']:.2g} |\n")
    md += ("\nEnd to end (`build_scorer(verifier).score(items)`, after load, one pass each, in this order): "
           + ", ".join(f"{k} {v} s" for k, v in e2e_s.items()) + ".\n")
    for name, diffs in e2e["per_item_change"].items():
        md += (f"\nPer-item change, {name} vs {ref_name}, over the ok items:\n\n"
               "| score | max per-item change | items changed > 1e-4 | mean before | mean after | mean change |\n"
               "|---|---:|---:|---:|---:|---:|\n")
        for col, d in diffs.items():
            md += (f"| {col} | {d['max_abs']} | {d['n_changed_1e-4']} | {d['mean_before']:.4f} | "
                   f"{d['mean_after']:.4f} | {d['mean_change']:+.5f} |\n")
    print(md)
    bl.write(Path(args.out), md, info)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
