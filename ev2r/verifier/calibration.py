"""Calibration of a verifier's P(entailment): the graded support of Ev2R's reference-based part.

A fact's graded support is the calibrated probability that a premise entails it (the soft-support reading of Akhtar
et al. 2024, sec. 3.1). Two maps are fitted on held-out NLI pairs (never on human ratings) and the one with the lower
held-out NLL is kept (``scripts/calibrate_verifier.py``): ``temperature`` (Guo et al. 2017, sec. 4.2:
``p_T(k) = p(k)^(1/T) / sum_j p(j)^(1/T)``, T fitted by :func:`fit_temperature`) and ``isotonic`` (Zadrozny & Elkan
2002: a non-decreasing step map of P(entailment), interpolated, clipped to [1e-4, 1 - 1e-4]).

The map lives beside the weights in ``<checkpoint>/calibration.json`` (:data:`CALIBRATION_FILE`, schema in
:func:`validate_calibration`), names the weights' fingerprint and is refused for other weights. Its
:attr:`Calibration.id` (method, parameter, 8 hex digits of a SHA-256 over method, parameters and weights) is the
signature's ``cal`` field.

    >>> cal = Calibration("temperature", {"temperature": 2.0}, weights="abc")
    >>> cal.entailment(np.array([[0.64, 0.32, 0.04]])).round(4).tolist()   # sqrt: 0.8, 0.566, 0.2 -> 0.8 / 1.566
    [0.511]
    >>> cal.id
    'temp-2@d4a696b4'
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

__all__ = ["UncalibratedWarning", "CALIBRATION_FILE", "SCHEMA_VERSION", "METHODS", "Calibration", "temperature_scale",
           "fit_temperature",
           "fit_isotonic", "expected_calibration_error", "binary_nll", "multiclass_nll", "validate_calibration",
           "read_calibration", "write_calibration", "calibration_for"]

#: The file name of a checkpoint's calibration, in the checkpoint folder.
CALIBRATION_FILE = "calibration.json"
#: Version of the JSON layout (:func:`validate_calibration`).
SCHEMA_VERSION = 1
#: Calibration maps this module fits and applies.
METHODS = ("temperature", "isotonic")
#: Isotonic outputs are kept in [EPS, 1 - EPS] (a step map reaches exact 0 and 1).
EPS = 1e-4
_SHORT = {"temperature": "temp", "isotonic": "iso"}


class UncalibratedWarning(UserWarning):
    """A verifier has no usable calibration: the graded scores of a run are None (the reason is the message)."""


def temperature_scale(probs: np.ndarray, temperature: float) -> np.ndarray:
    """(n, k) distributions with their logits divided by ``temperature``: ``p^(1/T)`` renormalised.

    A probability of 0 stays 0 (a row that was 0 everywhere but one class stays one-hot).

    >>> temperature_scale(np.array([[0.9, 0.1]]), 1.0).round(6).tolist()
    [[0.9, 0.1]]
    >>> temperature_scale(np.array([[0.9, 0.1]]), 2.0).round(4).tolist()   # 0.949 / (0.949 + 0.316)
    [[0.75, 0.25]]

    Raises:
        ValueError: ``temperature`` not a finite number > 0, or ``probs`` not a 2-d array of
            values in [0, 1].
    """
    if not (isinstance(temperature, (int, float)) and math.isfinite(temperature) and temperature > 0):
        raise ValueError(f"temperature: expected a finite number > 0, got {temperature!r}")
    p = np.asarray(probs, dtype=np.float64)
    if p.ndim != 2 or not np.all((p >= 0) & (p <= 1)):
        raise ValueError(f"probs: expected an (n, k) array of probabilities in [0, 1], got shape {p.shape}")
    with np.errstate(divide="ignore"):
        logp = np.where(p > 0, np.log(np.where(p > 0, p, 1.0)), -np.inf) / float(temperature)
    logp -= logp.max(axis=1, keepdims=True)
    q = np.exp(logp)
    return q / q.sum(axis=1, keepdims=True)


def multiclass_nll(probs: np.ndarray, labels: "Sequence[int] | np.ndarray") -> float:
    """Mean negative log-likelihood ``-mean log p[i, labels[i]]`` (probabilities clipped at 1e-12)."""
    p = np.asarray(probs, dtype=np.float64)
    y = np.asarray(labels, dtype=int)
    return float(-np.mean(np.log(np.clip(p[np.arange(len(y)), y], 1e-12, 1.0))))


def binary_nll(p: Sequence[float], y: Sequence[int]) -> float:
    """Mean negative log-likelihood of binary outcomes ``y`` (0/1) under probabilities ``p``
    (clipped to [1e-12, 1 - 1e-12]).

    >>> round(binary_nll([0.5, 0.5], [1, 0]), 4)
    0.6931
    """
    pa = np.clip(np.asarray(p, dtype=np.float64), 1e-12, 1 - 1e-12)
    ya = np.asarray(y, dtype=np.float64)
    return float(-np.mean(ya * np.log(pa) + (1 - ya) * np.log(1 - pa)))


def expected_calibration_error(p: Sequence[float], y: Sequence[int], n_bins: int = 15) -> float:
    """Expected calibration error of binary probabilities (Guo et al. 2017, eq. 3; Naeini et al.
    2015): ``sum_b |B_b| / n * |mean(y in B_b) - mean(p in B_b)|`` over ``n_bins`` equal-width
    bins of [0, 1] (bin b holds (b/n_bins, (b+1)/n_bins], the first also 0). In [0, 1].

    >>> expected_calibration_error([0.9, 0.9, 0.1, 0.1], [1, 0, 0, 0], n_bins=10)   # |0.5-0.9|/2 + |0-0.1|/2
    0.25

    Raises:
        ValueError: empty input, unequal lengths or ``n_bins`` < 1.
    """
    pa = np.asarray(p, dtype=np.float64)
    ya = np.asarray(y, dtype=np.float64)
    if len(pa) == 0 or len(pa) != len(ya) or n_bins < 1:
        raise ValueError(f"expected_calibration_error: need equal non-empty p and y and n_bins >= 1 "
                         f"(got {len(pa)}, {len(ya)}, {n_bins})")
    idx = np.clip(np.ceil(pa * n_bins).astype(int) - 1, 0, n_bins - 1)
    total = 0.0
    for b in range(n_bins):
        m = idx == b
        if m.any():
            total += m.sum() / len(pa) * abs(ya[m].mean() - pa[m].mean())
    return round(float(total), 12)


def fit_temperature(probs: np.ndarray, labels: Sequence[int], bounds: tuple[float, float] = (0.05, 20.0)) -> float:
    """The temperature T minimising the 3-class NLL of :func:`temperature_scale` ``(probs, T)`` on
    (n, k) distributions with true class indices ``labels`` (Guo et al. 2017, sec. 4.2), by
    ``scipy.optimize.minimize_scalar`` (bounded) on log T within ``bounds``.

    Raises:
        ValueError: empty or mismatched input, a label outside [0, k), or bad ``bounds``.
    """
    from scipy.optimize import minimize_scalar

    p = np.asarray(probs, dtype=np.float64)
    y = np.asarray(labels, dtype=int)
    if p.ndim != 2 or len(p) == 0 or len(p) != len(y):
        raise ValueError(f"fit_temperature: need an (n>=1, k) array and n labels, got {p.shape} and {len(y)}")
    if y.min() < 0 or y.max() >= p.shape[1]:
        raise ValueError(f"fit_temperature: labels must be class indices in [0, {p.shape[1]}), "
                         f"got {y.min()}..{y.max()}")
    lo, hi = bounds
    if not (0 < lo < hi):
        raise ValueError(f"fit_temperature: bounds must satisfy 0 < low < high, got {bounds!r}")
    res = minimize_scalar(lambda t: multiclass_nll(temperature_scale(p, math.exp(t)), y),
                          bounds=(math.log(lo), math.log(hi)), method="bounded", options={"xatol": 1e-5})
    return float(math.exp(res.x))


def fit_isotonic(p: Sequence[float], y: Sequence[int]) -> tuple[list[float], list[float]]:
    """Breakpoints ``(x, y)`` of the non-decreasing map of P(entailment) to P(label == entailment)
    (scikit-learn ``IsotonicRegression(out_of_bounds="clip")``, pool-adjacent-violators), for
    :class:`Calibration` ``("isotonic", {"x": x, "y": y})``.

    Raises:
        ValueError: empty or mismatched input.
    """
    from sklearn.isotonic import IsotonicRegression

    pa = np.asarray(p, dtype=np.float64)
    ya = np.asarray(y, dtype=np.float64)
    if len(pa) == 0 or len(pa) != len(ya):
        raise ValueError(f"fit_isotonic: need equal non-empty p and y, got {len(pa)} and {len(ya)}")
    iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(pa, ya)
    return ([round(float(v), 6) for v in iso.X_thresholds_], [round(float(v), 6) for v in iso.y_thresholds_])


@dataclass(frozen=True)
class Calibration:
    """A fitted calibration map of a verifier's P(entailment).

    Args:
        method: ``"temperature"`` (``params = {"temperature": T}``, T > 0) or ``"isotonic"``
            (``params = {"x": [...], "y": [...]}``: non-decreasing breakpoints, x in [0, 1], y in [0, 1]).
        params: the map's parameters (above).
        weights: fingerprint of the weights it was fitted for (:func:`ev2r.verifier.nli.dir_fingerprint`).
        meta: everything else the JSON file records (data, pair counts, held-out ECE/NLL).

    Raises:
        ValueError: an unknown method or parameters that do not fit it (naming them).
    """

    method: str
    params: dict
    weights: str = ""
    meta: dict = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self):
        _check_params(self.method, self.params, "Calibration")

    @property
    def id(self) -> str:
        """``temp-<T>@<hash>`` or ``iso-<n breakpoints>@<hash>``; hash = 8 hex digits of SHA-256 over
        method, parameters and weights (what the signature's ``cal`` field holds)."""
        blob = json.dumps({"method": self.method, "params": self.params, "weights": self.weights}, sort_keys=True)
        digest = hashlib.sha256(blob.encode("utf-8")).hexdigest()[:8]
        detail = (f"{self.params['temperature']:.3g}" if self.method == "temperature" else f"{len(self.params['x'])}")
        return f"{_SHORT[self.method]}-{detail}@{digest}"

    def entailment(self, probs: np.ndarray) -> np.ndarray:
        """Calibrated P(entailment) (n,) of (n, 3) [entailment, neutral, contradiction] distributions."""
        p = np.asarray(probs, dtype=np.float64)
        if p.ndim != 2 or p.shape[1] != 3:
            raise ValueError(f"probs: expected shape (n, 3), got {p.shape}")
        if len(p) == 0:
            return np.zeros(0)
        if self.method == "temperature":
            return temperature_scale(p, float(self.params["temperature"]))[:, 0]
        out = np.interp(p[:, 0], self.params["x"], self.params["y"])
        return np.clip(out, EPS, 1 - EPS)

    def to_dict(self) -> dict:
        """The JSON object written to :data:`CALIBRATION_FILE` (:func:`validate_calibration`)."""
        return {"schema": SCHEMA_VERSION, "id": self.id, "method": self.method, "params": self.params,
                "weights": self.weights, **self.meta}


def _check_params(method: Any, params: Any, where: str) -> None:
    if method not in METHODS:
        raise ValueError(f"{where}: method {method!r} is not one of {METHODS}")
    if not isinstance(params, dict):
        raise ValueError(f"{where}: params must be an object, got {type(params).__name__}")
    if method == "temperature":
        t = params.get("temperature")
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not (math.isfinite(t) and t > 0):
            raise ValueError(f"{where}: params.temperature must be a finite number > 0, got {t!r}")
        return
    x, y = params.get("x"), params.get("y")
    if not (isinstance(x, list) and isinstance(y, list) and len(x) == len(y) and len(x) >= 1):
        raise ValueError(f"{where}: isotonic params.x and params.y must be lists of equal length >= 1")
    for name, seq in (("x", x), ("y", y)):
        if any(isinstance(v, bool) or not isinstance(v, (int, float)) or not (0.0 <= v <= 1.0) for v in seq):
            raise ValueError(f"{where}: isotonic params.{name} must hold numbers in [0, 1]")
        if any(b < a for a, b in zip(seq, seq[1:])):
            raise ValueError(f"{where}: isotonic params.{name} must be non-decreasing")


def validate_calibration(d: Any, source: str = "calibration") -> Calibration:
    """A :class:`Calibration` from the JSON object of a calibration file.

    Schema (version 1): ``schema`` (1), ``method`` (one of :data:`METHODS`), ``params`` (see
    :class:`Calibration`), ``weights`` (string: the weights' fingerprint), ``fitted_on`` (object
    with ``data``: list of source names, ``n_pairs``: int >= 1), ``heldout`` (object with
    ``n_pairs`` and ``before`` / ``after``, each ``{"ece": float, "nll": float}``); other keys
    (``id``, ``candidates``, ``command``, ...) are kept in ``meta``.

    Raises:
        ValueError: a missing or wrong field, naming ``source`` and the field.
    """
    if not isinstance(d, dict):
        raise ValueError(f"{source}: expected a JSON object, got {type(d).__name__}")
    if d.get("schema") != SCHEMA_VERSION:
        raise ValueError(f"{source}: field 'schema' must be {SCHEMA_VERSION}, got {d.get('schema')!r}")
    for key, kind in (("method", str), ("params", dict), ("weights", str), ("fitted_on", dict), ("heldout", dict)):
        if not isinstance(d.get(key), kind):
            raise ValueError(f"{source}: field {key!r} must be a {kind.__name__}, got {d.get(key)!r}")
    fitted = d["fitted_on"]
    if not isinstance(fitted.get("data"), list) or not isinstance(fitted.get("n_pairs"), int) or fitted["n_pairs"] < 1:
        raise ValueError(f"{source}: field 'fitted_on' needs 'data' (list of sources) and 'n_pairs' (int >= 1)")
    held = d["heldout"]
    for part in ("before", "after"):
        v = held.get(part)
        if not (isinstance(v, dict) and all(isinstance(v.get(m), (int, float)) for m in ("ece", "nll"))):
            raise ValueError(f"{source}: field 'heldout.{part}' must be an object with numbers 'ece' and 'nll'")
    _check_params(d["method"], d["params"], source)
    meta = {k: v for k, v in d.items() if k not in ("schema", "id", "method", "params", "weights")}
    cal = Calibration(d["method"], d["params"], weights=d["weights"], meta=meta)
    if "id" in d and d["id"] != cal.id:
        raise ValueError(f"{source}: field 'id' is {d['id']!r} but method/params/weights give {cal.id!r}")
    return cal


def read_calibration(path: str | Path) -> Calibration:
    """The calibration in a JSON file (:func:`validate_calibration`).

    Raises:
        OSError: the file cannot be read; ValueError: not JSON or not the schema (naming the file).
    """
    path = Path(path)
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not valid JSON ({e})") from e
    return validate_calibration(d, str(path))


def write_calibration(cal: Calibration, path: str | Path) -> None:
    """Write ``cal`` as JSON to ``path`` (a temporary file beside it, then renamed into place).

    Raises:
        ValueError: the object does not pass :func:`validate_calibration` (nothing is written).
    """
    d = cal.to_dict()
    validate_calibration(json.loads(json.dumps(d)), str(path))
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(d, fh, indent=1)
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def calibration_for(verifier: Any) -> tuple[Optional[Calibration], Optional[str]]:
    """The calibration of a verifier: ``<checkpoint folder>/calibration.json`` when the verifier's
    ``model_id`` is a local folder (the bundled verifier's is) and the file names the folder's
    weights. Returns ``(calibration, None)`` or ``(None, reason)``: no local folder, no file, a file
    that does not pass the schema, or one fitted for other weights. Never raises for these."""
    from ev2r.verifier.nli import dir_fingerprint

    name = getattr(verifier, "name", type(verifier).__name__)
    folder = getattr(verifier, "model_id", None)
    if not folder or not Path(str(folder)).is_dir():
        return None, (f"verifier {name} has no local checkpoint folder with a {CALIBRATION_FILE} "
                      "(fit one with scripts/calibrate_verifier.py)")
    path = Path(str(folder)) / CALIBRATION_FILE
    if not path.is_file():
        return None, f"no calibration for verifier {name}: {path} missing (fit one with scripts/calibrate_verifier.py)"
    try:
        cal = read_calibration(path)
    except (OSError, ValueError) as e:
        return None, f"calibration of verifier {name} unusable: {e}"
    fp = dir_fingerprint(Path(str(folder)))
    if cal.weights != fp:
        return None, f"{path} was fitted for weights {cal.weights}, the folder holds {fp}: refit it"
    return cal, None
