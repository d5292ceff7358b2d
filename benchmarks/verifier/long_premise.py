"""Which aggregation of premise windows works best when the evidence exceeds the model's window?

    python benchmarks/verifier/long_premise.py --data ../shared/data/vitaminc/vitaminc_real_test.jsonl --limit 300 \
        --max-length 128 --out benchmarks/results/long_premise_window128

(``--max-length 256 --out benchmarks/results/long_premise_window256`` for the wider window: the
bundled verifier was fine-tuned with 128-token inputs and collapses to "entailment" on 256-token
windows, which is why its default window is 128.)

Two settings, chosen by the file:

* **needle** (a VitaminC file, rows with ``case_id``): held-out VitaminC cases only (the case-level
  split the verifier was trained with, so no pair was seen in training). Each pair's evidence is
  hidden at a random position among evidence sentences of *other* held-out cases until the premise
  is ``--pad-factor`` times the window: the label is unchanged (distractors are about other
  Wikipedia revisions), and a policy must find the window that holds the evidence. The row
  ``short`` scores the evidence alone (the ceiling).
* **wice** (``nli/wice.jsonl``): real claims with long web pages (Kamoi et al. 2023), pairs whose
  premise exceeds the window. Caveat: WiCE is in the bundled verifier's training pool (its first
  128 tokens), so this is not a held-out number.

``truncate`` (first window), ``mean`` and ``max`` (see :mod:`ev2r.verifier.nli`) are compared by
accuracy and macro-F1 on the 3 classes and by 2-way accuracy (entailment vs not).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--model", default="bundled")
    ap.add_argument("--max-length", type=int, default=256)
    ap.add_argument("--limit", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pad-factor", type=float, default=2.5,
                    help="needle setting: pad the premise to this many windows (default 2.5)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)

    from sklearn.metrics import f1_score

    from ev2r.verifier.loading import load_verifier

    rows = [json.loads(l) for l in open(args.data) if l.strip()]
    base = load_verifier(args.model, max_length=args.max_length)
    base._load()
    tok = base._tokenizer

    def n_tokens(text):
        return len(tok(text, add_special_tokens=False)["input_ids"])

    rng = random.Random(args.seed)
    mode = "needle" if rows and "case_id" in rows[0] else "wice"
    if mode == "needle":
        from ev2r.training.data import VITAMINC_TO_NLI, heldout_case

        pct = bl.heldout_percent(args.model)
        held = [r for r in rows if heldout_case(r["case_id"], pct)]
        rng.shuffle(held)
        chosen = held[: args.limit]
        long_rows, short_rows = [], []
        for r in chosen:
            others = [o["evidence"] for o in rng.sample(held, 60) if o["case_id"] != r["case_id"]]
            target = int(args.pad_factor * args.max_length)
            k = rng.randint(0, 8)  # distractors before the evidence (the evidence may sit in any window)
            before, after, total = [], [], n_tokens(r["evidence"])
            for j, o in enumerate(others):
                if total >= target:
                    break
                (before if j < k else after).append(o)
                total += n_tokens(o)
            label = VITAMINC_TO_NLI[r["label"]]
            long_rows.append({"premise": " ".join(before + [r["evidence"]] + after), "hypothesis": r["claim"],
                              "label": label})
            short_rows.append({"premise": r["evidence"], "hypothesis": r["claim"], "label": label})
        setting = (f"needle: {len(long_rows)} held-out VitaminC real pairs (heldout_percent {pct}), evidence hidden "
                   f"among other held-out cases' evidence up to {args.pad_factor}x the {args.max_length}-token window")
    else:
        long_rows = [r for r in rows if n_tokens(r["premise"]) > args.max_length - 40]
        rng.shuffle(long_rows)
        long_rows, short_rows = long_rows[: args.limit], None
        setting = ("wice: pairs whose premise exceeds the window (WiCE is in the bundled verifier's training pool: "
                   "not a held-out number)")
    labels = ["entailment", "neutral", "contradiction"]
    gold = [labels.index(r["label"]) for r in long_rows]
    results = {}
    policies = (["short"] if short_rows else []) + ["truncate", "mean", "max"]
    for policy in policies:
        ver = load_verifier(args.model, max_length=args.max_length, long_premise="max" if policy == "short" else policy)
        t0 = time.time()
        src = short_rows if policy == "short" else long_rows
        p = ver.predict([r["premise"] for r in src], [r["hypothesis"] for r in src])
        pred = p.argmax(1).tolist()
        acc = sum(int(a == b) for a, b in zip(pred, gold)) / len(gold)
        two = sum(int((a == 0) == (b == 0)) for a, b in zip(pred, gold)) / len(gold)
        results[policy] = {"accuracy": round(acc, 4), "macro_f1": round(float(f1_score(gold, pred, average="macro")), 4),
                           "accuracy_2way": round(two, 4), "windows": ver.n_model_pairs,
                           "seconds": round(time.time() - t0, 1)}
    counts = {lab: gold.count(i) for i, lab in enumerate(labels)}
    meta = bl.machine()
    lines = [f"# Long-premise aggregation on {Path(args.data).name}", "",
             f"Command: `{bl.command()}`", "",
             f"Machine: {meta['platform']}, {meta['cpu_count']} CPUs, torch {meta['torch']}, {meta['utc']}; "
             f"verifier: {base.name}; window {args.max_length} tokens", "",
             f"Setting: {setting}. Pairs: {len(long_rows)} (gold: {counts})", "",
             "| policy | accuracy | macro-F1 | 2-way accuracy | windows scored | seconds |", "|---|---|---|---|---|---|"]
    for k, v in results.items():
        lines.append(f"| {k} | {v['accuracy']:.3f} | {v['macro_f1']:.3f} | {v['accuracy_2way']:.3f} | {v['windows']} | {v['seconds']} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).with_suffix(".md").write_text(text)
        Path(args.out).with_suffix(".json").write_text(json.dumps(
            {"command": bl.command(), "machine": meta, "setting": setting, "verifier": base.name,
             "max_length": args.max_length, "results": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
