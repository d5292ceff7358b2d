"""How often a verifier entails a gold pair's own sentences (issue 63, round 3's diagnosis).

Ev2R's precision and recall (Akhtar et al. 2024, sec. 3.1) count atomic facts entailed by the other side's pairs. With
the respelling retired, a near-copy of a gold pair is read by the verifier alone, so its score is bounded by how well
the verifier reads the *copy itself*: each atomic fact of a gold pair (``rules-v2``, the scorer's decomposer) against
the pair it came from (``Question: <q>\\nAnswer: <a>``, the scorer's premise). A verifier that reads word-for-word
content as entailed gets 1.0 here; round 3 found 23 of 54 unsupported facts of moved blind edits were such sentences.

For ``--n`` AVeriTeC dev claims drawn with ``--seed`` (the blind edit items' claims left out, so that this design-side
measurement never reads the test side), it reports per verifier: the share of facts with P(entailment) >= 0.5 (the
scorer's support threshold) against their own pair and against the best pair of the claim's gold evidence (the scorer's
``qa-pair-max``), and the mean P(entailment).

    python benchmarks/self_entailment.py --model bundled --model runs/edits2 --out benchmarks/results/self_entailment

Writes ``<out>.md`` and ``<out>.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _benchlib as bl  # noqa: E402

BLIND = Path(__file__).resolve().parent / "data" / "edits_blind" / "edits_blind.jsonl"
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


def measure(spec: str, facts: list[dict]) -> dict:
    """P(entailment) of each fact against its own pair and the best of its claim's pairs, under verifier ``spec``."""
    verifier = bl.load(spec, dtype="bf16")
    keys = sorted({(p, f["fact"]) for f in facts for p in f["all"]})
    probs = verifier.predict([k[0] for k in keys], [k[1] for k in keys])
    p_e = {k: float(d[0]) for k, d in zip(keys, probs)}
    own = np.array([p_e[(f["own"], f["fact"])] for f in facts])
    best = np.array([max(p_e[(p, f["fact"])] for p in f["all"]) for f in facts])
    return {"verifier": verifier.name, "n_facts": len(facts),
            "own_supported": float(np.mean(own >= SUPPORT)), "own_mean": float(own.mean()),
            "best_supported": float(np.mean(best >= SUPPORT)), "best_mean": float(best.mean()),
            "per_fact_own": own.round(4).tolist()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dev", default=str(bl.DATA / "averitec" / "dev.json"), help="AVeriTeC dev.json")
    ap.add_argument("--model", action="append", required=True, help="a verifier (bundled or a checkpoint); repeat")
    ap.add_argument("--n", type=int, default=150, help="claims drawn (seeded) outside the blind items; 0 = all")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(bl.RESULTS / "self_entailment"))
    args = ap.parse_args(argv)
    if args.n < 0:
        ap.error(f"--n: must be >= 0, got {args.n}")
    records = json.loads(Path(args.dev).read_text(encoding="utf-8"))
    blind = {r["dev_index"] for r in bl.read_jsonl(BLIND) if r.get("dev_index") is not None}
    pool = [i for i in range(len(records)) if i not in blind]
    n = len(pool) if args.n == 0 else min(args.n, len(pool))
    rows = sorted(np.random.default_rng(args.seed).choice(pool, size=n, replace=False).tolist())
    facts = gold_facts(records, rows)
    results = {spec: measure(spec, facts) for spec in args.model}
    info = {"command": bl.command(), "machine": bl.machine(), "dev": bl.display_path(args.dev), "n_claims": n,
            "seed": args.seed, "n_facts": len(facts), "blind_rows_left_out": len(blind)}
    lines = ["# A gold pair's own sentences, read by the verifier (issue 63)", "", f"Command: `{info['command']}`",
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
    md = "\n".join(lines) + "\n"
    bl.write(Path(args.out), md, {**info, "results": results})
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
