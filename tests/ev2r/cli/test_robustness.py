"""``ev2r robustness``: files written, report.json layout, exit codes, the CI gate."""

from __future__ import annotations

import argparse
import json

import pytest

from ev2r.cli.robustness import add_arguments as add_robustness_arguments, run as run_robustness
from adversarial.report import render_markdown
from adversarial.suite import run_suite

from support.fakes import constant_scorer, coverage_scorer, make_items

FAST = ["reorder_pairs", "duplicate_pair", "blank_answers", "drop_half_pairs", "off_topic_pair", "negate_answers",
        "number_change"]


@pytest.fixture
def input_file(tmp_path):
    path = tmp_path / "items.jsonl"
    with open(path, "w") as f:
        for it in make_items(12):
            f.write(json.dumps({"id": it.id, "claim": it.claim, "predicted_evidence": it.predicted_evidence.render(),
                                "reference_evidence": it.reference_evidence.render(), "gold_label": "refuted"}) + "\n")
    return path


def parse(*argv):
    return add_robustness_arguments(argparse.ArgumentParser()).parse_args([str(a) for a in argv])


def test_cli_writes_report_and_passes(input_file, tmp_path, capsys):
    out = tmp_path / "rep"
    args = parse(input_file, "-o", out, "--perturbations", ",".join(FAST), "--n-boot", 200, "--seed", 1)
    assert run_robustness(args, scorer=coverage_scorer) == 0
    rep = json.loads((out / "report.json").read_text())
    assert rep["passed"] is True and rep["n_items"] == 12 and rep["seed"] == 1
    assert list(rep["perturbations"]) == FAST
    cell = rep["perturbations"]["blank_answers"]["scores"]["recall"]
    for key in ("mean_base", "mean_perturbed", "pct_change", "ci95", "expected", "pass_rate", "n", "n_skipped"):
        assert key in cell
    assert cell["expected"] == "decrease" and cell["mean_perturbed"] == 0.0 and cell["pass_rate"] == 1.0
    assert rep["perturbations"]["off_topic_pair"]["scores"]["recall"]["expected"] == "invariant"
    md = (out / "report.md").read_text()
    assert "| blank_answers | damaging | 12/12 |" in md and "## All checks" in md
    assert (out / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len((out / "per_item.jsonl").read_text().splitlines()) == 12 * len(FAST)
    log = capsys.readouterr().out
    assert "**PASSED**" in log and "| perturbation | kind | coverage |" in log


def test_cli_gate_fails_on_broken_scorer(input_file, tmp_path, capsys):
    args = parse(input_file, "-o", tmp_path / "r", "--perturbations", "blank_answers,duplicate_pair", "--n-boot", 200,
                 "--no-png")
    assert run_robustness(args, scorer=constant_scorer) == 1
    captured = capsys.readouterr()
    assert "FAILED" in captured.out and "blank_answers / precision" in captured.out
    assert "blank_answers/precision" in captured.err
    rep = json.loads((tmp_path / "r" / "report.json").read_text())
    assert rep["passed"] is False and {v["perturbation"] for v in rep["violations"]} == {"blank_answers"}
    args.fail_on_violation = "none"
    assert run_robustness(args, scorer=constant_scorer) == 0


def test_cli_sample_is_seeded(input_file, tmp_path):
    a = parse(input_file, "-o", tmp_path / "a", "--sample", 5, "--seed", 3, "--perturbations", "duplicate_pair",
              "--n-boot", 200, "--no-png")
    b = parse(input_file, "-o", tmp_path / "b", "--sample", 5, "--seed", 3, "--perturbations", "duplicate_pair",
              "--n-boot", 200, "--no-png")
    assert run_robustness(a, scorer=coverage_scorer) == run_robustness(b, scorer=coverage_scorer) == 0
    ra, rb = (json.loads((tmp_path / d / "report.json").read_text()) for d in "ab")
    assert ra["n_items"] == 5 and ra == rb


@pytest.mark.parametrize("extra,msg", [
    (["--sample", "0"], "--sample"),
    (["--perturbations", "nope"], "unknown perturbation 'nope'"),
    (["--scorer", "nope"], "unknown scorer 'nope'"),
    (["--scorer", "edit", "--alpha", "5"], "--alpha: must be a number in [0, 1], got 5.0"),
    (["--scorer", "edit", "--alpha", "nan"], "--alpha: must be a number in [0, 1]"),
])
def test_cli_unusable_options_exit_2(input_file, tmp_path, capsys, extra, msg):
    args = parse(input_file, "-o", tmp_path / "r", *extra)
    assert run_robustness(args, scorer=None if "--scorer" in extra else coverage_scorer) == 2
    assert msg in capsys.readouterr().err


def test_cli_unreadable_input_exit_2(tmp_path, capsys):
    assert run_robustness(parse(tmp_path / "missing.jsonl", "-o", tmp_path / "r"), scorer=coverage_scorer) == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1, "claim": ""}\n')
    assert run_robustness(parse(bad, "-o", tmp_path / "r"), scorer=coverage_scorer) == 2
    assert "cannot read" in capsys.readouterr().err


def test_markdown_marks_gated_and_reported_violations():
    rep = run_suite(make_items(8), constant_scorer, ["blank_answers", "negate_answers"], n_boot=200)
    md = render_markdown(rep)
    # the arrow is the observed direction (a change that rounds to 0 is →), never the expectation
    assert "| blank_answers | damaging | 8/8 | decrease | → 0.0% ✗ |" in md  # gated: blank_answers on precision
    assert "| negate_answers | damaging | 8/8 | decrease | → 0.0% (✗) |" in md  # reported: negate_answers
    assert "## Other violated checks (reported, not gating)" in md
    assert ("gated checks (counted): 0 passed, 3 violated, 0 not judged (too few items); ungated checks "
            "(reported, not counted by mode gated): 0 passed, 3 violated, 0 not judged (too few items)") in md
    assert "## Other violated checks (reported, not gating)" in md


def none_scorer(items):
    return [{"ev2r": None} for _ in items]


def test_scorer_failing_everywhere_is_an_error_not_a_pass(input_file, tmp_path, capsys):
    args = parse(input_file, "-o", tmp_path / "r", "--perturbations", "reorder_pairs", "--no-png", "--n-boot", 200)
    assert run_robustness(args, scorer=none_scorer) == 2
    assert "no score at all" in capsys.readouterr().err


def test_gate_without_enough_items_is_not_a_pass(input_file, tmp_path, capsys):
    args = parse(input_file, "-o", tmp_path / "r", "--sample", 2, "--perturbations", ",".join(FAST), "--no-png",
                 "--n-boot", 200)
    assert run_robustness(args, scorer=coverage_scorer) == 2
    assert "no counted check had enough scored items" in capsys.readouterr().err


def test_empty_perturbation_list_is_an_error(input_file, tmp_path, capsys):
    assert run_robustness(parse(input_file, "-o", tmp_path / "r", "--perturbations", ","), scorer=coverage_scorer) == 2
    assert "--perturbations: ',' names nothing" in capsys.readouterr().err


def test_unloadable_verifier_exits_2(input_file, tmp_path, capsys):
    args = parse(input_file, "-o", tmp_path / "r", "--verifier", tmp_path / "nope", "--perturbations", "reorder_pairs")
    assert run_robustness(args) == 2
    assert "cannot be loaded" in capsys.readouterr().err


def test_progress_lines_when_stderr_is_not_a_terminal(input_file, tmp_path, capsys):
    args = parse(input_file, "-o", tmp_path / "r", "--perturbations", "duplicate_pair", "--n-boot", 200, "--no-png")
    assert run_robustness(args, scorer=coverage_scorer) == 0
    err = capsys.readouterr().err
    assert "ev2r robustness (base items): 12/12 items (100%)" in err
    assert "ev2r robustness (perturbed items): 12/12 items (100%)" in err
    args.no_progress = True
    assert run_robustness(args, scorer=coverage_scorer) == 0
    assert "items/s" not in capsys.readouterr().err


def test_robustness_warns_about_ev2r_options_with_another_scorer(tmp_path, capsys):
    from ev2r.cli.main import main

    main(["robustness", "examples/averitec_sample.jsonl", "-o", str(tmp_path / "r"), "--sample", "3", "--scorer",
          "hu_meteor", "--decomposer", "rules-v1", "--perturbations", "reorder_pairs", "--no-progress"])
    err = capsys.readouterr().err
    assert "ev2r robustness: warning: --decomposer not used with --scorer hu_meteor" in err


def test_report_carries_the_ev2r_scorer_signature(input_file, tmp_path, monkeypatch):
    """hostile tester: a report made with another option (then --premise-top-k 1) looked like one made with the
    default."""
    import ev2r.metric.factory as factory
    from support.fakes import KeywordVerifier

    real = factory.make_item_scorer
    monkeypatch.setattr(factory, "make_item_scorer", lambda config: real(config.replace(verifier=KeywordVerifier())))
    out = tmp_path / "rep"
    args = parse(input_file, "-o", out, "--perturbations", "duplicate_pair", "--n-boot", 100, "--alpha", 0.3,
                 "--fail-on-violation", "none", "--no-png")
    assert run_robustness(args) == 0
    sig = json.loads((out / "report.json").read_text())["settings"]["ev2r_signature"]
    assert "|prem:qa-pair-max+lex-top5+twin~0.85/num+contr+art+respell-syn+anchor+contra0.5/rw0.7|" in sig
    assert "|verifier:keyword-fake|" in sig and "|alpha:0.3|" in sig
    assert f"Ev2R scorer signature: `{sig}`." in (out / "report.md").read_text()


@pytest.mark.parametrize("flag", ["--hybrid-columns", "--admission", "--threshold", "--premise-top-k",
                                  "--proxy-target", "--support", "--meteor-match", "--copy-reading", "--restatement"])
def test_research_and_removed_options_are_no_robustness_options(input_file, flag, capsys):
    # the research hook (hybrid_columns, admission, threshold) is the Python API's; the rest left in 2.0
    with pytest.raises(SystemExit):
        parse(input_file, flag, "x")
    assert f"unrecognized arguments: {flag}" in capsys.readouterr().err


def test_cli_gaming_suite_gates_a_scorer_that_volume_raises(input_file, tmp_path, capsys):
    def by_volume(items):  # a score that grows with the number of pairs: gamed by repetition and junk
        return [{"n": min(1.0, len(it.predicted_evidence.pairs) / 30)} for it in items]

    out = tmp_path / "g"
    args = parse(input_file, "-o", out, "--suite", "gaming", "--perturbations",
                 "evidence_repeated,junk_appended,claim_copy", "--n-boot", 200, "--no-png")
    assert run_robustness(args, scorer=by_volume) == 1
    rep = json.loads((out / "report.json").read_text())
    assert {v["perturbation"] for v in rep["violations"]} == {"evidence_repeated"}
    junk = rep["perturbations"]["junk_appended"]["scores"]["n"]  # a known-open strategy: reported, not gated
    assert junk["verdict"] == "fail" and junk["gated"] is False
    cell = rep["perturbations"]["claim_copy"]["scores"]["n"]
    assert cell["expected"] == "no_gain_over_original" and cell["verdict"] == "pass" and cell["rise_rate"] == 0.0
    assert "no gain over the real evidence" in (out / "report.md").read_text()
    assert "evidence_repeated/n" in capsys.readouterr().err


def test_cli_gaming_suite_refuses_gold_as_prediction(input_file, tmp_path, capsys):
    args = parse(input_file, "-o", tmp_path / "g", "--suite", "gaming", "--gold-as-prediction")
    assert run_robustness(args, scorer=coverage_scorer) == 2
    assert "--gold-as-prediction with --suite gaming" in capsys.readouterr().err


def test_cli_gaming_suite_names_unknown_strategies(input_file, tmp_path, capsys):
    args = parse(input_file, "-o", tmp_path / "g", "--suite", "gaming", "--perturbations", "typos")
    assert run_robustness(args, scorer=coverage_scorer) == 2
    assert "unknown 'typos'" in capsys.readouterr().err


def test_every_metric_option_of_score_reaches_the_ev2r_scorer(input_file, tmp_path, monkeypatch):
    """`ev2r robustness --proxy-model bundled` was once refused (exit 2), so a definition that `ev2r score`
    computes (facts and proxy read by two verifiers) could not be gated. The options that change Ev2R's values
    are now `ev2r score`'s own, passed through as the scorer keywords."""
    import ev2r.metric.factory as factory
    from ev2r.config import DEFAULTS

    seen = {}

    def spy(config):
        seen.update(config.to_dict())
        raise RuntimeError("stop after the options")

    monkeypatch.setattr(factory, "make_item_scorer", spy)
    args = parse(input_file, "-o", tmp_path / "rep", "--no-png", "--model", "fast", "--proxy-model", "bundled",
                 "--alpha", 0.3, "--decomposer", "rules-v1", "--dtype", "fp32")
    with pytest.raises(RuntimeError, match="stop after the options"):
        run_robustness(args)
    assert seen == DEFAULTS.replace(verifier="fast", proxy_verifier="bundled", alpha=0.3, decomposer="rules-v1",
                                    dtype="fp32").to_dict()
    # a --proxy-model naming the --model verifier is no separate proxy verifier (as in ev2r score); --verifier is
    # the older spelling of --model
    seen.clear()
    with pytest.raises(RuntimeError):
        run_robustness(parse(input_file, "-o", tmp_path / "rep2", "--no-png", "--proxy-model", "bundled"))
    assert seen == DEFAULTS.to_dict()
    seen.clear()
    with pytest.raises(RuntimeError):
        run_robustness(parse(input_file, "-o", tmp_path / "rep3", "--no-png", "--verifier", "fast"))
    assert seen["verifier"] == "fast"


def test_robustness_warns_about_metric_options_with_another_scorer(tmp_path, capsys):
    from ev2r.cli.main import main

    main(["robustness", "examples/averitec_sample.jsonl", "-o", str(tmp_path / "r"), "--sample", "3", "--scorer",
          "hu_meteor", "--proxy-model", "averitec", "--alpha", "0.3", "--perturbations", "reorder_pairs",
          "--no-progress"])
    err = capsys.readouterr().err
    assert "--proxy-model, --alpha not used with --scorer hu_meteor" in err


def test_an_empty_proxy_model_is_refused_by_its_option(input_file, tmp_path, capsys):
    for blank in ("", "   "):
        with pytest.raises(SystemExit) as e:
            parse(input_file, "--proxy-model", blank)
        assert e.value.code == 2
        assert "argument --proxy-model: an empty spec" in capsys.readouterr().err


def test_baseline_scorers_warn_about_alpha_and_name_model_not_verifier(tmp_path, capsys):
    from ev2r.cli.main import main

    main(["robustness", "examples/averitec_sample.jsonl", "-o", str(tmp_path / "r"), "--sample", "3", "--scorer",
          "hu_meteor", "--model", "fast", "--alpha", "0.3", "--perturbations", "reorder_pairs", "--no-progress"])
    err = capsys.readouterr().err
    assert "warning: --model, --alpha not used with --scorer hu_meteor" in err
