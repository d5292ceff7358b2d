"""Reading an LLM's reference-based reply as far as it goes (issue 22 item 6): enumerations in the
layouts models write, per-fact checks vs stated counts, and the recorded disagreement."""

import json

import pytest

from ev2r.facts.replay import (ReplayReferenceScorer, check_flags, content_sha256, read_reference_reply,
                               recording_mismatch, split_enumeration)
from ev2r.types import Evidence, Item


@pytest.mark.parametrize("text, items", [
    ("1. Kerala had 3,33,87,677 people in 2011. 2. The rate was 5.18 per 1000.",
     ["Kerala had 3,33,87,677 people in 2011.", "The rate was 5.18 per 1000."]),
    ("1) A.\n2) B.\n3) C.", ["A.", "B.", "C."]),
    ("(1) A. (2) B.", ["A.", "B."]),
    ("[1] A. [2] B.", ["A.", "B."]),
    ("1: A.\n2: B.", ["A.", "B."]),
    ("- A.\n- B.", ["A.", "B."]),
    ("* A.\n* B.", ["A.", "B."]),
    ("\u2022 A.\n\u2022 B.", ["A.", "B."]),
    ("A.\nB.", ["A.", "B."]),
    ("One fact without a number.", ["One fact without a number."]),
    ("", []),
    ("  ", []),
])
def test_enumeration_layouts(text, items):
    assert split_enumeration(text) == items


def test_enumeration_lists_and_non_enumerations():
    assert split_enumeration(["A.", " ", "B."]) == ["A.", "B."]
    assert split_enumeration([{"fact": "A."}, {"statement": "B."}]) == ["A.", "B."]
    assert split_enumeration([]) == []
    for value in (3, None, {"a": 1}, [1, 2], [{"n": 1}]):
        assert split_enumeration(value) is None
    # a number inside an item is not a marker; the numbering must open the text
    assert split_enumeration("In 2014. 2. B.") == ["In 2014. 2. B."]


def test_check_flags_read_text_and_objects():
    assert check_flags("1. A. Supported. 2. B. Not supported.") == [True, False]
    assert check_flags([{"fact": "A", "supported": True}, {"fact": "B", "supported": False}]) == [True, False]
    assert check_flags([{"fact": "A", "verdict": "Not supported"}, {"fact": "B", "verdict": "Supported"}]) == [False, True]
    assert check_flags(7) is None


def _reply(**changes):
    base = {"facts in predicted evidence": "1. A. 2. B.",
            "fact check predicted evidence": "1. A. Supported. 2. B. Not supported.",
            "facts count predicted evidence": 2, "support predicted evidence": 1,
            "facts in reference evidence": "1. C.", "fact check reference evidence": "1. C. Supported.",
            "facts count reference evidence": 1, "support reference evidence": 1, "precision": 0.5, "recall": 1.0}
    base.update(changes)
    return base


def test_one_line_enumeration_with_disagreeing_counts_is_read_not_refused():
    # the 0.5B model's layout (issue 22): facts on one line, its own counts disagree with its checks
    reply = _reply(**{"facts in predicted evidence": "1. A. 2. B. 3. D.",
                      "fact check predicted evidence": "1. A. Supported. 2. B. Not supported. 3. D. Supported.",
                      "facts count predicted evidence": 3, "support predicted evidence": 3, "precision": 0.85})
    res = read_reference_reply(reply)
    assert res.status == "ok" and res.precision == pytest.approx(2 / 3) and res.recall == 1.0
    assert res.extra_scores["precision_from_counts"] == 1.0 and res.extra_scores["precision_stated"] == 0.85
    assert res.extra_scores["reading_disagreements"] == 1.0
    assert [f.supported for f in res.predicted_facts] == [True, False, True]
    # the strict reading refuses it, naming why
    strict = read_reference_reply(reply, "strict")
    assert strict.status == "replay_inconsistent" and "stated precision 0.85" in strict.error


def test_checks_without_a_separate_fact_list_and_counts_only_sides():
    res = read_reference_reply(_reply(**{"facts in predicted evidence": ""}))
    assert res.precision == 0.5 and [f.fact for f in res.predicted_facts] == ["A. Supported.", "B. Not supported."]
    # no checks at all on one side: the stated counts score it
    res = read_reference_reply(_reply(**{"fact check reference evidence": None, "support reference evidence": 0}))
    assert res.recall == 0.0 and res.extra_scores["recall_from_checks"] is None
    # checks that do not match the facts one to one cannot score the side; counts can
    res = read_reference_reply(_reply(**{"fact check predicted evidence": "1. A. Supported."}))
    assert res.precision == 0.5 and res.extra_scores["precision_from_checks"] is None
    bad = read_reference_reply(_reply(**{"fact check predicted evidence": "1. A. Supported.",
                                          "support predicted evidence": None}))
    assert bad.status == "replay_inconsistent" and "1 checks for 2 facts" in bad.error


def _item(claim="C.", pred="Question: q?\nAnswer: a.", ref="Question: r?\nAnswer: b."):
    return Item(id="7", claim=claim, predicted_evidence=Evidence.from_text(pred), reference_evidence=Evidence.from_text(ref))


def test_content_hash_joins_only_the_judged_content(tmp_path):
    item = _item()
    rec = {"model": "m", "id": "7", "content_sha256": content_sha256(item), "llm_response": _reply()}
    assert recording_mismatch(rec, item) is None
    assert recording_mismatch(rec, _item(pred="Question: q?\nAnswer: other.")) == "content_sha256"
    assert content_sha256(item) != content_sha256(_item(claim="D."))
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    [res] = ReplayReferenceScorer(path, scores_from="checks").score_reference([item])
    assert res.status == "ok" and res.precision == 0.5
    [miss] = ReplayReferenceScorer(path).score_reference([_item(ref="Question: r?\nAnswer: changed.")])
    assert miss.status == "replay_missing" and "content_sha256" in miss.error
    assert ReplayReferenceScorer(path, scores_from="checks").signature_fields()["read"] == "checks>counts"
    assert "read" not in ReplayReferenceScorer(path).signature_fields()
    with pytest.raises(ValueError, match="scores_from"):
        ReplayReferenceScorer(path, scores_from="best")
