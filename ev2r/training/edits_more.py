"""Edit families beyond the base set of :mod:`ev2r.training.edits`, each a pure function
``(text, rng) -> edited text or None`` (None when it does not apply), registered in
:data:`ev2r.training.edits.CHANGING` / :data:`~ev2r.training.edits.PRESERVING` and used only when a run asks for
them (``--aug-edit-families all``), so the recorded runs' options still build their pools.

Meaning changes (the label of a pair whose *other* side states the original): ``certainty`` ("confirmed" ->
"suggested", "will" -> "may"; neutral), ``attribution`` ("said" -> "denied"; contradiction), ``time`` (another
month, "before" <-> "after", "early 2020" <-> "late 2020"; contradiction), ``quantifier`` ("all" -> "some";
neutral) and ``comparative`` ("more" <-> "less", "the largest" <-> "the smallest"; contradiction). ``certainty``
and ``quantifier`` weaken what is said, so only the weakened statement as the premise is neutral ("All staff were
paid" entails "Some staff were paid"): they are premise-only (:data:`ev2r.training.edits.PREMISE_ONLY`).

Meaning kept (label kept): ``abbreviation`` ("US" <-> "United States"), ``sentence_split`` (a sentence cut in two at
"; " or ", and" / ", but" before a new clause), ``coordination`` ("France and Germany" -> "Germany and France"),
``date_format`` ("12 March 2020" <-> "March 12, 2020" <-> "2020-03-12").

All tables are hand-written here from general English (no evaluation data was read to write them).
"""

from __future__ import annotations

import functools
import random
import re
from typing import Optional

__all__ = ["certainty", "attribution", "time_shift", "quantifier", "comparative", "abbreviation", "sentence_split",
           "coordination", "date_format", "ABBREVIATIONS", "MONTHS"]


def _case(template: str, word: str) -> str:
    from adversarial.perturbations.meaning import same_case

    return same_case(template, word)


def _pick(hits: list, rng: random.Random):
    return hits[rng.randrange(len(hits))] if hits else None


def _replace(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


# ---------------------------------------------------------------- certainty and modality (premise side only)

_HEDGED = re.compile(r"(?<![\w'])(?:may|might|could|possibly|possible|perhaps|probably|reportedly|allegedly|apparently|"
                     r"rumou?red|suggest(?:s|ed)?|unconfirmed|likely|unclear|whether)(?![\w'])", re.I)
_NEGATED = re.compile(r"(?<![\w'])(?:not|never|no|cannot)(?![\w'])|n't(?![\w'])", re.I)
#: Certain words and what they become when the claim is uncertain.
_CERTAIN_WORDS = {"confirmed": "suggested", "confirms": "suggests", "proved": "suggested", "proves": "suggests",
                  "showed": "suggested", "shows": "suggests", "demonstrated": "suggested",
                  "demonstrates": "suggests", "established": "suggested", "definitely": "possibly",
                  "certainly": "possibly", "clearly": "possibly", "undoubtedly": "possibly", "will": "may"}
_CERTAIN_RE = re.compile(r"(?<![\w'-])(" + "|".join(_CERTAIN_WORDS) + r")(?![\w'-])", re.I)
_ADVERB_RE = re.compile(r"(?<![\w'-])(?:definitely|certainly|clearly|undoubtedly)(?![\w'-])", re.I)
_PASSIVE_CONFIRMED = re.compile(r"(?<![\w'])(was|were|has been|have been) (confirmed)(?![\w'])", re.I)
#: A finite "to be" (or "has"/"have") after a subject, not before a negation, "to" or a comma.
_BE_RE = re.compile(r"(?<=\w )(was|were|is|are|has|have)(?![\w'])(?! not\b| to\b|,)", re.I)
_BE_HEDGED = {"was": "might have been", "were": "might have been", "is": "may be", "are": "may be",
              "has": "may have", "have": "may have"}


def certainty(text: str, rng: random.Random) -> Optional[str]:
    """A certain statement made uncertain (modality): "It was confirmed that ..." -> "It was rumoured that ...",
    "The study showed ..." -> "The study suggested ...", "He was arrested." -> "He might have been arrested.",
    "She will resign." -> "She may resign.". None for a statement already hedged or negated, or with none of those
    words. Premise side only: the uncertain statement does not entail the certain one (neutral)."""
    if _HEDGED.search(text) or _NEGATED.search(text):
        return None
    options: list[tuple[int, int, str]] = []
    for m in _PASSIVE_CONFIRMED.finditer(text):
        options.append((m.start(2), m.end(2), _case(m.group(2), "rumoured")))
    passive = {m.start(2) for m in _PASSIVE_CONFIRMED.finditer(text)}
    for m in _CERTAIN_RE.finditer(text):
        if m.start() in passive or (m.group(1).lower() == "will" and m.start() == 0):
            continue
        options.append((m.start(), m.end(), _case(m.group(1), _CERTAIN_WORDS[m.group(1).lower()])))
    if not _ADVERB_RE.search(text):  # "is definitely safe" -> "is possibly safe", never "may be definitely safe"
        for m in _BE_RE.finditer(text):
            options.append((m.start(), m.end(), _case(m.group(1), _BE_HEDGED[m.group(1).lower()])))
    hit = _pick(options, rng)
    return None if hit is None else _replace(text, *hit)


# ---------------------------------------------------------------- attribution

_SAY_TO_DENY = {"said": "denied", "says": "denies", "stated": "denied", "claimed": "denied", "confirmed": "denied",
                "confirms": "denies", "announced": "denied",
                "insisted": "denied", "insists": "denies", "acknowledged": "denied", "acknowledges": "denies",
                "admitted": "denied", "admits": "denies", "maintained": "denied", "maintains": "denies",
                "denied": "confirmed", "denies": "confirms"}
#: A reporting verb followed by "that", a clause, a quotation or the end of a reporting tag (", officials said.").
_SAY_RE = re.compile(r"(?<![\w'-])(" + "|".join(_SAY_TO_DENY) + r")(?![\w'-])"
                     r"(?=\s+that\b|\s*[.,;:]|\s+[\"\u201c]"
                     r"|\s+(?:the|a|an|he|she|they|it|we|there|his|her|their|its)\b)")
_NOT_A_VERB_BEFORE = re.compile(r"(?:\b(?:the|a|an|as|its|his|her|their|these|those|such|previously|above|"
                                r"aforementioned)\s+)$", re.I)


def attribution(text: str, rng: random.Random) -> Optional[str]:
    """What a source said turned into its denial, or a denial into a confirmation: "The minister said that taxes
    would rise." -> "The minister denied that taxes would rise."; "Police denied the report." -> "Police confirmed
    the report.". Only a reporting verb followed by "that", a clause, a quotation or the end of its tag ("...,
    officials said."), in lower case (never "United States"), never "the said", "as stated", "said to" nor a passive
    "confirmed" ("cases were confirmed" is a diagnosis, not a source's word). Contradiction."""
    hits = [m for m in _SAY_RE.finditer(text) if not _NOT_A_VERB_BEFORE.search(text[:m.start()])
            and not _NEGATED.search(text[max(0, m.start() - 12):m.start()])
            and not (m.group(1) == "confirmed" and re.search(r"\b(?:was|were|been|be|is|are)\s+$", text[:m.start()]))]
    m = _pick(hits, rng)
    return None if m is None else _replace(text, m.start(), m.end(),
                                           _case(m.group(1), _SAY_TO_DENY[m.group(1).lower()]))


# ---------------------------------------------------------------- time

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTH_RE = re.compile(r"(?<![\w-])(" + "|".join(MONTHS) + r")(?![\w-])")
_WEEKDAY_RE = re.compile(r"(?<![\w-])(" + "|".join(_WEEKDAYS) + r")(?![\w-])")
_TIME_SWAPS = {"before": "after", "after": "before", "earlier": "later", "later": "earlier",
               "yesterday": "tomorrow", "tomorrow": "yesterday", "since": "until", "until": "since"}
_TIME_WORD_RE = re.compile(r"(?<![\w'-])(" + "|".join(_TIME_SWAPS) + r")(?![\w'-])(?!\s+(?:all|that|this)\b)", re.I)
_LAST_NEXT_RE = re.compile(r"(?<![\w'-])(last|next|past|coming)(?=\s+(?:year|month|week|decade|summer|winter|spring|"
                           r"autumn|season|weekend|day|two|three|few|several)\b)", re.I)
_LAST_NEXT = {"last": "next", "next": "last", "past": "next", "coming": "past"}
_EARLY_LATE_RE = re.compile(r"(?<![\w'-])(early|late|mid)(?=[\s-]+(?:\d{4}|" + "|".join(MONTHS) + r")\b)", re.I)


def _month_ok(text: str, m: re.Match) -> bool:
    """A month name used as a month ("May" only before a number or after "in"/"of"/"since"/a number)."""
    if m.group(1) != "May":
        return True
    return bool(re.match(r"\s+\d", text[m.end():]) or re.search(r"(?:\b(?:in|of|since|until|by|early|late|mid)|\d)\s+$",
                                                                 text[:m.start()]))


def time_shift(text: str, rng: random.Random) -> Optional[str]:
    """A time moved: a month (at least two months away) or weekday replaced, "before" <-> "after", "earlier" <->
    "later", "yesterday" <-> "tomorrow", "since" <-> "until", "last" <-> "next" (before year, month, week ...),
    "early" <-> "late" (before a year or month). Contradiction."""
    options: list[tuple[int, int, str]] = []
    for m in _MONTH_RE.finditer(text):
        if _month_ok(text, m):
            i = MONTHS.index(m.group(1))
            j = (i + 2 + rng.randrange(9)) % 12  # 2 to 10 months away
            options.append((m.start(), m.end(), MONTHS[j]))
    for m in _WEEKDAY_RE.finditer(text):
        i = _WEEKDAYS.index(m.group(1))
        options.append((m.start(), m.end(), _WEEKDAYS[(i + 1 + rng.randrange(6)) % 7]))
    for m in _TIME_WORD_RE.finditer(text):
        options.append((m.start(), m.end(), _case(m.group(1), _TIME_SWAPS[m.group(1).lower()])))
    for m in _LAST_NEXT_RE.finditer(text):
        options.append((m.start(), m.end(), _case(m.group(1), _LAST_NEXT[m.group(1).lower()])))
    for m in _EARLY_LATE_RE.finditer(text):
        new = {"early": "late", "late": "early", "mid": ("early", "late")[rng.randrange(2)]}[m.group(1).lower()]
        options.append((m.start(), m.end(), _case(m.group(1), new)))
    hit = _pick(options, rng)
    return None if hit is None else _replace(text, *hit)


# ---------------------------------------------------------------- quantifiers (premise side only)

_WEAKER = {"all": "some", "every": "some", "everyone": "someone", "everybody": "somebody", "everything": "something",
           "always": "sometimes", "entirely": "partly", "completely": "partly", "fully": "partly", "most of": "some of",
           "many": "some", "the majority of": "some of", "universally": "partly", "wholly": "partly"}
_QUANT_RE = re.compile(r"(?<![\w'-])(" + "|".join(sorted(_WEAKER, key=len, reverse=True)) + r")(?![\w'-])", re.I)
#: "all" and "most" where they are no quantifier over the sentence's subject or object.
_QUANT_SKIP_AFTER = re.compile(r"^\s+(?:but|over|along|of a sudden|the same|right|too|-time|time\b|in all|other)\b",
                               re.I)
_QUANT_SKIP_BEFORE = re.compile(r"(?:\b(?:at|after|above|for once and|once and for|not|the|of|in|how|so|too|as)\s+)$",
                                re.I)
#: Quantifiers that must come before what they quantify ("all the", "most people"; not "lost it all.").
_QUANT_DETERMINERS = frozenset(("all", "every", "most of", "many", "the majority of"))


def quantifier(text: str, rng: random.Random) -> Optional[str]:
    """A quantifier weakened: "all" -> "some", "every" -> "some", "everyone" -> "someone", "always" -> "sometimes",
    "most of" / "many" -> "some (of)", "completely" -> "partly". Not in idioms ("at all", "after all", "all but",
    "every other", "how many"), in a capitalised name, nor in a negated statement ("most" alone is left to
    ``comparative``: "most popular" is a superlative). Premise side only: the weaker statement does not entail the
    stronger one (neutral), while the stronger one entails the weaker."""
    if _NEGATED.search(text):
        return None
    hits = [m for m in _QUANT_RE.finditer(text) if not _QUANT_SKIP_AFTER.match(text[m.end():])
            and not _QUANT_SKIP_BEFORE.search(text[:m.start()])
            and (m.group(1).lower() not in _QUANT_DETERMINERS or re.match(r"\s+[\w$]", text[m.end():]))
            and (m.start() == 0 or not m.group(1)[:1].isupper())]  # "Most Valuable Player" is a name
    m = _pick(hits, rng)
    return None if m is None else _replace(text, m.start(), m.end(), _case(m.group(1), _WEAKER[m.group(1).lower()]))


# ---------------------------------------------------------------- comparatives

_COMPARE = {"more": "less", "less": "more", "fewer": "more", "higher": "lower", "lower": "higher", "greater": "smaller",
            "larger": "smaller", "smaller": "larger", "bigger": "smaller", "better": "worse", "worse": "better",
            "older": "younger", "younger": "older", "faster": "slower", "slower": "faster", "stronger": "weaker",
            "weaker": "stronger", "richer": "poorer", "poorer": "richer", "longer": "shorter", "shorter": "longer",
            "above": "below", "below": "above", "most": "least", "least": "most", "highest": "lowest",
            "lowest": "highest", "largest": "smallest", "smallest": "largest", "biggest": "smallest",
            "best": "worst", "worst": "best", "oldest": "youngest", "youngest": "oldest"}
_SUPERLATIVE = frozenset("most least highest lowest largest smallest biggest best worst oldest youngest".split())
_COMPARE_RE = re.compile(r"(?<![\w'-])(" + "|".join(_COMPARE) + r")(?![\w'-])", re.I)
_COMPARE_SKIP_BEFORE = re.compile(r"(?:\b(?:no|not|any|once|the|what's|what is|to|or)\s+)$", re.I)
_COMPARE_SKIP_AFTER = re.compile(r"^\s+(?:or less|or more|and more|and less|and fewer|often|likely|recently|"
                                 r"than ever|importantly|known|of all)\b", re.I)


def comparative(text: str, rng: random.Random) -> Optional[str]:
    """A comparison reversed: "more" <-> "less", "higher" <-> "lower", "larger" <-> "smaller", "above" <->
    "below" (before a number or an average), "older" <-> "younger"; a superlative only after "the" ("the largest"
    -> "the smallest"). Not in "more or less", "no more", "the more", "to lower", "more likely", "more recently",
    "most of all". Contradiction."""
    hits = []
    for m in _COMPARE_RE.finditer(text):
        word = m.group(1).lower()
        before = text[:m.start()]
        if _COMPARE_SKIP_AFTER.match(text[m.end():]):
            continue
        if word in _SUPERLATIVE:
            if not re.search(r"\bthe\s+$", before, re.I) or (word in ("most", "least") and
                                                           not re.match(r"\s+[a-z]{3,}", text[m.end():])):
                continue
        elif _COMPARE_SKIP_BEFORE.search(before):
            continue
        elif word in ("above", "below") and not re.match(r"\s+(?:\d|\$|average|the\s+\w+\s+(?:average|level|rate))",
                                                          text[m.end():]):
            continue  # "as noted above" is no comparison
        hits.append(m)
    m = _pick(hits, rng)
    return None if m is None else _replace(text, m.start(), m.end(), _case(m.group(1), _COMPARE[m.group(1).lower()]))


# ---------------------------------------------------------------- abbreviations (meaning kept)

#: Abbreviation -> the name it stands for (its usual English expansion).
ABBREVIATIONS = {"US": "United States", "U.S.": "United States", "USA": "United States of America",
                 "UK": "United Kingdom", "UN": "United Nations", "EU": "European Union",
                 "WHO": "World Health Organization", "CDC": "Centers for Disease Control and Prevention",
                 "FBI": "Federal Bureau of Investigation", "CIA": "Central Intelligence Agency",
                 "NASA": "National Aeronautics and Space Administration", "GDP": "gross domestic product",
                 "NATO": "North Atlantic Treaty Organization", "IMF": "International Monetary Fund",
                 "NHS": "National Health Service", "UAE": "United Arab Emirates", "NYC": "New York City",
                 "BBC": "British Broadcasting Corporation", "EPA": "Environmental Protection Agency",
                 "FDA": "Food and Drug Administration", "NFL": "National Football League",
                 "NBA": "National Basketball Association", "ECB": "European Central Bank",
                 "IRS": "Internal Revenue Service", "DOJ": "Department of Justice",
                 "NGO": "non-governmental organisation", "CEO": "chief executive officer", "MP": "Member of Parliament",
                 "PM": "Prime Minister",
                 "ICC": "International Criminal Court", "WTO": "World Trade Organization", "AU": "African Union"}
_SHORT_RE = re.compile(r"(?<![\w.$-])(" + "|".join(re.escape(k) for k in sorted(ABBREVIATIONS, key=len, reverse=True))
                       + r")(?![\w$]|-\w)(?!\.\w)")
_LONG = {}
for _k, _v in ABBREVIATIONS.items():
    _LONG.setdefault(_v, _k)  # "United States" -> "US" (the first listed)
_LONG_RE = re.compile(r"(?<![\w-])(" + "|".join(re.escape(v) for v in sorted(_LONG, key=len, reverse=True))
                      + r")(?![\w-])")


def abbreviation(text: str, rng: random.Random) -> Optional[str]:
    """An abbreviation spelled out or a name abbreviated, meaning kept: "the US economy" -> "the United States
    economy", "the World Health Organization said" -> "the WHO said". Case-sensitive ("us" is no abbreviation);
    never in a shouted (mostly upper-case) text, before "$" or inside a hyphenated word."""
    letters = [c for c in text if c.isalpha()]
    if letters and sum(c.isupper() for c in letters) > 0.5 * len(letters):
        return None
    options = [(m.start(), m.end(), ABBREVIATIONS[m.group(1)]) for m in _SHORT_RE.finditer(text)
               if not (m.group(1) == "PM" and re.search(r"\d\s*$", text[:m.start()]))]  # "5 PM" is a time
    options += [(m.start(), m.end(), _LONG[m.group(1)]) for m in _LONG_RE.finditer(text)]
    hit = _pick(options, rng)
    if hit is None:
        return None
    start, end, new = hit
    if text[end - 1] == "." and re.match(r"\s*$|\s+[A-Z]", text[end:]):  # "in the U.S." ends its sentence
        new += "."
    out = _replace(text, start, end, new)
    return out[:1].upper() + out[1:] if start == 0 else out


# ---------------------------------------------------------------- a sentence split in two (meaning kept)

_CLAUSE_START = r"(?:the|he|she|it|they|we|this|that|these|those|his|her|its|their|there|a|an|[A-Z][a-z]+)\b"
#: A finite verb near the start of the second half: an auxiliary, or a past form.
_FINITE = re.compile(r"(?<![\w'])(?:is|are|was|were|has|have|had|will|would|can|could|did|does|do|may|might|must|"
                     r"should|[a-z]{3,}ed)(?![\w'])")
_SPLIT_RE = re.compile(r"(;\s+|,\s+(?:and|but)\s+|\s+and\s+(?=(?:he|she|they|it|we)\s))(?=" + _CLAUSE_START + r")")


def sentence_split(text: str, rng: random.Random) -> Optional[str]:
    """One sentence cut in two, meaning kept: at "; ", or at ", and" / ", but" before a new clause (no earlier comma,
    so never inside a list "A, B, and the C"), or at " and " before a pronoun subject: "The bill passed in March,
    and the governor signed it in April." -> "The bill passed in March. The governor signed it in April."
    Both halves keep at least three words, and the second has a finite verb among its first seven."""
    options = []
    for m in _SPLIT_RE.finditer(text):
        left, right = text[:m.start()], text[m.end():]
        if len(left.split()) < 3 or len(right.split()) < 3 or not _FINITE.search(" ".join(right.split()[:7])):
            continue  # "..., and the sixtieth overall." is no clause of its own
        if "," in left and m.group(1).lstrip().startswith(","):
            continue
        joint = m.group(1).strip(" ,;")
        head = "But " if joint == "but" else ""
        first = right[:1].upper() + right[1:] if not head else right
        options.append(left.rstrip(" ,;") + ". " + head + first)
    return _pick(options, rng)


# ---------------------------------------------------------------- coordination reordered (meaning kept)

@functools.lru_cache(maxsize=1)
def _entities():
    from adversarial.perturbations.meaning import entity_index

    return entity_index()


@functools.lru_cache(maxsize=1)
def _noun_only():
    """Whether a lowercase word is a WordNet noun and no verb (None without WordNet)."""
    try:
        from adversarial import resources

        wn = resources.wordnet()
    except Exception:  # noqa: BLE001 - WordNet is optional: the lowercase-noun case does not apply
        return None

    def check(w: str) -> bool:
        return bool(wn.synsets(w, pos="n")) and not wn.synsets(w, pos="v") and not wn.synsets(w, pos="a")
    return check


#: Words that may follow a whole noun phrase (prepositions, conjunctions, auxiliaries, wh-words).
_AFTER_NP = frozenset("""of in on at to for with by from about across into onto over under through during after before
since until than as and or but nor so that which who whom whose where when while because if is are was were be been
has have had will would can could may might must should do does did said says""".split())


def _modifier(word: str) -> bool:
    """Whether ``word`` before a noun may modify it (a WordNet adjective, or a noun-only word: "desert canyons")."""
    check = _noun_only()
    if check is None or not word.islower():
        return False
    from adversarial import resources

    wn = resources.wordnet()
    return bool(wn.synsets(word, pos="a") or wn.synsets(word, pos="s")) or check(word)


_LEADING_WORDS = frozenset("In On At By For From With And But Both Between To As Since After Before During".split())
_COORD_WORDS = re.compile(r"(?<![\w'-])([a-z]{3,})\s+(and|or)\s+([a-z]{3,})(?![\w'-])")


def coordination(text: str, rng: random.Random) -> Optional[str]:
    """Two coordinated items swapped, meaning kept: two listed named entities ("France and Germany" -> "Germany and
    France", a "the" travelling with its name), or two lowercase words that WordNet knows only as nouns ("health and
    education" -> "education and health") with no modifier before the first nor a noun after the second (a compound
    such as "positional awareness and goal scoring" is left alone). Never with "respectively", after "between" or
    "from", nor when an item continues a longer name ("Bank of America and ...")."""
    if re.search(r"\brespectively\b", text, re.I):
        return None
    rx, _, _ = _entities()
    ents = list(rx.finditer(text))
    options: list[tuple[int, int, str]] = []
    for a, b in zip(ents, ents[1:]):
        m = re.fullmatch(r"\s+(and|or)\s+(the\s+)?", text[a.end(1):b.start(1)])
        if m is None or a.group(1) == b.group(1):
            continue
        the_a = re.search(r"(?<![\w'-])([Tt]he)\s+$", text[:a.start(1)])
        start = the_a.start(1) if the_a else a.start(1)
        prev = re.search(r"(\S+)\s+$", text[:start])
        if prev and (prev.group(1).lower() in ("of", "for", "between", "from", "de", "and", "&")
                     or prev.group(1)[:1].isupper() and prev.group(1) not in _LEADING_WORDS):
            continue  # the item continues a longer name, or the order is a range
        if re.match(r"\s+(?:of|for|&)\b|\s+[A-Z][a-z]", text[b.end(1):]):
            continue
        item_a, item_b = text[start:a.end(1)], (m.group(2) or "") + b.group(1)
        if start == 0:
            item_b = item_b[:1].upper() + item_b[1:]
            item_a = item_a[:1].lower() + item_a[1:] if the_a else item_a
        options.append((start, b.end(1), f"{item_b} {m.group(1)} {item_a}"))
    check = _noun_only()
    if check is not None:
        for m in _COORD_WORDS.finditer(text):
            x, conj, y = m.group(1), m.group(2), m.group(3)
            if x == y or re.search(r"\b(?:between|from)\s+(?:the\s+)?$", text[:m.start()], re.I):
                continue
            prev = re.search(r"([A-Za-z]+)\s+$", text[:m.start()])
            after = re.match(r"\s*([A-Za-z]+|\S?)", text[m.end():]).group(1)
            if prev and _modifier(prev.group(1)):
                continue  # "positional awareness and goal": the modifier would move to the other item
            if after.isalpha() and after.lower() not in _AFTER_NP:
                continue  # "goal scoring ability": the second item is a modifier itself
            if check(x) and check(y):
                options.append((m.start(), m.end(), f"{y} {conj} {x}"))
    hit = _pick(options, rng)
    return None if hit is None else _replace(text, *hit)


# ---------------------------------------------------------------- dates in other formats (meaning kept)

_MON = "|".join(MONTHS)
_DMY_RE = re.compile(r"(?<![\w-])(\d{1,2})(?:st|nd|rd|th)?\s+(" + _MON + r"),?\s+(\d{4})(?![\w-])")
_MDY_RE = re.compile(r"(?<![\w-])(" + _MON + r")\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})(?![\w-])")
_ISO_RE = re.compile(r"(?<![\w-])(\d{4})-(\d{2})-(\d{2})(?![\w-])")


def date_format(text: str, rng: random.Random) -> Optional[str]:
    """A full date written in another format, meaning kept: "12 March 2020" / "March 12, 2020" / "2020-03-12" (and
    "12th March 2020") -> one of the other two. Only valid days (1-31) and months; numeric dates with slashes are
    left alone (12/03 is March in one country and December in another)."""
    options: list[tuple[int, int, int, int, int]] = []  # start, end, year, month, day
    for m in _DMY_RE.finditer(text):
        options.append((m.start(), m.end(), int(m.group(3)), MONTHS.index(m.group(2)) + 1, int(m.group(1))))
    for m in _MDY_RE.finditer(text):
        options.append((m.start(), m.end(), int(m.group(3)), MONTHS.index(m.group(1)) + 1, int(m.group(2))))
    for m in _ISO_RE.finditer(text):
        options.append((m.start(), m.end(), int(m.group(1)), int(m.group(2)), int(m.group(3))))
    options = [o for o in options if 1 <= o[3] <= 12 and 1 <= o[4] <= 31 and 1000 <= o[2] <= 2999]
    hit = _pick(options, rng)
    if hit is None:
        return None
    start, end, y, mo, d = hit
    formats = [f"{d} {MONTHS[mo - 1]} {y}", f"{MONTHS[mo - 1]} {d}, {y}", f"{y:04d}-{mo:02d}-{d:02d}"]
    old = text[start:end]
    kind = 2 if "-" in old else 0 if old[:1].isdigit() else 1  # the format the text uses
    choices = [f for i, f in enumerate(formats) if i != kind]
    return text[:start] + choices[rng.randrange(len(choices))] + text[end:]
