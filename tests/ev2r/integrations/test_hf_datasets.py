"""datasets loaders: schema, round trip to items, scoring from a Dataset."""

import json
import math

import pytest

from .conftest import ROWS, ROWS_WARNED, SHARED_DATA

datasets = pytest.importorskip("datasets")

from ev2r.integrations.hf_datasets import (COLUMNS, dataset_to_items, items_to_dataset, load_averitec, load_fever,  # noqa: E402
                              load_items_dataset, load_vitaminc, score_dataset)
from ev2r.io.readers import InputError, read_items  # noqa: E402


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


AVERITEC = [
    {"claim": "Claim one.", "label": "Refuted", "speaker": "x",
     "questions": [{"question": "Q1?", "answers": [{"answer": "A1.", "answer_type": "Extractive"}]},
                   {"question": "Q2?", "answers": [{"answer": "No", "answer_type": "Boolean",
                                                    "boolean_explanation": "It was not."}]},
                   {"question": "Q1?", "answers": [{"answer": "dup", "answer_type": "Extractive"}]}]},
    {"claim": "Claim two.", "label": "Conflicting Evidence/Cherrypicking",
     "questions": [{"question": "Q3?", "answers": [{"answer": "A3.", "answer_type": "Abstractive"}]}]},
]


def test_averitec_gold_only(tmp_path):
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(AVERITEC), encoding="utf-8")
    ds = load_averitec(path)
    assert ds.column_names == list(COLUMNS) and len(ds) == 2
    assert ds[0]["reference_evidence"] == "Question: Q1?\nAnswer: A1.\n\nQuestion: Q2?\nAnswer: No. It was not."
    assert ds[0]["predicted_evidence"] == "" and ds[0]["gold_label"] == "refuted"
    assert ds[1]["gold_label"] == "conflicting evidence/cherrypicking"
    assert json.loads(ds[0]["extra"]) == {"speaker": "x"}


def test_averitec_with_predictions(tmp_path):
    gold = tmp_path / "dev.json"
    gold.write_text(json.dumps(AVERITEC), encoding="utf-8")
    preds = tmp_path / "pred.json"
    preds.write_text(json.dumps([{"claim_id": 1, "claim": "Claim two.", "pred_label": "Supported",
                                  "evidence": [{"question": "Q?", "answer": "Yes."}]},
                                 {"claim_id": 0, "claim": "Claim one.", "pred_label": "Refuted",
                                  "evidence": [{"question": "Q1?", "answer": "A1."}]}]), encoding="utf-8")
    ds = load_averitec(gold, predictions=preds)
    assert ds["id"] == ["1", "0"]
    assert ds[0]["predicted_evidence"] == "Question: Q?\nAnswer: Yes." and ds[0]["reference_evidence"] == "Question: Q3?\nAnswer: A3."
    assert ds[0]["predicted_label"] == "supported"


def test_fever_and_vitaminc_rows(tmp_path):
    fever = write_jsonl(tmp_path / "fever.jsonl", [{"id": 7, "claim": "c", "evidence": "e.", "label": "REFUTES"}])
    ds = load_fever(fever)
    assert ds[0] | {} == {"id": "7", "row": 0, "claim": "c", "predicted_evidence": "e.", "reference_evidence": "",
                          "gold_label": "refuted", "predicted_label": None, "extra": "{}"}
    pairs = write_jsonl(tmp_path / "pairs.jsonl", [{"claim": "c", "reference_evidence": "r.", "reference_label": "SUPPORTS",
                                                    "candidate_evidence": "x.", "candidate_label": "NOT ENOUGH INFO",
                                                    "equivalent": 0, "case_id": "k"}])
    ds = load_vitaminc(pairs)
    assert ds[0]["predicted_evidence"] == "x." and ds[0]["reference_evidence"] == "r."
    assert ds[0]["gold_label"] == "supported" and ds[0]["predicted_label"] == "not enough evidence"
    assert json.loads(ds[0]["extra"]) == {"equivalent": 0, "case_id": "k"}


@ROWS_WARNED
def test_round_trip_items(tmp_path):
    path = write_jsonl(tmp_path / "rows.jsonl", ROWS)
    items = read_items(path)
    ds = items_to_dataset(items)
    back = dataset_to_items(ds)
    assert back == items
    assert [b.extra for b in back] == [i.extra for i in items]


def test_bad_dataset_row_names_field():
    ds = datasets.Dataset.from_list([{"claim": "", "predicted_evidence": "x", "reference_evidence": "y"}])
    with pytest.raises(InputError, match="claim"):
        dataset_to_items(ds)
    ds = datasets.Dataset.from_list([{"claim": "c", "predicted_evidence": "x", "gold_label": "perhaps"}])
    with pytest.raises(InputError, match="gold_label"):
        dataset_to_items(ds)


@ROWS_WARNED
def test_score_dataset_equals_scorer(tmp_path, fake_verifier):
    from ev2r.metric.factory import build_scorer

    path = write_jsonl(tmp_path / "rows.jsonl", ROWS)
    ds = load_items_dataset(path)
    scorer = build_scorer(verifier=fake_verifier)
    scored, corpus = score_dataset(ds, scorer=scorer)
    direct = scorer.score(read_items(path))
    assert scored.column_names[:len(COLUMNS)] == list(COLUMNS)
    for row, s in zip(scored, direct):
        for k in ("precision", "recall", "f1", "proxy", "ev2r"):
            a, b = row[k], getattr(s, k)
            assert (a is None and b is None) or math.isclose(a, b)
        assert row["status"] == s.status
    assert math.isclose(corpus.ev2r, scorer.corpus(direct).ev2r)
    # scoring twice replaces the columns
    again, _ = score_dataset(scored, scorer=scorer)
    assert again.column_names == scored.column_names


def test_score_raw_dataset_columns(fake_verifier):
    ds = datasets.Dataset.from_list([{"claim": "the sky is blue", "evidence": "The sky is blue because the air scatters blue sunlight more than red light.", "label": "SUPPORTS"}])
    scored, corpus = score_dataset(ds, verifier=fake_verifier)
    assert scored[0]["status"] == "no_reference" and math.isclose(scored[0]["proxy"], 0.95)


@pytest.mark.parametrize("name,loader", [("fever/fever_symmetric_v0.2_dev.jsonl", load_fever),
                                          ("vitaminc/vitaminc_evidence_pairs.jsonl", load_vitaminc),
                                          ("averitec/dev.json", load_averitec)])
def test_shared_files_load(name, loader):
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"{path} not present")
    ds = loader(path, limit=20)
    assert len(ds) == 20 and ds.column_names == list(COLUMNS)
    assert all(ds["claim"]) and all(g is not None for g in ds["gold_label"])
