"""Evidence -> atomic facts: the :class:`Decomposer` protocol and the offline rule-based backend.

Ev2R's reference-based scorer (Akhtar et al. 2024, sec. 3.1) decomposes predicted and reference evidence into atomic
facts; the paper prompts an LLM (:mod:`ev2r.llm`, replayed by :mod:`ev2r.facts.replay`). The default here needs no
model and no network: one unit per question/answer pair, the answer split into sentences with ``pysbd``, each fact
rendered as ``"<question> <answer sentence>"`` so that a short answer still carries what it answers.

**Scraped web pages.** With ``boilerplate=True`` (the default, :data:`BOILERPLATE_DEFAULT`) an answer sentence that
:func:`boilerplate_reason` calls boilerplate gives no fact (its prose pieces, :func:`prose_pieces`, still do), and
:func:`strip_boilerplate` gives the answer text the verifier reads as a premise. The test uses shallow,
language-agnostic features in the style of boilerplate detection (Kohlschuetter et al. 2010; Pomikalek 2011,
jusText): a unit is boilerplate when it is **separator-delimited** (menus, breadcrumbs: "Home | News | Sport"; not a
table of numbers nor names in a sentence), **a run of link labels** (30+ words, 60%+ capitalised, little
punctuation), **glued text nodes** ("ArticlesInfant", "2017The", 3+ times) or **a language list** (4+ capitalised
words in 3+ scripts: "English Español 中文 Русский"). Short units, dates and numbers alone and single-script prose
are never boilerplate. The rule's version (:data:`BOILERPLATE_RULE`) is in the decomposer's signature
(``boiler:v2``); ``boilerplate=False`` gives the facts, and the signature, of the decomposers before the test.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Optional, Protocol, runtime_checkable

from claimalign.words import has_content
from ev2r.facts.reading import read_text
from ev2r.types import AtomicFact, Evidence, clean_text

RULES_DECOMPOSER_ID = "rules-v1"
_POLAR_WORD = re.compile(r"(?i)^\W*(yes|yeah|yep|no|nope|true|false|correct|incorrect)\b")
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
    return list(_split_sentences(text)) if text else []


@functools.lru_cache(maxsize=1 << 14)
def _split_sentences(text: str) -> tuple[str, ...]:
    """:func:`split_sentences` memoised (a pure function of the text; pysbd costs ~1.5 ms a call and the
    same answer is split by the boilerplate rule, the decomposer and the premise rules)."""
    text = clean_text(text)
    if not text:
        return ()
    out = []
    content = functools.partial(re.sub, r"[\s\u200b\u200c\u200d\u2060\ufeff\u00ad]", "")  # what clean_text may strip
    for piece in text.split("\n"):
        piece = clean_text(piece)
        if piece:
            segs = [c for c in (clean_text(s) for s in _segmenter().segment(piece)) if c]
            if content("".join(segs)) != content(piece):  # pysbd lost or changed text
                segs = [c for c in (clean_text(s) for s in re.split(r"(?<=[.!?])\s+", piece)) if c]
            out.extend(segs)
    return tuple(out)


#: Version of the boilerplate test (module docstring); a change to it changes the numbers.
BOILERPLATE_RULE = "v2"  # v2: numeric tables, slash-separated names and quoted names kept
#: Default of the decomposers' ``boilerplate`` option: on, as it loses on neither development set
#: (benchmarks/results/scraped_pages.md); part of the decomposer's definition, like ``min_chars``.
BOILERPLATE_DEFAULT = True
_SEPARATOR_CHARS = frozenset("|\u00b7\u2022\u203a\u00a6\u25b8\u25ba\u25aa/\\>")
_PUNCTUATION = ".,;:!?()"
_SAME_SCRIPT = {"HIRAGANA": "CJK", "KATAKANA": "CJK"}  # Japanese mixes kana and kanji in one sentence


def _first_letter(token: str) -> str:
    return next(c for c in token if c.isalpha())


def _glued_boundaries(text: str) -> list[int]:
    """Offsets where two lower-case letters or a digit are followed by a capitalised word, with no space
    between them ("ArticlesInfant", "2017The"): DOM text nodes concatenated by a scraper. One lower-case
    letter is not enough, so names such as "McDonald", "iPhone" or "OnSide" are never cut."""
    return [i for i in range(2, len(text) - 1)
            if (text[i - 1].isdigit() or (text[i - 1].islower() and text[i - 2].islower()))
            and text[i].isupper() and text[i + 1].islower()]


def _script(c: str) -> str:
    script = unicodedata.name(c, "UNKNOWN").split()[0]
    return _SAME_SCRIPT.get(script, script)


def _is_separator(token: str) -> bool:
    return bool(token) and all(c in _SEPARATOR_CHARS for c in token)


def _table_or_names(text: str) -> bool:
    """True when the separators of ``text`` delimit a table of numbers (at least half of the cells hold
    no letter) or, with slashes only, names inside a sentence (prose pieces of 4+ words, at least half
    of them lower-case, hold at least half of the words): rule 1's exceptions (module docstring)."""
    tokens = text.split()
    cells: list[list[str]] = [[]]
    for t in tokens:
        if _is_separator(t):
            cells.append([])
        else:
            cells[-1].append(t)
    cells = [c for c in cells if c]
    if not cells:
        return False
    if 2 * sum(not any(ch.isalpha() for ch in " ".join(c)) for c in cells) >= len(cells):
        return True
    if any(_is_separator(t) and set(t) != {"/"} for t in tokens):
        return False
    words = [[w for w in c if any(ch.isalpha() for ch in w)] for c in cells]
    total = sum(len(w) for w in words)
    prose = sum(len(w) for w in words if len(w) >= 4 and 2 * sum(_first_letter(x).islower() for x in w) >= len(w))
    return total > 0 and 2 * prose >= total


def _language_run(text: str) -> bool:
    """True when ``text`` holds a run of at least 4 consecutive words, each capitalised or in a script
    without case, covering at least 3 scripts: the native names of a language switcher (rule 4)."""
    run: set[str] = set()
    length = 0
    for token in text.split():
        if not any(c.isalpha() for c in token):
            continue
        first = _first_letter(token)
        if first.islower():
            run, length = set(), 0
            continue
        run.add(_script(first))
        length += 1
        if length >= 4 and len(run) >= 3:
            return True
    return False


def _shape(text: str) -> tuple[int, float, int, int, float]:
    """(words, share of cased-script words capitalised, separator tokens, scripts, punctuation per word)."""
    tokens = text.split()
    words = [t for t in tokens if any(c.isalpha() for c in t)]
    firsts = [_first_letter(t) for t in words]
    cased = [c for c in firsts if c.isupper() or c.islower()]
    capitalised = sum(c.isupper() for c in cased) / len(cased) if cased else 0.0
    separators = sum(1 for t in tokens if _is_separator(t))
    scripts = {_script(c) for c in firsts}
    punctuation = sum(text.count(c) for c in _PUNCTUATION) / max(len(words), 1)
    return len(words), capitalised, separators, len(scripts), punctuation


def boilerplate_reason(sentence: str) -> Optional[str]:
    """Why one answer sentence is boilerplate of a scraped web page, or None when it is not.

    Args:
        sentence: one unit of :func:`split_sentences` (any language, any length).

    Returns:
        ``"separators"``, ``"link-labels"``, ``"glued"`` or ``"languages"`` (the four tests of the
        module docstring, checked in that order) or None. Never raises.

    >>> boilerplate_reason("Home | News | Sport | Weather | Contact us")
    'separators'
    >>> boilerplate_reason("Vláda v pondělí schválila návrh zákona o státním rozpočtu.") is None
    True
    """
    words, capitalised, separators, scripts, punctuation = _shape(sentence)
    if separators >= 2 and separators * 6 >= words and not _table_or_names(sentence):
        return "separators"
    if words >= 30 and capitalised >= 0.6 and punctuation < 0.1:
        return "link-labels"
    if len(_glued_boundaries(sentence)) >= 3 and punctuation < 0.1:
        return "glued"
    if scripts >= 3 and _language_run(sentence):
        return "languages"
    return None


def prose_pieces(sentence: str) -> list[str]:
    """The prose inside a boilerplate unit: ``sentence`` split at its separator tokens and glued
    boundaries (:func:`boilerplate_reason`), keeping each piece of at least 8 words, less than half of
    them capitalised, that is not boilerplate itself. Returns [] for a unit that is all menu.

    >>> prose_pieces("Skip to main content Sort byRelevanceDate Further Reading 2017The gap in the "
    ...              "homeownership rate between black and white families is bigger today than in 1968")
    ['The gap in the homeownership rate between black and white families is bigger today than in 1968']
    """
    cuts = _glued_boundaries(sentence)
    text = "".join(f"\n{c}" if i in cuts else c for i, c in enumerate(sentence))
    tokens = ["\n" if t and all(c in _SEPARATOR_CHARS for c in t) else t for t in re.split(r"([^\S\n]+)", text)]
    pieces = [clean_text(p) for p in "".join(tokens).split("\n")]
    out = []
    for p in pieces:
        words, capitalised, _, _, _ = _shape(p)
        if words >= 8 and capitalised < 0.5 and boilerplate_reason(p) is None:
            out.append(p)
    return out


def _maybe_boilerplate(text: str) -> bool:
    """A cheap screen for :func:`strip_boilerplate`: could any unit of ``text`` be boilerplate?"""
    words, _, separators, scripts, _ = _shape(text)
    return separators >= 2 or scripts >= 3 or words >= 30 or len(_glued_boundaries(text)) >= 3


def strip_boilerplate(answer: str) -> str:
    """``answer`` without its boilerplate units (:func:`boilerplate_reason`), each replaced by its
    :func:`prose_pieces`: the text a premise should carry, since what is no fact is no premise either
    (words of three scripts would hide a claim from the facts while the proxy still read it).
    Returned unchanged (the same string) when no unit is boilerplate; "" when every unit is.

    >>> strip_boilerplate("Home | News | Sport | Weather. The bill was signed on 3 May.")
    'The bill was signed on 3 May.'
    """
    if not answer or not _maybe_boilerplate(answer):
        return answer
    units = split_sentences(answer)
    if not any(boilerplate_reason(u) for u in units):
        return answer
    return " ".join(piece for u in units for piece in (prose_pieces(u) if boilerplate_reason(u) else [u]))


def answer_sentences(answer: str, min_chars: int, boilerplate: bool = False) -> list[str]:
    """The sentences of one answer that become facts: :func:`split_sentences`, sentences without a
    letter or digit dropped (they state nothing, :func:`ev2r.types.has_content`), with
    ``boilerplate=True`` a boilerplate sentence (:func:`boilerplate_reason`) replaced by its
    :func:`prose_pieces`, then sentences shorter than ``min_chars`` merged into the previous one."""
    sentences: list[str] = []
    units = split_sentences(answer)
    if boilerplate:  # the one place the scraped-page test applies (module docstring)
        units = [piece for u in units for piece in (prose_pieces(u) if boilerplate_reason(u) else [u])]
    for s in units:
        if not has_content(s):
            continue
        if sentences and len(s) < min_chars:
            sentences[-1] = f"{sentences[-1]} {s}"
        else:
            sentences.append(s)
    return sentences


def boilerplate_signature(fields: dict[str, str], boilerplate: bool) -> dict[str, str]:
    """``fields`` plus ``boiler:<BOILERPLATE_RULE>`` when the boilerplate test is on; unchanged when
    off, so the signatures of score files written before the test existed still match."""
    return {**fields, "boiler": BOILERPLATE_RULE} if boilerplate else fields


class RuleBasedDecomposer:
    """Offline default: one fact per answer sentence, prefixed by its question.

    Args:
        keep_question: prefix every fact with its question (default True).
        min_chars: sentences shorter than this (after stripping) are merged into the previous
            fact of the same pair, so fragments such as ``"[43]"`` do not become facts.
        boilerplate: drop answer sentences that are scraped-page boilerplate, keeping their prose
            pieces (module docstring; default :data:`BOILERPLATE_DEFAULT`).

    Output: ``list[AtomicFact]`` with ``pair_index`` set. An evidence pair whose answer is empty
    yields no fact (blanked evidence is no evidence), and so does an answer without a letter or
    digit ("...", emoji) or a bare answer other than yes/no ("x", a URL:
    :func:`claimalign.words.is_bare_answer`); nor does an Unanswerable answer ("No answer could be found.";
    the signature's ``unans:drop``: one fact saying the question found no answer, ``statement``, is computed by
    commit e43eb97). An Unanswerable sentence among other text ("No answer could be found. (Searched the site.)",
    wherever it stands) is no fact either; the other sentences are read as any answer
    (:func:`claimalign.words.strip_unanswerable`).
    """

    name = RULES_DECOMPOSER_ID
    #: How an Unanswerable answer is read: no fact (the signature's ``unans``).
    unanswerable = "drop"

    def __init__(self, keep_question: bool = True, min_chars: int = 8, boilerplate: bool = BOILERPLATE_DEFAULT):
        if min_chars < 0:
            raise ValueError(f"min_chars: must be >= 0, got {min_chars}")
        self.keep_question = keep_question
        self.min_chars = min_chars
        self.boilerplate = bool(boilerplate)

    def signature_fields(self) -> dict[str, str]:
        return boilerplate_signature({"decomp": self.name, "unans": self.unanswerable}, self.boilerplate)

    def decompose(self, evidence: Evidence, claim: str = "") -> list[AtomicFact]:
        facts: list[AtomicFact] = []
        for k, pair in enumerate(evidence.pairs):
            # an Unanswerable sentence among others is no fact either; the rest is read as any text
            given = read_text(pair.answer)
            answer = given.answered
            if given.unanswerable:
                texts = []
            elif read_text(answer).bare and not _POLAR_WORD.match(answer):
                texts = []  # "x", a URL: states nothing (a "Yes"/"No" still answers its question here)
            else:
                texts = [f"{pair.question} {s}" if (self.keep_question and pair.question) else s
                         for s in answer_sentences(answer, self.min_chars, self.boilerplate)]
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
    digit, yields no fact, nor does an Unanswerable answer (as in :class:`RuleBasedDecomposer`; never the yes/no
    rule: its "No" is not a denial); ``boilerplate`` as in :class:`RuleBasedDecomposer`.
    """

    name = "rules-v2"
    #: How an Unanswerable answer is read: no fact (the signature's ``unans``).
    unanswerable = "drop"

    def __init__(self, min_chars: int = 8, boilerplate: bool = BOILERPLATE_DEFAULT):
        if min_chars < 0:
            raise ValueError(f"min_chars: must be >= 0, got {min_chars}")
        self.min_chars = min_chars
        self.boilerplate = bool(boilerplate)

    def signature_fields(self) -> dict[str, str]:
        """``decomp:rules-v2``, ``v2-rev`` (:data:`ev2r.facts.declarative.RULES_V2_REVISION`: the rules changed
        since the first rules-v2 files), ``unans`` and, when on, ``boiler``."""
        from ev2r.facts.declarative import RULES_V2_REVISION

        return boilerplate_signature({"decomp": self.name, "v2-rev": RULES_V2_REVISION, "unans": self.unanswerable},
                                     self.boilerplate)

    def decompose(self, evidence: Evidence, claim: str = "") -> list[AtomicFact]:
        from ev2r.facts.declarative import qa_to_statements
        facts: list[AtomicFact] = []
        for k, pair in enumerate(evidence.pairs):
            given = read_text(pair.answer)
            if given.unanswerable:
                continue
            # a line break inside a sentence (hard-wrapped web text) is a space; a blank line or a
            # bullet starts a new piece
            # an Unanswerable sentence among others is no fact either (its "No" is no denial); the rest is
            # read as any text
            answer = re.sub(r"(?<![.!?:;\n])\n(?![\n\-*\u2022\d])", " ", given.answered)
            sentences = answer_sentences(answer, self.min_chars, self.boilerplate)
            if not sentences:
                continue
            for text, _converted in qa_to_statements(pair.question, sentences):
                if has_content(text):
                    facts.append(AtomicFact(text=text, pair_index=k))
        return facts


def get_rule_decomposer(name: str = "rules", boilerplate: bool = BOILERPLATE_DEFAULT):
    """The rule-based decomposer called ``name``: ``"rules"`` (the default, currently
    ``rules-v2``), ``"rules-v1"`` or ``"rules-v2"``, with ``boilerplate`` as the scraped-page test
    (module docstring).

    Raises:
        ValueError: an unknown name, listing the allowed ones.
    """
    if name in ("rules", "rules-v2"):
        return DeclarativeDecomposer(boilerplate=boilerplate)
    if name == "rules-v1":
        return RuleBasedDecomposer(boilerplate=boilerplate)
    raise ValueError(f"decomposer: {name!r} is not one of {', '.join(RULE_DECOMPOSERS)}")
