"""Perturbations of the wording of the predicted evidence: letters, contractions, numbers written in
digits or words, WordNet synonyms, repeated / dropped / shuffled words.

All but ``shuffle_words`` (which scrambles word order) are meaning-preserving; the registry with their
declared expectations is :data:`adversarial.perturbations.PERTURBATIONS`.
"""

from __future__ import annotations

import functools
import re
from decimal import Decimal
from types import MappingProxyType
from typing import Mapping, Optional, cast

import numpy as np

from claimalign.evidence import Item

from adversarial import resources
from adversarial._text import RNG, NumberToken, as_generator, find_numbers, map_sentences, match_case
from adversarial.perturbations.base import (
    FIELDS_QA, PerturbationResult, edit_words, field_texts, no_evidence, result_from, rewrite_spans,
)


def _swap_positions(word: str) -> list[int]:
    """Positions i (first and last letters kept when possible) where word[i] != word[i+1]."""
    inner = [i for i in range(1, len(word) - 2) if word[i] != word[i + 1]]
    return inner or [i for i in range(len(word) - 1) if word[i] != word[i + 1]]


def typos(item: Item, rng: RNG, rate: float = 0.1) -> PerturbationResult:
    """Swap two adjacent letters in ``rate`` (default 10%, at least one) of the words of 4+ letters
    of the predicted evidence (questions and answers); first and last letters kept where possible.

    Example: ``"The senator voted against"`` -> ``"The senaotr voted against"``.
    """

    def edit(text, s, e, w, g):
        pos = _swap_positions(w)
        i = pos[int(g.integers(len(pos)))]
        return s, e, w[:i] + w[i + 1] + w[i] + w[i + 2:]

    return edit_words(item, rng, rate, lambda w: len(w) >= 4 and w.isalpha() and bool(_swap_positions(w)),
                      edit, FIELDS_QA, "no word of 4+ letters")


#: Contractions and their expansions, unambiguous both ways ("he's" = he is / he has: excluded).
CONTRACTIONS: Mapping[str, str] = MappingProxyType({
    "can't": "cannot", "won't": "will not", "don't": "do not", "doesn't": "does not", "didn't": "did not",
    "isn't": "is not", "aren't": "are not", "wasn't": "was not", "weren't": "were not",
    "hasn't": "has not", "haven't": "have not", "hadn't": "had not", "couldn't": "could not",
    "shouldn't": "should not", "wouldn't": "would not", "mustn't": "must not",
    "i'm": "i am", "you're": "you are", "we're": "we are", "they're": "they are",
    "i've": "i have", "you've": "you have", "we've": "we have", "they've": "they have",
    "i'll": "i will", "you'll": "you will", "we'll": "we will", "they'll": "they will",
    "he'll": "he will", "she'll": "she will", "it'll": "it will",
})
#: Phrases contracted but not expanded back ("it's" may stand for "it has").
_CONTRACT_ONLY = {"it is": "it's", "that is": "that's", "there is": "there's", "what is": "what's"}
_TOGGLE = {**{k: v for k, v in CONTRACTIONS.items()}, **{v: k for k, v in CONTRACTIONS.items()}, **_CONTRACT_ONLY}
_TOGGLE_RE = re.compile(
    r"(?<![\w'\u2019])(" + "|".join(re.escape(k).replace("'", "['\u2019]").replace(r"\ ", r"\s+")
                                   for k in sorted(_TOGGLE, key=len, reverse=True)) + r")(?![\w'\u2019])",
    re.I)


def contractions(item: Item, rng: RNG) -> PerturbationResult:
    """Expand every contraction and contract every contractible phrase of the predicted evidence
    (``isn't`` -> ``is not``, ``is not`` -> ``isn't``, ``it is`` -> ``it's``; see
    :data:`CONTRACTIONS`). Deterministic (``rng`` is not used). Skips items with none."""
    skip = no_evidence(item)
    if skip:
        return skip
    texts = field_texts(item, FIELDS_QA)
    n = 0

    def sub(m):
        nonlocal n
        key = re.sub(r"\s+", " ", m.group(0).lower().replace("\u2019", "'"))
        n += 1
        return match_case(m.group(0), _TOGGLE[key])

    new = [_TOGGLE_RE.sub(sub, t) for t in texts]
    return result_from(item, texts, new, FIELDS_QA, n, "no contraction or contractible phrase")


def _number_words(tok: NumberToken) -> Optional[str]:
    from num2words import num2words

    if tok.value >= Decimal(10) ** 15 or tok.decimals > 3:
        return None
    if tok.is_year:
        words = num2words(int(tok.value), to="year")
    elif tok.is_integer:
        words = num2words(int(tok.value))
    else:
        words = num2words(tok.value)
    words = words.replace(",", "")
    if tok.percent:
        words += " percent"
    if tok.currency:
        words += " dollar" if tok.value == 1 else " dollars"
    return words


def numbers_to_words(item: Item, rng: RNG) -> PerturbationResult:
    """Spell out every digit-written number of the predicted evidence with ``num2words``
    (``45%`` -> ``forty-five percent``, ``$3`` -> ``three dollars``, years as years: ``2020`` ->
    ``twenty twenty``). Digits glued to letters (``COVID-19``) are left alone. Deterministic."""
    def spans(t: str) -> list:
        return [(tok.start, tok.end, w) for tok in find_numbers(t) if (w := _number_words(tok)) is not None]

    return rewrite_spans(item, spans, "no number written in digits")


_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
          "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety").split()
_SCALES = ("hundred", "thousand", "million", "billion")
_NW = "(?:" + "|".join(sorted(_UNITS + list(_SCALES), key=len, reverse=True)) + ")"
_AFTER_SCALE = "(?:" + "|".join(f"(?<={s})" for s in _SCALES) + ")"
_NUMWORDS_RE = re.compile(rf"\b{_NW}(?:(?:\s+|-){_NW}|{_AFTER_SCALE}\s+and\s+{_NW})*\b", re.I)


def _words_value(span: str) -> Optional[str]:
    from word2number import w2n

    words = span.lower().replace("-", " ").split()
    if words == ["one"] or words[0] in _SCALES:
        return None  # "one" is mostly a pronoun ("one of them"); "thousand of" needs "a"
    try:
        if len(words) > 1 and words[-1] in ("million", "billion"):
            return f"{w2n.word_to_num(' '.join(words[:-1]))} {words[-1]}"
        return str(w2n.word_to_num(" ".join(words)))
    except ValueError:
        return None


def words_to_numbers(item: Item, rng: RNG) -> PerturbationResult:
    """Write spelled-out numbers of the predicted evidence in digits with ``word2number``
    (``forty-five`` -> ``45``, ``two million`` -> ``2 million``; a lone ``one`` is left alone, as it
    is mostly a pronoun). Deterministic."""
    def spans(t: str) -> list:
        return [(m.start(), m.end(), v) for m in _NUMWORDS_RE.finditer(t)
                if (v := _words_value(m.group(0))) is not None]

    return rewrite_spans(item, spans, "no spelled-out number")


#: Words never replaced by a synonym (function words, negations, quantifiers).
_SYNONYM_STOP = frozenset("""a an the and or but nor not no never none some any all each every both either neither
this that these those there here what which who whom whose when where why how than then also only just very
more most less least much many few other such same own so too can will would should could might must may shall
have has had having does did doing done been being were was are is am be said says say from into onto over under
about above below after before during since until while with without within between through against among
their them they there they you your yours our ours his her hers its it she he we i me my mine yes""".split()
                           + _UNITS + list(_SCALES))


def _synonym(wn, word: str) -> Optional[str]:
    """The most frequent single-word synonym of ``word`` in its first WordNet sense, or None.

    Only base forms are replaced (``wn.morphy(word) == word``), so inflection is not lost."""
    if wn.morphy(word) != word:
        return None
    for syn in wn.synsets(word)[:1]:
        names = [lm.name() for lm in syn.lemmas()]
        if word not in [n.lower() for n in names]:
            return None
        best, best_count = None, -1
        for lm in syn.lemmas():
            name = lm.name()
            if name.lower() == word or "_" in name or "-" in name or not name.isalpha() or not name.islower():
                continue
            if name[:3] == word[:3]:  # a derived form (vote -> voting), not a synonym
                continue
            if lm.count() > best_count:
                best, best_count = name, lm.count()
        return best
    return None


def synonyms(item: Item, rng: RNG, rate: float = 0.2) -> PerturbationResult:
    """Replace ``rate`` (default 20%, at least one) of the lower-case content words of the predicted
    evidence that have a WordNet synonym by that synonym: the most frequent other single-word lemma
    of the word's first (most frequent) WordNet sense. Base forms only (no inflection is lost).

    Raises:
        resources.ResourceMissingError: WordNet data is not installed (see
            :func:`adversarial.resources.wordnet`).
    """
    wn = resources.wordnet()
    syn = functools.lru_cache(maxsize=None)(lambda w: _synonym(wn, w))

    def eligible(w: str) -> bool:
        return w.islower() and w.isalpha() and len(w) >= 4 and w not in _SYNONYM_STOP and syn(w) is not None

    def edit(text: str, s: int, e: int, w: str, g: np.random.Generator) -> tuple[int, int, str]:
        return s, e, cast(str, syn(w))  # not None: ``eligible`` chose only words with a synonym

    return edit_words(item, rng, rate, eligible, edit, FIELDS_QA, "no word with a WordNet synonym")


def duplicate_words(item: Item, rng: RNG, rate: float = 0.1) -> PerturbationResult:
    """Repeat ``rate`` (default 10%, at least one) of the words of the predicted evidence
    (``"the vaccine"`` -> ``"the the vaccine"``)."""
    return edit_words(item, rng, rate, lambda w: True, lambda t, s, e, w, g: (s, e, f"{w} {w}"),
                      FIELDS_QA, "no word")


#: Words the ``drop_stopwords`` perturbation may drop: articles and intensifiers whose removal
#: leaves the meaning intact (negations and quantifiers are never dropped).
DROPPABLE_STOPWORDS = frozenset({"a", "an", "the", "very", "really", "actually", "basically"})


def drop_stopwords(item: Item, rng: RNG, rate: float = 0.5) -> PerturbationResult:
    """Drop each occurrence of a word of :data:`DROPPABLE_STOPWORDS` with probability ``rate``
    (default 0.5; at least one), with the space after it; a dropped capitalised word passes its
    capital to the next word. Example: ``"The vaccine is very safe"`` -> ``"Vaccine is safe"``."""

    def edit(text, s, e, w, g):
        end = e
        while end < len(text) and text[end] in " \t":
            end += 1
        if w[:1].isupper() and end < len(text):
            return s, end + 1, text[end].upper()
        return s, end, ""

    return edit_words(item, rng, rate, lambda w: w.lower() in DROPPABLE_STOPWORDS, edit, FIELDS_QA,
                      "no droppable stopword")


def shuffle_sentence(sentence: str, g: np.random.Generator) -> str:
    """``sentence`` with its whitespace-separated words in a random order drawn from ``g`` (another order than
    the given one, in up to 10 draws), a final ``. ! ?`` kept at the end; returned unchanged when it has fewer
    than 3 words or one distinct word. The word salad of ``shuffle_words`` and the gaming suite's
    ``shuffled_reference``."""
    words = sentence.split()
    if len(words) < 3 or len(set(words)) < 2:
        return sentence
    end = re.search(r"[.!?]+$", words[-1])
    tail = end.group(0) if end and len(words[-1]) > len(end.group(0)) else ""
    if tail:
        words[-1] = words[-1][: -len(tail)]
    for _ in range(10):
        perm = g.permutation(len(words)).tolist()
        if [words[i] for i in perm] != words:
            break
    else:
        return sentence
    lead = sentence[:len(sentence) - len(sentence.lstrip())]
    return lead + " ".join(words[i] for i in perm) + tail


def shuffle_words(item: Item, rng: RNG) -> PerturbationResult:
    """Shuffle the words within every sentence (of 3+ words) of the questions and answers; the
    sentence-final punctuation stays at the end."""
    skip = no_evidence(item)
    if skip:
        return skip
    g = as_generator(rng)
    texts = field_texts(item, FIELDS_QA)
    new = [map_sentences(t, lambda s: shuffle_sentence(s, g)) for t in texts]
    n = sum(a != b for a, b in zip(texts, new))
    return result_from(item, texts, new, FIELDS_QA, n, "no sentence of 3+ words")
