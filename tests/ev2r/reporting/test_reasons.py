"""The one-line reading of an item (``ev2r.reporting.reasons.reading``): which pair decided the proxy, in words that
match how the proxy joins the pairs (a fresh user's report: for Not Enough Evidence the deciding pair is the least
neutral, not the one that "reads the gold verdict most strongly")."""

from ev2r.reporting.reasons import reading


def _row(verdict_proxy: float) -> dict:
    prem = [{"pair_index": 0, "entailment": 0.0, "neutral": 1.0, "contradiction": 0.0},
            {"pair_index": 1, "entailment": 0.02, "neutral": 0.31, "contradiction": 0.66}]
    return {"proxy": verdict_proxy, "proxy_premises": prem, "proxy_decided_by": 1}


def test_the_deciding_pair_is_named_as_the_proxy_joins_the_pairs():
    nee = reading(_row(0.31), "Not Enough Evidence")
    assert "pair 1 is the least neutral" in nee and "most strongly" not in nee
    refuted = reading(_row(0.66), "Refuted")
    assert "pair 1 reads the gold verdict most strongly" in refuted and "the proxy P(Refuted) = 0.66" in refuted
