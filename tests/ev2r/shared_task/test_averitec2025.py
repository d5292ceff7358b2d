"""``ev2r averitec --edition 2025``: the FEVER-8 table (Ev2R recall, new AVeriTeC score).

No model and no network: the LLM judge talks to a stand-in transport (an ``openai.OpenAI``-like
object injected into :class:`ev2r.llm.LLMClient`) that returns hand-made replies -- good ones,
garbage, missing keys, zero and impossible counts, a failed call -- and the bundled path uses a
stand-in verifier with ``predict(premises, hypotheses) -> (n, 3)``. Aggregates are hand-computed.
"""

import copy
import json
from types import SimpleNamespace

import numpy as np
import pytest

from ev2r.shared_task.averitec2025 import (
    BUNDLED_JUDGE_LABEL,
    JudgeAnswerError,
    LLMRecallJudge,
    NLIRecallJudge,
    evaluate_averitec_2025,
    format_2025_table,
    load_judge_prompt,
    meets_recall_level,
    new_averitec_contribution,
    parse_recall_answer,
    render_pairs,
    render_questions,
)
from ev2r.shared_task.averitec2024 import AveritecInputError, JoinError
from ev2r.cli.main import main
from ev2r.llm import LLMClient, load_prompt
from support.fakes import AllWordsVerifier

MODEL = "judge-standin"
Q_PROMPT_HEAD = load_prompt("averitec2025_question_recall").text[:40]


# ----------------------------------------------------------------------------- stand-ins


def chat_response(content):
    return {"id": "x", "object": "chat.completion", "created": 0, "model": MODEL,
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}


class StandInTransport:
    """``openai.OpenAI``-like: ``.chat.completions.create(model=, messages=, **params)``. The reply
    is looked up by (claim text, part) in ``replies``; an exception there is raised (a failed
    call). Every call is recorded."""

    def __init__(self, replies, on_reask=None):
        self.replies = replies
        self.on_reask = on_reask
        self.calls = []
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self.create))

    def create(self, model, messages, timeout=None, **params):
        self.calls.append({"model": model, "messages": messages, "params": params})
        prompt = messages[0]["content"]
        part = "q" if prompt.startswith(Q_PROMPT_HEAD) else "qa"
        claim = next(c for c in CLAIMS if f"Claim: {c}\n" in prompt)
        if len(messages) > 1:  # a re-ask
            reply = self.on_reask(claim, part, messages)
        else:
            reply = self.replies[(claim, part)]
        if isinstance(reply, BaseException):
            raise reply
        return chat_response(reply)


class Forbidden:
    """A transport that must never be reached."""

    def __init__(self):
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self.create))

    def create(self, **kw):
        raise AssertionError("the network was used")


def make_client(tmp_path, transport, **kw):
    opts = dict(model=MODEL, client=transport, cache_dir=tmp_path / "cache", max_retries=0, backoff=0.0,
                concurrency=2)
    opts.update(kw)
    return LLMClient(**opts)


# ----------------------------------------------------------------------------- data


def gq(question, answer, **extra):
    return {"question": question, "answers": [{"answer": answer, "answer_type": "Extractive", **extra}]}


CLAIMS = ["claim zero", "claim one", "claim two", "claim three", "claim four", "claim five", "claim six",
          "claim seven"]
GOLD = [
    {"claim": "claim zero", "label": "Refuted", "questions": [gq("Q0a?", "A0a."), gq("Q0b?", "A0b.")]},
    {"claim": "claim one", "label": "Supported", "questions": [gq("Q1?", "A1.")]},
    {"claim": "claim two", "label": "Refuted", "questions": [gq("Q2?", "A2.")]},
    {"claim": "claim three", "label": "Not Enough Evidence", "questions": [gq("Q3?", "A3.")]},
    {"claim": "claim four", "label": "Refuted", "questions": []},  # no gold questions
    {"claim": "claim five", "label": "Supported", "questions": [gq("Q5?", "A5.")]},
    {"claim": "claim six", "label": "Conflicting Evidence/Cherrypicking",
     "questions": [gq("Q6?", "A6."), {"question": "Q6b?", "answers": []}]},
    {"claim": "claim seven", "label": "Refuted",
     "questions": [{"question": "Q7?", "answers": [
         {"answer": "Yes", "answer_type": "Boolean", "boolean_explanation": "the record says so"},
         {"answer": "A7 second.", "answer_type": "Extractive"}]}]},
]


def ev(*pairs):
    return [{"question": q, "answer": a, "url": "http://example.org"} for q, a in pairs]


PREDS = [
    {"claim_id": 0, "claim": "claim zero", "pred_label": "Refuted", "evidence": ev(("P0a?", "B0a."), ("P0b?", "B0b."))},
    {"claim_id": 1, "pred_label": "Refuted", "evidence": ev(("P1?", "B1."))},  # wrong verdict
    {"claim_id": 2, "pred_label": "Refuted", "evidence": ev(("P2?", "B2."))},
    {"claim_id": 3, "pred_label": "Not Enough Evidence", "evidence": ev(("P3?", "B3."))},
    {"claim_id": 4, "pred_label": "Refuted", "evidence": ev(("P4?", "B4."))},
    {"claim_id": 5, "pred_label": "Supported", "evidence": []},  # retrieved nothing
    {"claim_id": 6, "pred_label": "Conflicting Evidence/Cherrypicking", "evidence": ev(("P6?", "B6."), ("P6b?", None))},
    {"claim_id": 7, "pred_label": "Supported", "evidence": ev(("P7?", "B7."))},  # wrong verdict
]


def counts(family, n, s, **extra):
    return json.dumps({f"facts count reference {family}": n, f"support reference {family}": s, **extra})


REPLIES = {
    ("claim zero", "q"): counts("questions", 2, 1),                               # 0.5
    ("claim zero", "qa"): "Here is my answer:\n" + counts("evidence", 4, 2, recall=0.9),  # 0.5; own recall ignored
    ("claim one", "q"): counts("questions", 1, 1),                                # 1.0
    ("claim one", "qa"): "```json\n" + counts("evidence", 3, 3) + "\n```",         # 1.0
    ("claim two", "q"): "I am unable to judge this evidence.",                    # garbage -> parse_error
    ("claim two", "qa"): json.dumps({"support reference evidence": 2}),           # missing_keys
    ("claim three", "q"): counts("questions", 0, 0),                              # zero_facts
    ("claim three", "qa"): RuntimeError("server exploded"),                       # failed call -> api_error
    ("claim six", "q"): counts("evidence", 3, 2),                                 # other key family: 2/3
    ("claim six", "qa"): counts("evidence", 5, 3),                                # 0.6
    ("claim seven", "q"): json.dumps({"facts count reference questions": "2", "support reference questions": "1"}),
    ("claim seven", "qa"): counts("evidence", 3, 5),                              # support > count -> bad_counts
}


@pytest.fixture
def run(tmp_path):
    transport = StandInTransport(REPLIES)
    client = make_client(tmp_path, transport)
    report = evaluate_averitec_2025(PREDS, GOLD, LLMRecallJudge(client))
    return SimpleNamespace(report=report, transport=transport, client=client, tmp_path=tmp_path)


# ----------------------------------------------------------------------------- aggregation


def test_hand_computed_scores_both_ways(run):
    r = run.report
    assert r.n_claims == 8 and r.edition == "2025" and r.recall_comparison == "gt"
    # Q only judged: claims 0 (1/2), 1 (1/1), 5 (0, no predicted questions), 6 (2/3), 7 (1/2)
    assert r.question_only.n_judged == 5
    assert r.question_only.judged == pytest.approx((0.5 + 1 + 0 + 2 / 3 + 0.5) / 5, abs=1e-12)
    assert r.question_only.failures_as_zero == pytest.approx((0.5 + 1 + 0 + 2 / 3 + 0.5) / 8, abs=1e-12)
    # Q + A judged: claims 0 (2/4), 1 (3/3), 5 (0), 6 (3/5)
    assert r.question_answer.n_judged == 4
    assert r.question_answer.judged == pytest.approx(2.1 / 4, abs=1e-12)
    assert r.question_answer.failures_as_zero == pytest.approx(2.1 / 8, abs=1e-12)
    # new AVeriTeC (default > 0.5, the final FEVER-8 script): claim 0 right but exactly 0.5 -> 0; claim 1 wrong -> 0;
    # claim 5 recall 0 -> 0; claim 6 (0.6, right) -> 1
    assert r.new_averitec.n_judged == 4
    assert r.new_averitec.judged == pytest.approx(0.25) and r.new_averitec.failures_as_zero == pytest.approx(0.125)
    by_id = {c.claim_id: c for c in r.claims}
    assert [by_id[k].new_averitec for k in (0, 1, 5, 6)] == [0.0, 0.0, 0.0, 1.0]
    assert by_id[0].q_recall == 0.5 and by_id[0].qa_recall == 0.5 and by_id[0].meets_level is False
    # the other comparison (>= 0.5, the April 2025 script) is given too; claim 0 is the one at exactly 0.5
    assert r.other_comparison == "ge" and r.n_at_level == 1 and r.n_at_level_correct == 1
    assert r.new_averitec_other.judged == pytest.approx(0.5) and r.new_averitec_other.failures_as_zero == pytest.approx(0.25)
    assert by_id[6].q_recall == pytest.approx(2 / 3) and by_id[6].qa_recall == pytest.approx(0.6)
    assert by_id[0].question_answer.support == 2 and by_id[0].question_answer.facts == 4
    assert by_id[7].q_recall == 0.5  # numeric strings are read as numbers


def test_statuses_and_failures_by_cause(run):
    r = run.report
    assert r.n_failed == {"question_only": {"parse_error": 1, "zero_facts": 1, "no_reference_questions": 1},
                          "question_answer": {"missing_keys": 1, "api_error": 1, "no_reference_questions": 1,
                                              "bad_counts": 1}}
    assert r.failed_ids["question_only"] == {"parse_error": [2], "zero_facts": [3], "no_reference_questions": [4]}
    assert r.failed_ids["question_answer"] == {"missing_keys": [2], "api_error": [3], "no_reference_questions": [4],
                                               "bad_counts": [7]}
    by_id = {c.claim_id: c for c in r.claims}
    assert [by_id[k].status for k in range(8)] == ["ok", "ok", "failed", "failed", "failed", "ok", "ok", "failed"]
    # a failure is None, never a 0 in disguise
    for k in (2, 3, 4):
        assert by_id[k].qa_recall is None and by_id[k].new_averitec is None and by_id[k].meets_level is None
    assert by_id[2].q_recall is None and by_id[7].qa_recall is None
    assert by_id[3].failures == {"question_only": "zero_facts", "question_answer": "api_error"}
    assert "server exploded" in by_id[3].question_answer.error
    assert "facts count reference evidence" in by_id[2].question_answer.error  # names the missing keys
    # a claim without gold questions is reported, not sent, not divided by
    assert by_id[4].question_only.called is False and by_id[4].n_reference_questions == 0
    # retrieved nothing: recall 0 without a call, status ok, noted
    assert by_id[5].status == "ok" and by_id[5].qa_recall == 0.0 and by_id[5].question_answer.called is False
    assert r.notes == {"no_predicted_questions": 1, "no_predicted_evidence": 1,
                       "reference_question_without_answer": 1, "predicted_question_without_answer": 1}
    assert len(run.transport.calls) == 12  # claims 0, 1, 2, 3, 6, 7, both parts
    assert r.judge_run["statuses"] == {"ok": 7, "parse_error": 1, "missing_keys": 1, "zero_facts": 1,
                                       "api_error": 1, "bad_counts": 1}


def test_recall_comparison_ge_and_gt(tmp_path):
    assert meets_recall_level(0.5, "ge") and not meets_recall_level(0.5, "gt")
    assert meets_recall_level(0.51, "gt") and not meets_recall_level(0.49, "ge")
    assert new_averitec_contribution(0.5, True, "ge") == 1.0 and new_averitec_contribution(0.5, True, "gt") == 0.0
    assert new_averitec_contribution(1.0, False, "ge") == 0.0
    client = make_client(tmp_path, StandInTransport(REPLIES))
    r = evaluate_averitec_2025(PREDS, GOLD, LLMRecallJudge(client), recall_comparison="ge")
    # claim 0 (exactly 0.5, right verdict) and claim 6 (0.6) count under >=
    assert r.new_averitec.judged == pytest.approx(0.5) and r.new_averitec.failures_as_zero == pytest.approx(0.25)
    assert r.new_averitec_other.judged == pytest.approx(0.25) and r.other_comparison == "gt" and r.n_at_level == 1
    assert r.question_answer.judged == pytest.approx(2.1 / 4)  # the recalls themselves do not change
    assert "cmp:ge0.5" in r.signature and r.to_dict()["new_averitec_rule"] == "label correct and Q + A recall >= 0.5"
    table = format_2025_table(r)
    assert "new AVeriTeC score (recall >= 0.5):" in table and "--recall-comparison ge" in table
    from ev2r.shared_task.averitec2025 import DEFAULT_RECALL_COMPARISON

    assert DEFAULT_RECALL_COMPARISON == "gt" and meets_recall_level(0.5) is False and meets_recall_level(0.51) is True
    with pytest.raises(ValueError, match=r"--recall-comparison.*'ge', 'gt'"):
        evaluate_averitec_2025(PREDS, GOLD, LLMRecallJudge(client), recall_comparison=">=")
    with pytest.raises(ValueError, match="--recall-comparison"):
        meets_recall_level(0.5, "geq")


def test_table_json_and_signature(run):
    r = run.report
    table = format_2025_table(r)
    lines = table.splitlines()
    assert lines[0] == "AVeriTeC 2025 (FEVER-8) evaluation:"
    assert "Failures counted as 0 (official convention, n=8):" in lines
    zero_block = lines[lines.index("Failures counted as 0 (official convention, n=8):") + 1:][:3]
    assert zero_block[0] == "Q only (Ev2R recall):".ljust(40) + repr(r.question_only.failures_as_zero)
    assert zero_block[2].startswith("new AVeriTeC score (recall > 0.5):") and zero_block[2].endswith("0.125")
    assert ("new AVeriTeC score: label correct and Q + A recall > 0.5 (--recall-comparison gt: the final FEVER-8 "
            "leaderboard script; --recall-comparison ge, recall >= 0.5: the organisers' April 2025 script)") in lines
    assert ("claims judged at exactly Q + A recall 0.5: 1 (1 with the right verdict: the claims the two comparisons "
            "score differently)") in lines
    assert "new AVeriTeC score (recall >= 0.5):".ljust(40) + "0.25 (failures as 0; 0.5 over judged claims)" in lines
    assert "Q + A (Ev2R recall):".ljust(40) + "0.525 (n=4)" in table
    assert "failed Q + A: missing_keys 1 [2]; api_error 1 [3]; no_reference_questions 1 [4]; bad_counts 1 [7]" in table
    assert f"judge: LLM {MODEL} at the OpenAI API; project prompts, not the organisers' wording" in table
    sig = r.signature
    assert sig.startswith("averitec:2025|judge:llm|llm:judge-standin|decoding:t0-seed0|maxtok:3000|reask:0|")
    assert "prompt_q:averitec2025_question_recall@" in sig and "prompt_qa:averitec2025_recall@" in sig
    assert "render:fever8" in sig and "cmp:gt0.5" in sig and sig in table
    d = json.loads(json.dumps(r.to_dict(with_claims=True)))
    assert d["question_answer"] == {"judged": 0.525, "n_judged": 4, "failures_as_zero": 0.2625, "n_claims": 8}
    assert d["official_judge"] is True and d["recall_comparison"] == "gt" and d["other_comparison"] == "ge"
    assert d["n_at_level"] == 1 and d["n_at_level_correct"] == 1
    assert d["new_averitec_other"] == {"judged": 0.5, "n_judged": 4, "failures_as_zero": 0.25, "n_claims": 8}
    assert d["claims"][3]["question_answer"]["status"] == "api_error"


# ----------------------------------------------------------------------------- what the judge sees


def test_requests_render_the_fever8_evidence(run):
    sent = {}
    for call in run.transport.calls:
        text = call["messages"][0]["content"]
        claim = next(c for c in CLAIMS if f"Claim: {c}\n" in text)
        sent[(claim, "q" if text.startswith(Q_PROMPT_HEAD) else "qa")] = (text, call["params"])
    text, params = sent[("claim seven", "qa")]
    assert params["max_tokens"] == 3000 and params["temperature"] == 0.0
    assert "Q7?\t\t\nYes\t\t\n\n" in text  # the first gold answer only, without its Boolean explanation
    assert "record says so" not in text and "A7 second." not in text
    assert "P7?\t\t\nB7.\t\t\n\n" in text
    text, _ = sent[("claim six", "q")]
    assert "['Q6?', 'Q6b?']" in text and "['P6?', 'P6b?']" in text  # questions as a Python list literal
    text, _ = sent[("claim six", "qa")]
    assert "Q6b?\t\t\nNo answer could be found.\t\t\n\n" in text and "P6b?" not in text
    assert render_pairs([("Q?", "A."), ("", "Text.")]) == "Q?\t\t\nA.\t\t\n\nText.\t\t\n\n"
    assert render_questions(["It's?", "B?"]) == "[\"It's?\", 'B?']"


def test_parse_recall_answer_rules():
    ok = chat_response(counts("evidence", 4, 3))
    assert parse_recall_answer(ok, "question_answer") == (3, 4)
    assert parse_recall_answer('{"facts count reference questions": 2.0, "support reference questions": "0"}',
                               "question_only") == (0, 2)
    for text, status in [("no json here", "parse_error"), ("", "parse_error"),
                         ('{"precision": 1, "recall": 1}', "missing_keys"),
                         (counts("evidence", 0, 0), "zero_facts"), (counts("evidence", 2, 3), "bad_counts"),
                         (counts("evidence", 2, -1), "bad_counts"), (counts("evidence", 2.5, 1), "bad_counts"),
                         (counts("evidence", True, 1), "bad_counts"), (counts("evidence", "many", 1), "bad_counts")]:
        with pytest.raises(JudgeAnswerError) as info:
            parse_recall_answer(chat_response(text) if text else {"choices": []}, "question_answer")
        assert info.value.status == status, text
    with pytest.raises(ValueError, match="part"):
        parse_recall_answer(ok, "qa")


# ----------------------------------------------------------------------------- cache, replay, re-ask


def test_rerun_hits_the_cache_and_offline_replays(run):
    again = StandInTransport(REPLIES)
    client2 = make_client(run.tmp_path, again)
    r2 = evaluate_averitec_2025(PREDS, GOLD, LLMRecallJudge(client2))
    # only the failed call (never cached) is sent again
    assert len(again.calls) == 1 and client2.stats["cache_hits"] == 11 and client2.stats["calls"] == 1
    assert r2.judge_run["cache_hits"] == 11
    for a, b in zip(run.report.claims, r2.claims):
        assert (a.q_recall, a.qa_recall, a.failures) == (b.q_recall, b.qa_recall, b.failures)
    assert r2.claims[0].question_answer.from_cache is True
    assert r2.question_answer.judged == run.report.question_answer.judged
    # offline replay: never reaches the transport; the uncached request is replay_missing
    off = make_client(run.tmp_path, Forbidden(), offline=True)
    r3 = evaluate_averitec_2025(PREDS, GOLD, LLMRecallJudge(off))
    assert r3.failed_ids["question_answer"]["replay_missing"] == [3]
    assert r3.question_only.judged == run.report.question_only.judged


def test_reask_recovers_an_unusable_answer(tmp_path):
    reasked = {}

    def on_reask(claim, part, messages):
        reasked[(claim, part)] = messages
        return counts("questions", 1, 1)

    transport = StandInTransport(REPLIES, on_reask=on_reask)
    judge = LLMRecallJudge(make_client(tmp_path, transport), max_reasks=1)
    r = evaluate_averitec_2025(PREDS, GOLD, judge)
    # every unusable answer (garbage, missing keys, zero count, support > count) is asked again once
    assert set(reasked) == {("claim two", "q"), ("claim two", "qa"), ("claim three", "q"), ("claim seven", "qa")}
    msgs = reasked[("claim two", "q")]
    assert len(msgs) == 3 and msgs[1] == {"role": "assistant", "content": "I am unable to judge this evidence."}
    assert "no JSON object" in msgs[2]["content"] and "facts count reference questions" in msgs[2]["content"]
    c2 = r.claims[2]
    assert c2.q_recall == 1.0 and c2.qa_recall == 1.0 and c2.status == "ok"
    assert r.claims[3].failures == {"question_answer": "api_error"}  # a failed call is not re-asked
    assert "reask:1" in r.signature and r.judge_run["reasks"] == 4
    with pytest.raises(ValueError, match="max_reasks"):
        LLMRecallJudge(make_client(tmp_path, transport), max_reasks=5)


def test_each_judgement_carries_its_usage_and_judge_run_is_their_sum(run):
    from ev2r.llm import LLMUsage

    judged = [j for c in run.report.claims for j in (c.question_only, c.question_answer) if j.called]
    assert len(judged) == 12 and all(j.llm is not None and j.llm.requests == 1 for j in judged)
    total = LLMUsage.total(j.llm for j in judged)
    jr = run.report.judge_run
    assert {k: jr[k] for k in total.to_dict()} == total.to_dict()
    assert jr["calls"] == 12 and jr["failures"] == 1 and jr["prompt_tokens"] == 11 * 100 and jr["reasks"] == 0
    assert run.client.stats == total.counters()  # the client's counters are the same sum
    assert "llm" not in judged[0].to_dict()  # accounting stays out of the -o rows
    decided = [j for c in run.report.claims for j in (c.question_only, c.question_answer) if not j.called]
    assert decided and all(j.llm is None for j in decided)


def test_dry_run_counts_reasks_and_what_it_cannot_count(tmp_path):
    from ev2r.shared_task.averitec2025 import estimate_averitec_2025

    judge = LLMRecallJudge(make_client(tmp_path, Forbidden()), max_reasks=2)
    est = estimate_averitec_2025(PREDS, GOLD, judge)
    assert (est.n_requests, est.n_cached, est.n_to_send) == (12, 0, 12)
    assert est.max_reasks == 2 and est.reask_requests_max == 24 and est.not_counted == 0
    assert est.max_completion_tokens == 12 * 3000 and est.reask_completion_tokens_max == 24 * 3000
    # after a run without re-asks, the cached unusable answers (4 of them) would be re-asked
    evaluate_averitec_2025(PREDS, GOLD, LLMRecallJudge(make_client(tmp_path, StandInTransport(REPLIES))))
    est = estimate_averitec_2025(PREDS, GOLD, judge)
    assert (est.n_cached, est.n_to_send) == (11, 1)  # the failed call was not cached
    assert est.reask_requests_max == 4 * 2 + 2  # 4 unusable cached answers, and the uncached request
    # a prompt file whose text cannot be filled for some claims is reported, never skipped silently
    f = tmp_path / "braces.txt"
    f.write_text("Claim: {}\nReference: {}\nPredicted: {}", encoding="utf-8")
    j2 = LLMRecallJudge(make_client(tmp_path, Forbidden()), prompt=str(f))
    j2.prompts["question_answer"] = j2.prompts["question_answer"].__class__(
        "broken", "$claim $reference_evidence $predicted_evidence $oops", "0" * 64, "template", "x")
    est = estimate_averitec_2025(PREDS, GOLD, j2)
    assert est.not_counted == 6 and est.n_requests == 6
    (reason, n), = est.not_counted_reasons.items()
    assert n == 6 and reason.startswith("prompt: KeyError") and "oops" in reason


# ----------------------------------------------------------------------------- prompt files


def test_organisers_format_prompt_file(tmp_path):
    f = tmp_path / "organisers_qa.txt"
    f.write_text('Claim: {}\nReference: {}\nPredicted: {}\nAnswer as {{"facts count reference evidence": n, '
                 '"support reference evidence": k}}', encoding="utf-8")
    p = load_judge_prompt(str(f), "question_answer")
    assert p.style == "format" and p.id.startswith("file:organisers_qa.txt@")
    assert p.render("C", "R", "P") == ('Claim: C\nReference: R\nPredicted: P\nAnswer as {"facts count reference '
                                       'evidence": n, "support reference evidence": k}')
    transport = StandInTransport(REPLIES)
    r = evaluate_averitec_2025(PREDS, GOLD, LLMRecallJudge(make_client(tmp_path, transport), prompt=str(f)))
    qa_texts = [c["messages"][0]["content"] for c in transport.calls
                if not c["messages"][0]["content"].startswith(Q_PROMPT_HEAD)]
    want = ('Claim: claim zero\nReference: Q0a?\t\t\nA0a.\t\t\n\nQ0b?\t\t\nA0b.\t\t\n\n\n'
            'Predicted: P0a?\t\t\nB0a.\t\t\n\nP0b?\t\t\nB0b.\t\t\n\n\n'
            'Answer as {"facts count reference evidence": n, "support reference evidence": k}')
    assert want in qa_texts and len(qa_texts) == 6
    assert f"prompt_qa:{p.id}" in r.signature and "prompt_q:averitec2025_question_recall@" in r.signature
    assert r.question_answer.judged == pytest.approx(2.1 / 4)


@pytest.mark.parametrize("text, match", [
    ("Claim: {}\nEvidence: {}", r"--prompt-file: .*found 2 '\{\}' placeholder\(s\), not 3"),
    ("Claim: {claim} {} {}", r"--prompt-file: .*unknown placeholder"),
    ('Reply {"count": 1} {} {} {}', r"--prompt-file: .*"),
    ("$claim $reference_evidence $predicted_evidence $verdict", r"--prompt-file: unknown template field \$verdict"),
    ("$claim $reference_evidence only", r"--prompt-file: a \$-template must contain \$predicted_evidence"),
    ("   \n", r"--prompt-file: .* is empty"),
])
def test_bad_prompt_files_are_refused_naming_the_option(tmp_path, text, match):
    f = tmp_path / "p.txt"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=match):
        load_judge_prompt(str(f), "question_answer")
    with pytest.raises(ValueError, match="--question-prompt-file: cannot read"):
        load_judge_prompt(str(tmp_path / "missing.txt"), "question_only")


# ----------------------------------------------------------------------------- bundled judge

B_GOLD = [{"claim": "Acme was founded by Jane Doe in Leeds.", "label": "Supported", "questions": [
    gq("Who founded Acme Widgets?", "Jane Doe founded Acme Widgets."),
    gq("Where is Acme based?", "Acme is based in Leeds.")]}]
B_PREDS = [{"claim_id": 0, "pred_label": "Supported", "evidence": ev(
    ("Who founded Acme Widgets?", "Jane Doe founded Acme Widgets."),
    ("What colour is the sky?", "The sky is blue today."))}]


def test_bundled_judge_uses_the_nli_reference_recall_and_says_so():
    verifier = AllWordsVerifier()
    judge = NLIRecallJudge(verifier=verifier)
    r = evaluate_averitec_2025(B_PREDS, B_GOLD, judge)
    c = r.claims[0]
    assert verifier.n_pairs > 0
    assert c.q_recall == 0.5 and c.qa_recall == 0.5  # one of two gold questions / facts found
    assert c.question_answer.facts == 2 and c.question_answer.support == 1
    assert c.new_averitec == 0.0 and r.n_at_level == 1  # exactly 0.5: not > 0.5 (the default, the final script)
    assert r.official_judge is False and r.judge_kind == "bundled"
    assert r.judge.startswith(BUNDLED_JUDGE_LABEL) and c.judge.startswith(BUNDLED_JUDGE_LABEL)
    assert "judge:bundled-nli-not-official" in r.signature and "verifier:overlap-standin" in r.signature
    table = format_2025_table(r)
    assert table.splitlines()[0] == f"AVeriTeC 2025 (FEVER-8) evaluation -- {BUNDLED_JUDGE_LABEL}:"
    assert "not comparable with the FEVER-8 leaderboard" in table
    assert r.to_dict()["judge"].startswith(BUNDLED_JUDGE_LABEL)
    r_ge = evaluate_averitec_2025(B_PREDS, B_GOLD, judge, recall_comparison="ge")
    assert r_ge.claims[0].new_averitec == 1.0 and r_ge.new_averitec.judged == r.new_averitec_other.judged == 1.0


def test_bundled_verifier_failure_is_a_status_not_a_zero():
    class Broken(AllWordsVerifier):
        def predict(self, premises, hypotheses):
            return np.full((len(premises), 3), np.nan)

    r = evaluate_averitec_2025(B_PREDS, B_GOLD, NLIRecallJudge(verifier=Broken()))
    c = r.claims[0]
    assert c.status == "failed" and c.q_recall is None and c.qa_recall is None
    assert r.n_failed["question_answer"] == {"error": 1} and r.question_answer.failures_as_zero == 0.0
    assert r.question_answer.judged is None


# ----------------------------------------------------------------------------- inputs


def test_inputs_are_not_modified_and_bad_inputs_are_named(tmp_path):
    preds, gold = copy.deepcopy(PREDS), copy.deepcopy(GOLD)
    evaluate_averitec_2025(preds, gold, LLMRecallJudge(make_client(tmp_path, StandInTransport(REPLIES))))
    assert preds == PREDS and gold == GOLD
    judge = LLMRecallJudge(make_client(tmp_path, Forbidden(), offline=True))
    with pytest.raises(AveritecInputError, match=r"'pred_label' is 'SUPPORTS'; allowed values"):
        evaluate_averitec_2025([dict(PREDS[0], pred_label="SUPPORTS")] + PREDS[1:], GOLD, judge)
    with pytest.raises(JoinError, match=r"gold claims without a prediction: \[7\]"):
        evaluate_averitec_2025(PREDS[:7], GOLD, judge)
    with pytest.raises(ValueError, match="judge: expected"):
        evaluate_averitec_2025(PREDS, GOLD, object())


# ----------------------------------------------------------------------------- CLI


def _write(tmp_path, name, rows):
    path = tmp_path / name
    path.write_text(json.dumps(rows))
    return str(path)


def test_cli_replays_the_cache_offline_and_prints_the_table(run, capsys):
    pred, gold = _write(run.tmp_path, "p.json", PREDS), _write(run.tmp_path, "g.json", GOLD)
    out = run.tmp_path / "claims.jsonl"
    argv = ["averitec", pred, "--references", gold, "--edition", "2025", "--llm-model", MODEL, "--llm-offline",
            "--llm-cache", str(run.tmp_path / "cache"), "-o", str(out)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "Q + A (Ev2R recall):".ljust(40) + "0.525 (n=4)" in captured.out
    assert "(offline replay from the cache)" in captured.out
    assert "replay_missing 1 [3]" in captured.out and "cache_hits=11" in captured.err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["claim_id"] for r in rows] == list(range(8)) and rows[0]["edition"] == "2025"
    assert main(argv[:-2] + ["--json", "--recall-comparison", "gt"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["recall_comparison"] == "gt" and d["new_averitec"]["judged"] == pytest.approx(0.25)
    assert main(argv[:-2] + ["--dry-run"]) == 0
    est = json.loads(capsys.readouterr().out)
    assert est["n_requests"] == 12 and est["n_cached"] == 11


def test_cli_all_prints_both_tables(run, capsys):
    pred, gold = _write(run.tmp_path, "p.json", PREDS), _write(run.tmp_path, "g.json", GOLD)
    code = main(["averitec", pred, "--references", gold, "--edition", "all", "--llm-model", MODEL,
                 "--llm-offline", "--llm-cache", str(run.tmp_path / "cache"), "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    d = json.loads(captured.out)
    assert set(d) == {"2024", "2025"} and d["2024"]["edition"] == "2024" and d["2025"]["n_claims"] == 8


def test_cli_bundled_judge_is_labelled(tmp_path, capsys, monkeypatch):
    import ev2r.metric.factory

    monkeypatch.setattr(ev2r.metric.factory, "get_verifier", lambda *a, **k: AllWordsVerifier())  # no model is loaded
    pred, gold = _write(tmp_path, "p.json", B_PREDS), _write(tmp_path, "g.json", B_GOLD)
    assert main(["averitec", pred, "--references", gold, "--edition", "2025", "--judge", "bundled"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"AVeriTeC 2025 (FEVER-8) evaluation -- {BUNDLED_JUDGE_LABEL}:")
    assert "Q + A (Ev2R recall):".ljust(40) + "0.5 (n=1)" in out


@pytest.mark.parametrize("extra, message", [
    (["--edition", "2024", "--judge", "bundled"], "--judge: only used with --edition 2025 or --edition all"),
    (["--edition", "2025"], "--llm-model: the 2025 LLM judge needs a model name"),
    (["--edition", "2025", "--judge", "bundled", "--llm-model", "m"], "--llm-model: not used with --judge bundled"),
    (["--edition", "2025", "--llm-model", "m", "--llm-offline", "--device", "cpu"],
     "--device: not used with --judge llm"),
    (["--edition", "2025", "--llm-model", "m", "--llm-offline", "--llm-concurrency", "0"], "--llm-concurrency"),
    (["--edition", "2025", "--llm-model", "m", "--llm-offline", "--llm-max-reasks", "9"], "--llm-max-reasks"),
])
def test_cli_bad_options_exit_2_naming_the_option(tmp_path, capsys, monkeypatch, extra, message):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    pred, gold = _write(tmp_path, "p.json", PREDS), _write(tmp_path, "g.json", GOLD)
    assert main(["averitec", pred, "--references", gold] + extra) == 2
    assert message in capsys.readouterr().err


def test_cli_unknown_comparison_is_refused(tmp_path, capsys):
    pred, gold = _write(tmp_path, "p.json", PREDS), _write(tmp_path, "g.json", GOLD)
    with pytest.raises(SystemExit) as info:
        main(["averitec", pred, "--references", gold, "--edition", "2025", "--recall-comparison", "gte"])
    err = capsys.readouterr().err
    assert info.value.code == 2 and "--recall-comparison: invalid choice: 'gte'" in err and "ge" in err
