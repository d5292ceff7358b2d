"""Perturbations: purity, determinism, hand-checked outputs, skips."""

from __future__ import annotations

import copy
import random
import re

import numpy as np
import pytest

from adversarial import perturbations as P
from adversarial.resources import entity_lists
from ev2r.types import Evidence, Item, QAPair

from support.fakes import make_items


def item_of(*pairs, claim="A claim.", ref=None) -> Item:
    ev = Evidence(tuple(QAPair(q, a) for q, a in pairs))
    return Item(id="x", claim=claim, predicted_evidence=ev,
                reference_evidence=ref if ref is not None else ev, extra={"k": [1]})


def answers(r) -> list[str]:
    assert r.applied, r.skip_reason
    return [p.answer for p in r.item.predicted_evidence.pairs]


def rng(seed=0):
    return np.random.default_rng(seed)


@pytest.mark.parametrize("name", list(P.PERTURBATIONS))
def test_pure_and_deterministic(name, request):
    if name == "synonyms":
        request.getfixturevalue("wordnet")
    p = P.PERTURBATIONS[name]
    for it in make_items(6):
        before = copy.deepcopy(it)
        a, b = p(it, rng(3)), p(it, rng(3))
        assert it == before and it.extra == before.extra  # input not mutated
        assert a == b  # same seed, same output
        assert p(it, random.Random(5)) == p(it, random.Random(5))  # random.Random works too
        if a.applied:
            assert a.item is not it
            assert a.item.reference_evidence == it.reference_evidence
            if p.target == "claim":
                assert a.item.claim != it.claim and a.item.predicted_evidence == it.predicted_evidence
            else:
                assert a.item.claim == it.claim and a.item.predicted_evidence != it.predicted_evidence
            assert a.n_edits >= 1
        else:
            assert a.skip_reason


def test_rng_type_is_checked():
    with pytest.raises(ValueError, match="rng"):
        P.typos(item_of(("q", "hello world")), 42)


def test_typos_hand_checked():
    r = P.typos(item_of(("", "abcd is ok")), rng())
    assert answers(r) == ["acbd is ok"]  # the only 4+ letter word; inner letters swapped
    assert P.typos(item_of(("", "a b c")), rng()).skip_reason == "no word of 4+ letters"


def test_typos_rate_is_about_ten_percent():
    text = " ".join(["house", "table", "chair", "window", "garden"] * 4)  # 20 words
    r = P.typos(item_of(("", text)), rng())
    changed = sum(a != b for a, b in zip(answers(r)[0].split(), text.split()))
    assert changed == 2 and r.n_edits == 2


def test_contractions_both_directions():
    r = P.contractions(item_of(("Isn't it?", "He isn't here and it is late. They will not go.")), rng())
    assert r.item.predicted_evidence.pairs[0] == QAPair("Is not it?", "He is not here and it's late. They'll not go.")
    assert P.contractions(item_of(("", "Plain text")), rng()).skip_reason


def test_numbers_to_words():
    r = P.numbers_to_words(item_of(("", "45% of $3 in 2020, 1,200 cases, 1.5 m, COVID-19.")), rng())
    assert answers(r) == ["forty-five percent of three dollars in twenty twenty, one thousand two hundred cases, "
                          "one point five m, COVID-19."]
    assert P.numbers_to_words(item_of(("", "COVID-19 only")), rng()).skip_reason == "no number written in digits"


def test_words_to_numbers():
    r = P.words_to_numbers(item_of(("", "Forty-five people, one hundred and five cars, two million votes, one of them.")), rng())
    assert answers(r) == ["45 people, 105 cars, 2 million votes, one of them."]


def test_synonyms_hand_checked(wordnet):
    r = P.synonyms(item_of(("", "The doctor saw the film")), rng())
    out = answers(r)[0]
    assert out in ("The physician saw the film", "The doctor saw the movie")
    assert P.synonyms(item_of(("", "It is")), rng()).skip_reason == "no word with a WordNet synonym"


def test_reorder_and_duplicate_pair():
    it = item_of(("q1", "a1"), ("q2", "a2"))
    assert answers(P.reorder_pairs(it, rng())) == ["a2", "a1"]
    assert P.reorder_pairs(item_of(("q", "a")), rng()).skip_reason == "fewer than 2 pairs"
    assert answers(P.duplicate_pair(item_of(("q", "a")), rng())) == ["a", "a"]


def test_duplicate_words_and_drop_stopwords():
    assert answers(P.duplicate_words(item_of(("", "hello")), rng())) == ["hello hello"]
    assert answers(P.drop_stopwords(item_of(("", "The cat sat")), rng())) == ["Cat sat"]
    assert P.drop_stopwords(item_of(("", "Cats sat")), rng()).skip_reason == "no droppable stopword"


@pytest.mark.parametrize("src,expected", [
    ("The bill was signed in 2019.", "The bill was not signed in 2019."),
    ("He didn't vote.", "He did vote."),
    ("It cannot fly.", "It can fly."),
    ("They can vote.", "They cannot vote."),
    ("It's a large number.", "It's not a large number."),
    ("There is no evidence.", "There is some evidence."),
    ("Trump won Texas.", "It is not true that Trump won Texas."),
    ("The CDC reported it.", "It is not true that the CDC reported it."),
    ("No, he never said that.", "Yes, he said that."),
    ("Yes. The photo was taken in Lagos.", "No. The photo was not taken in Lagos."),
])
def test_negate_sentence(src, expected):
    assert P.negate_sentence(src) == expected


def test_negate_answers_keeps_questions_and_unanswerable():
    it = item_of(("Was it signed?", "It was signed. Biden approved it."), ("Why?", "No answer could be found."))
    r = P.negate_answers(it, rng())
    assert r.item.predicted_evidence.pairs == (
        QAPair("Was it signed?", "It was not signed. It is not true that Biden approved it."),
        QAPair("Why?", "No answer could be found."))


def test_blank_and_drop_half():
    it = item_of(("q1", "a1"), ("q2", "a2"), ("q3", "a3"), ("q4", "a4"), ("q5", "a5"))
    assert [p.question for p in P.blank_answers(it, rng()).item.predicted_evidence.pairs] == ["q1", "q2", "q3", "q4", "q5"]
    assert answers(P.blank_answers(it, rng())) == [""] * 5
    kept = answers(P.drop_half_pairs(it, rng()))
    assert len(kept) == 3 and kept == sorted(kept)  # 5 // 2 dropped, order kept
    assert P.blank_answers(item_of(("q", "")), rng()).skip_reason == "no non-empty answer"


def test_entity_swap_consistent_same_type_not_in_claim():
    lists = entity_lists()
    persons = {e["name"] for e in lists["person"]}
    shorts = {e.get("short") for e in lists["person"]}
    places = {e["name"] for e in lists["place"]}
    it = item_of(("Who?", "Joe Biden met Biden's staff in Texas."), claim="Donald Trump said Joe Biden was in Ohio.")
    for seed in range(5):
        out = answers(P.entity_swap(it, rng(seed)))[0]
        m = re.fullmatch(r"(.+) met (.+)'s staff in (.+)\.", out)
        full, short, place = m.groups()
        assert full in persons and full not in ("Joe Biden", "Donald Trump")
        entry = next(e for e in lists["person"] if e["name"] == full)
        assert short == entry.get("short", full) and (short in shorts or short == full)
        assert place in places and place not in ("Texas", "Ohio")
    assert P.entity_swap(item_of(("", "a cat")), rng()).skip_reason == "no listed named entity in the predicted evidence"


def test_number_change_only_claim_numbers():
    it = item_of(("", "In 2020, 45 people and 7 dogs; 45 again. 12.5% rate."), claim="45 people in 2020 at 12.5%")
    for seed in range(10):
        out = answers(P.number_change(it, rng(seed)))[0]
        m = re.fullmatch(r"In (\d+), (\d+) people and 7 dogs; (\d+) again\. (\d+\.\d)% rate\.", out)
        year, a, b, rate = m.groups()
        assert a == b != "45" and abs(int(a) - 45) >= 4.5 and abs(int(a) - 45) <= 0.5 * 45 + 1
        assert 2 <= abs(int(year) - 2020) <= 10
        assert abs(float(rate) - 12.5) >= 1.25 - 1e-9
    assert P.number_change(item_of(("", "45 people")), rng()).skip_reason == "the claim has no number"
    assert P.number_change(item_of(("", "7 dogs"), claim="45 people"), rng()).skip_reason == "no number shared with the claim"


def test_off_topic_pair_from_another_claim():
    items = make_items(4)
    fn = P.make_off_topic_pair(items)
    r = fn(items[0], rng())
    new = [p for p in r.item.predicted_evidence.pairs if p not in items[0].predicted_evidence.pairs]
    others = {p for it in items[1:] for p in it.reference_evidence.pairs}
    assert len(r.item.predicted_evidence.pairs) == len(items[0].predicted_evidence.pairs) + 1
    assert len(new) <= 1 and (not new or new[0] in others)
    # alone: the shipped list is used
    alone = P.off_topic_pair(item_of(("q", "a")), rng())
    assert len(alone.item.predicted_evidence.pairs) == 2


def test_shuffle_words_keeps_words():
    src = "The senator voted against the bill. Short one."
    out = answers(P.shuffle_words(item_of(("", src)), rng()))[0]
    first, second = out.split(". ", 1)
    assert sorted(first.split()) == sorted("The senator voted against the bill".split())
    assert first != "The senator voted against the bill" and out.endswith(".")


def test_prompt_injection_appended():
    out = answers(P.prompt_injection(item_of(("q", "a.")), rng()))[0]
    assert out.startswith("a. ") and out[3:] in P.PROMPT_INJECTIONS


def test_registry_expectations():
    assert P.PERTURBATIONS["off_topic_pair"].expectation("recall").effect == "invariant"
    assert P.PERTURBATIONS["off_topic_pair"].expectation("bleu").effect == "decrease"
    kinds = {p.kind for p in P.PERTURBATIONS.values()}
    assert kinds == {P.MEANING_PRESERVING, P.MEANING_DAMAGING}
    with pytest.raises(ValueError, match="unknown perturbation 'nope'; allowed: typos"):
        P.get_perturbations(["nope"])
    with pytest.raises(ValueError, match="effect"):
        P.Expectation("up", 5)


def test_missing_wordnet_is_a_clear_error(monkeypatch):
    nltk_corpus = pytest.importorskip("nltk.corpus")
    from adversarial.resources import ResourceMissingError

    class NoWordNet:
        def ensure_loaded(self):
            raise LookupError("Resource wordnet not found.")

    monkeypatch.setattr(nltk_corpus, "wordnet", NoWordNet())
    with pytest.raises(ResourceMissingError, match="WordNet data not found .* set NLTK_DATA .* --nltk-data"):
        P.synonyms(item_of(("", "The doctor saw the film")), rng())


# -- contrastive claims -----------------------------------------------------------------------------
def claim_item(claim, gold, human=None):
    from ev2r.labels import Verdict

    ev = Evidence((QAPair("Was the bill signed?", "Yes, on 3 May."),))
    extra = {} if human is None else {"human_label": human}
    return Item(id="x", claim=claim, predicted_evidence=ev, reference_evidence=ev,
                gold_label=None if gold is None else Verdict(gold), extra=extra)


def test_contrastive_claim_negation_both_ways():
    r = P.contrastive_claim(claim_item("The bill was signed by the governor.", "supported", "supported"), rng())
    assert r.item.claim == "The bill was not signed by the governor." and r.item.gold_label.value == "refuted"
    assert r.item.extra["contrastive_rule"] == "negation" and r.item.extra["human_label"] == "refuted"
    assert r.item.extra["original_claim"] == "The bill was signed by the governor." and r.n_edits == 1
    # a refuted claim with a number is reversed only by negation (another number is not thereby true)
    for seed in range(10):
        r = P.contrastive_claim(claim_item("Face masks do not stop 95% of droplets.", "refuted"), rng(seed))
        assert r.item.claim == "Face masks do stop 95% of droplets." and r.item.gold_label.value == "supported"


def test_contrastive_claim_antonym_and_number_for_supported_claims():
    seen = set()
    for seed in range(30):
        r = P.contrastive_claim(claim_item("Prices increased in May. Rents rose too.", "supported"), rng(seed))
        seen.add(r.item.claim)
        assert r.item.extra["contrastive_rule"] == "antonym" and r.item.gold_label.value == "refuted"
    assert seen == {"Prices decreased in May. Rents rose too.", "Prices increased in May. Rents fell too."}
    from adversarial._text import find_numbers

    r = P.contrastive_claim(claim_item("Two sentences here. The city has 1,200 residents.", "supported"), rng(1))
    assert r.item.extra["contrastive_rule"] == "number"
    new = [t.value for t in find_numbers(r.item.claim)]
    assert len(new) == 1 and abs(float(new[0]) - 1200) >= 120 and r.item.claim.startswith("Two sentences here. ")
    rules = {P.contrastive_claim(claim_item("Sales rose 12% in 2019.", "supported"), rng(s)).item.extra[
        "contrastive_rule"] for s in range(40)}
    assert rules == {"negation", "antonym", "number"}  # drawn among the rules that apply


def test_contrastive_claim_skips_with_reasons():
    assert P.contrastive_claim(claim_item("A claim.", None), rng()).skip_reason == "no gold verdict"
    r = P.contrastive_claim(claim_item("A claim.", "not enough evidence"), rng())
    assert "'not enough evidence' is neither supported nor refuted" in r.skip_reason
    r = P.contrastive_claim(claim_item("Prices rose. Wages fell.", "refuted"), rng())
    assert r.skip_reason.startswith("no rule applies: negation needs a one-sentence claim (2 sentences)")
    assert "only reverse a supported claim" in r.skip_reason
    r = P.contrastive_claim(claim_item("One. Two sentences.", "supported"), rng())
    assert "no listed antonym" in r.skip_reason and "no number" in r.skip_reason


def test_contrastive_claim_pure_and_deterministic():
    it = claim_item("Sales rose 12% in 2019.", "supported", "Supported")
    before = copy.deepcopy(it)
    a, b = P.contrastive_claim(it, rng(4)), P.contrastive_claim(it, rng(4))
    assert a == b and a.item.extra == b.item.extra and it == before and it.extra == before.extra
    assert P.contrastive_claim(it, random.Random(2)) == P.contrastive_claim(it, random.Random(2))
    exp = P.PERTURBATIONS["contrastive_claim"]
    assert exp.target == "claim" and exp.kind == P.MEANING_PRESERVING
    assert [exp.expectation(s).effect for s in ("precision", "recall", "f1", "proxy", "ev2r")] == ["invariant"] * 5
    assert exp.expectation("f1").tolerance_pct == 1 and not exp.expectation("proxy").gated


def test_content_free_padding_appends_pairs_that_state_nothing():
    from ev2r.types import has_content

    it = item_of(("Who won?", "Bob won."), ("Where?", "Paris."))
    r = P.content_free_padding(it, rng(3))
    pairs = r.item.predicted_evidence.pairs
    assert pairs[:2] == it.predicted_evidence.pairs and 4 <= len(pairs) - 2 <= 16
    assert r.n_edits == len(pairs) - 2
    assert not any(has_content(p.question) or has_content(p.answer) for p in pairs[2:])
    assert P.content_free_padding(it, rng(3)).item == r.item  # same rng state, same output
    exp = P.PERTURBATIONS["content_free_padding"]
    assert exp.expect.effect == P.NO_INCREASE and exp.expect.gated
