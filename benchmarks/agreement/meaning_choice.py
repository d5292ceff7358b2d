"""Choose among definitions that read meaning with the verifier, by the rule declared before measuring.

Each candidate is a folder made by scoring with one set of ``ev2r score`` options (``benchmarks/agreement/meaning_choice.sh``):

* ``blind/edits_blind.json``: the blind two-sided edit benchmark (``benchmarks/robustness/edits_blind.py``);
* ``oos/out_of_system.json``: the out-of-system table of its own score rows (``benchmarks/agreement/out_of_system.py``);
* ``gaming_86/report.json``, ``gaming_144/report.json`` (optional): the CI gaming gate, 30 rows of each set.

The rule (declared in ``benchmarks/results/meaning_choice.md`` before any candidate was scored on ratings): a
candidate replaces the first (the shipped definition) only if (1) on ev2r and ev2r_hybrid the blind share of meaning
changes within 10% falls and the share of preserving edits moved more than 10% rises by at most 5 points; (2) the
``ev2r-hybrid/4 refit, remade per fold`` row's mean over the four out-of-system cells is at least the first's, no cell
more than 0.02 below; (3) its gaming gate has no violated gated check.

    python benchmarks/agreement/meaning_choice.py C0=/tmp/ev/C0 C1=/tmp/ev/C1 C3=/tmp/ev/C3 [--out PREFIX] [--decision FILE.md]

Writes ``<out>.md`` and ``<out>.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402

REFIT = "ev2r-hybrid/4 refit, remade per fold"
SHOWN = ("ev2r (paper, alpha 0.5)", "hu_meteor (AVeriTeC baseline)", "verified_meteor", "mean(ev2r, verified_meteor)",
         "ev2r-hybrid/4 as shipped (fitted on all 8)", REFIT)
CELLS = ("86/semantic_coverage", "86/verdict_agreement", "144/semantic_coverage", "144/verdict_agreement")
TARGETED = ("ev2r", "ev2r_hybrid")
MAX_PRESERVING_RISE = 0.05
MAX_CELL_LOSS = 0.02


def load(folder: Path) -> dict:
    """A candidate's measurements (blind table rows by (side, family), out-of-system summary, gaming gates)."""
    blind = json.loads((folder / "blind" / "edits_blind.json").read_text(encoding="utf-8"))
    oos = json.loads((folder / "oos" / "out_of_system.json").read_text(encoding="utf-8"))
    gaming = {}
    for s in ("86", "144"):
        f = folder / f"gaming_{s}" / "report.json"
        if f.exists():
            g = json.loads(f.read_text(encoding="utf-8"))
            gaming[s] = {"status": g.get("gate_status"), "violations": len(g.get("violations") or [])}
    return {"signature": blind["meta"].get("short_signature") or blind["meta"].get("signature"),
            "blind": {(r["side"], r["family"]): r for r in blind["table"]}, "oos": oos["summary"], "gaming": gaming}


def blind_total(c: dict, side: str, col: str) -> float:
    return c["blind"][(side, f"all {side}")][col]["share"]


def oos_mean(c: dict, name: str = REFIT) -> float:
    return sum(c["oos"][name][f"oos/{cell}"] for cell in CELLS) / len(CELLS)


def verdict(first: dict, c: dict) -> dict:
    """The declared rule's three conditions for candidate ``c`` against ``first``."""
    blind_ok = all(blind_total(c, "changing", col) < blind_total(first, "changing", col)
                   and blind_total(c, "preserving", col) <= blind_total(first, "preserving", col) + MAX_PRESERVING_RISE
                   for col in TARGETED)
    losses = {cell: c["oos"][REFIT][f"oos/{cell}"] - first["oos"][REFIT][f"oos/{cell}"] for cell in CELLS}
    oos_ok = oos_mean(c) >= oos_mean(first) and min(losses.values()) >= -MAX_CELL_LOSS
    gaming_ok = (None if not c["gaming"] else
                 all(g["status"] == "passed" and g["violations"] == 0 for g in c["gaming"].values()))
    return {"blind": blind_ok, "out_of_system": oos_ok, "gaming": gaming_ok, "cell_changes": losses,
            "qualifies": bool(blind_ok and oos_ok and gaming_ok)}


def render(names: list[str], cands: dict, verdicts: dict, info: dict) -> str:
    lines = ["# Reading meaning with the verifier: the choice among candidate definitions", "",
             f"Command: `{info['command']}`", "",
             "Machine: {platform}, {cpu_count} CPUs, torch {torch}, {utc}".format(**info["machine"]), "",
             "Each candidate's rows were scored by the commands in `benchmarks/agreement/meaning_choice.sh`; the rule was declared "
             "before any candidate was scored on ratings (module docstring).", ""]
    lines += ["| candidate | signature |", "|---|---|"]
    lines += [f"| {n} | `{cands[n]['signature']}` |" for n in names]
    lines += ["", "## Blind edits (item level; lower is better)", "",
              "| candidate | changing within 10%: ev2r | ev2r_hybrid | preserving moved >10%: ev2r | ev2r_hybrid |",
              "|---|---|---|---|---|"]
    for n in names:
        c = cands[n]
        lines.append(f"| {n} | {blind_total(c, 'changing', 'ev2r'):.2f} | {blind_total(c, 'changing', 'ev2r_hybrid'):.2f} "
                     f"| {blind_total(c, 'preserving', 'ev2r'):.2f} | {blind_total(c, 'preserving', 'ev2r_hybrid'):.2f} |")
    fams = [k for k in cands[names[0]]["blind"] if not k[1].startswith("all ")]
    lines += ["", "Per family, ev2r_hybrid (changing: share within 10%; preserving: share moved more than 10%):", "",
              "| side | family | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    for side, fam in fams:
        lines.append(f"| {side} | {fam} | " + " | ".join(
            f"{cands[n]['blind'][(side, fam)]['ev2r_hybrid']['share']:.2f}" for n in names) + " |")
    lines += ["", "## Out of system (Spearman; each row scored by the choice made without its system)", "",
              "| candidate | score | 86 cov | 86 ver | 144 cov | 144 ver | mean |", "|---|---|---|---|---|---|---|"]
    for n in names:
        for s in SHOWN:
            row = cands[n]["oos"][s]
            lines.append(f"| {n} | {s} | " + " | ".join(f"{row[f'oos/{cell}']:+.3f}" for cell in CELLS)
                         + f" | {oos_mean(cands[n], s):+.3f} |")
    lines += ["", "## The declared rule", "", "| candidate | blind | out of system | gaming gate | qualifies |",
              "|---|---|---|---|---|"]
    for n in names[1:]:
        v = verdicts[n]
        lines.append(f"| {n} | {v['blind']} | {v['out_of_system']} (cells: "
                     + ", ".join(f"{k} {d:+.3f}" for k, d in v["cell_changes"].items())
                     + f") | {v['gaming'] if v['gaming'] is not None else 'not run'} | {v['qualifies']} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("candidates", nargs="+", metavar="NAME=DIR", help="the shipped definition first")
    ap.add_argument("--out", default=str(bl.RESULTS / "meaning_choice"))
    ap.add_argument("--decision", default=None, metavar="FILE.md",
                    help="a Markdown file saying what the release did with the result (pasted at the end)")
    a = ap.parse_args(argv)
    pairs = [c.split("=", 1) for c in a.candidates]
    if any(len(p) != 2 for p in pairs) or len(pairs) < 2:
        ap.error("candidates: give at least two NAME=DIR, the shipped definition first")
    names = [n for n, _ in pairs]
    cands = {n: load(Path(d)) for n, d in pairs}
    verdicts = {n: verdict(cands[names[0]], cands[n]) for n in names[1:]}
    info = {"command": bl.command(), "machine": bl.machine()}
    md = render(names, cands, verdicts, info)
    if a.decision:
        md += "\n## Decision\n\n" + Path(a.decision).read_text(encoding="utf-8").strip() + "\n"
    data = {"info": info, "verdicts": verdicts,
            "candidates": {n: {"signature": c["signature"], "gaming": c["gaming"],
                               "oos": {s: {cell: c["oos"][s][f"oos/{cell}"] for cell in CELLS} for s in SHOWN},
                               "blind": {f"{k[0]}/{k[1]}": {col: v[col]["share"] for col in TARGETED}
                                         for k, v in c["blind"].items()}} for n, c in cands.items()}}
    bl.write(Path(a.out), md, data)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
