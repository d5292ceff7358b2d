"""The rule decomposers on real-evidence shapes (issue 20 items 1-2, issue 21 item 3): AVeriTeC's
Unanswerable answers, answer-only pairs, content-free answers; the same rules in rules-v1 and v2."""

from __future__ import annotations

import pytest

from ev2r.facts.rules import DeclarativeDecomposer, RuleBasedDecomposer, get_rule_decomposer
from ev2r.types import Evidence

UNANSWERED = ("Question: Did France24 do a news item about the claim?\nAnswer: No answer could be found.\n\n"
              "Question: What did the ministry say?\nAnswer: The ministry denied the report.")


@pytest.mark.parametrize("cls", [RuleBasedDecomposer, DeclarativeDecomposer])
def test_unanswerable_pair_gives_no_fact_by_default(cls):
    facts = [f.text for f in cls().decompose(Evidence.from_text(UNANSWERED))]
    assert len(facts) == 1 and "ministry denied the report" in facts[0]
    # before: rules-v2 read the "No" as a denial and emitted "Answer could be found."
    assert not any("could be found" in f or "did not do" in f for f in facts)


@pytest.mark.parametrize("cls", [RuleBasedDecomposer, DeclarativeDecomposer])
def test_unanswerable_statement_mode(cls):
    facts = cls(unanswerable="statement").decompose(Evidence.from_text(UNANSWERED))
    assert facts[0].text == ("No answer could be found to the question: "
                             "Did France24 do a news item about the claim?")
    assert facts[0].pair_index == 0 and len(facts) == 2
    assert cls(unanswerable="statement").signature_fields()["unans"] == "statement"


def test_unknown_unanswerable_mode_is_an_error():
    with pytest.raises(ValueError, match=r"unanswerable: 'keep' is not one of \('drop', 'statement'\)"):
        get_rule_decomposer("rules", unanswerable="keep")


@pytest.mark.parametrize("name", ["rules-v1", "rules-v2"])
def test_answer_only_pairs_give_facts(name):
    # 29 of 278 shared-task predictions are written "Question: \nAnswer: ...": before, the answer was read
    # as the question and the prediction had no fact (precision 0.0, status ok: a silent zero)
    ev = Evidence.from_text("Question: \nAnswer: The CDC said 6% of deaths listed COVID-19 alone. "
                            "Other conditions were listed too.")
    facts = [f.text for f in get_rule_decomposer(name).decompose(ev)]
    assert facts == ["The CDC said 6% of deaths listed COVID-19 alone.", "Other conditions were listed too."]


@pytest.mark.parametrize("name", ["rules-v1", "rules-v2"])
def test_answer_on_the_question_line_gives_the_same_facts(name):
    d = get_rule_decomposer(name)
    two = d.decompose(Evidence.from_text("Question: What is the population of Kerala?\nAnswer: 33,387,677 in 2011."))
    one = d.decompose(Evidence.from_text("question: What is the population of Kerala? answer: 33,387,677 in 2011."))
    assert [f.text for f in one] == [f.text for f in two] and two
