"""Precision bound: how far each verifier compute precision moves every score of one item against fp32.

A compute precision keeps a version's name (``ev2r-hybrid/4`` with ``+bf16``) only if, against fp32, it moves no
item's continuous score (proxy, ev2r_hybrid and its parts, graded_*) by more than :data:`ev2r.versions.PRECISION_BOUND`
and the corpus mean of no thresholded column (precision, recall, f1, ev2r) by more than
:data:`ev2r.versions.PRECISION_MEAN_BOUND`; one beyond it is part of the definition (``ev2r-hybrid/custom-<fingerprint>``). This table is the measurement behind that bound.

Input: the two development rating sets (``--data``; default the 86 rows of
``averitec_manual_eval_subset.jsonl`` and the 144 rows of ``averitec_shared_task_dev.jsonl``), scored with the
default options and the verifier (``--model``, default bundled) in each precision of ``--dtypes`` (default
fp32, bf16, int8; the first is the reference), back to back in one process: per set, each precision is loaded,
warmed up on the set's first ``--warmup`` items and then scores the whole set once (the wall time of that pass,
load excluded). Per score column (precision, recall, f1, proxy, ev2r, ev2r_hybrid, graded_*, hybrid_meteor,
verified_meteor): the largest and the mean absolute per-item change against the reference, the item with the
largest change, the number of items that move more than ``--bound`` (and more than 0.05 / 0.2), and the change
of the corpus mean. The machine is shared: time ratios come from one run, not a best of several.

Usage::

    python benchmarks/parity/precision_bound.py
    python benchmarks/parity/precision_bound.py --data 86=../shared/data/ev2r_human_eval/averitec_manual_eval_subset.jsonl --dtypes fp32 bf16
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Optional

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402
from ev2r.versions import THRESHOLDED_COLUMNS  # noqa: E402

DEFAULT_DATA = [f"86={bl.DATA / 'ev2r_human_eval' / 'averitec_manual_eval_subset.jsonl'}",
                f"144={bl.DATA / 'ev2r_human_eval' / 'averitec_shared_task_dev.jsonl'}"]
#: Changes counted besides the bound: 0.05 and 0.2.
STEPS = (0.05, 0.2)
#: The columns bounded on their corpus mean, not per item.
THRESHOLDED = THRESHOLDED_COLUMNS


def score_columns(score) -> dict:
    """Every numeric score of one :class:`ev2r.types.ItemScore` row (None where not computed)."""
    row = score.to_dict()
    out = {k: row.get(k) for k in ("precision", "recall", "f1", "proxy", "ev2r")}
    out.update({k: v for k, v in sorted(score.extra_scores.items()) if v is None or isinstance(v, (int, float))})
    return out


def compare(ref: list[dict], other: list[dict], ids: list[str], bound: float) -> dict:
    """Per column: largest / mean absolute per-item change of ``other`` against ``ref``, the item of the largest,
    how many items move more than ``bound`` and than each of :data:`STEPS`, and the change of the mean.

    Items where either side is None (not computed, failed) are left out of that column."""
    cols = [k for k in dict.fromkeys(k for r in ref for k in r) if k != "id"]
    out = {}
    for col in cols:
        pairs = [(i, a[col], b.get(col)) for i, (a, b) in enumerate(zip(ref, other))
                 if a.get(col) is not None and b.get(col) is not None]
        if not pairs:
            continue
        diffs = [abs(b - a) for _, a, b in pairs]
        worst = max(range(len(pairs)), key=lambda j: diffs[j])
        n = len(pairs)
        out[col] = {"n": n, "max_abs": round(max(diffs), 6), "mean_abs": round(sum(diffs) / n, 6),
                    "worst_item": ids[pairs[worst][0]],
                    "worst_values": [round(pairs[worst][1], 6), round(pairs[worst][2], 6)],
                    "n_over_bound": sum(d > bound for d in diffs),
                    **{f"n_over_{s:g}": sum(d > s for d in diffs) for s in STEPS},
                    "mean_change": round(sum(b for _, _, b in pairs) / n - sum(a for _, a, _ in pairs) / n, 6)}
    return out


def run_set(name: str, path: str, dtypes: list[str], model: str, warmup: int, bound: float,
            record_pairs: Optional[list] = None) -> dict:
    """Score the rating file ``path`` in each of ``dtypes`` (one timed pass each, after ``warmup`` items) and
    compare every column per item with the first. ``record_pairs``: a list that receives the (premise,
    hypothesis) pairs the first precision's verifier was asked to score (for :func:`verifier_timing`)."""
    from ev2r.io.readers import read_items
    from ev2r.metric.factory import build_scorer
    from ev2r.verifier.loading import get_verifier
    from ev2r.versions import identify

    items = read_items(path)
    ids = [str(it.id) for it in items]
    runs, rows = {}, {}
    for dtype in dtypes:
        t0 = time.perf_counter()
        scorer = build_scorer(verifier=model, dtype=dtype)
        load_s = time.perf_counter() - t0
        scorer.score(items[:warmup])
        ver = get_verifier(model, device="cpu", dtype=dtype)  # the cached instance the scorer uses
        if record_pairs is not None and dtype == dtypes[0]:
            inner = ver.predict

            def recording(premises, hypotheses, inner=inner):
                record_pairs.extend(zip(premises, hypotheses))
                return inner(premises, hypotheses)

            ver.predict = recording
        t0 = time.perf_counter()
        try:
            scores = scorer.score(items)
        finally:
            ver.__dict__.pop("predict", None)
        wall = time.perf_counter() - t0
        sig = str(scorer.signature())
        rows[dtype] = [score_columns(s) for s in scores]
        runs[dtype] = {"wall_s": round(wall, 2), "load_s": round(load_s, 2), "n": len(items),
                       "n_failed": sum(not s.ok for s in scores), "signature": sig,
                       "versions": {n: ident.label for n, ident in identify(sig).items()}}
        print(f"{name} {dtype}: {wall:.1f} s, {runs[dtype]['versions']}", file=sys.stderr)
    ref = dtypes[0]
    changes = {d: compare(rows[ref], rows[d], ids, bound) for d in dtypes[1:]}
    return {"name": name, "file": bl.display_path(path), "n": len(items), "reference": ref, "runs": runs,
            "changes": changes, "per_item": {d: [dict(id=i, **r) for i, r in zip(ids, rows[d])] for d in dtypes}}


def verifier_timing(pairs: list, dtypes: list[str], model: str, rounds: int) -> dict:
    """Seconds of ``verifier.predict`` on ``pairs`` per precision, the precisions interleaved (fp32, bf16, int8,
    fp32, ...) for ``rounds`` rounds, so that the other jobs on a shared machine slow each alike; best and every
    round per precision."""
    from ev2r.verifier.loading import get_verifier

    prem, hyp = [p for p, _ in pairs], [h for _, h in pairs]
    vers = {d: get_verifier(model, device="cpu", dtype=d) for d in dtypes}
    for d in dtypes:
        vers[d].predict(prem[:64], hyp[:64])  # warm-up
    times: dict = {d: [] for d in dtypes}
    for _ in range(rounds):
        for d in dtypes:
            t0 = time.perf_counter()
            vers[d].predict(prem, hyp)
            times[d].append(round(time.perf_counter() - t0, 2))
    return {"n_pairs": len(pairs), "rounds": rounds,
            "best_s": {d: min(t) for d, t in times.items()}, "all_s": times}


def count_over(s: dict, bound: float) -> None:
    """``s["any_over_bound"][dtype]``: the items of the set ``s`` with a continuous score (not in
    :data:`THRESHOLDED`) more than ``bound`` from the reference's."""
    ref = s["reference"]
    s["any_over_bound"] = {}
    for d in s["per_item"]:
        if d == ref:
            continue
        s["any_over_bound"][d] = sum(
            any(a.get(k) is not None and b.get(k) is not None and abs(b[k] - a[k]) > bound
                for k in a if k != "id" and k not in THRESHOLDED) for a, b in zip(s["per_item"][ref], s["per_item"][d]))


def markdown(result: dict) -> str:
    bound = result["bound"]
    md = [bl.header("Precision bound: per-item change of every score against fp32", result), "",
          f"Each development rating set scored with the default options in each precision, back to back in one "
          f"process (one pass each after a warm-up on {result['warmup']} items, load excluded; the machine was "
          "shared with other jobs, so read the times as ratios within one set). A change is |score(dtype) - "
          f"score({result['reference']})| of one item. The bound (docs/versions.md): a precision keeps the version's name when "
          f"it moves no item's continuous score (every column but {', '.join(THRESHOLDED)}) by more than {bound:g} "
          f"(`ev2r.versions.PRECISION_BOUND`) and the mean of no thresholded column ({', '.join(THRESHOLDED)}: a fact "
          f"near P = 0.5 may change side) by more than {result['mean_bound']:g} (`PRECISION_MEAN_BOUND`).", ""]
    md += ["## Summary", "",
           "| set | `--dtype` | wall time s | vs fp32 | largest change of the proxy | items whose proxy moves > 0.05 "
           "| largest change of `ev2r_hybrid` | largest change of a continuous score (column) | items with a continuous "
           "score > bound | largest change of a thresholded mean (column) | within the bound | versioned name |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for s in result["sets"]:
        ref = s["reference"]
        for d, run in s["runs"].items():
            ratio = run["wall_s"] / s["runs"][ref]["wall_s"]
            if d == ref:
                md.append(f"| {s['name']} | {d} | {run['wall_s']} | 1.00 | – | – | – | – | – | – | – | "
                          f"`{run['versions'].get('ev2r-hybrid', '')}` |")
                continue
            ch = s["changes"][d]
            cont = {c: v for c, v in ch.items() if c not in THRESHOLDED}
            top = max(cont, key=lambda c: cont[c]["max_abs"])
            mtop = max(THRESHOLDED, key=lambda c: abs(ch[c]["mean_change"]))
            within = ch[top]["max_abs"] <= bound and abs(ch[mtop]["mean_change"]) <= result["mean_bound"]
            md.append(f"| {s['name']} | {d} | {run['wall_s']} | {ratio:.2f} | {ch['proxy']['max_abs']:.4f} | "
                      f"{ch['proxy']['n_over_0.05']} of {ch['proxy']['n']} | {ch['ev2r_hybrid']['max_abs']:.4f} | "
                      f"{ch[top]['max_abs']:.4f} ({top}) | {s['any_over_bound'][d]} of {s['n']} | "
                      f"{ch[mtop]['mean_change']:+.4f} ({mtop}) | {'yes' if within else 'no'} | "
                      f"`{run['versions'].get('ev2r-hybrid', '')}` |")
    md.append("")
    t = result.get("verifier_timing")
    if t:
        ref = result["reference"]
        md += [f"Verifier alone, interleaved: `verifier.predict` on the {t['n_pairs']} (premise, hypothesis) pairs "
               f"the {result['sets'][0]['name']}-row set sent to the verifier, the precisions in turn for {t['rounds']} "
               "rounds (each round slowed alike by the other jobs on the machine); best round:", "",
               "| `--dtype` | best s | vs fp32 | every round s |", "|---|---:|---:|---|"]
        for d, best in t["best_s"].items():
            md.append(f"| {d} | {best} | {best / t['best_s'][ref]:.2f} | {', '.join(map(str, t['all_s'][d]))} |")
        md.append("")
    for s in result["sets"]:
        md += [f"## {s['name']} rows (`{Path(s['file']).name}`)", ""]
        for d, ch in s["changes"].items():
            md += [f"{d} against {s['reference']}:", "",
                   f"| score | items | largest change | mean change | item (fp32 -> {d}) | items > {bound:g} "
                   "| items > 0.05 | items > 0.2 | change of the mean |",
                   "|---|---:|---:|---:|---|---:|---:|---:|---:|"]
            for col, c in ch.items():
                md.append(f"| {col} | {c['n']} | {c['max_abs']:.4f} | {c['mean_abs']:.5f} | {c['worst_item']} "
                          f"({c['worst_values'][0]:.4f} -> {c['worst_values'][1]:.4f}) | {c['n_over_bound']} | "
                          f"{c['n_over_0.05']} | {c['n_over_0.2']} | {c['mean_change']:+.5f} |")
            md.append("")
    md += ["Signatures (short form in the summary's versioned name; full here):", ""]
    for s in result["sets"][:1]:
        for d, run in s["runs"].items():
            md.append(f"* {d}: `{run['signature']}`")
    md.append("")
    return "\n".join(md)


def main(argv=None) -> int:

    from ev2r.versions import PRECISION_BOUND, PRECISION_MEAN_BOUND

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", nargs="+", default=DEFAULT_DATA, metavar="[NAME=]PATH",
                    help="rating files (default: the 86 and 144 development rows)")
    ap.add_argument("--dtypes", nargs="+", default=["fp32", "bf16", "int8"], choices=["fp32", "bf16", "int8"],
                    help="precisions, the first the reference (default fp32 bf16 int8)")
    ap.add_argument("--model", default="bundled", help="verifier (default bundled)")
    ap.add_argument("--warmup", type=int, default=4, help="items scored before the timed pass (default 4)")
    ap.add_argument("--bound", type=float, default=PRECISION_BOUND,
                    help=f"the per-item bound counted against (default ev2r.versions.PRECISION_BOUND = {PRECISION_BOUND:g})")
    ap.add_argument("--timing-rounds", type=int, default=3,
                    help="rounds of the interleaved verifier-alone timing on the first set's pairs (0: none; default 3)")
    ap.add_argument("--timing-pairs", type=int, default=500,
                    help="the first N of those pairs are timed (default 500)")
    ap.add_argument("--render", type=Path, default=None, metavar="JSON",
                    help="write the .md again from a .json(.gz) this script wrote (no scoring; the bounds as now)")
    ap.add_argument("--out", type=Path, default=bl.RESULTS / "precision_bound",
                    help="output prefix (.md, .json.gz: the JSON is stored compressed, results/README.md)")
    args = ap.parse_args(argv)
    if len(set(args.dtypes)) != len(args.dtypes) or len(args.dtypes) < 2:
        ap.error(f"--dtypes: at least two different precisions, got {args.dtypes}")

    if args.render:
        result = bl.read_json(args.render)
        result.update(bound=PRECISION_BOUND, mean_bound=PRECISION_MEAN_BOUND)
        for s in result["sets"]:
            s["changes"] = {d: compare(s["per_item"][s["reference"]], s["per_item"][d],
                                       [r["id"] for r in s["per_item"][d]], PRECISION_BOUND)
                            for d in s["per_item"] if d != s["reference"]}
            count_over(s, PRECISION_BOUND)
        bl.write(args.out, markdown(result), result, gz=True)
        return 0
    named = [bl.parse_named(spec, "--data") for spec in args.data]
    n_rows = [len(bl.read_jsonl(p)) for _, p in named]
    names = bl.default_names([p for _, p in named], n_rows, [n for n, _ in named])
    sets, pairs = [], []
    for k, (name, (_, path)) in enumerate(zip(names, named)):
        s = run_set(name, path, args.dtypes, args.model, args.warmup, args.bound,
                    record_pairs=pairs if k == 0 and args.timing_rounds > 0 else None)
        count_over(s, args.bound)
        sets.append(s)
    from ev2r.verifier.loading import get_verifier

    pairs = pairs[:args.timing_pairs]
    timing = verifier_timing(pairs, args.dtypes, args.model, args.timing_rounds) if pairs else None
    if timing:
        print(f"verifier alone: {timing['best_s']}", file=sys.stderr)
    result = {"command": bl.command(), "machine": bl.machine(),
              "verifier": bl.verifier_info(args.model, get_verifier(args.model, device="cpu", dtype=args.dtypes[0])),
              "reference": args.dtypes[0], "bound": args.bound, "mean_bound": PRECISION_MEAN_BOUND, "warmup": args.warmup, "verifier_timing": timing,
              "sets": sets}
    bl.write(args.out, markdown(result), result, gz=True)
    print(markdown(result).split("## Summary", 1)[1].split("\n## ", 1)[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
