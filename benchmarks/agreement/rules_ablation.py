"""What each rule family of the admission stage adds beside the learned reading (issue 54):
``benchmarks/results/rules_ablation.md``.

Each variant switches rule families off (:func:`ev2r.metric.admission.without_rules`) or the learned reading
(``admission="none"``: the rules alone) and is measured on

* **agreement with people**: Spearman of Ev2R and the default score (``ev2r_hybrid``) with semantic coverage and
  verdict agreement on both development rating sets (every row);
* **held-out gaming**: the non-evidence classes of the blind held-out corpus (``gaming_heldout.py``'s gamed
  predictions) on the first ``--heldout-rows`` rows of each set, proxy / ev2r / ev2r_hybrid: checks failing
  (gamed mean above the real evidence's, or over 10% of rows rising);
* **the project's gaming suite**: gated checks violated, reference-free strategies, on ``--suite-rows`` rows of
  each set drawn as the CI gate draws them (seed 0);
* **invariance**: the gold evidence as the prediction, then typos / synonyms / numbers as words (the paper's
  meaning-preserving edits), mean relative change of Ev2R and ``ev2r_hybrid`` on ``--invariance-n`` AVeriTeC dev
  claims.

A family is worth keeping where switching it off costs agreement (beyond noise: the 86-row Spearman's standard
error is about 0.11) or opens a gaming check. One process: the verifier's predictions are cached across variants
(the pairs most variants share are read once).

    python benchmarks/agreement/rules_ablation.py [--variants candidate,-word_salad,...] [--verifier SPEC] [--set meteor_match=fuzzy] [--heldout-rows 40] [--suite-rows 30]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
from _benchlib import DATA, RESULTS, command, machine  # noqa: E402
from gaming_heldout import HELDOUT, MAX_RISING, gamed_items  # noqa: E402

SETS = {"86": "averitec_manual_eval_subset", "144": "averitec_shared_task_dev"}
RATINGS = ("semantic_coverage", "verdict_agreement")
SCORES = ("ev2r", "ev2r_hybrid")
GAMING_SCORES = ("proxy", "ev2r", "ev2r_hybrid")
INVARIANCE_EDITS = ("typos", "synonyms", "numbers_to_words")
#: Rewrites of the gold that must score at least 50% below it (issue 54's meaning-sensitivity tests).
REWRITES = ("negate_answers", "shuffle_words")


def variants_all() -> dict[str, tuple[str, tuple[str, ...], dict]]:
    """name -> (admission spec, rule families off, other scorer options)."""
    from ev2r.metric.admission import RULE_FAMILIES

    out: dict = {"candidate": ("bundled", (), {})}
    out.update({f"-{f}": ("bundled", (f,), {}) for f in RULE_FAMILIES})
    out["-all rule families"] = ("bundled", RULE_FAMILIES, {})
    out["-learned reading (rules only)"] = ("none", (), {})
    out["METEOR exact"] = ("bundled", (), {"meteor_match": "exact"})
    out["1.0.0 defaults (ev2r/2)"] = ("bundled", (), {"verifier": "bundled", "proxy_verifier": None,
                                                      "meteor_match": "exact"})
    return out


def _v(row: dict, score: str):
    v = row.get(score)
    return None if v is None else float(v)


def spearman(x, y):
    pairs = [(a, b) for a, b in zip(x, y) if a is not None and b is not None]
    r = spearmanr([a for a, _ in pairs], [b for _, b in pairs]).statistic
    return None if r != r else float(r)


def main(argv=None) -> int:
    from adversarial.perturbations import get_gaming_strategies
    from adversarial.suite import run_suite
    from ev2r.io.readers import read_items
    from ev2r.metric.admission import without_rules
    from ev2r.metric.factory import make_item_scorer
    from ev2r.verifier.loading import get_verifier

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", default=None, help="comma-separated variant names (default: all)")
    ap.add_argument("--heldout-rows", type=int, default=40)
    ap.add_argument("--suite-rows", type=int, default=30)
    ap.add_argument("--invariance-n", type=int, default=40)
    ap.add_argument("--rows", type=int, default=0, help="first N rows of each rating set for agreement (0: all; a smoke test)")
    ap.add_argument("--verifier", default="bundled", help="the verifier of every variant (default: the bundled one)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a scorer option for every variant (e.g. meteor_match=fuzzy)")
    ap.add_argument("--out", type=Path, default=RESULTS / "rules_ablation.md")
    args = ap.parse_args(argv)
    allv = variants_all()
    names = args.variants.split(",") if args.variants else list(allv)
    bad = [n for n in names if n not in allv]
    if bad:
        ap.error(f"--variants: unknown {bad}; allowed: {', '.join(allv)}")
    common = dict(kv.split("=", 1) for kv in args.set)

    def verifier_spec(options: dict) -> dict:
        out = {k: (None if v in ("None", "none") and k == "proxy_verifier" else v) for k, v in options.items()}
        for k in ("verifier", "proxy_verifier"):
            if out.get(k):
                get_verifier(out[k]).cache_size = 2_000_000  # shared by every variant: pairs they share are read once
        return out

    get_verifier(args.verifier).cache_size = 2_000_000
    from correlation import ratings_of
    from robustness import load_averitec_gold

    full = {s: read_items(DATA / "ev2r_human_eval" / f"{f}.jsonl") for s, f in SETS.items()}
    # --rows shortens the agreement part only (a smoke test); the gaming checks always read their own rows
    items = {s: its[:args.rows] for s, its in full.items()} if args.rows else full
    ratings = {s: ratings_of(its) for s, its in items.items()}
    templates = [json.loads(line) for f in sorted(HELDOUT.glob("*.jsonl")) for line in f.read_text().splitlines() if line]
    gamed = {s: gamed_items(its[:args.heldout_rows], templates, 0) for s, its in full.items()}
    suite_items = {}  # the CI gate's draw: ev2r robustness --sample N --seed 0
    for s, its in full.items():
        idx = sorted(np.random.default_rng(0).choice(len(its), size=min(args.suite_rows, len(its)), replace=False).tolist())
        suite_items[s] = [its[i] for i in idx]
    strategies = [p for p in get_gaming_strategies() if "reference" not in p.name]  # reference-free (combination.py)
    gold = load_averitec_gold(str(DATA / "averitec" / "dev.json"), args.invariance_n, 0) if args.invariance_n else []
    results: dict = {}
    for name in names:
        spec, off, options = allv[name]
        t0 = time.time()
        opts = verifier_spec({"verifier": args.verifier, **common, **options})
        score = make_item_scorer(admission=spec, **opts)
        res: dict = {"spec": spec, "off": list(off), "options": opts}
        with without_rules(*off):
            res["signature_adm"] = str(score.scorer.signature()).split("|")[1]
            for s, its in items.items():
                rows = score(its)
                for sc in SCORES:
                    for r in RATINGS:
                        res[f"{s}/{sc}/{r}"] = spearman([_v(x, sc) for x in rows], ratings[s][r])
                fails = 0
                if args.heldout_rows:  # 0: held-out phrasings not measured
                    real = rows[:args.heldout_rows] if not args.rows else score(full[s][:args.heldout_rows])
                    for variants in gamed[s].values():
                        grows = score(variants)
                        for sc in GAMING_SCORES:
                            pairs = [(_v(a, sc), _v(g, sc)) for a, g in zip(real, grows)]
                            pairs = [(a, g) for a, g in pairs if a is not None and g is not None]
                            mr = sum(a for a, _ in pairs) / len(pairs)
                            mg = sum(g for _, g in pairs) / len(pairs)
                            rise = sum(g > a + 1e-9 for a, g in pairs) / len(pairs)
                            fails += not (mg <= mr and rise <= MAX_RISING)
                res[f"{s}/heldout_fail"] = fails
                res[f"{s}/heldout_total"] = len(gamed[s]) * len(GAMING_SCORES)
                if args.suite_rows:
                    rep = run_suite(suite_items[s], score, strategies, seed=0, n_boot=1000, scores=["ev2r", "ev2r_hybrid"],
                                    scorer_name=name)
                    res[f"{s}/suite_violated"] = len(rep.violations("gated"))
                    res[f"{s}/suite_judged"] = len(rep.judged("gated")) if hasattr(rep, "judged") else None
            if gold:
                rep = run_suite(gold, score, list(INVARIANCE_EDITS + REWRITES), seed=0, n_boot=1000,
                                scores=["proxy", "ev2r", "ev2r_hybrid"], scorer_name=name)
                res["gold/proxy"] = rep.base_means.get("proxy")
                res["gold/ev2r_hybrid"] = rep.base_means.get("ev2r_hybrid")
                for pr in rep.perturbations:
                    for sc, c in pr.checks.items():
                        d = c.to_dict()
                        res[f"inv/{pr.name}/{sc}"] = None if d.get("pct_change") is None else d["pct_change"] / 100
        res["seconds"] = round(time.time() - t0)
        results[name] = res
        print(name, json.dumps(res), flush=True)
        args.out.with_suffix(".json").write_text(json.dumps({"command": command(), "machine": machine(),
                                                            "results": results}, indent=1) + "\n", encoding="utf-8")
    args.out.write_text(markdown(results, args), encoding="utf-8")
    print(args.out.read_text(encoding="utf-8"))
    return 0


def _f(v, fmt="+.3f"):
    return "" if v is None else format(v, fmt)


def markdown(results: dict, args) -> str:
    m = machine()
    base = results.get("candidate", {})
    lines = ["# Rule families of the admission stage: what each adds beside the learned reading (issue 54)\n",
             f"Command: `{command()}`  ",
             f"Machine: {m['platform']}, {m['cpu_count']} CPUs, torch {m['torch']}, {m['utc']}  ",
             "Each row switches off what its name says (`ev2r.metric.admission.without_rules`; the signature's `adm` "
             "value says so). Spearman with people on every row of both development sets (Δ against `candidate` (the options given for every row) in "
             "brackets; the 86-row standard error is about 0.11, the 144-row one about 0.08); held-out gaming: checks "
             f"failing of the blind corpus's classes x (proxy, ev2r, ev2r_hybrid), first {args.heldout_rows} rows of "
             f"each set; suite: gated reference-free checks of the project's gaming suite violated, {args.suite_rows} "
             f"rows of each set (the CI gate's draw); invariance: mean relative change of ev2r / ev2r_hybrid with the "
             f"gold of {args.invariance_n} AVeriTeC dev claims as the prediction, edited (target: within 10%), and "
             "rewritten (negated answers, shuffled words: target at least 50% below); gold proxy: their mean proxy "
             f"unedited. Verifier `{args.verifier}`; options for every row: "
             f"{dict(kv.split('=', 1) for kv in args.set) or 'none'}.\n"]
    head = ["variant"] + [f"{s} {sc} {r[:3].replace('sem', 'cov')}" for s in SETS for sc in SCORES for r in RATINGS]
    head += ["held-out fails 86 / 144", "suite violated 86 / 144"] + [f"{e}" for e in INVARIANCE_EDITS + REWRITES]
    head += ["gold proxy", "s"]
    lines += ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for name, r in results.items():
        cells = [f"`{name}`"]
        for s in SETS:
            for sc in SCORES:
                for rt in RATINGS:
                    if args.rows:  # a smoke test: a few rows say nothing of agreement
                        cells.append(f"({args.rows} rows)")
                        continue
                    v, b = r.get(f"{s}/{sc}/{rt}"), base.get(f"{s}/{sc}/{rt}")
                    d = f" ({v - b:+.3f})" if name != "candidate" and v is not None and b is not None else ""
                    cells.append(_f(v) + d)
        cells.append(" / ".join(f"{r.get(f'{s}/heldout_fail')}/{r.get(f'{s}/heldout_total')}" for s in SETS))
        cells.append(" / ".join(str(r.get(f"{s}/suite_violated", "")) for s in SETS))
        for e in INVARIANCE_EDITS + REWRITES:
            vals = [r.get(f"inv/{e}/{sc}") for sc in SCORES]
            cells.append(" / ".join("" if v is None else f"{v:+.1%}" for v in vals))
        cells.append(_f(r.get("gold/proxy"), ".3f"))
        cells.append(str(r.get("seconds")))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
