"""Proxy-reference score: P(verdict | claim, predicted evidence) (Akhtar et al. 2024, sec. 3.2).

The paper fine-tunes an NLI model and reads the probability it gives the claim's verdict when the predicted
evidence is the premise and the claim the hypothesis. Here:

* each question/answer pair of the predicted evidence is one premise; the per-pair distributions are aggregated
  as in :func:`ev2r.verifier.nli.aggregate_windows` with ``"max"`` (P(e), P(c) the maxima over pairs, P(n) the
  minimum, renormalised); no premise yields (0, 1, 0);
* the verdict is mapped to the verifier's classes by :data:`ev2r.labels.VERDICT_TO_NLI`
  (``Conflicting Evidence/Cherrypicking`` -> ``min(P(e), P(c)) * 2``);
* the premises are the pairs of :func:`ev2r.metric.reference.evidence_pairs` with the item's claim: the question
  is context, not evidence, so a bare answer, a restatement of the claim, an off-topic pair and a pair the
  reference contradicts (:mod:`ev2r.metric.contradiction`) are no premise; a copy of a reference pair is read as
  the reference reads it;
* for a Not Enough Evidence target the proxy is ``P(neutral) * relevance``, ``relevance = min(1, c / RELEVANCE_FULL)``
  with ``c`` the largest share of the claim's content words one premise holds
  (:func:`claimalign.words.claim_coverage`): evidence about something else, or none, earns nothing;
* a claim read in part (:func:`claim_read_in_part`) and absence statements on the claim (:func:`absence_on_claim`)
  are flagged in the row's ``error`` (status ok); the score stands as defined.

Target: the claim's **gold** verdict (signature ``proxy:nli-gold``). The annotators' verdict on the predicted evidence
(``human_label``, the authors' released code), a labelled comparison only, is computed by commit e43eb97
(``--proxy-target human``).
"""

from __future__ import annotations

from typing import Collection, Optional, Sequence

import numpy as np

from claimalign.words import token_coverage
from ev2r.facts.reading import read_text
from ev2r.labels import Verdict, verdict_probability
from ev2r.metric.reference import RELEVANCE_CLAIM_CAP, evidence_pairs, premise_rule
from ev2r.scores import ProxyResult  # noqa: F401 (re-exported)
from ev2r.types import Item, PremiseReason
from ev2r.verifier.nli import aggregate_windows, check_probabilities

#: The share of the claim's content words one premise must hold for full relevance (module docstring).
RELEVANCE_FULL = 0.25


def relevance(premises: Sequence[str], claim: str) -> float:
    """``min(1, max over premises of claim_coverage(premise, claim) / RELEVANCE_FULL)``, in [0, 1];
    0 without premises (the share out of at most :data:`ev2r.metric.reference.RELEVANCE_CLAIM_CAP` claim
    content tokens, as for the premises).

    >>> relevance(["Paris is the capital of France."], "Kerala has 3 million Muslims.")
    0.0
    """
    claim_words = read_text(claim).content
    best = 0.0
    for held in [r.content for r in map(read_text, premises)]:
        best = max(best, token_coverage(held, claim_words, RELEVANCE_CLAIM_CAP))
    return min(1.0, best / RELEVANCE_FULL)


#: The start of the note (the flag) on an item whose claim is longer than the verifier reads reliably or whole
#: (:func:`claim_read_in_part`).
LONG_CLAIM = "long claim"


def claim_read_in_part(verifier, claim: str, premises: Sequence[str]) -> Optional[str]:
    """The note for an item whose claim is longer than half the verifier's token window, or None.

    Half the window is where the verifier's long-hypothesis rule starts (:mod:`ev2r.verifier.nli`): such a claim
    is read in windows (its clauses, then token windows, each without the rest) when it does not fit beside a
    premise, and even read whole it is longer than the claims the verifier reads reliably: a deciding part late
    in it may be misread (a 92-word claim, 105 tokens, ending "... the footbridge has never opened." got
    P(contradiction) 0.001 against "The footbridge opened in May 2019."; its 5-word form 0.98). Read only where the
    verifier exposes its tokenizer and window once loaded (the bundled and hub verifiers); other verifiers (LLM
    judges, test fakes) give None.

    Args:
        verifier: the proxy's verifier (after ``predict``).
        claim: the item's claim.
        premises: the premises the proxy read for it (rendered pairs); none: None (nothing was read).

    Returns:
        ``"long claim: ..."`` naming the claim's token count, the window and whether it was read
        in windows; or None.
    """
    tokenizer, window = getattr(verifier, "_tokenizer", None), getattr(verifier, "_window", None)
    if tokenizer is None or not isinstance(window, int) or not premises:
        return None
    special = int(getattr(verifier, "_n_special", 3))

    def n_tokens(text: str) -> int:
        return len(tokenizer(text, add_special_tokens=False)["input_ids"])
    h_len = n_tokens(claim)
    if h_len <= window // 2:
        return None
    windowed = any(h_len + n_tokens(p) + special > window for p in premises)
    how = ("did not fit beside its evidence, so it was read in windows (clauses, token windows), each without the "
           "rest" if windowed else "was read whole, at the edge of what the verifier reads reliably")
    return (f"{LONG_CLAIM}: the claim has {h_len} tokens, more than half the verifier's {window}-token window, "
            f"and {how}: a deciding part late in the claim may be misread by the proxy; the score stands -- check "
            "this item, or score the claim's atomic claims as items")


#: The start of the note (the flag) on a Not Enough Evidence item whose evidence says what is missing about the claim
#: (:func:`absence_on_claim`).
ABSENCE_ON_CLAIM = "not enough evidence, absence on the claim"


def absence_on_claim(item: Item, contradicted: Collection[int] = (), admitted=None) -> Optional[str]:
    """The note for a Not Enough Evidence item some of whose predicted pairs say, on the claim, what is missing
    ("The post cites no measurement and no source for its radiation figures.") and none of whose other predicted pairs
    is admitted, so that it scores as no evidence would; or None.

    The admission stage's learned reading (``admission-v1``) refuses such absence statements as evidence -- so that
    "nothing was found about <claim>" cannot earn the Not Enough Evidence verdict for free (the gaming suite) -- and
    every score of the registered versions gives them no credit: the item scores what no evidence scores. The note
    says so, so that its 0 is not read as "nothing retrieved" (the scores are unchanged: giving such
    evidence credit is a new score version). A pair counts when the learned reading dropped it with the label
    ``absence`` and its answer holds a content word of the claim (:func:`relevance` above 0). The note says the item
    "scores as no evidence would", so it is given only where that holds: no other predicted pair is admitted (in the
    widest view, the precision side's, off-topic pairs included; the pairs the reference contradicts, ``contradicted``,
    left out as every score leaves them out). An absence statement beside a pair that is scored gives no note: the
    item scores what that pair earns.

    Args:
        item: the item (its gold verdict, claim and predicted evidence).
        contradicted: the indexes of the predicted pairs the reference contradicts
            (:mod:`ev2r.metric.contradiction`).
        admitted: the chunk's admission readings (:func:`ev2r.metric.admitted.admit_items`), read with the learned
            reading of non-evidence; None (or readings without a learned reading): None.

    Returns:
        ``"not enough evidence, absence on the claim: ..."`` naming the pairs, or None (another verdict, no such
        pair, or another pair that is scored).
    """
    from ev2r.metric.admitted import admit

    if item.gold_label is not Verdict.NOT_ENOUGH_EVIDENCE:
        return None
    said = [a for a in admit(item.predicted_evidence, item.claim, relevant=True, gold=item.reference_evidence,
                             admitted=admitted)
            if not a.kept and a.reason == "non_evidence" and a.label == "absence"
            and relevance([a.pair.answer], item.claim) > 0]
    if not said:
        return None
    if any(a.kept for a in admit(item.predicted_evidence, item.claim, gold=item.reference_evidence,
                                 exclude=tuple(contradicted), admitted=admitted)):
        return None  # another pair is scored: the item does not score as no evidence would
    shown = ", ".join(f"{a.index} ({a.pair.answer[:60]!r})" for a in said[:3]) + (" ..." if len(said) > 3 else "")
    return (f"{ABSENCE_ON_CLAIM}: {len(said)} predicted pair(s) say what is missing about the claim (pairs {shown}); "
            "the admission stage reads them as absence statements, which earn no score, so this item scores as "
            "no evidence would")


class NLIProxyScorer:
    """P(gold verdict | claim, predicted evidence) from an NLI verifier.

    Args:
        verifier: object with ``predict(premises, hypotheses) -> (n, 3)``.
        contradiction: optional :class:`ev2r.metric.contradiction.ReferenceContradiction` (its vetoed pairs are
            no premise).
        verifier_name: the name of ``verifier`` when it is the proxy's own, not the one of the reference-based part
            (``proxy_verifier`` of :func:`ev2r.build_scorer`): it enters the signature as ``proxy-verifier``.
    """

    #: Whose verdict the proxy scores (the signature's ``proxy:nli-gold``).
    target = "gold"

    def __init__(self, verifier, contradiction=None, verifier_name: Optional[str] = None):
        self.verifier = verifier
        self.contradiction = contradiction
        self.verifier_name = verifier_name

    def signature_fields(self) -> dict[str, str]:
        rule = f"{premise_rule()}+nee-rel-all"
        if self.contradiction is not None:
            rule += f"+{self.contradiction.rule}"
        own = {} if self.verifier_name is None else {"proxy-verifier": self.verifier_name}
        return {"proxy": f"nli-{self.target}", **own, "agg": "qa-pair-max", "proxy-rule": rule}

    def distributions(self, items: Sequence[Item], admitted=None) -> list[np.ndarray]:
        """The aggregated (entailment, neutral, contradiction) distribution per item (premises: the
        predicted pairs that are evidence for the item's claim, module docstring; ``admitted``: the chunk's admission
        readings, :func:`ev2r.metric.admitted.admit_items`, None to read afresh with the rules alone)."""
        return [d for d, _ in self._distributions(items, admitted=admitted)]

    def _distributions(self, items: Sequence[Item], reasons: Optional[list] = None,
                       vetoed: Optional[list] = None, admitted=None) -> list[tuple[np.ndarray, float]]:
        """Per item (aggregated distribution, relevance); ``reasons``, when given, receives per item the
        list of :class:`ev2r.types.PremiseReason` of its premises; ``vetoed``, when given, receives
        per item the predicted pairs the reference contradicts (left out: :mod:`ev2r.metric.contradiction`)."""
        premises, hypotheses, spans, rel, where = [], [], [], [], []
        contra = (self.contradiction.contradicted(items, admitted) if self.contradiction is not None
                  else [{} for _ in items])
        if vetoed is not None:
            vetoed.extend(contra)
        for item, no in zip(items, contra):
            pairs = [(k, p) for k, p in evidence_pairs(item.predicted_evidence, item.claim, relevant=True,
                                                        gold=item.reference_evidence, admitted=admitted)
                     if k not in no]
            prem = [p.render() for _, p in pairs]
            where.append([k for k, _ in pairs])
            rel.append(relevance(prem, item.claim))
            start = len(premises)
            premises.extend(prem)
            hypotheses.extend([item.claim] * len(prem))
            spans.append((start, len(premises)))
        probs = (check_probabilities(self.verifier.predict(premises, hypotheses), len(premises))
                 if premises else np.zeros((0, 3)))
        out = []
        for (start, stop), r, idx in zip(spans, rel, where):
            out.append((aggregate_windows(probs[start:stop], "max") if stop > start else np.array([0.0, 1.0, 0.0]), r))
            if reasons is not None:
                reasons.append([PremiseReason("predicted", k, premises[start + j],
                                              *(round(float(x), 6) for x in probs[start + j]),
                                              stop - start, stop - start)
                                for j, k in enumerate(idx)])
        return out

    def score_proxy(self, items: Sequence[Item], admitted=None) -> list[ProxyResult]:
        """One :class:`ProxyResult` per item, in order (module docstring); ``admitted``: the chunk's admission
        readings (:func:`ev2r.metric.admitted.admit_items`), None to read each item afresh with the rules alone."""
        results: list[Optional[ProxyResult]] = [None] * len(items)
        todo = []
        for i, item in enumerate(items):
            target = item.gold_label
            if target is None:
                results[i] = ProxyResult(None, None, "no_label",
                                         "gold_label is missing: proxy needs the claim's verdict")
                continue
            todo.append((i, target))
        reasons: list = []
        vetoed: list = []
        if admitted is not None:
            admitted = admitted.for_part("proxy")
        dists = self._distributions([items[i] for i, _ in todo], reasons, vetoed, admitted)
        for (i, target), (d, rel), prem, no in zip(todo, dists, reasons, vetoed):
            p = verdict_probability(target, *d)
            if target is Verdict.NOT_ENOUGH_EVIDENCE:  # for every claim length, short claims too
                p *= rel
            decided = None
            if prem:  # the pair the aggregate took its value from (module docstring: max e / max c / min n)
                if target is Verdict.NOT_ENOUGH_EVIDENCE:
                    decided = min(range(len(prem)), key=lambda j: prem[j].neutral)
                else:
                    decided = max(range(len(prem)), key=lambda j: verdict_probability(
                        target, prem[j].entailment, prem[j].neutral, prem[j].contradiction))
            notes = [claim_read_in_part(self.verifier, items[i].claim, [r.premise for r in prem]),
                     absence_on_claim(items[i], tuple(no), admitted)]
            results[i] = ProxyResult(p, tuple(round(float(x), 6) for x in d), premises=prem, decided_by=decided,
                                     contradicted_pairs=no, note="; ".join(n for n in notes if n) or None)
        return results  # type: ignore[return-value]
