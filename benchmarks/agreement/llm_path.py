"""The paper's LLM path, the mixed path and the NLI path on both development sets, from replay files.

    python benchmarks/agreement/llm_path.py \
        --data 86=../shared/data/ev2r_human_eval/averitec_manual_eval_subset.jsonl \
        --data 144=../shared/data/ev2r_human_eval/averitec_shared_task_dev.jsonl \
        --replay 86=benchmarks/data/llm_replay/qwen2.5-coder-1.5b-instruct_86.jsonl \
        --replay 144=benchmarks/data/llm_replay/qwen2.5-coder-1.5b-instruct_144.jsonl \
        --out benchmarks/results/llm_path

Offline: the replies were recorded by ``benchmarks/agreement/llm_record.py`` (the live run's status, seconds
and tokens are in each row), so the table is rebuilt in about two minutes of verifier time. Per
rating file and item:

* ``llm``: precision / recall / F1 of the LLM's own facts and judgements (Akhtar et al. 2024,
  sec. 3.1), read as ``ev2r score --decomposer llm`` reads a reply (``--reply-reading``, default
  ``checks``: the per-fact checks, else the stated counts); Ev2R = 0.5 F1 + 0.5 proxy, the proxy
  being the bundled NLI verifier's (as in the paper, where the proxy is a fine-tuned NLI model);
* ``mixed``: the LLM's atomic facts, judged by the bundled verifier exactly as the NLI path judges
  its own facts (same premises, pruning, threshold);
* ``nli``: the library's default (rules-v2 facts, bundled verifier);
* on the 86 rows also GPT-4o's recorded replies (``shared/data/ev2r_replay``), where they join.

Spearman with ``semantic_coverage`` and ``verdict_agreement`` (95% percentile bootstrap CI over
rows) on each path's scored rows and on the rows every path scored (``common``), the reading
counts (how many replies each of ``checks`` / ``counts`` / ``strict`` can score, how many
disagree), parse failures of the live run, and seconds and tokens per item.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402
from correlation import correlate  # noqa: E402
from ev2r.config import REPLY_READINGS  # noqa: E402

RATINGS = ("semantic_coverage", "verdict_agreement")


class RecordedFacts:
    """A decomposer that returns an LLM's recorded atomic facts of an item's side (for the mixed
    path), keyed by (claim, evidence); an evidence it has no reply for raises (the item is then
    not scored by this path)."""

    name = "recorded-llm-facts"

    def __init__(self):
        self.facts: dict = {}

    def add(self, item, result) -> None:
        from ev2r.types import AtomicFact

        self.facts[(item.claim, item.predicted_evidence)] = [AtomicFact(f.fact) for f in result.predicted_facts]
        self.facts[(item.claim, item.reference_evidence)] = [AtomicFact(f.fact) for f in result.reference_facts]

    def decompose(self, evidence, claim: str = ""):
        try:
            return self.facts[(claim, evidence)]
        except KeyError:
            raise ValueError("no readable recorded reply for this item") from None


def _ratings(items) -> dict[str, list]:
    from correlation import ratings_of

    return ratings_of(items)


def _corr_block(cols: dict, ratings: dict, rows: list[int], n_boot: int) -> dict:
    out = {}
    for name, vals in cols.items():
        for r in RATINGS:
            x = [vals[i] for i in rows]
            y = [ratings[r][i] for i in rows]
            out[f"{name}|{r}"] = correlate(x, y, n_boot=n_boot)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", action="append", required=True, metavar="NAME=PATH")
    ap.add_argument("--replay", action="append", required=True, metavar="NAME=PATH",
                    help="recorded replies of benchmarks/agreement/llm_record.py for the rating file NAME")
    ap.add_argument("--reply-reading", default="checks", choices=REPLY_READINGS)
    ap.add_argument("--gpt4o-replay", default=str(bl.DATA / "ev2r_replay" / "replay_atomic_reference_prec_recall.jsonl"))
    ap.add_argument("--gpt4o-model", default="gpt-4o-2024-05-13")
    ap.add_argument("--model", default="bundled")
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument("--out", default=None, help="write OUT.md and OUT.json")
    args = ap.parse_args(argv)

    from ev2r.facts.replay import ReplayReferenceScorer, keyed_object_from_text, read_reference_reply
    from ev2r.llm.prompts import example_facts_of
    from ev2r.io.readers import read_items
    from ev2r.metric.factory import build_scorer
    from ev2r.metric.reference import NLIReferenceScorer

    replays = dict(s.split("=", 1) for s in args.replay)
    t_start = time.time()
    scorer = build_scorer(verifier=args.model)
    verifier = scorer.reference_scorer.verifier
    report: dict = {"files": {}, "reading": args.reply_reading, "signature_nli": scorer.signature()}
    for spec in args.data:
        name, path = spec.split("=", 1)
        items = read_items(path)
        rec_rows = [json.loads(line) for line in Path(replays[name]).read_text(encoding="utf-8").splitlines() if line]
        model = rec_rows[0]["model"]
        llm = ReplayReferenceScorer(replays[name], model=model, scores_from=args.reply_reading,
                                   example_facts=example_facts_of).score_reference(items)
        # the live run's accounting and the three readings of every recorded reply
        by_id = {str(r["id"]): r for r in rec_rows}
        live = collections.Counter(by_id[str(it.id)]["status"] if str(it.id) in by_id else "not recorded" for it in items)
        readings = collections.Counter()
        for r in rec_rows:
            resp = r.get("llm_response")
            if isinstance(resp, str):  # not valid JSON: read by its keys, as the replay and the live run do
                resp = keyed_object_from_text(resp)
                readings["json_repaired"] += resp is not None
            if isinstance(resp, dict):
                for mode in ("checks", "counts", "strict"):
                    readings[mode] += read_reference_reply(resp, mode).status == "ok"
                readings["disagree"] += (read_reference_reply(resp, "checks").extra_scores or {}).get(
                    "reading_disagreements", 0) > 0
        secs = [r["seconds"] for r in rec_rows if r.get("rounds")]
        toks_in = [r["prompt_tokens"] for r in rec_rows if r.get("rounds")]
        toks_out = [r["completion_tokens"] for r in rec_rows if r.get("rounds")]
        rounds = collections.Counter(r.get("rounds", 0) for r in rec_rows)
        # the NLI path, and its proxy for every path's Ev2R
        nli = scorer.score(items)
        proxy = [s.proxy if s.ok else None for s in nli]
        # the mixed path: the LLM's facts, the verifier's judgement
        facts = RecordedFacts()
        for it, res in zip(items, llm):
            if res.status == "ok":
                facts.add(it, res)
        mixed = NLIReferenceScorer(verifier, facts).score_reference(items)

        def ev2r(f1, p):
            return None if f1 is None or p is None else 0.5 * f1 + 0.5 * p

        cols = {
            "nli_recall": [s.recall if s.ok else None for s in nli],
            "nli_f1": [s.f1 if s.ok else None for s in nli],
            "nli_ev2r": [s.ev2r if s.ok else None for s in nli],
            "llm_precision": [r.precision if r.status == "ok" else None for r in llm],
            "llm_recall": [r.recall if r.status == "ok" else None for r in llm],
            "llm_f1": [r.f1 if r.status == "ok" else None for r in llm],
            "llm_ev2r": [ev2r(r.f1 if r.status == "ok" else None, p) for r, p in zip(llm, proxy)],
            "mixed_recall": [r.recall if r.status == "ok" else None for r in mixed],
            "mixed_f1": [r.f1 if r.status == "ok" else None for r in mixed],
            "mixed_ev2r": [ev2r(r.f1 if r.status == "ok" else None, p) for r, p in zip(mixed, proxy)],
            "proxy": proxy,
        }
        try:
            g = ReplayReferenceScorer(args.gpt4o_replay, model=args.gpt4o_model).score_reference(items)
            if any(r.status == "ok" for r in g):
                cols["gpt4o_recall"] = [r.recall if r.status == "ok" else None for r in g]
                cols["gpt4o_f1"] = [r.f1 if r.status == "ok" else None for r in g]
        except (FileNotFoundError, ValueError):
            pass
        ratings = _ratings(items)
        all_rows = list(range(len(items)))
        common = [i for i in all_rows if all(cols[c][i] is not None for c in cols if not c.startswith("gpt4o"))]
        full = _corr_block(cols, ratings, all_rows, args.n_boot)
        com = _corr_block(cols, ratings, common, args.n_boot)
        n_scored = {c: sum(v is not None for v in vals) for c, vals in cols.items()}
        report["files"][name] = {
            "path": bl.display_path(path), "n_items": len(items), "replay": bl.display_path(replays[name]),
            "model": model, "live_status": dict(live), "readable_by": dict(readings), "rounds": dict(rounds),
            "seconds_per_item": {"mean": float(np.mean(secs)), "median": float(np.median(secs)),
                                 "total": float(np.sum(secs))} if secs else None,
            "tokens_per_item": {"prompt": float(np.mean(toks_in)), "completion": float(np.mean(toks_out))}
            if secs else None,
            "n_common": len(common), "n_scored": n_scored, "all_rows": full, "common_rows": com,
            "llm_replay_status": dict(collections.Counter(r.status for r in llm)),
        }
    report["seconds"] = round(time.time() - t_start, 1)
    names = list(report["files"])

    def cell(d):
        if d is None or d.get("spearman") is None:
            return "–"
        lo, hi = d["spearman_ci95"] or (None, None)
        ci = f" [{lo:+.2f}, {hi:+.2f}]" if lo is not None else ""
        return f"{d['spearman']:+.3f}{ci} (n={d['n']})"

    lines = ["# The LLM path with Qwen2.5-Coder-1.5B-Instruct on both development sets", "",
             f"Command: `{bl.command()}`", "", f"Machine: {bl.machine()}", "",
             f"Replies read with `--reply-reading {args.reply_reading}`; NLI signature `{report['signature_nli']}`.",
             f"Table built offline in {report['seconds']:.0f} s.", ""]
    lines += ["## Spearman with the human ratings (all rows each path scored; `common` = rows every path scored)", "",
              "| score | rating | " + " | ".join(f"{n} all | {n} common" for n in names) + " |",
              "|---|---|" + "---|---|" * len(names)]
    cols_order = ["nli_recall", "nli_f1", "nli_ev2r", "llm_precision", "llm_recall", "llm_f1", "llm_ev2r",
                  "mixed_recall", "mixed_f1", "mixed_ev2r", "proxy", "gpt4o_recall", "gpt4o_f1"]
    for c in cols_order:
        for r in RATINGS:
            cells = []
            for n in names:
                f = report["files"][n]
                cells += [cell(f["all_rows"].get(f"{c}|{r}")), cell(f["common_rows"].get(f"{c}|{r}"))]
            if any(x != "–" for x in cells):
                lines.append(f"| {c} | {r} | " + " | ".join(cells) + " |")
    lines += ["", "## Replies, readings and cost", "",
              "| | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]

    def row(label, fn):
        lines.append(f"| {label} | " + " | ".join(fn(report["files"][n]) for n in names) + " |")

    row("items", lambda f: str(f["n_items"]))
    row("live run: status of the item", lambda f: ", ".join(f"{k} {v}" for k, v in sorted(f["live_status"].items())))
    row("requests per item (1 = no re-ask)", lambda f: ", ".join(f"{k}: {v}" for k, v in sorted(f["rounds"].items())))
    row("replies readable: checks / counts / strict",
        lambda f: f"{f['readable_by'].get('checks', 0)} / {f['readable_by'].get('counts', 0)} / "
                  f"{f['readable_by'].get('strict', 0)}")
    row("replies whose checks and counts disagree", lambda f: str(f["readable_by"].get("disagree", 0)))
    row("replies read by their keys (JSON but for unescaped quotes)",
        lambda f: str(f["readable_by"].get("json_repaired", 0)))
    row("offline reading (this table): status of the item",
        lambda f: ", ".join(f"{k} {v}" for k, v in sorted(f["llm_replay_status"].items())))
    row("seconds per item (mean / median)", lambda f: "–" if not f["seconds_per_item"] else
        f"{f['seconds_per_item']['mean']:.1f} / {f['seconds_per_item']['median']:.1f}")
    row("tokens per item (prompt / completion)", lambda f: "–" if not f["tokens_per_item"] else
        f"{f['tokens_per_item']['prompt']:.0f} / {f['tokens_per_item']['completion']:.0f}")
    md = "\n".join(lines) + "\n"
    print(md)
    if args.out:
        bl.write(Path(args.out), md, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
