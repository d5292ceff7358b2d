import math
from types import SimpleNamespace as NS

import numpy as np
import pytest

from claimalign.similarity.llm_judge import (LLMJudgeError, LLMJudgeSimilarity, expected_score,
                                             score_distribution)


def chat_response(tokens):
    """tokens: list of (token, logprob, {alt: logprob})."""
    content = [NS(token=t, logprob=lp, bytes=None,
                  top_logprobs=[NS(token=k, logprob=v, bytes=None) for k, v in tops.items()])
               for t, lp, tops in tokens]
    return NS(choices=[NS(logprobs=NS(content=content), message=NS(content="".join(t for t, _, _ in tokens)))])


def test_expected_score_hand_computed():
    # p(3) = 0.5, p(4) = 0.3, p(2) = 0.2 -> E = 1.5 + 1.2 + 0.4 = 3.1
    r = chat_response([("3", math.log(0.5), {"3": math.log(0.5), "4": math.log(0.3), "2": math.log(0.2)})])
    assert score_distribution(r) == pytest.approx([0, 0, 0.2, 0.5, 0.3])
    assert expected_score(r) == pytest.approx(3.1)


def test_softmax_renormalises_over_score_tokens_only():
    # non-score alternatives ("The", "5") are ignored; 0.4 : 0.2 renormalised to 2/3 : 1/3
    r = chat_response([("1", math.log(0.4), {"1": math.log(0.4), "0": math.log(0.2),
                                             "The": math.log(0.3), "5": math.log(0.1)})])
    assert expected_score(r) == pytest.approx(1 * 2 / 3)


def test_reads_the_score_token_not_the_first_digit():
    # "In 2023 ... Score: 2": "2023" is one token (not a score after stripping), " 2" is the answer.
    r = chat_response([
        ("In", -0.1, {"In": -0.1}),
        (" 2023", -0.2, {" 2023": -0.2, " 4": -3.0}),
        (" Score", -0.1, {" Score": -0.1}),
        (":", -0.1, {":": -0.1}),
        (" 2", math.log(0.75), {" 2": math.log(0.75), " 4": math.log(0.25)}),
    ])
    assert expected_score(r) == pytest.approx(0.75 * 2 + 0.25 * 4)


def test_whitespace_variants_are_pooled():
    r = chat_response([(" 4", math.log(0.3), {" 4": math.log(0.3), "4": math.log(0.3), "0": math.log(0.4)})])
    assert score_distribution(r)[4] == pytest.approx(0.6)
    assert expected_score(r) == pytest.approx(2.4)


def test_generated_token_missing_from_top_list_is_included():
    r = chat_response([("2", math.log(0.1), {"3": math.log(0.3)})])
    assert score_distribution(r) == pytest.approx([0, 0, 0.25, 0.75, 0])


def test_legacy_completions_shape_as_dicts():
    r = {"choices": [{"text": " 3", "logprobs": {
        "tokens": [" 3"], "token_logprobs": [math.log(0.8)],
        "top_logprobs": [{" 3": math.log(0.8), " 1": math.log(0.2)}]}}]}
    assert expected_score(r) == pytest.approx(0.8 * 3 + 0.2 * 1)


def test_missing_logprobs_is_an_error():
    with pytest.raises(LLMJudgeError, match="no logprobs"):
        expected_score(NS(choices=[NS(logprobs=None, message=NS(content="3"))]))


def test_missing_top_logprobs_is_an_error():
    with pytest.raises(LLMJudgeError, match="top_logprobs"):
        expected_score(chat_response([("3", -0.1, {})]))


def test_no_score_token_is_an_error():
    with pytest.raises(LLMJudgeError, match="no generated token"):
        expected_score(chat_response([("Yes", -0.1, {"Yes": -0.1}), ("10", -0.1, {"10": -0.1})]))


class FakeClient:
    """A :class:`ChatClient`: answers every conversation with the score distribution ``dist``; the
    requests are recorded (``conversations``, ``params`` per call)."""

    model = "m"

    def __init__(self, dist, fail=None):
        self.calls = []
        self.dist = dist
        self.fail = fail  # a pair's left claim whose request fails

    def chat(self, conversations, **params):
        self.calls.append({"conversations": conversations, "params": params})
        best = int(np.argmax(self.dist))
        tops = {str(s): math.log(p) for s, p in enumerate(self.dist) if p}
        out = []
        for conv in conversations:
            if self.fail and f"Claim A: {self.fail}\n" in conv[0]["content"]:
                out.append(NS(ok=False, response=None, status="api_error", error="server exploded"))
                continue
            out.append(NS(ok=True, status="ok", error=None, response=chat_response(
                [("Score", -0.1, {"Score": -0.1}), (":", -0.1, {":": -0.1}),
                 (str(best), math.log(self.dist[best]), tops)])))
        return out


def test_judge_similarity_with_fake_client():
    client = FakeClient([0, 0, 0, 0.5, 0.5])
    sim = LLMJudgeSimilarity(client)
    m = sim.matrix(["a", "b"], ["c"])
    assert m.shape == (2, 1)
    assert m == pytest.approx(np.full((2, 1), 3.5 / 4))
    assert len(client.calls) == 1 and len(client.calls[0]["conversations"]) == 2  # one batch for the matrix
    params = client.calls[0]["params"]
    assert params["logprobs"] is True and params["top_logprobs"] == 20 and params["max_tokens"] <= 16
    assert "Claim A: a" in client.calls[0]["conversations"][0][0]["content"]
    assert sim.name.startswith("llm-geval:m:prompt-")
    sim.matrix(["a"], ["c"])
    assert len(client.calls) == 1  # asked once per instance
    sym = LLMJudgeSimilarity(FakeClient([1, 0, 0, 0, 0]), symmetric=True)
    assert sym.score("x", "y") == 0.0 and sym.name.endswith(":sym")
    assert len(sym.client.calls[0]["conversations"]) == 2  # both orders


def test_failed_request_is_an_error_never_a_score():
    sim = LLMJudgeSimilarity(FakeClient([0, 0, 0, 0, 1], fail="b"))
    with pytest.raises(LLMJudgeError, match="api_error: server exploded"):
        sim.matrix(["a", "b"], ["c"])
    assert sim.matrix(["a"], ["c"])[0, 0] == 1.0  # the pair that was answered is kept


def test_judge_needs_a_client_and_good_arguments():
    with pytest.raises(ValueError, match="client: the LLM judge needs a chat client"):
        LLMJudgeSimilarity()
    with pytest.raises(ValueError, match="client: expected an object with a model name"):
        LLMJudgeSimilarity("gpt-4o")  # the old model-name first argument
    with pytest.raises(ValueError, match="prompt"):
        LLMJudgeSimilarity(FakeClient([1, 0, 0, 0, 0]), prompt="no fields")
    with pytest.raises(ValueError, match="top_logprobs"):
        LLMJudgeSimilarity(FakeClient([1, 0, 0, 0, 0]), top_logprobs=2)
