"""Rule-based augmentation of the training pool: negated hypotheses, negated premises, and
label-preserving variants made by the meaning-preserving perturbations of :mod:`adversarial`.
Every function is a pure function of its input pairs and the ``rng`` it is given."""

from __future__ import annotations

import random
import re
from typing import Collection, Optional, Sequence

from ev2r.training.data import Pair

__all__ = ["negate", "augment_negation", "augment_negated_premise", "INVARIANT_PERTURBATIONS", "augment_invariant",
           "DENIAL_TEMPLATES", "ASSERTION_TEMPLATES", "shuffle_words_text", "augment_structure",
           "augment_structure_reverse", "denial_grammar", "HEDGE_TEMPLATES", "ASSERTION_TEMPLATES_MORE",
           "augment_denial", "CLAIM_QUESTIONS", "QA_LAYOUT_KINDS", "wh_echo", "augment_qa_layout"]

_AUX = re.compile(
    r"\b(is|are|was|were|has|have|had|can|will|would|should|could|does|do|did)\b(?! not\b)(?!n't)",
    re.IGNORECASE,
)


def negate(sentence: str) -> str | None:
    """Insert "not" after the first auxiliary verb; None when the sentence has none or is
    already negated. Used only for training-data augmentation."""
    if re.search(r"\b(not|no|never|n't|none|nobody)\b", sentence, re.IGNORECASE):
        return None
    match = _AUX.search(sentence)
    if match is None:
        return None
    return sentence[: match.end()] + " not" + sentence[match.end():]


def augment_negation(pairs: Sequence[Pair], rng: random.Random, n_entail: int, n_neutral: int) -> list[Pair]:
    """Negated-hypothesis pairs: entailment -> contradiction; neutral stays neutral (a premise
    that says nothing about X says nothing about not-X either), so "not" alone is no cue."""
    out: list[Pair] = []
    for wanted, target, count in (("entailment", "contradiction", n_entail), ("neutral", "neutral", n_neutral)):
        pool = [p for p in pairs if p.label == wanted and len(p.hypothesis) < 200]
        rng.shuffle(pool)
        made = 0
        for p in pool:
            if made >= count:
                break
            neg = negate(p.hypothesis)
            if neg:
                out.append(Pair(p.premise, neg, target, f"negation_aug_{wanted}"))
                made += 1
    return out


def augment_negated_premise(pairs: Sequence[Pair], rng: random.Random, n: int) -> list[Pair]:
    """Pairs whose *premise* is negated, from hypotheses that :func:`negate` can negate:

    * ``(not H, H)`` -> contradiction (``n`` pairs): a premise denying the hypothesis refutes it;
    * ``(not H, not H)`` -> entailment (``n // 2``): "not" in the premise is no contradiction cue by itself;
    * ``(not H, H')`` with ``H'`` another pair's hypothesis -> neutral (``n // 2``).

    The hypothesis-side augmentation (:func:`augment_negation`) never shows a negated premise;
    the negation probe (``ev2r/training/data/negation_probe.jsonl``) does.
    """
    pool = [p.hypothesis for p in pairs if len(p.hypothesis) < 200]
    rng.shuffle(pool)
    out: list[Pair] = []
    k = 0
    for h in pool:
        if len(out) >= n + 2 * (n // 2):
            break
        neg = negate(h)
        if not neg:
            continue
        out.append(Pair(neg, h, "contradiction", "negated_premise_aug"))
        if k % 2 == 0:
            out.append(Pair(neg, neg, "entailment", "negated_premise_aug"))
            other = pool[rng.randrange(len(pool))]
            if other != h:
                out.append(Pair(neg, other, "neutral", "negated_premise_aug"))
        k += 1
    return out


#: Meaning-preserving perturbations (:mod:`adversarial.perturbations`) used to augment the pool:
#: a variant keeps its label, so the verifier learns that they do not change what text says.
INVARIANT_PERTURBATIONS = ("typos", "synonyms", "numbers_to_words", "words_to_numbers")
_DIGIT = re.compile(r"\d")
_NUMBER_WORD = re.compile(r"\b(two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|hundred|thousand|"
                          r"million|billion)\b", re.IGNORECASE)


def augment_invariant(pairs: Sequence[Pair], rng: random.Random, n: int,
                      kinds: Sequence[str] = INVARIANT_PERTURBATIONS) -> list[Pair]:
    """Up to ``n`` label-preserving variants of ``pairs``: a meaning-preserving perturbation of
    :mod:`adversarial.perturbations` (typos, WordNet synonyms, numbers written as words and back)
    applied to the premise, the hypothesis or both (drawn at random). The quota is split evenly
    over ``kinds``; the number kinds draw only from pairs with a number of the right form. A
    ``synonyms`` quota needs WordNet (nltk data) and raises when it is missing.

    Raises:
        adversarial.resources.ResourceMissingError: ``synonyms`` requested without WordNet.
        ValueError: an unknown kind.
    """
    import numpy as np

    from adversarial.perturbations import perturb_text

    unknown = [k for k in kinds if k not in INVARIANT_PERTURBATIONS]
    if unknown:
        raise ValueError(f"kinds: {unknown} not in {INVARIANT_PERTURBATIONS}")
    g = np.random.default_rng(rng.randrange(2 ** 32))
    out: list[Pair] = []
    short = [p for p in pairs if len(p.premise) < 700 and len(p.hypothesis) < 300]
    for k, kind in enumerate(kinds):
        quota = n // len(kinds) + (1 if k < n % len(kinds) else 0)
        if kind == "numbers_to_words":
            pool = [p for p in short if _DIGIT.search(p.premise + p.hypothesis)]
        elif kind == "words_to_numbers":
            pool = [p for p in short if _NUMBER_WORD.search(p.premise + p.hypothesis)]
        else:
            pool = list(short)
        rng.shuffle(pool)
        made = 0
        for p in pool:
            if made >= quota:
                break
            side = ("premise", "hypothesis", "both")[int(g.integers(3))]
            prem = perturb_text(kind, p.premise, g) if side != "hypothesis" else None
            hyp = perturb_text(kind, p.hypothesis, g) if side != "premise" else None
            if prem is None and hyp is None:
                continue
            out.append(Pair(prem or p.premise, hyp or p.hypothesis, p.label, f"invariance_aug_{kind}"))
            made += 1
    return out


# ----------------------------------------------------------------------------- negation and word order

#: Templates that deny a whole statement ``{s}`` (its first letter lower-cased): the premise refutes the statement.
#: The gaming suite (:mod:`adversarial.gaming`) negates with *other* templates, so that it measures
#: whether the verifier reads negation, not whether it learnt these strings.
DENIAL_TEMPLATES = (
    "It is not true that {s}",
    "It is false that {s}",
    "It is not the case that {s}",
    "There is no truth to the claim that {s}",
    "Contrary to what was reported, it is untrue that {s}",
    "The statement that {s} is false.",
    "No evidence shows that {s}; in fact the opposite is the case.",
    "Fact-checkers found that it is wrong that {s}",
    "It is incorrect that {s}",
    "Officials denied that {s}",
    "The report that {s} was found to be false.",
    "Despite rumours, it is not so that {s}",
    "Reports that {s} are inaccurate.",
    "The claim that {s} has been refuted.",
    "It was falsely claimed that {s}",
    "In reality, it is not the case that {s}",
)
#: Templates that assert ``{s}``: the premise entails the statement, so "that" clauses are no denial cue.
ASSERTION_TEMPLATES = (
    "It is true that {s}",
    "It is the case that {s}",
    "Reports confirmed that {s}",
    "Records show that {s}",
)


#: Generic questions for the premises rendered as question/answer pairs (``Question: q\nAnswer: a``, the
#: layout of the evidence the verifier reads in ev2r), so that what it learns holds in that layout too.
GENERIC_QUESTIONS = ("What did the report say?", "What happened?", "What is known about this?",
                     "What did officials state?", "What does the source say?", "Is there any truth to this?")


def _as_pair(text: str, rng: random.Random, share: float = 0.3) -> str:
    """``text`` as the answer of a question/answer premise with a generic question, with probability ``share``."""
    if rng.random() < share:
        return f"Question: {GENERIC_QUESTIONS[rng.randrange(len(GENERIC_QUESTIONS))]}\nAnswer: {text}"
    return text


def _clause(sentence: str) -> str:
    s = sentence.strip().rstrip(".!?")
    if len(s) > 1 and s[0].isupper() and not s[1].isupper():
        s = s[0].lower() + s[1:]
    return s


def _with_period(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else text + "."


def _templated(templates: Sequence[str], statement: str, rng: random.Random) -> str:
    """``statement`` put into one of ``templates`` (drawn with ``rng``), as a sentence."""
    t = templates[rng.randrange(len(templates))]
    return _with_period(t.format(s=_clause(statement)))


def shuffle_words_text(text: str, rng: random.Random) -> str | None:
    """The words of ``text`` in a random order other than the original (final punctuation kept at
    the end); None when fewer than 4 words or no other order differs."""
    words = text.strip().rstrip(".!?").split()
    if len(words) < 4 or len(set(words)) < 3:
        return None
    for _ in range(10):
        perm = words[:]
        rng.shuffle(perm)
        if perm != words:
            return " ".join(perm) + "."
    return None


def augment_structure(pairs: Sequence[Pair], rng: random.Random, n: int) -> list[Pair]:
    """Pairs that teach the verifier to read negation and word order (the negated and the
    word-shuffled reference must not be read as supporting it), from the entailed pairs of ``pairs``:

    * ``(denial(H), H)`` -> contradiction (``n`` pairs), ``denial`` one of :data:`DENIAL_TEMPLATES`;
    * ``(assertion(H), H)`` -> entailment (``n // 2``), :data:`ASSERTION_TEMPLATES`, so that a "that"
      clause alone is no denial cue;
    * ``(H, H)`` -> entailment (``n``): the same words in the same order are the same statement, so that
      the shuffled pairs below teach word order, not "the hypothesis's own words are neutral";
    * ``(shuffled words of H, H)`` -> neutral (``n // 4``): the claim's words without its structure state nothing;
    * ``(shuffled words of P, H)`` -> neutral (``n // 4``) for an entailed ``(P, H)`` with a premise under 60 words.

    About 30% of these premises are laid out as a question/answer pair with a generic question
    (:data:`GENERIC_QUESTIONS`), the layout of the premises ev2r gives the verifier.

    A pure function of ``pairs`` and ``rng``.
    """
    ent = [p for p in pairs if p.label == "entailment" and 20 <= len(p.hypothesis) < 200]
    rng.shuffle(ent)
    out: list[Pair] = []
    quota = {"denial": n, "assertion": n // 2, "copy": n, "shuffled_hypothesis": n // 4, "shuffled_premise": n // 4}
    made = dict.fromkeys(quota, 0)
    for p in ent:
        if all(made[k] >= quota[k] for k in quota):
            break
        h = p.hypothesis
        if made["denial"] < quota["denial"]:
            out.append(Pair(_as_pair(_templated(DENIAL_TEMPLATES, h, rng), rng), h, "contradiction",
                            "structure_aug_denial"))
            made["denial"] += 1
        if made["assertion"] < quota["assertion"] and rng.random() < 0.5:
            out.append(Pair(_as_pair(_templated(ASSERTION_TEMPLATES, h, rng), rng), h, "entailment",
                            "structure_aug_assertion"))
            made["assertion"] += 1
        if made["copy"] < quota["copy"]:
            out.append(Pair(_as_pair(h, rng), h, "entailment", "structure_aug_copy"))
            made["copy"] += 1
        if made["shuffled_hypothesis"] < quota["shuffled_hypothesis"] and rng.random() < 0.5:
            s = shuffle_words_text(h, rng)
            if s:
                out.append(Pair(_as_pair(s, rng), h, "neutral", "structure_aug_shuffled_hypothesis"))
                made["shuffled_hypothesis"] += 1
        if made["shuffled_premise"] < quota["shuffled_premise"] and len(p.premise.split()) < 60 and rng.random() < 0.5:
            s = shuffle_words_text(p.premise, rng)
            if s:
                out.append(Pair(_as_pair(s, rng), h, "neutral", "structure_aug_shuffled_premise"))
                made["shuffled_premise"] += 1
    return out


def augment_structure_reverse(pairs: Sequence[Pair], rng: random.Random, n: int) -> list[Pair]:
    """The other direction of :func:`augment_structure`, where the *hypothesis* carries the gamed structure
    (how ev2r's precision reads a predicted fact against a reference premise: the shuffled
    reference's facts were entailed by the reference, precision +0.79), from the entailed pairs of ``pairs``:

    * ``(P, denial(H))`` -> contradiction (``n`` pairs) for an entailed ``(P, H)``, ``denial`` one of
      :data:`DENIAL_TEMPLATES`: an entailing premise refutes the statement's denial;
    * ``(P, shuffled words of H)`` -> neutral (``n`` pairs): a premise that entails H does not state the same
      words in another order;
    * ``(H, H)`` -> entailment (``n // 2``) and ``(P, assertion(H))`` -> entailment (``n // 2``): the controls, so
      that a copied or "that"-wrapped hypothesis stays entailed.

    About 30% of the premises are laid out as question/answer pairs with a generic question. A pure function
    of ``pairs`` and ``rng``.
    """
    ent = [p for p in pairs
           if p.label == "entailment" and 20 <= len(p.hypothesis) < 200 and len(p.premise.split()) < 80]
    rng.shuffle(ent)
    out: list[Pair] = []
    quota = {"denied_hypothesis": n, "shuffled_fact": n, "copy": n // 2, "asserted_hypothesis": n // 2}
    made = dict.fromkeys(quota, 0)
    for p in ent:
        if all(made[k] >= quota[k] for k in quota):
            break
        h = p.hypothesis
        if made["denied_hypothesis"] < quota["denied_hypothesis"]:
            out.append(Pair(_as_pair(p.premise, rng), _templated(DENIAL_TEMPLATES, h, rng), "contradiction",
                            "structure_rev_denied_hypothesis"))
            made["denied_hypothesis"] += 1
        if made["shuffled_fact"] < quota["shuffled_fact"]:
            sh = shuffle_words_text(h, rng)
            if sh:
                out.append(Pair(_as_pair(p.premise, rng), sh, "neutral", "structure_rev_shuffled_fact"))
                made["shuffled_fact"] += 1
        if made["copy"] < quota["copy"] and rng.random() < 0.5:
            out.append(Pair(_as_pair(h, rng), h, "entailment", "structure_rev_copy"))
            made["copy"] += 1
        if made["asserted_hypothesis"] < quota["asserted_hypothesis"] and rng.random() < 0.5:
            out.append(Pair(_as_pair(p.premise, rng), _templated(ASSERTION_TEMPLATES, h, rng), "entailment",
                            "structure_rev_asserted_hypothesis"))
            made["asserted_hypothesis"] += 1
    return out


# ----------------------------------------------------------------------------- denials composed

#: Parts of the composed denial grammar (:func:`denial_grammar`). None of the gaming suite's denial templates
#: (:data:`adversarial.perturbations.gaming.SUITE_DENIALS`: "a myth", "Nobody has ever shown", "debunked", "wrong
#: to say", "The idea that ... is untrue") is among them, so the suite still measures a denial never seen in training.
_DENIAL_NOUNS = ("The claim", "The assertion", "The allegation", "The rumour", "The suggestion", "The notion",
                 "The report", "The story", "The viral claim", "The widely shared statement")
_DENIAL_VERDICTS = ("is false", "is baseless", "is unfounded", "is fabricated", "is incorrect", "has been disproven",
                    "was rejected by experts", "does not hold up", "was shown to be false",
                    "is not supported by the facts", "has been denied", "is a fabrication", "was retracted as false",
                    "is a hoax")
_DENIAL_IT = ("It is not accurate that {s}", "It is simply not so that {s}", "It is a falsehood that {s}",
              "It is baseless to claim that {s}", "It is not correct to say that {s}", "It is false to claim that {s}",
              "It is a fabrication that {s}", "It has been proven false that {s}", "It is untrue to suggest that {s}")
_DENIAL_AGENTS = ("Officials", "The government", "Experts", "Fact-checkers", "The company", "Researchers",
                  "Police", "A spokesperson", "The ministry", "Independent auditors")
_DENIAL_ACTS = ("rejected claims that {s}", "refuted reports that {s}", "dismissed suggestions that {s}",
                "disproved the claim that {s}", "flatly denied that {s}", "showed it is false that {s}")
_DENIAL_TAILS = ("{S} -- this is false", "{S}: that is not true", "{S}? That claim is false",
                 "{S}; however, this is untrue", "Some said that {s}, but this is false",
                 "Although it was claimed that {s}, this is incorrect",
                 "Contrary to online posts, it is false that {s}", "Contrary to popular belief, it is not so that {s}")
#: Frames that neither assert nor deny ``{s}``: the premise says nothing about whether it holds (neutral).
HEDGE_TEMPLATES = ("Some people claim that {s}", "It has been suggested that {s}", "Critics asked whether {s}",
                   "A rumour circulated that {s}", "It is unclear whether {s}", "Posts online alleged that {s}",
                   "Whether {s} remains unconfirmed", "Several users wondered if {s}")
#: More frames that assert ``{s}`` (entailment), beside :data:`ASSERTION_TEMPLATES`.
ASSERTION_TEMPLATES_MORE = ("Officials confirmed that {s}", "It has been established that {s}",
                            "Records confirm that {s}", "Experts verified that {s}", "It is a fact that {s}",
                            "Investigators found that {s}", "{S}, as the records show", "{S} -- this is accurate")


def denial_grammar() -> tuple[str, ...]:
    """Every denial template of the composed grammar (``{s}``: the statement as a clause, ``{S}``: as a
    sentence start), in a fixed order: the nouns x verdicts ("The rumour that {s} is baseless."), the "It is
    ... that" frames, agents x acts ("Police dismissed suggestions that {s}."), and tails ("{S} -- this is
    false."); with :data:`DENIAL_TEMPLATES`, 233 templates. None is a template of the gaming suite.

    >>> len(denial_grammar()), denial_grammar()[0]
    (217, 'The claim that {s} is false.')
    """
    out = [f"{n} that {{s}} {v}." for n in _DENIAL_NOUNS for v in _DENIAL_VERDICTS]
    out += list(_DENIAL_IT) + [f"{a} {act}" for a in _DENIAL_AGENTS for act in _DENIAL_ACTS] + list(_DENIAL_TAILS)
    return tuple(out)


def _fill(template: str, statement: str) -> str:
    s = _clause(statement)
    return _with_period(template.format(s=s, S=s[:1].upper() + s[1:]))


def _jaccard(a: str, b: str) -> float:
    x, y = set(re.findall(r"\w+", a.lower())), set(re.findall(r"\w+", b.lower()))
    return len(x & y) / max(1, len(x | y))


#: the kinds of pair :func:`augment_denial` makes (``--aug-denial-kinds``), in its docstring's order
DENIAL_KINDS = ("denial", "denied_premise_contradicted", "denied_premise_entailed", "hedge", "assertion", "copy",
                "denied_hypothesis")


def augment_denial(pairs: Sequence[Pair], rng: random.Random, n: int,
                   kinds: Optional[Collection[str]] = None) -> list[Pair]:
    """Pairs that teach the verifier denials it has not seen as fixed strings, and what a denied premise
    says of *another* statement (the negated reference read as its own content by recall and by the
    proxy), from the entailed and contradicted pairs of ``pairs``:

    * ``(denial(H), H)`` -> contradiction (``n``), ``denial`` drawn from :func:`denial_grammar` and
      :data:`DENIAL_TEMPLATES`;
    * ``(denial(P), H)`` -> neutral (``n // 2``) for a contradicted ``(P, H)`` whose premise is under 60 words: that
      P is false says nothing of H (the proxy on a denied reference that refuted the claim);
    * ``(denial(P), H)`` -> neutral (``n // 4``) for an entailed ``(P, H)`` whose premise is under 60 words and
      not a near copy of H (word Jaccard < 0.5): a false premise entails nothing;
    * ``(hedge(H), H)`` -> neutral (``n // 4``), :data:`HEDGE_TEMPLATES`: a "that" clause reported without being
      asserted or denied;
    * ``(assertion(H), H)`` -> entailment (``n // 2``), :data:`ASSERTION_TEMPLATES` and
      :data:`ASSERTION_TEMPLATES_MORE`, and ``(H, H)`` -> entailment (``n // 4``): the controls, so that a frame
      alone is no cue;
    * ``(P, denial(H))`` -> contradiction (``n // 4``) for an entailed ``(P, H)``: the precision direction.

    About 30% of the premises are laid out as question/answer pairs with a generic question. ``kinds`` (a subset
    of :data:`DENIAL_KINDS`, None = all) keeps only those kinds (the others' quotas are 0). A pure function of
    ``pairs``, ``rng`` and ``kinds``.

    Raises:
        ValueError: a kind not in :data:`DENIAL_KINDS` (named with the allowed values).
    """
    keep = set(DENIAL_KINDS if kinds is None else kinds)
    if keep - set(DENIAL_KINDS):
        raise ValueError(f"augment_denial kinds: {sorted(keep - set(DENIAL_KINDS))} not among {list(DENIAL_KINDS)}")
    denials = denial_grammar() + DENIAL_TEMPLATES
    assertions = ASSERTION_TEMPLATES + ASSERTION_TEMPLATES_MORE
    ent = [p for p in pairs if p.label == "entailment" and 20 <= len(p.hypothesis) < 200]
    con = [p for p in pairs
           if p.label == "contradiction" and 20 <= len(p.hypothesis) < 200 and len(p.premise.split()) < 60]
    rng.shuffle(ent)
    rng.shuffle(con)
    pick = lambda ts: ts[rng.randrange(len(ts))]  # noqa: E731
    out: list[Pair] = []
    quota = {"denial": n, "assertion": n // 2, "copy": n // 4, "hedge": n // 4, "denied_premise_entailed": n // 4,
             "denied_hypothesis": n // 4}
    quota = {k: (v if k in keep else 0) for k, v in quota.items()}
    made = dict.fromkeys(quota, 0)
    for p in ent:
        if all(made[k] >= quota[k] for k in quota):
            break
        h = p.hypothesis
        if made["denial"] < quota["denial"]:
            out.append(Pair(_as_pair(_fill(pick(denials), h), rng), h, "contradiction", "denial_aug_denial"))
            made["denial"] += 1
        if made["assertion"] < quota["assertion"] and rng.random() < 0.6:
            out.append(Pair(_as_pair(_fill(pick(assertions), h), rng), h, "entailment", "denial_aug_assertion"))
            made["assertion"] += 1
        if made["copy"] < quota["copy"] and rng.random() < 0.4:
            out.append(Pair(_as_pair(h, rng), h, "entailment", "denial_aug_copy"))
            made["copy"] += 1
        if made["hedge"] < quota["hedge"] and rng.random() < 0.4:
            out.append(Pair(_as_pair(_fill(pick(HEDGE_TEMPLATES), h), rng), h, "neutral", "denial_aug_hedge"))
            made["hedge"] += 1
        if (made["denied_premise_entailed"] < quota["denied_premise_entailed"] and len(p.premise.split()) < 60
                and _jaccard(p.premise, h) < 0.5 and rng.random() < 0.5):
            out.append(Pair(_as_pair(_fill(pick(denials), p.premise), rng), h, "neutral",
                            "denial_aug_denied_premise_entailed"))
            made["denied_premise_entailed"] += 1
        if (made["denied_hypothesis"] < quota["denied_hypothesis"] and len(p.premise.split()) < 80
                and rng.random() < 0.4):
            out.append(Pair(_as_pair(p.premise, rng), _fill(pick(denials), h), "contradiction",
                            "denial_aug_denied_hypothesis"))
            made["denied_hypothesis"] += 1
    for p in con[: n // 2 if "denied_premise_contradicted" in keep else 0]:
        out.append(Pair(_as_pair(_fill(pick(denials), p.premise), rng), p.hypothesis, "neutral",
                        "denial_aug_denied_premise_contradicted"))
    return out


#: Yes/no and "what is known" questions made from the claim (``{s}``: the claim as a clause), the way AVeriTeC's
#: annotators often ask about the claim itself before answering from a source.
CLAIM_QUESTIONS = ("Is it true that {s}?", "Was it reported that {s}?", "Is there evidence that {s}?",
                   "What do sources say about whether {s}?", "Has it been confirmed that {s}?",
                   "Did reports show that {s}?", "Can it be verified that {s}?")
#: A number (with its unit word) or a capitalised name that is not the first word: the span a question asks for.
_SPAN = re.compile(r"(?:\$\d|\b\d)(?:[\d,.]*\d)?(?:%|\s?(?:percent|million|billion|thousand|years?|days?|people)\b)?"
                   r"|\b[A-Z][a-z]+(?:\s+(?:of\s+|the\s+)?[A-Z][a-z]+)*")
_YEAR = re.compile(r"^(?:1[5-9]|20)\d\d$")
#: The kinds of pair :func:`augment_qa_layout` makes (its docstring's order).
QA_LAYOUT_KINDS = ("claim_question", "wh_question", "nonevidence_answer")


def wh_echo(sentence: str, rng: random.Random, avoid: str = "") -> Optional[tuple[str, str]]:
    """``sentence`` as an echo question asking for one of its spans (a number with its unit, a year or a
    capitalised name after the first word, drawn with ``rng``; one not in ``avoid``, e.g. the claim, when there is
    one: the span that tells the sentence from the claim) and the span as the answer, or None when it has none or
    has over 60 words: ``"The film grossed $50 million worldwide."`` -> ``("The film grossed how much
    worldwide?", "$50 million.")``. The question carries what the sentence says about the span, the answer the
    span, so the pair states what the sentence did only when both are read (AVeriTeC's short answers).

    >>> wh_echo("The film grossed $50 million worldwide.", random.Random(0))
    ('The film grossed how much worldwide?', '$50 million.')
    >>> wh_echo("In 2019, the company employed 3,400 people.", random.Random(0), avoid="It employed 3,400 people.")
    ('In which year, the company employed 3,400 people?', '2019.')
    """
    s = sentence.strip().rstrip(".!?")
    if len(s.split()) > 60:
        return None
    spans = [m for m in _SPAN.finditer(s) if m.start() > 0 and len(m.group()) > 1]
    fresh = [m for m in spans if m.group().lower() not in avoid.lower()]
    spans = fresh or spans
    if not spans:
        return None
    m = spans[rng.randrange(len(spans))]
    span, before, after = m.group(), s[:m.start()].rstrip(), s[m.end():]
    if _YEAR.match(span):
        if before.split()[-1:] and before.split()[-1].lower() == "in":
            before, wh = before[:-2].rstrip(), "in which year"
        else:
            wh = "which year"
    elif span[0].isdigit() or span[0] == "$":
        wh = "how much" if span[0] == "$" or span.endswith("%") or "percent" in span else "how many"
    else:
        wh = "who" if rng.random() < 0.5 else "what"
    question = " ".join(f"{before} {wh}{after}?".split())
    return question[:1].upper() + question[1:], _with_period(span)


def augment_qa_layout(pairs: Sequence[Pair], rng: random.Random, n: int, nonevidence: Sequence[dict] = (),
                      kinds: Optional[Collection[str]] = None) -> list[Pair]:
    """Pairs laid out as the question/answer evidence the proxy reads (the verifier read AVeriTeC's own
    gold evidence at a mean proxy of 0.33, its premises are ``Question: q\\nAnswer: a``), from ``pairs``
    (redistributable NLI pairs; labels kept):

    * ``claim_question`` (``n // 2``): ``Question: <the hypothesis asked as a yes/no question>\\nAnswer: <premise>``
      with the premise's label, for every label -- a question that restates the claim is context, the answer
      decides (a refuting answer under a claim question is a contradiction, an unrelated one neutral);
    * ``wh_question`` (``n // 2``): the premise split by :func:`wh_echo` into an echo question and its span as the
      answer, with the premise's label -- the short answers of AVeriTeC, read in their question's context;
    * ``nonevidence_answer`` (``n // 4``, needs ``nonevidence``): a non-evidence template of the admission corpus
      (classes absence, verdict without the claim's words, boilerplate, attribution, question_only; rows of
      ``ev2r/training/data/nonevidence/train.jsonl``, slots filled from the hypothesis) -> neutral: an answer that
      says nothing is no evidence under any question.

    ``kinds`` (a subset of :data:`QA_LAYOUT_KINDS`, None = all) keeps only those kinds. A pure function of its
    inputs and ``rng``.

    Raises:
        ValueError: a kind not in :data:`QA_LAYOUT_KINDS` (named with the allowed values).
    """
    from ev2r.training.admission import fill, slot_values

    keep = set(QA_LAYOUT_KINDS if kinds is None else kinds)
    if keep - set(QA_LAYOUT_KINDS):
        raise ValueError(f"augment_qa_layout kinds: {sorted(keep - set(QA_LAYOUT_KINDS))} not among "
                         f"{list(QA_LAYOUT_KINDS)}")
    quota = {"claim_question": n // 2, "wh_question": n // 2, "nonevidence_answer": n // 4 if nonevidence else 0}
    quota = {k: (v if k in keep else 0) for k, v in quota.items()}
    made = dict.fromkeys(quota, 0)
    usable = [p for p in pairs if 20 <= len(p.hypothesis) < 200 and len(p.premise) < 700]
    rng.shuffle(usable)
    neutral_rows = [r for r in nonevidence
                    if r["class"] in ("absence", "boilerplate", "attribution", "question_only")
                    or (r["class"] == "verdict" and "{claim" not in r["answer"] and "{topic" not in r["answer"])]
    out: list[Pair] = []
    for p in usable:
        if all(made[k] >= quota[k] for k in quota):
            break
        h = p.hypothesis
        if made["claim_question"] < quota["claim_question"] and rng.random() < 0.6:
            q = CLAIM_QUESTIONS[rng.randrange(len(CLAIM_QUESTIONS))].format(s=_clause(h))
            out.append(Pair(f"Question: {q}\nAnswer: {p.premise}", h, p.label, "qa_layout_claim_question"))
            made["claim_question"] += 1
        if made["wh_question"] < quota["wh_question"]:
            echo = wh_echo(p.premise, rng, avoid=h)
            if echo is not None:
                out.append(Pair(f"Question: {echo[0]}\nAnswer: {echo[1]}", h, p.label, "qa_layout_wh_question"))
                made["wh_question"] += 1
        if made["nonevidence_answer"] < quota["nonevidence_answer"] and neutral_rows and rng.random() < 0.4:
            row = neutral_rows[rng.randrange(len(neutral_rows))]
            values = slot_values(h, rng)
            q, a = fill(row["question"], values), fill(row["answer"], values)
            out.append(Pair(f"Question: {q}\nAnswer: {a}" if q else a, h, "neutral", "qa_layout_nonevidence_answer"))
            made["nonevidence_answer"] += 1
    return out
