"""Graded precision/recall/F1 of ev2r.metric.reference (calibrated support, same verifier pass),
their signature field, None-with-reason without a calibration, and multi-pair premise windows."""

from __future__ import annotations

import math
import warnings

import pytest

from ev2r.io.readers import score_row
from ev2r.metric.reference import GRADED_NAMES, NLIReferenceScorer, window_premises
from ev2r.metric.scorer import Ev2RScorer
from ev2r.types import AtomicFact, Evidence, Item, QAPair
from ev2r.verifier.calibration import Calibration, UncalibratedWarning
from support.fakes import KeywordVerifier


class AnswerFacts:
    """Each pair's answer is one fact (hand-checkable facts)."""

    name = "answers"

    def decompose(self, evidence, claim=""):
        return [AtomicFact(p.answer, k) for k, p in enumerate(evidence.pairs)]


def _item(row=0):
    pred = Evidence((QAPair("Capital city?", "Paris is the capital of France."), QAPair("Zoo?", "Berlin hosts bears.")))
    ref = Evidence((QAPair("Capital?", "Paris is the capital of France."), QAPair("Tower?", "The Eiffel tower is tall."),
                    QAPair("Host?", "Berlin hosts")))
    return Item(id=f"i{row}", claim="c", predicted_evidence=pred, reference_evidence=ref, row=row)


T2 = Calibration("temperature", {"temperature": 2.0}, weights="w")


def _tscaled_entail(row):
    """P(entailment) of a KeywordVerifier row with logits / 2: sqrt(p) renormalised."""
    r = [math.sqrt(v) for v in row]
    return r[0] / sum(r)


E_HI = _tscaled_entail([0.9, 0.05, 0.05])  # 0.9487 / 1.3959 = 0.6796 (an entailed fact)
E_LO = _tscaled_entail([0.1, 0.8, 0.1])    # 0.3162 / 1.5269 = 0.2071 (a neutral one)


def test_graded_hand_computed_same_pass():
    v = KeywordVerifier()
    (res,) = NLIReferenceScorer(v, AnswerFacts(), calibration=T2).score_reference([_item()])
    # thresholded: predicted facts (Paris: 0.9, Berlin hosts bears: 0.1) -> P = 1/2;
    # reference facts (Paris 0.9, Eiffel 0.1, "Berlin hosts" 0.9) -> R = 2/3
    assert (res.precision, res.recall) == (0.5, pytest.approx(2 / 3))
    gp, gr, gf = (res.extra_scores[k] for k in GRADED_NAMES)
    assert E_HI == pytest.approx(0.6796, abs=1e-4) and E_LO == pytest.approx(0.2071, abs=1e-4)
    assert gp == pytest.approx((E_HI + E_LO) / 2)
    # "The Eiffel tower is tall." shares no content word with a predicted pair: no premise is checked for it
    # (+anchor), so its calibrated support is 0, not the neutral E_LO
    assert gr == pytest.approx((2 * E_HI + 0.0) / 3)
    assert gf == pytest.approx(2 * gp * gr / (gp + gr))
    assert len(v.calls) == 1  # no second verifier call


def test_identity_temperature_grades_with_the_probabilities_themselves():
    from ev2r.scores import prf_from_support

    t1 = Calibration("temperature", {"temperature": 1.0})
    (res,) = NLIReferenceScorer(KeywordVerifier(), AnswerFacts(), calibration=t1).score_reference([_item()])
    soft = prf_from_support([f.probability for f in res.predicted_facts], [f.probability for f in res.reference_facts])
    assert [res.extra_scores[k] for k in GRADED_NAMES] == pytest.approx(list(soft), abs=1e-6)


def test_no_calibration_gives_none_with_reason_in_rows_and_corpus():
    with pytest.warns(UncalibratedWarning, match="keyword-fake has no local checkpoint.*calibrate_verifier"):
        ref = NLIReferenceScorer(KeywordVerifier(), AnswerFacts())  # "auto": the fake has no checkpoint
    scorer = Ev2RScorer(ref)
    assert scorer.signature()["cal"] == "none" and "keyword-fake" in ref.calibration_reason
    (s,) = scorer.score([_item()])
    assert s.status == "ok" and s.precision == 0.5 and s.error is None  # a run-level condition, not an item failure
    assert all(s.extra_scores[k] is None for k in GRADED_NAMES)
    corpus = scorer.corpus([s]).to_dict()
    assert all(k in corpus and corpus[k] is None for k in GRADED_NAMES)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # explicitly off: no warning
        off = NLIReferenceScorer(KeywordVerifier(), AnswerFacts(), calibration=None)
    assert off.calibration_reason == "graded support off (calibration=None)"
    assert off.score_reference([_item()])[0].extra_scores == dict.fromkeys(GRADED_NAMES)


def test_rows_corpus_and_signature_with_calibration():
    scorer = Ev2RScorer(NLIReferenceScorer(KeywordVerifier(), AnswerFacts(), calibration=T2))
    sig = scorer.signature()
    assert sig["cal"] == T2.id and f"|cal:{T2.id}|" in str(sig)
    items = [_item(0), _item(1)]
    scores = scorer.score(items)
    row = score_row(items[0], scores[0])
    assert row["graded_precision"] == pytest.approx((E_HI + E_LO) / 2) and row["error"] is None
    corpus = scorer.corpus(scores).to_dict()
    assert corpus["graded_recall"] == pytest.approx((2 * E_HI + 0.0) / 3)  # the Eiffel fact: no anchored premise


def test_no_reference_item_has_no_graded_scores():
    # the keys are there (every row has the same columns), the values None: not computed, never 0
    it = Item(id="x", claim="c", predicted_evidence=_item().predicted_evidence, reference_evidence=Evidence(()))
    (res,) = NLIReferenceScorer(KeywordVerifier(), AnswerFacts(), calibration=T2).score_reference([it])
    assert res.status == "no_reference"
    assert res.extra_scores == {"graded_precision": None, "graded_recall": None, "graded_f1": None}


def test_bad_calibration_argument():
    with pytest.raises(ValueError, match="calibration: expected 'auto', None or"):
        NLIReferenceScorer(KeywordVerifier(), AnswerFacts(), calibration="temp-2")
    with pytest.raises(ValueError, match="premise_window"):
        NLIReferenceScorer(KeywordVerifier(), AnswerFacts(), premise_window=0)


def test_window_premises_support_a_fact_spanning_two_pairs():
    assert window_premises(["a", "b", "c"], 2) == ["a\n\nb", "b\n\nc"]
    assert window_premises(["a"], 2) == [] and window_premises(["a", "b"], 1) == []
    pred = Evidence((QAPair("Who?", "Paris mayor"), QAPair("When?", "elected 2014")))
    ref = Evidence((QAPair("Q?", "Paris mayor elected 2014"),))
    it = Item(id="w", claim="c", predicted_evidence=pred, reference_evidence=ref)
    one = NLIReferenceScorer(KeywordVerifier(), AnswerFacts(), calibration=None)
    two = NLIReferenceScorer(KeywordVerifier(), AnswerFacts(), calibration=None, premise_window=2)
    assert one.score_reference([it])[0].recall == 0.0  # no single pair holds every word
    assert two.score_reference([it])[0].recall == 1.0  # the two pairs together do
    assert one.signature_fields()["prem"] == "qa-pair-max+lex-top5+twin~0.85/num+contr+art+respell-syn+anchor"
    assert two.signature_fields()["prem"] == "qa-pair+win2-max+lex-top5+twin~0.85/num+contr+art+respell-syn+anchor"
