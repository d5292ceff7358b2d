"""Helpers shared by the ``ev2r`` commands: verifier options, the output-path check, number format."""

from __future__ import annotations

import argparse

from ev2r.config import DEFAULTS, DTYPES


def add_verifier_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default=DEFAULTS.verifier,
                   help="NLI verifier: 'bundled' (default), a local checkpoint or a Hugging Face id "
                        "(e.g. MoritzLaurer/DeBERTa-v3-large-mnli-fever-anli-ling-wanli; needs a network)")
    p.add_argument("--device", default=None, help="torch device (default: $EV2R_DEVICE, else cuda if available, else cpu)")
    p.add_argument("--batch-size", type=int, default=DEFAULTS.batch_size,
                   help=f"verifier batch size (default {DEFAULTS.batch_size})")
    p.add_argument("--dtype", choices=DTYPES, default=DEFAULTS.dtype,
                   help="verifier precision (default auto: bf16 on CUDA or on a CPU with native bf16 -- AVX512-BF16/AMX "
                        "-- else fp32; int8 = CPU dynamic quantisation); part of the signature")


def fmt(v) -> str:
    return "n/a" if v is None else f"{v:.4f}"


def check_output(path) -> None:
    """Fail before any work when ``-o PATH`` cannot be written (missing folder, a directory)."""
    if not path:
        return
    import os

    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"-o/--output: folder {folder!r} does not exist")
    if os.path.isdir(path):
        raise ValueError(f"-o/--output: {path!r} is a directory, not a file")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"-o/--output: folder {folder!r} is not writable")
