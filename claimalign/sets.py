"""Set-level utilities: aligning two text sets, claim-count difference, max pooling over
several references, and agreement between two annotators.

Source: *Examining the Metrics for Document-Level Claim Extraction in Czech and Slovak*:
the average signed claim-count difference between candidate and reference sets; with two
reference annotators, per document the better of the two alignments (max pooling); the same
alignment between two annotators' sets measures human-vs-human agreement.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Sequence, Tuple

import numpy as np

from claimalign.align import AlignmentResult, align
from claimalign.similarity.base import Similarity, check_texts

__all__ = ["align_sets", "claim_count_difference", "max_pool", "AgreementResult", "agreement", "POOL_KEYS"]

POOL_KEYS = ("score", "precision", "recall")


def _check_similarity(similarity: Any) -> None:
    if not callable(getattr(similarity, "matrix", None)):
        raise ValueError("similarity: expected an object with matrix(left, right) -> (m, k) array in [0, 1]")


def align_sets(left: Sequence[str], right: Sequence[str], similarity: Similarity,
               *, zero_division: float = 0.0) -> AlignmentResult:
    """Align two sets of texts: ``align(similarity.matrix(left, right))``.

    Args:
        left: C1, sequence of m >= 0 strings (the candidate).
        right: C2, sequence of k >= 0 strings (the reference).
        similarity: a :class:`~claimalign.similarity.Similarity` backend.
        zero_division: see :func:`claimalign.align`.

    Raises:
        ValueError: bad texts, a similarity without ``matrix``, or a matrix of the wrong shape
            or outside [0, 1].
    """
    a = check_texts(left, "left")
    b = check_texts(right, "right")
    _check_similarity(similarity)
    m = similarity.matrix(a, b) if a and b else np.zeros((len(a), len(b)))
    m = np.asarray(m, dtype=np.float64)
    if m.shape != (len(a), len(b)):
        raise ValueError(f"similarity: matrix shape {m.shape} does not match ({len(a)}, {len(b)})")
    return align(m, zero_division=zero_division)


def _check_set_list(sets: Any, name: str) -> List[Sequence[Any]]:
    if isinstance(sets, (str, bytes)):
        raise ValueError(f"{name}: expected a sequence of sets (lists), got a string")
    out = list(sets)
    for k, s in enumerate(out):
        if isinstance(s, (str, bytes)) or not hasattr(s, "__len__"):
            raise ValueError(f"{name}[{k}]: expected a list of items, got {type(s).__name__}")
    return out


def _check_paired_set_lists(left: Any, right: Any, names: Tuple[str, str], empty: str
                            ) -> Tuple[List[Sequence[Any]], List[Sequence[Any]]]:
    """Both per-document set lists checked (:func:`_check_set_list`): as many documents on each side,
    at least one (else ``ValueError`` naming ``names[0]`` with ``empty``)."""
    a = _check_set_list(left, names[0])
    b = _check_set_list(right, names[1])
    if len(a) != len(b):
        raise ValueError(f"{names[0]}/{names[1]}: different numbers of documents ({len(a)} vs {len(b)})")
    if not a:
        raise ValueError(f"{names[0]}: {empty}")
    return a, b


def claim_count_difference(candidates: Sequence[Sequence[Any]], references: Sequence[Sequence[Any]]) -> float:
    """Average signed count difference ``mean_d (|cand_d| - |ref_d|)`` over documents d.

    Positive: the candidate over-generates; negative: it under-generates.

    Args:
        candidates: per document, the candidate set (any sized sequence), D >= 1 documents.
        references: per document, the reference set; same length and order as ``candidates``.

    Raises:
        ValueError: no documents, unequal numbers of documents, or a string instead of a set.
    """
    c, r = _check_paired_set_lists(candidates, references, ("candidates", "references"),
                                   "no documents (the average is undefined)")
    return float(np.mean([len(x) - len(y) for x, y in zip(c, r)]))


def max_pool(candidate: Sequence[str], references: Sequence[Sequence[str]], similarity: Similarity,
             *, key: str = "score", zero_division: float = 0.0) -> Tuple[int, AlignmentResult]:
    """Align ``candidate`` with each reference set and keep the best (max pooling).

    Args:
        candidate: the candidate set (strings).
        references: R >= 1 reference sets (e.g. two annotators' claims for one document).
        similarity: backend.
        key: which value decides "best": ``"score"`` (default, the paper's /n), ``"precision"``
            or ``"recall"``.
        zero_division: see :func:`claimalign.align`.

    Returns:
        ``(index of the best reference, its AlignmentResult)``; ties go to the first reference.

    Raises:
        ValueError: no references, bad ``key``, bad texts.
    """
    if key not in POOL_KEYS:
        raise ValueError(f"key: {key!r} is not one of {POOL_KEYS}")
    refs = _check_set_list(references, "references")
    if not refs:
        raise ValueError("references: at least one reference set is needed")
    best: Tuple[int, AlignmentResult] = (-1, None)  # type: ignore[assignment]
    for r, ref in enumerate(refs):
        res = align_sets(candidate, ref, similarity, zero_division=zero_division)
        if best[1] is None or getattr(res, key) > getattr(best[1], key):
            best = (r, res)
    return best


@dataclass(frozen=True)
class AgreementResult:
    """Agreement between two annotators' sets over D documents.

    Attributes:
        score: mean over documents of the /n set score (symmetric when the similarity is).
        precision: mean of total / |A_d| (A read as candidate).
        recall: mean of total / |B_d| (B read as reference).
        count_difference: mean signed ``|A_d| - |B_d|``.
        per_document: the D alignment results, in input order.
    """

    score: float
    precision: float
    recall: float
    count_difference: float
    per_document: Tuple[AlignmentResult, ...]


def agreement(annotator_a: Sequence[Sequence[str]], annotator_b: Sequence[Sequence[str]],
              similarity: Similarity, *, zero_division: float = 0.0) -> AgreementResult:
    """Human-vs-human (or any two-source) agreement by claim-set alignment.

    Args:
        annotator_a, annotator_b: per document, each annotator's set of texts; D >= 1
            documents, index-aligned (document d of A corresponds to document d of B).
        similarity: backend.
        zero_division: see :func:`claimalign.align`.

    Raises:
        ValueError: unequal numbers of documents, no documents, bad texts.
    """
    a, b = _check_paired_set_lists(annotator_a, annotator_b, ("annotator_a", "annotator_b"), "no documents")
    results = tuple(align_sets(x, y, similarity, zero_division=zero_division) for x, y in zip(a, b))
    return AgreementResult(
        score=float(np.mean([r.score for r in results])),
        precision=float(np.mean([r.precision for r in results])),
        recall=float(np.mean([r.recall for r in results])),
        count_difference=claim_count_difference(a, b),
        per_document=results,
    )
