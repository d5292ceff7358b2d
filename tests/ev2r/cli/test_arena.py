"""ev2r arena's command line: what it reads besides the battles."""

from ev2r.cli.arena import _load_scores
from support.paths import TESTS

CASE = TESTS / "data" / "cases" / "turn3" / "rank_failed_status_with_score.jsonl"


def test_scores_leave_failed_rows_out_and_say_so(capsys):
    rows = [line for line in CASE.read_text().splitlines() if line.strip()]
    n_failed = sum('"status": "ok"' not in r for r in rows)
    table = _load_scores([f"A={CASE}"], "ev2r")
    err = capsys.readouterr().err
    assert f"{n_failed} row(s) of A left out" in err and "replay_missing" in err
    assert sum(len(d) for d in table.values()) == len(rows) - n_failed
