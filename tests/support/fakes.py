"""The shared fakes of the test suite: deterministic stand-in verifiers (``predict(premises,
hypotheses) -> (n, 3)`` rows [P(entailment), P(neutral), P(contradiction)] summing to 1, and a
``name``) and fast toy scorers for the adversarial suite. No model is loaded.

Ray workers import this module too (``tests/`` is on their PYTHONPATH, see the ``ray_local``
fixture), so it imports only numpy and ev2r's types.
"""

from __future__ import annotations

import os
import re
import time

import numpy as np

from ev2r.types import Evidence, Item, QAPair

_WORD = re.compile(r"[a-z0-9]+")


# -- verifiers ---------------------------------------------------------------------------------
class KeywordVerifier:
    """A deterministic fake verifier: entailment when every word of the hypothesis (lower-cased,
    4+ letters) occurs in the premise, contradiction when the hypothesis contains 'not' and the
    premise does not, else neutral. Records every call."""

    name = "keyword-fake"

    def __init__(self):
        self.calls = []

    def predict(self, premises, hypotheses):
        self.calls.append((list(premises), list(hypotheses)))
        out = []
        for p, h in zip(premises, hypotheses):
            pw = set(w.strip(".,?!:").lower() for w in p.split())
            hw = [w.strip(".,?!:").lower() for w in h.split()]
            if "not" in hw and "not" not in pw:
                out.append([0.05, 0.05, 0.9])
            elif all(w in pw for w in hw if len(w) >= 4):
                out.append([0.9, 0.05, 0.05])
            else:
                out.append([0.1, 0.8, 0.1])
        return np.array(out, dtype=float).reshape(-1, 3)


class OverlapVerifier:
    """Stand-in verifier: P(entailment) grows with the share of hypothesis words found in the
    premise; a 'not' on one side only means contradiction. Rows sum to 1."""

    name = "overlap-fake"

    def __init__(self):
        self.calls = 0

    def predict(self, premises, hypotheses):
        self.calls += 1
        out = np.zeros((len(premises), 3))
        for k, (p, h) in enumerate(zip(premises, hypotheses)):
            pw, hw = set(_WORD.findall(p.lower())), set(_WORD.findall(h.lower()))
            r = len(pw & hw) / max(1, len(hw))
            if ("not" in pw) != ("not" in hw):
                out[k] = (0.05, 0.15, 0.8)
            else:
                e = 0.05 + 0.9 * r
                out[k] = (e, (1 - e) * 0.7, (1 - e) * 0.3)
        return out


class AllWordsVerifier:
    """Stand-in NLI verifier: entailment when every word (3+ letters) of the hypothesis occurs in
    the premise, else neutral."""

    name = "overlap-standin"

    def __init__(self):
        self.n_pairs = 0

    def predict(self, premises, hypotheses):
        self.n_pairs += len(premises)
        rows = []
        for p, h in zip(premises, hypotheses):
            pw = {w.strip(".,?!:").lower() for w in p.split()}
            hw = [w.strip(".,?!:").lower() for w in h.split() if len(w.strip(".,?!:")) >= 3]
            rows.append([0.9, 0.05, 0.05] if hw and all(w in pw for w in hw) else [0.05, 0.9, 0.05])
        return np.array(rows, dtype=float).reshape(-1, 3)


class WordVerifier:
    """P(entailment) grows with the share of hypothesis words found in the premise; 'not' on one
    side only means contradiction. A hypothesis containing ``boom`` raises (the item fails with
    status ``error``, as locally); one containing ``slowly`` waits ``delay`` seconds."""

    name = "word-fake"

    def __init__(self, delay: float = 0.0):
        self.delay = delay

    def predict(self, premises, hypotheses):
        out = np.zeros((len(premises), 3))
        for k, (p, h) in enumerate(zip(premises, hypotheses)):
            pw, hw = set(_WORD.findall(p.lower())), set(_WORD.findall(h.lower()))
            if "boom" in hw:
                raise RuntimeError("the verifier broke on this pair")
            if "slowly" in hw and self.delay:
                time.sleep(self.delay)
            r = len(pw & hw) / max(1, len(hw))
            if ("not" in pw) != ("not" in hw):
                out[k] = (0.05, 0.15, 0.8)
            else:
                e = 0.05 + 0.9 * r / 3.0 ** 0.5
                out[k] = (e, (1 - e) * 0.7, (1 - e) * 0.3)
        return out


class CrashOnceVerifier(WordVerifier):
    """A :class:`WordVerifier` whose process dies (``os._exit``) at its first call while
    ``marker`` does not exist; the one that creates ``marker`` dies, later calls score."""

    def __init__(self, marker: str):
        super().__init__()
        self.marker = marker

    def predict(self, premises, hypotheses):
        try:
            fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return super().predict(premises, hypotheses)
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        os._exit(1)  # a worker killed in the middle of a chunk


# -- toy scorers for the adversarial suite ------------------------------------------------



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



class GullibleVerifier(OverlapVerifier):
    """:class:`OverlapVerifier`, except that a premise or hypothesis without a letter or digit gets
    P(entailment) 0.85 -- what the bundled verifier did with "...", "?!?!" or emoji: a
    scorer that lets such text through is caught by it."""

    name = "gullible-fake"

    def predict(self, premises, hypotheses):
        out = super().predict(premises, hypotheses)
        for k, (p, h) in enumerate(zip(premises, hypotheses)):
            if not any(c.isalnum() for c in h) or not any(c.isalnum() for c in p.split("Answer:")[-1]):
                out[k] = (0.85, 0.1, 0.05)
        return out
