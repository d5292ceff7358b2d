"""High-level entry points: build a configured :class:`~ev2r.metric.scorer.Ev2RScorer` and score.

>>> from ev2r.metric.factory import build_scorer
>>> from ev2r.io import evidence_from_text
>>> from ev2r.types import Item
>>> class Entails:                      # a stand-in verifier: every pair is entailed with p = 0.9
...     name = "entails"
...     def predict(self, premises, hypotheses):
...         import numpy as np
...         return np.tile([0.9, 0.05, 0.05], (len(premises), 1))
>>> scorer = build_scorer(verifier=Entails())    # rule-based facts, alpha 0.5 (ev2r.config.DEFAULTS)
>>> item = Item(id="1", claim="Paris is the capital of France.",
...             predicted_evidence=evidence_from_text("France's 1958 constitution names Paris as its capital."),
...             reference_evidence=evidence_from_text("The capital of France is Paris."), gold_label="supported")
>>> [s.ev2r for s in scorer.score([item])]      # 0.5 * F1 (1.0) + 0.5 * P(supported) (0.9)
[0.95]
"""

from __future__ import annotations

from pathlib import Path

from typing import Any, Callable, Optional, Sequence

from ev2r.facts.rules import RuleBasedDecomposer, get_rule_decomposer  # noqa: F401 (RuleBasedDecomposer re-exported)
from ev2r.config import BASELINE_SCORERS, DECOMPOSERS, DEFAULTS, ScorerConfig  # noqa: F401 (re-exported)
from ev2r.metric.combined import HybridCombiner
from ev2r.metric.scorer import SCORE_NAMES, Ev2RScorer, verifier_signature_fields
from ev2r.types import Item
# the verifier loaders live in ev2r.verifier.loading; importable from here as before
from ev2r.verifier.loading import (DEFAULT_DTYPE, check_device, clear_verifier_cache, get_verifier,  # noqa: F401
                                   proxy_verifier_option)


def build_scorer(config: Optional[ScorerConfig] = None, *, progress: Optional[Callable] = None,
                 **overrides: Any) -> Ev2RScorer:
    """Build an :class:`Ev2RScorer` from a :class:`~ev2r.config.ScorerConfig` and/or option values.

    ``build_scorer()`` is the shipped definition (:data:`ev2r.config.DEFAULTS`); ``build_scorer(alpha=0.3)``
    is ``build_scorer(DEFAULTS.replace(alpha=0.3))``; ``build_scorer(config, batch_size=64)`` applies the overrides
    to ``config``.

    Args:
        config: a whole configuration (None: :data:`ev2r.config.DEFAULTS`).
        progress: keyword only: called with the number of items done after each chunk (a progress bar); not part
            of the configuration.
        overrides: any :class:`~ev2r.config.ScorerConfig` field by name -- its documentation gives each field's
            values, ranges and sources: ``verifier``, ``proxy_verifier``, ``decomposer``, ``alpha``, ``replay``,
            ``replay_model``, ``llm_options``, ``reply_reading``, ``baselines``, ``device``, ``batch_size``,
            ``dtype``, ``ev2r``, ``chunk_size``, ``hybrid``, ``cache``, and the research hook ``threshold``,
            ``hybrid_columns``, ``admission``. ``baselines`` may be a list. ``cache`` is a folder for the on-disk
            cache of the verifier's pair probabilities and the admission reading's encodings
            (:mod:`ev2r.verifier.cache`; created when missing) or an opened
            :class:`ev2r.verifier.cache.DiskCache`; the scorer's ``cache`` attribute holds it and the signature is that
            of a scorer without it (verifier objects of your own are not cached). A ``proxy_verifier`` naming the
            verifier itself is no separate proxy verifier (:func:`ev2r.verifier.loading.proxy_verifier_option`).

    Raises:
        ValueError: ``config`` that is no ScorerConfig; a ``progress`` that is not callable; an override that is no
            field (naming it and the fields); a
            field outside its allowed values, naming the field and the allowed values; a ``cache`` folder that
            cannot be created or written, or a file there that is not an ev2r cache (naming ``cache``).
    """
    if config is None:
        config = DEFAULTS
    elif not isinstance(config, ScorerConfig):
        raise ValueError(f"config: expected an ev2r.config.ScorerConfig (e.g. DEFAULTS.replace(alpha=0.3)), "
                         f"got {type(config).__name__}")
    unknown = [k for k in overrides if k not in ScorerConfig.field_names()]
    if unknown:
        raise ValueError(f"{unknown[0]}: not a scorer option; allowed: {', '.join(ScorerConfig.field_names())} "
                         "(ev2r.config.ScorerConfig; options removed in ev2r 2.0: CHANGELOG.md)")
    if progress is not None and not callable(progress):
        raise ValueError(f"progress: expected a callable (done, total) or None, got {type(progress).__name__}")
    if overrides:
        config = config.replace(**overrides)
    return scorer_from_config(config, progress=progress)


def scorer_from_config(config: ScorerConfig, progress: Optional[Callable] = None) -> Ev2RScorer:
    """The :class:`Ev2RScorer` a (validated) :class:`~ev2r.config.ScorerConfig` describes.

    Raises:
        ValueError: ``decomposer="replay"`` without a ``replay`` file, or a verifier that cannot be loaded.
    """
    from ev2r.metric.admission_model import AdmissionModel, shared_encoder
    from ev2r.metric.admitted import AdmissionSettings
    from ev2r.metric.contradiction import ReferenceContradiction
    from ev2r.metric.proxy import NLIProxyScorer
    from ev2r.metric.reference import NLIReferenceScorer

    from ev2r.verifier.cache import open_cache

    c = config
    extras = hu_meteor_columns() if "hu-meteor" in c.baselines else {}
    if not c.ev2r:
        return Ev2RScorer(None, None, alpha=c.alpha, verifier_name="none", extra_scorers=extras, progress=progress,
                          chunk_size=1024)
    cache = open_cache(c.cache, option="cache")  # checked before any model loads
    # with a cache, a local checkpoint's weights load at the first pair it does not hold (a fully warm run never
    # loads them); a hub id's are loaded when the cache is opened (its cache key hashes the loaded weights)
    ver = (get_verifier(c.verifier, device=c.device, batch_size=c.batch_size, dtype=c.dtype, weights=cache is None)
           if isinstance(c.verifier, str) else c.verifier)
    ver = _cached(ver, cache, "verifier")
    # one check shared by recall and the proxy: the second reads the first's result
    contra = ReferenceContradiction(ver)
    if c.decomposer.startswith("rules"):
        ref = NLIReferenceScorer(ver, get_rule_decomposer(c.decomposer), threshold=c.threshold, contradiction=contra)
    elif c.decomposer == "replay":
        if not c.replay:
            raise ValueError("replay: --decomposer replay needs --replay FILE (recorded LLM outputs)")
        from ev2r.facts.replay import ReplayReferenceScorer

        from ev2r.llm.prompts import example_facts_of

        ref = ReplayReferenceScorer(c.replay, model=c.replay_model, scores_from=c.reply_reading or "strict",
                                    example_facts=example_facts_of)
    else:
        from ev2r.llm import LLMReferenceScorer

        llm = dict(c.llm_options or {})
        if c.reply_reading is not None:
            llm["scores_from"] = c.reply_reading
        ref = LLMReferenceScorer(**llm)
    proxy_ver, proxy_name = ver, None
    # a proxy spec naming the verifier itself is no separate proxy verifier (the CLI's reading, one definition)
    proxy_spec = proxy_verifier_option(c.verifier, c.proxy_verifier)
    if proxy_spec is not None:
        proxy_ver = (get_verifier(proxy_spec, device=c.device, batch_size=c.batch_size, dtype=c.dtype,
                                  option="--proxy-model", weights=cache is None)
                     if isinstance(proxy_spec, str) else proxy_spec)
        proxy_ver = _cached(proxy_ver, cache, "proxy-verifier")
        proxy_name = verifier_signature_fields(proxy_ver).get("verifier")
    admission = load_admission(c.admission)
    if cache is not None and isinstance(admission, AdmissionModel):
        import dataclasses

        admission = dataclasses.replace(admission, cache=cache)  # a copy: a model object given stays as it was
    scorer = Ev2RScorer(ref, NLIProxyScorer(proxy_ver, contradiction=contra, verifier_name=proxy_name),
                        alpha=c.alpha, verifier_fields=verifier_signature_fields(ver), extra_scorers=extras,
                        progress=progress, chunk_size=c.chunk_size,
                        combiner=HybridCombiner(device=c.device, columns=c.hybrid_columns) if c.hybrid else None,
                        admission=AdmissionSettings(admission))
    scorer.cache = cache
    if cache is not None and isinstance(admission, AdmissionModel):  # named in the run record before it encodes
        cache.encoder_key(admission.encoder if admission.encoder is not None else shared_encoder())
    return scorer


def _cached(verifier, cache, role: str):
    """``verifier`` reading and filling ``cache`` (:meth:`ev2r.verifier.nli.HFNLIVerifier.with_disk_cache`): a
    verifier ev2r loads; a verifier object of another class is returned as it is (it cannot be known by content)."""
    from ev2r.verifier.nli import HFNLIVerifier

    if cache is None or type(verifier) is not HFNLIVerifier:
        return verifier
    try:
        return verifier.with_disk_cache(cache, role)
    except ValueError as e:  # a hub id's weights, read for its cache key: named by the option that gave it
        raise ValueError(f"{'--proxy-model' if role == 'proxy-verifier' else '--model'} {e}") from None


def load_admission(spec):
    """The admission model a spec names: ``"bundled"`` (the package's), ``"none"`` (None: the rules alone), a
    folder holding a saved model, or a model object (returned as is).

    Raises:
        ValueError: a folder without a saved model, naming the missing file.
    """
    from ev2r.metric.admission_model import AdmissionModel

    if not isinstance(spec, str):
        return spec
    if spec == "none":
        return None
    try:
        return AdmissionModel.load(None if spec == "bundled" else Path(spec))
    except FileNotFoundError as e:
        raise ValueError(f"admission: {e}; give 'bundled', 'none' or a folder with weights.npz and "
                         "model.json") from None


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


def make_item_scorer(config: Optional[ScorerConfig] = None, **overrides: Any):
    """The scorer protocol of :mod:`adversarial`: ``items -> list[dict[score name, float | None]]``
    with keys precision, recall, f1, proxy, ev2r (None where an item failed), from the scorer
    :func:`build_scorer` builds (``config`` and ``overrides`` as there; its ``scorer`` attribute holds it).

    Raises:
        ValueError: as :func:`build_scorer`.
    """
    scorer = build_scorer(config, **overrides)

    def score_items(items: Sequence[Item]) -> list[dict]:
        out = []
        for s in scorer.score(items):
            row = {k: getattr(s, k) for k in SCORE_NAMES}
            row.update(s.extra_scores)
            out.append(row)
        return out

    score_items.scorer = scorer  # type: ignore[attr-defined]
    return score_items
