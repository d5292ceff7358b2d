"""The HF verifier on a tiny randomly initialised BERT: label order from config.id2label,
deduplication, long-premise windows, input errors."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from ev2r.verifier.nli import HFNLIVerifier, aggregate_windows  # noqa: E402


def make_model(tmp_path, id2label, name="tiny"):
    from support.tiny_models import build_tiny_nli_model

    return build_tiny_nli_model(tmp_path / name, id2label)


def direct_probs(model, tok, p, h):
    enc = tok([p], [h], return_tensors="pt", truncation=True, max_length=128)
    with torch.no_grad():
        return model(**enc).logits.softmax(-1)[0].numpy()


def test_label_order_read_from_config(tmp_path):
    path, model, tok = make_model(tmp_path, {0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"})
    ver = HFNLIVerifier(str(path), batch_size=2)
    prem = ["The cat sat on the mat.", "A man plays guitar.", "The cat sat on the mat."]
    hyp = ["A cat is sitting.", "Nobody plays.", "A cat is sitting."]
    out = ver.predict(prem, hyp)
    assert out.shape == (3, 3)
    np.testing.assert_allclose(out.sum(1), 1.0, atol=1e-6)
    d = direct_probs(model.eval(), tok, prem[1], hyp[1])
    np.testing.assert_allclose(out[1], [d[1], d[2], d[0]], atol=1e-5)  # (entail, neutral, contra)
    np.testing.assert_allclose(out[0], out[2])
    assert ver.n_model_pairs == 2  # the duplicate pair ran once
    assert ver.name.startswith("tiny@")


def test_two_way_and_unnamed_labels_rejected(tmp_path):
    path, _, _ = make_model(tmp_path, {0: "entailment", 1: "not_entailment"}, "twoway")
    with pytest.raises(ValueError, match="not_entailment"):
        HFNLIVerifier(str(path)).predict(["a"], ["b"])
    path, _, _ = make_model(tmp_path, {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, "unnamed")
    with pytest.raises(ValueError, match="label_order"):
        HFNLIVerifier(str(path)).predict(["a"], ["b"])
    out = HFNLIVerifier(str(path), label_order=("entailment", "neutral", "contradiction")).predict(["a"], ["b"])
    assert out.shape == (1, 3)


def test_long_premise_windows(tmp_path):
    path, _, _ = make_model(tmp_path, {0: "entailment", 1: "neutral", 2: "contradiction"})
    long = " ".join(f"word{k} is here." for k in range(200))
    for policy in ("max", "mean", "truncate"):
        ver = HFNLIVerifier(str(path), max_length=64, long_premise=policy, stride=8)
        out = ver.predict([long], ["word3 is here."])
        assert out.shape == (1, 3) and abs(out.sum() - 1) < 1e-6
        assert (ver.n_model_pairs == 1) == (policy == "truncate")


def test_aggregate_windows_hand_values():
    w = np.array([[0.6, 0.3, 0.1], [0.1, 0.2, 0.7]])
    np.testing.assert_allclose(aggregate_windows(w, "max"), np.array([0.6, 0.2, 0.7]) / 1.5)
    np.testing.assert_allclose(aggregate_windows(w, "mean"), [0.35, 0.25, 0.4])
    np.testing.assert_allclose(aggregate_windows(w, "truncate"), w[0])
    with pytest.raises(ValueError, match="policy"):
        aggregate_windows(w, "median")


@pytest.mark.parametrize("args, match", [((["a"], ["b", "c"]), "lengths differ"), (("a", ["b"]), "single string"),
                                         (([1], ["b"]), r"premises\[0\]")])
def test_predict_input_errors(args, match):
    with pytest.raises(ValueError, match=match):
        HFNLIVerifier("unused").predict(*args)


def test_constructor_errors():
    with pytest.raises(ValueError, match="long_premise"):
        HFNLIVerifier("x", long_premise="median")
    with pytest.raises(ValueError, match="batch_size"):
        HFNLIVerifier("x", batch_size=0)


def test_bundled_window_is_the_training_length_and_in_the_signature():
    import json

    from ev2r.metric.factory import build_scorer
    from ev2r.verifier.loading import BUNDLED_DIR, bundled_max_length, load_verifier

    meta = json.loads((BUNDLED_DIR / "training_meta.json").read_text(encoding="utf-8"))
    assert bundled_max_length() == meta["args"]["max_length"] == 128
    v = load_verifier("bundled")
    assert v.max_length == 128 and v.long_premise == "max"
    assert load_verifier("bundled", max_length=256).max_length == 256
    assert "|window:128-max|" in build_scorer(verifier=v).signature()



def test_checkpoints_from_the_training_command_keep_their_training_window(tmp_path):
    import json

    from ev2r.verifier.loading import load_verifier

    from support.tiny_models import build_tiny_nli_model

    ckpt, _, _ = build_tiny_nli_model(tmp_path / "ckpt")
    v = load_verifier(str(ckpt))
    v._load()
    assert v.max_length == 128  # the tokenizer's length: no training metadata
    (tmp_path / "ckpt" / "training_meta.json").write_text(json.dumps({"args": {"max_length": 64}}))
    assert load_verifier(str(ckpt)).max_length == 64
    assert load_verifier(str(ckpt), max_length=96).max_length == 96


def test_a_window_longer_than_the_model_can_read_is_rejected_by_name():
    from ev2r.verifier.loading import load_verifier

    v = load_verifier("bundled", max_length=1024)
    with pytest.raises(ValueError, match=r"max_length: 1024 tokens exceeds .*\(max_position_embeddings = 512\)"):
        v.predict(["word " * 900], ["a claim"])


@pytest.mark.parametrize("spec", ["/nonexistent/ckpt", "./no-such-folder", "../no-such-folder"])
def test_a_missing_local_checkpoint_is_named(spec):
    from ev2r.verifier.loading import load_verifier

    with pytest.raises(FileNotFoundError, match="no checkpoint folder at"):
        load_verifier(spec)


def test_the_core_uses_the_one_nli_contract_and_loader():
    import claimalign.nli
    from ev2r import labels
    from ev2r.metric import factory
    from ev2r.verifier import loading, nli

    assert labels.NLILabel is claimalign.nli.NLILabel and labels.normalize_nli_label is claimalign.nli.normalize_nli_label
    assert nli.check_probabilities is claimalign.nli.check_probabilities and nli.Verifier is claimalign.nli.VerifierLike
    assert factory.get_verifier is loading.get_verifier and factory.check_device is loading.check_device
    assert factory.DEFAULT_DTYPE == loading.DEFAULT_DTYPE == "auto"


def _pre_refactor_batches(model, tok, prem, hyp, columns, max_length, batch_size):
    """HFNLIVerifier's batch loop as written before it called claimalign.models.predict_pairs (the reference)."""
    order = sorted(range(len(prem)), key=lambda j: len(prem[j]) + len(hyp[j]))
    out = np.zeros((len(prem), 3), dtype=np.float64)
    with torch.inference_mode():
        for s in range(0, len(order), batch_size):
            idx = order[s:s + batch_size]
            batch = tok([prem[j] for j in idx], [hyp[j] for j in idx], truncation="longest_first",
                        max_length=max_length, padding=True, return_tensors="pt")
            out[idx] = model(**batch).logits.float().softmax(-1)[:, columns].numpy()
    return out


def test_verifier_reproduces_the_pre_refactor_numbers_exactly(tmp_path):
    path, _, _ = make_model(tmp_path, {0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"})
    prem = ["The cat sat on the mat.", "A man plays guitar [SEP] loudly.", "The cat sat on the mat.", "Prices rose.",
            "Ok."]
    hyp = ["A cat is sitting.", "Nobody plays.", "A cat is sitting.", "Prices fell sharply in June.", "Fine."]
    ver = HFNLIVerifier(str(path), batch_size=2, dtype="fp32")
    got = ver.predict(prem, hyp)
    uniq = list(dict.fromkeys(zip(prem, hyp)))  # the verifier runs each distinct pair once
    ref = _pre_refactor_batches(ver._model, ver._tokenizer, [p for p, _ in uniq], [h for _, h in uniq], [1, 2, 0],
                                128, 2)
    assert np.array_equal(got, np.stack([ref[uniq.index(k)] for k in zip(prem, hyp)]))
    assert ver.n_model_pairs == 4 and 0 < ver.n_model_tokens <= ver.n_padded_tokens
    assert ver.signature_fields() == {"verifier": ver.name, "window": "128-max"}
