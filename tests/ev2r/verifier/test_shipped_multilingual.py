"""The shipped multilingual verifier: the tensors are the ones ``base.json`` records (checksum), the
model card states the data, licence and accuracies, and ``ev2r score --model multilingual`` reads a Czech item
with the real weights and nothing to train or download."""

from __future__ import annotations

import json

import pytest

from ev2r.verifier import loading
from ev2r.verifier.nli import file_sha256

SHIPPED = loading.MULTILINGUAL_DIR


def test_the_shipped_tensors_are_the_recorded_ones():
    record = json.loads((SHIPPED / "base.json").read_text(encoding="utf-8"))
    assert file_sha256(SHIPPED / "model.safetensors") == record["model_sha256"]
    assert record["base"] == "intfloat/multilingual-e5-small" and len(record["pack_sha256"]) == 64
    assert record["from_base"] == {"roberta.embeddings.word_embeddings.weight": "embeddings.word_embeddings.weight"}
    from safetensors.torch import load_file

    tensors = load_file(str(SHIPPED / "model.safetensors"))
    assert "roberta.embeddings.word_embeddings.weight" not in tensors
    assert sum(t.numel() for t in tensors.values()) == record["n_parameters"]
    config = json.loads((SHIPPED / "config.json").read_text(encoding="utf-8"))
    assert {int(k): v for k, v in config["id2label"].items()} == {0: "entailment", 1: "neutral", 2: "contradiction"}


def test_the_model_card_states_data_licence_and_accuracies():
    card = (SHIPPED / "README.md").read_text(encoding="utf-8")
    meta = json.loads((SHIPPED / "training_meta.json").read_text(encoding="utf-8"))
    assert "license: cc-by-sa-4.0" in card and "ctkfacts_train" in card and "multilingual-e5-small" in card
    final = meta["final_eval"]
    for name in ("ctkfacts_dev", "czech_negation_probe", "vitaminc_real_heldout", "fever_symmetric"):
        assert f"| {name} | {final[name]['n']} | {final[name]['accuracy']:.3f} |" in card
    assert final["ctkfacts_dev"]["accuracy"] >= 0.75  # the bar it had to pass to ship
    cal = json.loads((SHIPPED / "calibration.json").read_text(encoding="utf-8"))
    assert cal["method"] == "temperature" and cal["id"].startswith("temp-")


@pytest.mark.slow
def test_czech_item_scored_with_the_real_weights(tmp_path, capsys):
    from ev2r.cli.main import main

    rows = [{"id": "same", "claim": "Policie zatkla muže z Náchodska.", "gold_label": "Supported",
             "reference_evidence": "Question: Koho zatkla policie?\nAnswer: Policie včera zatkla muže z Náchodska.",
             "predicted_evidence": "Question: Koho zatkla policie?\nAnswer: Policie včera zatkla muže z Náchodska."},
            {"id": "negated", "claim": "Policie zatkla muže z Náchodska.", "gold_label": "Supported",
             "reference_evidence": "Question: Koho zatkla policie?\nAnswer: Policie včera zatkla muže z Náchodska.",
             "predicted_evidence": "Question: Koho zatkla policie?\nAnswer: Policie včera nezatkla muže z Náchodska."}]
    src, out = tmp_path / "cz.jsonl", tmp_path / "cz_scores.jsonl"
    src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert main(["score", str(src), "-o", str(out), "--json", "--model", "multilingual", "--no-hybrid"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["n_failed"] == 0 and "verifier:ev2r-e5-nli@" in summary["signature"]
    got = {r["id"]: r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert got["same"]["recall"] == 1.0 and got["same"]["proxy"] > 0.5
    assert got["negated"]["proxy"] < got["same"]["proxy"] and got["negated"]["recall"] < 1.0
