"""The gaming suite on the two development rating sets: can evidence that is not better score higher?

Every strategy of :data:`adversarial.perturbations.GAMING_STRATEGIES` (negated or word-shuffled
reference, the claim echoed, pairs repeated, junk appended, trivial answers, ...) is applied to every
row of each rating file, and each score of Ev2R (precision, recall, F1, proxy, Ev2R, the graded
scores, ``ev2r_hybrid`` and its ``hybrid_meteor``) is compared with the row's *real* predicted
evidence; the official Hungarian METEOR (``hu_meteor``) is reported beside them as the baseline,
not gated. A check passes when the mean change is <= 0 and at most 10% of the rows rise; it fails
when the bootstrap CI95 of the mean change lies wholly above 0 or the mean rises with more than 10%
of rows rising (:mod:`adversarial.suite`, ``no_gain_over_original``).

Usage (from the repository root)::

    python benchmarks/robustness/gaming.py \\
        --data 86=../shared/data/ev2r_human_eval/averitec_manual_eval_subset.jsonl \\
        --data 144=../shared/data/ev2r_human_eval/averitec_shared_task_dev.jsonl \\
        --out benchmarks/results/gaming

writes ``gaming.md`` (the strategy x score table, both files), ``gaming.json.gz``, ``gaming.png`` (the mean
change per strategy and score, both files) and, per file, the suite's own report (``gaming_<NAME>.md``,
``.json.gz``, ``_per_item.jsonl.gz``: every component of ``ev2r_hybrid`` per row, base and gamed, which
``benchmarks/agreement/combination.py --gaming`` reads to hold any weight vector to the suite; the gamed text itself,
``changed``, is left out: the suite remakes it from its seed) next to ``--out``. The JSON and the rows are
stored gzip-compressed to keep ``results/`` small (``results/README.md``). ``--verifier PATH`` scores with another checkpoint;
``--sample N`` draws N rows per file (seeded).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Optional

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402
from adversarial.perturbations import GAMING_STRATEGIES_CS, get_gaming_strategies  # noqa: E402
from adversarial.report import write_report  # noqa: E402
from adversarial.suite import FAIL, PASS, run_suite  # noqa: E402
from ev2r.io.readers import read_items  # noqa: E402

#: Score columns of the table, in order (Ev2R's, then the combined score, then the baseline).
SCORES = ("precision", "recall", "f1", "proxy", "ev2r", "graded_precision", "graded_recall", "graded_f1",
          "hybrid_meteor", "verified_meteor", "mutual_meteor", "hybrid_embedding", "ev2r_hybrid", "hu_meteor")
HEADLINE = ("ev2r", "ev2r_hybrid")


def czech_items(path, n: Optional[int] = None, seed: int = 0) -> list:
    """Czech gaming items from a CTKFacts split: every SUPPORTS / REFUTES row is a claim whose
    reference evidence is its annotated paragraphs (one answer-only pair each) and whose *real* predicted
    evidence is the paragraphs annotated for another claim of the same source document (what a retriever that
    found the right article but not the right passage returns); rows without such a neighbour are left out.
    ``n`` rows are drawn (seeded) when given. Text is NFC-normalised."""
    from claimalign.text import normalize_text
    from ev2r.types import Evidence, Item, QAPair

    rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    by_doc: dict = {}
    for r in rows:
        by_doc.setdefault(r.get("source_document"), []).append(r)

    def evidence(text: str) -> Evidence:
        return Evidence(tuple(QAPair("", normalize_text(p.strip())) for p in str(text).split("\n") if p.strip()))

    items = []
    for r in rows:
        if r.get("label") not in ("SUPPORTS", "REFUTES"):
            continue
        premise = r.get("premise") or r.get("evidence")
        other = next((o for o in by_doc[r.get("source_document")] if (o.get("premise") or o.get("evidence")) != premise), None)
        if other is None:
            continue
        items.append(Item(id=f"ctk-{r['id']}", claim=normalize_text(r["claim"]), reference_evidence=evidence(premise),
                          predicted_evidence=evidence(other.get("premise") or other.get("evidence")),
                          gold_label="Supported" if r["label"] == "SUPPORTS" else "Refuted"))
    if n is not None and n < len(items):
        idx = np.random.default_rng(seed).choice(len(items), size=n, replace=False)
        items = [items[i] for i in sorted(idx.tolist())]
    return items


def reweigh(result: dict, per_item_path, strategies: dict, seed: int = 0, n_boot: int = 2000) -> int:
    """``ev2r_hybrid`` of an earlier run recomputed with the weights in :data:`ev2r.config.HYBRID_WEIGHTS` from the
    components stored per item (``ev2r_hybrid`` is their weighted mean, :func:`ev2r.metric.combined.hybrid_value`:
    no verifier pass is needed), and its checks redone by the suite's own rule (:func:`adversarial.suite.check_score`,
    the run's defaults: absolute floor 0.01, at least 3 items). Rewrites ``result`` (its ``checks``/``base_means``)
    and the per-item file in place; returns the number of rows re-weighed."""
    from adversarial.suite import check_score
    from ev2r.metric.combined import hybrid_value

    rows = bl.read_jsonl(per_item_path)
    by: dict = {}
    for r in rows:
        for side in ("base", "perturbed"):
            if r.get(side):
                r[side]["ev2r_hybrid"] = hybrid_value(r[side])[0]
        by.setdefault(r["perturbation"], []).append(r)
    for name, rs in by.items():
        applied = [r for r in rs if r.get("applied")]
        check = check_score(strategies[name], "ev2r_hybrid", [r["base"].get("ev2r_hybrid") for r in applied],
                       [r["perturbed"].get("ev2r_hybrid") for r in applied], len(rs) - len(applied),
                       abs_tol=0.01, min_n=3, n_boot=n_boot, seed=seed)
        result["checks"][name]["ev2r_hybrid"] = check.to_dict()
    first = next(iter(by.values()))
    vals = [r["base"]["ev2r_hybrid"] for r in first if r.get("base") and r["base"].get("ev2r_hybrid") is not None]
    result["base_means"]["ev2r_hybrid"] = float(np.mean(vals)) if vals else None
    result["reweighed"] = "ev2r_hybrid recomputed from the stored components with the current weights"
    bl.write_jsonl(rows, per_item_path)
    return len(rows)


def _compress_report(paths: dict) -> None:
    """The suite's report JSON and per-item rows (:func:`adversarial.report.write_report`'s paths) stored as ``.gz``;
    the rows without the gamed text (``changed``), which nothing reads and the suite remakes from its seed."""
    bl.compress(paths["json"])
    bl.compress(paths["per_item"], drop=("changed",))


def _cell(c: dict) -> str:
    if c["mean_change"] is None:
        return "n/a"
    mark = {PASS: "✓", FAIL: "✗"}.get(c["verdict"], "–")
    return f"{c['mean_change']:+.3f} ({100 * (c['rise_rate'] or 0):.0f}%) {mark}"


def _gated(strategy: str, score: str) -> bool:
    """Whether the suite gates ``score`` under ``strategy`` (the catalogue's expectation; strategies of another
    release that the catalogue no longer has count as reported)."""
    from adversarial.perturbations import GAMING_STRATEGIES

    p = {**GAMING_STRATEGIES, **GAMING_STRATEGIES_CS}.get(strategy)
    return p is not None and p.expectation(score).gated


def markdown(results: dict, files: list[str], meta: dict) -> str:
    lines = ["# Gaming suite: gamed evidence against each row's real evidence", "",
             f"Command: `{meta['command']}`", f"Machine: {meta['machine']}", f"Verifier: {meta['verifier']}"
             + (f"; the Czech items (`cs`): {meta['czech_verifier']}" if meta.get("czech_verifier") else ""), ""]
    for name in files:
        r = results[name]
        lines.append(f"* `{name}`: {r['path']}, {r['n_items']} rows, scored in {r['seconds']:.0f} s; "
                     f"signature `{r['signature']}`"
                     + (f" (from `{r['from']['file']}`: command `{r['from']['command']}`, verifier {r['from']['verifier']})"
                        if r.get("from") else ""))
    lines += ["", "Cell: mean change of the score (gamed - real evidence) over the rows the strategy applied to, "
              "(share of rows whose score rose), verdict: ✓ no gain (mean <= 0, <= 10% of rows rising), "
              "✗ a gain (CI95 wholly above 0, or a mean gain with > 10% of rows rising), – neither shown. "
              "`hu_meteor` is the official AVeriTeC HU-METEOR, the baseline (not gated). Gated, as the catalogue "
              "(`adversarial.perturbations`) declares: every reference-free strategy on every Ev2R score; reported: the "
              "rewrites of the reference (`REFERENCE_REWRITES`, since `ev2r/4` tests of meaning sensitivity, gated as "
              "the rewritten gold at least 50% below the gold) and pairs of other claims (`junk_*`)."
              + (" `ev2r_hybrid` of the sets marked *re-weighed* is recomputed from their stored per-item components "
                 "with the current weights (`--reweigh`: it is their weighted mean, no verifier pass)."
                 if any(results[n].get("reweighed") for n in files) else ""), ""]
    for name in files:
        r = results[name]
        checks = r["checks"]
        gated = {(st, k) for st, sc in checks.items() for k in sc if k != "hu_meteor" and _gated(st, k)}
        reported = {(st, k) for st, sc in checks.items() for k in sc if k != "hu_meteor"} - gated
        n_fail = sum(checks[st][k]["verdict"] == FAIL for st, k in gated)
        n_pass = sum(checks[st][k]["verdict"] == PASS for st, k in gated)
        r_fail = sum(checks[st][k]["verdict"] == FAIL for st, k in reported)
        base = r["base_means"]
        lines += [f"## {name} ({r['n_items']} rows{', re-weighed' if r.get('reweighed') else ''}): "
                  f"{n_fail} of {len(gated)} gated checks violated ({n_pass} without a gain, the rest not judged); "
                  f"reported (the reference's rewrites and pairs of other claims, not gated): {r_fail} of "
                  f"{len(reported)} with a gain",
                  "", "| strategy | rows | " + " | ".join(SCORES) + " |", "|---|---|" + "---|" * len(SCORES),
                  "| *(real evidence: mean)* | | " + " | ".join(
                      "n/a" if base.get(s) is None else f"{base[s]:.3f}" for s in SCORES) + " |"]
        for strat, cs in checks.items():
            lines.append(f"| {strat} | {r['applied'][strat]} | " + " | ".join(
                _cell(cs[s]) if s in cs else "n/a" for s in SCORES) + " |")
        lines.append("")
    return "\n".join(lines)


def plot(results: dict, files: list[str], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n_max = max(len(results[f]["checks"]) for f in files)
    fig, axes = plt.subplots(1, len(files), figsize=(5.5 * len(files), 0.32 * n_max + 1.8), squeeze=False)
    cols = ("ev2r", "ev2r_hybrid", "hu_meteor")
    colors = {"ev2r": "#1f77b4", "ev2r_hybrid": "#2ca02c", "hu_meteor": "#7f7f7f"}
    for ax, name in zip(axes[0], files):
        checks = results[name]["checks"]
        strategies = list(checks)
        y = np.arange(len(strategies))
        for j, sc in enumerate(cols):
            vals = [checks[s][sc]["mean_change"] if checks[s].get(sc) and checks[s][sc]["mean_change"] is not None
                    else 0.0 for s in strategies]
            ax.barh(y + (j - 1) * 0.27, vals, height=0.26, color=colors[sc], label=sc)
        ax.axvline(0, color="black", lw=0.8)
        ax.axvspan(ax.get_xlim()[0] if ax.get_xlim()[0] < 0 else -0.05, 0, color="#cdeccd", zorder=0)
        ax.set_yticks(y)
        ax.set_yticklabels(strategies, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("mean change vs the real evidence")
        ax.set_title(f"{name}: {results[name]['n_items']} rows", fontsize=10)
        ax.grid(axis="x", color="#eeeeee")
    axes[0][0].legend(fontsize=8, loc="lower right")
    fig.suptitle("Gaming strategies: the score must not rise (green: no gain)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", action="append", default=[], metavar="NAME=PATH",
                    help="rating file (ev2r_human_eval schema); repeat for each development set")
    ap.add_argument("--out", default=str(bl.RESULTS / "gaming"), help="output path prefix (default benchmarks/results/gaming)")
    ap.add_argument("--verifier", default="bundled", help="verifier checkpoint (default: the bundled one)")
    ap.add_argument("--proxy-verifier", default=None,
                    help="the proxy's own verifier (e.g. averitec; ev2r score's --proxy-model); default: --verifier")
    ap.add_argument("--strategies", default=None, help="comma-separated strategies (default: all)")
    ap.add_argument("--sample", type=int, default=None, help="rows drawn per file (seeded); default: every row")
    ap.add_argument("--czech", default=None, metavar="CTKFACTS_JSONL",
                    help="also run the Czech strategies (GAMING_STRATEGIES_CS) on items built from this CTKFacts split "
                         "(czech_items), scored with --czech-verifier; a section 'cs' of the same table")
    ap.add_argument("--czech-verifier", default="multilingual", help="verifier for the Czech items (default: multilingual)")
    ap.add_argument("--czech-n", type=int, default=60, help="Czech items drawn (seeded; default 60)")
    ap.add_argument("--include", action="append", default=[], metavar="GAMING_JSON",
                    help="an earlier run's .json or .json.gz (e.g. the development sets' table): its sets are shown beside the "
                         "ones run now, with their own command and signature (a set run now replaces its namesake); "
                         "repeatable; with neither --data nor --czech the table is only put together")
    ap.add_argument("--reweigh", action="store_true",
                    help="with --include: recompute ev2r_hybrid of the included sets from their per-item components "
                         "with the current weights (reweigh), redoing its checks; nothing is scored again")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-boot", type=int, default=2000)
    args = ap.parse_args(argv)

    from ev2r.metric.factory import make_item_scorer

    if not args.data and not args.czech and not args.include:
        ap.error("--data NAME=PATH (a rating file), --czech CTKFACTS_JSONL or --include GAMING_JSON: nothing to do")
    files = {}
    for spec in args.data:
        if "=" not in spec:
            ap.error(f"--data: expected NAME=PATH, got {spec!r}")
        name, path = spec.split("=", 1)
        files[name] = path
    strategies = get_gaming_strategies(args.strategies.split(",") if args.strategies else None)
    # every component column of ev2r_hybrid (hybrid_columns="all"), so that benchmarks/agreement/combination.py can
    # check any weight vector against the suite from the per-item rows
    results = {}
    if files:  # the English verifier only when there are rating files to score (not for --czech / --include alone)
        scorer = make_item_scorer(verifier=args.verifier, proxy_verifier=args.proxy_verifier, baselines=("hu-meteor",),
                                  hybrid_columns="all")
        signature = str(scorer.scorer.signature())  # type: ignore[attr-defined]
    out_dir = os.path.dirname(args.out) or "."
    stem = os.path.basename(args.out)
    for name, path in files.items():
        items = read_items(path)
        if args.sample is not None and args.sample < len(items):
            idx = np.random.default_rng(args.seed).choice(len(items), size=args.sample, replace=False)
            items = [items[i] for i in sorted(idx.tolist())]
        t0 = time.time()
        report = run_suite(items, scorer, strategies, seed=args.seed, n_boot=args.n_boot,
                           scores=[s for s in SCORES], scorer_name=f"ev2r ({name})")
        secs = time.time() - t0
        report.settings["ev2r_signature"] = signature
        _compress_report(write_report(report, out_dir, png=False, stem=f"{stem}_{name}"))
        results[name] = {
            "path": path, "n_items": len(items), "seconds": secs, "signature": signature,
            "base_means": report.base_means,
            "applied": {p.name: p.n_applied for p in report.perturbations},
            "checks": {p.name: {s: c.to_dict() for s, c in p.checks.items()} for p in report.perturbations},
        }
        print(f"{name}: {len(items)} rows in {secs:.0f} s", file=sys.stderr, flush=True)
    if args.czech:
        items = czech_items(args.czech, args.czech_n, args.seed)
        cs_scorer = make_item_scorer(verifier=args.czech_verifier, baselines=("hu-meteor",), hybrid_columns="all")
        cs_signature = str(cs_scorer.scorer.signature())  # type: ignore[attr-defined]
        t0 = time.time()
        report = run_suite(items, cs_scorer, list(GAMING_STRATEGIES_CS.values()), seed=args.seed, n_boot=args.n_boot,
                           scores=[s for s in SCORES], scorer_name="ev2r (cs)")
        secs = time.time() - t0
        report.settings["ev2r_signature"] = cs_signature
        _compress_report(write_report(report, out_dir, png=False, stem=f"{stem}_cs"))
        files["cs"] = args.czech
        results["cs"] = {
            "path": args.czech, "n_items": len(items), "seconds": secs, "signature": cs_signature,
            "base_means": report.base_means, "applied": {p.name: p.n_applied for p in report.perturbations},
            "checks": {p.name: {s: c.to_dict() for s, c in p.checks.items()} for p in report.perturbations},
        }
        print(f"cs: {len(items)} items in {secs:.0f} s", file=sys.stderr, flush=True)
    for inc in reversed(args.include):  # the first --include comes first in the table
        earlier = bl.read_json(inc)
        kept = {k: v for k, v in earlier["results"].items() if k not in results}
        for v in kept.values():
            v.setdefault("from", {"file": bl.display_path(inc), "command": earlier["meta"]["command"],
                                  "machine": earlier["meta"]["machine"], "verifier": earlier["meta"].get("czech_verifier")
                                  if v.get("path", "").endswith("ctkfacts_dev.jsonl") else earlier["meta"]["verifier"]})
        if args.reweigh:
            from adversarial.perturbations import GAMING_STRATEGIES

            inc_dir, inc_stem = os.path.dirname(inc) or ".", os.path.basename(inc).removesuffix(".gz").removesuffix(".json")
            for k, v in kept.items():
                per_item = os.path.join(inc_dir, f"{inc_stem}_{k}_per_item.jsonl.gz")
                if not os.path.exists(per_item) and os.path.exists(per_item.removesuffix(".gz")):
                    per_item = per_item.removesuffix(".gz")  # an earlier run's uncompressed rows
                n = reweigh(v, per_item, {**GAMING_STRATEGIES, **GAMING_STRATEGIES_CS}, seed=args.seed, n_boot=args.n_boot)
                print(f"{k}: ev2r_hybrid re-weighed on {n} rows ({per_item})", file=sys.stderr, flush=True)
        results = {**kept, **results}
        files = {**{k: v["path"] for k, v in kept.items()}, **files}
    meta = {"command": bl.command(), "machine": bl.machine(), "verifier": args.verifier,
            **({"czech_verifier": args.czech_verifier} if args.czech else {})}
    names = list(files)
    Path(args.out + ".md").write_text(markdown(results, names, meta) + "\n", encoding="utf-8")
    with bl.open_text(args.out + ".json.gz", "w") as fh:
        fh.write(json.dumps({"meta": meta, "results": results}, indent=1) + "\n")
    plot(results, names, args.out + ".png")
    print(Path(args.out + ".md").read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
