"""Evidence-pair benchmark: does a score separate equivalent evidence from label-flipping evidence?

For each pair (claim, reference evidence, candidate evidence, equivalent in {0, 1}) the candidate is
scored against the reference (gold verdict = the reference's label) by Ev2R's components
(precision, recall, F1, proxy, Ev2R) and by baselines (Hungarian METEOR from claimalign, sentence
BLEU from sacrebleu, edit similarity from rapidfuzz). Reported per data set and score: ROC-AUC
(with a seeded 95% bootstrap interval over pairs) and accuracy at the best threshold (next to the
majority-class accuracy), plus balanced accuracy at the best threshold.

Data sets:
* ``vitaminc``: ../shared/data/vitaminc/vitaminc_evidence_pairs.jsonl, only cases held out from
  the verifier's training (the case-level split of ev2r.training.data, read from the model's
  training_meta.json; ``--vitaminc-split all`` to use every case). Only 44 of 24,896 pairs are
  equivalent: every equivalent pair is kept, non-equivalent pairs are sampled (``--limit``).
* ``fever``: claims that occur with two different evidence sentences: FEVER-Symmetric (original vs
  synthetic evidence, always label-flipping, equivalent 0) and FEVER 2.0 adversarial (several
  evidence sentences with the same label, equivalent 1). The two classes come from different
  sources, so separation there also reflects source differences -- read it with that caveat.

Usage (full size, with the final verifier)::

    python benchmarks/robustness/evidence_pairs.py --model bundled --limit 2000
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402

EV2R_SCORES = ("precision", "recall", "f1", "proxy", "ev2r")


def vitaminc_rows(path: Path, split: str, held_pct: int) -> list[dict]:
    from ev2r.training.data import heldout_case

    rows = bl.read_jsonl(path)
    out = []
    for n, r in enumerate(rows):
        if split == "heldout" and not heldout_case(str(r.get("case_id", "")), held_pct):
            continue
        out.append({"id": f"vitaminc:{n}", "claim": r["claim"], "predicted_evidence": r["candidate_evidence"],
                     "reference_evidence": r["reference_evidence"], "gold_label": r["reference_label"],
                     "equivalent": int(r["equivalent"]), "flip": f"{r['reference_label']}->{r['candidate_label']}"})
    return out


def fever_rows(sym: Path, adv: Path) -> list[dict]:
    out = []
    for name, path in (("symmetric", sym), ("fever2", adv)):
        if not path.exists():
            print(f"note: {path} missing, skipped", file=sys.stderr)
            continue
        groups: dict[str, list[dict]] = {}
        for r in bl.read_jsonl(path):
            groups.setdefault(r["claim"].strip(), []).append(r)
        for claim, rs in groups.items():
            for a, b in itertools.combinations(rs, 2):  # reference = the earlier row
                if a["evidence"].strip() == b["evidence"].strip():
                    continue
                out.append({"id": f"{name}:{a['id']}:{b['id']}", "claim": claim, "predicted_evidence": b["evidence"],
                            "reference_evidence": a["evidence"], "gold_label": a["label"],
                            "equivalent": int(a["label"] == b["label"]), "flip": f"{name}:{a['label']}->{b['label']}"})
    return out


def baseline_scores(rows: list[dict], use_meteor: bool) -> tuple[dict[str, list], list[str]]:
    import sacrebleu
    from rapidfuzz import fuzz
    from rapidfuzz.distance import Levenshtein

    notes = []
    cols = {"bleu": [], "edit_ratio": [], "levenshtein_sim": []}
    for r in rows:
        c, ref = r["predicted_evidence"], r["reference_evidence"]
        cols["bleu"].append(sacrebleu.sentence_bleu(c, [ref]).score / 100.0)
        cols["edit_ratio"].append(fuzz.ratio(c, ref) / 100.0)
        cols["levenshtein_sim"].append(Levenshtein.normalized_similarity(c, ref))
    if use_meteor:
        try:
            from claimalign import hu_meteor

            cols["hu_meteor"] = [hu_meteor([("", r["predicted_evidence"])], [("", r["reference_evidence"])], variant="qa")
                                 for r in rows]
        except Exception as e:  # absent module / nltk data: reported, not scored as 0
            notes.append(f"Hungarian METEOR skipped: {type(e).__name__}: {e}")
    return cols, notes


def separation(y: np.ndarray, s: list, n_boot: int, seed: int) -> dict:
    from sklearn.metrics import roc_auc_score

    s = np.array([np.nan if v is None else v for v in s], dtype=float)
    ok = ~np.isnan(s)
    y, s = y[ok], s[ok]
    out = {"n": int(len(y)), "n_missing": int((~ok).sum()), "positives": int(y.sum())}
    if len(set(y.tolist())) < 2:
        return out | {"auc": None, "auc_ci95": None, "best_acc": None, "best_threshold": None, "majority_acc": None,
                      "best_bal_acc": None, "mean_pos": float(s[y == 1].mean()) if (y == 1).any() else None,
                      "mean_neg": float(s[y == 0].mean()) if (y == 0).any() else None}
    auc = float(roc_auc_score(y, s))
    rng = np.random.default_rng(seed)
    boots = []
    for _ in range(n_boot):
        idx = rng.integers(0, len(y), len(y))
        if 0 < y[idx].sum() < len(idx):
            boots.append(roc_auc_score(y[idx], s[idx]))
    # accuracy of "equivalent iff score >= t" for every candidate threshold
    order = np.argsort(-s, kind="stable")
    ss, yy = s[order], y[order]
    tp = np.cumsum(yy)
    fp = np.cumsum(1 - yy)
    P, N = yy.sum(), len(yy) - yy.sum()
    last = np.r_[ss[1:] != ss[:-1], True]  # thresholds at distinct values
    acc = (tp + (N - fp)) / len(yy)
    bal = 0.5 * (tp / P + (N - fp) / N)
    acc_all = np.r_[N / len(yy), acc[last]]  # threshold above the max: everything negative
    thr_all = np.r_[np.inf, ss[last]]
    bal_all = np.r_[0.5, bal[last]]
    k = int(np.argmax(acc_all))
    return out | {"auc": auc, "auc_ci95": [float(np.percentile(boots, 2.5)), float(np.percentile(boots, 97.5))]
                  if boots else None, "best_acc": float(acc_all[k]), "best_threshold": float(thr_all[k]),
                  "majority_acc": float(max(P, N) / len(yy)), "best_bal_acc": float(bal_all.max()),
                  "mean_pos": float(s[y == 1].mean()), "mean_neg": float(s[y == 0].mean())}


def roc_plot(per_set: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.metrics import roc_curve

    sets = [k for k, v in per_set.items() if len(set(v["y"])) == 2]
    if not sets:
        return
    fig, axes = plt.subplots(1, len(sets), figsize=(5.2 * len(sets), 4.6), squeeze=False)
    for ax, name in zip(axes[0], sets):
        y = np.array(per_set[name]["y"])
        for col, vals in per_set[name]["scores"].items():
            s = np.array([np.nan if v is None else v for v in vals], dtype=float)
            ok = ~np.isnan(s)
            if len(set(y[ok].tolist())) < 2:
                continue
            fpr, tpr, _ = roc_curve(y[ok], s[ok])
            ax.plot(fpr, tpr, lw=1.3, ls="-" if col in EV2R_SCORES else "--", label=col)
        ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls=":")
        ax.set_title(f"{name}: equivalent vs label-flipping evidence")
        ax.set_xlabel("false positive rate")
        ax.set_ylabel("true positive rate")
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vitaminc", type=Path, default=bl.DATA / "vitaminc" / "vitaminc_evidence_pairs.jsonl")
    ap.add_argument("--fever-symmetric", type=Path, default=bl.DATA / "fever" / "fever_symmetric_v0.2_dev.jsonl")
    ap.add_argument("--fever-adversarial", type=Path, default=bl.DATA / "fever" / "fever2_fixers_adversarial_test.jsonl")
    ap.add_argument("--model", default="bundled", help="verifier: bundled (default) or a checkpoint path")
    ap.add_argument("--limit", type=int, default=2000,
                    help="VitaminC pairs to score: all equivalent pairs + sampled non-equivalent ones (default 2000)")
    ap.add_argument("--fever-limit", type=int, default=None, help="cap on FEVER pairs (stratified; default all 964)")
    ap.add_argument("--vitaminc-split", choices=["heldout", "all"], default="heldout",
                    help="only VitaminC cases held out from the verifier's training (default) or all")
    ap.add_argument("--no-meteor", action="store_true", help="skip the Hungarian METEOR baseline")
    ap.add_argument("--bootstrap", type=int, default=1000, help="bootstrap replicates for the AUC interval")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--out", type=Path, default=bl.RESULTS / "evidence_pairs", help="output prefix (.md/.json/_roc.png)")
    args = ap.parse_args(argv)

    from ev2r.metric.factory import build_scorer
    from ev2r.io.readers import item_from_row

    verifier = bl.load(args.model, args.device, args.batch_size)
    held = bl.heldout_percent(args.model)
    sets = {}
    vc = vitaminc_rows(args.vitaminc, args.vitaminc_split, held)
    n_vc_pool = len(vc)
    sets["vitaminc"] = bl.stratified_sample(vc, lambda r: r["equivalent"], args.limit, args.seed, keep_all=[1])
    fv = fever_rows(args.fever_symmetric, args.fever_adversarial)
    sets["fever"] = bl.stratified_sample(fv, lambda r: r["equivalent"], args.fever_limit, args.seed)

    scorer = build_scorer(verifier=verifier)
    result = {"command": bl.command(), "machine": bl.machine(), "verifier": bl.verifier_info(args.model, verifier),
              "settings": {"limit": args.limit, "fever_limit": args.fever_limit, "vitaminc_split": args.vitaminc_split,
                           "heldout_percent": held, "seed": args.seed, "bootstrap": args.bootstrap,
                           "vitaminc_pool": n_vc_pool},
              "notes": [], "sets": {}}
    per_set_plot = {}
    for name, rows in sets.items():
        if not rows:
            continue
        t0 = time.perf_counter()
        items = [item_from_row({k: r[k] for k in ("id", "claim", "predicted_evidence", "reference_evidence",
                                                  "gold_label")}, n, name) for n, r in enumerate(rows)]
        scores = scorer.score(items)
        seconds = time.perf_counter() - t0
        cols = {k: [getattr(s, k) for s in scores] for k in EV2R_SCORES}
        base, notes = baseline_scores(rows, not args.no_meteor)
        for n in notes:
            if n not in result["notes"]:
                result["notes"].append(n)
        cols.update(base)
        y = np.array([r["equivalent"] for r in rows])
        flips: dict[str, int] = {}
        for r in rows:
            flips[r["flip"]] = flips.get(r["flip"], 0) + 1
        result["sets"][name] = {"n": len(rows), "positives": int(y.sum()), "ev2r_seconds": round(seconds, 1),
                                "flips": flips, "signature": scorer.corpus(scores).signature,
                                "scores": {c: separation(y, v, args.bootstrap, args.seed) for c, v in cols.items()}}
        per_set_plot[name] = {"y": y.tolist(), "scores": cols}
        print(f"{name}: {len(rows)} pairs scored in {seconds:.1f} s", file=sys.stderr)

    md = [bl.header("Evidence pairs: separating equivalent from label-flipping evidence", result), ""]
    md.append("Each candidate evidence is scored against the reference evidence of the same claim; `equivalent` = 1 "
              "when both lead to the same verdict. AUC: ROC-AUC of the score for `equivalent` (95% bootstrap CI over "
              "pairs); acc@best: accuracy of `score >= t` at the best t (majority-class accuracy beside it); "
              "bal-acc@best: best balanced accuracy. Scores: Ev2R's components (precision, recall, F1, proxy = "
              "P(reference verdict | claim, candidate), Ev2R) and baselines (sentence BLEU, rapidfuzz ratio, "
              "normalised Levenshtein similarity, Hungarian METEOR).\n")
    for name, s in result["sets"].items():
        md.append(f"## {name} ({s['n']} pairs, {s['positives']} equivalent; Ev2R scoring {s['ev2r_seconds']} s)\n")
        if name == "vitaminc":
            md.append(f"Pool: {n_vc_pool} pairs ({args.vitaminc_split} cases, held-out share {held}%); all equivalent "
                      f"pairs kept, non-equivalent sampled (seed {args.seed}).\n")
        else:
            md.append("Caveat: equivalent pairs all come from FEVER 2.0 adversarial, non-equivalent ones from "
                      "FEVER-Symmetric.\n")
        md.append("| score | AUC | AUC 95% CI | acc@best | majority acc | bal-acc@best | mean (equiv.) | mean (flip) |")
        md.append("|---|---:|---|---:|---:|---:|---:|---:|")
        f = (lambda v: "n/a" if v is None else f"{v:.3f}")
        for col, r in sorted(s["scores"].items(), key=lambda kv: -(kv[1]["auc"] or 0)):
            ci = f"[{r['auc_ci95'][0]:.3f}, {r['auc_ci95'][1]:.3f}]" if r.get("auc_ci95") else "n/a"
            md.append(f"| {col} | {f(r['auc'])} | {ci} | {f(r['best_acc'])} | {f(r['majority_acc'])} | "
                      f"{f(r['best_bal_acc'])} | {f(r['mean_pos'])} | {f(r['mean_neg'])} |")
        md.append("")
    if result["notes"]:
        md.append("Notes: " + "; ".join(result["notes"]) + "\n")
    md.append(f"ROC curves: `{args.out.name}_roc.png`.\n")
    roc_plot(per_set_plot, Path(f"{args.out}_roc.png"))
    bl.write(args.out, "\n".join(md), result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
