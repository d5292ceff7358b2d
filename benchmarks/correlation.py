"""Correlation of Ev2R's scores with human ratings of retrieved evidence.

    python benchmarks/correlation.py --data ../shared/data/ev2r_human_eval/averitec_manual_eval_subset.jsonl \
        --anchors ../shared/data/anchors/anchors_correlations.csv \
        --replay ../shared/data/ev2r_replay/replay_atomic_reference_prec_recall.jsonl \
        --out benchmarks/results/correlation_86 --json benchmarks/results/correlation_86.json

For each score (precision, recall, F1, proxy, Ev2R; Hungarian METEOR as a lexical baseline;
the proxy with the annotators' own verdict as target, labelled, only for comparison; replayed
GPT-4o / GPT-3.5 precision and recall when ``--replay`` is given) and each human rating present
in the file (``human_ratings``): Spearman and Pearson over rows, with a 95% percentile bootstrap
CI (rows resampled with replacement, seeded). Rows are joined on position (rating files can
repeat an ``id``). Items whose score is None (failed) are left out of that score's correlation
and counted. Published numbers (``--anchors``) are printed beside ours for the same file.

``--json OUT`` writes ``{"<score>/<dimension>": {"spearman", "pearson", "n", ...}}``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# score name -> (anchor scorer, anchor llm, anchor metric) of the published counterpart
ANCHOR_OF = {
    "precision": ("atomic_reference_prec_recall", "gpt-4o-2024-05-13", "precision"),
    "recall": ("atomic_reference_prec_recall", "gpt-4o-2024-05-13", "recall"),
    "proxy": ("pseudo_trained", "", "score"),
    "proxy_human_target": ("pseudo_trained", "", "score"),
    "hu_meteor": ("hmeteor", "", "score"),
    "replay_gpt-4o-2024-05-13_precision": ("atomic_reference_prec_recall", "gpt-4o-2024-05-13", "precision"),
    "replay_gpt-4o-2024-05-13_recall": ("atomic_reference_prec_recall", "gpt-4o-2024-05-13", "recall"),
    "replay_gpt-3.5-turbo-1106_precision": ("atomic_reference_prec_recall", "gpt-3.5-turbo-1106", "precision"),
    "replay_gpt-3.5-turbo-1106_recall": ("atomic_reference_prec_recall", "gpt-3.5-turbo-1106", "recall"),
}


def correlate(x, y, n_boot: int = 2000, seed: int = 0) -> dict:
    """Spearman and Pearson of paired values with percentile bootstrap 95% CIs.

    Pairs where either value is None are dropped. Returns NaN-free numbers; a constant input
    yields ``None`` for that coefficient (undefined), never NaN.
    """
    pairs = [(a, b) for a, b in zip(x, y) if a is not None and b is not None]
    n = len(pairs)
    out = {"n": n, "n_dropped": len(x) - n}
    if n < 3:
        return {**out, "spearman": None, "pearson": None, "spearman_ci95": None, "pearson_ci95": None}
    xa = np.array([p[0] for p in pairs], float)
    ya = np.array([p[1] for p in pairs], float)

    def coef(fn, a, b):
        if np.all(a == a[0]) or np.all(b == b[0]):
            return None
        return float(fn(a, b)[0])

    out["spearman"] = coef(stats.spearmanr, xa, ya)
    out["pearson"] = coef(stats.pearsonr, xa, ya)
    rng = np.random.default_rng(seed)
    boots = {"spearman": [], "pearson": []}
    for _ in range(n_boot):
        idx = rng.integers(0, n, n)
        for name, fn in (("spearman", stats.spearmanr), ("pearson", stats.pearsonr)):
            v = coef(fn, xa[idx], ya[idx])
            if v is not None:
                boots[name].append(v)
    for name in boots:
        b = boots[name]
        out[f"{name}_ci95"] = [float(np.percentile(b, 2.5)), float(np.percentile(b, 97.5))] if len(b) > 10 else None
    return out


def load_anchors(path: str | None, dataset: str) -> dict:
    if not path or not os.path.exists(path):
        return {}
    found = {}
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh):
            if r["dataset"] != dataset or r.get("deprecated") == "True":
                continue
            found[(r["scorer"], r["llm"], r["metric"], r["dimension"])] = float(r["spearman"])
    return found


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, help="rating file (ev2r_human_eval schema)")
    ap.add_argument("--anchors", default=None, help="anchors_correlations.csv with published numbers")
    ap.add_argument("--anchor-dataset", default="averitec_manual_eval_86")
    ap.add_argument("--model", default="bundled", help="verifier: bundled, a checkpoint path or a hub id")
    ap.add_argument("--replay", default=None, help="recorded LLM outputs: adds replayed precision/recall rows")
    ap.add_argument("--no-hu-meteor", action="store_true")
    ap.add_argument("--support", default="threshold", choices=["threshold", "soft"])
    ap.add_argument("--decomposer", default="rules", choices=["rules", "rules-v1", "rules-v2"],
                    help="atomic facts (rules = the default version)")
    ap.add_argument("--dtype", default=None, help="verifier dtype: auto, fp32, bf16, int8 (default: the verifier's default)")
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument("--out", default=None, help="write OUT.md (table)")
    ap.add_argument("--json", default=None, help="write the correlations as JSON")
    args = ap.parse_args(argv)

    from ev2r.metric.factory import build_scorer, get_verifier
    from ev2r.io.readers import read_items

    items = read_items(args.data)
    dims = sorted({k for it in items for k, v in (it.extra.get("human_ratings") or {}).items()
                   if isinstance(v, (int, float))})
    if not dims:
        raise SystemExit(f"{args.data}: no numeric human_ratings found")
    ratings = {d: [(it.extra.get("human_ratings") or {}).get(d) for it in items] for d in dims}

    ver = get_verifier(args.model, **({"dtype": args.dtype} if args.dtype else {}))
    t0 = time.time()
    scorer = build_scorer(verifier=ver, support=args.support, decomposer=args.decomposer,
                          baselines=() if args.no_hu_meteor else ("hu-meteor",))
    scores = scorer.score(items)
    elapsed = time.time() - t0
    summary = scorer.corpus(scores)
    columns = {k: [getattr(s, k) for s in scores] for k in ("precision", "recall", "f1", "proxy", "ev2r")}
    if not args.no_hu_meteor:
        columns["hu_meteor"] = [s.extra_scores.get("hu_meteor") for s in scores]
    human = build_scorer(verifier=ver, proxy_target="human").proxy_scorer.score_proxy(items)
    columns["proxy_human_target"] = [r.proxy for r in human]
    if args.replay:
        from ev2r.facts.replay import ReplayReferenceScorer

        models = sorted({json.loads(l)["model"] for l in open(args.replay) if l.strip()})
        for m in models:
            res = ReplayReferenceScorer(args.replay, model=m).score_reference(items)
            columns[f"replay_{m}_precision"] = [r.precision for r in res]
            columns[f"replay_{m}_recall"] = [r.recall for r in res]

    anchors = load_anchors(args.anchors, args.anchor_dataset)
    table = {}
    for name, vals in columns.items():
        for d in dims:
            res = correlate(vals, ratings[d], n_boot=args.n_boot)
            key = ANCHOR_OF.get(name)
            if key is not None and (key[0], key[1], key[2], d) in anchors:
                res["published_spearman"] = anchors[(key[0], key[1], key[2], d)]
                res["published_as"] = "/".join(x for x in key if x)
            table[f"{name}/{d}"] = res

    def f(v):
        return "–" if v is None else f"{v:+.3f}"

    def ci(v):
        return "" if not v else f" [{v[0]:+.2f}, {v[1]:+.2f}]"

    lines = [
        f"# Correlation with human ratings: {Path(args.data).name}",
        "",
        f"Command: `python benchmarks/{Path(__file__).name} {' '.join(argv if argv is not None else sys.argv[1:])}`",
        f"Machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        f"Signature: `{summary.signature}`",
        f"Rows: {len(items)}, failed: {summary.n_failed}; scoring time after model load: {elapsed:.1f} s",
        "",
        "Spearman (95% bootstrap CI) / Pearson; `published` = the Ev2R authors' number for the same file "
        "(precision/recall: GPT-4o atomic reference-based; proxy: fine-tuned DeBERTa with the annotators' verdict "
        "as target; hu_meteor: their Hungarian METEOR, divided by a string length).",
        "`proxy_human_target` scores the annotators' own verdict (unknowable at scoring time), shown only for comparison.",
        "",
        "| score | rating | n | Spearman | Pearson | published Spearman |",
        "|---|---|---|---|---|---|",
    ]
    for key, r in table.items():
        name, d = key.split("/")
        pub = f"{r['published_spearman']:+.3f} ({r['published_as']})" if "published_spearman" in r else ""
        lines.append(f"| {name} | {d} | {r['n']} | {f(r['spearman'])}{ci(r.get('spearman_ci95'))} | {f(r['pearson'])} | {pub} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).with_suffix(".md").write_text(text)
    if args.json:
        Path(args.json).write_text(json.dumps(table, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
