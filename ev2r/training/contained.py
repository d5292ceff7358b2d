"""A sentence of a question/answer pair read as entailed by that pair.

With the respelling retired, Ev2R's precision and recall (Akhtar et al. 2024, sec. 3.1) read a near-copy of a gold
pair through the verifier alone, so they are bounded by how often the verifier entails a pair's *own* sentences:
0.862 for the bundled verifier and 0.819 for one continued on one-word edits, on 789 facts of AVeriTeC dev gold pairs
(``benchmarks/results/self_entailment.md``). A sentence is missed most when the pair's question asks about something
the answer corrects (a question about "0.02%", an answer saying "0.09%"), or when it stands among other sentences.

:func:`augment_contained` builds such pairs from the training pool's own statements (redistributable sources only):
the premise is ``Question: <q>\\nAnswer: <sentences>``, the hypothesis one of the answer's sentences, unedited or
edited once by a family of :mod:`ev2r.training.edits`.
"""

from __future__ import annotations

import random
import re
from typing import Optional, Sequence

from ev2r.training.augment import GENERIC_QUESTIONS
from ev2r.training.data import Pair
from ev2r.training.edits import CHANGE_LABEL, CHANGING, PREMISE_ONLY, PRESERVING, data_names, edit_text, family_set


def contained_changing(families=None) -> tuple[str, ...]:
    """The changing families of ``families`` (:func:`ev2r.training.edits.family_set`) usable on the hypothesis side:
    ``yesno`` needs its own layout and the premise-only families (``hedge``, ``certainty``, ``quantifier``) would make
    an edited hypothesis the weaker statement, which its premise entails."""
    chosen = family_set(families)
    return tuple(sorted(f for f in CHANGING if f in chosen and f not in PREMISE_ONLY and f != "yesno"))


#: Changing families used on the hypothesis side by default (the ``issue63`` set's, less ``hedge`` and ``yesno``).
CONTAINED_CHANGING = contained_changing()
#: Negative words anywhere in a statement: its yes/no question's "No." would be a double negative.
_NEGATED = re.compile(r"(?<![\w'])(?:not|never|no|none|nothing|nobody|no one|neither|nor|without|cannot)(?![\w'])|"
                      r"n't(?![\w'])", re.I)
#: A subject that is no plain noun phrase: a clause, a quantifier over everything, or punctuation.
_CLAUSE_SUBJECT = re.compile(r"[,;:()\"\u201c\u201d]|(?<![\w'])(?:who|which|that|where|when|if|because|while|although|"
                             r"according|every|all|each|whose|whom)(?![\w'])", re.I)
_MODALS = frozenset("might may must should shall ought".split())
_FUNCTION_STARTS = frozenset("The A An This That These Those It There He She They We Some Many Most Its His Her Their"
                             .split())
#: The most characters of question, answer and hypothesis together. At about 4 characters a token, the pair fits the
#: 128-token window the verifiers are trained with; text dense in digits and punctuation runs nearer 3, so some
#: pairs are still cut (the premise's end, which may hold the hypothesis's sentence: a rare wrong label).
MAX_CHARS = 420
#: The question templates that restate another statement, or the hypothesis with a changed value.
ASKING = ("Is it true that {s}?", "Did the source say that {s}?", "Was it reported that {s}?")


_AUX_RE = re.compile(r"^(?P<subject>(?:\S+\s+){1,6}?)(?P<aux>is|are|was|were|has|have|had|will|would|can|could)\s+"
                     r"(?P<rest>[^,;:]+?)\.?$")


def polar_question(statement: str) -> Optional[str]:
    """The yes/no question that ``statement`` answers, by moving its first auxiliary to the front ("The bridge has
    opened." -> "Has the bridge opened?"), or None: no auxiliary within its first seven words, a clause break after
    it, a subject that is a clause, a quantifier over everything or holds punctuation ("In 2020, the company was
    sold."), a negative word anywhere (its "No." would be a double negative), or a statement that is a question or
    exclamation.

    >>> polar_question("The company was founded in 1990.")
    'Was the company founded in 1990?'
    """
    statement = statement.strip()
    if not statement[:1].isalpha() or statement.endswith(("?", "!")) or _NEGATED.search(statement):
        return None
    m = _AUX_RE.match(statement)
    if m is None or _MODALS & set(m.group("subject").lower().split()) or _CLAUSE_SUBJECT.search(m.group("subject")):
        return None
    subject = m.group("subject").strip()
    first, _, tail = subject.partition(" ")
    if first in _FUNCTION_STARTS:  # "The bridge" -> "the bridge"; a name keeps its capital
        subject = f"{first.lower()} {tail}".strip()
    return f"{m.group('aux').capitalize()} {subject} {m.group('rest').strip()}?"


def _polar_pair(s: str, other: str, rng: random.Random, balanced: bool = False) -> Optional[Pair]:
    """A yes/no question made from ``s`` answered "Yes." (25%) or "No." (then, in 30 of the 75 points, ``other``), with
    the statement the scorer's own decomposer makes of that answer (:func:`ev2r.facts.declarative.qa_to_statements`)
    or the sentence after "No." as the hypothesis: entailment; or ``s`` after "No.": contradiction (85% entailment).

    ``balanced``: "Yes." or "No." alike, then ``other`` 40% of the time; the hypothesis is the answer's statement
    (entailment) or the opposite one (contradiction) alike, or, when ``other`` was appended, the answer's statement
    1/4, the opposite 1/2 and ``other`` 1/4 (``contained_polar_bal_*``): contradiction is half of the pairs. None
    when ``other`` is ``s`` or the pair passes :data:`MAX_CHARS`."""
    from ev2r.facts.declarative import qa_to_statements

    q = polar_question(s)
    if q is None or other == s or len(q) + len(other) + 2 * len(s) > MAX_CHARS:
        return None
    m = _AUX_RE.match(s.strip())
    lead = s.strip()[:m.end("aux")] if m else ""  # "The bridge has"
    said = {a: [t for t, converted in qa_to_statements(q, [a]) if converted] for a in ("Yes.", "No.")}
    if not said["Yes."] or not said["No."] or not said["Yes."][0].lower().startswith(lead.lower()):
        return None  # a question the decomposer does not turn back into the statement's own order
    if balanced:
        answer = "Yes." if rng.random() < 0.5 else "No."
        opposite = "No." if answer == "Yes." else "Yes."
        text = f"{answer} {other}" if rng.random() < 0.4 else answer
        choices = [(said[answer][0], "entailment", "said"), (said[opposite][0], "contradiction", "opposite")]
        if text != answer:  # said 1/4, opposite 1/2, the appended sentence 1/4: contradiction stays half
            choices = [choices[0], choices[1], choices[1], (other, "entailment", "other")]
        hyp, label, kind = choices[rng.randrange(len(choices))]
        return Pair(f"Question: {q}\nAnswer: {text}", hyp, label, f"contained_polar_bal_{kind}")
    r = rng.random()
    if r < 0.25:
        return Pair(f"Question: {q}\nAnswer: Yes.", said["Yes."][0], "entailment", "contained_polar_yes")
    denial = said["No."][0]
    if r < 0.55:
        return Pair(f"Question: {q}\nAnswer: No.", denial, "entailment", "contained_polar_no")
    if r < 0.85:
        return Pair(f"Question: {q}\nAnswer: No. {other}", other if rng.random() < 0.5 else denial, "entailment",
                    "contained_polar_no_then")
    return Pair(f"Question: {q}\nAnswer: No.", s, "contradiction", "contained_polar_denied")


def _lower_first(s: str) -> str:
    s = s.rstrip(" .")
    return s[:1].lower() + s[1:] if s[:2] != s[:2].upper() else s


def augment_contained(pairs: Sequence[Pair], rng: random.Random, n: int, edit_share: float = 0.5,
                      names: Optional[Sequence[str]] = None, polar_share: float = 0.0,
                      polar_balanced: bool = False, families=None) -> list[Pair]:
    """Up to ``n`` (premise, hypothesis) pairs whose premise is a question/answer pair holding the hypothesis:

    * the answer: the hypothesis's statement among 0-3 other statements of the pool (while the pair stays within
      :data:`MAX_CHARS`), at a random place;
    * the question: a generic one (half), one asking about another statement (a quarter), or one asking about the
      statement with a value changed by a changing edit (a quarter: the question is context, the answer decides);
    * ``1 - edit_share`` of the pairs: the hypothesis is the statement itself -> entailment (``contained_plain``);
    * the rest, one edit: half by a preserving family (:data:`ev2r.training.edits.PRESERVING`; on the hypothesis or,
      half the time, on the answer's copy) -> entailment (``contained_keep_<family>``), half by a changing family of
      :data:`CONTAINED_CHANGING` on the hypothesis -> :data:`ev2r.training.edits.CHANGE_LABEL`
      (``contained_change_<family>``).

    * ``polar_share`` of the pairs instead: a yes/no question made from a statement (:func:`polar_question`) answered
      "Yes." or "No." (then, sometimes, another statement), with the statement that the scorer's decomposer makes of
      that answer, or the sentence after "No.", as the hypothesis -> entailment; or the statement itself after "No."
      -> contradiction (``contained_polar_*``). AVeriTeC's gold answers often open with "No.", and a verifier
      trained without these read "There are no reliable population figures." as not entailed by "Question: Are
      there reliable population figures ...? Answer: No. There are no reliable population figures." (P 0.00).
      ``polar_balanced``: as many contradictions as entailments among them (:func:`_polar_pair`); the unbalanced mix
      (85% entailment) cost the verifier its reading of AVeriTeC verdicts (round 5, 0.338 -> 0.288).

    The shares are shares of *draws*: a draw whose statement the chosen edit or question does not apply to is
    skipped, so fewer pairs come out edited or polar than the share says (on VitaminC statements, ``polar_share``
    0.3 gave about 8% polar pairs and ``edit_share`` 0.5 about 25% edited ones).

    Args:
        pairs: the training pool; statements are its premises and hypotheses of 30-200 characters on one line.
        rng: the seeded generator (deterministic output given its state).
        n: pairs wanted (>= 0); fewer when the pool has too few statements.
        edit_share: in [0, 1].
        names: capitalised names for the ``entity`` family; default: those of the pool's statements
            (:func:`ev2r.training.edits.data_names`).
        families: the edit families drawn on (:func:`ev2r.training.edits.family_set`; default ``issue63``).

    Raises:
        ValueError: ``n`` < 0, ``edit_share`` or ``polar_share`` outside [0, 1], or bad ``families``.
    """
    if n < 0:
        raise ValueError(f"n: {n} must be >= 0")
    for name, share in (("edit_share", edit_share), ("polar_share", polar_share)):
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"{name}: {share} must be in [0, 1]")
    statements = sorted({t for p in pairs for t in (p.premise, p.hypothesis) if 30 <= len(t) <= 200 and "\n" not in t})
    if len(statements) < 4:
        return []
    rng.shuffle(statements)
    if names is None:
        names = data_names(statements)
    chosen = family_set(families)
    keeping = sorted(f for f in PRESERVING if f in chosen)
    changing = contained_changing(families)
    out: list[Pair] = []
    tries = 0
    while len(out) < n and tries < 20 * n + 100:
        tries += 1
        s = statements[rng.randrange(len(statements))]
        if polar_share and rng.random() < polar_share:
            polar = _polar_pair(s, statements[rng.randrange(len(statements))], rng, polar_balanced)
            if polar is not None:
                out.append(polar)
            continue
        others = [o for o in (statements[rng.randrange(len(statements))] for _ in range(rng.randrange(4))) if o != s]
        answer_s, hyp, label, tag = s, s, "entailment", "contained_plain"
        if rng.random() < edit_share:
            if (rng.random() < 0.5 and keeping) or not changing:
                if not keeping:
                    continue
                family = keeping[rng.randrange(len(keeping))]
                e = edit_text(family, s, rng, names)
                if e is None:
                    continue
                answer_s, hyp = (e, s) if rng.random() < 0.5 else (s, e)
                tag = f"contained_keep_{family}"
            else:
                family = changing[rng.randrange(len(changing))]
                e = edit_text(family, s, rng, names)
                if e is None:
                    continue
                hyp, label, tag = e, CHANGE_LABEL[family], f"contained_change_{family}"
        r = rng.random()
        if r < 0.5:
            q = GENERIC_QUESTIONS[rng.randrange(len(GENERIC_QUESTIONS))]
        else:
            asked = statements[rng.randrange(len(statements))] if r < 0.75 else None
            if asked is None:  # the question asks about a value the answer corrects
                family = changing[rng.randrange(len(changing))] if changing else None
                asked = (edit_text(family, s, rng, names) if family else None) or s
            q = ASKING[rng.randrange(len(ASKING))].format(s=_lower_first(asked))
        room = MAX_CHARS - len(q) - len(hyp) - len(answer_s)
        if room < 0:
            continue
        sentences = []
        for o in others:  # the statement's company, while the pair fits the verifier's 128-token window
            if len(o) + 1 <= room:
                sentences.append(o)
                room -= len(o) + 1
        sentences.insert(rng.randrange(len(sentences) + 1), answer_s)
        answer = " ".join(x if x.rstrip().endswith((".", "!", "?")) else x.rstrip() + "." for x in sentences)
        out.append(Pair(f"Question: {q}\nAnswer: {answer}", hyp, label, tag))
    return out
