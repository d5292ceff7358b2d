"""``ev2r rank``: rows with a failed status neither battle nor enter mean_score; the output counts them."""

from __future__ import annotations

import json
from pathlib import Path

from ev2r.cli.main import main

CASE = Path(__file__).resolve().parents[2] / "data" / "cases" / "turn3" / "rank_failed_status_with_score.jsonl"


def test_cli_skips_failed_rows_and_reports_them(tmp_path, capsys):
    good = tmp_path / "b.jsonl"
    good.write_text("".join(json.dumps({"id": i, "ev2r": 0.5, "status": "ok"}) + "\n" for i in range(5)))
    other = tmp_path / "c.jsonl"
    other.write_text("".join(json.dumps({"id": i, "ev2r": 0.4}) + "\n" for i in range(5)))
    out = tmp_path / "r.json"
    assert main(["rank", f"A={CASE}", f"B={good}", f"C={other}", "-o", str(out), "--bootstrap", "0"]) == 0
    res = json.loads(out.read_text())
    assert res["ranking"] == ["B", "C"] and res["skipped"] == {"A": {"replay_missing": 5}} and res["n_skipped"] == 5
    cap = capsys.readouterr()
    assert "A: 5 (replay_missing 5)" in cap.out and "Not ranked (no counted row): A" in cap.out
    assert "5 row(s) skipped" in cap.err
    # with only A and B there is nothing to rank: exit 2, saying why
    assert main(["rank", f"A={CASE}", f"B={good}", "-o", str(out), "--bootstrap", "0"]) == 2
    assert "replay_missing 5" in capsys.readouterr().err


def test_table_is_printed_without_o_and_names_which_rating_to_quote(tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("".join(json.dumps({"id": i, "ev2r": 0.1 * (i % 4), "status": "ok"}) + "\n" for i in range(8)))
    b.write_text("".join(json.dumps({"id": i, "ev2r": 0.1 * (i % 3), "status": "ok"}) + "\n" for i in range(8)))
    plot = tmp_path / "f.png"
    assert main(["rank", f"A={a}", f"B={b}", "--bootstrap", "50", "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "| rank | system | Bradley-Terry rating | 95% CI | online Elo (check) |" in out
    assert "the rating to report" in out and "not comparable with the Bradley-Terry ones" in out
    assert plot.read_bytes()[:4] == b"\x89PNG" and not list(tmp_path.glob("*.json"))


def test_ranks_by_the_headline_score_and_warns_on_different_signatures(tmp_path, capsys):
    files = []
    for name, sig in (("a", "ev2r:0.1.0|verifier:v@1+bf16|alpha:0.5"), ("b", "ev2r:0.1.0|verifier:v@1|alpha:0.5")):
        f = tmp_path / f"{name}.jsonl"
        f.write_text("".join(json.dumps({"id": i, "ev2r": 0.5, "ev2r_hybrid": 0.1 * (i % 3) + (name == "a") * 0.05,
                                         "status": "ok"}) + "\n" for i in range(6)))
        (tmp_path / f"{name}.jsonl.ev2r-run.json").write_text(json.dumps({"signature": sig}))
        files.append(f"{name.upper()}={f}")
    assert main(["rank", *files, "--bootstrap", "20"]) == 0
    cap = capsys.readouterr()
    assert "ranking by ev2r_hybrid (the headline score)" in cap.err
    assert "different signatures (fields that differ: verifier)" in cap.err
    assert "| 1 | A |" in cap.out and "Battles are won on the per-item `ev2r_hybrid`" in cap.out


def test_plot_that_is_a_fifo_or_device_is_refused_before_any_work(tmp_path, capsys):
    import os

    import pytest

    if not hasattr(os, "mkfifo"):
        pytest.skip("no mkfifo on this platform")
    a = tmp_path / "a.jsonl"
    a.write_text("".join(json.dumps({"id": i, "ev2r": 0.1 * (i % 4), "status": "ok"}) + "\n" for i in range(8)))
    fifo = tmp_path / "plot.png"
    os.mkfifo(fifo)
    for plot, what in ((fifo, "a FIFO (named pipe)"), ("/dev/null", "a device")):
        assert main(["rank", f"A={a}", f"B={a}", "--bootstrap", "0", "--plot", str(plot), "-o",
                     str(tmp_path / "r.json")]) == 2
        err = capsys.readouterr().err
        assert f"ev2r rank: error: --plot: {str(plot)!r} is {what}, not a regular file" in err
        assert "--plot must be a file path" in err
    assert sorted(os.listdir(tmp_path)) == ["a.jsonl", "plot.png"]  # refused before any work: no -o written
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")
