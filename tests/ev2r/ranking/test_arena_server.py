"""``ev2r arena`` against the real local server: llama-cpp-python serving Qwen2.5-Coder-0.5B-Instruct
(fixtures in tests/support/llm_fixtures.py; skipped when it is not installed, failed under
EV2R_REQUIRE_LLM_SERVER=1).

The 0.5B instruct model answers the verdict the guideline asks for, but it is a weak judge. What
must hold is mechanical: every battle is asked in both orders with the evidence swapped, each answer
becomes a verdict or a ``parse_error`` (never a win), the panel's family rule is kept, a killed
server leaves the finished judgements in the cache and a rerun sends only what is missing, and an
offline replay of the cache gives the same battles and ratings.
"""

import threading
import time

import pytest

from ev2r.ranking.arena import Judge, run_arena
from ev2r.labels import Verdict
from ev2r.llm import ResponseCache
from ev2r.io import evidence_from_text
from ev2r.types import Item

pytestmark = [pytest.mark.llm, pytest.mark.slow]

MAX_TOKENS = 3

CLAIMS = [
    ("The Eiffel Tower is in Berlin.", "Question: Where is the Eiffel Tower?\nAnswer: In Paris, France.",
     "Question: What is the moon made of?\nAnswer: Rock."),
    ("Water boils at 50 degrees Celsius at sea level.",
     "Question: At what temperature does water boil at sea level?\nAnswer: 100 degrees Celsius.",
     "Question: Who painted the Mona Lisa?\nAnswer: Leonardo da Vinci."),
    ("Kerala has 33 million people.", "Question: What was Kerala's population in 2011?\nAnswer: 3,33,87,677.",
     "Question: What is the capital of Japan?\nAnswer: Tokyo."),
]


def arena_systems(n=2):
    good, off = [], []
    for k, (claim, ref, other) in enumerate(CLAIMS[:n]):
        common = dict(id=f"s{k}", claim=claim, reference_evidence=evidence_from_text(ref),
                      gold_label=Verdict.REFUTED, row=k)
        good.append(Item(predicted_evidence=evidence_from_text(ref), **common))
        off.append(Item(predicted_evidence=evidence_from_text(other), **common))
    return {"reference": good, "off_topic": off}


def check_rows(rows):
    for r in rows:
        assert r["status"] in ("ok", "parse_error"), (r["status"], r["error"])
        assert [o["order"] for o in r["orders"]] == ["ab", "ba"]
        assert [o["first"] for o in r["orders"]] == [r["system_a"], r["system_b"]]
        if r["status"] == "ok":
            assert r["winner"] in ("a", "b", "tie") and r["error"] is None
            assert r["consistent"] is (r["orders"][0]["winner"] == r["orders"][1]["winner"])
            if not r["consistent"]:
                assert r["winner"] == "tie"
        else:
            assert r["winner"] is None and "no verdict" in r["error"]


def test_arena_through_real_server_and_exact_replay(llama_server, tmp_path):
    judge = Judge(llama_server.model, llama_server.base_url, "qwen")
    kw = dict(cache_dir=tmp_path / "cache", max_tokens=MAX_TOKENS, concurrency=1, timeout=600.0, max_retries=1,
              n_bootstrap=100)
    res = run_arena(arena_systems(), [judge], **kw)
    print(f"\n[arena] statuses={res.statuses} answers={[o['text'] for r in res.battles for o in r['orders']]} "
          f"llm={res.llm}")
    assert len(res.battles) == 2 and res.llm[judge.name]["calls"] == 4
    assert res.llm[judge.name]["prompt_tokens"] > 4 * 200  # the guideline, the reference and both sets were sent
    check_rows(res.battles)
    # the instruct model answers a verdict every time (it has a strong first-shown bias: "A" in both
    # orders, so these battles come out ties -- what the both-orders rule is for)
    assert res.statuses == {"ok": 2} and all(o["answer"] in ("A", "B", "tie") for r in res.battles
                                              for o in r["orders"]), [o for r in res.battles for o in r["orders"]]
    assert len(ResponseCache(tmp_path / "cache")) == 4
    rel = res.reliability[judge.name]
    assert rel["n_judgements"] == 2 and rel["n_ok"] == res.statuses.get("ok", 0)
    # offline replay of the cache: no call, the same battles and ratings
    again = run_arena(arena_systems(), [judge], offline=True, **kw)
    assert again.llm[judge.name]["calls"] == 0 and again.llm[judge.name]["cache_hits"] == 4
    assert again.battles == [dict(r, orders=[dict(o, from_cache=True) for o in r["orders"]]) for r in res.battles]
    assert again.ranking == res.ranking


def test_family_exclusion_with_real_server(llama_server, tmp_path):
    systems = arena_systems()
    systems["qwen_system"] = [it for it in systems["reference"]]
    judge = Judge(llama_server.model, llama_server.base_url, "qwen")
    res = run_arena(systems, [judge], {"qwen_system": "Qwen"}, cache_dir=tmp_path / "cache", max_tokens=MAX_TOKENS,
                    concurrency=1, timeout=600.0, max_retries=1, n_bootstrap=0, pairs_per_claim=None)
    excluded = [r for r in res.battles if "qwen_system" in (r["system_a"], r["system_b"])]
    assert len(excluded) == 4 and all(r["status"] == "no_eligible_judge" and r["judge"] is None for r in excluded)
    judged = [r for r in res.battles if r not in excluded]
    assert len(judged) == 2 and res.llm[judge.name]["requests"] == 4  # only off_topic vs reference was asked
    check_rows(judged)


def test_killed_server_then_resume(start_llama, llama_server, tmp_path):
    server = start_llama()
    systems = arena_systems(3)
    kw = dict(cache_dir=tmp_path / "cache", max_tokens=MAX_TOKENS, concurrency=1, timeout=600.0, max_retries=0,
              n_bootstrap=0)
    box = {}
    worker = threading.Thread(target=lambda: box.update(
        res=run_arena(systems, [Judge(server.model, server.base_url, "qwen")], **kw)))
    worker.start()
    cache = ResponseCache(tmp_path / "cache")
    deadline = time.monotonic() + 300
    while len(cache) < 1 and time.monotonic() < deadline and worker.is_alive():
        time.sleep(0.1)
    server.kill()  # SIGKILL after the first answer arrived
    worker.join(timeout=300)
    assert not worker.is_alive()
    first = box["res"]
    done = len(cache)
    print(f"\n[arena killed] statuses={first.statuses} cached={done}")
    assert 1 <= done < 6
    failed = [r for r in first.battles if r["status"] == "api_error"]
    assert failed and all(r["winner"] is None for r in failed)  # a failed judgement is never a win
    # resume against a live server: only the missing answers are asked; finished ones come from the cache
    second = run_arena(systems, [Judge(llama_server.model, llama_server.base_url, "qwen")], **kw)
    st = second.llm[llama_server.model]
    print(f"[arena resume] statuses={second.statuses} calls={st['calls']} cache_hits={st['cache_hits']}")
    assert st["cache_hits"] == done and st["calls"] == 6 - done
    check_rows(second.battles)
    for before, after in zip(first.battles, second.battles):
        for ob, oa in zip(before["orders"], after["orders"]):
            if ob["status"] not in ("api_error", "timeout"):
                assert (oa["answer"], oa["status"], oa["text"]) == (ob["answer"], ob["status"], ob["text"])
