"""Reading an LLM's reference-based reply as far as it goes: enumerations in the
layouts models write, per-fact checks vs stated counts, and the recorded disagreement."""

import json

import pytest

from ev2r.facts.replay import (ReplayReferenceScorer, check_flags, content_sha256, read_reference_reply,
                               recording_mismatch, split_enumeration)
from ev2r.io import evidence_from_text
from ev2r.types import Item


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
    # the 0.5B model's layout: facts on one line, its own counts disagree with its checks
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
    assert res.precision == 0.5 and [f.fact for f in res.predicted_facts] == ["A.", "B."]  # verdicts stripped
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
    return Item(id="7", claim=claim, predicted_evidence=evidence_from_text(pred), reference_evidence=evidence_from_text(ref))


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


# -- the hostile tester's findings, each a class -------------------------------------------------
@pytest.mark.parametrize("check, verdict", [
    ("1. Supported. Kenya gained independence in 1963.", True),   # verdict first (a 1.5B recording)
    ("A is not red: Supported", True), ("A is not red - Supported", True),
    ("Supported (the reference doesn't give the date).", True),
    ("Isn't supported.", False), ("Neither supported nor refuted.", False), ("Partially supported.", False),
    ("Not enough information.", False), ("The senator supports the bill. Not supported.", False),
    ("Yes", True), ("No", False), ("Podporováno.", True), ("Nepodporováno.", False),
    ("A is red.", None), ("Supported?", None),
    (True, True), (0, False), ({"fact": "The senator supports the bill", "supported": 0}, False),
    ({"supported": "yes"}, True), ({}, None),
])
def test_check_verdicts(check, verdict):
    from ev2r.facts.replay import check_verdict

    assert check_verdict(check) is verdict


def test_a_check_without_a_verdict_leaves_the_side_to_the_counts():
    reply = _reply(**{"fact check predicted evidence": "1. A. 2. B.", "support predicted evidence": 1})
    res = read_reference_reply(reply)
    assert res.precision == 0.5 and res.extra_scores["precision_from_checks"] is None
    assert check_flags([True, False]) == [True, False]


@pytest.mark.parametrize("facts, checks", [
    ("1. <fact> 2. <fact>", "1. <fact> Supported. 2. <fact> Not supported."),
    ("1. <fact>. 2. <fact>.", "1. A. Supported. 2. B. Not supported."),
    ("1. [fact] 2. [fact]", "1. A. Supported. 2. B. Not supported."),
    ("", "1. <fact> Supported. 2. <fact> Not supported."),
    ("1. ... 2. ...", "1. ... Supported. 2. ... Not supported."),
])
def test_placeholders_are_refused_live_and_offline(facts, checks):
    from ev2r.llm import ParseError, parse_reference_answer

    reply = _reply(**{"facts in predicted evidence": facts, "fact check predicted evidence": checks})
    for mode in ("checks", "counts", "strict"):
        assert read_reference_reply(reply, mode).status == "replay_inconsistent"
        with pytest.raises(ParseError):
            parse_reference_answer(reply, mode)


def test_huge_numbers_are_an_unusable_reply_not_a_crash():
    from ev2r.llm import ParseError, extract_json_object, parse_reference_answer

    for mode in ("checks", "counts", "strict"):
        res = read_reference_reply(_reply(**{"facts count predicted evidence": 10 ** 400, "precision": 10 ** 400}), mode)
        assert res.status in ("ok", "replay_inconsistent") and (res.precision is None or 0 <= res.precision <= 1)
    with pytest.raises(ParseError):
        extract_json_object('{"facts count predicted evidence": ' + "9" * 5000 + "}")
    with pytest.raises(ParseError):
        parse_reference_answer(_reply(**{"facts count predicted evidence": 10 ** 400}), "strict")


@pytest.mark.parametrize("text, expected, items", [
    ("1. He finished in 2. place. 2. He won gold.", None, ["He finished in 2. place.", "He won gold."]),
    ("Facts:\n1. A\n2. B", None, ["A", "B"]),
    ("1.\n2.", None, []),
    ("1. A. 2. B 3. C.", None, ["A.", "B", "C."]),
    ("1. A 2. B", 2, ["A", "B"]),
])
def test_enumeration_splits_keep_numbers_inside_facts(text, expected, items):
    assert split_enumeration(text, expected) == items


def test_strict_live_and_strict_replay_read_alike(tmp_path):
    from ev2r.llm import parse_reference_answer

    reply = _reply(**{"facts in predicted evidence": ["A.", "B."], "facts count predicted evidence": "2"})
    live = parse_reference_answer(reply, "strict")
    replayed = read_reference_reply(reply, "strict")
    assert (live.precision, live.recall) == (replayed.precision, replayed.recall) == (0.5, 1.0)


def test_repeated_ids_join_by_content_hash(tmp_path):
    a, b = _item(), _item(pred="Question: q?\nAnswer: other.")
    rows = [{"model": "m", "id": "7", "content_sha256": content_sha256(a), "llm_response": _reply()},
            {"model": "m", "id": "7", "content_sha256": content_sha256(b),
             "llm_response": _reply(**{"support reference evidence": 0,
                                       "fact check reference evidence": "1. C. Not supported."})}]
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    ra, rb = ReplayReferenceScorer(path, scores_from="checks").score_reference([a, b])
    assert (ra.recall, rb.recall) == (1.0, 0.0)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows + rows[:1]))
    with pytest.raises(ValueError, match="a second recorded response"):
        ReplayReferenceScorer(path)


def test_recorded_answers_are_read_as_the_live_path_reads_and_other_content_is_asked(tmp_path):
    from ev2r.llm import LLMReferenceScorer
    from ev2r.llm.local_server import FakeChatServer, chat_response

    item, other = _item(), _item(pred="Question: q?\nAnswer: changed.")
    path = tmp_path / "r.jsonl"
    reply = _reply(**{"facts in predicted evidence": ["A.", "B."], "facts count predicted evidence": "2"})
    path.write_text(json.dumps({"model": "m", "id": "7", "content_sha256": content_sha256(item),
                                "llm_response": reply}) + "\n")
    with FakeChatServer(lambda body: (200, chat_response(json.dumps(_reply())), 0)) as server:
        sc = LLMReferenceScorer(model="m", base_url=server.base_url, cache_dir=False, recorded=path,
                                scores_from="checks", backoff=0.01)
        served, asked = sc.score_reference([item, other])
        assert served.status == "ok" and served.llm.calls == 0 and served.precision == 0.5
        assert asked.status == "ok" and asked.llm.calls == 1  # a recording of other content is not a reason to skip


def test_reply_reading_and_llm_options_must_not_contradict():
    from ev2r.config import ScorerConfig

    with pytest.raises(ValueError, match="contradicts"):
        ScorerConfig(decomposer="llm", llm_options={"model": "m", "scores_from": "counts"}, reply_reading="strict")
    with pytest.raises(ValueError, match="scores_from 'bogus'"):
        ScorerConfig(decomposer="llm", llm_options={"model": "m", "scores_from": "bogus"})


def test_a_replayed_reply_that_copies_the_prompts_example_is_refused_as_live(tmp_path):
    from ev2r.llm.prompts import example_facts_of, load_prompt

    item = _item()
    copied = _reply(**{"facts in predicted evidence": "1. The Eiffel Tower stands in Paris. 2. B."})
    prompt = load_prompt("reference_prf_example").id
    path = tmp_path / "r.jsonl"
    for name, expected in ((prompt, "replay_inconsistent"), ("reference_prf_example@000000000000", "ok"), (None, "ok")):
        path.write_text(json.dumps({"model": "m", "id": "7", "content_sha256": content_sha256(item), "prompt": name,
                                    "llm_response": copied}) + "\n")
        [res] = ReplayReferenceScorer(path, scores_from="checks", example_facts=example_facts_of).score_reference([item])
        assert res.status == expected, (name, res.error)
        assert ReplayReferenceScorer(path, scores_from="checks").score_reference([item])[0].status == "ok"  # no check


# -- a reply that is JSON but for unescaped quotes in a value (Qwen 1.5B, 86-row item 677) ----------
UNESCAPED = ('{"facts in predicted evidence": "1. The storm hit Galveston in 1900.", '
             '"fact check predicted evidence": "1. Supported.", "facts count predicted evidence": 1, '
             '"support predicted evidence": 1, "facts in reference evidence": "1. Up to 8,000 people died. '
             '2. NOAA calls it the "greatest natural disaster."", "fact check reference evidence": '
             '"1. Supported.\\n2. Not supported.", "facts count reference evidence": 2, '
             '"support reference evidence": 1, "precision": 1.0, "recall": 0.5}')


def test_keyed_reader_reads_unescaped_quotes_and_refuses_cut_off_text():
    from ev2r.facts.replay import keyed_object_from_text

    with pytest.raises(ValueError):
        json.loads(UNESCAPED)
    obj = keyed_object_from_text("Here it is:\n" + UNESCAPED + "\nDone.")
    assert obj["facts in reference evidence"] == '1. Up to 8,000 people died. 2. NOAA calls it the "greatest natural disaster."'
    assert obj["fact check reference evidence"] == "1. Supported.\n2. Not supported."
    assert obj["facts count reference evidence"] == 2 and obj["recall"] == 0.5 and len(obj) == 10
    # a key given twice keeps its last value (as json.loads)
    assert keyed_object_from_text('{"precision": 1, "recall": 0.5, "precision": 0}') == {"precision": 0, "recall": 0.5}
    assert keyed_object_from_text(UNESCAPED[:-30]) is None  # cut off: the object never closes
    assert keyed_object_from_text('{"precision": 1}') is None  # one key is not a reply
    assert keyed_object_from_text("no object") is None and keyed_object_from_text(None) is None


def test_live_and_replay_read_an_unescaped_reply_alike(tmp_path):
    from ev2r.facts.replay import ReplayReferenceScorer, content_sha256
    from ev2r.llm.parse import ParseError, parse_reference_response
    from ev2r.io import evidence_from_text
    from ev2r.types import Item

    resp = {"choices": [{"finish_reason": "stop", "message": {"content": UNESCAPED}}]}
    live = parse_reference_response(resp)
    assert (live.precision, live.recall) == (1.0, 0.5) and live.extra_scores["reply_json_repaired"] == 1.0
    with pytest.raises(ParseError):
        parse_reference_response(resp, "strict")  # strict reads JSON only
    cut = {"choices": [{"finish_reason": "length", "message": {"content": UNESCAPED[:-30]}}]}
    with pytest.raises(ParseError, match="length limit"):
        parse_reference_response(cut)
    item = Item(id="677", claim="The 1900 Galveston hurricane was the deadliest US disaster.",
                predicted_evidence=evidence_from_text("Question: When?\nAnswer: 1900."),
                reference_evidence=evidence_from_text("Question: Deaths?\nAnswer: 6,000 to 8,000."))
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"model": "m", "id": "677", "content_sha256": content_sha256(item),
                                "llm_response": UNESCAPED}) + "\n")
    (rep,) = ReplayReferenceScorer(path, scores_from="checks").score_reference([item])
    assert (rep.status, rep.precision, rep.recall) == ("ok", 1.0, 0.5)
    assert rep.extra_scores["reply_json_repaired"] == 1.0
    (strict,) = ReplayReferenceScorer(path, scores_from="strict").score_reference([item])
    assert strict.status == "replay_inconsistent"


def test_keyed_reader_never_reads_an_object_that_stops_inside_a_value_and_replay_mirrors_cut_offs(tmp_path):
    from ev2r.facts.replay import ReplayReferenceScorer, content_sha256, keyed_object_from_text
    from ev2r.io import evidence_from_text
    from ev2r.types import Item

    unclosed = UNESCAPED[:-1] + ', "recall": "see {a} and'  # a '}' inside a string, the object never closes
    assert keyed_object_from_text(unclosed) is None
    item = Item(id="1", claim="c.", predicted_evidence=evidence_from_text("Question: q?\nAnswer: a."),
                reference_evidence=evidence_from_text("Question: r?\nAnswer: b."))
    path = tmp_path / "r.jsonl"
    # closed object, then trailing text cut at the length limit: the live run refused it (AnswerCutOff)
    path.write_text(json.dumps({"model": "m", "id": "1", "content_sha256": content_sha256(item), "finish_reason": "length",
                                "llm_response": UNESCAPED + "\nExplanation: the first"}) + "\n")
    (rep,) = ReplayReferenceScorer(path, scores_from="checks").score_reference([item])
    assert rep.status == "replay_inconsistent" and "length limit" in rep.error
