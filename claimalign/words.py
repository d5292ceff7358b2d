"""Words of a text as the metric compares them: whether a text has content at all (:func:`has_content`), its word
tokens (:func:`word_tokens`), its stemmed content words and numbers (:func:`content_tokens`), whether an answer is
bare ("Yes.", "x", a URL: :func:`is_bare_answer`) and how much of a claim a text holds (:func:`claim_coverage`);
and AVeriTeC's answer for a question that found none (:data:`NO_ANSWER`, :func:`is_unanswerable`,
:func:`strip_unanswerable`): answers that state nothing about the world.
"""

from __future__ import annotations

import functools
import re
from typing import List, Optional

from claimalign.nltk_data import import_nltk
from claimalign.text import normalize_text

__all__ = ["has_content", "content_tokens", "is_bare_answer", "claim_coverage", "token_coverage", "MIN_CLAIM_TOKENS",
           "stem_word", "word_tokens", "FUNCTION_WORDS", "NO_ANSWER", "is_unanswerable", "strip_unanswerable"]


def has_content(text: Optional[str]) -> bool:
    """True when ``text`` holds at least one letter or digit (``str.isalnum``, any script).

    Text made only of punctuation, symbols, emoji or whitespace ("...", "?!?!", "🙂") states
    nothing: it is no atomic fact and supports nothing (issue: content-free facts got P(entailment)
    0.73-0.86 against unrelated premises). ``None`` or ``""`` -> False.
    """
    return bool(text) and any(ch.isalnum() for ch in text)  # type: ignore[union-attr]


#: English function words, polarity words and fillers that carry no content of their own.
_STOP = frozenset("""
a an the and or but nor so yet if then than that this these those there here it its it's he she him her his hers
they them their theirs we us our ours you your yours i me my mine who whom whose which what when where why how
is are was were be been being am do does did done doing has have had having will would shall should can could
may might must of in on at by for with about against between into through during before after above below to
from up down out off over under again further once all any both each few more most other some such no not
only own same too very just also as because until while s t don now yes yeah yep no nope true false correct
incorrect right wrong indeed sure okay ok answer question according reports reported say says said
""".split())
#: The function words above, public: words that are English whatever their context (``ev2r.metric.admission`` reads
#: none of them as a typo).
FUNCTION_WORDS = _STOP
_URL = re.compile(r"(?i)\b(?:https?://|www\.)\S+")
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+")
#: A claim with fewer content tokens than this is too short to tell a restatement (or an off-topic text) by
#: its words: ``ev2r.metric.restatement.restates_claim`` is False and ``ev2r.metric.admission`` keeps every pair for it.
MIN_CLAIM_TOKENS = 4


def _stemmer():
    global _STEMMER
    if _STEMMER is None:
        import_nltk()
        from nltk.stem.porter import PorterStemmer  # rule-based, no nltk data needed

        _STEMMER = PorterStemmer()
    return _STEMMER


_STEMMER = None


@functools.lru_cache(maxsize=1 << 18)
def _stem(word: str) -> str:
    """The Porter stem of an ASCII ``word`` (memoised: a pure function, called for every token of every pair
    and claim, 780k times on the 144 rows)."""
    return _stemmer().stem(word)


def stem_word(word: str) -> str:
    """The Porter stem of a case-folded ``word`` when it is ASCII, else the word (the stems :func:`content_tokens`
    holds).

    >>> stem_word("freezes"), stem_word("zmrazil")
    ('freez', 'zmrazil')
    """
    return _stem(word) if word.isascii() else word


def word_tokens(text: Optional[str], urls: bool = False) -> List[str]:
    """The case-folded words and numbers of ``text`` in order ("91.25", "3,33,87,677" stay one token; punctuation
    dropped), URLs left out unless ``urls``.

    >>> word_tokens("See https://x.org: Biden's 91.25% plan!")
    ['see', 'biden', 's', '91.25', 'plan']
    """
    if not text:
        return []
    text = normalize_text(text)
    return _TOKEN.findall((text if urls else _URL.sub(" ", text)).casefold())


def content_tokens(text: Optional[str]) -> frozenset:
    """The content of ``text`` as a set of tokens: words (any script, case-folded, Porter-stemmed for
    Latin letters) and numbers ("91.25", "3,33,87,677" stay one token), without URLs, one-letter words
    and the function / polarity words of a fixed English list ("the", "is", "yes", "no", "true", ...).

    >>> sorted(content_tokens("Yes, it is TRUE that the vaccines were approved in 2021."))
    ['2021', 'approv', 'vaccin']
    >>> content_tokens("x") == content_tokens("https://example.com/a") == frozenset()
    True
    """
    if not text:
        return frozenset()
    return _content_tokens(text)


@functools.lru_cache(maxsize=1 << 16)
def _content_tokens(text: str) -> frozenset:
    out = set()
    for t in word_tokens(text):
        if t[0].isdigit():
            out.add(t)
        elif len(t) > 1 and t not in _STOP:
            out.add(_stem(t) if t.isascii() else t)
    return frozenset(out)


def is_bare_answer(answer: Optional[str]) -> bool:
    """True when ``answer`` has text but no content token (:func:`content_tokens`): "Yes.", "No",
    "True", "x", a URL alone. Such an answer carries no evidence of its own: whatever a verifier
    reads in its pair comes from the question. Empty text is not bare (it is no answer).

    >>> is_bare_answer("No."), is_bare_answer("2021"), is_bare_answer("")
    (True, False, False)
    """
    if not has_content(answer) or content_tokens(answer):
        return False
    words = word_tokens(answer)
    # one-letter words are no content alone ("x"), but several words with one ("X is here", "a b") say something
    return not any(len(w) == 1 for w in words) or len(words) < 2


def claim_coverage(text: Optional[str], claim: Optional[str], cap: Optional[int] = None) -> float:
    """Share of the claim's content tokens that ``text`` holds (0 when the claim has none), in [0, 1].

    Args:
        cap: with an integer, the share of ``min(len(claim tokens), cap)`` instead (clipped to 1): a long
            claim (background context, then the checkable clause) asks no more words of one evidence
            pair than a claim of ``cap`` content tokens does.
    """
    return token_coverage(content_tokens(text), content_tokens(claim), cap)


def token_coverage(tokens: frozenset, claim_tokens: frozenset, cap: Optional[int] = None) -> float:
    """:func:`claim_coverage` of content tokens already read: the share of ``claim_tokens`` (a set of str) that
    ``tokens`` holds (0 when ``claim_tokens`` is empty), out of at most ``cap`` of them with an integer, in [0, 1].

    >>> token_coverage(frozenset({"vaccin", "2021"}), frozenset({"vaccin", "approv", "2021", "fda"}), cap=2)
    1.0
    """
    if not claim_tokens:
        return 0.0
    denominator = len(claim_tokens) if cap is None else min(len(claim_tokens), cap)
    return min(1.0, len(tokens & claim_tokens) / denominator)


# ----------------------------------------------------------------------------- AVeriTeC's Unanswerable text

#: AVeriTeC's answer text for a question the annotators could not answer (answer_type "Unanswerable").
NO_ANSWER = "No answer could be found."

_INVISIBLE = re.compile("[\u00a0\u200b\u200c\u200d\u2060\ufeff\u2018\u2019\u201c\u201d\"'\u00ab\u00bb]")
# one sentence of the Unanswerable text, as typed: "No answer could be found", "No answer found",
# "No answer was found", "... in the sources" / "online" / "in the search results"
_UNANSWERABLE = re.compile(r"^no answers? (?:could be |can be |was |were )?found"
                           r"(?: (?:in|on|from) (?:the |any )?(?:sources?|web|internet|search(?: results?)?|"
                           r"documents?|evidence|articles?|pages?)| online)?$")


_FOLD_STOPS = str.maketrans({"\u2026": ".", "\u3002": ".", "\uff0e": ".", "\uff01": "!", "\uff1f": "?",
                             "(": " ", ")": " ", "[": " ", "]": " ", "\uff08": " ", "\uff09": " "})
_STOPS = re.compile(r"[.!?;]+")


def is_unanswerable(answer: Optional[str]) -> bool:
    """True when ``answer`` is AVeriTeC's Unanswerable text ("No answer could be found.", any case,
    with or without the final full stop, quotes, repeated punctuation or extra / invisible spaces).
    Such a pair records that a question found no answer: it
    is no fact about the world. Read as people type it: every sentence
    of the answer is the text ("No answer could be found. No answer could be found." on one line or
    two), after folding "…" / "。" / fullwidth stops into full stops and dropping brackets; "No answer
    found.", "No answer was found.", "No answer could be found in the sources." (or on the web, in
    the search results, online) count too. A sentence that says more ("No answer could be found, but
    the minister denied it") is no Unanswerable text.

    >>> is_unanswerable("No answer could be found\u2026"), is_unanswerable("(No answer found.)")
    (True, True)
    >>> is_unanswerable("No evidence was found that the ship carried bodies.")
    False
    """
    if not answer:
        return False
    text = " ".join(_INVISIBLE.sub(" ", answer).split()).lower()  # quotes, NBSP, zero-width, runs of spaces
    text = text.translate(_FOLD_STOPS)  # "…", "。", "！" -> sentence stops; brackets around it dropped
    sentences = [" ".join(s.split()) for s in _STOPS.split(text)]
    sentences = [s for s in sentences if s]
    return bool(sentences) and all(_UNANSWERABLE.match(s) for s in sentences)


_AFTER_CUT = " \t\n)]}\"'\u00bb\u201d\u2019\uff09"


def strip_unanswerable(answer: Optional[str]) -> str:
    """``answer`` without its Unanswerable sentences, wherever they stand ("No answer could be found.
    (Searched the site.)" -> "(Searched the site.)"; "The page was down; no answer found." -> "The page was
    down."), each read as :func:`is_unanswerable` reads a sentence (any case, quotes, brackets, "…" / "。"
    stops, "No answer found.", "... in the sources."). A sentence that says more ("No answer could be
    found, but the minister denied it") stays. The rest is returned as written (a closing bracket or quote
    left behind by a cut sentence is dropped); an answer with no Unanswerable sentence comes back unchanged,
    one made only of them as "".

    Args:
        answer: the answer text (None or "" -> "").

    >>> strip_unanswerable("No answer could be found. (Searched the site.)")
    '(Searched the site.)'
    >>> strip_unanswerable("The mayor said so. No answer found\u2026"), strip_unanswerable("No answer found.")
    ('The mayor said so.', '')
    """
    if not answer:
        return ""
    # the folded text has the length of the answer: every replacement is one character for one
    folded = _INVISIBLE.sub(" ", answer).translate(_FOLD_STOPS)
    pieces: list = []
    cut = removed = False
    start = 0
    for end in [m.end() for m in _STOPS.finditer(folded)] + [len(answer)]:
        if end <= start:
            continue
        sentence = " ".join(_STOPS.sub(" ", folded[start:end]).split()).lower()
        if sentence and _UNANSWERABLE.match(sentence):
            cut = removed = True
        else:
            piece = answer[start:end]
            if cut:  # what a cut sentence left behind (its closing bracket, the space before it) goes too
                piece = piece.lstrip(_AFTER_CUT)
                piece = " " + piece if pieces and piece and not pieces[-1][-1:].isspace() else piece
            pieces.append(piece)
            cut = False
        start = end
    if not removed:
        return answer
    return re.sub(r"\s*[;,:]+$", ".", "".join(pieces).strip())  # "The page was down; [cut]" -> "The page was down."
