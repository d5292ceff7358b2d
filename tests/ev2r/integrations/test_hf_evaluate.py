"""The evaluate module: offline load, compute / add_batch, options, same numbers as the CLI."""

import json
import math
import os
import re
import subprocess
import sys

import pytest

import ev2r
from ev2r.integrations.hf_evaluate.core import build_items, compute_ev2r
from support.modules import load_file_module

from .conftest import EXAMPLE, REPO_ROOT, ROWS, ROWS_WARNED, ROWS_WARNING, real_model_spec

evaluate = pytest.importorskip("evaluate")
pytestmark = ROWS_WARNED

KEYS = ("ev2r", "precision", "recall", "f1", "proxy")


def columns(rows):
    return dict(predictions=[r["predicted_evidence"] for r in rows], references=[r["reference_evidence"] for r in rows],
                claims=[r["claim"] for r in rows], labels=[r["gold_label"] for r in rows])


def cli_summary(tmp_path, rows, *extra):
    from ev2r.cli.main import main

    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    import contextlib
    import io

    from ev2r.io.errors import InputWarning

    buf = io.StringIO()
    # the CLI's reader says what ROWS holds on purpose: row c without predicted evidence, row e without a verdict
    with contextlib.redirect_stdout(buf), pytest.warns(InputWarning) as rec:
        assert main(["score", str(path), "--json", "--no-progress", "--model", "fake", *extra]) == 0
    said = [str(w.message) for w in rec if w.category is InputWarning]
    assert rows is ROWS and [re.search(ROWS_WARNING, m) is not None for m in said] == [True, False]
    assert said[1].endswith("in.jsonl: 1 of 5 row(s) have no verdict in 'gold_label' / 'label' / "
                                        "'reference_label': they get status no_label (no proxy, no Ev2R). Rows (from 0; "
                                        "line = the line of the file): 4 (line 5; id e)")
    return json.loads(buf.getvalue())


def same(a, b):
    return (a is None and b is None) or (a is not None and b is not None and math.isclose(a, b, abs_tol=1e-12))


def test_module_path_exists_and_is_in_package():
    path = ev2r.evaluate_module_path()
    assert os.path.isfile(path) and path.endswith(os.path.join("ev2r", "integrations", "hf_evaluate", "ev2r_metric.py"))


def test_load_offline_with_network_blocked(no_network):
    metric = evaluate.load(ev2r.evaluate_module_path())
    assert metric.name == "ev2r"
    assert set(metric.features) == {"predictions", "references", "claims", "labels"}
    assert "2411.05375" in metric.citation and "Ev2R" in metric.description
    assert ">>> metric.compute(" in metric.inputs_description


@pytest.mark.slow  # a fresh interpreter imports torch/transformers: ~10-30 s on 2 busy cores
def test_load_in_fresh_process_offline_network_blocked(tmp_path):
    """A clean interpreter with only the offline env vars and a socket guard loads and computes."""
    script = """
import socket
def guarded(self, address):
    raise OSError("network blocked: " + repr(address))
socket.socket.connect = guarded
import evaluate, ev2r, numpy as np
class V:
    name = "v"
    def predict(self, p, h):
        return np.tile([0.9, 0.05, 0.05], (len(p), 1))
m = evaluate.load(ev2r.evaluate_module_path(), verifier=V())
r = m.compute(predictions=["a b"], references=["a b"], claims=["a b"], labels=["supported"])
print(round(r["ev2r"], 6))
"""
    env = dict(os.environ, HF_EVALUATE_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1",
               HF_HOME=str(tmp_path / "hf"), PYTHONPATH=str(REPO_ROOT))
    out = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "0.95"


def test_docstring_examples_run(no_network):
    import doctest

    mod = load_file_module("ev2r_metric_doc", ev2r.evaluate_module_path())
    test = doctest.DocTestParser().get_doctest(mod._KWARGS_DESCRIPTION, {}, "ev2r_metric", None, 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 6


def test_compute_equals_cli(tmp_path, patched_verifier, no_network):
    cli = cli_summary(tmp_path, ROWS)
    metric = evaluate.load(ev2r.evaluate_module_path(), verifier="fake")
    res = metric.compute(**columns(ROWS))
    for k in KEYS:
        assert same(res[k], cli[k]), (k, res[k], cli[k])
    assert res["n"] == cli["n"] == 5 and res["n_failed"] == cli["n_failed"]
    assert res["signature"] == cli["signature"]
    assert res["failures"] == cli["failures"]


def test_add_batch_equals_compute(tmp_path, patched_verifier, no_network):
    cli = cli_summary(tmp_path, ROWS)
    metric = evaluate.load(ev2r.evaluate_module_path(), verifier="fake")
    cols = columns(ROWS)
    for s in (0, 2, 4):
        metric.add_batch(**{k: v[s:s + 2] for k, v in cols.items()})
    res = metric.compute()
    for k in KEYS:
        assert same(res[k], cli[k]), k


def test_add_single_items(patched_verifier):
    metric = evaluate.load(ev2r.evaluate_module_path(), verifier="fake")
    cols = columns(ROWS)
    for k in range(len(ROWS)):
        metric.add(prediction=cols["predictions"][k], reference=cols["references"][k], claims=cols["claims"][k],
                   labels=cols["labels"][k])
    res = metric.compute()
    ref = compute_ev2r(**cols, verifier="fake")
    for k in KEYS:
        assert same(res[k], ref[k]), k


@pytest.mark.parametrize("where", ["load", "compute"])
def test_options_reach_scorer(tmp_path, patched_verifier, where):
    cli = cli_summary(tmp_path, ROWS, "--alpha", "0.2", "--no-hybrid")
    opts = {"alpha": 0.2, "hybrid": False}
    if where == "load":
        metric = evaluate.load(ev2r.evaluate_module_path(), verifier="fake", **opts)
        res = metric.compute(**columns(ROWS))
    else:
        metric = evaluate.load(ev2r.evaluate_module_path(), verifier="fake")
        res = metric.compute(**columns(ROWS), **opts)
    assert "alpha:0.2" in res["signature"] and "hybrid:" not in res["signature"]
    for k in KEYS:
        assert same(res[k], cli[k]), k
    # the research hook (API only since 2.0): threshold reaches the scorer too
    hooked = evaluate.load(ev2r.evaluate_module_path(), verifier="fake").compute(**columns(ROWS), threshold=0.7)
    assert "|support:p>=0.7|" in hooked["signature"]


def test_compute_option_overrides_load_option(patched_verifier):
    metric = evaluate.load(ev2r.evaluate_module_path(), verifier="fake", alpha=0.2)
    res = metric.compute(**columns(ROWS[:2]), alpha=1.0)
    assert "alpha:1|" in res["signature"]
    assert math.isclose(res["ev2r"], res["f1"])


def test_verifier_object_and_model_alias(fake_verifier):
    metric = evaluate.load(ev2r.evaluate_module_path(), model=fake_verifier)
    res = metric.compute(**columns(ROWS[:2]), return_items=True, ids=["x", "y"])
    assert fake_verifier.calls > 0
    assert [r["id"] for r in res["items"]] == ["x", "y"]
    assert "verifier:overlap-fake" in res["signature"]


def test_hand_values(fake_verifier):
    # P(e) = 0.05 + 0.9 * word overlap; identical texts: overlap 1 -> P(e) = 0.95, every fact supported
    res = compute_ev2r(["the sky is blue"], ["the sky is blue"], ["the sky is blue"], ["supported"],
                       verifier=fake_verifier)
    assert res["f1"] == 1.0 and math.isclose(res["proxy"], 0.95) and math.isclose(res["ev2r"], 0.975)
    # the claim denied, and nothing else: no evidence (a verdict on the claim is no evidence; ev2r/4 reads
    # the copy without its articles, so "the sky is not blue" is no near-copy of the gold "the sky is blue", ratio
    # 0.846) -> no premise, proxy 0; no fact supported -> F1 0
    res = compute_ev2r(["the sky is not blue"], ["the sky is blue"], ["the sky is blue"], ["refuted"],
                       verifier=fake_verifier)
    assert res["f1"] == 0.0 and res["proxy"] == 0.0 and res["ev2r"] == 0.0
    # a near-copy of the gold that the gold contradicts ("not" on one side: contradiction 0.8) is a rewrite of the
    # reference, no evidence either (ev2r.metric.contradiction)
    gold = "the sky over the city is blue today"
    res = compute_ev2r(["the sky over the city is not blue today"], [gold], [gold], ["refuted"], verifier=fake_verifier)
    assert res["f1"] == 0.0 and res["proxy"] == 0.0 and res["ev2r"] == 0.0


def test_bad_inputs_name_the_field(fake_verifier):
    metric = evaluate.load(ev2r.evaluate_module_path(), verifier=fake_verifier)
    with pytest.raises(ValueError, match="labels"):
        compute_ev2r(["a"], ["a"], ["a"], ["a", "b"], verifier=fake_verifier)
    with pytest.raises(ValueError, match="gold_label"):
        metric.compute(predictions=["a"], references=["a"], claims=["a"], labels=["maybe"])
    with pytest.raises(ValueError, match="claim"):
        compute_ev2r(["a"], ["a"], [""], ["supported"], verifier=fake_verifier)
    with pytest.raises(ValueError, match="alphabet: unknown ev2r option"):
        metric.compute(predictions=["a"], references=["a"], claims=["a"], labels=["supported"], alphabet=1)
    with pytest.raises(ValueError, match="alpha"):
        metric.compute(predictions=["a"], references=["a"], claims=["a"], labels=["supported"], alpha=2.0)
    with pytest.raises(ValueError, match="unknown ev2r option"):
        evaluate.load(ev2r.evaluate_module_path(), verifier=fake_verifier, temperature=3)


def test_build_items_matches_cli_reader():
    from ev2r.io.readers import item_from_row

    from ev2r.io.errors import InputWarning

    with pytest.warns(InputWarning, match=ROWS_WARNING.replace("(c|2)", "c")):
        items = build_items(**columns(ROWS), ids=[r["id"] for r in ROWS])
    for k, (it, row) in enumerate(zip(items, ROWS)):
        assert it == item_from_row(row, k)


@pytest.mark.slow
def test_real_model_compute_equals_cli(tmp_path, no_network):
    spec = real_model_spec()
    if spec is None or not EXAMPLE.exists():
        pytest.skip("no bundled or smoke verifier / example file")
    from ev2r.cli.main import main
    import contextlib
    import io

    rows = [json.loads(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines()[:4]]
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["score", str(path), "--json", "--no-progress", "--model", spec, "--device", "cpu"]) == 0
    cli = json.loads(buf.getvalue())
    metric = evaluate.load(ev2r.evaluate_module_path(), verifier=spec, device="cpu")
    res = metric.compute(predictions=[r["predicted_evidence"] for r in rows],
                         references=[r["reference_evidence"] for r in rows],
                         claims=[r["claim"] for r in rows], labels=[r["gold_label"] for r in rows],
                         ids=[r["id"] for r in rows])
    for k in KEYS:
        assert same(res[k], cli[k]), k
    assert res["signature"] == cli["signature"]


def test_missing_or_single_string_columns_name_the_column(patched_verifier):
    metric = evaluate.load(ev2r.evaluate_module_path(), verifier="fake")
    cols = columns(ROWS)
    with pytest.raises(ValueError, match="claims: missing"):
        metric.add_batch(predictions=cols["predictions"], references=cols["references"], labels=cols["labels"])
    with pytest.raises(ValueError, match="predictions: expected a list with one entry per item, got a single string"):
        metric.compute(predictions="Question: Q\nAnswer: A", references="x", claims="c", labels="refuted")
    with pytest.raises(ValueError, match="claims: missing"):
        metric.add(prediction="x", reference="y", labels="refuted")
