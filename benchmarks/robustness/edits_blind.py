"""Blind two-sided edit benchmark: does a score see a changed meaning and ignore a changed spelling?

Data: benchmarks/data/edits_blind/edits_blind.jsonl (made by make_edits.py beside it, written without reading the
implementation or the handed families). 28 AVeriTeC dev claims; for each, a base item whose predicted evidence is
the claim's gold question/answer pairs (the gold as the prediction), and edited items: the same with ONE predicted
answer edited once, in a family that keeps the meaning (`preserving`: typos, synonyms in context, contractions,
number formats, dropped articles/stopwords, clauses reordered, active/passive voice) or changes it (`changing`:
antonyms in context, another entity, another number or date, another unit or scale, a flipped sign, negation with
and without "not", a hedge, subject and object swapped, a yes/no answer flipped).

What it measures, per family and for each of ev2r, ev2r_hybrid, precision, recall and proxy, at the ITEM level (the
item's other pairs are unchanged, so one edited pair moves an item less than it moves the pair):

* changing edits: the share whose score stays within 10% (relative) of the unedited item's score,
  |edited - base| <= 0.1 * base (a score that does not see the change);
* preserving edits: the share whose score moves more than 10% (a score that reads spelling, not meaning).

Targets (on the blind families, for ev2r and ev2r_hybrid): at most 10% of meaning changes within 10%
of the unedited score, at most 5% of preserving edits moved more than 10%.

It uses ev2r only through its command line: `ev2r score FILE -o OUT --json`, then joins the rows to the data by id.

    python benchmarks/robustness/edits_blind.py --nltk-data ../shared/data/nltk_data
    python benchmarks/robustness/edits_blind.py --scores OUT.jsonl      # rows of an earlier `ev2r score` of the same file
    python benchmarks/robustness/edits_blind.py --score-args "--proxy-model averitec" --out-dir DIR   # another definition

Writes benchmarks/results/edits_blind.md and edits_blind.json (with the command, date, machine and signature).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "benchmarks" / "data" / "edits_blind" / "edits_blind.jsonl"
COLUMNS = ["ev2r", "ev2r_hybrid", "precision", "recall", "proxy"]
TARGETED = ["ev2r", "ev2r_hybrid"]
TARGET = {"changing": 0.10, "preserving": 0.05}
TOL = 0.10
#: The CI gate (``--gate``, run by ``.ci/run``): the most edits of each side a targeted score may get wrong (changing
#: edits within 10%, preserving edits moved more than 10%), out of 99 changing and 72 preserving. A ratchet, not the
#: targets: the default's counts when the gate was set (ev2r-hybrid/4, ev2r/4, 1.4.0: 53 / 46 and 6 / 12) plus three
#: edits (a machine without native bf16 computes in fp32, within 0.05 per item: ev2r.versions.PRECISION_BOUND);
#: lower them when a version reads meaning better. The targets (:data:`TARGET`) are 10% and 5%.
GATE_MAX = {("changing", "ev2r"): 56, ("changing", "ev2r_hybrid"): 49,
            ("preserving", "ev2r"): 9, ("preserving", "ev2r_hybrid"): 15}


def read_jsonl(path: Path) -> list[dict]:
    """The JSON objects of a JSONL file; a file that cannot be read as one exits 2 naming the file and the line."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        _fail(f"{path}: cannot be read as UTF-8 JSONL ({type(e).__name__}: {e})")
    rows = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            _fail(f"{path}, line {n}: not JSON ({e.msg})")
        if not isinstance(row, dict) or "id" not in row:
            _fail(f"{path}, line {n}: expected a JSON object with an \"id\" (a row of ev2r score -o), got "
                  f"{type(row).__name__}")
        rows.append(row)
    return rows


def _fail(message: str) -> None:
    """Bad input: the message on stderr and exit 2 (a failed gate exits 1)."""
    print(f"edits_blind: {message}", file=sys.stderr)
    sys.exit(2)


def find_ev2r() -> str:
    local = ROOT / ".venv" / "bin" / "ev2r"
    return str(local) if local.exists() else (shutil.which("ev2r") or "ev2r")


def run_ev2r(data: Path, out: Path, nltk_data: str | None, extra: str = "") -> tuple[list[str], dict]:
    cmd = [find_ev2r(), "score", str(data), "-o", str(out), "--json", "--no-progress", *shlex.split(extra)]
    if nltk_data:
        cmd += ["--nltk-data", nltk_data]
    print("running:", shlex.join(cmd), file=sys.stderr)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"ev2r score failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    summary = next((json.loads(x) for x in proc.stdout.splitlines() if x.lstrip().startswith("{")), {})
    return cmd, summary


def signature_of(scores: Path, summary: dict) -> str:
    if summary.get("signature"):
        return summary["signature"]
    record = Path(str(scores) + ".ev2r-run.json")  # the run record ev2r score keeps beside -o OUT
    if record.exists():
        rec = json.loads(record.read_text(encoding="utf-8"))
        return rec.get("signature") or rec.get("short_signature") or "unknown"
    return "unknown"


def checkout() -> str:
    """The commit the run scored with, and the package files that differed from it (other work in the tree)."""
    def git(*a: str) -> str:
        try:
            return subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True).stdout
        except OSError:
            return ""
    head = git("rev-parse", "--short", "HEAD").strip() or "unknown"
    dirty = [line[3:] for line in git("status", "--short", "--", "ev2r", "claimalign").splitlines()]
    return head + (f" + uncommitted changes to {', '.join(dirty)}" if dirty else " (clean)")


def moved(edited: float, base: float) -> bool:
    """More than 10% (relative) away from the unedited item's score."""
    return abs(edited - base) > TOL * abs(base) if base else edited != base


def evaluate(items: list[dict], rows: dict[str, dict]) -> tuple[list[dict], list[dict]]:
    """Per edit: base and edited scores; per family (and side totals): shares and counts."""
    per_edit, by_family = [], {}
    for it in items:
        if it["family"] == "base":
            continue
        e, b = rows.get(it["id"], {}), rows.get(it["base_id"], {})
        ok = e.get("status") == "ok" and b.get("status") == "ok"
        rec = {"id": it["id"], "family": it["family"], "side": it["side"], "ok": ok,
               "original_answer": it["original_answer"], "edited_answer": it["edited_answer"]}
        for c in COLUMNS:
            rec[c] = [b.get(c), e.get(c)]  # [unedited, edited]
        per_edit.append(rec)
        by_family.setdefault((it["side"], it["family"]), []).append(rec)
    table = []
    groups = sorted(by_family.items(), key=lambda kv: (kv[0][0] != "changing", kv[0][1]))
    for side in ("changing", "preserving"):
        fams = [(k, v) for k, v in groups if k[0] == side]
        for (s, fam), recs in fams + [((side, "all " + side), [r for _, v in fams for r in v])]:
            table.append(summarise(s, fam, recs))
    return per_edit, table


def summarise(side: str, family: str, recs: list[dict]) -> dict:
    row = {"side": side, "family": family, "n": len(recs), "n_failed": sum(not r["ok"] for r in recs)}
    for c in COLUMNS:
        pairs = [r[c] for r in recs if r["ok"] and None not in r[c]]
        hits = [moved(ed, b) for b, ed in pairs]
        n_hit = sum(hits) if side == "preserving" else len(hits) - sum(hits)
        rel = [(ed - b) / b for b, ed in pairs if b]
        row[c] = {"count": n_hit, "of": len(pairs), "share": n_hit / len(pairs) if pairs else None,
                  "mean_rel_change": sum(rel) / len(rel) if rel else None}
    return row


def fmt_share(cell: dict) -> str:
    return "n/a" if cell["share"] is None else f"{cell['share']:.2f} ({cell['count']}/{cell['of']})"


def write_md(path: Path, meta: dict, table: list[dict]) -> None:
    head = "| side | family | n | " + " | ".join(COLUMNS) + " |"
    rule = "|---|---|---:|" + "---:|" * len(COLUMNS)
    lines = [
        "# Blind two-sided edit benchmark", "",
        "AVeriTeC dev gold evidence given as the prediction, then ONE predicted answer edited once "
        "(`benchmarks/data/edits_blind/`, families written blind). **Item level on one-pair-edited items**: the "
        "item's other pairs are unchanged, so an item moves less than its edited pair would alone.", "",
        "* `changing` rows: share of meaning-changing edits whose item score stays **within 10%** (relative) of the "
        "unedited item's score (lower is better; target at most 0.10 on ev2r and ev2r_hybrid).",
        "* `preserving` rows: share of meaning-preserving edits whose item score **moved more than 10%** (lower is "
        "better; target at most 0.05 on ev2r and ev2r_hybrid).", "",
        f"Command: `{meta['command']}`  ",
        f"ev2r run: `{meta['ev2r_command']}`  ",
        f"Date: {meta['date']}; machine: {meta['machine']}, {meta['cores']} cores; checkout: {meta['checkout']}  ",
        f"Signature: `{meta['short_signature'] or meta['signature']}` (full: `edits_blind.json`)", "",
        f"Items: {meta['n_base']} unedited, {meta['n_edits']} edits ({meta['n_failed']} failed rows).", "",
        "## Share within 10% (changing) / moved more than 10% (preserving)", "", head, rule]
    for r in table:
        bold = "**" if r["family"].startswith("all ") else ""
        lines.append(f"| {r['side']} | {bold}{r['family']}{bold} | {r['n']} | "
                     + " | ".join(fmt_share(r[c]) for c in COLUMNS) + " |")
    lines += ["", "Targets on the side totals:", ""]
    for r in table:
        if r["family"].startswith("all "):
            for c in TARGETED:
                s = r[c]["share"]
                verdict = "n/a" if s is None else ("met" if s <= TARGET[r["side"]] else "not met")
                lines.append(f"* {r['side']}, {c}: {fmt_share(r[c])} against at most {TARGET[r['side']]:.2f}: "
                             f"{verdict}")
    low = sum(1 for e in meta["per_edit"] if e["ok"] and e["proxy"][0] is not None and e["proxy"][0] < 0.05)
    lines += ["", f"Note: {low} of the {meta['n_edits']} edits sit on an item whose unedited proxy is below 0.05, "
              "where 10% relative is under 0.005 absolute: the proxy column there reads small wobbles."]
    lines += ["", "## Mean relative change of the item score, (edited - unedited) / unedited", "", head, rule]
    for r in table:
        cells = ["n/a" if r[c]["mean_rel_change"] is None else f"{r[c]['mean_rel_change']:+.3f}" for c in COLUMNS]
        lines.append(f"| {r['side']} | {r['family']} | {r['n']} | " + " | ".join(cells) + " |")
    lines += ["", "Per-edit scores (unedited, edited) are in `edits_blind.json`.", ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def display_command(argv, tmp: str = "") -> str:
    """``argv`` as a shell line without machine paths: the temporary folder written ``TMP``, every other absolute
    path relative to the repository root (the tables are committed)."""
    out = []
    for a in argv:
        a = str(a)
        if tmp and a.startswith(tmp):
            a = "TMP" + a[len(tmp):]
        elif os.path.isabs(a):
            a = os.path.relpath(a, ROOT)
        out.append(a)
    return shlex.join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the edit items (JSONL)")
    ap.add_argument("--scores", type=Path, help="rows of an earlier `ev2r score DATA -o OUT`; default: run it")
    ap.add_argument("--nltk-data", help="passed to ev2r score --nltk-data")
    ap.add_argument("--out-dir", type=Path, default=ROOT / "benchmarks" / "results")
    ap.add_argument("--gate", action="store_true",
                    help="exit 1 when a targeted score gets more edits wrong than GATE_MAX allows (CI)")
    ap.add_argument("--score-args", default="", metavar="ARGS",
                    help="more options for ev2r score, one string (e.g. \"--model runs/x --proxy-model bundled\")")
    args = ap.parse_args()

    items = read_jsonl(args.data)
    summary, ev2r_cmd = {}, None
    with tempfile.TemporaryDirectory() as tmp:
        scores = args.scores
        if scores is None:
            scores = Path(tmp) / "edits_blind.scores.jsonl"
            ev2r_cmd, summary = run_ev2r(args.data, scores, args.nltk_data, args.score_args)
        rows = {r["id"]: r for r in read_jsonl(scores)}
        signature = signature_of(scores, summary)
        ev2r_line = display_command(ev2r_cmd, tmp) if ev2r_cmd else f"(rows read from {display_command([args.scores])})"
    missing = [it["id"] for it in items if it["id"] not in rows]
    if missing:
        _fail(f"{len(missing)} items have no score row (first: {missing[:3]}): score the same --data file")
    per_edit, table = evaluate(items, rows)
    meta = {
        "command": display_command(["python", os.path.relpath(os.path.abspath(sys.argv[0]), ROOT), *sys.argv[1:]]),
        "ev2r_command": ev2r_line,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": platform.machine(), "cores": os.cpu_count(), "checkout": checkout(), "signature": signature,
        "short_signature": summary.get("short_signature"),
        "n_base": sum(it["family"] == "base" for it in items), "n_edits": len(per_edit),
        "n_failed": sum(r.get("status") != "ok" for r in rows.values()),
        "tolerance": TOL, "targets": TARGET, "level": "item (one pair of the item edited)",
    }
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "edits_blind.json").write_text(
        json.dumps({"meta": meta, "table": table, "edits": per_edit}, indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8")
    write_md(args.out_dir / "edits_blind.md", {**meta, "per_edit": per_edit}, table)
    print((args.out_dir / "edits_blind.md").read_text(encoding="utf-8"))
    if args.gate:
        sys.exit(gate(table))


def gate(table: list[dict]) -> int:
    """0 when every targeted score gets at most :data:`GATE_MAX` edits of each side wrong, else 1 (each excess
    printed)."""
    totals = {row["side"]: row for row in table if row["family"] == f"all {row['side']}"}
    unscored = [f"{side} / {col}: {totals[side]['n'] - totals[side][col]['of']} of {totals[side]['n']} edits have no "
                f"score (failed or missing rows): the gate cannot judge them"
                for (side, col) in GATE_MAX if totals[side][col]["of"] < totals[side]["n"]]
    bad = unscored + [f"{side} / {col}: {totals[side][col]['count']} of {totals[side][col]['of']} wrong, at most {most} allowed"
           for (side, col), most in GATE_MAX.items() if totals[side][col]["count"] > most]
    for line in bad:
        print(f"edits gate: {line}", file=sys.stderr)
    n_bad = len({line.split(":")[0] for line in bad})
    print(f"edits gate: {'failed' if bad else 'passed'} ({len(GATE_MAX) - n_bad} of {len(GATE_MAX)} checks)",
          file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    main()
