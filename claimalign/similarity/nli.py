"""NLI similarity: entailment probability in both directions, from any verifier object.

``claimalign`` imports nothing from ``ev2r``: any object with the verifier protocol
(:class:`VerifierLike`) works, including ``ev2r``'s verifiers and :class:`HFNLIAdapter` below.
"""

from __future__ import annotations

import os
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from claimalign.models import NLIModel, load_nli_model, predict_pairs
from claimalign.nli import VerifierLike, check_probabilities
from claimalign.similarity.base import check_positive_int, check_texts, finish_matrix

__all__ = ["VerifierLike", "NLISimilarity", "HFNLIAdapter", "NLI_COMBINE"]

NLI_COMBINE = ("mean", "min", "max")


class NLISimilarity:
    """Similarity from textual entailment in both directions.

    ``s(a, b) = combine(P_ent(premise=a, hypothesis=b), P_ent(premise=b, hypothesis=a))``.
    Mutual entailment is the NLI notion of "same meaning" (bidirectional entailment, as in
    Kuhn et al. 2023, semantic entropy; Pado et al. 2009 for MT evaluation); it is the backend
    meant to separate negation and argument swaps, which lexical and embedding scores rate as
    near-identical (a failure shown in *Examining the Metrics for Document-Level Claim
    Extraction in Czech and Slovak*). Values in [0, 1]; symmetric for ``mean``/``min``/``max``.

    Args:
        verifier: object with ``predict(premises, hypotheses) -> (n, 3)`` and ``name``
            (:class:`VerifierLike`).
        combine: ``"mean"`` (default: partial credit when one side is more specific),
            ``"min"`` (both directions must entail: strict equivalence) or ``"max"``.

    ``matrix(left, right)``: sequences of str, lengths m and k -> float64 array (m, k).
    Each distinct (premise, hypothesis) pair is sent to the verifier once.

    Raises:
        ValueError: ``combine`` not one of ``NLI_COMBINE``; a verifier without ``predict``;
            a verifier output that is not (n, 3) probabilities.
    """

    def __init__(self, verifier: VerifierLike, combine: str = "mean"):
        if combine not in NLI_COMBINE:
            raise ValueError(f"combine: {combine!r} is not one of {NLI_COMBINE}")
        if not callable(getattr(verifier, "predict", None)):
            raise ValueError("verifier: expected an object with predict(premises, hypotheses) -> (n, 3) array")
        self.verifier = verifier
        self.combine = combine

    @property
    def name(self) -> str:
        return f"nli-{self.combine}:{getattr(self.verifier, 'name', type(self.verifier).__name__)}"

    def _entailment(self, pairs: List[Tuple[str, str]]) -> Dict[Tuple[str, str], float]:
        uniq = sorted(set(pairs))
        if not uniq:
            return {}
        probs = check_probabilities(self.verifier.predict([p for p, _ in uniq], [h for _, h in uniq]), len(uniq))
        return {pair: float(p) for pair, p in zip(uniq, probs[:, 0])}

    def matrix(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        a = check_texts(left, "left")
        b = check_texts(right, "right")
        if not a or not b:
            return np.zeros((len(a), len(b)), dtype=np.float64)
        fwd = [(x, y) for x in a for y in b]
        bwd = [(y, x) for x in a for y in b]
        ent = self._entailment(fwd + bwd)
        f = np.array([ent[p] for p in fwd]).reshape(len(a), len(b))
        r = np.array([ent[p] for p in bwd]).reshape(len(a), len(b))
        op = {"mean": lambda u, v: (u + v) / 2.0, "min": np.minimum, "max": np.maximum}[self.combine]
        return finish_matrix(op(f, r), (len(a), len(b)))


class HFNLIAdapter:
    """Minimal :class:`VerifierLike` over a Hugging Face sequence-classification NLI checkpoint
    (for benchmarks; ``ev2r.verifier.nli.HFNLIVerifier`` is the full verifier, with long-premise
    windows and a signature name).

    Loaded on first use by :func:`claimalign.models.load_nli_model` in the checkpoint's stored
    dtype; class order read from ``config.id2label`` (:func:`claimalign.nli.map_nli_labels`), never
    assumed. Inference is :func:`claimalign.models.predict_pairs`: the pair is encoded as a
    sentence pair, truncated to ``max_length`` tokens (``only_first``: the premise is cut),
    float64 softmax.

    Args:
        path: checkpoint directory (or hub id).
        batch_size: pairs per forward pass (>= 1).
        max_length: token limit per pair (>= 16).
        device: torch device string.
        label_order: class names per output index, for a checkpoint whose ``config.id2label`` does
            not name the NLI classes (e.g. ``("entailment", "neutral", "contradiction")``).

    ``predict(premises, hypotheses)``: equal-length sequences of n strings -> float64 (n, 3),
    columns P(entailment), P(neutral), P(contradiction). Texts are NFC-normalised and a
    special-token string in them ("[SEP]") is tokenised as text.

    Raises:
        ValueError: bad arguments, unequal lengths, labels that are not NLI classes.
    """

    def __init__(self, path: str, batch_size: int = 32, max_length: int = 256, device: str = "cpu",
                 label_order: Optional[Sequence[str]] = None):
        check_positive_int(batch_size, "batch_size", 1)
        check_positive_int(max_length, "max_length", 16)
        self.path = str(path)
        self.batch_size = batch_size
        self.max_length = max_length
        self.device = device
        self.label_order = tuple(label_order) if label_order is not None else None
        self._nli: Optional[NLIModel] = None

    @property
    def name(self) -> str:
        return f"hf-nli:{os.path.basename(os.path.normpath(self.path))}"

    def _load(self) -> NLIModel:
        if self._nli is None:
            self._nli = load_nli_model(self.path, device=self.device, dtype=None, label_order=self.label_order)
        return self._nli

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        p = check_texts(premises, "premises")
        h = check_texts(hypotheses, "hypotheses")
        if len(p) != len(h):
            raise ValueError(f"premises/hypotheses: lengths differ ({len(p)} vs {len(h)})")
        if not p:
            return np.zeros((0, 3), dtype=np.float64)
        m = self._load()
        return predict_pairs(m.model, m.tokenizer, p, h, max_length=self.max_length, batch_size=self.batch_size,
                             columns=m.columns, truncation="only_first", guard=m.guard, precision="float64",
                             device=self.device)
