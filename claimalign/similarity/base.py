"""The similarity protocol shared by every backend, and input checks."""

from __future__ import annotations

from typing import Any, List, Protocol, Sequence, runtime_checkable

import numpy as np

from claimalign.text import normalize_text

__all__ = ["Similarity", "check_texts", "check_positive_int", "finish_matrix"]


@runtime_checkable
class Similarity(Protocol):
    """A pairwise similarity between two sets of texts.

    ``matrix(left, right)`` takes two sequences of strings (C1 of length m >= 0, C2 of length
    k >= 0) and returns a float64 array of shape ``(m, k)`` with values in [0, 1], where
    entry ``[i, j]`` compares ``left[i]`` (read as the candidate / hypothesis where the
    measure is asymmetric) with ``right[j]`` (read as the reference). ``name`` identifies the
    backend and its settings (model path, direction...) for result files.
    """

    name: str

    def matrix(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray: ...


def check_texts(texts: Any, name: str) -> List[str]:
    """Return ``texts`` as a list of str, each normalised as text entering the packages is
    (:func:`claimalign.text.normalize_text`: Unicode NFC, LF line ends), so every backend sees
    identical code points for identical text (NFD "ř" and NFC "ř" are one text).

    Raises:
        ValueError: ``texts`` is a single string (a common slip: it would be read as a sequence
            of characters) or contains a non-string element.
    """
    if isinstance(texts, (str, bytes)):
        raise ValueError(f"{name}: expected a sequence of strings, got a single string")
    try:
        out = list(texts)
    except TypeError:
        raise ValueError(f"{name}: expected a sequence of strings, got {type(texts).__name__}") from None
    for k, t in enumerate(out):
        if not isinstance(t, str):
            raise ValueError(f"{name}[{k}]: expected str, got {type(t).__name__}")
    return [normalize_text(t) for t in out]


def check_positive_int(value: Any, name: str, minimum: int = 1) -> int:
    """``value`` when it is an int >= ``minimum`` (a backend option such as ``batch_size``).

    Raises:
        ValueError: naming ``name``, the allowed range and the value given.
    """
    if not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name}: must be an int >= {minimum}, got {value!r}")
    return value


def zero_contentless(m: np.ndarray, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
    """``m`` (shape ``(len(left), len(right))``) with the rows and columns of texts that state
    nothing -- no letter or digit in any script (:func:`claimalign.words.has_content`: "", "...",
    an emoji) -- set to 0: an encoder still embeds such text, and its cosine with a real claim can be
    high, but an empty claim is similar to nothing (as METEOR scores it)."""
    from claimalign.words import has_content

    rows = [i for i, t in enumerate(left) if not has_content(t)]
    cols = [j for j, t in enumerate(right) if not has_content(t)]
    if rows or cols:
        m = np.array(m, dtype=np.float64, copy=True)
        m[rows, :] = 0.0
        m[:, cols] = 0.0
    return m


def finish_matrix(values: Any, shape: tuple, clip: bool = True, tol: float = 1e-5) -> np.ndarray:
    """Float64 array of ``shape``; values within ``tol`` of [0, 1] are clipped into it.

    Raises:
        ValueError: NaN, or (with ``clip``) values further than ``tol`` outside [0, 1]
            (a backend bug, never silently hidden).
    """
    m = np.asarray(values, dtype=np.float64).reshape(shape)
    if m.size == 0:
        return m
    if np.isnan(m).any():
        raise ValueError("similarity backend produced NaN values")
    if m.min() < -tol or m.max() > 1.0 + tol:
        raise ValueError(f"similarity backend produced values outside [0, 1]: min {m.min()}, max {m.max()}")
    return np.clip(m, 0.0, 1.0) if clip else m
