"""METEOR similarity (nltk, WordNet synonyms), inputs tokenised with ``nltk.word_tokenize``."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .._nltk import meteor_tokens, require_nltk_data, tokenize
from .base import check_texts, finish_matrix

__all__ = ["MeteorSimilarity"]


class MeteorSimilarity:
    """METEOR (Banerjee & Lavie, 2005) as computed by ``nltk.translate.meteor_score.
    single_meteor_score`` on ``nltk.word_tokenize`` tokens -- the pairwise metric of AVeriTeC's
    Hungarian METEOR (Schlichtkrull et al., 2023).

    Asymmetric: entry ``[i, j]`` is ``single_meteor_score(reference=tok(right[j]),
    hypothesis=tok(left[i]))``. Values in [0, 1]; 0.0 when either text has no tokens.
    Needs nltk's punkt_tab and WordNet data (``NLTK_DATA``); nothing is downloaded.

    ``matrix(left, right)``: sequences of str, lengths m and k -> float64 array (m, k).

    Raises:
        ValueError: a single string or non-string elements.
        RuntimeError: the nltk data cannot be found.
    """

    name = "meteor"

    def matrix(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        a = check_texts(left, "left")
        b = check_texts(right, "right")
        if not a or not b:
            return np.zeros((len(a), len(b)), dtype=np.float64)
        require_nltk_data()
        ta = [tokenize(t) for t in a]
        tb = [tokenize(t) for t in b]
        m = np.array([[meteor_tokens(r, h) for r in tb] for h in ta], dtype=np.float64)
        return finish_matrix(m, (len(a), len(b)))
