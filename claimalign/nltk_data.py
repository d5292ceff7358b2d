"""Where nltk's data is and whether it is there: the bottom layer that every METEOR user shares.

nltk's ``punkt_tab`` tokeniser and WordNet are never downloaded: they are looked up on nltk's data
path (the ``NLTK_DATA`` environment variable, or a folder put first with :func:`add_nltk_data_path`,
the CLIs' ``--nltk-data DIR``), and :func:`require_nltk_data` stops with an error naming what is
missing. The tokenisation and METEOR built on that data live one layer up, in
:mod:`claimalign.meteor_fast`.
"""

from __future__ import annotations

import sys
from types import ModuleType

__all__ = ["require_nltk_data", "add_nltk_data_path", "import_nltk"]

_CHECKED = False
#: What nltk's package initialisation imports for features the scores never use, when they are installed: its
#: scikit-learn classifier wrapper (which brings pandas and pyarrow) and its collocation and alignment statistics
#: (``scipy.stats``). Each import is optional in nltk (``try: ... except ImportError``).
NLTK_OPTIONAL_IMPORTS = ("sklearn", "scipy.stats")


def import_nltk() -> ModuleType:
    """``nltk``, imported without the optional packages of :data:`NLTK_OPTIONAL_IMPORTS` (nltk's tokeniser, Porter
    stemmer, WordNet reader and METEOR do not use them; they cost about a second of start-up on 2 cores). Those not
    yet imported are held out while nltk initialises and stay importable afterwards; nltk's scikit-learn classifier
    and Fisher's exact test are then unavailable in this process. Every use of nltk in the packages calls this first.

    Raises:
        ImportError: nltk is not installed.
    """
    module = sys.modules.get("nltk")
    if module is not None:
        return module
    held = [name for name in NLTK_OPTIONAL_IMPORTS if name not in sys.modules]
    for name in held:
        sys.modules[name] = None  # type: ignore[assignment]  # an import of it raises ImportError meanwhile
    try:
        import nltk
    finally:
        for name in held:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]
    return nltk


def add_nltk_data_path(path: str) -> None:
    """Put ``path`` first on nltk's data search path (what ``NLTK_DATA`` does); the CLIs'
    ``--nltk-data DIR``.

    Raises:
        ImportError: nltk is not installed.
        ValueError: ``path`` is not a directory.
    """
    import os

    nltk = import_nltk()
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
    nltk = import_nltk()

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
