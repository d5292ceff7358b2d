"""High-level entry points: build a configured :class:`~ev2r.metric.scorer.Ev2RScorer` and score.

>>> from ev2r.metric.factory import build_scorer                                  # doctest: +SKIP
>>> scorer = build_scorer()          # bundled verifier, rule-based facts, alpha 0.5
>>> scores = scorer.score(items); summary = scorer.corpus(scores)
"""

from __future__ import annotations

import functools
from typing import Callable, Optional, Sequence

from ev2r.facts.rules import RuleBasedDecomposer, get_rule_decomposer  # noqa: F401 (RuleBasedDecomposer re-exported)
from ev2r.metric.scorer import SCORE_NAMES, Ev2RScorer
from ev2r.types import Item

#: Verifier precision used when none is given ("auto": bf16 where the hardware runs it natively).
DEFAULT_DTYPE = "auto"
DECOMPOSERS = ("rules", "rules-v1", "rules-v2", "replay", "llm")
BASELINE_SCORERS = ("hu-meteor",)


@functools.lru_cache(maxsize=4)
def _cached_verifier(spec: str, device: str, batch_size: int, dtype: str = "fp32"):
    from ev2r.verifier.nli import load_verifier

    try:  # load now: a checkpoint that cannot serve is one clear error, not a failure on every item
        ver = load_verifier(spec, device=device, batch_size=batch_size, dtype=dtype)
        ver._load()
    except (OSError, ValueError, RuntimeError, ImportError, AssertionError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ValueError(f"--model {spec!r}: cannot be loaded as a 3-way NLI verifier on {device}: {first}") from None
    return ver


def check_device(device: str) -> str:
    """Validate a torch device string for the verifier.

    Raises:
        ValueError: not a torch device, a device type the verifier cannot run on (allowed: cpu,
            cuda, cuda:N, mps), or CUDA / MPS requested where torch has none.
    """
    import torch

    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError):
        raise ValueError(f"--device: {device!r} is not a torch device (allowed: cpu, cuda, cuda:N, mps)") from None
    if dev.type not in ("cpu", "cuda", "mps"):
        raise ValueError(f"--device: {device!r}: the verifier runs on cpu, cuda, cuda:N or mps, not {dev.type}")
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(f"--device: {device!r} requested but torch has no CUDA here "
                             "(torch.cuda.is_available() is False); use cpu")
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise ValueError(f"--device: {device!r}: only {torch.cuda.device_count()} CUDA device(s) visible")
    if dev.type == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
        raise ValueError(f"--device: {device!r} requested but MPS is not available here; use cpu")
    return device


def get_verifier(spec: str = "bundled", device: Optional[str] = None, batch_size: int = 32, dtype: str = DEFAULT_DTYPE):
    """A (process-wide cached) verifier for ``spec``: ``"bundled"``, a checkpoint path or hub id,
    loaded (weights and tokenizer) before it is returned.

    ``dtype``: ``"auto"`` (bf16 on CUDA or on a CPU with native bf16, else fp32), ``"fp32"``,
    ``"bf16"`` or ``"int8"`` (CPU); see :class:`ev2r.verifier.nli.HFNLIVerifier`.

    Raises:
        ValueError: a bad ``device`` (:func:`check_device`), ``dtype`` or ``batch_size``, or a
            checkpoint that cannot be loaded as a 3-way NLI classifier (missing, 2-way, unnamed
            labels), naming it.
    """
    from ev2r.verifier.nli import default_device, resolve_dtype

    device = check_device(device or default_device())
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size: must be an integer >= 1, got {batch_size!r}")
    dtype = resolve_dtype(dtype, device)
    if dtype == "int8" and not device.startswith("cpu"):
        raise ValueError(f"dtype: int8 runs on device 'cpu' only, not {device!r} (use bf16 on CUDA)")
    return _cached_verifier(spec, device, batch_size, dtype)


def build_scorer(verifier: object = "bundled", decomposer: str = "rules", alpha: float = 0.5,
                 threshold: float = 0.5, support: str = "threshold", proxy_target: str = "gold",
                 replay: Optional[str] = None, replay_model: Optional[str] = None,
                 llm_options: Optional[dict] = None, baselines: Sequence[str] = (),
                 progress: Optional[Callable] = None, device: Optional[str] = None,
                 batch_size: int = 32, dtype: str = DEFAULT_DTYPE, ev2r: bool = True) -> Ev2RScorer:
    """Build an :class:`Ev2RScorer`.

    Args:
        verifier: ``"bundled"``, a checkpoint path / hub id, or a verifier object.
        decomposer: ``"rules"`` (offline default: ``rules-v2``, declarative statements), ``"rules-v1"``
            (question + answer sentence), ``"rules-v2"``, ``"replay"`` (needs ``replay``) or ``"llm"``
            (OpenAI-compatible server; ``llm_options`` go to :class:`ev2r.llm.LLMReferenceScorer`).
        alpha: Ev2R weight of F1 in [0, 1] (Akhtar et al. 2024, sec. 3.3).
        threshold, support: how a P(entailment) becomes support (see :mod:`ev2r.metric.reference`).
        proxy_target: ``"gold"`` or ``"human"`` (labelled comparison only; see :mod:`ev2r.metric.proxy`).
        baselines: extra per-item columns; ``"hu-meteor"`` adds ``hu_meteor`` and ``hu_meteor_q``.
        dtype: verifier precision, ``"auto"`` (default), ``"fp32"``, ``"bf16"`` or ``"int8"``
            (:func:`get_verifier`); ignored when ``verifier`` is an object.
        ev2r: False computes only the ``baselines`` columns: no verifier is loaded, no facts are
            made, and precision / recall / F1 / proxy / Ev2R stay None (needs at least one baseline).

    Raises:
        ValueError: an unknown option value, naming the option and the allowed values.
    """
    from ev2r.metric.proxy import NLIProxyScorer
    from ev2r.metric.reference import NLIReferenceScorer

    import numbers

    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise ValueError(f"alpha: expected a number in [0, 1], got {alpha!r}")
    alpha = float(alpha)
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
        raise ValueError(f"threshold: expected a number in [0, 1], got {threshold!r}")
    threshold = float(threshold)
    if baselines is None:
        baselines = ()
    if isinstance(baselines, str):
        baselines = (baselines,)
    if not isinstance(baselines, (list, tuple, set, frozenset)):
        raise ValueError(f"baselines: expected a list of names from {BASELINE_SCORERS}, got {baselines!r}")
    if replay and decomposer != "replay":
        raise ValueError(f"replay: a recorded-outputs file was given but decomposer is {decomposer!r}; "
                         "use decomposer='replay' (CLI: --decomposer replay) or drop --replay")
    if not isinstance(verifier, str) and not callable(getattr(verifier, "predict", None)):
        raise ValueError(f"verifier: expected 'bundled', a checkpoint path / hub id, or an object with "
                         f"predict(premises, hypotheses), got {type(verifier).__name__}")
    if decomposer not in DECOMPOSERS:
        raise ValueError(f"decomposer: {decomposer!r} is not one of {DECOMPOSERS}")
    for b in baselines:
        if b not in BASELINE_SCORERS:
            raise ValueError(f"scorer: {b!r} is not one of {BASELINE_SCORERS}")
    if not ev2r:
        if not baselines:
            raise ValueError(f"baselines: with ev2r=False at least one of {BASELINE_SCORERS} is needed "
                             "(there is nothing else to compute)")
        extras = {}
        if "hu-meteor" in baselines:
            extras.update(hu_meteor_columns())
        return Ev2RScorer(None, None, alpha=alpha, verifier_name="none", extra_scorers=extras, progress=progress,
                          chunk_size=1024)
    ver = (get_verifier(verifier, device=device, batch_size=batch_size, dtype=dtype)
           if isinstance(verifier, str) else verifier)
    if decomposer.startswith("rules"):
        ref = NLIReferenceScorer(ver, get_rule_decomposer(decomposer), threshold=threshold, support=support)
    elif decomposer == "replay":
        if not replay:
            raise ValueError("replay: --decomposer replay needs --replay FILE (recorded LLM outputs)")
        from ev2r.facts.replay import ReplayReferenceScorer

        ref = ReplayReferenceScorer(replay, model=replay_model)
    else:
        from ev2r.llm import LLMReferenceScorer

        ref = LLMReferenceScorer(**(llm_options or {}))
    extras = {}
    if "hu-meteor" in baselines:
        extras.update(hu_meteor_columns())
    return Ev2RScorer(ref, NLIProxyScorer(ver, target=proxy_target), alpha=alpha,
                      verifier_name=getattr(ver, "name", type(ver).__name__), extra_scorers=extras,
                      progress=progress)


def hu_meteor_columns() -> dict[str, Callable]:
    """Per-item Hungarian METEOR (AVeriTeC's evidence score) columns: question+answer and
    question-only, from :func:`claimalign.hu_meteor`.

    Raises:
        ValueError: nltk's punkt_tab / WordNet data cannot be found (checked here, before any item
            is scored, so a missing resource is one clear error and not a failure on every item).
    """
    from claimalign import hu_meteor
    from claimalign.nltk_data import require_nltk_data

    try:
        require_nltk_data()
    except RuntimeError as e:
        raise ValueError(f"baselines: hu-meteor needs nltk data: {e}") from None

    def pairs(ev):
        return [(p.question, p.answer) for p in ev.pairs]

    def column(variant: str):
        def fn(items: Sequence[Item]):
            return [hu_meteor(pairs(it.predicted_evidence), pairs(it.reference_evidence), variant=variant)
                    if it.reference_evidence.pairs else None for it in items]
        fn.signature = f"hu-meteor-{variant}"
        return fn

    return {"hu_meteor": column("qa"), "hu_meteor_q": column("q")}


def make_item_scorer(verifier: object = "bundled", decomposer: str = "rules", alpha: float = 0.5, **kwargs):
    """The scorer protocol of :mod:`adversarial`: ``items -> list[dict[score name, float | None]]``
    with keys precision, recall, f1, proxy, ev2r (None where an item failed)."""
    scorer = build_scorer(verifier=verifier, decomposer=decomposer, alpha=alpha, **kwargs)

    def score_items(items: Sequence[Item]) -> list[dict]:
        out = []
        for s in scorer.score(items):
            row = {k: getattr(s, k) for k in SCORE_NAMES}
            row.update(s.extra_scores)
            out.append(row)
        return out

    score_items.scorer = scorer  # type: ignore[attr-defined]
    return score_items
