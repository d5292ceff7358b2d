"""Faults found by trying to break the package: each must be a clear error or an item status,
never a silent score."""

import json

import numpy as np
import pytest

from ev2r.metric.factory import build_scorer, check_device
from ev2r.cli.main import main
from ev2r.io.readers import InputError, InputWarning, read_items
from ev2r.types import Evidence, Item, QAPair
from ev2r.verifier.nli import check_probabilities
from support.tiny_models import build_tiny_nli_model

SAMPLE = "examples/averitec_sample.jsonl"


class FixedVerifier:
    name = "fixed"

    def __init__(self, row):
        self.row = row

    def predict(self, premises, hypotheses):
        return np.tile(np.asarray(self.row, dtype=float), (len(premises), 1))


def item(k=0):
    ev = Evidence((QAPair("Q?", "Paris is the capital of France."),))
    return Item(id=str(k), claim="Paris is the capital of France.", predicted_evidence=ev, reference_evidence=ev,
                gold_label=None, row=k)


@pytest.mark.parametrize("row,match", [
    ([np.nan, 0.0, 1.0], "non-finite"),
    ([1.7, -0.35, -0.35], "outside \\[0, 1\\]"),
    ([0.9, 0.9, 0.9], "do not sum to 1"),
])
def test_bad_verifier_output_fails_the_item_never_scores_it(row, match):
    scores = build_scorer(verifier=FixedVerifier(row)).score([item(0), item(1)])
    for s in scores:
        assert s.status == "error" and s.precision is None and s.recall is None and s.ev2r is None
        assert "verifier" in s.error
    with pytest.raises(ValueError, match=match):
        check_probabilities(np.array([row]), 1)


def test_check_probabilities_shape_and_pass_through():
    with pytest.raises(ValueError, match=r"shape \(2, 2\), expected \(2, 3\)"):
        check_probabilities(np.zeros((2, 2)), 2)
    ok = check_probabilities([[0.2, 0.3, 0.5]], 1)
    assert ok.tolist() == [[0.2, 0.3, 0.5]]


@pytest.mark.parametrize("device,match", [("meta", "runs on cpu, cuda"), ("foo", "not a torch device")])
def test_device_is_checked(device, match):
    with pytest.raises(ValueError, match=match):
        check_device(device)


def test_cuda_without_cuda_is_an_error():
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(ValueError, match="no CUDA here"):
        check_device("cuda")


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_unloadable_or_two_way_model_exits_2(tmp_path, capsys):
    code, _, err = run(capsys, "score", SAMPLE, "--limit", 1, "--model", tmp_path / "nope")
    assert code == 2 and "--model" in err and "cannot be loaded" in err
    two_way = build_tiny_nli_model(tmp_path / "two", id2label={0: "entailment", 1: "not_entailment"})[0]
    code, _, err = run(capsys, "score", SAMPLE, "--limit", 1, "--model", two_way)
    assert code == 2 and "--model" in err


def test_output_folder_checked_before_scoring(capsys, tmp_path):
    code, _, err = run(capsys, "score", SAMPLE, "--limit", 1, "-o", tmp_path / "missing" / "x.jsonl")
    assert code == 2 and "does not exist" in err


@pytest.mark.parametrize("price", ["-5,1", "1,nan", "2.5", "1,2,3", "a,b"])
def test_negative_nan_or_malformed_price_rejected(capsys, price):
    with pytest.raises(SystemExit) as e:  # refused by argparse, before any work
        run(capsys, "score", SAMPLE, "--decomposer", "llm", "--dry-run", f"--llm-price={price}")
    err = capsys.readouterr().err
    assert e.value.code == 2 and "argument --llm-price: expected IN,OUT" in err and repr(price) in err


def test_replay_file_without_replay_decomposer_is_an_error():
    with pytest.raises(ValueError, match="decomposer='replay'"):
        build_scorer(verifier=FixedVerifier([0.2, 0.6, 0.2]), replay="x.jsonl")


@pytest.mark.parametrize("kwargs,match", [
    ({"threshold": "0.5"}, "threshold: expected a number"),
    ({"threshold": None}, "threshold: expected a number"),
    ({"baselines": 5}, "baselines: expected a list"),
])
def test_api_option_types(kwargs, match):
    with pytest.raises(ValueError, match=match):
        build_scorer(verifier=FixedVerifier([0.2, 0.6, 0.2]), **kwargs)


def test_api_accepts_numpy_alpha_and_no_baselines():
    sc = build_scorer(verifier=FixedVerifier([0.2, 0.6, 0.2]), alpha=np.float32(0.25), baselines=None)
    assert sc.alpha == 0.25


@pytest.mark.parametrize("bad", ["abc", {"id": 1}, [{"id": 1, "claim": "c"}]])
def test_score_rejects_non_items(bad):
    sc = build_scorer(verifier=FixedVerifier([0.2, 0.6, 0.2]))
    with pytest.raises(ValueError, match="items"):
        sc.score(bad)


def test_score_accepts_a_generator():
    sc = build_scorer(verifier=FixedVerifier([0.9, 0.05, 0.05]))
    assert [s.id for s in sc.score(item(k) for k in range(2))] == ["0", "1"]


def write(tmp_path, rows, name="in.jsonl"):
    p = tmp_path / name
    p.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return p


def test_lone_surrogate_is_an_input_error_naming_the_field(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_text('{"id": 1, "claim": "A \\ud800 man.", "predicted_evidence": "x", "reference_evidence": "y"}\n',
                 encoding="utf-8")
    with pytest.raises(InputError, match=r"row 0 \(line 1\): field 'claim' holds an invalid character"):
        read_items(p)


def test_invisible_claim_or_id_rejected(tmp_path):
    with pytest.raises(InputError, match="'claim' must be a non-empty string"):
        read_items(write(tmp_path, [{"id": 1, "claim": "\u200b", "predicted_evidence": "x", "reference_evidence": "y"}]))
    with pytest.raises(InputError, match="'id' must be a non-empty string or an integer"):
        read_items(write(tmp_path, [{"id": "\u200b", "claim": "c", "predicted_evidence": "x", "reference_evidence": "y"}]))


def test_gold_label_and_label(tmp_path):
    base = {"id": 1, "claim": "c", "predicted_evidence": "x", "reference_evidence": "y"}
    with pytest.raises(InputError, match="'gold_label' .* and 'label' .* name different verdicts"):
        read_items(write(tmp_path, [dict(base, gold_label="supported", label="refuted")]))
    with pytest.warns(InputWarning, match=r"1 of 1 row\(s\) of the ev2r schema .* have no 'gold_label': the gold verdict "
                                          r"was read from 'label'"):
        it = read_items(write(tmp_path, [dict(base, gold_label=None, label="refuted")]))[0]
    assert it.gold_label.name == "REFUTED"
    it = read_items(write(tmp_path, [dict(base, gold_label="Refuted", label="REFUTES")]))[0]
    assert it.gold_label.name == "REFUTED"


def test_list_of_invisible_sentences_is_empty_evidence(tmp_path):
    it = read_items(write(tmp_path, [{"id": 1, "claim": "c", "predicted_evidence": ["\u200b", " a b c "],
                                      "reference_evidence": "y"}]))[0]
    assert it.predicted_evidence.pairs == (QAPair("", "a b c"),)


@pytest.mark.parametrize("answer", [{"x": 1}, 42, None])
def test_averitec_answers_must_be_text(tmp_path, answer):
    gold = [{"claim": "c", "label": "Refuted", "questions": [{"question": "Q?", "answers": [{"answer": answer}]}]}]
    g = tmp_path / "gold.json"
    g.write_text(json.dumps(gold))
    preds = write(tmp_path, [{"claim_id": 0, "claim": "c", "evidence": [{"question": "Q?", "answer": "A"}],
                              "pred_label": "Refuted"}], "p.json")
    with pytest.raises(InputError, match=r"answers\[0\] must be an object with an 'answer' string"):
        read_items(preds, references=g)


def test_averitec_join_checks(tmp_path):
    gold = [{"claim_id": 0, "claim": "Rome is old.", "label": "Refuted",
             "questions": [{"question": "Q?", "answers": [{"answer": "A"}]}]}]
    g = tmp_path / "gold.json"
    g.write_text(json.dumps(gold))
    row = {"claim_id": 0, "claim": "Paris is big.", "evidence": [{"question": "Q?", "answer": "A"}],
           "pred_label": "Refuted"}
    with pytest.raises(InputError, match="differs from the gold claim"):
        read_items(write(tmp_path, [row], "p.jsonl"), references=g)
    ok = read_items(write(tmp_path, [dict(row, claim="Rome  is old.")], "p.jsonl"), references=g)
    assert ok[0].claim == "Rome  is old."  # whitespace differences are not a mismatch
    g.write_text(json.dumps(gold + gold))
    with pytest.raises(InputError, match="a second gold row with id '0'"):
        read_items(write(tmp_path, [dict(row, claim="Rome is old.")], "p.jsonl"), references=g)
    with pytest.raises(InputError, match="--references GOLD.json"):
        read_items(write(tmp_path, [row], "p.jsonl"))


def test_empty_replay_file(tmp_path):
    from ev2r.facts.replay import ReplayReferenceScorer

    f = tmp_path / "empty.jsonl"
    f.write_text("\n")
    with pytest.raises(ValueError, match="no recorded responses"):
        ReplayReferenceScorer(f)
