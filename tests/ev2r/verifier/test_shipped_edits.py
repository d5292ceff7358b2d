"""The shipped edit-trained verifier (``--model edits``): its part assembles on the bundled verifier's embeddings into
the weights that were judged and calibrated, and it reads a copy, a denial and a changed number."""

import json

import pytest

from ev2r.verifier import loading


def test_the_edits_spec_is_named_and_keyed_like_the_other_shipped_verifiers():
    assert loading.named_spec("Edits") == "edits"
    assert loading.verifier_key("ev2r-minilm-nli-edits") == "edits"
    assert loading.verifier_key("edits") != loading.verifier_key("bundled")
    assert loading.proxy_verifier_option("edits", "bundled") == "bundled"  # two readers, two names


def test_the_shipped_edits_part_names_the_bundled_base_and_its_own_tensors():
    from ev2r.verifier.nli import file_sha256

    record = json.loads((loading.EDITS_DIR / "base.json").read_text())
    assert record["base_sha256"] == file_sha256(loading.BUNDLED_DIR / "model.safetensors")
    assert record["model_sha256"] == file_sha256(loading.EDITS_DIR / "model.safetensors")
    assert list(record["from_base"]) == ["bert.embeddings.word_embeddings.weight"]
    card = (loading.EDITS_DIR / "README.md").read_text(encoding="utf-8")
    assert card.splitlines()[1] == "license: cc-by-sa-4.0" and "--aug-edit-families all" in card


@pytest.mark.slow
def test_the_shipped_edits_verifier_assembles_to_the_calibrated_weights_and_reads(tmp_path):
    """The assembled folder's weights are byte for byte those the calibration was fitted for (so the graded columns
    are computed), and the verifier reads a copy as entailed, a denial and a changed number as contradicted."""
    from ev2r.verifier.calibration import calibration_for
    from ev2r.verifier.nli import dir_fingerprint

    folder, name = loading.assemble_edits(cache_dir=tmp_path)
    assert name == f"ev2r-minilm-nli-edits@{dir_fingerprint(loading.EDITS_DIR)}" == "ev2r-minilm-nli-edits@87077e77bb"
    assert dir_fingerprint(folder) == "c649894916"  # the weights runs/edits8 saved, judged in round 11
    ver = loading.load_verifier(str(folder), dtype="fp32")
    cal, reason = calibration_for(ver)
    assert reason is None and cal is not None and cal.method == "temperature"
    named = loading.load_verifier("edits", dtype="fp32")
    assert named.name == "ev2r-minilm-nli-edits@87077e77bb" and named.max_length == 128
    premise = "The council approved the plan in March 2019 with 12 votes in favour."
    probs = named.predict([premise] * 3, ["The council approved the plan.",
                                          "The council did not approve the plan.",
                                          "The council approved the plan with 40 votes in favour."])
    assert probs[0].argmax() == 0 and probs[1].argmax() == 2 and probs[2].argmax() != 0


def test_a_damaged_assembled_folder_is_made_again_and_an_unusable_cache_root_is_named(tmp_path):
    """The assembled folder under the cache root is trusted only when its weights file is whole: truncated, emptied
    or deleted, it is assembled again (the same bytes); a root that cannot be made names where it comes from."""
    from ev2r.verifier.nli import dir_fingerprint

    folder, _ = loading.assemble_edits(cache_dir=tmp_path)
    weights = folder / "model.safetensors"
    whole = weights.read_bytes()
    for damage in (lambda: weights.write_bytes(whole[:100000]), lambda: weights.write_bytes(b""), weights.unlink):
        damage()
        again, _ = loading.assemble_edits(cache_dir=tmp_path)
        assert again == folder and weights.read_bytes() == whole and dir_fingerprint(folder) == "c649894916"
    (tmp_path / "a_file").write_text("x")
    with pytest.raises(OSError, match=r"--model edits: cannot create the folder .*a_file.* \(cache_dir\)"):
        loading.assemble_edits(cache_dir=tmp_path / "a_file")
