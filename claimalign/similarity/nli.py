"""NLI similarity: entailment probability in both directions, from any verifier object.

``claimalign`` imports nothing from ``ev2r``: any object with the verifier protocol
(:class:`VerifierLike`) works, including ``ev2r``'s verifiers and :class:`HFNLIAdapter` below.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Protocol, Sequence, Tuple, runtime_checkable

import numpy as np

from claimalign.textio import guard_special_tokens
from claimalign.similarity.base import check_texts, finish_matrix

__all__ = ["VerifierLike", "NLISimilarity", "HFNLIAdapter", "NLI_COMBINE", "map_nli_labels", "check_probabilities"]

NLI_COMBINE = ("mean", "min", "max")

_LABEL_ALIASES = {
    "entailment": 0, "entails": 0, "entailed": 0, "supports": 0, "supported": 0,
    "neutral": 1, "not enough info": 1, "not enough information": 1, "nei": 1,
    "contradiction": 2, "contradicts": 2, "refutes": 2, "refuted": 2,
}


def check_probabilities(probs: Any, n: int, source: str = "verifier") -> np.ndarray:
    """Validate what a verifier's ``predict`` returned for ``n`` pairs: shape (n, 3), finite, each
    value in [0, 1] (tolerance 1e-6) and each row summing to 1 (tolerance 1e-3). Returns a float64
    copy clipped to [0, 1]. ``ev2r.verifier.nli.check_probabilities`` is this function (claimalign is the
    lower package and imports nothing from ev2r).

    Raises:
        ValueError: naming ``source`` and what is wrong -- a NaN or an entailment of 1.7 must never
            become a similarity.
    """
    arr = np.asarray(probs, dtype=np.float64)
    if arr.shape != (n, 3):
        raise ValueError(f"{source}: predict returned shape {arr.shape}, expected ({n}, 3) "
                         "[P(entailment), P(neutral), P(contradiction)] per pair")
    if n == 0:
        return arr
    if not np.isfinite(arr).all():
        raise ValueError(f"{source}: predict returned non-finite probabilities (NaN or inf)")
    if arr.min() < -1e-6 or arr.max() > 1 + 1e-6:
        raise ValueError(f"{source}: predict returned values outside [0, 1] "
                         f"(min {arr.min():.4g}, max {arr.max():.4g})")
    sums = arr.sum(axis=1)
    if np.abs(sums - 1.0).max() > 1e-3:
        raise ValueError(f"{source}: predict returned rows that do not sum to 1 (e.g. {sums[np.abs(sums - 1).argmax()]:.4g})")
    return np.clip(arr, 0.0, 1.0)


@runtime_checkable
class VerifierLike(Protocol):
    """Structural verifier protocol (the same shape as ``ev2r.verifier.nli.Verifier``).

    ``predict(premises, hypotheses)``: two equal-length sequences of n >= 0 strings -> float
    array (n, 3), columns P(entailment), P(neutral), P(contradiction), rows summing to 1.
    ``name``: model identifier for result files.
    """

    name: str

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray: ...


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


def map_nli_labels(id2label: Dict[int, str]) -> List[int]:
    """Model output index for entailment, neutral and contradiction, from ``config.id2label``.

    Accepts the usual names (case-insensitive): entailment/neutral/contradiction and FEVER's
    SUPPORTS / NOT ENOUGH INFO / REFUTES.

    Raises:
        ValueError: the labels do not name exactly these three classes (e.g. a two-way
            entailment / not_entailment head, or generic ``LABEL_0`` names).
    """
    cols: Dict[int, int] = {}
    for idx, label in id2label.items():
        key = str(label).strip().lower().replace("_", " ")
        if key not in _LABEL_ALIASES:
            raise ValueError(
                f"id2label: label {label!r} is not an NLI class name; expected entailment/neutral/"
                f"contradiction (or SUPPORTS/NOT ENOUGH INFO/REFUTES); got {dict(id2label)}"
            )
        cls = _LABEL_ALIASES[key]
        if cls in cols:
            raise ValueError(f"id2label: two outputs map to the same NLI class: {dict(id2label)}")
        cols[cls] = int(idx)
    if sorted(cols) != [0, 1, 2]:
        raise ValueError(f"id2label: need entailment, neutral and contradiction outputs, got {dict(id2label)}")
    return [cols[0], cols[1], cols[2]]


class HFNLIAdapter:
    """Minimal :class:`VerifierLike` over a local Hugging Face sequence-classification NLI
    checkpoint (for benchmarks; ``ev2r.verifier.nli.HFNLIVerifier`` is the full verifier).

    The premise/hypothesis pair is encoded as a sentence pair, truncated to ``max_length``
    tokens (``only_first``: the premise is cut). Class order is read from ``config.id2label``
    (:func:`map_nli_labels`), never assumed. The model is loaded on first use.

    Args:
        path: checkpoint directory.
        batch_size: pairs per forward pass (>= 1).
        max_length: token limit per pair (>= 16).
        device: torch device string.

    ``predict(premises, hypotheses)``: equal-length sequences of n strings -> float64 (n, 3),
    columns P(entailment), P(neutral), P(contradiction) (softmax of the logits).

    Raises:
        ValueError: bad arguments, unequal lengths, labels that are not NLI classes.
    """

    def __init__(self, path: str, batch_size: int = 32, max_length: int = 256, device: str = "cpu"):
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size: must be an int >= 1, got {batch_size!r}")
        if not isinstance(max_length, int) or max_length < 16:
            raise ValueError(f"max_length: must be an int >= 16, got {max_length!r}")
        self.path = str(path)
        self.batch_size = batch_size
        self.max_length = max_length
        self.device = device
        self._model = None
        self._tokenizer = None
        self._cols: Optional[List[int]] = None

    @property
    def name(self) -> str:
        return f"hf-nli:{os.path.basename(os.path.normpath(self.path))}"

    def _load(self) -> None:
        if self._model is not None:
            return
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        model = AutoModelForSequenceClassification.from_pretrained(self.path)
        self._cols = map_nli_labels(model.config.id2label)
        self._tokenizer = AutoTokenizer.from_pretrained(self.path)
        self._guard = guard_special_tokens(self._tokenizer)  # "[SEP]" in the data stays text
        self._model = model.to(self.device).eval()

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        p = check_texts(premises, "premises")
        h = check_texts(hypotheses, "hypotheses")
        if len(p) != len(h):
            raise ValueError(f"premises/hypotheses: lengths differ ({len(p)} vs {len(h)})")
        if not p:
            return np.zeros((0, 3), dtype=np.float64)
        self._load()
        import torch

        p = [self._guard(t) for t in p]
        h = [self._guard(t) for t in h]
        order = sorted(range(len(p)), key=lambda i: len(p[i]) + len(h[i]))
        out = np.zeros((len(p), 3), dtype=np.float64)
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                idx = order[start:start + self.batch_size]
                enc = self._tokenizer([p[i] for i in idx], [h[i] for i in idx], padding=True, truncation="only_first",
                                      max_length=self.max_length, return_tensors="pt").to(self.device)
                probs = torch.softmax(self._model(**enc).logits.double(), dim=-1).cpu().numpy()
                out[idx] = probs[:, self._cols]
        return out
