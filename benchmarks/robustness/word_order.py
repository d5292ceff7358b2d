"""How often the word-order test (:mod:`ev2r.facts.word_order`) calls real answers word salad, and how
often it catches word salad (issue 32, the ``shuffled_reference`` gaming class).

    python benchmarks/robustness/word_order.py --out benchmarks/results/word_order

Real answers: the predicted and reference answers of both development rating sets, every answer of the
AVeriTeC train and dev questions (web text, none of it in the tables), CTKFacts dev evidence paragraphs
(Czech). Word salad: each of them with the words of every sentence shuffled as the gaming suite does
(:func:`adversarial.perturbations.words.shuffle_sentence`, seed 0). Each cell: the share of answers judged
(``salad_z`` not None) that fall below the threshold, at the default :data:`SALAD_Z` and beside it.

Sentence by sentence and clause by clause (``order-v3``, :func:`ev2r.facts.word_order.strip_word_salad`): the
share of real answers and of their words that the rule cuts (an answer of salad, a sentence of salad in it, or
a salad opening or closing clause run of a sentence), and the shuffled answers behind the gaming suite's fluent
lead (:data:`adversarial.perturbations.gaming.PROSE_LEAD`, ``shuffled_reference_behind_prose``) and behind its
fluent clause in the same sentence (:data:`~adversarial.perturbations.gaming.PROSE_CLAUSE`,
``shuffled_reference_behind_clause``): the share whose salad is cut entirely (only the lead left), and the share
of their salad words left; and of the salad words left when the salad is cut into lines of 3 words, or into
sentences of 5 words behind the fluent lead (a breaker's evasions of ``order-v2``).
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402
from adversarial.perturbations.gaming import PROSE_CLAUSE, PROSE_LEAD
from adversarial.perturbations.words import shuffle_sentence
from ev2r.facts.rules import split_sentences
from ev2r.facts.word_order import MIN_WORDS, judge, SALAD_Z, SALAD_Z_PER_ROOT_WORD, WORD_ORDER_RULE, available_languages, salad_threshold, salad_z, strip_word_salad
from ev2r.io.readers import read_items

#: The rules compared: name -> the z threshold for an answer of w tested words (the default is salad_threshold).
RULES = {"z < 1": lambda w: 1.0, "z < 2": lambda w: 2.0, "max(1, 0.3 sqrt w)": lambda w: max(1.0, 0.3 * w ** 0.5),
         "default max(1, 0.4 sqrt w)": salad_threshold, "max(1, 0.5 sqrt w)": lambda w: max(1.0, 0.5 * w ** 0.5)}
BINS = ((MIN_WORDS, 9), (10, 19), (20, 49), (50, 10 ** 9))
#: Rules for a sentence on its own compared (name -> is a sentence of w tested words and z salad); the first
#: is the shipped one (salad_threshold, the answer's rule, over the sentence's words).
SENTENCE_RULES = {"default: max(1, 0.4 sqrt w), w >= 6": lambda z, w: w >= MIN_WORDS and z < salad_threshold(w),
                  "max(1, 0.4 sqrt w), w >= 10": lambda z, w: w >= 10 and z < salad_threshold(w),
                  "max(1, 0.3 sqrt w), w >= 8": lambda z, w: w >= 8 and z < max(1.0, 0.3 * w ** 0.5),
                  "z < 1, w >= 6": lambda z, w: w >= MIN_WORDS and z < 1.0,
                  "z < 1, w >= 10": lambda z, w: w >= 10 and z < 1.0}


def answers_of_sets() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, f in (("86", "averitec_manual_eval_subset"), ("144", "averitec_shared_task_dev")):
            items = read_items(bl.DATA / "ev2r_human_eval" / f"{f}.jsonl")
            out[f"{name} predicted"] = [p.answer for it in items for p in it.predicted_evidence.pairs]
            out[f"{name} reference"] = [p.answer for it in items for p in it.reference_evidence.pairs]
    for split in ("train", "dev"):
        rows = json.loads((bl.DATA / "averitec" / f"{split}.json").read_text(encoding="utf-8"))
        out[f"AVeriTeC {split} answers"] = [a.get("answer") or "" for r in rows for q in r.get("questions", [])
                                            for a in q.get("answers", [])]
    out["CTKFacts dev evidence (cs)"] = list(dict.fromkeys(
        p for r in bl.read_jsonl(bl.DATA / "ctkfacts" / "ctkfacts_dev.jsonl") for p in r["evidence"].split("\n") if p.strip()))
    return out


def shuffled(answer: str, g: np.random.Generator) -> str:
    return " ".join(shuffle_sentence(s, g) for s in split_sentences(answer))


def summary(zs: list[tuple[float, int]]) -> dict:
    z = np.array([v for v, _ in zs]) if zs else np.zeros(0)
    words = np.array([w for _, w in zs]) if zs else np.zeros(0)
    row = {"judged": len(zs), "below": {name: float(np.mean([v < rule(w) for v, w in zs])) if zs else None
                                        for name, rule in RULES.items()}, "bins": {}}
    for lo, hi in BINS:
        sel = (words >= lo) & (words <= hi)
        flagged = np.array([v < salad_threshold(int(w)) for v, w in zip(z, words)], dtype=bool)
        row["bins"][f"{lo}-{hi if hi < 10 ** 9 else ''}"] = (int(sel.sum()), float(np.mean(flagged[sel])) if sel.any() else None)
    if len(z):
        row["z_quantiles"] = {f"q{int(q * 100):02d}": float(np.quantile(z, q)) for q in (0.01, 0.05, 0.5)}
    return row


def sentence_rules(answers: list[str]) -> dict:
    """Per :data:`SENTENCE_RULES`: the share of the words of real answers not salad as a whole that the rule
    would cut sentence by sentence, and the share of salad words behind the fluent lead it cuts (the answer
    judged salad as a whole counts as cut)."""
    g = np.random.default_rng(0)
    real = dict.fromkeys(SENTENCE_RULES, 0)
    salad = dict.fromkeys(SENTENCE_RULES, 0)
    real_words = salad_words = 0
    for a in dict.fromkeys(a for a in answers if a):
        j = judge(a)
        if not j.is_salad:
            for sen, r in zip(j.sentences, j.per_sentence):
                n = len(sen.split())
                real_words += n
                for k, rule in SENTENCE_RULES.items():
                    real[k] += n * (r is not None and rule(*r))
        s = shuffled(a, g)
        if s == a or salad_z(s) is None:
            continue
        jb = judge(f"{PROSE_LEAD} {s}")
        for sen, r in zip(jb.sentences, jb.per_sentence):
            if sen == PROSE_LEAD:
                continue
            n = len(sen.split())
            salad_words += n
            for k, rule in SENTENCE_RULES.items():
                salad[k] += n * (jb.is_salad or (r is not None and rule(*r)))
    return {k: {"real_words_cut": real[k] / max(real_words, 1), "salad_words_cut": salad[k] / max(salad_words, 1)}
            for k in SENTENCE_RULES}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(bl.RESULTS / "word_order"))
    args = ap.parse_args(argv)
    sets = answers_of_sets()
    result: dict = {}
    for name, answers in sets.items():
        g = np.random.default_rng(0)
        real, salad = [], []
        cut = {"answers": 0, "cut": 0, "words": 0, "words_cut": 0, "behind": 0, "behind_caught": 0,
               "salad_words": 0, "salad_words_left": 0, "clause_caught": 0, "clause_words_left": 0,
               "lines3_words_left": 0, "short5_words_left": 0}
        lead_words = len(PROSE_LEAD.split())
        clause_words = len(PROSE_CLAUSE.split())
        for a in dict.fromkeys(a for a in answers if a):
            z = salad_z(a)
            if z is not None:
                real.append(z)
            kept = strip_word_salad(a)
            cut["answers"] += 1
            cut["cut"] += kept is not a
            cut["words"] += len(a.split())
            cut["words_cut"] += len(a.split()) - len(kept.split())
            s = shuffled(a, g)
            if s != a:
                z2 = salad_z(s)
                if z2 is not None:
                    salad.append(z2)
                    left = strip_word_salad(f"{PROSE_LEAD} {s}")
                    n_left = max(len(left.split()) - lead_words, 0) if left.startswith(PROSE_LEAD) else len(left.split())
                    cut["behind"] += 1
                    cut["behind_caught"] += n_left == 0
                    cut["salad_words"] += len(s.split())
                    cut["salad_words_left"] += n_left
                    left = strip_word_salad(f"{PROSE_CLAUSE} {s}")
                    n_left = (max(len(left.split()) - clause_words, 0) if left.startswith(PROSE_CLAUSE.split()[0])
                              else len(left.split()))
                    cut["clause_caught"] += n_left == 0
                    cut["clause_words_left"] += n_left
                    words = [w.rstrip(".!?") or w for w in s.split()]
                    lines3 = "\n".join(" ".join(words[i:i + 3]) for i in range(0, len(words), 3))
                    cut["lines3_words_left"] += len(strip_word_salad(lines3).split())
                    short5 = " ".join(" ".join(words[i:i + 5]) + "." for i in range(0, len(words), 5))
                    left = strip_word_salad(f"{PROSE_LEAD} {short5}")
                    cut["short5_words_left"] += (max(len(left.split()) - lead_words, 0) if left.startswith(PROSE_LEAD)
                                                 else len(left.split()))
        result[name] = {"answers": len(answers), "real": summary(real), "shuffled": summary(salad), "strip": cut,
                        "sentence_rules": sentence_rules(answers)}
        print(name, result[name]["real"]["below"], result[name]["shuffled"]["below"], flush=True)
    info = {"command": bl.command(), "machine": bl.machine(), "rule": WORD_ORDER_RULE, "salad_z": SALAD_Z, "salad_z_per_root_word": SALAD_Z_PER_ROOT_WORD,
            "min_words": MIN_WORDS, "tables": available_languages(), "sets": result}
    lines = [f"# Word order: real answers and word salad ({WORD_ORDER_RULE})", "",
             f"Command: `{info['command']}`", "", f"Machine: {info['machine']}", "",
             f"Tables: {', '.join(info['tables'])} (`ev2r/facts/data/word_order_*.npz`, "
             "`scripts/build_word_order_table.py`; no AVeriTeC text in them). An answer is judged when a table covers "
             f"half its tokens and it has at least {MIN_WORDS} words in sentences of 4 or more (w: those words); word "
             "salad when z is below the rule's threshold (default `salad_threshold`: max(1, 0.4 sqrt w)).", "",
             "Share of judged answers called word salad by each rule (real answers: dropped as evidence, the cost; "
             "shuffled ones: word salad caught):", "",
             "| answers | distinct judged (real / shuffled) | " + " | ".join(f"real: {t}" for t in RULES) + " | "
             + " | ".join(f"shuffled: {t}" for t in RULES) + " |",
             "|---|---:|" + "---:|" * (2 * len(RULES))]
    for name, r in result.items():
        cells = [f"{100 * r[k]['below'][t]:.1f}%" if r[k]["below"][t] is not None else "--"
                 for k in ("real", "shuffled") for t in RULES]
        lines.append(f"| {name} | {r['real']['judged']} / {r['shuffled']['judged']} | " + " | ".join(cells) + " |")
    lines += ["", "By answer length (tested words), the default rule: judged answers, share below (real | shuffled):", "",
              "| answers | " + " | ".join(f"{b} words" for b in result[next(iter(result))]["real"]["bins"]) + " |",
              "|---|" + "---|" * len(BINS)]
    for name, r in result.items():
        cells = []
        for b in r["real"]["bins"]:
            (n1, s1), (n2, s2) = r["real"]["bins"][b], r["shuffled"]["bins"][b]
            f = (lambda n, s: f"{n}: {100 * s:.1f}%" if s is not None else f"{n}: --")
            cells.append(f"{f(n1, s1)} / {f(n2, s2)}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", f"Sentence by sentence and clause by clause ({WORD_ORDER_RULE}, `strip_word_salad`): what the rule cuts "
              "from real answers (an answer of salad, a sentence of salad in it, a salad opening or closing clause run: the "
              f"cost), and the shuffled answers behind the gaming suite's fluent lead (\"{PROSE_LEAD}\", "
              f"`shuffled_reference_behind_prose`) and its fluent clause (\"{PROSE_CLAUSE}\" in the salad's first sentence, "
              "`shuffled_reference_behind_clause`; the judged ones):", "",
              "| answers | distinct | real: answers cut | real: words cut | behind the lead | salad cut entirely | salad words left | "
              "behind the clause: salad cut entirely | salad words left | 3-word lines: salad words left | "
              "5-word sentences behind the lead: salad words left |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, r in result.items():
        c = r["strip"]
        pct = (lambda a, b: f"{100 * a / b:.1f}%" if b else "--")
        lines.append(f"| {name} | {c['answers']} | {pct(c['cut'], c['answers'])} | {pct(c['words_cut'], c['words'])} | "
                     f"{c['behind']} | {pct(c['behind_caught'], c['behind'])} | {pct(c['salad_words_left'], c['salad_words'])} | "
                     f"{pct(c['clause_caught'], c['behind'])} | {pct(c['clause_words_left'], c['salad_words'])} | "
                     f"{pct(c['lines3_words_left'], c['salad_words'])} | {pct(c['short5_words_left'], c['salad_words'])} |")
    lines += ["", "Rules for a sentence on its own (w: its tested words), each cell real words cut (of answers not salad "
              "as a whole) / salad words behind the lead cut:", "",
              "| answers | " + " | ".join(SENTENCE_RULES) + " |", "|---|" + "---:|" * len(SENTENCE_RULES)]
    for name, r in result.items():
        cells = [f"{100 * v['real_words_cut']:.1f}% / {100 * v['salad_words_cut']:.1f}%" for v in r["sentence_rules"].values()]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    bl.write(Path(args.out), "\n".join(lines) + "\n", info)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
