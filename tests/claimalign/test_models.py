"""The one NLI loader and pair-inference routine (claimalign.models) and the NLI contract (claimalign.nli):
label order from config.id2label, exact parity with the routines it replaced, argument errors."""

import numpy as np
import pytest

from claimalign.nli import NLI_LABELS, NLILabel, check_probabilities, map_nli_labels, normalize_nli_label

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from claimalign.models import load_nli_model, predict_pairs, resolve_dtype  # noqa: E402
from support.tiny_models import build_tiny_nli_model  # noqa: E402

PREM = ["The cat sat on the mat.", "A man plays guitar [SEP] loudly.", "Prices rose sharply in 2020.",
        " ".join(f"word{k} is here." for k in range(60)), "Ok."]
HYP = ["A cat is sitting.", "Nobody plays.", "Prices fell.", "word3 is here.", "A much longer hypothesis than its premise."]


def pre_refactor_probs(model, tok, prem, hyp, columns, max_length, batch_size, truncation, double):
    """Batched inference as HFNLIVerifier (float32 softmax, longest_first) and HFNLIAdapter (float64,
    only_first) each wrote it before both called predict_pairs: the reference it must reproduce."""
    order = sorted(range(len(prem)), key=lambda i: len(prem[i]) + len(hyp[i]))
    out = np.zeros((len(prem), 3), dtype=np.float64)
    with torch.inference_mode():
        for s in range(0, len(order), batch_size):
            idx = order[s:s + batch_size]
            enc = tok([prem[i] for i in idx], [hyp[i] for i in idx], truncation=truncation, max_length=max_length,
                      padding=True, return_tensors="pt")
            logits = model(**enc).logits
            probs = torch.softmax(logits.double(), dim=-1) if double else logits.float().softmax(-1)
            out[idx] = probs[:, columns].cpu().numpy()
    return out


@pytest.fixture(scope="module")
def shuffled(tmp_path_factory):
    """A tiny NLI checkpoint whose outputs are (contradiction, entailment, neutral)."""
    return build_tiny_nli_model(tmp_path_factory.mktemp("models") / "tiny",
                                {0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"})[0]


def test_loader_reads_the_label_order_and_the_window(shuffled):
    nli = load_nli_model(str(shuffled))
    assert nli.columns == [1, 2, 0] and nli.dtype == "fp32" and nli.max_positions == 128
    assert nli.window() == 128 and nli.window(64) == 64
    with pytest.raises(ValueError, match=r"max_length: 256 tokens exceeds .*max_position_embeddings = 128"):
        nli.window(256)
    assert load_nli_model(str(shuffled), label_order=("entailment", "neutral", "contradiction")).columns == [0, 1, 2]
    with pytest.raises(ValueError, match="label_order: has 2 names"):
        load_nli_model(str(shuffled), label_order=("entailment", "neutral"))
    assert load_nli_model(str(shuffled), dtype="bf16").model.dtype == torch.bfloat16
    assert load_nli_model(str(shuffled), dtype=None).dtype is None  # as stored


def test_a_model_read_without_weights_has_its_columns_and_window_and_loads_them_once(shuffled):
    """``weights=False`` reads the tokenizer and configuration only; :meth:`NLIModel.load_weights` then gives the
    model an eager load gives, weight for weight, once."""
    lazy = load_nli_model(str(shuffled), dtype="bf16", weights=False)
    eager = load_nli_model(str(shuffled), dtype="bf16")
    assert lazy.model is None and lazy.columns == eager.columns == [1, 2, 0] and lazy.window() == eager.window()
    model = lazy.load_weights()
    assert lazy.model is model and lazy.load_weights() is model and not model.training
    a, b = model.state_dict(), eager.model.state_dict()
    assert a.keys() == b.keys() and all(a[k].dtype == torch.bfloat16 or not a[k].is_floating_point() for k in a)
    assert all(torch.equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("truncation, precision, batch_size", [("longest_first", "float32", 2),
                                                               ("only_first", "float64", 32),
                                                               ("longest_first", "float32", 1)])
def test_predict_pairs_reproduces_the_pre_refactor_routines_exactly(shuffled, truncation, precision, batch_size):
    nli = load_nli_model(str(shuffled))
    counts = {}
    got = predict_pairs(nli.model, nli.tokenizer, PREM, HYP, max_length=64, batch_size=batch_size, columns=nli.columns,
                        truncation=truncation, guard=nli.guard, precision=precision, counts=counts)
    ref = pre_refactor_probs(nli.model, nli.tokenizer, PREM, HYP, [1, 2, 0], 64, batch_size, truncation,
                             precision == "float64")
    assert got.dtype == np.float64 and got.shape == (5, 3) and np.array_equal(got, ref)
    np.testing.assert_allclose(got.sum(1), 1.0, atol=1e-6)
    assert 0 < counts["tokens"] <= counts["padded_tokens"]
    assert predict_pairs(nli.model, nli.tokenizer, [], [], max_length=64).shape == (0, 3)


@pytest.mark.parametrize("kwargs, match", [({"truncation": "only_second"}, "truncation"),
                                           ({"precision": "float16"}, "precision"),
                                           ({"batch_size": 0}, "batch_size"),
                                           ({"columns": (0, 0, 1)}, "columns")])
def test_predict_pairs_argument_errors(shuffled, kwargs, match):
    nli = load_nli_model(str(shuffled))
    with pytest.raises(ValueError, match=match):
        predict_pairs(nli.model, nli.tokenizer, ["a"], ["b"], max_length=64, **kwargs)
    with pytest.raises(ValueError, match="lengths differ"):
        predict_pairs(nli.model, nli.tokenizer, ["a"], [], max_length=64)


def test_two_way_and_unnamed_heads_are_rejected_by_name(tmp_path):
    two = build_tiny_nli_model(tmp_path / "two", {0: "entailment", 1: "not_entailment"})[0]
    with pytest.raises(ValueError, match=r"not_entailment.*Pass label_order"):
        load_nli_model(str(two))
    unnamed = build_tiny_nli_model(tmp_path / "unnamed", {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})[0]
    with pytest.raises(ValueError, match=r"config\.id2label\[0\]: unknown NLI label 'LABEL_0'"):
        load_nli_model(str(unnamed))


def test_resolve_dtype():
    assert resolve_dtype("fp32", "cuda") == "fp32" and resolve_dtype("auto", "cuda") == "bf16"
    assert resolve_dtype("int8", "cpu") == "int8"
    with pytest.raises(ValueError, match="int8 dynamic quantisation runs on device 'cpu' only"):
        resolve_dtype("int8", "cuda")
    with pytest.raises(ValueError, match="auto, fp32, bf16, int8"):
        resolve_dtype("fp16", "cpu")


def test_one_nli_vocabulary():
    assert NLI_LABELS == ("entailment", "neutral", "contradiction") == tuple(x.value for x in NLILabel)
    for spelling, label in [("ENTAILMENT", NLILabel.ENTAILMENT), ("entailed", NLILabel.ENTAILMENT),
                            ("SUPPORTS", NLILabel.ENTAILMENT), ("NOT_ENOUGH_INFO", NLILabel.NEUTRAL),
                            ("not enough evidence", NLILabel.NEUTRAL), ("Refuted", NLILabel.CONTRADICTION)]:
        assert normalize_nli_label(spelling) is label
    with pytest.raises(ValueError, match="label: unknown NLI label 'LABEL_0'"):
        normalize_nli_label("LABEL_0")
    assert map_nli_labels(["neutral", "contradiction", "entailment"]) == [2, 0, 1]
    with pytest.raises(ValueError, match="both mean entailment"):
        map_nli_labels({0: "entailment", 1: "supports", 2: "neutral"})
    assert check_probabilities([[0.2, 0.3, 0.5]], 1).tolist() == [[0.2, 0.3, 0.5]]


def test_predict_pairs_token_batches_respect_the_budget(shuffled):
    nli = load_nli_model(str(shuffled))
    calls = []
    model = nli.model

    class Spy:
        device = model.device

        def __call__(self, **batch):
            calls.append(tuple(batch["input_ids"].shape))
            return model(**batch)

    want = predict_pairs(nli.model, nli.tokenizer, PREM, HYP, max_length=64, batch_size=2, columns=nli.columns)
    got = predict_pairs(Spy(), nli.tokenizer, PREM, HYP, max_length=64, columns=nli.columns, max_batch_tokens=60)
    np.testing.assert_allclose(got, want, atol=1e-5)
    assert all(rows * width <= 60 or rows == 1 for rows, width in calls)
    assert sum(rows for rows, _ in calls) == len(PREM)
    with pytest.raises(ValueError, match="max_batch_tokens"):
        predict_pairs(nli.model, nli.tokenizer, PREM, HYP, max_length=64, max_batch_tokens=0)


# -- batch-invariant numbers: a pair's distribution does not depend on its batch -------------------

def _varied_pairs(n=80, seed=3):
    """n (premise, hypothesis) pairs of many token lengths, several of each length."""
    rng = np.random.default_rng(seed)
    words = "the council approved a new bridge over river in May 2019 prices rose sharply cat sat on mat".split()
    prem = [" ".join(rng.choice(words, int(rng.integers(2, 40)))) + "." for _ in range(n)]
    hyp = [" ".join(rng.choice(words, int(rng.integers(2, 12)))) + "." for _ in range(n)]
    return prem, hyp


@pytest.mark.parametrize("dtype", ["fp32", "bf16"])
def test_predict_pairs_length_groups_are_batch_invariant(shuffled, dtype):
    """A pair's row is the same (to 1e-6) alone, in a batch, shuffled, at 1 and 64 pairs per batch and by token
    budget: a forward pass never mixes lengths, nothing is padded. (Measured: bit for bit in bf16; in fp32 the
    matrix products' blocking follows the row count, 3e-8 apart on this model.)"""
    nli = load_nli_model(str(shuffled), dtype=dtype)
    prem, hyp = _varied_pairs()

    def run(p, h, **kw):
        return predict_pairs(nli.model, nli.tokenizer, p, h, max_length=64, columns=nli.columns, length_bucket=1, **kw)

    alone = np.stack([run([p], [h])[0] for p, h in zip(prem, hyp)])

    def same(a, b):
        return a.shape == b.shape and float(np.abs(a - b).max()) <= 1e-6

    counts: dict = {}
    batched = run(prem, hyp, batch_size=64, counts=counts)
    assert counts["tokens"] == counts["padded_tokens"] > 0  # nothing padded
    assert same(batched, alone)
    assert same(run(prem, hyp, batch_size=1), alone)
    assert same(run(prem, hyp, max_batch_tokens=2048), alone)
    perm = np.random.default_rng(0).permutation(len(prem))
    shuffled_out = run([prem[i] for i in perm], [hyp[i] for i in perm], max_batch_tokens=300)
    assert same(shuffled_out, alone[perm])
    assert same(run(prem[5:9], hyp[5:9], batch_size=64), alone[5:9])  # a small batch
    np.testing.assert_allclose(alone.sum(1), 1.0, atol=1e-6)
    # the same model's numbers without the length groups: only rounding apart (padding is masked)
    np.testing.assert_allclose(predict_pairs(nli.model, nli.tokenizer, prem, hyp, max_length=64, columns=nli.columns,
                                             batch_size=64), alone, atol=1e-5 if dtype == "fp32" else 5e-2)


def test_predict_pairs_length_bucket_pads_each_pair_by_its_own_length(shuffled):
    nli = load_nli_model(str(shuffled))
    calls = []
    model = nli.model

    class Spy:
        device = model.device

        def __call__(self, **batch):
            calls.append(tuple(batch["input_ids"].shape))
            return model(**batch)

    prem, hyp = _varied_pairs(30)
    lengths = [len(ids) for ids in nli.tokenizer(prem, hyp, truncation="longest_first", max_length=64)["input_ids"]]
    got = predict_pairs(Spy(), nli.tokenizer, prem, hyp, max_length=64, columns=nli.columns, length_bucket=16,
                        max_batch_tokens=160)
    widths = sorted({min(-(-n // 16) * 16, 64) for n in lengths})
    assert sorted({w for _, w in calls}) == widths  # every pass at one padded width, a multiple of 16 (or 64)
    assert all(rows <= max(1, 160 // w) for rows, w in calls) and sum(rows for rows, _ in calls) == 30
    alone = np.stack([predict_pairs(model, nli.tokenizer, [p], [h], max_length=64, columns=nli.columns,
                                    length_bucket=16)[0] for p, h in zip(prem, hyp)])
    assert float(np.abs(got - alone).max()) <= 1e-6
    for bad in (0, True, 1.5):
        with pytest.raises(ValueError, match="length_bucket"):
            predict_pairs(model, nli.tokenizer, prem, hyp, max_length=64, length_bucket=bad)
