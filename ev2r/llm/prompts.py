"""Prompt templates shipped as package data (``ev2r/llm/templates/*.txt``) and their hashes.

A prompt is a :class:`string.Template` (``$claim``, ``$predicted_evidence``, ...), so the JSON example inside it
needs no brace escaping. Its identity in a score signature is ``<name>@<first 12 hex of sha256(file bytes)>``:
editing a prompt changes the signature, and the full text enters every cache key (:mod:`ev2r.llm.cache`). Fixed
instructions come first and the item's fields last, for servers with prefix caching.

Shipped prompts (our own wording throughout):

* ``reference_prf`` -- atomic facts of both sides, each checked against the other side, counts, precision and
  recall, as JSON with the keys of the authors' recorded answers (Akhtar et al. 2024, sec. 3.1); the answer's shape
  shown as a template. ``reference_prf_example`` -- the same, the shape shown as a worked example (small models copy
  one or the other back: ``benchmarks/results/llm_path.md``; a copied example is a ``parse_error``).
* ``proxy_verdict`` -- the verdict as one letter; P(verdict) is read from its log-probabilities (sec. 3.2).
* ``averitec2025_recall`` / ``averitec2025_question_recall`` -- the judge of the AVeriTeC 2025 table
  (:mod:`ev2r.shared_task.averitec2025`), answering with the organisers' count keys.
* ``arena_pairwise`` -- the judge of ``ev2r arena`` (:mod:`ev2r.ranking.arena`): two anonymous evidence sets,
  the reference as a factual reference, the answer ``A``, ``B`` or ``tie`` (FactArena, arXiv 2601.02669, sec. III-C).
"""

from __future__ import annotations

import functools
import hashlib
import string
from dataclasses import dataclass
from importlib import resources
from typing import Any, Optional

PROMPT_NAMES = ("reference_prf", "reference_prf_example", "proxy_verdict", "averitec2025_recall",
                "averitec2025_question_recall", "arena_pairwise")


@dataclass(frozen=True)
class Prompt:
    """A loaded prompt template.

    Attributes:
        name: file stem (``reference_prf``) or ``"custom"`` for a template given as text.
        text: the template text.
        sha256: hex digest of the UTF-8 text.
    """

    name: str
    text: str
    sha256: str

    @property
    def id(self) -> str:
        """``name@hash12``, the prompt's identity in signatures."""
        return f"{self.name}@{self.sha256[:12]}"

    def example_facts(self) -> frozenset:
        """The atomic facts of the template's worked example (the JSON object on the line after
        ``Example answer:``), case-folded; empty when the template has none. A reply holding one of
        them copied the example (:class:`~ev2r.llm.LLMReferenceScorer` refuses it)."""
        return _example_facts(self.text)

    def render(self, **fields: str) -> str:
        """Fill the template.

        Raises:
            KeyError: a ``$field`` of the template was not given.
        """
        return string.Template(self.text).substitute(**fields)


@functools.lru_cache(maxsize=32)
def _example_facts(text: str) -> frozenset:
    import json

    from ev2r.facts.reply import split_enumeration

    lines = text.splitlines()
    for k, line in enumerate(lines[:-1]):
        if line.strip() == "Example answer:":
            try:
                obj = json.loads(lines[k + 1])
            except ValueError:
                return frozenset()
            if not isinstance(obj, dict):
                return frozenset()
            facts: set = set()
            for key in ("facts in predicted evidence", "facts in reference evidence"):
                facts.update(f.strip().casefold() for f in split_enumeration(obj.get(key)) or [])
            return frozenset(facts)
    return frozenset()


def example_facts_of(prompt_id: Optional[str]) -> frozenset:
    """The worked-example facts (:meth:`Prompt.example_facts`) of the shipped prompt a recording
    names (``name@sha12``), when its text is the shipped one; else empty (an unknown or edited
    prompt, or none)."""
    if not isinstance(prompt_id, str) or "@" not in prompt_id:
        return frozenset()
    name = prompt_id.split("@", 1)[0]
    if name not in PROMPT_NAMES or load_prompt(name).id != prompt_id:
        return frozenset()
    return load_prompt(name).example_facts()


def prompt_from_text(text: str, name: str = "custom") -> Prompt:
    """A :class:`Prompt` from template text (for users who bring their own wording)."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("prompt: expected a non-empty template string")
    return Prompt(name, text, hashlib.sha256(text.encode("utf-8")).hexdigest())


@functools.lru_cache(maxsize=None)
def load_prompt(name: str) -> Prompt:
    """Load a shipped prompt by name (one of :data:`PROMPT_NAMES`).

    Raises:
        ValueError: unknown name (the message lists the shipped ones).
    """
    if name not in PROMPT_NAMES:
        raise ValueError(f"prompt: {name!r} is not one of the shipped prompts {PROMPT_NAMES}")
    text = (resources.files("ev2r.llm") / "templates" / f"{name}.txt").read_text(encoding="utf-8")
    return Prompt(name, text, hashlib.sha256(text.encode("utf-8")).hexdigest())


def resolve_prompt(prompt: Any, default: str) -> Prompt:
    """The prompt a caller asked for: ``default`` (a shipped name) when ``prompt`` is None; a
    :class:`Prompt` as is; a shipped name (a string without ``$``); else template text.

    Raises:
        ValueError: an unknown shipped name, or empty template text.
    """
    if prompt is None:
        return load_prompt(default)
    if isinstance(prompt, Prompt):
        return prompt
    if isinstance(prompt, str) and "$" not in prompt:
        return load_prompt(prompt)
    return prompt_from_text(prompt)
