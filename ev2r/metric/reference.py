"""Reference-based scores: precision, recall and F1 over atomic facts (Akhtar et al. 2024, sec. 3.1).

    precision = |predicted facts supported by the reference evidence| / |predicted facts|
    recall    = |reference facts supported by the predicted evidence| / |reference facts|
    F1        = 2 P R / (P + R)             (0 when P = R = 0)

Backends implement :class:`ReferenceScorer`; this module holds the offline one (:class:`NLIReferenceScorer`: a
decomposer plus an NLI verifier); :mod:`ev2r.facts.replay` replays recorded LLM judgements, :mod:`ev2r.llm` asks
a live LLM. A fact is the hypothesis, each question/answer pair of the other side a premise; its support is the
maximum P(entailment) over the premises, counted as supported (1) at >= ``threshold`` (0.5), else not (0). The
graded scores (``graded_*`` extra columns) use the *calibrated* probability of
:mod:`ev2r.verifier.calibration` (None, with an ``UncalibratedWarning``, for a verifier without a calibration).

Premise rules (named in the signature's ``prem`` field): a near-copy of a fact's own pair on the other side
supports it by its similarity grade (``+twin~``, :func:`copy_similarity`, unless the verifier reads it as a
contradiction); a premise sharing no content word with the fact is not asked (``+anchor``,
:func:`shares_content`); a rewrite of a reference pair that the reference contradicts is no evidence
(``contradiction``, :mod:`ev2r.metric.contradiction`). ``premise_window=k`` (k >= 2) adds runs of k consecutive
pairs as premises; each fact is asked only against its :data:`ev2r.config.PREMISE_TOP_K` premises of highest lexical
overlap (:func:`ev2r.metric.prefilter.top_k_premises`; ``+lex-top5``).

Edge cases (never NaN): no predicted facts -> precision 0; no reference facts -> precision/recall/F1 None and
status ``no_reference``.
"""

from __future__ import annotations

import warnings
from typing import Optional, Protocol, Sequence, runtime_checkable

import numpy as np

from ev2r.config import DEFAULTS, PREMISE_TOP_K
from ev2r.facts.reading import read_text
from ev2r.facts.rules import Decomposer
from ev2r.metric.admission import (ANSWER_MIN_WORDS, PREMISE_RELEVANCE_MIN, RELEVANCE_CLAIM_CAP,  # noqa: F401
                                   SHORT_CLAIM_MIN_SHARED, TWIN_MIN_SIMILARITY,
                                   copy_grade, copy_similarity, fact_restates_claim, is_near_copy,
                                   pair_key, respell_rule, COPY_TEXT, respell_pair)
from ev2r.metric.admitted import Admitted, admit
from ev2r.metric.prefilter import top_k_premises
from ev2r.scores import ReferenceResult, f1_score, prf_from_support  # noqa: F401 (re-exported)
from ev2r.metric.restatement import SPAN_MIN_TOKENS
from ev2r.types import AtomicFact, Evidence, FactSupport, Item, PremiseReason, QAPair, STATUS_OK
from ev2r.signature import exact_number
from ev2r.verifier.calibration import Calibration, UncalibratedWarning, calibration_for
from ev2r.verifier.nli import check_probabilities

#: The graded columns (per-item ``extra_scores`` and corpus means), in this order.
GRADED_NAMES = ("graded_precision", "graded_recall", "graded_f1")


@runtime_checkable
class ReferenceScorer(Protocol):
    """Scores items' predicted evidence against their reference evidence.

    ``score_reference(items)`` returns one :class:`ReferenceResult` per item, in order; a failure
    on one item is recorded in that item's ``status``/``error`` and never raises for the batch.
    ``signature_fields()`` returns the settings that change the numbers (for the signature).
    """

    name: str

    def score_reference(self, items: Sequence[Item], admitted: Optional[Admitted] = None) -> list[ReferenceResult]: ...

    def signature_fields(self) -> dict[str, str]: ...


#: The signature value of the premise rules (:func:`evidence_pairs` with a claim), written from the constants:
#: ``pred-answer-<ANSWER_MIN_WORDS>w+span<SPAN_MIN_TOKENS>``.
PREMISE_RULE = f"pred-answer-{ANSWER_MIN_WORDS}w+span{SPAN_MIN_TOKENS}"
#: The relevance rule's part of the premise rule (the admission stage's ``off_topic`` family, where in force):
#: ``+rel<PREMISE_RELEVANCE_MIN>/<RELEVANCE_CLAIM_CAP>+short<SHORT_CLAIM_MIN_SHARED>``.
RELEVANCE_RULE = f"+rel{PREMISE_RELEVANCE_MIN:g}/{RELEVANCE_CLAIM_CAP}+short{SHORT_CLAIM_MIN_SHARED}"


def premise_rule() -> str:
    """:data:`PREMISE_RULE`, the relevance rule (:data:`RELEVANCE_RULE`), and how restatements read synonyms here:
    ``+wnsyn`` where nltk's WordNet is found (:func:`claimalign.meteor_fast.synonyms_available`: a word whose synonym
    is a claim word counts as that word), ``+nosyn`` where it is not (the same text can then keep a pair that the
    other reading drops). Its numbers are read from the constants as the running code has them (the values of
    :data:`PREMISE_RULE` and :data:`RELEVANCE_RULE` by default)."""
    from claimalign.meteor_fast import synonyms_available
    from ev2r.metric import admission, restatement

    rule = f"pred-answer-{admission.ANSWER_MIN_WORDS}w+span{restatement.SPAN_MIN_TOKENS}"
    relevance = (f"+rel{admission.PREMISE_RELEVANCE_MIN:g}/{admission.RELEVANCE_CLAIM_CAP}"
                 f"+short{admission.SHORT_CLAIM_MIN_SHARED}")
    return rule + relevance + ("+wnsyn" if synonyms_available() else "+nosyn")


def shares_content(hypothesis: str, premise: str) -> bool:
    """True when ``premise`` holds a content word of ``hypothesis`` (:func:`claimalign.words.content_tokens`:
    Porter stems and numbers, function words left out), or the hypothesis has none (nothing to anchor). The
    ``+anchor`` premise rule (module docstring). WordNet synonyms are not read: they join words far apart
    ("made" and "cause" share a synset), so an unrelated premise would pass again.

    >>> shares_content("The vaccine was approved in 2021.", "Question: When? Answer: Regulators approved it.")
    True
    >>> shares_content("Amanda Wilcox made the claim.", "Sunscreen protects the skin from sunburn.")
    False
    """
    hyp = read_text(hypothesis).content
    return not hyp or not hyp.isdisjoint(read_text(premise).content)


def evidence_pairs(evidence: Evidence, claim: Optional[str] = None, relevant: bool = False,
                   gold: Optional[Evidence] = None, admitted: Optional[Admitted] = None) -> list[tuple[int, QAPair]]:
    """The pairs of ``evidence`` that are evidence, with their index: ``(index, pair)``, in order.

    A pair is evidence only through its answer. Left out: an answer that states nothing (empty,
    without a letter or digit, :func:`ev2r.types.has_content`) or is AVeriTeC's Unanswerable text in
    any of the ways people type it (:func:`ev2r.types.is_unanswerable`). With ``claim``
    (the question is context, not evidence), also left out: a **bare** answer ("Yes.",
    "No", "x", a URL: :func:`claimalign.words.is_bare_answer`) or an answer of one word ("2021",
    "Paris.", punctuation around it not counted), whose pair a verifier would judge by its question alone (the
    gaming suite's ``reference_questions_trivial`` copies the reference's questions and answers "2021"; 5 of the 956
    real predicted pairs of the two development sets have a one-word answer), and an answer that **restates the claim**
    (:func:`ev2r.metric.restatement.restates_claim`: the claim copied, or wrapped in "It is (not) true that ..."), which
    is the claim, not evidence for it. Each kept answer loses its scraped-page boilerplate units
    (:func:`ev2r.facts.rules.strip_boilerplate`: what is no fact is no premise); a pair left with no answer text is left
    out; with ``claim``, so is a pair the learned reading of non-evidence (if the readings were made with one) finds
    below its threshold. With ``relevant=True`` (the predicted side: what a system
    retrieved), a pair holding under :data:`PREMISE_RELEVANCE_MIN` of the claim's content words
    (:func:`claimalign.words.claim_coverage`, out of at most :data:`RELEVANCE_CLAIM_CAP`) is off-topic and no premise
    either (a claim of fewer than :data:`claimalign.words.MIN_CLAIM_TOKENS` content words keeps every pair). ev2r
    gives ``claim`` (and ``relevant``) for the predicted evidence only: the reference is the gold evidence, whatever it
    restates. A pair that is a copy of a pair of ``gold`` (the item's reference evidence; :func:`pair_key`) is read as
    the reference reads it (content, Unanswerable and boilerplate rules only): a copy of the gold evidence is evidence,
    whatever it restates.

    The decision is :func:`ev2r.metric.admitted.admit`'s (the one admission stage), read from ``admitted`` (the
    chunk's readings, :func:`ev2r.metric.admitted.admit_items`, with the learned reading of non-evidence they were
    made with); without it, ``evidence`` is read afresh with the rules alone.
    """
    return [(a.index, a.pair) for a in admit(evidence, claim, relevant, gold, admitted=admitted)
            if a.kept]


def pair_premises(evidence: Evidence, claim: Optional[str] = None, relevant: bool = False) -> list[str]:
    """Premises for support checks (and the proxy): each pair of :func:`evidence_pairs` rendered on
    its own (``claim``: the item's claim, which a pair must not merely restate; None reads every pair
    with an answer). A pair left out supports no fact and is no evidence for a verdict."""
    return [p.render() for _, p in evidence_pairs(evidence, claim, relevant)]


def window_premises(premises: Sequence[str], k: int) -> list[str]:
    """Every run of ``k`` consecutive premises joined by a blank line (none when there are fewer
    than ``k``; ``k`` < 2 gives none).

    >>> window_premises(["a", "b", "c"], 2)
    ['a\\n\\nb', 'b\\n\\nc']
    """
    if k < 2:
        return []
    return ["\n\n".join(premises[j:j + k]) for j in range(len(premises) - k + 1)]


def twin_grade(similarity: float) -> float:
    """The least P(entailment) a near-copy of a fact's own pair gives the fact: ``(s - m) / (1 - m)`` with
    ``m`` = :data:`TWIN_MIN_SIMILARITY`, clipped to [0, 1].

    >>> twin_grade(1.0), twin_grade(0.85), round(twin_grade(0.97), 3)
    (1.0, 0.0, 0.8)
    """
    return float(min(1.0, max(0.0, (similarity - TWIN_MIN_SIMILARITY) / (1.0 - TWIN_MIN_SIMILARITY))))


class NLIReferenceScorer:
    """Offline reference-based scorer: decomposer + NLI verifier.

    Args:
        verifier: any object with ``predict(premises, hypotheses) -> (n, 3)`` (see ev2r.verifier.nli).
        decomposer: a :class:`~ev2r.facts.rules.Decomposer`.
        threshold: support threshold on P(entailment), in (0, 1): a fact is supported (1) at or above it, else
            not (0).
        calibration: ``"auto"`` (default: the verifier checkpoint's ``calibration.json``,
            :func:`ev2r.verifier.calibration.calibration_for`; none found: an
            :class:`~ev2r.verifier.calibration.UncalibratedWarning` with the reason), a
            :class:`~ev2r.verifier.calibration.Calibration`, or None (graded scores off, no warning).
            The graded columns are None without a calibration; ``calibration_reason`` says why.
        premise_window: premises also span k consecutive pairs (module docstring); 1 = single pairs.

    Attributes ``n_pairs_considered`` and ``n_pairs_pruned`` count, over all calls, the (premise,
    fact) pairs an exhaustive run would check and those the first stage kept from the verifier.

    Raises:
        ValueError: ``threshold`` outside (0, 1), a ``calibration`` that is none of the above, or
            ``premise_window`` < 1.
    """

    def __init__(self, verifier, decomposer: Decomposer, threshold: float = DEFAULTS.threshold,
                 calibration="auto", premise_window: int = 1, contradiction=None):
        if not (0.0 < threshold < 1.0):
            raise ValueError(f"threshold: expected a value in (0, 1), got {threshold!r}")
        if isinstance(premise_window, bool) or not isinstance(premise_window, int) or premise_window < 1:
            raise ValueError(f"premise_window: expected an integer >= 1, got {premise_window!r}")
        self.verifier = verifier
        self.decomposer = decomposer
        self.threshold = threshold
        self.premise_window = premise_window
        self.premise_top_k = PREMISE_TOP_K
        self.contradiction = contradiction
        self.n_pairs_considered = 0
        self.n_pairs_pruned = 0
        self.name = f"nli:{decomposer.name}"
        if isinstance(calibration, str) and calibration == "auto":
            self.calibration, self.calibration_reason = calibration_for(verifier)
            if self.calibration is None:
                warnings.warn(f"graded_precision/graded_recall/graded_f1 will be None: {self.calibration_reason}",
                              UncalibratedWarning, stacklevel=2)
        elif calibration is None:
            self.calibration, self.calibration_reason = None, "graded support off (calibration=None)"
        elif isinstance(calibration, Calibration):
            self.calibration, self.calibration_reason = calibration, None
        else:
            raise ValueError(f"calibration: expected 'auto', None or an ev2r.verifier.calibration.Calibration, "
                             f"got {calibration!r}")

    def signature_fields(self) -> dict[str, str]:
        rule = f"p>={exact_number(self.threshold)}"
        declared = getattr(self.decomposer, "signature_fields", None)
        decomp = declared() if callable(declared) else {"decomp": self.decomposer.name}
        prem = "qa-pair-max" if self.premise_window == 1 else f"qa-pair+win{self.premise_window}-max"
        prem += f"+lex-top{self.premise_top_k}"
        from ev2r.metric import admission  # the constants as the running code has them

        prem += f"+twin~{exact_number(admission.TWIN_MIN_SIMILARITY)}/{admission.COPY_TEXT}+{respell_rule()}+anchor"
        if self.contradiction is not None:
            prem += f"+{self.contradiction.rule}"
        cal = self.calibration.id if self.calibration is not None else "none"
        return {"ref": "nli", **decomp, "support": rule, "prem": prem, "prem-rule": premise_rule(), "cal": cal}

    def score_reference(self, items: Sequence[Item], admitted: Optional[Admitted] = None) -> list[ReferenceResult]:
        """One :class:`ReferenceResult` per item, in order (module docstring); ``admitted``: the chunk's admission
        readings (:func:`ev2r.metric.admitted.admit_items`; the reference side's view,
        :meth:`ev2r.metric.admitted.Admitted.for_part`), None to read each item afresh with the rules alone."""
        admitted = (admitted if admitted is not None else Admitted()).for_part("reference")
        results: list[ReferenceResult] = [ReferenceResult() for _ in items]
        plans = []  # per item: (pred facts, ref facts, pred premises, ref premises)
        premises: list[str] = []
        hypotheses: list[str] = []
        spans: list[tuple[int, str, int, int, int]] = []  # (item, side, fact index, start, stop)
        origin: list[tuple[Optional[int], int, int]] = []  # per premise: (pair index, premises, checked)
        entailed: dict[int, float] = {}  # premise -> its grade as the hypothesis's own pair (module docstring: +twin~)
        # predicted pairs the reference contradicts: no premise for a reference fact (ev2r.metric.contradiction)
        vetoed = (self.contradiction.contradicted(items, admitted) if self.contradiction is not None
                  else [{} for _ in items])
        for i, item in enumerate(items):
            try:
                pred_facts = self.decomposer.decompose(item.predicted_evidence, item.claim)
                ref_facts = self.decomposer.decompose(item.reference_evidence, item.claim)
            except Exception as e:  # recorded on the item, the batch goes on
                results[i].status, results[i].error = "error", f"decomposition failed: {type(e).__name__}: {e}"
                plans.append(None)
                continue
            # whatever made them (rules, an LLM), facts without a letter or digit state nothing; a fact
            # of a pair that is no evidence (a bare answer, the claim restated) and a fact that restates
            # the claim are no atomic facts of the evidence
            # (the predicted side only: the reference is the gold evidence, whatever it restates)
            pred_facts = self._facts_of_evidence(pred_facts, item.predicted_evidence, item.claim,
                                                 item.reference_evidence, set(vetoed[i]), admitted)
            ref_facts = [f for f in ref_facts if read_text(f.text).has_content]
            plans.append((pred_facts, ref_facts))
            if not ref_facts:
                results[i].status, results[i].error = "no_reference", "reference_evidence has no atomic facts"
            for side, facts, other in (("pred", pred_facts, item.reference_evidence),
                                       ("ref", ref_facts, item.predicted_evidence)):
                # the reference's pairs as premises for the predicted facts; the predicted pairs that are
                # evidence for the claim (answer-only, on topic) for the reference facts
                pairs = ([(k, p) for k, p in evidence_pairs(other, item.claim, relevant=True,
                                                            gold=item.reference_evidence, admitted=admitted)
                          if k not in vetoed[i]]
                         if side == "ref" else evidence_pairs(other, None, admitted=admitted))
                prem = [p.render() for _, p in pairs]
                where: list[Optional[int]] = [k for k, _ in pairs]  # each premise's pair index (None: a window)
                if self.premise_window > 1:
                    windows = window_premises(prem, self.premise_window)
                    prem, where = prem + windows, where + [None] * len(windows)
                twins = self._twin_pairs(facts, item.predicted_evidence if side == "pred" else item.reference_evidence,
                                         other, exclude=vetoed[i] if side == "ref" else (),
                                         admitted=admitted)
                for f_idx, fact in enumerate(facts):
                    start = len(premises)
                    anchored = [j for j in range(len(prem)) if shares_content(fact.text, prem[j])]
                    kept_idx = [anchored[j] for j in top_k_premises(fact.text, [prem[j] for j in anchored],
                                                                    self.premise_top_k)]
                    self.n_pairs_considered += len(prem)
                    self.n_pairs_pruned += len(prem) - len(kept_idx)
                    premises.extend(prem[j] for j in kept_idx)
                    hypotheses.extend([fact.text] * len(kept_idx))
                    origin.extend((where[j], len(prem), len(kept_idx)) for j in kept_idx)
                    twin = twins.get(f_idx)
                    if twin is not None:  # its own pair on the other side: checked, and entails it
                        k_twin, text, grade = twin
                        j = next((j for j in kept_idx if where[j] == k_twin), None)
                        if j is None:
                            premises.append(text)
                            hypotheses.append(fact.text)
                            origin.append((k_twin, len(prem), len(kept_idx) + 1))
                            entailed[len(premises) - 1] = grade
                        else:  # the premise read as the twin's text (respelled like the fact's own pair)
                            premises[start + kept_idx.index(j)] = text
                            entailed[start + kept_idx.index(j)] = grade
                    spans.append((i, side, f_idx, start, len(premises)))
        probs = (check_probabilities(self.verifier.predict(premises, hypotheses), len(premises))
                 if premises else np.zeros((0, 3)))
        if entailed:
            probs = np.array(probs, dtype=float)
            for idx, grade in entailed.items():  # P(e) raised to the grade, the rest scaled to keep the sum 1
                e = probs[idx, 0]
                # an exact copy is the fact's own pair (whatever the verifier reads); a near-copy the verifier
                # reads as a denial of the fact is none
                if grade > e and (grade >= 1.0 or probs[idx, 2] < 0.5):
                    rest = 1.0 - e
                    probs[idx, 1:] = probs[idx, 1:] * ((1.0 - grade) / rest) if rest > 0 else 0.0
                    probs[idx, 0] = grade
        cal_e = self.calibration.entailment(probs) if self.calibration is not None else None
        entail: dict[tuple[int, str, int], float] = {}
        graded: dict[tuple[int, str, int], float] = {}  # calibrated support, same premises, same pass
        reasons: dict[tuple[int, str, int], PremiseReason] = {}  # the premise of highest P(e)
        for i, side, f_idx, start, stop in spans:
            entail[(i, side, f_idx)] = float(probs[start:stop, 0].max()) if stop > start else 0.0
            if stop > start:
                best = start + int(probs[start:stop, 0].argmax())
                e, n, c = (round(float(x), 6) for x in probs[best])
                pair_index, n_premises, n_checked = origin[best]
                reasons[(i, side, f_idx)] = PremiseReason("reference" if side == "pred" else "predicted", pair_index,
                                                          premises[best], e, n, c, n_premises, n_checked)
            if cal_e is not None:
                graded[(i, side, f_idx)] = float(cal_e[start:stop].max()) if stop > start else 0.0
            if side == "pred" and vetoed[i]:  # a fact of a contradicted rewrite: no support (ev2r.metric.contradiction)
                why = vetoed[i].get(plans[i][0][f_idx].pair_index)  # type: ignore[index]
                if why is not None:
                    entail[(i, side, f_idx)] = 0.0
                    reasons[(i, side, f_idx)] = why
                    if cal_e is not None:
                        graded[(i, side, f_idx)] = 0.0
        for i, plan in enumerate(plans):
            if plan is None:
                continue
            pred_facts, ref_facts = plan
            res = results[i]
            res.contradicted_pairs = vetoed[i]
            res.predicted_facts = self._judge(i, "pred", pred_facts, entail, reasons)
            res.reference_facts = self._judge(i, "ref", ref_facts, entail, reasons)
            res.extra_scores = dict.fromkeys(GRADED_NAMES)  # every row has the graded keys (None: not computed)
            if res.status != STATUS_OK:
                continue
            val = (lambda fs: [float(f.supported) for f in fs])
            res.precision, res.recall, res.f1 = prf_from_support(val(res.predicted_facts), val(res.reference_facts))
            if self.calibration is not None:  # else None: the signature's cal:none and the construction warning say why
                gp, gr, gf = prf_from_support([graded[(i, "pred", k)] for k in range(len(pred_facts))],
                                              [graded[(i, "ref", k)] for k in range(len(ref_facts))])
                res.extra_scores = dict(zip(GRADED_NAMES, (gp, gr, gf)))
        return results

    @staticmethod
    def _facts_of_evidence(facts: Sequence[AtomicFact], evidence: Evidence, claim: str,
                           reference: Optional[Evidence] = None,
                           vetoed: frozenset | set = frozenset(),
                           admitted: Optional[Admitted] = None) -> list[AtomicFact]:
        """``facts`` that are atomic facts of the predicted ``evidence``: with a letter or digit, from a
        pair of :func:`evidence_pairs` (when the fact names its pair; off-topic pairs keep their facts,
        which then cost precision), not restating ``claim``, each once (a repeated fact is one fact).
        The facts of a copy or near-copy of a ``reference`` pair (:func:`ev2r.metric.admission.is_near_copy`) are
        kept whatever they restate: the gold evidence states them. Of a repeated fact the copy kept is the first from a
        pair not in ``vetoed`` (the pairs the reference contradicts, whose facts count as unsupported), else the first:
        the score does not depend on the order of the pairs. ``admitted``: the chunk's admission readings (None: read
        afresh with the rules alone)."""
        admitted = admitted if admitted is not None else Admitted()
        gold_idx = {r.index for r in admitted.readings(evidence, claim, reference) if r.gold_copy}
        kept = {k for k, _ in evidence_pairs(evidence, claim, gold=reference, admitted=admitted)}
        chosen: dict[str, int] = {}  # folded text -> index in facts of the copy kept
        claim_read = read_text(claim)
        for n, f in enumerate(facts):  # a fact repeated (a pair copied) is one fact
            key = " ".join(f.text.casefold().split())
            fact = read_text(f.text)
            if f.pair_index is not None and f.pair_index in gold_idx:
                ok = fact.has_content and f.pair_index in kept
            else:
                ok = (fact.has_content and (f.pair_index is None or f.pair_index in kept)
                      and not fact_restates_claim(fact, claim_read))
            if not ok:
                continue
            first = chosen.get(key)
            if first is None or (facts[first].pair_index in vetoed and f.pair_index not in vetoed):
                chosen[key] = n
        return [facts[n] for n in sorted(chosen.values())]

    @staticmethod
    def _twin_pairs(facts: Sequence[AtomicFact], own: Evidence, other: Evidence,
                    exclude=(), admitted: Optional[Admitted] = None) -> dict[int, tuple[int, str, float]]:
        """fact index -> (index, rendered premise, grade) of the ``other`` side's pair nearest to the fact's own
        pair of ``own`` (:func:`copy_similarity` at least :data:`TWIN_MIN_SIMILARITY`; grade in (0, 1], 1 for an
        exact copy), for the facts that name their pair. The other side's pairs are those of
        :func:`evidence_pairs` without a claim (a copy of a reference pair is gold evidence, whether its answer
        is bare or restates the claim), less the indexes in ``exclude`` (pairs the reference contradicts)."""
        cands = [(k, p, other.pairs[k]) for k, p in evidence_pairs(other, None, admitted=admitted)
                 if k not in exclude]
        out = {}
        best: dict[int, Optional[tuple[int, str, float]]] = {}  # own pair index -> its twin
        for f_idx, f in enumerate(facts):
            j = f.pair_index
            if j is None or not (0 <= j < len(own.pairs)):
                continue
            if j not in best:
                found = None
                for k, admitted, pair in cands:
                    # read through its copy (copy_grade, both ways): typos and synonyms respelled, numbers as
                    # values; a copy but for those is the copy
                    sim = max(copy_grade(pair, own.pairs[j]), copy_grade(own.pairs[j], pair))
                    if sim >= TWIN_MIN_SIMILARITY and (found is None or sim > found[2]):
                        text = admitted.render() if sim >= 1.0 else respell_pair(admitted, own.pairs[j]).render()
                        found = (k, text, sim)
                best[j] = None if found is None else (found[0], found[1], twin_grade(found[2]))
            if best[j] is not None:
                out[f_idx] = best[j]
        return out

    def _judge(self, i: int, side: str, facts: list[AtomicFact], entail, reasons) -> list[FactSupport]:
        out = []
        for k, f in enumerate(facts):
            p = entail[(i, side, k)]
            out.append(FactSupport(fact=f.text, supported=p >= self.threshold, probability=round(p, 6),
                                   pair_index=f.pair_index, decided_by=reasons.get((i, side, k))))
        return out
