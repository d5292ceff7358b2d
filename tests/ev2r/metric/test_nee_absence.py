"""For a Not Enough Evidence claim, on-topic evidence that says what is missing ("The post cites no
measurement and no source for its radiation figures.") scored 0 on every score, exactly like no evidence and like
evidence about something else, and nothing said so.

Giving it credit changes what the registered versions score (the admission stage's learned reading ``admission-v1``
refuses absence statements, so that "nothing was found about <claim>" cannot earn the verdict): that is a new score
version, the lead's decision. Until then the scores stay as registered and the item carries a flag -- its row's
``error`` says "not enough evidence, absence on the claim: ..." (status ok) -- which no evidence, off-topic evidence,
an off-topic absence statement and another verdict never carry.
"""

from __future__ import annotations

import pytest

from ev2r.labels import Verdict
from ev2r.metric.proxy import ABSENCE_ON_CLAIM
from ev2r.io import evidence_from_text
from ev2r.types import Item
from support.fakes import KeywordVerifier

CLAIM = "Radiation levels in Tokyo reached 500 microsieverts last week."
REFERENCE = evidence_from_text("Question: Is there a measurement of 500 microsieverts in Tokyo?\n"
                               "Answer: No official source reports such a level; the post gives none.")
EVIDENCE = {
    "missing": "Question: What source does the post give for the radiation figures?\n"
               "Answer: The post cites no measurement and no source for its radiation figures.",
    "none": "",
    "off_topic": "Question: What is the capital of France?\nAnswer: Paris is the capital of France.",
    "off_topic_absence": "Question: Is there a source for the height of the Eiffel Tower?\n"
                         "Answer: No source gives the height of the Eiffel Tower.",
}


def _items(label=Verdict.NOT_ENOUGH_EVIDENCE):
    return [Item(id=k, claim=CLAIM, predicted_evidence=evidence_from_text(v), reference_evidence=REFERENCE,
                 gold_label=label) for k, v in EVIDENCE.items()]


def _scores(scorer, items):
    return {s.id: s for s in scorer.score(items)}


def test_evidence_saying_what_is_missing_is_flagged_and_nothing_else_is():
    from ev2r import build_scorer

    got = _scores(build_scorer(verifier=KeywordVerifier(), hybrid=False), _items())
    assert all(s.status == "ok" for s in got.values())
    note = got["missing"].error
    assert note.startswith(f"{ABSENCE_ON_CLAIM}: 1 predicted pair(s) say what is missing about the claim (pairs 0 ")
    assert "no source for its radiatio" in note and "scores as no evidence would" in note
    assert [got[k].error for k in ("none", "off_topic", "off_topic_absence")] == [None, None, None]
    # the scores are the registered ones: the flagged item scores exactly what no evidence scores
    for name in ("precision", "recall", "f1", "proxy", "ev2r"):
        assert getattr(got["missing"], name) == getattr(got["none"], name) == getattr(got["off_topic"], name) == 0.0


def test_another_verdict_or_no_admission_model_carries_no_flag():
    from ev2r import build_scorer

    got = _scores(build_scorer(verifier=KeywordVerifier(), hybrid=False), _items(Verdict.REFUTED))
    assert all(s.error is None for s in got.values())
    from ev2r.metric.proxy import absence_on_claim

    assert absence_on_claim(_items()[0]) is None  # outside the scorer no learned reading is in force


@pytest.mark.slow
def test_the_issue_example_with_the_bundled_models_every_score_0_and_the_flag(nltk_data):
    from ev2r import build_scorer

    got = _scores(build_scorer(), _items())
    for k in ("missing", "none", "off_topic"):
        s = got[k]
        values = [s.precision, s.recall, s.proxy, s.ev2r] + [s.extra_scores[c] for c in ("ev2r_hybrid",)]
        assert values == [0.0] * 5, (k, values)  # no evidence and off-topic evidence still earn exactly 0
    assert got["missing"].error.startswith(ABSENCE_ON_CLAIM) and got["none"].error is None
    assert got["off_topic"].error is None


def test_an_absence_statement_beside_a_scored_pair_gives_no_note_it_scores_as_that_pair():
    # the note once said the item "scores as no evidence would" beside an Ev2R of 0.493 (a kept pair beside the
    # absence statement); it is given only where it holds
    from ev2r import build_scorer

    kept = REFERENCE.render()  # a copy of the gold pair: admitted as the reference reads it
    items = [Item(id=k, claim=CLAIM, predicted_evidence=evidence_from_text(v), reference_evidence=REFERENCE,
                  gold_label=Verdict.NOT_ENOUGH_EVIDENCE)
             for k, v in (("beside", EVIDENCE["missing"] + "\n\n" + kept), ("kept", kept),
                          ("missing", EVIDENCE["missing"]))]
    got = _scores(build_scorer(verifier=KeywordVerifier(), hybrid=False), items)
    assert got["beside"].error is None and got["missing"].error.startswith(ABSENCE_ON_CLAIM)
    assert got["beside"].ev2r > 0.0 == got["missing"].ev2r
    for name in ("precision", "recall", "f1", "proxy", "ev2r"):  # the absence statement adds nothing, as before
        assert getattr(got["beside"], name) == getattr(got["kept"], name), name
