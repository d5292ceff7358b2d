"""``adversarial.report``: the summary line counts gated and ungated checks apart, and every cell's
arrow agrees with the sign of the change printed beside it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from adversarial.report import _cell, gate_summary, render_markdown
from adversarial.suite import FAIL, NA, PASS, ScoreCheck, run_suite

from support.fakes import coverage_scorer, make_items


def check(pct, mean_change=0.1, expected="decrease", verdict=FAIL, gated=True):
    return ScoreCheck("p", "s", expected, 5.0, gated, 0.5, 0.6, mean_change, pct, None, None, 8, 0, 0, verdict)


def test_rise_under_a_decrease_expectation_shows_an_up_arrow():
    assert _cell(check(25.7), "decrease") == "↑ +25.7% ✗"
    assert _cell(check(-3.14, gated=False), "decrease") == "↓ -3.1% (✗)"
    assert _cell(check(0.04, verdict=PASS, expected="invariant"), "invariant") == "→ 0.0% ✓"
    assert _cell(check(-0.04, verdict=PASS, expected="invariant"), "invariant") == "→ 0.0% ✓"
    assert _cell(check(None, mean_change=0.02, verdict=NA), "decrease") == "↑ +0.020 –"
    assert _cell(check(None, mean_change=None, verdict=NA), "decrease") == "n/a –"
    assert _cell(check(-10.0, verdict=PASS), "invariant") == "↓ -10.0% ✓ (expected decrease)"


@settings(max_examples=200, deadline=None)
@given(st.floats(-1e6, 1e6, allow_nan=False), st.sampled_from([PASS, FAIL, NA]), st.booleans())
def test_arrow_always_agrees_with_the_sign_shown(pct, verdict, gated):
    cell = _cell(check(pct, verdict=verdict, gated=gated), "decrease")
    arrow, value = cell.split(" ")[:2]
    if float(value.rstrip("%")) == 0:
        assert arrow == "→" and value[0] not in "+-"
    else:
        assert arrow == ("↑" if value.startswith("+") else "↓")


def test_summary_counts_gated_and_ungated_apart():
    rep = run_suite(make_items(12), coverage_scorer, ["blank_answers", "negate_answers", "duplicate_pair"], n_boot=200)
    gated = [c for c in rep.checks() if c.gated]
    ungated = [c for c in rep.checks() if not c.gated]
    assert gated and ungated
    line = gate_summary(rep, "gated")
    assert line.startswith(rep.gate_status("gated").upper())
    n = sum(c.verdict == PASS for c in gated)
    assert f"gated checks (counted): {n} passed, {sum(c.verdict == FAIL for c in gated)} violated" in line
    assert f"ungated checks (reported, not counted by mode gated): {sum(c.verdict == PASS for c in ungated)} passed" \
        in line
    assert "violated in all, gated or not" not in render_markdown(rep)
    assert "ungated checks (counted by mode all)" in gate_summary(rep, "all")
    assert "not counted by mode none" in gate_summary(rep, "none")


def test_a_report_never_writes_through_a_link_out_of_its_folder(tmp_path):
    """A hostile pass: ``OUT/report.md`` linked to a file outside the folder was overwritten, and a symlink loop as
    the folder failed with a raw ``[Errno 17]``. Both are refused before anything is written."""
    import os

    import pytest

    from adversarial.report import write_report

    report = run_suite(make_items(4), coverage_scorer, perturbations=["typos"], seed=0)
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me\n")
    out = tmp_path / "rd"
    out.mkdir()
    (out / "report.md").symlink_to(outside)
    with pytest.raises(ValueError, match="report.md is a symlink"):
        write_report(report, str(out), png=False)
    assert outside.read_text() == "keep me\n" and not (out / "report.json").exists()
    loop = tmp_path / "loopA"
    os.symlink(tmp_path / "loopB", loop)
    os.symlink(loop, tmp_path / "loopB")
    with pytest.raises(ValueError, match="leads nowhere"):
        write_report(report, str(loop), png=False)
    paths = write_report(report, str(tmp_path / "fine"), png=False)  # a plain folder still works
    assert os.path.isfile(paths["md"])
