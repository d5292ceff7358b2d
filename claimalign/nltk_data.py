"""nltk helpers: tokenisation and METEOR with clear errors when the data is missing."""

from __future__ import annotations

from functools import lru_cache
from typing import Tuple

__all__ = ["tokenize", "meteor_words", "meteor_tokens", "require_nltk_data", "add_nltk_data_path"]

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
    """``nltk.word_tokenize(text)`` as a tuple (cached: each distinct string is tokenised once).
    Exactly the official AVeriTeC tokenisation; the similarities use :func:`meteor_words`."""
    require_nltk_data()
    from nltk import word_tokenize

    return tuple(word_tokenize(text))


@lru_cache(maxsize=65536)
def meteor_words(text: str) -> Tuple[str, ...]:
    """The tokens METEOR compares in :class:`~claimalign.similarity.MeteorSimilarity` and
    :func:`~claimalign.hu_meteor`: :func:`tokenize` of the NFC text
    (:func:`claimalign.textio.normalize_text`), except that in scripts written without spaces
    between words (Chinese, Japanese, Thai...: :data:`claimalign.textio.UNSPACED_SCRIPTS`), where
    ``word_tokenize`` returns a whole sentence as one token, each character is a token of its own
    (:func:`claimalign.textio.split_unspaced_script`): a partial overlap then gets partial credit
    and identical text matches token by token. Text in spaced scripts gives :func:`tokenize`'s tokens.

    Raises:
        RuntimeError: nltk data (punkt_tab) not found.
    """
    from claimalign.textio import normalize_text, split_unspaced_script

    return tuple(piece for tok in tokenize(normalize_text(text)) for piece in split_unspaced_script(tok))


def meteor_tokens(reference: Tuple[str, ...], hypothesis: Tuple[str, ...]) -> float:
    """``nltk.translate.meteor_score.single_meteor_score(reference, hypothesis)`` with nltk's
    defaults (alpha 0.9, beta 3, gamma 0.5, Porter stemmer, WordNet synonyms): the same values
    (``==``), computed by :func:`claimalign.meteor_fast.meteor_tokens_fast`, which looks each
    word's stem and synonyms up once and caches on the token tuples (nltk redoes both on every
    call: ~10x slower on AVeriTeC's Hungarian METEOR). In [0, 1]; 0.0 when either side has no tokens.

    Raises:
        RuntimeError: nltk data (punkt_tab, WordNet) not found.
    """
    require_nltk_data()
    from claimalign.meteor_fast import meteor_tokens_fast

    return float(meteor_tokens_fast(tuple(reference), tuple(hypothesis)))


def meteor_tokens_nltk(reference: Tuple[str, ...], hypothesis: Tuple[str, ...]) -> float:
    """nltk's own ``single_meteor_score`` (uncached): the reference :func:`meteor_tokens` is
    checked against."""
    require_nltk_data()
    from nltk.translate.meteor_score import single_meteor_score

    return float(single_meteor_score(list(reference), list(hypothesis)))
