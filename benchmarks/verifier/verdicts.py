"""Verifier verdict benchmark: accuracy and macro-F1 of the NLI verifier on FEVER and VitaminC.

For each (claim, evidence sentence, label) row the verifier reads the evidence as premise and the
claim as hypothesis; its arg-max class is the verdict (entailment -> SUPPORTS, contradiction ->
REFUTES, neutral -> NOT ENOUGH INFO). Reported per set: 3-way accuracy, macro-F1 over the gold
classes present in the set (a NOT ENOUGH INFO prediction on a two-class set counts as an error),
and, for sets without NOT ENOUGH INFO, the 2-way accuracy of P(entailment) vs P(contradiction);
confusion matrices go to a PNG.

Sets: FEVER-Symmetric v0.2 dev (708), FEVER 2.0 adversarial (766), VitaminC real / synthetic test
restricted to the cases held out from the verifier's training (case-level split of ev2r.training.data,
share read from the model's training_meta.json), sampled stratified by label (``--limit``), and
AVeriTeC dev (claims with a Supported / Refuted / Not Enough Evidence verdict; never in any
verifier's training data): the claim against its gold question/answer evidence, read exactly as
the Ev2R proxy reads predicted evidence (each pair a premise, entailment and contradiction maxed
over pairs, neutral minimised; ``ev2r.metric.proxy.NLIProxyScorer.distributions``).

Usage (full size, with the final verifier)::

    python benchmarks/verifier/verdicts.py --model bundled --limit 3000
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402

CLASSES = ("SUPPORTS", "NOT ENOUGH INFO", "REFUTES")  # verifier columns: entailment, neutral, contradiction
NLI_TO_VERDICT = np.array([0, 1, 2])


def canonical(label: str) -> str:
    from ev2r.labels import Verdict, normalize_verdict

    v = normalize_verdict(label)
    return {Verdict.SUPPORTED: "SUPPORTS", Verdict.REFUTED: "REFUTES",
            Verdict.NOT_ENOUGH_EVIDENCE: "NOT ENOUGH INFO"}[v]


def load_sets(args, held: int) -> dict[str, list[dict]]:
    from ev2r.training.data import heldout_case

    sets = {}
    for name, path in (("fever_symmetric", args.fever_symmetric), ("fever2_adversarial", args.fever_adversarial)):
        if path.exists():
            sets[name] = [{"claim": r["claim"], "evidence": r["evidence"], "label": canonical(r["label"])}
                          for r in bl.read_jsonl(path)]
    for name, path in (("vitaminc_real", args.vitaminc_real), ("vitaminc_synthetic", args.vitaminc_synthetic)):
        if not path.exists():
            continue
        rows = [{"claim": r["claim"], "evidence": r["evidence"], "label": canonical(r["label"])}
                for r in bl.read_jsonl(path)
                if args.vitaminc_split == "all" or heldout_case(str(r.get("case_id", "")), held)]
        sets[name] = bl.stratified_sample(rows, lambda r: r["label"], args.limit, args.seed)
    if args.averitec_dev and Path(args.averitec_dev).exists():
        from ev2r.io.readers import averitec_questions_to_evidence
        from ev2r.types import Evidence, Item

        rows = []
        for k, r in enumerate(json.loads(Path(args.averitec_dev).read_text(encoding="utf-8"))):
            if r.get("label") not in ("Supported", "Refuted", "Not Enough Evidence"):
                continue
            ev = averitec_questions_to_evidence(r.get("questions") or [], f"{args.averitec_dev}: row {k}")
            if ev.is_empty:
                continue
            rows.append({"claim": r["claim"], "label": canonical(r["label"]),
                         "item": Item(id=str(k), claim=r["claim"], predicted_evidence=ev, reference_evidence=Evidence(()))})
        sets["averitec_dev"] = rows
    if args.fever_limit:
        for name in ("fever_symmetric", "fever2_adversarial"):
            if name in sets:
                sets[name] = bl.stratified_sample(sets[name], lambda r: r["label"], args.fever_limit, args.seed)
    return sets


def evaluate_set(rows: list[dict], probs: np.ndarray) -> dict:
    from sklearn.metrics import confusion_matrix, f1_score

    gold = [r["label"] for r in rows]
    pred = [CLASSES[i] for i in probs.argmax(1)]
    present = [c for c in CLASSES if c in set(gold)]
    out = {"n": len(rows), "label_counts": {c: gold.count(c) for c in present},
           "accuracy": float(np.mean([g == p for g, p in zip(gold, pred)])),
           "macro_f1": float(f1_score(gold, pred, labels=present, average="macro", zero_division=0)),
           "per_class_f1": dict(zip(present, map(float, f1_score(gold, pred, labels=present, average=None,
                                                                   zero_division=0)))),
           "predicted_counts": {c: pred.count(c) for c in CLASSES},
           "confusion": confusion_matrix(gold, pred, labels=list(CLASSES)).tolist()}
    if "NOT ENOUGH INFO" not in present:
        two = np.where(probs[:, 0] >= probs[:, 2], "SUPPORTS", "REFUTES")
        out["accuracy_2way"] = float(np.mean(two == np.array(gold)))
        out["macro_f1_2way"] = float(f1_score(gold, two, labels=present, average="macro", zero_division=0))
    return out


def confusion_plot(results: dict, path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(results)
    fig, axes = plt.subplots(1, len(names), figsize=(3.9 * len(names), 3.9), squeeze=False)
    short = ("SUP", "NEI", "REF")
    for ax, name in zip(axes[0], names):
        cm = np.array(results[name]["confusion"], dtype=float)
        norm = cm / np.maximum(cm.sum(1, keepdims=True), 1)
        ax.imshow(norm, cmap="Blues", vmin=0, vmax=1)
        for i in range(3):
            for j in range(3):
                ax.text(j, i, f"{int(cm[i, j])}", ha="center", va="center",
                        color="white" if norm[i, j] > 0.6 else "black", fontsize=9)
        ax.set_xticks(range(3), short)
        ax.set_yticks(range(3), short)
        ax.set_xlabel("predicted")
        ax.set_ylabel("gold")
        r = results[name]
        ax.set_title(f"{name}\nacc {r['accuracy']:.3f}  macro-F1 {r['macro_f1']:.3f}", fontsize=9)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fever-symmetric", type=Path, default=bl.DATA / "fever" / "fever_symmetric_v0.2_dev.jsonl")
    ap.add_argument("--fever-adversarial", type=Path, default=bl.DATA / "fever" / "fever2_fixers_adversarial_test.jsonl")
    ap.add_argument("--vitaminc-real", type=Path, default=bl.DATA / "vitaminc" / "vitaminc_real_test.jsonl")
    ap.add_argument("--vitaminc-synthetic", type=Path, default=bl.DATA / "vitaminc" / "vitaminc_synthetic_test.jsonl")
    ap.add_argument("--averitec-dev", default=str(bl.DATA / "averitec" / "dev.json"),
                    help="AVeriTeC dev split (gold Q/A evidence vs claim, proxy aggregation); '' to skip")
    ap.add_argument("--model", default="bundled", help="verifier: bundled (default) or a checkpoint path")
    ap.add_argument("--limit", type=int, default=3000, help="rows per VitaminC set, stratified by label (default 3000)")
    ap.add_argument("--fever-limit", type=int, default=None, help="rows per FEVER set (default all)")
    ap.add_argument("--vitaminc-split", choices=["heldout", "all"], default="heldout")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--dtype", default="fp32", choices=["auto", "fp32", "bf16", "int8"], help="verifier precision")
    ap.add_argument("--out", type=Path, default=bl.RESULTS / "verdicts", help="output prefix (.md/.json/_confusion.png)")
    args = ap.parse_args(argv)

    verifier = bl.load(args.model, args.device, args.batch_size, dtype=args.dtype)
    held = bl.heldout_percent(args.model)
    sets = load_sets(args, held)
    info = {"command": bl.command(), "machine": bl.machine(), "verifier": bl.verifier_info(args.model, verifier),
            "settings": {"limit": args.limit, "fever_limit": args.fever_limit, "vitaminc_split": args.vitaminc_split,
                         "heldout_percent": held, "seed": args.seed, "batch_size": args.batch_size},
            "sets": {}}
    for name, rows in sets.items():
        t0 = time.perf_counter()
        if name == "averitec_dev":
            from ev2r.metric.proxy import NLIProxyScorer

            probs = np.stack(NLIProxyScorer(verifier).distributions([r["item"] for r in rows]))
        else:
            probs = verifier.predict([r["evidence"] for r in rows], [r["claim"] for r in rows])
        dt = time.perf_counter() - t0
        info["sets"][name] = evaluate_set(rows, probs) | {"seconds": round(dt, 1),
                                                          "rows_per_s": round(len(rows) / dt, 1)}
        print(f"{name}: {len(rows)} rows, acc {info['sets'][name]['accuracy']:.3f} ({dt:.1f} s)", file=sys.stderr)

    md = [bl.header("Verifier verdicts on FEVER, VitaminC and AVeriTeC", info), ""]
    md.append("Premise = evidence sentence, hypothesis = claim, verdict = arg-max class. Macro-F1 over the gold classes "
              "of each set; 2-way = P(entailment) vs P(contradiction) on sets without NOT ENOUGH INFO. VitaminC: "
              f"cases held out from the verifier's training ({held}% of case_ids; split `{args.vitaminc_split}`), "
              f"stratified sample of at most {args.limit} rows per file (seed {args.seed}). AVeriTeC dev: each claim "
              "against its gold question/answer pairs, aggregated as the Ev2R proxy aggregates them (Conflicting "
              "Evidence/Cherrypicking claims left out; Supported / Refuted / Not Enough Evidence shown as S / R / NEI).\n")
    md.append("| set | n | accuracy | macro-F1 | 2-way acc | 2-way macro-F1 | predicted S / NEI / R | rows/s |")
    md.append("|---|---:|---:|---:|---:|---:|---|---:|")
    for name, r in info["sets"].items():
        pc = r["predicted_counts"]
        two = (f"{r['accuracy_2way']:.3f} | {r['macro_f1_2way']:.3f}" if "accuracy_2way" in r else "n/a | n/a")
        md.append(f"| {name} | {r['n']} | {r['accuracy']:.3f} | {r['macro_f1']:.3f} | {two} | "
                  f"{pc['SUPPORTS']} / {pc['NOT ENOUGH INFO']} / {pc['REFUTES']} | {r['rows_per_s']} |")
    md.append(f"\nConfusion matrices (rows gold, columns predicted): `{args.out.name}_confusion.png`.\n")
    confusion_plot(info["sets"], Path(f"{args.out}_confusion.png"), f"verifier {info['verifier']['name']}")
    bl.write(args.out, "\n".join(md), info)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
