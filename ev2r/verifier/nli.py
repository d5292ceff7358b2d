"""The verifier: (premise, hypothesis) pairs -> P(entailment, neutral, contradiction).

This is the one place that loads NLI weights, lazily, on first use (never at import).

* :class:`Verifier` -- the protocol every backend (and ``claimalign``'s NLI similarity) uses.
* :class:`HFNLIVerifier` -- any Hugging Face sequence-classification NLI checkpoint, by hub id
  (for users with a network, e.g. ``MoritzLaurer/DeBERTa-v3-large-mnli-fever-anli-ling-wanli``,
  the kind of model the Ev2R paper used) or local path. The label order is read from
  ``config.id2label``; a checkpoint whose labels do not name entailment/neutral/contradiction
  needs an explicit ``label_order``. Two-way checkpoints (entailment / not_entailment) are
  rejected with a clear error.
* :func:`load_verifier` -- ``"bundled"`` (the default shipped in ``ev2r/verifier/models``), a path or id.

Batching: pairs are deduplicated, sorted by length and cut into batches (as bert_score does),
then scattered back into input order.

Long premises: when ``premise + hypothesis`` exceeds the model's window (``max_length``
tokens), the premise is cut into token windows of ``max_length - len(hypothesis) - 3`` tokens
with a ``stride`` overlap, each window is scored against the hypothesis, and the windows are
aggregated by ``long_premise``:

* ``"max"`` (default): entailment and contradiction are the maximum over windows, neutral the
  minimum, renormalised to sum 1 -- a hypothesis is supported (refuted) when *some* part of the
  premise supports (refutes) it (SummaC / AlignScore style chunking);
* ``"mean"``: the mean distribution over windows;
* ``"truncate"``: only the first window.
The choice was measured on WiCE's long web-page premises (``benchmarks/long_premise.py``).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Optional, Protocol, Sequence, runtime_checkable

import numpy as np

from ev2r.labels import NLILabel, normalize_nli_label

NLI_ORDER = (NLILabel.ENTAILMENT, NLILabel.NEUTRAL, NLILabel.CONTRADICTION)
LONG_PREMISE_POLICIES = ("max", "mean", "truncate")
BUNDLED_VERIFIER_NAME = "ev2r-minilm-nli"
BUNDLED_DIR = Path(__file__).parent / "models" / "minilm-nli"


@runtime_checkable
class Verifier(Protocol):
    """NLI verifier protocol.

    ``predict(premises, hypotheses)`` takes two equal-length sequences of strings (n >= 0) and
    returns a float array of shape (n, 3): columns P(entailment), P(neutral), P(contradiction),
    each row summing to 1. ``name`` identifies the model (and its revision/hash) in signatures.
    """

    name: str

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray: ...


def _dir_fingerprint(path: Path) -> str:
    """First 10 hex digits of a SHA-256 over the weight files of a local checkpoint."""
    h = hashlib.sha256()
    for f in sorted(path.glob("*.safetensors")) + sorted(path.glob("*.bin")):
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()[:10]


class HFNLIVerifier:
    """Hugging Face NLI cross-encoder verifier.

    Args:
        model: hub id or local directory of an ``AutoModelForSequenceClassification`` checkpoint.
        device: torch device string (``"cpu"``, ``"cuda"``).
        batch_size: pairs per forward pass (>= 1).
        max_length: token window; default the tokenizer's ``model_max_length`` capped at 512.
        long_premise: ``"max"``, ``"mean"`` or ``"truncate"`` (module docstring).
        stride: token overlap between premise windows (>= 0).
        label_order: explicit class names per output index when ``config.id2label`` does not
            name the NLI classes (e.g. ``("entailment", "neutral", "contradiction")``).
        revision: hub revision (commit/tag) for reproducibility; recorded in ``name``.
        name: override for the signature name.
        quantize: CPU only: int8 dynamic quantisation of the Linear layers
            (``torch.ao.quantization.quantize_dynamic``), faster and slightly different numbers;
            recorded in ``name`` as ``+int8``. Same as ``dtype="int8"``.
        dtype: compute precision: ``"fp32"``, ``"bf16"`` (weights cast to bfloat16: on CPUs with
            AVX512-BF16/AMX and on CUDA the matrix products run natively in bf16), ``"int8"`` (CPU
            dynamic quantisation) or ``"auto"`` (bf16 where native, else fp32; :func:`resolve_dtype`).
            The resolved dtype is part of ``name`` (``+bf16``, ``+int8``; fp32 adds nothing), so it
            reaches the metric signature.

    Raises:
        ValueError: bad argument values, or a checkpoint whose labels cannot be mapped to
            entailment/neutral/contradiction (raised on first use, when the config is read).
    """

    def __init__(self, model: str, device: str = "cpu", batch_size: int = 32, max_length: Optional[int] = None,
                 long_premise: str = "max", stride: int = 32, label_order: Optional[Sequence[str]] = None,
                 revision: Optional[str] = None, name: Optional[str] = None, quantize: bool = False,
                 dtype: str = "fp32"):
        if long_premise not in LONG_PREMISE_POLICIES:
            raise ValueError(f"long_premise: {long_premise!r} is not one of {LONG_PREMISE_POLICIES}")
        if batch_size < 1:
            raise ValueError(f"batch_size: must be >= 1, got {batch_size}")
        if stride < 0:
            raise ValueError(f"stride: must be >= 0, got {stride}")
        if max_length is not None and max_length < 16:
            raise ValueError(f"max_length: must be >= 16 tokens, got {max_length}")
        self.model_id = str(model)
        self.device = device
        self.batch_size = batch_size
        self.max_length = max_length
        self.long_premise = long_premise
        self.stride = stride
        self.label_order = tuple(label_order) if label_order is not None else None
        self.revision = revision
        self._name = name
        self._model = None
        self._tokenizer = None
        self._columns: Optional[list[int]] = None
        self.dtype = resolve_dtype("int8" if quantize else dtype, device)
        if self.dtype == "int8" and not str(device).startswith("cpu"):
            raise ValueError(f"dtype: int8 dynamic quantisation runs on device='cpu' only, not {device!r}")
        self.quantize = self.dtype == "int8"
        self.n_model_pairs = 0  # forward-pass pairs so far (after dedup and windowing)
        self.n_model_tokens = 0  # tokens in those pairs (padding excluded)
        self.n_padded_tokens = 0  # tokens the model computed on (padding included)

    @property
    def name(self) -> str:
        suffix = "" if self.dtype == "fp32" else f"+{self.dtype}"
        if self._name:
            return self._name + suffix
        p = Path(self.model_id)
        if p.is_dir():
            return f"{p.name}@{_dir_fingerprint(p)}{suffix}"
        return f"{self.model_id}@{self.revision or 'main'}{suffix}"

    # -- loading ---------------------------------------------------------------------------
    def _load(self) -> None:
        if self._model is not None:
            return
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        from transformers.utils import logging as hf_logging

        kw = {"revision": self.revision} if self.revision else {}
        bars = hf_logging.is_progress_bar_enabled()
        hf_logging.disable_progress_bar()
        try:
            self._tokenizer = AutoTokenizer.from_pretrained(self.model_id, **kw)
            from claimalign.textio import guard_special_tokens

            self._guard = guard_special_tokens(self._tokenizer)  # "[SEP]" in the data stays text
            model = AutoModelForSequenceClassification.from_pretrained(self.model_id, **kw)
        finally:
            if bars:
                hf_logging.enable_progress_bar()
        self._columns = self._label_columns(model.config)
        # fp16 weights on disk; computed in fp32, bf16 or int8 as asked
        model = model.to(torch.bfloat16 if self.dtype == "bf16" else torch.float32)
        model.to(self.device).eval()
        if self.dtype == "int8":
            model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
        pos_max = getattr(model.config, "max_position_embeddings", None)
        if self.max_length is not None and pos_max and self.max_length > pos_max:
            raise ValueError(f"max_length: {self.max_length} tokens exceeds what {self.model_id} can read "
                             f"(max_position_embeddings = {pos_max}); use at most {pos_max}")
        if self.max_length is None:
            tok_max = getattr(self._tokenizer, "model_max_length", 512) or 512
            self.max_length = int(min(tok_max, pos_max or 512, 512))
        self._model = model

    def _label_columns(self, config) -> list[int]:
        """Indices of the model's outputs for (entailment, neutral, contradiction)."""
        n = int(config.num_labels)
        if self.label_order is not None:
            names = list(self.label_order)
            if len(names) != n:
                raise ValueError(f"label_order: has {len(names)} names but the model has {n} outputs")
        else:
            names = [config.id2label[i] for i in range(n)]
        try:
            labels = [normalize_nli_label(x, field=f"config.id2label[{i}]") for i, x in enumerate(names)]
        except ValueError as e:
            raise ValueError(f"{self.model_id}: {e}. Pass label_order=(...) naming each output, "
                             "e.g. ('entailment', 'neutral', 'contradiction')") from None
        if n != 3 or set(labels) != set(NLI_ORDER):
            raise ValueError(f"{self.model_id}: a 3-way NLI model is required (entailment, neutral, contradiction); "
                             f"its labels are {names}")
        return [labels.index(x) for x in NLI_ORDER]

    # -- inference ---------------------------------------------------------------------------
    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """(n, 3) float64 [P(entailment), P(neutral), P(contradiction)] for n (premise, hypothesis)
        strings. Texts are NFC-normalised with one line ending, and a special-token string in them
        ("[SEP]", "<s>") is tokenised as text, never as the control token.

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
        self._load()
        from claimalign.textio import normalize_text

        guard = getattr(self, "_guard", None) or (lambda t: t)
        premises = [guard(normalize_text(p)) for p in premises]
        hypotheses = [guard(normalize_text(h)) for h in hypotheses]
        unique: dict[tuple[str, str], int] = {}
        for p, h in zip(premises, hypotheses):
            unique.setdefault((p, h), len(unique))
        keys = list(unique)
        probs = self._predict_unique(keys)
        return np.stack([probs[unique[(p, h)]] for p, h in zip(premises, hypotheses)])

    def _windows(self, offsets: list[tuple[int, int]], text: str, hyp_len: int) -> list[str]:
        """Cut a premise into text windows of at most ``budget`` tokens (token offsets give the
        character spans, so any tokenizer works)."""
        budget = max(8, self.max_length - hyp_len - self._n_special)
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

    def _predict_unique(self, keys: list[tuple[str, str]]) -> np.ndarray:
        import torch

        tok = self._tokenizer
        if not hasattr(self, "_n_special"):
            self._n_special = tok.num_special_tokens_to_add(pair=True)
        # verbose=False: premises longer than the model are expected here (they are windowed below)
        prem = tok([k[0] for k in keys], add_special_tokens=False, return_offsets_mapping=True, verbose=False)
        hyp_lens = [len(x) for x in tok([k[1] for k in keys], add_special_tokens=False, verbose=False)["input_ids"]]
        jobs: list[tuple[int, str, str]] = []  # (key index, premise window text, hypothesis)
        for k, (key, offsets, h_len) in enumerate(zip(keys, prem["offset_mapping"], hyp_lens)):
            h_len = min(h_len, self.max_length // 2)  # an over-long hypothesis is cut later
            for w in self._windows(list(offsets), key[0], h_len):
                jobs.append((k, w, key[1]))
        order = sorted(range(len(jobs)), key=lambda j: len(jobs[j][1]) + len(jobs[j][2]))
        out = np.zeros((len(jobs), 3), dtype=np.float64)
        with torch.inference_mode():
            for s in range(0, len(order), self.batch_size):
                idx = order[s:s + self.batch_size]
                batch = tok([jobs[j][1] for j in idx], [jobs[j][2] for j in idx], truncation="longest_first",
                            max_length=self.max_length, padding=True, return_tensors="pt").to(self.device)
                logits = self._model(**batch).logits.float()
                self.n_model_tokens += int(batch["attention_mask"].sum())
                self.n_padded_tokens += int(batch["attention_mask"].numel())
                out[idx] = logits.softmax(-1)[:, self._columns].cpu().numpy()
        self.n_model_pairs += len(jobs)
        result = np.zeros((len(keys), 3), dtype=np.float64)
        groups: dict[int, list[int]] = {}
        for j, (k, _, _) in enumerate(jobs):
            groups.setdefault(k, []).append(j)
        for k, js in groups.items():
            result[k] = aggregate_windows(out[js], self.long_premise)
        return result


def check_probabilities(probs, n: int, source: str = "verifier") -> np.ndarray:
    """Validate what a verifier's ``predict`` returned for ``n`` pairs: shape (n, 3), finite,
    each value in [0, 1] and each row summing to 1 (tolerance 1e-3). Returns a float64 copy.
    One rule for the whole project: :func:`claimalign.similarity.nli.check_probabilities`.

    Raises:
        ValueError: naming ``source`` and what is wrong -- a NaN or an entailment of 1.7 must never
            become a support decision or a proxy score.
    """
    from claimalign.similarity.nli import check_probabilities as check

    return check(probs, n, source)


def aggregate_windows(probs: np.ndarray, policy: str) -> np.ndarray:
    """Aggregate (w, 3) window distributions [entail, neutral, contra] into one distribution.

    ``"max"``: entailment and contradiction maxed over windows, neutral minimised, renormalised;
    ``"mean"``: the mean; ``"truncate"``: the first window.

    >>> aggregate_windows(np.array([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1]]), "max").round(3).tolist()
    [0.8, 0.1, 0.1]
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


def bundled_max_length(default: int = 128, folder: Path = BUNDLED_DIR) -> int:
    """The token window a checkpoint made by ``ev2r.training.trainer`` (default: the bundled verifier) was
    fine-tuned with (``args.max_length`` of its ``training_meta.json``), else ``default``."""
    import json

    try:
        meta = json.loads((folder / "training_meta.json").read_text(encoding="utf-8"))
        return int(meta["args"]["max_length"])
    except (OSError, ValueError, KeyError, TypeError):
        return default


def load_verifier(spec: str = "bundled", device: str = "cpu", **kwargs) -> HFNLIVerifier:
    """Build a verifier from a spec: ``"bundled"`` (the package's own MiniLM NLI model), a local
    checkpoint directory, or a Hugging Face hub id (needs a network or a filled HF cache).
    ``kwargs`` go to :class:`HFNLIVerifier`.

    The bundled verifier, and any local checkpoint trained by ``ev2r.training.trainer`` (it has a
    ``training_meta.json``), default to the token window they were fine-tuned with (128): their
    position embeddings past it were never trained for NLI, and longer windows measurably hurt
    (``benchmarks/results/long_premise_window*.md``). Other checkpoints use their tokenizer's length.

    Raises:
        FileNotFoundError: ``"bundled"`` requested but the weights are not in the package, or
            ``spec`` is a path (starts with ``/``, ``./``, ``../`` or ``~``) to no folder.
    """
    if spec in ("bundled", "default", BUNDLED_VERIFIER_NAME):
        if not (BUNDLED_DIR / "config.json").exists():
            raise FileNotFoundError(f"the bundled verifier is missing from {BUNDLED_DIR}; reinstall ev2r "
                                    "or pass --model <checkpoint>")
        kwargs.setdefault("name", f"{BUNDLED_VERIFIER_NAME}@{_dir_fingerprint(BUNDLED_DIR)}")
        kwargs.setdefault("max_length", bundled_max_length())
        return HFNLIVerifier(str(BUNDLED_DIR), device=device, **kwargs)
    if spec.startswith(("/", "./", "../", "~", ".\\")) and not Path(spec).expanduser().is_dir():
        raise FileNotFoundError(f"model: no checkpoint folder at {spec} (expected 'bundled', a local folder "
                                "with config.json and weights, or a Hugging Face hub id such as org/name)")
    if Path(spec).is_dir() and (Path(spec) / "training_meta.json").exists():
        kwargs.setdefault("max_length", bundled_max_length(folder=Path(spec)))
    return HFNLIVerifier(spec, device=device, **kwargs)


def default_device() -> str:
    """``EV2R_DEVICE`` if set, else ``cuda`` when available, else ``cpu``."""
    if os.environ.get("EV2R_DEVICE"):
        return os.environ["EV2R_DEVICE"]
    try:
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    except ImportError:  # pragma: no cover
        return "cpu"


def cpu_has_fast_bf16() -> bool:
    """True when this CPU computes bf16 matrix products natively (x86 ``avx512_bf16`` or
    ``amx_bf16`` in ``/proc/cpuinfo``): there bf16 matrix products measured 2.5x fp32 (4096x384 @
    384x1536, 124-132 vs 49-53 GFLOP/s on 2 cores); elsewhere oneDNN emulates bf16 and it is slower."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return "avx512_bf16" in flags or "amx_bf16" in flags
    except OSError:
        return False
    return False


def resolve_dtype(dtype: str, device: str) -> str:
    """``"auto"`` -> ``"bf16"`` on CUDA or on a CPU with native bf16 (:func:`cpu_has_fast_bf16`), else
    ``"fp32"``; any other value is returned after checking it is one of ``fp32``, ``bf16``, ``int8``.

    Raises:
        ValueError: an unknown ``dtype``, naming the allowed values.
    """
    allowed = ("auto", "fp32", "bf16", "int8")
    if dtype not in allowed:
        raise ValueError(f"dtype: {dtype!r} is not one of {', '.join(allowed)}")
    if dtype != "auto":
        return dtype
    return "bf16" if str(device).startswith("cuda") or cpu_has_fast_bf16() else "fp32"
