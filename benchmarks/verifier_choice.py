"""Choosing a verifier on the ratings, out of system (issue 63, round 9): one per-item column (``ev2r``) scored under
each variant of a declared family, the variant chosen without each rated system and scored on it.

    python benchmarks/verifier_choice.py --variant bundled=/tmp/ev/C14 --variant edits7=/tmp/ev/C13 \
        --variant edits2=/tmp/ev/C16 --variant averitec=/tmp/ev/C17 --baseline ev2r/4=/tmp/ev/C0 \
        --out benchmarks/results/meaning_choice_rounds/C18_verifier_choice

Each ``--variant NAME=DIR`` (and ``--baseline``) is a folder of ``ev2r score -o`` rows of both development rating
sets, ``DIR/S86.jsonl`` and ``DIR/S144.jsonl``, scored with ``--scorer ev2r --scorer hu-meteor --hybrid-columns
all`` (``benchmarks/meaning_choice.sh`` writes them). The protocol is ``../shared/design/OUT_OF_SAMPLE.md``:

* **the choice inside a fold** (the same rule on any set of systems): the variant that maximises the smaller, over
  the two ratings (semantic coverage, verdict agreement), of the mean over the training files of the column's
  Spearman on that file's training rows (``benchmarks/out_of_system.py``'s ``maximin`` rule; the files are kept
  apart, their annotation differs); ties go to the first variant given;
* **the loop**: for each of the 8 rated systems (the 86 rows' AVeriTeC baseline, the 7 teams of the 144 rows), the
  choice is made on the other 7 and scores that system's rows (the 86 rows' fold trains on the 144 only);
* **reported**: the pooled out-of-system Spearman per file and rating, the mean of the 7 within-team Spearmans, the
  in-sample choice (made on all 8) and its figures, each fold's choice, and the paired bootstrap (rows resampled
  within a file, 2,000, seed 0) of the out-of-system Spearman minus the baseline's on the same rows.

Writes ``--out`` ``.md`` and ``.json`` with the command and the machine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _benchlib as bl  # noqa: E402
from out_of_system import (BASELINE_SYSTEM, DEFAULT_RATINGS, FILES, N_BOOT, RATINGS, SEED, load_file,  # noqa: E402
                           rho)

CELLS = [(f, q) for f in ("86", "144") for q in RATINGS]


def load_variant(folder: Path) -> dict:
    """Both rating files of one variant (``out_of_system.load_file``), keyed "86" / "144"."""
    return {"86": load_file(str(folder / "S86.jsonl"), DEFAULT_RATINGS["86"], lambda h: BASELINE_SYSTEM),
            "144": load_file(str(folder / "S144.jsonl"), DEFAULT_RATINGS["144"], lambda h: str(h.get("team")))}


def check_rows(variants: dict) -> None:
    """Every variant must keep the same rows in the same order (systems and ratings equal).

    Raises:
        SystemExit: naming the first variant and file that differ."""
    first_name, first = next(iter(variants.items()))
    for name, v in variants.items():
        for f in FILES:
            if (len(v[f]["system"]) != len(first[f]["system"]) or (v[f]["system"] != first[f]["system"]).any()
                    or any((v[f]["ratings"][q] != first[f]["ratings"][q]).any() for q in RATINGS)):
                raise SystemExit(f"--variant {name}: the {f}-row file keeps other rows than --variant {first_name} "
                                 "(score every variant on the whole rating files)")


def choose(variants: dict, column: str, masks: dict) -> str:
    """The variant the maximin rule chooses on the rows ``masks`` ({file: bool (n,)}) keep (module docstring)."""
    best, best_obj = None, -np.inf
    for name, v in variants.items():
        per_q = []
        for q in RATINGS:
            vals = [rho(v[f]["cols"][column][masks[f]], v[f]["ratings"][q][masks[f]]) for f in FILES if masks[f].any()]
            vals = [x for x in vals if x is not None]
            per_q.append(np.mean(vals) if vals else -np.inf)
        obj = min(per_q)
        if obj > best_obj + 1e-12:
            best, best_obj = name, obj
    return best if best is not None else next(iter(variants))


def run(variants: dict, column: str) -> dict:
    """The loop: per-system choices, the out-of-system score vectors and the in-sample choice."""
    ref = next(iter(variants.values()))
    oos = {f: np.full(len(ref[f]["system"]), np.nan) for f in FILES}
    folds = {}
    for f in FILES:
        for s in sorted(set(ref[f]["system"])):
            masks = {h: (ref[h]["system"] != s) if h == f else np.ones(len(ref[h]["system"]), dtype=bool)
                     for h in FILES}
            pick = choose(variants, column, masks)
            folds[s] = pick
            held = ref[f]["system"] == s
            oos[f][held] = variants[pick][f]["cols"][column][held]
    all_masks = {h: np.ones(len(ref[h]["system"]), dtype=bool) for h in FILES}
    return {"oos": oos, "folds": folds, "in_sample": choose(variants, column, all_masks)}


def cells(scores: dict, ref: dict) -> dict:
    """Pooled Spearman per file and rating, plus the mean within-team Spearman (144 rows) per rating."""
    out = {f"{f}/{q}": rho(scores[f], ref[f]["ratings"][q]) for f, q in CELLS}
    for q in RATINGS:
        sys_ = ref["144"]["system"]
        w = [rho(scores["144"][sys_ == s], ref["144"]["ratings"][q][sys_ == s]) for s in sorted(set(sys_))]
        w = [x for x in w if x is not None]
        out[f"within144/{q}"] = float(np.mean(w)) if w else None
    return out


def bootstrap(a: dict, b: dict, ref: dict) -> dict:
    """Paired bootstrap of Spearman(a) - Spearman(b) per cell: the difference and its 95% percentile interval."""
    rng = np.random.default_rng(SEED)
    out = {}
    for f in FILES:
        n = len(ref[f]["system"])
        idx = rng.integers(0, n, size=(N_BOOT, n))
        for q in RATINGS:
            y = ref[f]["ratings"][q]
            d = [x1 - x2 for i in idx for x1, x2 in [(rho(a[f][i], y[i]), rho(b[f][i], y[i]))]
                 if x1 is not None and x2 is not None]
            out[f"{f}/{q}"] = {"diff": rho(a[f], y) - rho(b[f], y),
                               "ci95": [float(np.percentile(d, 2.5)), float(np.percentile(d, 97.5))]}
    return out


def render(variants: dict, baseline: tuple, column: str, res: dict) -> tuple[str, dict]:
    """The Markdown table and the JSON record."""
    ref = next(iter(variants.values()))
    bname, bdata = baseline
    rows = {f"{n} (fixed)": cells({f: v[f]["cols"][column] for f in FILES}, ref) for n, v in variants.items()}
    rows[f"{bname} (baseline)"] = cells({f: bdata[f]["cols"][column] for f in FILES}, ref)
    rows["chosen per fold (out of system)"] = cells(res["oos"], ref)
    boot = bootstrap(res["oos"], {f: bdata[f]["cols"][column] for f in FILES}, ref)
    m = bl.machine()
    head = ["cov 86", "ver 86", "cov 144", "ver 144", "mean of 4", "within-team cov / ver (144)"]
    lines = [f"# `{column}` with its verifier chosen out of system (issue 63)\n",
             f"Command: `{bl.command()}`  ", f"Machine: {m['platform']}, {m['cpu_count']} CPUs, {m['utc']}\n",
             "Protocol: `benchmarks/verifier_choice.py`'s docstring (maximin over the two ratings of the mean over the "
             "training files' Spearman; each of the 8 rated systems scored by the variant chosen without it).\n",
             "| variant | " + " | ".join(head) + " |", "|---|" + "---:|" * len(head)]
    for name, c in rows.items():
        vals = [c[f"{f}/{q}"] for f, q in CELLS]
        mean = float(np.mean(vals)) if None not in vals else None
        lines.append(f"| {name} | " + " | ".join(f"{x:+.4f}" for x in vals) + f" | {mean:+.4f} | "
                     f"{c['within144/semantic_coverage']:+.3f} / {c['within144/verdict_agreement']:+.3f} |")
        c["mean4"] = mean
    lines += ["", "Each fold's choice (the system left out -> the variant chosen on the other 7): "
              + "; ".join(f"{s}: {p}" for s, p in res["folds"].items()) + ".  ",
              f"Chosen on all 8 systems (the candidate): **{res['in_sample']}**.\n",
              f"Out of system minus `{bname}`, paired bootstrap (rows resampled within a file, {N_BOOT}, seed {SEED}):\n",
              "| cell | difference | 95% interval |", "|---|---:|---|"]
    for f, q in CELLS:
        b = boot[f"{f}/{q}"]
        lines.append(f"| {f} rows, {q} | {b['diff']:+.4f} | [{b['ci95'][0]:+.3f}, {b['ci95'][1]:+.3f}] |")
    data = {"command": bl.command(), "machine": m, "column": column, "variants": list(variants),
            "baseline": bname, "folds": res["folds"], "in_sample": res["in_sample"], "rows": rows,
            "bootstrap": boot}
    return "\n".join(lines) + "\n", data


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", action="append", required=True, metavar="NAME=DIR",
                    help="a family member: DIR/S86.jsonl and DIR/S144.jsonl (order = tie order)")
    ap.add_argument("--baseline", required=True, metavar="NAME=DIR", help="the score compared against (no choice)")
    ap.add_argument("--column", default="ev2r", help="the per-item column chosen on (default: ev2r)")
    ap.add_argument("--out", default=str(bl.RESULTS / "verifier_choice"))
    a = ap.parse_args(argv)

    def pair(s: str, opt: str) -> tuple[str, Path]:
        if "=" not in s:
            raise SystemExit(f"{opt} {s!r}: expected NAME=DIR")
        n, d = s.split("=", 1)
        return n, Path(d)

    variants = {n: load_variant(d) for n, d in (pair(s, "--variant") for s in a.variant)}
    bname, bdir = pair(a.baseline, "--baseline")
    baseline = load_variant(bdir)
    check_rows({**variants, bname: baseline})
    res = run(variants, a.column)
    md, data = render(variants, (bname, baseline), a.column, res)
    bl.write(Path(a.out), md, data)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
