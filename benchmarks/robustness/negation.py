"""Which similarity backends separate meaning from surface form?

Scores paraphrase / negation / argument-swap / unrelated sentence pairs with every claimalign
backend (edit, METEOR, embedding cosine, BERTScore F1; NLI with ``--verifier``; the G-Eval LLM
judge with ``--llm-base-url``) and writes ``benchmarks/results/negation.{md,json}``.

The known failure (*Examining the Metrics for Document-Level Claim Extraction in Czech and
Slovak*): lexical and embedding similarities rate "Jan chodí do práce" / "Jan nechodí do práce"
and "The cat sat on a mat." / "The mat sat on a cat." as near-identical.

Usage (from the repository root):
    python benchmarks/robustness/negation.py [--verifier CKPT_DIR] [--llm-base-url URL --llm-model NAME]
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

PAIRS = [
    # (category, left, right)
    ("paraphrase", "The cat sat on a mat.", "A cat was sitting on the mat."),
    ("paraphrase", "The company reported record profits in 2021.", "In 2021, the firm announced its highest-ever earnings."),
    ("paraphrase", "Jan chodí do práce.", "Jan dochází do zaměstnání."),
    ("paraphrase", "The vaccine was approved in March.", "Regulators authorised the vaccine in March."),
    ("paraphrase", "Unemployment fell to 4 percent last year.", "Last year the jobless rate dropped to 4%."),
    ("negation", "Jan chodí do práce.", "Jan nechodí do práce."),
    ("negation", "The bridge was opened to traffic in 1998.", "The bridge was not opened to traffic in 1998."),
    ("negation", "Maria Lopez won the mayoral election.", "Maria Lopez did not win the mayoral election."),
    ("negation", "The vaccine was approved in March.", "The vaccine was not approved in March."),
    ("negation", "Masks reduce the transmission of Covid-19.", "Masks do not reduce the transmission of Covid-19."),
    ("argument swap", "The cat sat on a mat.", "The mat sat on a cat."),
    ("argument swap", "Germany defeated Brazil 7-1.", "Brazil defeated Germany 7-1."),
    ("argument swap", "The senator criticised the governor.", "The governor criticised the senator."),
    ("argument swap", "Alice paid Bob 500 dollars.", "Bob paid Alice 500 dollars."),
    ("argument swap", "Petr zavolal Janě.", "Jana zavolala Petrovi."),
    ("unrelated", "The cat sat on a mat.", "Inflation rose to 9 percent in June."),
    ("unrelated", "Jan chodí do práce.", "Praha je hlavní město České republiky."),
    ("unrelated", "The bridge was opened to traffic in 1998.", "Masks reduce the transmission of Covid-19."),
    ("unrelated", "Germany defeated Brazil 7-1.", "The vaccine was approved in March."),
    ("unrelated", "Alice paid Bob 500 dollars.", "Unemployment fell to 4 percent last year."),
]
CATEGORIES = ("paraphrase", "negation", "argument swap", "unrelated")


def auc(pos, neg) -> float:
    """P(score of a random positive > a random negative), ties count 1/2."""
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--verifier", default=None,
                    help="HF sequence-classification NLI checkpoint dir (id2label names the NLI classes)")
    ap.add_argument("--nli-combine", default="mean", choices=("mean", "min", "max"))
    ap.add_argument("--llm-base-url", default=None, help="OpenAI-compatible server for the G-Eval judge")
    ap.add_argument("--llm-model", default="default", help="model name for the LLM judge")
    ap.add_argument("--nltk-data", default="../shared/data/nltk_data", help="NLTK_DATA folder (punkt_tab, WordNet)")
    ap.add_argument("--out-dir", default="benchmarks/results")
    args = ap.parse_args(argv)
    if args.nltk_data and "NLTK_DATA" not in os.environ:
        os.environ["NLTK_DATA"] = str(Path(args.nltk_data).resolve())
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    from claimalign.similarity import (BERTScoreSimilarity, EditSimilarity, EmbeddingSimilarity, HFNLIAdapter,
                                       LLMJudgeSimilarity, MeteorSimilarity, NLISimilarity)

    backends = {"edit": EditSimilarity(), "meteor": MeteorSimilarity(), "embedding": EmbeddingSimilarity(),
                "bertscore": BERTScoreSimilarity()}
    notes = {}
    if args.verifier:
        backends["nli"] = NLISimilarity(HFNLIAdapter(args.verifier), combine=args.nli_combine)
    else:
        notes["nli"] = "n/a (needs --verifier)"
    if args.llm_base_url:
        from ev2r.llm import LLMClient  # cached, retrying; claimalign builds no client itself

        backends["llm"] = LLMJudgeSimilarity(LLMClient(model=args.llm_model, base_url=args.llm_base_url))
    else:
        notes["llm"] = "n/a (needs a server)"
    columns = list(backends) + list(notes)

    scores = {name: [] for name in backends}
    seconds = {}
    for name, sim in backends.items():
        t0 = time.perf_counter()
        for _, a, b in PAIRS:
            scores[name].append(float(sim.matrix([a], [b])[0, 0]))
        seconds[name] = time.perf_counter() - t0

    cats = [c for c, _, _ in PAIRS]
    summary = {}
    for name in backends:
        s = np.array(scores[name])
        per_cat = {c: float(s[[k for k, x in enumerate(cats) if x == c]].mean()) for c in CATEGORIES}
        para = s[[k for k, x in enumerate(cats) if x == "paraphrase"]]
        meaning_changed = s[[k for k, x in enumerate(cats) if x in ("negation", "argument swap")]]
        summary[name] = {**per_cat, "gap_paraphrase_minus_changed": per_cat["paraphrase"]
                         - (per_cat["negation"] + per_cat["argument swap"]) / 2,
                         "auc_paraphrase_vs_changed": auc(para.tolist(), meaning_changed.tolist())}

    names = {name: backends[name].name for name in backends}
    lines = ["# Negation / argument-swap probe: similarity of sentence pairs per backend", "",
             "Similarities in [0, 1]. A backend that reads meaning should score paraphrases high and "
             "negations / argument swaps as low as unrelated pairs.", "",
             "## Per category (mean)", "",
             "| category | " + " | ".join(columns) + " |", "|---|" + "---:|" * len(columns)]
    for c in CATEGORIES:
        lines.append(f"| {c} | " + " | ".join(f"{summary[n][c]:.3f}" if n in summary else notes[n]
                                               for n in columns) + " |")
    lines.append("| **gap: paraphrase - mean(negation, swap)** | " + " | ".join(
        f"**{summary[n]['gap_paraphrase_minus_changed']:+.3f}**" if n in summary else notes[n] for n in columns) + " |")
    lines.append("| **AUC paraphrase vs negation+swap** | " + " | ".join(
        f"**{summary[n]['auc_paraphrase_vs_changed']:.2f}**" if n in summary else notes[n] for n in columns) + " |")
    lines += ["", "AUC: probability that a random paraphrase pair scores above a random negation/swap pair "
              "(0.5 = cannot tell them apart; 5 paraphrases x 10 meaning-changing pairs).", "",
              "## Per pair", "", "| category | left | right | " + " | ".join(columns) + " |",
              "|---|---|---|" + "---:|" * len(columns)]
    for k, (c, a, b) in enumerate(PAIRS):
        lines.append(f"| {c} | {a} | {b} | " + " | ".join(f"{scores[n][k]:.3f}" if n in scores else "n/a"
                                                          for n in columns) + " |")
    cmd = "python " + " ".join([Path(sys.argv[0]).as_posix()] + (argv if argv is not None else sys.argv[1:]))
    meta = bl.machine()
    lines += ["", "## Backends", ""] + [f"- `{n}`: `{names[n]}` ({seconds[n]:.1f} s for {len(PAIRS)} pairs, "
                                         "including model load)" for n in backends]
    lines += [f"- `{n}`: {notes[n]}" for n in notes]
    lines += ["", f"Command: `{cmd}`", f"Machine: {meta['platform']}, {meta['cpu_count']} CPUs, "
              f"Python {meta['python']}, {meta['utc']}"]
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "negation.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    record = {"command": cmd, "machine": meta, "backends": names, "not_run": notes, "seconds": seconds,
              "summary": summary,
              "pairs": [{"category": c, "left": a, "right": b, **{n: scores[n][k] for n in scores}}
                        for k, (c, a, b) in enumerate(PAIRS)]}
    (out_dir / "negation.json").write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print("\n".join(lines[:14]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
