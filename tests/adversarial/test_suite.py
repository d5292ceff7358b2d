"""The suite runner: statistics on hand-made scorers, the gate, protocol errors."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from adversarial import perturbations as P
from adversarial.resources import ResourceMissingError
from adversarial.suite import run_suite
from ev2r.labels import normalize_verdict
from ev2r.types import Evidence

from support.fakes import constant_scorer, coverage_scorer, first_pair_scorer, make_items

STRUCTURAL = ["reorder_pairs", "duplicate_pair", "blank_answers", "drop_half_pairs", "off_topic_pair"]


def n_pairs_scorer(items):
    return [{"s": len(it.predicted_evidence.pairs) / 10} for it in items]


def test_statistics_hand_checked():
    items = make_items(12)  # 3, 4, 3, 4, ... pairs
    rep = run_suite(items, n_pairs_scorer, ["duplicate_pair", "drop_half_pairs"], n_boot=200)
    dup = rep.perturbations[0].checks["s"]
    assert dup.n == 12 and dup.n_skipped == 0 and dup.n_failed == 0
    assert dup.mean_base == pytest.approx(0.35) and dup.mean_perturbed == pytest.approx(0.45)
    assert dup.mean_change == pytest.approx(0.1) and dup.pct_change == pytest.approx(100 * 0.1 / 0.35)
    assert dup.ci95 == pytest.approx((0.1, 0.1))
    assert dup.expected == "invariant" and dup.pass_rate == 0.0 and dup.verdict == "fail" and dup.gated
    half = rep.perturbations[1].checks["s"]
    assert half.mean_change == pytest.approx(-0.15) and half.pct_change == pytest.approx(-100 * 0.15 / 0.35)
    assert -0.2 <= half.ci95[0] <= half.ci95[1] <= -0.1
    assert half.expected == "decrease" and half.pass_rate == 1.0 and half.verdict == "pass" and not half.gated
    assert [c.perturbation for c in rep.violations("gated")] == ["duplicate_pair"]
    assert rep.violations("none") == [] and not rep.passed("all")


def test_none_scores_are_excluded_and_counted():
    def scorer(items):
        return [{"s": None if it.id == "c0" and len(it.predicted_evidence.pairs) != 3 else 0.5} for it in items]

    rep = run_suite(make_items(6), scorer, ["duplicate_pair"], n_boot=200)
    c = rep.perturbations[0].checks["s"]
    assert c.n == 5 and c.n_failed == 1 and c.mean_base == 0.5 and c.verdict == "pass"


def test_skips_counted_and_min_n():
    items = make_items(4)
    items[0] = items[0].with_predicted(type(items[0].predicted_evidence)(items[0].predicted_evidence.pairs[:1]))
    rep = run_suite(items, n_pairs_scorer, ["reorder_pairs"], n_boot=200, min_n=4)
    s = rep.perturbations[0]
    assert s.n_applied == 3 and s.n_skipped == 1 and s.skip_reasons == {"fewer than 2 pairs": 1}
    assert s.coverage == 0.75 and s.checks["s"].n_skipped == 1
    assert s.checks["s"].verdict == "n/a" and "only 3" in s.checks["s"].reason


def test_sound_scorer_passes_the_gate():
    rep = run_suite(make_items(12), coverage_scorer, STRUCTURAL, n_boot=200)
    assert rep.passed("gated"), [(c.perturbation, c.score, c.reason) for c in rep.violations()]
    blank = {s: c for s, c in rep.perturbations[2].checks.items()}
    assert blank["recall"].mean_perturbed == 0.0 and blank["recall"].pct_change == -100.0


def test_broken_scorers_fail_the_gate():
    const = run_suite(make_items(12), constant_scorer, STRUCTURAL, n_boot=200)
    failed = {(c.perturbation, c.score) for c in const.violations("gated")}
    assert {("blank_answers", "precision"), ("blank_answers", "recall"), ("drop_half_pairs", "recall"),
            ("off_topic_pair", "precision")} <= failed
    # the relevant pair first, then two pairs the reference does not hold: order matters to this scorer
    items = [it.with_predicted(Evidence(it.reference_evidence.pairs[:1] + make_items(12)[(k + 6) % 12].reference_evidence.pairs[:2]))
             for k, it in enumerate(make_items(12))]
    items = [replace(it, reference_evidence=Evidence(it.reference_evidence.pairs[:1])) for it in items]
    assert coverage_scorer(items)[0]["recall"] == 1.0
    order = run_suite(items, first_pair_scorer, ["reorder_pairs"], n_boot=200)
    assert {c.score for c in order.violations("gated")} == {"precision", "recall", "f1"}


def test_deterministic_report():
    a = run_suite(make_items(8), coverage_scorer, seed=7, n_boot=200).to_dict()
    b = run_suite(make_items(8), coverage_scorer, seed=7, n_boot=200).to_dict()
    assert a == b
    assert not math.isnan(a["base_means"]["f1"])


def test_unavailable_perturbation_is_reported():
    def needs_data(item, rng):
        raise ResourceMissingError("WordNet data not found: set NLTK_DATA")

    p = P.Perturbation("needs_data", needs_data, P.MEANING_PRESERVING, "test", P.Expectation("invariant", 5, True))
    rep = run_suite(make_items(4), coverage_scorer, [p], n_boot=200)
    s = rep.perturbations[0]
    assert s.unavailable.startswith("WordNet data not found") and s.n_applied == 0
    assert all(c.verdict == "n/a" for c in s.checks.values())
    # nothing judged: the gate neither fails nor passes, and the report says so
    assert rep.gate_status("all") == "not judged" and not rep.passed("all") and rep.violations("all") == []
    assert rep.gate_status("none") == "passed"
    from adversarial.report import render_markdown

    assert "NOT JUDGED" in render_markdown(rep, "all") and rep.to_dict("all")["passed"] is False


def test_a_float_noise_drop_is_not_a_decrease():
    # every item moves by -1.1e-16 (0.8000000000000002 -> 0.8) except real drops on none: CI upper end < 0 by noise only
    dec = _one_check("drop_half_pairs", [0.8000000000000002] * 3 + [0.5], [0.8] * 3 + [0.0])
    assert dec.ci95[1] < 0 and dec.ci95[1] > -1e-9
    assert dec.verdict != "pass"


@pytest.mark.parametrize("bad,match", [
    (lambda items: [{"s": 1.0}], "expected a list of 4 dicts"),
    (lambda items: [{"s": float("nan")} for _ in items], "NaN; a failed score must be None"),
    (lambda items: [{"s": "high"} for _ in items], "expected a float or None"),
    (lambda items: [{} for _ in items], "no score names"),
])
def test_scorer_protocol_errors(bad, match):
    with pytest.raises(ValueError, match=match):
        run_suite(make_items(4), bad, ["duplicate_pair"], n_boot=200)


def test_argument_errors():
    with pytest.raises(ValueError, match="items"):
        run_suite([], coverage_scorer)
    with pytest.raises(ValueError, match="seed"):
        run_suite(make_items(2), coverage_scorer, seed=-1)
    with pytest.raises(ValueError, match="scores: 'bleu' is not returned"):
        run_suite(make_items(2), coverage_scorer, scores=["bleu"])
    with pytest.raises(ValueError, match="unknown perturbation"):
        run_suite(make_items(2), coverage_scorer, ["nope"])


def test_runs_with_the_ev2r_item_scorer_and_a_fake_verifier(keyword_verifier):
    api = pytest.importorskip("ev2r.metric.factory")
    scorer = api.make_item_scorer(verifier=keyword_verifier, decomposer="rules", alpha=0.5)
    # claims that say more than the evidence (make_items' claims restate their first answer, which is no evidence;
    # a verbatim span of the claim is a restatement too, so a word is put in between)
    def reworded(claim):
        head, _, rest = claim.partition(": ")
        first, _, tail = rest.partition(" ")
        return f"{head}: {first} reportedly {tail} and the opposition disputed every figure in parliament afterwards"

    items = [replace(it, gold_label=normalize_verdict("refuted"), claim=reworded(it.claim)) for it in make_items(6)]
    rep = run_suite(items, scorer, ["duplicate_pair", "blank_answers"], n_boot=200)
    assert rep.scores[:5] == ["precision", "recall", "f1", "proxy", "ev2r"]
    # make_items are gold vs gold: each fact's own pair is on the other side (+twin), so P = R = 1 although
    # most pairs are about other topics than the claim (Kerala, the CDC; off-topic predicted pairs are no
    # premise for other facts, a gaming rule)
    assert rep.base_means["precision"] == pytest.approx(1.0) and rep.base_means["recall"] == pytest.approx(1.0)
    blank = rep.perturbations[1].checks
    assert blank["recall"].verdict == "pass" and blank["recall"].pct_change < -50


def _one_check(name, base, pert, min_n=3):
    from adversarial.suite import _check

    p = P.get_perturbations([name])[0]
    return _check(p, "ev2r", list(base), list(pert), 0, abs_tol=0.01, min_n=min_n, n_boot=400, seed=0)


def test_wide_interval_is_not_enough_to_judge_never_a_failure():
    # 3 items (``--sample 3``): changes -0.5, -0.5, +0.4: the mean drops 0.2 (-40%) but one item rose,
    # so the CI95 of the change reaches above 0 while also reaching the required drop
    dec = _one_check("drop_half_pairs", [0.5, 0.5, 0.5], [0.0, 0.0, 0.9])
    assert dec.expected == "decrease" and dec.mean_change == pytest.approx(-0.2)
    assert dec.ci95[0] < -0.05 and dec.ci95[1] > 0
    assert dec.verdict == "n/a" and dec.reason.startswith("not enough items to judge")
    # invariant: the mean moves +0.1 (+20% of 0.5), beyond +/-the tolerance, but one of 3 items did not move,
    # so the interval reaches the allowed band
    inv = _one_check("reorder_pairs", [0.5, 0.5, 0.5], [0.5, 0.65, 0.65])
    assert inv.expected == "invariant" and inv.mean_change == pytest.approx(0.1)
    assert inv.ci95[0] == pytest.approx(0.0) and inv.verdict == "n/a" and "not enough items" in inv.reason


def test_narrow_interval_outside_the_band_fails_and_inside_passes():
    # the same +0.1 on every item: the CI95 is [0.1, 0.1], wholly outside +/-max(tol * 0.5, 0.01)
    inv = _one_check("reorder_pairs", [0.5] * 3, [0.6] * 3)
    assert inv.ci95 == pytest.approx((0.1, 0.1)) and inv.verdict == "fail" and "wholly outside" in inv.reason
    # a decrease that did not happen on any item: CI95 [0, 0] lies above the required drop
    dec = _one_check("drop_half_pairs", [0.5] * 4, [0.5] * 4)
    assert dec.ci95 == (0.0, 0.0) and dec.verdict == "fail" and "wholly above" in dec.reason
    # a clear drop on every item passes
    ok = _one_check("drop_half_pairs", [0.5] * 4, [0.2, 0.25, 0.2, 0.25])
    assert ok.verdict == "pass" and ok.ci95[1] < 0


def test_plot_marks_only_interval_decided_failures(tmp_path):
    # every bar that carries a failure mark has its interval outside the green band (checked on the data the
    # plot draws: a failure is never a point estimate inside the band)
    items = make_items(3)
    rep = run_suite(items, coverage_scorer, ["duplicate_pair", "drop_half_pairs", "reorder_pairs"], n_boot=200)
    from adversarial.report import render_png

    render_png(rep, str(tmp_path / "r.png"))
    assert (tmp_path / "r.png").stat().st_size > 1000
    for p in rep.perturbations:
        for c in p.checks.values():
            if c.verdict == "fail" and c.pct_change is not None:
                if c.expected == "invariant":
                    assert abs(c.pct_change) > c.tolerance_pct
                else:
                    assert c.pct_change > -c.tolerance_pct


def test_no_increase_rise_fails_fall_and_stay_pass():
    rise = _one_check("content_free_padding", [0.4] * 4, [0.6] * 4)
    assert rise.expected == "no_increase" and rise.verdict == "fail" and "wholly above" in rise.reason
    fall = _one_check("content_free_padding", [0.4] * 4, [0.2] * 4)
    stay = _one_check("content_free_padding", [0.4] * 4, [0.4] * 4)
    assert fall.verdict == "pass" and stay.verdict == "pass"
    assert fall.pass_rate == 1.0 and rise.pass_rate == 0.0
    noisy = _one_check("content_free_padding", [0.4, 0.4, 0.4], [0.4, 0.4, 0.7])  # one item rose: not decided
    assert noisy.verdict == "n/a"


def gullible_scorer(items):
    """coverage_scorer, except that each pair without words adds 0.02 of credit to recall (as content-free
    facts "supported" by anything did): padding games it."""
    out = coverage_scorer(items)
    for it, o in zip(items, out):
        if o["recall"] is not None:
            empty = sum(not any(c.isalnum() for c in p.answer) for p in it.predicted_evidence.pairs)
            o["recall"] = min(1.0, o["recall"] * 0.5 + 0.02 * empty)
    return out


def test_padding_gate_catches_a_scorer_that_credits_content_free_pairs():
    sound = run_suite(make_items(12), coverage_scorer, ["content_free_padding"], n_boot=200)
    assert sound.passed("gated")
    gamed = run_suite(make_items(12), gullible_scorer, ["content_free_padding"], n_boot=200)
    assert ("content_free_padding", "recall") in {(c.perturbation, c.score) for c in gamed.violations("gated")}


def test_a_gate_that_judged_only_part_of_its_checks_is_inconclusive(tmp_path):
    """A gate with some gated checks unjudged is INCONCLUSIVE, naming k of n: "PASSED" on 3 items with 19 of 43
    gated checks unjudged misled."""
    from adversarial.report import gate_summary, render_markdown, render_png

    items = make_items(4)
    items[0] = items[0].with_predicted(type(items[0].predicted_evidence)(items[0].predicted_evidence.pairs[:1]))
    rep = run_suite(items, constant_scorer, ["reorder_pairs", "duplicate_pair"], n_boot=200, min_n=4)
    reorder, dup = rep.perturbations
    assert all(c.verdict == "n/a" for c in reorder.checks.values())  # applied to 3 < min_n items
    assert all(c.verdict == "pass" for c in dup.checks.values())
    n_counted = sum(c.gated for c in rep.checks())
    undecided = rep.not_judged("gated")
    assert undecided and all(c.perturbation == "reorder_pairs" for c in undecided)
    assert rep.gate_status("gated") == "inconclusive" and not rep.passed("gated") and rep.violations() == []
    text = f"INCONCLUSIVE ({len(undecided)} of {n_counted} gated checks not judged: too few items)"
    assert gate_summary(rep).startswith(text) and f"**{text}**" in render_markdown(rep)
    assert "## Not judged (gated checks without a verdict)" in render_markdown(rep)
    assert rep.to_dict()["gate_status"] == "inconclusive" and rep.to_dict()["passed"] is False
    # the summary picture fits a screen
    render_png(rep, str(tmp_path / "r.png"))
    from PIL import Image

    w, h = Image.open(tmp_path / "r.png").size
    assert w <= 1400 and h <= 1200


def test_summary_png_of_every_perturbation_fits_a_screen(tmp_path):
    from PIL import Image

    from adversarial.report import render_png, render_png_details

    perts = list(P.get_perturbations(None)) + list(P.get_gaming_strategies(None))

    def twelve_scores(items):  # as many columns as the ev2r + hu_meteor run of the CI gate
        return [{f"score_{k}": 0.5 for k in range(12)} for _ in items]

    rep = run_suite(make_items(6), twelve_scores, perts, n_boot=100)
    render_png(rep, str(tmp_path / "s.png"))
    w, h = Image.open(tmp_path / "s.png").size
    assert len(rep.perturbations) >= 35 and w <= 1400 and h <= 1200
    render_png_details(rep, str(tmp_path / "d.png"))  # the tall per-check chart stays available
    assert Image.open(tmp_path / "d.png").size[1] > h


def test_per_item_rows_carry_the_perturbed_text():
    items = make_items(3)
    rep = run_suite(items, constant_scorer, ["duplicate_pair"], n_boot=100)
    row = next(r for r in rep.per_item if r["applied"])
    assert set(row["changed"]) == {"predicted_evidence"}
    assert row["changed"]["predicted_evidence"].count("Question:") == len(items[row["index"]].predicted_evidence.pairs) + 1
