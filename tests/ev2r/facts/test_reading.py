"""ev2r.facts.reading: a text's words read once, and the rules that read the reading decide as they did on the text."""

import dataclasses

import pytest

from claimalign.words import claim_coverage, content_tokens, token_coverage
from ev2r.facts.reading import TextReading, read_text

CLAIM = "Amazon Web Services suspended Parler's account after the Capitol riot on January 10, 2021."


def test_fields_of_a_hand_made_text():
    r = read_text("Reuters: the 3 vaccines weren't approved in 2021 (see https://x.org/a).")
    assert r.text == "Reuters: the 3 vaccines weren't approved in 2021 (see https://x.org/a)."
    assert r.has_content and not r.unanswerable and not r.bare
    # stems of the content words and the numbers; function words, one-letter words and the URL left out
    assert r.content == frozenset({"reuter", "3", "vaccin", "weren", "approv", "2021", "see"})
    assert r.words == ("reuters", "the", "3", "vaccines", "weren", "t", "approved", "in", "2021", "see")
    assert r.stems == ("reuter", "the", "3", "vaccin", "weren", "t", "approv", "in", "2021", "see")
    assert r.span == "reuters the 3 vaccines weren t approved in 2021 see https x org a"  # URLs kept
    assert r.content_words == 10  # whitespace-separated words with a letter or digit
    assert r.pieces[:4] == (("Reuters", frozenset({"reuter"})), (":", frozenset()), ("the", frozenset()),
                            ("3", frozenset({"3"})))
    assert [p for p, _ in r.pieces].count("/") == 3
    # after the last colon of the text: the URL's
    assert r.colon_tail is not None and r.colon_tail.text == "//x.org/a)." and r.colon_tail.colon_tail is None
    assert r.answered == r.text


def test_flags_of_short_texts():
    assert read_text("No.").bare and read_text("No.").has_content and read_text("No.").content == frozenset()
    assert not read_text("2021").bare and read_text("2021").content_words == 1
    empty = read_text(None)
    assert empty == read_text("") and empty.text == "" and not empty.has_content and not empty.bare
    assert empty.words == () and empty.span == "" and empty.colon_tail is None
    na = read_text("The page was down. No answer could be found.")
    assert not na.unanswerable and na.answered == "The page was down."
    assert read_text("No answer could be found.").unanswerable and read_text("No answer could be found.").answered == ""
    assert not read_text("...").has_content and read_text("...").content_words == 0


def test_a_reading_is_frozen_and_made_once():
    r = read_text("The mayor signed the order.")
    assert read_text("The mayor signed the order.") is r
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.text = "x"  # type: ignore[misc]
    assert isinstance(r.colon_tail, (TextReading, type(None)))


@pytest.mark.parametrize("text", ["The vaccine was approved in 2021.", "Yes.", "x", "https://example.com/a",
                                  "Biden's 91.25% plan, 3,33,87,677 people", "", "A b c"])
def test_fields_agree_with_the_word_utilities(text):
    from claimalign.words import has_content, is_bare_answer, word_tokens

    r = read_text(text)
    assert r.content == content_tokens(text)
    assert list(r.words) == word_tokens(text)
    assert r.span == " ".join(word_tokens(text, urls=True))
    assert (r.has_content, r.bare) == (has_content(text), is_bare_answer(text))


def test_token_coverage_is_claim_coverage_of_the_tokens():
    text = "Parler's account was suspended by Amazon in January 2021."
    held, claim = content_tokens(text), content_tokens(CLAIM)
    # the claim's 11: amazon web servic suspend parler account capitol riot januari 10 2021; the text holds 6
    assert token_coverage(held, claim) == claim_coverage(text, CLAIM) == pytest.approx(6 / 11)
    assert token_coverage(held, claim, 5) == claim_coverage(text, CLAIM, 5) == 1.0  # capped at 5 claim words
    assert token_coverage(held, frozenset()) == 0.0


@pytest.mark.parametrize("text", [
    CLAIM,
    f"It is not true that {CLAIM[0].lower() + CLAIM[1:]}",
    "January 10, 2021.",
    f"Answer 0: see {CLAIM}",
    f"Reuters, AP: {CLAIM}",
    f"Reuters: {CLAIM.rstrip('.')} over violent posts.",
    "Amazon suspended Parler on January 10, 2021, after the Capitol riot.",
])
def test_the_restatement_rule_reads_a_reading_as_the_text(text):
    from ev2r.metric.restatement import is_claim_span, restates_claim

    assert restates_claim(read_text(text), read_text(CLAIM)) == restates_claim(text, CLAIM)
    assert is_claim_span(read_text(text), read_text(CLAIM)) == is_claim_span(text, CLAIM)


def test_the_restatement_rule_by_hand():
    from ev2r.metric.restatement import restates_claim

    assert restates_claim(read_text(CLAIM), read_text(CLAIM))
    assert restates_claim(read_text(f"Answer 0: see {CLAIM}"), CLAIM)  # three words of filler
    assert not restates_claim(read_text("January 10, 2021."), CLAIM)  # a detail: 3 of 11 claim words
    # 8 of the claim's 11 content words and none of its own: the claim in fewer words
    assert restates_claim(read_text("Amazon suspended Parler on January 10, 2021, after the Capitol riot."), CLAIM)
    # one word of its own ("2020"): evidence
    assert not restates_claim(read_text("Amazon suspended Parler on January 10, 2021, after the 2020 riot."), CLAIM)
    assert restates_claim(read_text("Reuters, AP: " + CLAIM), CLAIM)  # a label before a colon


def test_synonyms_true_reads_wordnets(nltk_data):
    from claimalign.meteor_fast import synonym_tokens
    from ev2r.metric.restatement import restates_claim

    claim = "Face masks do not prevent the transmission of Covid-19."
    echo = "According to reports, Face masks do not forestall the transmission of Covid-19."
    assert restates_claim(echo, claim, True) and restates_claim(echo, claim, synonym_tokens)
    assert not restates_claim(echo, claim) and not restates_claim(echo, claim, False)


def test_the_admission_model_features_read_a_reading_as_the_text():
    from ev2r.metric.admission_model import lexical_features, mask_claim

    claim = "Biden banned fracking on federal land."
    for answer in ("Media outlets claimed that Biden banned fracking.", "Fracking was not banned in 2019.", "x"):
        assert mask_claim(read_text(answer), read_text(claim)) == mask_claim(answer, claim)
        assert lexical_features(read_text(claim), read_text("Did he?"), read_text(answer)) == \
            lexical_features(claim, "Did he?", answer)
    assert mask_claim("Media outlets claimed that Biden banned fracking.", claim) == "Media outlets claimed that something."
    # claim share 3/5 of the answer; none of the question; 4 content words, 1 new ("2019"), a new number; 2 of 6 pieces
    f = lexical_features(claim, "Did he?", "Fracking was not banned in 2019.")
    assert f[0] == pytest.approx(2 / 5) and f[1] == 0.0 and f[4] == 1.0 and f[5] == pytest.approx(2 / 7)


def test_is_rewrite_reads_each_sentence():
    from ev2r.metric.contradiction import is_rewrite

    two = "The Ever Given ship was inspected in Suez. No body parts were found on the ship by divers."
    assert is_rewrite("It is not true that no body parts were found on the ship by divers.", two)
    assert not is_rewrite("The ship was inspected", two)
    assert not is_rewrite("No body parts were found on the ship by divers.", two)  # a copy of a part: no rewrite


def test_respell_reads_each_words_lexicon_once(nltk_data):
    from ev2r.metric.admission import _lexicon, first_sense_synonyms, respell

    known, senses = _lexicon("buy")
    assert known and "purchase" in senses["v"] and "buy" in senses["n"]
    assert _lexicon("flase") == (False, {})  # no English word: a typo
    assert _lexicon("the")[0]  # a function word
    assert _lexicon("million")[1] is None and _lexicon("forty")[1] is None  # numbers are values, never synonyms
    assert first_sense_synonyms("buy", "purchase") and not first_sense_synonyms("trillion", "million")
    assert respell("The vaccine was aproved.", "The vaccine was approved.") == "The vaccine was approved."
    assert respell("He purchased it.", "He bought it.") == "He purchased it."  # inflected forms: no synonyms
