"""A proxy read relative to the gold evidence's own reading: measured, not shipped.

The proxy is P(gold verdict | claim, predicted evidence) (Akhtar et al. 2024, sec. 3.2). The bundled verifier reads
AVeriTeC's gold evidence at about 0.33, so even the ideal evidence's proxy is low. One way to "read the gold
evidence's verdict" without a better verifier is to divide by what the same verifier reads from the gold evidence
of the row, with a floor ``f`` so that a row whose gold the verifier cannot read does not amplify noise::

    proxy_rel = min(1, proxy / max(p_gold, f))        (f = 1: today's proxy)

Per row the real and a gamed prediction share the denominator, so no row's order of two predictions changes (the
gaming checks' share of rows rising is unchanged); what changes is the weighting across rows. This script reads
the score rows of ``ev2r score`` (``--scores NAME=PATH``, with ``f1``, ``proxy`` and the combined score's
components), scores the proxy of each row's gold evidence given as the prediction, and writes the Spearman of Ev2R
and ``ev2r_hybrid`` (recomputed with ``proxy_rel``) with people's ratings for each floor, and the mean proxy_rel of
the gold itself.

    python benchmarks/agreement/proxy_gold_relative.py \\
        --data 86=../shared/data/ev2r_human_eval/averitec_manual_eval_subset.jsonl --scores 86=S86.jsonl \\
        --data 144=../shared/data/ev2r_human_eval/averitec_shared_task_dev.jsonl --scores 144=S144.jsonl
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402
from ev2r.io.readers import read_items  # noqa: E402
from ev2r.metric.combined import HYBRID_WEIGHTS  # noqa: E402
from ev2r.config import HYBRID_COMPONENTS  # noqa: E402

RATINGS = ("semantic_coverage", "verdict_agreement")
FLOORS = (1.0, 0.75, 0.5, 0.4, 0.33, 0.25)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", action="append", required=True, metavar="NAME=PATH", help="rating file")
    ap.add_argument("--scores", action="append", required=True, metavar="NAME=PATH", help="ev2r score -o rows")
    ap.add_argument("--out", default=str(bl.RESULTS / "proxy_gold_relative"))
    args = ap.parse_args(argv)
    data = dict(a.split("=", 1) for a in args.data)
    scores = dict(a.split("=", 1) for a in args.scores)
    from ev2r.metric.factory import build_scorer

    proxy = build_scorer().proxy_scorer
    weights = dict(zip(HYBRID_COMPONENTS, HYBRID_WEIGHTS))
    table, out = [], {}
    for name, path in data.items():
        items = read_items(path)
        rows = {r["row"]: r for r in bl.read_jsonl(scores[name])}
        gold = proxy.score_proxy([dataclasses.replace(it, predicted_evidence=it.reference_evidence) for it in items])
        p_gold = {it.row: g.proxy for it, g in zip(items, gold)}
        ratings = {it.row: (it.extra.get("human_ratings") or {}) for it in items}
        out[name] = {"p_gold_mean": float(np.mean([v for v in p_gold.values() if v is not None])), "floors": {}}
        for f in FLOORS:
            cells = {}
            for rating in RATINGS:
                xs, hs, ys = [], [], []
                for i, r in rows.items():
                    y = ratings.get(i, {}).get(rating)
                    if r.get("status") != "ok" or y is None or r.get("proxy") is None or p_gold.get(i) is None:
                        continue
                    rel = min(1.0, r["proxy"] / max(p_gold[i], f))
                    xs.append(0.5 * r["f1"] + 0.5 * rel)
                    hs.append(sum(w * (rel if k == "proxy" else (r.get(k) or 0.0)) for k, w in weights.items()))
                    ys.append(y)
                cells[rating] = {"ev2r": float(spearmanr(xs, ys).statistic),
                                 "ev2r_hybrid": float(spearmanr(hs, ys).statistic), "n": len(ys)}
            gold_rel = float(np.mean([min(1.0, v / max(v, f)) if v else 0.0 for v in p_gold.values()
                                      if v is not None]))
            out[name]["floors"][str(f)] = {**cells, "gold_proxy_rel_mean": gold_rel}
            table.append(f"| {name} | {f:g} | " + " | ".join(
                f"{cells[r]['ev2r']:+.3f} / {cells[r]['ev2r_hybrid']:+.3f}" for r in RATINGS) + f" | {gold_rel:.3f} |")
    md = ["# A proxy relative to the gold evidence's reading: measured, not shipped", "",
          f"Command: `{bl.command()}`  ", f"Machine: {bl.machine()}", "",
          "`proxy_rel = min(1, proxy / max(p_gold, f))`, with `p_gold` the same verifier's proxy of the row's gold "
          "evidence given as the prediction (f = 1: the shipped proxy). Cells: Spearman of Ev2R / `ev2r_hybrid` "
          "recomputed with `proxy_rel`, and the mean `proxy_rel` of the gold itself. Mean `p_gold`: "
          + ", ".join(f"{k} {v['p_gold_mean']:.3f}" for k, v in out.items()) + ".", "",
          "| set | floor f | semantic coverage | verdict agreement | gold's proxy_rel |", "|---|---|---|---|---|",
          *table, ""]
    bl.write(Path(args.out), "\n".join(md), {"command": bl.command(), "machine": bl.machine(), "results": out})
    return 0


if __name__ == "__main__":
    sys.exit(main())
