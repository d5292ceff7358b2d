"""``ev2r score --engine ray`` (ev2r.engines.ray_engine) on a local Ray instance started by the tests: the
same rows, order and corpus summary as the local path (bit-equal numbers with the test verifiers; within 1e-3 with the real bf16 one), resume, a killed actor,
option errors."""

import json
import sys

import pytest

from ev2r.metric.factory import build_scorer
from ev2r.cli.main import main
from ev2r.io.readers import read_items
from ev2r.engines.local_engine import score_local
from ev2r.engines.ray_engine import RUN_SUFFIX, PART_SUFFIX, RayUnavailableError, import_ray, score_ray
from ev2r.engines.runs import output_row, plan_run
from ev2r.io.rows import row_problem
from support.fakes import CrashOnceVerifier, WordVerifier
from support.cpu import amx_in_use, rerun_without_amx
from support.paths import SHARED_CASES
from support.ray_rows import SAMPLE, write_rows


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def local(items, verifier, **kw):
    """The local path: rows as `ev2r score -o` writes them, and the summary."""
    scorer = build_scorer(verifier=verifier, **kw)
    scores = scorer.score(items)
    return [output_row(it, s, False, scorer.signature()) for it, s in zip(items, scores)], scorer.corpus(scores)


def assert_same_within(got, want, tol, where="row"):
    """Equal structure, strings, booleans and None; floats within `tol` (absolute)."""
    if isinstance(want, bool) or want is None or isinstance(want, str):
        assert got == want, f"{where}: {got!r} != {want!r}"
    elif isinstance(want, (int, float)):
        assert isinstance(got, (int, float)) and not isinstance(got, bool), f"{where}: {got!r}"
        assert abs(got - want) <= tol, f"{where}: {got} vs {want}"
    elif isinstance(want, dict):
        assert isinstance(got, dict) and got.keys() == want.keys(), f"{where}: keys differ"
        for k in want:
            assert_same_within(got[k], want[k], tol, f"{where}.{k}")
    else:
        assert isinstance(got, list) and len(got) == len(want), f"{where}: lengths differ"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same_within(g, w, tol, f"{where}[{i}]")


# The quick tests (-m "not slow") keep one run on Ray, test_same_rows_order_and_summary_as_local, and the
# option checks; the rest are slow (CI runs them). Each score_ray starts actors that import torch and build a scorer,
# the admission model's MiniLM encoder included: 10-35 s a test on 2 cores.
#   RESUME_IS_LOCAL: what a resume keeps, rescores and refuses is ev2r.engines.runs, which the local engine's tests
#                    (tests/ev2r/engines/test_local_engine.py, test_runs.py, cli/test_score.py) check in-process
#   ACTORS: Ray's own failure (an actor killed mid-chunk), an actor loading a model


def read_jsonl(path):
    return [json.loads(line) for line in open(path, encoding="utf-8")]


# -- options (no Ray started) ---------------------------------------------------------------------
@pytest.mark.parametrize("argv, message", [
    (["--workers", "2"], "--workers: only used with --engine ray"),
    (["--engine", "ray", "--workers", "0"], "--workers: must be an integer >= 1"),
    (["--engine", "ray", "--workers", "-3"], "--workers: must be an integer >= 1"),
])
def test_bad_engine_options_exit_2_naming_the_option(capsys, tmp_path, argv, message):
    code, _, err = run(capsys, "score", SAMPLE, "-o", tmp_path / "o.jsonl", *argv)
    assert code == 2 and message in err
    assert not (tmp_path / "o.jsonl").exists()


def test_the_ray_address_comes_from_the_environment_only():
    from ev2r.engines.ray_engine import check_engine_options

    with pytest.raises(ValueError, match="a Ray address: only used with --engine ray"):
        check_engine_options("local", "auto")
    with pytest.raises(ValueError, match=r"address \(\$RAY_ADDRESS\): expected an address"):
        check_engine_options("ray", " ")
    check_engine_options("ray", "auto", 2)  # no error


def test_missing_ray_is_one_clear_error(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError
    with pytest.raises(RayUnavailableError, match=r"pip install 'ev2r\[ray\]'"):
        import_ray()
    code, _, err = run(capsys, "score", SAMPLE, "--engine", "ray", "--model", "bundled", "--no-progress")
    assert code == 2 and "pip install 'ev2r[ray]'" in err


def test_core_does_not_import_ray():
    import subprocess

    code = ("import sys, ev2r, ev2r.cli.main, ev2r.metric.factory, ev2r.metric.scorer, ev2r.io.readers, ev2r.engines.ray_engine; "
            "print('ray' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- equality with the local path -------------------------------------------------------------------
def test_same_rows_order_and_summary_as_local(ray_local, tmp_path):
    items = read_items(write_rows(80, tmp_path / "in.jsonl", slow_first_chunk=True))
    want_rows, want = local(items, WordVerifier())
    out = tmp_path / "ray.jsonl"
    res = score_ray(items, out, scorer_options={"verifier": WordVerifier(delay=0.05)}, workers=2)
    assert res.workers == 2 and res.n_scored == 80 and res.n_resumed == 0
    # chunk 0 is slow, so chunks 1 and 2 finish first on the other actor: rows still in input order
    assert [r["id"] for r in res.rows] == [it.source_id for it in items]
    assert res.rows == want_rows  # every number equal to the last bit (floats compared exactly)
    assert read_jsonl(out) == want_rows
    assert [r["status"] for r in res.rows].count("no_reference") == 1
    assert res.rows[5]["status"] == "no_reference" and res.rows[5]["proxy"] == want_rows[5]["proxy"]
    assert res.rows[40]["status"] == "error" and "verifier broke" in res.rows[40]["error"]
    assert res.summary.signature == want.signature + "|engine:ray"
    got, exp = res.summary.to_dict(), want.to_dict()
    got.pop("signature"), exp.pop("signature")
    assert got == exp and exp["n"] == 80 and exp["n_failed"] == 2
    assert not (tmp_path / ("ray.jsonl" + PART_SUFFIX)).exists()
    record = json.loads((tmp_path / ("ray.jsonl" + RUN_SUFFIX)).read_text())
    assert record["signature"] == want.signature and record["engine"] == "ray"


@pytest.mark.slow
def test_bundled_verifier_cli_equal_to_local_on_the_sample(ray_local, tmp_path, capsys):
    """The real bundled verifier on the 12-row sample: `ev2r score` local and `--engine ray` write
    the same rows (same ids, order, texts, labels; numbers within 1e-3: a Ray actor runs torch on its
    reserved CPU, 1 thread, the local run on all cores, and a bf16 matrix product's rounding depends
    on how the threads split it) and the same summary (the signature plus the engine). On a CPU with AMX it runs
    itself again with oneDNN's AMX kernels off (tests/support/cpu.py: with them a pair's numbers depend on its batch,
    by up to ~5e-3)."""
    if amx_in_use():
        rerun_without_amx(__file__, "test_bundled_verifier_cli_equal_to_local_on_the_sample")
        return
    a, b = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    code, out_local, _ = run(capsys, "score", SAMPLE, "-o", a, "--json", "--no-progress", "--explain")
    assert code == 0
    code, out_ray, err = run(capsys, "score", SAMPLE, "-o", b, "--json", "--no-progress", "--explain",
                             "--engine", "ray", "--workers", "2")
    assert code == 0, err
    assert "engine ray: 12 item(s) scored" in err
    rows_local, rows_ray = read_jsonl(a), read_jsonl(b)
    # each row's seal is a hash of its own numbers: valid on both sides, equal only where the numbers are bit for bit
    assert [row_problem(r, None) for r in rows_local + rows_ray] == [None] * 24
    assert_same_within([dict(r, row_hash=None) for r in rows_ray], [dict(r, row_hash=None) for r in rows_local], 1e-3)
    ray_bytes = b.read_bytes()
    rows = read_jsonl(b)
    assert [r["id"] for r in rows] == [585, 33, 439, 494, 591, 15, 211, 473, 832, 503, 843, 284]
    assert all(r["status"] == "ok" and 0 <= r["ev2r"] <= 1 for r in rows)
    s_local, s_ray = json.loads(out_local), json.loads(out_ray)
    assert s_ray["signature"] == s_local["signature"] + "|engine:ray"
    assert s_ray["short_signature"] == s_local["short_signature"] + "|engine:ray"  # what ran, not what it means
    assert s_ray["versions"] == s_local["versions"]
    assert_same_within(dict(s_ray, signature=None, short_signature=None),
                       dict(s_local, signature=None, short_signature=None), 1e-3)
    assert s_local["n"] == 12
    # a rerun resumes everything: nothing is scored again, the same file and summary
    code, out_again, err = run(capsys, "score", SAMPLE, "-o", b, "--json", "--no-progress", "--explain",
                               "--engine", "ray", "--workers", "2")
    assert code == 0 and "0 item(s) scored" in err and "12 resumed" in err
    assert b.read_bytes() == ray_bytes
    assert json.loads(out_again) == s_ray


# -- resume -------------------------------------------------------------------------------------------
@pytest.mark.slow  # RESUME_IS_LOCAL
def test_resume_skips_ok_rows_and_rescores_the_rest(ray_local, tmp_path):
    items = read_items(write_rows(80, tmp_path / "in.jsonl"))
    want_rows, want = local(items, WordVerifier())
    out = tmp_path / "out.jsonl"
    opts = {"verifier": WordVerifier()}
    first = score_ray(items, out, scorer_options=opts, workers=2)
    assert first.rows == want_rows
    rows = read_jsonl(out)
    # an interrupted run: chunk 1 (rows 32-63) missing, row 70 failed with an API error (scored again), and row 3
    # carries a value no scorer made: refused, naming the row (a resumed row is checked, never trusted)
    rows[70] = dict(rows[70], status="api_error", precision=None, ev2r=None)
    edited = rows[:3] + [dict(rows[3], precision=0.123456789)] + rows[4:32] + rows[64:]
    out.write_text("".join(json.dumps(r) + "\n" for r in edited))
    with pytest.raises(ValueError, match=r"out\.jsonl line 4 \(id 10003\) cannot be resumed: its numbers are not the "
                                         r"ones ev2r wrote"):
        score_ray(items, out, scorer_options=opts, workers=2)
    kept = rows[:32] + rows[64:]
    out.write_text("".join(json.dumps(r) + "\n" for r in kept))
    again = score_ray(items, out, scorer_options=opts, workers=2)
    # rescored: chunk 1 (32, with row 40 that failed before: error), row 70; row 5 (no_reference, the
    # item's own failure) is kept like an ok row
    assert again.n_scored == 32 + 1 and again.n_resumed == 80 - 33
    expected = [dict(r) for r in want_rows]
    assert again.rows == expected and read_jsonl(out) == expected
    assert again.rows[70]["status"] == "ok" and again.rows[5]["status"] == "no_reference"
    # the summary covers every row, resumed or not
    assert again.summary.n == 80 and again.summary.n_failed == 2
    assert again.summary.recall == want.recall and again.summary.proxy == want.proxy


@pytest.mark.slow  # RESUME_IS_LOCAL
def test_resume_from_the_part_file_of_a_killed_driver(ray_local, tmp_path):
    items = read_items(write_rows(40, tmp_path / "in.jsonl"))
    want_rows, _ = local(items, WordVerifier())
    out = tmp_path / "out.jsonl"
    # what a driver killed after its first chunk leaves: the run record (written first), OUT.part
    # with 32 rows, a torn last line
    plan_run(items, out, {"verifier": WordVerifier()}, True, engine="ray")
    part = tmp_path / ("out.jsonl" + PART_SUFFIX)
    part.write_text("".join(json.dumps(r) + "\n" for r in want_rows[:32]) + '{"id": "s3')
    res = score_ray(items, out, scorer_options={"verifier": WordVerifier()}, workers=1)
    assert res.n_resumed == 32 and res.n_scored == 8
    assert res.rows == want_rows and read_jsonl(out) == want_rows and not part.exists()


@pytest.mark.slow  # RESUME_IS_LOCAL
def test_resume_refuses_other_options(ray_local, tmp_path):
    items = read_items(write_rows(12, tmp_path / "in.jsonl"))
    out = tmp_path / "out.jsonl"
    score_ray(items, out, scorer_options={"verifier": WordVerifier(), "alpha": 0.5}, workers=1)
    with pytest.raises(ValueError, match="written with other scorer options"):
        score_ray(items, out, scorer_options={"verifier": WordVerifier(), "alpha": 0.7}, workers=1)
    res = score_ray(items, out, scorer_options={"verifier": WordVerifier(), "alpha": 0.7}, workers=1, resume=False)
    assert res.n_scored == 12 and "alpha:0.7" in res.summary.signature


@pytest.mark.slow  # RESUME_IS_LOCAL
def test_second_system_with_the_same_ids_is_scored_not_resumed(ray_local, tmp_path):
    """turn3/ray_resume_sysA.jsonl then turn3/ray_resume_sysB_same_ids.jsonl, the same -o: B was
    reported with A's numbers ("0 scored, 2 resumed")."""
    a, b = SHARED_CASES / "turn3" / "ray_resume_sysA.jsonl", SHARED_CASES / "turn3" / "ray_resume_sysB_same_ids.jsonl"
    if not b.exists():
        pytest.skip("needs ../shared/cases/turn3")
    out, opts = tmp_path / "out.jsonl", {"verifier": WordVerifier()}
    ra = score_ray(read_items(a), out, scorer_options=opts, workers=1)
    from ev2r.engines.runs import RunWarning

    with pytest.warns(RunWarning, match=r"out\.jsonl: 2 earlier row\(s\) are of items whose content changed since they "
                                        r"were scored \(rows \(from 0; line = the line of the file\): 0 \(line 1; id 585\), "
                                        r"1 \(line 2; id 33\); another item_hash\)"):
        rb = score_ray(read_items(b), out, scorer_options=opts, workers=1)
    want_rows, want = local(read_items(b), WordVerifier())
    assert rb.n_scored == 2 and rb.n_resumed == 0
    assert rb.rows == want_rows == read_jsonl(out) and rb.summary.ev2r == want.ev2r
    assert rb.rows[0]["recall"] == 1.0 and ra.rows[0]["recall"] < 1.0  # B's evidence is the gold evidence


def test_a_local_run_is_resumed_with_its_options_and_refused_with_others(ray_local, tmp_path):
    items = read_items(write_rows(12, tmp_path / "in.jsonl"))
    want_rows, _ = local(items, WordVerifier())
    out = tmp_path / "out.jsonl"
    score_local(build_scorer(verifier=WordVerifier(), alpha=0.7), items, out,
                options={"verifier": WordVerifier(), "alpha": 0.7})
    with pytest.raises(ValueError, match="written with other scorer options"):
        score_ray(items, out, scorer_options={"verifier": WordVerifier()}, workers=1)
    score_local(build_scorer(verifier=WordVerifier()), items, out, options={"verifier": WordVerifier()},
                resume=False)
    res = score_ray(items, out, scorer_options={"verifier": WordVerifier()}, workers=1)
    assert res.n_resumed == 12 and res.n_scored == 0 and res.rows == want_rows
    assert "alpha:0.5" in res.summary.signature and res.summary.signature.endswith("|engine:ray")


@pytest.mark.slow  # RESUME_IS_LOCAL
def test_a_file_without_run_record_is_refused(ray_local, tmp_path):
    """A local run's -o made before run records existed (or any other file) is never resumed."""
    items = read_items(write_rows(4, tmp_path / "in.jsonl"))
    out = tmp_path / "out.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in local(items, WordVerifier(), alpha=0.9)[0]))
    with pytest.raises(ValueError, match="has no run record.*another -o.*--no-resume"):
        score_ray(items, out, scorer_options={"verifier": WordVerifier()}, workers=1)
    res = score_ray(items, out, scorer_options={"verifier": WordVerifier()}, workers=1, resume=False)
    assert res.n_scored == 4 and res.rows == local(items, WordVerifier())[0] == read_jsonl(out)


# -- failures ---------------------------------------------------------------------------------------
@pytest.mark.slow  # ACTORS
def test_a_killed_actor_loses_only_its_chunk(ray_local, tmp_path):
    items = read_items(write_rows(80, tmp_path / "in.jsonl"))
    scored = tmp_path / "scored-before"  # its marker exists: this one never crashes (the same verifier class: the
    scored.touch()                       # rows name the definition, the verifier's class among it)
    want_rows, want = local(items, CrashOnceVerifier(str(scored)))
    marker = tmp_path / "killed"
    res = score_ray(items, tmp_path / "out.jsonl", scorer_options={"verifier": CrashOnceVerifier(str(marker))},
                    workers=2)
    assert marker.exists()  # a worker process did die (os._exit) while scoring a chunk
    assert res.rows == want_rows and res.n_scored == 80
    assert res.summary.ev2r == want.ev2r and res.summary.n_failed == 2


@pytest.mark.slow  # ACTORS (the message itself: tests/ev2r/verifier/test_loading.py)
def test_bad_model_is_one_clear_error(ray_local, tmp_path):
    items = read_items(write_rows(4, tmp_path / "in.jsonl"))
    with pytest.raises(ValueError, match="cannot be loaded as a 3-way NLI verifier"):
        score_ray(items, None, scorer_options={"verifier": str(tmp_path / "no-such-model"), "dtype": "fp32"},
                  workers=1)


def test_cuda_on_a_cluster_without_gpus_is_refused_not_left_waiting(ray_local, tmp_path):
    import ray

    if ray.cluster_resources().get("GPU", 0):
        pytest.skip("this Ray instance has a GPU")
    items = read_items(write_rows(4, tmp_path / "in.jsonl"))
    with pytest.raises(ValueError, match=r"--device cuda: each worker needs 1 GPU\(s\) but the Ray cluster has 0"):
        score_ray(items, None, scorer_options={"verifier": "bundled", "device": "cuda"}, workers=1)
