"""A rewrite of a reference pair that the reference contradicts is no evidence.

A system's pair that restates a gold pair with its words kept and that the gold pair contradicts is the gold evidence
made false ("It is not true that X", "not" inserted, a number or a name swapped). The verifier reads such a denial
badly as a *premise* but well as a *hypothesis* against X (``benchmarks/results/structure_probe.md``), so each
predicted pair that is a rewrite of a reference pair is judged once, as the hypothesis with that reference pair as
the premise, and one the reference contradicts is left out of the premises of recall, of the proxy and of the
combined score's alignments (:func:`ev2r.metric.combined.informative`); its own facts count as unsupported.

* **A rewrite**: the predicted answer holds at least :data:`REWRITE_MIN` (0.7) of the content words of the
  reference answer or of one of its sentences (:func:`claimalign.words.claim_coverage`) and is no copy of it.
* **Contradicted**: P(contradiction | premise = the reference pair, hypothesis = the predicted answer) is at least
  :data:`CONTRADICTION_MIN` (0.5).

Only rewrites are judged: against any reference pair sharing a word, honest denials ("There is no evidence that ...")
read as contradicting unrelated gold text. The threshold's choice is in ``benchmarks/results/contradiction.md``. The
signature names the rule: ``+contra0.5/rw0.7`` on the ``prem`` and ``proxy-rule`` fields.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Optional, Sequence

from claimalign.words import MIN_CLAIM_TOKENS, token_coverage
from ev2r.facts.reading import read_text
from ev2r.facts.rules import split_sentences
from ev2r.types import Item, PremiseReason
from ev2r.verifier.nli import check_probabilities
from ev2r.signature import exact_number

__all__ = ["CONTRADICTION_MIN", "REWRITE_MIN", "is_rewrite", "ReferenceContradiction"]

#: P(contradiction) at or above which the reference contradicts a predicted pair (module docstring).
CONTRADICTION_MIN = 0.5
#: The share of a reference answer's content words a predicted answer must hold to be its rewrite.
REWRITE_MIN = 0.7


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


def is_rewrite(answer: str, reference_answer: str, minimum: float = REWRITE_MIN) -> bool:
    """True when ``answer`` restates ``reference_answer``'s content, or one of its sentences', without
    copying it: it holds at least ``minimum`` of the content words of the reference answer or of one of its
    sentences (either must number at least :data:`claimalign.words.MIN_CLAIM_TOKENS`), and is not part of
    the reference answer (case and spacing folded). The sentences count on their own so that a negated
    reference cut into one pair per sentence is still a rewrite (each such pair may hold
    only about half of a two-sentence answer).

    >>> ref = "The ship was inspected and no body parts were found."
    >>> is_rewrite("It is a myth that the ship was inspected and no body parts were found.", ref)
    True
    >>> is_rewrite("The ship was inspected", ref), is_rewrite("Parliament met on Tuesday.", ref)
    (False, False)
    >>> two = "The Ever Given ship was inspected in Suez. No body parts were found on the ship by divers."
    >>> is_rewrite("It is not true that no body parts were found on the ship by divers.", two)
    True
    """
    if _fold(answer) in _fold(reference_answer):
        return False
    # the whole reference answer, then (when it has several) each of its sentences, as read once
    sentences = split_sentences(reference_answer)
    readings = tuple(map(read_text, (answer, reference_answer, *(sentences if len(sentences) > 1 else ()))))
    held = readings[0].content
    for part in readings[1:]:
        if len(part.content) >= MIN_CLAIM_TOKENS and token_coverage(held, part.content) >= minimum:
            return True
    return False


class ReferenceContradiction:
    """Which predicted pairs of each item the item's reference evidence contradicts.

    Args:
        verifier: any object with ``predict(premises, hypotheses) -> (n, 3)`` (entailment, neutral,
            contradiction), as :mod:`ev2r.verifier.nli`.
        threshold: P(contradiction) at which a pair counts as contradicted, in (0, 1).
        rewrite_min: the share of a reference answer's content words that makes a predicted answer its
            rewrite (:func:`is_rewrite`), in (0, 1].
        cache_size: items whose result is kept (the reference scorer and the proxy ask for the same chunk;
            the second asks without a verifier pass), >= 0.

    Raises:
        ValueError: ``threshold`` outside (0, 1), ``rewrite_min`` outside (0, 1], or ``cache_size`` < 0.
    """

    def __init__(self, verifier, threshold: float = CONTRADICTION_MIN, rewrite_min: float = REWRITE_MIN,
                 cache_size: int = 4096):
        def number(v) -> bool:
            return isinstance(v, (int, float)) and not isinstance(v, bool)

        if not (number(threshold) and 0.0 < threshold < 1.0):
            raise ValueError(f"threshold: expected a number in (0, 1), got {threshold!r}")
        if not (number(rewrite_min) and 0.0 < rewrite_min <= 1.0):
            raise ValueError(f"rewrite_min: expected a number in (0, 1], got {rewrite_min!r}")
        if isinstance(cache_size, bool) or not isinstance(cache_size, int) or cache_size < 0:
            raise ValueError(f"cache_size: expected an int >= 0, got {cache_size!r}")
        self.verifier = verifier
        self.threshold = threshold
        self.rewrite_min = rewrite_min
        self.cache_size = cache_size
        self._cache: "OrderedDict[tuple, dict[int, PremiseReason]]" = OrderedDict()
        self.n_pairs_checked = 0

    @property
    def rule(self) -> str:
        """The signature's name of the rule (``contra0.5/rw0.7``)."""
        return f"contra{exact_number(self.threshold)}/rw{exact_number(self.rewrite_min)}"

    @staticmethod
    def _key(item: Item, reading: str) -> tuple:
        return (item.claim, item.predicted_evidence, item.reference_evidence, reading)

    def contradicted(self, items: Sequence[Item], admitted=None) -> list[dict[int, PremiseReason]]:
        """Per item, predicted pair index -> the reference pair that contradicts it (a
        :class:`~ev2r.types.PremiseReason` with ``side="reference"``: that pair's index, its text and the
        verifier's distribution with the predicted answer as the hypothesis); ``{}`` when none is.

        The predicted pairs checked are those of :func:`ev2r.metric.reference.evidence_pairs` with the claim
        (answer-only, on topic), less copies of a reference pair, each against the reference pairs with an
        answer that it rewrites (:func:`is_rewrite`). ``admitted``: the chunk's admission readings
        (:func:`ev2r.metric.admitted.admit_items`), None to read each item afresh with the rules alone.
        """
        from ev2r.metric.admission_model import model_cache_key
        from ev2r.metric.admitted import Admitted
        from ev2r.metric.reference import evidence_pairs, pair_key

        admitted = admitted if admitted is not None else Admitted()
        reading = model_cache_key(admitted.model) if admitted.model is not None else "rules"

        out: list[Optional[dict[int, PremiseReason]]] = [None] * len(items)
        premises: list[str] = []
        hypotheses: list[str] = []
        plans = []  # (item, predicted pair index, [(ref pair index, premise)], n ref pairs, start)
        for i, item in enumerate(items):
            hit = self._cache.get(self._key(item, reading))
            if hit is not None:
                self._cache.move_to_end(self._key(item, reading))
                out[i] = hit
                continue
            ref = evidence_pairs(item.reference_evidence, None, admitted=admitted)
            gold = {pair_key(p) for p in item.reference_evidence.pairs}
            out[i] = {}
            if not ref:
                continue
            for k, p in evidence_pairs(item.predicted_evidence, item.claim, relevant=True,
                                       gold=item.reference_evidence, admitted=admitted):
                if pair_key(item.predicted_evidence.pairs[k]) in gold:
                    continue
                kept = [(j, q.render()) for j, q in ref if is_rewrite(p.answer, q.answer, self.rewrite_min)]
                if not kept:
                    continue
                start = len(premises)
                premises.extend(text for _, text in kept)
                hypotheses.extend([p.answer] * len(kept))
                plans.append((i, k, kept, len(ref), start))
        self.n_pairs_checked += len(premises)
        probs = (check_probabilities(self.verifier.predict(premises, hypotheses), len(premises))
                 if premises else None)
        for i, k, checked, n_ref, start in plans:
            block = probs[start:start + len(checked)]  # type: ignore[index]
            best = int(block[:, 2].argmax())
            if block[best, 2] >= self.threshold:
                j, text = checked[best]
                e, n, c = (round(float(x), 6) for x in block[best])
                out[i][k] = PremiseReason("reference", j, text, e, n, c, n_ref, len(checked))  # type: ignore[index]
        for item, res in zip(items, out):
            if self.cache_size:
                self._cache[self._key(item, reading)] = res  # type: ignore[assignment]
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return out  # type: ignore[return-value]
