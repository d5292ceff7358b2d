"""``ev2r.cli.progress``: plain progress lines on stderr when it is not a terminal (logs, CI), a
tqdm bar on a terminal, nothing with ``--no-progress``."""

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
    # the rate runs from the first update: 10 items in 31 s, 980 left -> 3038 s
    assert out.getvalue() == "ev2r robustness: 20/1000 items (2%), 0.3 items/s, about 51 min left\n"


def test_the_rate_leaves_out_what_a_resumed_run_found_done_and_the_model_load():
    """A resumed run's first update is the count it found done (500 of 1000, no work yet): no rate is shown for it.
    The first chunk (32 items) ends 60 s later, 50 s of them loading the models; from the second chunk on the rate
    runs from the end of the first: (564 - 532) / (70 - 60) = 3.2 items/s, 436 left -> 136 s, about 2 min."""
    out, clock = io.StringIO(), Clock()
    p = Progress("ev2r score", 1000, stream=out, tty=False, clock=clock)
    p.update(500)
    assert out.getvalue() == "ev2r score: 500/1000 items (50%)\n"
    assert p.rate() is None
    clock.t = 60.0
    p.update(532)
    assert p.rate() == 32 / 60
    clock.t = 70.0
    p.update(564)
    assert p.rate() == 3.2
    assert p.line() == "ev2r score: 564/1000 items (56%), 3.2 items/s, about 2 min left"


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


def test_the_terminal_bar_starts_at_what_a_resumed_run_found_done():
    out = io.StringIO()
    p = Progress("ev2r score", 10, stream=out, tty=True)
    p.update(4)  # found done: the bar's own rate leaves them out
    assert (p._bar.n, p._bar.initial) == (4, 4)
    p.update(6)
    assert (p._bar.n, p._bar.initial) == (6, 4)
    p.close()


def test_the_last_line_rate_runs_from_the_first_update_to_the_end():
    """``ev2r score`` updates once at its start (nothing done), so the last line's rate includes the model load:
    12 items in 11 s -> 1.1 items/s, not the 14 items/s of the chunks after the first."""
    out, clock = io.StringIO(), Clock()
    p = Progress("ev2r score", 12, stream=out, tty=False, clock=clock)
    p.update(0)
    clock.t = 10.0
    p.update(6)
    clock.t = 11.0
    p.update(12)
    p.close()
    assert out.getvalue().splitlines()[-1] == "ev2r score: 12/12 items (100%), 1.1 items/s, 11 s in all"
