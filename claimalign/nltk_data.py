"""Where nltk's data is and whether it is there: the bottom layer that every METEOR user shares.

nltk's ``punkt_tab`` tokeniser and WordNet are never downloaded: they are looked up on nltk's data
path (the ``NLTK_DATA`` environment variable, or a folder put first with :func:`add_nltk_data_path`,
the CLIs' ``--nltk-data DIR``), and :func:`require_nltk_data` stops with an error naming what is
missing. The tokenisation and METEOR built on that data live one layer up, in
:mod:`claimalign.meteor_fast`.
"""

from __future__ import annotations

__all__ = ["require_nltk_data", "add_nltk_data_path"]

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
                f"nltk resource {resource!r} not found: pass --nltk-data DIR (or set the NLTK_DATA environment"
                " variable) to a folder with tokenizers/punkt_tab and corpora/wordnet; nothing is downloaded"
                f" (searched {nltk.data.path})"
            ) from None
    _CHECKED = True
