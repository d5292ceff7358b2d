import json

import pytest

from ev2r.io.readers import InputError, InputWarning, read_items
from ev2r.labels import Verdict
from ev2r.io import evidence_from_text
from ev2r.types import QAPair


def write(tmp_path, rows, name="in.jsonl"):
    p = tmp_path / name
    p.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return p


def test_evidence_text_round_trip():
    text = "Question: Who won?\nAnswer: Smith won.\n\nQuestion: When?\nAnswer: In 2010."
    ev = evidence_from_text(text)
    assert ev.pairs == (QAPair("Who won?", "Smith won."), QAPair("When?", "In 2010."))
    assert evidence_from_text(ev.render()) == ev
    assert evidence_from_text("Plain sentence.").pairs == (QAPair("", "Plain sentence."),)
    assert evidence_from_text("  ").pairs == ()


def test_ev2r_jsonl_text_and_list_evidence(tmp_path):
    p = write(tmp_path, [
        {"id": "a", "claim": "C1", "predicted_evidence": "Question: Q\nAnswer: A", "reference_evidence": "Question: Q\nAnswer: B",
         "gold_label": "Refuted", "human_label": "supported"},
        {"id": "b", "claim": "C2", "predicted_evidence": [{"question": "Q", "answer": "A"}],
         "reference_evidence": [{"question": "Q2", "answer": "B2"}], "gold_label": "NOT ENOUGH INFO", "predicted_label": "supported"},
    ])
    items = read_items(p)
    assert [i.id for i in items] == ["a", "b"] and [i.row for i in items] == [0, 1]
    assert items[0].gold_label is Verdict.REFUTED and items[0].extra["human_label"] == "supported"
    assert items[1].predicted_evidence.pairs == (QAPair("Q", "A"),)
    assert items[1].gold_label is Verdict.NOT_ENOUGH_EVIDENCE and items[1].predicted_label is Verdict.SUPPORTED


def test_fever_and_vitaminc_rows(tmp_path):
    p = write(tmp_path, [{"unique_id": "u1", "claim": "X is Y.", "evidence": "X is Y indeed.", "label": "SUPPORTS"},
                         {"claim": "Z.", "reference_evidence": "R.", "candidate_evidence": "C.", "reference_label": "REFUTES",
                          "candidate_label": "SUPPORTS", "equivalent": 0}])
    a, b = read_items(p)
    assert a.id == "u1" and a.reference_evidence.pairs == () and a.gold_label is Verdict.SUPPORTED
    assert b.id == "1" and b.predicted_evidence.render() == "C." and b.reference_evidence.render() == "R."
    assert b.gold_label is Verdict.REFUTED and b.extra == {"equivalent": 0}


def test_averitec_predictions_joined_with_gold(tmp_path):
    gold = [{"claim": "G0", "label": "Supported", "questions": [{"question": "Q0", "answers": [
        {"answer": "No", "answer_type": "Boolean", "boolean_explanation": "It never happened."}]}]},
            {"claim": "G1", "label": "Refuted", "questions": [{"question": "Q1", "answers": [{"answer": "A1"}]},
                                                               {"question": "Q1", "answers": [{"answer": "dup"}]}]}]
    preds = [{"claim_id": 1, "claim": "G1", "evidence": [{"question": "P", "answer": "PA"}], "pred_label": "Refuted"}]
    gp = tmp_path / "gold.json"; gp.write_text(json.dumps(gold))
    pp = tmp_path / "pred.json"; pp.write_text(json.dumps(preds))
    (item,) = read_items(pp, references=gp)
    assert item.id == "1" and item.gold_label is Verdict.REFUTED
    assert item.reference_evidence.pairs == (QAPair("Q1", "A1"),)  # duplicate question dropped
    with pytest.raises(InputError, match="no predicted evidence"):
        read_items(gp)
    gold_only = [dict(gold[0], evidence=[{"question": "P", "answer": "x"}])]
    gp2 = tmp_path / "g2.json"; gp2.write_text(json.dumps(gold_only))
    assert read_items(gp2)[0].reference_evidence.pairs == (QAPair("Q0", "No. It never happened."),)


def test_averitec_original_evaluation_format_predictions(tmp_path):
    # predictions as the official eval.py reads them: questions with answers, string_evidence, label = predicted
    gold = [{"claim": "G0", "label": "Supported", "questions": [{"question": "Q0", "answers": [{"answer": "A0"}]}]},
            {"claim": "G1", "label": "Refuted", "questions": [{"question": "Q1", "answers": [{"answer": "A1"}]}]}]
    preds = [{"claim_id": 1, "claim": "G1", "label": "Supported",
              "questions": [{"question": "P", "answers": [{"answer": "PA"}, {"answer": "PB"}]}],
              "string_evidence": ["S1"]},
             {"claim_id": 0, "claim": "G0", "label": "Not Enough Evidence", "string_evidence": ["only text"]}]
    gp = tmp_path / "gold.json"; gp.write_text(json.dumps(gold))
    pp = tmp_path / "pred.json"; pp.write_text(json.dumps(preds))
    a, b = read_items(pp, references=gp)
    assert a.id == "1" and a.gold_label is Verdict.REFUTED and a.predicted_label is Verdict.SUPPORTED
    assert a.predicted_evidence.pairs == (QAPair("P", "PA PB"), QAPair("", "S1"))
    assert a.reference_evidence.pairs == (QAPair("Q1", "A1"),)
    assert b.gold_label is Verdict.SUPPORTED and b.predicted_label is Verdict.NOT_ENOUGH_EVIDENCE
    assert b.predicted_evidence.pairs == (QAPair("", "only text"),)
    for bad, match in [([{"claim_id": 0, "label": "Supported", "string_evidence": [3]}], "string_evidence"),
                       ([{"claim_id": 0, "string_evidence": {}}], "string_evidence"),
                       ([{"claim_id": 0, "questions": 0}], "questions"),
                       ([{"claim_id": 0, "questions": None}], "questions"),
                       ([{"claim_id": 0, "questions": [], "evidence": [{"question": "q", "answer": "a"}]}], "give one"),
                       ([preds[1], preds[1]], "more than once")]:
        pp.write_text(json.dumps(bad))
        with pytest.raises(InputError, match=match):
            read_items(pp, references=gp)
    # a prediction's label never replaces the gold verdict, in either format
    pp.write_text(json.dumps([{"claim_id": 0, "evidence": [{"question": "q", "answer": "a"}], "label": "Refuted"}]))
    (it,) = read_items(pp, references=gp)
    assert it.gold_label is Verdict.SUPPORTED and it.predicted_label is Verdict.REFUTED
    pp.write_text(json.dumps([{"claim_id": 0, "questions": [], "label": "Refuted", "pred_label": "Refuted"}]))
    with pytest.warns(InputWarning, match=r"pred\.json: 1 of 1 item\(s\) have no predicted evidence"):
        (it,) = read_items(pp, references=gp)
    assert it.gold_label is Verdict.SUPPORTED and it.predicted_label is Verdict.REFUTED


def test_averitec_predictions_one_reader_for_score_and_shared_task(tmp_path):
    # ev2r score --references and ev2r averitec read predictions with the one reader (ev2r.io.averitec)
    from ev2r.io.averitec import AveritecInputError, JoinError
    from ev2r.shared_task.averitec2024 import prepare_predictions

    gold = [{"claim": "G0", "label": "Supported", "questions": [{"question": "Q0", "answers": [{"answer": "A0"}]}]},
            {"claim": "G1", "label": "Refuted", "questions": [{"question": "Q1", "answers": [{"answer": "A1"}]}]}]
    gp = tmp_path / "gold.json"; gp.write_text(json.dumps(gold))
    pp = tmp_path / "pred.json"
    # a null answer is a question asked without an answer: no Q+A pair; no evidence at all is empty evidence
    pp.write_text(json.dumps([{"claim_id": 0, "pred_label": "Supported",
                               "evidence": [{"question": "q", "answer": None}, {"question": "q2", "answer": "a2"}]},
                              {"claim_id": 1, "label": "Refuted"}]))
    with pytest.warns(InputWarning, match=r"pred\.json: 1 of 2 item\(s\) have no predicted evidence .*: 1 \(line 1; id 1\)$"):
        a, b = read_items(pp, references=gp)
    assert a.predicted_evidence.pairs == (QAPair("q2", "a2"),) and b.predicted_evidence.pairs == ()
    # read as the official scorer reads them: string_evidence beside evidence counts; one answer object is a list
    pp.write_text(json.dumps([{"claim_id": 0, "pred_label": "Refuted", "evidence": [{"question": "q", "answer": "a"}],
                               "string_evidence": ["s"]},
                              {"claim_id": 1, "label": "Refuted", "questions": [{"question": "q", "answers": {"answer": "a"}}]}]))
    a, b = read_items(pp, references=gp)
    assert a.predicted_evidence.pairs == (QAPair("q", "a"), QAPair("", "s"))
    assert b.predicted_evidence.pairs == (QAPair("q", "a"),)
    refused = [
        ({"claim_id": 0, "pred_label": "Refuted", "evidence": [], "questions": []}, "give one"),
        ({"claim_id": 0, "label": "Refuted", "questions": [{"question": "q", "answer": "a"}]},
         r"has 'answer' but no 'answers' list"),
        ({"claim_id": 0, "pred_label": "Refuted", "evidence": None}, r"field 'evidence' must be a list"),
        ({"claim_id": 0, "pred_label": "Refuted", "evidence": [{"answer": "a"}]}, r"evidence\[0\] must be"),
        ({"claim_id": 0, "pred_label": "Refuted", "evidence": [{"question": "q", "answer": "a"}], "label": "Supported"},
         "disagree"),
        ({"claim_id": 0, "label": "Refuted",
          "questions": [{"question": "q", "answers": [{"answer": "No", "answer_type": "Boolean"}]}]},
         "a Boolean answer needs one"),
        ({"claim_id": 0, "claim": None, "label": "Refuted"}, r"field 'claim' must be a string"),
        ({"claim_id": 0, "label": "Refuted", "justification": 5}, r"field 'justification' must be a string"),
    ]
    for row, match in refused:
        pp.write_text(json.dumps([row]))
        with pytest.raises(AveritecInputError, match=match):
            read_items(pp, references=gp)
        with pytest.raises(AveritecInputError, match=match):
            prepare_predictions([row])
    # the join is on claim_id, the gold claim's position: never on a prediction's position or another id field
    for rows, cause in [([{"pred_label": "Refuted", "evidence": []}], "missing_claim_id"),
                        ([{"id": 0, "pred_label": "Refuted", "evidence": []}], "missing_claim_id"),
                        ([{"claim_id": "1", "pred_label": "Refuted", "evidence": []}], "unknown_claim_id")]:
        pp.write_text(json.dumps(rows))
        with pytest.raises(JoinError, match=str(pp)) as info:
            read_items(pp, references=gp)
        assert cause in info.value.problems and isinstance(info.value, InputError)
    gp.write_text(json.dumps([dict(g, id=f"g{k}") for k, g in enumerate(gold)]))
    pp.write_text(json.dumps([{"claim_id": 0, "pred_label": "Refuted", "evidence": []}]))
    with pytest.raises(InputError, match="'id'/'unique_id' but no 'claim_id'"):
        read_items(pp, references=gp)


@pytest.mark.parametrize("row, match", [
    ({"id": 7, "predicted_evidence": "x", "reference_evidence": "y"}, r"row 0 \(line 1, id '7'\): field 'claim'"),
    ({"id": 7, "claim": "c", "predicted_evidence": "x", "reference_evidence": "y", "gold_label": "maybe"}, r"gold_label.*allowed"),
    ({"id": 7, "claim": "c", "predicted_evidence": 5, "reference_evidence": "y"}, r"predicted_evidence"),
    ({"id": 7, "claim": "c", "predicted_evidence": [{"question": "q"}], "reference_evidence": "y"}, r"predicted_evidence\[0\]"),
    ({"id": 7, "claim": "c"}, r"no evidence field"),
])
def test_bad_rows_name_row_and_field(tmp_path, row, match):
    with pytest.raises(InputError, match=match):
        read_items(write(tmp_path, [row]))


def test_bad_json_names_line(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text('{"claim": "a", "evidence": "b"}\n{oops\n')
    with pytest.raises(InputError, match="line 2"):
        read_items(p)


def test_real_human_eval_subset_reads_all_rows(shared_data):
    items = read_items(shared_data / "ev2r_human_eval/averitec_manual_eval_subset.jsonl")
    assert len(items) == 86 and all(i.gold_label is not None for i in items)
    assert all(i.predicted_evidence.pairs and i.reference_evidence.pairs for i in items)


def test_odd_files_are_input_errors(tmp_path):
    (tmp_path / "d").mkdir()
    with pytest.raises(InputError, match="not a file"):
        read_items(tmp_path / "d")
    p = tmp_path / "bin.jsonl"; p.write_bytes(b"\xff\xfe{}")
    with pytest.raises(InputError, match="not UTF-8"):
        read_items(p)
    p = tmp_path / "empty.json"; p.write_text("[]")
    with pytest.raises(InputError, match="no rows"):
        read_items(p)
    p = tmp_path / "bom.jsonl"; p.write_text('\ufeff{"claim": "c", "evidence": "e", "label": "SUPPORTS"}\n', encoding="utf-8")
    assert read_items(p)[0].claim == "c"
    p = tmp_path / "ans.jsonl"
    p.write_text(json.dumps({"claim": "c", "predicted_evidence": [{"question": "Q", "answers": ["a string"]}],
                             "reference_evidence": "x"}) + "\n")
    with pytest.raises(InputError, match=r"predicted_evidence\[0\].answers\[0\]"):
        read_items(p)


def test_rows_nested_too_deep_are_an_input_error_naming_file_row_and_limit(tmp_path):
    from claimalign.jsonio import MAX_JSON_DEPTH
    from ev2r.io.readers import item_from_row, read_rows

    deep = "[" * 499 + "]" * 499
    p = tmp_path / "deep.jsonl"
    p.write_text('{"claim": "c", "predicted_evidence": "x"}\n{"claim": "c", "predicted_evidence": ' + deep + "}\n")
    for reader in (read_rows, read_items):
        with pytest.raises(InputError, match=rf"deep.jsonl: row 1 \(line 2\): nested more than {MAX_JSON_DEPTH}"):
            reader(p)
    row: dict = {"claim": "c", "predicted_evidence": []}
    for _ in range(3000):  # built in Python, deeper than json.loads or any recursion could take
        row = {"claim": "c", "predicted_evidence": [row]}
    with pytest.raises(InputError, match=rf"api: row 4: nested more than {MAX_JSON_DEPTH}"):
        item_from_row(row, 4, "api")


def test_layout_repairs_warn_once_counting_rows(tmp_path):
    rows = [{"id": 1, "claim": "C.", "predicted_evidence": "Question: Q? Answer: A.", "reference_evidence": "R."},
            {"id": 2, "claim": "C.", "predicted_evidence": "Question: Q?\nAnswer: A.",
             "reference_evidence": "Question: Line one\nline two?\nAnswer: B."},
            {"id": 3, "claim": "C.", "predicted_evidence": "question: Q? answer: A.", "reference_evidence": "R."}]
    path = tmp_path / "x.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    with pytest.warns(InputWarning) as rec:
        items = read_items(path)
    msgs = [str(w.message) for w in rec]
    assert len(msgs) == 1
    assert ("2 row(s) where the answer marker stands on the question's line (Question: ... Answer: ...): "
            "rows 0 (line 1; id 1, predicted_evidence), 2 (line 3; id 3, predicted_evidence)" in msgs[0])
    assert ("1 row(s) where a question spans several lines before its Answer: marker (read as one question): "
            "rows 1 (line 2; id 2, reference_evidence)" in msgs[0])
    assert "Rows are counted from 0, as the row field of the score rows" in msgs[0]
    assert items[0].predicted_evidence == items[1].predicted_evidence == items[2].predicted_evidence


def test_llm_layouts_warn_once_and_read_as_pairs(tmp_path):
    # numbered and markdown markers are Q/A pairs, and the file says once which rows needed it
    rows = [{"id": 1, "claim": "C.", "predicted_evidence": "1. Question: Q?\nAnswer: A.", "reference_evidence": "Question: Q?\nAnswer: A."},
            {"id": 2, "claim": "C.", "predicted_evidence": "**Question:** Q?\n**Answer:** A.", "reference_evidence": "R."},
            {"id": 3, "claim": "C.", "predicted_evidence": "Question: Q?\nAnswer: A.", "reference_evidence": "R."}]
    with pytest.warns(InputWarning) as rec:
        items = read_items(write(tmp_path, rows))
    msgs = [str(w.message) for w in rec]
    assert len(msgs) == 1 and "2 row(s) where question/answer markers in another layout" in msgs[0]
    assert "rows 0 (line 1; id 1, predicted_evidence), 1 (line 2; id 2, predicted_evidence)" in msgs[0]
    assert items[0].predicted_evidence.pairs == items[1].predicted_evidence.pairs == (QAPair("Q?", "A."),)


def test_evidence_as_a_list_of_strings_reads_each_string_as_qa_text(tmp_path):
    # case ../shared/cases/turn4/text/evidence_list_of_strings.jsonl: no markers left in the text
    rows = [{"id": "a1", "claim": "Biden removed his hand from the Bible.", "predicted_evidence": ["Question: a?\nAnswer: b"],
             "reference_evidence": "Question: Did Biden remove his hand from the Bible?\nAnswer: No.", "gold_label": "refuted"},
            {"id": "a2", "claim": "C.", "predicted_evidence": ["Plain sentence one.", "Question: Q?\nAnswer: A.\n\nQuestion: Q2?\nAnswer: B."],
             "reference_evidence": "R."}]
    items = read_items(write(tmp_path, rows))
    assert items[0].predicted_evidence.pairs == (QAPair("a?", "b"),)
    assert items[1].predicted_evidence.pairs == (QAPair("", "Plain sentence one."), QAPair("Q?", "A."), QAPair("Q2?", "B."))


# -- every bad row named, the verdict checked before any model loads, empty evidence said -------------------
def _jsonl(path, rows):
    import json

    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _row(i, **kw):
    return {"id": i, "claim": f"Claim {i}.", "predicted_evidence": "Question: Q?\nAnswer: Some answer.",
            "reference_evidence": "Question: Q?\nAnswer: Another answer.", "gold_label": "Supported", **kw}


def test_every_row_with_an_unknown_verdict_is_named_up_to_the_cap_with_the_count(tmp_path):
    from ev2r.io.readers import MAX_ROWS_NAMED, InputError, read_items

    bad = [1, 3, 4]
    p = _jsonl(tmp_path / "v.jsonl", [_row(i, gold_label="perhaps" if i in bad else "Refuted") for i in range(6)])
    with pytest.raises(InputError) as e:
        read_items(p)
    msg = str(e.value)
    assert "3 of 6 rows are unusable" in msg
    assert [f"row {i} (line {i + 1}, id '{i}')" in msg for i in range(6)] == [i in bad for i in range(6)]
    assert msg.count("unknown verdict 'perhaps'") == 3
    many = _jsonl(tmp_path / "w.jsonl", [_row(i, gold_label="perhaps") for i in range(MAX_ROWS_NAMED + 5)])
    with pytest.raises(InputError) as e:
        read_items(many)
    msg = str(e.value)
    assert f"{MAX_ROWS_NAMED + 5} of {MAX_ROWS_NAMED + 5} rows are unusable (the first {MAX_ROWS_NAMED} named)" in msg
    assert msg.count("unknown verdict") == MAX_ROWS_NAMED and "... and 5 more row(s)" in msg
    one = _jsonl(tmp_path / "o.jsonl", [_row(0), _row(1, gold_label="perhaps")])
    with pytest.raises(InputError, match=r"^.*o\.jsonl: row 1 \(line 2, id '1'\): gold_label: unknown verdict 'perhaps'"):
        read_items(one)  # one bad row: its own message, as before


def test_other_unusable_rows_are_named_together_too(tmp_path):
    from ev2r.io.readers import InputError, read_items

    rows = [_row(0), {"id": 1, "claim": "", "predicted_evidence": "x", "reference_evidence": "y"},
            {"id": 2, "claim": "C.", "predicted_evidence": 5, "reference_evidence": "y"}]
    with pytest.raises(InputError) as e:
        read_items(_jsonl(tmp_path / "m.jsonl", rows))
    msg = str(e.value)
    assert "2 of 3 rows are unusable" in msg and "field 'claim' must be a non-empty string" in msg
    assert "field 'predicted_evidence' must be text" in msg


def test_the_gold_verdict_under_another_name_is_refused_naming_the_fields(tmp_path):
    from ev2r.io.readers import InputError, check_required_label, read_items

    rows = [{k: v for k, v in _row(i).items() if k != "gold_label"} | {"verdict": v}
            for i, v in enumerate(["Supported", "Refuted", "Not Enough Evidence"])]
    p = _jsonl(tmp_path / "verdict.jsonl", rows)
    assert len(read_items(p)) == 3  # no run needs it: read
    with pytest.raises(InputError) as e:
        read_items(p, require_label="gold_label")
    msg = str(e.value)
    assert "no row has the verdict the proxy" in msg and "field 'gold_label' / 'label' / 'reference_label'" in msg
    assert ("the file's fields are 'id', 'claim', 'predicted_evidence', 'reference_evidence', 'verdict'" in msg)
    assert "the values of 'verdict' read as verdicts: rename that field to 'gold_label'" in msg
    with pytest.raises(InputError, match=r"no row has the verdict this run needs \(field 'human_label'\)"):
        read_items(_jsonl(tmp_path / "h.jsonl", [_row(0)]), require_label="human_label")
    with pytest.raises(ValueError, match="field: expected one of"):
        check_required_label([], [], "label", "x")


def test_some_rows_without_the_verdict_are_counted_and_named(tmp_path):
    from ev2r.io.readers import InputWarning, read_items

    rows = [_row(i) if i % 2 else {k: v for k, v in _row(i).items() if k != "gold_label"} for i in range(5)]
    with pytest.warns(InputWarning) as w:
        items = read_items(_jsonl(tmp_path / "some.jsonl", rows), require_label="gold_label")
    msg = " ".join(str(x.message) for x in w)
    assert len(items) == 5 and "3 of 5 row(s) have no verdict" in msg and "0 (line 1; id 0), 2 (line 3; id 2), 4 (line 5; id 4)" in msg


def test_empty_predicted_evidence_is_counted_and_a_mostly_empty_file_is_warned_loudly(tmp_path):
    import warnings as w

    from ev2r.io.readers import InputWarning, has_predicted_evidence, read_items

    rows = [_row(0), _row(1, predicted_evidence=""), _row(2), _row(3, predicted_evidence=[]),
            _row(4, predicted_evidence="Question: Q?\nAnswer: ...")]
    with pytest.warns(InputWarning) as rec:
        items = read_items(_jsonl(tmp_path / "some_empty.jsonl", rows))
    msgs = [str(x.message) for x in rec if "predicted evidence" in str(x.message)]
    assert [has_predicted_evidence(it) for it in items] == [True, False, True, False, False]
    assert len(msgs) == 1 and "3 of 5 item(s) have no predicted evidence" in msgs[0]
    assert "1 (line 2; id 1), 3 (line 4; id 3), 4 (line 5; id 4)" in msgs[0] and msgs[0].startswith("MOST ITEMS HAVE NO PREDICTED EVIDENCE")
    with pytest.warns(InputWarning) as rec:
        read_items(_jsonl(tmp_path / "one_empty.jsonl", [_row(0), _row(1, predicted_evidence=""), _row(2)]))
    msgs = [str(x.message) for x in rec if "predicted evidence" in str(x.message)]
    assert len(msgs) == 1 and "1 of 3 item(s)" in msgs[0] and not msgs[0].startswith("MOST")
    with w.catch_warnings():
        w.simplefilter("error")
        read_items(_jsonl(tmp_path / "full.jsonl", [_row(0), _row(1)]))  # nothing to say


def _messages(path):
    import warnings

    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        items = read_items(path)
    return items, [str(w.message) for w in rec if issubclass(w.category, InputWarning)]


def test_gold_verdict_read_from_label_in_the_ev2r_schema_warns_once_counting_rows(tmp_path):
    base = {"claim": "C.", "predicted_evidence": "Question: Q?\nAnswer: A.", "reference_evidence": "Question: Q?\nAnswer: B."}
    rows = [dict(base, id=1, label="supported"), dict(base, id=2, label="refuted", gold_label=None),
            dict(base, id=3, gold_label="refuted"), dict(base, id=4, label="supported")]
    items, msgs = _messages(write(tmp_path, rows))
    assert [it.gold_label for it in items] == [Verdict.SUPPORTED, Verdict.REFUTED, Verdict.REFUTED, Verdict.SUPPORTED]
    hits = [m for m in msgs if "'label'" in m]
    assert len(hits) == 1  # one per file, not one per row
    assert "3 of 4 row(s) of the ev2r schema" in hits[0] and "the gold verdict was read from 'label'" in hits[0]
    assert ("If 'label' is the system's verdict, rename the field to 'predicted_label'; rename it to 'gold_label' "
            "to silence this") in hits[0]
    assert "Rows: 0 (line 1; id 1), 1 (line 2; id 2), 3 (line 4; id 4)" in hits[0]
    # silent: the gold verdict under gold_label; FEVER/VitaminC and AVeriTeC rows, whose gold field is label
    _, msgs = _messages(write(tmp_path, [dict(base, id=1, gold_label="supported", label="supported"),
                                         dict(base, id=2, gold_label="refuted")], "gold.jsonl"))
    assert not [m for m in msgs if "'label'" in m]
    _, msgs = _messages(write(tmp_path, [{"id": 1, "claim": "X is Y.", "evidence": "X is Y indeed.", "label": "SUPPORTS"},
                                         {"id": 2, "claim": "X is Z.", "evidence": "X is not Z.", "label": "REFUTES"}],
                              "fever.jsonl"))
    assert msgs == []
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([{"claim": "G0", "label": "Supported", "questions": [
        {"question": "Q0", "answers": [{"answer": "A0"}]}], "evidence": [{"question": "Q0", "answer": "A0"}]}]))
    _, msgs = _messages(gold)
    assert msgs == []


def test_null_id_becomes_the_row_number_with_one_warning_counting_rows(tmp_path):
    base = {"claim": "C.", "predicted_evidence": "Question: Q?\nAnswer: A.", "reference_evidence": "R.",
            "gold_label": "supported"}
    rows = [dict(base, id=None), dict(base, id="a"), dict(base, claim_id=None), dict(base), dict(base, id=None, claim_id=7)]
    items, msgs = _messages(write(tmp_path, rows))
    assert [it.id for it in items] == ["0", "a", "2", "3", "7"]  # the fallback stays: 0-based row numbers
    hits = [m for m in msgs if "null id" in m]
    assert len(hits) == 1  # one per file; an absent id (row 3) and a null id with another id field (row 4) are not counted
    assert "2 of 5 row(s) have a null id field ('id' / 'claim_id')" in hits[0]
    assert "their ids are their row numbers, counted from 0 (row 0 gets id '0'" in hits[0]
    assert "must be a non-empty string or an integer" in hits[0] and "Rows: 0 (line 1), 2 (line 3)." in hits[0]
    _, msgs = _messages(write(tmp_path, [dict(base, id="x"), dict(base)], "ok.jsonl"))
    assert msgs == []


def test_json_pair_lines_in_evidence_text_are_read_as_pairs_and_named_in_one_warning(tmp_path):
    # {"question": ..., "answer": ...} a line inside the evidence text, as LLM systems print it
    lines = "\n".join(json.dumps({"question": q, "answer": a}) for q, a in (("Who won?", "Bob."), ("Where?", "Paris.")))
    rows = [{"id": 1, "claim": "C.", "predicted_evidence": lines, "reference_evidence": "Question: Q?\nAnswer: A."},
            {"id": 2, "claim": "C.", "predicted_evidence": "Question: Q?\nAnswer: A.", "reference_evidence": "R."}]
    with pytest.warns(InputWarning) as rec:
        items = read_items(write(tmp_path, rows))
    msgs = [str(w.message) for w in rec]
    assert len(msgs) == 1 and "1 row(s) where question/answer pairs written as JSON objects" in msgs[0]
    assert "rows 0 (line 1; id 1, predicted_evidence)" in msgs[0]
    assert items[0].predicted_evidence.pairs == (QAPair("Who won?", "Bob."), QAPair("Where?", "Paris."))
