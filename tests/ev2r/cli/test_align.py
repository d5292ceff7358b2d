import argparse
import io
import json

import pytest

from ev2r.cli.align import add_arguments as add_align_arguments, main, run as run_align


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _args(*argv):
    return add_align_arguments(argparse.ArgumentParser()).parse_args(list(argv))


def test_align_cli_joins_on_id_and_writes_jsonl(tmp_path):
    a, b, out = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "out.jsonl"
    _write(a, [{"id": 1, "claims": ["kitten", "abc"]}, {"id": 2, "claims": []}])
    _write(b, [{"id": 2, "claims": ["x"]}, {"id": 1, "claims": ["sitting"]}])  # other order
    buf = io.StringIO()
    assert run_align(_args(str(a), str(b), "-o", str(out)), stdout=buf) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == [1, 2]  # ids as written (a number stays a number, not turned into a string)
    r1 = rows[0]
    assert r1["pairs"] == [{"a_index": 0, "b_index": 0, "a": "kitten", "b": "sitting",
                            "similarity": pytest.approx(4 / 7)}]
    assert r1["score"] == pytest.approx(4 / 7 / 2) and r1["recall"] == pytest.approx(4 / 7)
    assert r1["unmatched_a"] == [1] and r1["count_difference"] == 1
    assert rows[1]["score"] == 0.0 and rows[1]["unmatched_b"] == [0]
    text = buf.getvalue()
    assert "28.57" in text and "mean over 2 rows" in text


def test_align_cli_errors(tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _write(a, [{"id": 1, "claims": ["x"]}])
    _write(b, [{"id": 3, "claims": ["x"]}])
    assert main([str(a), str(b)]) == 2
    assert "ids differ" in capsys.readouterr().err
    _write(b, [{"id": 1, "claims": "x"}])
    assert main([str(a), str(b)]) == 2
    assert "list of strings" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        _args(str(a), str(b), "--similarity", "bleu")


def test_align_cli_rejects_blank_claims(tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _write(a, [{"id": 1, "claims": ["x", "  ", "\u200b"]}])
    _write(b, [{"id": 1, "claims": ["x"]}])
    assert main([str(a), str(b)]) == 2
    err = capsys.readouterr().err
    assert "a.jsonl: row 0 (line 1)" in err and "whitespace-only claims at positions [1, 2]" in err


def test_align_cli_missing_encoder_is_a_clear_error(tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _write(a, [{"id": 1, "claims": ["x"]}])
    _write(b, [{"id": 1, "claims": ["y"]}])
    rc = main([str(a), str(b), "--similarity", "embedding", "--model", str(tmp_path / "no-such-encoder")])
    assert rc == 2
    err = capsys.readouterr().err
    assert err.startswith("ev2r align: error:") and "Traceback" not in err


def test_align_cli_meteor_without_nltk_data_is_a_clear_error(tmp_path, capsys, monkeypatch):
    import nltk

    import claimalign.nltk_data as cn

    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _write(a, [{"id": 1, "claims": ["x"]}])
    _write(b, [{"id": 1, "claims": ["y"]}])
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path / "empty")])
    monkeypatch.setattr(cn, "_CHECKED", False)
    assert main([str(a), str(b), "--similarity", "meteor"]) == 2
    err = capsys.readouterr().err
    assert "nltk resource" in err and "--nltk-data" in err and "Traceback" not in err
    assert main([str(a), str(b), "--similarity", "meteor", "--nltk-data", str(tmp_path / "nope")]) == 2
    assert "--nltk-data: " in capsys.readouterr().err


@pytest.mark.parametrize("rid", [None, [1], True, "", "\u200b"])
def test_align_cli_rejects_unusable_ids(tmp_path, capsys, rid):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _write(a, [{"id": rid, "claims": ["x"]}])
    _write(b, [{"id": rid, "claims": ["x"]}])
    assert main([str(a), str(b)]) == 2
    assert "field 'id' must be a non-empty string or an integer" in capsys.readouterr().err


def test_align_cli_rejects_lone_surrogates(tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text('{"id": 1, "claims": ["A \\ud800 man."]}\n', encoding="utf-8")
    _write(b, [{"id": 1, "claims": ["x"]}])
    assert main([str(a), str(b)]) == 2
    assert "claims[0]" in capsys.readouterr().err


def test_an_unwritable_output_is_refused_before_any_alignment(tmp_path, capsys, monkeypatch):
    a = tmp_path / "a.jsonl"
    _write(a, [{"id": 1, "claims": ["kitten"]}])
    import claimalign.sets

    def never(*args, **kwargs):
        raise AssertionError("aligned before the output was checked")

    monkeypatch.setattr(claimalign.sets, "align_sets", never)
    assert run_align(_args(str(a), str(a), "-o", str(tmp_path / "missing" / "out.jsonl"))) == 2
    assert "-o/--output: folder" in capsys.readouterr().err
    assert run_align(_args(str(a), str(a), "-o", str(tmp_path))) == 2
    assert "is a directory" in capsys.readouterr().err


def test_align_keeps_string_ids_strings_and_joins_int_with_its_spelling(tmp_path):
    a, b, out = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "o.jsonl"
    _write(a, [{"id": "x-1", "claims": ["kitten"]}, {"id": 7, "claims": ["abc"]}])
    _write(b, [{"id": "7", "claims": ["abc"]}, {"id": "x-1", "claims": ["kitten"]}])
    assert run_align(_args(str(a), str(b), "--similarity", "edit", "-o", str(out)), stdout=io.StringIO()) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["x-1", 7] and [r["score"] for r in rows] == [1.0, 1.0]


@pytest.mark.slow
def test_align_nli_reads_the_pairs_with_the_named_verifier(tmp_path):
    """``--similarity nli --model bundled``: each cell is the mean of both entailment directions of that verifier
    (``claimalign.similarity.NLISimilarity``), so a copy outscores its negation; the alignment is the usual one."""
    from claimalign.similarity import NLISimilarity
    from ev2r.verifier.loading import get_verifier

    a, b, out = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "out.jsonl"
    _write(a, [{"id": 1, "claims": ["The bridge was opened in 1998."]}, {"id": 2, "claims": ["The bridge was opened in 1998."]}])
    _write(b, [{"id": 1, "claims": ["The bridge was opened in 1998."]}, {"id": 2, "claims": ["The bridge was not opened in 1998."]}])
    assert run_align(_args(str(a), str(b), "--similarity", "nli", "-o", str(out)), stdout=io.StringIO()) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    sim = NLISimilarity(get_verifier("bundled"))
    want = [float(sim.matrix(["The bridge was opened in 1998."], [c])[0, 0])
            for c in ("The bridge was opened in 1998.", "The bridge was not opened in 1998.")]
    assert [r["score"] for r in rows] == pytest.approx(want, abs=1e-6)
    assert rows[0]["score"] > 0.5 > rows[1]["score"]
    assert run_align(_args(str(a), str(b), "--similarity", "edit", "--model", "bundled"), stdout=io.StringIO()) == 2
