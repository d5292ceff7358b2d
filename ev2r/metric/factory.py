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

from typing import Callable, Optional, Sequence

from ev2r.facts.rules import RuleBasedDecomposer, get_rule_decomposer  # noqa: F401 (RuleBasedDecomposer re-exported)
from ev2r.config import BASELINE_SCORERS, DECOMPOSERS, DEFAULTS, ScorerConfig  # noqa: F401 (re-exported)
from ev2r.metric.combined import HybridCombiner
from ev2r.metric.scorer import SCORE_NAMES, Ev2RScorer, verifier_signature_fields
from ev2r.types import Item
# the verifier loaders live in ev2r.verifier.loading; importable from here as before
from ev2r.verifier.loading import (DEFAULT_DTYPE, check_device, clear_verifier_cache, get_verifier,  # noqa: F401
                                   proxy_verifier_option)


def build_scorer(verifier: object = DEFAULTS.verifier, decomposer: str = DEFAULTS.decomposer,
                 alpha: float = DEFAULTS.alpha, threshold: float = DEFAULTS.threshold,
                 support: str = DEFAULTS.support, proxy_target: str = DEFAULTS.proxy_target,
                 replay: Optional[str] = None, replay_model: Optional[str] = None,
                 llm_options: Optional[dict] = None, baselines: Sequence[str] = DEFAULTS.baselines,
                 progress: Optional[Callable] = None, device: Optional[str] = DEFAULTS.device,
                 batch_size: int = DEFAULTS.batch_size, dtype: str = DEFAULTS.dtype, ev2r: bool = DEFAULTS.ev2r,
                 unanswerable: str = DEFAULTS.unanswerable, config: Optional[ScorerConfig] = None,
                 hybrid: bool = DEFAULTS.hybrid, premise_top_k: Optional[int] = DEFAULTS.premise_top_k,
                 hybrid_columns: str = DEFAULTS.hybrid_columns, reply_reading: Optional[str] = None,
                 contradiction: bool = DEFAULTS.contradiction,
                 proxy_verifier: object = DEFAULTS.proxy_verifier, admission: object = DEFAULTS.admission,
                 proxy_credit: bool = DEFAULTS.proxy_credit, meteor_match: str = DEFAULTS.meteor_match,
                 copy_reading: str = DEFAULTS.copy_reading, restatement: str = DEFAULTS.restatement,
                 cache: object = DEFAULTS.cache) -> Ev2RScorer:
    """Build an :class:`Ev2RScorer` from option values, or from a :class:`~ev2r.config.ScorerConfig`.

    Args:
        verifier: ``"bundled"``, a checkpoint path / hub id, or a verifier object.
        proxy_verifier: the proxy's own verifier (a spec as ``verifier``, e.g. ``"averitec"``, or an object);
            None (default): ``verifier``. Its name enters the signature as ``proxy-verifier``.
        decomposer: ``"rules"`` (offline default: ``rules-v2``, declarative statements), ``"rules-v1"``
            (question + answer sentence), ``"rules-v2"``, ``"replay"`` (needs ``replay``) or ``"llm"``
            (OpenAI-compatible server; ``llm_options`` go to :class:`ev2r.llm.LLMReferenceScorer`).
        alpha: Ev2R weight of F1 in [0, 1] (Akhtar et al. 2024, sec. 3.3).
        threshold, support: how a P(entailment) becomes support (see :mod:`ev2r.metric.reference`).
        proxy_target: ``"gold"`` or ``"human"`` (labelled comparison only; see :mod:`ev2r.metric.proxy`).
        unanswerable: what AVeriTeC's Unanswerable answers ("No answer could be found.") give with a
            rule-based decomposer: ``"drop"`` (no fact) or ``"statement"`` (:data:`ev2r.config.UNANSWERABLE_MODES`).
        baselines: extra per-item columns; ``"hu-meteor"`` adds ``hu_meteor`` and ``hu_meteor_q``.
        dtype: verifier precision, ``"auto"`` (default), ``"fp32"``, ``"bf16"`` or ``"int8"``
            (:func:`get_verifier`); ignored when ``verifier`` is an object.
        ev2r: False computes only the ``baselines`` columns: no verifier is loaded, no facts are
            made, and precision / recall / F1 / proxy / Ev2R stay None (needs at least one baseline).
        hybrid: True (default) adds the combined score ``ev2r_hybrid`` and its columns ``hu_meteor`` and
            ``hybrid_embedding`` (:mod:`ev2r.metric.combined`; ignored with ``ev2r=False``); False leaves them out.
        hybrid_columns: ``"weighted"`` (default: the component columns with a weight above 0) or ``"all"``.
        premise_top_k: check each fact against only its k premises of highest lexical overlap
            (:mod:`ev2r.metric.prefilter`); None checks every premise.
        reply_reading: how an LLM reply gives precision/recall with ``decomposer="llm"`` or
            ``"replay"`` (:data:`ev2r.config.REPLY_READINGS`; None: ``checks`` live, ``strict`` replayed).
        contradiction: True (default) leaves the predicted pairs the reference contradicts out of the premises
            of recall, the proxy and the combined alignments (:mod:`ev2r.metric.contradiction`).
        admission: the learned reading of non-evidence (:class:`ev2r.config.ScorerConfig`'s ``admission``:
            ``"bundled"``, ``"none"``, a model folder or an object).
        proxy_credit: credit the proxy only with what each answer adds to its question
            (:func:`ev2r.metric.proxy.credit_over_question`).
        meteor_match: ``"exact"`` or ``"fuzzy"``, how the combined score's METEOR columns match words
            (:data:`ev2r.config.METEOR_MATCH_MODES`).
        copy_reading: ``"near"``, ``"exact"`` or ``"verified"``, how a predicted pair that copies a gold pair is read
            (:data:`ev2r.config.COPY_READINGS`, :func:`ev2r.metric.admission.copy_reading`).
        restatement: ``"lexical"`` or ``"mutual"``, how a restatement of the claim is found
            (:data:`ev2r.config.RESTATEMENT_READINGS`).
        cache: a folder for the on-disk cache of the verifier's pair probabilities and the admission reading's
            encodings across runs (:mod:`ev2r.verifier.cache`; created when missing), an opened
            :class:`ev2r.verifier.cache.DiskCache`, or None (default: none). The scorer's ``cache`` attribute holds
            it; the signature is that of a scorer without it. Verifier objects of your own are not cached.
        config: a whole configuration instead of the option values (which must then be left at
            their defaults: an option passed with its default value cannot be told apart from one
            left out); the defaults are :data:`ev2r.config.DEFAULTS`.

    Raises:
        ValueError: an unknown option value, naming the option and the allowed values; a ``cache`` folder that
            cannot be created or written, or a file there that is not an ev2r cache (naming ``cache``).
    """
    options = dict(verifier=verifier, decomposer=decomposer, alpha=alpha, threshold=threshold, support=support,
                   proxy_target=proxy_target, replay=replay, replay_model=replay_model, llm_options=llm_options,
                   baselines=baselines, device=device, batch_size=batch_size, dtype=dtype, ev2r=ev2r,
                   unanswerable=unanswerable, hybrid=hybrid, premise_top_k=premise_top_k,
                   hybrid_columns=hybrid_columns, reply_reading=reply_reading, contradiction=contradiction,
                   proxy_verifier=proxy_verifier, admission=admission, proxy_credit=proxy_credit,
                   meteor_match=meteor_match, copy_reading=copy_reading,
                   restatement=restatement, cache=cache)
    if config is None:
        config = ScorerConfig(**options)
    else:
        if not isinstance(config, ScorerConfig):
            raise ValueError(f"config: expected an ev2r.config.ScorerConfig (e.g. DEFAULTS.replace(alpha=0.3)), "
                             f"got {type(config).__name__}")
        if isinstance(options["baselines"], (list, tuple)):
            options["baselines"] = tuple(options["baselines"])  # [] and () are the same choice
        changed = [k for k, v in options.items() if v is not getattr(DEFAULTS, k) and v != getattr(DEFAULTS, k)]
        if changed:
            raise ValueError(f"config: given together with {', '.join(changed)}; put them in the config "
                             "(config.replace(...))")
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
    ver = (get_verifier(c.verifier, device=c.device, batch_size=c.batch_size, dtype=c.dtype)
           if isinstance(c.verifier, str) else c.verifier)
    ver = _cached(ver, cache, "verifier")
    # one check shared by recall and the proxy: the second reads the first's result
    contra = ReferenceContradiction(ver) if c.contradiction else None
    if c.decomposer.startswith("rules"):
        ref = NLIReferenceScorer(ver, get_rule_decomposer(c.decomposer, c.unanswerable), threshold=c.threshold,
                                 support=c.support, premise_top_k=c.premise_top_k, contradiction=contra)
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
                                  option="--proxy-model")
                     if isinstance(proxy_spec, str) else proxy_spec)
        proxy_ver = _cached(proxy_ver, cache, "proxy-verifier")
        proxy_name = verifier_signature_fields(proxy_ver).get("verifier")
    admission = load_admission(c.admission)
    if cache is not None and isinstance(admission, AdmissionModel):
        import dataclasses

        admission = dataclasses.replace(admission, cache=cache)  # a copy: a model object given stays as it was
    scorer = Ev2RScorer(ref, NLIProxyScorer(proxy_ver, target=c.proxy_target, contradiction=contra,
                                            verifier_name=proxy_name, credit=c.proxy_credit), alpha=c.alpha,
                        verifier_fields=verifier_signature_fields(ver), extra_scorers=extras, progress=progress,
                        chunk_size=c.chunk_size,
                        combiner=(HybridCombiner(device=c.device, columns=c.hybrid_columns,
                                                 meteor_match=c.meteor_match) if c.hybrid else None),
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
    return verifier.with_disk_cache(cache, role)


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


def make_item_scorer(verifier: object = DEFAULTS.verifier, decomposer: str = DEFAULTS.decomposer,
                     alpha: float = DEFAULTS.alpha, **kwargs):
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
