"""The numbers of the Ev2R metric: the per-item results of its two parts and the formulas that
combine them (Akhtar, Schlichtkrull, Vlachos 2024, arXiv 2411.05375, sec. 3).

    precision = |predicted facts supported| / |predicted facts|, recall likewise over reference facts (sec. 3.1)
    F1        = 2 P R / (P + R)   (0 when P = R = 0)
    Ev2R      = alpha * F1 + (1 - alpha) * proxy   (sec. 3.3)

Every reference-based backend (NLI, replay, LLM) returns :class:`ReferenceResult`, every proxy
backend :class:`ProxyResult`; they live here, below the backends (``ev2r.facts``, ``ev2r.llm``)
and the scorer that assembles them (``ev2r.metric``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence

import numpy as np

from ev2r.config import DEFAULTS
from ev2r.types import FactSupport, LLMUsage, STATUS_OK

__all__ = ["ReferenceResult", "ProxyResult", "f1_score", "prf_from_support", "ev2r_combine", "version_formula"]


@dataclass
class ReferenceResult:
    """Reference-based result for one item (scores in [0, 1] or None with a non-ok status)."""

    precision: Optional[float] = None
    recall: Optional[float] = None
    f1: Optional[float] = None
    predicted_facts: list[FactSupport] = field(default_factory=list)
    reference_facts: list[FactSupport] = field(default_factory=list)
    status: str = STATUS_OK
    error: Optional[str] = None
    llm: Optional[LLMUsage] = field(default=None, compare=False)  # LLM backends: what this item cost
    #: further per-item columns of the backend (NLI: ``graded_precision`` / ``graded_recall`` /
    #: ``graded_f1``), copied into :attr:`ev2r.types.ItemScore.extra_scores`
    extra_scores: dict[str, Optional[float]] = field(default_factory=dict)
    #: predicted pair index -> the reference pair that contradicts it (:mod:`ev2r.metric.contradiction`)
    contradicted_pairs: dict = field(default_factory=dict, compare=False)


@dataclass
class ProxyResult:
    """Proxy score for one item: in [0, 1], or None with a non-ok status."""

    proxy: Optional[float]
    distribution: Optional[tuple[float, float, float]]
    status: str = STATUS_OK
    error: Optional[str] = None
    llm: Optional[LLMUsage] = field(default=None, compare=False)  # LLM backends: what this item cost
    #: the premises read, each with its distribution against the claim, and the position of the deciding
    #: one (:attr:`ev2r.types.ItemScore.proxy_premises`)
    premises: list = field(default_factory=list, compare=False)
    decided_by: Optional[int] = field(default=None, compare=False)
    #: predicted pair index -> the reference pair that contradicts it (left out of the premises)
    contradicted_pairs: dict = field(default_factory=dict, compare=False)
    #: a note on a score that stands but was reached with less than the whole input, e.g. a claim the verifier read
    #: in part (:func:`ev2r.metric.proxy.claim_read_in_part`); the scorer adds it to the row's ``error``
    note: Optional[str] = field(default=None, compare=False)


def f1_score(precision: float, recall: float) -> float:
    """Harmonic mean of precision and recall in [0, 1]; 0 when both are 0.

    >>> f1_score(0.5, 1.0)
    0.6666666666666666
    """
    for name, v in (("precision", precision), ("recall", recall)):
        if v is None or not (0.0 <= v <= 1.0):
            raise ValueError(f"{name}: expected a value in [0, 1], got {v!r}")
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def prf_from_support(pred_support: Sequence[float],
                     ref_support: Sequence[float]) -> tuple[float, Optional[float], Optional[float]]:
    """Precision, recall, F1 from per-fact support values in [0, 1] (1/0 decisions or soft).

    Returns ``(precision, recall, f1)``; recall and F1 are None when there are no reference facts.
    """
    precision = float(np.mean(pred_support)) if len(pred_support) else 0.0
    if not len(ref_support):
        return precision, None, None
    recall = float(np.mean(ref_support))
    return precision, recall, f1_score(precision, recall)


def ev2r_combine(f1: float, proxy: float, alpha: float = DEFAULTS.alpha) -> float:
    """``alpha * f1 + (1 - alpha) * proxy`` (Akhtar et al. 2024, sec. 3.3). All in [0, 1].

    >>> ev2r_combine(0.5, 1.0)
    0.75

    Raises:
        ValueError: an argument outside [0, 1].
    """
    for name, v in (("f1", f1), ("proxy", proxy), ("alpha", alpha)):
        if v is None or not (0.0 <= v <= 1.0):
            raise ValueError(f"{name}: expected a value in [0, 1], got {v!r}")
    return alpha * f1 + (1.0 - alpha) * proxy


def version_formula(label: str) -> str:
    """The formula of a registered score version, written from its registered definition
    (:mod:`ev2r.versions`): the one source of each version's formula, which the documentation renders when the site
    is built (``scripts/docs_hooks.py``) and the README pastes (``tests/test_formulas.py`` checks both). The latest
    version's weights and alpha are :mod:`ev2r.config`'s (:func:`ev2r.versions.configured`). ``ev2r-hybrid/N``: its
    weights (signature field ``hybrid``), largest first, the components of one weight grouped in the order of the
    signature, weight 0 left out; ``ev2r/N``: ``alpha F1 + (1 - alpha) proxy`` with its ``alpha``.

    Args:
        label: a registered versioned name, ``"ev2r-hybrid/4"`` or ``"ev2r/4"`` (:func:`ev2r.versions.get`).

    Raises:
        ValueError: an unknown or unregistered label (naming the registered ones).

    >>> version_formula("ev2r-hybrid/4")
    'ev2r_hybrid = 0.85 verified_meteor + 0.05 (proxy + hybrid_meteor + precision)'
    >>> version_formula("ev2r-hybrid/1")
    'ev2r_hybrid = 0.5 mutual_meteor + 0.2 (proxy + verified_meteor) + 0.1 precision'
    >>> version_formula("ev2r/4")
    'Ev2R = 0.5 F1 + 0.5 proxy'
    """
    from ev2r.versions import get

    version = get(label)
    if version.name == "ev2r":
        alpha = float(version.definition["alpha"])
        return f"Ev2R = {alpha:g} F1 + {1 - alpha:g} proxy"
    weights: dict[float, list[str]] = {}
    for part in version.definition["hybrid"].removeprefix("w=").split(","):
        name, value = part.split(":")
        if float(value) > 0:
            weights.setdefault(float(value), []).append(name)
    terms = [f"{w:g} {names[0]}" if len(names) == 1 else f"{w:g} ({' + '.join(names)})"
             for w, names in sorted(weights.items(), reverse=True)]
    return f"{version.column} = " + " + ".join(terms)
