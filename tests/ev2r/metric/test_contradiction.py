"""A rewrite of a reference pair that the reference contradicts is no evidence (ev2r.metric.contradiction):
hand-made items with the keyword fake, which reads a denial as the real verifier does -- as a
premise it entails what it denies ("It is not true that X" entails X), as a hypothesis against X it is a
contradiction."""

from __future__ import annotations

import pytest

from ev2r.config import ScorerConfig
from ev2r.engines.runs import score_from_row
from ev2r.facts.rules import DeclarativeDecomposer
from ev2r.labels import Verdict
from ev2r.metric.contradiction import CONTRADICTION_MIN, REWRITE_MIN, ReferenceContradiction, is_rewrite
from ev2r.metric.factory import build_scorer
from ev2r.metric.proxy import NLIProxyScorer
from ev2r.metric.reference import NLIReferenceScorer
from ev2r.types import Evidence, Item, QAPair

from support.fakes import KeywordVerifier

CLAIM = "Amazon suspended Parler from its web hosting service on January 10, 2021."
Q = "Did Amazon remove Parler from its hosting services?"
GOLD = "Amazon Web Services stopped hosting Parler on January 10, 2021, citing violent posts."
NEGATED = QAPair(Q, "It is not true that Amazon Web Services stopped hosting Parler on January 10, 2021, citing violent posts.")
REAL = QAPair("When did Parler go offline?", "Parler went offline on January 10, 2021, when Amazon dropped it.")


def item(*pairs: QAPair, label=Verdict.SUPPORTED) -> Item:
    return Item(id="a", claim=CLAIM, predicted_evidence=Evidence(tuple(pairs)),
                reference_evidence=Evidence((QAPair(Q, GOLD),)), gold_label=label)


def test_is_rewrite_needs_the_reference_content_and_a_change():
    assert is_rewrite(NEGATED.answer, GOLD)
    assert is_rewrite("It is a myth that Amazon Web Services stopped hosting Parler on January 10, 2021.", GOLD)
    assert not is_rewrite(GOLD, GOLD)  # a copy is gold content
    assert not is_rewrite("Amazon Web Services stopped hosting Parler", GOLD)  # a copied part too
    assert not is_rewrite(REAL.answer, GOLD, 1.0)  # holds "went offline", not every gold word
    assert not is_rewrite("It is not true that 2021.", "2021.")  # too short a reference answer to be rewritten
    assert REWRITE_MIN == 0.7 and CONTRADICTION_MIN == 0.5


def test_the_contradicted_rewrite_is_found_with_its_reference_pair():
    v = KeywordVerifier()
    found = ReferenceContradiction(v).contradicted([item(REAL, NEGATED)])
    assert list(found[0]) == [1]  # the negated gold pair; the real pair rewrites nothing
    r = found[0][1]
    assert (r.side, r.pair_index, r.contradiction, r.n_premises, r.n_checked) == ("reference", 0, 0.9, 1, 1)
    assert r.premise == QAPair(Q, GOLD).render()
    assert v.calls == [([QAPair(Q, GOLD).render()], [NEGATED.answer])]  # only the rewrite was sent


def test_copies_and_uncontradicted_rewrites_stay():
    v = KeywordVerifier()
    copy = QAPair("Other question?", GOLD)
    reworded = QAPair(Q, "On January 10, 2021, Amazon Web Services stopped hosting Parler, citing violent posts online.")
    found = ReferenceContradiction(v).contradicted([item(copy, reworded), item(QAPair(Q, GOLD))])
    assert found == [{}, {}]
    assert v.calls == [([QAPair(Q, GOLD).render()], [reworded.answer])]  # the copies were never sent


def test_the_result_is_cached_for_the_second_scorer():
    v = KeywordVerifier()
    check = ReferenceContradiction(v)
    first = check.contradicted([item(REAL, NEGATED)])
    assert check.contradicted([item(REAL, NEGATED)]) == first and len(v.calls) == 1


def test_recall_reads_the_evidence_without_the_contradicted_rewrite():
    v = KeywordVerifier()
    plain = NLIReferenceScorer(v, DeclarativeDecomposer(), calibration=None)
    ruled = NLIReferenceScorer(v, DeclarativeDecomposer(), calibration=None, contradiction=ReferenceContradiction(v))
    gamed = item(REAL, NEGATED)
    assert plain.score_reference([gamed])[0].recall == 1.0  # "It is not true that X" entails X for the fake
    got = ruled.score_reference([gamed])[0]
    assert got.recall == plain.score_reference([item(REAL)])[0].recall
    assert list(got.contradicted_pairs) == [1]
    assert got.precision == plain.score_reference([gamed])[0].precision  # the predicted facts are all still checked
    assert "+contra0.5/rw0.7" in ruled.signature_fields()["prem"] and "contra" not in plain.signature_fields()["prem"]


def test_the_gold_sentences_a_contradicted_rewrite_keeps_earn_no_precision():
    v = KeywordVerifier()
    second = "Parler had failed to remove violent posts."
    ref = Evidence((QAPair(Q, f"{GOLD} {second}"),))
    gamed = Item(id="b", claim=CLAIM, predicted_evidence=Evidence((QAPair(Q, f"It is not true that {GOLD[0].lower()}{GOLD[1:]} "
                                                                               f"{second}"),)),
                 reference_evidence=ref, gold_label=Verdict.SUPPORTED)
    plain = NLIReferenceScorer(v, DeclarativeDecomposer(), calibration=None).score_reference([gamed])[0]
    ruled = NLIReferenceScorer(v, DeclarativeDecomposer(), calibration=None,
                               contradiction=ReferenceContradiction(v)).score_reference([gamed])[0]
    assert [f.supported for f in plain.predicted_facts] == [False, True]  # the kept gold sentence is entailed
    assert ruled.precision == 0.0 and [f.probability for f in ruled.predicted_facts] == [0.0, 0.0]
    assert all(f.decided_by.side == "reference" and f.decided_by.contradiction == 0.9 for f in ruled.predicted_facts)


def test_the_proxy_reads_the_evidence_without_the_contradicted_rewrite():
    v = KeywordVerifier()
    ruled = NLIProxyScorer(v, contradiction=ReferenceContradiction(v))
    got = ruled.score_proxy([item(REAL, NEGATED, label=Verdict.REFUTED)])[0]
    assert [p.pair_index for p in got.premises] == [0]
    assert got.proxy == pytest.approx(NLIProxyScorer(v).score_proxy([item(REAL, label=Verdict.REFUTED)])[0].proxy)
    assert list(got.contradicted_pairs) == [1]
    assert ruled.signature_fields()["proxy-rule"].endswith("+nee-rel-all+contra0.5/rw0.7")


def test_the_scorer_default_and_its_rows(nltk_data):
    rows = build_scorer(verifier=KeywordVerifier(), hybrid_columns="all").score([item(REAL, NEGATED)])
    alone = build_scorer(verifier=KeywordVerifier(), hybrid_columns="all").score([item(REAL)])
    unvetoed = build_scorer(verifier=KeywordVerifier(), hybrid_columns="all")
    # the veto is always on since 2.0 (commit e43eb97 computes --no-contradiction): switched off here by hand
    unvetoed.reference_scorer.contradiction = unvetoed.proxy_scorer.contradiction = None
    off = unvetoed.score([item(REAL, NEGATED)])
    s = rows[0]
    assert s.contradicted_pairs == [{"predicted": 1, "reference": 0, "premise": QAPair(Q, GOLD).render(),
                                     "entailment": 0.05, "neutral": 0.05, "contradiction": 0.9}]
    for col in ("hybrid_meteor", "hybrid_embedding", "verified_meteor", "ev2r_hybrid"):
        assert s.extra_scores[col] == pytest.approx(alone[0].extra_scores[col]), col
    assert off[0].contradicted_pairs == [] and off[0].recall == 1.0 > s.recall
    d = s.to_dict(explain=True)
    assert d["contradicted_pairs"] == s.contradicted_pairs and "contradicted_pairs" not in s.to_dict()
    assert score_from_row(d).contradicted_pairs == s.contradicted_pairs


@pytest.mark.parametrize("kwargs,field", [({"threshold": 1.0}, "threshold"), ({"threshold": 0}, "threshold"),
                                          ({"rewrite_min": 0}, "rewrite_min"), ({"rewrite_min": 1.5}, "rewrite_min"),
                                          ({"cache_size": -1}, "cache_size")])
def test_bad_options_name_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        ReferenceContradiction(KeywordVerifier(), **kwargs)


def test_the_veto_is_always_on():
    # contradiction=False (--no-contradiction) left in 2.0; commit e43eb97 computes it
    with pytest.raises(TypeError, match="contradiction"):
        ScorerConfig(contradiction=False)
    scorer = build_scorer(verifier=KeywordVerifier(), hybrid=False)
    assert scorer.reference_scorer.contradiction is scorer.proxy_scorer.contradiction is not None
    assert "+contra0.5/rw0.7" in str(scorer.signature())


def test_a_negated_reference_cut_into_one_pair_per_sentence_is_still_a_rewrite():
    # a case the gaming suite's checkers found: each pair held about half of a two-sentence gold answer, under
    # REWRITE_MIN of it
    two = ("Amazon Web Services stopped hosting Parler on January 10, 2021. "
           "The company cited violent posts that threatened public safety.")
    halves = [QAPair(Q, "It is not true that Amazon Web Services stopped hosting Parler on January 10, 2021."),
              QAPair(Q, "It is not true that the company cited violent posts that threatened public safety.")]
    assert all(is_rewrite(p.answer, two) for p in halves)
    from claimalign.words import claim_coverage

    assert all(claim_coverage(p.answer, two) < REWRITE_MIN for p in halves)  # neither holds 0.7 of the whole answer
    gamed = Item(id="s", claim=CLAIM, predicted_evidence=Evidence((REAL, *halves)),
                 reference_evidence=Evidence((QAPair(Q, two),)), gold_label=Verdict.SUPPORTED)
    assert list(ReferenceContradiction(KeywordVerifier()).contradicted([gamed])[0]) == [1, 2]


def test_precision_does_not_depend_on_which_copy_of_a_repeated_fact_comes_first():
    # a fact stated by a contradicted rewrite and again by an honest pair is the honest pair's fact
    v = KeywordVerifier()
    scorer = NLIReferenceScorer(v, DeclarativeDecomposer(), calibration=None, contradiction=ReferenceContradiction(v))
    part = "Amazon Web Services stopped hosting Parler on January 10, 2021."  # a gold sentence: supported
    honest = QAPair("When did AWS stop hosting Parler?", part)
    mixed = QAPair(Q, NEGATED.answer + " " + part)
    first, second = (scorer.score_reference([item(*pairs)])[0] for pairs in ((mixed, honest), (honest, mixed)))
    assert list(first.contradicted_pairs) == [0] and list(second.contradicted_pairs) == [1]
    assert first.precision == second.precision == 0.5  # the negation unsupported, the gold sentence supported
    assert (first.recall, first.f1) == (second.recall, second.f1)


def test_bad_options_and_rows_name_the_field():
    v = KeywordVerifier()
    for bad in ("0.7", True, 0.0, 1.5):
        with pytest.raises(ValueError, match="rewrite_min"):
            ReferenceContradiction(v, rewrite_min=bad)
    for bad in ("0.5", False, 1.0):
        with pytest.raises(ValueError, match="threshold"):
            ReferenceContradiction(v, threshold=bad)
    with pytest.raises(ValueError, match="contradicted_pairs"):
        score_from_row({"id": "a", "contradicted_pairs": "abc"})
    with pytest.raises(ValueError, match="hybrid_alignment"):
        score_from_row({"id": "a", "hybrid_alignment": [1, 2]})
    assert score_from_row({"id": "a", "contradicted_pairs": [{"predicted": 1}]}).contradicted_pairs == [{"predicted": 1}]
