"""The run record and resume rules both engines share (ev2r.engines.runs), and the content hash a
resume matches rows on (ev2r.io.readers.item_hash)."""

import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claimalign.text import clean_text
from ev2r.engines.runs import (PART_SUFFIX, ROW_HASH, RUN_FORMAT, RUN_SUFFIX, SIGNATURE_HASH, RunWarning, plan_run,
                               row_seal)
from ev2r.io.readers import item_from_row, item_hash
from ev2r.signature import text_digest
from ev2r.io import evidence_from_text
from ev2r.types import Item

# text the readers count as non-empty: the same rule as theirs (clean_text drops invisible characters such as
# U+00AD, which s.strip() keeps; a claim of only those is refused by the reader, rightly)
text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40).filter(lambda s: bool(clean_text(s)))
rows = st.fixed_dictionaries({
    "id": st.one_of(st.integers(0, 10 ** 6), text), "claim": text,
    "predicted_evidence": st.lists(st.fixed_dictionaries({"question": text, "answer": text}), min_size=1, max_size=3),
    "reference_evidence": st.lists(st.fixed_dictionaries({"question": text, "answer": text}), max_size=3),
    "gold_label": st.sampled_from(["supported", "refuted", "not enough evidence", None]),
})


@settings(max_examples=60, deadline=None)
@given(rows, st.integers(0, 1000))
def test_item_hash_is_stable_and_changes_with_any_content(row, n):
    item = item_from_row(row, n)
    h = item_hash(item)
    assert len(h) == 64 and h == item_hash(item_from_row(json.loads(json.dumps(row)), n))  # read again: same
    assert item_hash(replace(item, row=n + 1)) != h
    assert item_hash(replace(item, claim=item.claim + " x")) != h
    assert item_hash(replace(item, id=item.id + "x")) != h
    assert item_hash(item.with_predicted(evidence_from_text(item.predicted_evidence.render() + " x"))) != h
    assert item_hash(replace(item, reference_evidence=evidence_from_text("Question: q?\nAnswer: other"))) != h \
        or item.reference_evidence.render() == "Question: q?\nAnswer: other"
    other = "refuted" if item.gold_label is None or item.gold_label.value != "refuted" else "supported"
    assert item_hash(replace(item, gold_label=other)) != h


def test_item_hash_reads_text_as_the_scorer_does():
    a = item_from_row({"id": 1, "claim": "Ř is a letter.", "predicted_evidence": "Question: Q?\r\nAnswer: A.",
                       "reference_evidence": "x"}, 0)
    b = item_from_row({"id": 1, "claim": "R\u030c is a letter.", "predicted_evidence": "Question: Q?\nAnswer: A.",
                       "reference_evidence": "x"}, 0)
    assert item_hash(a) == item_hash(b)  # NFC and line ends normalised: the same text
    c = item_from_row({"id": "1", "claim": "Ř is a letter.", "predicted_evidence": "Question: Q?\nAnswer: A.",
                       "reference_evidence": "x"}, 0)
    assert item_hash(c) != item_hash(a)  # the id 1 and "1" are written back differently
    with pytest.raises(ValueError, match="expected an ev2r.types.Item"):
        item_hash({"id": 1})


def _sealed(row: dict, signature: str = "sig") -> dict:
    """``row`` as an ev2r run under ``signature`` writes it: with its definition and its seal."""
    row = {**row, SIGNATURE_HASH: text_digest(signature)}
    return {**row, ROW_HASH: row_seal(row)}


def _items(n):
    return [Item(id=f"i{k}", claim=f"Claim {k}.", predicted_evidence=evidence_from_text(f"e{k}"),
                 reference_evidence=evidence_from_text("r"), row=k) for k in range(n)]


def test_plan_reuses_only_rows_with_the_items_hash_and_a_lasting_status(tmp_path):
    items = _items(6)
    out = tmp_path / "out.jsonl"
    plan_run(items, out, {}, True, engine="local", signature="sig")  # the record
    h = [item_hash(it) for it in items]
    prev = [{"id": "i0", "row": 0, "status": "ok", "item_hash": h[0]},
            {"id": "i1", "row": 1, "status": "ok", "item_hash": "0" * 64},  # same id, other content
            {"id": "i2", "row": 2, "status": "ok"},  # no hash (an older file)
            {"id": "i3", "row": 3, "status": "api_error", "item_hash": h[3]},  # a passing failure
            {"id": "i4", "row": 4, "status": "no_reference", "error": "no reference evidence", "item_hash": h[4]},
            {"id": "i5", "row": 5, "status": "no_reference", "item_hash": h[5],
             "error": "no reference evidence; proxy scoring failed: RuntimeError: x"}]
    (tmp_path / ("out.jsonl" + PART_SUFFIX)).write_text("".join(json.dumps(_sealed(r)) + "\n" for r in prev) + '{"id": "i')
    with pytest.warns(RunWarning, match=r"out\.jsonl: 2 earlier row\(s\) are of items whose content changed since they "
                                        r"were scored \(rows \(from 0; line = the line of the file\): 1 \(id i1\), 2 \(id i2\);"):
        plan = plan_run(items, out, {}, True, engine="local", signature="sig")
    assert sorted(plan.done) == [0, 4] and plan.pending == [1, 2, 3, 5]
    record = json.loads((tmp_path / ("out.jsonl" + RUN_SUFFIX)).read_text())
    assert record["format"] == RUN_FORMAT == 3 and record["item_hashes"] == h and record["n_items"] == 6


def test_plan_without_output_writes_nothing_and_resume_false_deletes_nothing(tmp_path):
    items = _items(3)
    plan = plan_run(items, None, {}, True)
    assert plan.pending == [0, 1, 2] and plan.record_path is None
    out, part = tmp_path / "o.jsonl", tmp_path / ("o.jsonl" + PART_SUFFIX)
    out.write_text("foreign\n")  # another tool's file: never replaced, even with --no-resume
    with pytest.raises(ValueError, match=r"o\.jsonl \(the output\) exists and was not written by ev2r score"):
        plan_run(items, out, {}, False)
    assert out.read_text() == "foreign\n"
    out.write_text("")
    part.write_text("x\n")
    with pytest.raises(ValueError, match=r"o\.jsonl\.part \(the rows of an unfinished run\) exists and was not written"):
        plan_run(items, out, {}, False)
    assert part.read_text() == "x\n"
    # ev2r's own rows: OUT kept (replaced only at the end), OUT.part emptied, not unlinked
    h = [item_hash(it) for it in items]
    out.write_text(json.dumps({"id": "i0", "row": 0, "status": "ok", "item_hash": h[0]}) + "\n")
    part.write_text(json.dumps({"id": "i1", "row": 1, "status": "ok", "item_hash": h[1]}) + "\n")
    plan = plan_run(items, out, {}, False)
    assert plan.pending == [0, 1, 2] and out.read_text().count("\n") == 1 and part.read_text() == ""
    record = json.loads((tmp_path / ("o.jsonl" + RUN_SUFFIX)).read_text())
    assert record["previous_out"] is True
    # interrupted before the end: a resume takes none of OUT's (older) rows, only OUT.part's
    part.write_text(json.dumps(_sealed({"id": "i2", "row": 2, "status": "ok", "item_hash": h[2]})) + "\n")
    plan = plan_run(items, out, {}, True)
    assert sorted(plan.done) == [2] and plan.pending == [0, 1]
    (tmp_path / ("o.jsonl" + RUN_SUFFIX)).write_text("not json")
    with pytest.raises(ValueError, match="run record .* cannot be read.*--no-resume"):
        plan_run(items, out, {}, True)
    with pytest.raises(ValueError, match=r"o\.jsonl\.ev2r-run\.json \(the run record\) exists and was not written"):
        plan_run(items, out, {}, False)


def _sample_run(tmp_path, signature="sig"):
    """Three items, a complete run into ``out.jsonl`` under ``signature`` (sealed rows and their record)."""
    items = _items(3)
    out = tmp_path / "out.jsonl"
    plan_run(items, out, {"alpha": 0.5}, True, engine="local", signature=signature)
    rows = [_sealed({"id": f"i{k}", "row": k, "precision": 0.5, "recall": 1.0, "f1": 2 / 3, "proxy": 0.25,
                     "ev2r": 0.5 * (2 / 3) + 0.5 * 0.25, "status": "ok", "error": None,
                     "item_hash": item_hash(it)}, signature) for k, it in enumerate(items)]
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return items, out, rows


SIG = "ev2r:1.8.0|ref:nli|alpha:0.5"


def test_a_resume_takes_rows_of_this_definition_as_written(tmp_path):
    items, out, rows = _sample_run(tmp_path, SIG)
    plan = plan_run(items, out, {"alpha": 0.5}, True, engine="local", signature=SIG)
    assert sorted(plan.done) == [0, 1, 2] and plan.pending == []
    assert plan.done[1] == rows[1]


@pytest.mark.parametrize("edit, why", [
    (lambda r: {**r, "ev2r": 0.9}, "row_hash does not match: edited"),  # an edited headline (0.0943 -> 0.1732)
    (lambda r: {k: v for k, v in r.items() if not isinstance(v, float)}, "row_hash does not match"),  # numbers stripped
    (lambda r: {**r, "ev2r": "banana"}, "field 'ev2r' is 'banana', not a score"),
    (lambda r: {**r, "proxy": float("nan")}, "field 'proxy' is nan, not a score"),
    (lambda r: {k: v for k, v in r.items() if k not in (ROW_HASH, SIGNATURE_HASH)}, "no signature_hash / row_hash"),
])
def test_a_resume_refuses_a_row_edited_stripped_or_not_a_number_naming_file_line_and_field(tmp_path, edit, why):
    items, out, rows = _sample_run(tmp_path, SIG)
    rows[1] = edit(rows[1])
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(ValueError, match=rf"out\.jsonl line 2 \(id 'i1'\) cannot be resumed: .*{why}.*--no-resume"):
        plan_run(items, out, {"alpha": 0.5}, True, engine="local", signature=SIG)


def test_rows_of_another_definition_copied_over_an_output_are_refused(tmp_path):
    # the rows of a --support soft run copied over a default run's output (its record kept): refused, not resumed
    items, out, _ = _sample_run(tmp_path, SIG)
    other = [_sealed(json.loads(line), SIG.replace("alpha:0.5", "alpha:0.5|support:soft"))
             for line in out.read_text().splitlines()]
    out.write_text("".join(json.dumps(r) + "\n" for r in other))
    with pytest.raises(ValueError, match=r"line 1 \(id 'i0'\) cannot be resumed: it was made under another definition"):
        plan_run(items, out, {"alpha": 0.5}, True, engine="local", signature=SIG)


def test_a_headline_that_is_not_its_formula_is_refused_even_when_sealed(tmp_path):
    # resealed by hand after the edit: the formula still says the row is wrong (Ev2R = 0.5 F1 + 0.5 proxy)
    items, out, rows = _sample_run(tmp_path, SIG)
    rows[2] = _sealed({**rows[2], "ev2r": 0.75}, SIG)
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(ValueError, match=r"field 'ev2r' is 0\.75, not 0\.5 x F1 \+ 0\.5 x proxy = 0\.4583"):
        plan_run(items, out, {"alpha": 0.5}, True, engine="local", signature=SIG)
    rows[2] = _sealed({**rows[2], "ev2r": rows[1]["ev2r"], "f1": 0.5}, SIG)
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(ValueError, match=r"field 'f1' is 0\.5, not 2PR/\(P\+R\)"):
        plan_run(items, out, {"alpha": 0.5}, True, engine="local", signature=SIG)


def test_a_record_of_another_format_is_refused(tmp_path):
    items, out, _ = _sample_run(tmp_path, SIG)
    record_path = tmp_path / ("out.jsonl" + RUN_SUFFIX)
    record = json.loads(record_path.read_text())
    record_path.write_text(json.dumps({**record, "format": 1, "item_hashes": ["0" * 64] * 3}))
    with pytest.raises(ValueError, match=r"has format 1; this ev2r writes and resumes format 3 only"):
        plan_run(items, out, {"alpha": 0.5}, True, engine="local", signature=SIG)


def test_an_interrupted_no_resume_with_other_options_leaves_the_old_output_resumable(tmp_path):
    items, out, rows = _sample_run(tmp_path, SIG)
    other = SIG.replace("alpha:0.5", "alpha:0.3")
    plan_run(items, out, {"alpha": 0.3}, False, engine="local", signature=other)  # --no-resume, then interrupted:
    part = tmp_path / ("out.jsonl" + PART_SUFFIX)
    part.write_text(json.dumps(_sealed({**rows[0], "ev2r": 0.3 * (2 / 3) + 0.7 * 0.25}, other)) + "\n")
    # the old options: the complete output is resumed, the interrupted run's rows dropped, and the user is told
    with pytest.warns(UserWarning, match=r"interrupted --no-resume run with other options .* that output is resumed"):
        plan = plan_run(items, out, {"alpha": 0.5}, True, engine="local", signature=SIG)
    assert sorted(plan.done) == [0, 1, 2] and plan.done[0] == rows[0] and part.read_text() == ""
    # a third set of options: the message says what happened and how to keep the old output (not "other options")
    plan_run(items, out, {"alpha": 0.3}, False, engine="local", signature=other)
    with pytest.raises(ValueError, match=r"a --no-resume run with other scorer options was interrupted before it "
                                         r"replaced .*still holds the earlier run's rows.*pass the earlier run's options"):
        plan_run(items, out, {"alpha": 0.7}, True, engine="local", signature=SIG.replace("0.5", "0.7"))


def test_an_interrupted_run_resumed_under_another_definition_is_refused(tmp_path):
    # hostile round 2 (B1): the record of an interrupted lazy run held no signature, so its rows were resumed unchecked
    # after the definition changed (an admission folder replaced in place): 32 rows of one definition, 128 of another
    from ev2r.engines.local_engine import score_local
    from ev2r.metric.factory import build_scorer
    from support.fakes import WordVerifier

    items, out, _ = _sample_run(tmp_path, SIG)
    record_path = tmp_path / ("out.jsonl" + RUN_SUFFIX)
    record = json.loads(record_path.read_text())
    record_path.write_text(json.dumps({**record, "signature": None, "options": '{}'}))
    with pytest.raises(ValueError, match=r"row of id 'i0' .* cannot be resumed: it was made under another definition"):
        score_local(lambda n: build_scorer(verifier=WordVerifier()), items, out, options={}, resume=True)
