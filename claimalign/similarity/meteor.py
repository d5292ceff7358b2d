"""METEOR similarity (nltk, WordNet synonyms), inputs tokenised with ``nltk.word_tokenize``."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from claimalign.meteor_fast import meteor_tokens, meteor_words
from claimalign.nltk_data import require_nltk_data
from claimalign.scripts import warn_unspaced_script
from claimalign.similarity.base import check_texts, finish_matrix

__all__ = ["MeteorSimilarity"]


class MeteorSimilarity:
    """METEOR (Banerjee & Lavie, 2005) as computed by ``nltk.translate.meteor_score.
    single_meteor_score`` on ``nltk.word_tokenize`` tokens -- the pairwise metric of AVeriTeC's
    Hungarian METEOR (Schlichtkrull et al., 2023).

    Asymmetric: entry ``[i, j]`` is ``single_meteor_score(reference=tok(right[j]),
    hypothesis=tok(left[i]))``. Values in [0, 1]; 0.0 when either text has no tokens.
    Needs nltk's punkt_tab and WordNet data (``NLTK_DATA``); nothing is downloaded.

    Identical text scores 1.0: METEOR's fragmentation penalty gives identical short texts less
    than 1 (0.5 for a one-token text, 0.94 for two tokens), so two texts with the same tokens
    are scored 1.0 directly. Texts are NFC-normalised (:func:`~claimalign.similarity.base.check_texts`).
    Text in a script written without spaces (Chinese, Japanese, Thai...) is compared character by
    character (:func:`claimalign.meteor_fast.meteor_words`) and a :class:`claimalign.scripts.ScriptWarning`
    says that METEOR cannot judge it word by word.

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
        warn_unspaced_script(a + b, "METEOR")
        ta = [meteor_words(t) for t in a]
        tb = [meteor_words(t) for t in b]
        m = np.array([[1.0 if (h and r == h) else meteor_tokens(r, h) for r in tb] for h in ta], dtype=np.float64)
        return finish_matrix(m, (len(a), len(b)))
