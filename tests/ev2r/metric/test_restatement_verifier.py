"""Issue 63 item 4: with a restatement verifier in force, an answer the verifier reads as entailing the claim and
entailed by it (a paraphrase) is no evidence (``restates_claim``, ``model:mutual-entailment``); one direction alone
is evidence; without the verifier only the lexical rule reads restatements."""

import numpy as np
import pytest

from ev2r.metric.admission import rules_off
from ev2r.metric.admitted import admit
from ev2r.metric.restatement import (RESTATE_MUTUAL_MIN, mutual_entailment, prime_restatements,
                                     use_restatement_verifier)
from ev2r.metric.definition import signature_fields
from ev2r.types import Evidence, QAPair

CLAIM = "Crime rose sharply in Chicago last year."
PARAPHRASE = "Offences in the Windy City went up steeply over the previous twelve months."
DETAIL = "Police data show offences in Chicago went up 12% in 2023, led by car thefts."


class TableVerifier:
    """P(entailment) from a table of (premise, hypothesis) -> value (else 0.1); the rest neutral. Counts calls."""

    name = "table-fake"

    def __init__(self, table):
        self.table, self.calls = table, 0

    def predict(self, premises, hypotheses):
        self.calls += 1
        e = np.array([self.table.get((p, h), 0.1) for p, h in zip(premises, hypotheses)])
        return np.stack([e, 1 - e, np.zeros_like(e)], axis=1)


VER = TableVerifier({(PARAPHRASE, CLAIM): 0.9, (CLAIM, PARAPHRASE): 0.8,  # both ways: a restatement
                     (DETAIL, CLAIM): 0.95, (CLAIM, DETAIL): 0.05})  # the claim does not entail the detail


def _reasons(pairs):
    return [(a.reason, a.decided_by) for a in admit(Evidence(tuple(pairs)), CLAIM)]


def test_mutual_entailment_drops_a_paraphrase_and_keeps_evidence():
    pairs = [QAPair("What happened?", PARAPHRASE), QAPair("What do the figures say?", DETAIL)]
    assert _reasons(pairs) == [("kept", "rule:none"), ("kept", "rule:none")]  # the lexical rule misses it
    with use_restatement_verifier(VER):
        assert _reasons(pairs) == [("restates_claim", "model:mutual-entailment"), ("kept", "rule:none")]
        assert mutual_entailment(CLAIM, PARAPHRASE) == pytest.approx(0.8)
        assert mutual_entailment(CLAIM, DETAIL) == pytest.approx(0.05)
        assert rules_off().endswith(f"+restate:mutual{RESTATE_MUTUAL_MIN:g}")
    assert mutual_entailment(CLAIM, PARAPHRASE) is None
    assert "+restate" not in rules_off()


def test_primed_once_and_in_the_constants_digest():
    v = TableVerifier({})
    prime_restatements([(CLAIM, "a"), (CLAIM, "b"), (CLAIM, "a")], v)
    prime_restatements([(CLAIM, "a")], v)
    assert v.calls == 1
    plain = signature_fields(hybrid=False)["const"]
    with use_restatement_verifier(v):
        assert signature_fields(hybrid=False)["const"] != plain


def test_a_verifier_with_the_wrong_shape_is_named():
    class Bad:
        name = "bad"

        def predict(self, p, h):
            return np.zeros((1, 3))

    with pytest.raises(ValueError, match=r"restatement verifier: expected a \(4, 3\) array"):
        prime_restatements([(CLAIM, "x"), (CLAIM, "y")], Bad())
