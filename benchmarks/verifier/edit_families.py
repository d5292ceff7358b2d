"""How a verifier reads each handed edit family, on the training side only.

The pairs are the ones the training generator itself makes (:func:`ev2r.training.edits.augment_meaning_edits`, with
``runs/edits7``'s layout option ``pair_share`` 0.5), family by family, from the redistributable training pool
(:func:`ev2r.training.pool.build_training_pool`, no augmentation). No blind item and no evaluation set is read. For each
family the verifier (loaded through the project's API, :func:`ev2r.verifier.loading.load_verifier`) gives
P(entailment) of each pair; a pair is *read as entailment* when P(entailment) >= 0.5, the scorer's support threshold.

* a **changing** family: the share of its pairs still read as entailment (should be near 0);
* a **preserving** family: the share no longer read as entailment (should be near 0);
* the control: the same statements laid out the same way with no edit (a copy), read as entailment (the ceiling).

    python benchmarks/verifier/edit_families.py --model bundled --out benchmarks/results/edit_families

Writes ``<out>.md`` and ``<out>.json``: the baseline a training round with ``--aug-edit-families all`` is compared to.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402

SUPPORT = 0.5


def family_pairs(pool, family: str, n: int, seed: int, pair_share: float) -> list:
    """Up to ``n`` pairs of one family, as the generator makes them (its own seed per family), of the family's side."""
    from ev2r.training.edits import CHANGING, augment_meaning_edits

    change = family in CHANGING
    out = augment_meaning_edits(pool, random.Random(f"{seed}/{family}"), n, change_share=1.0 if change else 0.0,
                                pair_share=pair_share, families=[family])
    # ``yesno`` also makes "Yes." pairs entailing their statement (``edit_keep_yesno``): only the family's own side
    return [p for p in out if p.source == f"edit_{'change' if change else 'keep'}_{family}"]


def control_pairs(pool, n: int, seed: int) -> list:
    """``n`` unedited statements of the pool in the generator's near-copy layout (a question/answer premise sometimes,
    the statement as the hypothesis): what the verifier reads when nothing changed."""
    from ev2r.training.data import Pair
    from ev2r.training.edits import near_copy_premise

    rng = random.Random(f"{seed}/control")
    statements = sorted({t for p in pool for t in (p.premise, p.hypothesis) if 30 <= len(t) <= 300 and "\n" not in t})
    return [Pair(near_copy_premise(s, rng), s, "entailment", "control_copy") for s in rng.sample(statements, min(n, len(statements)))]


def layout(p) -> str:
    """Which of the generator's layouts a pair has: both sides answers to one question, a near-copy (the premise's
    answer and the hypothesis at least 70% alike, ``difflib``), or a pool premise with its edited hypothesis."""
    import difflib

    if p.premise.startswith("Question: ") and p.hypothesis.startswith("Question: "):
        return "both answers"
    answer = p.premise.split("\nAnswer: ", 1)[-1]
    return "near-copy" if difflib.SequenceMatcher(None, answer, p.hypothesis).ratio() >= 0.7 else "entailed hypothesis"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="bundled", help="the verifier (bundled or a checkpoint folder)")
    ap.add_argument("--data-dir", default=str(bl.DATA), help="the shared data folder (the training pool's files)")
    ap.add_argument("--n", type=int, default=200, help="pairs per family (fewer where the family rarely applies)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pair-share", type=float, default=0.5,
                    help="the generator's share of near-copies laid out as two answers (runs/edits7: 0.5)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--out", default=str(bl.RESULTS / "edit_families"))
    ap.add_argument("--render-only", action="store_true", help="rewrite <out>.md from <out>.json (no scoring)")
    args = ap.parse_args(argv)
    if args.render_only:
        import json

        data = json.loads(Path(f"{args.out}.json").read_text(encoding="utf-8"))
        Path(f"{args.out}.md").write_text(render(data, data["families"], args.model), encoding="utf-8")
        return 0
    if args.n < 1:
        ap.error(f"--n: must be >= 1, got {args.n}")
    from ev2r.training.edits import CHANGE_LABEL, CHANGING, FAMILY_SETS, PREMISE_ONLY, PRESERVING
    from ev2r.training.pool import build_training_pool

    t0 = time.time()
    pool, _, _ = build_training_pool(Path(args.data_dir), 15, 13, 2, 3000, 0, 0)
    sets = {"control": control_pairs(pool, args.n, args.seed)}
    for family in sorted(CHANGING) + sorted(PRESERVING):
        sets[family] = family_pairs(pool, family, args.n, args.seed, args.pair_share)
    verifier = bl.load(args.model, device=args.device)
    flat = [(name, p) for name, pairs in sets.items() for p in pairs]
    t1 = time.time()
    probs = verifier.predict([p.premise for _, p in flat], [p.hypothesis for _, p in flat])
    seconds = time.time() - t1
    p_e = {}
    for (name, p), d in zip(flat, probs):
        p_e.setdefault(name, []).append((float(d[0]), layout(p)))
    issue63 = set(FAMILY_SETS["issue63"])
    # a row's "issue" names its family set: "63" the default set (FAMILY_SETS "issue63"), "73" a family only in "all"
    rows = {}
    for name, vals in p_e.items():
        e = np.array([v for v, _ in vals])
        side = "control" if name == "control" else "changing" if name in CHANGING else "preserving"
        read = float(np.mean(e >= SUPPORT))
        by_layout = {}
        for lay in ("near-copy", "both answers", "entailed hypothesis"):
            sub = [v for v, lo in vals if lo == lay]
            if sub:
                by_layout[lay] = {"n": len(sub), "entailment": round(float(np.mean(np.array(sub) >= SUPPORT)), 4)}
        rows[name] = {"side": side, "n": len(vals), "issue": "" if side == "control" else "63" if name in issue63 else "73",
                      "label": CHANGE_LABEL.get(name, "entailment"), "premise_only": name in PREMISE_ONLY,
                      "read_as_entailment": round(read, 4), "wrong": round(read if side == "changing" else 1 - read, 4),
                      "mean_p_entailment": round(float(e.mean()), 4), "by_layout": by_layout}
    info = {"command": bl.command(), "machine": {**bl.machine(), "device": args.device},
            "verifier": getattr(verifier, "name", args.model), "data_dir": bl.display_path(args.data_dir),
            "n_per_family": args.n, "seed": args.seed, "pair_share": args.pair_share, "support": SUPPORT,
            "pool_pairs": len(pool), "pairs_scored": len(flat), "predict_seconds": round(seconds, 1),
            "wall_seconds": round(time.time() - t0, 1)}
    md = render(info, rows, args.model)
    bl.write(Path(args.out), md, {**info, "families": rows})
    print(md)
    return 0


def render(info: dict, rows: dict, model: str) -> str:
    """The table of ``rows`` (per family, as :func:`main` computes them) with the run's ``info``, in Markdown."""
    n, seed, pair_share = info["n_per_family"], info["seed"], info["pair_share"]
    lines = ["# Edit families read by a verifier, training side only", "",
             f"Command: `{info['command']}`", f"Machine: {info['machine']}",
             f"Verifier: `{model}` ({info['verifier']})", "",
             f"The pairs are those the training generator makes (`ev2r.training.edits.augment_meaning_edits`, "
             f"pair share {pair_share} as `runs/edits7`, one family at a time, up to {n} pairs each, seed "
             f"{seed}) from the redistributable training pool ({info['pool_pairs']} pairs, no augmentation). No blind item "
             f"and no evaluation set is read. Read as entailment: P(entailment) >= {SUPPORT} (the scorer's support "
             "threshold). **wrong** is, for a changing family, the share still read as entailment, and for a "
             "preserving one, the share no longer read as entailment: 0 is a verifier that reads the family.", "",
             "Layouts: *near-copy* (a statement against its edit, the premise sometimes a question/answer pair), "
             "*both answers* (both sides answers to one question, as the verified copy reading compares a pair with "
             "its gold pair), *entailed hypothesis* (a pool pair whose entailed hypothesis is edited). The "
             "premise-only families (`hedge`, `certainty`, `quantifier`) are laid out only as the weakened statement "
             "against the original. `yesno` has a layout of its own (a yes/no question answered \"No.\" against its "
             "statement, or answered \"Yes.\" against the question answered \"No.\"), counted under *entailed "
             "hypothesis*; its \"Yes.\" pairs, which entail their statement, are left out.", "",
             "| family | side | family set | label | n | **wrong** | mean P(e) | near-copy: P(e) >= 0.5 | "
             "both answers | entailed hypothesis |", "|---|---|---|---|---:|---:|---:|---:|---:|---:|"]

    family_set = {"": "", "63": "default", "73": "`all` only"}

    def cell(r, lay):
        c = r["by_layout"].get(lay)
        return "—" if c is None else f"{c['entailment']:.2f} ({c['n']})"
    order = ["control"] + [f for f in rows if rows[f]["side"] == "changing"] + [f for f in rows if rows[f]["side"] == "preserving"]
    for name in order:
        r = rows[name]
        wrong = "—" if r["side"] == "control" else f"**{r['wrong']:.3f}**"
        lines.append(f"| {name}{' (premise only)' if r['premise_only'] else ''} | {r['side']} | "
                     f"{family_set[r['issue']]} | "
                     f"{r['label']} | {r['n']} | {wrong} | {r['mean_p_entailment']:.3f} | {cell(r, 'near-copy')} | "
                     f"{cell(r, 'both answers')} | {cell(r, 'entailed hypothesis')} |")
    lines += ["", f"The control row is the share of unedited copies read as entailment ({rows['control']['read_as_entailment']:.3f}): "
              "a preserving family's **wrong** share is to be read against 1 minus it.", "",
              f"{info['pairs_scored']} pairs scored in {info['predict_seconds']:.0f} s; {info['wall_seconds']:.0f} s in all."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
