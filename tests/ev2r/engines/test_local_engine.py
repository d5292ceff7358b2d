"""The local engine (ev2r.engines.local_engine): rows kept in OUT.part as chunks are scored, an
interrupted run resumed to the uninterrupted file, stale rows never reused."""

import json

import pytest

from ev2r.engines.local_engine import score_local
from ev2r.engines.runs import PART_SUFFIX, RUN_SUFFIX, RunInterrupted, RunWarning, output_row
from ev2r.io.readers import item_hash, read_items
from ev2r.metric.factory import build_scorer
from support.fakes import WordVerifier
from support.paths import SHARED_CASES
from support.ray_rows import write_rows


class StopAtVerifier(WordVerifier):
    """A :class:`WordVerifier` that raises KeyboardInterrupt (Ctrl-C) the first time it sees a
    hypothesis containing ``marker`` -- in the chunk that holds that row -- and scores afterwards."""

    def __init__(self, marker: str):
        super().__init__()
        self.marker, self.armed = marker, True

    def predict(self, premises, hypotheses):
        if self.armed and any(self.marker in h for h in hypotheses):
            self.armed = False
            raise KeyboardInterrupt
        return super().predict(premises, hypotheses)


def read_jsonl(path):
    return [json.loads(line) for line in open(path, encoding="utf-8")]


def test_rows_and_summary_are_those_of_the_scorer(tmp_path):
    items = read_items(write_rows(80, tmp_path / "in.jsonl"))
    scorer = build_scorer(verifier=WordVerifier())
    want = scorer.score(items)
    out = tmp_path / "out.jsonl"
    res = score_local(build_scorer(verifier=WordVerifier()), items, out, options={"verifier": "word"})
    assert res.rows == [output_row(it, s, False, scorer.signature()) for it, s in zip(items, want)] == read_jsonl(out)
    assert res.summary.to_dict() == scorer.corpus(want).to_dict()
    assert res.n_scored == 80 and res.n_resumed == 0 and not (tmp_path / ("out.jsonl" + PART_SUFFIX)).exists()
    record = json.loads((tmp_path / ("out.jsonl" + RUN_SUFFIX)).read_text())
    assert record["engine"] == "local" and record["item_hashes"] == [item_hash(it) for it in items]
    assert record["signature"] == scorer.signature()


@pytest.mark.parametrize("stop_row", [0, 40, 70])  # Ctrl-C in chunk 0, 1 or 2
def test_interrupted_then_resumed_equals_uninterrupted(tmp_path, stop_row):
    items = read_items(write_rows(80, tmp_path / "in.jsonl", unique_claims=True))
    whole = tmp_path / "whole.jsonl"  # the same verifier class: the rows name the definition (its class among it)
    score_local(build_scorer(verifier=StopAtVerifier("(no such row)")), items, whole, options={"verifier": "word"})
    out, part = tmp_path / "out.jsonl", tmp_path / ("out.jsonl" + PART_SUFFIX)
    verifier = StopAtVerifier(f"(row {stop_row})")
    with pytest.raises(RunInterrupted) as e:
        score_local(build_scorer(verifier=verifier), items, out, options={"verifier": "word"})
    kept = 32 * (stop_row // 32)
    assert e.value.done == kept and e.value.total == 80 and e.value.part_path == part
    assert "run the same command again" in e.value.message() and "--no-resume" in e.value.message()
    assert not out.exists() and len(read_jsonl(part)) == kept  # finished chunks only, flushed
    res = score_local(build_scorer(verifier=verifier), items, out, options={"verifier": "word"})
    rescored = 1 if kept > 40 else 0  # row 40 broke the verifier (status error): scored again, alone
    assert res.n_resumed == kept - rescored and res.n_scored == 80 - kept + rescored
    assert out.read_bytes() == whole.read_bytes() and not part.exists()


def test_without_output_an_interruption_says_nothing_was_written(tmp_path):
    items = read_items(write_rows(40, tmp_path / "in.jsonl", unique_claims=True))
    with pytest.raises(RunInterrupted, match="nothing was written"):
        score_local(build_scorer(verifier=StopAtVerifier("(row 35)")), items, None)


def test_second_system_with_the_same_ids_gets_its_own_numbers(tmp_path):
    """turn3/ray_resume_sysA.jsonl then turn3/ray_resume_sysB_same_ids.jsonl, one -o."""
    a, b = SHARED_CASES / "turn3" / "ray_resume_sysA.jsonl", SHARED_CASES / "turn3" / "ray_resume_sysB_same_ids.jsonl"
    if not b.exists():
        pytest.skip("needs ../shared/cases/turn3")
    out = tmp_path / "out.jsonl"
    ra = score_local(build_scorer(verifier=WordVerifier()), read_items(a), out, options={})
    with pytest.warns(RunWarning, match=r"out\.jsonl: 2 earlier row\(s\) are of items whose content changed since they "
                                        r"were scored \(rows \(from 0; line = the line of the file\): 0 \(line 1; id 585\), "
                                        r"1 \(line 2; id 33\); another item_hash\)"):
        rb = score_local(build_scorer(verifier=WordVerifier()), read_items(b), out, options={})
    fresh = score_local(build_scorer(verifier=WordVerifier()), read_items(b), tmp_path / "b.jsonl", options={})
    assert rb.n_scored == 2 and rb.n_resumed == 0
    assert rb.rows == fresh.rows == read_jsonl(out)
    assert [r["ev2r"] for r in rb.rows] != [r["ev2r"] for r in ra.rows]  # B's evidence is the gold evidence
    assert rb.rows[0]["recall"] == 1.0 and ra.rows[0]["recall"] < 1.0


def test_changed_input_rows_are_rescored_the_others_kept(tmp_path):
    rows_path = write_rows(48, tmp_path / "in.jsonl")
    items = read_items(rows_path)
    out = tmp_path / "out.jsonl"
    before = score_local(build_scorer(verifier=WordVerifier()), items, out, options={})
    lines = rows_path.read_text().splitlines()
    row = json.loads(lines[8])
    row["predicted_evidence"] = row["reference_evidence"]  # same id, other evidence
    lines[8] = json.dumps(row)
    rows_path.write_text("\n".join(lines) + "\n")
    changed = read_items(rows_path)
    with pytest.warns(RunWarning, match=r"out\.jsonl: 1 earlier row\(s\) are of items whose content changed since they "
                                        r"were scored \(rows \(from 0; line = the line of the file\): 8 \(line 9; id s8\);"):
        res = score_local(build_scorer(verifier=WordVerifier()), changed, out, options={})
    assert res.rows[5]["status"] == "no_reference" and res.rows[40]["status"] == "error"
    fresh = score_local(build_scorer(verifier=WordVerifier()), changed, tmp_path / "fresh.jsonl", options={})
    assert res.n_scored == 2 and res.n_resumed == 46  # row 8 (changed) and row 40 (error before)
    assert res.rows[8]["item_hash"] == item_hash(changed[8]) != item_hash(items[8])
    assert res.rows[8] == fresh.rows[8] and res.rows[8]["recall"] > before.rows[8]["recall"]
    assert res.rows[:8] + res.rows[9:] == before.rows[:8] + before.rows[9:]


def test_other_options_are_refused_and_resume_false_starts_afresh(tmp_path):
    items = read_items(write_rows(12, tmp_path / "in.jsonl"))
    out = tmp_path / "out.jsonl"
    score_local(build_scorer(verifier=WordVerifier(), alpha=0.5), items, out, options={"alpha": 0.5})
    with pytest.raises(ValueError, match="written with other scorer options.*--no-resume"):
        score_local(build_scorer(verifier=WordVerifier(), alpha=0.7), items, out, options={"alpha": 0.7})
    with pytest.raises(ValueError, match="written without --explain"):
        score_local(build_scorer(verifier=WordVerifier(), alpha=0.5), items, out, options={"alpha": 0.5},
                    with_facts=True)
    res = score_local(build_scorer(verifier=WordVerifier(), alpha=0.7), items, out, options={"alpha": 0.7},
                      resume=False)
    assert res.n_scored == 12 and "alpha:0.7" in res.summary.signature
    assert json.loads((tmp_path / ("out.jsonl" + RUN_SUFFIX)).read_text())["options"] == '{"alpha": 0.7}'


def test_another_signature_under_the_same_options_is_refused(tmp_path):
    items = read_items(write_rows(4, tmp_path / "in.jsonl"))
    out = tmp_path / "out.jsonl"
    score_local(build_scorer(verifier=WordVerifier()), items, out, options={})
    record = tmp_path / ("out.jsonl" + RUN_SUFFIX)
    rec = json.loads(record.read_text())
    record.write_text(json.dumps(dict(rec, signature=rec["signature"].replace("torch:", "torch:0.0.1-"))))
    with pytest.raises(ValueError, match="scored under another signature"):
        score_local(build_scorer(verifier=WordVerifier()), items, out, options={})


@pytest.mark.parametrize("leftover", ["out.jsonl", "out.jsonl" + PART_SUFFIX])
def test_a_file_without_run_record_is_refused_never_overwritten(tmp_path, leftover):
    items = read_items(write_rows(4, tmp_path / "in.jsonl"))
    foreign = tmp_path / leftover
    foreign.write_text('{"id": "s0", "ev2r": 0.99, "status": "ok"}\n')
    with pytest.raises(ValueError, match=r"has no run record out\.jsonl\.ev2r-run\.json.*another -o.*--no-resume"):
        score_local(build_scorer(verifier=WordVerifier()), items, tmp_path / "out.jsonl", options={})
    assert foreign.read_text() == '{"id": "s0", "ev2r": 0.99, "status": "ok"}\n'
    res = score_local(build_scorer(verifier=WordVerifier()), items, tmp_path / "out.jsonl", options={}, resume=False)
    assert res.n_scored == 4 and len(read_jsonl(tmp_path / "out.jsonl")) == 4
    assert not (tmp_path / ("out.jsonl" + PART_SUFFIX)).exists()
