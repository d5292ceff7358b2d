"""Reference-based scores: precision, recall and F1 over atomic facts (Akhtar et al. 2024, sec. 3.1).

    precision = |predicted facts supported by the reference evidence| / |predicted facts|
    recall    = |reference facts supported by the predicted evidence| / |reference facts|
    F1        = 2 P R / (P + R)             (0 when P = R = 0)

Backends implement :class:`ReferenceScorer`; this module holds the offline one
(:class:`NLIReferenceScorer`: a decomposer plus an NLI verifier). :mod:`ev2r.facts.replay` replays
recorded LLM judgements and :mod:`ev2r.llm` asks a live LLM.

How a probability becomes support (NLI backend): a fact is the hypothesis; each question/answer
pair of the other side's evidence is a premise; the fact's support probability is the maximum
P(entailment) over those premises (a fact needs one passage that entails it -- the per-pair
aggregation measured in shared/design/VERIFIER_NOTES.md); the fact counts as supported when
that probability is >= ``threshold`` (0.5 by default, the point where entailment is the more
likely reading). ``support="soft"`` uses the probabilities themselves (expected counts).

Edge cases (defined, never NaN): no predicted facts -> precision 0 (a system that retrieved
nothing is credited with nothing); no reference facts -> precision/recall/F1 are None and the
item's status is ``no_reference``.
"""

from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable

import numpy as np

from ev2r.config import DEFAULTS, SUPPORT_MODES  # noqa: F401 (SUPPORT_MODES re-exported)
from ev2r.facts.rules import Decomposer
from ev2r.scores import ReferenceResult, f1_score, prf_from_support  # noqa: F401 (re-exported)
from ev2r.types import AtomicFact, Evidence, FactSupport, Item, STATUS_OK
from ev2r.verifier.nli import check_probabilities


@runtime_checkable
class ReferenceScorer(Protocol):
    """Scores items' predicted evidence against their reference evidence.

    ``score_reference(items)`` returns one :class:`ReferenceResult` per item, in order; a failure
    on one item is recorded in that item's ``status``/``error`` and never raises for the batch.
    ``signature_fields()`` returns the settings that change the numbers (for the signature).
    """

    name: str

    def score_reference(self, items: Sequence[Item]) -> list[ReferenceResult]: ...

    def signature_fields(self) -> dict[str, str]: ...


def pair_premises(evidence: Evidence) -> list[str]:
    """Premises for support checks: each non-empty question/answer pair rendered on its own."""
    return [p.render() for p in evidence.pairs if p.answer.strip()]


class NLIReferenceScorer:
    """Offline reference-based scorer: decomposer + NLI verifier.

    Args:
        verifier: any object with ``predict(premises, hypotheses) -> (n, 3)`` (see ev2r.verifier.nli).
        decomposer: a :class:`~ev2r.facts.rules.Decomposer`.
        threshold: support threshold on P(entailment), in (0, 1).
        support: ``"threshold"`` (0/1 per fact) or ``"soft"`` (the probability itself).
    """

    def __init__(self, verifier, decomposer: Decomposer, threshold: float = DEFAULTS.threshold,
                 support: str = DEFAULTS.support):
        if not (0.0 < threshold < 1.0):
            raise ValueError(f"threshold: expected a value in (0, 1), got {threshold!r}")
        if support not in SUPPORT_MODES:
            raise ValueError(f"support: {support!r} is not one of {SUPPORT_MODES}")
        self.verifier = verifier
        self.decomposer = decomposer
        self.threshold = threshold
        self.support = support
        self.name = f"nli:{decomposer.name}"

    def signature_fields(self) -> dict[str, str]:
        rule = f"p>={self.threshold:g}" if self.support == "threshold" else "soft"
        return {"ref": "nli", "decomp": self.decomposer.name, "support": rule, "prem": "qa-pair-max"}

    def score_reference(self, items: Sequence[Item]) -> list[ReferenceResult]:
        results: list[ReferenceResult] = [ReferenceResult() for _ in items]
        plans = []  # per item: (pred facts, ref facts, pred premises, ref premises)
        premises: list[str] = []
        hypotheses: list[str] = []
        spans: list[tuple[int, str, int, int, int]] = []  # (item, side, fact index, start, stop)
        for i, item in enumerate(items):
            try:
                pred_facts = self.decomposer.decompose(item.predicted_evidence, item.claim)
                ref_facts = self.decomposer.decompose(item.reference_evidence, item.claim)
            except Exception as e:  # recorded on the item, the batch goes on
                results[i].status, results[i].error = "error", f"decomposition failed: {type(e).__name__}: {e}"
                plans.append(None)
                continue
            plans.append((pred_facts, ref_facts))
            if not ref_facts:
                results[i].status, results[i].error = "no_reference", "reference_evidence has no atomic facts"
            for side, facts, other in (("pred", pred_facts, item.reference_evidence),
                                       ("ref", ref_facts, item.predicted_evidence)):
                prem = pair_premises(other)
                for f_idx, fact in enumerate(facts):
                    start = len(premises)
                    premises.extend(prem)
                    hypotheses.extend([fact.text] * len(prem))
                    spans.append((i, side, f_idx, start, len(premises)))
        probs = (check_probabilities(self.verifier.predict(premises, hypotheses), len(premises))
                 if premises else np.zeros((0, 3)))
        entail: dict[tuple[int, str, int], float] = {}
        for i, side, f_idx, start, stop in spans:
            entail[(i, side, f_idx)] = float(probs[start:stop, 0].max()) if stop > start else 0.0
        for i, plan in enumerate(plans):
            if plan is None:
                continue
            pred_facts, ref_facts = plan
            res = results[i]
            res.predicted_facts = self._judge(i, "pred", pred_facts, entail)
            res.reference_facts = self._judge(i, "ref", ref_facts, entail)
            if res.status != STATUS_OK:
                continue
            val = (lambda fs: [f.probability if self.support == "soft" else float(f.supported) for f in fs])
            res.precision, res.recall, res.f1 = prf_from_support(val(res.predicted_facts), val(res.reference_facts))
        return results

    def _judge(self, i: int, side: str, facts: list[AtomicFact], entail) -> list[FactSupport]:
        out = []
        for k, f in enumerate(facts):
            p = entail[(i, side, k)]
            out.append(FactSupport(fact=f.text, supported=p >= self.threshold, probability=round(p, 6)))
        return out
