"""benchmarks/parity/averitec2025_llm.py: the fixture cut to its first claims, the status counts, and the committed
table rebuilt offline from the recorded judge answers."""

import json

import pytest

from support.modules import load_file_module
from support.paths import REPO

bench = load_file_module("bench_averitec2025_llm", REPO / "benchmarks" / "parity" / "averitec2025_llm.py")
RESULT = REPO / "benchmarks" / "results" / "averitec2025_llm.json"


def _fixture(root, n):
    (root / "parity").mkdir(parents=True)
    (root / "parity" / "predictions_1.json").write_text(json.dumps([{"claim_id": i, "claim": f"c{i}"} for i in range(n)]))
    (root / "dev.json").write_text(json.dumps([{"claim": f"c{i}", "label": "Refuted"} for i in range(n)]))
    return root


def test_cut_keeps_the_first_claims_of_both_files(tmp_path):
    data = _fixture(tmp_path / "averitec", 5)
    out = tmp_path / "cut"
    out.mkdir()
    pred, gold = bench.cut(data, 3, out)
    assert [r["claim_id"] for r in json.loads(pred.read_text())] == [0, 1, 2]
    assert [r["claim"] for r in json.loads(gold.read_text())] == ["c0", "c1", "c2"]
    with pytest.raises(SystemExit, match="--first: 6 claims asked, the fixture has 5"):
        bench.cut(data, 6, out)


def test_statuses_count_claims_and_failures_by_part_and_cause():
    rows = [{"status": "ok", "failures": {}},
            {"status": "judge_failed", "failures": {"question_answer": "parse_error"}},
            {"status": "judge_failed", "failures": {"question_only": "parse_error", "question_answer": "parse_error"}}]
    assert bench.statuses(rows) == {"status": {"ok": 1, "judge_failed": 2},
                                    "failures": {"question_answer: parse_error": 2, "question_only: parse_error": 1}}


def test_offline_without_recorded_answers_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        bench.main(["--data", str(_fixture(tmp_path / "averitec", 3)), "--first", "2", "--offline",
                    "--cache", str(tmp_path / "empty"), "--out", str(tmp_path / "a25")])
    assert exc.value.code == 2 and "--offline: no recorded answers in --cache" in capsys.readouterr().err
    assert not (tmp_path / "a25.md").exists()


def test_out_that_would_overwrite_an_input_is_refused_before_any_work(tmp_path, capsys):
    data = _fixture(tmp_path / "averitec", 3)
    before = (data / "dev.json").read_bytes()
    for out, message in ((data / "dev", "would overwrite an input"),
                         (tmp_path / "nowhere" / "a25", "does not exist")):
        with pytest.raises(SystemExit) as exc:
            bench.main(["--data", str(data), "--first", "2", "--offline", "--out", str(out)])
        assert exc.value.code == 2 and message in capsys.readouterr().err
    assert (data / "dev.json").read_bytes() == before


@pytest.mark.slow
def test_committed_table_is_rebuilt_offline_from_the_recorded_answers(tmp_path, shared_data):
    committed = json.loads(RESULT.read_text(encoding="utf-8"))
    out = tmp_path / "a25"
    assert bench.main(["--data", str(shared_data / "averitec"), "--first", str(committed["first"]), "--offline",
                       "--out", str(out)]) == 0
    rebuilt = json.loads((tmp_path / "a25.json").read_text(encoding="utf-8"))
    assert rebuilt["statuses_llm"] == committed["statuses_llm"]
    for part in ("question_only", "question_answer", "new_averitec"):
        assert rebuilt["table_llm"][part] == committed["table_llm"][part]
    with pytest.raises(SystemExit, match=r"--offline: no recorded answers for claims \[10, 11\]"):
        bench.main(["--data", str(shared_data / "averitec"), "--first", str(committed["first"] + 2), "--offline",
                    "--out", str(tmp_path / "more")])
    assert not (tmp_path / "more.md").exists()
    n_requests = 2 * committed["first"]  # Q-only and Q+A per claim, every one from the recorded answers
    assert f"calls=0 cache_hits={n_requests} " in rebuilt["llm_accounting"]
