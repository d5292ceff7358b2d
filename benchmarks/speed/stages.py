"""Where the time of ``ev2r score`` goes: a per-stage account.

Runs what ``ev2r score INPUT -o OUT`` runs -- :func:`ev2r.io.readers.read_items`,
:func:`ev2r.metric.factory.build_scorer` with the defaults, :func:`ev2r.engines.local_engine.score_local`
writing the rows -- in this process, with timers wrapped around the functions of each stage. Each second
is counted once, in the innermost stage running (a stack: a stage's own time excludes the stages it calls),
so the rows add up to the wall time; "other" is what no stage covers (the scorer's bookkeeping, Ev2R and
F1 arithmetic, Python overhead).

Stages:

* ``reading the input``: reading and normalising the input (:func:`read_items`);
* ``decomposition (facts)``: the rule decomposer (``decompose``), both sides;
* ``premise rules``: which pairs are premises (:func:`ev2r.metric.reference.evidence_pairs`, the
  combiner's ``_kept``: both sides' pairs for the alignments);
* ``pruning``: the lexical top-k premise filter (:func:`ev2r.metric.prefilter.top_k_premises`);
* ``verifier: tokenise`` / ``verifier: forward`` / ``verifier: windows+other``, separately for the
  fact-premise pairs (precision/recall) and the proxy's (premise, claim) pairs: the tokenizer calls, the
  model's forward passes (a forward hook), and the rest of ``predict`` (windows of long premises and
  hypotheses, de-duplication, aggregation);
* ``METEOR (hybrid)``: the METEOR matrices of ``hybrid_meteor`` / ``verified_meteor`` (with their
  Hungarian alignment), ``METEOR (hu_meteor)`` the official baseline column when asked (``--hu-meteor``);
* ``admission (rules)``: the admission stage's reading of each side's pairs (:func:`ev2r.metric.admitted.readings`:
  the rules, near-copies, restatements), without the learned reading inside it;
* ``admission reading (learned)``: ``admission-v1``'s features (:meth:`AdmissionModel.features` /
  ``encode``: the MiniLM sentence encoder and the lexical features), wherever it is asked;
* ``alignment (Hungarian)``: :func:`claimalign.align` (the METEOR columns' assignments);
* ``write``: the output rows (JSON, atomic file writes).

Outside the timed scoring, and reported beside it: ``load`` (:func:`build_scorer`, the verifier's weights and the
admission model's sentence encoder, in this fresh process; imports not included, ``import`` is their seconds) and
``warm-up`` (two items scored once: first-call costs such as WordNet, punkt and the kernels; the verifier's cache,
the admission reading's caches emptied after it). ``end to end`` adds them to the scoring's wall time: what ``ev2r
score`` costs in a fresh process, less the CLI's own start.

Counts beside the seconds: the (premise, hypothesis) pairs asked of the verifier per kind, the distinct
pairs after de-duplication and the model rows after windowing, the tokens of those rows, the tokens computed on
(padding included) and the padding's share, the forward passes. ``--length-bucket`` / ``--dtype`` set the verifier's
batch-invariant padding granularity and compute precision (default: the verifier's own). The machine line holds the
CPU's bf16/AMX flags and the 1-minute load average at the start and at the end of each run.

Usage (from the repository root; time it on an idle machine)::

    python benchmarks/speed/stages.py --input ../shared/data/ev2r_human_eval/averitec_manual_eval_subset.jsonl \\
        --input ../shared/data/ev2r_human_eval/averitec_shared_task_dev.jsonl --out benchmarks/results/stages

writes ``stages.md`` and ``stages.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402


class Clock:
    """Exclusive per-stage seconds: a stack of running stages; each finished stage adds its own time
    (elapsed minus the time of the stages it called) to its total."""

    def __init__(self):
        self.own: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self.stack: list[list] = []  # [name, start, child seconds]

    @contextlib.contextmanager
    def stage(self, name: str):
        self.stack.append([name, time.perf_counter(), 0.0])
        try:
            yield
        finally:
            nm, t0, child = self.stack.pop()
            dt = time.perf_counter() - t0
            self.own[nm] = self.own.get(nm, 0.0) + dt - child
            self.calls[nm] = self.calls.get(nm, 0) + 1
            if self.stack:
                self.stack[-1][2] += dt

    def wrap(self, owner, attr: str, name):
        """Replace ``owner.attr`` (a function or method) by a timed one; ``name`` a str or a callable giving it."""
        fn = getattr(owner, attr)

        @functools.wraps(fn)
        def timed(*a, **k):
            with self.stage(name() if callable(name) else name):
                return fn(*a, **k)
        setattr(owner, attr, timed)


def account(path: str, clock: Clock, hu_meteor: bool, model: str, length_bucket=None, dtype: str = "auto") -> dict:
    """Score ``path`` as ``ev2r score`` does, under ``clock``; returns counts and the wall time."""
    import os

    load_start = os.getloadavg()[0]
    t_import = time.perf_counter()
    import ev2r.engines.local_engine as le
    import ev2r.facts.rules as rules
    import ev2r.metric.combined as comb
    import ev2r.metric.prefilter as pf
    import ev2r.metric.proxy as proxy
    import ev2r.metric.reference as ref
    import claimalign.averitec as av
    from ev2r.io.readers import read_items
    from ev2r.metric.factory import build_scorer
    import ev2r.metric.admission as adm
    import ev2r.metric.admitted as admitted
    from ev2r.metric.admission_model import AdmissionModel, shared_encoder
    import claimalign.align  # noqa: F401  (the package's `align` names the function, not this module)
    calign = sys.modules["claimalign.align"]
    t_import = time.perf_counter() - t_import

    kind = ["facts"]
    counts: dict[str, int] = {"pairs asked (facts)": 0, "pairs asked (proxy)": 0}
    for cls in (rules.RuleBasedDecomposer, rules.DeclarativeDecomposer):
        clock.wrap(cls, "decompose", "decomposition (facts)")
    for mod in (ref, proxy):
        clock.wrap(mod, "evidence_pairs", "premise rules")
    clock.wrap(comb, "_kept", "premise rules")
    clock.wrap(ref, "top_k_premises", "pruning")
    clock.wrap(pf, "top_k_premises", "pruning")
    clock.wrap(av, "meteor_matrix", "METEOR (hybrid)")
    clock.wrap(admitted.Admitted, "readings", "admission (rules)")
    for attr in ("features", "encode"):
        clock.wrap(AdmissionModel, attr, "admission reading (learned)")
    import claimalign as _ca

    clock.wrap(calign, "align", "alignment (Hungarian)")
    _ca.align = av.align = calign.align  # the names combined.py and claimalign.averitec call
    import claimalign
    import ev2r.engines.runs as runs

    clock.wrap(claimalign, "hu_meteor", "METEOR (hu_meteor)")
    for fn in ("append_rows", "write_atomic"):
        clock.wrap(runs, fn, "write")
        if hasattr(le, fn):
            clock.wrap(le, fn, "write")

    def in_kind(k):
        def deco(fn):
            @functools.wraps(fn)
            def inner(*a, **kw):
                kind.append(k)
                try:
                    return fn(*a, **kw)
                finally:
                    kind.pop()
            return inner
        return deco

    ref.NLIReferenceScorer.score_reference = in_kind("facts")(ref.NLIReferenceScorer.score_reference)
    proxy.NLIProxyScorer._distributions = in_kind("proxy")(proxy.NLIProxyScorer._distributions)
    t_read = time.perf_counter()
    items = read_items(path)
    t_read = time.perf_counter() - t_read
    t_load = time.perf_counter()
    scorer = build_scorer(verifier=model, baselines=("hu-meteor",) if hu_meteor else (), dtype=dtype)
    ver = scorer.reference_scorer.verifier
    if length_bucket is not None:
        ver.length_bucket = None if length_bucket == 0 else length_bucket
    nli = ver._load()  # load the models before timing the scoring
    shared_encoder().encode(["warm-up"])  # loads the encoder before timing
    t_load = time.perf_counter() - t_load
    tok, model_obj = ver._tokenizer, ver._model
    orig_predict = ver.predict

    def predict(premises, hypotheses):
        counts[f"pairs asked ({kind[-1]})"] += len(premises)
        with clock.stage(f"verifier: windows+other ({kind[-1]})"):
            return orig_predict(premises, hypotheses)
    ver.predict = predict

    class TimedTokenizer:
        def __init__(self, inner):
            self.inner = inner

        def __call__(self, *a, **k):
            with clock.stage(f"verifier: tokenise ({kind[-1]})"):
                return self.inner(*a, **k)

        def __getattr__(self, name):
            return getattr(self.inner, name)
    timed_tok = TimedTokenizer(tok)
    ver._tokenizer = timed_tok
    if nli is not None:
        nli.tokenizer = timed_tok
    fwd: list = []

    def before(module, args):
        fwd.append(clock.stage(f"verifier: forward ({kind[-1]})"))
        fwd[-1].__enter__()

    def after(module, args, output):
        fwd.pop().__exit__(None, None, None)  # returns None: the output is kept

    model_obj.register_forward_pre_hook(before)
    model_obj.register_forward_hook(after)
    n_fwd = [0]

    def count_fwd(module, args):
        n_fwd[0] += 1

    model_obj.register_forward_pre_hook(count_fwd)
    # warm-up (timed apart): the first items pay one-off costs (bf16 kernels, sentence splitter, WordNet)
    t_warm = time.perf_counter()
    scorer.score(items[:2])
    t_warm = time.perf_counter() - t_warm
    ver._cache.clear()
    adm._CACHE.clear()
    adm._EMBED.clear()
    n_fwd[0] = 0
    clock.own.clear()
    clock.calls.clear()
    counts.update(dict.fromkeys(counts, 0))
    ver.n_model_pairs = ver.n_model_tokens = ver.n_padded_tokens = 0
    with tempfile.TemporaryDirectory() as tmp:
        t0, c0 = time.perf_counter(), time.process_time()
        with clock.stage("other"):
            le_result = le.score_local(scorer, items, str(Path(tmp) / "out.jsonl"), options={"benchmark": "stages"})
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    clock.own["reading the input"] = t_read
    counts["distinct pairs to the model, windowed (rows)"] = ver.n_model_pairs
    counts["model tokens (real)"] = ver.n_model_tokens
    counts["model tokens (padded)"] = ver.n_padded_tokens
    counts["padding share"] = round(1 - ver.n_model_tokens / max(1, ver.n_padded_tokens), 4)
    counts["verifier forward passes"] = n_fwd[0]
    counts["items"] = len(items)
    failed = [s for s in le_result.scores if s.status == "error"]
    counts["items failed"] = len(failed)
    return {"wall_s": wall + t_read, "cpu_s": round(cpu, 2), "import_s": round(t_import, 2),
            "load_s": round(t_load, 2), "warmup_s": round(t_warm, 2),
            "end_to_end_s": round(t_import + t_load + t_warm + wall + t_read, 2),
            "verifier": ver.name, "length_bucket": ver.length_bucket,
            "load_average_1m": [round(load_start, 2), round(os.getloadavg()[0], 2)], "counts": counts}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", action="append", required=True, help="items to score (repeat: one fresh run each)")
    ap.add_argument("--model", default="bundled")
    ap.add_argument("--hu-meteor", action="store_true", help="also the official HU-METEOR column")
    ap.add_argument("--length-bucket", type=int, default=None,
                    help="the verifier's padding granularity in tokens (1: unpadded; 0: the old padded batches); "
                         "default the verifier's own")
    ap.add_argument("--dtype", default="auto", help="the verifier's compute precision (default auto)")
    ap.add_argument("--out", default=str(bl.RESULTS / "stages"))
    args = ap.parse_args(argv)
    import subprocess
    import json

    if len(args.input) > 1:  # one fresh process per input: no state (caches, loaded model) carried over
        results = []
        for inp in args.input:
            with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as fh:
                out = fh.name
            subprocess.run([sys.executable, __file__, "--input", inp, "--model", args.model, "--out", out[:-5],
                            "--dtype", args.dtype]
                           + (["--hu-meteor"] if args.hu_meteor else [])
                           + (["--length-bucket", str(args.length_bucket)] if args.length_bucket is not None else []),
                           check=True)
            results.append(json.loads(Path(out).read_text())["runs"][0])
    else:
        clock = Clock()
        r = account(args.input[0], clock, args.hu_meteor, args.model, args.length_bucket, args.dtype)
        results = [{"input": bl.display_path(args.input[0]), **r, "stages": dict(clock.own),
                    "calls": dict(clock.calls)}]
    names = sorted({s for r in results for s in r["stages"]}, key=lambda s: -max(r["stages"].get(s, 0) for r in results))
    lines = ["# Where the time of `ev2r score` goes (per-stage account)", "", f"Command: `{bl.command()}`",
             f"Machine: {bl.machine()}", "",
             "Each second counted once, in the innermost stage running (module docstring of `benchmarks/speed/stages.py`); "
             "model load and a two-item warm-up timed apart (the verifier's and the admission reading's caches emptied "
             "after it); one fresh process per input. Verifier: "
             + ", ".join(sorted({f"`{r.get('verifier')}` length_bucket={r.get('length_bucket')}" for r in results}))
             + "; 1-min load average at the start / end of each run: "
             + ", ".join(f"{Path(r['input']).stem} {r.get('load_average_1m')}" for r in results) + ".", "",
             "| stage | " + " | ".join(f"{Path(r['input']).stem} s (share)" for r in results) + " |",
             "|---|" + "---:|" * len(results)]
    for s in names:
        lines.append(f"| {s} | " + " | ".join(f"{r['stages'].get(s, 0.0):.2f} ({100 * r['stages'].get(s, 0.0) / r['wall_s']:.0f}%)"
                                             for r in results) + " |")
    lines.append("| **wall (scoring)** | " + " | ".join(f"**{r['wall_s']:.2f}**" for r in results) + " |")
    lines.append("| CPU s of the scoring (this process) | " + " | ".join(f"{r.get('cpu_s', 0):.2f}" for r in results) + " |")
    for key, label in (("import_s", "import"), ("load_s", "load (verifier, admission encoder)"),
                       ("warmup_s", "warm-up (2 items)"), ("end_to_end_s", "**end to end** (import + load + warm-up + wall)")):
        lines.append(f"| {label} | " + " | ".join(f"{r.get(key, 0):.2f}" for r in results) + " |")
    lines += ["", "| count | " + " | ".join(Path(r["input"]).stem for r in results) + " |", "|---|" + "---:|" * len(results)]
    for c in results[0]["counts"]:
        lines.append(f"| {c} | " + " | ".join(str(r["counts"].get(c, "")) for r in results) + " |")
    Path(args.out + ".md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    Path(args.out + ".json").write_text(json.dumps({"command": bl.command(), "machine": bl.machine(), "runs": results},
                                                   indent=1) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
