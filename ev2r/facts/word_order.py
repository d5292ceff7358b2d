"""Word order: does an answer's text say something in the order of its words, or is it word salad?

Issue 32: the reference's answers with their words shuffled ("census. from 2011 a 3,33,87,677") kept every
word of the gold evidence, and a bag-of-words reading (the verifier, METEOR's unigram matches) took them for
the gold evidence itself. Text whose word order carries no information states nothing; a system that
shuffles words has no evidence that its words in order would not be, so a predicted answer that reads as
word salad is no evidence (:func:`ev2r.metric.reference.evidence_pairs`, the predicted side only; the
reference is the gold evidence, whatever it says).

**The test** (a permutation test of word order under a word-bigram model). A bigram model of a language
(:class:`WordOrderModel`: the ``top`` most frequent words of a corpus, with classes for numbers,
capitalised and other words outside them, sentence start and end; interpolated with the unigram
distribution, Jelinek and Mercer 1980) scores the answer's sentences in their order, and the same
sentences with their whitespace-separated words in ``n_permutations`` random orders (the final ``. ! ?``
kept at the end, since that is how word salad is made: :func:`adversarial.perturbations.words.shuffle_words`).
Within each sentence only the bigrams across word boundaries change, so the statistic is

    z = (sum_s (log P(order_s) - mean_perm log P_s)) / sqrt(sum_s var_perm log P_s)

(the permutation mean exact, the variance from :data:`N_PERMUTATIONS` random orders) over the answer's sentences of at least :data:`MIN_SENTENCE_WORDS` words: how many standard deviations of
random orderings the real order lies above them. Word salad is a random ordering, so its ``z`` is about
N(0, 1) at any length; the real order's grows with the words (``benchmarks/results/word_order.md``). An
answer is word salad when it has at least :data:`MIN_WORDS` words in tested sentences and ``z`` below
:func:`salad_threshold` (``max(1, 0.4 sqrt(words))``); so is a sentence of an answer on its own, by the same rule
over its own words (``order-v2``: one fluent sentence before the salad carried an answer judged only as a whole,
issue 32's ``shuffled_reference_behind_prose``), and :func:`strip_word_salad` removes it. Answers the model's language does
not cover (under :data:`MIN_COVERAGE` of the tokens in its vocabulary) are not judged: a language without a
table is never called word salad. The permutations are seeded from the text with its whitespace folded
(CRC-32), so the test is a pure function of it and a space more changes nothing.

**Measured** (``benchmarks/word_order.py``): called word salad, 3.4% / 0.9% of the real predicted answers of
the 86 / 144 development rows and 1.7% of the AVeriTeC train answers (mostly headlines: "Sen. Rand Paul Puts
Dr. Fauci on Notice"), none of the CTKFacts dev paragraphs; caught, 95.0-96.4% of the same answers shuffled
in English, 98.3% in Czech. Sentence by sentence (``order-v2``): the rule cuts 0.4% / 0.5% of the words of
the real predicted answers that are not salad as a whole (1.4% of AVeriTeC train answers', 5.4% of the Czech
paragraphs': the Czech table is small), and cuts 96.9% / 96.7% of the salad words behind a fluent sentence.
**Limits**: an answer or sentence of under :data:`MIN_WORDS` words is not judged
(its shuffle mostly keeps its meaning: "1841 March 5th"), so salad cut into sentences of 3 words escapes; a
sentence is judged as a whole, so a fluent clause before salad in the same sentence carries it; the tables are of encyclopaedic and NLI text, so telegraphic text
(headlines, menus) reads as less ordered than it is, and a list of names has little order to find.

**Tables.** ``data/word_order_<lang>.npz``, built by ``scripts/build_word_order_table.py`` from
redistributable text in ``../shared/data`` (English: VitaminC and the NLI premises and hypotheses of the
CC BY-SA / MIT / Apache files; Czech: CTKFacts train), licences in ``data/WORD_ORDER_LICENSE``. The rule is
versioned (:data:`WORD_ORDER_RULE`, in the metric signature's premise rule).
"""

from __future__ import annotations

import functools
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

#: Version of the word-order test (module docstring); in the premise rule of the signature.
WORD_ORDER_RULE = "order-v3"
#: A sentence of fewer whitespace-separated words is not tested (its order says little either way).
MIN_SENTENCE_WORDS = 4
#: An answer with fewer words in tested sentences is never word salad.
MIN_WORDS = 6
#: Below this z (module docstring) an answer is word salad, whatever its length ...
SALAD_Z = 1.0
#: ... and below this times the square root of its tested words when that is higher: the real order's z
#: grows with the words (each bigram adds evidence), word salad's stays about N(0, 1).
SALAD_Z_PER_ROOT_WORD = 0.4
#: Random orderings per sentence for the permutation variance (the mean is exact).
N_PERMUTATIONS = 256
#: Words of a sentence read at most (a page of text with no sentence end is judged by its beginning).
MAX_SENTENCE_WORDS = 300
_MIN_VARIANCE = 1e-6  # nats^2: below it every order scores alike
#: Share of an answer's tokens a table must hold in its vocabulary to judge it.
MIN_COVERAGE = 0.5
#: Interpolation weight of the bigram estimate (the rest is the unigram distribution).
BIGRAM_WEIGHT = 0.9
#: The word classes of the tables, after the vocabulary, in this order.
CLASSES = ("<num>", "<cap>", "<w>", "<s>", "</s>")
_DATA = Path(__file__).with_name("data")
_TOKEN = re.compile(r"[^\W\d_]+|\d+(?:[.,]\d+)*|[^\w\s]")


def tokens(text: str) -> list[str]:
    """Tokens of the bigram model: letter runs, numbers (``3,33,87,677`` one token) and each other
    non-space character; case kept (the model folds it and reads a capital on an unknown word)."""
    return _TOKEN.findall(text)


@dataclass(frozen=True)
class WordOrderModel:
    """A word-bigram model for the word-order test.

    Attributes:
        lang: the table's language code (``"en"``, ``"cs"``).
        vocab: the vocabulary (lower-cased words and punctuation), ``len(vocab) = V``; ids ``V..V+4`` are
            :data:`CLASSES`.
        log_prob: ``log P(b | a)`` for the (V + 5) x (V + 5) token ids, float32 (interpolated, so finite).
    """

    lang: str
    vocab: tuple[str, ...]
    log_prob: np.ndarray

    @functools.cached_property
    def index(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.vocab)}

    def ids(self, text: str) -> tuple[list[int], int]:
        """Token ids of ``text`` and how many of its tokens are in the vocabulary (numbers count as known)."""
        index, v = self.index, len(self.vocab)
        out, known = [], 0
        for t in tokens(text):
            if t[0].isdigit():
                out.append(v)
                known += 1
                continue
            k = index.get(t.lower())
            if k is not None:
                out.append(k)
                known += 1
            else:
                out.append(v + 1 if t[0].isupper() else v + 2)
        return out, known

    @classmethod
    def from_counts(cls, lang: str, vocab: Sequence[str], rows: np.ndarray, cols: np.ndarray,
                    counts: np.ndarray, bigram_weight: float = BIGRAM_WEIGHT) -> "WordOrderModel":
        """The model from sparse bigram counts over ids ``0..len(vocab)+4`` (the table file's content)."""
        n = len(vocab) + len(CLASSES)
        big = np.zeros((n, n), dtype=np.float64)
        np.add.at(big, (rows, cols), counts)
        unigram = big.sum(0) + 1.0
        unigram /= unigram.sum()
        total = big.sum(1, keepdims=True)
        # a token never seen before another (the end class) backs off to the unigram distribution
        conditional = np.where(total > 0, big / np.maximum(total, 1.0), unigram[None, :])
        log_prob = np.log(bigram_weight * conditional + (1.0 - bigram_weight) * unigram[None, :]).astype(np.float32)
        return cls(lang, tuple(vocab), log_prob)

    def sentence_stats(self, sentence: str, rng: np.random.Generator,
                       n_permutations: int = N_PERMUTATIONS) -> Optional[tuple[float, float, int, int, int]]:
        """``(observed - permutation mean, permutation variance, words, known tokens, tokens)`` of the log
        probability of one sentence (module docstring), or None for a sentence of fewer than
        :data:`MIN_SENTENCE_WORDS` words with tokens, or one whose orders all score alike (its words all of
        one class: "1 2 3 4 5 6", a word repeated: order says nothing either way). The mean is exact (every
        ordered pair of distinct words is equally likely to be adjacent); the variance is the mean squared
        deviation of ``n_permutations`` random orders from it. Only the first :data:`MAX_SENTENCE_WORDS`
        words are read."""
        words = sentence.split()[:MAX_SENTENCE_WORDS]
        tail: list[int] = []
        if words:
            stem = words[-1].rstrip(".!?")  # linear, where a regex anchored at the end is not
            if stem and len(stem) < len(words[-1]):
                tail, _ = self.ids(words[-1][len(stem):])
                words[-1] = stem
        pieces = [self.ids(w) for w in words]
        units = [ids for ids, _ in pieces if ids]
        known = sum(k for _, k in pieces)
        m = len(units)
        if m < MIN_SENTENCE_WORDS:
            return None
        v = len(self.vocab)
        start, end_id = v + 3, v + 4
        lp = self.log_prob
        first = np.array([u[0] for u in units])
        last = np.array([u[-1] for u in units])
        closing = (lp[last, tail[0]] if tail else lp[last, end_id]).astype(np.float64)
        across = lp[last[:, None], first[None, :]].astype(np.float64)  # word i then word j
        opening = lp[start, first].astype(np.float64)
        # only the terms that depend on the order (the bigrams inside words and after the final mark cancel):
        # the opening bigram, the m - 1 word boundaries, the closing
        observed = float(opening[0] + across[np.arange(m - 1), np.arange(1, m)].sum() + closing[-1])
        mean = float(opening.mean() + (m - 1) * (across.sum() - np.trace(across)) / (m * (m - 1)) + closing.mean())
        orders = rng.permuted(np.tile(np.arange(m), (n_permutations, 1)), axis=1)
        null = opening[orders[:, 0]] + across[orders[:, :-1], orders[:, 1:]].sum(1) + closing[orders[:, -1]]
        var = float(np.mean((null - mean) ** 2))
        if var < _MIN_VARIANCE:
            return None
        n_tokens = sum(len(u) for u in units) + len(tail)
        return observed - mean, var, m, known + len(tail), n_tokens

    def stats(self, text: str, sentences: Optional[Sequence[str]] = None,
              n_permutations: int = N_PERMUTATIONS) -> list[Optional[tuple[float, float, int, int, int]]]:
        """:meth:`sentence_stats` of each of ``sentences`` (default: ``text`` as one sentence), in order, None
        for a sentence not tested. One generator, seeded by ``text`` with its whitespace folded (a space more is
        the same text), draws the permutations of every sentence in turn."""
        seed = zlib.crc32(" ".join(text.split()).encode("utf-8", "surrogatepass"))
        rng = np.random.default_rng(seed)
        return [self.sentence_stats(s, rng, n_permutations) for s in (sentences if sentences is not None else [text])]

    def z(self, text: str, sentences: Optional[Sequence[str]] = None,
          n_permutations: int = N_PERMUTATIONS) -> Optional[tuple[float, int, float]]:
        """``(z, words tested, coverage of the tested sentences)`` of ``text`` pooled over its sentences (module
        docstring; :meth:`stats`), or None when no sentence is tested."""
        return _pool(self.stats(text, sentences, n_permutations))


def _pool(stats: Sequence[Optional[tuple[float, float, int, int, int]]]) -> Optional[tuple[float, int, float]]:
    """``(z, words, coverage)`` of sentence statistics pooled (module docstring), None when none was tested."""
    tested = [st for st in stats if st is not None]
    if not tested:
        return None
    diff, var = sum(st[0] for st in tested), sum(st[1] for st in tested)
    words, known, total = sum(st[2] for st in tested), sum(st[3] for st in tested), sum(st[4] for st in tested)
    return diff / var ** 0.5, words, known / max(total, 1)


@functools.lru_cache(maxsize=1)
def available_languages() -> tuple[str, ...]:
    """The languages with a table in ``ev2r/facts/data`` (``word_order_<lang>.npz``), sorted."""
    return tuple(sorted(p.stem.removeprefix("word_order_") for p in _DATA.glob("word_order_*.npz")))


@functools.lru_cache(maxsize=None)
def load_model(lang: str) -> WordOrderModel:
    """The packaged table of ``lang`` (:func:`available_languages`).

    Raises:
        ValueError: no table for ``lang``, naming the languages that have one.
    """
    path = _DATA / f"word_order_{lang}.npz"
    if not path.is_file():
        raise ValueError(f"lang: no word-order table for {lang!r}; tables: {', '.join(available_languages()) or 'none'}")
    with np.load(path, allow_pickle=False) as f:
        return WordOrderModel.from_counts(lang, [str(w) for w in f["vocab"]], f["rows"], f["cols"], f["counts"])


#: A clause run (:func:`clause_cuts`) is judged only from this many tested words, and is word salad below
#: :data:`CLAUSE_SALAD_Z`: a run is shorter than its sentence, and the bigram test of a short run is weak (at
#: the sentence's rule, ``max(1, 0.4 sqrt w)`` over >= 6 words, the runs of real answers cut 4.6-4.9% of their
#: words; at this one 0.2-0.7%, catching 81-86% of the salad behind a clause: ``benchmarks/results/word_order.md``).
CLAUSE_MIN_WORDS = 12
CLAUSE_SALAD_Z = 1.0
#: A whitespace word ending with one of these (closing quotes and brackets aside) ends a clause
#: (:func:`clause_cuts`); so does the word before a dash that stands alone.
CLAUSE_END = ",;:"
_DASHES = frozenset({"-", "\u2013", "\u2014", "--"})
_CLOSERS = "\"')]\u201d\u2019"


def _clause_ends(words: Sequence[str]) -> list[int]:
    """Indices ``i`` (``0 <= i < len(words) - 1``) of the words after which a clause ends."""
    out = []
    for i in range(len(words) - 1):
        w = words[i].rstrip(_CLOSERS)
        if (w and w[-1] in CLAUSE_END) or words[i + 1] in _DASHES:
            out.append(i)
    return out


def _segment_salad(model: "WordOrderModel", text: str) -> bool:
    """A clause run judged on its own (its own seed: the verdict is a function of its text alone)."""
    st = model.stats(text)[0]
    return st is not None and st[2] >= CLAUSE_MIN_WORDS and st[0] / st[1] ** 0.5 < CLAUSE_SALAD_Z


def clause_cuts(model: "WordOrderModel", sentence: str) -> Optional[tuple[int, int]]:
    """The whitespace-word span ``(start, end)`` of ``sentence`` left when its longest word-salad opening and
    closing clause runs are cut (``order-v3``), or None when neither is salad.

    A sentence is cut into clauses after each word ending with :data:`CLAUSE_END` (a comma, semicolon or colon)
    or before a dash that stands alone. For each clause end, the words up to it (an opening run) and the
    words after it (a closing run) are judged on their own (at least :data:`CLAUSE_MIN_WORDS` tested words,
    ``z`` below :data:`CLAUSE_SALAD_Z`; permutations seeded by the run's own text). Issue 32's ``shuffled_reference_behind_clause``: a fluent clause before the salad in the same sentence
    lifted the sentence's z over the threshold. ``(0, 0)`` when the salad runs meet: the sentence is salad.
    Only :data:`MAX_SENTENCE_WORDS` words are read.
    """
    words = sentence.split()[:MAX_SENTENCE_WORDS]
    ends = _clause_ends(words)
    if not ends:
        return None
    start, end = 0, len(words)
    for i in ends:  # the earliest clause end whose closing run is salad: the longest salad closing run
        if len(words) - i - 1 >= CLAUSE_MIN_WORDS and _segment_salad(model, " ".join(words[i + 1:])):
            end = i + 1
            break
    for i in reversed(ends):  # the latest clause end whose opening run is salad
        if i + 1 >= CLAUSE_MIN_WORDS and _segment_salad(model, " ".join(words[:i + 1])):
            start = i + 1
            break
    if (start, end) == (0, len(words)):
        return None
    return (0, 0) if start >= end else (start, end)


@dataclass(frozen=True)
class Judgement:
    """What the word-order test says of one answer (:func:`judge`).

    Attributes:
        sentences: the answer split into sentences (:func:`ev2r.facts.rules.split_sentences`).
        answer: ``(z, words tested)`` of the answer pooled over its sentences, None when it is not judged (no
            table covers half its tokens, or under :data:`MIN_WORDS` tested words).
        per_sentence: ``(z, words tested)`` of each sentence alone, None for a sentence not judged on its own
            (under :data:`MIN_WORDS` words, no table for the answer, or, when the table covers under
            :data:`MIN_COVERAGE` of the answer, under that share of the sentence's own tokens).
        clauses: per sentence, the whitespace-word span ``(start, end)`` left when its salad opening and closing
            clause runs are cut (:func:`clause_cuts`; ``(0, 0)``: nothing left), None when nothing is cut or the
            sentence is not judged or is salad as a whole. Empty when the answer is not judged.
    """

    sentences: tuple[str, ...]
    answer: Optional[tuple[float, int]]
    per_sentence: tuple[Optional[tuple[float, int]], ...]
    clauses: tuple[Optional[tuple[int, int]], ...] = ()

    @property
    def is_salad(self) -> bool:
        """The answer as a whole is word salad (``z`` below :func:`salad_threshold`)."""
        return self.answer is not None and self.answer[0] < salad_threshold(self.answer[1])

    @property
    def salad_sentences(self) -> tuple[bool, ...]:
        """Per sentence: word salad on its own (``z`` below :func:`salad_threshold` of its words)."""
        return tuple(r is not None and r[0] < salad_threshold(r[1]) for r in self.per_sentence)


def judge(answer: str) -> Judgement:
    """The word-order test of ``answer`` as a whole and sentence by sentence (module docstring).

    The table that covers most of the answer's tokens (the share of them in its vocabulary, numbers counted
    as known; a tie goes to English) judges the answer and each of its sentences. When it covers under
    :data:`MIN_COVERAGE` of the answer's tokens, the answer as a whole is not judged, and only the sentences
    that it covers that well are, each on its own (a sentence in another language beside the salad does not
    hide it). The pooled and the per-sentence statistics are the same draws (one
    generator seeded by the answer), so a one-sentence answer gets one verdict.

    Raises:
        TypeError: ``answer`` is not a str.
    """
    if not isinstance(answer, str):
        raise TypeError(f"answer: expected str, got {type(answer).__name__}")
    return _judge(answer)


def salad_z(answer: str) -> Optional[tuple[float, int]]:
    """``(z, words tested)`` of ``answer`` pooled over its sentences (:func:`judge`), or None when no table
    covers :data:`MIN_COVERAGE` of its tokens or it has fewer than :data:`MIN_WORDS` words in tested sentences.

    Raises:
        TypeError: ``answer`` is not a str.
    """
    return judge(answer).answer


def salad_threshold(words: int) -> float:
    """The z below which an answer of ``words`` tested words is word salad:
    ``max(SALAD_Z, SALAD_Z_PER_ROOT_WORD * sqrt(words))``."""
    return max(SALAD_Z, SALAD_Z_PER_ROOT_WORD * words ** 0.5)


_NOT_JUDGED = Judgement((), None, ())


@functools.lru_cache(maxsize=1 << 14)
def _judge(answer: str) -> Judgement:
    from ev2r.facts.rules import split_sentences

    if len(answer.split()) < MIN_WORDS:
        return _NOT_JUDGED
    coverage: dict[str, float] = {}
    for lang in available_languages():
        ids, known = load_model(lang).ids(answer)
        coverage[lang] = known / max(len(ids), 1)
    if not coverage:
        return _NOT_JUDGED
    best = max(coverage, key=lambda k: (coverage[k], k == "en"))  # a tie (numbers, punctuation) goes to English
    sentences = tuple(split_sentences(answer))
    stats = load_model(best).stats(answer, sentences)
    if coverage[best] < MIN_COVERAGE:
        # the answer as a whole is not judged, but a sentence the table covers is, on its own: a sentence in
        # another language must not shield the salad beside it (a breaker's finding)
        per_covered = tuple(None if st is None or st[2] < MIN_WORDS or st[3] < MIN_COVERAGE * st[4]
                            else (st[0] / st[1] ** 0.5, st[2]) for st in stats)
        return Judgement(sentences, None, per_covered, _clauses(load_model(best), sentences, per_covered))
    pooled = _pool(stats)
    if pooled is None or pooled[1] < MIN_WORDS:
        return Judgement(sentences, None, (None,) * len(sentences))
    per = tuple(None if st is None or st[2] < MIN_WORDS else (st[0] / st[1] ** 0.5, st[2]) for st in stats)
    if pooled[0] < salad_threshold(pooled[1]):
        return Judgement(sentences, (pooled[0], pooled[1]), per)
    return Judgement(sentences, (pooled[0], pooled[1]), per, _clauses(load_model(best), sentences, per))


def _clauses(model: WordOrderModel, sentences: Sequence[str],
             per: Sequence[Optional[tuple[float, int]]]) -> tuple[Optional[tuple[int, int]], ...]:
    """:func:`clause_cuts` of each judged sentence that is not salad on its own (None for the others)."""
    return tuple(None if r is None or r[0] < salad_threshold(r[1]) else clause_cuts(model, s)
                 for s, r in zip(sentences, per))


def is_word_salad(answer: str) -> bool:
    """True when ``answer`` as a whole is word salad: its words' order says nothing (module docstring: ``z``
    below :func:`salad_threshold` over at least :data:`MIN_WORDS` words of a language with a table); text no
    table covers is never word salad.

    Raises:
        TypeError: ``answer`` is not a str (any str is judged, lone surrogates included).

    >>> is_word_salad("The bill was signed into law by the governor on 3 May 2021.")
    False
    >>> is_word_salad("law the 2021. signed governor May bill on into by 3 The was")
    True
    """
    return judge(answer).is_salad


def strip_word_salad(answer: str) -> str:
    """``answer`` without what is word salad: ``""`` when the answer as a whole is (:func:`is_word_salad`),
    else the answer without each sentence that is word salad on its own (at least :data:`MIN_WORDS` tested
    words and ``z`` below :func:`salad_threshold` of them; the sentences left joined by one space), and
    ``answer`` itself (the same object) when no sentence is. Issue 32's ``shuffled_reference_behind_prose``:
    one fluent sentence before the salad carried it past a test of the answer as a whole.

    Raises:
        TypeError: ``answer`` is not a str.

    >>> strip_word_salad("The report was published by the state on Monday. "
    ...                  "Governor signed May the law bill on into by 3 the was 2021.")
    'The report was published by the state on Monday.'
    """
    j = judge(answer)
    if j.is_salad:
        return ""
    flags = j.salad_sentences
    clauses = j.clauses or (None,) * len(j.sentences)
    if not any(flags) and not any(c is not None for c in clauses):
        return answer
    kept = []
    for s, salad, span in zip(j.sentences, flags, clauses):
        if salad:
            continue
        if span is not None:
            words = s.split()
            stop = len(words) if span[1] == min(len(words), MAX_SENTENCE_WORDS) else span[1]
            s = " ".join(words[span[0]:stop])
        if s:
            kept.append(s)
    return " ".join(kept)
