"""The NLI contract every package shares: the three classes and their spellings, the verifier
protocol, and the check of what a verifier returns.

Defined once here, at the lowest layer that needs it (``claimalign``'s NLI similarity and model
loader); ``ev2r.labels``, ``ev2r.verifier`` and ``ev2r.training`` import it. Imports only numpy.

* :class:`NLILabel`, :data:`NLI_LABELS` -- entailment, neutral, contradiction: the column order of
  every probability array in the project (a model's own output order is read from its
  ``config.id2label`` and mapped onto it by :func:`map_nli_labels`).
* :func:`normalize_nli_label` -- any NLI or FEVER-style spelling -> :class:`NLILabel`.
* :class:`VerifierLike` -- ``predict(premises, hypotheses) -> (n, 3)`` and ``name``.
* :func:`check_probabilities` -- the one validity rule for a verifier's output.
"""

from __future__ import annotations

import enum
import re
import unicodedata
from typing import Any, Dict, List, Mapping, Protocol, Sequence, Union, runtime_checkable

import numpy as np

__all__ = ["NLILabel", "NLI_LABELS", "label_key", "normalize_nli_label", "map_nli_labels", "VerifierLike",
           "check_probabilities"]


class NLILabel(str, enum.Enum):
    """The three NLI classes, in the order of every probability array of the project."""

    ENTAILMENT = "entailment"
    NEUTRAL = "neutral"
    CONTRADICTION = "contradiction"


#: Class names in column order: ``("entailment", "neutral", "contradiction")``.
NLI_LABELS = tuple(label.value for label in NLILabel)


def label_key(label: str) -> str:
    """Matching key of a label spelling: NFKC, case-folded, with every space, underscore, hyphen,
    slash and other punctuation removed -- ``"NOT_ENOUGH_INFO"``, ``"not enough info"`` and
    ``"Not-Enough-Info"`` share one key (``"notenoughinfo"``)."""
    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", label).casefold())


_NLI_SPELLINGS = {
    NLILabel.ENTAILMENT: ("entailment", "entails", "entailed", "supports", "supported"),
    NLILabel.NEUTRAL: ("neutral", "not enough info", "not enough evidence", "not enough information", "nei"),
    NLILabel.CONTRADICTION: ("contradiction", "contradicts", "refutes", "refuted"),
}
_NLI_KEYS = {label_key(s): label for label, spellings in _NLI_SPELLINGS.items() for s in spellings}


def normalize_nli_label(label: object, field: str = "label") -> NLILabel:
    """Normalise an NLI (or FEVER-style) label, e.g. from a model's ``config.id2label``.

    Accepted (case, spaces, underscores and hyphens ignored, :func:`label_key`): entailment /
    entails / entailed / supports / supported; neutral / not enough info / not enough evidence /
    not enough information / nei; contradiction / contradicts / refutes / refuted. ``"LABEL_0"``
    is *not* accepted: it carries no meaning.

    Raises:
        ValueError: unknown label, naming ``field`` and the allowed values.
    """
    if isinstance(label, NLILabel):
        return label
    if isinstance(label, str) and label_key(label) in _NLI_KEYS:
        return _NLI_KEYS[label_key(label)]
    raise ValueError(f"{field}: unknown NLI label {label!r}; allowed: entailment, neutral, contradiction "
                     "(or SUPPORTS / NOT ENOUGH INFO / REFUTES)")


def map_nli_labels(id2label: Union[Mapping[int, str], Sequence[str]], source: str = "id2label") -> List[int]:
    """The model output index of entailment, neutral and contradiction, in that order.

    Args:
        id2label: a model's ``config.id2label`` (output index -> class name) or the class names
            in output order; names as :func:`normalize_nli_label` accepts them.
        source: what to name in errors (a model path, ``"label_order"``...).

    >>> map_nli_labels({0: "CONTRADICTION", 1: "neutral", 2: "Entailment"})
    [2, 1, 0]

    Raises:
        ValueError: naming ``source`` and the labels, when they do not name exactly these three
            classes once each (a two-way entailment / not_entailment head, generic ``LABEL_0``
            names, two outputs for one class).
    """
    names: Dict[int, str] = dict(id2label) if isinstance(id2label, Mapping) else dict(enumerate(id2label))
    cols: Dict[NLILabel, int] = {}
    for idx in sorted(names, key=int):
        label = names[idx]
        try:
            cls = normalize_nli_label(label, field=f"{source}[{idx}]")
        except ValueError as e:
            raise ValueError(f"{e}; the labels are {names}") from None
        if cls in cols:
            raise ValueError(f"{source}: outputs {cols[cls]} and {idx} both mean {cls.value}; the labels are {names}")
        cols[cls] = int(idx)
    if len(cols) != 3 or len(names) != 3:
        raise ValueError(f"{source}: a 3-way NLI model is required (entailment, neutral, contradiction); "
                         f"the labels are {names}")
    return [cols[label] for label in NLILabel]


@runtime_checkable
class VerifierLike(Protocol):
    """The verifier protocol of the whole project (``ev2r.verifier.nli.Verifier`` is this class).

    ``predict(premises, hypotheses)``: two equal-length sequences of n >= 0 strings -> float
    array (n, 3), columns P(entailment), P(neutral), P(contradiction) (:data:`NLI_LABELS`), rows
    summing to 1. ``name``: the model (and its revision/hash) for signatures and result files.
    """

    name: str

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray: ...


def check_probabilities(probs: Any, n: int, source: str = "verifier") -> np.ndarray:
    """Validate what a verifier's ``predict`` returned for ``n`` pairs: shape (n, 3), finite, each
    value in [0, 1] (tolerance 1e-6) and each row summing to 1 (tolerance 1e-3). Returns a float64
    copy clipped to [0, 1].

    Raises:
        ValueError: naming ``source`` and what is wrong -- a NaN or an entailment of 1.7 must never
            become a support decision, a proxy score or a similarity.
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
        raise ValueError(f"{source}: predict returned rows that do not sum to 1 (e.g. "
                         f"{sums[np.abs(sums - 1).argmax()]:.4g})")
    return np.clip(arr, 0.0, 1.0)
