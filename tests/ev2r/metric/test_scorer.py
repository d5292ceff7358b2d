"""Hand-computed precision / recall / F1 / proxy / Ev2R values with a deterministic fake verifier."""

import math

import numpy as np
import pytest

from ev2r.facts.rules import RuleBasedDecomposer, split_sentences
from ev2r.labels import Verdict
from ev2r.metric.scorer import Ev2RScorer, ev2r_combine
from ev2r.metric.proxy import NLIProxyScorer
from ev2r.metric.reference import copy_similarity, twin_grade, NLIReferenceScorer, f1_score, prf_from_support
from ev2r.io import evidence_from_text
from ev2r.types import Evidence, Item, QAPair


class TableVerifier:
    """Returns a fixed distribution per (premise, hypothesis); neutral for unknown pairs."""

    name = "table"

    def __init__(self, table):
        self.table = table

    def predict(self, premises, hypotheses):
        return np.array([self.table.get((p, h), [0.0, 1.0, 0.0]) for p, h in zip(premises, hypotheses)],
                        dtype=float).reshape(-1, 3)


def ev(*pairs):
    return Evidence(tuple(QAPair(q, a) for q, a in pairs))


def test_f1_and_combine_hand_values():
    assert f1_score(0.5, 1.0) == pytest.approx(2 / 3)
    assert f1_score(0.0, 0.0) == 0.0
    assert ev2r_combine(0.5, 1.0) == 0.75
    assert ev2r_combine(0.5, 1.0, alpha=1.0) == 0.5
    assert ev2r_combine(0.6, 0.2, alpha=0.25) == pytest.approx(0.25 * 0.6 + 0.75 * 0.2)
    with pytest.raises(ValueError, match="alpha"):
        ev2r_combine(0.5, 0.5, alpha=1.5)
    with pytest.raises(ValueError, match="precision"):
        f1_score(float("nan"), 0.5)


def test_prf_edge_cases_never_nan():
    assert prf_from_support([], [1, 0]) == (0.0, 0.5, 0.0)
    assert prf_from_support([1, 1], []) == (1.0, None, None)


def test_rule_based_decomposer_keeps_question_and_splits_sentences():
    facts = RuleBasedDecomposer().decompose(ev(("Who won?", "Smith won the race. He was 30 years old."), ("Empty?", "")))
    assert [f.text for f in facts] == ["Who won? Smith won the race.", "Who won? He was 30 years old."]
    assert [f.pair_index for f in facts] == [0, 0]
    assert split_sentences("Dr. Smith said 5.18 beds. In the U.S. it was fine.") == [
        "Dr. Smith said 5.18 beds.", "In the U.S. it was fine."]


def test_invisible_only_evidence_is_empty_and_yields_no_fact():
    zw = "\u200b \ufeff\u200d"
    assert evidence_from_text(zw).is_empty
    assert evidence_from_text(zw).pairs == ()
    assert Evidence.from_pairs([{"question": "Q?", "answer": zw}]).pairs == (QAPair("Q?", ""),)
    assert RuleBasedDecomposer().decompose(ev(("Q?", zw))) == []
    assert RuleBasedDecomposer().decompose(evidence_from_text(f"Question: Q?\nAnswer: {zw}")) == []
    assert split_sentences(f"{zw}A real sentence here.\u200b") == ["A real sentence here."]


def test_reference_scores_hand_computed():
    # predicted: 2 pairs -> 3 facts; reference: 2 pairs -> 2 facts. A premise is checked for a fact only when they
    # share a content word (+anchor): "Q1 Apples are big." is not sent with R2, nor "R1 Apples are big." with Q2
    pred = ev(("Q1", "Apples are big. Bananas are small."), ("Q2", "Cherries are red."))
    ref = ev(("R1", "Apples are big."), ("R2", "Bananas and cherries are blue."))
    P = [p.render() for p in ref.pairs]
    Rp = [p.render() for p in pred.pairs]
    table = {
        (P[0], "Q1 Apples are big."): [0.9, 0.05, 0.05],   # supported by R1
        (P[1], "Q1 Apples are big."): [0.95, 0.05, 0.0],   # never checked: no shared content word
        (P[1], "Q1 Bananas are small."): [0.49, 0.5, 0.01],  # just under the threshold
        (P[1], "Q2 Cherries are red."): [0.0, 0.0, 1.0],
        (Rp[0], "R1 Apples are big."): [0.8, 0.1, 0.1],     # reference fact 1 supported
        (Rp[0], "R2 Bananas and cherries are blue."): [0.1, 0.8, 0.1],
        (Rp[1], "R2 Bananas and cherries are blue."): [0.3, 0.6, 0.1],
    }
    # a claim of under four content words needs one of them in a predicted pair (short1): each pair holds one
    item = Item(id="x", claim="Apples, bananas and cherries.", predicted_evidence=pred, reference_evidence=ref,
                gold_label=Verdict.SUPPORTED)
    (res,) = NLIReferenceScorer(TableVerifier(table), RuleBasedDecomposer()).score_reference([item])
    assert res.status == "ok"
    assert [f.supported for f in res.predicted_facts] == [True, False, False]
    assert res.precision == pytest.approx(1 / 3) and res.recall == pytest.approx(1 / 2)
    assert res.f1 == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))
    # the facts' probabilities are the max P(e) over the other side's pairs; only the 0/1 support counts (the soft
    # reading, P itself, left in 2.0: commit e43eb97 computes it)
    assert [f.probability for f in res.predicted_facts] == pytest.approx([0.9, 0.49, 0.0])
    with pytest.raises(TypeError, match="support"):
        NLIReferenceScorer(TableVerifier(table), RuleBasedDecomposer(), support="soft")


def test_a_facts_own_pair_on_the_other_side_entails_it():
    """+twin: a pair copied (case and spacing aside) from the other side supports its facts with P(e) 1,
    whatever the verifier says of it; another pair of the same side is judged by the verifier."""
    ref = ev(("Did the council vote?", "The council approved the bridge plan in May."),
             ("Who paid?", "The state paid for the bridge."))
    pred = ev(("did the  council vote?", "The council approved the bridge plan in  May."),  # the copy
              ("Who built it?", "A firm from Ohio built the bridge."))
    item = Item(id="t", claim="The council approved the bridge.", predicted_evidence=pred, reference_evidence=ref,
                gold_label=Verdict.SUPPORTED)
    (res,) = NLIReferenceScorer(TableVerifier({}), RuleBasedDecomposer(), calibration=None).score_reference([item])
    # the verifier says neutral to everything: only the copied pair's facts are supported, from their twin
    assert [(f.supported, f.probability, f.pair_index) for f in res.predicted_facts] == [
        (True, 1.0, 0), (False, 0.0, 1)]
    assert [(f.supported, f.probability) for f in res.reference_facts] == [(True, 1.0), (False, 0.0)]
    assert res.predicted_facts[0].decided_by.pair_index == 0 and res.reference_facts[0].decided_by.pair_index == 0
    assert res.precision == res.recall == 0.5
    # the reference as the prediction: every fact supported, P = R = 1
    same = Item(id="s", claim=item.claim, predicted_evidence=ref, reference_evidence=ref, gold_label=Verdict.SUPPORTED)
    pruned = NLIReferenceScorer(TableVerifier({}), RuleBasedDecomposer(), calibration=None)
    pruned.premise_top_k = 1  # the twin is checked even where the first stage keeps one premise
    (res,) = pruned.score_reference([same])
    assert res.precision == res.recall == 1.0
    # a copied reference pair is gold evidence even where the predicted side's rules drop a pair: a one-word
    # answer, a fact restating the claim (AVeriTeC dev rows 216 and 286 as their own prediction had P = 0)
    terse = ev(("What share of Nigerians live in cities?", "52%"))
    gold = Item(id="g", claim="52% of Nigerians live in cities.", predicted_evidence=terse, reference_evidence=terse,
                gold_label=Verdict.SUPPORTED)
    (res,) = NLIReferenceScorer(TableVerifier({}), RuleBasedDecomposer(), calibration=None).score_reference([gold])
    assert len(res.predicted_facts) == 1 and res.precision == res.recall == 1.0
    lone = Item(id="l", claim=gold.claim, predicted_evidence=ev(("What share of Nigerians live in cities?", "Most")),
                reference_evidence=terse, gold_label=Verdict.SUPPORTED)
    (res,) = NLIReferenceScorer(TableVerifier({}), RuleBasedDecomposer(), calibration=None).score_reference([lone])
    assert res.predicted_facts == [] and res.precision == 0.0  # not a copy (the question alone is): the rules apply
    # a copy but for a typo is the copy (no cliff at the exact copy; the typo respelled, ev2r/3) ...
    full = ev(("What share of Nigerians live in cities?", "About 52% of Nigerians lived in cities in 2020."))
    typo = ev(("What share of Nigerians live in cities?", "About 52% of Nigerains lived in cities in 2020."))
    near = Item(id="n", claim=gold.claim, predicted_evidence=typo, reference_evidence=full, gold_label=Verdict.SUPPORTED)
    (res,) = NLIReferenceScorer(TableVerifier({}), RuleBasedDecomposer(), calibration=None).score_reference([near])
    sim = copy_similarity(full.pairs[0], typo.pairs[0])
    assert 0.95 < sim < 1.0
    assert [f.probability for f in res.reference_facts] == [1.0]
    assert res.recall == 1.0 and res.precision == 1.0
    # ... and a near-copy that adds a word is read nearly as the copy: its grade (copy_similarity - 0.85) / 0.15 is
    # the least P(entailment) of the facts of the pair it copies
    added = ev(("What share of Nigerians live in cities?", "About 52% of Nigerians lived in large cities in 2020."))
    near = Item(id="a", claim=gold.claim, predicted_evidence=added, reference_evidence=full, gold_label=Verdict.SUPPORTED)
    (res,) = NLIReferenceScorer(TableVerifier({}), RuleBasedDecomposer(), calibration=None).score_reference([near])
    sim = copy_similarity(full.pairs[0], added.pairs[0])
    assert 0.85 < sim < 1.0
    assert [f.probability for f in res.reference_facts] == [pytest.approx(twin_grade(sim), abs=1e-6)]
    # an answer changed by one word is no copy
    other = Item(id="o", claim=item.claim, reference_evidence=ref, gold_label=Verdict.SUPPORTED,
                 predicted_evidence=ev(("Did the council vote?", "The council rejected the bridge plan in May.")))
    (res,) = NLIReferenceScorer(TableVerifier({}), RuleBasedDecomposer(), calibration=None).score_reference([other])
    assert res.precision == res.recall == 0.0


def test_proxy_aggregates_pairs_and_maps_verdicts():
    pred = ev(("Q1", "aa one"), ("Q2", "bb two"))  # two words each: a one-word answer is no evidence
    r = [p.render() for p in pred.pairs]
    table = {(r[0], "aa bb"): [0.6, 0.3, 0.1], (r[1], "aa bb"): [0.1, 0.2, 0.7]}
    ver = TableVerifier(table)
    # max e = 0.6, min n = 0.2, max c = 0.7 -> normalised by 1.5
    items = [Item(id=str(k), claim="aa bb", predicted_evidence=pred, reference_evidence=ev(), gold_label=v)
             for k, v in enumerate(Verdict)]
    res = NLIProxyScorer(ver).score_proxy(items)
    vals = [x.proxy for x in res]
    assert vals[0] == pytest.approx(0.6 / 1.5)   # supported
    assert vals[1] == pytest.approx(0.7 / 1.5)   # refuted
    assert vals[2] == pytest.approx(0.2 / 1.5)   # not enough evidence (each pair holds a claim word: relevant)
    assert vals[3] == pytest.approx(2 * 0.6 / 1.5)  # conflicting: 2 * min(e, c)


def test_proxy_empty_evidence_is_neutral_and_missing_label_is_status():
    empty = Item(id="e", claim="c", predicted_evidence=ev(("Q", "")), reference_evidence=ev(), gold_label=Verdict.NOT_ENOUGH_EVIDENCE)
    nolabel = Item(id="n", claim="c", predicted_evidence=ev(("Q", "x")), reference_evidence=ev())
    a, b = NLIProxyScorer(TableVerifier({})).score_proxy([empty, nolabel])
    assert a.proxy == 0.0 and a.status == "ok"  # no evidence earns no Not Enough Evidence
    assert b.proxy is None and b.status == "no_label" and "gold_label" in b.error


def test_the_proxy_scores_the_gold_verdict_whatever_human_label_says():
    pred = ev(("Q", "xx yy"))
    table = {(pred.pairs[0].render(), "c"): [0.7, 0.2, 0.1]}
    item = Item(id="h", claim="c", predicted_evidence=pred, reference_evidence=ev(), gold_label=Verdict.REFUTED,
                extra={"human_label": "supported"})
    gold, = NLIProxyScorer(TableVerifier(table)).score_proxy([item])
    assert gold.proxy == pytest.approx(0.1)  # P(contradiction): the gold verdict, not human_label's 0.7
    assert NLIProxyScorer(TableVerifier(table)).signature_fields()["proxy"] == "nli-gold"
    with pytest.raises(TypeError, match="target"):  # the annotators' verdict left in 2.0 (commit e43eb97)
        NLIProxyScorer(TableVerifier(table), target="human")


def test_ev2r_item_and_corpus_with_failures(keyword_verifier):
    good = Item(id="g", claim="Paris is the capital of France.",
                predicted_evidence=ev(("What is the capital of France?", "Paris is the capital of France.")),
                reference_evidence=ev(("What is the capital of France?", "Paris is the capital of France.")),
                gold_label=Verdict.SUPPORTED)
    noref = Item(id="n", claim="c", predicted_evidence=ev(("Q", "x")), reference_evidence=ev(), gold_label=Verdict.REFUTED)
    scorer = Ev2RScorer(NLIReferenceScorer(keyword_verifier, RuleBasedDecomposer()), NLIProxyScorer(keyword_verifier),
                        verifier_name=keyword_verifier.name)
    s = scorer.score([good, noref])
    assert (s[0].precision, s[0].recall, s[0].f1) == (1.0, 1.0, 1.0)
    assert s[0].proxy == pytest.approx(0.9) and s[0].ev2r == pytest.approx(0.95)
    assert s[1].status == "no_reference" and s[1].ev2r is None and s[1].precision is None and s[1].proxy is not None
    c = scorer.corpus(s)
    assert (c.n, c.n_failed, c.failures) == (2, 1, {"no_reference": 1})
    assert c.ev2r == pytest.approx(0.95) and c.proxy == pytest.approx(0.9)
    for key in ("ref:nli", "decomp:rules-v1", "support:p>=0.5", "verifier:keyword-fake", "proxy:nli-gold", "map:v1", "alpha:0.5"):
        assert key in c.signature
    assert not any(isinstance(v, float) and math.isnan(v) for v in c.to_dict().values())


def test_scoring_is_deterministic_and_pure(keyword_verifier):
    item = Item(id="g", claim="X is not here.", predicted_evidence=ev(("Q", "X is here.")),
                reference_evidence=ev(("Q", "X is here today.")), gold_label=Verdict.REFUTED)
    before = repr(item)
    scorer = Ev2RScorer(NLIReferenceScorer(keyword_verifier, RuleBasedDecomposer()), NLIProxyScorer(keyword_verifier))
    a = scorer.score([item])[0].to_dict()
    b = scorer.score([item])[0].to_dict()
    assert a == b and repr(item) == before
    assert a["proxy"] == pytest.approx(0.9)  # "not" in claim -> contradiction -> P(refuted)


def test_decomposer_failure_recorded_on_item_only(keyword_verifier):
    class Exploding(RuleBasedDecomposer):
        def decompose(self, evidence, claim=""):
            if claim == "boom":
                raise RuntimeError("bad")
            return super().decompose(evidence, claim)

    items = [Item(id="1", claim="boom", predicted_evidence=ev(("Q", "a b")), reference_evidence=ev(("Q", "a b")), gold_label=Verdict.SUPPORTED),
             Item(id="2", claim="fine", predicted_evidence=ev(("Q", "a b")), reference_evidence=ev(("Q", "a b")), gold_label=Verdict.SUPPORTED)]
    scorer = Ev2RScorer(NLIReferenceScorer(keyword_verifier, Exploding()), NLIProxyScorer(keyword_verifier))
    s = scorer.score(items)
    assert s[0].status == "error" and "RuntimeError: bad" in s[0].error and s[0].f1 is None
    assert s[1].status == "ok" and s[1].f1 == 1.0


@pytest.mark.parametrize("kwargs, match", [({"threshold": 1.0}, "threshold"), ({"premise_window": 0}, "premise_window")])
def test_bad_options(keyword_verifier, kwargs, match):
    with pytest.raises(ValueError, match=match):
        NLIReferenceScorer(keyword_verifier, RuleBasedDecomposer(), **kwargs)


def test_verifier_failure_on_one_item_is_recorded_on_that_item_only(keyword_verifier):
    class Flaky:
        name = "flaky"

        def predict(self, premises, hypotheses):
            if any("boom" in h for h in hypotheses):
                raise RuntimeError("verifier exploded")
            if any("nan" in h for h in hypotheses):
                return np.full((len(premises), 3), np.nan)
            return keyword_verifier.predict(premises, hypotheses)

    mk = lambda i, c: Item(id=i, claim=c, predicted_evidence=ev(("Q", "a b")), reference_evidence=ev(("Q", "a b")),
                           gold_label=Verdict.SUPPORTED)
    items = [mk("1", "fine"), mk("2", "boom"), mk("3", "nan here"), mk("4", "fine too")]
    v = Flaky()
    scorer = Ev2RScorer(NLIReferenceScorer(v, RuleBasedDecomposer()), NLIProxyScorer(v))
    s = scorer.score(items)
    assert [x.status for x in s] == ["ok", "error", "error", "ok"]
    assert s[0].ok and s[3].ok and s[0].ev2r is not None
    assert s[1].status == "error" and "verifier exploded" in s[1].error and s[1].proxy is None
    assert s[2].status == "error" and s[2].proxy is None
    c = scorer.corpus(s)
    assert c.n == 4 and c.n_failed == 2 and not math.isnan(c.proxy)


def test_proxy_verifier_reads_only_the_proxy(keyword_verifier):
    """``proxy_verifier`` (``--proxy-model``) gives the proxy its own verifier (the paper's proxy is its own model,
    sec. 3.2): the proxy equals that verifier's, the reference-based part stays the main verifier's, and the
    proxy verifier's name enters the signature."""
    from ev2r import build_scorer

    claim = "Paris is the capital of France."
    item = Item(id="p", claim=claim,
                predicted_evidence=ev(("What is the capital of France?", "Paris is the capital of France.")),
                reference_evidence=ev(("What is the capital of France?", "Paris is the capital of France.")),
                gold_label=Verdict.SUPPORTED)
    answer = "Paris is the capital of France."
    refuting = TableVerifier({(f"Question: What is the capital of France?\nAnswer: {answer}", claim): [0.1, 0.1, 0.8]})
    main = build_scorer(verifier=keyword_verifier, hybrid=False)
    own = build_scorer(verifier=keyword_verifier, proxy_verifier=refuting, hybrid=False)
    a, = main.score([item])
    b, = own.score([item])
    assert (b.precision, b.recall, b.f1) == (a.precision, a.recall, a.f1) == (1.0, 1.0, 1.0)
    assert a.proxy == pytest.approx(0.9)
    # the table's premise is the pair as the proxy renders it: P(supported) = max e / (max e + min n + max c)
    assert b.proxy == pytest.approx(0.1) and b.ev2r == pytest.approx(0.5 * 1.0 + 0.5 * 0.1)
    assert "proxy-verifier" not in str(main.signature())
    assert own.signature()["proxy-verifier"] == "table" and own.signature()["verifier"] == "keyword-fake"


@pytest.mark.parametrize("value, match", [(3, "proxy_verifier: expected None"), ("  ", "proxy_verifier: an empty spec")])
def test_proxy_verifier_bad_values_are_named(value, match):
    from ev2r.config import ScorerConfig

    with pytest.raises(ValueError, match=match):
        ScorerConfig(proxy_verifier=value)


class _DenyingVerifier:
    """Reads every premise as contradicting every hypothesis (a verifier's error on a denial's own pair)."""

    name = "denying"

    def predict(self, premises, hypotheses):
        return np.tile([0.36, 0.06, 0.58], (len(premises), 1))


def test_the_gold_as_the_prediction_is_supported_whatever_the_verifier_reads():
    """An exact copy of a pair supports the pair's own facts even where the verifier reads the pair as denying them
    (a fresh user's 'No, ...' pair: the fact "X is not the population of Kerala." read at P(c) 0.58 against its own
    pair); a near-copy read as a denial does not (the reference negated in place is a near-copy)."""
    ref = ev(("Is 3,56,99,443 the population of Kerala?", "No, the census counted 3,34,06,061 people in 2011."))
    same = Item(id="s", claim="Kerala has 3,56,99,443 people.", predicted_evidence=ref, reference_evidence=ref,
                gold_label=Verdict.REFUTED)
    (res,) = NLIReferenceScorer(_DenyingVerifier(), RuleBasedDecomposer(), calibration=None).score_reference([same])
    assert res.precision == res.recall == 1.0
    near = Item(id="n", claim=same.claim, reference_evidence=ref, gold_label=Verdict.REFUTED,
                predicted_evidence=ev(("Is 3,56,99,443 the population of Kerala?",
                                       "No, the census counted 3,34,06,061 people in 2012.")))
    (res,) = NLIReferenceScorer(_DenyingVerifier(), RuleBasedDecomposer(), calibration=None).score_reference([near])
    assert res.recall == 0.0
