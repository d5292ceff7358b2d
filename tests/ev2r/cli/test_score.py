"""The ev2r CLI end to end on a tiny random NLI checkpoint (fast), and on the bundled verifier (slow)."""

import json
import math

import pytest

from ev2r.cli.main import main
from support.paths import NLTK_DATA

SAMPLE = "examples/averitec_sample.jsonl"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_score_writes_rows_joined_by_id_and_json_summary(tmp_path, capsys, tiny_nli_model):
    out = tmp_path / "scores.jsonl"
    code, stdout, _ = run(capsys, "score", SAMPLE, "-o", out, "--json", "--model", tiny_nli_model, "--limit", 4, "--with-facts")
    assert code == 0
    summary = json.loads(stdout)
    assert summary["n"] == 4 and summary["n_failed"] == 0
    for k in ("precision", "recall", "f1", "proxy", "ev2r"):
        assert 0.0 <= summary[k] <= 1.0
    assert "verifier:tiny@" in summary["signature"] and "alpha:0.5" in summary["signature"]
    rows = [json.loads(l) for l in out.read_text().splitlines()]
    src = [json.loads(l) for l in open(SAMPLE)][:4]
    assert [r["id"] for r in rows] == [s["id"] for s in src]  # ids come back as the input gave them
    assert all(type(r["id"]) is type(s["id"]) for r, s in zip(rows, src))
    for r in rows:
        assert {"id", "precision", "recall", "f1", "proxy", "ev2r", "status"} <= set(r)
        assert r["ev2r"] == pytest.approx(0.5 * r["f1"] + 0.5 * r["proxy"])
        assert r["predicted_facts"] and all(0 <= f["probability"] <= 1 for f in r["predicted_facts"])
    assert summary["ev2r"] == pytest.approx(sum(r["ev2r"] for r in rows) / 4)


def test_alpha_option_changes_combination(tmp_path, capsys, tiny_nli_model):
    code, stdout, _ = run(capsys, "score", SAMPLE, "--json", "--model", tiny_nli_model, "--limit", 2, "--alpha", 1.0)
    s = json.loads(stdout)
    assert code == 0 and s["ev2r"] == pytest.approx(s["f1"]) and "alpha:1" in s["signature"]


def test_replay_decomposer_from_cli(capsys, tiny_nli_model, shared_data):
    code, stdout, _ = run(capsys, "score", shared_data / "ev2r_human_eval/averitec_manual_eval_subset.jsonl", "--json",
                          "--decomposer", "replay", "--replay", shared_data / "ev2r_replay/replay_atomic_reference_prec_recall.jsonl",
                          "--replay-model", "gpt-4o-2024-05-13", "--model", tiny_nli_model)
    s = json.loads(stdout)
    assert code == 0 and s["n"] == 86
    assert s["failures"] == {"replay_missing": 13, "replay_inconsistent": 1} and s["n_failed"] == 14
    assert "ref:replay" in s["signature"] and "decomp:replay-gpt-4o-2024-05-13" in s["signature"]


@pytest.mark.parametrize("content, match", [
    ('{"id": 1, "claim": "c", "predicted_evidence": "x", "reference_evidence": "y", "gold_label": "perhaps"}\n', "gold_label"),
    ('not json\n', "line 1"),
    ('{"id": {"a": 1}, "claim": "c", "predicted_evidence": "x", "reference_evidence": "y"}\n',
     "field 'id' must be a non-empty string or an integer"),
    ('{"id": "", "claim": "c", "predicted_evidence": "x", "reference_evidence": "y"}\n',
     "field 'id' must be a non-empty string or an integer"),
])
def test_unusable_input_exits_nonzero_with_named_field(tmp_path, capsys, content, match, tiny_nli_model):
    p = tmp_path / "bad.jsonl"
    p.write_text(content)
    code, _, err = run(capsys, "score", p, "--model", tiny_nli_model)
    assert code == 2 and match in err


def test_missing_file_and_bad_replay_model(capsys, tiny_nli_model, shared_data):
    code, _, err = run(capsys, "score", "nope.jsonl")
    assert code == 2 and "nope.jsonl" in err
    code, _, err = run(capsys, "score", SAMPLE, "--decomposer", "replay", "--model", tiny_nli_model)
    assert code == 2 and "--replay FILE" in err


def test_verify_command(tmp_path, capsys, tiny_nli_model):
    inp = tmp_path / "pairs.jsonl"
    inp.write_text('{"premise": "A man sleeps.", "hypothesis": "A man is awake."}\n'
                   '{"evidence": "Paris is in France.", "claim": "Paris is French.", "id": 9}\n')
    out = tmp_path / "out.jsonl"
    code, _, _ = run(capsys, "verify", inp, "-o", out, "--model", tiny_nli_model)
    rows = [json.loads(l) for l in out.read_text().splitlines()]
    assert code == 0 and rows[1]["id"] == 9
    for r in rows:
        assert math.isclose(r["entailment"] + r["neutral"] + r["contradiction"], 1.0, abs_tol=1e-6)
    inp.write_text('{"premise": "only a premise"}\n')
    code, _, err = run(capsys, "verify", inp, "-o", out, "--model", tiny_nli_model)
    assert code == 2 and "hypothesis (or claim)" in err


@pytest.mark.slow
def test_bundled_verifier_end_to_end(tmp_path, capsys):
    from ev2r.verifier.loading import BUNDLED_DIR

    if not (BUNDLED_DIR / "config.json").exists():
        pytest.fail("the bundled verifier is missing from ev2r/verifier/models/minilm-nli")
    out = tmp_path / "s.jsonl"
    code, stdout, _ = run(capsys, "score", SAMPLE, "-o", out, "--json", "--limit", 3)
    s = json.loads(stdout)
    assert code == 0 and s["n"] == 3 and s["n_failed"] == 0 and "verifier:ev2r-minilm-nli@" in s["signature"]
    # the bundled model reads negation: a probe pair and its negation get different verdicts
    from ev2r.verifier.loading import load_verifier
    p = load_verifier().predict(["The bridge was opened to traffic in 1998."] * 2,
                                ["The bridge was opened to traffic.", "The bridge was not opened to traffic."])
    assert p[0].argmax() == 0 and p[1].argmax() == 2


def test_hu_meteor_without_nltk_data_exits_2_before_scoring(capsys, tiny_nli_model, monkeypatch, tmp_path):
    import nltk

    import claimalign.nltk_data as cn

    monkeypatch.setattr(nltk.data, "path", [str(tmp_path / "empty")])
    monkeypatch.setattr(cn, "_CHECKED", False)
    code, _, err = run(capsys, "score", SAMPLE, "--scorer", "hu-meteor", "--model", tiny_nli_model, "--limit", 1)
    assert code == 2 and "hu-meteor needs nltk data" in err and "--nltk-data" in err


def test_hu_meteor_alone_loads_no_model_and_matches_the_combined_run(tmp_path, capsys, tiny_nli_model, monkeypatch):
    import os

    nltk_data = str(NLTK_DATA)
    if not os.path.isdir(nltk_data):
        pytest.skip("needs ../shared/data/nltk_data")
    import ev2r.metric.factory as api

    def no_model(*a, **k):
        raise AssertionError("a verifier was loaded for --scorer hu-meteor alone")

    code, both, _ = run(capsys, "score", SAMPLE, "--json", "--limit", 3, "--scorer", "ev2r", "--scorer", "hu-meteor",
                        "--model", tiny_nli_model, "--nltk-data", nltk_data)
    assert code == 0
    monkeypatch.setattr(api, "get_verifier", no_model)
    code, alone, _ = run(capsys, "score", SAMPLE, "--json", "--limit", 3, "--scorer", "hu-meteor", "--nltk-data", nltk_data)
    assert code == 0
    both, alone = json.loads(both), json.loads(alone)
    assert alone["hu_meteor"] == both["hu_meteor"] and alone["hu_meteor_q"] == both["hu_meteor_q"]
    assert alone["ev2r"] is None and "ref:none" in alone["signature"] and both["ev2r"] is not None


def test_every_item_failed_exits_1_with_the_reason(tmp_path, capsys):
    import os

    nltk_data = str(NLTK_DATA)
    if not os.path.isdir(nltk_data):
        pytest.skip("needs ../shared/data/nltk_data")
    rows = tmp_path / "noref.jsonl"
    rows.write_text("\n".join(json.dumps({"id": i, "claim": "C.", "predicted_evidence": "Question: Q?\nAnswer: A.",
                                          "reference_evidence": ""}) for i in range(2)))
    code, _, err = run(capsys, "score", rows, "--scorer", "hu-meteor", "--nltk-data", nltk_data)
    assert code == 1 and "every item failed" in err and "no_reference" in err
