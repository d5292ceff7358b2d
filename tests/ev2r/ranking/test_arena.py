"""``ev2r arena`` with a mechanical judge: the scripted OpenAI-compatible server of ``fake_server``
answers from the prompt it receives, so every judgement, tie, failure and rating is known by hand.

The evidence of a system on claim ``c`` is ``"Question: q?\\nAnswer: quality N on c"``; the mechanical
judge reads ``N`` of Evidence A and of Evidence B from the prompt and prefers the higher one.
"""

import json
import math
import re

import numpy as np
import pytest

from ev2r.ranking.arena import (
    Judge, combine_orders, common_claims, judge_reliability, parse_judge_spec, parse_judgement_text,
    parse_system_spec, run_arena, sample_pairs,
)
from ev2r.cli.main import main
from ev2r.labels import Verdict
from ev2r.llm import ResponseCache
from ev2r.llm.parse import ParseError
from ev2r.ranking.rating import ELO_SCALE, battles_from_rows, rank_battles
from ev2r.io import evidence_from_text
from ev2r.types import Evidence, Item

from support.llm import chat_response

QUALITY = {"good": 3, "mid": 2, "bad": 1}
_Q = re.compile(r"Evidence A:\n.*?quality (\d+).*?Evidence B:\n.*?quality (\d+)", re.S)


def quality_items(name, q, n=4, tag=""):
    return [Item(id=f"c{k}", claim=f"Claim number {k}{tag}.",
                 predicted_evidence=evidence_from_text(f"Question: q?\nAnswer: quality {q} on c{k}"),
                 reference_evidence=evidence_from_text(f"Question: q?\nAnswer: the truth about c{k}"),
                 gold_label=Verdict.SUPPORTED, row=k) for k in range(n)]


def systems(names=("good", "mid", "bad"), n=4):
    return {s: quality_items(s, QUALITY[s], n) for s in names}


def mechanical(body):
    """Higher quality wins; 'inverse*' models prefer lower; 'first*' always answers A; 'junk*'
    answers no verdict; 'half*' fails to parse when the worse system is shown first."""
    model = body["model"]
    text = body["messages"][-1]["content"]
    qa, qb = map(int, _Q.search(text).groups())
    if model.startswith("first"):
        ans = "A"
    elif model.startswith("junk"):
        ans = "I cannot decide."
    elif model.startswith("half") and qa < qb:
        ans = "Hmm"
    else:
        if model.startswith("inverse"):
            qa, qb = qb, qa
        ans = "A" if qa > qb else "B" if qb > qa else "tie"
    return 200, chat_response(ans), 0.0


def run(fake_server, judges, tmp_path, **kw):
    fake_server.responder = mechanical
    js = [Judge(m, fake_server.base_url, fam) for m, fam in judges]
    kw.setdefault("systems", systems())
    return run_arena(kw.pop("systems"), js, cache_dir=tmp_path / "cache", max_retries=0, backoff=0.0,
                     n_bootstrap=kw.pop("n_bootstrap", 50), **kw)


# -- parsing -------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,expected", [
    ("A", "A"), ("B", "B"), ("tie", "tie"), ("Tie.", "tie"), ("TIE", "tie"), ("A tie", "tie"), ("**B**", "B"),
    ("Answer: A", "A"), ("Verdict - B.", "B"), ("Evidence A is better.", "A"), (" B) because", "B"), ("b", "B"),
    ("\n\nA\n", "A"), ("'A'", "A"),
])
def test_parse_judgement_reads_the_verdict_at_the_start(text, expected):
    assert parse_judgement_text(text) == expected


@pytest.mark.parametrize("text", ["", "Both are good", "a good one", "AB", "The answer", "Neither", "C"])
def test_parse_judgement_refuses_anything_else(text):
    with pytest.raises(ParseError, match="no verdict"):
        parse_judgement_text(text)


def test_specs_and_their_errors():
    assert parse_judge_spec("http://127.0.0.1:8080/v1=gemma-3-270m:Gemma") == Judge(
        "gemma-3-270m", "http://127.0.0.1:8080/v1", "gemma")
    assert parse_judge_spec("http://h/v1=m") == Judge("m", "http://h/v1", None)
    assert parse_judge_spec("=gpt-4o:openai") == Judge("gpt-4o", None, "openai")
    assert parse_judge_spec("http://h/v1=llama3:8b:llama") == Judge("llama3:8b", "http://h/v1", "llama")
    assert parse_system_spec("ref:Gemma=a=b.jsonl") == ("ref", "gemma", "a=b.jsonl")
    assert parse_system_spec("ref=x.jsonl") == ("ref", None, "x.jsonl")
    for bad in ("http://h/v1", "http://h/v1=", "http://h/v1=m:"):
        with pytest.raises(ValueError, match="--judge"):
            parse_judge_spec(bad)
    for bad in ("x.jsonl", "=x.jsonl", "ref:=x.jsonl"):
        with pytest.raises(ValueError, match="systems"):
            parse_system_spec(bad)


def test_sample_pairs_seeded_distinct_and_all_by_default():
    names = ["a", "b", "c", "d", "e"]
    assert sample_pairs(names, "x", None, 0) == [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    assert sample_pairs(names, "x", 99, 0) == sample_pairs(names, "x", None, 0)
    picks = [sample_pairs(names, f"c{k}", 3, 7) for k in range(20)]
    for p in picks:
        assert len(p) == 3 and len(set(p)) == 3 and all(a < b for a, b in p) and p == sorted(p)
    assert picks == [sample_pairs(names, f"c{k}", 3, 7) for k in range(20)]  # deterministic
    assert len({tuple(p) for p in picks}) > 1  # claims get different pairs
    assert sample_pairs(names, "c0", 3, 8) != sample_pairs(names, "c0", 3, 7) or \
        sample_pairs(names, "c1", 3, 8) != sample_pairs(names, "c1", 3, 7)
    with pytest.raises(ValueError, match="pairs_per_claim"):
        sample_pairs(names, "x", 0, 0)
    with pytest.raises(ValueError, match="seed"):
        sample_pairs(names, "x", 1, -1)


def test_common_claims_checks_claim_and_reference():
    s = systems(("good", "bad"))
    s["bad"] = s["bad"][1:] + [Item(id="zz", claim="other", predicted_evidence=Evidence(()),
                                    reference_evidence=Evidence(()))]
    assert [c.id for c in common_claims(s)] == ["c1", "c2", "c3"]
    assert [c.id for c in common_claims(s, limit=2)] == ["c1", "c2"]
    s2 = systems(("good", "bad"))
    s2["bad"] = quality_items("bad", 1, tag=" (edited)")
    with pytest.raises(ValueError, match="'claim' differs"):
        common_claims(s2)
    s3 = systems(("good", "bad"))
    s3["bad"] = [Item(id=it.id, claim=it.claim, predicted_evidence=it.predicted_evidence,
                      reference_evidence=evidence_from_text("Question: q?\nAnswer: something else"))
                 for it in s3["bad"]]
    with pytest.raises(ValueError, match="'reference_evidence' differs"):
        common_claims(s3)
    with pytest.raises(ValueError, match="at least two systems"):
        common_claims({"good": quality_items("good", 3)})


def test_combine_orders_rule():
    ok = lambda o, w: {"order": o, "status": "ok", "winner": w, "error": None}
    bad = {"order": "ba", "status": "parse_error", "winner": None, "error": "no verdict"}
    assert combine_orders(ok("ab", "a"), ok("ba", "a")) == ("a", "ok", None, True)
    assert combine_orders(ok("ab", "tie"), ok("ba", "tie")) == ("tie", "ok", None, True)
    assert combine_orders(ok("ab", "a"), ok("ba", "b")) == ("tie", "ok", None, False)
    assert combine_orders(ok("ab", "a"), bad) == (None, "parse_error", "order ba: no verdict", None)


# -- a whole run with a mechanical judge ----------------------------------------------------------
def test_constrained_answers_send_the_grammar_and_change_the_cache_key(fake_server, tmp_path):
    from ev2r.ranking.arena import ANSWER_GRAMMAR

    plain = run(fake_server, [("mech", None)], tmp_path)
    assert all("grammar" not in b for b in fake_server.requests)
    n = len(fake_server.requests)
    res = run(fake_server, [("mech", None)], tmp_path, constrain_answers=True)
    sent = fake_server.requests[n:]
    assert len(sent) == n and all(b["grammar"] == ANSWER_GRAMMAR for b in sent)  # not served from the plain cache
    assert [r["winner"] for r in res.battles] == [r["winner"] for r in plain.battles]


def test_mechanical_judge_both_orders_known_order(fake_server, tmp_path):
    res = run(fake_server, [("mech", None)], tmp_path)
    # 4 claims x 3 pairs x 2 orders, each order with the evidence swapped
    assert len(fake_server.requests) == 24 and res.llm["mech"]["calls"] == 24
    assert len(res.battles) == 12 and res.statuses == {"ok": 12}
    first = next(r for r in res.battles if r["id"] == "c0" and r["system_a"] == "bad" and r["system_b"] == "good")
    assert first["winner"] == "b" and first["consistent"] is True
    assert [(o["order"], o["first"], o["answer"], o["winner"]) for o in first["orders"]] == [
        ("ab", "bad", "B", "b"), ("ba", "good", "A", "b")]
    shown = [q for q in (re.search(_Q, b["messages"][0]["content"]).groups() for b in fake_server.requests)]
    assert sorted(shown) == sorted([("1", "3"), ("3", "1"), ("1", "2"), ("2", "1"), ("2", "3"), ("3", "2")] * 4)
    body = fake_server.requests[0]["messages"][0]["content"]
    assert "factual reference" in body and "length or repetition" in body
    assert not any(s in body.split("Claim:")[1] for s in QUALITY)  # anonymous: no system name is shown
    rk = res.ranking
    assert rk["ranking"] == ["good", "mid", "bad"]
    assert [rk["ratings"][s]["wins"] for s in ("good", "mid", "bad")] == [8, 4, 0]
    assert [rk["ratings"][s]["losses"] for s in ("good", "mid", "bad")] == [0, 4, 8]
    assert [rk["ratings"][s]["mean_score"] for s in ("good", "mid", "bad")] == [1.0, 0.5, 0.0]  # win share
    assert rk["n_battles"] == 12 and rk["n_items"] == 4
    rel = res.reliability["mech"]
    assert rel["self_consistency"] == 1.0 and rel["n_self_consistency"] == 12
    assert rel["position_bias"] == 0.5 and rel["n_position"] == 24 and rel["position_p_value"] == 1.0
    assert rel["tie_rate"] == 0.0 and rel["majority_agreement"] is None and rel["n_majority"] == 0


def test_position_biased_judge_gives_only_ties(fake_server, tmp_path):
    res = run(fake_server, [("first", None)], tmp_path)
    assert all(r["winner"] == "tie" and r["consistent"] is False for r in res.battles)
    rel = res.reliability["first"]
    assert rel["self_consistency"] == 0.0 and rel["position_bias"] == 1.0 and rel["tie_rate"] == 1.0
    assert rel["position_p_value"] == pytest.approx(2 * 0.5 ** 24)
    ratings = {s: r["rating"] for s, r in res.ranking["ratings"].items()}
    assert ratings == {"good": 1000.0, "mid": 1000.0, "bad": 1000.0}
    assert {r["rank"] for r in res.ranking["ratings"].values()} == {1}


def test_failed_judgements_are_statuses_never_wins(fake_server, tmp_path):
    res = run(fake_server, [("half", None)], tmp_path)
    # 'half' cannot parse when the worse system is shown first: exactly one order of every battle fails
    assert res.statuses == {"parse_error": 12}
    assert all(r["winner"] is None and "no verdict" in r["error"] for r in res.battles)
    assert res.ranking is None and "no usable judgement" in res.settings["notes"][0]
    # with a good judge beside it, its failures are counted and left out; the good judge's work is kept
    res = run(fake_server, [("half", None), ("mech", None)], tmp_path)
    assert res.statuses == {"parse_error": 12, "ok": 12}
    assert res.ranking["n_battles"] == 12 and res.ranking["ranking"] == ["good", "mid", "bad"]
    assert "12 judgement(s) without a verdict" in res.ranking["warnings"][-1]
    rel = res.reliability["half"]
    assert rel["n_ok"] == 0 and rel["statuses"] == {"parse_error": 12} and rel["self_consistency"] is None
    assert rel["position_bias"] == 1.0 and rel["n_position"] == 12  # it answered only when the better came first


def test_family_exclusion(fake_server, tmp_path):
    res = run(fake_server, [("mech-g", "gemma"), ("mech-l", "llama")], tmp_path,
              families={"good": "Gemma", "mid": "llama"})
    by = {(r["system_a"], r["system_b"], r["judge"]) for r in res.battles if r["id"] == "c0"}
    assert by == {("good", "mid", None), ("bad", "good", "mech-l"), ("bad", "mid", "mech-g")}
    none = [r for r in res.battles if r["judge"] is None]
    assert len(none) == 4 and all(r["status"] == "no_eligible_judge" and r["winner"] is None for r in none)
    for body in fake_server.requests:
        q = set(re.search(_Q, body["messages"][0]["content"]).groups())
        if body["model"] == "mech-g":
            assert "3" not in q  # never shown the gemma system
        else:
            assert "2" not in q
    assert res.ranking["ratings"]["good"]["wins"] == 4 and res.ranking["ratings"]["mid"]["wins"] == 4
    # the dry run says how many battles no judge may judge
    from ev2r.ranking.arena import estimate_arena

    est = estimate_arena(systems(), [Judge("mech-g", fake_server.base_url, "gemma"),
                                     Judge("mech-l", fake_server.base_url, "llama")],
                         families={"good": "Gemma", "mid": "llama"}, cache_dir=tmp_path / "cache")
    assert est["n_battles"] == 12 and est["n_no_eligible_judge"] == 4 and "no eligible judge" in est["note"]


def test_majority_agreement_leave_one_out(fake_server, tmp_path):
    res = run(fake_server, [("mech1", None), ("mech2", None), ("mech3", None), ("inverse", None)], tmp_path)
    rel = res.reliability
    for m in ("mech1", "mech2", "mech3"):
        assert rel[m]["majority_agreement"] == 1.0 and rel[m]["n_majority"] == 12
    assert rel["inverse"]["majority_agreement"] == 0.0 and rel["inverse"]["n_majority"] == 12
    # two judges that disagree: neither has a majority of others... with one other judge it is that judge
    res2 = run(fake_server, [("mech1", None), ("inverse", None)], tmp_path)
    assert res2.reliability["mech1"]["majority_agreement"] == 0.0 and res2.reliability["mech1"]["n_majority"] == 12
    # direct: others split evenly -> left out
    rows = [{"id": "x", "system_a": "p", "system_b": "q", "judge": j, "status": "ok", "winner": w,
             "consistent": True, "orders": []} for j, w in (("j1", "a"), ("j2", "b"), ("j3", "a"))]
    r = judge_reliability(rows)
    assert r["j1"]["n_majority"] == 0 and r["j2"]["majority_agreement"] == 0.0 and r["j3"]["n_majority"] == 0


def test_kendall_tau_against_score_ranking(fake_server, tmp_path):
    same = {f"c{k}": {"good": 0.9, "mid": 0.5, "bad": 0.1 + 0.01 * k} for k in range(4)}
    res = run(fake_server, [("mech", None)], tmp_path, reference_scores=same)
    a = res.agreement
    assert a["tau"] == 1.0 and a["ci95"] == [1.0, 1.0] and a["n_claims"] == 4
    assert a["mean_score"]["bad"] == pytest.approx(0.115)
    rev = {k: {s: 1 - v for s, v in d.items()} for k, d in same.items()}
    res = run(fake_server, [("mech", None)], tmp_path, reference_scores=rev)
    assert res.agreement["tau"] == -1.0
    # scores on only two claims: the tau is computed on those
    part = {k: same[k] for k in ("c1", "c3")}
    assert run(fake_server, [("mech", None)], tmp_path, reference_scores=part).agreement["n_claims"] == 2


def test_pairs_per_claim_limits_battles(fake_server, tmp_path):
    res = run(fake_server, [("mech", None)], tmp_path, pairs_per_claim=1, systems=systems(n=6))
    assert len(res.battles) == 6 and len(fake_server.requests) == 12
    again = run(fake_server, [("mech", None)], tmp_path, pairs_per_claim=1, systems=systems(n=6))
    assert [(r["id"], r["system_a"], r["system_b"]) for r in again.battles] == \
        [(r["id"], r["system_a"], r["system_b"]) for r in res.battles]


# -- cache, resume, replay ------------------------------------------------------------------------
def test_resume_sends_only_what_failed_and_replay_is_exact(fake_server, tmp_path):
    state = {"fail": True}

    def flaky(body):
        text = body["messages"][-1]["content"]
        if state["fail"] and "on c2" in text:
            return 400, {"error": {"message": "bad request"}}, 0.0  # not retried
        return mechanical(body)

    js = [Judge("mech", fake_server.base_url)]
    fake_server.responder = flaky
    kw = dict(cache_dir=tmp_path / "cache", max_retries=0, n_bootstrap=50)
    first = run_arena(systems(), js, **kw)
    assert first.statuses == {"ok": 9, "api_error": 3}
    assert all(r["winner"] is None for r in first.battles if r["status"] == "api_error")
    assert first.ranking["n_battles"] == 9
    assert len(ResponseCache(tmp_path / "cache")) == 18
    state["fail"] = False
    n_before = len(fake_server.requests)
    second = run_arena(systems(), js, **kw)
    assert len(fake_server.requests) - n_before == 6  # only the failed claim's requests
    assert second.llm["mech"]["calls"] == 6 and second.llm["mech"]["cache_hits"] == 18
    assert second.statuses == {"ok": 12}
    # offline replay of the cache: no request, the same battles and ratings to the last digit
    n_before = len(fake_server.requests)
    replay = run_arena(systems(), js, offline=True, **kw)
    assert len(fake_server.requests) == n_before
    strip = lambda rows: [{k: v for k, v in r.items() if k != "orders"} for r in rows]
    assert strip(replay.battles) == strip(second.battles)
    assert replay.ranking["ratings"] == second.ranking["ratings"]
    # a replay without the answers: every judgement replay_missing, no ranking, no exception
    empty = run_arena(systems(), js, offline=True, cache_dir=tmp_path / "empty", n_bootstrap=10)
    assert empty.statuses == {"replay_missing": 12} and empty.ranking is None


# -- battles.jsonl read by `ev2r rank`; the CLI ---------------------------------------------------
def _write(path, items):
    path.write_text("".join(json.dumps({"id": it.id, "claim": it.claim,
                                        "predicted_evidence": it.predicted_evidence.render(),
                                        "reference_evidence": it.reference_evidence.render(),
                                        "gold_label": "supported"}) + "\n" for it in items), encoding="utf-8")
    return path


def test_cli_writes_battles_that_rank_reads_directly(fake_server, tmp_path, capsys):
    fake_server.responder = mechanical
    specs = []
    for s, its in systems().items():
        specs.append(f"{s}={_write(tmp_path / f'{s}.jsonl', its)}")
    scores = tmp_path / "scores.jsonl"
    scores.write_text("".join(json.dumps({"id": f"c{k}", "system": s, "ev2r": QUALITY[s] / 4})
                              + "\n" for k in range(4) for s in QUALITY), encoding="utf-8")
    out = tmp_path / "out"
    rc = main(["arena", *specs, "--judge", f"{fake_server.base_url}=mech", "--judge", f"{fake_server.base_url}=first",
               "-o", str(out), "--llm-cache", str(tmp_path / "c"), "--bootstrap", "100",
               "--scores", str(scores)])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "| 1 | good |" in printed and "Judge reliability" in printed and "Kendall tau-b" in printed
    rows = [json.loads(line) for line in (out / "battles.jsonl").read_text().splitlines()]
    assert len(rows) == 24 and {r["judge"] for r in rows} == {"mech", "first"}
    arena = json.loads((out / "ranking.json").read_text())
    rc = main(["rank", str(out / "battles.jsonl"), "-o", str(tmp_path / "r.json"), "--bootstrap", "100"])
    assert rc == 0
    ranked = json.loads((tmp_path / "r.json").read_text())
    assert ranked["ratings"] == arena["ratings"] and ranked["ranking"] == ["good", "mid", "bad"]
    assert ranked["settings"]["judgements"] == {"n_rows": 24, "n_used": 24, "not_used": {}}
    rel = json.loads((out / "reliability.json").read_text())
    assert rel["judges"]["first"]["self_consistency"] == 0.0 and rel["agreement"]["tau"] == 1.0
    # dry run: nothing sent; everything already cached
    capsys.readouterr()
    n = len(fake_server.requests)
    assert main(["arena", *specs, "--judge", f"{fake_server.base_url}=mech", "-o", str(out), "--dry-run",
                 "--llm-cache", str(tmp_path / "c")]) == 0
    est = json.loads(capsys.readouterr().out)
    assert est["judges"]["mech"]["n_requests"] == 24 and est["judges"]["mech"]["n_to_send"] == 0
    assert len(fake_server.requests) == n


def test_cli_exit_codes(fake_server, tmp_path, capsys):
    fake_server.responder = mechanical
    specs = [f"{s}={_write(tmp_path / f'{s}.jsonl', its)}" for s, its in systems(("good", "bad")).items()]
    assert main(["arena", *specs, "--judge", f"{fake_server.base_url}=junk", "-o", str(tmp_path / "o"),
                 "--llm-cache", str(tmp_path / "c"), "--bootstrap", "0"]) == 1
    assert "no judgement succeeded" in capsys.readouterr().err
    assert (tmp_path / "o" / "battles.jsonl").exists()  # the failed judgements are still written
    assert main(["arena", *specs, "--judge", "nourl", "-o", str(tmp_path / "o")]) == 2
    assert "--judge" in capsys.readouterr().err
    assert main(["arena", specs[0], "--judge", f"{fake_server.base_url}=mech", "-o", str(tmp_path / "o")]) == 2
    assert "at least two systems" in capsys.readouterr().err
    assert main(["arena", *specs, "--judge", "http://h/v1=m", "--judge", "http://g/v1=m", "-o", str(tmp_path / "o")]) == 2
    assert "given twice" in capsys.readouterr().err


# -- judged battle rows in ev2r.ranking.rating ----------------------------------------------------------------
def test_battles_from_rows_hand_computed_bradley_terry():
    rows = [{"id": "1", "system_a": "x", "system_b": "y", "winner": "a", "judge": "j1"},
            {"id": "1", "system_a": "x", "system_b": "y", "winner": "a", "judge": "j2"},
            {"id": "2", "system_a": "y", "system_b": "x", "winner": "a", "judge": "j1"},
            {"id": "3", "system_a": "x", "system_b": "y", "winner": None, "status": "parse_error", "judge": "j1"}]
    battles, info = battles_from_rows(rows)
    assert info == {"n_rows": 4, "n_used": 3, "not_used": {"parse_error": 1}}
    res = rank_battles(battles, n_bootstrap=0)
    # W[x, y] = 2, W[y, x] = 1 -> theta_x - theta_y = log 2
    diff = res["ratings"]["x"]["rating"] - res["ratings"]["y"]["rating"]
    assert diff == pytest.approx(ELO_SCALE * math.log(2), abs=2e-3)
    assert res["ratings"]["x"]["mean_score"] == pytest.approx(2 / 3)
    ties = [{"id": "1", "system_a": "x", "system_b": "y", "winner": "a"},
            {"id": "2", "system_a": "x", "system_b": "y", "winner": "tie"}]
    res = rank_battles(battles_from_rows(ties)[0], n_bootstrap=0)
    # W[x, y] = 1.5, W[y, x] = 0.5 -> log 3
    assert res["ratings"]["x"]["rating"] - res["ratings"]["y"]["rating"] == pytest.approx(ELO_SCALE * math.log(3), abs=2e-3)
    assert res["ratings"]["x"]["ties"] == 1 and res["ratings"]["y"]["ties"] == 1 and res["n_battles"] == 2


@pytest.mark.parametrize("row,msg", [
    ({"id": "1", "system_a": "x", "system_b": "y", "winner": "x"}, "'winner' must be one of"),
    ({"id": "1", "system_a": "x", "system_b": "x", "winner": "a"}, "same system"),
    ({"id": "1", "system_a": "x", "winner": "a"}, "'system_b' is missing"),
    ({"id": "1", "system_a": "x", "system_b": "y", "winner": None, "status": "ok"}, "null but status is 'ok'"),
    ({"id": None, "system_a": "x", "system_b": "y", "winner": "a"}, "'id' must be"),
])
def test_battles_from_rows_errors(row, msg):
    with pytest.raises(ValueError, match=msg):
        battles_from_rows([row, {"id": "9", "system_a": "x", "system_b": "y", "winner": "a"}])


def test_battles_from_rows_duplicate_judgement():
    r = {"id": "1", "system_a": "x", "system_b": "y", "winner": "a", "judge": "j"}
    with pytest.raises(ValueError, match="second judgement"):
        battles_from_rows([r, dict(r, system_a="y", system_b="x")])
    battles_from_rows([r, dict(r, judge="k")])  # another judge is fine


def test_bootstrap_over_claims_is_deterministic(fake_server, tmp_path):
    a = run(fake_server, [("mech", None), ("first", None)], tmp_path, n_bootstrap=200)
    b = run(fake_server, [("mech", None), ("first", None)], tmp_path, n_bootstrap=200)
    assert a.ranking["ratings"] == b.ranking["ratings"]
    ci = a.ranking["ratings"]["good"]["ci95"]
    assert ci[0] <= a.ranking["ratings"]["good"]["rating"] <= ci[1]
    assert np.isfinite(ci).all()


# -- position debiasing from the answer probabilities ----------------------------------------------
def _probs_response(p_a, p_b, p_tie, text="A"):
    tops = [{"token": t, "logprob": math.log(p)} for t, p in (("A", p_a), ("B", p_b), (" tie", p_tie), ("The", 0.01))]
    return chat_response(text, logprobs=[{"token": text, "logprob": math.log(p_a), "top_logprobs": tops}])


def first_shown_with_probabilities(body):
    """Always answers A (the first-shown set), but P(A) rises with the quality shown first over the
    one shown second: 0.7 + 0.1 (qa - qb); P(tie) 0.05."""
    qa, qb = map(int, _Q.search(body["messages"][-1]["content"]).groups())
    p_a = 0.7 + 0.1 * (qa - qb)
    return 200, _probs_response(p_a, 0.95 - p_a, 0.05), 0.0


def test_judgement_probabilities_pool_spellings_and_renormalise():
    from ev2r.ranking.arena import judgement_probabilities

    r = _probs_response(0.6, 0.2, 0.1)  # 'The' (0.01) is not a verdict: left out, the rest renormalised
    assert judgement_probabilities(r) == pytest.approx({"A": 0.6 / 0.9, "B": 0.2 / 0.9, "tie": 0.1 / 0.9})
    two = chat_response("A", logprobs=[{"token": "A", "logprob": math.log(0.5), "top_logprobs": [
        {"token": "A", "logprob": math.log(0.5)}, {"token": " A", "logprob": math.log(0.25)},
        {"token": "**B", "logprob": math.log(0.25)}]}])
    assert judgement_probabilities(two) == pytest.approx({"A": 0.75, "B": 0.25, "tie": 0.0})
    with pytest.raises(ParseError, match="logprobs"):
        judgement_probabilities(chat_response("A"))
    with pytest.raises(ParseError, match="A, B or tie"):
        judgement_probabilities(chat_response("x", logprobs=[{"token": "x", "logprob": 0.0, "top_logprobs": []}]))


def test_combine_orders_balanced_hand_computed():
    from ev2r.ranking.arena import combine_orders_balanced

    def rec(o, w, pa, pb):
        return {"order": o, "status": "ok", "winner": w, "error": None,
                "probabilities": {"A": pa, "B": pb, "tie": 1 - pa - pb}}
    # a always shown first wins by position: s_a = (0.8 + 0.4) / 2 = 0.6, s_b = (0.15 + 0.55) / 2 = 0.35
    assert combine_orders_balanced(rec("ab", "a", 0.8, 0.15), rec("ba", "b", 0.55, 0.4)) == (
        "a", "ok", None, False, {"a": 0.6, "b": 0.35})
    # the same probabilities whichever set is first: a tie however sure the judge is of "A"
    assert combine_orders_balanced(rec("ab", "a", 0.9, 0.1), rec("ba", "b", 0.9, 0.1))[0] == "tie"
    # ahead by less than the margin: a tie; with margin 0: a win
    close = (rec("ab", "a", 0.62, 0.38), rec("ba", "b", 0.58, 0.42))  # s_a - s_b = 0.04
    assert combine_orders_balanced(*close)[0] == "tie" and combine_orders_balanced(*close, margin=0.0)[0] == "a"
    bad = {"order": "ba", "status": "parse_error", "winner": None, "error": "no verdict"}
    assert combine_orders_balanced(rec("ab", "a", 0.8, 0.1), bad) == (None, "parse_error", "order ba: no verdict",
                                                                     None, None)


def test_position_debias_recovers_the_order_from_a_first_shown_judge(fake_server, tmp_path):
    fake_server.responder = first_shown_with_probabilities
    kw = dict(cache_dir=tmp_path / "cache", max_retries=0, backoff=0.0, n_bootstrap=50)
    judge = [Judge("firstprob", fake_server.base_url, None)]
    plain = run_arena(systems(), judge, **kw)
    assert all(r["winner"] == "tie" for r in plain.battles)  # the FactArena rule: every battle a tie
    res = run_arena(systems(), judge, position_debias="probabilities", **kw)
    sent = fake_server.requests[-1]
    assert sent["logprobs"] is True and sent["top_logprobs"] == 20
    assert res.ranking["ranking"] == ["good", "mid", "bad"] and res.settings["position_debias"] == "probabilities"
    row = next(r for r in res.battles if r["id"] == "c0" and r["system_a"] == "bad" and r["system_b"] == "good")
    # ab: bad first, P(A) 0.5, P(B) 0.45; ba: good first, P(A) 0.9, P(B) 0.05: s_a = (0.5 + 0.05) / 2
    assert row["winner"] == "b" and row["balanced"] == pytest.approx({"a": 0.275, "b": 0.675})
    assert row["consistent"] is False and row["orders"][0]["probabilities"]["A"] == pytest.approx(0.5)
    assert "balanced probabilities" in res.settings["rule"]
    with pytest.raises(ValueError, match="position_debias"):
        run_arena(systems(), judge, position_debias="calibrate", **kw)
    with pytest.raises(ValueError, match="debias_margin"):
        run_arena(systems(), judge, position_debias="probabilities", debias_margin=1.5, **kw)


def test_probabilities_read_a_tie_as_a_tie_and_survive_odd_logprobs():
    from ev2r.ranking.arena import judgement_probabilities

    def resp(text, stream):
        return chat_response(text, logprobs=[{"token": t, "logprob": lp, "top_logprobs": tops} for t, lp, tops in stream])
    a_tie = resp("A tie.", [("A", math.log(0.9), [{"token": "A", "logprob": math.log(0.9)}]),
                            (" tie", math.log(0.7), [{"token": " tie", "logprob": math.log(0.7)},
                                                     {"token": " B", "logprob": math.log(0.1)}])])
    assert parse_judgement_text("A tie.") == "tie"
    assert judgement_probabilities(a_tie) == pytest.approx({"A": 0.0, "B": 0.125, "tie": 0.875})
    # a null / text / NaN logprob is no mass, never a crash; the generated token's own value stands in for a NaN entry
    odd = resp("A", [("A", math.log(0.9), [{"token": "A", "logprob": float("nan")}, {"token": "B", "logprob": None},
                                           {"token": "tie", "logprob": "x"}, "junk"])])
    assert judgement_probabilities(odd) == pytest.approx({"A": 1.0, "B": 0.0, "tie": 0.0})
    as_dict = chat_response("B", logprobs=[{"token": "B", "logprob": -0.1, "top_logprobs": {"B": -0.1, "A": -2.4}}])
    assert judgement_probabilities(as_dict)["B"] == pytest.approx(math.exp(-0.1) / (math.exp(-0.1) + math.exp(-2.4)))
