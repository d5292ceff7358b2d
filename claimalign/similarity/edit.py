"""Edit similarity: normalised Levenshtein similarity (rapidfuzz)."""

from __future__ import annotations

from typing import Callable, Optional, Sequence

import numpy as np

from claimalign.similarity.base import check_texts, finish_matrix

__all__ = ["EditSimilarity"]


class EditSimilarity:
    """``1 - Levenshtein(a, b) / max(len(a), len(b))`` over characters.

    Source: the edit-similarity baseline of *Examining the Metrics for Document-Level Claim
    Extraction in Czech and Slovak*; computed by ``rapidfuzz.distance.Levenshtein.
    normalized_similarity`` (unit insert/delete/substitute costs). Symmetric. Values in [0, 1];
    two empty strings score 1.0, an empty vs a non-empty string 0.0.

    Args:
        lowercase: compare case-insensitively (default False: exact characters).

    ``matrix(left, right)``: sequences of str, lengths m and k -> float64 array (m, k).
    Raises ValueError for a single string or non-string elements.
    """

    def __init__(self, lowercase: bool = False):
        if not isinstance(lowercase, bool):
            raise ValueError(f"lowercase: expected True or False, got {lowercase!r}")
        self.lowercase = lowercase
        self.name = "edit" + ("-lower" if lowercase else "")

    def matrix(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        from rapidfuzz import process
        from rapidfuzz.distance import Levenshtein

        a = check_texts(left, "left")
        b = check_texts(right, "right")
        if not a or not b:
            return np.zeros((len(a), len(b)), dtype=np.float64)
        proc: Optional[Callable[[str], str]] = str.lower if self.lowercase else None
        m = process.cdist(a, b, scorer=Levenshtein.normalized_similarity, processor=proc,
                          dtype=np.float64, workers=1)
        return finish_matrix(m, (len(a), len(b)))
