"""Perturbations of what is said: every answer sentence negated, named entities and the claim's
numbers swapped in the evidence (meaning-damaging), and the claim itself reversed with its verdict
flipped (``contrastive_claim``).

The rule-based negation :func:`negate_sentence` serves both the evidence and the claim. The
registry with the declared expectations is :data:`adversarial.perturbations.PERTURBATIONS`.
"""

from __future__ import annotations

import functools
import math
import re
from decimal import Decimal
from types import MappingProxyType
from typing import Mapping

import numpy as np

from claimalign.evidence import Item

from adversarial import resources
from adversarial._text import (
    RNG, WORD_RE, NumberToken, as_generator, find_numbers, format_number, map_sentences, match_case, replace_spans,
    split_sentences,
)
from adversarial.perturbations.base import (
    FIELDS_A, FIELDS_QA, PerturbationResult, field_texts, no_evidence, result_from,
)


_AUX = ("is are was were am has have had will would can could should shall may might must does do did").split()
_AUX_RE = re.compile(r"(?<![\w'])(" + "|".join(_AUX) + r")(?![\w'])"
                     r"|(?<![\w'])(?:it|that|there|here|what|who|he|she|i|you|we|they)['\u2019](?:s|re|m|ve|ll|d)(?![\w'])",
                     re.I)
_NT_FIX = {"won't": "will", "can't": "can", "shan't": "shall", "ain't": "is"}
_NEG_CUES = [
    (re.compile(r"(?<![\w'])cannot(?![\w'])", re.I), lambda m: match_case(m.group(0), "can")),
    (re.compile(r"(?<![\w'])(\w+)n['\u2019]t(?![\w])", re.I),
     lambda m: match_case(m.group(0), _NT_FIX.get(m.group(0).lower().replace("\u2019", "'"), m.group(1)))),
    (re.compile(r"\s+not(?![\w'])", re.I), lambda m: ""),
    (re.compile(r"(?<![\w'])never\s+", re.I), lambda m: ""),
    (re.compile(r"(?<![\w'])no longer(?![\w'])", re.I), lambda m: match_case(m.group(0), "still")),
    (re.compile(r"(?<![\w'])nobody(?![\w'])", re.I), lambda m: match_case(m.group(0), "somebody")),
    (re.compile(r"(?<![\w'])nothing(?![\w'])", re.I), lambda m: match_case(m.group(0), "something")),
    (re.compile(r"(?<![\w'])none(?![\w'])", re.I), lambda m: match_case(m.group(0), "some")),
    (re.compile(r"(?<![\w'])no(?![\w'])(?=\s+\w)", re.I), lambda m: match_case(m.group(0), "some")),
]
_LOWERABLE_STARTS = frozenset("""the a an this that these those there it he she they we you i its his her their our
in on at according as after before during since for from some many most all both each every one
however although while when if yes no""".split())
_UNANSWERABLE_RE = re.compile(r"^\s*no answer could be found", re.I)
_YESNO_RE = re.compile(r"^(\s*)(yes|no)(?![\w'])([.,;:!]*)(.*)$", re.I | re.S)


def negate_sentence(sentence: str) -> str:
    """Negate one sentence by rules: remove the first negation cue if there is one (``not``,
    ``n't``, ``never``, ``no``, ``nothing``, ...), else insert ``not`` after the first auxiliary or
    copula that does not open the sentence (``can`` -> ``cannot``), else prefix ``It is not true
    that``. A leading ``Yes``/``No`` (AVeriTeC Boolean answers) is flipped and the rest negated.

    >>> negate_sentence("The bill was signed in 2019.")
    'The bill was not signed in 2019.'
    >>> negate_sentence("He didn't vote.")
    'He did vote.'
    """
    m = _YESNO_RE.match(sentence)
    if m:
        flipped = match_case(m.group(2), "no" if m.group(2).lower() == "yes" else "yes")
        rest = m.group(4)
        if WORD_RE.search(rest):
            indent = len(rest) - len(rest.lstrip())
            rest = rest[:indent] + negate_sentence(rest[indent:])
        return m.group(1) + flipped + m.group(3) + rest
    if not WORD_RE.search(sentence):
        return sentence
    cue_hits = [(mm.start(), i, mm) for i, (rx, _) in enumerate(_NEG_CUES) for mm in [rx.search(sentence)] if mm]
    if cue_hits:
        _, i, mm = min(cue_hits, key=lambda x: (x[0], x[1]))
        return sentence[:mm.start()] + _NEG_CUES[i][1](mm) + sentence[mm.end():]
    for mm in _AUX_RE.finditer(sentence):
        if mm.group(1) and sentence[:mm.start()].strip() == "":
            continue  # a sentence-initial auxiliary opens a question
        if (mm.group(1) or "").lower() == "can":
            return sentence[:mm.end()] + "not" + sentence[mm.end():]
        return sentence[:mm.end()] + " not" + sentence[mm.end():]
    first = WORD_RE.search(sentence)
    body = sentence.strip()
    if first and first.group(0).lower() in _LOWERABLE_STARTS and first.group(0) != "I":
        body = body[:1].lower() + body[1:]
    lead = sentence[:len(sentence) - len(sentence.lstrip())]
    return f"{lead}It is not true that {body}"


def negate_answers(item: Item, rng: RNG) -> PerturbationResult:
    """Negate every sentence of every answer with :func:`negate_sentence`; questions are kept and
    AVeriTeC's "No answer could be found" answers left alone. Deterministic."""
    skip = no_evidence(item)
    if skip:
        return skip
    texts = field_texts(item, FIELDS_A)
    new = [t if _UNANSWERABLE_RE.match(t) else map_sentences(t, negate_sentence) for t in texts]
    n = sum(a != b for a, b in zip(texts, new))
    return result_from(item, texts, new, FIELDS_A, n, "no answer sentence to negate")


@functools.lru_cache(maxsize=1)
def _entity_index():
    """(regex over every listed name, name -> (type, entry index, form))."""
    lists = resources.entity_lists()
    index: dict[str, tuple[str, int, str]] = {}
    for etype, entries in lists.items():
        for i, e in enumerate(entries):
            index.setdefault(e["name"], (etype, i, "name"))
            if e.get("short"):
                index.setdefault(e["short"], (etype, i, "short"))
    names = sorted(index, key=len, reverse=True)
    rx = re.compile(r"(?<![\w\-])(" + "|".join(re.escape(n) for n in names) + r")(?![\w\-])")
    return rx, index, lists


def entity_index():
    """The shipped entity lists (``adversarial/data/entities.json``) as ``(regex over every listed name, name -> (type,
    entry index, form), lists)``: what :func:`entity_swap` reads, for other edit generators (the verifier's training
    edits, :mod:`ev2r.training.edits`)."""
    return _entity_index()


def same_case(template: str, word: str) -> str:
    """``word`` with the capitalisation of ``template`` (all caps, capitalised, or as is): how this module's edits write
    a replacement word, for other edit generators (:mod:`ev2r.training.edits`)."""
    return match_case(template, word)


def number_tokens(text: str) -> list[NumberToken]:
    """The numbers of ``text`` as :func:`number_change` finds them (value, span, format), in order."""
    return find_numbers(text)


def changed_number_text(tok: NumberToken, rng: RNG) -> str:
    """The number ``tok`` moved as :func:`number_change` moves it (10-50% up or down, years 2-10 years), written in
    its format (separators, decimals, ``$``, ``%`` kept)."""
    return format_number(_changed_number(tok, as_generator(rng)), tok)


def entity_swap(item: Item, rng: RNG) -> PerturbationResult:
    """Replace each listed named entity in the predicted evidence by another entity of the same type
    (person, place, organisation) from the shipped lists (``adversarial/data/entities.json``),
    consistently within the item (``Biden`` and ``Joe Biden`` map to the same person) and never by an
    entity that the claim or either evidence mentions. Matching is case-sensitive, whole words.
    Skips items that mention no listed entity."""
    skip = no_evidence(item)
    if skip:
        return skip
    rx, index, lists = _entity_index()
    texts = field_texts(item, FIELDS_QA)
    all_text = "\n".join([item.claim, item.predicted_evidence.render(), item.reference_evidence.render()])
    present = {index[m.group(1)][:2] for m in rx.finditer(all_text)}
    hits = [(ti, m) for ti, t in enumerate(texts) for m in rx.finditer(t)]
    if not hits:
        return PerturbationResult.skip("no listed named entity in the predicted evidence")
    g = as_generator(rng)
    mapping: dict[tuple[str, int], int] = {}
    used: set[tuple[str, int]] = set(present)
    spans: dict[int, list] = {}
    for ti, m in hits:
        etype, idx, form = index[m.group(1)]
        if (etype, idx) not in mapping:
            free = [j for j in range(len(lists[etype])) if (etype, j) not in used]
            if not free:
                continue
            j = free[int(g.integers(len(free)))]
            mapping[(etype, idx)] = j
            used.add((etype, j))
        rep = lists[etype][mapping[(etype, idx)]]
        new = (rep.get("short") or rep["name"]) if form == "short" else rep["name"]
        spans.setdefault(ti, []).append((m.start(1), m.end(1), new))
    new_texts = [replace_spans(t, spans.get(ti, [])) for ti, t in enumerate(texts)]
    return result_from(item, texts, new_texts, FIELDS_QA, sum(len(v) for v in spans.values()),
                       "no listed named entity in the predicted evidence")


def _changed_number(tok: NumberToken, g: np.random.Generator) -> Decimal:
    """A value at least 10% (and at most 50%) away from ``tok.value`` (years: 2-10 years away)."""
    v = tok.value
    if tok.is_year:
        delta = int(g.integers(2, 11)) * (1 if g.random() < 0.5 else -1)
        return v + delta
    sign = 1 if (g.random() < 0.5 or v == 0) else -1
    frac = Decimal(str(round(float(g.uniform(0.1, 0.5)), 4)))
    if v == 0:
        return Decimal(int(g.integers(1, 10)))
    if tok.is_integer:
        delta = max(math.ceil(abs(v) * Decimal("0.1")), int((abs(v) * frac).to_integral_value()), 1)
        new = v + sign * delta
        return new if new > 0 or v <= 0 else v + delta
    q = Decimal(1).scaleb(-tok.decimals)
    new = (v * (1 + sign * frac)).quantize(q)
    if abs(new - v) < abs(v) * Decimal("0.1"):
        new = (v * (1 + sign * Decimal("0.1"))).quantize(q, rounding="ROUND_UP" if sign > 0 else "ROUND_DOWN")
    return new


def number_change(item: Item, rng: RNG) -> PerturbationResult:
    """Change every number of the predicted evidence whose value also appears (in digits) in the
    claim by 10-50% up or down (integers stay integers; separators, decimals, ``$`` and ``%`` kept;
    the same number changes the same way throughout the item). Years (four digits, 1100-2099) move
    by 2-10 years instead, since a 10% change of a year (2020 -> 1818) is not a plausible error.
    Skips items where no number is shared with the claim."""
    skip = no_evidence(item)
    if skip:
        return skip
    claim_values = {t.value for t in find_numbers(item.claim)}
    if not claim_values:
        return PerturbationResult.skip("the claim has no number")
    g = as_generator(rng)
    texts = field_texts(item, FIELDS_QA)
    changed: dict[str, str] = {}
    new, n = [], 0
    for t in texts:
        spans = []
        for tok in find_numbers(t):
            if tok.value not in claim_values:
                continue
            if tok.text not in changed:
                changed[tok.text] = format_number(_changed_number(tok, g), tok)
            spans.append((tok.start, tok.end, changed[tok.text]))
        n += len(spans)
        new.append(replace_spans(t, spans))
    return result_from(item, texts, new, FIELDS_QA, n, "no number shared with the claim")


def _antonym_table() -> dict[str, str]:
    pairs = [
        ("increase", "decrease"), ("increased", "decreased"), ("increases", "decreases"),
        ("increasing", "decreasing"), ("rise", "fall"), ("rose", "fell"), ("risen", "fallen"), ("rises", "falls"),
        ("rising", "falling"), ("higher", "lower"), ("highest", "lowest"), ("larger", "smaller"),
        ("largest", "smallest"), ("more than", "less than"), ("above", "below"), ("win", "lose"), ("won", "lost"),
        ("wins", "loses"), ("legal", "illegal"), ("true", "false"), ("support", "oppose"), ("supported", "opposed"),
        ("supports", "opposes"), ("approve", "reject"), ("approved", "rejected"), ("allowed", "banned"),
        ("alive", "dead"), ("guilty", "innocent"), ("positive", "negative"), ("majority", "minority"),
        ("maximum", "minimum"), ("best", "worst"), ("better", "worse"), ("before", "after"), ("always", "never"),
        ("gained", "lost"), ("profit", "loss"), ("hired", "fired"), ("accepted", "refused"),
    ]
    table: dict[str, str] = {}
    for a, b in pairs:
        table.setdefault(a, b)
        table.setdefault(b, a)
    return table


#: Word (or phrase) -> its antonym, both ways, for ``contrastive_claim`` (whole words, any case).
ANTONYMS: Mapping[str, str] = MappingProxyType(_antonym_table())
_ANTONYM_RE = re.compile(r"(?<![\w'-])(" + "|".join(re.escape(k).replace(r"\ ", r"\s+")
                                                    for k in sorted(ANTONYMS, key=len, reverse=True)) + r")(?![\w'-])",
                         re.I)
#: The rules of ``contrastive_claim``, in the order they are listed in results.
CONTRAST_RULES = ("negation", "antonym", "number")


def _contrast_candidates(claim: str, supported: bool, g: np.random.Generator) -> tuple[dict[str, str], list[str]]:
    """``{rule: reversed claim}`` for the rules that apply, and why the others do not."""
    out, why = {}, []
    sentences = [s for s, _ in split_sentences(claim) if s.strip()]
    if len(sentences) == 1:
        neg = negate_sentence(claim)
        if neg != claim:
            out["negation"] = neg
    else:
        why.append(f"negation needs a one-sentence claim ({len(sentences)} sentences)")
    if not supported:
        why.append("antonym and number change only reverse a supported claim (a false claim's antonym or another "
                   "number is not thereby true)")
        return out, why
    hits = list(_ANTONYM_RE.finditer(claim))
    if hits:
        m = hits[int(g.integers(len(hits)))]
        key = re.sub(r"\s+", " ", m.group(0).lower())
        out["antonym"] = replace_spans(claim, [(m.start(), m.end(), match_case(m.group(0), ANTONYMS[key]))])
    else:
        why.append("no listed antonym in the claim")
    toks = find_numbers(claim)
    if toks:
        tok = toks[int(g.integers(len(toks)))]
        out["number"] = replace_spans(claim, [(tok.start, tok.end, format_number(_changed_number(tok, g), tok))])
    else:
        why.append("no number in the claim")
    return out, why


def contrastive_claim(item: Item, rng: RNG) -> PerturbationResult:
    """Reverse the meaning of the **claim** by one rule and flip its gold verdict (Supported <->
    Refuted); the evidence is unchanged (FactArena's contrastive claims, arXiv 2601.02669, sec. III-D).

    Rules (one is drawn with ``rng`` among those that apply; :data:`CONTRAST_RULES`):

    * ``negation`` -- :func:`negate_sentence` (a negation cue removed, else ``not`` inserted after
      the first auxiliary, else ``It is not true that ...``); a one-sentence claim only; reverses a
      supported or a refuted claim;
    * ``antonym`` -- one listed word replaced by its antonym (:data:`ANTONYMS`: ``increased`` ->
      ``decreased``, ``legal`` -> ``illegal``, ...);
    * ``number`` -- one number changed by 10-50% (years by 2-10 years), as ``number_change`` does.

    Antonyms and numbers apply to **supported** claims only: they make a true claim false, but the
    antonym of a false claim, or another number in it, is not thereby true. A claim whose gold
    verdict is neither Supported nor Refuted (not enough evidence, conflicting) or missing is
    skipped with the reason. ``human_label`` in ``item.extra`` is flipped the same way when it is
    Supported/Refuted; ``extra`` gains ``contrastive_rule`` and ``original_claim``.

    Declared expectation: the reference-based scores ignore the claim (unchanged); the proxy
    score is P(flipped gold verdict | reversed claim, evidence) and should follow the flip, i.e.
    stay where P(gold | claim, evidence) was.
    """
    from dataclasses import replace as _replace

    from claimalign.evidence import Verdict, normalize_verdict

    flip = {Verdict.SUPPORTED: Verdict.REFUTED, Verdict.REFUTED: Verdict.SUPPORTED}
    if item.gold_label is None:
        return PerturbationResult.skip("no gold verdict")
    if item.gold_label not in flip:
        return PerturbationResult.skip(f"gold verdict {item.gold_label.value!r} is neither supported nor refuted: "
                                       "reversing the claim does not determine the new verdict")
    if not WORD_RE.search(item.claim or ""):
        return PerturbationResult.skip("the claim is empty")
    g = as_generator(rng)
    cands, why = _contrast_candidates(item.claim, item.gold_label == Verdict.SUPPORTED, g)
    if not cands:
        return PerturbationResult.skip("no rule applies: " + "; ".join(why))
    rules = [r for r in CONTRAST_RULES if r in cands]
    rule = rules[int(g.integers(len(rules)))]
    extra = dict(item.extra, contrastive_rule=rule, original_claim=item.claim)
    human = item.extra.get("human_label")
    if human is not None:
        try:
            hv = normalize_verdict(human, field="human_label")
        except ValueError:
            hv = None
        if hv in flip:
            extra["human_label"] = flip[hv].value
    return PerturbationResult(_replace(item, claim=cands[rule], gold_label=flip[item.gold_label], extra=extra), None, 1)


# ----------------------------------------------------------------------------- Czech negation

#: Czech auxiliaries and frequent verbs -> their negated forms (the negative prefix ``ne-`` is written joined;
#: "je" -> "není", "jsou" -> "nejsou").
CZECH_NEGATED_AUX = {"je": "není", "jsou": "nejsou", "byl": "nebyl", "byla": "nebyla", "bylo": "nebylo",
                     "byli": "nebyli", "byly": "nebyly", "bude": "nebude", "budou": "nebudou", "má": "nemá",
                     "mají": "nemají", "měl": "neměl", "měla": "neměla", "mělo": "nemělo", "měli": "neměli",
                     "měly": "neměly", "jsem": "nejsem", "jste": "nejste", "jsme": "nejsme", "může": "nemůže",
                     "mohou": "nemohou", "mohl": "nemohl", "mohla": "nemohla", "mohli": "nemohli"}
_CZ_ALREADY_NEGATED = re.compile(r"(?<!\w)(nikdo|nic|nikdy|žádn\w*|není|nejsou|ani)(?!\w)", re.IGNORECASE)
_CZ_PARTICIPLE = re.compile(r"^[a-zěščřžýáíéúůďťňó]{3,}(l|la|lo|li|ly)$")


def negate_czech(sentence: str) -> str | None:
    """``sentence`` (Czech) with its first verb negated: the first lower-case word that is an auxiliary of
    :data:`CZECH_NEGATED_AUX` ("byla" -> "nebyla", "je" -> "není") or a past participle in -l/-la/-lo/-li/-ly after
    the first word ("zatkla" -> "nezatkla"); None when the sentence already holds a negation (nikdo, nic, nikdy, žádný,
    není, ani, or a ``ne``-word whose stem is a word of the sentence) or no such verb.

    >>> negate_czech("Policie zatkla muže z Náchodska.")
    'Policie nezatkla muže z Náchodska.'
    >>> negate_czech("Žárovka byla vynalezena na konci 19. století."), negate_czech("Nikdo nezemřel.")
    ('Žárovka nebyla vynalezena na konci 19. století.', None)
    """
    tokens = sentence.split(" ")
    words = [t.strip(",.;:!?\"'()").lower() for t in tokens]
    if _CZ_ALREADY_NEGATED.search(sentence) or any(w.startswith("ne") and w[2:] in words for w in words):
        return None
    for i, w in enumerate(words):
        if tokens[i].strip(",.;:!?\"'()") != w:  # capitalised: a sentence start or a name
            continue
        if w in CZECH_NEGATED_AUX:
            tokens[i] = tokens[i].replace(w, CZECH_NEGATED_AUX[w], 1)
            return " ".join(tokens)
        if i > 0 and _CZ_PARTICIPLE.match(w) and not w.startswith("ne"):
            tokens[i] = tokens[i].replace(w, "ne" + w, 1)
            return " ".join(tokens)
    return None
