"""A sentence of a question/answer pair read as entailed by that pair (issue 63, round 3's diagnosis).

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
from typing import Sequence

from ev2r.training.augment import GENERIC_QUESTIONS
from ev2r.training.data import Pair
from ev2r.training.edits import CHANGE_LABEL, CHANGING, PRESERVING, edit_text

#: Changing families used on the hypothesis side (``hedge`` and ``yesno`` need their own layouts and are left out).
CONTAINED_CHANGING = tuple(sorted(set(CHANGING) - {"hedge", "yesno"}))
#: The most characters of question, answer and hypothesis together (about 120 tokens: the pair fits the 128-token
#: window the verifiers are trained with, so truncation never cuts the hypothesis's sentence out of the answer).
MAX_CHARS = 480
#: The question templates that restate another statement, or the hypothesis with a changed value.
ASKING = ("Is it true that {s}?", "Did the source say that {s}?", "Was it reported that {s}?")


def _lower_first(s: str) -> str:
    s = s.rstrip(" .")
    return s[:1].lower() + s[1:] if s[:2] != s[:2].upper() else s


def augment_contained(pairs: Sequence[Pair], rng: random.Random, n: int, edit_share: float = 0.5,
                      names: Sequence[str] = ()) -> list[Pair]:
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

    Args:
        pairs: the training pool; statements are its premises and hypotheses of 30-200 characters on one line.
        rng: the seeded generator (deterministic output given its state).
        n: pairs wanted (>= 0); fewer when the pool has too few statements.
        edit_share: in [0, 1].
        names: capitalised names drawn from the data, for the ``entity`` family.

    Raises:
        ValueError: ``n`` < 0 or ``edit_share`` outside [0, 1].
    """
    if n < 0:
        raise ValueError(f"n: {n} must be >= 0")
    if not 0.0 <= edit_share <= 1.0:
        raise ValueError(f"edit_share: {edit_share} must be in [0, 1]")
    statements = sorted({t for p in pairs for t in (p.premise, p.hypothesis) if 30 <= len(t) <= 200 and "\n" not in t})
    if len(statements) < 4:
        return []
    rng.shuffle(statements)
    keeping = sorted(PRESERVING)
    out: list[Pair] = []
    tries = 0
    while len(out) < n and tries < 20 * n + 100:
        tries += 1
        s = statements[rng.randrange(len(statements))]
        others = [statements[rng.randrange(len(statements))] for _ in range(rng.randrange(4))]
        answer_s, hyp, label, tag = s, s, "entailment", "contained_plain"
        if rng.random() < edit_share:
            if rng.random() < 0.5:
                family = keeping[rng.randrange(len(keeping))]
                e = edit_text(family, s, rng, names)
                if e is None:
                    continue
                answer_s, hyp = (e, s) if rng.random() < 0.5 else (s, e)
                tag = f"contained_keep_{family}"
            else:
                family = CONTAINED_CHANGING[rng.randrange(len(CONTAINED_CHANGING))]
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
                family = CONTAINED_CHANGING[rng.randrange(len(CONTAINED_CHANGING))]
                asked = edit_text(family, s, rng, names) or s
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
