"""Whether a text restates the claim: the claim's own content, wrapped, reworded with synonyms, or one of its spans
copied. Restating the claim is no evidence for it, and deciding so is the metric's concern, not the aligner's:
:mod:`ev2r.metric.admission`
reads :func:`restates_claim` for every pair, :mod:`ev2r.metric.reference` for every predicted atomic fact.

The rule is lexical (stems of :func:`claimalign.words.content_tokens`), read from each text's
:class:`ev2r.facts.reading.TextReading`; the learned reading of the admission stage
(:mod:`ev2r.metric.admission_model`) catches restatements in other words.
"""

from __future__ import annotations

import functools
from typing import Callable, Union

from claimalign.meteor_fast import synonym_tokens, synonyms_available
from claimalign.words import MIN_CLAIM_TOKENS, stem_word
from ev2r.facts.reading import TextReading, read_text

__all__ = ["restates_claim", "is_claim_span", "SPAN_MIN_TOKENS", "RESTATE_COVERAGE", "RESTATE_NOVELTY",
           "RESTATE_WRAP_NOVELTY", "WRAP_FILLER"]

#: :func:`restates_claim`: the share of the claim's content a restatement covers, at least.
RESTATE_COVERAGE = 0.5
#: :func:`restates_claim`: a restatement adds no content token of its own (measured on the development sets:
#: allowing one more would flag 15 / 12 real predicted pairs of the 86 / 144 rows instead of 8 / 7).
RESTATE_NOVELTY = 0
#: :func:`restates_claim`: the claim copied *whole* (all its words in order) restates it with up to this many content
#: tokens of its own around it ("Answer 0: see <claim>.", the handed case G6: ten such pairs prepended took the
#: proxy from 0.04 to 0.99). On the development sets no real predicted answer holds its claim whole with 3 or fewer
#: (0 of the 246 / 710 pairs of the 86 / 144 rows; 16 hold it whole, adding 4 (3 pairs) or more: "In his op-ed,
#: Johnson cited ... who claim that <claim> ..."). Of the predicted atomic facts, 2 of the 144 rows' are now no facts:
#: "The claim that <claim> is false." (a verdict, no evidence) and a fact that copies the claim behind "1. Has".
RESTATE_WRAP_NOVELTY = 3
#: :func:`restates_claim`'s wrap rule: the words around a claim copied whole must be filler, words *about* the text
#: (compared as stems; "Answer 0: see <claim>."), with list numbers of at most two digits beside them. A word that adds
#: a fact ("... in 2020 with 52.1% of the vote", "In January 2021, <claim>", a named source) keeps the text evidence (a
#: rule of any 3 words dropped "Trump won Texas in 2020 with 52.1% of the vote." for the claim "Trump won Texas in
#: 2020").
WRAP_FILLER = frozenset("""
answer question see claim statement evidence refer note item point reply response result link page here below
above follow read text quote check fact detail information content entry part section step number option
""".split())


Text = Union[str, TextReading, None]


def _reading(text: Text) -> TextReading:
    return text if isinstance(text, TextReading) else read_text(text)


def restates_claim(text: Text, claim: Text, synonyms: Union[bool, Callable, None] = None) -> bool:
    """True when ``text`` states the claim and nothing else: it holds at least
    :data:`RESTATE_COVERAGE` of the claim's content tokens and no content token the claim does not
    have (:data:`RESTATE_NOVELTY`; :func:`claimalign.words.content_tokens`: stems, so "freezes" / "freezing" match).
    Templates made of function words ("It is true that ...", "It is not true that ...", "Is it true
    that ...? Yes.") restate the claim they wrap; an answer that confirms one detail ("January 10,
    2021") covers too little, and one that reports what a source found adds its own words (a name, a
    number, "$30,842.15"). A claim restated is no evidence for it: the verifier would find it entailing
    (or, negated, contradicting) the claim from the claim's own words. With ``synonyms`` (word -> the content
    tokens of its synonyms, e.g. :func:`claimalign.meteor_fast.synonym_tokens`), a word whose synonym is a
    word of the claim counts as that word (the claim reworded with synonyms restates it); a paraphrase that changes the
    structure is not caught, nor is anything for a claim of fewer than :data:`MIN_CLAIM_TOKENS` content tokens. The
    claim copied whole inside at most :data:`RESTATE_WRAP_NOVELTY` content tokens of filler restates it too. A verbatim
    span of the claim (one of its sentences or clauses copied, :func:`is_claim_span`) restates it too, whatever share of
    the claim it covers.

    Args:
        text, claim: each a str (None reads as "") or its :class:`ev2r.facts.reading.TextReading`.
        synonyms: None (words as written); True (WordNet's, :func:`claimalign.meteor_fast.synonym_tokens`, asked
            only for the text's words that are not the claim's; none without WordNet); or a callable word -> the
            content tokens of its synonyms.

    >>> restates_claim("It is not true that Biden froze arms sales.", "Biden froze arms sales to Saudi Arabia.")
    True
    >>> restates_claim("Yes, a dealer quoted $30,842.15 for a 2012 Volt battery.",
    ...                "A dealer quoted $30,000 for a Volt battery.")
    False
    >>> restates_claim("Turkey reported 91.25% efficacy while Indonesia reported 65.3%.",
    ...                "SinoVac has an efficacy of 91.25% in Indonesia.")
    False
    >>> restates_claim("Answer 0: see Biden froze arms sales to Saudi Arabia.",
    ...                "Biden froze arms sales to Saudi Arabia.")
    True
    """
    text, claim = _reading(text), _reading(claim)
    t, c = text.content, claim.content
    if not t or len(c) < MIN_CLAIM_TOKENS:
        return False
    covered = t & c
    novel = t - c
    if synonyms is True:
        synonyms = synonym_tokens if synonyms_available() else None
    if novel and synonyms is not None and synonyms is not False:
        # a word of the text whose WordNet synonym is a claim word is that claim word ("sum" for "total",
        # "forestall" for "prevent": the claim reworded)
        for word, stem in zip(text.words, text.stems):
            if stem in novel and word.isalpha() and word.isascii():
                hit = synonyms(word) & c
                if hit:
                    novel = novel - {stem}
                    covered = covered | hit
    coverage = len(covered) / len(c)
    if coverage >= RESTATE_COVERAGE and len(novel) <= RESTATE_NOVELTY:
        return True
    if len(novel) <= RESTATE_WRAP_NOVELTY and _wraps_claim(text, claim, novel):
        return True  # the claim copied whole inside a few words of filler, or behind a label
    return is_claim_span(text, claim)



#: :func:`is_claim_span`: a copied span needs at least this many content tokens, as many as a claim needs to
#: be told apart at all (:data:`MIN_CLAIM_TOKENS`): "January 10, 2021." (3) answers a question with a detail
#: of the claim, "So, NASA's Perseverance rover cannot land on Mars." (5) copies a clause of it. On the
#: development sets no real predicted answer is a span of its claim that the coverage rule did not flag.
SPAN_MIN_TOKENS = MIN_CLAIM_TOKENS


def _wraps_claim(text: TextReading, claim: TextReading, novel: frozenset) -> bool:
    """The claim copied whole (on word boundaries) with ``novel`` (its few words of its own) either filler
    (:func:`_is_filler`: "Answer 0: see <claim>") or a label before a colon with nothing after the claim
    ("AWS said: <claim>", "Reuters, AP: <claim>"): a label names who said it, and says nothing more."""
    whole = f" {claim.span} "
    if whole not in f" {text.span} ":
        return False
    if _is_filler(novel):
        return True
    tail = text.colon_tail
    return tail is not None and whole in f" {tail.span} " and not (tail.content - claim.content)


def _is_filler(tokens: frozenset) -> bool:
    """True when every content token is a :data:`WRAP_FILLER` stem or a number of at most two digits, and a
    number comes only beside a filler word ("Answer 0"), never alone."""
    words = {t for t in tokens if not t[0].isdigit()}
    numbers = tokens - words
    if any(not (n.isdigit() and len(n) <= 2) for n in numbers):
        return False
    return words <= _filler_stems() and (bool(words) or not numbers)


@functools.lru_cache(maxsize=1)
def _filler_stems() -> frozenset:
    return frozenset(stem_word(w) for w in WRAP_FILLER)


def is_claim_span(text: Text, claim: Text) -> bool:
    """True when ``text`` is a verbatim span of the claim (words and numbers in the claim's order, case,
    punctuation and spacing aside) holding at least :data:`SPAN_MIN_TOKENS` content tokens: one
    sentence or clause of a longer claim copied (the claim appended behind words of three scripts
    left "So, NASA's Perseverance rover cannot land on Mars." once the scraped-page rule dropped the words,
    a premise that entails the claim's last sentence from its own words). Real evidence that quotes a claim
    adds words of its own, so it is no span. ``text`` and ``claim``: each a str or its
    :class:`ev2r.facts.reading.TextReading`.

    >>> claim = "Mars has little oxygen. So, NASA's Perseverance rover cannot land on Mars."
    >>> is_claim_span("so NASA's Perseverance rover cannot land on Mars", claim)
    True
    >>> is_claim_span("The Perseverance rover landed on Mars in 2021.", claim)
    False
    >>> is_claim_span("land on Mars", claim)  # a detail: too little content to tell
    False
    >>> is_claim_span("Vac) has an efficacy rate of 91.25% in Indonesia.",  # a word cut by a sentence splitter
    ...               "SinoVac COVID-19 vaccine (CoronaVac) has an efficacy rate of 91.25% in Indonesia.")
    True
    """
    text, claim = _reading(text), _reading(claim)
    if not text.text or not claim.text or len(text.content) < SPAN_MIN_TOKENS:
        return False
    return bool(text.span) and text.span in claim.span
