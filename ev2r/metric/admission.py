"""One admission stage: each question/answer pair is classified once, kept or dropped with its
reason and what decided it; the atomic facts, the proxy and the alignments read the result.

:func:`read_evidence` is the stage (:func:`ev2r.metric.admitted.admit` its views). For each pair, the first reason
that applies decides (``reason``, ``decided_by``): ``no_content`` (no letter or digit), ``unanswerable``
(AVeriTeC's Unanswerable text), ``bare_answer`` (with a claim: no content word, or one word), ``restates_claim``
(:func:`ev2r.metric.restatement.restates_claim`), ``boilerplate`` (:func:`ev2r.facts.rules.strip_boilerplate`;
boilerplate inside an answer is cut), ``non_evidence`` (the learned reading, :mod:`ev2r.metric.admission_model`,
below its threshold; ``label`` names the class), ``off_topic`` (``relevant=True``: under
:data:`PREMISE_RELEVANCE_MIN` of the claim's content words), ``duplicate`` (``dedupe=True``: :func:`same_meaning`
as an earlier kept answer), else ``kept``.

A copy or near-copy of a ``gold`` pair (:func:`copy_similarity` at least :data:`TWIN_MIN_SIMILARITY`; its typos
:func:`respell`-ed like its copy) is read as the reference reads it (``no_content``, ``unanswerable``,
``boilerplate`` only): the gold evidence is evidence whatever it restates. ev2r gives ``claim`` for the predicted
side only. The learned reading (an argument, never a setting in force) is asked once per distinct (claim,
question, answer) and cached (:func:`prime` asks a batch at once). The rules read each text's words from its one
reading (:func:`ev2r.facts.reading.read_text`), never from the text again.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from claimalign.text import normalize_text
from claimalign.words import MIN_CLAIM_TOKENS, token_coverage
from ev2r.facts.reading import TextReading, read_text
from ev2r.facts.rules import strip_boilerplate
from ev2r.metric.admission_model import encoder_cache_key, model_cache_key
from ev2r.metric.restatement import restates_claim
from ev2r.types import Evidence, QAPair

#: The share of the claim's content words a *predicted* pair must hold to be a premise (85% of
#: pairs taken from other claims' evidence hold none, real predicted pairs of the development sets almost
#: always do: 0.8% / 2.3% of them hold under 10%).
PREMISE_RELEVANCE_MIN = 0.1
#: The claim length (content tokens) above which the share is counted out of this many.
RELEVANCE_CLAIM_CAP = 20
#: :func:`same_meaning`: the cosine of two answers' embeddings at or above which they say the same thing.
DUPLICATE_COSINE = 0.95
#: The fewest words with a letter or digit a predicted answer needs to be evidence (``bare_answer``: a
#: reference question answered "2021" raised precision on 28% of the 144 rows); the signature's ``pred-answer-2w``.
ANSWER_MIN_WORDS = 2
#: The claim content words a pair of a short claim (under :data:`claimalign.words.MIN_CLAIM_TOKENS` of them) must
#: hold to be on topic (``off_topic``; every claim's pairs need as many); the signature's ``+short1``.
SHORT_CLAIM_MIN_SHARED = 1

REASONS = ("kept", "no_content", "unanswerable", "bare_answer", "restates_claim", "boilerplate", "non_evidence",
           "off_topic", "duplicate")


# ----------------------------------------------------------------------------- the learned reading's caches
_CACHE: dict = {}  # (model key, claim, question, answer) -> class probabilities
_EMBED: dict = {}  # (encoder key, answer) -> embedding (duplicates by meaning)
_CACHE_MAX = 200_000


def _trim():
    if len(_CACHE) > _CACHE_MAX:
        _CACHE.clear()
    if len(_EMBED) > _CACHE_MAX:
        _EMBED.clear()


def prime(triples: Sequence[tuple[str, str, str]], model) -> None:
    """Ask the learned reading ``model`` (an :class:`ev2r.metric.admission_model.AdmissionModel`, or None: nothing
    happens) about many (claim, question, answer) triples in one batch; they are then cached for
    :func:`read_evidence`."""
    if model is None:
        return
    _trim()
    key = model_cache_key(model)
    todo = sorted({t for t in triples if (key, *t) not in _CACHE})
    if not todo:
        return
    claims, questions, answers = [t[0] for t in todo], [t[1] for t in todo], [t[2] for t in todo]
    if hasattr(model, "features_and_vectors"):  # the answers' embeddings come with the features: encoded once
        x, vecs = model.features_and_vectors(claims, questions, answers)
    else:  # a model object with ``features`` and ``encode`` only (the protocol before 1.8.0)
        x = model.features(claims, questions, answers)
        uniq = sorted(set(answers))
        vecs = dict(zip(uniq, model.encode(uniq)))
    probs = model.proba_from_features(x)
    for t, p in zip(todo, probs):
        _CACHE[(key, *t)] = p
    enc = encoder_cache_key(model)
    for a in answers:  # for same_meaning
        _EMBED.setdefault((enc, a), vecs[a])


def _proba(model, claim: str, question: str, answer: str) -> np.ndarray:
    key = (model_cache_key(model), claim, question, answer)
    if key not in _CACHE:
        prime([(claim, question, answer)], model)
    return _CACHE[key]


def same_meaning(a: str, b: str, model=None) -> bool:
    """Whether answers ``a`` and ``b`` say the same thing: equal after folding case, spacing and punctuation,
    or (with a learned reading ``model``, an :class:`ev2r.metric.admission_model.AdmissionModel`) embeddings of
    cosine >= :data:`DUPLICATE_COSINE` and no number in one
    that the other lacks (a changed figure is another fact).

    >>> same_meaning("The vaccine was approved.", "the vaccine  was approved")
    True
    """
    if _fold(a) == _fold(b):
        return True
    if model is None:
        return False
    from ev2r.metric.admission_model import numbers_in

    if numbers_in(a) != numbers_in(b):
        return False
    enc = encoder_cache_key(model)
    for t in (a, b):
        if (enc, t) not in _EMBED:
            _EMBED[(enc, t)] = model.encode([t])[0]
    return float(_EMBED[(enc, a)] @ _EMBED[(enc, b)]) >= DUPLICATE_COSINE


def _fold(text: str) -> str:
    return " ".join("".join(c if c.isalnum() else " " for c in text.casefold()).split())


# ----------------------------------------------------------------------------- the stage
#: :func:`copy_similarity` at and above which a pair is a near-copy of another: a near-copy of a gold pair is
#: read as the gold reads it, and a fact's own pair's near-copy supports it (:mod:`ev2r.metric.reference`, ``+twin~``).
TWIN_MIN_SIMILARITY = 0.85


#: How :func:`copy_similarity` reads text (the ``+twin~`` value's suffix in the signature): ``num`` = words and
#: numbers as values, case and punctuation aside (``ev2r/3``; ``ev2r/2`` compared the case-folded characters);
#: ``num+contr+art`` (``ev2r/4``) = that, with contractions written out and the articles left out.
COPY_TEXT = "num+contr+art"

#: Apostrophes as people and keyboards type them ("couldn\u2018t", "isn\u00b4t"): :func:`copy_text` reads each as "'".
_APOSTROPHES = "'\u2019\u2018\u00b4`\u2032\uff07"


#: Contractions as :func:`copy_text` writes them out (English; "'s" only after the pronouns and adverbs where it is
#: "is", never a possessive; "'d" is left, being "had" or "would").
_CONTRACTION = re.compile(r"\b(?:(can)['\u2019]t|(won)['\u2019]t|(\w+)n['\u2019]t|(\w+)['\u2019](re|ve|ll|m)|"
                          r"(it|that|there|here|what|who|where|he|she)['\u2019]s)\b", re.I)
_EXPANSION = {"re": "are", "ve": "have", "ll": "will", "m": "am"}


def _expand(m: re.Match) -> str:
    can, won, neg, stem, suffix, pronoun = m.groups()
    if can:
        return f"{can} not"
    if won:
        return "will not"
    if neg:
        return f"{neg} not"
    if stem:
        return f"{stem} {_EXPANSION[suffix.casefold()]}"
    return f"{pronoun} is"


def copy_text(text: str) -> str:
    """``text`` as :func:`copy_similarity` compares it: its case-folded words and numbers, one space apart, each
    number written in digits (:func:`claimalign.meteor_fast.canonical_numbers`: "forty-five percent" and "45%"
    both read "45 percent", "2,500" reads "2500"), contractions written out ("doesn't" reads "does not", "cannot"
    "can not", "it's" "it is") and the articles left out, so a copy with its numbers spelled out, its contractions
    expanded, an article dropped or its punctuation changed is the copy. A denial stays: "isn't" reads "is not".

    >>> copy_text("Unemployment rose to 14.7% in April, twenty twenty.")
    'unemployment rose to 14.7 percent in april 2020'
    >>> copy_text("It's a fact: the mayor doesn't sign it.") == copy_text("It is fact: mayor does not sign it.")
    True
    """
    from claimalign.meteor_fast import canonical_numbers
    from claimalign.words import word_tokens

    text = text.translate(_TO_APOSTROPHE).translate(_TO_WORDS)
    text = _MINUS.sub(" minus ", text)
    text = _ARTICLE.sub(" ", _CONTRACTION.sub(_expand, text))
    words: list = []
    for w in word_tokens(text, urls=True):
        words.extend(("can", "not") if w == "cannot" else (w,))
    return " ".join(canonical_numbers(tuple(words)))


_TO_APOSTROPHE = str.maketrans({c: "'" for c in _APOSTROPHES[1:]})
#: Symbols that carry meaning, written as words before the words are read (a sign, a comparison, a currency).
_SYMBOLS = {"%": "percent", "$": "dollar", "\u20ac": "euro", "\u00a3": "pound", "\u00a5": "yen", "<": "less than",
            ">": "more than", "\u2264": "at most", "\u2265": "at least", "+": "plus", "=": "equals"}
_TO_WORDS = str.maketrans({k: f" {v} " for k, v in _SYMBOLS.items()})
_MINUS = re.compile(r"(?:(?<=\s)|^)[-\u2212\u2013](?=\d)")
#: The articles left out: lower-case anywhere before a word, capitalised only where a sentence starts ("Vitamin A",
#: "A.D." keep theirs).
_ARTICLE = re.compile(r"\b(?:a|an|the)\s+(?=\w)|(?:^|(?<=[.!?:;]\s))(?:A|An|The)\s+(?=\w)")


_WORD = re.compile(r"[^\W\d_]{4,}")


#: Denials of four letters or more: :func:`respell` never writes one as another word ("never" -> "ever", "neither" ->
#: "either") nor a word as one; a word before "n't" ("doesn't", "couldn't") stays too ("doesn" -> "does").
_NEGATIONS = frozenset("never neither none nothing nobody nowhere cannot without".split())


def _negation(word: str, text: str, end: int) -> bool:
    return word.casefold() in _NEGATIONS or (text[end:end + 1] in _APOSTROPHES and text[end + 1:end + 2] in "tT"
                                             and end + 1 < len(text)) or (
        word[-1:].casefold() == "n" and end < len(text) and text[end] in _APOSTROPHES)


@functools.lru_cache(maxsize=65536)
def _lexicon(word: str) -> tuple[bool, Optional[dict]]:
    """What :func:`respell` reads of a case-folded ``word``, read once: (whether it is an English word -- a function
    word or a WordNet lemma of some form, :func:`claimalign.meteor_fast.synonyms` -- so no typo, whatever word of the
    copy it is one edit from: "billion" is no typo of "million", nor "fired" of "hired"; its first senses: part of
    speech -> the single-word lemmas, case-folded, of its first :data:`SYNONYM_SENSES` WordNet synsets of that part of
    speech, adjective satellites read as adjectives, empty without WordNet, or None for a number or a number word, a
    lemma of digits, "million" = "1000000": a value, never a synonym)."""
    from claimalign.meteor_fast import canonical_numbers, synonyms, synonyms_available, wordnet_senses
    from claimalign.words import FUNCTION_WORDS

    wordnet = synonyms_available()
    known = word in FUNCTION_WORDS or (wordnet and bool(synonyms(word)))
    if canonical_numbers((word,)) != (word,):
        return known, None
    senses: dict = {}
    if wordnet:
        seen: dict = {}
        try:
            for pos, names in wordnet_senses(word):
                seen[pos] = seen.get(pos, 0) + 1
                if seen[pos] <= SYNONYM_SENSES:
                    lemmas = set()
                    for n in names:
                        if "_" not in n and "-" not in n:
                            lemmas.add(n.casefold())
                    senses[pos] = senses.get(pos, frozenset()) | lemmas
        except (LookupError, OSError, ValueError, RuntimeError):  # pragma: no cover - WordNet unreadable
            senses = {}
    for lemmas in senses.values():
        for n in lemmas:
            if n.isdigit():
                return known, None
    return known, senses


def respell(text: str, like: str) -> str:
    """``text`` with each word of four letters or more that ``like`` lacks, and that is one edit
    (:func:`claimalign.meteor_fast.one_edit`) from exactly one word of ``like`` and no English word itself
    (:func:`_lexicon`: a typo; "billion" is no typo of "million") -- or, failing that, a synonym of exactly one
    word of ``like`` in both words' first WordNet sense (:func:`first_sense_synonyms`; ``ev2r/4``, when WordNet is
    installed) -- written as that word: a near-copy read through its copy (a copy of a gold pair with typos
    or synonyms is read as the copy, so that the verifier does not take "CVOID-19" for another entity, nor "employ"
    for other than "hire"). Words with no such match, and short words ("not", "no"), stay as written, and so do
    denials ("never", "neither", "doesn't": :data:`_NEGATIONS`), and no word is written as a denial of ``like``
    ("could" is not respelled "couldn" of "couldn't"). Limits: a first sense can be a contronym's other sense
    ("sanction" and "approve"); inflected forms are not read as synonyms.

    >>> respell("The suggestion that CVOID-19 was planned is flase.",
    ...         "The suggestion that COVID-19 was planned is false.")
    'The suggestion that COVID-19 was planned is false.'
    >>> respell("It was not planned.", "It was planned.")
    'It was not planned.'
    """
    from claimalign.meteor_fast import one_edit

    # the copy's words, less its denials ("couldn" of "couldn't" is no word to respell "could" as)
    vocab = {m.group(0).casefold(): m.group(0) for m in _WORD.finditer(like)
             if not _negation(m.group(0), like, m.end())}

    def fix(m):
        w = m.group(0)
        if w.casefold() in vocab or _negation(w, m.string, m.end()):
            return w
        folded = w.casefold()
        known, senses = _lexicon(folded)
        near = []
        if not known:
            for k, v in vocab.items():
                if one_edit(folded, k):
                    near.append(v)
        if not near and RESPELL_SYNONYMS:  # only a lemma of the word's first senses can be its synonym
            lemmas = frozenset().union(*(senses or {}).values())
            for k, v in vocab.items():
                if k in lemmas and first_sense_synonyms(folded, k):
                    near.append(v)
        return near[0] if len(near) == 1 else w

    return _WORD.sub(fix, text)


#: Whether :func:`respell` writes a WordNet synonym of a word of its copy as that word (``ev2r/4``; off: ``ev2r/3``,
#: typos only). The signature's ``+respell-syn`` says it is on and WordNet was read.
RESPELL_SYNONYMS = True


#: How many of a word's most frequent WordNet senses, per part of speech, :func:`first_sense_synonyms` reads
#: ("employ" is first "use", then "hire"; "awful" is "atrocious", then "dire", and only later "awed").
SYNONYM_SENSES = 2


def first_sense_synonyms(a: str, b: str) -> bool:
    """Whether words ``a`` and ``b`` (case-folded) are synonyms in each one's most frequent WordNet senses of one
    part of speech (the first :data:`SYNONYM_SENSES`): ``b`` a lemma of those of ``a`` and ``a`` one of ``b``'s. Both
    ways, so that a word is not read as another through a rare sense ("awful" is in a sense of "awesome", not "awesome"
    in the first of "awful"; "trillion" and "million" share only the hyperbole sense). Number words are never synonyms.

    >>> first_sense_synonyms("buy", "purchase") or not respell_reads_synonyms()
    True
    >>> first_sense_synonyms("awful", "awesome"), first_sense_synonyms("trillion", "million")
    (False, False)
    """
    if a == b:
        return False
    sa, sb = _lexicon(a)[1], _lexicon(b)[1]
    if sa is None or sb is None:
        return False
    return any(b in lemmas and a in sb.get(pos, ()) for pos, lemmas in sa.items())


def respell_reads_synonyms() -> bool:
    """Whether :func:`respell` reads synonyms in this process (:data:`RESPELL_SYNONYMS` and WordNet installed)."""
    from claimalign.meteor_fast import synonyms_available

    return RESPELL_SYNONYMS and synonyms_available()


def respell_rule() -> str:
    """The signature value of :func:`respell`: ``respell-syn`` (typos and WordNet synonyms) or ``respell``."""
    return "respell-syn" if respell_reads_synonyms() else "respell"


def respell_pair(pair: QAPair, like: QAPair) -> QAPair:
    """``pair`` with its question and answer :func:`respell`-ed like those of ``like``."""
    return QAPair(respell(pair.question, like.question), respell(pair.answer, like.answer))


@functools.lru_cache(maxsize=1 << 16)
def _ratio(a: str, b: str) -> float:
    import difflib

    a, b = copy_text(a), copy_text(b)
    if a == b:
        return 1.0
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def copy_similarity(a: QAPair, b: QAPair) -> float:
    """How much of a copy pair ``b`` is of pair ``a``: the smaller of :class:`difflib.SequenceMatcher`'s ratios of
    their questions and of their answers, read as :func:`copy_text` (words and numbers as values, case and
    punctuation aside), in [0, 1] (1: the same pair). Both parts must be
    copied: the reference's questions with other answers ("x", "Yes") are no copy.

    >>> copy_similarity(QAPair("Who?", "The mayor."), QAPair("who?", "the  mayor."))
    1.0
    >>> copy_similarity(QAPair("Who signed the order?", "The mayor."), QAPair("Who signed the order?", "x")) < 0.5
    True
    """
    return _similarity(a.question, a.answer, b.question, b.answer)


def _similarity(q: str, a: str, other_q: str, other_a: str) -> float:
    """:func:`copy_similarity` of the pairs (``q``, ``a``) and (``other_q``, ``other_a``), given as their texts."""
    return min(_ratio(q, other_q), _ratio(a, other_a))


def pair_key(pair: QAPair) -> str:
    """A pair's text with case and spacing folded: two pairs are copies when their keys are equal."""
    return " ".join(pair.render().casefold().split())


@functools.lru_cache(maxsize=65536)
def _grade(q: str, a: str, like_q: str, like_a: str, synonyms: bool) -> float:
    # ``synonyms`` is a cache key only: respell reads them or not (respell_reads_synonyms), and the cache must not mix
    # copy_similarity(like, pair), then with ``pair`` respell_pair-ed like ``like`` (its texts normalised as a
    # QAPair's are)
    s = _similarity(like_q, like_a, q, a)
    if s >= 1.0:
        return s
    return max(s, _similarity(like_q, like_a, normalize_text(respell(q, like_q)), normalize_text(respell(a, like_a))))


def copy_grade(pair: QAPair, like: QAPair) -> float:
    """How much of a copy ``pair`` is of ``like``, read through its copy: the larger of :func:`copy_similarity`
    of the two and of ``like`` and ``pair`` :func:`respell`-ed like it, in [0, 1]; 1 for a copy but for typos,
    synonyms, numbers written as words, case and punctuation (a near-copy scores as the copy).

    >>> copy_grade(QAPair("How many died?", "Forty-five people died."), QAPair("How many died?", "45 people died."))
    1.0
    """
    return _grade(pair.question, pair.answer, like.question, like.answer, respell_reads_synonyms())


def nearest_copy(pair: QAPair, gold: Sequence[QAPair]) -> Optional[QAPair]:
    """The pair of ``gold`` that ``pair`` is a copy or the nearest near-copy of (:func:`copy_grade` at least
    :data:`TWIN_MIN_SIMILARITY`), or None."""
    best, best_s = None, TWIN_MIN_SIMILARITY
    for g in gold:
        s = copy_grade(pair, g)
        if s >= best_s:
            best, best_s = g, s
    return best


def read_through_copy(pair: QAPair, gold: Sequence[QAPair]) -> QAPair:
    """``pair`` as the metric reads it: the gold pair it is a copy of but for typos, synonyms and numbers
    (:func:`copy_grade` 1), else ``pair`` :func:`respell`-ed like its nearest near-copy, else ``pair`` itself.
    A word the copy lacks ("not") keeps a near-copy apart from the copy."""
    like = nearest_copy(pair, gold)
    if like is None:
        return pair
    return like if copy_grade(pair, like) >= 1.0 else respell_pair(pair, like)


def is_near_copy(pair: QAPair, gold: Sequence[QAPair], keys: Optional[set] = None) -> bool:
    """Whether ``pair`` is a copy or near-copy (:func:`copy_grade` >= :data:`TWIN_MIN_SIMILARITY`) of one of
    ``gold``'s pairs (``keys``: their :func:`pair_key`, when already made)."""
    keys = keys if keys is not None else {pair_key(g) for g in gold}
    return pair_key(pair) in keys or any(copy_grade(pair, g) >= TWIN_MIN_SIMILARITY for g in gold)


def fact_restates_claim(fact, claim) -> bool:
    """Whether an atomic fact of the predicted evidence only restates ``claim`` (the ``restates_claim`` family,
    :func:`ev2r.metric.restatement.restates_claim`, with the WordNet synonyms where installed): it is then no fact of
    the evidence. ``fact`` and ``claim``: each a str or its :class:`ev2r.facts.reading.TextReading`."""
    return restates_claim(fact, claim, True)


def _not_evidence_rule(answer: TextReading, claim: TextReading) -> Optional[str]:
    """The rule that finds ``answer`` no evidence for ``claim`` whatever its question, or None."""
    if answer.bare or answer.content_words < ANSWER_MIN_WORDS:
        return "bare_answer"
    if restates_claim(answer, claim, True):
        return "restates_claim"
    return None


@dataclass(frozen=True)
class PairReading:
    """One pair as the stage reads it, once (:func:`read_evidence`): what every view of the pair
    (:func:`ev2r.metric.admitted.admit`) is taken from.

    Attributes:
        index: the pair's position in its evidence (0-based).
        given: the pair as given.
        reason: with the claim (where one was given): the first rule of the module docstring's table that drops the pair
            (``off_topic`` and ``duplicate`` aside: they depend on the view), or ``"kept"``; ``"unanswerable"``
            is kept or not by the view.
        pair: the pair as admitted (its answer less boilerplate and salad; a near-copy of a gold pair read through
            its copy) or, when dropped, as given.
        decided_by: what decided ``reason``: ``"rule:<name>"`` or ``"model:<name>"``.
        p_evidence, label: the learned reading's P(evidence) in [0, 1] and class, where it was asked, else None.
        off_topic: the pair holds under :data:`PREMISE_RELEVANCE_MIN` of the claim's content words (or a short claim's
            :data:`SHORT_CLAIM_MIN_SHARED`): left out of the views with ``relevant=True``.
        plain: the reason read without a claim (the content rules only: ``no_content``, ``unanswerable``,
            ``boilerplate`` or ``kept``), ``plain_pair`` the pair so admitted and ``plain_by`` what decided.
        gold_copy: the pair is a copy or near-copy of a gold pair (:func:`is_near_copy`): its facts are the gold's.
    """

    index: int
    given: QAPair
    reason: str
    pair: QAPair
    decided_by: str
    p_evidence: Optional[float] = None
    label: Optional[str] = None
    off_topic: bool = False
    plain: str = "kept"
    plain_pair: Optional[QAPair] = None
    plain_by: str = "rule:none"
    gold_copy: bool = False


def _plain_reading(p: QAPair, answer: TextReading) -> tuple[str, QAPair, str]:
    """Pair ``p`` (its answer read as ``answer``) read without a claim: (reason, pair as admitted, decided_by)."""
    if not answer.has_content:
        return "no_content", p, "rule:has_content"
    if answer.unanswerable:
        return "unanswerable", p, "rule:unanswerable"
    stripped = strip_boilerplate(p.answer)
    if stripped is p.answer:
        return "kept", p, "rule:none"
    if not read_text(stripped).has_content:
        return "boilerplate", p, "rule:boilerplate"
    return "kept", QAPair(p.question, stripped), "rule:none"


def _read(out: list, k: int, p: QAPair, plain: tuple[str, QAPair, str], copy: bool, reason: str,
          pair: Optional[QAPair] = None, by: Optional[str] = None, **kw) -> None:
    out.append(PairReading(k, p, reason, pair if pair is not None else p, by or f"rule:{reason}", plain=plain[0],
                           plain_pair=plain[1], plain_by=plain[2], gold_copy=copy, **kw))


def read_evidence(evidence: Evidence, claim: Optional[str] = None, gold: Optional[Evidence] = None,
                  model=None) -> tuple[PairReading, ...]:
    """The stage's one reading of every pair of ``evidence``, in order (module docstring): each rule runs once per
    pair, and the learned reading ``model`` is asked once per pair; which pairs a part of the score reads (on topic
    or not, each once or not, the pairs the reference contradicts left out) is a view of these readings
    (:func:`ev2r.metric.admitted.admit`).

    Args:
        evidence: the evidence whose pairs are read.
        claim: the item's claim, for the predicted side (None: the reference side, content rules only).
        gold: the item's reference evidence: a copy of one of its pairs is read as the reference reads it.
        model: the learned reading of non-evidence (an :class:`ev2r.metric.admission_model.AdmissionModel`), or
            None for the rules alone; asked for the predicted side only (with ``claim``).
    """
    claim_read = read_text(claim) if claim is not None else None
    claim_words = claim_read.content if claim_read is not None else frozenset()
    claim_has_content = len(claim_words) >= MIN_CLAIM_TOKENS
    gold_pairs = gold.pairs if gold is not None and claim is not None else ()
    gold_keys = {pair_key(p) for p in gold_pairs}
    model = model if claim is not None else None
    out: list[PairReading] = []
    for k, p in enumerate(evidence.pairs):
        answer = read_text(p.answer)
        plain, plain_pair, plain_by = _plain_reading(p, answer)

        copy = bool(gold_pairs) and is_near_copy(p, gold_pairs, gold_keys)

        read = functools.partial(_read, out, k, p, (plain, plain_pair, plain_by), copy)

        if claim_read is None or plain in ("no_content", "unanswerable"):
            read(plain, plain_pair, plain_by)
            continue
        if copy:
            if plain == "boilerplate":  # a copy's boilerplate is cut
                read("boilerplate")
                continue
            q = plain_pair
            if pair_key(p) not in gold_keys:  # a near-copy is read through its copy (read_through_copy)
                q = read_through_copy(q, gold_pairs)
            read("kept", q, "rule:gold-copy")
            continue
        why = _not_evidence_rule(answer, claim_read)
        if why is not None:
            read(why)
            continue
        if plain == "boilerplate":
            read("boilerplate")
            continue
        p_in = plain_pair
        if p_in is not p:
            why = _not_evidence_rule(read_text(p_in.answer), claim_read)
            if why is not None:  # what the boilerplate hid is judged as any answer
                read(why)
                continue
        p_ev = label = None
        if model is not None:
            probs = _proba(model, claim_read.text, p_in.question, p_in.answer)
            p_ev = float(probs[0])
            label = model.classes[int(np.argmax(probs))]
            if p_ev < model.threshold:
                read("non_evidence", by=f"model:{model.name}", p_evidence=p_ev,
                     label=label if label != "evidence" else model.classes[1 + int(np.argmax(probs[1:]))])
                continue
        off = False
        if claim_words:
            # a short claim (under MIN_CLAIM_TOKENS content words) asks for SHORT_CLAIM_MIN_SHARED shared words (a
            # hostile pass: "Canberra is the capital of Australia." read as evidence for the claim "Fluoride.")
            held = read_text(p_in.render()).content
            off = len(held & claim_words) < SHORT_CLAIM_MIN_SHARED or (
                claim_has_content and token_coverage(held, claim_words, RELEVANCE_CLAIM_CAP) < PREMISE_RELEVANCE_MIN)
        read("kept", p_in, f"model:{model.name}" if model is not None else "rule:none", p_evidence=p_ev, label=label,
             off_topic=off)
    return tuple(out)
