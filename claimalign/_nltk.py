"""nltk helpers: tokenisation and METEOR with clear errors when the data is missing."""

from __future__ import annotations

from functools import lru_cache
from typing import Tuple

__all__ = ["tokenize", "meteor_tokens", "require_nltk_data", "add_nltk_data_path"]

_CHECKED = False


def add_nltk_data_path(path: str) -> None:
    """Put ``path`` first on nltk's data search path (what ``NLTK_DATA`` does); the CLIs'
    ``--nltk-data DIR``.

    Raises:
        ImportError: nltk is not installed.
        ValueError: ``path`` is not a directory.
    """
    import os

    import nltk

    global _CHECKED
    if not os.path.isdir(path):
        raise ValueError(f"--nltk-data: {path!r} is not a directory (it should hold tokenizers/punkt_tab and "
                         "corpora/wordnet)")
    if path not in nltk.data.path:
        nltk.data.path.insert(0, path)
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
                " environment variable (or pass --nltk-data DIR) to a folder with tokenizers/punkt_tab and"
                " corpora/wordnet; nothing is downloaded"
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
