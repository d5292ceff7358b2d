"""The gaming suite: strategies are pure seeded functions of the item, the
``no_gain_over_original`` check decides as documented, and the scoring rules that close the
holes (the question is context, claim restatements, duplicates, Not-Enough-Evidence relevance)
hold on hand-made items with a fake verifier."""

from __future__ import annotations

import json

import numpy as np
import pytest

from adversarial.perturbations import (
    GAMING_OPEN, GAMING_STRATEGIES, NO_GAIN, Expectation, Perturbation, PerturbationResult, get_gaming_strategies, item_rng,
)
from adversarial.perturbations import gaming as g
from adversarial.suite import FAIL, NA, PASS, _check, run_suite
from ev2r.labels import Verdict
from ev2r.training.augment import DENIAL_TEMPLATES
from ev2r.types import Evidence, Item, QAPair

CLAIM = "The council approved the new bridge in 2019."
REF = Evidence((QAPair("When was the bridge approved?", "The council approved the bridge in March 2019."),
                QAPair("Who paid for it?", "The regional government paid 40 million euros.")))
PRED = Evidence((QAPair("What did the council decide?", "The council voted for the bridge project."),
                 QAPair("How much did it cost?", "It cost 40 million euros.")))


def item(**kw) -> Item:
    base = dict(id="b1", claim=CLAIM, predicted_evidence=PRED, reference_evidence=REF, gold_label=Verdict.SUPPORTED)
    base.update(kw)
    return Item(**base)


def other_items() -> list[Item]:
    return [item(), item(id="b2", claim="A dog bit the mayor.", predicted_evidence=Evidence((
        QAPair("Who was bitten?", "The mayor was bitten by a dog on Monday."),
        QAPair("Where?", "In the park near the station."))))]


@pytest.mark.parametrize("name", list(GAMING_STRATEGIES))
def test_every_strategy_is_pure_and_seeded(name):
    p = GAMING_STRATEGIES[name]
    items = other_items()
    fn = p.bind(items) if p.bind else p.fn
    it = items[0]
    before = it.predicted_evidence
    r1 = fn(it, item_rng(3, name, 0))
    r2 = fn(it, item_rng(3, name, 0))
    assert it.predicted_evidence == before  # the input is never changed
    assert r1 == r2  # same seed, same output
    if r1.applied:
        assert r1.item.predicted_evidence != before
        assert r1.item.claim == it.claim and r1.item.reference_evidence == it.reference_evidence
        assert r1.n_edits >= 1
    assert p.expect.effect == NO_GAIN and p.expect.gated == (name not in GAMING_OPEN)
    assert not p.expectation("hu_meteor").gated  # the official baseline is reported, never gated


def test_rewrites_of_the_reference_are_reported_and_reference_free_strategies_gated():
    """Since ev2r/4, a rewrite of the reference (negated, shuffled) needs the reference, so its standing
    against real evidence is reported; what is gated is the rewritten gold far below the gold (>= 50% on Ev2R and
    the default), in the robustness suite. Every reference-free strategy is gated on every Ev2R score."""
    from adversarial.perturbations import PERTURBATIONS, REFERENCE_REWRITES, REWRITE_MIN_FALL_PCT

    assert REFERENCE_REWRITES <= GAMING_OPEN and REFERENCE_REWRITES == {n for n in GAMING_STRATEGIES if "_reference" in n and "questions" not in n}
    for name in REFERENCE_REWRITES:
        assert not GAMING_STRATEGIES[name].expectation("ev2r_hybrid").gated, name
    for name in set(GAMING_STRATEGIES) - GAMING_OPEN:
        for score in ("precision", "recall", "f1", "proxy", "ev2r", "hybrid_meteor", "ev2r_hybrid"):
            assert GAMING_STRATEGIES[name].expectation(score).gated, (name, score)
    for name in ("negate_answers", "shuffle_words"):
        for score in ("ev2r", "ev2r_hybrid"):
            e = PERTURBATIONS[name].expectation(score)
            assert (e.effect, e.tolerance_pct, e.gated) == ("decrease", REWRITE_MIN_FALL_PCT, True) == ("decrease", 50.0, True)
        assert not PERTURBATIONS[name].expectation("proxy").gated


def test_strategies_write_what_they_say():
    it = item()
    rng = np.random.default_rng(0)
    neg = g.negated_reference(it, rng).item.predicted_evidence.pairs
    assert [p.answer for p in neg] == ["It is not true that the council approved the bridge in March 2019.",
                                       "It is not true that the regional government paid 40 million euros."]
    assert [p.question for p in neg] == [p.question for p in REF.pairs]
    echo = g.claim_echo_appended(it, rng).item.predicted_evidence.pairs
    assert echo[:2] == PRED.pairs
    assert echo[2:] == (QAPair("Is it true that the council approved the new bridge in 2019?", "Yes."),
                        QAPair("", CLAIM))
    assert g.claim_question_wrong_verdict(it, rng).item.predicted_evidence.pairs[0].answer == "No."
    assert g.claim_question_verdict(item(gold_label=Verdict.REFUTED), rng).item.predicted_evidence.pairs[0].answer == "No."
    assert not g.claim_question_verdict(item(gold_label=Verdict.NOT_ENOUGH_EVIDENCE), rng).applied
    rep = g.one_pair_repeated(it, rng).item.predicted_evidence.pairs
    assert rep[:10] == (PRED.pairs[0],) * 10 and rep[10:] == PRED.pairs[1:]
    shuffled = g.shuffled_reference(it, np.random.default_rng(1)).item.predicted_evidence.pairs[0].answer
    assert sorted(shuffled.rstrip(".").split()) == sorted(REF.pairs[0].answer.rstrip(".").split())
    assert shuffled != REF.pairs[0].answer


def test_a_rewrite_of_the_reference_leaves_out_the_pairs_it_does_not_change():
    # a reference pair left verbatim is gold evidence (credited as such, +twin), no gamed answer: the words of
    # a one-word answer cannot be shuffled
    ref = Evidence((QAPair("Who paid?", "The state paid for the new bridge."), QAPair("When?", "2019")))
    pairs = g.shuffled_reference(item(reference_evidence=ref), np.random.default_rng(0)).item.predicted_evidence.pairs
    assert [p.question for p in pairs] == ["Who paid?"] and pairs[0].answer != ref.pairs[0].answer
    lone = item(reference_evidence=Evidence((QAPair("When?", "2019"),)))
    assert not g.shuffled_reference(lone, np.random.default_rng(0)).applied


def test_suite_denials_are_not_the_training_templates():
    train = {t.split("{s}")[0] for t in DENIAL_TEMPLATES}
    assert not any(t.split("{s}")[0] in train for t in g.SUITE_DENIALS)


def test_junk_draws_only_other_claims():
    items = other_items()
    fn = GAMING_STRATEGIES["junk_appended"].bind(items)
    r = fn(items[0], np.random.default_rng(0))
    added = r.item.predicted_evidence.pairs[len(PRED.pairs):]
    assert added and all(p in items[1].predicted_evidence.pairs for p in added)
    assert not GAMING_STRATEGIES["junk_appended"].fn(items[0], np.random.default_rng(0)).applied


def _no_gain(base, pert, tol=10.0):
    p = Perturbation("s", lambda it, r: PerturbationResult.skip("x"), "gaming", "", Expectation(NO_GAIN, tol, True))
    return _check(p, "score", list(base), list(pert), 0, abs_tol=0.01, min_n=3, n_boot=500, seed=0)


def test_no_gain_check_by_hand():
    # every item falls: pass, nobody rose
    c = _no_gain([0.5, 0.4, 0.6, 0.3], [0.1, 0.4, 0.2, 0.3])
    assert c.verdict == PASS and c.rise_rate == 0.0 and c.mean_change == pytest.approx(-0.2)
    # every item rises by 0.2: the CI of the change is [0.2, 0.2], wholly above 0
    c = _no_gain([0.1, 0.2, 0.3], [0.3, 0.4, 0.5])
    assert c.verdict == FAIL and c.rise_rate == 1.0
    # mean falls but 1 of 4 items (25% > 10%) rises: not a pass, and not a proven gain either
    c = _no_gain([0.5, 0.5, 0.5, 0.1], [0.2, 0.2, 0.2, 0.3])
    assert c.verdict == NA and c.rise_rate == 0.25
    # a rise below RISE_MIN (batch noise of a bf16 verifier) is no rise
    c = _no_gain([0.5, 0.5, 0.5], [0.5004, 0.5, 0.5])
    assert c.verdict == PASS and c.rise_rate == 0.0
    # a small mean gain with most items rising fails
    c = _no_gain([0.5, 0.5, 0.5, 0.5], [0.52, 0.52, 0.5, 0.49])
    assert c.verdict == FAIL


def test_suite_runs_gaming_strategies_with_a_toy_scorer():
    items = other_items()

    def pairs_count(batch):  # a score that gaming by volume would raise
        return [{"n": float(min(1.0, len(it.predicted_evidence.pairs) / 20))} for it in batch]

    rep = run_suite(items, pairs_count, get_gaming_strategies(["junk_appended", "claim_copy"]), seed=0, n_boot=200,
                    min_n=1)
    by = {p.name: p.checks["n"] for p in rep.perturbations}
    assert by["claim_copy"].mean_change < 0 and by["claim_copy"].verdict == PASS
    assert by["junk_appended"].rise_rate == 1.0 and by["junk_appended"].verdict == FAIL
    assert json.loads(json.dumps(rep.to_dict()))["perturbations"]["junk_appended"]["scores"]["n"]["rise_rate"] == 1.0


def test_unknown_strategy_is_named():
    with pytest.raises(ValueError, match="unknown 'nope'.*negated_reference"):
        get_gaming_strategies(["nope"])


CS_ITEM = Item(id="cs1", claim="Policie zatkla muže z Náchodska.",
               predicted_evidence=Evidence((QAPair("", "Policie včera zasahovala v Náchodě."),)),
               reference_evidence=Evidence((QAPair("Koho zatkla policie?", "Policie zatkla muže z Náchodska. Muž byl obviněn."),)),
               gold_label=Verdict.SUPPORTED)


def test_czech_strategies_deny_negate_and_echo_in_czech():
    """The Czech strategies write Czech ("Není pravda, že ...", the first verb with ``ne-``, "Je pravda,
    že ...? Ano."), are pure seeded functions like every strategy, and the language-free ones are the English
    suite's own."""
    from adversarial.perturbations import GAMING_STRATEGIES_CS

    assert set(GAMING_STRATEGIES_CS) == {"negated_reference_cs", "negated_reference_inline_cs", "claim_echo_appended_cs",
                                         "shuffled_reference", "one_pair_repeated", "evidence_repeated"}
    assert GAMING_STRATEGIES_CS["shuffled_reference"] is GAMING_STRATEGIES["shuffled_reference"]
    answers = {n: [p.answer for p in GAMING_STRATEGIES_CS[n](CS_ITEM, item_rng(0, n, 0)).item.predicted_evidence.pairs]
               for n in ("negated_reference_cs", "negated_reference_inline_cs", "claim_echo_appended_cs")}
    assert answers["negated_reference_cs"] == ["Není pravda, že policie zatkla muže z Náchodska. Není pravda, že muž byl obviněn."]
    assert answers["negated_reference_inline_cs"] == ["Policie nezatkla muže z Náchodska. Muž nebyl obviněn."]
    echo = GAMING_STRATEGIES_CS["claim_echo_appended_cs"](CS_ITEM, item_rng(0, "x", 0)).item.predicted_evidence.pairs
    assert [(p.question, p.answer) for p in echo[1:]] == [("Je pravda, že policie zatkla muže z Náchodska?", "Ano."),
                                                          ("", "Policie zatkla muže z Náchodska.")]
    for name, p in GAMING_STRATEGIES_CS.items():
        assert p.expect.effect == NO_GAIN and p.expect.gated == (name not in GAMING_OPEN and "reference" not in name)
        a, b = p(CS_ITEM, item_rng(3, name, 1)), p(CS_ITEM, item_rng(3, name, 1))
        assert a == b and CS_ITEM.predicted_evidence.pairs[0].answer == "Policie včera zasahovala v Náchodě."


def test_czech_gaming_items_take_a_neighbour_claims_evidence_as_the_real_evidence(tmp_path):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks" / "robustness"))
    import gaming as bench

    rows = [{"id": 1, "claim": "Policie zatkla muže.", "premise": "Policie zatkla muže.\nMuž byl obviněn.", "label": "SUPPORTS",
             "source_document": "d1"},
            {"id": 2, "claim": "Soud muže odsoudil.", "premise": "Soud zasedal v pondělí.", "label": "REFUTES", "source_document": "d1"},
            {"id": 3, "claim": "Nikdo nic neví.", "premise": "Nic.", "label": "NOT ENOUGH INFO", "source_document": "d1"},
            {"id": 4, "claim": "Prší.", "premise": "Prší.", "label": "SUPPORTS", "source_document": "d2"}]
    path = tmp_path / "ctk.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    items = bench.czech_items(path)
    assert [it.id for it in items] == ["ctk-1", "ctk-2"]  # NEI left out; row 4 has no neighbour in its document
    assert [p.answer for p in items[0].reference_evidence.pairs] == ["Policie zatkla muže.", "Muž byl obviněn."]
    assert [p.answer for p in items[0].predicted_evidence.pairs] == ["Soud zasedal v pondělí."]
    assert items[1].gold_label == Verdict.REFUTED and [p.answer for p in items[1].predicted_evidence.pairs] == [
        "Policie zatkla muže.", "Muž byl obviněn."]


def test_salad_behind_prose_and_behind_a_clause():
    it = item()
    plain = g.shuffled_reference(it, np.random.default_rng(3)).item.predicted_evidence.pairs
    prose = g.shuffled_reference_behind_prose(it, np.random.default_rng(3)).item.predicted_evidence.pairs
    clause = g.shuffled_reference_behind_clause(it, np.random.default_rng(3)).item.predicted_evidence.pairs
    # the same salad (same draws), behind a sentence of its own or a clause ending in a comma
    assert [p.answer for p in prose] == [f"{g.PROSE_LEAD} {p.answer}" for p in plain]
    assert [p.answer for p in clause] == [f"{g.PROSE_CLAUSE} {p.answer}" for p in plain]
    assert [p.question for p in prose] == [p.question for p in clause] == [p.question for p in REF.pairs]
    assert g.PROSE_LEAD.endswith(".") and g.PROSE_CLAUSE.endswith(",")
    assert {"shuffled_reference_behind_clause", "shuffled_reference_behind_prose"} <= GAMING_OPEN  # rewrites: reported
