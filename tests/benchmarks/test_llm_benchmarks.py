"""benchmarks/agreement/llm_record.py (resume keyed on item content and prompt) and llm_throughput.py (the
llama.cpp perf-line reader), against a scripted server and a hand-written log."""

import json

import pytest

from ev2r.llm.local_server import FakeChatServer, chat_response
from ev2r.io import evidence_from_text
from ev2r.types import Item
from support.llm import GOOD
from support.modules import load_file_module
from support.paths import REPO

record = load_file_module("bench_llm_record", REPO / "benchmarks" / "agreement" / "llm_record.py")
throughput = load_file_module("bench_llm_throughput", REPO / "benchmarks" / "speed" / "llm_throughput.py")

LOG = """INFO:     127.0.0.1:47694 - "POST /v1/chat/completions HTTP/1.1" 200 OK
Llama.generate: 369 prefix-match hit, remaining 505 prompt tokens to eval
llama_perf_context_print:        load time =       0.25 ms
llama_perf_context_print: prompt eval time =   10000.00 ms /   500 tokens (   20.00 ms per token,    50.00 tokens per second)
llama_perf_context_print:        eval time =   10000.00 ms /   200 runs   (   50.00 ms per token,    20.00 tokens per second)
llama_perf_context_print:       total time =   20000.00 ms /   700 tokens
Llama.generate: 131 prefix-match hit, remaining 100 prompt tokens to eval
llama_perf_context_print: prompt eval time =    1000.00 ms /   100 tokens (   10.00 ms per token,   100.00 tokens per second)
llama_perf_context_print:        eval time =    5000.00 ms /    50 runs   (  100.00 ms per token,    10.00 tokens per second)
"""


def test_server_log_reader_hand_values():
    reqs = throughput.parse_server_log(LOG)
    assert [(r["prefix_hit"], r["prompt_eval"], r["decode_tokens"]) for r in reqs] == [(369, 505, 200), (131, 100, 50)]
    s = throughput.summarize_log(reqs)
    assert s["requests"] == 2 and s["prompt_share_from_prefix"] == pytest.approx(500 / 1105)
    assert s["prefill_tok_s_median"] == pytest.approx(75.0) and s["decode_tok_s_median"] == pytest.approx(15.0)
    assert s["seconds_per_request_median"] == pytest.approx(13.0)
    assert throughput.summarize_log([]) == {"requests": 0}


def _items(answer="Answer: a."):
    return [Item(id=str(k), claim=f"Claim {k}.", predicted_evidence=evidence_from_text(f"Question: q{k}?\n{answer}"),
                 reference_evidence=evidence_from_text(f"Question: r{k}?\nAnswer: b.")) for k in range(3)]


def _good_server_log():
    """(prompts seen, a responder answering every request with GOOD and logging its prompt)."""
    seen: list = []

    def responder(body):
        seen.append(body["messages"][0]["content"])
        return 200, chat_response(json.dumps(GOOD)), 0
    return seen, responder


def test_record_resumes_only_rows_of_the_same_content_and_prompt(tmp_path):
    from ev2r.llm import LLMReferenceScorer

    seen, responder = _good_server_log()
    out = tmp_path / "m_86.jsonl"
    with FakeChatServer(responder) as server:
        def scorer(prompt="reference_prf"):
            return LLMReferenceScorer(model="m", base_url=server.base_url, cache_dir=False, prompt=prompt, backoff=0.01)

        s1 = record.record_file(scorer(), _items(), out, deadline=float("inf"), log=lambda m: None)
        assert s1 == {"asked": 3, "skipped": 0, "stale_dropped": 0, "rows": 3, "items": 3} and len(seen) == 3
        rows = [json.loads(x) for x in out.read_text().splitlines()]
        assert [r["status"] for r in rows] == ["ok"] * 3 and rows[0]["prompt"].startswith("reference_prf@")
        # the same items and prompt: nothing is asked again
        assert record.record_file(scorer(), _items(), out, float("inf"), lambda m: None)["asked"] == 0
        # changed content: asked again, the stale rows dropped
        s3 = record.record_file(scorer(), _items("Answer: changed."), out, float("inf"), lambda m: None)
        assert (s3["asked"], s3["stale_dropped"], s3["rows"]) == (3, 3, 3)
        # another prompt: asked again too
        s4 = record.record_file(scorer("reference_prf_example"), _items("Answer: changed."), out, float("inf"),
                                lambda m: None)
        assert (s4["asked"], s4["rows"]) == (3, 3) and len(seen) == 9


def test_redo_asks_again_only_failed_or_reasked_rows_of_other_reask_messages(tmp_path):
    from ev2r.llm import LLMReferenceScorer

    seen, responder = _good_server_log()
    out = tmp_path / "m_86.jsonl"
    with FakeChatServer(responder) as server:
        sc = LLMReferenceScorer(model="m", base_url=server.base_url, cache_dir=False, backoff=0.01)
        record.record_file(sc, _items(), out, float("inf"), lambda m: None)
        rows = [json.loads(x) for x in out.read_text().splitlines()]
        assert [r["reask"] for r in rows] == ["1@typed"] * 3
        # as an older recording would hold them: row 0 failed, row 1 was re-asked, under other messages
        rows[0].update(status="parse_error", reask="1")
        rows[1].update(rounds=2, reask="1")
        rows[2].update(reask="1")  # first-round answer: independent of the re-ask messages
        out.write_text("".join(json.dumps(r) + "\n" for r in rows))
        seen.clear()
        assert record.record_file(sc, _items(), out, float("inf"), lambda m: None)["asked"] == 0  # no --redo
        s = record.record_file(sc, _items(), out, float("inf"), lambda m: None, redo=True)
        assert (s["asked"], s["skipped"], s["rows"]) == (2, 1, 3) and len(seen) == 2
        after = [json.loads(x) for x in out.read_text().splitlines()]
        assert [r["id"] for r in after] == ["0", "1", "2"] and [r["status"] for r in after] == ["ok"] * 3
        assert [r["reask"] for r in after] == ["1@typed", "1@typed", "1"]
        # redone rows under these messages are not asked a third time
        assert record.record_file(sc, _items(), out, float("inf"), lambda m: None, redo=True)["asked"] == 0


def test_arena_benchmark_debiased_mechanical_run_reports_both_readings(tmp_path):
    arena = load_file_module("bench_arena", REPO / "benchmarks" / "ranking" / "arena.py")
    arena.main(["--mechanical", "--limit", "4", "--bootstrap", "20", "--position-debias", "probabilities",
                "--cache", str(tmp_path / "cache"), "--out-dir", str(tmp_path / "out")])
    md = (tmp_path / "out" / "arena.md").read_text()
    data = json.loads((tmp_path / "out" / "arena.json").read_text())["mechanical"]
    assert "averaged over both positions is ahead by more than 0.05" in md
    readings = [v["reading"] for v in data["rule_variants"]]
    assert readings[0].startswith("FactArena rule") and readings[1].startswith("balanced probabilities")
    # a judge without position bias: both readings give the same ranking
    assert data["rule_variants"][0]["ranking"] == data["rule_variants"][1]["ranking"]
    assert data["settings"]["position_debias"] == "probabilities" and data["statuses"] == {"ok": 24}
    sig = data["content_signal"]["mechanical-overlap"]
    assert sig["n"] == 24 and sig["towards_better"] > 12 and "Content signal" in md
