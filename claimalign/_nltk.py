"""nltk helpers: tokenisation and METEOR with clear errors when the data is missing."""

from __future__ import annotations

from functools import lru_cache
from typing import Tuple

__all__ = ["tokenize", "meteor_tokens", "require_nltk_data"]

_CHECKED = False


def require_nltk_data() -> None:
    """Check that nltk's punkt_tab and WordNet can be found.

    Raises:
        RuntimeError: naming the missing resource and the ``NLTK_DATA`` environment variable
            (nothing is downloaded: set ``NLTK_DATA`` to a folder holding
            ``tokenizers/punkt_tab`` and ``corpora/wordnet``).
    """
    global _CHECKED
    if _CHECKED:
        return
    import nltk

    for resource in ("tokenizers/punkt_tab/english/", "corpora/wordnet"):
        try:
            nltk.data.find(resource)
        except LookupError:
            raise RuntimeError(
                f"nltk resource {resource!r} not found (searched {nltk.data.path}); set the NLTK_DATA"
                " environment variable to a folder with tokenizers/punkt_tab and corpora/wordnet"
            ) from None
    _CHECKED = True


@lru_cache(maxsize=65536)
def tokenize(text: str) -> Tuple[str, ...]:
    """``nltk.word_tokenize(text)`` as a tuple (cached: each distinct string is tokenised once)."""
    require_nltk_data()
    from nltk import word_tokenize

    return tuple(word_tokenize(text))


@lru_cache(maxsize=262144)
def meteor_tokens(reference: Tuple[str, ...], hypothesis: Tuple[str, ...]) -> float:
    """``nltk.translate.meteor_score.single_meteor_score(reference, hypothesis)`` with nltk's
    defaults (alpha 0.9, beta 3, gamma 0.5, Porter stemmer, WordNet synonyms), cached on the
    token tuples. In [0, 1]; 0.0 when either side has no tokens."""
    require_nltk_data()
    from nltk.translate.meteor_score import single_meteor_score

    return float(single_meteor_score(list(reference), list(hypothesis)))
