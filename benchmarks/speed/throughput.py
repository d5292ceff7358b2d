"""Throughput: verifier pairs/s and end-to-end Ev2R items/s per verifier dtype, and scaling in n.

Input: the 86-row AVeriTeC manual-evaluation subset (../shared/data/ev2r_human_eval/
averitec_manual_eval_subset.jsonl; ``--limit N`` for its first N rows). Measured after the model
is loaded (load time reported apart) and after one warm-up pass:

* end-to-end: ``build_scorer(verifier).score(items)`` -- rule-based decomposition, reference-based
  precision/recall/F1 and proxy -- items/s and seconds for the whole subset, per verifier batch
  size; the target is the 86 rows in under 30 s;
* verifier alone: ``verifier.predict`` on exactly the (premise, hypothesis) pairs the pipeline sent
  to it for these items (recorded on a first pass), pairs/s per batch size.

Timings are the best of ``--repeats`` runs (least disturbed by other load on the machine); every
run is kept in the JSON.

Per dtype (``--dtypes fp32 bf16 int8``): the verifier's achieved GFLOP/s as a fraction of the same
dtype's measured matrix-product rate, and agreement with the first dtype (per-item Ev2R
difference, Spearman with every human rating). ``--n 100,500,1000``: AVeriTeC dev items scored in
a fresh process each (items/s, peak RSS), to check that cost grows linearly and memory stays flat.

Usage (full size, with the final verifier)::

    python benchmarks/speed/throughput.py --model bundled --dtypes fp32 bf16 int8 --batch-sizes 32 --n 100,500,1000
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402

TARGET_S = 30.0


class Recorder:
    """Wraps a verifier and records the pairs it is asked to score."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name
        self.pairs: list[tuple[str, str]] = []

    def predict(self, premises, hypotheses):
        self.pairs.extend(zip(premises, hypotheses))
        return self.inner.predict(premises, hypotheses)


def gemm_gflops(hidden: int, inner: int, rows: int = 4096, repeats: int = 30, dtype: str = "fp32") -> float:
    """Measured throughput (GFLOP/s) of a ``rows x hidden @ hidden x inner`` torch Linear in
    ``dtype`` (fp32, bf16; int8 = dynamically quantised Linear): the machine's practical ceiling
    for this model's matrix products at that precision."""
    import torch

    lin = torch.nn.Linear(hidden, inner)
    x = torch.randn(rows, hidden)
    if dtype == "bf16":
        lin, x = lin.to(torch.bfloat16), x.to(torch.bfloat16)
    elif dtype == "int8":
        lin = torch.ao.quantization.quantize_dynamic(torch.nn.Sequential(lin), {torch.nn.Linear}, dtype=torch.qint8)
    with torch.inference_mode():
        for _ in range(3):
            lin(x)
        t0 = time.perf_counter()
        for _ in range(repeats):
            lin(x)
        dt = (time.perf_counter() - t0) / repeats
    return 2 * rows * hidden * inner / dt / 1e9


def best_of(fn, repeats: int) -> tuple[float, list[float]]:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), times


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = result["runs"]
    fig, axes = plt.subplots(1, 2 if result.get("scaling") else 1, figsize=(11 if result.get("scaling") else 6, 4),
                             squeeze=False)
    ax1 = axes[0][0]
    labels = [f"{r['dtype']}\nbatch {r['batch_size']}" for r in runs]
    ax1.bar(range(len(runs)), [r["end_to_end_s"] for r in runs], color="C0")
    ax1.axhline(TARGET_S, color="C3", ls="--", label=f"target {TARGET_S:.0f} s")
    ax1.set_xticks(range(len(runs)), labels, fontsize=8)
    ax1.set_ylabel(f"seconds for {result['n_items']} items (after load)")
    ax1.legend()
    ax1.set_title("86 rated rows, end to end")
    if result.get("scaling"):
        ax2 = axes[0][1]
        sc = result["scaling"]
        ns = [r["n"] for r in sc]
        ax2.plot(ns, [r["seconds"] for r in sc], "o-", color="C1", label="seconds")
        ax2.set_xlabel("AVeriTeC dev items")
        ax2.set_ylabel("seconds (after load)", color="C1")
        ax3 = ax2.twinx()
        ax3.plot(ns, [r["peak_rss_mib"] for r in sc], "s--", color="C2")
        ax3.set_ylabel("peak RSS (MiB)", color="C2")
        ax3.set_ylim(0, max(r["peak_rss_mib"] for r in sc) * 1.3)
        ax2.set_title(f"scaling ({sc[0]['dtype']}, batch {sc[0]['batch_size']})")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def dev_items(n: int) -> list:
    """``n`` AVeriTeC dev items: the synthetic system ``averitec/parity/predictions_1.json`` joined to
    ``averitec/dev.json`` (500 claims), repeated with new ids to reach ``n``."""
    from dataclasses import replace

    from ev2r.io.readers import read_items

    base = read_items(bl.DATA / "averitec" / "parity" / "predictions_1.json",
                      references=str(bl.DATA / "averitec" / "dev.json"))
    out = []
    k = 0
    while len(out) < n:
        for it in base:
            if len(out) >= n:
                break
            out.append(replace(it, id=f"{it.id}#{k}", row=len(out)))
        k += 1
    return out


#: Scoring modes compared side by side: "exhaustive" is how the library first scored, before the premise cap and
#: batches by tokens (every premise, batches of a fixed number of pairs, every hybrid column); "default" is
#: ev2r.config.DEFAULTS.
#: The library checks each fact against its ev2r.config.PREMISE_TOP_K premises only (since 2.0): "every_premise" sets
#: the built scorer's k beyond any premise count here, which is the exhaustive run.
MODES = {"exhaustive": {"every_premise": True, "max_batch_tokens": None, "hybrid_columns": "all"},
         "default": {}}
#: A k no evidence reaches (the rated sets hold at most a few dozen premises for one fact).
EVERY_PREMISE = 10 ** 9


def mode_scorer(mode: str, model: str, dtype: str, batch_size: int, cache: bool = True):
    """(verifier, scorer) of a :data:`MODES` entry, the verifier loaded. ``cache=False`` turns the
    verifier's cross-call pair cache off (the scaling runs repeat items, which would hit it)."""
    from ev2r.config import DEFAULTS
    from ev2r.metric.factory import build_scorer

    opts = MODES[mode]
    ver = bl.load(model, "cpu", batch_size, dtype=dtype)
    if "max_batch_tokens" in opts:
        ver.max_batch_tokens = opts["max_batch_tokens"]
    if not cache:
        ver.cache_size = 0
    ver._load()
    cfg = DEFAULTS.replace(verifier=ver, **{k: v for k, v in opts.items() if k not in ("max_batch_tokens",
                                                                                      "every_premise")})
    scorer = build_scorer(config=cfg)
    if opts.get("every_premise"):
        scorer.reference_scorer.premise_top_k = EVERY_PREMISE
    return ver, scorer


def scale_child(n: int, model: str, dtype: str, batch_size: int, mode: str = "default") -> dict:
    """Score ``n`` dev items in this process (mode ``mode``, pair cache off); seconds, load included
    and after load, pairs per item, the pruned share, the padding share, and the process's peak RSS."""
    import resource

    t_start = time.perf_counter()
    items = dev_items(n)
    ver, scorer = mode_scorer(mode, model, dtype, batch_size, cache=False)
    t0 = time.perf_counter()
    scores = scorer.score(items)
    dt = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    ref = scorer.reference_scorer
    return {"n": n, "mode": mode, "seconds": round(dt, 1), "seconds_with_load": round(time.perf_counter() - t_start, 1),
            "items_per_s": round(n / dt, 2), "peak_rss_mib": round(rss), "n_failed": sum(not s.ok for s in scores),
            "dtype": ver.dtype, "batch_size": batch_size, "model_pairs_per_item": round(ver.n_model_pairs / n, 1),
            "fact_premise_pairs_per_item": round((ref.n_pairs_considered - ref.n_pairs_pruned) / n, 1),
            "pruned_share": round(ref.n_pairs_pruned / max(1, ref.n_pairs_considered), 3),
            "padding_share": round(1 - ver.n_model_tokens / max(1, ver.n_padded_tokens), 3)}


def rated_child(path: str, model: str, dtype: str, batch_size: int, mode: str) -> dict:
    """The rated rows of ``path`` in this process, mode ``mode``: load seconds, the first pass and a
    second pass (best of the two after load), pairs, padding, peak RSS."""
    import resource

    from ev2r.io.readers import read_items

    t_start = time.perf_counter()
    items = read_items(path)
    ver, scorer = mode_scorer(mode, model, dtype, batch_size, cache=False)
    load_s = time.perf_counter() - t_start
    runs = []
    for _ in range(2):
        tok0, pad0, pairs0 = ver.n_model_tokens, ver.n_padded_tokens, ver.n_model_pairs
        t0 = time.perf_counter()
        scorer.score(items)
        runs.append(time.perf_counter() - t0)
    ref = scorer.reference_scorer
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"file": bl.display_path(path), "n": len(items), "mode": mode, "load_s": round(load_s, 1),
            "seconds": round(min(runs), 1), "all_seconds": [round(x, 1) for x in runs],
            "model_pairs_per_item": round((ver.n_model_pairs - pairs0) / len(items), 1),
            "fact_premise_pairs_per_item": round((ref.n_pairs_considered - ref.n_pairs_pruned) / 2 / len(items), 1),
            "pruned_share": round(ref.n_pairs_pruned / max(1, ref.n_pairs_considered), 3),
            "padding_share": round(1 - (ver.n_model_tokens - tok0) / max(1, ver.n_padded_tokens - pad0), 3),
            "peak_rss_mib": round(rss)}


def mode_tables(rated: list, scaling: list, args) -> list[str]:
    """Markdown: the rated rows per mode, then scaling in n per mode (fresh processes)."""
    md = []
    if rated:
        md.append(f"Rated rows per mode (`--modes`; verifier dtype {args.scale_dtype}; each file and mode in a fresh "
                  "process; seconds after load, best of 2 passes; the pair cache off, so the second pass recomputes):\n")
        md.append("| file | rows | mode | load s | seconds | items/s | verifier pairs / item | fact-premise pairs / item "
                  "| pruned | padding | peak RSS MiB |")
        md.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in rated:
            md.append(f"| `{Path(r['file']).name}` | {r['n']} | {r['mode']} | {r['load_s']} | {r['seconds']} | "
                      f"{r['n'] / r['seconds']:.2f} | {r['model_pairs_per_item']} | {r['fact_premise_pairs_per_item']} | "
                      f"{r['pruned_share']:.0%} | {r['padding_share']:.0%} | {r['peak_rss_mib']} |")
        md.append("")
    if scaling:
        md.append("Scaling over AVeriTeC dev items (`parity/predictions_1.json` joined to `dev.json`, repeated past "
                  "500 with new ids; each n and mode in a fresh process; the verifier's pair cache off, since the "
                  "repeated items would hit it; peak RSS of that process):\n")
        md.append("| n | mode | seconds (after load) | seconds with load | items/s | verifier pairs / item | pruned "
                  "| padding | peak RSS MiB | failed |")
        md.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in scaling:
            md.append(f"| {r['n']} | {r['mode']} | {r['seconds']} | {r['seconds_with_load']} | {r['items_per_s']} | "
                      f"{r['model_pairs_per_item']} | {r['pruned_share']:.0%} | {r['padding_share']:.0%} | "
                      f"{r['peak_rss_mib']} | {r['n_failed']} |")
        md.append("")
        k1000 = [r for r in scaling if r["n"] == 1000 and r["mode"] == "default"]
        if k1000:
            ok = k1000[0]["seconds_with_load"] <= 180
            md.append(f"Target (1,000 items <= 3 minutes end to end, load included, default mode): "
                      f"{'met' if ok else 'NOT met'} -- {k1000[0]['seconds_with_load']} s.\n")
    small = [r for r in rated if r["n"] == 86 and r["mode"] == "default"]
    if small:
        md.append(f"Target (the 86 rows <= 10 s after load, default mode): "
                  f"{'met' if small[0]['seconds'] <= 10 else 'NOT met'} -- {small[0]['seconds']} s.\n")
    return md


def plot_modes(scaling: list, path: Path) -> None:
    """Seconds against n per mode (log-log), from the scaling rows."""
    if not scaling:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    for mode in dict.fromkeys(r["mode"] for r in scaling):
        rows = [r for r in scaling if r["mode"] == mode]
        ax.plot([r["n"] for r in rows], [r["seconds_with_load"] for r in rows], marker="o", label=mode)
    ax.axhline(180, color="grey", lw=0.8, ls="--", label="3 min")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("AVeriTeC items")
    ax.set_ylabel("seconds, load included")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--input", type=Path, default=bl.DATA / "ev2r_human_eval" / "averitec_manual_eval_subset.jsonl")
    ap.add_argument("--model", default="bundled", help="verifier: bundled (default) or a checkpoint path")
    ap.add_argument("--limit", type=int, default=None, help="only the first N rows (default all 86)")
    ap.add_argument("--batch-sizes", type=int, nargs="+", default=[32])
    ap.add_argument("--dtypes", nargs="*", default=["fp32", "bf16", "int8"], choices=["fp32", "bf16", "int8"],
                    help="verifier precisions to measure; the first is the reference for agreement (none: skip)")
    ap.add_argument("--modes", nargs="+", default=list(MODES), choices=list(MODES),
                    help="scoring modes for the rated-rows and scaling tables (each in a fresh process)")
    ap.add_argument("--rated", nargs="*", default=[str(bl.DATA / "ev2r_human_eval" / "averitec_manual_eval_subset.jsonl"),
                                                   str(bl.DATA / "ev2r_human_eval" / "averitec_shared_task_dev.jsonl")],
                    help="rating files timed per mode (none: skip)")
    ap.add_argument("--repeats", type=int, default=2, help="runs per setting; the best is reported")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--n", default="", help="scaling: comma-separated item counts over AVeriTeC dev (e.g. 100,500,1000), "
                                           "each in a fresh process (peak memory); empty = skip")
    ap.add_argument("--scale-dtype", default="bf16")
    ap.add_argument("--scale-child", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--rated-child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--mode", default="default", help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, default=bl.RESULTS / "throughput", help="output prefix (.md/.json/.png)")
    args = ap.parse_args(argv)

    if args.scale_child is not None:
        print(json.dumps(scale_child(args.scale_child, args.model, args.scale_dtype, args.batch_sizes[0], args.mode)))
        return 0
    if args.rated_child is not None:
        print(json.dumps(rated_child(args.rated_child, args.model, args.scale_dtype, args.batch_sizes[0], args.mode)))
        return 0

    import numpy as np
    from scipy import stats

    from ev2r.metric.factory import build_scorer
    from ev2r.io.readers import read_items

    items = read_items(args.input, limit=args.limit)
    ratings = {d: [(it.extra.get("human_ratings") or {}).get(d) for it in items]
               for d in ("semantic_coverage", "coherence", "redundancy", "consistency", "verdict_agreement")}
    runs, per_dtype, info_dtype = [], {}, {}
    for dtype in args.dtypes:
        t0 = time.perf_counter()
        verifier = bl.load(args.model, args.device, args.batch_sizes[0], dtype=dtype)
        verifier._load()
        load_s = time.perf_counter() - t0
        rec = Recorder(verifier)
        t0 = time.perf_counter()
        tok0, pad0 = verifier.n_model_tokens, verifier.n_padded_tokens
        first = build_scorer(verifier=rec).score(items)  # warm-up pass, records the pairs
        warm_s = time.perf_counter() - t0
        per_dtype[dtype] = {k: [getattr(s, k) for s in first] for k in ("precision", "recall", "f1", "proxy", "ev2r")}
        n_tokens, n_padded = verifier.n_model_tokens - tok0, verifier.n_padded_tokens - pad0
        prem = [p for p, _ in rec.pairs]
        hyp = [h for _, h in rec.pairs]
        cfg = verifier._model.config if hasattr(verifier._model, "config") else None
        hidden = cfg.hidden_size if cfg else 384
        inner = getattr(cfg, "intermediate_size", 4 * hidden) if cfg else 1536
        # Linear FLOPs per token of a BERT-style encoder: Q, K, V, output (4 h^2) and the two
        # feed-forward matrices (2 h x inner) per layer, 2 FLOPs per multiply-add
        flops_tok = 2 * (4 * hidden * hidden + 2 * hidden * inner) * (cfg.num_hidden_layers if cfg else 6)
        gemm = gemm_gflops(hidden, inner, dtype=dtype)
        info_dtype[dtype] = {"name": verifier.name, "model_load_s": round(load_s, 2), "warmup_s": round(warm_s, 2),
                             "n_pairs": len(prem), "n_unique_pairs": len(set(rec.pairs)), "tokens": n_tokens,
                             "padded_tokens": n_padded, "gemm_gflops": round(gemm, 1),
                             "linear_flops_per_token": flops_tok}
        for bs in args.batch_sizes:
            verifier.batch_size = bs
            scorer = build_scorer(verifier=verifier)
            e2e, e2e_all = best_of(lambda scorer=scorer: scorer.score(items), args.repeats)
            ver, ver_all = best_of(lambda verifier=verifier, prem=prem, hyp=hyp: verifier.predict(prem, hyp), args.repeats)
            achieved = n_tokens * flops_tok / ver / 1e9
            runs.append({"dtype": dtype, "batch_size": bs, "end_to_end_s": round(e2e, 2),
                         "items_per_s": round(len(items) / e2e, 2), "verifier_s": round(ver, 2),
                         "verifier_pairs_per_s": round(len(prem) / ver, 1), "verifier_share": round(ver / e2e, 3),
                         "verifier_gflops": round(achieved, 1), "fraction_of_gemm": round(achieved / gemm, 3),
                         "all_end_to_end_s": [round(x, 2) for x in e2e_all], "all_verifier_s": [round(x, 2) for x in ver_all]})
            print(f"{dtype} batch {bs}: {e2e:.1f} s end-to-end, verifier {len(prem) / ver:.1f} pairs/s, "
                  f"{achieved:.0f} GFLOP/s = {achieved / gemm:.0%} of the {dtype} GEMM", file=sys.stderr)
    ref = args.dtypes[0] if args.dtypes else args.scale_dtype
    agreement = {}
    for dtype in args.dtypes[1:]:
        a, b = per_dtype[ref]["ev2r"], per_dtype[dtype]["ev2r"]
        d = [abs(x - y) for x, y in zip(a, b) if x is not None and y is not None]
        rho = {}
        for dim, r in ratings.items():
            for name in ("recall", "ev2r", "proxy"):
                xs = [(u, v, w) for u, v, w in zip(per_dtype[ref][name], per_dtype[dtype][name], r)
                      if u is not None and v is not None and w is not None]
                if len(xs) > 3:
                    s_ref = stats.spearmanr([x[0] for x in xs], [x[2] for x in xs])[0]
                    s_dt = stats.spearmanr([x[1] for x in xs], [x[2] for x in xs])[0]
                    rho[f"{name}/{dim}"] = {ref: round(float(s_ref), 4), dtype: round(float(s_dt), 4),
                                            "diff": round(float(s_dt - s_ref), 4)}
        agreement[dtype] = {"vs": ref, "mean_abs_ev2r_diff": round(float(np.mean(d)), 4) if d else None,
                            "max_abs_ev2r_diff": round(float(np.max(d)), 4) if d else None,
                            "max_abs_spearman_diff": max(abs(v["diff"]) for v in rho.values()) if rho else None,
                            "spearman": rho}
    import subprocess

    def child(*extra):
        out = subprocess.run([sys.executable, __file__, *extra, "--model", args.model, "--scale-dtype",
                              args.scale_dtype, "--batch-sizes", str(args.batch_sizes[0])],
                             capture_output=True, text=True, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])

    rated = []
    for path in args.rated:
        for mode in args.modes:
            rated.append(child("--rated-child", path, "--mode", mode))
            print(f"rated {path} {mode}: {rated[-1]}", file=sys.stderr)
    scaling = []
    for n in [int(x) for x in args.n.split(",") if x.strip()]:
        for mode in args.modes:
            scaling.append(child("--scale-child", str(n), "--mode", mode))
            print(f"scale n={n} {mode}: {scaling[-1]}", file=sys.stderr)
    if not runs:  # --dtypes none: the mode tables only
        result = {"command": bl.command(), "machine": bl.machine(),
                  "verifier": bl.verifier_info(args.model, bl.load(args.model, args.device, 32, dtype=args.scale_dtype)),
                  "rated": rated, "scaling": scaling}
        md = [bl.header("Throughput: end-to-end Ev2R per scoring mode", result), "", *mode_tables(rated, scaling, args)]
        plot_modes(scaling, Path(f"{args.out}.png"))
        md.append(f"Plot: `{args.out.name}.png`.\n")
        bl.write(args.out, "\n".join(md), result)
        return 0
    best = min(runs, key=lambda r: r["end_to_end_s"])
    result = {"command": bl.command(), "machine": bl.machine(),
              "verifier": bl.verifier_info(args.model, bl.load(args.model, args.device, 32, dtype=ref)),
              "n_items": len(items), "dtypes": info_dtype, "runs": runs, "agreement": agreement, "scaling": scaling,
              "best": {"dtype": best["dtype"], "batch_size": best["batch_size"], "end_to_end_s": best["end_to_end_s"]},
              "target": {"seconds": TARGET_S, "rows": 86,
                         "met": bool(len(items) >= 86 and best["end_to_end_s"] < TARGET_S) if len(items) >= 86 else None}}
    md = [bl.header("Throughput: verifier and end-to-end Ev2R", result), ""]
    md.append(f"Input: `{args.input.name}`, {len(items)} rows. Timings after the model is loaded and one warm-up pass; "
              f"best of {args.repeats} runs. `verifier alone` replays the recorded (premise, hypothesis) pairs through "
              "`verifier.predict`; its GFLOP/s counts the Linear layers' FLOPs of the unpadded tokens, compared with a "
              "4096 x hidden @ hidden x intermediate matrix product of the same dtype measured in the same run.\n")
    md.append("| dtype | batch | end-to-end s | items/s | verifier alone s | pairs/s | verifier share | verifier GFLOP/s | of the dtype's GEMM |")
    md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in runs:
        md.append(f"| {r['dtype']} | {r['batch_size']} | {r['end_to_end_s']} | {r['items_per_s']} | {r['verifier_s']} | "
                  f"{r['verifier_pairs_per_s']} | {r['verifier_share']:.0%} | {r['verifier_gflops']} | {r['fraction_of_gemm']:.0%} |")
    md.append("")
    md.append("| dtype | load s | pairs (unique) | tokens (padded) | GEMM GFLOP/s |")
    md.append("|---|---:|---:|---:|---:|")
    for dt, d in info_dtype.items():
        md.append(f"| {dt} | {d['model_load_s']} | {d['n_pairs']} ({d['n_unique_pairs']}) | {d['tokens']:,} ({d['padded_tokens']:,}) | {d['gemm_gflops']} |")
    verdict = "met" if result["target"]["met"] else "NOT met"
    md.append(f"\nTarget (86 rows in < {TARGET_S:.0f} s after loading): {verdict} -- best {best['end_to_end_s']} s "
              f"({best['dtype']}, batch {best['batch_size']}).\n")
    if agreement:
        md.append(f"Agreement with {ref} on the same rows (per-item Ev2R; Spearman with every rating, recall / Ev2R / proxy):\n")
        md.append("| dtype | mean abs Ev2R diff | max abs Ev2R diff | max abs Spearman diff |")
        md.append("|---|---:|---:|---:|")
        for dt, a in agreement.items():
            md.append(f"| {dt} | {a['mean_abs_ev2r_diff']} | {a['max_abs_ev2r_diff']} | {a['max_abs_spearman_diff']} |")
        md.append("")
    result["rated"] = rated
    md.extend(mode_tables(rated, scaling, args))
    md.append(f"Plot: `{args.out.name}.png`.\n")
    plot(result, Path(f"{args.out}.png"))
    bl.write(args.out, "\n".join(md), result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
