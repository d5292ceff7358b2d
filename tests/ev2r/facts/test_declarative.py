"""rules-v2: question/answer pairs written as declarative statements (ev2r.facts.declarative)."""

from __future__ import annotations

import pytest

from ev2r.facts.declarative import past_tense, qa_to_statements, split_aux_question, split_list, third_person
from ev2r.facts.rules import DeclarativeDecomposer, get_rule_decomposer, split_sentences
from ev2r.types import Evidence, QAPair


def _statements(q, a):
    return [s for s, _ in qa_to_statements(q, split_sentences(a))]


@pytest.mark.parametrize("question, answer, expected", [
    ("What is the total population of Kerala, India?", "3,33,87,677 from a 2011 census.",
     ["The total population of Kerala, India is 3,33,87,677 from a 2011 census."]),
    ("Did the WHO declare a pandemic in March 2020?", "Yes, on 11 March 2020.",
     ["The WHO declared a pandemic in March 2020, on 11 March 2020."]),
    ("Does India have 5.18 beds available for each 1000 people?", "No, the availability of beds is 0.55 per 1000 people.",
     ["India does not have 5.18 beds available for each 1000 people.",
      "The availability of beds is 0.55 per 1000 people."]),
    ("Is Kerala the most literate state?", "Yes. It has a literacy rate of 96%.",
     ["Kerala is the most literate state.", "Kerala has a literacy rate of 96%."]),
    ("Who won the 2020 US presidential election?", "Joe Biden", ["Joe Biden won the 2020 US presidential election."]),
    ("How many people died in the fire?", "At least 72", ["At least 72 people died in the fire."]),
    ("When was the Eiffel Tower built?", "1889", ["The Eiffel Tower was built in 1889."]),
    ("Where did Joe Biden give the speech?", "Pittsburgh", ["Joe Biden gave the speech in Pittsburgh."]),
    ("Which countries signed the treaty?", "France, Germany and Italy",
     ["France signed the treaty.", "Germany signed the treaty.", "Italy signed the treaty."]),
    ("Has the government banned face masks?", "No", ["The government has not banned face masks."]),
    ("Are the vaccines safe for children?", "Yes, according to the CDC.",
     ["The vaccines are safe for children, according to the CDC."]),
    ("How much did the project cost?", "$3 million", ["The project cost $3 million."]),
    ("Where is the headquarters of the company located?", "In Paris",
     ["The headquarters of the company is located in Paris."]),
    # not convertible by rule: the rules-v1 form keeps the question as context, nothing is dropped
    ("What did the minister say about the ban?", "That it would be lifted in June.",
     ["What did the minister say about the ban? That it would be lifted in June."]),
    # facts that stand alone -- a question led by a preposition, a be-question with no
    # predicate, a date with a comma (no list), the answer's function word lower-cased, "Because ...",
    # what someone said, a leading "It" of a wh-question's answer
    ("In which city is the Eiffel Tower?", "Paris.", ["The Eiffel Tower is in Paris."]),
    ("In which city is the Eiffel Tower?", "In Paris.", ["The Eiffel Tower is in Paris."]),
    ("In what year did Biden win the election?", "2020", ["Biden won the election in 2020."]),
    ("Where is the Eiffel Tower?", "Paris", ["The Eiffel Tower is in Paris."]),
    ("When did the Battle of Antietam take place?", "September 17, 1862",
     ["The Battle of Antietam took place on September 17, 1862."]),
    ("What is the population of Kerala?", "About 33 million.", ["The population of Kerala is about 33 million."]),
    ("Why was the bill rejected?", "Because it was too costly.", ["The bill was rejected because it was too costly."]),
    ("What did the minister say?", "It was a lie.", ["The minister said that it was a lie."]),
    ("What did Trump claim?", "That the election was stolen.", ["Trump claimed that the election was stolen."]),
    ("What did the ministry say?", "The ministry denied the report on Monday.", ["The ministry denied the report on Monday."]),
    ("What is Tesla?", "It is an American car maker founded in 2003.", ["Tesla is an American car maker founded in 2003."]),
    ("Which years were the warmest?", "2019, 2020 and 2021", ["The warmest were 2019.", "The warmest were 2020.",
                                                               "The warmest were 2021."]),
])
def test_qa_to_statements(question, answer, expected):
    assert _statements(question, answer) == expected


def test_a_list_is_words_or_numbers_and_no_date():
    assert split_list("September 17, 1862") == ["September 17, 1862"]
    assert split_list("17 September, 1862") == ["17 September, 1862"]
    assert split_list("Paris, 2019") == ["Paris, 2019"]  # a place and a year: one answer, not two items
    assert split_list("France, Germany and Italy") == ["France", "Germany", "Italy"]


def test_every_answer_sentence_contributes():
    q = "Do lockdowns slow the spread?"
    a = "Studies disagree. Some found a 30% reduction in cases. Others found no effect at all."
    out = _statements(q, a)
    assert len(out) == 3
    for sentence in split_sentences(a):
        assert any(sentence.rstrip(".") in s for s in out)


def test_helpers():
    assert split_aux_question("Did the WHO declare a pandemic?") == ("did", "the WHO", "declare a pandemic")
    assert split_aux_question("What is it?") is None
    assert split_list("France, Germany and Italy") == ["France", "Germany", "Italy"]
    assert split_list("3,33,87,677") == ["3,33,87,677"]  # digit groups are not list items
    assert [past_tense(v) for v in ("ban", "say", "approve", "deny", "declare")] == ["banned", "said", "approved", "denied", "declared"]
    assert [third_person(v) for v in ("have", "go", "deny", "ban")] == ["has", "goes", "denies", "bans"]


def test_decomposer_v2_joins_hard_wrapped_lines_and_names_itself():
    ev = Evidence((QAPair("Was there fraud in Nevada?", "An investigation concluded that\nthere was no evidence of fraud."),
                   QAPair("Empty?", "")))
    facts = DeclarativeDecomposer().decompose(ev)
    assert [f.text for f in facts] == ["An investigation concluded that there was no evidence of fraud."]
    assert facts[0].pair_index == 0
    assert get_rule_decomposer("rules").name == "rules-v2" and get_rule_decomposer("rules-v1").name == "rules-v1"
    with pytest.raises(ValueError, match="rules-v3"):
        get_rule_decomposer("rules-v3")
