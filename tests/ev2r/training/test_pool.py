"""The CTKFacts (Czech) option of the training pool: ``load_ctkfacts`` and ``training_pool``'s
``ctkfacts_train`` / ``ctkfacts_repeat`` / ``ctkfacts_dev``, and the command-line options."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from ev2r.training import pool
from ev2r.training.data import Pair, load_ctkfacts

CTK_ROWS = [
    # nli_label given (what the shared files carry)
    {"id": 1, "claim": "Jan chodí do práce.", "premise": "Jan chodí každý den do práce.",
     "hypothesis": "Jan chodí do práce.", "label": "SUPPORTS", "nli_label": "entailment"},
    # only the FEVER verdict; premise absent -> evidence; ř typed as r + combining caron (NFC-normalised)
    {"id": 2, "claim": "Jan nechodí do práce.", "evidence": "Jan chodí do práce ve Dvo\u0159e.",
     "label": "REFUTES"},
    {"id": 3, "claim": "V Brně pršelo.", "premise": "V Praze svítí slunce.", "hypothesis": "V Brně pršelo.",
     "label": "NOT ENOUGH INFO", "nli_label": "neutral"},
]


def _write(path: Path, rows) -> Path:
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n\n", encoding="utf-8")
    return path


def test_load_ctkfacts_builds_pairs_and_labels(tmp_path):
    pairs = load_ctkfacts(_write(tmp_path / "ctk.jsonl", CTK_ROWS))
    assert pairs == [
        Pair("Jan chodí každý den do práce.", "Jan chodí do práce.", "entailment", "ctkfacts_train"),
        Pair("Jan chodí do práce ve Dvoře.", "Jan nechodí do práce.", "contradiction", "ctkfacts_train"),
        Pair("V Praze svítí slunce.", "V Brně pršelo.", "neutral", "ctkfacts_train"),
    ]
    assert "\u0159" in pairs[1].premise and "r\u030c" not in pairs[1].premise  # NFC


@pytest.mark.parametrize("row, message", [
    ({"id": 9, "claim": "x", "premise": "y", "label": "MAYBE"}, "row 1 (line 2): field 'label' is 'MAYBE'"),
    ({"id": 9, "claim": "x", "premise": "y", "nli_label": "LABEL_0"}, "row 1 (line 2): field 'nli_label'"),
    ({"id": 9, "claim": "x", "premise": " ", "label": "SUPPORTS"}, "row 1 (line 2): no text in 'premise' or 'evidence'"),
    ({"id": 9, "premise": "y", "label": "SUPPORTS"}, "row 1 (line 2): no text in 'hypothesis' or 'claim'"),
])
def test_load_ctkfacts_names_the_file_row_and_field(tmp_path, row, message):
    path = _write(tmp_path / "bad.jsonl", [CTK_ROWS[0], row])
    with pytest.raises(ValueError) as e:
        load_ctkfacts(path)
    assert message in str(e.value) and str(path) in str(e.value)


def test_training_pool_adds_repeated_ctkfacts_and_the_dev_eval_set(tmp_path, monkeypatch):
    english = [Pair("A man sleeps.", "A person sleeps.", "entailment", "snli_dev_test")]
    monkeypatch.setattr(pool, "build_training_pool",
                        lambda *a: (list(english), {"fever_symmetric": list(english)}, {"removed_eval_claim_overlap": 0}))
    train_file = _write(tmp_path / "train.jsonl", CTK_ROWS)
    dev_file = _write(tmp_path / "dev.jsonl", CTK_ROWS[2:])
    args = argparse.Namespace(data_dir=tmp_path, heldout_percent=15, seed=1, vitaminc_real_repeat=1, breaking_nli_cap=1,
                              aug_entail=0, aug_neutral=0, aug_invariant=0, aug_negated_premise=0, averitec_train=None,
                              averitec_repeat=1, ctkfacts_train=train_file, ctkfacts_repeat=3, ctkfacts_dev=dev_file)
    import random

    train, evals, stats = pool.training_pool(args, random.Random(0))
    assert train[:1] == english and len(train) == 1 + 3 * 3
    assert [p.label for p in train[1:4]] == ["entailment", "contradiction", "neutral"]
    assert train[1:4] == train[4:7] == train[7:10]
    assert stats == {"removed_eval_claim_overlap": 0, "snli_dev_test": 1, "ctkfacts_train": 9}
    assert set(evals) == {"fever_symmetric", "ctkfacts_dev"}
    assert evals["ctkfacts_dev"] == [Pair("V Praze svítí slunce.", "V Brně pršelo.", "neutral", "ctkfacts_dev")]
    # without the options the pool is the English one, unchanged
    args.ctkfacts_train = args.ctkfacts_dev = None
    train, evals, stats = pool.training_pool(args, random.Random(0))
    assert train == english and set(evals) == {"fever_symmetric"} and "ctkfacts_train" not in stats


def test_command_line_ctkfacts_options(tmp_path, capsys):
    from ev2r.cli import train as cli

    from support.paths import SHARED_DATA

    data = SHARED_DATA
    if not (data / "ctkfacts" / "ctkfacts_dev.jsonl").is_file() or not (data / "nli").is_dir():
        pytest.skip(f"needs the shared data folder at {data}")
    ap = argparse.ArgumentParser()
    cli.add_arguments(ap)
    base = ["--data-dir", str(data), "--out", str(tmp_path / "out")]
    args = cli.finish_args(ap, ap.parse_args(base + ["--ctkfacts-train", str(data / "ctkfacts" / "ctkfacts_train.jsonl"),
                                                     "--ctkfacts-repeat", "3", "--dtype", "fp32"]))
    assert args.ctkfacts_repeat == 3 and args.ctkfacts_dev == data / "ctkfacts" / "ctkfacts_dev.jsonl"
    english = cli.finish_args(ap, ap.parse_args(base + ["--dtype", "fp32"]))
    assert english.ctkfacts_dev is None and english.averitec_dev == data / "averitec" / "dev.json"  # no Czech eval
    assert cli.finish_args(ap, ap.parse_args(base + ["--averitec-dev", "none"])).averitec_dev == ""  # none: skipped
    for extra, message in ((["--ctkfacts-repeat", "0"], "--ctkfacts-repeat: must be >= 1, got 0"),
                           (["--ctkfacts-train", str(tmp_path / "nope.jsonl")], "--ctkfacts-train: no such file")):
        with pytest.raises(SystemExit) as e:
            cli.finish_args(ap, ap.parse_args(base + extra))
        assert e.value.code == 2 and message in capsys.readouterr().err
