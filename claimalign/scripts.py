"""Scripts written without spaces between words (Han, Kana, Thai, ...), which word-based measures cannot judge
word by word, and the share of a text's letters outside ASCII (is it English?).
"""

from __future__ import annotations

import re
import warnings
from typing import Iterable

__all__ = ["UNSPACED_SCRIPTS", "has_unspaced_script", "split_unspaced_script", "ScriptWarning", "warn_unspaced_script",
           "non_ascii_letter_share"]

#: Scripts written without spaces between words (for word-based measures such as METEOR a whole
#: sentence is then one "word"): Han (CJK ideographs), Hiragana, Katakana, Thai, Lao, Khmer,
#: Myanmar, Tibetan.
UNSPACED_SCRIPTS = ("Han", "Hiragana", "Katakana", "Thai", "Lao", "Khmer", "Myanmar", "Tibetan")
_UNSPACED_RANGES = (
    "\u2e80-\u2fdf\u3005-\u3007\u3021-\u3029\u3038-\u303b\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # Han
    "\U00020000-\U0002fa1f\U00030000-\U0003134f"
    "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f"  # Hiragana, Katakana
    # Thai, Lao, Khmer, Myanmar, Tibetan
    "\u0e00-\u0e7f\u0e80-\u0eff\u1780-\u17ff\u19e0-\u19ff\u1000-\u109f\u0f00-\u0fff"
)
_UNSPACED_CHAR = re.compile(f"[{_UNSPACED_RANGES}]")
_UNSPACED_RUN = re.compile(f"[{_UNSPACED_RANGES}]|[^{_UNSPACED_RANGES}]+")


def non_ascii_letter_share(text: str) -> float:
    """The share of ``text``'s letters (``str.isalpha``) that are not ASCII A-Z / a-z: about 0 for English, a few
    percent and more for Czech, Slovak, French or German prose, 1.0 for Cyrillic or Chinese; 0.0 without letters.

    >>> round(non_ascii_letter_share("Praha je hlavním městem České republiky."), 3)
    0.118
    >>> non_ascii_letter_share("The bridge opened in 1998.")
    0.0
    """
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    return sum(not c.isascii() for c in letters) / len(letters)


class ScriptWarning(UserWarning):
    """A similarity met text in a script it cannot judge word by word."""


def has_unspaced_script(text: str) -> bool:
    """True when ``text`` holds a character of a script written without spaces
    (:data:`UNSPACED_SCRIPTS`)."""
    return bool(_UNSPACED_CHAR.search(text))


def split_unspaced_script(token: str) -> list[str]:
    """A word token cut so that each character of an unspaced script (:data:`UNSPACED_SCRIPTS`) is
    its own token and the other runs stay whole: ``"于2019年"`` -> ``["于", "2019", "年"]``;
    a token without such characters is returned alone."""
    if not _UNSPACED_CHAR.search(token):
        return [token]
    return _UNSPACED_RUN.findall(token)


def warn_unspaced_script(texts: Iterable[str], measure: str, stacklevel: int = 3) -> bool:
    """Emit a :class:`ScriptWarning` when any of ``texts`` is in a script written without spaces,
    saying that ``measure`` cannot judge it word by word. The message does not depend on the texts,
    so Python's default warning filter shows it once per call site. Returns whether it warned."""
    found = any(has_unspaced_script(t) for t in texts)
    if found:
        warnings.warn(
            f"{measure}: text written in a script without spaces between words ({', '.join(UNSPACED_SCRIPTS)}); "
            f"{measure} is a word-based measure and cannot judge such text word by word: it is compared character "
            "by character there, without stemming or synonyms. Prefer the edit or embedding similarity for these "
            "scripts.", ScriptWarning, stacklevel=stacklevel)
    return found
