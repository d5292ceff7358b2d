"""The fuzzy METEOR of the hybrid columns (issue 54: a copy with a typo or a number spelled out is the copy):
:func:`claimalign.meteor_fast.single_meteor` with ``fuzzy=True``, :func:`one_edit`, :func:`canonical_numbers`."""

import pytest

from claimalign.meteor_fast import canonical_numbers, meteor_words, one_edit, single_meteor


@pytest.mark.parametrize("a,b,expected", [
    ("senator", "senaotr", True),    # adjacent letters swapped
    ("against", "agaisnt", True),
    ("voted", "voter", True),        # one substituted
    ("report", "reports", True),     # one inserted
    ("vote", "vote", False),         # the same word is no edit
    ("senator", "sentaro", False),   # two edits
    ("ban", "bandit", False),
    ("abcd", "badc", False),         # two swaps
])
def test_one_edit(a, b, expected):
    assert one_edit(a, b) is expected
    assert one_edit(b, a) is expected  # symmetric


@pytest.mark.parametrize("tokens,expected", [
    (("forty-five", "percent"), ("45", "percent")),
    (("45", "%"), ("45", "percent")),
    (("2,500", "people"), ("2500", "people")),
    (("two", "thousand", "five", "hundred"), ("2500",)),
    (("twenty", "twenty"), ("2020",)),                     # num2words' year
    (("nineteen", "ninety-nine"), ("1999",)),
    (("$", "3", "million"), ("3", "dollars", "million")),
    (("three", "dollars", "million"), ("3", "dollars", "million")),
    (("one", "of", "them"), ("one", "of", "them")),        # a lone "one" is a pronoun
    (("the", "report"), ("the", "report")),
])
def test_canonical_numbers(tokens, expected):
    assert canonical_numbers(tokens) == expected


def test_fuzzy_meteor_reads_a_typo_or_a_spelled_number_as_the_copy(nltk_data):
    ref = meteor_words("The senator voted against the bill in 2020 with 45% of the members.")
    typo = meteor_words("The senaotr voted agaisnt the bill in 2020 with 45% of the members.")
    spelled = meteor_words("The senator voted against the bill in twenty twenty with forty-five percent of the members.")
    copy = single_meteor(ref, ref, fuzzy=True)
    assert single_meteor(ref, ref) == copy  # nothing left for the fourth stage
    assert single_meteor(ref, typo) < copy - 0.1  # nltk's METEOR: two words lost
    assert single_meteor(ref, typo, fuzzy=True) == pytest.approx(copy)
    assert single_meteor(ref, spelled) < copy - 0.15
    assert single_meteor(ref, spelled, fuzzy=True) == pytest.approx(copy)


def test_fuzzy_meteor_never_matches_another_number_or_a_short_word(nltk_data):
    ref = meteor_words("The bill passed in 2020 with 45% of the vote by cat owners.")
    other = meteor_words("The bill passed in 2021 with 46% of the vote by cta owners.")
    assert single_meteor(ref, other, fuzzy=True) == pytest.approx(single_meteor(ref, other))


def test_meteor_match_option_is_checked_and_signed():
    from ev2r.config import ScorerConfig
    from ev2r.metric.combined import HybridCombiner

    with pytest.raises(ValueError, match=r"meteor_match: 'typo' is not one of \('exact', 'fuzzy'\)"):
        ScorerConfig(meteor_match="typo")
    with pytest.raises(ValueError, match="meteor_match"):
        HybridCombiner(meteor_match="typo")
    assert "hybrid-meteor" not in HybridCombiner().signature_fields()  # exact: the /1 and /2 definitions unchanged
    assert HybridCombiner(meteor_match="fuzzy").signature_fields()["hybrid-meteor"] == "fuzzy-v1"
