import json

import pytest

from ev2r.io.readers import read_items
from ev2r.facts.replay import ReplayReferenceScorer, check_says_supported, parse_recorded_response, split_numbered

REPLAY = "ev2r_replay/replay_atomic_reference_prec_recall.jsonl"


def test_split_numbered_keeps_numbers_inside_facts():
    text = "1. Kerala had 3,33,87,677 people in 2011. 2. The rate was 5.18 per 1000. 3. It ranked 2. in 2014."
    assert split_numbered(text) == ["Kerala had 3,33,87,677 people in 2011.", "The rate was 5.18 per 1000.",
                                    "It ranked 2. in 2014."]
    assert split_numbered("") == []
    assert split_numbered("No numbering here.") == ["No numbering here."]


@pytest.mark.parametrize("check, supported", [
    ("1. X. This fact is supported by the reference evidence.", True),
    ("X happened. Not enough information.", False),
    ("X happened. This fact is not supported by the reference evidence.", False),
    ("X happened. Partially supported.", False),
    ("X happened. The reference evidence supports this fact.", True),
    ("X happened. This fact contradicts the predicted evidence.", False),
])
def test_check_reading(check, supported):
    assert check_says_supported(check) is supported


def response(pf, ps, rf, rs, precision=None, recall=None):
    return {"facts in predicted evidence": " ".join(f"{k + 1}. P{k}." for k in range(pf)),
            "fact check predicted evidence": " ".join(f"{k + 1}. P{k}. {'Supported.' if k < ps else 'Not enough information.'}" for k in range(pf)),
            "facts count predicted evidence": pf, "support predicted evidence": ps,
            "facts in reference evidence": " ".join(f"{k + 1}. R{k}." for k in range(rf)),
            "fact check reference evidence": " ".join(f"{k + 1}. R{k}. {'Supported.' if k < rs else 'Not supported.'}" for k in range(rf)),
            "facts count reference evidence": rf, "support reference evidence": rs,
            "precision": ps / pf if precision is None else precision, "recall": (rs / rf if rf else None) if recall is None else recall}


def test_parse_consistent_and_inconsistent_responses():
    ok = parse_recorded_response(response(4, 3, 2, 1))
    assert (ok.status, ok.precision, ok.recall) == ("ok", 0.75, 0.5)
    assert ok.f1 == pytest.approx(2 * 0.75 * 0.5 / 1.25)
    assert [f.supported for f in ok.predicted_facts] == [True, True, True, False]
    bad = response(4, 3, 2, 1)
    bad["facts count predicted evidence"] = 5
    r = parse_recorded_response(bad)
    assert r.status == "replay_inconsistent" and "stated 5 facts but 4 enumerated" in r.error and r.precision is None
    assert parse_recorded_response(response(3, 1, 0, 0)).status == "replay_inconsistent"
    frac = response(3, 1, 2, 1); frac["support predicted evidence"] = 1.5
    assert "not whole numbers" in parse_recorded_response(frac).error
    wrong = response(4, 3, 2, 1, precision=0.5)
    assert "stated precision 0.5" in parse_recorded_response(wrong).error


def test_replay_reproduces_recorded_per_row_scores(shared_data):
    rows = [json.loads(l) for l in (shared_data / REPLAY).read_text().splitlines()]
    items = read_items(shared_data / "ev2r_human_eval/averitec_manual_eval_subset.jsonl")
    by_id = {i.id: i for i in items}
    flagged = {}
    for model in sorted({r["model"] for r in rows}):
        scorer = ReplayReferenceScorer(shared_data / REPLAY, model=model)
        recs = [r for r in rows if r["model"] == model]
        res = scorer.score_reference([by_id[str(r["id"])] for r in recs])
        for r, s in zip(recs, res):
            if s.status == "ok":
                assert s.precision == pytest.approx(r["llm_response"]["precision"], abs=1e-12)
                assert s.recall == pytest.approx(r["llm_response"]["recall"], abs=1e-12)
            else:
                assert s.status == "replay_inconsistent" and s.precision is None and s.recall is None
                flagged[(model, r["id"])] = s.error
        missing = scorer.score_reference([i for i in items if i.id not in {str(r['id']) for r in recs}])
        assert all(m.status == "replay_missing" for m in missing)
    # the three inconsistent recordings of the file: fractional support, zero reference facts, count mismatch
    assert set(flagged) == {("gpt-4o-2024-05-13", 35), ("gpt-3.5-turbo-1106", 268), ("gpt-3.5-turbo-1106", 66)}


def test_replay_model_choice_errors(shared_data):
    with pytest.raises(ValueError, match="several models"):
        ReplayReferenceScorer(shared_data / REPLAY)
    with pytest.raises(ValueError, match="available"):
        ReplayReferenceScorer(shared_data / REPLAY, model="gpt-9")
    with pytest.raises(FileNotFoundError, match="--replay"):
        ReplayReferenceScorer("nope.jsonl")


def test_replay_duplicate_model_id_is_an_error(tmp_path):
    row = {"model": "m", "id": 7, "llm_response": {}}
    f = tmp_path / "dup.jsonl"
    f.write_text(json.dumps(row) + "\n" + json.dumps(dict(row, id="7")) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"dup.jsonl:2: a second recorded response for model 'm' and id '7'"):
        ReplayReferenceScorer(f)
    f.write_text(json.dumps(row) + "\n" + json.dumps(dict(row, model="other")) + "\n", encoding="utf-8")
    assert set(ReplayReferenceScorer(f, model="m").records) == {"7"}


def test_a_recording_of_another_claim_under_the_same_id_is_never_replayed(tmp_path):
    # the 144 shared-task rows reuse 4 AVeriTeC ids that the recordings (made on the 86 rows) hold for other claims
    from ev2r.io import evidence_from_text
    from ev2r.types import Item

    rec = {"model": "m", "id": 7, "claim": "Claim A.", "predicted_evidence": "Question: Q?\nAnswer: A.",
           "llm_response": response(2, 1, 2, 2)}
    path = tmp_path / "rec.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    ev = evidence_from_text("Question: Q?\nAnswer: A.")
    same = Item(id="7", claim="Claim A.", predicted_evidence=ev, reference_evidence=ev)
    other_claim = Item(id="7", claim="Claim B.", predicted_evidence=ev, reference_evidence=ev)
    other_ev = Item(id="7", claim="Claim A.", predicted_evidence=evidence_from_text("Other text."), reference_evidence=ev)
    ok, bad_claim, bad_ev = ReplayReferenceScorer(path).score_reference([same, other_claim, other_ev])
    assert ok.status == "ok" and ok.precision == 0.5 and ok.recall == 1.0
    assert bad_claim.status == "replay_missing" and "other content (claim)" in bad_claim.error
    assert bad_ev.status == "replay_missing" and "other content (predicted_evidence)" in bad_ev.error
    assert bad_claim.precision is None and bad_ev.recall is None


def test_a_recording_whose_content_fields_are_not_text_never_joins(tmp_path):
    from ev2r.io import evidence_from_text
    from ev2r.types import Item

    rec = {"model": "m", "id": 7, "claim": None, "predicted_evidence": [{"question": "x", "answer": "y"}],
           "llm_response": response(2, 1, 2, 2)}
    path = tmp_path / "rec.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    ev = evidence_from_text("Question: Q?\nAnswer: A.")
    res = ReplayReferenceScorer(path).score_reference([Item(id="7", claim="C.", predicted_evidence=ev,
                                                             reference_evidence=ev)])[0]
    assert res.status == "replay_missing" and "predicted_evidence is not text" in res.error
