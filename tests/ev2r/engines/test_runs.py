"""The run record and resume rules both engines share (ev2r.engines.runs), and the content hash a
resume matches rows on (ev2r.io.readers.item_hash)."""

import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claimalign.textio import clean_text
from ev2r.engines.runs import PART_SUFFIX, RUN_SUFFIX, plan_run
from ev2r.io.readers import item_from_row, item_hash
from ev2r.types import Evidence, Item

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
    assert item_hash(item.with_predicted(Evidence.from_text(item.predicted_evidence.render() + " x"))) != h
    assert item_hash(replace(item, reference_evidence=Evidence.from_text("Question: q?\nAnswer: other"))) != h \
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


def _items(n):
    return [Item(id=f"i{k}", claim=f"Claim {k}.", predicted_evidence=Evidence.from_text(f"e{k}"),
                 reference_evidence=Evidence.from_text("r"), row=k) for k in range(n)]


def test_plan_reuses_only_rows_with_the_items_hash_and_a_lasting_status(tmp_path):
    items = _items(6)
    out = tmp_path / "out.jsonl"
    plan_run(items, out, {}, True, engine="local")  # the record
    h = [item_hash(it) for it in items]
    prev = [{"id": "i0", "row": 0, "status": "ok", "item_hash": h[0]},
            {"id": "i1", "row": 1, "status": "ok", "item_hash": "0" * 64},  # same id, other content
            {"id": "i2", "row": 2, "status": "ok"},  # no hash (an older file)
            {"id": "i3", "row": 3, "status": "api_error", "item_hash": h[3]},  # a passing failure
            {"id": "i4", "row": 4, "status": "no_reference", "error": "no reference evidence", "item_hash": h[4]},
            {"id": "i5", "row": 5, "status": "no_reference", "item_hash": h[5],
             "error": "no reference evidence; proxy scoring failed: RuntimeError: x"}]
    (tmp_path / ("out.jsonl" + PART_SUFFIX)).write_text("".join(json.dumps(r) + "\n" for r in prev) + '{"id": "i')
    plan = plan_run(items, out, {}, True, engine="local")
    assert sorted(plan.done) == [0, 4] and plan.pending == [1, 2, 3, 5]
    record = json.loads((tmp_path / ("out.jsonl" + RUN_SUFFIX)).read_text())
    assert record["format"] == 2 and record["item_hashes"] == h and record["n_items"] == 6


def test_plan_without_output_writes_nothing_and_resume_false_deletes_nothing(tmp_path):
    items = _items(3)
    plan = plan_run(items, None, {}, True)
    assert plan.pending == [0, 1, 2] and plan.record_path is None
    out, part = tmp_path / "o.jsonl", tmp_path / ("o.jsonl" + PART_SUFFIX)
    out.write_text("foreign\n")  # another tool's file: never replaced, even with --no-resume (issue 58)
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
    part.write_text(json.dumps({"id": "i2", "row": 2, "status": "ok", "item_hash": h[2]}) + "\n")
    plan = plan_run(items, out, {}, True)
    assert sorted(plan.done) == [2] and plan.pending == [0, 1]
    (tmp_path / ("o.jsonl" + RUN_SUFFIX)).write_text("not json")
    with pytest.raises(ValueError, match="run record .* cannot be read.*--no-resume"):
        plan_run(items, out, {}, True)
    with pytest.raises(ValueError, match=r"o\.jsonl\.ev2r-run\.json \(the run record\) exists and was not written"):
        plan_run(items, out, {}, False)
