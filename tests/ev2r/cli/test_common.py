"""``ev2r.cli.common.check_output`` and its use by every command that writes: an output that is an
input (same path, ``./x``, a symlink, a hard link) is refused before any work with exit 2, naming
both paths, and the input is left byte for byte; a too-deep row is exit 2 in every command; a write
that fails after the work leaves the previous output as it was."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from ev2r.cli.common import check_output, input_paths
from ev2r.cli.main import main
from support.paths import SHARED_CASES

CASES = SHARED_CASES / "turn3"
needs_cases = pytest.mark.skipif(not CASES.is_dir(), reason="shared cases not present")

ITEM = {"id": 1, "claim": "Paris is in France.", "predicted_evidence": "Question: Where?\nAnswer: Paris is in France.",
        "reference_evidence": "Question: Where?\nAnswer: France.", "gold_label": "supported"}


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# -- check_output ----------------------------------------------------------------------------------

def test_check_output_refuses_an_input_by_any_spelling(tmp_path, monkeypatch):
    f = _jsonl(tmp_path / "in.jsonl", [ITEM])
    (tmp_path / "link.jsonl").symlink_to(f)
    os.link(f, tmp_path / "hard.jsonl")
    monkeypatch.chdir(tmp_path)
    for out in ("in.jsonl", "./in.jsonl", str(f), "link.jsonl", "hard.jsonl", "sub/../in.jsonl"):
        with pytest.raises(ValueError, match=r"-o/--output: .* is the same file as input 'in.jsonl'"):
            check_output(out, inputs=input_paths(("input", "in.jsonl")))
    check_output("other.jsonl", inputs=input_paths(("input", "in.jsonl"), ("--references", None)))


def test_check_output_folders(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="does not exist"):
        check_output(tmp_path / "no" / "out.jsonl")
    with pytest.raises(ValueError, match="is a directory"):
        check_output(tmp_path)
    with pytest.raises(ValueError, match="is a file; give a folder"):
        check_output(tmp_path / "file", kind="dir")
    with pytest.raises(ValueError, match="cannot be created"):
        check_output(tmp_path / "file" / "sub", kind="dir")
    check_output(tmp_path / "new" / "deeper", kind="dir", files=["a.json"])
    inp = tmp_path / "d" / "a.json"
    inp.parent.mkdir()
    inp.write_text("{}")
    with pytest.raises(ValueError, match=r"-o: .*a.json' is the same file as input"):
        check_output(tmp_path / "d", option="-o", kind="dir", files=["a.json"], inputs=[("input", inp)])
    with pytest.raises(ValueError, match="kind"):
        check_output("x", kind="zip")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_check_output_unwritable(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    os.chmod(ro, 0o500)
    try:
        with pytest.raises(ValueError, match="not writable"):
            check_output(ro / "out.jsonl")
        with pytest.raises(ValueError, match="not writable"):
            check_output(ro / "dir", kind="dir")
    finally:
        os.chmod(ro, 0o700)


# -- every command ---------------------------------------------------------------------------------

@needs_cases
@pytest.mark.parametrize("engine", ["local", "ray"])
@pytest.mark.parametrize("spelling", ["same", "dot", "symlink"])
def test_score_output_is_input_case_is_refused_and_the_input_kept(tmp_path, capsys, monkeypatch, engine, spelling):
    f = tmp_path / "f.jsonl"
    shutil.copy(CASES / "output_is_input_score.jsonl", f)
    before = f.read_bytes()
    (tmp_path / "l.jsonl").symlink_to(f)
    monkeypatch.chdir(tmp_path)
    out = {"same": "f.jsonl", "dot": "./f.jsonl", "symlink": "l.jsonl"}[spelling]
    code, _, err = run(capsys, "score", "f.jsonl", "-o", out, "--scorer", "hu-meteor", "--engine", engine)
    assert code == 2 and f"'{out}' is the same file as input 'f.jsonl'" in err
    assert f.read_bytes() == before and sorted(os.listdir(tmp_path)) == ["f.jsonl", "l.jsonl"]


def _inputs(tmp_path):
    items = _jsonl(tmp_path / "items.jsonl", [ITEM])
    claims_a = _jsonl(tmp_path / "a.jsonl", [{"id": 1, "claims": ["x"]}])
    claims_b = _jsonl(tmp_path / "b.jsonl", [{"id": 1, "claims": ["y"]}])
    scores = _jsonl(tmp_path / "scores.jsonl", [{"id": 1, "system": "s", "ev2r": 0.5}])
    preds = tmp_path / "preds.json"
    preds.write_text(json.dumps([{"claim_id": 0, "claim": "c", "pred_label": "Supported",
                                  "evidence": [{"question": "q", "answer": "a"}]}]))
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([{"claim": "c", "label": "Supported",
                                 "questions": [{"question": "q", "answers": [{"answer": "a"}]}]}]))
    return items, claims_a, claims_b, scores, preds, gold


def _commands(tmp_path):
    """(argv, the input that -o names) per command; every argv writes onto one of its inputs."""
    items, a, b, scores, preds, gold = _inputs(tmp_path)
    arena_dir = tmp_path / "arena"
    arena_dir.mkdir()
    battles = _jsonl(arena_dir / "battles.jsonl", [ITEM])
    rob_dir = tmp_path / "rob"
    rob_dir.mkdir()
    per_item = _jsonl(rob_dir / "per_item.jsonl", [ITEM])
    judge = ["--judge", "http://127.0.0.1:9=m"]
    return [
        (["score", items, "-o", items, "--scorer", "hu-meteor"], items),
        (["score", preds, "--references", gold, "-o", gold, "--scorer", "hu-meteor"], gold),
        (["verify", items, "-o", items], items),
        (["align", a, b, "-o", a], a),
        (["align", a, b, "-o", b], b),
        (["rank", scores, "-o", scores], scores),
        (["rank", f"s={scores}", "-o", scores], scores),
        (["rank", scores, "-o", tmp_path / "r.json", "--table", scores], scores),
        (["rank", scores, "-o", tmp_path / "r.json", "--plot", scores], scores),
        (["rank", scores, "-o", tmp_path / "r.json", "--table", tmp_path / "r.json"], tmp_path / "r.json"),
        (["averitec", preds, "--references", gold, "-o", gold], gold),
        (["averitec", preds, "--references", gold, "-o", preds], preds),
        (["arena", f"x={battles}", f"y={items}", *judge, "-o", arena_dir], battles),
        (["arena", f"x={items}", f"y={items}", *judge, "--scores", f"x={battles}", "-o", arena_dir], battles),
        (["robustness", per_item, "-o", rob_dir, "--scorer", "edit"], per_item),
    ]


@pytest.mark.parametrize("k", range(15))
def test_every_command_refuses_to_write_onto_an_input(tmp_path, capsys, k):
    argv, victim = _commands(tmp_path)[k]
    victim = os.fspath(victim)
    before = open(victim, "rb").read() if os.path.exists(victim) else None
    listing = sorted(os.listdir(tmp_path))
    code, _, err = run(capsys, *argv)
    assert code == 2, err
    assert "same file as" in err and os.path.basename(victim) in err
    if before is not None:
        assert open(victim, "rb").read() == before
    assert sorted(os.listdir(tmp_path)) == listing


def test_train_verifier_refuses_out_onto_its_encoder_or_inputs(tmp_path, capsys):
    from ev2r.training.data import DATA_FILES

    data = tmp_path / "data"
    for name in DATA_FILES.values():
        (data / name).parent.mkdir(parents=True, exist_ok=True)
        (data / name).write_text("{}\n")
    enc = tmp_path / "enc"
    enc.mkdir()
    with pytest.raises(SystemExit) as e:
        main(["train-verifier", "--data-dir", str(data), "--encoder", str(enc), "--out", str(enc)])
    assert e.value.code == 2 and "the --encoder checkpoint" in capsys.readouterr().err
    dev = tmp_path / "out" / "README.md"
    dev.parent.mkdir()
    dev.write_text("[]")
    with pytest.raises(SystemExit) as e:
        main(["train-verifier", "--data-dir", str(data), "--averitec-dev", str(dev), "--out", str(dev.parent)])
    assert e.value.code == 2 and "same file as --averitec-dev" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["train-verifier", "--data-dir", str(data), "--out", str(dev)])
    assert e.value.code == 2 and "is a file; give a folder" in capsys.readouterr().err


@needs_cases
def test_every_command_exits_2_on_the_deep_nesting_case(tmp_path, capsys):
    deep = CASES / "deep_nested_500.jsonl"
    items = _jsonl(tmp_path / "items.jsonl", [ITEM])
    commands = [["score", deep, "--scorer", "hu-meteor"], ["verify", deep, "-o", tmp_path / "v.jsonl"],
                ["align", deep, items], ["rank", deep, "-o", tmp_path / "r.json"],
                ["averitec", deep, "--references", deep], ["robustness", deep, "-o", tmp_path / "rob"],
                ["arena", f"a={deep}", f"b={items}", "--judge", "http://127.0.0.1:9=m", "-o", tmp_path / "ar"],
                ["score", items, "--references", deep, "--scorer", "hu-meteor"]]
    for argv in commands:
        code, _, err = run(capsys, *argv)
        assert code == 2, (argv, err)
        assert str(deep) in err and "nested more than 100 levels" in err, (argv, err)
        assert "row 0" in err or f"{deep}:1:" in err, (argv, err)


def test_a_write_that_fails_after_the_work_keeps_the_previous_output(tmp_path, capsys, monkeypatch):
    from claimalign import jsonio

    _, a, b, scores, _, _ = _inputs(tmp_path)
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")
    calls = []

    def failing(obj, **kw):
        calls.append(obj)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(jsonio, "dumps_jsonl", failing)
    code, _, err = run(capsys, "align", a, b, "-o", out)
    assert code == 2 and "No space left" in err and calls
    assert out.read_text() == "previous\n"
    monkeypatch.undo()
    report = tmp_path / "r.json"
    report.write_text("previous")
    monkeypatch.setattr(jsonio.json, "dump", lambda *a, **k: (_ for _ in ()).throw(OSError(28, "disk full")))
    code, _, err = run(capsys, "rank", scores, "-o", report, "--bootstrap", "10")
    assert code == 2 and report.read_text() == "previous"
    monkeypatch.undo()
    assert not [n for n in os.listdir(tmp_path) if ".tmp" in n]


def test_check_output_refuses_a_sidecar_that_is_an_input(tmp_path):
    inp = _jsonl(tmp_path / "X.part", [ITEM])
    with pytest.raises(ValueError, match=r"'.*X.part' \(a file this command writes or removes beside '.*X'\) is the "
                                         r"same file as input"):
        check_output(str(tmp_path / "X"), inputs=input_paths(("input", inp)), sidecars=(".part", ".ev2r-run.json"))
    check_output(str(tmp_path / "Y"), inputs=input_paths(("input", inp)), sidecars=(".part",))


@pytest.mark.parametrize("engine", ["local", "ray"])
@pytest.mark.parametrize("suffix, option", [(".part", "input"), (".ev2r-run.json", "input"), (".part", "--references")])
def test_score_never_removes_or_overwrites_an_input_beside_its_output(tmp_path, capsys, monkeypatch, engine, suffix,
                                                                      option):
    # a regression guard: `ev2r score X.part -o X --no-resume` once deleted its input X.part and exited 0
    monkeypatch.chdir(tmp_path)
    _, _, _, _, preds, gold = _inputs(tmp_path)
    if option == "input":
        inp = _jsonl(tmp_path / f"X{suffix}", [ITEM])
        argv = ["score", inp.name, "-o", "X", "--scorer", "hu-meteor", "--engine", engine, "--no-resume"]
    else:
        inp = tmp_path / f"X{suffix}"
        inp.write_bytes(gold.read_bytes())
        argv = ["score", preds.name, "--references", inp.name, "-o", "X", "--scorer", "hu-meteor", "--engine", engine,
                "--no-resume"]
    before = inp.read_bytes()
    code, _, err = run(capsys, *argv)
    assert code == 2 and f"'X{suffix}' (a file this command writes or removes beside 'X') is the same file as" in err
    assert inp.read_bytes() == before and not (tmp_path / "X").exists()


def test_the_command_line_caps_onednn_kernel_cache_and_keeps_a_users_value():
    """``ev2r.cli.main`` sets ONEDNN_PRIMITIVE_CACHE_CAPACITY to 16 when it is not set, never over the user's value
    (each case in a fresh interpreter: the variable is read when the module is first imported)."""
    import os
    import subprocess
    import sys

    code = "import os, ev2r.cli.main; print(os.environ['ONEDNN_PRIMITIVE_CACHE_CAPACITY'])"
    env = {k: v for k, v in os.environ.items() if k != "ONEDNN_PRIMITIVE_CACHE_CAPACITY"}
    got = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert got.stdout.strip() == "16"
    got = subprocess.run([sys.executable, "-c", code], env={**env, "ONEDNN_PRIMITIVE_CACHE_CAPACITY": "512"},
                         capture_output=True, text=True, check=True)
    assert got.stdout.strip() == "512"
