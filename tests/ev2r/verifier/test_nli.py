"""The HF verifier on a tiny randomly initialised BERT: label order from config.id2label,
deduplication, long-premise windows, input errors."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from ev2r.verifier.nli import (HFNLIVerifier, LongHypothesisWarning, aggregate_hypothesis_windows,  # noqa: E402
                              aggregate_windows)


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
    # hostile tester: a fractional batch size or window was accepted and failed deep in a slice
    for kw, name in (({"batch_size": 2.5}, "batch_size"), ({"batch_size": True}, "batch_size"),
                     ({"stride": 1.5}, "stride"), ({"max_length": 64.0}, "max_length")):
        with pytest.raises(ValueError, match=f"{name}: must be an int"):
            HFNLIVerifier("x", **kw)
    with pytest.raises(ValueError, match=r"long_hypothesis: 'cut' is not one of \('window', 'truncate'\)"):
        HFNLIVerifier("x", long_hypothesis="cut")


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
    assert ver.signature_fields() == {"verifier": ver.name, "window": "128-max", "hyp": "clause-window-min"}


# -- long hypotheses: no tail is dropped silently ----------------------------------------------

HEAD = " ".join(f"the council approved plan number {k} for the river bridge" for k in range(14))  # ~130 tokens
TAIL_A, TAIL_B = " and the bridge opened in May 2019.", " but the bridge never opened at all."


def test_aggregate_hypothesis_windows_hand_values():
    w = np.array([[0.7, 0.2, 0.1], [0.2, 0.5, 0.3]])  # P(e)=min, P(n)=max, P(c)=max, renormalised
    np.testing.assert_allclose(aggregate_hypothesis_windows(w), np.array([0.2, 0.5, 0.3]) / 1.0)
    w = np.array([[0.9, 0.05, 0.05], [0.6, 0.1, 0.3]])
    np.testing.assert_allclose(aggregate_hypothesis_windows(w), np.array([0.6, 0.1, 0.3]))
    w = np.array([[0.8, 0.1, 0.1], [0.5, 0.4, 0.1], [0.4, 0.1, 0.5]])
    np.testing.assert_allclose(aggregate_hypothesis_windows(w), np.array([0.4, 0.4, 0.5]) / 1.3)
    np.testing.assert_array_equal(aggregate_hypothesis_windows(w[:1]), w[0])
    with pytest.raises(ValueError, match="probs"):
        aggregate_hypothesis_windows(np.zeros((0, 3)))


def test_long_hypotheses_are_scored_in_windows_that_reach_their_tail(tmp_path, monkeypatch):
    import ev2r.verifier.nli as nli_module

    path, _, tok = make_model(tmp_path, {0: "entailment", 1: "neutral", 2: "contradiction"})
    n_head = len(tok(HEAD, add_special_tokens=False)["input_ids"])
    assert n_head > 120  # the tails lie past what a 128-token pair can hold
    prem = "The bridge over the river was approved by the council."
    sent = []
    real = nli_module.predict_pairs

    def spy(model, tokenizer, premises, hypotheses, **kw):
        enc = tokenizer(list(premises), list(hypotheses), truncation=False)["input_ids"]
        sent.extend((h, len(ids)) for h, ids in zip(hypotheses, enc))
        return real(model, tokenizer, premises, hypotheses, **kw)

    monkeypatch.setattr(nli_module, "predict_pairs", spy)
    ver = HFNLIVerifier(str(path), max_length=128, stride=16)
    out = ver.predict([prem, prem], [HEAD + TAIL_A, HEAD + TAIL_B])
    assert all(n <= 128 for _, n in sent)  # every pair fits whole: the tokenizer cuts nothing
    assert any(h.endswith(TAIL_A.strip()) for h, _ in sent) and any(h.endswith(TAIL_B.strip()) for h, _ in sent)
    assert ver.n_long_hypotheses == 2 and ver.n_model_pairs >= 4  # each hypothesis in >= 2 windows
    np.testing.assert_allclose(out.sum(1), 1.0)
    # by hand: each hypothesis window scored beside the premise, joined by P(e)=min, P(n)=max, P(c)=max
    ids = tok(HEAD + TAIL_A, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
    p_len = len(tok(prem, add_special_tokens=False)["input_ids"])
    budget = 128 - 3 - min(p_len, 64)
    step = budget - min(16, budget // 2)
    parts = []
    for start in range(0, len(ids), step):
        stop = min(start + budget, len(ids))
        parts.append((HEAD + TAIL_A)[ids[start][0]: ids[stop - 1][1]])
        if stop == len(ids):
            break
    assert len(parts) == 2 and parts[-1].endswith("May 2019.")
    direct = HFNLIVerifier(str(path), max_length=128).predict([prem] * len(parts), parts)
    np.testing.assert_allclose(out[0], aggregate_hypothesis_windows(direct), atol=1e-6)


def test_clause_spans_cut_at_sentences_and_reporting_frames():
    from ev2r.verifier.nli import clause_spans

    t = "After a long rally in the capital, the governor said that taxes fell in 2022. Jobs rose; wages did not."
    assert [t[a:b] for a, b in clause_spans(t)] == ["After a long rally in the capital, the governor said that",
                                                     "taxes fell in 2022.", "Jobs rose;", "wages did not."]
    assert clause_spans("One clause only") == [(0, 15)]
    assert clause_spans("") == []


def test_a_long_claim_is_judged_clause_by_clause(tmp_path, monkeypatch):
    """A reported clause after ~130 tokens of context is scored whole, as its own part."""
    import ev2r.verifier.nli as nli_module

    path, _, _ = make_model(tmp_path, {0: "entailment", 1: "neutral", 2: "contradiction"})
    clause = "the bridge never opened at all."
    claim = f"{HEAD}, the mayor said that {clause}"
    sent = []
    real = nli_module.predict_pairs

    def spy(model, tokenizer, premises, hypotheses, **kw):
        sent.extend(hypotheses)
        return real(model, tokenizer, premises, hypotheses, **kw)

    monkeypatch.setattr(nli_module, "predict_pairs", spy)
    prem = "The bridge over the river was approved by the council."
    ver = HFNLIVerifier(str(path), max_length=128, stride=16)
    out = ver.predict([prem], [claim])
    assert clause in sent  # the reported clause alone, with its own subject
    assert all(not (h.endswith(clause) and h != clause) for h in sent)  # no part straddles the frame
    direct = HFNLIVerifier(str(path), max_length=128, stride=16).predict([prem] * len(sent), sent)
    np.testing.assert_allclose(out[0], aggregate_hypothesis_windows(direct), atol=1e-6)


def test_truncating_long_hypotheses_says_so(tmp_path):
    path, _, _ = make_model(tmp_path, {0: "entailment", 1: "neutral", 2: "contradiction"})
    prem = "The bridge over the river was approved by the council."
    ver = HFNLIVerifier(str(path), max_length=128, long_hypothesis="truncate")
    with pytest.warns(LongHypothesisWarning, match="2 hypothesis text"):
        out = ver.predict([prem, prem], [HEAD + TAIL_A, HEAD + TAIL_B])
    np.testing.assert_allclose(out[0], out[1])  # the old behaviour: both tails were cut away
    assert ver.n_long_hypotheses == 2 and ver.signature_fields()["hyp"] == "truncate"


def test_short_hypotheses_score_as_before(tmp_path):
    path, _, _ = make_model(tmp_path, {0: "entailment", 1: "neutral", 2: "contradiction"})
    long_prem = " ".join(f"word{k} is here." for k in range(200))
    prem, hyp = [long_prem, "A man plays guitar."], ["word3 is here.", "Nobody plays."]
    a = HFNLIVerifier(str(path), max_length=64, stride=8).predict(prem, hyp)
    b = HFNLIVerifier(str(path), max_length=64, stride=8, long_hypothesis="truncate").predict(prem, hyp)
    assert np.array_equal(a, b)


def test_two_long_claims_differing_in_their_tail_get_different_proxies(tmp_path):
    from ev2r.metric.factory import build_scorer
    from ev2r.types import Evidence, Item, QAPair

    path, _, _ = make_model(tmp_path, {0: "entailment", 1: "neutral", 2: "contradiction"})
    ev = Evidence((QAPair("Was the bridge approved?", "Yes. The council approved the river bridge in 2017."),))
    items = [Item(id=k, claim=HEAD + tail, predicted_evidence=ev, reference_evidence=ev, row=i, gold_label="Supported")
             for i, (k, tail) in enumerate((("a", TAIL_A), ("b", TAIL_B)))]
    scorer = build_scorer(verifier=HFNLIVerifier(str(path), max_length=128), baselines=())
    a, b = scorer.score(items)
    assert a.status == b.status == "ok"
    assert a.proxy != b.proxy
    assert "|hyp:clause-window-min|" in scorer.signature()


def test_content_free_text_is_neutral_without_asking_the_model(tmp_path):
    """Content-free text ("...", "?!?!", emoji) once got P(entailment) 0.73-0.86 against unrelated text."""
    path, _model, _tok = make_model(tmp_path, {0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"})
    tiny_verifier = HFNLIVerifier(str(path), batch_size=2, cache_size=0)  # the repeated pair must reach the model again
    real = tiny_verifier.predict(["Paris is in France."], ["Paris is in France."])
    before = tiny_verifier.n_model_pairs
    out = tiny_verifier.predict(["...", "Paris is in France.", "\U0001f642", "Paris is in France."],
                                ["Paris is in France.", "?!?!", "\U0001f44d", "Paris is in France."])
    assert out[:3].tolist() == [[0.0, 1.0, 0.0]] * 3
    assert out[3] == pytest.approx(real[0])
    assert tiny_verifier.n_model_pairs - before == 1  # the content-free pairs never reached the model


def test_pair_cache_answers_repeated_pairs_without_the_model(tmp_path):
    path, _, _ = make_model(tmp_path, {0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"}, "cache")
    prem, hyp = ["The cat sat on the mat.", "A man plays guitar."], ["A cat is sitting.", "Nobody plays."]
    assert HFNLIVerifier(str(path)).cache_size == 0  # opt-in: numbers never depend on what ran before
    ver = HFNLIVerifier(str(path), batch_size=2, cache_size=100)
    first = ver.predict(prem, hyp)
    assert ver.n_model_pairs == 2 and ver.n_cache_hits == 0
    again = ver.predict(prem[::-1] + ["Ok."], hyp[::-1] + ["Fine."])
    assert ver.n_model_pairs == 3 and ver.n_cache_hits == 2  # only the new pair ran
    np.testing.assert_array_equal(again[:2], first[::-1])
    uncached = HFNLIVerifier(str(path), batch_size=2, cache_size=0)
    np.testing.assert_allclose(uncached.predict(prem, hyp), first, atol=1e-6)
    uncached.predict(prem, hyp)
    assert uncached.n_model_pairs == 4 and uncached.n_cache_hits == 0
    small = HFNLIVerifier(str(path), cache_size=1)
    small.predict(prem, hyp)
    assert len(small._cache) == 1  # bounded: the least recently used pair was dropped
    for bad in ({"cache_size": -1}, {"max_batch_tokens": 0}, {"max_batch_tokens": "rows"}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            HFNLIVerifier(str(path), **bad)


def test_token_batches_give_the_row_batched_numbers(tmp_path):
    path, _, _ = make_model(tmp_path, {0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"}, "tokens")
    prem = ["Short.", "A much longer premise " * 6, "Mid length premise here.", "x " * 40, "Tiny one."] * 3
    hyp = [f"Hypothesis number {k}." for k in range(len(prem))]
    rows = HFNLIVerifier(str(path), batch_size=4, max_batch_tokens=None, cache_size=0)
    toks = HFNLIVerifier(str(path), batch_size=4, cache_size=0)  # "auto": 4 x the window
    np.testing.assert_allclose(toks.predict(prem, hyp), rows.predict(prem, hyp), atol=1e-5)
    assert toks.n_model_tokens == rows.n_model_tokens


def test_a_pairs_distribution_does_not_depend_on_its_batch(tmp_path):
    """In the default dtype, every distinct pair (long premises and hypotheses windowed) gets
    the same distribution (to 1e-6) alone, among others, shuffled, at 1 and 64 pairs per batch; with buckets of 8
    tokens (the default since 1.8.0) and with exact lengths."""
    path, _, _ = make_model(tmp_path, {0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"}, "invariant")
    rng = np.random.default_rng(5)
    words = "the council approved a new bridge over the river in May 2019 and prices rose sharply".split()
    prem = [" ".join(rng.choice(words, int(rng.integers(3, 140)))) + "." for _ in range(70)]
    hyp = [" ".join(rng.choice(words, int(rng.integers(3, 90)))) + "." for _ in range(70)]
    default = HFNLIVerifier(str(path), dtype="auto")
    assert default.length_bucket == 8
    alone = np.stack([default.predict([p], [h])[0] for p, h in zip(prem, hyp)])
    # alone, each pair is padded by its own length only: up to the next multiple of 8 tokens
    assert default.n_model_tokens <= default.n_padded_tokens < default.n_model_tokens + 8 * default.n_model_pairs
    assert default.n_model_pairs > len(prem)  # some pairs were windowed
    perm = rng.permutation(len(prem))
    for kwargs in ({}, {"batch_size": 1, "max_batch_tokens": None}, {"batch_size": 64, "max_batch_tokens": None},
                   {"max_batch_tokens": 64 * 128}):
        ver = HFNLIVerifier(str(path), dtype="auto", **kwargs)
        assert float(np.abs(ver.predict(prem, hyp) - alone).max()) <= 1e-6, kwargs
        shuffled = ver.predict([prem[i] for i in perm], [hyp[i] for i in perm])
        assert float(np.abs(shuffled - alone[perm]).max()) <= 1e-6, kwargs
    mixed = HFNLIVerifier(str(path), dtype="auto").predict(prem[:3] + ["Other text entirely."] + prem[3:],
                                                           hyp[:3] + ["Something else."] + hyp[3:])
    assert float(np.abs(np.delete(mixed, 3, axis=0) - alone).max()) <= 1e-6
    # unpadded exact lengths (the 1.x pass) are as invariant, with nothing padded
    exact = HFNLIVerifier(str(path), dtype="auto")
    exact.length_bucket = 1
    alone_exact = np.stack([exact.predict([p], [h])[0] for p, h in zip(prem, hyp)])
    assert exact.n_model_tokens == exact.n_padded_tokens
    exact_batched = HFNLIVerifier(str(path), dtype="auto", batch_size=64, max_batch_tokens=None)
    exact_batched.length_bucket = 1
    assert float(np.abs(exact_batched.predict(prem, hyp) - alone_exact).max()) <= 1e-6
