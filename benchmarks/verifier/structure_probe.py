"""Does the verifier read negation and word order? Probes built from real AVeriTeC evidence.

From the answers of the AVeriTeC dev claims' gold evidence (sentences of 8-40 words, drawn with a
seed), each sentence ``S`` is the hypothesis of four premises:

* ``copy``: ``S`` itself -- must be read as entailment (the control: a verifier that rejects
  everything would pass the other probes);
* ``denial``: ``S`` wrapped in a denial template of the gaming suite
  (:data:`adversarial.perturbations.gaming.SUITE_DENIALS`; none is a template of the training
  augmentation) -- must not be read as entailment;
* ``inline negation``: ``S`` negated in place (:func:`adversarial.perturbations.negate_sentence`: "not",
  "never", a flipped Yes/No) -- must not be read as entailment;
* ``word salad``: the words of ``S`` shuffled -- must not be read as entailment.

and, in the other direction (how precision reads a predicted atomic fact against a reference premise),
``S`` is the premise of two hypotheses:

* ``denied fact``: ``S`` wrapped in a denial template -- must not be read as entailment;
* ``salad fact``: the words of ``S`` shuffled -- must not be read as entailment.

A probe item is correct when the verifier's argmax is as required (entailment for ``copy``, anything
but entailment otherwise); the contradiction share of the two negation probes is reported beside it.
The target: >= 90% on the negation and word-order probes.

Usage (from the repository root)::

    python benchmarks/verifier/structure_probe.py --verifier bundled --verifier /tmp/train/struct --n 200

writes ``benchmarks/results/structure_probe.{md,json}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402
from adversarial.perturbations import negate_sentence  # noqa: E402
from adversarial.perturbations.gaming import SUITE_DENIALS, that_clause  # noqa: E402
from ev2r.training.augment import shuffle_words_text  # noqa: E402

PROBES = ("copy", "denial", "inline negation", "word salad", "denied fact", "salad fact")


def probe_sentences(path: Path, n: int, seed: int) -> list[str]:
    """``n`` distinct answer sentences of 8-40 words from the gold evidence of an AVeriTeC file."""
    from ev2r.facts.rules import split_sentences

    rows = json.loads(path.read_text(encoding="utf-8"))
    sents = []
    for r in rows:
        for q in r.get("questions", []):
            for a in q.get("answers", []):
                for s in split_sentences(a.get("answer", "") or ""):
                    if 8 <= len(s.split()) <= 40 and s not in sents:
                        sents.append(s)
    rng = np.random.default_rng(seed)
    idx = sorted(rng.choice(len(sents), size=min(n, len(sents)), replace=False).tolist())
    return [sents[i] for i in idx]


def build_probes(sentences: list[str], seed: int) -> list[tuple[str, str, str]]:
    """``(probe, premise, hypothesis)`` rows: the four premises and two hypotheses of each sentence (module docstring)."""
    import random

    rng = random.Random(seed)
    out = []
    for k, s in enumerate(sentences):
        out.append(("copy", s, s))
        out.append(("denial", SUITE_DENIALS[k % len(SUITE_DENIALS)].format(s=that_clause(s)), s))
        neg = negate_sentence(s)
        if neg != s:
            out.append(("inline negation", neg, s))
        salad = shuffle_words_text(s, rng)
        if salad:
            out.append(("word salad", salad, s))
        out.append(("denied fact", s, SUITE_DENIALS[(k + 1) % len(SUITE_DENIALS)].format(s=that_clause(s))))
        fact_salad = shuffle_words_text(s, rng)
        if fact_salad:
            out.append(("salad fact", s, fact_salad))
    return out


def evaluate(verifier_spec: str, probes: list[tuple[str, str, str]]) -> dict:
    from ev2r.verifier.loading import load_verifier

    ver = load_verifier(verifier_spec)
    probs = np.asarray(ver.predict([p for _, p, _ in probes], [h for _, _, h in probes]))
    arg = probs.argmax(axis=1)
    out = {}
    for name in PROBES:
        rows = [i for i, (kind, _, _) in enumerate(probes) if kind == name]
        if not rows:
            continue
        a = arg[rows]
        correct = (a == 0) if name == "copy" else (a != 0)
        out[name] = {"n": len(rows), "correct": float(correct.mean()), "contradiction": float((a == 2).mean()),
                     "mean_p_entailment": float(probs[rows, 0].mean())}
    return {"verifier": getattr(ver, "name", verifier_spec), "probes": out}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--verifier", action="append", default=None, help="verifier (bundled or a checkpoint); repeat")
    ap.add_argument("--data", default=str(bl.DATA / "averitec" / "dev.json"))
    ap.add_argument("--n", type=int, default=200, help="sentences drawn (default 200)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(bl.RESULTS / "structure_probe"))
    args = ap.parse_args(argv)
    specs = args.verifier or ["bundled"]
    probes = build_probes(probe_sentences(Path(args.data), args.n, args.seed), args.seed)
    results = {spec: evaluate(spec, probes) for spec in specs}
    lines = ["# Structure probes: does the verifier read negation and word order?", "",
             f"Command: `{bl.command()}`", f"Machine: {bl.machine()}", "",
             f"{args.n} answer sentences of AVeriTeC dev gold evidence (8-40 words, seed {args.seed}), each the "
             "hypothesis of four premises and the premise of two hypotheses (`denied fact`, `salad fact`: the precision direction). Correct: argmax entailment for `copy`, anything but entailment for the "
             "others (target >= 90%); `contradiction` = share read as contradiction.", "",
             "| verifier | " + " | ".join(f"{p} (n)" for p in PROBES) + " |", "|---|" + "---|" * len(PROBES)]
    for spec, r in results.items():
        cells = []
        for p in PROBES:
            c = r["probes"].get(p)
            cells.append("n/a" if c is None else (f"{100 * c['correct']:.1f}% ({c['n']})" if p in ("copy", "word salad", "salad fact")
                                                  else f"{100 * c['correct']:.1f}%, contra {100 * c['contradiction']:.0f}% ({c['n']})"))
        lines.append(f"| `{r['verifier']}` ({spec}) | " + " | ".join(cells) + " |")
    Path(args.out + ".md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    Path(args.out + ".json").write_text(json.dumps({"command": bl.command(), "results": results}, indent=1) + "\n",
                                        encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
