"""Parsing (tolerant extraction, strict validation) and the content-addressed cache."""

import json
import math

import pytest

from ev2r.labels import Verdict
from ev2r.llm import ParseError, ResponseCache, load_prompt, parse_reference_answer, request_key
from ev2r.llm.parse import parse_reference_response, verdict_distribution

from support.llm import GOOD


def chat(text):
    return {"choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}


def test_extracts_json_from_fences_preamble_and_trailing_text():
    blob = json.dumps(GOOD)
    for text in (blob, f"```json\n{blob}\n```", f"Here you go:\n{blob}\nThat is all {{", f"```\n{blob}```  trailing"):
        res = parse_reference_response(chat(text))
        assert res.status == "ok" and res.precision == 0.5 and res.recall == 1.0
        assert math.isclose(res.f1, 2 / 3)
        assert [f.supported for f in res.predicted_facts] == [True, False]


def test_lists_and_numeric_strings_are_tolerated():
    obj = dict(GOOD)
    obj["facts in predicted evidence"] = ["Fact one about Kerala.", "Fact two about Malayalam."]
    obj["fact check predicted evidence"] = ["Fact one. Supported.", "Fact two. Not supported."]
    obj["facts count predicted evidence"] = "2"
    obj["precision"] = "0.5"
    res = parse_reference_answer(obj)
    assert res.precision == 0.5 and len(res.predicted_facts) == 2


@pytest.mark.parametrize("mutate, needle", [
    (lambda o: o.pop("recall"), "missing keys"),
    (lambda o: o.update({"facts count predicted evidence": 3}), "stated 3 facts but 2"),
    (lambda o: o.update({"precision": 0.9}), "stated precision"),
    (lambda o: o.update({"support predicted evidence": 1.5}), "not whole numbers"),
    (lambda o: o.update({"precision": float("nan")}), "expected a number"),
    (lambda o: o.update({"precision": None}), "expected a number"),
    (lambda o: o.update({"facts count reference evidence": 0, "facts in reference evidence": "",
                         "fact check reference evidence": "", "support reference evidence": 0}), "zero facts"),
])
def test_invalid_answers_raise_parse_error_never_a_number_in_strict_mode(mutate, needle):
    obj = json.loads(json.dumps(GOOD))
    mutate(obj)
    with pytest.raises(ParseError, match=needle):
        parse_reference_answer(obj, scores_from="strict")


@pytest.mark.parametrize("mutate, precision, recall, disagreements", [
    (lambda o: o.pop("recall"), 0.5, 1.0, 0),                                     # stated value missing
    (lambda o: o.update({"facts count predicted evidence": 3}), 0.5, 1.0, 1),      # counts say 1/3
    (lambda o: o.update({"precision": 0.9}), 0.5, 1.0, 0),                          # stated value wrong
    (lambda o: o.update({"support predicted evidence": 1.5}), 0.5, 1.0, 0),         # counts unusable
    (lambda o: o.update({"precision": float("nan")}), 0.5, 1.0, 0),
    (lambda o: o.update({"support predicted evidence": 2}), 0.5, 1.0, 1),           # counts say 2/2
])
def test_default_reading_takes_the_checks_and_records_what_disagrees(mutate, precision, recall, disagreements):
    obj = json.loads(json.dumps(GOOD))
    mutate(obj)
    res = parse_reference_answer(obj)
    assert (res.status, res.precision, res.recall) == ("ok", precision, recall)
    assert res.extra_scores["reading_disagreements"] == disagreements
    assert res.extra_scores["precision_from_checks"] == 0.5


def test_counts_reading_takes_the_stated_counts_first():
    obj = dict(GOOD, **{"support predicted evidence": 2})
    res = parse_reference_answer(obj, scores_from="counts")
    assert res.precision == 1.0 and res.extra_scores["precision_from_checks"] == 0.5
    assert res.extra_scores["reading_disagreements"] == 1
    # unusable counts: the checks are the fallback
    res = parse_reference_answer(dict(GOOD, **{"support predicted evidence": "two"}), scores_from="counts")
    assert res.precision == 0.5 and res.extra_scores["precision_from_counts"] is None


def test_a_side_no_reading_can_score_stays_a_parse_error():
    obj = dict(GOOD, **{"facts count reference evidence": 0, "facts in reference evidence": "",
                        "fact check reference evidence": "", "support reference evidence": 0})
    for mode in ("checks", "counts"):
        with pytest.raises(ParseError, match="reference: no per-fact checks"):
            parse_reference_answer(obj, scores_from=mode)
    with pytest.raises(ValueError, match="scores_from"):
        parse_reference_answer(GOOD, scores_from="guess")


def test_unparsable_text_and_echoed_prompt_are_parse_errors():
    for text in ("", "The evidence supports the claim.", '{"facts in predicted evidence": "1. A', "{not json}"):
        with pytest.raises(ParseError):
            parse_reference_response(chat(text))
    # a model echoing the prompt (or copying its worked example) must not yield the example as a score
    from ev2r.llm import LLMReferenceScorer
    from ev2r.io import evidence_from_text
    from ev2r.types import Item

    item = Item(id="1", claim="Kerala has 33 million people.",
                predicted_evidence=evidence_from_text("Question: Population?\nAnswer: 33 million."),
                reference_evidence=evidence_from_text("Question: Population?\nAnswer: 3,33,87,677."))
    template = load_prompt("reference_prf").render(claim=item.claim, predicted_evidence="p", reference_evidence="r")
    with pytest.raises(ParseError):
        parse_reference_response(chat(template))
    example = load_prompt("reference_prf_example").render(claim=item.claim, predicted_evidence="p", reference_evidence="r")
    scorer = LLMReferenceScorer(model="m", base_url="http://127.0.0.1:9/v1", cache_dir=False,
                                prompt="reference_prf_example")
    with pytest.raises(ParseError, match="copies the prompt's example"):
        scorer._parse_for(item, chat(example))
    assert scorer._parse_for(item, chat(json.dumps(GOOD))).precision == 0.5
    placeholder = dict(GOOD, **{"facts in predicted evidence": "1. ... 2. ...",
                                "fact check predicted evidence": "1. ... Supported. 2. ... Not supported."})
    with pytest.raises(ParseError, match="placeholder"):
        parse_reference_answer(placeholder)


def test_verdict_distribution_from_letter_logprobs():
    resp = {"choices": [{"message": {"content": " B"}, "logprobs": {"content": [
        {"token": " B", "logprob": math.log(0.6), "top_logprobs": [
            {"token": " B", "logprob": math.log(0.6)}, {"token": "B", "logprob": math.log(0.1)},
            {"token": " A", "logprob": math.log(0.2)}, {"token": " the", "logprob": math.log(0.1)}]}]}}]}
    d = verdict_distribution(resp)
    assert math.isclose(sum(d.values()), 1.0)
    assert math.isclose(d[Verdict.REFUTED], 0.7 / 0.9) and math.isclose(d[Verdict.SUPPORTED], 0.2 / 0.9)
    assert d[Verdict.CONFLICTING] == 0.0
    with pytest.raises(ParseError, match="no logprobs"):
        verdict_distribution({"choices": [{"message": {"content": "B"}}]})
    no_letter = {"choices": [{"logprobs": {"content": [{"token": "The", "logprob": -0.1, "top_logprobs": []}]}}]}
    with pytest.raises(ParseError, match="verdict letter"):
        verdict_distribution(no_letter)


def test_cache_key_covers_model_prompt_and_decoding():
    msgs = [{"role": "user", "content": "hello"}]
    k = request_key("m", "chat", msgs, {"temperature": 0.0, "seed": 0, "max_tokens": 8})
    assert k == request_key("m", "chat", msgs, {"max_tokens": 8, "seed": 0, "temperature": 0.0})
    assert k != request_key("m2", "chat", msgs, {"temperature": 0.0, "seed": 0, "max_tokens": 8})
    assert k != request_key("m", "chat", [{"role": "user", "content": "hello!"}],
                            {"temperature": 0.0, "seed": 0, "max_tokens": 8})
    assert k != request_key("m", "chat", msgs, {"temperature": 0.0, "seed": 1, "max_tokens": 8})
    assert k != request_key("m", "chat", msgs, {"temperature": 0.0, "seed": 0, "max_tokens": 9})


def test_cache_roundtrip_and_corrupt_entry_is_a_miss(tmp_path):
    c = ResponseCache(tmp_path / "c")
    assert c.get("ab" * 32) is None and len(c) == 0
    c.put("ab" * 32, {"model": "m"}, {"choices": []})
    assert c.get("ab" * 32) == {"choices": []} and len(c) == 1
    assert not list((tmp_path / "c").rglob(".tmp-*"))  # written to a temporary file, then renamed
    (c.path("ab" * 32).parent / ".tmp-x.part").write_text("{", encoding="utf-8")  # a write cut off
    assert len(c) == 1
    c.path("ab" * 32).write_text('{"key": "ab', encoding="utf-8")  # truncated by hand
    assert c.get("ab" * 32) is None


def test_prompts_are_package_data_with_stable_hash():
    p = load_prompt("reference_prf")
    assert p.id.startswith("reference_prf@") and len(p.sha256) == 64
    text = p.render(claim="C", predicted_evidence="P", reference_evidence="R")
    assert "C" in text and "$" not in text
    for key in ("facts in predicted evidence", "support reference evidence", "precision", "recall"):
        assert f'"{key}"' in p.text
    with pytest.raises(ValueError, match="shipped prompts"):
        load_prompt("nope")
