"""The Ev2R scorer: reference-based F1 + proxy-reference score, per item and per corpus.

    Ev2R = alpha * F1 + (1 - alpha) * proxy,   alpha = 0.5 by default
    (Akhtar, Schlichtkrull, Vlachos 2024, "Ev2R: Evaluating Evidence Retrieval in Automated
    Fact-Checking", arXiv 2411.05375, sec. 3.3)

Per item: precision, recall, F1 (:mod:`ev2r.metric.reference`), proxy (:mod:`ev2r.metric.proxy`), Ev2R, the
facts with their support, and a status. An item whose reference-based part or proxy failed keeps
the other part's numbers, has ``ev2r = None`` and a non-ok status; it is counted in the corpus's
``n_failed`` and left out of the means (never scored as 0).

Every corpus result carries a signature (sacrebleu style) pinning what changes a number, e.g.
``ev2r:0.1.0|ref:nli|decomp:rules-v1|support:p>=0.5|prem:qa-pair-max+twin|verifier:ev2r-minilm-nli@3f2a...|
proxy:nli-gold|agg:qa-pair-max|map:v1|alpha:0.5|transformers:5.24.0|torch:2.13.0``.
"""

from __future__ import annotations

import collections
import functools
from typing import Callable, Mapping, Optional, Sequence

from ev2r.config import DEFAULTS
from ev2r.labels import LABEL_MAPPING_ID
from ev2r.metric.combined import HYBRID_NAME
from ev2r.scores import ev2r_combine  # noqa: F401 (re-exported)
from ev2r.signature import Signature, exact_number, package_version
from ev2r.types import CorpusScore, Item, ItemScore, LLMUsage, STATUS_OK, mean_or_none

SCORE_NAMES = ("precision", "recall", "f1", "proxy", "ev2r")


def verifier_signature_fields(verifier) -> dict[str, str]:
    """The signature fields a verifier declares: its ``signature_fields()`` (``verifier``: name and
    revision, ``window``: token window and long-premise aggregation, for
    :class:`ev2r.verifier.nli.HFNLIVerifier`), or ``{"verifier": name}`` for a verifier object that
    declares none (the :class:`~ev2r.verifier.nli.Verifier` protocol needs only ``predict`` and ``name``)."""
    declare = getattr(verifier, "signature_fields", None)
    if callable(declare):
        return {str(k): str(v) for k, v in declare().items()}
    return {"verifier": getattr(verifier, "name", type(verifier).__name__)}


@functools.lru_cache(maxsize=1)
def _malloc_trim():
    """glibc's ``malloc_trim`` (None where the C library has none: macOS, musl, Windows)."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc.malloc_trim
    except (OSError, AttributeError):
        return None


def return_freed_memory() -> None:
    """Hand the C heap's free pages back to the system (glibc ``malloc_trim(0)``; nothing where there is none).

    Called after each chunk: the tokenizer's and the verifier's temporary buffers of a chunk are freed, but glibc
    keeps the freed pages of its arenas, so without it the resident memory of a long run grows with the number of
    items (100-200 MB over 1,000 AVeriTeC items, benchmarks/results/memory_1000.md). No number changes; it costs
    milliseconds per chunk.
    """
    trim = _malloc_trim()
    if trim is not None:
        trim(0)

class Ev2RScorer:
    """Scores items the Ev2R way.

    Args:
        reference_scorer: a :class:`~ev2r.metric.reference.ReferenceScorer` (NLI, replay or LLM), or None
            to compute only the ``extra_scorers`` (e.g. HU-METEOR alone: no verifier is needed).
        proxy_scorer: an object with ``score_proxy(items)`` and ``signature_fields()``
            (:class:`~ev2r.metric.proxy.NLIProxyScorer`), or None to skip the proxy (Ev2R is then None).
        alpha: weight of F1 in [0, 1].
        verifier_name: the verifier's ``name`` for the signature (when ``verifier_fields`` is not given).
        verifier_fields: the verifier's signature fields (:func:`verifier_signature_fields`); default:
            those of the ``verifier`` the reference or proxy scorer holds, with ``verifier_name``.
        extra_scorers: name -> callable(items) -> list[float | None], extra per-item columns
            (e.g. the Hungarian METEOR baseline); their names enter the signature.
        progress: optional callable(done, total) called as chunks complete.
        chunk_size: items per verifier pass (bounds memory; progress granularity).
        combiner: optional :class:`~ev2r.metric.combined.HybridCombiner`: adds ``ev2r_hybrid`` (and
            its columns) to every item after the other scores; its fields enter the signature.
        admission: what the admission stage reads with: an :class:`ev2r.metric.admitted.AdmissionSettings`, or the
            learned reading of non-evidence itself (an :class:`ev2r.metric.admission_model.AdmissionModel`), or None
            for its rules alone (:mod:`ev2r.metric.admission`); its name enters the signature (``adm``).

    Raises:
        ValueError: ``alpha`` outside [0, 1] or ``chunk_size`` < 1.
    """

    def __init__(self, reference_scorer, proxy_scorer=None, alpha: float = DEFAULTS.alpha, verifier_name: str = "none",
                 extra_scorers: Optional[dict[str, Callable]] = None, progress: Optional[Callable] = None,
                 chunk_size: int = DEFAULTS.chunk_size, verifier_fields: Optional[Mapping[str, str]] = None,
                 combiner=None, admission=None):
        if not (0.0 <= alpha <= 1.0):
            raise ValueError(f"alpha: expected a value in [0, 1], got {alpha!r}")
        if chunk_size < 1:
            raise ValueError(f"chunk_size: must be >= 1, got {chunk_size}")
        self.reference_scorer = reference_scorer
        self.proxy_scorer = proxy_scorer
        self.alpha = alpha
        if verifier_fields is None:  # the NLI verifier the reference / proxy scorer holds declares them
            ver = getattr(reference_scorer, "verifier", None) or getattr(proxy_scorer, "verifier", None)
            verifier_fields = {**(verifier_signature_fields(ver) if ver is not None else {}), "verifier": verifier_name}
        self.verifier_fields = dict(verifier_fields)
        self.extra_scorers = dict(extra_scorers or {})
        self.progress = progress
        self.chunk_size = chunk_size
        self.combiner = combiner
        from ev2r.metric.admitted import AdmissionSettings

        self.settings = admission if isinstance(admission, AdmissionSettings) else AdmissionSettings(admission)
        self.cache = None  # the on-disk cache build_scorer(cache=DIR) opened (ev2r.verifier.cache), else None

    @property
    def admission(self):
        """The learned reading of non-evidence the admission stage reads with (:attr:`settings`), or None."""
        return self.settings.model

    def _verifiers(self) -> list:
        """The verifier objects the scores read: the reference scorer's, then the proxy's (for the ``data`` digest)."""
        return [v for v in (getattr(self.reference_scorer, "verifier", None),
                            getattr(self.proxy_scorer, "verifier", None))
                if v is not None]

    # -- signature ----------------------------------------------------------------------------
    def signature(self) -> Signature:
        """The :class:`~ev2r.signature.Signature` of this scorer: package version, the reference
        scorer's, verifier's and proxy scorer's declared fields, label mapping, alpha, extra columns, the
        combination's fields, the digests of the declared scoring constants (``const``, ``hybrid-const``:
        :func:`ev2r.metric.definition.signature_fields`), the digest of the data files and admission model it reads by
        content (``data``: :func:`ev2r.metric.definition.data_digest`), transformers and torch versions, in that
        order."""
        from ev2r._version import __version__

        ref, proxy = self.reference_scorer, self.proxy_scorer
        parts = [{"ev2r": __version__},
                 {"adm": self.settings.name if ref is not None or proxy is not None else "none"},
                 {"ref": "none"} if ref is None else ref.signature_fields(),
                 self.verifier_fields,
                 {"proxy": "none"} if proxy is None else proxy.signature_fields()]
        if ref is not None or proxy is not None:  # else no Ev2R is computed
            parts.append({"map": LABEL_MAPPING_ID.split(":", 1)[1], "alpha": exact_number(self.alpha)})
        parts.append({f"extra-{name}": getattr(self.extra_scorers[name], "signature", "1")
                      for name in sorted(self.extra_scorers)})
        if self.combiner is not None:
            parts.append(self.combiner.signature_fields())
        if ref is not None or proxy is not None:  # the digests of the declared scoring constants
            from ev2r.metric.definition import data_digest, signature_fields as constants_fields

            parts.append({**constants_fields(hybrid=self.combiner is not None),
                          "data": data_digest(self.admission, self._verifiers())})
        parts.append({"transformers": package_version("transformers"), "torch": package_version("torch")})
        return Signature.from_parts(*parts)

    # -- scoring ------------------------------------------------------------------------------
    def score(self, items: Sequence[Item]) -> list[ItemScore]:
        """Per-item scores, in input order (one :class:`ItemScore` per item).

        Args:
            items: an iterable of :class:`~ev2r.types.Item` (e.g. from :func:`ev2r.read_items`).

        Raises:
            ValueError: ``items`` is not an iterable of :class:`~ev2r.types.Item` (a string, a dict
                or a row that was not read with :func:`ev2r.io.readers.item_from_row`), naming the position.
        """
        if isinstance(items, (str, bytes, dict)) or not hasattr(items, "__iter__"):
            raise ValueError(f"items: expected a list of ev2r.types.Item (see ev2r.read_items / "
                             f"ev2r.io.readers.item_from_row), got {type(items).__name__}")
        items = list(items)
        for k, it in enumerate(items):
            if not isinstance(it, Item):
                raise ValueError(f"items[{k}]: expected an ev2r.types.Item (build one from a row with "
                                 f"ev2r.io.readers.item_from_row), got {type(it).__name__}")
        out: list[ItemScore] = []
        for start in range(0, len(items), self.chunk_size):  # LLM accounting rides on each ItemScore.llm
            chunk = items[start:start + self.chunk_size]
            out.extend(self._score_chunk(chunk))
            return_freed_memory()
            if self.progress:
                self.progress(len(out), len(items))
        return out

    def _isolated(self, fn, items, make_failure):
        """Run a batch scorer; if it raises, rerun item by item so that one item's failure is
        recorded on that item (status ``error``) and the others keep their results."""
        try:
            return list(fn(items))
        except Exception as e:
            if len(items) == 1:
                return [make_failure(f"{type(e).__name__}: {e}")]
        out = []
        for item in items:
            try:
                out.extend(fn([item]))
            except Exception as e:  # recorded on this item only
                out.append(make_failure(f"{type(e).__name__}: {e}"))
        return out

    def _score_chunk(self, items: Sequence[Item]) -> list[ItemScore]:
        from ev2r.metric.admitted import admit_items, item_record

        # the stage, once per item: every part of the score is given these readings and takes its view (for_part)
        admitted = admit_items(items, self.settings)
        scores = self._score_chunk_admitted(items, admitted)
        for it, s in zip(items, scores):  # the stage's decisions, for explain and the report
            try:
                s.admission = item_record(it, [d["predicted"] for d in s.contradicted_pairs or ()], admitted)
            except Exception:  # an item the stage cannot read: its scores already carry the error
                s.admission = []
        return scores

    def _score_chunk_admitted(self, items: Sequence[Item], admitted) -> list[ItemScore]:
        from ev2r.metric.proxy import ProxyResult
        from ev2r.metric.reference import ReferenceResult

        def ref_fail(msg):
            return ReferenceResult(status="error", error=f"reference-based scoring failed: {msg}")

        def prox_fail(msg):
            return ProxyResult(None, None, "error", f"proxy scoring failed: {msg}")

        if self.reference_scorer is not None:
            refs = self._isolated(_with_admitted(self.reference_scorer.score_reference, admitted), items,
                                  ref_fail)
        else:  # extra columns only (e.g. HU-METEOR alone): an item without reference still fails
            refs = [ReferenceResult() if not it.reference_evidence.is_empty else
                    ReferenceResult(status="no_reference", error="no reference evidence to compare with")
                    for it in items]
        proxies = (self._isolated(_with_admitted(self.proxy_scorer.score_proxy, admitted), items, prox_fail)
                   if self.proxy_scorer is not None else [None] * len(items))
        for k, r in enumerate(refs):  # a verifier returning NaN / out-of-range values fails that item
            vals = [v for v in (r.precision, r.recall, r.f1) if v is not None]
            if any(not (0.0 <= v <= 1.0) for v in vals):
                refs[k] = ref_fail(f"score outside [0, 1] or NaN: {vals}")
        for k, p in enumerate(proxies):
            if p is not None and p.proxy is not None and not (0.0 <= p.proxy <= 1.0):
                proxies[k] = prox_fail(f"proxy outside [0, 1] or NaN: {p.proxy}")
        extras = {}
        for name, fn in self.extra_scorers.items():
            try:
                extras[name] = list(fn(items))
            except Exception as e:  # the extra column fails as a whole; the main scores stand
                extras[name] = e
        scores = []
        for k, (item, ref, prox) in enumerate(zip(items, refs, proxies)):
            s = ItemScore(id=item.id, row=item.row, precision=ref.precision, recall=ref.recall, f1=ref.f1,
                          predicted_facts=ref.predicted_facts, reference_facts=ref.reference_facts,
                          llm=LLMUsage.total([ref.llm, prox.llm if prox is not None else None]))
            statuses, errors = [], []
            if ref.status != STATUS_OK:
                statuses.append(ref.status)
                errors.append(ref.error or ref.status)
            if prox is not None:
                s.proxy = prox.proxy
                s.proxy_premises = list(getattr(prox, "premises", None) or [])
                s.proxy_decided_by = getattr(prox, "decided_by", None)
                if prox.status != STATUS_OK:
                    statuses.append(prox.status)
                    errors.append(prox.error or prox.status)
                elif getattr(prox, "note", None):  # a score that stands, read with less than the whole input
                    errors.append(prox.note)
            vetoed = getattr(ref, "contradicted_pairs", None) or (getattr(prox, "contradicted_pairs", None)
                                                                  if prox is not None else None) or {}
            s.contradicted_pairs = [{"predicted": k, "reference": r.pair_index, "premise": r.premise,
                                     "entailment": r.entailment, "neutral": r.neutral, "contradiction": r.contradiction}
                                    for k, r in sorted(vetoed.items())]
            if s.f1 is not None and s.proxy is not None:
                s.ev2r = ev2r_combine(s.f1, s.proxy, self.alpha)
            for name, vals in extras.items():
                if isinstance(vals, Exception):
                    s.extra_scores[name] = None
                    errors.append(f"{name}: {type(vals).__name__}: {vals}")
                else:
                    s.extra_scores[name] = vals[k]
            s.extra_scores.update(ref.extra_scores)  # the backend's own columns (NLI: graded_precision, ...)
            if statuses:
                s.status = statuses[0]
            if errors:
                s.error = "; ".join(errors)
            scores.append(s)
        if self.combiner is not None:
            apply = _with_admitted(self.combiner.apply, admitted)
            try:
                apply(items, scores)
            except Exception:  # again item by item: an item's failure is recorded on that item only
                for item, s in zip(items, scores):
                    try:
                        apply([item], [s])
                    except Exception as e:
                        s.extra_scores[HYBRID_NAME] = None
                        msg = f"{HYBRID_NAME}: {type(e).__name__}: {e}"
                        s.error = msg if not s.error else f"{s.error}; {msg}"
        return scores

    def corpus(self, scores: Sequence[ItemScore]) -> CorpusScore:
        """Means over ok items (values that are None are left out), counts and the signature."""
        return corpus_summary(scores, self.signature())


def _with_admitted(method: Callable, admitted) -> Callable:
    """``method`` given the chunk's admission readings as its ``admitted`` keyword where it takes one (the scorers of
    this package); a part that takes none (a duck-typed scorer) is called as it is and reads pairs its own way."""
    import inspect

    try:
        takes = "admitted" in inspect.signature(method).parameters
    except (TypeError, ValueError):  # a builtin or a callable without a signature
        takes = False
    return functools.partial(method, admitted=admitted) if takes else method


def corpus_summary(scores: Sequence[ItemScore], signature: str) -> CorpusScore:
    """The corpus summary of per-item scores (what :meth:`Ev2RScorer.corpus` returns): means over
    items whose status is ok (None values left out), ``n``, ``n_failed``, failures by status, and
    the given ``signature``. ``ev2r_hybrid`` is None unless every ok item has it (the rows' ``error``
    says why one lacks it). Used by engines that score items in other processes
    (:mod:`ev2r.engines.ray_engine`), so a corpus is summarised one way whichever engine scored it.

    Args:
        scores: :class:`~ev2r.types.ItemScore` objects, in any order.
        signature: the scorer's signature string (:meth:`Ev2RScorer.signature`).
    """
    ok = [s for s in scores if s.ok]
    failures = collections.Counter(s.status for s in scores if not s.ok)
    extra_names = sorted({k for s in scores for k in s.extra_scores})
    extra = {k: mean_or_none([s.extra_scores.get(k) for s in ok]) for k in extra_names}
    if HYBRID_NAME in extra and any(s.extra_scores.get(HYBRID_NAME) is None for s in ok):
        extra[HYBRID_NAME] = None  # a mean over fewer items than the others would mislead; rows say why
    return CorpusScore(
        n=len(scores), n_failed=len(scores) - len(ok),
        precision=mean_or_none([s.precision for s in ok]), recall=mean_or_none([s.recall for s in ok]),
        f1=mean_or_none([s.f1 for s in ok]), proxy=mean_or_none([s.proxy for s in ok]),
        ev2r=mean_or_none([s.ev2r for s in ok]), signature=signature,
        extra=extra,
        failures=dict(failures),
    )
