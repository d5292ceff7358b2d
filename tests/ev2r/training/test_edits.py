"""The handed edit families for training the verifier (ev2r.training.edits): each family's edit on hand-checked
strings, the labels of the pairs made from them, determinism and bad input."""

import random

import pytest

from ev2r.training.data import Pair
from ev2r.training.edits import (CHANGE_LABEL, CHANGING, PRESERVING, _changed_span, augment_meaning_edits, edit_text)


def edit(family, text, seed=1, names=()):
    return edit_text(family, text, random.Random(seed), names)


def test_every_changing_family_has_a_non_entailment_label():
    assert set(CHANGE_LABEL) == set(CHANGING)
    assert set(CHANGE_LABEL.values()) <= {"contradiction", "neutral"}
    assert not set(CHANGING) & set(PRESERVING)


def test_number_scale_sign_edits_change_only_the_value():
    out = edit("number", "The rate rose to 14.7% in 2020.")
    assert out != "The rate rose to 14.7% in 2020." and out.startswith("The rate rose to ")
    assert edit("scale", "It cost 45.1 million dollars.") in {f"It cost 45.1 {s} dollars." for s in
                                                              ("thousand", "billion", "trillion")}
    assert edit("sign", "GDP fell (-6.1% from 2019).") == "GDP fell (6.1% from 2019)."
    assert edit("sign", "no number here") is None


def test_yes_no_negation_antonym_unit():
    assert edit("yesno", "Yes, the bill passed.") == "No, the bill passed."
    assert edit("yesno", "No.") == "Yes."
    neg = edit("negation", "The patient was tested on Monday.")
    assert neg in {"The patient was not tested on Monday.", "The patient was never tested on Monday.",
                   "The patient was no longer tested on Monday."}
    assert edit("negation", "The patient was not tested.") == "The patient was tested."
    assert edit("antonym", "Prices increased sharply.") == "Prices decreased sharply."
    assert edit("unit", "He ran 5 km.") == "He ran 5 miles."


def test_entity_edits_use_another_name():
    out = edit("entity", "He met officials in Nigeria last year.")
    assert out is not None and "Nigeria" not in out and out.startswith("He met officials in ")
    # no listed entity: a capitalised name of the data replaces a multi-word name
    assert edit("entity", "He joined the Progressive Party then.", names=["Green Union"]) == \
        "He joined the Green Union then."
    assert edit("entity", "nothing named here", names=["Green Union"]) is None


def test_preserving_families():
    assert edit("articles", "The mayor signed the order.") in {"Mayor signed order.", "Mayor signed the order.",
                                                               "The mayor signed order."}
    assert edit("number_format", "It cost 2,500 dollars.") == "It cost 2500 dollars."
    assert edit("number_format", "Unemployment hit 5%.") in {"Unemployment hit 5 per cent.",
                                                             "Unemployment hit 5 percent."}
    assert edit("typos", "The government publishes the number of deaths.") != \
        "The government publishes the number of deaths."


def test_unknown_family_is_an_error():
    with pytest.raises(ValueError, match="family: 'synonyms' not among"):
        edit("synonyms", "text")


def test_changed_span():
    assert _changed_span("It cost 45.1 million dollars.", "It cost 45.1 billion dollars.") == "million"


POOL = [Pair("The unemployment rate rose to 14.7% in April 2020, the highest since 1948, officials said.",
             "The unemployment rate rose to 14.7% in April 2020.", "entailment", "t"),
        Pair("Joe Biden said he will raise taxes on people making over $400,000 a year.",
             "Joe Biden will raise taxes on people making over $400,000.", "entailment", "t"),
        Pair("The World Bank reported that the economy shrank by 6.1 million dollars in 2020.",
             "The economy shrank by 6.1 million dollars in 2020.", "entailment", "t"),
        Pair("The patient was tested on Monday in Lagos and was found to be positive.",
             "The patient was found to be positive.", "entailment", "t")] * 3


def test_augment_meaning_edits_labels_and_determinism():
    out = augment_meaning_edits(POOL, random.Random(3), 60)
    again = augment_meaning_edits(POOL, random.Random(3), 60)
    assert out == again and 0 < len(out) <= 60
    for p in out:
        kind, family = p.source.split("_", 2)[1:]
        assert kind in ("keep", "change")
        if kind == "change":
            assert p.label == CHANGE_LABEL[family], p
        else:
            assert p.label == "entailment", p
        assert p.premise != p.hypothesis or family == "yesno"


def test_augment_meaning_edits_bad_options():
    with pytest.raises(ValueError, match="n: -1"):
        augment_meaning_edits(POOL, random.Random(0), -1)
    with pytest.raises(ValueError, match="change_share"):
        augment_meaning_edits(POOL, random.Random(0), 5, change_share=1.5)


def test_synonym_family_uses_first_sense_synonyms_only():
    from ev2r.metric.admission import first_sense_synonyms, respell_reads_synonyms

    out = edit("synonym", "The annual report was released by the agency.", seed=0)
    if not respell_reads_synonyms():  # no WordNet here: the family does not apply
        assert out is None
        return
    assert out is not None
    a, b = [w for w in zip("The annual report was released by the agency.".split(), out.split()) if w[0] != w[1]][0]
    assert first_sense_synonyms(a.strip("."), b.strip("."))


def test_pair_share_lays_both_sides_out_as_answers_to_one_question():
    out = augment_meaning_edits(POOL, random.Random(5), 80, pair_share=1.0)
    both = [p for p in out if p.premise.startswith("Question: ") and p.hypothesis.startswith("Question: ")
            and "yesno" not in p.source]
    assert both and all(p.premise.split("\n")[0] == p.hypothesis.split("\n")[0] for p in both)
    with pytest.raises(ValueError, match="pair_share: 2"):
        augment_meaning_edits(POOL, random.Random(0), 5, pair_share=2)
