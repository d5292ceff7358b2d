"""Signatures: the settings that change a number, written beside the number (sacrebleu's model).

A :class:`Signature` is assembled from the fields each component declares through its
``signature_fields() -> dict[str, str]`` (reference scorer, verifier, proxy scorer, extra columns),
in a fixed order, plus the package and library versions. It *is* the string
``key:value|key:value|...`` (a ``str`` subclass, so it goes into JSON and compares as text) and
also gives its fields back by name.

    >>> sig = Signature.from_parts({"ev2r": "0.1.0"}, {"ref": "nli", "decomp": "rules-v2"}, {"alpha": "0.5"})
    >>> str(sig)
    'ev2r:0.1.0|ref:nli|decomp:rules-v2|alpha:0.5'
    >>> sig["decomp"], Signature.parse(str(sig)) == sig
    ('rules-v2', True)
"""

from __future__ import annotations

import hashlib
import math
from importlib import metadata
from typing import Mapping

SEPARATOR = "|"


def exact_number(value: float) -> str:
    """A number as a signature writes it: the short ``:g`` form where it reads back as the same float, else the
    shortest text that does (``repr``), so two settings that differ anywhere never share a signature.

    >>> exact_number(0.5), exact_number(20.0), exact_number(0.50000004)
    ('0.5', '20', '0.50000004')

    Raises:
        ValueError: ``value`` is not a finite number (NaN or infinite), naming it.
    """
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"signature: {value!r} is not a finite number")
    short = f"{x:g}"
    return short if float(short) == x else repr(x)


def weights_text(weights, names) -> str:
    """Named weights as a signature writes them (the ``hybrid`` field): ``w=name:weight,...`` in the order given,
    each weight by :func:`exact_number`. The one writer of that text: the scorer's signature
    (:func:`ev2r.metric.combined.weights_field`, which checks the weights first) and the registry's latest
    definition (:mod:`ev2r.versions`, from :data:`ev2r.config.HYBRID_WEIGHTS`) both call it.

    Args:
        weights: one finite number per name.
        names: the component names, in the order of ``weights``.

    >>> weights_text((0.5, 0.25, 0.25), ("recall", "proxy", "precision"))
    'w=recall:0.5,proxy:0.25,precision:0.25'

    Raises:
        ValueError: ``weights`` and ``names`` of different lengths (naming both counts), or a weight that is not a
            finite number (:func:`exact_number`).
    """
    weights, names = tuple(weights), tuple(names)
    if len(weights) != len(names):
        raise ValueError(f"weights_text: {len(weights)} weights for {len(names)} names {names}")
    return "w=" + ",".join(f"{n}:{exact_number(v)}" for n, v in zip(names, weights))


def text_digest(text: str | bytes, n: int = 10) -> str:
    """The first ``n`` hex digits of the SHA-256 of ``text`` (UTF-8): how a signature names content.

    >>> text_digest("alpha:0.5")
    '4ab986ee8f'
    """
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()[:n]


def package_version(pkg: str) -> str:
    """Installed version of distribution ``pkg`` (e.g. ``"torch"``), or ``"none"`` when absent."""
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return "none"


class Signature(str):
    """An ordered ``key:value|...`` signature with its fields readable by key.

    Build one with :meth:`from_parts` (mappings of field -> value, in order) or :meth:`parse`.

    Raises:
        ValueError: a key repeated across parts, or a key or value containing ``|`` (or a key ``:``),
            naming it: such a signature could not be read back.
    """

    __slots__ = ()

    @classmethod
    def from_parts(cls, *parts: Mapping[str, str]) -> "Signature":
        """Concatenate the declared fields of each part, in order."""
        seen: dict[str, str] = {}
        for part in parts:
            for key, value in part.items():
                if not isinstance(key, str) or not key or value is None:
                    raise ValueError(f"signature: field {key!r}={value!r}: a field needs a non-empty name and a value")
                value = str(value)
                if key in seen:
                    raise ValueError(f"signature: field {key!r} declared twice ({seen[key]!r} and {value!r})")
                if SEPARATOR in key or ":" in key or SEPARATOR in value:
                    raise ValueError(f"signature: field {key!r}={value!r} contains '|' (or ':' in the key)")
                seen[key] = value
        return cls(SEPARATOR.join(f"{k}:{v}" for k, v in seen.items()))

    @classmethod
    def parse(cls, text: str) -> "Signature":
        """Read a signature string back (the inverse of ``str(sig)``).

        Raises:
            ValueError: ``text`` is not a string, or a chunk is not ``key:value`` with a non-empty
                key, or a key repeats.
        """
        if not isinstance(text, str):
            raise ValueError(f"signature: expected a string, got {type(text).__name__}")
        sig = cls(text)
        keys = [chunk.partition(":")[0] for chunk in text.split(SEPARATOR)] if text else []
        sig.fields  # noqa: B018 - validates each chunk
        if any(not k for k in keys):
            raise ValueError(f"signature: {text!r} has a field without a name")
        if len(set(keys)) != len(keys):
            raise ValueError(f"signature: {text!r} repeats a field")
        return sig

    @property
    def fields(self) -> dict[str, str]:
        """The fields in order, as a dict (a copy)."""
        out: dict[str, str] = {}
        if not self:
            return out
        for chunk in self.split(SEPARATOR):
            key, sep, value = chunk.partition(":")
            if not sep:
                raise ValueError(f"signature: {chunk!r} is not key:value")
            out[key] = value
        return out

    def __getitem__(self, key):  # type: ignore[override]
        if isinstance(key, str):
            return self.fields[key]
        return str.__getitem__(self, key)
