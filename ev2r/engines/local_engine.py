"""Score in this process with rows kept as they are scored (``ev2r score -o`` without ``--engine ray``).

The items are scored chunk by chunk on the scorer's own chunk grid (``Ev2RScorer.chunk_size``
consecutive input positions, the chunks ``Ev2RScorer.score`` makes), so an uninterrupted run gives
exactly the numbers of ``scorer.score(items)``. With an output file ``OUT`` the run goes as the Ray
engine's (:mod:`ev2r.engines.runs`, shared by both):

* the run record ``OUT.ev2r-run.json`` is written first (options, signature, item hashes);
* each scored chunk is appended to ``OUT.part`` and flushed, so an interrupted run keeps every
  finished chunk; Ctrl-C raises :class:`ev2r.engines.runs.RunInterrupted` (a KeyboardInterrupt
  saying how to resume);
* at the end the rows, in input order, replace ``OUT`` by atomic rename and ``OUT.part`` is removed;
* the run holds ``OUT.lock`` throughout (:func:`ev2r.engines.runs.output_lock`): a second run into the same
  ``OUT`` is refused while it lasts;
* a rerun with the same ``OUT`` and options skips every row whose ``item_hash`` and status ``ok``
  match and scores the rest in their chunks: after an interruption (whole chunks written) the final
  file is byte for byte that of an uninterrupted run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from ev2r.engines.runs import (RunInterrupted, append_rows, check_resumed_rows, chunk_grid, finish_run, output_lock,
                               output_row, plan_run, write_record)
from ev2r.verifier.cache import cache_record
from ev2r.types import CorpusScore, Item, ItemScore

__all__ = ["LocalScoreResult", "score_local"]


@dataclass
class LocalScoreResult:
    """What :func:`score_local` returns.

    Attributes:
        scores: one :class:`ItemScore` per input item, in input order (resumed ones rebuilt from OUT).
        rows: the output rows, in input order, as written to OUT.
        summary: the corpus summary (the scorer's signature).
        n_resumed: items taken from an earlier run into OUT instead of being scored.
        n_scored: items scored in this run.
    """

    scores: list[ItemScore]
    rows: list[dict]
    summary: CorpusScore
    n_resumed: int = 0
    n_scored: int = 0


def score_local(scorer, items: Sequence[Item], output: Optional[str | os.PathLike] = None, *,
                options: Optional[dict] = None, with_facts: bool = False, resume: bool = True,
                progress: Optional[Callable] = None) -> LocalScoreResult:
    """Score ``items`` with ``scorer`` in this process, writing and resuming ``output`` (module docstring).

    Args:
        scorer: an :class:`ev2r.metric.scorer.Ev2RScorer` (e.g. from :func:`ev2r.metric.factory.build_scorer`),
            or a function of one argument -- the number of items left to score after the resume -- that
            returns one: it is called only when an item is left (or the earlier run recorded no signature),
            so a finished run is not rescored and its model is not loaded.
        items: :class:`Item` objects, scored in this order.
        output: JSONL file for the rows, or None (nothing written, nothing resumed).
        options: the options ``scorer`` was built with (``build_scorer`` keyword arguments), recorded
            in the run record and compared on resume; None: ``{}``.
        with_facts: keep the atomic facts in the rows (True), and their reasons too (``"explain"``, ``--explain``).
        resume: with ``output``: reuse an earlier run's rows (status ok or no_reference, same ``item_hash``, same
            options); False: start afresh (OUT and OUT.part removed first).
        progress: callable(done, total) called as chunks finish (resumed items count as done).

    Raises:
        ValueError: ``items`` holds something that is not an :class:`Item`; with ``resume``, OUT
            without a run record, or written with other options / signature, or holding rows of items
            not in this run (:func:`ev2r.engines.runs.plan_run`); another run holds OUT
            (:class:`ev2r.engines.runs.OutputLocked`).
        RunInterrupted: Ctrl-C (KeyboardInterrupt) while scoring; finished chunks are in OUT.part.
        OSError: OUT cannot be written.
    """
    items = list(items)
    for k, it in enumerate(items):
        if not isinstance(it, Item):
            raise ValueError(f"items[{k}]: expected an ev2r.types.Item (see ev2r.read_items), got "
                             f"{type(it).__name__}")
    lazy = callable(scorer) and not hasattr(scorer, "score")
    with output_lock(output):
        signature = None if lazy else scorer.signature()
        plan = plan_run(items, output, dict(options or {}), resume, engine="local", with_facts=with_facts,
                        signature=signature)
        if lazy:  # built now (a model loads on its first pass only): this run's signature is known before any reuse
            scorer = scorer(len(plan.pending))
            signature = scorer.signature()
            old = plan.record["signature"]
            if old is not None and old != signature:
                raise ValueError(f"-o/--output: {output} was scored under another signature ({old!r}, this run "
                                 f"{signature!r}: another model, version or setting); resuming would mix numbers: "
                                 f"pass another -o, or --no-resume to score afresh and replace {output}")
            check_resumed_rows(plan, signature)  # rows an interrupted run left under a record without a signature
            plan.record["signature"] = signature
            write_record(plan)  # an interruption from here on leaves a record that names the definition
        cache = cache_record(dict(options or {}), scorer)
        if cache is not None and plan.record.get("cache") != cache:  # the cache's definition keys, known now
            plan.record["cache"] = cache
            write_record(plan)
        return _run_plan(scorer, plan, items, signature, with_facts, progress)


def _run_plan(scorer, plan, items, signature, with_facts, progress) -> LocalScoreResult:
    """Score what ``plan`` left, chunk by chunk, appending to ``OUT.part``; then :func:`finish_run`."""
    from ev2r.metric.scorer import corpus_summary

    total = len(items)
    done = total - len(plan.pending)
    if progress:
        progress(done, total)
    new_scores: dict[int, ItemScore] = {}
    part = open(plan.part_path, "a", encoding="utf-8", newline="\n") if plan.part_path is not None else None
    try:
        grid = chunk_grid(plan.pending, scorer.chunk_size) if plan.pending else {}  # nothing left: no scorer built
        for _, positions in sorted(grid.items()):
            scores = scorer.score([items[k] for k in positions])  # one chunk: the batches of a full run
            for k, s in zip(positions, scores):
                new_scores[k] = s
            if part is not None:
                append_rows(part, [output_row(items[k], s, with_facts, signature) for k, s in zip(positions, scores)])
            done += len(positions)
            if progress:
                progress(done, total)
    except KeyboardInterrupt:
        raise RunInterrupted(done, total, plan.part_path) from None
    finally:
        if part is not None:
            part.close()
    rows, scores = finish_run(plan, items, new_scores, with_facts, signature)
    return LocalScoreResult(scores=scores, rows=rows, summary=corpus_summary(scores, signature),
                            n_resumed=plan.n_resumed, n_scored=len(plan.pending))
