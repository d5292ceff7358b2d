"""ev2r.verifier.calibration: temperature / isotonic fits, ECE, the JSON schema, lookup beside weights."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from ev2r.verifier.calibration import (CALIBRATION_FILE, Calibration, binary_nll, calibration_for,
                                       expected_calibration_error, fit_isotonic, fit_temperature, multiclass_nll,
                                       read_calibration, temperature_scale, validate_calibration,
                                       write_calibration)
from ev2r.verifier.loading import BUNDLED_DIR
from ev2r.verifier.nli import dir_fingerprint


def _overconfident(n=4000, seed=0, t_true=2.0):
    """Labels drawn from softmax(z), reported probabilities softmax(t_true * z): over-confident by
    t_true, so the NLL-optimal temperature is t_true."""
    rng = np.random.default_rng(seed)
    z = rng.normal(0, 1.5, size=(n, 3))
    true_p = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    labels = np.array([rng.choice(3, p=p) for p in true_p])
    reported = np.exp(t_true * z) / np.exp(t_true * z).sum(1, keepdims=True)
    return reported, labels


def test_temperature_scale_hand_values():
    # [0.64, 0.32, 0.04] ^ (1/2) = [0.8, 0.5657, 0.2], sum 1.5657
    q = temperature_scale(np.array([[0.64, 0.32, 0.04]]), 2.0)
    assert q[0].tolist() == pytest.approx([0.8 / 1.565685, 0.565685 / 1.565685, 0.2 / 1.565685], abs=1e-6)
    # T = 1 is the identity; a zero stays zero
    p = np.array([[0.7, 0.3, 0.0]])
    assert temperature_scale(p, 1.0)[0].tolist() == pytest.approx(p[0].tolist())
    assert temperature_scale(p, 3.0)[0, 2] == 0.0
    with pytest.raises(ValueError, match="temperature"):
        temperature_scale(p, 0.0)


def test_fit_temperature_recovers_overconfidence():
    probs, labels = _overconfident(t_true=2.0)
    t = fit_temperature(probs, labels)
    assert 1.8 < t < 2.2  # over-confident by 2 -> T close to 2, and certainly > 1
    assert multiclass_nll(temperature_scale(probs, t), labels) < multiclass_nll(probs, labels)
    # well-calibrated probabilities give T close to 1
    probs1, labels1 = _overconfident(t_true=1.0, seed=1)
    assert 0.9 < fit_temperature(probs1, labels1) < 1.1


def test_fit_temperature_errors():
    with pytest.raises(ValueError, match="labels must be class indices"):
        fit_temperature(np.array([[0.5, 0.5, 0.0]]), [3])
    with pytest.raises(ValueError, match="need an"):
        fit_temperature(np.zeros((0, 3)), [])


def test_ece_and_nll_hand_values():
    # bin (0.8, 0.9]: accuracy 0.5 vs confidence 0.9 -> 0.4 * 2/4; bin (0, 0.1]: 0 vs 0.1 -> 0.1 * 2/4
    assert expected_calibration_error([0.9, 0.9, 0.1, 0.1], [1, 0, 0, 0], n_bins=10) == pytest.approx(0.25)
    assert expected_calibration_error([1.0, 0.0], [1, 0]) == 0.0
    assert binary_nll([0.5, 0.5], [1, 0]) == pytest.approx(math.log(2))
    assert binary_nll([0.8], [0]) == pytest.approx(-math.log(0.2))
    with pytest.raises(ValueError, match="expected_calibration_error"):
        expected_calibration_error([], [])


def test_isotonic_fit_is_monotone_and_calibrates():
    p = np.array([0.1, 0.2, 0.3, 0.6, 0.7, 0.9])
    y = np.array([0, 1, 0, 1, 1, 1])
    x, v = fit_isotonic(p, y)
    assert v == sorted(v) and x == sorted(x)
    cal = Calibration("isotonic", {"x": x, "y": v})
    # PAV pools (0.2: 1, 0.3: 0) into 0.5; 0.1 stays 0 (clipped to 1e-4), 0.6.. stay 1 (clipped to 1 - 1e-4)
    got = cal.entailment(np.column_stack([p, 1 - p, np.zeros_like(p)]))
    assert got.tolist() == pytest.approx([1e-4, 0.5, 0.5, 1 - 1e-4, 1 - 1e-4, 1 - 1e-4])


def test_calibration_id_and_params_checked():
    a = Calibration("temperature", {"temperature": 1.83}, weights="0123456789")
    assert a.id.startswith("temp-1.83@") and len(a.id.split("@")[1]) == 8
    assert Calibration("temperature", {"temperature": 1.83}, weights="other").id != a.id  # weights in the hash
    assert Calibration("isotonic", {"x": [0.0, 1.0], "y": [0.1, 0.9]}).id.startswith("iso-2@")
    with pytest.raises(ValueError, match="not one of"):
        Calibration("platt", {})
    with pytest.raises(ValueError, match="temperature must be a finite number > 0"):
        Calibration("temperature", {"temperature": -1})
    with pytest.raises(ValueError, match="non-decreasing"):
        Calibration("isotonic", {"x": [0.0, 1.0], "y": [0.9, 0.1]})


def _meta(n=10):
    return {"fitted_on": {"data": ["vitaminc_real_heldout"], "n_pairs": n},
            "heldout": {"n_pairs": n, "before": {"ece": 0.2, "nll": 0.5}, "after": {"ece": 0.1, "nll": 0.4}}}


def test_json_schema_round_trip_and_errors(tmp_path):
    cal = Calibration("temperature", {"temperature": 1.5}, weights="abc", meta=_meta())
    path = tmp_path / CALIBRATION_FILE
    write_calibration(cal, path)
    d = json.loads(path.read_text())
    assert d["schema"] == 1 and d["method"] == "temperature" and d["id"] == cal.id and d["weights"] == "abc"
    back = read_calibration(path)
    assert back == cal and back.meta["fitted_on"]["n_pairs"] == 10
    for key, value, msg in (("schema", 2, "field 'schema' must be 1"), ("weights", 5, "field 'weights'"),
                            ("heldout", {"before": {}}, "heldout.before"), ("id", "temp-9@00000000", "field 'id'"),
                            ("fitted_on", {"data": [], "n_pairs": 0}, "fitted_on")):
        bad = dict(d, **{key: value})
        with pytest.raises(ValueError, match=msg) as e:
            validate_calibration(bad, "x/calibration.json")
        assert "x/calibration.json" in str(e.value)
    path.write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        read_calibration(path)


def test_write_refuses_incomplete_and_leaves_nothing(tmp_path):
    path = tmp_path / CALIBRATION_FILE
    with pytest.raises(ValueError, match="fitted_on"):
        write_calibration(Calibration("temperature", {"temperature": 1.5}), path)
    assert list(tmp_path.iterdir()) == []


def test_calibration_for_checks_folder_and_weights(tmp_path):
    class V:
        name = "v"
        model_id = "org/hub-model"

    cal, why = calibration_for(V())
    assert cal is None and "no local checkpoint folder" in why
    (tmp_path / "model.safetensors").write_bytes(b"weights")
    V.model_id = str(tmp_path)
    cal, why = calibration_for(V())
    assert cal is None and "missing" in why and str(tmp_path) in why
    write_calibration(Calibration("temperature", {"temperature": 1.5}, weights="not-these", meta=_meta()),
                      tmp_path / CALIBRATION_FILE)
    cal, why = calibration_for(V())
    assert cal is None and "fitted for weights not-these" in why
    good = Calibration("temperature", {"temperature": 1.5}, weights=dir_fingerprint(tmp_path), meta=_meta())
    write_calibration(good, tmp_path / CALIBRATION_FILE)
    assert calibration_for(V()) == (good, None)


def test_bundled_calibration_file_valid():
    path = Path(BUNDLED_DIR) / CALIBRATION_FILE
    cal = read_calibration(path)
    assert cal.weights == dir_fingerprint(BUNDLED_DIR)  # fitted for the shipped weights
    assert cal.meta["fitted_on"]["n_pairs"] >= 1000
    assert all("heldout" in s for s in cal.meta["fitted_on"]["data"])  # held-out cases only, never ratings
    assert cal.meta["heldout"]["after"]["nll"] <= cal.meta["heldout"]["before"]["nll"]
