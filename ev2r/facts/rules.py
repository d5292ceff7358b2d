"""Evidence -> atomic facts: the :class:`Decomposer` protocol and the offline rule-based backend.

Ev2R's reference-based scorer (Akhtar et al. 2024, sec. 3.1) decomposes predicted and reference
evidence into atomic facts. The paper prompts an LLM (see :mod:`ev2r.llm` for that backend and
:mod:`ev2r.facts.replay` for recorded LLM outputs). The default here needs no model and no network:

* one unit per question/answer pair, the question kept as context;
* the answer split into sentences with ``pysbd`` (rule-based, no downloaded data);
* each fact rendered as ``"<question> <answer sentence>"`` so that a short answer ("Yes.",
  "3,33,87,677 from a 2011 census.") still carries what it answers.
"""

from __future__ import annotations

import functools
import re
from typing import Protocol, runtime_checkable

from ev2r.config import DEFAULTS, UNANSWERABLE_MODES
from ev2r.types import AtomicFact, Evidence, QAPair, clean_text, has_content, is_unanswerable

RULES_DECOMPOSER_ID = "rules-v1"
#: Names accepted by :func:`get_rule_decomposer` (``"rules"`` is the default version).
RULE_DECOMPOSERS = ("rules", "rules-v1", "rules-v2")


@runtime_checkable
class Decomposer(Protocol):
    """Turns evidence into atomic facts.

    ``name`` identifies the backend and its version in the metric signature.
    ``decompose(evidence, claim)`` returns the facts in evidence order; ``claim`` is context an
    LLM backend may use, rule-based backends ignore it. Raises on unusable input.
    """

    name: str

    def decompose(self, evidence: Evidence, claim: str = "") -> list[AtomicFact]: ...


@functools.lru_cache(maxsize=1)
def _segmenter():
    import pysbd

    return pysbd.Segmenter(language="en", clean=False)


def split_sentences(text: str) -> list[str]:
    """Split English text into sentences with pysbd (no downloaded data). Empty text -> [].

    No text is lost: pysbd uses some characters internally (e.g. U+261D, U+0238) and can drop
    them, or the text around them; when a line's segments do not cover it exactly (whitespace
    aside), that line is split at ``.``/``!``/``?`` + whitespace instead, which keeps every character.
    """
    text = clean_text(text)
    if not text:
        return []
    out = []
    content = functools.partial(re.sub, r"[\s\u200b\u200c\u200d\u2060\ufeff\u00ad]", "")  # what clean_text may strip
    for piece in text.split("\n"):
        piece = clean_text(piece)
        if piece:
            segs = [c for c in (clean_text(s) for s in _segmenter().segment(piece)) if c]
            if content("".join(segs)) != content(piece):  # pysbd lost or changed text
                segs = [c for c in (clean_text(s) for s in re.split(r"(?<=[.!?])\s+", piece)) if c]
            out.extend(segs)
    return out


def answer_sentences(answer: str, min_chars: int) -> list[str]:
    """The sentences of one answer that become facts: :func:`split_sentences`, sentences without a
    letter or digit dropped (they state nothing, :func:`ev2r.types.has_content`), sentences shorter than
    ``min_chars`` merged into the previous one."""
    sentences: list[str] = []
    for s in split_sentences(answer):
        if not has_content(s):
            continue
        if sentences and len(s) < min_chars:
            sentences[-1] = f"{sentences[-1]} {s}"
        else:
            sentences.append(s)
    return sentences


def unanswered_fact(pair: QAPair) -> str:
    """The one fact an Unanswerable pair gives under ``unanswerable="statement"``: "No answer could be
    found to the question: <question>" (how the recorded GPT-4o decompositions state such pairs)."""
    return f"No answer could be found to the question: {pair.question}" if pair.question else ""


def check_unanswerable_mode(mode: str) -> str:
    if mode not in UNANSWERABLE_MODES:
        raise ValueError(f"unanswerable: {mode!r} is not one of {UNANSWERABLE_MODES}")
    return mode


class RuleBasedDecomposer:
    """Offline default: one fact per answer sentence, prefixed by its question.

    Args:
        keep_question: prefix every fact with its question (default True).
        min_chars: sentences shorter than this (after stripping) are merged into the previous
            fact of the same pair, so fragments such as ``"[43]"`` do not become facts.

    Output: ``list[AtomicFact]`` with ``pair_index`` set. An evidence pair whose answer is empty
    yields no fact (blanked evidence is no evidence), and so does an answer without a letter or
    digit ("...", emoji); an Unanswerable answer ("No answer could be found.") follows
    ``unanswerable`` (:data:`ev2r.config.UNANSWERABLE_MODES`: ``"drop"``, no fact; ``"statement"``,
    one fact saying the question found no answer).
    """

    name = RULES_DECOMPOSER_ID

    def __init__(self, keep_question: bool = True, min_chars: int = 8, unanswerable: str = DEFAULTS.unanswerable):
        if min_chars < 0:
            raise ValueError(f"min_chars: must be >= 0, got {min_chars}")
        self.keep_question = keep_question
        self.min_chars = min_chars
        self.unanswerable = check_unanswerable_mode(unanswerable)

    def signature_fields(self) -> dict[str, str]:
        return {"decomp": self.name, "unans": self.unanswerable}

    def decompose(self, evidence: Evidence, claim: str = "") -> list[AtomicFact]:
        facts: list[AtomicFact] = []
        for k, pair in enumerate(evidence.pairs):
            if is_unanswerable(pair.answer):
                texts = [unanswered_fact(pair)] if self.unanswerable == "statement" else []
            else:
                texts = [f"{pair.question} {s}" if (self.keep_question and pair.question) else s
                         for s in answer_sentences(pair.answer, self.min_chars)]
            facts.extend(AtomicFact(text=t, pair_index=k) for t in texts if has_content(t))
        return facts


class DeclarativeDecomposer:
    """``rules-v2``: atomic facts written as declarative statements (:mod:`ev2r.facts.declarative`).

    A question/answer pair becomes statements that read like an LLM's atomic facts: a short
    answer takes the question's gap ("What is the population of X?" + "3 million" -> "The
    population of X is 3 million."), a yes/no answer becomes the affirmed or denied statement,
    a list answer one statement per item, a long answer one statement per sentence and clause
    (hard line breaks inside a sentence are joined first). What the rules cannot convert keeps
    rules-v1's "<question> <sentence>" form, so no answer text is dropped.

    Output: ``list[AtomicFact]`` with ``pair_index`` set; an empty answer, or one without a letter or
    digit, yields no fact; an Unanswerable answer follows ``unanswerable`` (as in
    :class:`RuleBasedDecomposer`), never the yes/no rule (its "No" is not a denial).
    """

    name = "rules-v2"

    def __init__(self, min_chars: int = 8, unanswerable: str = DEFAULTS.unanswerable):
        if min_chars < 0:
            raise ValueError(f"min_chars: must be >= 0, got {min_chars}")
        self.min_chars = min_chars
        self.unanswerable = check_unanswerable_mode(unanswerable)

    def signature_fields(self) -> dict[str, str]:
        return {"decomp": self.name, "unans": self.unanswerable}

    def decompose(self, evidence: Evidence, claim: str = "") -> list[AtomicFact]:
        from ev2r.facts.declarative import qa_to_statements

        facts: list[AtomicFact] = []
        for k, pair in enumerate(evidence.pairs):
            if is_unanswerable(pair.answer):
                if self.unanswerable == "statement" and pair.question:
                    facts.append(AtomicFact(text=unanswered_fact(pair), pair_index=k))
                continue
            # a line break inside a sentence (hard-wrapped web text) is a space; a blank line or a
            # bullet starts a new piece
            answer = re.sub(r"(?<![.!?:;\n])\n(?![\n\-*\u2022\d])", " ", pair.answer)
            sentences = answer_sentences(answer, self.min_chars)
            if not sentences:
                continue
            for text, _converted in qa_to_statements(pair.question, sentences):
                if has_content(text):
                    facts.append(AtomicFact(text=text, pair_index=k))
        return facts


def get_rule_decomposer(name: str = "rules", unanswerable: str = DEFAULTS.unanswerable):
    """The rule-based decomposer called ``name``: ``"rules"`` (the default, currently
    ``rules-v2``), ``"rules-v1"`` or ``"rules-v2"``, with ``unanswerable`` as the rule for
    AVeriTeC's Unanswerable answers (:data:`ev2r.config.UNANSWERABLE_MODES`).

    Raises:
        ValueError: an unknown name or mode, listing the allowed ones.
    """
    if name in ("rules", "rules-v2"):
        return DeclarativeDecomposer(unanswerable=unanswerable)
    if name == "rules-v1":
        return RuleBasedDecomposer(unanswerable=unanswerable)
    raise ValueError(f"decomposer: {name!r} is not one of {', '.join(RULE_DECOMPOSERS)}")
