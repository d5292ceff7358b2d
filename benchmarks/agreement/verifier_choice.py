"""Choosing a verifier on the ratings, out of system (round 9 of ``benchmarks/results/meaning_choice_decision.md``):
one per-item column (``ev2r``) scored under each variant of a declared family, the variant chosen without each rated
system and scored on it.

    python benchmarks/agreement/verifier_choice.py --variant bundled=/tmp/ev/C14 --variant edits7=/tmp/ev/C13 \
        --variant edits2=/tmp/ev/C16 --variant averitec=/tmp/ev/C17 --baseline ev2r/4=/tmp/ev/C0 \
        --out benchmarks/results/history/meaning_choice_rounds/C18_verifier_choice

Each ``--variant NAME=DIR`` (and ``--baseline``) is a folder of ``ev2r score -o`` rows of both development rating
sets, ``DIR/S86.jsonl`` and ``DIR/S144.jsonl``, scored with ``--scorer ev2r --scorer hu-meteor`` and every component
column (``benchmarks/agreement/score_with.py hybrid_columns=all``; ``benchmarks/agreement/meaning_choice.sh`` writes
them). The protocol is ``../shared/design/OUT_OF_SAMPLE.md``:

* **the choice inside a fold** (the same rule on any set of systems): the variant that maximises the smaller, over
  the two ratings (semantic coverage, verdict agreement), of the mean over the training files of the column's
  Spearman on that file's training rows (``benchmarks/agreement/out_of_system.py``'s ``maximin`` rule; the files are kept
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
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402
from out_of_system import BASELINE_SYSTEM, DEFAULT_RATINGS, FILES, N_BOOT, RATINGS, SEED, _f, rho  # noqa: E402

CELLS = [(f, q) for f in ("86", "144") for q in RATINGS]


def _rows(path: Path, opt: str) -> dict:
    """The ``ev2r score -o`` rows of ``path`` keyed by ``row``.

    Raises:
        SystemExit: the file is missing or unreadable, or a line is not a JSON object with a ``row`` (named)."""
    if not path.is_file():
        raise SystemExit(f"{opt}: no file {path} (a variant folder holds S86.jsonl and S144.jsonl, ev2r score -o of "
                         "both rating files)")
    out = {}
    for n, r in enumerate(bl.read_jsonl(path, opt), 1):
        if "row" not in r:
            raise SystemExit(f"{opt}: {path}, row {n}: not a row of ev2r score -o (no 'row')")
        out[r["row"]] = r
    return out


def load_family(folders: dict, column: str) -> tuple[dict, dict]:
    """Every variant's ``column`` on the rows of both rating files that every variant scored (status ok, the column
    present): ``({name: {"86"/"144": {"cols": {column: (n,)}, "ratings": {rating: (n,)}, "system": (n,)}}},
    {file: {reason: rows left out}})``. ``folders``: name -> (folder, option that named it).

    Raises:
        SystemExit: a missing or unreadable file, a rating row no score file has, or no row left (named)."""
    ratings = {f: [json.loads(x) for x in Path(DEFAULT_RATINGS[f]).read_text(encoding="utf-8").splitlines() if x.strip()]
               for f in FILES}
    scores = {n: {f: _rows(d / f"S{f}.jsonl", opt) for f in FILES} for n, (d, opt) in folders.items()}
    family, left_out = {n: {} for n in folders}, {}
    for f in FILES:
        keep, why = [], {}
        for i, h in enumerate(ratings[f]):
            hr = h.get("human_ratings") or {}
            reason = next((f"rating {q} missing" for q in RATINGS if hr.get(q) is None), None)
            for n, (d, opt) in folders.items():
                r = scores[n][f].get(i)
                if r is None:
                    raise SystemExit(f"{opt}: {d / f'S{f}.jsonl'} has no row {i} of {DEFAULT_RATINGS[f]} (score the whole "
                                     "rating file)")
                if h.get("id") is not None and str(r.get("id")) != str(h.get("id")):
                    raise SystemExit(f"{opt}: {d / f'S{f}.jsonl'} row {i} has id {r.get('id')!r}, the rating file "
                                     f"{h.get('id')!r}")
                if reason is None and r.get("status") != "ok":
                    reason = f"status {r.get('status')} ({n})"
                elif reason is None and not isinstance(r.get(column), (int, float)):
                    reason = f"no {column} ({n})"
            if reason is None:
                keep.append(i)
            else:
                why[reason] = why.get(reason, 0) + 1
        if not keep:
            raise SystemExit(f"--column {column}: no row of the {f}-row file has it in every variant (left out: {why}); "
                             "score with benchmarks/agreement/score_with.py hybrid_columns=all -- ... --scorer ev2r, "
                             "or name a column the rows hold")
        left_out[f] = why
        system = np.array([BASELINE_SYSTEM if f == "86" else str(ratings[f][i].get("team")) for i in keep])
        rat = {q: np.array([float(ratings[f][i]["human_ratings"][q]) for i in keep]) for q in RATINGS}
        for n in folders:
            family[n][f] = {"cols": {column: np.array([float(scores[n][f][i][column]) for i in keep])},
                            "ratings": rat, "system": system}
    return family, left_out


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
            r1, r2 = rho(a[f], y), rho(b[f], y)
            out[f"{f}/{q}"] = {"diff": None if r1 is None or r2 is None else r1 - r2,
                               "ci95": [float(np.percentile(d, 2.5)), float(np.percentile(d, 97.5))] if d else None}
    return out


def render(variants: dict, baseline: tuple, column: str, res: dict, left_out: dict) -> tuple[str, dict]:
    """The Markdown table and the JSON record."""
    ref = next(iter(variants.values()))
    bname, bdata = baseline
    rows = {f"{n} (fixed)": cells({f: v[f]["cols"][column] for f in FILES}, ref) for n, v in variants.items()}
    rows[f"{bname} (baseline)"] = cells({f: bdata[f]["cols"][column] for f in FILES}, ref)
    rows["chosen per fold (out of system)"] = cells(res["oos"], ref)
    boot = bootstrap(res["oos"], {f: bdata[f]["cols"][column] for f in FILES}, ref)
    m = bl.machine()
    head = ["cov 86", "ver 86", "cov 144", "ver 144", "mean of 4", "within-team cov / ver (144)"]
    lines = [f"# `{column}` with its verifier chosen out of system\n",
             f"Command: `{bl.command()}`  ", f"Machine: {m['platform']}, {m['cpu_count']} CPUs, {m['utc']}\n",
             "Protocol: `benchmarks/agreement/verifier_choice.py`'s docstring (maximin over the two ratings of the mean over the "
             "training files' Spearman; each of the 8 rated systems scored by the variant chosen without it).\n",
             "Rows used: " + "; ".join(f"{f} file {len(ref[f]['system'])}" + (f" (left out: {left_out[f]})"
                                                                          if left_out.get(f) else "")
                                      for f in FILES) + ".\n",
             "| variant | " + " | ".join(head) + " |", "|---|" + "---:|" * len(head)]
    for name, c in rows.items():
        vals = [c[f"{f}/{q}"] for f, q in CELLS]
        mean = float(np.mean(vals)) if None not in vals else None
        lines.append(f"| {name} | " + " | ".join(_f(x, 4) for x in vals) + f" | {_f(mean, 4)} | "
                     f"{_f(c['within144/semantic_coverage'])} / {_f(c['within144/verdict_agreement'])} |")
        c["mean4"] = mean
    lines += ["", "Each fold's choice (the system left out -> the variant chosen on the other 7): "
              + "; ".join(f"{s}: {p}" for s, p in res["folds"].items()) + ".  ",
              f"Chosen on all 8 systems (the candidate): **{res['in_sample']}**.\n",
              f"Out of system minus `{bname}`, paired bootstrap (rows resampled within a file, {N_BOOT}, seed {SEED}):\n",
              "| cell | difference | 95% interval |", "|---|---:|---|"]
    for f, q in CELLS:
        b = boot[f"{f}/{q}"]
        ci = "n/a" if b["ci95"] is None else f"[{b['ci95'][0]:+.3f}, {b['ci95'][1]:+.3f}]"
        lines.append(f"| {f} rows, {q} | {_f(b['diff'], 4)} | {ci} |")
    data = {"command": bl.command(), "machine": m, "column": column, "variants": list(variants),
            "baseline": bname, "left_out": left_out, "folds": res["folds"], "in_sample": res["in_sample"], "rows": rows,
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

    def pair(s: str, opt: str) -> tuple[str, tuple[Path, str]]:
        n, sep, d = s.partition("=")
        if not sep or not n.strip() or not d.strip():
            raise SystemExit(f"{opt} {s!r}: expected NAME=DIR (a name and a folder)")
        return n.strip(), (Path(d), f"{opt} {n.strip()}")

    folders: dict = {}
    for s_ in a.variant:
        n, v = pair(s_, "--variant")
        if n in folders:
            raise SystemExit(f"--variant {n}: named twice (each variant needs its own name)")
        folders[n] = v
    bname, bv = pair(a.baseline, "--baseline")
    if bname in folders:
        raise SystemExit(f"--baseline {bname}: also a --variant's name (give the baseline its own name)")
    if len(folders) < 2:
        raise SystemExit("--variant: give at least two variants (a family of one chooses nothing)")
    family, left_out = load_family({**folders, bname: bv}, a.column)
    baseline = family.pop(bname)
    variants = family
    res = run(variants, a.column)
    md, data = render(variants, (bname, baseline), a.column, res, left_out)
    bl.write(Path(a.out), md, data)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
