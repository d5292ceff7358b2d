"""Issue 63 item 1: with ``copy_reading="exact"`` only a copy of a gold pair is read as the gold pair; a near-copy is
read by the verifier in its own words (no respelling, no graded support), so a changed word is seen."""

import pytest

from ev2r.config import ScorerConfig
from ev2r.metric.admission import COPY_READINGS, copy_grade, copy_reading, current_copy_reading, rules_off
from ev2r.metric.factory import build_scorer
from ev2r.types import Evidence, Item, QAPair
from tests.support.fakes import KeywordVerifier

GOLD = Evidence((QAPair("Did the senator vote for the bill?", "The senator voted for the bill in March."),
                 QAPair("When was the bill signed?", "The governor signed the bill in April.")))
CLAIM = "The senator voted for the bill that the governor signed."


def _item(answer: str) -> Item:
    pred = Evidence((QAPair(GOLD.pairs[0].question, answer), GOLD.pairs[1]))
    return Item(id="x", claim=CLAIM, predicted_evidence=pred, reference_evidence=GOLD, gold_label="Supported")


def test_copy_grade_by_reading():
    gold = GOLD.pairs[0]
    typo = QAPair(gold.question, "The senatr voted for the bill in March.")
    loud = QAPair(gold.question.upper(), "the  senator voted for the bill in march.")
    assert current_copy_reading() == "near"
    assert copy_grade(typo, gold) == 1.0  # near: a copy but for a typo is the copy
    with copy_reading("exact"):
        assert current_copy_reading() == "exact"
        assert copy_grade(typo, gold) == 0.0
        assert copy_grade(loud, gold) == 1.0  # case and spacing are no edit
        assert rules_off().endswith("+copy:exact")
    assert "+copy:exact" not in rules_off()


def test_bad_copy_reading_is_named():
    with pytest.raises(ValueError, match=r"copy_reading: 'loose' not among \['near', 'exact', 'verified'\]"):
        with copy_reading("loose"):
            pass
    with pytest.raises(ValueError, match="copy_reading: 'loose' is not one of"):
        ScorerConfig(copy_reading="loose")
    assert COPY_READINGS == ("near", "exact", "verified")


def _precision(mode: str, answer: str) -> tuple[float, str]:
    sc = build_scorer(verifier=KeywordVerifier(), hybrid=False, admission="none", copy_reading=mode)
    s = sc.score([_item(answer)])[0]
    return s.precision, str(sc.signature())


def test_a_near_copy_is_read_in_its_own_words_under_exact():
    typo = "The senatr voted for the bill in March."
    near_p, near_sig = _precision("near", typo)
    exact_p, exact_sig = _precision("exact", typo)
    assert near_p == 1.0  # respelled and read as the gold pair
    assert exact_p == 0.5  # the keyword verifier does not find "senatr": that fact is unsupported
    assert "+copy:exact" in exact_sig and "twin=copy" in exact_sig
    assert "+copy:exact" not in near_sig and "respell" in near_sig
    # a copy is the gold pair under both readings
    assert _precision("exact", GOLD.pairs[0].answer)[0] == 1.0


class PairVerifier:
    """Entailment 0.9 both ways between the gold pair and its typo'd copy, else the keyword verifier's reading."""

    name = "pair-fake"

    def __init__(self, same):
        self.same, self.kw = same, KeywordVerifier()

    def predict(self, premises, hypotheses):
        import numpy as np

        out = self.kw.predict(premises, hypotheses)
        for k, (p, h) in enumerate(zip(premises, hypotheses)):
            if {p, h} <= self.same:
                out[k] = (0.9, 0.05, 0.05)
        return np.asarray(out)


def test_verified_copy_reading_lets_the_verifier_decide():
    typo = QAPair(GOLD.pairs[0].question, "The senatr voted for the bill in March.")
    denial = QAPair(GOLD.pairs[0].question, "The senator never voted for the bill in March.")
    ver = PairVerifier({GOLD.pairs[0].render(), typo.render()})
    with copy_reading("verified", ver):
        assert copy_grade(typo, GOLD.pairs[0]) == 1.0  # the verifier reads the same meaning: the copy
        assert copy_grade(denial, GOLD.pairs[0]) == 0.0  # a near-copy it reads otherwise: its own words
        assert rules_off().endswith("+copy:verified")
    with pytest.raises(ValueError, match="'verified' needs an NLI verifier"):
        with copy_reading("verified"):
            pass
    sc = build_scorer(verifier=ver, hybrid=False, admission="none", copy_reading="verified")
    typo_item, denial_item = _item(typo.answer), _item(denial.answer)
    s_typo, s_denial = sc.score([typo_item, denial_item])
    assert (s_typo.precision, s_denial.precision) == (1.0, 0.5)
    assert "twin=verified" in str(sc.signature()) and "+copy:verified" in str(sc.signature())


@pytest.mark.parametrize("options", [{"copy_reading": "exact"}, {"copy_reading": "verified"},
                                     {"restatement": "mutual"}])
def test_each_reading_is_its_own_definition(options):
    from ev2r.versions import identify

    def label(**kw):
        sc = build_scorer(verifier=KeywordVerifier(), hybrid=False, admission="none", **kw)
        return identify(str(sc.signature()))["ev2r"].label

    assert label(**options) != label()


def test_readings_without_a_verifier():
    from ev2r.metric.scorer import Ev2RScorer
    from tests.support.fakes import make_items

    class NoVerifier:  # a reference scorer that reads with no NLI verifier (an LLM's, say)
        def signature_fields(self):
            return {"ref": "x"}

    with pytest.raises(ValueError, match="these readings need an NLI verifier"):
        Ev2RScorer(NoVerifier(), None, copy_reading="verified")
    # baselines only: no admission stage runs, so the readings change nothing and nothing fails
    sc = build_scorer(ev2r=False, baselines=["hu-meteor"], copy_reading="verified", restatement="mutual")
    assert "adm:none" in str(sc.signature()) and sc.score(make_items(1))[0].extra_scores["hu_meteor"] is not None
