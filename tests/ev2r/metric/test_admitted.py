"""The admission stage runs once per item; every part of the score reads a view of that reading (given as an
argument), and the row's record says what the score used."""

from collections import Counter
from itertools import product

import pytest

from ev2r.metric import admission
from ev2r.metric.admitted import AdmissionSettings, Admitted, admit, admit_items, item_record
from ev2r.metric.factory import build_scorer
from ev2r.types import Evidence, Item, QAPair
from support.fakes import KeywordVerifier

CLAIM = "The mayor of Springfield signed the housing order in March 2021."
SIGNED = "Council minutes show that Mayor Quimby of Springfield put his signature on the housing order on 3 March 2021."
GOLD = Evidence((QAPair("Who signed the housing order?", SIGNED),
                 QAPair("What did the order change?", "The order capped rents in Springfield for two years.")))
PRED = Evidence((
    QAPair("Who signed the housing order?", SIGNED),  # a gold copy
    QAPair("Who put a signature on the order?", SIGNED),  # says it again
    QAPair("What is the capital of Australia?", "Canberra is the capital of Australia."),  # off topic
    QAPair("Was it signed?", "Yes."),  # bare
    QAPair("When?", "No answer could be found."),  # unanswerable
    QAPair("What did the council publish?", "The council published the minutes of the housing order vote in Springfield."),
))


def _item(k: int, pred: Evidence = PRED) -> Item:
    return Item(id=str(k), claim=CLAIM, predicted_evidence=pred, reference_evidence=GOLD, gold_label="Supported")


def test_one_reading_per_item_and_side(monkeypatch):
    """Scoring reads each side of each item once (1.4 called the stage about 12 times per item)."""
    calls: Counter = Counter()
    real = admission.read_evidence

    def counting(evidence, claim=None, gold=None, model=None):
        calls[(evidence, claim)] += 1
        return real(evidence, claim, gold, model=model)

    monkeypatch.setattr(admission, "read_evidence", counting)
    other = Evidence(PRED.pairs[::-1])
    items = [_item(0), _item(1, other), _item(2, Evidence(PRED.pairs[:3]))]
    scores = build_scorer(verifier=KeywordVerifier(), admission="none").score(items)
    assert all(s.ok for s in scores), [s.error for s in scores]
    assert scores[0].extra_scores["ev2r_hybrid"] is not None
    assert max(calls.values()) == 1, calls
    # the predicted side of each item (with its claim) and the reference, read once for the three items (all share it)
    assert sum(calls.values()) == 3 + 1
    assert sum(1 for (_, claim) in calls if claim is None) == 1


def test_views_in_a_pass_are_the_views_read_afresh():
    """From one set of readings each view (claim or not, relevant, dedupe, exclude) is what a fresh reading gives,
    whichever view asked first."""
    combos = list(product((CLAIM, None), (False, True), (False, True), ((), (1,))))
    fresh = [admit(PRED, c, r, GOLD, d, e) for c, r, d, e in combos]
    shared = Admitted()
    admit(PRED, None, admitted=shared)  # a view without the claim first, then the others from the same readings
    assert [admit(PRED, c, r, GOLD, d, e, admitted=shared) for c, r, d, e in combos] == fresh
    shared = Admitted()
    admit(PRED, CLAIM, gold=GOLD, admitted=shared)  # a reading with the claim first: the view without it reuses it
    assert admit(PRED, None, dedupe=True, admitted=shared) == fresh[combos.index((None, False, True, ()))]
    assert admit_items([_item(0)]).readings(PRED, CLAIM, GOLD) == shared.readings(PRED, CLAIM, GOLD)


def test_reasons_of_each_view():
    got = {(c, r, d): [(a.kept, a.reason) for a in admit(PRED, c, r, GOLD, d)]
           for c, r, d in [(CLAIM, True, True), (CLAIM, False, False), (None, False, True)]}
    assert got[(CLAIM, True, True)] == [(True, "kept"), (False, "duplicate"), (False, "off_topic"),
                                         (False, "bare_answer"), (False, "unanswerable"), (True, "kept")]
    assert got[(CLAIM, False, False)] == [(True, "kept"), (True, "kept"), (True, "kept"), (False, "bare_answer"),
                                           (False, "unanswerable"), (True, "kept")]
    # without the claim only the content rules read (the reference side): "Yes." is an answer; the copy repeats
    assert got[(None, False, True)] == [(True, "kept"), (False, "duplicate"), (True, "kept"), (True, "kept"),
                                         (False, "unanswerable"), (True, "kept")]
    assert [a.reason for a in admit(PRED, CLAIM, relevant=True, gold=GOLD, exclude=(5,))][5] == "contradicted"


def test_record_says_what_each_part_read():
    """The row's record: ``kept`` is what the verifier read (the proxy, recall's premises: on topic, not
    contradicted), ``aligned`` whether the alignments read it (a repeat is read once: ``duplicate_of``)."""
    record = item_record(_item(0), contradicted=(5,))
    assert [(d["kept"], d["reason"], d.get("aligned"), d.get("duplicate_of")) for d in record] == [
        (True, "kept", True, None), (True, "kept", False, 0), (False, "off_topic", None, None),
        (False, "bare_answer", None, None), (False, "unanswerable", None, None), (False, "contradicted", None, None)]
    assert record[0]["decided_by"] == "rule:gold-copy"


def test_scored_row_carries_the_record():
    s = build_scorer(verifier=KeywordVerifier(), admission="none").score([_item(0)])[0]
    assert [(d["pair"], d["kept"], d.get("aligned")) for d in s.admission] == [
        (0, True, True), (1, True, False), (2, False, None), (3, False, None), (4, False, None), (5, True, True)]


def test_an_unanswerable_pair_is_never_evidence():
    """AVeriTeC's Unanswerable text is no evidence on either side (the "statement" reading left in 2.0)."""
    assert [a.reason for a in admit(PRED, CLAIM)][4] == "unanswerable"
    assert [a.reason for a in admit(PRED)][4] == "unanswerable"
    with pytest.raises(TypeError):
        admit(PRED, CLAIM, unanswerable="statement")  # type: ignore[call-arg]


def test_an_item_the_stage_cannot_read_fails_alone(monkeypatch):
    real = admission.read_evidence

    def fragile(evidence, claim=None, gold=None, model=None):
        if any("explode" in p.answer for p in evidence.pairs):
            raise RuntimeError("cannot read this evidence")
        return real(evidence, claim, gold, model=model)

    monkeypatch.setattr(admission, "read_evidence", fragile)
    bad = _item(1, Evidence((QAPair("What happened?", "The housing order made the budget explode in Springfield."),)))
    scores = build_scorer(verifier=KeywordVerifier(), admission="none").score([_item(0), bad, _item(2)])
    assert [s.ok for s in scores] == [True, False, True]
    assert "cannot read this evidence" in scores[1].error and scores[1].admission == []
    assert scores[0].admission and scores[2].admission


class _Model:
    """A learned reading that reads every pair as evidence with P = 0.5."""

    classes = ("evidence", "absence")
    scope = "all"

    def __init__(self, threshold):
        self.name, self.threshold = "fake-0.5", threshold

    def features(self, claims, questions, answers):
        return len(answers)

    def features_and_vectors(self, claims, questions, answers):
        uniq = sorted(set(answers))
        return len(answers), dict(zip(uniq, self.encode(uniq)))

    def proba_from_features(self, n):
        import numpy as np

        return np.full((n, 2), 0.5)

    def encode(self, texts):
        import numpy as np

        return np.eye(len(texts), 8)


def test_readings_are_made_under_their_own_settings():
    """The settings are a value: readings made with one learned reading are never another's, and a part given no
    readings reads with the rules alone."""
    ev = Evidence(PRED.pairs[-1:])

    def reasons(admitted):
        return [a.reason for a in admit(ev, CLAIM, admitted=admitted)]

    strict, lax = Admitted(AdmissionSettings(_Model(0.9))), Admitted(AdmissionSettings(_Model(0.1)))
    assert [reasons(strict), reasons(lax), reasons(strict)] == [["non_evidence"], ["kept"], ["non_evidence"]]
    assert reasons(None) == ["kept"]
    assert AdmissionSettings(_Model(0.9)).name == "fake-0.5" and AdmissionSettings().name == "none"
    with pytest.raises(ValueError, match=r"settings: expected an AdmissionSettings, got _Model"):
        Admitted(_Model(0.9))
    with pytest.raises(ValueError, match=r"part: 'facts' is not one of \('proxy', 'reference', 'alignment'\)"):
        AdmissionSettings().for_part("facts")


def test_evidence_holds_a_tuple_of_pairs():
    pairs = [QAPair("Q?", "An answer here.")]
    assert Evidence(pairs) == Evidence(tuple(pairs)) and isinstance(Evidence(pairs).pairs, tuple)
    hash(Evidence(pairs))
    with pytest.raises(ValueError, match=r"Evidence.pairs\[0\]: expected a QAPair"):
        Evidence([{"question": "Q?", "answer": "A."}])
    with pytest.raises(ValueError, match="Evidence.pairs: expected a sequence of QAPair, got str"):
        Evidence("Question: Q? Answer: A.")


def test_the_headline_is_an_attribute_of_the_item_score():
    s = build_scorer(verifier=KeywordVerifier(), admission="none").score([_item(0)])[0]
    assert s.ev2r_hybrid is not None and s.ev2r_hybrid == s.extra_scores["ev2r_hybrid"] == s.to_dict()["ev2r_hybrid"]
    assert build_scorer(verifier=KeywordVerifier(), admission="none", hybrid=False).score([_item(0)])[0].ev2r_hybrid is None
