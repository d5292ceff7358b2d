"""The learned reading of non-evidence: (claim, question, answer) -> P(class).

A pair's answer is *evidence* when it states something checkable of its own; lazy or gaming text is not: absence
statements, the claim restated, attributed or quoted, verdict words, page boilerplate, placeholders and bare answers.
Listing their phrasings does not generalise, so the reading is learned from many phrasings in families and measured
on families written apart (``benchmarks/robustness/admission.py``, ``benchmarks/results/admission.md``).

Features (:meth:`AdmissionModel.features`), from the bundled all-MiniLM-L6-v2 encoder and the claim's content words:
the embedding of the answer with the claim's words masked (:func:`mask_claim`), ``cos(answer, claim)`` and
``cos(masked answer, claim)``, the share of the claim's content words the answer and the question hold, the
answer's content words (in all and new), whether it holds a number the claim does not, the share masked.

Classifier: multinomial logistic regression on standardised features (scikit-learn at training time, numpy here),
classes ``evidence`` and :data:`NON_EVIDENCE_CLASSES`. A pair is non-evidence when P(evidence) is below the model's
``threshold`` (chosen by cross-validation on the training families, never on the held-out ones).
"""

from __future__ import annotations

import itertools
import json
import re
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from claimalign.words import token_coverage
from ev2r.facts.reading import TextReading, read_text

#: The non-evidence classes of the corpus (``ev2r/training/data/nonevidence/``); ``evidence`` is the other.
NON_EVIDENCE_CLASSES = ("absence", "restatement", "attribution", "verdict", "boilerplate", "question_only",
                        "bare_answer", "claim_part")
#: The bundled model's folder.
MODEL_DIR = Path(__file__).with_name("data") / "admission"
#: The bundled model's name (enters the signature as ``adm``).
MODEL_NAME = "admission-v1"

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NEGATIONS = frozenset({"not", "no", "never", "nor", "without", "neither", "none", "nothing", "t"})


def _reading(text) -> TextReading:
    return text if isinstance(text, TextReading) else read_text(text)


def mask_claim(text, claim) -> str:
    """``text`` with each run of the claim's content words (function words between them included) replaced
    by "something". ``text`` and ``claim``: each a str or its :class:`ev2r.facts.reading.TextReading` (the text's
    pieces, :data:`ev2r.facts.reading.PIECE`, and their content tokens are read there).

    >>> mask_claim("Media outlets claimed that Biden banned fracking.", "Biden banned fracking on federal land.")
    'Media outlets claimed that something.'
    """
    claim_tokens = _reading(claim).content
    out: list[str] = []
    run = False
    pending: list[str] = []  # function words after a claim word: masked if another claim word follows
    for w, tok in _reading(text).pieces:
        if tok and tok <= claim_tokens:
            if not run:
                out.append("something")
            run, pending = True, []
        elif run and not tok and w.isalpha() and w.casefold() not in _NEGATIONS:
            pending.append(w)
        else:
            if run:
                out.extend(pending)
            run, pending = False, []
            out.append(w)
    if run:
        out.extend(pending)
    joined = " ".join(out)
    return re.sub(r"\s+([.,;:!?)\]])", r"\1", re.sub(r"([(\[])\s+", r"\1", joined))


def numbers_in(text: str) -> set:
    """The numbers of ``text``, thousands separators dropped.

    >>> sorted(numbers_in("3,000 people in 2021"))
    ['2021', '3000']
    """
    return {n.replace(",", "") for n in _NUMBER.findall(text)}


def lexical_features(claim, question, answer) -> list[float]:
    """The seven word-level features (module docstring), in order: claim share of the answer, claim share of
    the question, log(1 + answer content words), log(1 + new content words), new number, masked share,
    log(1 + answer words). Each text: a str or its :class:`ev2r.facts.reading.TextReading`."""
    claim, question, answer = _reading(claim), _reading(question), _reading(answer)
    a_tok, c_tok = answer.content, claim.content
    new = a_tok - c_tok - question.content
    pieces = answer.pieces
    masked = 0
    for _, tok in pieces:
        masked += bool(tok and tok <= c_tok)
    new_number = float(bool(numbers_in(answer.text) - numbers_in(claim.text)))
    return [token_coverage(a_tok, c_tok), token_coverage(question.content, c_tok), float(np.log1p(len(a_tok))),
            float(np.log1p(len(new))), new_number, masked / max(1, len(pieces)), float(np.log1p(len(pieces)))]


_ENCODER: list = []  # one sentence encoder per process, shared by every model loaded


def shared_encoder():
    """The sentence encoder every admission model of the process reads with (one
    :class:`claimalign.similarity.EmbeddingSimilarity` of the bundled all-MiniLM-L6-v2, made on first use)."""
    if not _ENCODER:
        from claimalign.similarity.embedding import EmbeddingSimilarity

        _ENCODER.append(EmbeddingSimilarity(batch_size=64))
    return _ENCODER[0]


def model_cache_key(model) -> str:
    """What the caches of :mod:`ev2r.metric.admission` know a model by: its content (:meth:`AdmissionModel.digest`:
    weights and settings) and its sentence encoder (:func:`encoder_cache_key`), never its name alone, which every model
    the project's trainer writes shares (``admission-v1``); a model object without a digest: its class, name and a
    token of the object itself (two such objects never share readings, whatever their names)."""
    digest = getattr(model, "digest", None)
    own = (f"{model.name}@{digest()}" if callable(digest)
           else f"{type(model).__qualname__}:{model.name}#{_token(model)}")
    return f"{own}|{encoder_cache_key(model)}"


def encoder_cache_key(model) -> str:
    """What the caches know a model's sentence encoder by: ``shared`` for the process's shared encoder (a model whose
    ``encoder`` is None reads with it), else the encoder's ``name`` (an :class:`EmbeddingSimilarity` names its
    checkpoint) or, for another object, its class and a token of the object; a model object with no ``encoder``
    attribute encodes its own way, and is known by its own token."""
    if not hasattr(model, "encoder"):
        return f"own:{type(model).__qualname__}#{_token(model)}"
    enc = model.encoder
    if enc is None or enc is shared_encoder():
        return "shared"
    name = getattr(enc, "name", None)
    return name if isinstance(name, str) else f"{type(enc).__qualname__}#{_token(enc)}"


_TOKENS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # an unnamed encoder object -> its token
_NEXT_TOKEN = itertools.count(1)
_HELD: dict = {}  # id -> (object, token) for objects that take no weak reference (held, so the id stays theirs)


def _token(obj) -> int:
    """A number given to ``obj`` once, for as long as it lives (never reused by another object, as an ``id`` can be
    once the object is freed)."""
    try:
        if obj not in _TOKENS:
            _TOKENS[obj] = next(_NEXT_TOKEN)
        return _TOKENS[obj]
    except TypeError:  # unhashable or no weak reference: kept alive here, so that its identity is never reused
        held = _HELD.get(id(obj))
        if held is None or held[0] is not obj:
            held = _HELD[id(obj)] = (obj, next(_NEXT_TOKEN))
        return held[1]


@dataclass
class AdmissionModel:
    """A fitted admission model: standardisation and multinomial logistic-regression weights.

    Attributes:
        classes: class names, ``"evidence"`` first.
        mean, scale: (D,) feature standardisation.
        coef: (C, D) weights; intercept: (C,).
        threshold: P(evidence) below which a pair is non-evidence, in (0, 1).
        scope: where the reading decides: ``"all"`` (the facts, the proxy and the alignments) or ``"proxy"`` (the
            proxy's premises only; :class:`ev2r.metric.scorer.Ev2RScorer`).
        name: the model's name (signature ``adm`` field).
        encoder: the sentence encoder (an object with ``encode(texts) -> (n, 384)`` L2-normalised), loaded on
            first use when None.
        cache: an :class:`ev2r.verifier.cache.DiskCache` the encodings are read from and stored in across runs
            (``build_scorer(cache=DIR)``), or None; not part of the model (its digest, equality and ``save``
            leave it out).
    """

    classes: tuple
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    threshold: float = 0.5
    name: str = MODEL_NAME
    encoder: object = None
    scope: str = "all"
    cache: object = field(default=None, repr=False, compare=False)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(n, 384) L2-normalised sentence embeddings of ``texts`` (the encoder shared by the process)."""
        if self.encoder is None:
            self.encoder = shared_encoder()
        if not texts:
            return np.zeros((0, 384))
        if self.cache is not None:  # each text encoded once across runs (ev2r.verifier.cache)
            return self.cache.encode(self.encoder, list(texts))  # type: ignore[attr-defined]
        return np.asarray(self.encoder.encode(list(texts)), dtype=np.float64)  # type: ignore[attr-defined]

    def features(self, claims: Sequence[str], questions: Sequence[str], answers: Sequence[str]) -> np.ndarray:
        """(n, 393) features of n (claim, question, answer) triples (module docstring). Texts are encoded once
        each (deduplicated)."""
        return self.features_and_vectors(claims, questions, answers)[0]

    def features_and_vectors(self, claims: Sequence[str], questions: Sequence[str],
                             answers: Sequence[str]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """:meth:`features`, with the sentence embedding of every text encoded for them (claims, answers and the
        claim-masked answers; text -> (384,) float64), so that a caller needing an answer's embedding does not
        encode it again."""
        texts = {t: read_text(t) for t in (*claims, *questions, *answers)}  # each text read once
        masked = [mask_claim(texts[a], texts[c]) or "something" for c, a in zip(claims, answers)]
        uniq = sorted(set(masked) | set(answers) | set(claims))
        vecs = dict(zip(uniq, self.encode(uniq)))
        rows = []
        for c, q, a, m in zip(claims, questions, answers, masked):
            e_m, e_a, e_c = vecs[m], vecs[a], vecs[c]
            rows.append(np.concatenate([e_m, [float(e_a @ e_c), float(e_m @ e_c)],
                                        lexical_features(texts[c], texts[q], texts[a])]))
        return np.asarray(rows, dtype=np.float64).reshape(len(rows), -1), vecs

    def proba_from_features(self, x: np.ndarray) -> np.ndarray:
        """(n, C) class probabilities of standardised-on-the-fly features ``x`` (n, D)."""
        z = ((x - self.mean) / self.scale) @ self.coef.T + self.intercept
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(axis=1, keepdims=True)

    def predict_proba(self, claims: Sequence[str], questions: Sequence[str], answers: Sequence[str]) -> np.ndarray:
        """(n, C) class probabilities, rows summing to 1, columns in :attr:`classes` order.

        Raises:
            ValueError: the three sequences differ in length.
        """
        if not (len(claims) == len(questions) == len(answers)):
            raise ValueError(f"claims, questions, answers: expected equal lengths, got {len(claims)}, "
                             f"{len(questions)}, {len(answers)}")
        if not claims:
            return np.zeros((0, len(self.classes)))
        return self.proba_from_features(self.features(claims, questions, answers))

    def digest(self) -> str:
        """The first 10 hex digits of the SHA-256 of what this model computes with: its name, classes, threshold and
        scope (full precision) and its standardisation and weights (as little-endian float64 bytes). Any change of
        a weight or a setting changes it (the signature's ``data`` field, :func:`ev2r.metric.definition.data_digest`);
        a copy of the same model in another folder has the same digest."""
        import hashlib

        h = hashlib.sha256()
        h.update(json.dumps({"name": self.name, "classes": list(self.classes), "threshold": repr(float(self.threshold)),
                             "scope": self.scope}, sort_keys=True).encode("utf-8"))
        for arr in (self.mean, self.scale, self.coef, self.intercept):
            a = np.ascontiguousarray(np.asarray(arr, dtype="<f8"))
            h.update(repr(a.shape).encode("ascii"))
            h.update(a.tobytes())
        return h.hexdigest()[:10]

    def save(self, folder: Path, card: Optional[dict] = None) -> None:
        """Write ``weights.npz`` and ``model.json`` (classes, threshold, name, ``card``) into ``folder``."""
        folder.mkdir(parents=True, exist_ok=True)
        np.savez(folder / "weights.npz", mean=self.mean, scale=self.scale, coef=self.coef, intercept=self.intercept)
        meta = {"name": self.name, "classes": list(self.classes), "threshold": self.threshold, "scope": self.scope,
                **(card or {})}
        (folder / "model.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, folder: Optional[Path] = None) -> "AdmissionModel":
        """The model saved in ``folder`` (default: the bundled :data:`MODEL_DIR`).

        Raises:
            FileNotFoundError: ``weights.npz`` or ``model.json`` missing there.
        """
        folder = Path(folder) if folder is not None else MODEL_DIR
        for name in ("weights.npz", "model.json"):
            if not (folder / name).is_file():
                raise FileNotFoundError(f"admission model: {folder / name} is missing")
        meta = json.loads((folder / "model.json").read_text(encoding="utf-8"))
        w = np.load(folder / "weights.npz")
        return cls(classes=tuple(meta["classes"]), mean=w["mean"], scale=w["scale"], coef=w["coef"],
                   intercept=w["intercept"], threshold=float(meta["threshold"]), name=str(meta["name"]),
                   scope=str(meta.get("scope", "all")))
