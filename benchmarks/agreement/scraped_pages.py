"""Answers that are scraped web pages: what rules-v2 makes of them, and what the
boilerplate test of :mod:`ev2r.facts.rules` changes, on both development rating sets.

    python benchmarks/agreement/scraped_pages.py \\
        --before 86=B86.jsonl --before 144=B144.jsonl --after 86=A86.jsonl --after 144=A144.jsonl \\
        --out benchmarks/results/scraped_pages

``--before`` / ``--after`` are ``ev2r score -o`` outputs of the rating files scored with the boilerplate
test off (``boilerplate=False`` of the rule decomposers, their output before the test) and on (the
default now); without them only the survey is written. The survey, per set: predicted answers longer than ``--min-chars`` characters, the rules-v2
facts they give, how many of those facts (and of all facts, both sides) the test calls boilerplate and by
which of its four tests. The table: Spearman (percentile bootstrap 95% CI, ``correlation.correlate``) of
recall, precision, F1, Ev2R, ev2r_hybrid and the graded precision / F1 with semantic coverage and of Ev2R and proxy with verdict
agreement, before and after, and the paired bootstrap CI of after - before on the same rows
(``correlation.paired_spearman_diff``). The two-set rule (README, Benchmarks): the test is turned on by
default only when it loses on neither set (a loss: after - before < -:data:`TIE` in any row).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import _benchlib as bl  # noqa: E402
from correlation import columns_from_score_rows, correlate, paired_spearman_diff, ratings_of  # noqa: E402

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "ev2r_human_eval"
SETS = {"86": DATA / "averitec_manual_eval_subset.jsonl", "144": DATA / "averitec_shared_task_dev.jsonl"}
ROWS = [(s, "semantic_coverage") for s in ("recall", "precision", "f1", "ev2r", "ev2r_hybrid", "graded_precision",
                                          "graded_f1")] + \
       [(s, "verdict_agreement") for s in ("ev2r", "proxy")]
#: a change of rho smaller than this is a tie (the score files differ in a row or two)
TIE = 0.005


def survey(items, min_chars: int) -> dict:
    """Counts for one rating file: long predicted answers and their facts, and the boilerplate units of
    every answer (both sides), under rules-v2 with the test off and on."""
    from ev2r.facts.declarative import qa_to_statements  # noqa: F401  (rules-v2's converter, loaded once)
    from ev2r.facts.rules import DeclarativeDecomposer, boilerplate_reason, split_sentences

    off, on = DeclarativeDecomposer(boilerplate=False), DeclarativeDecomposer(boilerplate=True)
    out = {"rows": len(items), "predicted_answers": 0, "long_answers": 0, "long_answer_rows": [],
           "facts_from_long_off": 0, "facts_from_long_on": 0, "long_with_boilerplate": 0,
           "predicted_facts_off": 0, "predicted_facts_on": 0, "reference_facts_off": 0, "reference_facts_on": 0,
           "boilerplate_units": Counter(), "examples": []}
    for it in items:
        for side, ev in (("predicted", it.predicted_evidence), ("reference", it.reference_evidence)):
            f_off, f_on = off.decompose(ev), on.decompose(ev)
            out[f"{side}_facts_off"] += len(f_off)
            out[f"{side}_facts_on"] += len(f_on)
            for k, pair in enumerate(ev.pairs):
                reasons = [r for u in split_sentences(pair.answer) if (r := boilerplate_reason(u))]
                out["boilerplate_units"].update(f"{side}:{r}" for r in reasons)
                if reasons and len(out["examples"]) < 6:
                    out["examples"].append({"row": it.row, "side": side, "pair": k, "chars": len(pair.answer),
                                            "reasons": reasons, "start": pair.answer[:100]})
                if side != "predicted":
                    continue
                out["predicted_answers"] += 1
                if len(pair.answer) > min_chars:
                    out["long_answers"] += 1
                    out["long_answer_rows"].append(it.row)
                    out["facts_from_long_off"] += sum(f.pair_index == k for f in f_off)
                    out["facts_from_long_on"] += sum(f.pair_index == k for f in f_on)
                    out["long_with_boilerplate"] += bool(reasons)
    out["long_answer_rows"] = sorted(set(out["long_answer_rows"]))
    out["boilerplate_units"] = dict(sorted(out["boilerplate_units"].items()))
    return out


def compare(items, before_rows, after_rows, names, n_boot: int, seed: int) -> dict:
    """Before/after Spearman with CIs and the paired difference for each (score, rating) of :data:`ROWS`,
    and the rows whose scores changed."""
    ratings = ratings_of(items)
    before, _ = columns_from_score_rows(before_rows, items, names[0])
    after, _ = columns_from_score_rows(after_rows, items, names[1])
    cells = {}
    for score, rating in ROWS:
        if score not in before or score not in after or rating not in ratings:
            continue
        y = ratings[rating]
        cells[f"{score}/{rating}"] = {
            "before": correlate(before[score], y, n_boot=n_boot, seed=seed),
            "after": correlate(after[score], y, n_boot=n_boot, seed=seed),
            "diff": paired_spearman_diff(after[score], before[score], y, n_boot=n_boot, seed=seed)}
    changed = sorted({n for k in before if k in after for n, (a, b) in enumerate(zip(before[k], after[k]))
                      if a != b})
    return {"cells": cells, "changed_rows": changed}


def verdict(results: dict) -> tuple[str, list[str]]:
    """``("on" | "off", reasons)``: off when any (score, rating) of any set has after - before < -TIE."""
    losses = [f"{name}: {cell} {c['diff']['diff']:+.3f}" for name, r in results.items()
              for cell, c in r["cells"].items() if c["diff"]["diff"] is not None and c["diff"]["diff"] < -TIE]
    return ("off" if losses else "on"), losses


def _rho(c: dict) -> str:
    ci = c.get("spearman_ci95")
    return "–" if c["spearman"] is None else f"{c['spearman']:+.3f}" + (f" [{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else "")


def markdown(info: dict) -> str:
    m = info["machine"]
    lines = ["# Scraped web pages as answers: the boilerplate test", "",
             f"Command: `{info['command']}`", "",
             f"Machine: {m['platform']}, {m['cpu_count']} CPUs, Python {m['python']}, {m['utc']}, 1-min load "
             f"average {m['load_average_1m']}.", "",
             "Score files: `ev2r score FILE -o OUT.jsonl --no-progress` (bundled verifier, default settings) with "
             "the rule decomposers' `boilerplate` option off (before) and on (after).", "",
             "## Survey (rules-v2)", "",
             "| set | rows | predicted answers | > %d chars | their facts (off → on) | long answers with a boilerplate "
             "unit | predicted facts (off → on) | reference facts (off → on) | boilerplate units by test |"
             % info["min_chars"], "|---|---|---|---|---|---|---|---|---|"]
    for name, s in info["survey"].items():
        units = ", ".join(f"{k} {v}" for k, v in s["boilerplate_units"].items()) or "none"
        lines.append(f"| {name} | {s['rows']} | {s['predicted_answers']} | {s['long_answers']} | "
                     f"{s['facts_from_long_off']} → {s['facts_from_long_on']} | {s['long_with_boilerplate']} | "
                     f"{s['predicted_facts_off']} → {s['predicted_facts_on']} | "
                     f"{s['reference_facts_off']} → {s['reference_facts_on']} | {units} |")
    lines += ["", "Boilerplate answers found:", ""]
    for name, s in info["survey"].items():
        for e in s["examples"]:
            lines.append(f"* {name} row {e['row']} {e['side']} pair {e['pair']} ({e['chars']} chars, "
                         f"{', '.join(e['reasons'])}): `{e['start']}...`")
    if info.get("results"):
        lines += ["", "## Spearman before / after, paired bootstrap of after - before", "",
                  "| score / rating | set | before | after | after - before [95% CI] |", "|---|---|---|---|---|"]
        for cell in dict.fromkeys(c for r in info["results"].values() for c in r["cells"]):
            for name, r in info["results"].items():
                c = r["cells"].get(cell)
                if c is None:
                    continue
                d = c["diff"]
                dci = f" [{d['ci95'][0]:+.3f}, {d['ci95'][1]:+.3f}]" if d.get("ci95") else ""
                dtxt = "–" if d["diff"] is None else f"{d['diff']:+.3f}{dci}"
                lines.append(f"| {cell} | {name} | {_rho(c['before'])} | {_rho(c['after'])} | {dtxt} |")
        lines += [""] + [f"Rows whose scores changed, {name}: {r['changed_rows'] or 'none'}."
                         for name, r in info["results"].items()]
        lines += ["", f"**Decision: the test is {info['verdict']} by default** "
                      f"(two-set rule; a loss is after - before < -{TIE} on any row of either set"
                  + (": " + "; ".join(info["losses"]) if info["losses"] else ": none") + ")."]
    if info.get("note"):
        lines += ["", info["note"]]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", action="append", default=None, metavar="NAME=PATH",
                    help="rating file (default: the two development sets, named 86 and 144)")
    ap.add_argument("--before", action="append", default=[], metavar="NAME=PATH", help="scores, test off")
    ap.add_argument("--after", action="append", default=[], metavar="NAME=PATH", help="scores, test on")
    ap.add_argument("--min-chars", type=int, default=800, help="a long answer has more characters than this")
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--note", default=None, help="a paragraph added to the table")
    ap.add_argument("--out", default=None, help="write OUT.md and OUT.json")
    args = ap.parse_args(argv)

    from ev2r.io.readers import read_items

    files = dict(bl.parse_named(s, "--data") for s in args.data) if args.data else {k: str(v) for k, v in SETS.items()}
    before = dict(bl.parse_named(s, "--before") for s in args.before)
    after = dict(bl.parse_named(s, "--after") for s in args.after)
    for opt, given in (("--before", before), ("--after", after)):
        unknown = [n for n in given if n not in files]
        if unknown:
            ap.error(f"{opt}: no --data file is named {unknown} (names: {list(files)})")
    if set(before) != set(after):
        ap.error(f"--before names {sorted(before)} and --after names {sorted(after)} must be the same sets")
    info: dict = {"command": bl.command(), "machine": bl.machine(), "min_chars": args.min_chars, "survey": {},
                  "results": {}, "note": args.note}
    for name, path in files.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # layout notes of the reader: reported by `ev2r score`, not here
            items = read_items(path)
        info["survey"][name] = survey(items, args.min_chars)
        if name in before:
            info["results"][name] = compare(items, bl.read_jsonl(before[name]), bl.read_jsonl(after[name]),
                                            (before[name], after[name]), args.n_boot, args.seed)
    if info["results"]:
        info["verdict"], info["losses"] = verdict(info["results"])
    md = markdown(info)
    print(md)
    if args.out:
        bl.write(Path(args.out), md, info)
    return 0


if __name__ == "__main__":
    sys.exit(main())
