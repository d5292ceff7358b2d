"""How often a verifier entails a gold pair's own sentences (a diagnosis made in the meaning choice's round 3).

Ev2R's precision and recall (Akhtar et al. 2024, sec. 3.1) count atomic facts entailed by the other side's pairs. With
the respelling retired, a near-copy of a gold pair is read by the verifier alone, so its score is bounded by how well
the verifier reads the *copy itself*: each atomic fact of a gold pair (``rules-v2``, the scorer's decomposer) against
the pair it came from (``Question: <q>\\nAnswer: <a>``, the scorer's premise). A verifier that reads word-for-word
content as entailed gets 1.0 here; round 3 of ``benchmarks/results/meaning_choice_decision.md`` found 23 of 54
unsupported facts of moved blind edits were such sentences.

For ``--n`` AVeriTeC dev claims drawn with ``--seed`` (the blind edit items' claims left out, so that this design-side
measurement never reads the test side), it reports per verifier: the share of facts with P(entailment) >= 0.5 (the
scorer's support threshold) against their own pair and against the best pair of the claim's gold evidence (the scorer's
``qa-pair-max``), and the mean P(entailment).

    python benchmarks/verifier/self_entailment.py --model bundled --model runs/edits2 --edits --out benchmarks/results/self_entailment

With ``--edits``, each fact is also edited once by each handed family of :mod:`ev2r.training.edits` (the families the
verifiers are trained on; the blind families of ``benchmarks/robustness/edits_blind.py`` were written apart from them) and read
against the unedited fact's own pair: the design side of the two-sided edit benchmark (its test side is the blind
one), at the fact level.

Writes ``<out>.md`` and ``<out>.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402

BLIND = Path(__file__).resolve().parents[1] / "data" / "edits_blind" / "edits_blind.jsonl"
SUPPORT = 0.5


def gold_facts(records: list[dict], rows: list[int]) -> list[dict]:
    """Each atomic fact of each gold pair: ``{"row", "pair", "fact", "own", "all"}`` (own: the pair's rendered text;
    all: every gold pair of the claim, rendered)."""
    from ev2r.facts.rules import DeclarativeDecomposer
    from ev2r.io.averitec import averitec_questions_to_evidence

    decomposer = DeclarativeDecomposer()
    out = []
    for i in rows:
        ev = averitec_questions_to_evidence(records[i]["questions"], f"dev row {i}")
        rendered = [p.render() for p in ev.pairs]
        for f in decomposer.decompose(ev):
            out.append({"row": i, "pair": f.pair_index, "fact": f.text, "own": rendered[f.pair_index],
                        "all": rendered})
    return out


def edited_facts(facts: list[dict], seed: int) -> list[dict]:
    """Each fact edited once by each handed family that applies (:mod:`ev2r.training.edits`, the families the
    verifiers are trained on, those of :mod:`ev2r.training.edits_more` among them; ``yesno`` needs its own layout,
    and the premise-only families ``hedge``, ``certainty`` and ``quantifier`` weaken the fact, which its own pair then
    still entails, so they are left out): ``{"i" (the fact's index), "family", "side" ("preserving" / "changing"),
    "text"}``. Each family's edits draw on their own seeds, so adding a family leaves the others' edits as they
    were."""
    import random

    from ev2r.training.edits import CHANGING, PREMISE_ONLY, PRESERVING, edit_text

    out = []
    for i, f in enumerate(facts):
        for side, families in (("preserving", sorted(PRESERVING)),
                               ("changing", sorted(set(CHANGING) - PREMISE_ONLY - {"yesno"}))):
            for family in families:
                e = edit_text(family, f["fact"], random.Random(f"{seed}/{i}/{family}"))
                if e is not None and e != f["fact"]:
                    out.append({"i": i, "family": family, "side": side, "text": e})
    return out


def measure(spec: str, facts: list[dict], edits: list[dict], device: str = "cpu") -> dict:
    """P(entailment) of each fact against its own pair and the best of its claim's pairs, under verifier ``spec``;
    with ``edits``, of each edited fact against the unedited fact's own pair, per family: of the facts the verifier
    supports unedited, the share still supported (a preserving edit should keep it, a changing one should not)."""
    verifier = bl.load(spec, device=device, dtype="bf16", batch_size=128 if device.startswith("cuda") else 32)
    keys = sorted({(p, f["fact"]) for f in facts for p in f["all"]} | {(facts[e["i"]]["own"], e["text"]) for e in edits})
    probs = verifier.predict([k[0] for k in keys], [k[1] for k in keys])
    p_e = {k: float(d[0]) for k, d in zip(keys, probs)}
    own = np.array([p_e[(f["own"], f["fact"])] for f in facts])
    best = np.array([max(p_e[(p, f["fact"])] for p in f["all"]) for f in facts])
    families: dict = {}
    for e in edits:
        if own[e["i"]] >= SUPPORT:
            families.setdefault((e["side"], e["family"]), []).append(p_e[(facts[e["i"]]["own"], e["text"])] >= SUPPORT)
    return {"verifier": verifier.name, "n_facts": len(facts),
            "own_supported": float(np.mean(own >= SUPPORT)), "own_mean": float(own.mean()),
            "best_supported": float(np.mean(best >= SUPPORT)), "best_mean": float(best.mean()),
            "edits": {f"{side}/{family}": {"n": len(v), "still_supported": float(np.mean(v))}
                      for (side, family), v in sorted(families.items())},
            "per_fact_own": own.round(4).tolist()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dev", default=str(bl.DATA / "averitec" / "dev.json"), help="AVeriTeC dev.json")
    ap.add_argument("--model", action="append", required=True, help="a verifier (bundled or a checkpoint); repeat")
    ap.add_argument("--n", type=int, default=150, help="claims drawn (seeded) outside the blind items; 0 = all")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--edits", action="store_true",
                    help="also each fact edited once by each handed family (the design side of the two-sided edit "
                         "benchmark)")
    ap.add_argument("--out", default=str(bl.RESULTS / "self_entailment"))
    ap.add_argument("--device", default="cpu", help="torch device of the verifiers (cpu, cuda)")
    args = ap.parse_args(argv)
    if args.n < 0:
        ap.error(f"--n: must be >= 0, got {args.n}")
    records = json.loads(Path(args.dev).read_text(encoding="utf-8"))
    blind = {r["dev_index"] for r in bl.read_jsonl(BLIND) if r.get("dev_index") is not None}
    pool = [i for i in range(len(records)) if i not in blind]
    n = len(pool) if args.n == 0 else min(args.n, len(pool))
    rows = sorted(np.random.default_rng(args.seed).choice(pool, size=n, replace=False).tolist())
    facts = gold_facts(records, rows)
    edits = edited_facts(facts, args.seed) if args.edits else []
    results = {spec: measure(spec, facts, edits, args.device) for spec in args.model}
    info = {"command": bl.command(), "machine": {**bl.machine(), "device": args.device}, "dev": bl.display_path(args.dev), "n_claims": n,
            "seed": args.seed, "n_facts": len(facts), "blind_rows_left_out": len(blind)}
    lines = ["# A gold pair's own sentences, read by the verifier", "", f"Command: `{info['command']}`",
             f"Machine: {info['machine']}", "",
             f"{n} AVeriTeC dev claims (seed {args.seed}; the {len(blind)} claims of the blind edits left out), "
             f"{len(facts)} atomic facts of their gold pairs (`rules-v2`). Each fact against the pair it came from "
             "(own) and the best of its claim's gold pairs (best, the scorer's `qa-pair-max`); supported: "
             f"P(entailment) >= {SUPPORT}. A verifier that reads word-for-word content as entailed gets 1.000.", "",
             "| verifier | own: supported | own: mean P(e) | best: supported | best: mean P(e) |",
             "|---|---:|---:|---:|---:|"]
    for spec, r in results.items():
        lines.append(f"| `{spec}` ({r['verifier']}) | {r['own_supported']:.3f} | {r['own_mean']:.3f} | "
                     f"{r['best_supported']:.3f} | {r['best_mean']:.3f} |")
    if edits:
        names = sorted({k for r in results.values() for k in r["edits"]})
        lines += ["", "**Handed families** (`ev2r.training.edits`, one edit of the fact, read against the unedited fact's "
                  "own pair). Of the facts each verifier supports unedited: the share still supported after the edit "
                  "(a preserving edit should keep it near 1, a changing one should bring it near 0).", "",
                  "| edit | " + " | ".join(f"`{spec}`" for spec in results) + " |",
                  "|---|" + "---:|" * len(results)]
        for name in names:
            cells = []
            for r in results.values():
                c = r["edits"].get(name)
                cells.append("—" if c is None else f"{c['still_supported']:.3f} ({c['n']})")
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    md = "\n".join(lines) + "\n"
    bl.write(Path(args.out), md, {**info, "results": results})
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
