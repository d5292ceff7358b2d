"""The fuzzy METEOR of the hybrid columns (a copy with a typo or a number spelled out is the copy):
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


def test_the_hybrid_meteor_is_the_fuzzy_one_and_signed_so():
    from ev2r.config import ScorerConfig
    from ev2r.metric.combined import HybridCombiner

    # the exact METEOR of the hybrid columns left in 2.0 (commit e43eb97 computes it): no option names it now
    with pytest.raises(TypeError, match="meteor_match"):
        ScorerConfig(meteor_match="exact")
    with pytest.raises(TypeError, match="meteor_match"):
        HybridCombiner(meteor_match="exact")
    assert HybridCombiner().signature_fields()["hybrid-meteor"] == "fuzzy-v1"


@pytest.mark.parametrize("tokens,expected", [
    (("fourteen", "point", "seven", "percent"), ("14.7", "percent")),
    (("two", "point", "five", "million"), ("2.5", "million")),
    (("three", "million", "people"), ("3", "million", "people")),  # as "3 million" is written
    (("nineteen", "forty", "eight"), ("1948",)),                   # a year split at the hyphen
    (("forty", "eight"), ("48",)),                                 # not a year: the tail is a unit
    (("two", "thousand", "and", "five"), ("2005",)),
])
def test_canonical_numbers_decimals_scales_years(tokens, expected):
    assert canonical_numbers(tokens) == expected


def test_a_copy_with_numbers_spelled_out_or_punctuation_changed_is_the_copy():
    """copy_similarity reads numbers as values, so the gold with its numbers spelled out stays its twin."""
    from ev2r.metric.admission import TWIN_MIN_SIMILARITY, copy_similarity, copy_text
    from ev2r.types import QAPair

    gold = QAPair("What was the unemployment rate in April 2020?",
                  "The unemployment rate rose to 14.7% in April 2020, the highest since 1948.")
    spelled = QAPair(gold.question, "The unemployment rate rose to fourteen point seven percent in April twenty twenty, "
                                    "the highest since nineteen forty-eight.")
    assert copy_text(spelled.answer) == copy_text(gold.answer)
    assert copy_similarity(gold, spelled) == 1.0
    other = QAPair(gold.question, "The unemployment rate rose to 4.7% in April 2019, the highest since 1948.")
    assert copy_text(other.answer) != copy_text(gold.answer)  # other numbers stay other numbers
    assert TWIN_MIN_SIMILARITY <= copy_similarity(gold, other) < 1.0  # a near-copy: the verifier's denial check decides


# ----------------------------------------------------------------------------- hostile inputs (regressions)
@pytest.mark.parametrize("tokens", [
    ("two", "three"), ("one", "one"), ("one", "two", "three"), ("twenty", "twenty", "twenty"), ("forty-five-six",),
    ("five", "hundred", "hundred"), ("two", "point", "five", "thousand"), ("zero", "zero"), ("hundred",), ("thousand", "five"),
])
def test_canonical_numbers_keeps_a_run_that_is_no_number_as_words(tokens):
    """word2number added these up ("two three" -> "5", "twenty twenty twenty" -> "420", "two point five thousand"
    -> "2"): a list of numbers then matched another number."""
    assert canonical_numbers(tokens) == tuple(w.lower() for w in tokens)


@pytest.mark.parametrize("tokens,expected", [
    (("twenty", "five", "hundred"), ("2500",)),                              # word2number: 200
    (("one", "million", "two", "hundred", "thousand"), ("1200000",)),        # word2number: 1201200
    (("one", "hundred", "and", "five", "point", "two"), ("105.2",)),
    (("Forty-Five",), ("45",)), (("1,000,000,000",), ("1000000000",)),
    (("",), ("",)), (("-",), ("-",)), (("--",), ("--",)), (("twenty-",), ("twenty-",)), (("and",), ("and",)),
    (("point",), ("point",)), (("one",), ("one",)),
    (("nine", "point", "point", "five"), ("9", "point", "point", "5")),
])
def test_canonical_numbers_hostile_tokens(tokens, expected):
    assert canonical_numbers(tokens) == expected


def test_fuzzy_identical_spelled_numbers_score_as_exact():
    """Was 0.5 (fuzzy) against 0.9375 (exact): the run read as one token "200" had fewer words to match."""
    assert single_meteor(("two", "hundred"), ("two", "hundred"), fuzzy=True) == single_meteor(("two", "hundred"),
                                                                                             ("two", "hundred"))


def test_fuzzy_never_matches_two_different_numbers():
    assert single_meteor(("five",), ("two", "three"), fuzzy=True) == 0.0  # was 0.5: "two three" read 5
    # number words left as words ("hundred seventy" does not parse) are not typos of ordinals
    assert single_meteor(("hundred", "seventy"), ("hundred", "seventh"), fuzzy=True) == \
        single_meteor(("hundred", "seventy"), ("hundred", "seventh"))
    assert single_meteor(("sixty", "people"), ("sixth", "people"), fuzzy=True) < 1.0


try:
    from hypothesis import given, settings, strategies as st
except ImportError:  # pragma: no cover
    given = None

if given is not None:
    _TOK = st.one_of(st.sampled_from(["", "-", "--", "and", "point", "one", "hundred", "twenty-", "Forty-Five",
                                      "1,000,000", "%", "$", "3", "vote", "voter", "senator", "senaotr", "café",
                                      "cafe", "北京大学", "北京大字", "مرحبا", "x" * 500, "seventy", "seventh",
                                      "million", "billion", "two", "three", "five", "twenty", "point"]),
                     st.text(max_size=8))

    @settings(max_examples=150, deadline=None)
    @given(st.lists(_TOK, max_size=8).map(tuple), st.lists(_TOK, max_size=8).map(tuple))
    def test_fuzzy_meteor_properties(ref, hyp):
        value = single_meteor(ref, hyp, fuzzy=True)
        assert 0.0 <= value <= 1.0
        assert value == single_meteor(ref, hyp, fuzzy=True)
        if not ref or not hyp:
            assert value == 0.0
        assert single_meteor(ref, ref, fuzzy=True) == single_meteor(ref, ref) or not ref
        canonical_numbers(ref)

    @settings(max_examples=200, deadline=None)
    @given(st.text(max_size=12), st.text(max_size=12))
    def test_one_edit_symmetric_and_never_equal(a, b):
        assert one_edit(a, b) == one_edit(b, a)
        assert not one_edit(a, a)
