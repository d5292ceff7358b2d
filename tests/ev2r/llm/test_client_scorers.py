"""The client and the LLM scorers against a scripted OpenAI-compatible server on loopback:
retries, timeouts, concurrency, cache/resume, offline replay, re-asks, statuses, dry run."""

import collections
import json
import math

import pytest

from ev2r.labels import Verdict
from ev2r.llm import LLMClient, LLMProxyScorer, LLMReferenceScorer, LLMRequest, LLMUsage
from ev2r.metric.scorer import Ev2RScorer
from ev2r.io import evidence_from_text
from ev2r.types import Evidence, Item

from support.llm import GOOD, chat_response


def make_items(n):
    return [Item(id=f"i{k}", claim=f"Claim number {k} about Kerala.",
                 predicted_evidence=evidence_from_text(f"Question: Q{k}?\nAnswer: Predicted answer {k}."),
                 reference_evidence=evidence_from_text(f"Question: R{k}?\nAnswer: Reference answer {k}."),
                 gold_label=Verdict.REFUTED, row=k) for k in range(n)]


def usage(results):
    """The run's accounting: the sum of the per-item usage (results of a scorer or ItemScores)."""
    return LLMUsage.total(r.llm for r in results)


def client(server, tmp_path, **kw):
    opts = dict(model="fake-model", base_url=server.base_url, cache_dir=tmp_path / "cache", backoff=0.01,
                timeout=5.0, max_retries=2)
    opts.update(kw)
    return LLMClient(**opts)


def req(text="hi", **params):
    return LLMRequest([{"role": "user", "content": text}], {"max_tokens": 8, **params})


def test_retries_on_429_and_5xx_then_succeeds(fake_server, tmp_path):
    script = iter([429, 503])
    fake_server.responder = lambda body: ((next(script, 200)), chat_response("ok") if True else None, 0)
    c = client(fake_server, tmp_path)
    out = c.complete(req())
    assert out.ok and out.attempts == 3 and c.stats["retries"] == 2
    assert c.stats["prompt_tokens"] == 10 and c.stats["completion_tokens"] == 5
    # the request's own usage is on its outcome; the client's counters are their sum
    assert out.usage == LLMUsage(requests=1, calls=3, retries=2, prompt_tokens=10, completion_tokens=5)
    assert c.stats == out.usage.counters()
    sent = fake_server.requests[-1]
    assert sent["temperature"] == 0.0 and sent["seed"] == 0 and sent["model"] == "fake-model"


def test_gives_up_after_bounded_retries_and_does_not_retry_400(fake_server, tmp_path):
    fake_server.responder = lambda body: (500, {"error": "boom"}, 0)
    out = client(fake_server, tmp_path).complete(req())
    assert out.status == "api_error" and out.attempts == 3 and "after 3 attempts" in out.error
    fake_server.requests.clear()
    fake_server.responder = lambda body: (400, {"error": "bad request"}, 0)
    out = client(fake_server, tmp_path).complete(req("other"))
    assert out.status == "api_error" and out.attempts == 1 and len(fake_server.requests) == 1


def test_slow_response_is_a_timeout(fake_server, tmp_path):
    fake_server.responder = lambda body: (200, chat_response("late"), 1.5)
    out = client(fake_server, tmp_path, timeout=0.3, max_retries=1).complete(req())
    assert out.status == "timeout" and out.attempts == 2


def test_concurrency_is_bounded(fake_server, tmp_path):
    fake_server.responder = lambda body: (200, chat_response("ok"), 0.2)
    c = client(fake_server, tmp_path, concurrency=2)
    outs = c.complete_many([req(f"r{k}") for k in range(6)])
    assert all(o.ok for o in outs)
    assert fake_server.max_in_flight <= 2


def test_rerun_makes_zero_calls_and_offline_refuses_network(fake_server, tmp_path):
    fake_server.responder = lambda body: (200, chat_response("ok"), 0)
    reqs = [req(f"r{k}") for k in range(3)]
    c1 = client(fake_server, tmp_path)
    assert all(o.ok for o in c1.complete_many(reqs)) and len(fake_server.requests) == 3
    c2 = client(fake_server, tmp_path)
    outs = c2.complete_many(reqs)
    assert all(o.ok and o.from_cache for o in outs) and len(fake_server.requests) == 3
    assert c2.stats["calls"] == 0 and c2.stats["cache_hits"] == 3 and c2.stats["cached_prompt_tokens"] == 30
    off = LLMClient(model="fake-model", base_url="http://127.0.0.1:9/v1", cache_dir=tmp_path / "cache", offline=True)
    outs = off.complete_many(reqs + [req("never asked")])
    assert [o.status for o in outs] == ["ok", "ok", "ok", "replay_missing"]
    assert off._client is None and off.stats["calls"] == 0  # no HTTP client was ever built


def test_dry_run_estimates_only_what_is_not_cached(fake_server, tmp_path):
    fake_server.responder = lambda body: (200, chat_response("ok"), 0)
    c = client(fake_server, tmp_path)
    c.complete(req("x" * 400))
    est = c.estimate([req("x" * 400), req("y" * 400, max_tokens=100)], price_in_per_mtok=2.5, price_out_per_mtok=10)
    assert (est.n_requests, est.n_cached, est.n_to_send) == (2, 1, 1)
    assert est.prompt_tokens == 104 and est.max_completion_tokens == 100
    assert math.isclose(est.cost, (104 * 2.5 + 100 * 10) / 1e6)
    assert len(fake_server.requests) == 1  # the estimate sent nothing


def _answer_for(body):
    """A valid answer for items whose claim mentions an even number, malformed JSON for odd ones."""
    text = body["messages"][0]["content"]
    k = int(text.split("Claim number ")[1].split(" ")[0])
    if len(body["messages"]) > 1:  # a re-ask: answer properly
        return json.dumps(GOOD)
    return json.dumps(GOOD) if k % 2 == 0 else '{"facts in predicted evidence": "1. A fact.", "precision": 0.5'


def test_reference_scorer_statuses_reasks_and_resume(fake_server, tmp_path):
    fake_server.responder = lambda body: (200, chat_response(_answer_for(body)), 0)
    items = make_items(4)
    sc = LLMReferenceScorer(base_url=fake_server.base_url, model="fake-model", cache_dir=tmp_path / "c",
                            max_reasks=0, backoff=0.01, concurrency=2)
    res = sc.score_reference(items)
    assert [r.status for r in res] == ["ok", "parse_error", "ok", "parse_error"]
    assert all(r.precision is None and r.recall is None and r.f1 is None for r in res if r.status != "ok")
    assert "no JSON object" in res[1].error and res[1].error.endswith("(attempt 1)")
    assert usage(res).calls == 4 and all(r.llm.requests == 1 for r in res)
    sig = sc.signature_fields()
    assert sig["llm"] == "fake-model" and sig["prompt"].startswith("reference_prf@")

    # with one re-ask, the malformed answers are asked again (only those) and fixed
    sc2 = LLMReferenceScorer(base_url=fake_server.base_url, model="fake-model", cache_dir=tmp_path / "c",
                             max_reasks=1, backoff=0.01)
    res2 = sc2.score_reference(items)
    assert [r.status for r in res2] == ["ok"] * 4
    u2 = usage(res2)
    assert u2.calls == 2 and u2.cache_hits == 4 and u2.reasks == 2 and u2.requests == 6
    assert [r.llm.reasks for r in res2] == [0, 1, 0, 1]  # each item carries its own re-asks
    # a third run: zero calls
    sc3 = LLMReferenceScorer(base_url=fake_server.base_url, model="fake-model", cache_dir=tmp_path / "c", max_reasks=1)
    res3 = sc3.score_reference(items)
    assert [r.status for r in res3] == ["ok"] * 4 and usage(res3).calls == 0


def test_partial_failure_keeps_other_items_and_counts_n_failed(fake_server, tmp_path):
    def responder(body):
        text = body["messages"][0]["content"]
        if "Claim number 1 " in text:
            return 500, {"error": "overloaded"}, 0
        if "Claim number 2 " in text:
            return 200, chat_response("not json at all"), 0
        return 200, chat_response(json.dumps(GOOD)), 0

    fake_server.responder = responder
    items = make_items(4) + [Item(id="empty", claim="c", predicted_evidence=Evidence(()),
                                  reference_evidence=evidence_from_text("Question: q\nAnswer: a"), row=4),
                             Item(id="noref", claim="c", predicted_evidence=evidence_from_text("text"),
                                  reference_evidence=Evidence(()), row=5)]
    sc = LLMReferenceScorer(base_url=fake_server.base_url, model="fake-model", cache_dir=tmp_path / "c",
                            max_reasks=0, max_retries=1, backoff=0.01)
    scorer = Ev2RScorer(sc, proxy_scorer=None)
    scores = scorer.score(items)
    assert [s.status for s in scores] == ["ok", "api_error", "parse_error", "ok", "ok", "no_reference"]
    assert scores[4].precision == 0.0 and scores[4].recall == 0.0  # nothing retrieved, no call made
    summary = scorer.corpus(scores)
    assert summary.n == 6 and summary.n_failed == 3
    assert summary.failures == {"api_error": 1, "parse_error": 1, "no_reference": 1}
    assert summary.precision == pytest.approx((0.5 + 0.5 + 0.0) / 3)
    assert "prompt:reference_prf@" in summary.signature and "llm:fake-model" in summary.signature


def test_scorer_never_raises_for_the_batch(tmp_path):
    # nothing listens on this port: every item is an api_error, the call returns normally
    sc = LLMReferenceScorer(base_url="http://127.0.0.1:9/v1", model="m", cache_dir=tmp_path / "c",
                            max_retries=1, backoff=0.01, timeout=2.0)
    res = sc.score_reference(make_items(2))
    assert [r.status for r in res] == ["api_error", "api_error"]
    assert "Connection" in res[0].error


def test_offline_reference_scorer_serves_recordings(shared_data, tmp_path):
    from ev2r.facts.replay import ReplayReferenceScorer

    path = shared_data / "ev2r_replay" / "replay_atomic_reference_prec_recall.jsonl"
    rows = [json.loads(l) for l in open(path, encoding="utf-8")]
    rows = [r for r in rows if r["model"] == "gpt-4o-2024-05-13"][:10]
    items = [Item(id=str(r["id"]), claim=r["claim"], predicted_evidence=evidence_from_text(r["predicted_evidence"]),
                  reference_evidence=evidence_from_text(r["reference_evidence"]), row=k) for k, r in enumerate(rows)]
    items.append(Item(id="not-recorded", claim="c", predicted_evidence=evidence_from_text("p"),
                      reference_evidence=evidence_from_text("r"), row=10))
    sc = LLMReferenceScorer(model="gpt-4o-2024-05-13", offline=True, cache_dir=tmp_path / "empty",
                            recorded=path, recorded_model="gpt-4o-2024-05-13")
    got = sc.score_reference(items)
    want = ReplayReferenceScorer(path, model="gpt-4o-2024-05-13").score_reference(items[:10])
    assert [(g.status, g.precision, g.recall) for g in got[:10]] == [(w.status, w.precision, w.recall) for w in want]
    assert got[10].status == "replay_missing" and sc.client._client is None


def _letter_response(letter_probs):
    tops = [{"token": t, "logprob": math.log(p)} for t, p in letter_probs.items()]
    first = max(letter_probs, key=letter_probs.get)
    return chat_response(first, logprobs=[{"token": first, "logprob": math.log(letter_probs[first]),
                                           "top_logprobs": tops}])


def test_llm_proxy_reads_verdict_probability(fake_server, tmp_path):
    def responder(body):
        assert body["logprobs"] is True and body["top_logprobs"] == 20
        if "Claim number 1 " in body["messages"][0]["content"]:
            return 200, chat_response("I think the answer", logprobs=[
                {"token": "I", "logprob": -0.1, "top_logprobs": [{"token": "I", "logprob": -0.1}]}]), 0
        return 200, _letter_response({"A": 0.2, "B": 0.7, "C": 0.1}), 0

    fake_server.responder = responder
    px = LLMProxyScorer(base_url=fake_server.base_url, model="fake-model", cache_dir=tmp_path / "c", backoff=0.01)
    res = px.score_proxy(make_items(3))
    assert res[0].status == "ok" and res[0].proxy == pytest.approx(0.7)
    assert res[0].distribution == pytest.approx((0.2, 0.7, 0.1, 0.0))
    assert res[1].status == "parse_error" and res[1].proxy is None
    assert px.signature_fields()["proxy_prompt"].startswith("proxy_verdict@")


def test_bad_options_raise_value_errors():
    with pytest.raises(ValueError, match="model"):
        LLMReferenceScorer(base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ValueError, match="concurrency"):
        LLMClient(model="m", concurrency=0)
    with pytest.raises(ValueError, match="max_reasks"):
        LLMReferenceScorer(model="m", max_reasks=9)


def test_cli_dry_run_sends_nothing(fake_server, tmp_path, capsys):
    from ev2r.cli.main import main

    rows = [{"id": f"r{k}", "claim": f"Claim {k}", "predicted_evidence": f"Question: q{k}?\nAnswer: a{k}.",
             "reference_evidence": f"Question: g{k}?\nAnswer: b{k}.", "gold_label": "Refuted"} for k in range(3)]
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    rc = main(["score", str(path), "--decomposer", "llm", "--llm-model", "gpt-4o", "--llm-base-url",
               fake_server.base_url, "--llm-cache", str(tmp_path / "c"), "--dry-run",
               "--llm-price", "2.5,10", "--no-progress"])
    assert rc == 0 and fake_server.requests == []
    est = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert est["n_requests"] == 3 and est["n_to_send"] == 3 and est["prompt_tokens_est"] > 300
    assert est["max_completion_tokens"] == 3 * 1024 and est["cost_upper_bound"] > 0


def test_scoring_process_killed_half_way_resumes_only_missing(fake_server, tmp_path):
    """SIGKILL the scoring process itself mid-run; a re-run asks only for what is missing."""
    import os
    import subprocess
    import sys
    import time

    from ev2r.llm import ResponseCache

    fake_server.responder = lambda body: (200, chat_response(json.dumps(GOOD)), 0.5)
    cache_dir = tmp_path / "c"
    script = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "from test_client_scorers import make_items\n"
        "from ev2r.llm import LLMReferenceScorer\n"
        "LLMReferenceScorer(base_url=sys.argv[2], model='fake-model', cache_dir=sys.argv[3], concurrency=1,"
        " max_reasks=0).score_reference(make_items(8))\n"
    )
    from support.paths import REPO, TESTS

    repo = str(REPO)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([repo, str(TESTS), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, "-c", script, os.path.dirname(os.path.abspath(__file__)),
                             fake_server.base_url, str(cache_dir)], env=env, cwd=repo)
    cache = ResponseCache(cache_dir)
    deadline = time.monotonic() + 120
    while len(cache) < 3 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.kill()
    proc.wait(timeout=30)
    n_done = len(cache)
    assert 3 <= n_done < 8  # complete entries only (a write cut off by the kill stays a .part file)
    fake_server.responder = lambda body: (200, chat_response(json.dumps(GOOD)), 0)
    sc = LLMReferenceScorer(base_url=fake_server.base_url, model="fake-model", cache_dir=cache_dir, max_reasks=0)
    res = sc.score_reference(make_items(8))
    assert [r.status for r in res] == ["ok"] * 8
    assert usage(res).cache_hits == n_done and usage(res).calls == 8 - n_done


def test_llm_accounting_covers_every_chunk_of_a_score_call(fake_server, tmp_path):
    # 5 items in chunks of 2: the reported calls are those of all three chunks, not of the last one
    fake_server.responder = lambda body: (200, chat_response(json.dumps(GOOD)), 0)
    ref = LLMReferenceScorer(base_url=fake_server.base_url, model="fake-model", cache_dir=tmp_path / "c",
                             max_reasks=0, backoff=0.01)
    scorer = Ev2RScorer(ref, None, chunk_size=2)
    scores = scorer.score(make_items(5))
    assert len(scores) == 5
    assert usage(scores).calls == 5 and collections.Counter(s.status for s in scores) == {"ok": 5}
    again = scorer.score(make_items(5))  # all from the cache now
    assert usage(again).calls == 0 and usage(again).cache_hits == 5
    assert not hasattr(ref, "last_run")  # no hidden state: the accounting is on the results
    assert "llm" not in scores[0].to_dict()  # accounting, not a score: output rows do not change


def test_usage_is_per_item_even_when_a_chunk_is_rescored_item_by_item(fake_server, tmp_path):
    # a scorer that raises for the batch is rerun item by item: each item still carries its own usage
    fake_server.responder = lambda body: (200, chat_response(json.dumps(GOOD)), 0)
    ref = LLMReferenceScorer(base_url=fake_server.base_url, model="fake-model", cache_dir=tmp_path / "c",
                             max_reasks=0, backoff=0.01)
    real = ref.score_reference
    calls = []

    def flaky(items):
        calls.append(len(items))
        if len(items) > 1:
            raise RuntimeError("batch failed")
        return real(items)

    ref.score_reference = flaky
    scores = Ev2RScorer(ref, None, chunk_size=3).score(make_items(3))
    assert [s.status for s in scores] == ["ok"] * 3 and calls == [3, 1, 1, 1]
    assert [s.llm.calls for s in scores] == [1, 1, 1]


def test_estimate_counts_reasks_and_says_what_it_could_not_count(fake_server, tmp_path):
    fake_server.responder = lambda body: (200, chat_response(_answer_for(body)), 0)
    items = make_items(4)
    sc = LLMReferenceScorer(base_url=fake_server.base_url, model="fake-model", cache_dir=tmp_path / "c",
                            max_reasks=1, backoff=0.01)
    est = sc.estimate(items)
    first = sc.client.estimate([sc.request_for(it) for it in items])
    assert (est.n_requests, est.n_cached, est.n_to_send) == (4, 0, 4)
    assert est.prompt_tokens == first.prompt_tokens and est.max_completion_tokens == 4 * 1024
    assert est.max_reasks == 1 and est.reask_requests_max == 4  # each request may be re-asked once
    assert est.reask_completion_tokens_max == 4 * 1024 and est.reask_prompt_tokens_max > est.prompt_tokens + 4 * 1024
    assert est.not_counted == 0 and fake_server.requests == []
    # after a run, the cached answers are parsed: the two unusable ones were re-asked and those are cached too
    sc.score_reference(items)
    est2 = sc.estimate(items)
    assert (est2.n_cached, est2.n_to_send, est2.reask_requests_max) == (4, 0, 0)
    # without the cached re-asks, the re-asks of the two unusable cached answers would be sent
    sc0 = LLMReferenceScorer(base_url=fake_server.base_url, model="fake-model", cache_dir=tmp_path / "c0",
                             max_reasks=0, backoff=0.01)
    sc0.score_reference(items)
    sc1 = LLMReferenceScorer(base_url=fake_server.base_url, model="fake-model", cache_dir=tmp_path / "c0",
                             max_reasks=1, backoff=0.01)
    est3 = sc1.estimate(items)
    assert (est3.n_cached, est3.n_to_send, est3.reask_requests_max) == (4, 0, 2)
    assert est3.reask_prompt_tokens_max > 0 and est3.to_dict()["cost_upper_bound"] is None
    # an item whose prompt cannot be filled is reported, not dropped silently
    bad = LLMReferenceScorer(base_url=fake_server.base_url, model="fake-model", cache_dir=tmp_path / "c",
                             prompt="Claim: $claim; $unknown_field", max_reasks=0)
    est4 = bad.estimate(items)
    assert est4.n_requests == 0 and est4.not_counted == 4
    assert list(est4.not_counted_reasons) == ["request cannot be built (KeyError: 'unknown_field')"]
    assert [r.status for r in bad.score_reference(items)] == ["error"] * 4  # the run fails them the same way


def test_geval_judge_asks_through_the_library_client(fake_server, tmp_path):
    from claimalign.similarity.llm_judge import LLMJudgeSimilarity

    def responder(body):
        assert body["logprobs"] is True and body["top_logprobs"] == 20 and body["temperature"] == 0.0
        return 200, chat_response("3", logprobs=[{"token": "3", "logprob": math.log(0.5), "top_logprobs": [
            {"token": "3", "logprob": math.log(0.5)}, {"token": "4", "logprob": math.log(0.5)}]}]), 0

    fake_server.responder = responder
    sim = LLMJudgeSimilarity(client(fake_server, tmp_path))
    m = sim.matrix(["a", "b"], ["c"])
    assert m.shape == (2, 1) and m.ravel().tolist() == pytest.approx([3.5 / 4] * 2)
    assert len(fake_server.requests) == 2
    # a new judge over the same cache sends nothing
    again = LLMJudgeSimilarity(client(fake_server, tmp_path))
    assert (again.matrix(["a", "b"], ["c"]) == m).all() and len(fake_server.requests) == 2
    assert again.client.stats["cache_hits"] == 2


def test_cli_prints_the_llm_accounting_and_keeps_the_rows(fake_server, tmp_path, capsys, monkeypatch):
    import ev2r.metric.factory
    from ev2r.cli.main import main

    class Overlap:  # a stand-in verifier for the proxy (no model is loaded)
        name = "standin"

        def predict(self, premises, hypotheses):
            import numpy as np

            return np.tile([0.2, 0.7, 0.1], (len(premises), 1))

    monkeypatch.setattr(ev2r.metric.factory, "get_verifier", lambda *a, **k: Overlap())
    fake_server.responder = lambda body: (200, chat_response(json.dumps(GOOD)), 0)
    rows = [{"id": f"r{k}", "claim": f"Claim {k}", "predicted_evidence": f"Question: q{k}?\nAnswer: a{k}.",
             "reference_evidence": f"Question: g{k}?\nAnswer: b{k}.", "gold_label": "Refuted"} for k in range(3)]
    path, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    argv = ["score", str(path), "--decomposer", "llm", "--llm-model", "fake-model", "--llm-base-url",
            fake_server.base_url, "--llm-cache", str(tmp_path / "c"), "--no-progress", "-o", str(out)]
    assert main(argv) == 0
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if x.startswith("llm: "))
    assert "requests=3 calls=3 cache_hits=0" in line and "reasks=0" in line and "statuses={'ok': 3}" in line
    written = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["precision"] for r in written] == [0.5] * 3 and all("llm" not in r for r in written)
    assert main(argv) == 0  # the same command again resumes: every row is reused, nothing is asked
    assert "0 item(s) scored, 3 resumed" in capsys.readouterr().err
    assert main(argv + ["--no-resume"]) == 0  # scored afresh: every answer from the cache
    assert "requests=3 calls=0 cache_hits=3" in capsys.readouterr().err
    # --llm-constrain sends the reply's schema; --reply-reading counts reads the stated counts first
    out2 = tmp_path / "out2.jsonl"
    argv2 = argv[:-1] + [str(out2), "--llm-constrain", "--reply-reading", "counts", "--llm-cache", str(tmp_path / "c2"),
                         "--json"]
    capsys.readouterr()
    assert main(argv2) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert fake_server.requests[-1]["response_format"]["type"] == "json_object"
    written = [json.loads(x) for x in out2.read_text().splitlines()]
    assert [r["precision"] for r in written] == [0.5] * 3
    assert "constrain:json" in summary["signature"] and "read:counts>checks" in summary["signature"]


def test_align_cli_llm_judge_goes_through_the_cached_client(fake_server, tmp_path, capsys):
    from ev2r.cli.main import main

    def responder(body):
        return 200, chat_response("4", logprobs=[{"token": "4", "logprob": 0.0, "top_logprobs": [
            {"token": "4", "logprob": 0.0}]}]), 0

    fake_server.responder = responder
    a, b, out = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "out.jsonl"
    a.write_text(json.dumps({"id": 1, "claims": ["x is y", "z"]}) + "\n", encoding="utf-8")
    b.write_text(json.dumps({"id": 1, "claims": ["x is y"]}) + "\n", encoding="utf-8")
    argv = ["align", str(a), str(b), "--similarity", "llm", "--llm-model", "fake-model", "--llm-base-url",
            fake_server.base_url, "--llm-cache", str(tmp_path / "c"), "-o", str(out)]
    assert main(argv) == 0
    row = json.loads(out.read_text())
    assert row["similarity"].startswith("llm-geval:fake-model:") and row["pairs"][0]["similarity"] == 1.0
    assert len(fake_server.requests) == 2
    assert main(argv + ["--llm-offline"]) == 0 and len(fake_server.requests) == 2  # replayed from the cache
    capsys.readouterr()
    assert main(argv[:5] + ["--llm-base-url", fake_server.base_url]) == 2
    assert "--llm-model: --similarity llm needs" in capsys.readouterr().err
    assert main(["align", str(a), str(b), "--llm-model", "m"]) == 2
    assert "--llm-model: only used with --similarity llm" in capsys.readouterr().err
    fake_server.responder = lambda body: (400, {"error": "bad"}, 0)
    assert main(["align", str(a), str(b), "--similarity", "llm", "--llm-model", "other", "--llm-base-url",
                 fake_server.base_url, "--llm-cache", str(tmp_path / "c2")]) == 2
    assert "--similarity llm: the judge's request failed (api_error" in capsys.readouterr().err


def test_offline_estimate_sends_nothing_and_counts_what_the_cache_cannot_answer(fake_server, tmp_path):
    from ev2r.llm.client import OFFLINE_MISSING

    items = make_items(3)
    online = LLMReferenceScorer(base_url=fake_server.base_url, model="fake-model", cache_dir=tmp_path / "c")
    fake_server.responder = lambda body: (200, chat_response(json.dumps(GOOD)), 0)
    online.score_reference(items[:1])  # one answer cached
    offline = LLMReferenceScorer(model="fake-model", cache_dir=tmp_path / "c", offline=True)
    est = offline.estimate(items, price_in_per_mtok=1.0, price_out_per_mtok=2.0)
    assert (est.n_requests, est.n_cached, est.n_to_send, est.prompt_tokens) == (3, 1, 0, 0)
    assert est.not_counted == 2 and est.not_counted_reasons == {OFFLINE_MISSING: 2}
    assert est.cost == 0.0 and est.reask_requests_max == 0
    # the real offline run: the two uncached items are replay_missing, as the estimate said
    assert [r.status for r in offline.score_reference(items)] == ["ok", "replay_missing", "replay_missing"]


def test_score_and_record_gives_replay_rows_that_replay_to_the_same_scores(fake_server, tmp_path):
    from ev2r.facts.replay import ReplayReferenceScorer, content_sha256

    # one good reply, one reply in a one-line layout with counts that disagree with its checks, one without JSON
    odd = dict(GOOD, **{"facts in predicted evidence": ["A fact.", "Another fact."],
                        "fact check predicted evidence": "- A fact. Supported.\n- Another fact. Supported.",
                        "support predicted evidence": 1, "precision": 0.5})
    replies = {"i0": json.dumps(GOOD), "i1": "Sure:\n```json\n" + json.dumps(odd) + "\n```", "i2": "I cannot."}

    def responder(body):
        text = body["messages"][0]["content"]
        key = next(k for k in replies if f"Claim number {k[1:]} " in text)
        return 200, chat_response(replies[key]), 0

    fake_server.responder = responder
    items = make_items(3)
    sc = LLMReferenceScorer(model="fake-model", base_url=fake_server.base_url, cache_dir=False, max_reasks=0,
                            backoff=0.01)
    results, records = sc.score_and_record(items)
    assert [r.status for r in results] == ["ok", "ok", "parse_error"]
    assert results[1].precision == 1.0 and results[1].extra_scores["precision_from_counts"] == 0.5
    assert results[1].extra_scores["reading_disagreements"] == 1.0
    assert records[1]["llm_response"] == odd and records[2]["llm_response"] == "I cannot."
    assert records[0]["content_sha256"] == content_sha256(items[0]) and records[0]["model"] == "fake-model"
    assert sc.signature_fields()["read"] == "checks>counts"
    path = tmp_path / "replay.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    replayed = ReplayReferenceScorer(path, scores_from="checks").score_reference(items)
    assert [(r.precision, r.recall) for r in replayed[:2]] == [(r.precision, r.recall) for r in results[:2]]
    assert replayed[2].status == "replay_inconsistent"  # the text reply stays unscored offline too


def test_constrained_answers_send_the_schema_and_the_letter_grammar(fake_server, tmp_path):
    from ev2r.llm.scorers import REFERENCE_SCHEMA, VERDICT_GRAMMAR

    fake_server.responder = lambda body: (200, chat_response(json.dumps(GOOD)), 0)
    sc = LLMReferenceScorer(model="fake-model", base_url=fake_server.base_url, cache_dir=False, constrain_answers=True)
    [res] = sc.score_reference(make_items(1))
    assert res.status == "ok"
    sent = fake_server.requests[-1]
    assert sent["response_format"] == {"type": "json_object", "schema": REFERENCE_SCHEMA}
    assert set(REFERENCE_SCHEMA["required"]) == set(GOOD) and sc.signature_fields()["constrain"] == "json"
    assert "constrain" not in LLMReferenceScorer(model="m", base_url=fake_server.base_url).signature_fields()
    px = LLMProxyScorer(model="fake-model", base_url=fake_server.base_url, cache_dir=False, constrain_answers=True)
    assert px.request_for(make_items(1)[0]).params["extra_body"] == {"grammar": VERDICT_GRAMMAR}
    assert px.signature_fields()["proxy_constrain"] == "letter"
    with pytest.raises(ValueError, match="constrain_answers"):
        LLMReferenceScorer(model="m", constrain_answers="yes")
    with pytest.raises(ValueError, match="scores_from"):
        LLMReferenceScorer(model="m", scores_from="stated")


def test_reasks_are_typed_copied_example_names_the_claim_cut_off_asks_for_short_facts(fake_server, tmp_path):
    from ev2r.llm import load_prompt
    from ev2r.llm.scorers import REASK_CUT_OFF_MESSAGE

    example = load_prompt("reference_prf_example").example_facts()
    copy = dict(GOOD, **{"facts in predicted evidence": "1. The Eiffel Tower stands in Paris.",
                         "fact check predicted evidence": "1. Supported.", "facts count predicted evidence": 1,
                         "support predicted evidence": 1, "precision": 1.0})
    assert "the eiffel tower stands in paris." in example

    def responder(body):
        msgs = body["messages"]
        user = msgs[0]["content"]
        if len(msgs) > 1:  # the re-ask: a good answer
            return 200, chat_response(json.dumps(GOOD)), 0
        if "Claim number 0" in user:
            return 200, chat_response(json.dumps(copy)), 0
        if "Claim number 1" in user:
            cut = chat_response('{"facts in predicted evidence": "1. A very long copied passage')
            cut["choices"][0]["finish_reason"] = "length"
            return 200, cut, 0
        if "Claim number 2" in user:
            return 200, chat_response("{not json}"), 0
        return 200, chat_response(json.dumps(GOOD)), 0

    fake_server.responder = responder
    items = make_items(4)
    sc = LLMReferenceScorer(base_url=fake_server.base_url, model="fake-model", cache_dir=tmp_path / "c",
                            max_reasks=1, backoff=0.01, prompt="reference_prf_example")
    first = LLMReferenceScorer(base_url=fake_server.base_url, model="fake-model", cache_dir=False,
                               max_reasks=0, prompt="reference_prf_example").score_reference(items)
    assert [r.status for r in first] == ["parse_error", "parse_error", "parse_error", "ok"]
    assert "copies the prompt's example" in first[0].error and "length limit" in first[1].error
    fake_server.requests.clear()
    res = sc.score_reference(items)
    assert [r.status for r in res] == ["ok"] * 4 and [r.llm.reasks for r in res] == [1, 1, 1, 0]
    reasks = {r["messages"][0]["content"].split("Claim: ")[1].split("\n")[0]: r["messages"][-1]["content"]
              for r in fake_server.requests if len(r["messages"]) > 1}
    assert "repeated the worked example" in reasks["Claim number 0 about Kerala."]
    assert '"Claim number 0 about Kerala."' in reasks["Claim number 0 about Kerala."]
    assert reasks["Claim number 1 about Kerala."] == REASK_CUT_OFF_MESSAGE
    assert reasks["Claim number 2 about Kerala."].startswith("Your previous answer could not be used: no JSON")
    assert sc.signature_fields()["reask"] == "1@typed"
    # the dry run follows the same typed re-asks through the cache: nothing left to send
    est = sc.estimate(items)
    assert (est.n_cached, est.n_to_send, est.reask_requests_max) == (4, 0, 0)
