import json

import numpy as np
import pytest

from claimalign.averitec import averitec_comparison_strings, hu_meteor, hu_meteor_batch, hu_meteor_strings, pair_strings

# "Who won the race? Alice did." -> 8 tokens, all distinct; identical strings: Fmean = 1,
# one chunk of 8 matches, penalty 0.5 * (1/8)^3.
RACE = ("Who won the race?", "Alice did.")
IDENT8 = 1 - 0.5 / 8 ** 3
# "When 2020" / "Sky blue" share no token, stem or WordNet synonym with RACE -> METEOR 0.
WHEN = ("When", "2020")
SKY = ("Sky", "blue")


def test_normalised_by_number_of_references(nltk_data):
    assert hu_meteor([RACE], [RACE, WHEN]) == pytest.approx(IDENT8 / 2)


def test_over_generation_not_penalised_officially(nltk_data):
    # divided by |reference| = 1, not by |predicted| = 3 and not by a string length
    assert hu_meteor([RACE, WHEN, SKY], [RACE]) == pytest.approx(IDENT8)


def test_only_first_ten_predictions_count(nltk_data):
    preds = [SKY] * 10 + [RACE]
    assert hu_meteor(preds, [RACE]) == 0.0
    assert hu_meteor(preds, [RACE], max_predicted=None) == pytest.approx(IDENT8)
    assert hu_meteor(preds, [RACE], max_predicted=11) == pytest.approx(IDENT8)


def test_optimal_not_greedy_pairing(nltk_data):
    # pred 0 equals ref 1, pred 1 equals ref 0: the assignment crosses.
    two = ("Is it red?", "No.")  # 6 distinct tokens: Is it red ? No .
    assert hu_meteor([RACE, two], [two, RACE]) == pytest.approx((IDENT8 + 1 - 0.5 / 6 ** 3) / 2)


def test_variants_hand_computed(nltk_data):
    pred, ref = [("the cat ran", "yes")], [("the cat sat", "no")]
    # q: "the cat ran" vs "the cat sat": 2/3 matched in one chunk -> 2/3 * (1 - 0.5 * (1/2)^3)
    assert hu_meteor(pred, ref, variant="q") == pytest.approx(2 / 3 * (1 - 0.5 / 8))
    # qa: "the cat ran yes" vs "the cat sat no": P = R = 1/2, one chunk of 2 -> 0.5 * 0.9375
    assert hu_meteor(pred, ref, variant="qa") == pytest.approx(0.5 * (1 - 0.5 / 8))


def test_empty_and_bad_inputs(nltk_data):
    assert hu_meteor([], [RACE]) == 0.0
    with pytest.raises(ValueError, match="reference_pairs"):
        hu_meteor([RACE], [])
    with pytest.raises(ValueError, match="predicted_pairs"):
        hu_meteor("Question: Who won the race?\nAnswer: Alice did.", [RACE])  # text, not pairs
    with pytest.raises(ValueError, match="reference_pairs"):
        hu_meteor([RACE], "Who won")
    with pytest.raises(ValueError, match=r"predicted_pairs\[0\]"):
        hu_meteor(["Who won"], [RACE])
    with pytest.raises(ValueError, match="variant"):
        hu_meteor([RACE], [RACE], variant="answers")
    with pytest.raises(ValueError, match="max_predicted"):
        hu_meteor([RACE], [RACE], max_predicted=0)


def test_batch_matches_single(nltk_data):
    preds = [[RACE], [RACE, WHEN, SKY], []]
    refs = [[RACE, WHEN], [RACE], [SKY]]
    out = hu_meteor_batch(preds, refs)
    assert out.shape == (3,)
    assert out == pytest.approx([IDENT8 / 2, IDENT8, 0.0])
    with pytest.raises(ValueError, match="different numbers"):
        hu_meteor_batch(preds, refs[:2])
    with pytest.raises(ValueError, match="item 1"):
        hu_meteor_batch([[RACE], [RACE]], [[RACE], []])


def test_official_comparison_strings():
    ex = {"questions": [
        {"question": "Q1?", "answers": [{"answer": "A1", "answer_type": "Extractive"},
                                        {"answer": "Yes", "answer_type": "Boolean", "boolean_explanation": "B."}]},
        {"question": "Q2?", "answers": []},
    ]}
    assert averitec_comparison_strings(ex, "qa") == ["Q1? A1", "Q1? Yes. B.", "Q2? No answer could be found."]
    assert averitec_comparison_strings(ex, "q") == ["Q1?", "Q2?"]
    assert averitec_comparison_strings({"string_evidence": ["s1"]}, "q") == ["s1"]
    with pytest.raises(ValueError, match="variant"):
        averitec_comparison_strings(ex, "x")
    with pytest.raises(ValueError, match=r"\['answers'\]\[0\]: expected \{'answer': str"):
        averitec_comparison_strings({"questions": [{"question": "Q?", "answers": ["plain"]}]}, "qa")
    with pytest.raises(ValueError, match=r"\['answers'\]\[1\]: expected \{'answer': str"):
        averitec_comparison_strings({"questions": [{"question": "Q?", "answers": [{"answer": "A"}, {}]}]}, "qa")
    with pytest.raises(ValueError, match="boolean_explanation"):
        averitec_comparison_strings({"questions": [{"question": "Q?", "answers": [
            {"answer": "Yes", "answer_type": "Boolean"}]}]}, "qa")
    assert pair_strings([("Q1?", "A1"), ("", "plain text")], "qa") == ["Q1? A1", "plain text"]
    assert pair_strings([("Q1?", None)], "q") == ["Q1?"]


def _official_style(src, tgt, variant):
    """The official scorer's steps, written out directly: word_tokenize + nltk METEOR (reference
    first), first 10 predicted strings, rectangular linear_sum_assignment, / len(reference)."""
    from nltk import word_tokenize
    from nltk.translate.meteor_score import single_meteor_score
    from scipy.optimize import linear_sum_assignment

    s = averitec_comparison_strings(src, variant)[:10]
    t = averitec_comparison_strings(tgt, variant)
    x = np.array([[single_meteor_score(word_tokenize(b), word_tokenize(a)) for b in t] for a in s])
    r, c = linear_sum_assignment(x, maximize=True)
    return x[r, c].sum() / len(t)


@pytest.mark.parametrize("variant", ["qa", "q"])
def test_parity_with_official_steps_on_real_claims(nltk_data, shared_data, variant):
    src = json.loads((shared_data / "averitec" / "filtered_parallel_src.json").read_text())[:6]
    tgt = json.loads((shared_data / "averitec" / "filtered_parallel_tgt.json").read_text())[:6]
    for a, b in zip(src, tgt):
        ours = hu_meteor_strings(averitec_comparison_strings(a, variant), averitec_comparison_strings(b, variant))
        assert ours == pytest.approx(_official_style(a, b, variant), abs=1e-12)


# A scraped page's language menu with a Chinese link, as in a held-out AVeriTeC prediction.
MENU_PRED = ("Which languages does the site offer?", "English | Español | 中文 | Français")
MENU_REF = ("Which languages does the site offer?", "English, Español, 中文版, Français")


def test_official_tokens_equal_nltk_on_word_tokenize_with_a_cjk_link(nltk_data):
    """Official mode: nltk.word_tokenize on the strings, as AVeriTeC's eval.py (no CJK split)."""
    from nltk import word_tokenize
    from nltk.translate.meteor_score import single_meteor_score

    from claimalign.scripts import ScriptWarning

    hyp, ref = (" ".join(MENU_PRED), " ".join(MENU_REF))
    assert "中文" in word_tokenize(hyp) and "中文版" in word_tokenize(ref)  # one token each, officially
    by_hand = single_meteor_score(word_tokenize(ref), word_tokenize(hyp))  # one pair: / 1 reference
    with pytest.warns(ScriptWarning, match="official"):
        assert hu_meteor([MENU_PRED], [MENU_REF]) == pytest.approx(by_hand, abs=1e-15)
    with pytest.warns(ScriptWarning, match="official"):
        assert hu_meteor_strings([hyp], [ref]) == hu_meteor([MENU_PRED], [MENU_REF], tokens="official")
    with pytest.warns(ScriptWarning, match="official"):
        assert hu_meteor_batch([[MENU_PRED]], [[MENU_REF]]).tolist() == [hu_meteor([MENU_PRED], [MENU_REF])]


def test_script_tokens_split_cjk_and_differ_from_official(nltk_data):
    """The claimalign similarities' path: each Han character is a token, so 中文 and 中文版 share two."""
    from nltk.translate.meteor_score import single_meteor_score

    from claimalign.meteor_fast import meteor_words, tokenize
    from claimalign.similarity import MeteorSimilarity
    from claimalign.scripts import ScriptWarning

    hyp, ref = (" ".join(MENU_PRED), " ".join(MENU_REF))
    assert meteor_words("中文版") == ("中", "文", "版") and tokenize("中文版") == ("中文版",)
    script = single_meteor_score(list(meteor_words(ref)), list(meteor_words(hyp)))
    with pytest.warns(ScriptWarning):
        assert hu_meteor([MENU_PRED], [MENU_REF], tokens="script") == pytest.approx(script, abs=1e-15)
    with pytest.warns(ScriptWarning):
        assert MeteorSimilarity().matrix([hyp], [ref])[0, 0] == pytest.approx(script, abs=1e-15)
    with pytest.warns(ScriptWarning):
        official = hu_meteor([MENU_PRED], [MENU_REF])
    assert script > official  # 中, 文 match only in the script-aware reading


def test_hu_meteor_rejects_unknown_tokens():
    with pytest.raises(ValueError, match="tokens: 'chars' is not one of"):
        hu_meteor([RACE], [RACE], tokens="chars")
