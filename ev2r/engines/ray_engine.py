"""Score on a Ray cluster with the same numbers as locally (``ev2r score --engine ray``).

An optional engine (``pip install 'ev2r[ray]'``): nothing else imports Ray, and this module imports it only when a
run starts (:class:`RayUnavailableError` names the install command). :func:`score_ray` cuts the items into the
**chunks the local scorer would score together** (``Ev2RScorer.chunk_size`` consecutive positions) and maps them
over a fixed pool of actors, each holding one scorer built with the **same options** as the local path
(:func:`ev2r.metric.factory.build_scorer`); the same chunk gives the same verifier batches, so per-item numbers equal
the local run's to the last bit at the same dtype and batch size. Rows are written in input order through the local
row function, and the signature gains ``|engine:ray``.

Resuming, the run record and the checks of each reused row are the code both engines share
(:mod:`ev2r.engines.runs`): an interrupted run's rerun gives the numbers of an uninterrupted one. An exception inside
scoring is recorded on the item (status ``error``); a worker that dies loses only its chunk, which Ray retries on a
restarted actor.

With the LLM judge (``decomposer="llm"``) every request to the server first takes a permit from one cluster-wide
semaphore (:class:`RequestSemaphore`): at most ``llm_options["concurrency"]`` requests in flight on the whole
cluster (cache hits take none; a dead holder's permit is reclaimed after ``timeout + 60`` s). The LLM cache is
content-addressed files written by atomic rename, so give ``--llm-cache DIR`` on storage every node mounts at the
same path and every node sees every answer.
"""

from __future__ import annotations

import os
import pickle
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from ev2r.engines.ray_limiter import LEASE_SLACK_S, RayRequestLimiter, RequestSemaphore
from ev2r.engines.runs import (PART_SUFFIX, RUN_SUFFIX, RunInterrupted, absolute_paths, append_rows,
                               check_resumed_rows, check_scorer_options, chunk_grid, finish_run, output_lock,
                               output_row, plan_run)
from ev2r.types import CorpusScore, Item, ItemScore, LLMUsage

__all__ = ["ENGINES", "INSTALL_HINT", "PART_SUFFIX", "RUN_SUFFIX", "FORWARDED_ENV", "LEASE_SLACK_S",
           "RayUnavailableError", "import_ray", "check_engine_options", "RayScoreResult", "RequestSemaphore",
           "RayRequestLimiter", "ChunkScorer", "score_ray"]

ENGINES = ("local", "ray")
INSTALL_HINT = "pip install 'ev2r[ray]'"
#: Environment variables the scorer reads, forwarded to the workers of a cluster the run joins.
FORWARDED_ENV = ("NLTK_DATA", "EV2R_DEVICE", "EV2R_LLM_CACHE", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE",
                 "HF_HOME")


class RayUnavailableError(ImportError, ValueError):
    """Ray (with Ray Data) is not installed: the message names ``pip install 'ev2r[ray]'``. An
    :class:`ImportError` and a :class:`ValueError` (the CLI reports it as an unusable option)."""


def import_ray():
    """Import ``ray`` and ``ray.data``.

    Raises:
        RayUnavailableError: either is missing, naming ``pip install 'ev2r[ray]'``.
    """
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError as e:
        raise RayUnavailableError(f"--engine ray needs Ray with Ray Data, which is not installed here ({e}); "
                                  f"install the extra: {INSTALL_HINT}") from None
    return ray


def check_engine_options(engine: str = "local", ray_address: Optional[str] = None,
                         workers: Optional[int] = None) -> None:
    """Validate the engine options of ``ev2r score`` (before any work is done).

    Args:
        engine: ``"local"`` or ``"ray"``.
        ray_address: a Ray address (``auto``, ``ray://host:10001``, ``host:6379``; ``ev2r score`` reads it from
            ``$RAY_ADDRESS``, :func:`score_ray`'s ``address``); only with ``ray``.
        workers: number of scorer actors, an int >= 1; only with ``ray``.

    Raises:
        ValueError: an unknown engine, an address / ``--workers`` without ``--engine ray``,
            ``--workers`` < 1 or not an integer, an empty address -- naming the option and the
            allowed values.
    """
    if engine not in ENGINES:
        raise ValueError(f"--engine: {engine!r} is not one of {ENGINES}")
    if engine != "ray":
        given = [name for name, v in (("a Ray address", ray_address), ("--workers", workers)) if v is not None]
        if given:
            raise ValueError(f"{', '.join(given)}: only used with --engine ray (got --engine {engine})")
        return
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"--workers: must be an integer >= 1 (scorer actors), got {workers!r}")
    if ray_address is not None and (not isinstance(ray_address, str) or not ray_address.strip()):
        raise ValueError(f"address ($RAY_ADDRESS): expected an address such as 'auto', 'ray://HEAD:10001' or "
                         f"'HEAD:6379', got {ray_address!r}")


@dataclass
class RayScoreResult:
    """What :func:`score_ray` returns.

    Attributes:
        scores: one :class:`ItemScore` per input item, in input order (resumed ones rebuilt from OUT).
        rows: the output rows, in input order, as written to OUT.
        summary: the corpus summary; its signature ends in ``|engine:ray``.
        n_resumed: items taken from OUT (status ok, or no_reference / no_label) instead of being scored.
        n_scored: items scored in this run.
        workers: actors in the pool (0 when nothing was left to score).
        llm_run: LLM accounting summed over all chunks (calls, cache hits, tokens...), {} without LLM.
        seconds: wall time of the whole call, and ``ray_seconds`` of the Ray pipeline alone.
    """

    scores: list[ItemScore]
    rows: list[dict]
    summary: CorpusScore
    n_resumed: int = 0
    n_scored: int = 0
    workers: int = 0
    llm_run: dict = field(default_factory=dict)
    seconds: float = 0.0
    ray_seconds: float = 0.0


# -- the actor ---------------------------------------------------------------------------------------
class ChunkScorer:
    """The Ray Data actor: one scorer built by :func:`ev2r.metric.factory.build_scorer` from ``scorer_options``
    (the local path's options), scoring one chunk of items per call.

    Args:
        scorer_options: keyword arguments of :func:`ev2r.metric.factory.build_scorer` (no ``progress``).
        nltk_data: an nltk data folder to add (``--nltk-data``), or None.
        threads: torch intra-op threads in this actor (>= 1), normally its CPUs; None leaves torch's.
        limiter: a :class:`RequestSemaphore` actor handle capping LLM requests cluster-wide, or None.

    Raises:
        ValueError: as :func:`ev2r.metric.factory.build_scorer` (bad options, a model that cannot be loaded).
    """

    def __init__(self, scorer_options: dict, nltk_data: Optional[str] = None, threads: Optional[int] = None,
                 limiter: Any = None):
        if nltk_data:
            from claimalign.nltk_data import add_nltk_data_path

            add_nltk_data_path(nltk_data)
        if threads:
            import torch

            torch.set_num_threads(int(threads))
        from ev2r.metric.factory import build_scorer

        self.scorer = build_scorer(**scorer_options)
        self.signature = self.scorer.signature()
        self.client = getattr(self.scorer.reference_scorer, "client", None)
        if limiter is not None and self.client is not None:
            self.client.limiter = RayRequestLimiter(limiter)

    def __call__(self, batch: dict) -> dict:
        import numpy as np

        chunks, payloads = [], []
        for chunk, blob in zip(batch["chunk"], batch["items"]):
            items = pickle.loads(blob)
            scores = self.scorer.score(items)  # each ItemScore carries its own LLM usage (.llm)
            chunks.append(int(chunk))
            payloads.append(pickle.dumps(scores, protocol=pickle.HIGHEST_PROTOCOL))
        return {"chunk": np.array(chunks, dtype=np.int64), "scores": np.array(payloads, dtype=object),
                "signature": np.array([self.signature] * len(chunks), dtype=object)}


def _signature_task(scorer_options: dict, nltk_data: Optional[str]) -> str:
    """The scorer's signature, built on a worker (when every item was resumed and OUT has no run
    record)."""
    return ChunkScorer(scorer_options, nltk_data).signature


def _unwrap_ray_error(e: BaseException) -> Optional[str]:
    """The message of a ValueError / ImportError raised inside an actor (e.g. a model that cannot be
    loaded), found in the chain of Ray's wrappers; None if there is none."""
    seen = set()
    stack = [e]
    while stack:
        x = stack.pop()
        if x is None or id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, (ValueError, ImportError)) and not type(x).__module__.startswith("ray"):
            return str(x).strip().splitlines()[0] if str(x).strip() else type(x).__name__
        stack.extend([getattr(x, "cause", None), x.__cause__, x.__context__])
    text = str(e)
    for marker in ("ValueError: ", "ImportError: "):
        if marker in text:
            return text.split(marker, 1)[1].strip().splitlines()[0]
    return None


def _raise_actor_error(e: BaseException) -> None:
    """Re-raise ``e`` (caught around Ray calls) as one clear ValueError when an actor raised a
    ValueError / ImportError (:func:`_unwrap_ray_error`), else unchanged."""
    msg = _unwrap_ray_error(e)
    if msg is None:
        raise e
    raise ValueError(msg) from None


# -- the entry point -------------------------------------------------------------------------------------
def score_ray(items: Sequence[Item], output: Optional[str | os.PathLike] = None, *,
              scorer_options: Optional[dict] = None, address: Optional[str] = None,
              workers: Optional[int] = None, cpus_per_worker: int = 1, gpus_per_worker: Optional[float] = None,
              with_facts: bool = False, resume: bool = True, progress: Optional[Callable] = None,
              nltk_data: Optional[str] = None) -> RayScoreResult:
    """Score ``items`` on Ray (a running cluster, or a local instance) with one scorer per actor.

    The per-item numbers, the row order and the corpus summary are those of
    ``build_scorer(**scorer_options).score(items)`` (module docstring); the signature ends in
    ``|engine:ray``.

    Args:
        items: :class:`Item` objects (e.g. :func:`ev2r.read_items`), scored in this order.
        output: JSONL file for the rows (in input order), or None (nothing written, no resume).
        scorer_options: keyword arguments of :func:`ev2r.metric.factory.build_scorer` (``verifier``,
            ``decomposer``, ``dtype``, ``device``, ``batch_size``, ``llm_options``...; not
            ``progress``). A verifier object must be picklable (it is sent to every actor). Paths
            must be readable on every node (relative ones are made absolute here).
        address: Ray address (``auto``, ``ray://HEAD:10001``...); None: ``$RAY_ADDRESS`` if set,
            else a local Ray instance started for this call. When Ray is already initialised in
            this process, that instance is used and left running.
        workers: actors in the pool (>= 1); None: the cluster's CPUs // ``cpus_per_worker``. Never
            more than the chunks to score.
        cpus_per_worker: CPUs reserved per actor (>= 1), also its torch threads.
        gpus_per_worker: GPUs per actor; None: 1 when ``device`` starts with ``cuda``, else 0.
        with_facts: keep the atomic facts in the rows (True), and their reasons too (``"explain"``, ``--explain``).
        resume: with ``output``: skip items already in OUT (or OUT.part) with status ok (or no_reference / no_label) and
            the same ``item_hash``, if its run record has the same options; False: start afresh (OUT and OUT.part
            removed first).
        progress: callable(done, total) called on the driver as chunks finish.
        nltk_data: nltk data folder for the actors (``--nltk-data``); ``$NLTK_DATA`` is forwarded.

    Raises:
        RayUnavailableError: Ray is not installed (names ``pip install 'ev2r[ray]'``).
        ValueError: a bad option (as :func:`ev2r.metric.factory.build_scorer`, or ``workers`` /
            ``cpus_per_worker`` < 1), OUT written with other options or without a run record
            (:func:`ev2r.engines.runs.plan_run`), or a model that cannot be loaded on the workers
            (the workers' message).
        RunInterrupted: Ctrl-C (KeyboardInterrupt) on the driver; finished chunks are in OUT.part.
    """
    t_start = time.perf_counter()
    check_engine_options("ray", address, workers)
    if isinstance(cpus_per_worker, bool) or not isinstance(cpus_per_worker, int) or cpus_per_worker < 1:
        raise ValueError(f"cpus_per_worker: must be an integer >= 1, got {cpus_per_worker!r}")
    if gpus_per_worker is not None and not (isinstance(gpus_per_worker, (int, float)) and gpus_per_worker >= 0):
        raise ValueError(f"gpus_per_worker: must be a number >= 0, got {gpus_per_worker!r}")
    items = list(items)
    for k, it in enumerate(items):
        if not isinstance(it, Item):
            raise ValueError(f"items[{k}]: expected an ev2r.types.Item (see ev2r.read_items), got "
                             f"{type(it).__name__}")
    options = absolute_paths(dict(scorer_options or {}))
    probe = check_scorer_options(options)
    chunk_size = probe.chunk_size
    if gpus_per_worker is None:
        gpus_per_worker = 1 if str(options.get("device") or "").startswith("cuda") else 0
    nltk_data = os.path.abspath(nltk_data) if nltk_data else None
    ray = import_ray()

    with output_lock(output):  # one run per OUT (ev2r.engines.runs.output_lock)
        # -- what is left to score (ev2r.engines.runs) ---------------------------------------------
        plan = plan_run(items, output, options, resume, engine="ray", with_facts=with_facts)
        pending, part_path = plan.pending, plan.part_path

        # -- the Ray pipeline ----------------------------------------------------------------------------
        grid = chunk_grid(pending, chunk_size)  # the local chunk grid: positions [c * chunk_size, (c + 1) * chunk_size)
        new_scores: dict[int, ItemScore] = {}
        signature = plan.record["signature"]
        llm_run: dict[str, int] = {}
        n_workers = 0
        started_here = False
        t_ray = time.perf_counter()
        total = len(items)
        if progress:
            progress(len(items) - len(pending), total)
        try:
            if grid or signature is None:
                if not ray.is_initialized():
                    env = {k: os.environ[k] for k in FORWARDED_ENV if os.environ.get(k)}
                    if nltk_data:
                        env["NLTK_DATA"] = nltk_data
                    ray.init(address=address, include_dashboard=False, log_to_driver=False,
                             runtime_env={"env_vars": env} if env else None)
                    started_here = True
            if gpus_per_worker:
                have = float(ray.cluster_resources().get("GPU", 0))
                if have < gpus_per_worker:
                    raise ValueError(f"--device {options.get('device')}: each worker needs {gpus_per_worker:g} GPU(s) "
                                     f"but the Ray cluster has {have:g}; use --device cpu or a cluster with GPUs")
            if grid:
                n_workers, signature = _run_pipeline(ray, items, grid, options, nltk_data, workers, cpus_per_worker,
                                                     gpus_per_worker, part_path, with_facts, progress, total,
                                                     new_scores, llm_run)
            elif signature is None:  # everything resumed and no record of the signature: ask a worker
                try:
                    signature = ray.get(ray.remote(num_cpus=cpus_per_worker, num_gpus=gpus_per_worker)(
                        _signature_task).remote(options, nltk_data))
                except Exception as e:
                    _raise_actor_error(e)
        except KeyboardInterrupt:
            raise RunInterrupted(len(items) - len(pending) + len(new_scores), total, part_path) from None
        finally:
            if started_here:
                ray.shutdown()
        ray_seconds = time.perf_counter() - t_ray

        # -- rows in input order, summary -------------------------------------------------------------------
        from ev2r.metric.scorer import corpus_summary

        if plan.done and signature is not None:  # the actors' definition checks every reused row
            check_resumed_rows(plan, signature)

        rows, scores = finish_run(plan, items, new_scores, with_facts, signature)
    summary = corpus_summary(scores, f"{signature}|engine:ray")
    return RayScoreResult(scores=scores, rows=rows, summary=summary, n_resumed=len(items) - len(pending),
                          n_scored=len(pending), workers=n_workers, llm_run=llm_run,
                          seconds=time.perf_counter() - t_start, ray_seconds=ray_seconds)


def _run_pipeline(ray, items, grid, options, nltk_data, workers, cpus_per_worker, gpus_per_worker, part_path,
                  with_facts, progress, total, new_scores, llm_run) -> tuple[int, str]:
    """Run the chunks through a Ray Data actor pool; fills ``new_scores`` (position -> ItemScore),
    sums ``llm_run``, appends finished chunks to ``part_path``. Returns (pool size, the actors'
    signature)."""
    import logging

    chunks = sorted(grid)
    if workers is None:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        workers = max(1, cpus // cpus_per_worker)
    n_workers = max(1, min(workers, len(chunks)))
    limiter = None
    if options.get("decomposer") == "llm":
        llm = options.get("llm_options") or {}
        cap = llm.get("concurrency", 4)
        lease = float(llm.get("timeout", 120.0)) + LEASE_SLACK_S
        limiter = ray.remote(RequestSemaphore).options(num_cpus=0, max_concurrency=1000).remote(cap, lease)
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    records = [{"chunk": c, "items": pickle.dumps([items[k] for k in grid[c]], protocol=pickle.HIGHEST_PROTOCOL)}
               for c in chunks]
    ds = ray.data.from_items(records, override_num_blocks=len(records))
    ds = ds.map_batches(ChunkScorer, batch_size=1, batch_format="numpy",
                        compute=ray.data.ActorPoolStrategy(size=n_workers),
                        fn_constructor_kwargs={"scorer_options": options, "nltk_data": nltk_data,
                                               "threads": cpus_per_worker, "limiter": limiter},
                        num_cpus=cpus_per_worker, num_gpus=gpus_per_worker or None)
    signature = None
    done = total - sum(len(v) for v in grid.values())
    part = open(part_path, "a", encoding="utf-8", newline="\n") if part_path is not None else None
    try:
        for rec in ds.iter_rows():
            c = int(rec["chunk"])
            scores = pickle.loads(rec["scores"])
            positions = grid[c]
            if len(scores) != len(positions):  # pragma: no cover - a broken actor
                raise RuntimeError(f"chunk {c}: {len(scores)} scores for {len(positions)} items")
            for k, s in zip(positions, scores):
                new_scores[k] = s
            sig = str(rec["signature"])
            if signature not in (None, sig):  # pragma: no cover - nodes with other versions
                raise ValueError(f"workers disagree on the scorer signature ({signature!r} vs {sig!r}): install "
                                 "the same ev2r, torch and transformers on every node")
            signature = sig
            usage = LLMUsage.total(s.llm for s in scores)  # the chunk's LLM accounting: a sum over its items
            for key, v in (usage.to_dict() if usage is not None else {}).items():
                llm_run[key] = llm_run.get(key, 0) + v
            if part is not None:
                append_rows(part, [output_row(items[k], s, with_facts, sig) for k, s in zip(positions, scores)])
            done += len(positions)
            if progress:
                progress(done, total)
    except Exception as e:
        _raise_actor_error(e)
    finally:
        if part is not None:
            part.close()
        if limiter is not None:
            try:
                llm_run.update({f"cap_{k}": v for k, v in ray.get(limiter.stats.remote()).items()
                                if k in ("limit", "peak")})
            except Exception:  # pragma: no cover - the cap actor is gone; accounting only
                pass
    return n_workers, signature
