"""Arena benchmark: pairwise evidence battles judged in both orders (``ev2r arena``) on the 86 rated
AVeriTeC rows, with four constructed systems of known order (the same construction as
``benchmarks/ranking/ranking.py``):

* ``reference``: the reference evidence itself; ``reference_half``: its first half of the pairs;
* ``baseline``: the released baseline retriever's evidence (the rated predictions);
* ``other_claim``: the baseline evidence of the next claim in the file (off-topic).

Expected order: reference > reference_half > baseline > other_claim. Each judge runs its own arena
(each table is labelled with the judge that made it):

* ``--mechanical``: a scripted judge on a loopback OpenAI-compatible server (not an LLM): it
  answers from the prompt it receives -- the set sharing the larger share of the reference's
  content words wins, within 0.05 a tie. It checks the arena machinery end to end on real data
  (both orders, ties, ratings, reliability) with a judge whose behaviour is known.
* ``--llama``: the local llama.cpp server (``llama-cpp-python``) serving the Gemma 3 270M base model
  GGUF that the tests use (``scripts/install_llm_server.sh``); ``--judge BASE_URL=MODEL[:FAMILY]``:
  any other server. The LLM run is made twice to show resume: first on the first half of the
  claims, then on all of them (the first half's answers come back from the cache).

The arena ranking is compared with the Ev2R ranking of the same systems on the same claims
(Kendall tau-b, bootstrap CI over claims), read from ``results/ranking_scores.jsonl`` (written by
``benchmarks/ranking/ranking.py`` with the bundled verifier).

Usage::

    python benchmarks/ranking/arena.py --mechanical --llama --pairs-per-claim 2
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402
from ev2r.ranking.arena import POSITION_DEBIAS  # noqa: E402

EXPECTED = ["reference", "reference_half", "baseline", "other_claim"]
MARGIN = 0.05
_STOP = set("the and for that this with was were are has have had from what which who when where how did does "
            "not but its his her their they them there been being also into than then about over answer question "
            "yes".split())
_SECTIONS = re.compile(r"Reference evidence:\n(.*?)\n\nEvidence A:\n(.*?)\n\nEvidence B:\n(.*?)\n\nWhich evidence", re.S)


def systems(items):
    from ranking import systems as ranking_systems  # the construction of benchmarks/ranking/ranking.py

    built = ranking_systems(items)
    return {name: built[name] for name in EXPECTED}


# -- the scripted judge --------------------------------------------------------------------------
def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) >= 3 and w not in _STOP}


def mechanical_answer(prompt: str) -> str:
    """``A``, ``B`` or ``tie``: which set holds the larger share of the reference's content words."""
    m = _SECTIONS.search(prompt)
    if m is None:
        return "I cannot read the prompt."
    ref, a, b = (_words(x) for x in m.groups())
    if not ref:
        return "tie"
    sa, sb = len(a & ref) / len(ref), len(b & ref) / len(ref)
    return "A" if sa - sb > MARGIN else "B" if sb - sa > MARGIN else "tie"


def mechanical_server():
    """A loopback OpenAI-compatible server (:class:`ev2r.llm.local_server.FakeChatServer`) answering
    with :func:`mechanical_answer`."""
    import math

    from ev2r.llm.local_server import FakeChatServer, chat_response

    def respond(body):
        answer = mechanical_answer(body["messages"][-1]["content"])
        logprobs = None
        if body.get("logprobs"):  # the answer at 0.8, the other two verdicts at 0.1 each
            tops = [{"token": t, "logprob": math.log(0.8 if t == answer else 0.1)} for t in ("A", "B", "tie")]
            logprobs = [{"token": answer, "logprob": math.log(0.8), "top_logprobs": tops}]
        return 200, chat_response(answer, logprobs=logprobs, prompt_tokens=0, completion_tokens=1,
                                  model=body["model"]), 0

    return FakeChatServer(respond)


# -- running -------------------------------------------------------------------------------------
def tau_known_order(ratings: dict):
    """Kendall tau of the arena's ranks (tied systems share one, never their listing order) with
    the known order, or None when a system is missing or every system ties."""
    ranks = {x: r.get("rank") for x, r in ratings.items()}
    if set(ranks) != set(EXPECTED) or len(set(ranks.values())) < 2:
        return None
    from scipy.stats import kendalltau

    return float(kendalltau([ranks[x] for x in EXPECTED], list(range(len(EXPECTED))))[0])


def _ranking_summary(reading: str, rows: list, args) -> dict:
    """One reading of the battle rows: ranking, ratings with CIs, separation, tau with the known order."""
    import warnings

    from ev2r.ranking.rating import battles_from_rows, rank_battles

    try:
        battles, _ = battles_from_rows(rows, source="arena")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rk = rank_battles(battles, n_bootstrap=args.bootstrap, seed=args.seed)
    except ValueError as e:
        return {"reading": reading, "ranking": f"n/a ({e})", "ratings": "", "separated": "n/a", "tau": "n/a"}
    order, rt = rk["ranking"], rk["ratings"]
    tau = tau_known_order(rt)
    ci = {x: rt[x].get("ci95") for x in rt}
    top, bottom = order[0], order[-1]
    sep = bool(ci[top] and ci[bottom] and ci[top][0] > ci[bottom][1])
    return {"reading": reading, "ranking": " > ".join(order), "separated": f"{'yes' if sep else 'no'} ({top} vs {bottom})",
            "ratings": "; ".join(f"{x} {rt[x]['rating']:.0f} [{ci[x][0]:.0f}, {ci[x][1]:.0f}]" if ci[x] else
                                 f"{x} {rt[x]['rating']:.0f}" for x in order),
            "tau": "n/a" if tau is None else f"{tau:+.2f}"}


def content_signal(rows: list) -> dict:
    """Per judge, how often the balanced difference favours the known-better system (sign test)."""
    from scipy.stats import binomtest

    out: dict = {}
    for r in rows:
        if not r.get("balanced") or r["system_a"] not in EXPECTED or r["system_b"] not in EXPECTED:
            continue
        d = r["balanced"]["a"] - r["balanced"]["b"]
        signed = d if EXPECTED.index(r["system_a"]) < EXPECTED.index(r["system_b"]) else -d
        out.setdefault(r["judge"], []).append(signed)
    res = {}
    for j, ds in out.items():
        k = sum(x > 0 for x in ds)
        n = sum(x != 0 for x in ds)
        res[j] = {"n": len(ds), "towards_better": k, "p": float(binomtest(k, n).pvalue) if n else 1.0,
                  "mean_signed": sum(ds) / len(ds), "max_abs": max(abs(x) for x in ds)}
    return res


def rule_variants(rows: list, panel, args) -> list[dict]:
    """With ``--position-debias probabilities``: the panel's battles read by the FactArena rule
    (each order's most probable answer; orders disagreeing -> tie) and by the balanced
    probabilities, for the panel and for each judge alone."""
    from ev2r.ranking.arena import combine_orders

    plain = []
    for r in rows:
        if r.get("orders"):
            w, st, err, cons = combine_orders(*r["orders"])
            plain.append({**r, "winner": w, "status": st, "error": err, "consistent": cons})
        else:
            plain.append(r)
    out = [_ranking_summary("FactArena rule (most probable answer per order), panel", plain, args),
           _ranking_summary(f"balanced probabilities (margin {args.debias_margin}), panel", rows, args)]
    if len(panel) > 1:
        for j in panel:
            out.append(_ranking_summary(f"balanced probabilities, `{j.name}` alone",
                                        [r for r in rows if r.get("judge") == j.name], args))
    return out

def arena_run(label, systems_, judge, scores, args, resume_demo=False):
    """One arena: ``judge`` is a :class:`~ev2r.ranking.arena.Judge` or a list of them (a panel)."""
    from ev2r.ranking.arena import render_markdown, run_arena

    panel = list(judge) if isinstance(judge, (list, tuple)) else [judge]

    def usage(result):  # the panel's calls, summed over its judges
        keys = ("requests", "calls", "cache_hits", "failures", "prompt_tokens")
        return {k: sum(result.llm[j.name][k] for j in panel) for k in keys}

    kw = dict(pairs_per_claim=args.pairs_per_claim, seed=args.seed, cache_dir=args.cache, concurrency=args.concurrency,
              timeout=600.0, max_retries=1, max_tokens=args.max_tokens, n_bootstrap=args.bootstrap,
              reference_scores=scores, constrain_answers=args.constrain_answers,
              position_debias=args.position_debias, debias_margin=args.debias_margin)
    phases = []
    n = len(next(iter(systems_.values())))
    if resume_demo:
        t0 = time.perf_counter()
        part = run_arena(systems_, panel, limit=max(1, n // 2), **kw)
        phases.append({"phase": f"first {max(1, n // 2)} claims", "seconds": round(time.perf_counter() - t0, 1),
                       **usage(part)})
    t0 = time.perf_counter()
    res = run_arena(systems_, panel, **kw)
    seconds = time.perf_counter() - t0
    phases.append({"phase": f"all {n} claims" + (" (resumed)" if resume_demo else ""), "seconds": round(seconds, 1),
                   **usage(res)})
    ranking = res.ranking["ranking"] if res.ranking else None
    md = [f"## Judge: {label}", "", render_markdown(res, title="").lstrip("# \n")]
    tau = tau_known_order((res.ranking or {}).get("ratings") or {})
    md.append(f"Known order recovered: **{'yes' if ranking == EXPECTED else 'no'}** "
              f"(arena: {' > '.join(ranking) if ranking else 'n/a'}; expected: {' > '.join(EXPECTED)}; "
              f"Kendall tau with the known order {'n/a' if tau is None else f'{tau:+.2f}'}).\n")
    variants = rule_variants(res.battles, panel, args) if args.position_debias == "probabilities" else []
    signal = None
    if variants:
        md += ["**The same answers, other readings** (Bradley-Terry, 95% bootstrap CI over claims; `separated` = "
               "the top system's CI lies above the bottom one's):", "",
               "| reading | ranking | BT ratings [95% CI] | separated | Kendall tau with the known order |",
               "|---|---|---|---|---:|"]
        for v in variants:
            md.append(f"| {v['reading']} | {v['ranking']} | {v['ratings']} | {v['separated']} | {v['tau']} |")
        md.append("")
        signal = content_signal(res.battles)
        md += ["**Content signal** (per judge: battles whose balanced difference s_a - s_b points to the set of the "
               "known order's better system, exact binomial test against 0.5; |d| = the size of that difference):", "",
               "| judge | towards the better set | p | mean signed d | max abs d |", "|---|---:|---:|---:|---:|"]
        for j, g in signal.items():
            md.append(f"| `{j}` | {g['towards_better']} / {g['n']} | {g['p']:.3f} | {g['mean_signed']:+.4f} | "
                      f"{g['max_abs']:.4f} |")
        md.append("")
    md += ["Calls per run (the cache makes a rerun send only what is missing):", "",
           "| run | seconds | requests | calls sent | cache hits | failures | prompt tokens |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for ph in phases:
        md.append(f"| {ph['phase']} | {ph['seconds']} | {ph['requests']} | {ph['calls']} | {ph['cache_hits']} | "
                  f"{ph['failures']} | {ph['prompt_tokens']} |")
    md.append("")
    data = {"label": label, "judges": [j.__dict__ for j in panel], "phases": phases, "recovered": ranking == EXPECTED,
            "kendall_tau_known_order": tau, "rule_variants": variants, "content_signal": signal,
            **res.to_dict()}
    return "\n".join(md), data, res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--input", type=Path, default=bl.DATA / "ev2r_human_eval" / "averitec_manual_eval_subset.jsonl")
    ap.add_argument("--scores", type=Path, default=bl.RESULTS / "ranking_scores.jsonl",
                    help="per-item Ev2R scores of the same systems (benchmarks/ranking/ranking.py)")
    ap.add_argument("--mechanical", action="store_true", help="run the scripted reference-overlap judge")
    ap.add_argument("--llama", action="store_true", help="start the local llama.cpp server (Gemma 3 270M) and judge")
    ap.add_argument("--judge", action="append", default=[], metavar="BASE_URL=MODEL[:FAMILY]")
    ap.add_argument("--threads", type=int, default=2, help="llama.cpp threads (per server)")
    ap.add_argument("--serve", action="append", default=[], choices=("0.5b", "1.5b"),
                    help="start the installer's Qwen2.5-Coder instruct server of this size (repeat for a panel: "
                         "one arena judged by every served model; scripts/install_llm_server.sh [--with-1.5b])")
    ap.add_argument("--pairs-per-claim", type=int, default=None)
    ap.add_argument("--max-tokens", type=int, default=4)
    ap.add_argument("--constrain-answers", action="store_true",
                    help="send the A/B/tie grammar with every request (llama.cpp servers; ev2r arena --constrain-answers)")
    ap.add_argument("--position-debias", choices=POSITION_DEBIAS, default="none",
                    help="ev2r arena --position-debias: probabilities decides by the balanced verdict probabilities")
    ap.add_argument("--debias-margin", type=float, default=0.05)
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cache", type=Path, default=None,
                    help="answer cache folder (default: the LLM client's, $EV2R_LLM_CACHE or ~/.cache/ev2r/llm)")
    ap.add_argument("--server-log", type=Path, default=None,
                    help="llama.cpp server log (default: ev2r_arena_llama.log in the system's temporary folder)")
    ap.add_argument("--out-dir", type=Path, default=bl.RESULTS)
    args = ap.parse_args(argv)

    from ev2r.ranking.arena import Judge, parse_judge_spec
    from ev2r.io.readers import read_items, write_jsonl
    from ev2r.ranking.rating import scores_table

    items = read_items(args.input, limit=args.limit)
    systems_ = systems(items)
    scores = scores_table([r for r in bl.read_jsonl(args.scores) if r["system"] in EXPECTED], "system", "ev2r") \
        if args.scores.exists() else None
    sections, data = [], {}
    args.out_dir.mkdir(parents=True, exist_ok=True)
    if args.mechanical:
        mech = mechanical_server()
        try:
            md, d, _ = arena_run("mechanical reference-overlap judge (scripted, not an LLM)", systems_,
                                 Judge("mechanical-overlap", mech.base_url, None), scores, args)
        finally:
            mech.close()
        sections.append(md)
        data["mechanical"] = d
    judges = [(f"`{j.model}` at {j.base_url}", j) for j in map(parse_judge_spec, args.judge)]
    server = None
    if args.llama:
        from ev2r.llm.local_server import GEMMA_ALIAS, LlamaServer, find_gemma_gguf

        log = args.server_log or Path(tempfile.gettempdir()) / "ev2r_arena_llama.log"
        server = LlamaServer(find_gemma_gguf(), alias=GEMMA_ALIAS, chat_format="gemma", threads=args.threads,
                             n_ctx=4096, log=log, ready_timeout=300.0)
        judges.append(("`gemma-3-270m` (Gemma 3 270M base, GGUF Q4_K_M, llama-cpp-python server, "
                       f"{args.threads} CPU threads)", Judge(server.model, server.base_url, "gemma")))
    served = []
    try:
        for label, judge in judges:
            md, d, res = arena_run(label, systems_, judge, scores, args, resume_demo=True)
            sections.append(md)
            data[judge.name] = d
            write_jsonl(res.battles, args.out_dir / f"arena_battles_{re.sub(r'[^A-Za-z0-9_.-]', '_', judge.name)}.jsonl")
        if args.serve:
            from ev2r.llm.local_server import INSTRUCT_MODELS, LlamaServer, find_instruct_gguf

            for size in args.serve:
                alias = INSTRUCT_MODELS[size][0]
                served.append(LlamaServer(find_instruct_gguf(size), alias=alias, threads=args.threads, n_ctx=8192,
                                          log=Path(tempfile.gettempdir()) / f"ev2r_arena_{alias}.log",
                                          ready_timeout=600.0))
            panel = [Judge(s.model, s.base_url, "qwen") for s in served]
            label = ("panel of " + " and ".join(f"`{s.model}`" for s in served) +
                     f" (Qwen2.5-Coder instruct GGUFs, llama-cpp-python servers, {args.threads} CPU thread(s) each)")
            md, d, res = arena_run(label, systems_, panel, scores, args)
            sections.append(md)
            data["panel"] = d
            write_jsonl(res.battles, args.out_dir / "arena_battles_panel.jsonl")
    finally:
        if server is not None:
            server.stop()
        for srv in served:
            srv.stop()
    machine = {k: v for k, v in bl.machine().items() if k not in ("torch_threads", "torch", "transformers")}
    head = ["# Arena: pairwise evidence battles judged in both orders", "",
            f"Command: `{bl.command()}`", "",
            f"Machine: {machine['platform']}, {machine['cpu_count']} CPUs, {machine['utc']}, 1-min load average "
            f"{machine['load_average_1m']} (shared with other jobs).", "",
            f"{len(items)} AVeriTeC claims (`{args.input.name}`), 4 constructed systems; expected order "
            f"{' > '.join(EXPECTED)}. Each battle is judged in both orders (" + (
                "each order's answer read as P(A), P(B), P(tie) from the log-probabilities; the battle goes to the "
                f"set whose probability averaged over both positions is ahead by more than {args.debias_margin}"
                if args.position_debias == "probabilities" else "a judge whose orders disagree gives a tie") +
            "; a failed or unparsable answer is a status, never a win). Ratings: Bradley-Terry with ties as half "
            "wins (`ev2r.ranking.rating`), 95% CI from bootstrap over claims. The Ev2R ranking compared with is the bundled "
            f"verifier's per-item Ev2R of the same systems (`{args.scores.name}`, from `benchmarks/ranking/ranking.py`).", ""]
    (args.out_dir / "arena.md").write_text("\n".join(head + sections), encoding="utf-8")
    (args.out_dir / "arena.json").write_text(json.dumps({"command": bl.command(), "machine": machine, **data},
                                                        indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    print(f"wrote {args.out_dir / 'arena.md'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
