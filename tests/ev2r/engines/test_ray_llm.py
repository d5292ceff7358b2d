"""The LLM judge under Ray: requests from every actor through the project's client, at most
``concurrency`` in flight on the whole cluster (one Ray semaphore actor), one shared answer cache
(a local run afterwards sends nothing and gets the same rows)."""

import json

import pytest

from ev2r.metric.factory import build_scorer
from ev2r.engines.runs import output_row
from ev2r.io.readers import read_items
from ev2r.engines.ray_engine import score_ray
from support.fakes import WordVerifier
from support.ray_rows import write_rows

from support.llm import GOOD, FakeServer, chat_response


@pytest.fixture
def server():
    pytest.importorskip("openai", reason="the LLM client needs the 'openai' package (pip install ev2r[llm])")
    s = FakeServer()
    s.responder = lambda body: (200, chat_response(json.dumps(GOOD)), 0.15)
    yield s
    s.close()


@pytest.mark.slow  # two Ray actors, each building a scorer (the admission model's MiniLM encoder): ~25 s
def test_llm_requests_are_capped_cluster_wide_and_cached_once(ray_local, server, tmp_path):
    items = read_items(write_rows(40, tmp_path / "in.jsonl", unique_claims=True))  # 2 chunks (32 + 8): both actors busy at once
    llm = {"base_url": server.base_url, "model": "fake-model", "cache_dir": str(tmp_path / "cache"),
           "concurrency": 2, "timeout": 30.0}
    opts = {"verifier": WordVerifier(), "decomposer": "llm", "llm_options": llm}
    res = score_ray(items, tmp_path / "out.jsonl", scorer_options=opts, workers=2)
    # each actor's client runs 2 threads, so 4 requests could be in flight without the shared cap
    assert server.max_in_flight <= 2
    assert res.llm_run["cap_limit"] == 2 and res.llm_run["cap_peak"] == 2
    n_calls = len(server.requests)
    assert n_calls == res.llm_run["calls"] == 39  # one request per item; the one without reference sends none
    ok = [r for r in res.rows if r["status"] == "ok"]
    assert len(ok) == 39 and all(r["precision"] == 0.5 and r["recall"] == 1.0 for r in ok)
    assert res.rows[5]["status"] == "no_reference"
    assert "ref:llm" in res.summary.signature and res.summary.signature.endswith("|engine:ray")
    # the local path on the same cache folder: no request sent, the same rows and numbers
    scorer = build_scorer(verifier=WordVerifier(), decomposer="llm", llm_options=llm)
    scores = scorer.score(items)
    assert len(server.requests) == n_calls
    assert [output_row(it, s, False, scorer.signature()) for it, s in zip(items, scores)] == res.rows
    assert scorer.corpus(scores).signature + "|engine:ray" == res.summary.signature
