"""The LLM path against a real OpenAI-compatible server: llama-cpp-python serving
Qwen2.5-Coder-0.5B-Instruct (the GGUF ``scripts/install_llm_server.sh`` assembles) on loopback,
started by the fixtures in ``tests/support/llm_fixtures.py``.

The model follows the prompts: its answers are JSON objects with the prompt's keys, letters of the
verdict prompt, digits of the G-Eval prompt. Decoding is greedy (temperature 0, seed 0: the
scorers' defaults), so a rerun gets the same answers. Faults injected: the server killed mid-run,
a response held past the client's timeout, a 1 ms client timeout. Garbage answers (a base model's
echoed prompt, cut-off JSON) are tested against the scripted server (``test_client_scorers.py``,
``test_parse_cache.py``): no base model is needed for them.
"""

import math
import threading
import time

import pytest

from ev2r.labels import Verdict
from ev2r.llm import LLMClient, LLMProxyScorer, LLMReferenceScorer, LLMUsage, ResponseCache
from ev2r.llm.parse import REFERENCE_KEYS, extract_json_object
from ev2r.metric.scorer import Ev2RScorer
from ev2r.io import evidence_from_text
from ev2r.types import Item

from support.llm import DelayProxy

pytestmark = [pytest.mark.llm, pytest.mark.slow]

MAX_TOKENS = 16  # the fault-injection tests: a cut-off answer (parse_error) is as good as a whole one there
ANSWER_TOKENS = 400  # a whole answer to COMPACT_PROMPT on these short items

# The fault-injection tests use this compact template (same JSON schema, ~90 tokens instead of the
# shipped prompt's ~450) to keep prompt evaluation cheap on 2 CPU cores; the shipped prompt is
# driven through the server by test_decomposition_and_support_through_real_server.
COMPACT_PROMPT = (
    "Compare the predicted evidence with the reference evidence for the claim. Reply with one JSON object "
    'with the keys "facts in predicted evidence", "fact check predicted evidence", "facts count predicted '
    'evidence", "support predicted evidence", "facts in reference evidence", "fact check reference evidence", '
    '"facts count reference evidence", "support reference evidence", "precision", "recall".\n'
    "Claim: $claim\nPredicted evidence: $predicted_evidence\nReference evidence: $reference_evidence\nJSON:"
)


def items(n, tag="t"):
    base = [
        ("The Eiffel Tower is in Berlin.", "Question: Where is the Eiffel Tower?\nAnswer: Paris, France.",
         "Question: Where is the Eiffel Tower located?\nAnswer: In Paris."),
        ("Water boils at 50 degrees Celsius.", "Question: At what temperature does water boil?\nAnswer: 100 C.",
         "Question: What is the boiling point of water?\nAnswer: 100 degrees Celsius at sea level."),
        ("Kerala has 33 million people.", "Question: What is Kerala's population?\nAnswer: About 33 million.",
         "Question: What was Kerala's population in 2011?\nAnswer: 3,33,87,677."),
        ("The moon is made of cheese.", "Question: What is the moon made of?\nAnswer: Rock.",
         "Question: What is the Moon's composition?\nAnswer: Silicate rock and metal."),
    ]
    out = []
    for k in range(n):
        claim, pred, ref = base[k % len(base)]
        out.append(Item(id=f"{tag}{k}", claim=f"{claim} [{tag}{k}]", predicted_evidence=evidence_from_text(pred),
                        reference_evidence=evidence_from_text(ref), gold_label=Verdict.REFUTED, row=k))
    return out


def ref_scorer(server_url, model, cache, **kw):
    opts = dict(base_url=server_url, model=model, cache_dir=cache, max_tokens=MAX_TOKENS, max_reasks=0,
                concurrency=1, timeout=600.0, max_retries=1, backoff=0.2, prompt=COMPACT_PROMPT)
    opts.update(kw)
    return LLMReferenceScorer(**opts)


def usage(results):
    """The run's accounting: the sum of the per-item usage."""
    return LLMUsage.total(r.llm for r in results)


def check_result(r):
    assert r.status in ("ok", "parse_error"), (r.status, r.error)
    if r.status == "ok":
        for v in (r.precision, r.recall, r.f1):
            assert 0.0 <= v <= 1.0
    else:
        assert r.precision is None and r.recall is None and r.f1 is None and r.error


def cached_answers(cache_dir, scorer, its):
    """The raw chat responses the scorer's first-round requests got (from its cache)."""
    cache = ResponseCache(cache_dir)
    return [cache.get(scorer.client.key(scorer.request_for(it))) for it in its]


def test_decomposition_and_support_through_real_server(llama_server, tmp_path):
    # the shipped reference_prf prompt on one simple item
    its = items(1)
    sc = ref_scorer(llama_server.base_url, llama_server.model, tmp_path / "cache", max_reasks=1, prompt=None,
                    max_tokens=ANSWER_TOKENS)
    scorer = Ev2RScorer(sc, proxy_scorer=None)
    scores = scorer.score(its)
    run1 = usage(scores).to_dict()
    (answer,) = cached_answers(tmp_path / "cache", sc, its)
    text = answer["choices"][0]["message"]["content"]
    print(f"\n[decomposition] {[(s.status, s.precision, s.recall, s.error) for s in scores]} run={run1}\n{text}")
    # the instruct model answers the prompt: one JSON object with every key, facts listed and counted
    assert answer["choices"][0]["finish_reason"] == "stop"
    obj = extract_json_object(text)
    assert set(REFERENCE_KEYS) <= set(obj)
    assert obj["facts count predicted evidence"] >= 1 and obj["facts count reference evidence"] >= 1
    for key in ("facts in predicted evidence", "facts in reference evidence"):  # a numbered string or a list
        assert (len(obj[key]) >= 1 if isinstance(obj[key], list) else "1." in obj[key]), obj[key]
    # ... which the strict parser accepts: a score, not a failure
    assert scores[0].status == "ok", (scores[0].status, scores[0].error)
    for v in (scores[0].precision, scores[0].recall, scores[0].f1):
        assert 0.0 <= v <= 1.0
    summary = scorer.corpus(scores)
    assert summary.n == 1 and summary.n_failed == 0
    assert "llm:qwen2.5-coder-0.5b-instruct" in summary.signature and "prompt:reference_prf@" in summary.signature
    # one real call, with token usage reported by the server, no re-ask needed
    assert run1["calls"] == 1 and run1["prompt_tokens"] > 400 and run1["completion_tokens"] > 20
    assert run1["reasks"] == 0

    # a re-run makes zero calls and gives the same results
    sc2 = ref_scorer(llama_server.base_url, llama_server.model, tmp_path / "cache", max_reasks=1, prompt=None,
                     max_tokens=ANSWER_TOKENS)
    again = sc2.score_reference(its)
    assert usage(again).calls == 0 and usage(again).cache_hits == 1
    assert [(r.status, r.precision, r.recall) for r in again] == [(s.status, s.precision, s.recall) for s in scores]


def test_llm_proxy_reads_logprobs_from_real_server(llama_server, tmp_path):
    px = LLMProxyScorer(base_url=llama_server.base_url, model=llama_server.model, cache_dir=tmp_path / "c",
                        concurrency=1, max_tokens=2, top_logprobs=10, timeout=600.0, max_retries=1)
    res = px.score_proxy(items(2, "p"))
    print(f"\n[proxy] {[(r.status, r.proxy, r.distribution, r.error) for r in res]}")
    # the instruct model answers with a letter: every item has a distribution over the four verdicts
    # (the 0.5B model is a weak judge: on these refuted claims it leans to A, Supported)
    for r in res:
        assert r.status == "ok", (r.status, r.error)
        assert 0.0 <= r.proxy <= 1.0 and math.isclose(sum(r.distribution), 1.0, abs_tol=1e-5)
        assert len(r.distribution) == 4 and min(r.distribution) > 0.0  # all four letters among the top 10
        assert math.isclose(r.proxy, r.distribution[1], rel_tol=1e-6)  # P(B, Refuted): the gold verdict
    # the server really returned token log-probabilities (what the proxy reads)
    cache = ResponseCache(tmp_path / "c")
    entries = [cache.get(px.client.key(px.request_for(it))) for it in items(2, "p")]
    assert all(e["choices"][0]["logprobs"]["content"][0]["top_logprobs"] for e in entries)


def test_geval_judge_through_real_server(llama_server):
    from claimalign.similarity.llm_judge import LLMJudgeSimilarity

    # claimalign's judge asks through the library's cached, retrying client
    judge = LLMJudgeSimilarity(LLMClient(model=llama_server.model, base_url=llama_server.base_url, cache_dir=False,
                                         concurrency=1, timeout=600.0, max_retries=1), max_tokens=3, top_logprobs=20)
    pairs = [("The cat sat on the mat.", "A cat was sitting on the mat."),
             ("Paris is the capital of France.", "Berlin is the capital of Germany.")]
    scores = [float(judge.matrix([left], [right])[0, 0]) for left, right in pairs]
    print(f"\n[g-eval judge] {scores}")
    # the instruct model answers with a score digit: an expected value in [0, 1] for each pair (it is
    # too weak to rank these two pairs: both come out near 0.5; only the range is checked here)
    for v in scores:
        assert 0.0 < v < 1.0 and not math.isnan(v)


def test_server_killed_mid_run_keeps_finished_items_and_resumes(start_llama, llama_server, tmp_path):
    server = start_llama()
    its = items(4, "k")
    cache_dir = tmp_path / "cache"
    sc = ref_scorer(server.base_url, server.model, cache_dir, max_retries=1, backoff=0.2)
    box = {}
    worker = threading.Thread(target=lambda: box.update(res=sc.score_reference(its)))
    worker.start()
    cache = ResponseCache(cache_dir)
    deadline = time.monotonic() + 300
    while len(cache) < 1 and time.monotonic() < deadline and worker.is_alive():
        time.sleep(0.1)
    server.kill()  # SIGKILL mid-run, after the first answer arrived
    worker.join(timeout=300)
    assert not worker.is_alive()
    res = box["res"]
    print(f"\n[server killed] statuses={[r.status for r in res]} cached={len(cache)} "
          f"errors={[r.error for r in res if r.status == 'api_error'][:1]}")
    assert len(res) == 4
    done = [r for r in res if r.status != "api_error"]
    failed = [r for r in res if r.status == "api_error"]
    assert len(done) >= 1 and len(failed) >= 1, [r.status for r in res]
    for r in done:
        check_result(r)
    for r in failed:
        assert r.precision is None and ("Connection" in r.error or "connect" in r.error.lower())
    assert len(cache) == len(done)  # every finished answer is on disk

    # resume against a live server: only the missing items are asked
    sc2 = ref_scorer(llama_server.base_url, llama_server.model, cache_dir)
    res2 = sc2.score_reference(its)
    print(f"[resume] statuses={[r.status for r in res2]} calls={usage(res2).calls} "
          f"cache_hits={usage(res2).cache_hits}")
    assert usage(res2).cache_hits == len(done) and usage(res2).calls == len(failed)
    for r in res2:
        check_result(r)
    for before, after in zip(res, res2):  # finished items come back unchanged from the cache
        if before.status != "api_error":
            assert (after.status, after.precision, after.error) == (before.status, before.precision, before.error)


def test_slow_response_times_out_and_other_items_are_kept(llama_server, tmp_path):
    # the timeout adapts to this machine: well above a measured normal answer, below the held one
    t0 = time.monotonic()
    warm = ref_scorer(llama_server.base_url, llama_server.model, tmp_path / "warm").score_reference(items(1, "w"))
    latency = time.monotonic() - t0
    check_result(warm[0])
    timeout = max(10.0, 4 * latency)
    its = items(3, "s")
    marker = "[s1]"  # the second item's claim: its request is held past the client's timeout
    proxy = DelayProxy(llama_server.base_url, marker, delay=timeout + 10.0)
    try:  # the held request waits while the server answers the other two (concurrency 3)
        sc = ref_scorer(proxy.base_url, llama_server.model, tmp_path / "cache", timeout=timeout,
                        max_retries=0, concurrency=3)
        res = sc.score_reference(its)
    finally:
        proxy.close()
    print(f"\n[slow response] latency={latency:.1f}s timeout={timeout:.1f}s statuses={[r.status for r in res]} "
          f"error={res[1].error}")
    assert res[1].status == "timeout" and res[1].precision is None, (res[1].status, res[1].error)
    for r in (res[0], res[2]):
        check_result(r)
    assert [r.status for r in res].count("timeout") == 1 and res[1].llm.calls == 1
    assert len(ResponseCache(tmp_path / "cache")) == 2  # the two answers that came back are kept


def test_client_timeout_against_the_real_server(llama_server, tmp_path):
    c = LLMClient(model=llama_server.model, base_url=llama_server.base_url, cache_dir=tmp_path / "c",
                  timeout=0.001, max_retries=1, backoff=0.05)
    from ev2r.llm import LLMRequest

    out = c.complete(LLMRequest([{"role": "user", "content": "Say hi."}], {"max_tokens": 1}))
    print(f"\n[client timeout 1 ms] {out.status}: {out.error}")
    assert out.status == "timeout" and out.attempts == 2 and len(ResponseCache(tmp_path / "c")) == 0
