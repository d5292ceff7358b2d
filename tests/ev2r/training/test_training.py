"""The verifier training command (``ev2r train-verifier``: ev2r.cli.train over ev2r.training): data split,
augmentation, in-domain pairs, model card, evaluation through the shared pair-inference routine, and a
two-step end-to-end run on a tiny model and tiny data."""

from __future__ import annotations

import json
import random
import sys
from collections import Counter

import pytest

from ev2r.cli.train import main as train_main
from ev2r.training import augment, evaluation, loop, model_card
from ev2r.training import data as tdata

from support.tiny_models import build_tiny_nli_model, build_tiny_training_data


def test_heldout_case_is_deterministic_and_near_the_requested_share():
    ids = [f"case-{i}" for i in range(4000)]
    first = [tdata.heldout_case(c, 15) for c in ids]
    assert first == [tdata.heldout_case(c, 15) for c in ids]
    assert 0.13 < sum(first) / len(ids) < 0.17
    assert not any(tdata.heldout_case(c, 0) for c in ids[:200])


@pytest.mark.parametrize("sentence, expected", [
    ("The tower is 300 metres tall.", "The tower is not 300 metres tall."),
    ("She has won two awards.", "She has not won two awards."),
    ("The tower isn't tall.", None),          # already negated
    ("No one came.", None),
    ("Paris hosts the games.", None),         # no auxiliary verb
])
def test_negate(sentence, expected):
    assert augment.negate(sentence) == expected


def test_augment_negation_flips_entailment_and_keeps_neutral():
    pairs = [tdata.Pair("p", "It was red.", "entailment", "s"), tdata.Pair("p", "It is big.", "neutral", "s"),
             tdata.Pair("p", "Paris hosts it.", "entailment", "s")]
    out = augment.augment_negation(pairs, random.Random(0), n_entail=5, n_neutral=5)
    assert sorted((p.hypothesis, p.label) for p in out) == [("It is not big.", "neutral"),
                                                            ("It was not red.", "contradiction")]


def _averitec_rows():
    def q(text, answer):
        return {"question": text, "answers": [{"answer": answer, "answer_type": "Extractive"}]}
    return [
        {"claim": "A is true.", "label": "Supported", "questions": [q("Is A true?", "Yes, A holds.")]},
        {"claim": "B is true.", "label": "Refuted", "questions": [q("Is B true?", "No, B fails.")]},
        {"claim": "C is true.", "label": "Not Enough Evidence", "questions": [q("Is C true?", "Unclear.")]},
        {"claim": "D is true.", "label": "Conflicting Evidence/Cherrypicking", "questions": [q("D?", "Both.")]},
        {"claim": "E is true.", "label": "Refuted", "questions": []},  # no evidence: skipped
    ]


def test_load_averitec_pairs(tmp_path):
    path = tmp_path / "train.json"
    path.write_text(json.dumps(_averitec_rows()))
    pairs = tdata.load_averitec_pairs(path, random.Random(0), {"entailment": 2})
    own = [p for p in pairs if p.source == "averitec_train"]
    assert Counter((p.hypothesis, p.label) for p in own) == {
        ("A is true.", "entailment"): 2, ("B is true.", "contradiction"): 1, ("C is true.", "neutral"): 1}
    assert own[0].premise == "Question: Is A true?\nAnswer: Yes, A holds."  # rendered as scoring renders it
    neg = [p for p in pairs if p.source == "averitec_train_mismatched"]
    assert len(neg) == 3 and all(p.label == "neutral" for p in neg)
    for p in neg:  # another claim's evidence, never the claim's own
        assert f"Is {p.hypothesis[0]} true?" not in p.premise
    assert not any("D" in p.hypothesis or "E" in p.hypothesis for p in pairs)
    assert [p.source for p in tdata.load_averitec_pairs(path, random.Random(0), negatives=False)] == ["averitec_train"] * 3


def _witness_rows():
    def q(text, answer):
        return {"question": text, "answers": [{"answer": answer, "answer_type": "Extractive"}]}
    return [
        {"claim": "A is true.", "label": "Supported",
         "questions": [q("Is A true?", "Maybe."), q("Was A seen?", "Yes, A was seen."), q("A?", "No answer could be found.")]},
        {"claim": "B is true.", "label": "Refuted", "questions": [q("Is B true?", "No, B fails."), q("B?", "Perhaps.")]},
        {"claim": "C is true.", "label": "Not Enough Evidence",
         "questions": [q(f"C{i}?", f"Unclear {i}.") for i in range(4)]},
        {"claim": "D is true.", "label": "Conflicting Evidence/Cherrypicking", "questions": [q("D?", "Both.")]},
    ]


def _witness_predict(calls):
    """P(entailment) 0.9 on 'Was A seen?', P(contradiction) 0.8 on 'Is B true?', low elsewhere."""
    import numpy as np

    def predict(premises, hypotheses):
        calls.append(list(zip(premises, hypotheses)))
        out = []
        for p in premises:
            if "Was A seen?" in p:
                out.append([0.9, 0.05, 0.05])
            elif "Is B true?" in p:
                out.append([0.1, 0.1, 0.8])
            else:
                out.append([0.3, 0.4, 0.3])
        return np.array(out)
    return predict


def test_load_averitec_witness_pairs_labels_the_pair_that_carries_the_verdict(tmp_path):
    path = tmp_path / "train.json"
    path.write_text(json.dumps(_witness_rows()))
    calls: list = []
    pairs = tdata.load_averitec_witness_pairs(path, random.Random(0), _witness_predict(calls),
                                              {"entailment": 2, "neutral": 2}, neutral_cap=3)
    # only the Supported / Refuted claims' pairs are asked, the Unanswerable pair never (pair_premises drops it)
    assert sorted(h for _, h in calls[0]) == ["A is true.", "A is true.", "B is true.", "B is true."]
    own = Counter((p.premise, p.hypothesis, p.label) for p in pairs if p.source == "averitec_pair_witness")
    assert own[("Question: Was A seen?\nAnswer: Yes, A was seen.", "A is true.", "entailment")] == 2
    assert own[("Question: Is B true?\nAnswer: No, B fails.", "B is true.", "contradiction")] == 1
    c_pairs = [k for k in own if k[1] == "C is true."]
    assert len(c_pairs) == 3 and all(k[2] == "neutral" and own[k] == 2 for k in c_pairs)  # neutral_cap 3, x2
    assert sum(own.values()) == 2 + 1 + 3 * 2
    neg = [p for p in pairs if p.source == "averitec_pair_mismatched"]
    assert len(neg) == 3 and all(p.label == "neutral" for p in neg)
    for p in neg:  # a pair of another claim's evidence
        assert p.hypothesis[0] not in p.premise.split("\n")[0]
    assert not any(p.hypothesis == "D is true." for p in pairs)


def test_load_averitec_witness_pairs_rejects_bad_arguments(tmp_path):
    import numpy as np

    path = tmp_path / "train.json"
    path.write_text(json.dumps(_witness_rows()))
    with pytest.raises(ValueError, match="neutral_cap: expected an int >= 1"):
        tdata.load_averitec_witness_pairs(path, random.Random(0), _witness_predict([]), neutral_cap=0)
    with pytest.raises(ValueError, match=r"witness verifier: predict returned shape \(4, 2\), expected \(4, 3\)"):
        tdata.load_averitec_witness_pairs(path, random.Random(0), lambda p, h: np.zeros((len(p), 2)))
    with pytest.raises(ValueError, match="witness verifier: predict returned non-finite"):
        tdata.load_averitec_witness_pairs(path, random.Random(0), lambda p, h: np.full((len(p), 3), np.nan))
    one = tmp_path / "one.json"
    one.write_text(json.dumps(_witness_rows()[:1] + _witness_rows()[3:]))  # one usable claim (+ a Conflicting one)
    for load in (lambda: tdata.load_averitec_witness_pairs(one, random.Random(0), _witness_predict([])),
                 lambda: tdata.load_averitec_pairs(one, random.Random(0))):
        with pytest.raises(ValueError, match="1 usable claim.*at least 2 are needed"):
            load()
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps([dict(r, label=r["label"].lower()) for r in _witness_rows()]))  # "supported", ...
    assert len(tdata.load_averitec_witness_pairs(odd, random.Random(0), _witness_predict([]))) == 1 + 1 + 3 + 3
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([dict(_witness_rows()[0], label="Mostly true")]))
    with pytest.raises(ValueError, match=r"bad.json: row 0 \(line 1\): label"):
        tdata.load_averitec_pairs(bad, random.Random(0))


def test_witness_verifier_needs_a_three_way_nli_checkpoint(tmp_path):
    from types import SimpleNamespace

    from ev2r.training.pool import witness_verifier

    with pytest.raises(ValueError, match="needs --encoder"):
        witness_verifier(SimpleNamespace(encoder=None, max_length=64))
    two, _, _ = build_tiny_nli_model(tmp_path / "two", id2label={0: "SUPPORTS", 1: "REFUTES"})
    with pytest.raises(ValueError, match="not the 3-way NLI classes"):
        witness_verifier(SimpleNamespace(encoder=two, max_length=64))
    three, _, _ = build_tiny_nli_model(tmp_path / "three")
    probs = witness_verifier(SimpleNamespace(encoder=three, max_length=64)).predict(["It rains."], ["It is wet."])
    assert probs.shape == (1, 3) and abs(float(probs.sum()) - 1.0) < 1e-5


def test_batches_by_length_cover_every_index_once():
    lengths = [random.Random(i).randint(5, 90) for i in range(1000)]
    batches = loop.batches_by_length(lengths, 32, random.Random(0))
    flat = [i for b in batches for i in b]
    assert sorted(flat) == list(range(1000))
    assert all(len(b) <= 32 for b in batches)


_tiny_data_dir = build_tiny_training_data


def _train_tiny(tmp_path, averitec_rows, *options):
    """``ev2r train-verifier`` on a tiny NLI model, the tiny data folder and these AVeriTeC training rows,
    batch 8, evaluated every step. Returns (the --out folder, its training_meta.json)."""
    encoder, _, _ = build_tiny_nli_model(tmp_path / "tiny")
    data = _tiny_data_dir(tmp_path / "data")
    (data / "averitec").mkdir()
    (data / "averitec" / "train.json").write_text(json.dumps(averitec_rows))
    out = tmp_path / "minilm-nli-averitec"
    rc = train_main(["--data-dir", str(data), "--out", str(out), "--encoder", str(encoder), "--batch-size", "8",
                     "--eval-every", "1", "--averitec-train", str(data / "averitec" / "train.json"), *options])
    assert rc == 0
    return out, json.loads((out / "training_meta.json").read_text())


def test_training_command_end_to_end_on_a_tiny_model(tmp_path):
    out, meta = _train_tiny(tmp_path, _averitec_rows(), "--steps", "2", "--aug-entail", "2", "--aug-neutral", "1",
                            "--averitec-repeat", "2")
    assert meta["command"].startswith("ev2r train-verifier --data-dir ") and meta["commands"] == [meta["command"]]
    assert [h["step"] for h in meta["history"]] == [1, 2]
    assert meta["training_pool"]["averitec_train"] == 2 * 5  # (2 + 1 + 2) per copy (entailment and neutral x2)
    assert meta["training_pool"]["averitec_train_mismatched"] == 2 * 3
    assert set(meta["final_eval"]) == {"vitaminc_real_heldout", "vitaminc_synthetic_heldout", "fever_symmetric",
                                       "negation_probe"}  # no dev.json beside train.json: no averitec_dev
    for res in meta["final_eval"].values():
        assert 0.0 <= res["accuracy"] <= 1.0 and res["n"] > 0
    # held-out VitaminC cases never reach the training pool
    held = sum(tdata.heldout_case(f"vitaminc_real_test-{i}", 15) for i in range(60))
    assert meta["final_eval"]["vitaminc_real_heldout"]["n"] == held
    assert meta["training_pool"]["vitaminc_real_test"] == 2 * (60 - held)  # --vitaminc-real-repeat 2

    from safetensors import safe_open

    with safe_open(str(out / "model.safetensors"), "pt") as fh:
        assert all(str(fh.get_tensor(k).dtype) == "torch.float16" for k in fh.keys())
    card = model_card.write_model_card(out).read_text()
    assert "license: cc-by-nc-4.0" in card and "non-commercial" in card
    assert "averitec_train | 10 | CC BY-NC 4.0" in card


def test_training_command_with_pair_witness_premises(tmp_path):
    out, meta = _train_tiny(tmp_path, _witness_rows(), "--steps", "1", "--aug-entail", "0", "--aug-neutral", "0",
                            "--averitec-premises", "pair-witness")
    assert meta["args"]["averitec_premises"] == "pair-witness"
    # A: one witness x2 (entailment), B: one witness, C: 3 of its 4 pairs x2 (neutral); one negative per claim
    assert meta["training_pool"]["averitec_pair_witness"] == 2 + 1 + 3 * 2
    assert meta["training_pool"]["averitec_pair_mismatched"] == 3
    assert "averitec_train" not in meta["training_pool"]
    card = model_card.write_model_card(out).read_text()
    assert "license: cc-by-nc-4.0" in card and "averitec_pair_witness | 9 | CC BY-NC 4.0" in card


def test_model_card_of_the_default_stays_share_alike(tmp_path):
    out = tmp_path / "minilm-nli"
    out.mkdir()
    (out / "training_meta.json").write_text(json.dumps({"training_pool": {"snli_dev_test": 10},
                                                        "args": {"vitaminc_real_repeat": 3}}))
    card = model_card.write_model_card(out).read_text()
    assert "license: cc-by-sa-4.0" in card and "the bundled verifier of ev2r" in card
    assert "repeated 3 times" in card and "CC BY-NC" not in card


def test_model_card_compares_with_the_previous_bundled_verifier(tmp_path):
    out = tmp_path / "minilm-nli"
    out.mkdir()
    r = lambda acc: {"n": 10, "accuracy": acc, "macro_f1": 0.5, "accuracy_2way": 0.5}  # noqa: E731
    (out / "training_meta.json").write_text(json.dumps({
        "training_pool": {"snli_dev_test": 10}, "final_eval": {"fever_symmetric": r(0.8), "negation_probe": r(0.9)},
        "previous_bundled": {"name": "old@1", "final_eval": {"fever_symmetric": r(0.75)}}}))
    card = model_card.write_model_card(out).read_text()
    assert "previous bundled verifier (`old@1`" in card
    assert "| fever_symmetric | 0.750 | 0.800 | +0.050 |" in card
    assert "| negation_probe | 0." not in card.split("Compared with")[1].split("negation_probe`:")[0]


@pytest.mark.parametrize("extra, message", [
    (["--averitec-train", "/nonexistent/train.json"], "--averitec-train: no such file"),
    (["--averitec-repeat", "0"], "--averitec-repeat: must be >= 1"),
    (["--averitec-premises", "pair-witness"], "--averitec-premises pair-witness: needs --averitec-train"),
    (["--averitec-premises", "evidence"], "--averitec-premises evidence: needs --averitec-train"),
    (["--steps", "0"], "--steps: must be >= 1, got 0"),
    (["--lr=-1e-5"], "--lr: must be > 0"),
    (["--warmup", "1.0"], "--warmup: must be in [0, 1)"),
    (["--heldout-percent", "0"], "--heldout-percent: must be in [1, 100)"),
    (["--max-length", "8"], "--max-length: must be >= 16"),
    (["--aug-denial", "40", "--aug-denial-kinds", "denial,hedges"], "--aug-denial-kinds: ['hedges'] not among denial,"),
    (["--aug-denial-kinds", "denial"], "--aug-denial-kinds: needs --aug-denial N"),
    (["--aug-contained=-5"], "--aug-contained: must be >= 0"),
    (["--aug-contained-polar-share", "0.3"], "--aug-contained-polar-share: needs --aug-contained N"),
    (["--aug-contained", "10", "--aug-contained-polar-share", "1.5"], "--aug-contained-polar-share: must be in [0, 1]"),
    (["--aug-contained", "10", "--aug-contained-polar-balanced"],
     "--aug-contained-polar-balanced: needs --aug-contained-polar-share > 0"),
    (["--aug-edit-families", "all"], "--aug-edit-families all: needs --aug-meaning-edits N or --aug-contained N"),
    (["--aug-meaning-edits", "10", "--aug-edit-families", "most"], "--aug-edit-families: invalid choice: 'most'"),
])
def test_training_command_rejects_bad_options(tmp_path, capsys, extra, message):
    data = _tiny_data_dir(tmp_path / "data")
    with pytest.raises(SystemExit) as exc:
        train_main(["--data-dir", str(data), "--out", str(tmp_path / "out"), *extra])
    assert exc.value.code == 2 and message in capsys.readouterr().err


def test_training_command_rejects_a_window_the_encoder_cannot_read(tmp_path, capsys):
    encoder, _, _ = build_tiny_nli_model(tmp_path / "tiny")  # 128 positions
    data = _tiny_data_dir(tmp_path / "data")
    with pytest.raises(SystemExit) as exc:
        train_main(["--data-dir", str(data), "--out", str(tmp_path / "out"), "--encoder", str(encoder),
                 "--max-length", "256"])
    assert exc.value.code == 2 and "--max-length: 256 exceeds" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_training_command_names_missing_data_files(tmp_path, capsys):
    data = _tiny_data_dir(tmp_path / "data")
    (data / "nli" / "med.jsonl").unlink()
    with pytest.raises(SystemExit) as exc:
        train_main(["--data-dir", str(data), "--out", str(tmp_path / "out")])
    assert exc.value.code == 2 and "lacks nli/med.jsonl" in capsys.readouterr().err


def _run_tiny(tmp_path, out, *extra):
    encoder = tmp_path / "tiny"
    if not encoder.exists():
        build_tiny_nli_model(encoder)
    data = tmp_path / "data"
    if not data.exists():
        _tiny_data_dir(data)
    return train_main(["--data-dir", str(data), "--out", str(out), "--encoder", str(encoder), "--steps", "6",
                    "--batch-size", "4", "--eval-every", "100", "--aug-entail", "2", "--aug-neutral", "1",
                    "--dtype", "fp32", *extra])


def test_resume_continues_exactly(tmp_path):
    """A run paused after 3 steps and resumed ends with the same weights, optimizer state and
    history as the same run done in one go (RNG, scheduler and data position restored)."""
    import torch

    assert _run_tiny(tmp_path, tmp_path / "whole") == 0
    assert _run_tiny(tmp_path, tmp_path / "split", "--stop-after-steps", "3") == 0
    paused = json.loads((tmp_path / "split" / "training_meta.json").read_text())
    assert paused["paused_at_step"] == 3 and "final_eval" not in paused
    assert train_main(["--resume", str(tmp_path / "split")]) == 0
    a = torch.load(tmp_path / "whole" / "resume" / "state.pt", weights_only=False)
    b = torch.load(tmp_path / "split" / "resume" / "state.pt", weights_only=False)
    assert a["step"] == b["step"] == 6
    assert all(torch.equal(a["model"][k], b["model"][k]) for k in a["model"])
    sa, sb = a["optimizer"]["state"], b["optimizer"]["state"]
    assert all(torch.equal(sa[k]["exp_avg"], sb[k]["exp_avg"]) for k in sa)
    assert a["scheduler"]["last_epoch"] == b["scheduler"]["last_epoch"] == 6
    meta_a = json.loads((tmp_path / "whole" / "training_meta.json").read_text())
    meta_b = json.loads((tmp_path / "split" / "training_meta.json").read_text())
    assert meta_a["final_eval"] == meta_b["final_eval"]
    assert len(meta_b["commands"]) == 2 and "--resume" in meta_b["commands"][1]
    curve = json.loads((tmp_path / "split" / "learning_curve.json").read_text())
    assert [h["step"] for h in curve] == [6]
    assert (tmp_path / "split" / "learning_curve.png").stat().st_size > 1000


def test_resume_needs_a_checkpoint(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        train_main(["--resume", str(tmp_path)])
    assert exc.value.code == 2 and "--resume: no checkpoint at" in capsys.readouterr().err


def test_augment_invariant_keeps_labels_and_changes_text():
    pairs = [tdata.Pair("The tower was built in 1889 and is 300 metres tall.", "The tower is 300 metres tall.",
                     "entailment", "s"),
             tdata.Pair("Twenty people attended the meeting yesterday.", "Twenty people attended.", "neutral", "s")]
    out = augment.augment_invariant(pairs, random.Random(0), 4, kinds=("typos", "numbers_to_words"))
    assert len(out) == 3  # typos: 2 (one per pair); numbers_to_words: only the pair with digits applies, once
    by_source = Counter(p.source for p in out)
    assert by_source == {"invariance_aug_typos": 2, "invariance_aug_numbers_to_words": 1}
    for p in out:
        orig = next(q for q in pairs if q.label == p.label and (q.premise == p.premise or q.hypothesis == p.hypothesis
                                                                  or p.source.endswith("typos")))
        assert p.label == orig.label and (p.premise, p.hypothesis) != (orig.premise, orig.hypothesis)
    num = next(p for p in out if p.source.endswith("numbers_to_words"))
    assert "three hundred" in (num.premise + num.hypothesis) or "eighteen eighty-nine" in num.premise
    assert out == augment.augment_invariant(pairs, random.Random(0), 4, kinds=("typos", "numbers_to_words"))


def test_augment_negated_premise_balances_the_cue():
    pairs = [tdata.Pair("p", f"It was red number {i}.", "entailment", "s") for i in range(10)]
    out = augment.augment_negated_premise(pairs, random.Random(0), 4)
    by = Counter(p.label for p in out)
    assert by["contradiction"] == 4 and by["entailment"] == 2 and by["neutral"] <= 2
    for p in out:
        assert " not " in p.premise
        if p.label == "contradiction":
            assert p.premise == p.hypothesis.replace("was", "was not")
        if p.label == "entailment":
            assert p.premise == p.hypothesis


def test_augment_structure_quotas_labels_and_held_out_templates():
    """Denials contradict, assertions and copies entail, shuffled words are neutral; the gaming
    suite's own denial templates are never among the training ones (it measures reading, not memory)."""
    from adversarial.perturbations.gaming import SUITE_DENIALS

    hyps = [f"The council approved plan number {i} for the new river bridge." for i in range(200)]
    pairs = [tdata.Pair(f"Records show the council approved plan {i} for the bridge over the river.", h,
                        "entailment", "s") for i, h in enumerate(hyps)]
    out = augment.augment_structure(pairs, random.Random(0), 40)
    by = Counter(p.source for p in out)
    assert by["structure_aug_denial"] == 40 and by["structure_aug_copy"] == 40
    assert by["structure_aug_assertion"] == 20
    assert by["structure_aug_shuffled_hypothesis"] == 10 and by["structure_aug_shuffled_premise"] == 10
    label = {"denial": "contradiction", "copy": "entailment", "assertion": "entailment",
             "shuffled_hypothesis": "neutral", "shuffled_premise": "neutral"}
    for p in out:
        assert p.label == label[p.source.removeprefix("structure_aug_")]
        body = p.premise.split("\nAnswer: ", 1)[-1]  # ~30% laid out as a question/answer pair
        if p.source == "structure_aug_copy":
            assert body == p.hypothesis
        if p.source == "structure_aug_shuffled_hypothesis":
            assert sorted(body.rstrip(".").split()) == sorted(p.hypothesis.rstrip(".").split()) and body != p.hypothesis
    assert 0.15 < sum(p.premise.startswith("Question: ") for p in out) / len(out) < 0.45
    assert not set(augment.DENIAL_TEMPLATES) & set(SUITE_DENIALS)
    assert out == augment.augment_structure(pairs, random.Random(0), 40)  # a pure function of its inputs


def test_augment_structure_reverse_puts_the_structure_in_the_hypothesis():
    hyps = [f"The council approved plan number {i} for the new river bridge." for i in range(100)]
    pairs = [tdata.Pair(f"Records show the council approved plan {i} for the bridge over the river.", h,
                        "entailment", "s") for i, h in enumerate(hyps)]
    out = augment.augment_structure_reverse(pairs, random.Random(1), 20)
    by = Counter(p.source for p in out)
    assert by["structure_rev_denied_hypothesis"] == 20 and by["structure_rev_shuffled_fact"] == 20
    assert by["structure_rev_copy"] == 10 and by["structure_rev_asserted_hypothesis"] == 10
    for p in out:
        body = p.premise.split("\nAnswer: ", 1)[-1]
        if p.source == "structure_rev_denied_hypothesis":
            assert p.label == "contradiction" and body.startswith("Records show") and any(
                p.hypothesis.startswith(t.split("{s}")[0]) for t in augment.DENIAL_TEMPLATES)
        if p.source == "structure_rev_shuffled_fact":
            orig = next(h for h in hyps if sorted(h.rstrip(".").split()) == sorted(p.hypothesis.rstrip(".").split()))
            assert p.label == "neutral" and p.hypothesis != orig
        if p.source == "structure_rev_copy":
            assert p.label == "entailment" and body == p.hypothesis
    assert out == augment.augment_structure_reverse(pairs, random.Random(1), 20)


def _pre_refactor_probs(model, tokenizer, premises, hypotheses, max_length, bf16, batch_size=64):
    """The evaluation routine as the trainer wrote it before it shared ``claimalign.models.predict_pairs``
    (kept here as the reference the shared routine must reproduce exactly)."""
    import numpy as np
    import torch

    order = sorted(range(len(premises)), key=lambda i: len(premises[i]) + len(hypotheses[i]))
    out = np.zeros((len(premises), 3), dtype=np.float64)
    model.eval()
    with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        for s in range(0, len(order), batch_size):
            ids = order[s:s + batch_size]
            enc = tokenizer([premises[i] for i in ids], [hypotheses[i] for i in ids], truncation="only_first",
                            max_length=max_length, padding=True, return_tensors="pt")
            out[ids] = model(**enc).logits.float().softmax(-1).numpy()
    return out


@pytest.mark.parametrize("bf16", [False, True])
def test_evaluation_reproduces_the_pre_refactor_numbers_exactly(tmp_path, bf16):
    import numpy as np
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    path, _, _ = build_tiny_nli_model(tmp_path / "tiny")
    model = AutoModelForSequenceClassification.from_pretrained(
        path, num_labels=3, id2label=dict(enumerate(tdata.NLI_LABELS)), label2id=tdata.LABEL2ID, dtype=torch.float32)
    tok = AutoTokenizer.from_pretrained(path)
    prem = ["The cat sat on the mat.", "A man plays guitar [SEP] loudly.", " ".join(f"w{k} is here." for k in range(90)),
            "Prices rose.", "The cat sat on the mat."]
    hyp = ["A cat is sitting.", "Nobody plays.", "w3 is here.", "Prices fell sharply in June.", "A cat is sitting."]
    verifier = evaluation.ModelVerifier(model, tok, 64, bf16, batch_size=2)
    got = verifier.predict(prem, hyp)
    ref = _pre_refactor_probs(model, tok, prem, hyp, 64, bf16, batch_size=2)
    assert got.dtype == np.float64 and np.array_equal(got, ref)
    labels = ["entailment", "contradiction", "neutral", "contradiction", "entailment"]
    res = evaluation.evaluate_pairs(evaluation.ModelVerifier(model, tok, 64, bf16),
                                    [tdata.Pair(p, h, lab, "s") for p, h, lab in zip(prem, hyp, labels)])
    full = _pre_refactor_probs(model, tok, prem, hyp, 64, bf16)
    pred = [int(np.argmax(r)) for r in full]
    gold = [tdata.LABEL2ID[lab] for lab in labels]
    assert res["n"] == 5 and res["accuracy"] == round(sum(g == q for g, q in zip(gold, pred)) / 5, 4)
    assert res["accuracy_2way"] == round(sum(g == (0 if r[0] >= r[2] else 2) for g, r in zip(gold, full)) / 5, 4)


def test_model_verifier_reads_the_label_order_from_the_config(tmp_path):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    path, _, _ = build_tiny_nli_model(tmp_path / "tiny", {0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"})
    model, tok = AutoModelForSequenceClassification.from_pretrained(path), AutoTokenizer.from_pretrained(path)
    v = evaluation.ModelVerifier(model, tok, 64, False)
    assert v.columns == [1, 2, 0]
    raw = _pre_refactor_probs(model, tok, ["A man plays guitar."], ["Nobody plays."], 64, False)
    assert v.predict(["A man plays guitar."], ["Nobody plays."]).tolist() == raw[:, [1, 2, 0]].tolist()


def test_train_verifier_entry_points(tmp_path, capsys):
    import subprocess

    from ev2r.cli.main import main

    with pytest.raises(SystemExit) as exc:
        main(["train-verifier", "--resume", str(tmp_path)])
    assert exc.value.code == 2 and "--resume: no checkpoint at" in capsys.readouterr().err
    proc = subprocess.run([sys.executable, "-m", "ev2r.cli", "train-verifier", "--help"], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0 and "usage: ev2r train-verifier" in proc.stdout and "--resume" in proc.stdout
    # python -m ev2r.training reached up from the training package to the command line: gone in 1.5 (CHANGELOG.md, 1.5.0)
    gone = subprocess.run([sys.executable, "-m", "ev2r.training", "--help"], capture_output=True, text=True, timeout=300)
    assert gone.returncode == 1 and "removed in ev2r 1.5: run `ev2r train-verifier`" in gone.stderr


def test_pair_witness_needs_an_nli_encoder_before_any_work(tmp_path, capsys):
    data = _tiny_data_dir(tmp_path / "data")
    (data / "averitec").mkdir()
    (data / "averitec" / "train.json").write_text(json.dumps(_witness_rows()))
    base = ["--data-dir", str(data), "--out", str(tmp_path / "out"), "--averitec-train", str(data / "averitec" / "train.json"),
            "--averitec-premises", "pair-witness"]
    bare, _, _ = build_tiny_nli_model(tmp_path / "two", id2label={0: "SUPPORTS", 1: "REFUTES"})
    for extra, message in (([], "needs --encoder, a 3-way NLI checkpoint"),
                           (["--encoder", str(bare)], "not the 3-way NLI classes"),
                           (["--encoder", str(tmp_path / "nowhere")], "cannot read a model config from --encoder"),
                           (["--encoder", str(bare / "config.json")], "is a file; give the checkpoint's folder")):
        with pytest.raises(SystemExit) as exc:
            train_main(base + extra)
        assert exc.value.code == 2 and message in capsys.readouterr().err
        assert not (tmp_path / "out").exists()  # refused before any work


def test_augment_denial_labels_quotas_and_held_out_templates():
    """Composed denials contradict the statement they deny, a denied premise that contradicted
    (or entailed) the hypothesis is neutral to it, hedges are neutral, assertions and copies entail; none of the
    gaming suite's denial templates is composed (it measures reading, not memory)."""
    from adversarial.perturbations.gaming import SUITE_DENIALS

    grammar = augment.denial_grammar()
    assert len(grammar) == 217 and len(set(grammar)) == 217
    assert not set(grammar) & set(SUITE_DENIALS) and not set(grammar) & set(augment.DENIAL_TEMPLATES)
    for t in grammar:  # no suite template's distinctive words either
        assert not any(w in t for w in ("myth", "debunked", "wrong to say", "The idea that", "Nobody has ever"))
        assert ("{s}" in t) != ("{S}" in t)
    hyps = [f"The council approved plan number {i} for the new river bridge." for i in range(300)]
    pairs = [tdata.Pair(f"Engineers said work on route {i} starts in May after the vote.", h, "entailment", "s")
             for i, h in enumerate(hyps)]
    pairs += [tdata.Pair(f"The council rejected plan {i} for the bridge.", h, "contradiction", "s") for i, h in enumerate(hyps)]
    out = augment.augment_denial(pairs, random.Random(3), 40)
    by = Counter(p.source for p in out)
    assert by == {"denial_aug_denial": 40, "denial_aug_assertion": 20, "denial_aug_copy": 10, "denial_aug_hedge": 10,
                  "denial_aug_denied_premise_entailed": 10, "denial_aug_denied_hypothesis": 10,
                  "denial_aug_denied_premise_contradicted": 20}
    label = {"denial": "contradiction", "assertion": "entailment", "copy": "entailment", "hedge": "neutral",
             "denied_premise_entailed": "neutral", "denied_hypothesis": "contradiction",
             "denied_premise_contradicted": "neutral"}
    for p in out:
        assert p.label == label[p.source.removeprefix("denial_aug_")]
        body = p.premise.split("\nAnswer: ", 1)[-1]
        if p.source == "denial_aug_denial":
            assert "the council approved plan number" in body.lower() and body != p.hypothesis
        if p.source == "denial_aug_denied_premise_contradicted":
            assert "the council rejected plan" in body.lower() and "approved" in p.hypothesis
        if p.source == "denial_aug_copy":
            assert body == p.hypothesis
    assert out == augment.augment_denial(pairs, random.Random(3), 40)  # a pure function of its inputs
    kept = augment.augment_denial(pairs, random.Random(3), 40, kinds=["denial", "copy", "denied_hypothesis"])
    assert Counter(p.source for p in kept) == {"denial_aug_denial": 40, "denial_aug_copy": 10,
                                               "denial_aug_denied_hypothesis": 10}
    with pytest.raises(ValueError, match=r"\['hedges'\] not among \['denial'"):
        augment.augment_denial(pairs, random.Random(3), 40, kinds=["denial", "hedges"])


def test_czech_negation_probe_negates_the_first_verb():
    assert tdata.negate_czech("Policie zatkla muže z Náchodska.") == "Policie nezatkla muže z Náchodska."
    assert tdata.negate_czech("Praha je hlavním městem.") == "Praha není hlavním městem."
    assert tdata.negate_czech("Zdena Mašínová se může ucházet o dědictví.") == "Zdena Mašínová se nemůže ucházet o dědictví."
    assert tdata.negate_czech("Nikdo nezemřel.") is None  # already negated
    assert tdata.negate_czech("Jan nechodí, ale chodí Petr.") is None  # a ne-word of a word of the sentence
    assert tdata.negate_czech("Americké konvoje projíždějí Německem.") is None  # no auxiliary, no l-participle


def test_czech_negation_probe_from_a_split(tmp_path):
    rows = [{"id": 1, "claim": "Policie zatkla muže.", "premise": "Policie včera zatkla muže z Náchodska.", "label": "SUPPORTS"},
            {"id": 2, "claim": "Policie nezatkla nikoho.", "premise": "Policie včera zatkla muže.", "label": "REFUTES"},
            {"id": 3, "claim": "Konvoje projíždějí Německem.", "premise": "Konvoje projíždějí Německem.", "label": "SUPPORTS"}]
    path = tmp_path / "dev.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    probe = tdata.czech_negation_probe(path)
    assert [(p.premise, p.hypothesis, p.label) for p in probe["negated"]] == [
        ("Policie včera zatkla muže z Náchodska.", "Policie nezatkla muže.", "contradiction")]
    assert [(p.hypothesis, p.label) for p in probe["control"]] == [("Policie zatkla muže.", "entailment")]


def test_augment_czech_negation_from_train_pairs():
    pairs = [tdata.Pair("Policie včera zatkla muže.", "Policie zatkla muže.", "entailment", "ctkfacts_train"),
             tdata.Pair("Policie včera zatkla muže.", "Policie zatkla ženu a byla pochválena.", "neutral", "ctkfacts_train"),
             tdata.Pair("Policie včera zatkla muže.", "Policie zatkla dva muže.", "contradiction", "ctkfacts_train"),
             tdata.Pair("Konvoje projíždějí Německem.", "Konvoje projíždějí Německem.", "entailment", "ctkfacts_train")]
    out = tdata.augment_czech_negation(pairs, 2)
    assert [(p.hypothesis, p.label) for p in out] == [
        ("Policie nezatkla muže.", "contradiction"), ("Policie nezatkla muže.", "contradiction"),
        ("Policie nezatkla ženu a byla pochválena.", "neutral"), ("Policie nezatkla ženu a byla pochválena.", "neutral")]
