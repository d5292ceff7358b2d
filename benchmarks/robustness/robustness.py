"""Robustness table and chart for Ev2R's scores and baselines on AVeriTeC dev claims.

Gold evidence is the reference and perturbed gold evidence the candidate (the setting of the Ev2R
paper's checklist tests, Akhtar et al. 2024, arXiv 2411.05375): the base score compares gold with
itself, so meaning-preserving perturbations should leave each score near its base and
meaning-damaging ones should lower it.

Scores: Ev2R's precision, recall, f1, proxy and ev2r (``ev2r.metric.factory.make_item_scorer``, bundled
verifier, rule-based decomposer, alpha 0.5) and the baselines Hungarian METEOR
(``claimalign.hu_meteor``), sacrebleu sentence BLEU and normalised Levenshtein (edit) similarity
(:mod:`adversarial.baselines`). A scorer that cannot be built (the bundled verifier not trained
yet, claimalign missing) is left out with a note in the report; rerun when it is there.

Usage (from the repository root)::

    python benchmarks/robustness/robustness.py --data ../shared/data/averitec/dev.json --n 100 --out benchmarks/results/

writes ``robustness.json``, ``robustness.md``, ``robustness.png`` and ``robustness_per_item.jsonl.gz`` (the
per-item rows gzip-compressed, to keep ``results/`` small: ``results/README.md``) into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402
from adversarial.baselines import combine_scorers, get_baseline  # noqa: E402
from adversarial.report import render_markdown, write_report  # noqa: E402
from adversarial.resources import add_nltk_data_path  # noqa: E402
from adversarial.suite import run_suite  # noqa: E402
from ev2r.io.readers import averitec_questions_to_evidence  # noqa: E402
from ev2r.labels import normalize_verdict  # noqa: E402
from ev2r.types import Item  # noqa: E402

SCORERS = ("ev2r", "hu_meteor", "bleu", "edit")


def load_averitec_gold(path: str, n: int, seed: int) -> list[Item]:
    """``n`` claims of an AVeriTeC file drawn with ``seed`` (kept in file order), each with its gold
    evidence as both reference and predicted evidence. Claims without evidence are not drawn.

    Raises:
        ValueError: the file is not an AVeriTeC list of claims with ``questions``, or ``n`` < 1.
    """
    with open(path, encoding="utf-8") as f:
        rows = json.load(f)
    if not isinstance(rows, list) or not all(isinstance(r, dict) and "questions" in r and "claim" in r for r in rows):
        raise ValueError(f"{path}: expected an AVeriTeC JSON list of claims with 'claim' and 'questions'")
    if n < 1:
        raise ValueError(f"--n: expected >= 1, got {n}")
    items = []
    for k, r in enumerate(rows):
        ev = averitec_questions_to_evidence(r["questions"], f"{path}: row {k}")
        if ev.is_empty:
            continue
        items.append(Item(id=str(k), claim=r["claim"].strip(), predicted_evidence=ev, reference_evidence=ev,
                          gold_label=normalize_verdict(r["label"], "label"), row=k))
    if n < len(items):
        idx = np.random.default_rng(seed).choice(len(items), size=n, replace=False)
        items = [items[i] for i in sorted(idx.tolist())]
    return items


def build(names, verifier: str, decomposer: str = "rules", dtype: str = "auto"):
    parts, notes = [], []
    for name in names:
        try:
            if name == "ev2r":
                from ev2r.metric.factory import make_item_scorer

                sc = make_item_scorer(verifier=verifier, decomposer=decomposer, alpha=0.5, dtype=dtype)
            else:
                sc = get_baseline(name)
            parts.append(sc)
        except (ImportError, OSError, ValueError) as e:
            repo = str(Path(__file__).resolve().parents[2])
            notes.append(f"`{name}` left out: {type(e).__name__}: {str(e).replace(repo, '<repo>')}")
    return parts, notes


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, help="AVeriTeC dev.json")
    ap.add_argument("--n", type=int, default=100, help="claims to draw (default 100)")
    ap.add_argument("--out", default="benchmarks/results/", help="output folder")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scorers", default=",".join(SCORERS), help=f"comma-separated, of {', '.join(SCORERS)}")
    ap.add_argument("--verifier", default="bundled", help="Ev2R verifier: bundled or a checkpoint folder")
    ap.add_argument("--nltk-data", default=None, help="nltk data folder (WordNet); default NLTK_DATA")
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument("--perturbations", default=None, help="comma-separated perturbation names (default: all)")
    ap.add_argument("--decomposer", default="rules", help="Ev2R decomposer (rules = rules-v2, rules-v1)")
    ap.add_argument("--dtype", default="auto", choices=["auto", "fp32", "bf16", "int8"], help="verifier precision")
    ap.add_argument("--stem", default="robustness", help="file name stem of the report files")
    args = ap.parse_args(argv)

    if args.nltk_data:
        add_nltk_data_path(args.nltk_data)
    names = [s.strip() for s in args.scorers.split(",") if s.strip()]
    bad = [s for s in names if s not in SCORERS]
    if bad:
        ap.error(f"--scorers: unknown {bad}; allowed: {', '.join(SCORERS)}")
    items = load_averitec_gold(args.data, args.n, args.seed)
    parts, notes = build(names, args.verifier, args.decomposer, args.dtype)
    perturbations = [p.strip() for p in args.perturbations.split(",")] if args.perturbations else None
    if not parts:
        print("no scorer could be built:\n" + "\n".join(notes), file=sys.stderr)
        return 2
    t0 = time.time()
    report = run_suite(items, combine_scorers(parts), perturbations, seed=args.seed, n_boot=args.n_boot,
                       scorer_name=" + ".join(n for n in names if not any(f"`{n}`" in x for x in notes)))
    elapsed = time.time() - t0
    paths = write_report(report, args.out, mode="all", stem=args.stem)
    meta = bl.machine()
    js = json.loads(Path(paths["json"]).read_text(encoding="utf-8"))
    js["benchmark"] = {"command": bl.command(), "machine": meta, "seconds": round(elapsed, 1),
                       "verifier": args.verifier, "notes": notes}
    Path(paths["json"]).write_text(json.dumps(js, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    header = [
        "<!-- written by benchmarks/robustness/robustness.py; do not edit by hand -->",
        f"Setting: {len(items)} AVeriTeC dev claims (drawn with seed {args.seed} from `{os.path.basename(args.data)}`), "
        "gold evidence as the reference and perturbed gold evidence as the candidate. "
        f"Command: `{bl.command()}` ({elapsed:.0f} s; verifier `{args.verifier}`, decomposer `{args.decomposer}`, "
        f"dtype `{args.dtype}`). Gate mode `all`: every declared "
        "expectation counts here (this is a table, not the CI gate).",
        "",
        f"Machine: {meta['platform']}, {meta['cpu_count']} CPUs ({meta['torch_threads']} torch threads, 1-min load "
        f"average {meta['load_average_1m']}), Python {meta['python']}, torch {meta['torch']}, {meta['utc']}.",
        "",
    ]
    header += [f"- Note: {n}" for n in notes] + ([""] if notes else [])
    md = Path(paths["md"]).read_text(encoding="utf-8")
    first, rest = md.split("\n", 1)
    Path(paths["md"]).write_text(first + "\n\n" + "\n".join(header) + rest, encoding="utf-8")
    paths["per_item"] = str(bl.compress(paths["per_item"]))
    print(render_markdown(report, "all", detail=False))
    for n in notes:
        print("note:", n, file=sys.stderr)
    print("wrote", ", ".join(paths.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
