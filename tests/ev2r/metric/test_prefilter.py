"""The lexical first stage (ev2r.metric.prefilter) and its use by the reference scorer
(premise_top_k): hand-computed scores, order, which pairs reach the verifier, the signature."""

import math

import pytest

from ev2r.config import DEFAULTS, ScorerConfig
from ev2r.metric.prefilter import overlap_scores, stems, top_k_premises
from ev2r.metric.reference import NLIReferenceScorer
from ev2r.types import Evidence, Item, QAPair
from support.fakes import KeywordVerifier


class AnswerFacts:
    """Each answer is one fact (a decomposer stand-in)."""

    name = "answer-facts"

    def decompose(self, evidence, claim):
        from ev2r.types import AtomicFact

        return [AtomicFact(p.answer) for p in evidence.pairs]


def test_stems_are_casefolded_prefixes_of_any_script():
    assert stems("Elections ELECTED") == {"elect"}
    assert stems("Praha volila v roce 2019") == {"praha", "volil", "v", "roce", "2019"}
    assert stems("...") == set()


def test_overlap_scores_by_hand():
    # N = 3 premises; "paris" in 2 of them, "2014" in 1, "mayor" in 0
    prem = ["Paris 2014", "Paris", "Rome"]
    idf1 = math.log(1 + (3 - 1 + 0.5) / 1.5)
    idf2 = math.log(1 + (3 - 2 + 0.5) / 2.5)
    got = overlap_scores("mayor Paris 2014", prem)
    assert got == pytest.approx([idf2 + idf1, idf2, 0.0])


def test_top_k_keeps_the_best_in_their_order_and_breaks_ties_by_position():
    prem = ["Rome", "Paris 2014", "Berlin", "Paris"]
    assert top_k_premises("Paris 2014", prem, 2) == [1, 3]
    assert top_k_premises("Madrid", prem, 2) == [0, 1, 2, 3]  # all tie at 0: nothing can be told apart, none dropped
    assert top_k_premises("Paris", prem, 1) == [1, 3]  # tied with the best: both kept
    assert top_k_premises("Madrid", prem, None) == [0, 1, 2, 3]
    assert top_k_premises("Madrid", prem, 9) == [0, 1, 2, 3]
    assert top_k_premises("x", [], 1) == []
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="premise_top_k: expected None"):
            top_k_premises("x", ["a"], bad)


def _item():
    pred = Evidence(tuple(QAPair(f"Q{k}?", a) for k, a in enumerate(
        ["Paris elected Hidalgo mayor", "Rain fell in Spain", "Hidalgo was born in 1959", "Tourism grew"])))
    ref = Evidence((QAPair("Who?", "Hidalgo elected mayor"), QAPair("When born?", "Hidalgo born 1959")))
    return Item(id="p", claim="c", predicted_evidence=pred, reference_evidence=ref)


def test_pruned_scorer_sends_each_fact_only_its_top_k_premises():
    ver = KeywordVerifier()
    scorer = NLIReferenceScorer(ver, AnswerFacts(), calibration=None, premise_top_k=1)
    (res,) = scorer.score_reference([_item()])
    sent = list(zip(*ver.calls[0]))
    ref_side = [(p, h) for p, h in sent if h in ("Hidalgo elected mayor", "Hidalgo born 1959")]
    assert ref_side == [("Question: Q0?\nAnswer: Paris elected Hidalgo mayor", "Hidalgo elected mayor"),
                        ("Question: Q2?\nAnswer: Hidalgo was born in 1959", "Hidalgo born 1959")]
    # predicted facts: two share stems with one reference pair (1 premise each), "Rain fell in Spain" and
    # "Tourism grew" share no content word with either (+anchor: never checked, before pruning); reference
    # facts: 1 premise each
    assert len(sent) == 1 + 1 + 1 + 1
    assert scorer.n_pairs_considered == 4 * 2 + 2 * 4 and scorer.n_pairs_pruned == 16 - 4
    exhaustive = NLIReferenceScorer(KeywordVerifier(), AnswerFacts(), calibration=None, premise_top_k=None)
    (full,) = exhaustive.score_reference([_item()])
    assert (res.precision, res.recall) == (full.precision, full.recall) == (0.25, 1.0)  # one of 4 predicted facts entailed
    assert scorer.signature_fields()["prem"] == "qa-pair-max+lex-top1+twin~0.85/num+contr+art+respell-syn+anchor"
    assert exhaustive.signature_fields()["prem"] == "qa-pair-max+twin~0.85/num+contr+art+respell-syn+anchor"


def test_a_verbatim_premise_is_never_pruned_when_the_others_repeat_its_words():
    """hostile tester: five pairs all holding the fact's words, the verbatim one last; position broke the tie."""
    prem = [f"Question: Who won {s}?\nAnswer: Trump won {s} in the 2020 election, not Biden." for s in
            ("Texas", "Ohio", "Iowa", "Utah")] + ["Question: Who won?\nAnswer: Biden won the 2020 election."]
    assert 4 in top_k_premises("Biden won the 2020 election.", prem, 4)
    ver = KeywordVerifier()
    it = Item(id="t", claim="c", predicted_evidence=Evidence((QAPair("", "Biden won the 2020 election."),)),
              reference_evidence=Evidence(tuple(QAPair(*p.split("\nAnswer: ")) for p in prem)))
    (res,) = NLIReferenceScorer(ver, AnswerFacts(), calibration=None, premise_top_k=4).score_reference([it])
    assert res.precision == 1.0


def test_unspaced_scripts_are_not_pruned_by_position():
    prem = ["特朗普赢得了德州。", "特朗普赢得了俄州。", "拜登在2020年赢得了大选。"]
    assert top_k_premises("拜登赢得了2020年大选。", prem, 1) == [0, 1, 2]  # no shared stem: nothing dropped


def test_premise_top_k_is_validated_everywhere():
    with pytest.raises(ValueError, match="premise_top_k: expected None"):
        NLIReferenceScorer(KeywordVerifier(), AnswerFacts(), premise_top_k=0)
    with pytest.raises(ValueError, match="premise_top_k: expected None"):
        ScorerConfig(premise_top_k=0)
    with pytest.raises(ValueError, match="hybrid_columns: 'some' is not one of"):
        ScorerConfig(hybrid_columns="some")
    assert DEFAULTS.replace(premise_top_k=3).premise_top_k == 3
    import numpy as np

    assert DEFAULTS.replace(premise_top_k=np.int64(3)).premise_top_k == 3
    assert DEFAULTS.premise_top_k == 5  # chosen on both development sets: benchmarks/results/pruning.md
    assert NLIReferenceScorer(KeywordVerifier(), AnswerFacts(), calibration=None).signature_fields()["prem"] \
        == "qa-pair-max+lex-top5+twin~0.85/num+contr+art+respell-syn+anchor"


def test_cli_premise_top_k_argument():
    import argparse

    from ev2r.cli.common import premise_top_k_arg

    assert premise_top_k_arg("all") is None and premise_top_k_arg("ALL") is None and premise_top_k_arg("3") == 3
    for bad in ("0", "-2", "x", "1.5", "+2", "1_0", " 3", "\u0663"):
        with pytest.raises(argparse.ArgumentTypeError, match="expected an integer >= 1 or 'all'"):
            premise_top_k_arg(bad)


def test_a_k_beyond_any_premise_count_is_all_in_the_computation_and_the_signature():
    # issue 33, item 7: equal computations, equal signatures
    from ev2r.cli.common import premise_top_k_arg
    from ev2r.config import PREMISE_TOP_K_ALL

    huge = premise_top_k_arg("99999999999999999999999")
    assert DEFAULTS.replace(premise_top_k=huge).premise_top_k is None
    assert DEFAULTS.replace(premise_top_k=PREMISE_TOP_K_ALL).premise_top_k is None
    assert DEFAULTS.replace(premise_top_k=PREMISE_TOP_K_ALL - 1).premise_top_k == PREMISE_TOP_K_ALL - 1
    fields = [NLIReferenceScorer(KeywordVerifier(), AnswerFacts(), calibration=None, premise_top_k=k).signature_fields()["prem"]
              for k in (None, huge, PREMISE_TOP_K_ALL)]
    assert fields == ["qa-pair-max+twin~0.85/num+contr+art+respell-syn+anchor"] * 3
