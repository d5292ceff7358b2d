"""The handed edit families: one-word edits of a statement that keep its meaning or change it, and the
training pairs made from them, so that the verifier learns to read a near-copy rather than be told by a rule.

Each family is a pure function ``(text, rng) -> edited text or None`` (None when it does not apply). The families
that **change** the meaning, with the label of a pair whose other side states the original: ``antonym``,
``negation``, ``number`` (moved 10-50%, years 2-10 years), ``scale`` (thousand / million / ...), ``sign``
(``-6.1%`` -> ``6.1%``, ``>`` <-> ``<``) and ``yesno`` (a leading Yes / No flipped) -> contradiction; ``entity``
(another of its type), ``unit`` ($ -> EUR, km -> miles), ``roles`` (two named entities swapped) and ``hedge``
("It is possible that ...") -> neutral. The families that **keep** it (label kept): ``typos``, ``contractions``,
``numbers_to_words``, ``words_to_numbers``, ``articles``, ``number_format`` (``1,000`` <-> ``1000``) and
``synonym`` (a synonym in *both* words' most frequent WordNet sense,
:func:`ev2r.metric.admission.first_sense_synonyms`: any first-sense synonym is often another sense, "World Bank" ->
"Universe Bank").

More families live in :mod:`ev2r.training.edits_more`; a run draws on them only when asked (``families``,
``--aug-edit-families all``): :data:`FAMILY_SETS` ``"issue63"``, the default, is the families above, so the recorded
runs' options still build their pools. ``hedge``, ``certainty`` and ``quantifier`` weaken a statement and are used
on the premise side only (:data:`PREMISE_ONLY`). The test side (``benchmarks/robustness/edits_blind.py``) was
written apart from these families and is never read to build them.
"""

from __future__ import annotations

import functools
import random
import re
from typing import Callable, Optional, Sequence

from ev2r.training.augment import GENERIC_QUESTIONS
from ev2r.training.data import Pair

__all__ = ["CHANGING", "PRESERVING", "CHANGE_LABEL", "PREMISE_ONLY", "FAMILY_SETS", "family_set", "edit_text",
           "augment_meaning_edits", "near_copy_premise", "wordnet_antonyms"]

EditFn = Callable[[str, random.Random], Optional[str]]

_SCALES = ("thousand", "million", "billion", "trillion")
_SCALE_RE = re.compile(r"(?<![\w-])(thousand|million|billion|trillion)(?![\w-])", re.I)
_SIGNED_RE = re.compile(r"(?<![\w.])([-\u2212+])(?=\d)")
_UNSIGNED_PCT_RE = re.compile(r"(?<![\w.,\-\u2212+$])(\d+(?:\.\d+)?%)")
_CMP_RE = re.compile(r"\s([<>])\s")
_UNITS = (("$", "\u20ac"), ("dollars", "euros"), ("pounds", "dollars"), ("euros", "pounds"), ("km", "miles"),
          ("kilometres", "miles"), ("miles", "kilometres"), ("kg", "pounds"), ("per cent", "percentage points"),
          ("percent", "percentage points"), ("hours", "days"), ("days", "weeks"), ("weeks", "months"),
          ("months", "years"), ("years", "months"), ("minutes", "hours"), ("metres", "feet"), ("feet", "metres"))
_UNIT_RE = re.compile(r"(?<![\w])(" + "|".join(re.escape(a) for a, _ in _UNITS) + r")(?![\w])")
_UNIT_MAP = dict(_UNITS)
_NEG_AUX_RE = re.compile(r"(?<![\w'])(is|are|was|were|has|have|had|will|would|can|could|does|do|did)(?![\w'])(?! not\b)"
                         r"(?! never\b)(?! no longer\b)")
_ALREADY_NEG = re.compile(r"(?<![\w'])(not|never|no longer|cannot)(?![\w'])|n't(?![\w'])", re.I)
_ARTICLE_RE = re.compile(r"(?<![\w'])(a|an|the)\s+(?=\w)", re.I)
_THOUSANDS_RE = re.compile(r"(?<![\d.,])(\d{1,3}(?:,\d{3})+)(?![\d,]*\.\d)(?![\d,])")
_PLAIN_BIG_RE = re.compile(r"(?<![\d.,])(\d{5,})(?![\d.,])")
_PCT_RE = re.compile(r"(\d)%")
_PER_CENT_RE = re.compile(r"(\d)\s*(per cent|percent)\b")
_NAME_RE = re.compile(r"(?<![\w.])([A-Z][a-z]+(?:\s+[A-Z][a-z]+){1,2})(?![\w])")
_LOWER_STARTS = frozenset("The A An It There This That These Those In On At He She They We Some Many Most".split())
_NOT_NAMES = frozenset("""January February March April May June July August September October November December
Monday Tuesday Wednesday Thursday Friday Saturday Sunday The A An In On At It He She They We This That""".split())
_YESNO_RE = re.compile(r"^(\s*)(yes|no)(?![\w'])", re.I)
HEDGES = ("It is possible that {s}.", "Some reports suggest that {s}.", "It has been rumoured that {s}.",
          "It is unclear whether {s}.", "Some people believe that {s}.", "It may be that {s}.")


def _match_case(template: str, word: str) -> str:
    from adversarial.perturbations.meaning import same_case

    return same_case(template, word)


@functools.lru_cache(maxsize=1)
def wordnet_antonyms() -> dict[str, str]:
    """Word -> antonym from WordNet's direct antonym links of adjectives (the antonym of the word's first
    adjective sense, only when that sense has one: a later sense is often another meaning), merged under the
    gaming suite's hand table (:data:`adversarial.perturbations.ANTONYMS`, which holds the verbs). Without
    WordNet installed, the hand table alone."""
    from adversarial.perturbations import ANTONYMS

    table: dict[str, str] = {}
    try:
        from adversarial import resources

        wn = resources.wordnet()
        for syn in wn.all_synsets("a"):
            for lemma in syn.lemmas():
                name = lemma.name()
                if ("_" in name or name.lower() in table or not name.isalpha() or len(name) < 4
                        or name.endswith("ed")):
                    continue
                first = wn.synsets(name, pos="a")
                if not first or first[0] != syn:
                    continue
                ants = [a.name() for a in lemma.antonyms() if "_" not in a.name()]
                if ants:
                    table[name.lower()] = ants[0].lower()
    except Exception:  # noqa: BLE001 - WordNet is optional here: the hand table alone
        table = {}
    table.update({k: v for k, v in ANTONYMS.items()})
    return table


def _words(text: str) -> list[re.Match]:
    return list(re.finditer(r"(?<![\w'-])[A-Za-z]+(?:\s+than)?(?![\w'-])", text))


def _antonym(text: str, rng: random.Random) -> Optional[str]:
    table = wordnet_antonyms()
    hits = [m for m in _words(text) if m.group(0).lower() in table and len(m.group(0)) > 2]
    if not hits:
        return None
    m = hits[rng.randrange(len(hits))]
    return text[:m.start()] + _match_case(m.group(0), table[m.group(0).lower()]) + text[m.end():]


def _negation(text: str, rng: random.Random) -> Optional[str]:
    from adversarial.perturbations import negate_sentence

    if _ALREADY_NEG.search(text):
        out = negate_sentence(text)
        return out if out != text else None
    m = _NEG_AUX_RE.search(text)
    if m is None or m.start() == 0:
        return None
    word = ("not", "never", "no longer")[rng.randrange(3)]
    if word == "no longer" and m.group(1).lower() not in ("is", "are", "was", "were"):
        word = "not"
    return text[:m.end()] + " " + word + text[m.end():]


#: Words before a number that make it a bound ("more than 130"): another bound of the same direction may still be
#: entailed ("less than 31" entails "less than 35"), so changing such a number is not a contradiction.
_BOUND_RE = re.compile(r"(?:more|less|fewer|greater|higher|lower|larger|smaller) than\s+\S*$|"
                       r"(?:over|under|nearly|almost|about|around|approximately|roughly|some|up to|at least|at most|"
                       r"above|below|beyond|within|exceeding)\s+\S*$", re.I)


def _bounded(text: str, start: int) -> bool:
    """Whether the number starting at ``start`` follows a bound word (:data:`_BOUND_RE`, at most one word between)."""
    return _BOUND_RE.search(text[max(0, start - 40):start].rstrip() + " x") is not None


def _number(text: str, rng: random.Random) -> Optional[str]:
    import numpy as np

    from adversarial.perturbations.meaning import changed_number_text, number_tokens

    toks = [t for t in number_tokens(text) if not _bounded(text, t.start)]
    if not toks:
        return None
    tok = toks[rng.randrange(len(toks))]
    new = changed_number_text(tok, np.random.default_rng(rng.randrange(2 ** 32)))
    return None if new == tok.text else text[:tok.start] + new + text[tok.end:]


def _scale(text: str, rng: random.Random) -> Optional[str]:
    hits = [m for m in _SCALE_RE.finditer(text) if not _bounded(text, _number_start(text, m.start()))]
    if not hits:
        return None
    m = hits[rng.randrange(len(hits))]
    others = [s for s in _SCALES if s != m.group(1).lower()]
    return text[:m.start()] + _match_case(m.group(1), others[rng.randrange(len(others))]) + text[m.end():]


def _sign(text: str, rng: random.Random) -> Optional[str]:
    options: list[tuple[int, int, str]] = []
    for m in _SIGNED_RE.finditer(text):
        options.append((m.start(), m.end(), "" if m.group(1) in "-\u2212" else "-"))
    for m in _UNSIGNED_PCT_RE.finditer(text):
        options.append((m.start(), m.start(), "-"))
    for m in _CMP_RE.finditer(text):
        options.append((m.start(1), m.end(1), "<" if m.group(1) == ">" else ">"))
    if not options:
        return None
    a, b, rep = options[rng.randrange(len(options))]
    return text[:a] + rep + text[b:]


def _yesno(text: str, rng: random.Random) -> Optional[str]:
    m = _YESNO_RE.match(text)
    if m is None:
        return None
    flip = "no" if m.group(2).lower() == "yes" else "yes"
    return text[:m.start(2)] + _match_case(m.group(2), flip) + text[m.end(2):]


@functools.lru_cache(maxsize=1)
def _entities():
    from adversarial.perturbations.meaning import entity_index

    return entity_index()


def _entity(text: str, rng: random.Random, names: Sequence[str] = ()) -> Optional[str]:
    rx, index, lists = _entities()
    hits = list(rx.finditer(text))
    if hits:
        m = hits[rng.randrange(len(hits))]
        etype, idx, _ = index[m.group(1)]
        entries = lists[etype]
        j = rng.randrange(len(entries) - 1)
        j = j + 1 if j >= idx else j
        return text[:m.start(1)] + entries[j]["name"] + text[m.end(1):]
    found = [m for m in _NAME_RE.finditer(text) if m.start() > 0 and not _NOT_NAMES & set(m.group(1).split())]
    pool = [n for n in names if n not in text]
    if not found or not pool:
        return None
    m = found[rng.randrange(len(found))]
    return text[:m.start(1)] + pool[rng.randrange(len(pool))] + text[m.end(1):]


def _unit(text: str, rng: random.Random) -> Optional[str]:
    hits = list(_UNIT_RE.finditer(text))
    if not hits:
        return None
    m = hits[rng.randrange(len(hits))]
    return text[:m.start()] + _UNIT_MAP[m.group(1)] + text[m.end():]


def _number_start(text: str, end: int) -> int:
    """Where the number before a scale word ending at ``end`` starts ("10 million": the "1")."""
    m = re.search(r"[\d.,$\u20ac\u00a3]+\s*$", text[:end])
    return m.start() if m else end


#: Two names joined so that swapping them keeps the meaning ("the Metairie Canal and the Upperline Canal").
_COORDINATED_RE = re.compile(r"^\W*(?:the\s+)?$|^\s*(?:,|and|or|&|,\s*and|,\s*or)\s+(?:the\s+)?$", re.I)


def _roles(text: str, rng: random.Random) -> Optional[str]:
    rx, _, _ = _entities()
    hits = [m for m in rx.finditer(text)]
    if len(hits) < 2:
        hits = [m for m in _NAME_RE.finditer(text) if m.start() > 0]
    distinct = []
    for m in hits:
        if all(m.group(1) != d.group(1) for d in distinct):
            distinct.append(m)
    if len(distinct) < 2:
        return None
    a, b = distinct[0], distinct[1]
    if _COORDINATED_RE.match(text[a.end(1):b.start(1)]):
        return None  # coordinated names: swapping them says the same
    return text[:a.start(1)] + b.group(1) + text[a.end(1):b.start(1)] + a.group(1) + text[b.end(1):]


def _hedge(text: str, rng: random.Random) -> Optional[str]:
    s = text.strip().rstrip(".!?")
    if len(s) < 8 or _YESNO_RE.match(s):
        return None
    if s.split()[0] in _LOWER_STARTS:
        s = s[0].lower() + s[1:]
    return HEDGES[rng.randrange(len(HEDGES))].format(s=s)


def _perturbation(name: str) -> EditFn:
    def edit(text: str, rng: random.Random) -> Optional[str]:
        import numpy as np

        from adversarial.perturbations import perturb_text

        out = perturb_text(name, text, np.random.default_rng(rng.randrange(2 ** 32)))
        return out if out and out != text else None
    return edit


_SYNONYM_SKIP = frozenset("""this that these those there their they them then than what when where which while with
would could should shall will have been being were from into onto over under about after before other another some
many more most much such only also very just even said says""".split())


def _synonym(text: str, rng: random.Random) -> Optional[str]:
    """One content word (four letters or more, its own WordNet base form) replaced by a synonym in both words' most
    frequent senses (:func:`ev2r.metric.admission.first_sense_synonyms`: "buy" / "purchase", never a rare sense)."""
    from adversarial import resources
    from ev2r.metric.admission import first_sense_synonyms

    try:
        wn = resources.wordnet()
    except Exception:  # noqa: BLE001 - no WordNet: the family does not apply
        return None
    words = [m for m in re.finditer(r"(?<![\w'-])[a-z]{4,}(?![\w'-])", text) if m.group(0) not in _SYNONYM_SKIP]
    rng.shuffle(words)
    for m in words[:6]:
        w = m.group(0)
        if wn.morphy(w) != w:
            continue
        cands = sorted({lem.name().lower() for syn in wn.synsets(w)[:2] for lem in syn.lemmas()
                        if lem.name().isalpha() and lem.name().lower() != w})
        good = [c for c in cands if first_sense_synonyms(w, c)]
        if good:
            return text[:m.start()] + good[rng.randrange(len(good))] + text[m.end():]
    return None


def _articles(text: str, rng: random.Random) -> Optional[str]:
    hits = list(_ARTICLE_RE.finditer(text))
    if not hits:
        return None
    keep = [m for m in hits if rng.random() < 0.4]
    drop = [m for m in hits if m not in keep] or hits[:1]
    out, last = [], 0
    for m in drop:
        out.append(text[last:m.start()])
        last = m.end()
    out.append(text[last:])
    new = "".join(out)
    return new[:1].upper() + new[1:] if text[:1].isupper() else new


def _number_format(text: str, rng: random.Random) -> Optional[str]:
    options: list[tuple[int, int, str]] = []
    for m in _THOUSANDS_RE.finditer(text):
        options.append((m.start(1), m.end(1), m.group(1).replace(",", "")))
    for m in _PLAIN_BIG_RE.finditer(text):
        if not (1100 <= int(m.group(1)) <= 2099):
            options.append((m.start(1), m.end(1), f"{int(m.group(1)):,}"))
    for m in _PCT_RE.finditer(text):
        options.append((m.start(1) + 1, m.end(), (" per cent", " percent")[rng.randrange(2)]))
    for m in _PER_CENT_RE.finditer(text):
        options.append((m.start(1) + 1, m.end(), "%"))
    if not options:
        return None
    a, b, rep = options[rng.randrange(len(options))]
    return text[:a] + rep + text[b:]


from ev2r.training import edits_more as _more  # noqa: E402 (the further families; it imports nothing from here at load)

#: Families that change what a statement says, with the label of (original, edited) pairs.
CHANGING: dict[str, EditFn] = {"antonym": _antonym, "negation": _negation, "number": _number, "scale": _scale,
                               "sign": _sign, "yesno": _yesno, "entity": _entity, "unit": _unit, "roles": _roles,
                               "hedge": _hedge, "certainty": _more.certainty, "attribution": _more.attribution,
                               "time": _more.time_shift, "quantifier": _more.quantifier,
                               "comparative": _more.comparative}
CHANGE_LABEL = {"antonym": "contradiction", "negation": "contradiction", "number": "contradiction",
                "scale": "contradiction", "sign": "contradiction", "yesno": "contradiction", "entity": "neutral",
                "unit": "neutral", "roles": "neutral", "hedge": "neutral", "certainty": "neutral",
                "attribution": "contradiction", "time": "contradiction", "quantifier": "neutral",
                "comparative": "contradiction"}
#: Families that keep what a statement says.
PRESERVING: dict[str, EditFn] = {"typos": _perturbation("typos"), "contractions": _perturbation("contractions"),
                                 "numbers_to_words": _perturbation("numbers_to_words"),
                                 "words_to_numbers": _perturbation("words_to_numbers"), "articles": _articles,
                                 "number_format": _number_format, "synonym": _synonym,
                                 "abbreviation": _more.abbreviation, "sentence_split": _more.sentence_split,
                                 "coordination": _more.coordination, "date_format": _more.date_format}
#: Changing families that weaken the statement: only (edited premise, original hypothesis) is labelled (neutral); the
#: original entails or may entail its weakened edit ("All staff were paid" -> "Some staff were paid").
PREMISE_ONLY = frozenset({"hedge", "certainty", "quantifier"})
#: The family sets a run may draw on: ``issue63`` (the families ``runs/edits1`` .. ``runs/edits7`` were trained on, the
#: default) and ``all`` (with those of :mod:`ev2r.training.edits_more`).
FAMILY_SETS: dict[str, tuple[str, ...]] = {
    "issue63": ("antonym", "negation", "number", "scale", "sign", "yesno", "entity", "unit", "roles", "hedge",
                "typos", "contractions", "numbers_to_words", "words_to_numbers", "articles", "number_format",
                "synonym"),
    "all": tuple(CHANGING) + tuple(PRESERVING),
}


def family_set(families=None) -> frozenset:
    """The families a generator draws on: ``None`` -> :data:`FAMILY_SETS` ``"issue63"``, a key of
    :data:`FAMILY_SETS` -> its families, else the given family names.

    Raises:
        ValueError: an unknown set or family name, or no family.
    """
    if families is None:
        return frozenset(FAMILY_SETS["issue63"])
    if isinstance(families, str):
        if families not in FAMILY_SETS:
            raise ValueError(f"families: {families!r} not among {sorted(FAMILY_SETS)}")
        return frozenset(FAMILY_SETS[families])
    names = frozenset(families)
    unknown = sorted(names - set(CHANGING) - set(PRESERVING))
    if unknown or not names:
        raise ValueError(f"families: {unknown or 'none'} not among {sorted(CHANGING) + sorted(PRESERVING)}")
    return names


def data_names(statements: Sequence[str]) -> list[str]:
    """Capitalised names (two or three words, not sentence-initial, no month or weekday) in the first 20,000 of
    ``statements``, sorted: the ``entity`` family's replacements when no listed entity occurs."""
    return sorted({m.group(1) for t in statements[:20000] for m in _NAME_RE.finditer(t)
                   if m.start() > 0 and not _NOT_NAMES & set(m.group(1).split())})


def edit_text(family: str, text: str, rng: random.Random, names: Sequence[str] = ()) -> Optional[str]:
    """``text`` edited once by ``family`` (a key of :data:`CHANGING` or :data:`PRESERVING`), or None when the family
    does not apply. ``names`` are capitalised names drawn from the data, used by ``entity`` when no listed entity
    occurs. Deterministic given ``rng``'s state.

    Raises:
        ValueError: an unknown family.
    """
    if family == "entity":
        return _entity(text, rng, names)
    fn = CHANGING.get(family) or PRESERVING.get(family)
    if fn is None:
        raise ValueError(f"family: {family!r} not among {sorted(CHANGING) + sorted(PRESERVING)}")
    return fn(text, rng)


def _qa(text: str, rng: random.Random) -> str:
    from ev2r.training.augment import _as_pair

    return _as_pair(text, rng, share=0.4)


def near_copy_premise(text: str, rng: random.Random) -> str:
    """``text`` as :func:`augment_meaning_edits` lays out a near-copy's premise: as it is, or (40% of the time) the
    answer of a question/answer pair with a generic question."""
    return _qa(text, rng)


def augment_meaning_edits(pairs: Sequence[Pair], rng: random.Random, n: int, change_share: float = 0.6,
                          pair_share: float = 0.0, families=None) -> list[Pair]:
    """Up to ``n`` pairs that teach the verifier to read one-word edits, from the statements of
    ``pairs`` (their premises and hypotheses of 30-300 characters):

    * **near-copy pairs** (half): a statement ``S`` and its edit ``S'``, as (S, S') or (S', S) at random, premise
      sometimes in the question/answer layout (``pair_share`` of them with both sides answers to one question, as
      the verified copy reading compares a pair with its gold pair): a meaning-preserving edit -> entailment; a changing
      one -> the family's :data:`CHANGE_LABEL` (the :data:`PREMISE_ONLY` families' edit only on the premise side);
    * **entailed-hypothesis pairs** (half): an entailment pair of ``pairs`` whose hypothesis is edited by a
      changing family -> its label, when the edited span also occurs in the premise (numbers, names, scale and
      unit words: the premise states what the edit changes), or by a preserving family -> entailment.

    ``change_share`` of the pairs come from changing families (drawn uniformly among those that apply), the rest
    from preserving ones (all from the one side when ``families`` has none of the other). Sources are
    ``edit_keep_<family>`` and ``edit_change_<family>``. ``families``: see :func:`family_set` (default: ``issue63``).

    Raises:
        ValueError: ``n`` < 0, ``change_share`` outside [0, 1], or bad ``families``.
    """
    if n < 0:
        raise ValueError(f"n: {n} must be >= 0")
    for name, share in (("change_share", change_share), ("pair_share", pair_share)):
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"{name}: {share} must be in [0, 1]")
    statements = [t for p in pairs for t in (p.premise, p.hypothesis) if 30 <= len(t) <= 300 and "\n" not in t]
    statements = sorted(set(statements))
    rng.shuffle(statements)
    names = data_names(statements)
    entailed = [p for p in pairs if p.label == "entailment" and len(p.premise) < 700 and 20 <= len(p.hypothesis) < 300]
    rng.shuffle(entailed)
    out: list[Pair] = []
    chosen = family_set(families)
    changing, keeping = sorted(f for f in CHANGING if f in chosen), sorted(f for f in PRESERVING if f in chosen)
    si = ei = 0
    tries = 0
    while len(out) < n and tries < 20 * n + 100:
        tries += 1
        change = rng.random() < change_share
        change = (change or not keeping) and bool(changing)
        family = (changing if change else keeping)[rng.randrange(len(changing if change else keeping))]
        label = CHANGE_LABEL[family] if change else "entailment"
        tag = f"edit_{'change' if change else 'keep'}_{family}"
        if family == "yesno" and statements:
            s = statements[si % len(statements)]
            si += 1
            out.append(_yes_no_pair(s, rng))
            continue
        if rng.random() < 0.5 and statements:
            e = None
            for _ in range(200):  # the next statement the family applies to (sign, scale, unit are rare)
                s = statements[si % len(statements)]
                si += 1
                e = edit_text(family, s, rng, names)
                if e is not None:
                    break
            if e is None:
                continue
            if family != "hedge" and rng.random() < pair_share:  # both sides one question's answers (a near-copy
                q = GENERIC_QUESTIONS[rng.randrange(len(GENERIC_QUESTIONS))]  # of a pair, as the copy check reads it)
                a, b = (e, s) if family in PREMISE_ONLY or rng.random() >= 0.5 else (s, e)
                out.append(Pair(f"Question: {q}\nAnswer: {a}", f"Question: {q}\nAnswer: {b}", label, tag))
            elif family in PREMISE_ONLY or rng.random() < 0.5:
                out.append(Pair(_qa(e, rng), s, label, tag))
            else:
                out.append(Pair(_qa(s, rng), e, label, tag))
        elif entailed:
            p = entailed[ei % len(entailed)]
            ei += 1
            if family in PREMISE_ONLY:
                continue
            e = edit_text(family, p.hypothesis, rng, names)
            if e is None:
                continue
            if change and family not in ("antonym", "negation", "yesno", "sign", "roles"):
                changed = _changed_span(p.hypothesis, e)
                if not changed or changed.lower() not in p.premise.lower():
                    continue
            out.append(Pair(p.premise, e, label if change else p.label, tag))
    return out


_YES_NO_QUESTIONS = ("Is it true that {s}?", "Did the source confirm that {s}?", "Was it reported that {s}?",
                     "Is there evidence that {s}?")


def _yes_no_pair(statement: str, rng: random.Random) -> Pair:
    """A Boolean question/answer premise about ``statement``: answered Yes (-> entailment of the statement), No
    (-> contradiction), or (premise Yes, hypothesis the same pair answered No) -> contradiction."""
    s = statement.strip().rstrip(".!?")
    if s.split()[0] in _LOWER_STARTS:
        s = s[0].lower() + s[1:]
    q = _YES_NO_QUESTIONS[rng.randrange(len(_YES_NO_QUESTIONS))].format(s=s)
    yes = ("Yes.", "Yes, it is.", "Yes.")[rng.randrange(3)]
    no = ("No.", "No, it is not.", "No.")[rng.randrange(3)]
    kind = rng.randrange(3)
    if kind == 0:
        return Pair(f"Question: {q}\nAnswer: {yes}", statement, "entailment", "edit_keep_yesno")
    if kind == 1:
        return Pair(f"Question: {q}\nAnswer: {no}", statement, "contradiction", "edit_change_yesno")
    return Pair(f"Question: {q}\nAnswer: {yes}", f"{q} {no}", "contradiction", "edit_change_yesno")


def _changed_span(a: str, b: str) -> str:
    """The words of ``a`` that the edit ``b`` replaced (common prefix and suffix removed), stripped."""
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    j = 0
    while j < min(len(a), len(b)) - i and a[-1 - j] == b[-1 - j]:
        j += 1
    start = a.rfind(" ", 0, i) + 1
    end = a.find(" ", len(a) - j)
    return a[start:end if end != -1 else len(a)].strip(" .,;:")
