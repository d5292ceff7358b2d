"""Which predicted pairs may the reference veto? The choice of :data:`ev2r.metric.contradiction.REWRITE_MIN`
on both development rating sets (the two-set rule: a choice that wins on one set and loses on the other is no win).

For each rating file, the proxy (P(gold verdict | claim, predicted evidence), :class:`ev2r.metric.proxy.NLIProxyScorer`)
of the rows' real evidence and of four rewrites of the reference that the gaming suite makes
(:mod:`adversarial.perturbations.gaming`: ``negated_reference``, ``negated_reference_other``,
``negated_reference_inline``, ``shuffled_reference``; seeded as the suite seeds them) is computed

* without the rule (``off``),
* with the reference allowed to veto any predicted pair that shares a content word with one of its answers
  (``any``: ``rewrite_min`` 1e-9), and
* with each ``rewrite_min`` of the grid (only rewrites of a reference answer are checked).

Per setting: the real predicted pairs vetoed, the Spearman correlation of the real evidence's proxy with the people's
``verdict_agreement`` and its paired bootstrap difference to ``off`` (1,000 resamples of rows, CI95), and for each
rewrite the mean change of the proxy against the real evidence with the share of rows that rose (the gaming suite's
``no_gain_over_original`` reads the same two numbers). The verifier keeps every distinct (premise, hypothesis) pair it
read, so each setting costs only its new pairs.

Usage (from the repository root)::

    python benchmarks/agreement/contradiction.py --data 86=../shared/data/ev2r_human_eval/averitec_manual_eval_subset.jsonl \\
        --data 144=../shared/data/ev2r_human_eval/averitec_shared_task_dev.jsonl --out benchmarks/results/contradiction

writes ``.md`` and ``.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402

STRATEGIES = ("negated_reference", "negated_reference_other", "negated_reference_inline", "shuffled_reference")
GRID = (0.5, 0.6, 0.7, 0.8, 0.9)


def _spearman_diff(x, y, h, n_boot: int, seed: int):
    from scipy import stats

    rho = (lambda a, i: stats.spearmanr(a[i], h[i])[0])
    every = np.arange(len(h))
    g = np.random.default_rng(seed)
    diffs = []
    for _ in range(n_boot):
        i = g.integers(0, len(h), len(h))
        diffs.append(rho(y, i) - rho(x, i))
    lo, hi = np.nanpercentile(diffs, [2.5, 97.5])
    return float(rho(x, every)), float(rho(y, every)), float(lo), float(hi)


def run_set(name: str, path: str, verifier, n_boot: int, seed: int) -> dict:
    from adversarial.perturbations import GAMING_STRATEGIES, item_rng
    from ev2r.io.readers import read_items
    from ev2r.metric.contradiction import ReferenceContradiction
    from ev2r.metric.proxy import NLIProxyScorer

    items = list(read_items(path))
    ratings = [json.loads(line).get("human_ratings") or {} for line in Path(path).read_text(encoding="utf-8").splitlines()
               if line.strip()]
    h = np.array([np.nan if r.get("verdict_agreement") is None else float(r["verdict_agreement"]) for r in ratings])
    gamed = {}
    for s in STRATEGIES:
        fn = GAMING_STRATEGIES[s].fn
        gamed[s] = [fn(it, item_rng(seed, s, k)).item for k, it in enumerate(items)]
    settings = [("off", None), ("any", 1e-9)] + [(f"{g:g}", g) for g in GRID]
    out = {"name": name, "path": bl.display_path(path), "n": len(items), "settings": []}
    base = None
    for label, rw in settings:
        scorer = NLIProxyScorer(verifier, contradiction=None if rw is None else ReferenceContradiction(verifier, rewrite_min=rw))
        res = scorer.score_proxy(items)
        real = np.array([np.nan if r.proxy is None else r.proxy for r in res])
        vetoed = sum(len(r.contradicted_pairs) for r in res)
        n_pairs = sum(len(r.premises) for r in res) + vetoed
        if base is None:
            base = real
        ok = ~np.isnan(h) & ~np.isnan(real) & ~np.isnan(base)
        r0, r1, lo, hi = _spearman_diff(base[ok], real[ok], h[ok], n_boot, seed)
        row = {"setting": label, "rewrite_min": rw, "vetoed": vetoed, "pairs": n_pairs, "proxy_mean": float(np.nanmean(real)),
               "rho_off": r0, "rho": r1, "diff_lo": lo, "diff_hi": hi, "strategies": {}}
        for s in STRATEGIES:
            idx = [k for k, it in enumerate(gamed[s]) if it is not None]
            got = scorer.score_proxy([gamed[s][k] for k in idx])
            d = np.array([g.proxy - real[k] for g, k in zip(got, idx) if g.proxy is not None and not np.isnan(real[k])])
            row["strategies"][s] = {"n": int(len(d)), "mean_change": float(d.mean()), "rising_pct": float((d > 1e-9).mean() * 100)}
        out["settings"].append(row)
        print(f"{name} {label}: vetoed {vetoed}/{n_pairs} rho {r1:+.3f} [{lo:+.3f}, {hi:+.3f}] "
              + " ".join(f"{s} {v['mean_change']:+.3f}({v['rising_pct']:.0f}%)" for s, v in row["strategies"].items()),
              flush=True)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", action="append", required=True, metavar="NAME=PATH", help="rating file; repeat per set")
    ap.add_argument("--model", default="bundled", help="verifier (any --model value of ev2r score)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--out", default=str(bl.RESULTS / "contradiction"))
    args = ap.parse_args(argv)
    from ev2r.metric.contradiction import CONTRADICTION_MIN, REWRITE_MIN

    verifier = bl.load(args.model, cache_size=1_000_000)
    sets = []
    for spec in args.data:
        name, path = bl.parse_named(spec, "--data")
        sets.append(run_set(name or Path(path).stem, path, verifier, args.n_boot, args.seed))
    info = {"command": bl.command(), "machine": bl.machine(), "verifier": args.model, "seed": args.seed,
            "contradiction_min": CONTRADICTION_MIN, "shipped_rewrite_min": REWRITE_MIN}
    lines = ["# Which predicted pairs may the reference veto?", "", f"Command: `{info['command']}`",
             f"Machine: {info['machine']}", f"Verifier: {args.model}", "",
             f"The proxy with the reference's veto (P(contradiction | reference pair, predicted answer) >= "
             f"{CONTRADICTION_MIN:g}) for the predicted pairs it may judge: none (`off`), any pair sharing a content word "
             "with a reference answer (`any`), or a rewrite holding at least `rewrite_min` of a reference answer's content "
             "words (the grid). Real evidence: pairs vetoed, Spearman vs the people's verdict agreement (paired bootstrap "
             "difference to `off`, CI95). Rewrites of the reference (the gaming suite's): mean proxy change against the "
             f"real evidence (share of rows rising). Shipped: `rewrite_min` {REWRITE_MIN:g}.", ""]
    for s in sets:
        lines += [f"## {s['name']} ({s['n']} rows, {s['path']})", "",
                  "| setting | real pairs vetoed | proxy mean | Spearman vs verdict agreement | diff to off [CI95] | "
                  + " | ".join(STRATEGIES) + " |", "|---|---:|---:|---:|---|" + "---|" * len(STRATEGIES)]
        for r in s["settings"]:
            lines.append(f"| {r['setting']} | {r['vetoed']} / {r['pairs']} | {r['proxy_mean']:.3f} | {r['rho']:+.3f} | "
                         f"{r['rho'] - r['rho_off']:+.3f} [{r['diff_lo']:+.3f}, {r['diff_hi']:+.3f}] | "
                         + " | ".join(f"{v['mean_change']:+.3f} ({v['rising_pct']:.0f}%)" for v in r["strategies"].values())
                         + " |")
        lines.append("")
    md = "\n".join(lines)
    bl.write(Path(args.out), md, {**info, "sets": sets})
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
