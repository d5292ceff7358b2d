"""METEOR over nltk tokens: the tokenisation and nltk's sentence-level METEOR, bit-for-bit, with
per-word work cached.

Tokens: :func:`tokenize` is ``nltk.word_tokenize`` (the official AVeriTeC tokenisation); :func:`meteor_words` is
what the METEOR similarities compare (NFC text, one token per character in scripts written without spaces). Scores:
:func:`meteor_tokens` (this module) and :func:`meteor_tokens_nltk` (nltk's own, the reference it is checked
against); the NLTK data check is :mod:`claimalign.nltk_data`.

nltk's ``single_meteor_score`` (Lavie & Agarwal 2007) aligns by exact, Porter-stem and WordNet-synonym matches and
scores ``(1 - gamma * (chunks / matches) ** beta) * Fmean``, ``Fmean = P * R / (alpha * P + (1 - alpha) * R)``.
:func:`single_meteor` runs the very same algorithm (matching order, tie-breaking, floating-point expression) but
looks each word's stem and synonym set up once per process and reads WordNet through :class:`_LightWordNet`; its
values are identical (``==``) to nltk's with default arguments (alpha 0.9, beta 3.0, gamma 0.5), checked on the
AVeriTeC parity fixture. Source: nltk 3.9/3.10 ``nltk/translate/meteor_score.py`` and
``nltk/corpus/reader/wordnet.py``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from functools import lru_cache
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

from claimalign.nltk_data import import_nltk, require_nltk_data
from claimalign.scripts import split_unspaced_script
from claimalign.text import normalize_text

__all__ = ["tokenize", "meteor_words", "meteor_tokens", "meteor_tokens_nltk", "single_meteor", "meteor_tokens_fast",
           "synonyms", "wordnet_senses", "ALPHA", "BETA", "GAMMA", "one_edit", "canonical_numbers", "FUZZY_MIN_LETTERS"]

ALPHA = 0.9
BETA = 3.0
GAMMA = 0.5

_STEMMER = None
_WORDNET: "Optional[_LightWordNet | _NltkWordNet]" = None


def _stemmer():
    global _STEMMER
    if _STEMMER is None:
        import_nltk()
        from nltk.stem.porter import PorterStemmer

        _STEMMER = PorterStemmer()
    return _STEMMER


@lru_cache(maxsize=None)
def _stem(word: str) -> str:
    return _stemmer().stem(word)


_SYNTACTIC_MARKER = re.compile(r"(.*?)(\([^()]*\))?$")


class _LightWordNet:
    """Just enough of nltk's English WordNet reader for METEOR's synonym stage.

    nltk's reader parses every index line at start-up, scans the adjective data file for
    satellites, builds a version map for its multilingual functions, and parses each synset line
    in full (pointers, frames, gloss). METEOR needs only the lemma names of ``synsets(word)``.
    This reader keeps nltk's own morphology (it calls ``WordNetCorpusReader._morphy`` with
    nltk's exception lists and substitution rules), reads the same files, parses an index line
    only when its lemma is asked for, and from a synset line only its lemma names, as
    ``_synset_from_pos_and_line`` does (syntactic markers such as ``(a)`` removed). When nltk's
    internals are not what this expects, :func:`_wordnet` falls back to ``nltk.corpus.wordnet``.
    """

    def __init__(self, root):
        from nltk.corpus.reader.wordnet import ADJ, ADJ_SAT, POS_LIST, WordNetCorpusReader

        self._root = root
        self._filemap = dict(WordNetCorpusReader._FILEMAP)  # {pos: file suffix}
        self._pos_list = tuple(POS_LIST)
        self._morphy_impl = WordNetCorpusReader._morphy
        self.MORPHOLOGICAL_SUBSTITUTIONS = WordNetCorpusReader.MORPHOLOGICAL_SUBSTITUTIONS
        self._index: Dict[str, Dict[str, str]] = {}
        for pos, suffix in self._filemap.items():
            lines: Dict[str, str] = {}
            for line in self._read(f"index.{suffix}").splitlines():
                if line and not line.startswith(" "):  # license lines start with spaces
                    lines[line.split(None, 1)[0]] = line
            self._index[pos] = lines
        self._exception_map: Dict[str, Dict[str, List[str]]] = {}
        for pos, suffix in self._filemap.items():
            table: Dict[str, List[str]] = {}
            for line in self._read(f"{suffix}.exc").splitlines():
                terms = line.split()
                if terms:
                    table[terms[0]] = terms[1:]
            self._exception_map[pos] = table
        self._exception_map[ADJ_SAT] = self._exception_map[ADJ]
        self._lemma_pos_offset_map = _LemmaIndex(self._index)
        self._data: Dict[str, bytes] = {}
        self._names: Dict[Tuple[str, int], Tuple[str, ...]] = {}

    def _read(self, name: str) -> str:
        with self._root.join(name).open() as fh:
            data = fh.read()
        return data.decode("utf8") if isinstance(data, bytes) else data

    def _offsets(self, pos: str, form: str) -> List[int]:
        # the parse of one index line in nltk's _load_lemma_pos_offset_map:
        # lemma pos n_synsets n_pointers [pointer symbols] n_senses n_tagsense [offsets]
        tokens = self._index[pos][form].split()
        n_synsets = int(tokens[2])
        start = 4 + int(tokens[3]) + 2
        return [int(t) for t in tokens[start:start + n_synsets]]

    def _lemma_names(self, pos: str, offset: int) -> Tuple[str, ...]:
        key = (pos, offset)
        names = self._names.get(key)
        if names is None:
            data = self._data.get(pos)
            if data is None:
                with self._root.join(f"data.{self._filemap[pos]}").open() as fh:
                    data = fh.read()
                if isinstance(data, str):
                    data = data.encode("utf8")
                self._data[pos] = data
            end = data.find(b"\n", offset)
            line = data[offset:end if end >= 0 else len(data)].decode("utf8")
            if line[:8] != f"{offset:08d}":
                raise RuntimeError(f"WordNet: no synset at pos={pos!r} offset={offset} (corrupt data files?)")
            # offset lexfile pos w_cnt(hex) [word lex_id]...
            tokens = line.partition("|")[0].split()
            n_lemmas = int(tokens[3], 16)
            # the marker pattern matches every string (both groups optional)
            names = tuple(_SYNTACTIC_MARKER.match(tokens[4 + 2 * k]).group(1)  # type: ignore[union-attr]
                          for k in range(n_lemmas))
            self._names[key] = names
        return names

    def synonyms(self, word: str) -> FrozenSet[str]:
        """Lemma names of ``nltk.corpus.wordnet.synsets(word)`` (all parts of speech)."""
        lemma = word.lower()
        out: set = set()
        for pos in self._pos_list:
            for form in self._morphy_impl(self, lemma, pos, True):
                for offset in self._offsets(pos, form):
                    out.update(self._lemma_names(pos, offset))
        return frozenset(out)

    def senses(self, word: str) -> Tuple[Tuple[str, Tuple[str, ...]], ...]:
        """(part of speech, lemma names) of each synset of ``nltk.corpus.wordnet.synsets(word)``, in its order
        (adjective satellites under ``"a"``)."""
        lemma = word.lower()
        return tuple((pos, self._lemma_names(pos, offset)) for pos in self._pos_list
                     for form in self._morphy_impl(self, lemma, pos, True) for offset in self._offsets(pos, form))


class _LemmaIndex:
    """``lemma -> {pos: ...}`` view over the per-pos index lines, as ``_morphy`` reads it
    (``form in index`` and ``pos in index[form]``)."""

    def __init__(self, index: Dict[str, Dict[str, str]]):
        self._index = index

    def __contains__(self, form: object) -> bool:
        return any(form in lines for lines in self._index.values())

    def __getitem__(self, form: str) -> "_PosView":
        return _PosView(self._index, form)


class _PosView:
    def __init__(self, index: Dict[str, Dict[str, str]], form: str):
        self._index = index
        self._form = form

    def __contains__(self, pos: object) -> bool:
        lines = self._index.get(pos)  # type: ignore[call-overload]
        return lines is not None and self._form in lines


class _NltkWordNet:
    """Fallback: nltk's own reader."""

    def __init__(self, wordnet):
        self._wn = wordnet

    def synonyms(self, word: str) -> FrozenSet[str]:
        return frozenset(lemma.name() for synset in self._wn.synsets(word) for lemma in synset.lemmas())

    def senses(self, word: str) -> Tuple[Tuple[str, Tuple[str, ...]], ...]:
        return tuple(("a" if s.pos() == "s" else s.pos(), tuple(s.lemma_names())) for s in self._wn.synsets(word))


def _wordnet():
    global _WORDNET
    if _WORDNET is None:
        require_nltk_data()
        nltk = import_nltk()
        try:
            _WORDNET = _LightWordNet(nltk.data.find("corpora/wordnet"))
        except (AttributeError, ImportError, TypeError, KeyError, ValueError, IndexError):  # pragma: no cover
            from nltk.corpus import wordnet

            _WORDNET = _NltkWordNet(wordnet)
    return _WORDNET


def synonyms(word: str) -> FrozenSet[str]:
    """Lemma names of every WordNet synset of ``word`` (all parts of speech, nltk's morphology),
    as ``{l.name() for s in nltk.corpus.wordnet.synsets(word) for l in s.lemmas()}``.

    Raises:
        RuntimeError: nltk's WordNet data not found.
    """
    return _wordnet().synonyms(word)


def wordnet_senses(word: str) -> Tuple[Tuple[str, Tuple[str, ...]], ...]:
    """(part of speech, lemma names) of each WordNet synset of ``word``, in the order of
    ``nltk.corpus.wordnet.synsets(word)`` (nouns, verbs, adjectives -- satellites under ``"a"`` -- then adverbs;
    nltk's morphology), read without loading nltk's full reader (its start-up builds a multilingual version map:
    about 5 s).

    Raises:
        RuntimeError: nltk's WordNet data not found.
    """
    return _wordnet().senses(word)


@lru_cache(maxsize=None)
def _meteor_synonyms(word: str) -> FrozenSet[str]:
    """WordNet lemma names without ``_`` of every synset of ``word``, plus ``word`` itself --
    the set nltk's ``_enum_wordnetsyn_match`` builds for a hypothesis word."""
    names = {name for name in synonyms(word) if name.find("_") < 0}
    names.add(word)
    return frozenset(names)


def _match(hyp: List[Tuple[int, str]], ref: List[Tuple[int, str]], matches: List[Tuple[int, int]]):
    """nltk ``_match_enums``: right-to-left over the hypothesis, each word takes the last
    remaining equal reference word. Appends to ``matches``; returns the unmatched lists."""
    ref_positions = defaultdict(list)
    for j, (_, w) in enumerate(ref):
        ref_positions[w].append(j)
    mh = set()
    mr = set()
    for i in range(len(hyp) - 1, -1, -1):
        positions = ref_positions.get(hyp[i][1])
        if positions:
            j = positions.pop()
            mh.add(i)
            mr.add(j)
            matches.append((hyp[i][0], ref[j][0]))
    if not mh:
        return hyp, ref
    return ([p for i, p in enumerate(hyp) if i not in mh], [p for j, p in enumerate(ref) if j not in mr])


def _syn_match(hyp: List[Tuple[int, str]], ref: List[Tuple[int, str]],
               matches: List[Tuple[int, int]]) -> Tuple[List[Tuple[int, str]], List[Tuple[int, str]]]:
    """nltk ``_enum_wordnetsyn_match``: right-to-left over the hypothesis, a word matches, among
    the remaining reference words that are among its synonyms, the one whose last remaining
    position is highest. Distinct words have distinct positions, so the choice does not depend
    on iteration order; this loops over whichever is smaller, the synonyms or the remaining
    reference words (same candidates, same maximum). Returns the unmatched lists."""
    taken_h: set = set()
    taken_r: set = set()
    ref_positions: Dict[str, List[int]] = defaultdict(list)
    for j, (_, w) in enumerate(ref):
        ref_positions[w].append(j)
    for i in range(len(hyp) - 1, -1, -1):
        syns = _meteor_synonyms(hyp[i][1])
        best_j = -1
        best_word = None
        if len(syns) <= len(ref_positions):
            for syn in syns:
                positions = ref_positions.get(syn)
                if positions and positions[-1] > best_j:
                    best_j = positions[-1]
                    best_word = syn
        else:
            for w, positions in ref_positions.items():
                if positions and positions[-1] > best_j and w in syns:
                    best_j = positions[-1]
                    best_word = w
        if best_word is not None:
            ref_positions[best_word].pop()
            matches.append((hyp[i][0], ref[best_j][0]))
            taken_h.add(i)
            taken_r.add(best_j)
    return ([p for i, p in enumerate(hyp) if i not in taken_h], [p for j, p in enumerate(ref) if j not in taken_r])


#: :func:`single_meteor` with ``fuzzy=True``: words of at least this many letters may match at one edit.
FUZZY_MIN_LETTERS = 4


def one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by exactly one edit: a letter substituted, inserted or deleted, or two
    adjacent letters swapped (Damerau 1964: about 80% of spelling errors are one such edit).

    >>> one_edit("senator", "senaotr"), one_edit("voted", "voter"), one_edit("vote", "vote"), one_edit("ban", "bandit")
    (True, True, False, False)
    """
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [k for k in range(len(a)) if a[k] != b[k]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    k = next((k for k in range(len(short)) if short[k] != long_[k]), len(short))
    return short[k:] == long_[k + 1:]


def _fuzzy_match(hyp: List[Tuple[int, str]], ref: List[Tuple[int, str]], words_h: Dict[int, str],
                 words_r: Dict[int, str], matches: List[Tuple[int, int]]) -> None:
    """The fourth stage of :func:`single_meteor` with ``fuzzy=True``: right-to-left over the unmatched hypothesis
    words, a word of :data:`FUZZY_MIN_LETTERS` letters or more (letters only: a number is never near another
    number) matches the unmatched reference word of highest position one edit away (:func:`one_edit`), compared as
    written (lower-cased), not stemmed. A number word left as a word (a run :func:`canonical_numbers` does not read:
    "hundred seventy") is a number too: it never matches at one edit ("seventy" / "seventh", "sixty" / "sixth")."""
    free = [(j, pos) for j, (pos, _) in enumerate(ref)]
    used: set = set()
    for i in range(len(hyp) - 1, -1, -1):
        w = words_h[hyp[i][0]]
        if len(w) < FUZZY_MIN_LETTERS or not w.isalpha() or w in _NUMBER_WORDS:
            continue
        best = None
        for j, pos in free:
            if j in used:
                continue
            r = words_r[pos]
            if (r.isalpha() and len(r) >= FUZZY_MIN_LETTERS - 1 and r not in _NUMBER_WORDS and one_edit(w, r)
                    and (best is None or pos > best[1])):
                best = (j, pos)
        if best is not None:
            used.add(best[0])
            matches.append((hyp[i][0], best[1]))


def _count_chunks(matches: Sequence[Tuple[int, int]]) -> int:
    chunks = 1
    for k in range(len(matches) - 1):
        if not (matches[k + 1][0] == matches[k][0] + 1 and matches[k + 1][1] == matches[k][1] + 1):
            chunks += 1
    return chunks


def single_meteor(reference: Sequence[str], hypothesis: Sequence[str], fuzzy: bool = False) -> float:
    """METEOR of one tokenised hypothesis against one tokenised reference, equal to
    ``nltk.translate.meteor_score.single_meteor_score(reference, hypothesis)`` with its defaults.

    Args:
        reference, hypothesis: sequences of tokens (str); not single strings.
        fuzzy: False (default): nltk's METEOR exactly. True: METEOR with a fourth matching stage after the
            synonyms, a word one edit from a remaining word (:func:`_fuzzy_match`: a typo), and numbers compared
            as values (:func:`canonical_numbers` on both sides: "forty-five" = "45", "2,500" = "2500") -- ev2r's
            hybrid columns (a copy with a typo or a number spelled out is the copy); the official
            Hungarian METEOR never uses it.

    Returns:
        float in [0, 1]; 0.0 when either side is empty or nothing matches (as nltk).

    Raises:
        TypeError: a side is a plain string (as nltk).
        RuntimeError: nltk data (WordNet) not found.
    """
    if isinstance(reference, str) or isinstance(hypothesis, str):
        raise TypeError("single_meteor: reference and hypothesis must be token sequences, not strings")
    if fuzzy:
        ref_n, hyp_n = canonical_numbers(tuple(reference)), canonical_numbers(tuple(hypothesis))
        if len(ref_n) != len(reference) or len(hyp_n) != len(hypothesis):
            # a number run read as one token has fewer words to match: never below the exact value (identical
            # tokens "two hundred" / "two hundred" read 0.5 as "200" / "200", 0.9375 exactly)
            return max(single_meteor(reference, hypothesis), single_meteor(ref_n, hyp_n, fuzzy=True))
        reference, hypothesis = ref_n, hyp_n
    hyp = [(i, w.lower()) for i, w in enumerate(hypothesis)]
    ref = [(j, w.lower()) for j, w in enumerate(reference)]
    words_h, words_r = dict(hyp), dict(ref)
    translation_length = len(hyp)
    reference_length = len(ref)
    if translation_length == 0 or reference_length == 0:
        return 0.0
    matches: List[Tuple[int, int]] = []
    hyp, ref = _match(hyp, ref, matches)
    if hyp and ref:
        hyp = [(i, _stem(w)) for i, w in hyp]
        ref = [(j, _stem(w)) for j, w in ref]
        hyp, ref = _match(hyp, ref, matches)
        if hyp and ref:
            hyp, ref = _syn_match(hyp, ref, matches)
            if fuzzy and hyp and ref:
                _fuzzy_match(hyp, ref, words_h, words_r, matches)
    matches_count = len(matches)
    if matches_count == 0:
        return 0.0
    matches.sort(key=lambda pair: pair[0])
    # the exact floating-point expression of nltk's single_meteor_score
    precision = float(matches_count) / translation_length
    recall = float(matches_count) / reference_length
    fmean = (precision * recall) / (ALPHA * precision + (1 - ALPHA) * recall)
    chunk_count = float(_count_chunks(matches))
    frag_frac = chunk_count / matches_count
    penalty = GAMMA * frag_frac ** BETA
    return (1 - penalty) * fmean


@lru_cache(maxsize=262144)
def meteor_tokens_fast(reference: Tuple[str, ...], hypothesis: Tuple[str, ...], fuzzy: bool = False) -> float:
    """:func:`single_meteor` cached on token tuples (what :func:`meteor_tokens` computes, same values)."""
    return single_meteor(reference, hypothesis, fuzzy)


_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
          "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety").split()
_SCALES = ("hundred", "thousand", "million", "billion")
_NUMBER_WORDS = frozenset(_UNITS) | frozenset(_SCALES)
_DIGITS = re.compile(r"^\d{1,3}(?:,\d{3})+(?:\.\d+)?$")


def _number_word(tok: str) -> bool:
    parts = tok.lower().split("-")
    return all(p in _NUMBER_WORDS for p in parts) and bool(parts[0])


@lru_cache(maxsize=65536)
def canonical_numbers(tokens: Tuple[str, ...]) -> Tuple[str, ...]:
    """``tokens`` with numbers written one way: thousands separators dropped ("2,500" -> "2500"), "%" as "percent",
    "$ 3" as "3 dollars", and each run of number words ("forty-five", "two thousand five hundred", "nineteen
    ninety-nine" as a year) replaced by its digits (``word2number``); a lone "one" stays a word (mostly a pronoun), and
    a run that does not parse is kept.

    >>> canonical_numbers(("forty-five", "percent", "of", "2,500", "in", "twenty", "twenty"))
    ('45', 'percent', 'of', '2500', 'in', '2020')
    >>> canonical_numbers(("fourteen", "point", "seven", "percent")), canonical_numbers(("point", "taken"))
    (('14.7', 'percent'), ('point', 'taken'))
    >>> canonical_numbers(("two", "point", "five", "million")), canonical_numbers(("three", "million"))
    (('2.5', 'million'), ('3', 'million'))
    >>> canonical_numbers(("45", "%", "cost", "$", "3")), canonical_numbers(("three", "dollars"))
    (('45', 'percent', 'cost', '3', 'dollars'), ('3', 'dollars'))
    """
    out: List[str] = []
    k = 0
    while k < len(tokens):
        t = tokens[k]
        if t == "%" or t.lower() == "per cent":
            out.append("percent")
            k += 1
            continue
        if t.lower() == "dollar":
            out.append("dollars")
            k += 1
            continue
        if _DIGITS.match(t):
            out.append(t.replace(",", ""))
            k += 1
            continue
        if not _number_word(t):
            out.append(t)
            k += 1
            continue
        stop = k
        while stop < len(tokens) and (_number_word(tokens[stop]) or (
                tokens[stop].lower() == "and" and stop > k and stop + 1 < len(tokens) and _number_word(tokens[stop + 1])
                and tokens[stop - 1].lower() in _SCALES) or (
                tokens[stop].lower() == "point" and stop > k and stop + 1 < len(tokens)
                and _number_word(tokens[stop + 1]))):
            stop += 1
        run = [w.lower() for w in tokens[k:stop]]
        value = _words_value(run)
        out.extend(run if value is None else value.split())
        k = stop
    for k in range(len(out) - 1):  # "$ 3" -> "3 dollars"
        if out[k] == "$" and out[k + 1][:1].isdigit():
            out[k], out[k + 1] = out[k + 1], "dollars"
    return tuple(out)


def _words_value(run: List[str]) -> Optional[str]:
    if "point" in run:  # "fourteen point seven": word2number reads the decimals
        parts = [p for w in run for p in w.split("-")]
        scale = parts.pop() if parts[-1] in ("million", "billion") else None
        point = parts.index("point")
        whole, decimals = _strict_int([p for p in parts[:point] if p != "and"]), parts[point + 1:]
        if whole is None or not decimals or any(d not in _UNITS[:10] for d in decimals):
            return None  # "two point five thousand", "nine point point five": not a number word2number reads right
        try:
            from word2number import w2n

            value = str(w2n.word_to_num(" ".join(parts)))
        except (ValueError, IndexError, ImportError):
            return None
        return value if scale is None else f"{value} {scale}"
    words = [p for w in run for p in w.split("-") if p != "and"]
    if words == ["one"] or words[0] in _SCALES:
        return None
    if not any(w in _SCALES for w in words):  # a year: "twenty twenty", "nineteen ninety-nine", "nineteen forty eight"
        for i in range(1, len(words)):
            head, tail = _small(words[:i]), _small(words[i:])
            if head is not None and tail is not None and 10 <= head <= 99 and 10 <= tail <= 99:
                return str(head * 100 + tail)
    # read strictly, not by word2number, which adds up what is not a number ("two three" -> 5, "one one" -> 2) and
    # misreads some that are ("twenty five hundred" -> 200): a run that is not a well-formed number stays words
    if len(words) > 1 and words[-1] in ("million", "billion"):  # "three million" reads "3 million", as written
        number = _strict_int(words[:-1])
        return None if number is None else f"{number} {words[-1]}"
    number = _strict_int(words)
    return None if number is None else str(number)


def _below_100(parts: List[str]) -> Optional[int]:
    """The value of "seven", "nineteen", "forty", "forty five" (1..99), else None."""
    if len(parts) == 1 and parts[0] in _UNITS:
        return _small(parts)
    return _small(parts) if len(parts) == 2 else None


def _below_1000(parts: List[str]) -> Optional[int]:
    """The value of a well-formed group under a thousand ("five hundred six", "twenty five hundred"), else None."""
    if "hundred" in parts:
        k = parts.index("hundred")
        head = _below_100(parts[:k])
        tail = _below_100(parts[k + 1:]) if parts[k + 1:] else 0
        if not head or tail is None:
            return None
        return head * 100 + tail
    return _below_100(parts)


def _strict_int(parts: List[str]) -> Optional[int]:
    """The value of a well-formed run of number words ("two thousand five", "one million two hundred"), else None
    ("two three", "one one", "five hundred hundred", "thousand"): what word2number's reading is checked against."""
    if parts == ["zero"]:
        return 0
    total, rest = 0, parts
    for scale, factor in (("billion", 10 ** 9), ("million", 10 ** 6), ("thousand", 10 ** 3)):
        if scale in rest:
            k = rest.index(scale)
            group = _below_1000(rest[:k])
            if not group:
                return None
            total += group * factor
            rest = rest[k + 1:]
    if rest:
        group = _below_1000(rest)
        if not group:
            return None
        total += group
    return total if parts else None


def _small(parts: List[str]) -> Optional[int]:
    """The value of one or two number words under 100 ("nineteen"; "forty", "eight"), else None."""
    vals = [_UNITS.index(p) if _UNITS.index(p) < 20 else 20 + 10 * (_UNITS.index(p) - 20) for p in parts
            if p in _UNITS]
    if len(vals) != len(parts) or not 1 <= len(vals) <= 2:
        return None
    if len(vals) == 2 and not (vals[0] >= 20 and vals[0] % 10 == 0 and 0 < vals[1] < 10):
        return None
    return sum(vals)


# ----------------------------------------------------------------------------- tokens and scores


@lru_cache(maxsize=65536)
def tokenize(text: str) -> Tuple[str, ...]:
    """``nltk.word_tokenize(text)`` as a tuple (cached: each distinct string is tokenised once).
    Exactly the official AVeriTeC tokenisation; the similarities use :func:`meteor_words`.

    Raises:
        RuntimeError: nltk data (punkt_tab) not found.
    """
    require_nltk_data()
    from nltk import word_tokenize

    return tuple(word_tokenize(text))


@lru_cache(maxsize=65536)
def meteor_words(text: str) -> Tuple[str, ...]:
    """The tokens METEOR compares in :class:`~claimalign.similarity.MeteorSimilarity` and in
    :func:`~claimalign.hu_meteor` with ``tokens="script"`` (its default, the official AVeriTeC mode,
    uses :func:`tokenize`): :func:`tokenize` of the NFC text
    (:func:`claimalign.text.normalize_text`), except that in scripts written without spaces
    between words (Chinese, Japanese, Thai...: :data:`claimalign.scripts.UNSPACED_SCRIPTS`), where
    ``word_tokenize`` returns a whole sentence as one token, each character is a token of its own
    (:func:`claimalign.scripts.split_unspaced_script`): a partial overlap then gets partial credit
    and identical text matches token by token. Text in spaced scripts gives :func:`tokenize`'s tokens.

    Raises:
        RuntimeError: nltk data (punkt_tab) not found.
    """
    return tuple(piece for tok in tokenize(normalize_text(text)) for piece in split_unspaced_script(tok))


def meteor_tokens(reference: Tuple[str, ...], hypothesis: Tuple[str, ...], fuzzy: bool = False) -> float:
    """``nltk.translate.meteor_score.single_meteor_score(reference, hypothesis)`` with nltk's
    defaults (alpha 0.9, beta 3, gamma 0.5, Porter stemmer, WordNet synonyms): the same values
    (``==``), computed by :func:`meteor_tokens_fast`, which looks each word's stem and synonyms up
    once and caches on the token tuples (nltk redoes both on every call: ~10x slower on AVeriTeC's
    Hungarian METEOR). In [0, 1]; 0.0 when either side has no tokens. ``fuzzy``: :func:`single_meteor`'s option
    (not nltk's METEOR then).

    Raises:
        RuntimeError: nltk data (punkt_tab, WordNet) not found.
    """
    require_nltk_data()
    return float(meteor_tokens_fast(tuple(reference), tuple(hypothesis), bool(fuzzy)))


def meteor_tokens_nltk(reference: Tuple[str, ...], hypothesis: Tuple[str, ...]) -> float:
    """nltk's own ``single_meteor_score`` (uncached): the reference :func:`meteor_tokens` is
    checked against. In [0, 1].

    Raises:
        RuntimeError: nltk data (punkt_tab, WordNet) not found.
    """
    require_nltk_data()
    from nltk.translate.meteor_score import single_meteor_score

    return float(single_meteor_score(list(reference), list(hypothesis)))


_SYNONYMS_OK: Optional[bool] = None


def synonyms_available() -> bool:
    """Whether nltk's WordNet can be read (:func:`synonyms`), checked once per process: ev2r's restatement rule
    (``ev2r.metric.restatement.restates_claim`` with :func:`synonym_tokens`) reads synonyms only then, and its
    signature says which (``+wnsyn`` / ``+nosyn``)."""
    global _SYNONYMS_OK
    if _SYNONYMS_OK is None:
        try:
            synonyms("house")
            _SYNONYMS_OK = True
        except (RuntimeError, LookupError, OSError, ImportError):
            _SYNONYMS_OK = False
    return _SYNONYMS_OK


@lru_cache(maxsize=65536)
def synonym_tokens(word: str) -> frozenset:
    """The content tokens (:func:`content_tokens`: stemmed, function words left out) of the WordNet lemma
    names of every synset of ``word`` (an ASCII word; multi-word lemmas split at ``_``); empty when WordNet is
    not available (:func:`synonyms_available`).

    >>> "prevent" in synonym_tokens("forestall") or not synonyms_available()
    True
    """
    if not synonyms_available():
        return frozenset()
    from claimalign.words import content_tokens

    return frozenset(tok for name in synonyms(word) for tok in content_tokens(name.replace("_", " ")))
