"""benchmarks/_benchlib.py: file names of rating files, NAME=PATH options, and which replayed LLM
reply belongs to a row (ids of different rating files collide)."""


import pytest

from ev2r.io.readers import items_from_rows
from support.paths import REPO
from support.modules import load_file_module


@pytest.fixture(scope="module")
def bl():
    mod = load_file_module("benchlib_under_test", REPO / "benchmarks" / "_benchlib.py")
    return mod


def test_parse_named(bl):
    assert bl.parse_named("86=x/a.jsonl", "--data") == ("86", "x/a.jsonl")
    assert bl.parse_named("x/a.jsonl", "--data") == (None, "x/a.jsonl")
    assert bl.parse_named("x/a=b.jsonl", "--data") == (None, "x/a=b.jsonl")  # '=' inside a path
    assert bl.parse_named("86:v1=s.jsonl", "--scores") == ("86:v1", "s.jsonl")
    with pytest.raises(ValueError, match="--scores '=s.jsonl': empty NAME"):
        bl.parse_named("=s.jsonl", "--scores")
    with pytest.raises(ValueError, match="--data '86=': empty PATH"):
        bl.parse_named("86=", "--data")


def test_default_names_use_row_counts_then_stems(bl):
    assert bl.default_names(["a/x.jsonl", "b/y.jsonl"], [86, 144], [None, None]) == ["86", "144"]
    assert bl.default_names(["a/x.jsonl", "b/y.jsonl"], [86, 86], [None, None]) == ["x", "y"]
    assert bl.default_names(["a/x.jsonl", "b/y.jsonl"], [86, 144], [None, "86"]) == ["x", "86"]
    with pytest.raises(ValueError, match=r"two files are named \['d'\]"):
        bl.default_names(["a/x.jsonl", "b/y.jsonl"], [86, 144], ["d", "d"])


def test_a_replayed_reply_counts_only_for_its_own_claim_and_evidence(bl):
    row = {"id": 7, "claim": "The sky  is green.", "predicted_evidence": "Question: Is it?\nAnswer: No.",
           "reference_evidence": "Question: r?\nAnswer: b.", "gold_label": "refuted"}
    (item,) = items_from_rows([row], "r.jsonl")
    record = {"id": 7, "claim": "The sky  is green.", "predicted_evidence": "Question: Is it?\nAnswer: No."}
    assert bl.replay_content_matches(record, item)
    assert not bl.replay_content_matches({**record, "claim": "Another claim with id 7."}, item)
    assert not bl.replay_content_matches({**record, "predicted_evidence": "Question: Is it?\nAnswer: Yes."}, item)
    assert not bl.replay_content_matches(None, item) and not bl.replay_content_matches({"id": 7}, item)


def test_docstring_examples(bl):
    import doctest

    assert doctest.testmod(bl).attempted >= 4 and doctest.testmod(bl).failed == 0


def test_machine_names_the_cpu_flags_that_decide_bf16_speed(bl):
    """A timing says whether the CPU has AVX512-BF16 and AMX (the verifier's bf16 kernels, and whether
    its numbers are batch-invariant, depend on it)."""
    flags = bl.cpu_flags()
    assert isinstance(flags, str) and set(flags.split()) <= set(bl.SPEED_FLAGS)
    assert bl.machine()["cpu_flags"] == flags


def test_compressed_rows_read_back_and_give_the_same_bytes(bl, tmp_path):
    """results/ keeps its per-item rows and large JSON as .gz (results/README.md): the readers open either form,
    and the same rows give the same bytes (no time stamp in the gzip header)."""
    rows = [{"perturbation": "p", "base": {"ev2r": 0.5}, "changed": {"predicted_evidence": "é" * 40}}, {"x": 1}]
    plain = tmp_path / "r.jsonl"
    bl.write_jsonl(rows, plain)
    first = bl.compress(plain, drop=("changed",))
    assert first.name == "r.jsonl.gz" and not plain.exists()
    assert bl.read_jsonl(first) == [{"perturbation": "p", "base": {"ev2r": 0.5}}, {"x": 1}]
    bl.write_jsonl([{"perturbation": "p", "base": {"ev2r": 0.5}}, {"x": 1}], tmp_path / "again.jsonl.gz")
    assert (tmp_path / "again.jsonl.gz").read_bytes() == first.read_bytes()
    bl.write(tmp_path / "t", "# t\n", {"a": [1, 2]}, gz=True)
    assert bl.read_json(tmp_path / "t.json.gz") == {"a": [1, 2]} and not (tmp_path / "t.json").exists()
    (tmp_path / "bad.jsonl.gz").write_bytes(b"not gzip")
    with pytest.raises(SystemExit, match="cannot read"):
        bl.read_jsonl(tmp_path / "bad.jsonl.gz")


def test_every_script_folder_is_a_purpose_and_its_scripts_have_distinct_names(bl):
    """The scripts sit in one folder per purpose (benchmarks/README.md), and _benchlib puts every such folder on
    sys.path so that a script imports another by its module name: every folder holding a script is listed in
    PURPOSES, no script sits at the top beside _benchlib, and no two scripts share a name."""
    bench = REPO / "benchmarks"
    folders = {p.parent.name for p in bench.glob("*/*.py")}
    assert folders == set(bl.PURPOSES)
    assert [p.name for p in bench.glob("*.py")] == ["_benchlib.py"]
    names = [p.stem for p in bench.glob("*/*.py")]
    assert len(names) == len(set(names))
