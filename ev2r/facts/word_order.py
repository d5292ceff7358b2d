"""Word order: does an answer's text say something in the order of its words, or is it word salad?

An answer with its words shuffled ("census. from 2011 a 3,33,87,677") keeps every word of the gold evidence, and a
bag-of-words reading (the verifier, METEOR's unigram matches) takes it for the evidence itself. Text whose word
order carries no information states nothing, so a predicted answer that reads as word salad is no evidence
(:func:`ev2r.metric.reference.evidence_pairs`, the predicted side only). The rule is retired from the default
(``ev2r/4``) and runs only where its rule family is switched on.

**The test** (a permutation test under a word-bigram model, :class:`WordOrderModel`, interpolated with the unigram
distribution, Jelinek and Mercer 1980) scores the answer's sentences in their order and with their words in
random orders (the final ``. ! ?`` kept at the end):

    z = (sum_s (log P(order_s) - mean_perm log P_s)) / sqrt(sum_s var_perm log P_s)

over the sentences of at least :data:`MIN_SENTENCE_WORDS` words. Word salad's ``z`` is about N(0, 1) at any
length; an answer of at least :data:`MIN_WORDS` tested words with ``z`` below :func:`salad_threshold`
(``max(1, 0.4 sqrt(words))``) is salad, as is a sentence on its own (``order-v2``, :func:`strip_word_salad`), a run
of sentences too short to judge alone taken together and a sentence without its filler word (``order-v3``). A
language without a table (``data/word_order_<lang>.npz``, ``scripts/build_word_order_table.py``) is never judged;
the permutations are seeded from the text, so the test is a pure function of it. Measurements and limits:
``benchmarks/results/word_order.md``; the rule's version is :data:`WORD_ORDER_RULE`.
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

    def sentence_stats(self, sentence: str, rng: np.random.Generator, n_permutations: int = N_PERMUTATIONS,
                       min_words: int = MIN_SENTENCE_WORDS) -> Optional[tuple[float, float, int, int, int]]:
        """``(observed - permutation mean, permutation variance, words, known tokens, tokens)`` of the log
        probability of one sentence (module docstring), or None for a sentence of fewer than ``min_words``
        (default :data:`MIN_SENTENCE_WORDS`; at least 2) words with tokens, or one whose orders all score alike (its
        words all of one class: "1 2 3 4 5 6", a word repeated: order says nothing either way). The mean is exact (every
        ordered pair of distinct words is equally likely to be adjacent); the variance is the mean squared deviation of
        ``n_permutations`` random orders from it. Only the first :data:`MAX_SENTENCE_WORDS` words are read."""
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
        if m < max(min_words, 2):
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

    def stats(self, text: str, sentences: Optional[Sequence[str]] = None, n_permutations: int = N_PERMUTATIONS,
              min_words: int = MIN_SENTENCE_WORDS) -> list[Optional[tuple[float, float, int, int, int]]]:
        """:meth:`sentence_stats` of each of ``sentences`` (default: ``text`` as one sentence), in order, None
        for a sentence not tested. One generator, seeded by ``text`` with its whitespace folded (a space more is
        the same text), draws the permutations of every sentence in turn."""
        seed = zlib.crc32(" ".join(text.split()).encode("utf-8", "surrogatepass"))
        rng = np.random.default_rng(seed)
        return [self.sentence_stats(s, rng, n_permutations, min_words)
                for s in (sentences if sentences is not None else [text])]

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
        raise ValueError(f"lang: no word-order table for {lang!r}; "
                         f"tables: {', '.join(available_languages()) or 'none'}")
    with np.load(path, allow_pickle=False) as f:
        return WordOrderModel.from_counts(lang, [str(w) for w in f["vocab"]], f["rows"], f["cols"], f["counts"])


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
        short_runs: per sentence, True when it is in a run of consecutive sentences too short to judge alone
            that is word salad taken together (:func:`_short_runs`); empty when the answer is not judged.
        filler_salad: per sentence judged on its own and not salad so, True when it is word salad without its
            filler word (:func:`_filler_salad`); empty when the answer is not judged or is salad.
    """

    sentences: tuple[str, ...]
    answer: Optional[tuple[float, int]]
    per_sentence: tuple[Optional[tuple[float, int]], ...]
    short_runs: tuple[bool, ...] = ()
    filler_salad: tuple[bool, ...] = ()

    @property
    def is_salad(self) -> bool:
        """The answer as a whole is word salad (``z`` below :func:`salad_threshold`)."""
        return self.answer is not None and self.answer[0] < salad_threshold(self.answer[1])

    @property
    def salad_sentences(self) -> tuple[bool, ...]:
        """Per sentence: word salad on its own (``z`` below :func:`salad_threshold` of its words), or in a run of
        short sentences that is (:attr:`short_runs`)."""
        runs = self.short_runs or (False,) * len(self.per_sentence)
        filler = self.filler_salad or (False,) * len(self.per_sentence)
        return tuple((r is not None and r[0] < salad_threshold(r[1])) or short or fill
                     for r, short, fill in zip(self.per_sentence, runs, filler))


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
    # a Markdown table is no prose: the order of its cells says nothing either way (a breaker: a numeric table was
    # dropped as salad); a sentence with TABLE_BARS bars or more (a row, or rows the boilerplate rule joined) is not
    # tested and ends a run of short ones
    prose = tuple(s.count("|") < TABLE_BARS for s in sentences)
    stats = [st if ok else None for st, ok in zip(load_model(best).stats(answer, sentences), prose)]
    if coverage[best] < MIN_COVERAGE:
        # the answer as a whole is not judged, but a sentence the table covers is, on its own: a sentence in
        # another language must not shield the salad beside it (a breaker's finding)
        per_covered = tuple(None if st is None or st[2] < MIN_WORDS or st[3] < MIN_COVERAGE * st[4]
                            else (st[0] / st[1] ** 0.5, st[2]) for st in stats)
        return Judgement(sentences, None, per_covered)
    model = load_model(best)
    pooled = _pool(stats)
    per = tuple(None if st is None or st[2] < MIN_WORDS else (st[0] / st[1] ** 0.5, st[2]) for st in stats)
    if pooled is None or pooled[1] < MIN_WORDS:
        # too little tested to judge the answer; its short sentences may still be judged together
        return Judgement(sentences, None, per, _short_runs(model, sentences, per, prose))
    if pooled[0] < salad_threshold(pooled[1]):
        return Judgement(sentences, (pooled[0], pooled[1]), per)
    filler = tuple(r is not None and r[0] >= salad_threshold(r[1]) and _filler_salad(model, sen)
                   for sen, r in zip(sentences, per))
    return Judgement(sentences, (pooled[0], pooled[1]), per, _short_runs(model, sentences, per, prose), filler)


#: Sentences too short to judge alone (under :data:`MIN_WORDS` tested words) are judged together when they
#: follow each other: each of at least this many words counts in the run's pooled z (:func:`_short_runs`).
SHORT_RUN_SENTENCE_WORDS = 2


#: A sentence with this many ``|`` or more is (part of) a table, not prose: the word-order test skips it.
TABLE_BARS = 3


#: A sentence of at least :data:`FILLER_MIN_WORDS` words in which one word (case and punctuation around it folded)
#: is this share of the words or more is also judged without that word (:func:`_filler_salad`).
FILLER_SHARE = 0.3
FILLER_MIN_WORDS = 12


def _filler_salad(model: WordOrderModel, sentence: str) -> bool:
    """True when ``sentence`` is word salad once its filler word is taken out: a word of :data:`FILLER_SHARE` of
    its words or more (at least :data:`FILLER_MIN_WORDS` words), dropped wherever it stands, and the rest judged by
    the answer's rule (at least :data:`MIN_WORDS` tested words, z below :func:`salad_threshold`; permutations seeded
    by that text). It catches the salad's words joined by one filler (", and ", " of the ") put the
    filler at every other place, an order no random one has (``order-v3``). No sentence of the development
    sets' answers (3,855) has such a word; 5 of the 16,024 AVeriTeC train sentences do ("The higher the
    concentration of the compound used, the more cells died.", which stays prose without it)."""
    words = sentence.split()[:MAX_SENTENCE_WORDS]
    if len(words) < FILLER_MIN_WORDS:
        return False
    folded = [w.strip(_FOLD).casefold() for w in words]
    counts: dict[str, int] = {}
    for w in folded:
        if w:
            counts[w] = counts.get(w, 0) + 1
    if not counts:
        return False
    top, n = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
    if n < FILLER_SHARE * len(words):
        return False
    rest = " ".join(w for w, f in zip(words, folded) if f != top)
    st = model.stats(rest)[0]
    return st is not None and st[2] >= MIN_WORDS and st[0] / st[1] ** 0.5 < salad_threshold(st[2])


_FOLD = ".,;:!?\"'()[]{}\u201c\u201d\u2018\u2019"


def _short_runs(model: WordOrderModel, sentences: Sequence[str], per: Sequence[Optional[tuple[float, int]]],
                prose: Sequence[bool]) -> tuple[bool, ...]:
    """Per sentence: in a run of two or more consecutive sentences that are each too short to be judged alone
    (``per`` None; a table's text, ``prose`` False, ends a run), whose pooled z over their words (sentences of
    :data:`SHORT_RUN_SENTENCE_WORDS` or more, the permutations seeded by the run's text) is word salad by the answer's
    rule (at least :data:`MIN_WORDS` words, z below :func:`salad_threshold`). It catches the salad cut into 3-word lines
    or 4-5-word sentences behind a fluent lead, which no sentence alone would be judged on (``order-v3``)."""
    out = [False] * len(sentences)
    k = 0
    while k < len(sentences):
        if per[k] is not None or not prose[k]:
            k += 1
            continue
        stop = k
        while stop < len(sentences) and per[stop] is None and prose[stop]:
            stop += 1
        if stop - k >= 2:
            run = sentences[k:stop]
            pooled = _pool(model.stats(" ".join(run), run, min_words=SHORT_RUN_SENTENCE_WORDS))
            if pooled is not None and pooled[1] >= MIN_WORDS and pooled[0] < salad_threshold(pooled[1]):
                out[k:stop] = [True] * (stop - k)
        k = stop
    return tuple(out)


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
    ``answer`` itself (the same object) when no sentence is. One fluent sentence before the salad would carry it past a
    test of the answer as a whole.

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
    if not any(flags):
        return answer
    return " ".join(s for s, salad in zip(j.sentences, flags) if not salad)
