"""Helpers of the adversarial tests: small hand-made items and fast fake scorers (no model)."""

from __future__ import annotations

import re

from ev2r.types import Evidence, Item, QAPair



_STOP = {"the", "a", "an", "of", "in", "on", "and", "or", "to", "is", "was", "are", "were", "it", "that", "did"}


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOP}


def coverage_scorer(items):
    """A sound toy metric: a pair is supported when >= 60% of its answer's content words occur in
    the other side's answers, or it has no words (precision over predicted pairs, recall over
    reference pairs; an empty answer is unsupported). Order- and duplication-invariant."""
    out = []
    for it in items:
        pred = [p.answer for p in it.predicted_evidence.pairs]
        ref = [p.answer for p in it.reference_evidence.pairs]
        pw = set().union(*map(_words, pred)) if pred else set()
        rw = set().union(*map(_words, ref)) if ref else set()

        def supp(ans, other):
            w = _words(ans)
            return bool(w) and len(w & other) / len(w) >= 0.6

        if not pred or not ref:
            out.append({"precision": None, "recall": None, "f1": None})
            continue
        p = sum(supp(a, rw) for a in pred) / len(pred)
        r = sum(supp(a, pw) for a in ref) / len(ref)
        out.append({"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0})
    return out


def constant_scorer(items):
    """A deliberately broken metric: ignores the evidence."""
    return [{"precision": 0.7, "recall": 0.7, "f1": 0.7} for _ in items]


def first_pair_scorer(items):
    """A deliberately broken metric: only the first predicted pair counts (order-sensitive)."""
    out = []
    for it in items:
        first = it.predicted_evidence.pairs[0].answer if it.predicted_evidence.pairs else ""
        rw = set().union(*(_words(p.answer) for p in it.reference_evidence.pairs))
        w = _words(first)
        v = len(w & rw) / len(w) if w else 0.0
        out.append({"precision": v, "recall": v, "f1": v})
    return out


_FACTS = [
    ("Who won the 2020 election in Texas?", "Donald Trump won Texas in 2020 with 52% of the vote."),
    ("How many people were vaccinated in Kerala?", "Kerala vaccinated 45 million people by March."),
    ("What did the CDC report?", "The CDC reported 1,200 new cases in Florida last week."),
    ("Did the senator vote for the bill?", "No, the senator did not vote for the bill in 2019."),
    ("What is the unemployment rate?", "The unemployment rate was 3.5 percent in February."),
    ("Who said the vaccine is unsafe?", "Nobody at the WHO said the vaccine is unsafe."),
    ("Where was the claim first published?", "It was first published on a satire website in London."),
    ("How much did the bridge cost?", "The bridge cost $250 million and took four years to build."),
    ("Was the photo taken in Nigeria?", "Yes. The photo was taken in Lagos during the 2015 protests."),
    ("What is the population of the city?", "The city has about 860,000 residents according to the census."),
    ("Who leads the party?", "Joe Biden leads the party and Biden is its candidate."),
    ("How many teachers lost their jobs?", "About twenty thousand teachers lost their jobs, the union said."),
]


def make_items(n: int = 12) -> list[Item]:
    """``n`` items with 3-4 pairs each; predicted evidence = reference evidence (gold vs gold)."""
    items = []
    for k in range(n):
        pairs = tuple(QAPair(*_FACTS[(k + j) % len(_FACTS)]) for j in range(3 + k % 2))
        claim = f"Claim {k}: " + pairs[0].answer.replace("did not", "did")
        ev = Evidence(pairs)
        items.append(Item(id=f"c{k}", claim=claim, predicted_evidence=ev, reference_evidence=ev, row=k))
    return items

