"""The Ev2R verifier: (premise, hypothesis) pairs -> P(entailment, neutral, contradiction).

* :data:`Verifier` -- the protocol every backend uses (:class:`claimalign.nli.VerifierLike`:
  ``predict(premises, hypotheses) -> (n, 3)`` and ``name``); :func:`check_probabilities` is the one
  validity rule for what a verifier returns (defined in :mod:`claimalign.nli`).
* :class:`HFNLIVerifier` -- any Hugging Face sequence-classification NLI checkpoint, by hub id
  (for users with a network, e.g. ``MoritzLaurer/DeBERTa-v3-large-mnli-fever-anli-ling-wanli``,
  the kind of model the Ev2R paper used) or local path. It is built on the project's one loader
  and one pair-inference routine (:func:`claimalign.models.load_nli_model`,
  :func:`claimalign.models.predict_pairs`: label order read from ``config.id2label``, length-sorted
  batches) and adds what Ev2R needs on top: deduplicated pairs, windows for long premises, a
  signature name with the weights' fingerprint and the precision, and token counters.
* :func:`ev2r.verifier.loading.load_verifier` -- ``"bundled"``, a path or a hub id -> verifier.

Long premises: when ``premise + hypothesis`` exceeds the model's window (``max_length``
tokens), the premise is cut into token windows of ``max_length - len(hypothesis) - 3`` tokens
with a ``stride`` overlap, each window is scored against the hypothesis, and the windows are
aggregated by ``long_premise``:

* ``"max"`` (default): entailment and contradiction are the maximum over windows, neutral the
  minimum, renormalised to sum 1 -- a hypothesis is supported (refuted) when *some* part of the
  premise supports (refutes) it (SummaC / AlignScore style chunking);
* ``"mean"``: the mean distribution over windows;
* ``"truncate"``: only the first window.
The choice was measured on WiCE's long web-page premises (``benchmarks/verifier/long_premise.py``).

Long hypotheses (a claim or atomic fact longer than half the window, that does not fit beside its
premise): no hypothesis text is dropped. With ``long_hypothesis="window"`` (default) the
hypothesis is cut into its clauses (:func:`clause_spans`: sentences, and the clause a reporting frame
"X said that" introduces, so that each keeps its own subject), and a clause still too long
into token windows as large as fit beside the premise (``max_length - 3 - min(len(premise),
max_length // 2)`` tokens, overlapping by ``min(stride, window // 2)``), every
hypothesis window is scored against the premise (its premise windows aggregated as above), and the
hypothesis windows are joined by :func:`aggregate_hypothesis_windows`: a hypothesis is a
conjunction of its parts, so it is entailed only when *every* part is (P(e) = min over parts),
refuted when *some* part is (P(c) = max) and unverifiable when some part is (P(n) = max),
renormalised to sum 1 -- the dual of the ``"max"`` premise rule. ``"truncate"`` keeps the old
behaviour (the tokenizer cuts the hypothesis's tail) and says so: a :class:`LongHypothesisWarning`
with the count. :attr:`HFNLIVerifier.n_long_hypotheses` counts such hypotheses either way, and the
rule is in :meth:`HFNLIVerifier.signature_fields` (``hyp``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import warnings
import weakref
from collections import OrderedDict
from pathlib import Path
from typing import Dict, Optional, Sequence

import numpy as np

from claimalign.models import NLIModel, load_nli_model, predict_pairs, resolve_dtype
from claimalign.nli import VerifierLike, check_probabilities
from claimalign.text import normalize_text
from claimalign.words import has_content
from ev2r.config import LONG_PREMISE_POLICIES

__all__ = ["Verifier", "check_probabilities", "LONG_PREMISE_POLICIES", "LONG_HYPOTHESIS_POLICIES", "HFNLIVerifier",
           "file_sha256", "LongHypothesisWarning", "aggregate_windows", "aggregate_hypothesis_windows",
           "dir_fingerprint"]

#: What :class:`HFNLIVerifier` does with a hypothesis that does not fit beside its premise (module docstring).
LONG_HYPOTHESIS_POLICIES = ("window", "truncate")


class LongHypothesisWarning(UserWarning):
    """Hypothesis text was cut to fit the verifier's token window (``long_hypothesis="truncate"``)."""

#: The verifier protocol (one definition, :class:`claimalign.nli.VerifierLike`).
Verifier = VerifierLike


def file_sha256(path: Path) -> str:
    """The SHA-256 (64 hex digits) of the file at ``path``, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def dir_fingerprint(path: Path) -> str:
    """First 10 hex digits of a SHA-256 over the weight files (``*.safetensors``, then ``*.bin``,
    each sorted by name) of a local checkpoint folder."""
    h = hashlib.sha256()
    for f in sorted(Path(path).glob("*.safetensors")) + sorted(Path(path).glob("*.bin")):
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()[:10]


#: The files of a checkpoint folder that define how it computes beside its weights: configuration (the label order
#: among it), tokenizer, pooling. Hashed by :func:`config_fingerprint` into the signature's ``data`` digest.
CONFIG_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json",
                "added_tokens.json", "merges.txt", "sentencepiece.bpe.model", "spm.model", "modules.json",
                "sentence_bert_config.json", "1_Pooling/config.json")


def config_fingerprint(path: str) -> str:
    """First 10 hex digits of a SHA-256 over the :data:`CONFIG_FILES` a local checkpoint folder holds (JSON files
    read as JSON, keys sorted, the bookkeeping keys ``_name_or_path``-like and ``transformers_version`` left out), so
    that a copy of a checkpoint with, say, its ``id2label`` swapped is never taken for the original.
    The weights are hashed apart (:func:`dir_fingerprint`, in the verifier's name)."""
    h = hashlib.sha256()
    for name in CONFIG_FILES:
        f = Path(path) / name
        if not f.is_file():
            continue
        data = f.read_bytes()
        if name.endswith(".json"):
            try:
                obj = json.loads(data)
            except ValueError:
                obj = None
            if isinstance(obj, dict):
                obj = {k: v for k, v in obj.items() if not k.startswith("_") and k != "transformers_version"}
                data = json.dumps(obj, sort_keys=True).encode("utf-8")
        h.update(name.encode("utf-8") + b"\0" + data + b"\0")
    return h.hexdigest()[:10]


def checkpoint_digest(path: str) -> str:
    """Weights and configuration of a local checkpoint folder: ``<dir_fingerprint>+<config_fingerprint>`` (the
    weights' hash kept per process for files of the same size and modification time)."""
    stamp = tuple((f.name, f.stat().st_size, f.stat().st_mtime_ns)
                  for f in sorted(Path(path).glob("*.safetensors")) + sorted(Path(path).glob("*.bin")))
    return f"{_weights_digest(str(path), stamp)}+{config_fingerprint(path)}"


@functools.lru_cache(maxsize=8)
def _weights_digest(path: str, stamp: tuple) -> str:
    return dir_fingerprint(Path(path))


def _parameters_digest(model) -> str:
    """``params@`` and 10 hex digits of a SHA-256 over a loaded model's state (names, dtypes, shapes, bytes), for a
    checkpoint with no local folder to hash (a hub id)."""
    import torch

    h = hashlib.sha256()
    for name, t in sorted(model.state_dict().items()):
        if not isinstance(t, torch.Tensor):
            h.update(f"{name}={t!r}".encode("utf-8"))
            continue
        t = t.detach().cpu().contiguous()
        h.update(f"{name}:{t.dtype}:{tuple(t.shape)}".encode("utf-8"))
        h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b"")
    return "params@" + h.hexdigest()[:10]


class HFNLIVerifier:
    """Hugging Face NLI cross-encoder verifier.

    Args:
        model: hub id or local directory of an ``AutoModelForSequenceClassification`` checkpoint.
        device: torch device string (``"cpu"``, ``"cuda"``).
        batch_size: pairs per forward pass (>= 1).
        max_length: token window (>= 16); default the tokenizer's ``model_max_length`` capped at 512.
        long_premise: ``"max"``, ``"mean"`` or ``"truncate"`` (module docstring).
        stride: token overlap between premise windows (>= 0); hypothesis windows overlap by
            ``min(stride, window // 2)``.
        long_hypothesis: ``"window"`` (default: score every part of a long hypothesis, P(e) = min
            over parts) or ``"truncate"`` (cut its tail, with a :class:`LongHypothesisWarning`).
        label_order: explicit class names per output index when ``config.id2label`` does not
            name the NLI classes (e.g. ``("entailment", "neutral", "contradiction")``).
        revision: hub revision (commit/tag) for reproducibility; recorded in ``name``.
        name: override for the signature name.
        quantize: CPU only: int8 dynamic quantisation of the Linear layers
            (``torch.ao.quantization.quantize_dynamic``): numbers beyond
            :data:`ev2r.versions.PRECISION_BOUND` of fp32, so ``+int8`` in ``name`` is part of the score's
            definition (a custom version name). Same as ``dtype="int8"``.
        dtype: compute precision: ``"fp32"``, ``"bf16"`` (weights cast to bfloat16: on CPUs with
            AVX512-BF16/AMX and on CUDA the matrix products run natively in bf16), ``"int8"`` (CPU
            dynamic quantisation) or ``"auto"`` (bf16 where native, else fp32;
            :func:`claimalign.models.resolve_dtype`). The resolved dtype is part of ``name``
            (``+bf16``, ``+int8``; fp32 adds nothing), so it reaches the metric signature; ``+int8`` also
            reaches the definition (:mod:`ev2r.versions`: bf16 stays within its precision bound, int8 not).
        max_batch_tokens: batches sized by tokens (:func:`claimalign.models.predict_pairs`): ``"auto"``
            (default: ``batch_size`` x half the token window -- 2,048 tokens for 32 pairs of a 128-token
            window -- so short pairs go many to a batch and long ones few; on the 86 rated rows' pairs it
            ran 1.1-1.25x the speed of fixed 32-pair batches with 1.6% padding instead of 13.6%, the fastest of
            2,048 / 4,096 / 8,192 tokens), an int >= 1, or None (``batch_size`` pairs per batch).
            Batches never change a number (below): ``batch_size`` and ``max_batch_tokens`` set the speed only.
        cache_size: distinct (premise, hypothesis) pairs whose distributions are kept between calls
            (least recently used dropped first), so that a pair is never computed twice (the
            robustness suite rescores many unchanged pairs). 0 (default): none. A cached distribution is
            the one a recomputation gives (batch invariance, below). Within one call a pair is always
            computed once.

    Batch invariance: a pair's distribution is a function of the pair alone -- the same alone, in any batch, in
    any order, at any ``batch_size`` / ``max_batch_tokens``, so an item gets the same numbers in ``ev2r explain``,
    alone, or among any other items. Each pair is padded by its own token count, rounded up to a multiple of
    ``length_bucket`` (8), and a forward pass holds pairs of one padded length only
    (:func:`claimalign.models.predict_pairs`): in bf16 the padding a pair got from longer companions moved its
    probabilities by up to ~1e-2, while padding fixed by the pair's own length cannot depend on the batch. Buckets of
    8 tokens need 135 forward passes on the 86 rated rows where unpadded exact lengths (``length_bucket`` 1) need 425,
    at 0.40x the verifier's CPU; every value stays within :data:`ev2r.versions.PRECISION_BOUND` of the exact-length
    pass (``benchmarks/results/batch_invariance_v1272.md``). None restores batches padded to their longest pair
    (speed comparisons only). On a CPU with AMX, oneDNN's AMX bf16 kernels make a pair's numbers depend slightly on
    its batch and thread count (up to ~7e-3); ``ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16`` in the environment before the
    first bf16 product gives exact invariance there, at about 2.5x the verifier's CPU.

    Across runs: :meth:`with_disk_cache` gives a verifier (sharing this one's model) that reads an on-disk cache
    (:mod:`ev2r.verifier.cache`) before the model and stores what the model computes there; ``shared`` says what
    loading took from a model loaded before in the process (:func:`share_loaded`).

    Attributes ``n_model_pairs``, ``n_model_tokens`` and ``n_padded_tokens`` count the forward-pass
    pairs (after deduplication and windowing), their tokens, and the tokens computed on (padding
    included) so far; ``n_long_hypotheses`` the distinct (premise, hypothesis) pairs whose
    hypothesis did not fit beside the premise (windowed, or cut under ``"truncate"``); ``n_cache_hits``
    the distinct pairs of a call answered from the cache of earlier calls (``cache_size``).

    Raises:
        ValueError: bad argument values, or a checkpoint whose labels cannot be mapped to
            entailment/neutral/contradiction (raised on first use, when the config is read).
    """

    def __init__(self, model: str, device: str = "cpu", batch_size: int = 32, max_length: Optional[int] = None,
                 long_premise: str = "max", stride: int = 32, label_order: Optional[Sequence[str]] = None,
                 revision: Optional[str] = None, name: Optional[str] = None, quantize: bool = False,
                 dtype: str = "fp32", long_hypothesis: str = "window", max_batch_tokens="auto",
                 cache_size: int = 0):
        if long_premise not in LONG_PREMISE_POLICIES:
            raise ValueError(f"long_premise: {long_premise!r} is not one of {LONG_PREMISE_POLICIES}")
        if long_hypothesis not in LONG_HYPOTHESIS_POLICIES:
            raise ValueError(f"long_hypothesis: {long_hypothesis!r} is not one of {LONG_HYPOTHESIS_POLICIES}")
        def is_int(v) -> bool:
            return isinstance(v, int) and not isinstance(v, bool)

        if not is_int(batch_size) or batch_size < 1:
            raise ValueError(f"batch_size: must be an int >= 1, got {batch_size!r}")
        if not is_int(stride) or stride < 0:
            raise ValueError(f"stride: must be an int >= 0, got {stride!r}")
        if max_length is not None and (not is_int(max_length) or max_length < 16):
            raise ValueError(f"max_length: must be an int >= 16 tokens, got {max_length!r}")
        if not (max_batch_tokens is None or max_batch_tokens == "auto" or (
                is_int(max_batch_tokens) and max_batch_tokens >= 1)):
            raise ValueError(f"max_batch_tokens: expected 'auto', None or an int >= 1, got {max_batch_tokens!r}")
        if isinstance(cache_size, bool) or not isinstance(cache_size, int) or cache_size < 0:
            raise ValueError(f"cache_size: expected an int >= 0, got {cache_size!r}")
        self.max_batch_tokens = max_batch_tokens
        self.length_bucket: Optional[int] = 8  # each pair padded by its own length: batch-invariant numbers
        self.cache_size = cache_size
        self._cache: "OrderedDict[tuple[str, str], np.ndarray]" = OrderedDict()
        self.n_cache_hits = 0
        self.disk_cache = None  # an ev2r.verifier.cache.DiskCache (with_disk_cache), read before the model
        self.shared: Dict[str, int] = {}  # what loading took from a model loaded before (share_loaded)
        self._disk_key = ""
        self.model_id = str(model)
        self.device = device
        self.batch_size = batch_size
        self.max_length = max_length
        self.long_premise = long_premise
        self.long_hypothesis = long_hypothesis
        self.stride = stride
        self.label_order = tuple(label_order) if label_order is not None else None
        self.revision = revision
        self._name = name
        self._nli: Optional[NLIModel] = None
        self._model = None  # the loaded model and tokenizer (also self._nli.model / .tokenizer)
        self._tokenizer = None
        self._window = 0  # the resolved token window and the pair's special tokens, set on load
        self._n_special = 0
        self.dtype = resolve_dtype("int8" if quantize else dtype, device)
        self.quantize = self.dtype == "int8"
        self.n_model_pairs = 0
        self.n_model_tokens = 0
        self.n_padded_tokens = 0
        self.n_long_hypotheses = 0

    @property
    def name(self) -> str:
        suffix = "" if self.dtype == "fp32" else f"+{self.dtype}"
        if self._name:
            return self._name + suffix
        p = Path(self.model_id)
        if p.is_dir():
            return f"{p.name}@{dir_fingerprint(p)}{suffix}"
        return f"{self.model_id}@{self.revision or 'main'}{suffix}"

    def config_digest(self) -> str:
        """:func:`config_fingerprint` of the local checkpoint folder (its configuration and tokenizer), or
        ``hub@<revision>`` for a hub id (the revision pins them)."""
        p = Path(self.model_id)
        return config_fingerprint(str(p.resolve())) if p.is_dir() else f"hub@{self.revision or 'main'}"

    def signature_fields(self) -> Dict[str, str]:
        """``verifier``: :attr:`name`; ``window``: token window and long-premise policy (e.g. ``128-max``);
        ``hyp``: the long-hypothesis rule (``clause-window-min``: every clause, or token window of a clause
        too long for the window, scored, P(e) = min; ``truncate``)."""
        hyp = "clause-window-min" if self.long_hypothesis == "window" else "truncate"
        return {"verifier": self.name, "window": f"{self.max_length or 'auto'}-{self.long_premise}", "hyp": hyp}

    def cache_definition(self) -> dict:
        """What this verifier's distribution of a pair depends on beside the pair's text, for the on-disk cache
        (:mod:`ev2r.verifier.cache`; loads the model): the signature name (weights' hash and precision), the weights
        and configuration files (:func:`checkpoint_digest` of a local folder; for a hub id, a hash of the loaded
        parameters), the token window, the long-premise / long-hypothesis rules and stride, the padding bucket, the
        label columns, the device type and the torch / transformers versions."""
        import torch

        from ev2r.signature import package_version

        nli = self._load_head()
        p = Path(self.model_id)
        weights = checkpoint_digest(str(p.resolve())) if p.is_dir() else _parameters_digest(self._load().model)
        return {"kind": "verifier-pairs", "format": 1, "name": self.name, "weights": weights,
                "window": self._window, "long_premise": self.long_premise, "long_hypothesis": self.long_hypothesis,
                "stride": self.stride, "length_bucket": self.length_bucket, "columns": list(nli.columns),
                "dtype": self.dtype, "device": torch.device(self.device).type,
                "torch": package_version("torch"), "transformers": package_version("transformers")}

    def with_disk_cache(self, cache, role: str = "verifier") -> "HFNLIVerifier":
        """A verifier that reads ``cache`` (an :class:`ev2r.verifier.cache.DiskCache`) before asking the model and
        stores what the model computes there, under :meth:`cache_definition`'s key (named ``role`` in the run record).
        It shares this verifier's loaded model, tokenizer and settings (nothing is loaded again) and is of the same
        class, name and signature; this verifier is left without the cache (``get_verifier`` keeps it per process).
        Its counters start at 0. The weights of a local checkpoint are loaded only when a pair is not in the cache (a
        run that finds every pair there never loads them)."""
        import copy

        definition = self.cache_definition()  # reads the tokenizer and configuration first: the copy shares them
        twin = copy.copy(self)
        twin._cache = OrderedDict()
        twin.n_cache_hits = twin.n_model_pairs = twin.n_model_tokens = twin.n_padded_tokens = 0
        twin.n_long_hypotheses = 0
        twin.disk_cache = cache
        twin._disk_key = cache.register(role, definition)
        return twin

    def _load_head(self) -> NLIModel:
        """Read the tokenizer and configuration once (:func:`claimalign.models.load_nli_model` without weights) and
        fix the window: what the signature, the cache key and the pairs' texts need."""
        if self._nli is None:
            nli = load_nli_model(self.model_id, device=self.device, dtype=self.dtype, revision=self.revision,
                                 label_order=self.label_order, weights=False)
            self.max_length = self._window = nli.window(self.max_length)
            self._n_special = nli.tokenizer.num_special_tokens_to_add(pair=True)
            self._nli, self._tokenizer = nli, nli.tokenizer
        return self._nli

    def _load(self) -> NLIModel:
        """Load tokenizer and weights once (:meth:`claimalign.models.NLIModel.load_weights`), sharing what equals
        a model loaded before (:func:`share_loaded`).

        Raises:
            ValueError: weights that cannot be loaded, naming the checkpoint.
        """
        nli = self._load_head()
        if nli.model is None:
            try:
                nli.load_weights()
            except Exception:  # transformers', torch's and safetensors' own errors alike: one clear error, kept
                why = nli.load_error
                raise ValueError(f"{self.model_id}: the verifier's weights cannot be loaded: {why}") from None
            self.shared = share_loaded(nli)
        self._model, self._tokenizer = nli.model, nli.tokenizer
        return nli

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """(n, 3) float64 [P(entailment), P(neutral), P(contradiction)] for n (premise, hypothesis)
        strings. Texts are NFC-normalised with one line ending, and a special-token string in them
        ("[SEP]", "<s>") is tokenised as text, never as the control token. A pair whose premise or
        hypothesis holds no letter or digit (:func:`claimalign.words.has_content`) is (0, 1, 0), neutral,
        without asking the model.

        Raises:
            ValueError: a single string, unequal lengths, or a non-string element (naming it).
        """
        if isinstance(premises, str) or isinstance(hypotheses, str):
            raise ValueError("premises/hypotheses: expected sequences of strings, got a single string")
        if len(premises) != len(hypotheses):
            raise ValueError(f"premises/hypotheses: lengths differ ({len(premises)} vs {len(hypotheses)})")
        for name, seq in (("premises", premises), ("hypotheses", hypotheses)):
            for i, s in enumerate(seq):
                if not isinstance(s, str):
                    raise ValueError(f"{name}[{i}]: expected a string, got {type(s).__name__}")
        if len(premises) == 0:
            return np.zeros((0, 3), dtype=np.float64)
        nli = self._load_head()  # the weights load only for a pair the caches do not hold (_predict_unique)
        premises = [nli.guard(normalize_text(p)) for p in premises]
        hypotheses = [nli.guard(normalize_text(h)) for h in hypotheses]
        known: dict[tuple[str, str], np.ndarray] = {}
        unique: dict[tuple[str, str], int] = {}
        for p, h in zip(premises, hypotheses):
            if not (has_content(p) and has_content(h)) or (p, h) in known or (p, h) in unique:
                continue
            hit = self._cache.get((p, h))
            if hit is not None:
                self._cache.move_to_end((p, h))
                self.n_cache_hits += 1
                known[(p, h)] = hit
            else:
                unique[(p, h)] = len(unique)
        stored: dict[tuple[str, str], np.ndarray] = {}
        if unique and self.disk_cache is not None:  # computed by an earlier run of this definition: read, exact
            stored = self.disk_cache.get_pairs(self._disk_key, list(unique))
            unique = {key: k for k, key in enumerate(key for key in unique if key not in stored)}
        if unique:
            probs = self._predict_unique(nli, list(unique))
            for key, k in unique.items():
                known[key] = probs[k]
            if self.disk_cache is not None:
                self.disk_cache.put_pairs(self._disk_key, ((key, probs[k]) for key, k in unique.items()))
        known.update(stored)
        if self.cache_size:
            for key in list(unique) + list(stored):
                self._cache[key] = known[key].copy()  # a row of its own, not a view keeping the batch alive
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        # text without a letter or digit ("...", emoji) states nothing: it entails and contradicts
        # nothing (the model gave such premises P(entailment) 0.73-0.86), so the model is not asked
        nothing = np.array([0.0, 1.0, 0.0])
        return np.stack([known.get((p, h), nothing) for p, h in zip(premises, hypotheses)])

    def _windows(self, offsets: list[tuple[int, int]], text: str, hyp_len: int) -> list[str]:
        """Cut a premise into text windows of at most ``budget`` tokens (token offsets give the
        character spans, so any tokenizer works)."""
        budget = max(8, self._window - hyp_len - self._n_special)
        if len(offsets) <= budget:
            return [text]
        if self.long_premise == "truncate":
            return [text[: offsets[budget - 1][1]]]
        step = max(1, budget - self.stride)
        out = []
        for start in range(0, len(offsets), step):
            stop = min(start + budget, len(offsets))
            out.append(text[offsets[start][0]: offsets[stop - 1][1]])
            if stop >= len(offsets):
                break
        return out

    def _hypothesis_windows(self, offsets: list[tuple[int, int]], text: str, p_len: int) -> list[tuple[str, int]]:
        """A hypothesis that does not fit beside its premise cut into (text, tokens) windows of
        ``window - specials - min(p_len, window // 2)`` tokens (module docstring); else ``[(text, len)]``."""
        h_len, half = len(offsets), self._window // 2
        if h_len <= half or h_len + p_len + self._n_special <= self._window:
            return [(text, h_len)]  # fits (the premise is windowed around it, as before)
        self.n_long_hypotheses += 1
        if self.long_hypothesis == "truncate":
            return [(text, half)]  # the tokenizer cuts the tail (longest_first), as before: warned in predict
        budget = max(8, self._window - self._n_special - min(p_len, half))
        step = max(1, budget - min(self.stride, budget // 2))
        out = []
        for c_start, c_stop in clause_spans(text):  # a part never straddles two clauses
            toks = [k for k, (a, b) in enumerate(offsets) if b > a and a >= c_start and b <= c_stop]
            if not toks:
                continue
            first, last = toks[0], toks[-1] + 1
            for start in range(first, last, step):
                stop = min(start + budget, last)
                out.append((text[offsets[start][0]: offsets[stop - 1][1]], stop - start))
                if stop >= last:
                    break
        return out or [(text, half)]

    def _predict_unique(self, nli: NLIModel, keys: list[tuple[str, str]]) -> np.ndarray:
        """Distributions of distinct (guarded) pairs: windows, one :func:`predict_pairs` pass, aggregation."""
        nli = self._load()
        tok = nli.tokenizer
        # each distinct text tokenised once (a premise is checked against several facts, a fact against several
        # premises: about 3x fewer texts, and their offsets held once); verbose=False: premises longer than the
        # model are expected here (they are windowed below)
        offsets_of: dict[str, list] = {}
        for side in (0, 1):
            texts = list(dict.fromkeys(k[side] for k in keys if k[side] not in offsets_of))
            if texts:
                found = tok(texts, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
                offsets_of.update(zip(texts, found["offset_mapping"]))
        jobs: list[tuple[int, int, str, str]] = []  # (key index, hypothesis window, premise window, hypothesis text)
        n_long = self.n_long_hypotheses
        for k, key in enumerate(keys):
            offsets, h_offsets = offsets_of[key[0]], offsets_of[key[1]]
            for hi, (h_text, h_len) in enumerate(self._hypothesis_windows(list(h_offsets), key[1], len(offsets))):
                for w in self._windows(list(offsets), key[0], h_len):
                    jobs.append((k, hi, w, h_text))
        if self.long_hypothesis == "truncate" and self.n_long_hypotheses > n_long:
            warnings.warn(f"verifier {self.name}: {self.n_long_hypotheses - n_long} hypothesis text(s) longer than "
                          f"the {self._window}-token window beside their premise were cut (long_hypothesis="
                          "'truncate'); long_hypothesis='window' scores every part", LongHypothesisWarning,
                          stacklevel=3)
        counts = {"tokens": 0, "padded_tokens": 0}
        budget = (self.batch_size * self._window // 2 if self.max_batch_tokens == "auto" else self.max_batch_tokens)
        out = predict_pairs(nli.model, tok, [j[2] for j in jobs], [j[3] for j in jobs], max_length=self._window,
                            batch_size=self.batch_size, columns=nli.columns, truncation="longest_first",
                            device=self.device, counts=counts, max_batch_tokens=budget,
                            length_bucket=self.length_bucket)
        self.n_model_tokens += counts["tokens"]
        self.n_padded_tokens += counts["padded_tokens"]
        self.n_model_pairs += len(jobs)
        result = np.zeros((len(keys), 3), dtype=np.float64)
        groups: dict[int, dict[int, list[int]]] = {}
        for j, (k, hi, _, _) in enumerate(jobs):
            groups.setdefault(k, {}).setdefault(hi, []).append(j)
        for k, parts in groups.items():
            per_part = np.stack([aggregate_windows(out[js], self.long_premise) for js in parts.values()])
            result[k] = aggregate_hypothesis_windows(per_part)
        return result


#: The models the verifiers of this process loaded (weakly held): a model loaded after them shares what is equal.
_LOADED: "list[weakref.ref[NLIModel]]" = []


def _tokenizer_state(tok) -> Optional[tuple]:
    """What a fast tokenizer computes with (its whole pipeline serialised, and the settings beside it), or None for
    a tokenizer that cannot say (never shared)."""
    backend = getattr(tok, "backend_tokenizer", None)
    if backend is None:
        return None
    try:
        pipeline = json.loads(backend.to_str())
        pipeline.pop("truncation", None)  # set afresh by every call
        pipeline.pop("padding", None)
        return (type(tok).__qualname__, json.dumps(pipeline, sort_keys=True), tok.model_max_length, tok.padding_side,
                tok.truncation_side, json.dumps(tok.special_tokens_map, sort_keys=True, default=str),
                getattr(tok, "split_special_tokens", None), getattr(tok, "clean_up_tokenization_spaces", None))
    except Exception:  # a tokenizer that cannot serialise itself: not shared
        return None


def share_loaded(nli: NLIModel) -> Dict[str, int]:
    """Make a model just loaded share what it holds equal to a model loaded before it in this process, on the same
    device (the two verifiers of a two-reader definition, ``--model bundled --proxy-model averitec``): the tokenizer
    (and its guard) when its whole pipeline and settings are the same, and every parameter tensor of the same name,
    dtype, shape and values (the AVeriTeC verifier's word embeddings are the bundled verifier's: 11.7M of its 22.7M
    numbers). The numbers do not change (equal values), the memory of the shared part is held once. A model a
    verifier loads is for inference: its tensors are never changed in place (a shared one would change both).

    Returns ``{"tokenizer": 0 or 1, "tensors": n, "elements": numbers shared}``.
    """
    import torch

    out = {"tokenizer": 0, "tensors": 0, "elements": 0}
    earlier = [m for m in (r() for r in _LOADED)
               if m is not None and m is not nli and m.device == nli.device and m.model is not None]
    _LOADED[:] = [r for r in _LOADED if r() is not None] + [weakref.ref(nli)]
    if not earlier:
        return out
    state = _tokenizer_state(nli.tokenizer)
    for m in earlier:
        if state is not None and _tokenizer_state(m.tokenizer) == state:
            nli.tokenizer, nli.guard = m.tokenizer, m.guard
            out["tokenizer"] = 1
            break
    params: Dict[str, list] = {}
    for m in earlier:
        for name, p in m.model.named_parameters():
            params.setdefault(name, []).append(p)
    with torch.no_grad():
        for name, p in list(nli.model.named_parameters()):
            twin = next((q for q in params.get(name, ()) if q is not p and q.dtype == p.dtype and q.shape == p.shape
                         and q.device == p.device and torch.equal(q, p)), None)
            if twin is None:
                continue
            owner, _, attr = name.rpartition(".")
            setattr(nli.model.get_submodule(owner) if owner else nli.model, attr, twin)
            out["tensors"] += 1
            out["elements"] += p.numel()
    return out


_CLAUSE_END = re.compile(r"(?<=[.!?;])\s+(?=\S)")
#: A reporting frame ("..., the governor said that ..."): what follows it is a claim of its own.
_REPORTING_FRAME = re.compile(r"(?i)\b(?:said|says|stated|states|claimed|claims|added|argued|wrote|announced|"
                              r"reported|tweeted|insisted|suggested|declared|noted|alleged|asserted|posted|"
                              r"explained|told \w+)\s+that\s+")


def clause_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the clauses of a long hypothesis: its sentences (split after ``. ! ? ;``) and,
    inside a sentence, the part before a reporting frame ("X said that") and the reported clause after
    it. A long claim is judged on every clause, each whole where it fits: the reported clause keeps its
    own subject, so a contradiction in the last clause of ~120 words of context is still found
    (token windows cut across it and read the claim as neutral either way).

    >>> t = "After a long rally, the governor said that taxes fell. Jobs rose."
    >>> [t[a:b] for a, b in clause_spans(t)]
    ['After a long rally, the governor said that', 'taxes fell.', 'Jobs rose.']
    """
    cuts = [0] + [m.start() for m in _CLAUSE_END.finditer(text)] + [m.end() for m in _REPORTING_FRAME.finditer(text)]
    cuts = sorted(set(c for c in cuts if 0 <= c < len(text))) + [len(text)]
    spans = []
    for a, b in zip(cuts, cuts[1:]):
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a:
            spans.append((a, b))
    return spans


def aggregate_windows(probs: np.ndarray, policy: str) -> np.ndarray:
    """Aggregate (w, 3) window distributions [entail, neutral, contra] into one distribution.

    ``"max"``: entailment and contradiction maxed over windows, neutral minimised, renormalised;
    ``"mean"``: the mean; ``"truncate"``: the first window.

    >>> aggregate_windows(np.array([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1]]), "max").round(3).tolist()
    [0.8, 0.1, 0.1]

    Raises:
        ValueError: ``probs`` not of shape (w >= 1, 3), or an unknown ``policy``.
    """
    probs = np.asarray(probs, dtype=np.float64)
    if probs.ndim != 2 or probs.shape[1] != 3 or probs.shape[0] == 0:
        raise ValueError(f"probs: expected shape (w>=1, 3), got {probs.shape}")
    if policy == "truncate" or probs.shape[0] == 1:
        return probs[0]
    if policy == "mean":
        return probs.mean(0)
    if policy == "max":
        v = np.array([probs[:, 0].max(), probs[:, 1].min(), probs[:, 2].max()])
        return v / v.sum()
    raise ValueError(f"policy: {policy!r} is not one of {LONG_PREMISE_POLICIES}")


def aggregate_hypothesis_windows(probs: np.ndarray) -> np.ndarray:
    """Join (m, 3) distributions [entail, neutral, contra] of the m parts of one long hypothesis
    (each already aggregated over its premise windows) into one distribution.

    A hypothesis is the conjunction of its parts: it is entailed only when every part is, refuted
    when some part is, unverifiable when some part is. So P(e) = min over parts, P(n) = max,
    P(c) = max, renormalised to sum 1 (the dual of :func:`aggregate_windows` ``"max"``, which joins
    premise windows as a disjunction). One part is returned unchanged.

    >>> aggregate_hypothesis_windows(np.array([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1]])).round(3).tolist()
    [0.1, 0.8, 0.1]

    Raises:
        ValueError: ``probs`` not of shape (m >= 1, 3).
    """
    probs = np.asarray(probs, dtype=np.float64)
    if probs.ndim != 2 or probs.shape[1] != 3 or probs.shape[0] == 0:
        raise ValueError(f"probs: expected shape (m>=1, 3), got {probs.shape}")
    if probs.shape[0] == 1:
        return probs[0]
    v = np.array([probs[:, 0].min(), probs[:, 1].max(), probs[:, 2].max()])
    return v / v.sum()
