"""Offline resources of the perturbations: the name lists and off-topic pairs shipped as package
data (``adversarial/data/*.json``), and WordNet through nltk (never downloaded).

WordNet is looked up on nltk's search path (``NLTK_DATA`` and nltk's default folders; the CLI's
``--nltk-data DIR`` adds a folder). When it is missing, :func:`wordnet` raises
:class:`ResourceMissingError` saying what to install; the suite then reports the ``synonyms``
perturbation as unavailable instead of silently skipping it.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from claimalign.nltk_data import import_nltk

ENTITY_TYPES = ("person", "place", "organisation")


class ResourceMissingError(LookupError):
    """An offline resource (WordNet data, nltk itself) is not installed."""


def _load_json(name: str) -> Any:
    return json.loads(resources.files("adversarial").joinpath("data", name).read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=1)
def entity_lists() -> dict[str, tuple[dict, ...]]:
    """The shipped entity lists: ``{"person": ({"name", "short"?}, ...), "place": ({"name"}, ...),
    "organisation": (...)}`` (hand-made, see ``adversarial/data/entities.json``)."""
    raw = _load_json("entities.json")
    out: dict[str, tuple[dict, ...]] = {}
    for etype in ENTITY_TYPES:
        entries = []
        for e in raw[etype]:
            entries.append(dict(e) if isinstance(e, dict) else {"name": e})
        out[etype] = tuple(entries)
    return out


@functools.lru_cache(maxsize=1)
def off_topic_pairs() -> tuple[tuple[str, str], ...]:
    """Hand-written (question, answer) pairs unrelated to fact-checked claims (fallback pool of the
    ``off_topic_pair`` perturbation)."""
    return tuple((p["question"], p["answer"]) for p in _load_json("off_topic_pairs.json")["pairs"])


def add_nltk_data_path(path: str) -> None:
    """Put ``path`` first on nltk's data search path (:func:`claimalign.nltk_data.add_nltk_data_path`).

    Raises:
        ResourceMissingError: nltk is not installed.
        ValueError: ``path`` is not a directory.
    """
    try:
        from claimalign.nltk_data import add_nltk_data_path as add
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ResourceMissingError("nltk is not installed: pip install nltk") from e
    try:
        add(path)
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ResourceMissingError("nltk is not installed: pip install nltk") from e


def wordnet():
    """nltk's WordNet corpus reader, loaded.

    Raises:
        ResourceMissingError: nltk is missing, or no ``corpora/wordnet`` folder is on nltk's data
            path. Nothing is downloaded: set ``NLTK_DATA`` to a folder holding
            ``corpora/wordnet`` (WordNet 3.0), or pass ``--nltk-data DIR`` to the CLI.
    """
    try:
        import_nltk()
        from nltk.corpus import wordnet as wn
        import nltk
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ResourceMissingError("the synonyms perturbation needs nltk: pip install nltk") from e
    try:
        wn.ensure_loaded()
    except LookupError as e:
        raise ResourceMissingError(
            "WordNet data not found on nltk's data path "
            f"({', '.join(map(str, nltk.data.path[:4]))}, ...): set NLTK_DATA to a folder holding "
            "corpora/wordnet (WordNet 3.0) or pass --nltk-data DIR; nothing is downloaded") from e
    return wn
