"""Question/answer pairs -> declarative statements, by rule (the ``rules-v2`` atomic facts).

Ev2R's LLM decomposer (Akhtar et al. 2024, sec. 3.1 and appendix prompt) writes atomic facts as self-contained
declarative sentences ("The total population of Kerala, India is 3,33,87,677 from a 2011 census."), which an NLI
verifier reads far better than a question glued to a fragment. The rules here produce them without a model:

* **wh-questions with a short answer**: the answer takes the question's gap ("What is X?" -> "X is A"; "Who VERB
  ...?" -> "A VERB ..."; "When did X VERB ...?" -> "X VERBed ... in A", do-support turned into the tense);
* **yes/no questions** answered "Yes ..."/"No ...": the affirmed or denied statement, then what the answer adds;
* **lists**: one statement per item; **long answers**: one statement per sentence and clause, a leading
  "It"/"They" resolved to the question's subject;
* anything the rules cannot parse falls back to ``rules-v1``'s "<question> <answer sentence>", so no answer text
  is ever dropped.

Verbs are recognised with two tables generated once from Princeton WordNet 3.0 and shipped in ``ev2r/facts/data/``
(licence ``WORDNET_LICENSE``; ``scripts/make_verb_tables.py`` regenerates and ``--check`` verifies them):
:func:`is_base_verb` and :func:`is_inflected_verb` give what nltk's WordNet reader gives, without nltk, so the
``rules-v2`` facts are the same in every environment.
"""

from __future__ import annotations

import functools
import gzip
import re
from importlib import resources
from typing import Optional

from ev2r.facts.reading import read_text

RULES_V2_ID = "rules-v2"
#: Revision of the rules, written into the signature (``v2-rev``): ``2`` adds the facts that stand
#: alone -- prepositional wh-questions, be-questions without a predicate, dates with a comma as one answer,
#: "Because ..." answers, what someone said, a leading "It" of a wh-question's answer -- and
#: no fact for a bare answer that the yes/no rule does not read.
RULES_V2_REVISION = "2"

_BE = {"is", "are", "was", "were"}
_HAVE = {"has", "have", "had"}
_DO = {"do", "does", "did"}
_MODAL = {"can", "could", "will", "would", "should", "may", "might", "must", "shall"}
_AUX = _BE | _HAVE | _DO | _MODAL
_WH = ("what", "which", "who", "whom", "whose", "when", "where", "why", "how")
_DETERMINERS = {"the", "a", "an", "this", "that", "these", "those", "his", "her", "its", "their", "our", "my",
                "your", "any", "some", "every", "each", "all", "no"}
_PREP_AFTER = {"when": "in", "where": "in"}
_YES = re.compile(r"^\s*(yes|yeah|yep|correct|true)\b[\s,.;:!-]*", re.I)
_NO = re.compile(r"^\s*(no|nope|false|incorrect)\b[\s,.;:!-]*", re.I)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_FINITE = re.compile(r"\b(is|are|was|were|has|have|had|will|would|can|could|did|does|do|said|says|shows?|showed|"
                     r"stated?|reported|found|became|made|announced|claimed|confirmed)\b", re.I)

#: Irregular pasts of common verbs (the regular rule adds -ed).
_IRREGULAR_PAST = dict(pair.split(":") for pair in (
    "be:was have:had do:did say:said make:made go:went get:got give:gave take:took win:won become:became "
    "begin:began come:came find:found know:knew pay:paid see:saw send:sent tell:told think:thought leave:left "
    "lose:lost hold:held build:built buy:bought bring:brought run:ran write:wrote speak:spoke meet:met put:put "
    "cut:cut set:set let:let spend:spent sell:sold stand:stood lead:led fall:fell rise:rose grow:grew keep:kept "
    "read:read mean:meant feel:felt break:broke choose:chose drive:drove eat:ate fight:fought fly:flew "
    "forget:forgot hear:heard hide:hid hit:hit hurt:hurt lay:laid lend:lent ride:rode ring:rang seek:sought "
    "shoot:shot sing:sang sit:sat sleep:slept steal:stole strike:struck swim:swam teach:taught throw:threw "
    "understand:understood wear:wore draw:drew drink:drank forbid:forbade freeze:froze shut:shut spread:spread "
    "cost:cost quit:quit bet:bet catch:caught sink:sank undergo:underwent withdraw:withdrew overcome:overcame").split())

#: The WordNet 3.0 tables in ``ev2r/facts/data/`` (see the module docstring and scripts/make_verb_tables.py).
VERB_LEMMAS_FILE = "wordnet30_verb_lemmas.txt.gz"
VERB_EXCEPTION_FORMS_FILE = "wordnet30_verb_exception_forms.txt"


@functools.lru_cache(maxsize=None)
def _verb_table(name: str) -> frozenset[str]:
    """The words of the bundled table ``ev2r/facts/data/<name>`` (one a line, ``#`` lines are comments).

    Raises:
        FileNotFoundError: the file is not installed (a broken installation), naming it.
    """
    try:
        data = resources.files("ev2r.facts").joinpath("data").joinpath(name).read_bytes()
    except (FileNotFoundError, OSError) as exc:
        raise FileNotFoundError(f"ev2r/facts/data/{name} is missing from the installed ev2r package (the rules-v2 "
                                "verb table; reinstall ev2r or run scripts/make_verb_tables.py)") from exc
    text = (gzip.decompress(data) if name.endswith(".gz") else data).decode("utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


def is_base_verb(word: str) -> bool:
    """True when ``word`` (any case) is the base form of a verb: a WordNet 3.0 verb lemma, the auxiliaries
    (``is``, ``did``, ``can``, ...) and determiners excepted.

    Equal to nltk's ``bool(wn.synsets(w, "v")) and wn.morphy(w, "v") == w`` for ``w = word.lower()``
    (read from the bundled table, see the module docstring).

    >>> is_base_verb("Declare"), is_base_verb("declared"), is_base_verb("did"), is_base_verb("pandemic")
    (True, False, False, False)
    """
    w = word.lower()
    if w in _AUX or w in _DETERMINERS:
        return False
    return w in _verb_table(VERB_LEMMAS_FILE)


def is_inflected_verb(word: str) -> bool:
    """True when ``word`` (any case) is a past form or participle of a verb (``built``, ``banned``):
    it ends in ``-ed``, is an irregular past of :data:`_IRREGULAR_PAST`, or (not ending in ``-s`` /
    ``-ing``) is a form WordNet 3.0's verb exception list maps to another verb lemma and has no noun
    sense (``begun``, ``written``; not ``rung``, which WordNet also knows as a noun).

    Equal to nltk's ``morphy(w, "v") not in (None, w) and not wn.synsets(w, "n")`` for such words
    (read from the bundled table, see the module docstring).

    >>> [is_inflected_verb(w) for w in ("banned", "Written", "began", "rung", "writes", "pen")]
    [True, True, True, False, False, False]
    """
    w = word.lower()
    if w.endswith("ed") or w in _IRREGULAR_PAST.values():
        return True
    if w.endswith(("s", "ing")):
        return False
    return w in _verb_table(VERB_EXCEPTION_FORMS_FILE)


def third_person(verb: str) -> str:
    """``verb`` in the third person singular present (``have`` -> ``has``, ``go`` -> ``goes``)."""
    v = verb.lower()
    if v == "have":
        return "has"
    if v == "be":
        return "is"
    if re.search(r"(s|sh|ch|x|z|o)$", v):
        return verb + "es"
    if re.search(r"[^aeiou]y$", v):
        return verb[:-1] + "ies"
    return verb + "s"


def past_tense(verb: str) -> str:
    """``verb`` in the simple past (irregular table, else -ed with the usual spelling rules)."""
    v = verb.lower()
    if v in _IRREGULAR_PAST:
        return _IRREGULAR_PAST[v]
    if v.endswith("e"):
        return verb + "d"
    if re.search(r"[^aeiou]y$", v):
        return verb[:-1] + "ied"
    if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnprt]", v) and len(v) <= 4:  # stop -> stopped, ban -> banned
        return verb + verb[-1] + "ed"
    return verb + "ed"


def _strip_q(question: str) -> str:
    return re.sub(r"[\s?.!]+$", "", question.strip())


def _sentence(text: str) -> str:
    text = text.strip().rstrip(" ,;:")
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?\"')" else text + "."


def _lower_first(text: str) -> str:
    """Lower-case the first letter unless the first word looks like a name or acronym."""
    m = _WORD.match(text)
    if m and m.group(0).lower() in _DETERMINERS | {"there", "it", "they"} and not m.group(0).isupper():
        return text[0].lower() + text[1:]
    return text


def split_aux_question(question: str) -> Optional[tuple[str, str, str]]:
    """``(aux, subject, rest)`` of an auxiliary-first question (``"Did the WHO declare a pandemic?"`` ->
    ``("did", "the WHO", "declare a pandemic")``), or None when it is not one or cannot be split."""
    q = _strip_q(question)
    words = q.split()
    if len(words) < 3 or words[0].lower() not in _AUX:
        return None
    aux = words[0].lower()
    body = words[1:]
    if aux in _DO or aux in _MODAL or (aux in _HAVE and len(body) > 1):
        # subject ends before the first base-form verb (past participle for have) not right after a determiner
        for i in range(1, len(body)):
            w = re.sub(r"[^A-Za-z'-]", "", body[i])
            prev = body[i - 1].lower()
            if not w or prev in _DETERMINERS or w[0].isupper():
                continue
            if aux in _HAVE:
                ok = is_inflected_verb(w)
            else:
                ok = w.lower() in ("have", "do", "be") or is_base_verb(w)
            if ok:
                return aux, " ".join(body[:i]), " ".join(body[i:])
        return None
    if aux in _BE:
        # subject: a determiner phrase, a run of capitalised words, or one word
        i = 0
        if body[0].lower() in _DETERMINERS:
            i = 1
            while i < len(body) - 1 and not _ends_np(body, i):
                i += 1
            i += 1
        elif body[0][:1].isupper():
            while i < len(body) - 1 and (body[i + 1][:1].isupper() or body[i + 1] in ("of", "'s")):
                i += 1
            i += 1
        else:
            i = 1
        if i >= len(body):
            return None
        return aux, " ".join(body[:i]), " ".join(body[i:])
    return None


_NP_STOP = {"in", "on", "at", "for", "to", "from", "by", "with", "about", "than", "as", "over", "under",
            "responsible", "true", "false", "safe", "legal", "illegal", "correct", "real", "able", "likely",
            "currently", "still", "now", "really", "actually", "being", "going", "not", "more", "less"}


def _ends_np(body: list[str], i: int) -> bool:
    """A determiner phrase ``body[..i]`` ends at ``i`` when the next word starts a predicate."""
    nxt = body[i + 1].lower().strip(",")
    cur = body[i]
    if cur[:1].isupper() and body[i + 1][:1].islower() and nxt not in ("of", "'s", "and", "de", "du"):
        return True  # "the battle of Antietam | one of ..."
    if nxt in _NP_STOP or nxt.endswith("ing") or is_inflected_verb(nxt) or re.match(r"^[\d$€£]", nxt):
        return True
    return False


def _conjugate(aux: str, verb_phrase: str) -> str:
    """Do-support removed: ``("did", "ban masks")`` -> ``"banned masks"``."""
    words = verb_phrase.split(" ", 1)
    verb, tail = words[0], (" " + words[1] if len(words) > 1 else "")
    if aux == "did":
        return past_tense(verb) + tail
    if aux == "does":
        return third_person(verb) + tail
    return verb + tail


def yes_no_statement(question: str, negated: bool) -> Optional[str]:
    """The statement an auxiliary-first question asks about, affirmed or denied; None when the
    question is not auxiliary-first or its subject cannot be found."""
    parts = split_aux_question(question)
    if parts is None:
        return None
    aux, subject, rest = parts
    subject = _lower_first(subject)
    if negated:
        neg = {"can": "cannot", "will": "will not"}.get(aux, f"{aux} not")
        return _sentence(f"{subject} {neg} {rest}")
    if aux in _DO:
        return _sentence(f"{subject} {_conjugate(aux, rest)}")
    return _sentence(f"{subject} {aux} {rest}")


def has_verb(text: str) -> bool:
    """True when ``text`` has a finite verb or participle (auxiliaries, common reporting verbs, or
    a past / participle form WordNet knows)."""
    return bool(_FINITE.search(text)) or any(is_inflected_verb(w) for w in _WORD.findall(text) if w[:1].islower())


def is_fragment(answer: str) -> bool:
    """True when ``answer`` reads as a short answer rather than a sentence (no verb, <= 12 words)."""
    return len(answer.split()) <= 12 and not has_verb(answer)


_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december|"
           "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_DATE = re.compile(rf"(?i)\b(?:(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?"
                   rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTHS})\.?)"
                   r",\s*\d{4}\b")


_DAY_DATE = re.compile(rf"(?i)\b(?:(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b"
                       rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTHS})\b)")


def _be_only(text: str) -> Optional[tuple[str, str, str]]:
    """``("is", "the Eiffel Tower", "")`` for "is the Eiffel Tower": a be-question with no predicate
    after its subject ("Where is the Eiffel Tower?"), which :func:`split_aux_question` leaves out."""
    m = re.match(r"(?i)^(is|are|was|were)\s+(\S.*)$", _strip_q(text))
    return (m.group(1).lower(), m.group(2), "") if m else None


def split_list(answer: str) -> list[str]:
    """Items of a list answer ("A, B and C" / "A; B; C"): each item short (<= 6 words), at least two
    items, all of them words or all of them numbers, and no date written with a comma ("September 17,
    1862" is one answer); otherwise ``[answer]``."""
    a = answer.strip().rstrip(".")
    if _DATE.search(a):  # "September 17, 1862", "17 September, 1862": one date, no list
        return [answer]
    parts = [p.strip() for p in re.split(r"\s*;\s*|,\s+(?:and\s+)?|\s+and\s+", a) if p.strip()]
    lettered = {any(c.isalpha() for c in p) for p in parts}
    if len(parts) >= 2 and all(len(p.split()) <= 6 for p in parts) and not has_verb(a) and len(lettered) == 1:
        return parts
    return [answer]


#: Answer openings that are no name: lower-cased inside a statement ("is about 33 million").
_ANSWER_LOWER = frozenset("about around approximately roughly nearly almost over under more less fewer some only just "
                          "up between the a an in on at since during before after by from until because".split())


def _answer_in_gap(answer: str) -> str:
    a = answer.strip().rstrip(".")
    m = _WORD.match(a)
    if m and m.group(0).lower() in _ANSWER_LOWER and not m.group(0).isupper():
        a = a[0].lower() + a[1:]
    return a


def wh_statement(question: str, answer: str) -> Optional[str]:
    """The statement a wh-question with a short ``answer`` states (the answer in the question's
    gap), or None when no rule applies. A question led by a preposition ("In which city is the Eiffel
    Tower?") puts the answer after it ("The Eiffel Tower is in Paris.")."""
    q = _strip_q(question)
    a = _answer_in_gap(answer)
    m = re.match(r"(?i)^(in|on|at|from|to|for|by|with|during|since|into|under|near)\s+(?:which|what)\s+\w+\s+(.+)$", q)
    if m:
        parts = split_aux_question(m.group(2) + "?") or _be_only(m.group(2))
        if parts:
            aux, subj, rest = parts
            vp = (_conjugate(aux, rest) if aux in _DO else f"{aux} {rest}").strip()
            prep = m.group(1).lower()
            a = re.sub(rf"(?i)^{prep}\s+", "", a)
            return _sentence(f"{_lower_first(subj)} {vp} {prep} {a}")
        return None
    m = re.match(r"(?i)^(what|which|who)\s+(is|are|was|were)\s+(.+)$", q)
    if m:
        return _sentence(f"{_lower_first(m.group(3))} {m.group(2).lower()} {a}")
    m = re.match(r"(?i)^(what|which)\s+(\w+)\s+(is|are|was|were)\s+(.+)$", q)
    if m and not m.group(2).lower() in _AUX:
        return _sentence(f"{_lower_first(m.group(4))} {m.group(3).lower()} {a}")
    m = re.match(r"(?i)^(?:how\s+(?:many|much)|what\s+(?:number|percentage|amount)\s+of)\s+(.+)$", q)
    if m:
        rest = m.group(1)
        aux_m = re.match(r"(?i)^(.*?)\b(did|does|do|is|are|was|were|has|have|had)\s+(.+)$", rest)
        if aux_m and aux_m.group(1).strip():
            noun, aux, clause = aux_m.group(1).strip(), aux_m.group(2).lower(), aux_m.group(3)
            parts = split_aux_question(f"{aux} {clause}?")
            if parts:
                _, subj, vp = parts
                verb = _conjugate(aux, vp) if aux in _DO else f"{aux} {vp}"
                return _sentence(f"{_lower_first(subj)} {verb.split(' ', 1)[0]} {a} {noun}"
                                 + (" " + verb.split(" ", 1)[1] if " " in verb else ""))
            return _sentence(f"{a} {noun} {aux} {clause}")
        parts = split_aux_question(rest + "?") if _looks_like_aux_question(rest) else None
        if parts:  # "How much did the project cost?" -> "the project cost <a>"
            aux, subj, vp = parts
            verb = _conjugate(aux, vp) if aux in _DO else f"{aux} {vp}"
            return _sentence(f"{_lower_first(subj)} {verb} {a}")
        return _sentence(f"{a} {rest}") if not _looks_like_aux_question(rest) else None
    m = re.match(r"(?i)^(who|what)\s+(\w+)\s*(.*)$", q)
    if m and m.group(2).lower() not in _AUX and (m.group(2).lower().endswith(("s", "ed"))
                                                 or m.group(2).lower() in _IRREGULAR_PAST.values()):
        return _sentence(f"{a} {m.group(2)} {m.group(3)}".strip())
    m = re.match(r"(?i)^(?:which|what)\s+\w+\s+(\w+)\s*(.*)$", q)
    if m and m.group(1).lower() not in _AUX and (m.group(1).lower().endswith("ed")
                                                 or m.group(1).lower() in _IRREGULAR_PAST.values()):
        return _sentence(f"{a} {m.group(1)} {m.group(2)}".strip())
    m = re.match(r"(?i)^(when|where|why|how)\s+(.+)$", q)
    if m:
        wh = m.group(1).lower()
        parts = split_aux_question(m.group(2) + "?") or (_be_only(m.group(2)) if wh in ("when", "where") else None)
        if parts:
            aux, subj, rest = parts
            vp = (_conjugate(aux, rest) if aux in _DO else f"{aux} {rest}").strip()
            if wh == "why":
                return _sentence(f"{_lower_first(subj)} {vp} because {a}" if not a.lower().startswith("because")
                                 else f"{_lower_first(subj)} {vp} {a}")
            if wh == "how":
                return _sentence(f"{_lower_first(subj)} {vp} {a}" if not a.lower().startswith("by")
                                 else f"{_lower_first(subj)} {vp} {a}")
            prep = re.match(r"(?i)^(in|on|at|from|since|during|by|around|near|before|after|between|until)\b", a)
            if prep:
                a = a[0].lower() + a[1:]
            lead = "" if prep else ("on " if wh == "when" and _DAY_DATE.search(a) else _PREP_AFTER[wh] + " ")
            return _sentence(f"{_lower_first(subj)} {vp} {lead}{a}")
    return None


#: Answer openings that need the question to be understood ("That it would ...", "It was ...").
_DEPENDENT = re.compile(r"^(that|because|to|by|it|they|he|she|this|these|those|so|which|yes|no)\b", re.I)


#: Answer openings that fill a wh-question's gap as a clause: "Why ...?" + "Because ...", "How ...?" + "By ...".
_GAP_CLAUSE = re.compile(r"(?i)^(because|by)\b")
_REPORTING = ("say", "claim", "state", "announce", "report", "tweet", "write", "argue", "find", "conclude", "reveal",
              "allege", "suggest", "confirm", "deny", "post", "tell")
_REPORTED_PAST = {"say": "said", "write": "wrote", "find": "found", "tell": "told"}


def reported_statement(question: str, answer: str) -> Optional[str]:
    """"What did the minister say?" + "It was a lie." -> "The minister said that it was a lie.": a
    question about what someone said (a reporting verb: say, claim, state, announce, report, ...)
    answered by a sentence; None otherwise. (:func:`qa_to_statements` uses it only for an answer that
    does not stand alone, one led by a pronoun or "that"; "The ministry denied the report." stays as it is.)"""
    m = re.match(rf"(?i)^what\s+(did|does|do|has|have|had)\s+(.+?)\s+({'|'.join(_REPORTING)})$", _strip_q(question))
    if not m or not has_verb(answer) or len(answer.split()) < 3:
        return None
    aux, subj, verb = m.group(1).lower(), m.group(2), m.group(3).lower()
    if aux in _HAVE:
        return None
    said = _REPORTED_PAST.get(verb) or (past_tense(verb) if aux == "did" else third_person(verb))
    if aux != "did" and verb in _REPORTED_PAST:
        said = third_person(verb)
    clause = re.sub(r"^(?:that\s+)", "", answer.strip(), flags=re.I)
    clause = clause[0].lower() + clause[1:] if clause[:1].isupper() and not clause[1:2].isupper() and \
        _WORD.match(clause) and _WORD.match(clause).group(0).lower() in _DETERMINERS | {"it", "they", "he", "she",
                                                                                        "there", "we"} \
        else clause
    return _sentence(f"{_lower_first(subj)} {said} that {clause}")


def wh_subject(question: str) -> Optional[str]:
    """The subject a wh-question is about, for resolving a leading "It"/"They" of its answer: "What is
    Tesla?" -> "Tesla"; "When did the senate pass the bill?" -> "the senate"; None when there is none."""
    q = _strip_q(question)
    m = re.match(r"(?i)^(?:what|who)\s+(?:is|are|was|were)\s+(.+)$", q)
    if m and len(m.group(1).split()) <= 6:
        return m.group(1)
    m = re.match(r"(?i)^(?:when|where|why|how)\s+(.+)$", q)
    if m:
        parts = split_aux_question(m.group(1) + "?")
        if parts:
            return parts[1]
    return None


def _looks_like_aux_question(text: str) -> bool:
    return bool(text) and text.split()[0].lower() in _AUX


def qa_to_statements(question: str, answer_sentences: list[str]) -> list[tuple[str, bool]]:
    """Declarative statements for one question and its answer split into sentences.

    Returns ``[(statement, converted)]``: ``converted`` is False for the rules-v1 fallback
    ("<question> <sentence>"). Every answer sentence contributes at least one statement, except a
    bare one (no content word: "Yes.", "No", "x", a URL; :func:`claimalign.words.is_bare_answer`)
    that the yes/no rule of a polar question does not read: "What is X called?" + "No." states nothing.

    >>> qa_to_statements("What is Joe Biden's sister called?", ["No."])
    []
    >>> qa_to_statements("Did the senate pass the bill?", ["No."])
    [('The senate did not pass the bill.', True)]
    """
    q = question.strip()
    out: list[tuple[str, bool]] = []
    aux_parts = split_aux_question(q) if q else None
    subject = aux_parts[1] if aux_parts else (wh_subject(q) if q else None)
    for k, sent in enumerate(answer_sentences):
        s = sent.strip()
        if not s:
            continue
        if not q:
            out.append((s, False))
            continue
        if k == 0 and aux_parts is not None:
            m = _YES.match(s) or _NO.match(s)
            if m:
                stmt = yes_no_statement(q, negated=bool(_NO.match(s)))
                rest = s[m.end():].strip()
                if stmt:
                    if rest and is_fragment(rest):  # "Yes, on 11 March 2020." qualifies the statement
                        stmt = f"{stmt[:-1]}, {rest[0].lower() + rest[1:] if not rest[:2].isupper() else rest}"
                        stmt = _sentence(stmt)
                        rest = ""
                    out.append((stmt, True))
                    if rest:
                        out.extend(_clauses(rest, subject) if has_verb(rest) else [(f"{q} {rest}", False)])
                    continue
        if read_text(s).bare:  # no yes/no statement was made of it: it states nothing
            continue
        if k == 0 and not _looks_like_aux_question(q) and is_fragment(s):
            items = split_list(s)
            stmts = [wh_statement(q, it) for it in items]
            if all(stmts):
                out.extend((st, True) for st in stmts)  # type: ignore[misc]
                continue
        if k == 0 and not _looks_like_aux_question(q):
            stmt = (reported_statement(q, s) if _DEPENDENT.match(s) else None) or \
                (wh_statement(q, s) if _GAP_CLAUSE.match(s) else None)
            if stmt:  # "What did X say?" + a sentence; "Why ...?" + "Because ..."
                out.append((stmt, True))
                continue
        if len(s.split()) >= 5 and has_verb(s) and (subject or not _DEPENDENT.match(s)):
            out.extend(_clauses(s, subject))
            continue
        out.append((f"{q} {s}", False))
    return out


def _clauses(sentence: str, subject: Optional[str]) -> list[tuple[str, bool]]:
    """A full sentence split at ";" and ", but"; a leading "It"/"They" resolved to ``subject``."""
    parts = [p for p in re.split(r"\s*;\s*|,\s+but\s+", sentence) if len(p.split()) >= 3]
    if not parts:
        parts = [sentence]
    out = []
    for p in parts:
        if subject and re.match(r"^(It|They)\b", p):
            p = subject[0].upper() + subject[1:] + p[p.index(" "):]
        out.append((_sentence(p), True))
    return out
