"""``ev2r.cli.progress``: plain progress lines on stderr when it is not a terminal (logs, CI), a
tqdm bar on a terminal, nothing with ``--no-progress`` (issue 21, item 8)."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st

from ev2r.cli.progress import Progress


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def test_plain_lines_every_ten_percent_and_at_the_end():
    out, clock = io.StringIO(), Clock()
    p = Progress("ev2r score", 5000, stream=out, tty=False, clock=clock)
    for done in range(100, 5001, 100):
        clock.t = done / 14.0
        p.update(done)
    p.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 10  # 10%, 20%, ..., 90%, then the final line
    assert lines[0].startswith("ev2r score: 500/5000 items (10%), 14.0 items/s, about ")
    assert lines[-1].startswith("ev2r score: 5000/5000 items (100%), 14.0 items/s, ") and lines[-1].endswith(" in all")


def test_plain_line_after_sixty_seconds_without_a_new_tenth():
    out, clock = io.StringIO(), Clock()
    p = Progress("ev2r robustness", 1000, stream=out, tty=False, clock=clock)
    clock.t = 30.0
    p.update(10)
    assert out.getvalue() == ""
    clock.t = 61.0
    p.update(20)
    assert out.getvalue() == "ev2r robustness: 20/1000 items (2%), 0.3 items/s, about 50 min left\n"


def test_disabled_or_idle_prints_nothing():
    out = io.StringIO()
    p = Progress("ev2r score", 10, enabled=False, stream=out, tty=False)
    p.update(10)
    p.close()
    q = Progress("ev2r score", 10, stream=out, tty=False)
    q.close()  # nothing done (dry run, early error): no line
    assert out.getvalue() == ""


def test_terminal_gets_a_tqdm_bar():
    out = io.StringIO()
    p = Progress("ev2r score", 4, stream=out, tty=True)
    assert p._bar is not None
    p.update(4)
    p.close()
    assert "ev2r score" in out.getvalue() and "\r" in out.getvalue()


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 10_000), st.lists(st.floats(0, 1), min_size=1, max_size=50))
def test_at_most_one_line_per_tenth_plus_one_per_minute(total, fracs):
    out, clock = io.StringIO(), Clock()
    p = Progress("x", total, stream=out, tty=False, clock=clock)
    for k, f in enumerate(sorted(fracs)):
        clock.t = float(k)  # under a minute in all: only the tenths count
        p.update(int(f * total))
    p.close()
    lines = out.getvalue().splitlines()
    assert len(lines) <= 10 + 1
    assert all(line.startswith("x: ") for line in lines)


def test_score_prints_plain_progress_when_stderr_is_not_a_terminal(capsys, tiny_nli_model):
    from ev2r.cli.main import main

    assert main(["score", "examples/averitec_sample.jsonl", "--model", str(tiny_nli_model), "--limit", "12"]) == 0
    err = capsys.readouterr().err
    assert "ev2r score: 12/12 items (100%), " in err and " in all" in err
    assert "\r" not in err  # no bar redrawn into the log
    assert main(["score", "examples/averitec_sample.jsonl", "--model", str(tiny_nli_model), "--limit", "12",
                 "--no-progress"]) == 0
    assert "items/s" not in capsys.readouterr().err
