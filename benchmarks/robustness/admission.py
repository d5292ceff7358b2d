"""The admission stage on phrasings it never saw: ``benchmarks/results/admission.md``.

* **Held-out families** (``benchmarks/data/nonevidence_heldout/``, written blind: without the metric's code,
  rules or training corpus): each template filled with claims of both development rating sets; the share of
  non-evidence dropped, and of hard-positive evidence kept, per class and per family, by the rules alone
  (``admission="none"``) and with the learned reading.
* **Real evidence kept**: every predicted pair of both development sets, and every gold pair of the AVeriTeC
  dev claims, read as predicted evidence for its claim: the share each stage keeps.

    python benchmarks/robustness/admission.py [--model ev2r/metric/data/admission] [--fills 3]
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
from _benchlib import DATA, REPO, RESULTS, command, machine  # noqa: E402

HELDOUT = REPO / "benchmarks" / "data" / "nonevidence_heldout"
SETS = ("averitec_manual_eval_subset", "averitec_shared_task_dev")


def _rows(name):
    return [json.loads(line) for line in (DATA / "ev2r_human_eval" / f"{name}.jsonl").read_text().splitlines() if line]


def main(argv=None) -> int:
    from ev2r.metric.admission import prime
    from ev2r.metric.admitted import AdmissionSettings, Admitted, admit
    from ev2r.metric.admission_model import AdmissionModel
    from ev2r.training.admission import fill, slot_values
    from ev2r.io import evidence_from_text
    from ev2r.types import Evidence, QAPair, has_content

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, default=None, help="a saved admission model (default: the bundled one)")
    ap.add_argument("--fills", type=int, default=3, help="claims per held-out template")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=RESULTS / "admission.md")
    args = ap.parse_args(argv)
    model = AdmissionModel.load(args.model)
    rng = random.Random(args.seed)
    rated = {name: _rows(name) for name in SETS}
    claims = sorted({r["claim"] for rows in rated.values() for r in rows})
    templates = [json.loads(line) for f in sorted(HELDOUT.glob("*.jsonl")) for line in f.read_text().splitlines() if line]
    cases = []
    for t in templates:
        for _ in range(args.fills):
            v = slot_values(rng.choice(claims), rng)
            cases.append((t["class"], t["family"], v["claim"], QAPair(fill(t["question"], v), fill(t["answer"], v))))
    real = [("real:" + name, r["claim"], p) for name, rows in rated.items() for r in rows
            for p in evidence_from_text(r["predicted_evidence"]).pairs]
    dev = json.loads((DATA / "averitec" / "dev.json").read_text())
    for c in dev[:200]:
        for q in c.get("questions", []):
            for a in q.get("answers", []):
                ans = a.get("answer", "")
                if a.get("answer_type") == "Boolean" and a.get("boolean_explanation"):
                    ans = f"{ans}. {a['boolean_explanation']}"
                real.append(("gold:averitec-dev", c["claim"], QAPair(q["question"], ans)))

    readings = {True: Admitted(AdmissionSettings(model)), False: Admitted()}

    def kept(claim, pair, with_model):
        return admit(Evidence((pair,)), claim, admitted=readings[with_model])[0]

    prime([(c, p.question, p.answer) for _, _, c, p in cases] + [(c, p.question, p.answer) for _, c, p in real], model)
    by_class = collections.defaultdict(lambda: [0, 0, 0])  # n, right by rules, right with the model
    by_family = collections.defaultdict(lambda: [0, 0, 0])
    reasons = collections.Counter()
    for cls, fam, claim, pair in cases:
        want_kept = cls == "evidence"
        r0, r1 = kept(claim, pair, False), kept(claim, pair, True)
        for table, key in ((by_class, cls), (by_family, fam)):
            table[key][0] += 1
            table[key][1] += int(r0.kept == want_kept)
            table[key][2] += int(r1.kept == want_kept)
        if cls != "evidence":
            reasons[(cls, r1.reason)] += 1
    real_stats = collections.defaultdict(lambda: [0, 0, 0])
    dropped_examples = []
    for src, claim, pair in real:
        r0, r1 = kept(claim, pair, False), kept(claim, pair, True)
        if not has_content(pair.answer):
            continue
        real_stats[src][0] += 1
        real_stats[src][1] += int(r0.kept)
        real_stats[src][2] += int(r1.kept)
        if r0.kept and not r1.kept and len(dropped_examples) < 12:
            dropped_examples.append((src, r1.label, round(r1.p_evidence or 0, 3), pair.answer[:110]))

    def pct(a, n):
        return f"{100 * a / n:.1f}%" if n else "-"

    m = machine()
    lines = ["# Admission stage on held-out phrasings\n",
             f"Command: `{command()}`  ", f"Machine: {m['platform']}, {m['cpu_count']} CPUs, torch {m['torch']}, "
             f"{m['utc']}  ", f"Model: `{model.name}` (threshold {model.threshold}); held-out corpus: "
             f"{len(templates)} templates in {len({t['family'] for t in templates})} families, written blind, each "
             f"filled with {args.fills} claims of the two development sets ({len(cases)} cases).\n",
             "A case is right when non-evidence is dropped and evidence (hard positives) kept.\n",
             "## By class\n", "| class | cases | right: rules alone | right: rules + learned reading |",
             "|---|---|---|---|"]
    for cls in sorted(by_class):
        n, a, b = by_class[cls]
        lines.append(f"| {cls} | {n} | {pct(a, n)} | {pct(b, n)} |")
    non = [v for k, v in by_class.items() if k != "evidence"]
    n, a, b = (sum(v[i] for v in non) for i in range(3))
    lines.append(f"| **all non-evidence** | {n} | {pct(a, n)} | {pct(b, n)} |")
    fam_fail = sum(1 for k, v in by_family.items() if not k.startswith("evidence") and v[2] / v[0] < 0.9)
    lines += ["", f"Non-evidence families with under 90% dropped (learned): {fam_fail} of "
              f"{sum(1 for k in by_family if not k.startswith('evidence'))}.\n",
              "## Real evidence kept (a pair read as the predicted evidence of its own claim)\n",
              "| source | pairs | kept: rules alone | kept: rules + learned reading |", "|---|---|---|---|"]
    for src in sorted(real_stats):
        n, a, b = real_stats[src]
        lines.append(f"| {src} | {n} | {pct(a, n)} | {pct(b, n)} |")
    lines += ["", "Real pairs the rules keep and the learned reading drops (first 12):\n",
              "| source | read as | P(evidence) | answer |", "|---|---|---|---|"]
    for src, label, p, ans in dropped_examples:
        lines.append(f"| {src} | {label} | {p} | {ans.replace('|', '/')} |")
    lines += ["", "## By family\n", "| family | cases | right: rules | right: learned |", "|---|---|---|---|"]
    for fam in sorted(by_family):
        n, a, b = by_family[fam]
        lines.append(f"| {fam} | {n} | {pct(a, n)} | {pct(b, n)} |")
    lines += ["", "## What decided the non-evidence cases (learned stage)\n", "| class | reason | cases |", "|---|---|---|"]
    for (cls, why), k in sorted(reasons.items()):
        lines.append(f"| {cls} | {why} | {k} |")
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines[:40]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
