"""The further edit families (ev2r.training.edits_more, registered in ev2r.training.edits): hand-checked input ->
edited sentence and the label of the pair, where each family must not apply, the premise-only layout of the weakening
families, and that the default family set still builds the recorded runs' pools."""

import random

import pytest

from ev2r.training.contained import augment_contained, contained_changing
from ev2r.training.data import Pair
from ev2r.training.edits import (CHANGE_LABEL, CHANGING, FAMILY_SETS, PREMISE_ONLY, PRESERVING, augment_meaning_edits,
                                 edit_text, family_set)

NEW_CHANGING = ("certainty", "attribution", "time", "quantifier", "comparative")
NEW_PRESERVING = ("abbreviation", "sentence_split", "coordination", "date_format")


def edits(family, text, seeds=range(4)):
    """The edits of ``text`` by ``family`` over a few seeds (a family picks at random among its applicable spans)."""
    return {edit_text(family, text, random.Random(s)) for s in seeds}


def one(family, text):
    out = edits(family, text)
    assert len(out) == 1, out
    return out.pop()


# input sentence -> edited sentence, and the label of (edited premise, original hypothesis) or (original, edited)
CHANGES = [
    ("certainty", "The study showed a rise in cases.", "The study suggested a rise in cases.", "neutral"),
    ("certainty", "The senator was arrested in 2019.", "The senator might have been arrested in 2019.", "neutral"),
    ("certainty", "The company will cut 500 jobs.", "The company may cut 500 jobs.", "neutral"),
    ("certainty", "The vaccine is definitely safe for children.", "The vaccine is possibly safe for children.", "neutral"),
    ("attribution", "The minister said that taxes would rise.", "The minister denied that taxes would rise.",
     "contradiction"),
    ("attribution", "Police denied the report.", "Police confirmed the report.", "contradiction"),
    ("attribution", "Taxes will rise, officials said.", "Taxes will rise, officials denied.", "contradiction"),
    ("time", "He resigned before the vote.", "He resigned after the vote.", "contradiction"),
    ("time", "The talks resumed last week.", "The talks resumed next week.", "contradiction"),
    ("time", "Sales fell in early 2021.", "Sales fell in late 2021.", "contradiction"),
    ("quantifier", "All staff were paid in full.", "Some staff were paid in full.", "neutral"),
    ("quantifier", "Everyone in the town was evacuated.", "Someone in the town was evacuated.", "neutral"),
    ("quantifier", "The bridge is always closed at night.", "The bridge is sometimes closed at night.", "neutral"),
    ("quantifier", "Most of the votes were counted.", "Some of the votes were counted.", "neutral"),
    ("comparative", "Unemployment is higher than in 2019.", "Unemployment is lower than in 2019.", "contradiction"),
    ("comparative", "More than 500 people attended.", "Less than 500 people attended.", "contradiction"),
    ("comparative", "It is the largest city in Texas.", "It is the smallest city in Texas.", "contradiction"),
    ("comparative", "Inflation stayed above 5% all year.", "Inflation stayed below 5% all year.", "contradiction"),
]
KEEPS = [
    ("abbreviation", "The US economy grew by 2%.", "The United States economy grew by 2%."),
    ("abbreviation", "The World Health Organization declared a pandemic.", "The WHO declared a pandemic."),
    ("abbreviation", "He moved to the U.S. Then he left.", "He moved to the United States. Then he left."),
    ("sentence_split", "The bill passed in March, and the governor signed it in April.",
     "The bill passed in March. The governor signed it in April."),
    ("sentence_split", "The mayor resigned; the council was dissolved.", "The mayor resigned. The council was dissolved."),
    ("sentence_split", "The plan was popular, but the council rejected it.",
     "The plan was popular. But the council rejected it."),
    ("coordination", "France and Germany signed the treaty.", "Germany and France signed the treaty."),
    ("coordination", "Exports to the United States and Canada fell.", "Exports to Canada and the United States fell."),
]


@pytest.mark.parametrize("family,text,edited,label", CHANGES)
def test_changing_family_hand_checked(family, text, edited, label):
    assert one(family, text) == edited
    assert CHANGE_LABEL[family] == label


@pytest.mark.parametrize("family,text,edited", KEEPS)
def test_preserving_family_hand_checked(family, text, edited):
    assert one(family, text) == edited


def test_months_weekdays_and_dates():
    moved = edits("time", "The law took effect in March 2020.", range(12))
    assert moved and all(m.startswith("The law took effect in ") and m.endswith(" 2020.") for m in moved)
    assert not any(m.startswith("The law took effect in March") or "February" in m or "April" in m for m in moved)
    assert edits("date_format", "The vote was held on 12 March 2020.", range(8)) == {
        "The vote was held on March 12, 2020.", "The vote was held on 2020-03-12."}
    assert edits("date_format", "He was born on May 31, 1986 in Texas.", range(8)) == {
        "He was born on 31 May 1986 in Texas.", "He was born on 1986-05-31 in Texas."}
    assert edits("date_format", "Published 2020-03-12 by the agency.", range(8)) == {
        "Published 12 March 2020 by the agency.", "Published March 12, 2020 by the agency."}


@pytest.mark.parametrize("family,text", [
    ("certainty", "The senator might have been arrested."),   # already hedged
    ("certainty", "The senator was not arrested."),           # negated
    ("attribution", "The said building was sold."),           # "said" as an adjective
    ("attribution", "He was said to be rich."),
    ("attribution", "Ten new cases were confirmed on Monday."),  # a diagnosis, not a source's word
    ("attribution", "It is in the United States."),           # "States" is a name
    ("time", "You may leave now."),                           # "may" is no month
    ("quantifier", "He did not like it at all."),
    ("quantifier", "He was named Most Valuable Player."),
    ("quantifier", "They lost it all."),
    ("comparative", "Prices rose more or less as expected."),
    ("comparative", "He is no longer the mayor."),
    ("comparative", "As noted above, the data are weak."),
    ("comparative", "The plan aims to lower taxes."),
    ("comparative", "Players with 11 or more wins qualify."),  # compatible at exactly 11
    ("abbreviation", "Let us go."),
    ("abbreviation", "THE US IS BIG."),
    ("abbreviation", "It cost US$5."),
    ("sentence_split", "He bought apples, pears, and the plums were sold out."),  # a list
    ("sentence_split", "It is the tenth episode, and the last overall."),          # no clause after "and"
    ("coordination", "Sales rose between France and Germany."),
    ("coordination", "France and Germany won gold and silver respectively."),
    ("date_format", "The report is dated 12/03/2020."),       # day and month ambiguous
    ("date_format", "It happened on 45 March 2020."),
])
def test_family_does_not_apply(family, text):
    assert edits(family, text) == {None}


def test_registration_and_family_sets():
    assert set(NEW_CHANGING) <= set(CHANGING) and set(NEW_PRESERVING) <= set(PRESERVING)
    assert set(CHANGE_LABEL) == set(CHANGING)
    assert PREMISE_ONLY == {"hedge", "certainty", "quantifier"}
    assert not set(FAMILY_SETS["issue63"]) & (set(NEW_CHANGING) | set(NEW_PRESERVING))
    assert family_set() == family_set("issue63") and family_set("all") == set(CHANGING) | set(PRESERVING)
    assert family_set(["time"]) == {"time"}
    with pytest.raises(ValueError, match="families: 'most' not among"):
        family_set("most")
    with pytest.raises(ValueError, match=r"families: \['tense'\] not among"):
        family_set(["tense"])
    assert set(contained_changing("all")) == set(CHANGING) - PREMISE_ONLY - {"yesno"}
    assert contained_changing() == contained_changing("issue63")


POOL = [Pair("Officials said that all staff were paid in full before the strike in March 2020, and the mayor "
             "resigned.", "All staff were paid in full before the strike in March 2020.", "entailment", "t"),
        Pair("The US economy grew faster than expected in 2019, the World Health Organization said.",
             "The US economy grew faster than expected in 2019.", "entailment", "t"),
        Pair("France and Germany signed the treaty on 12 March 2020; the vote was held later.",
             "France and Germany signed the treaty on 12 March 2020.", "entailment", "t"),
        Pair("The bridge is always closed at night, and the ferry will run more often in May 2021.",
             "The bridge is always closed at night.", "entailment", "t")] * 3


@pytest.mark.parametrize("family", NEW_CHANGING + NEW_PRESERVING)
def test_generator_labels_and_layout_per_family(family):
    change = family in CHANGING
    out = augment_meaning_edits(POOL, random.Random(7), 40, change_share=1.0 if change else 0.0, pair_share=0.5,
                                families=[family])
    assert out, family
    statements = {t for p in POOL for t in (p.premise, p.hypothesis)}
    for p in out:
        assert p.source == f"edit_{'change' if change else 'keep'}_{family}"
        assert p.label == (CHANGE_LABEL[family] if change else "entailment")
        if family in PREMISE_ONLY:  # the weakened statement is the premise, the original the hypothesis
            hyp = p.hypothesis.split("Answer: ")[-1]
            assert hyp in statements, p


def test_contained_draws_on_the_new_families_only_when_asked():
    default = augment_contained(POOL, random.Random(3), 200)
    wider = augment_contained(POOL, random.Random(3), 200, families="all")
    fams = lambda out: {p.source.split("_", 2)[2] for p in out if p.source.startswith(("contained_keep", "contained_change"))}  # noqa: E731
    assert not fams(default) & (set(NEW_CHANGING) | set(NEW_PRESERVING))
    assert fams(wider) & (set(NEW_CHANGING) | set(NEW_PRESERVING))
    assert not fams(wider) & PREMISE_ONLY  # an edited hypothesis is never the weakened statement


def test_training_pool_passes_the_family_set(monkeypatch):
    """``--aug-edit-families`` reaches both generators of ``training_pool``; left out, the pool has none of
    edits_more's families (only the first handed ones of ev2r.training.edits)."""
    import argparse

    from ev2r.training import pool

    monkeypatch.setattr(pool, "build_training_pool", lambda *a: (list(POOL), {}, {"removed_eval_claim_overlap": 0}))
    args = argparse.Namespace(data_dir=None, heldout_percent=15, seed=1, vitaminc_real_repeat=1, breaking_nli_cap=1,
                              aug_entail=0, aug_neutral=0, aug_invariant=0, aug_negated_premise=0, averitec_train=None,
                              averitec_repeat=1, aug_meaning_edits=200, aug_meaning_change_share=0.6,
                              aug_meaning_pair_share=0.5, aug_contained=200)
    new = set(NEW_CHANGING) | set(NEW_PRESERVING)

    def families(stats):
        return {k.split("_", 2)[2] for k in stats if k.startswith(("edit_", "contained_keep", "contained_change"))}
    _, _, stats = pool.training_pool(args, random.Random(0))
    assert families(stats) and not families(stats) & new
    args.aug_edit_families = "all"
    _, _, stats = pool.training_pool(args, random.Random(0))
    assert families(stats) & new
