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
    code, stdout, _ = run(capsys, "score", SAMPLE, "-o", out, "--json", "--model", tiny_nli_model, "--limit", 4, "--explain")
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


def test_replay_decomposer_from_cli(capsys, tiny_nli_model, shared_data, monkeypatch):
    import ev2r.metric.factory as api

    # which rows the replay lacks or finds inconsistent does not depend on the admission stage's learned reading
    # (tests/ev2r/metric/test_admission*.py): the rules alone (admission "none", an API-only value since 2.0) keep 86
    # rows at a few seconds (the learned reading took 14 s of the quick tests)
    monkeypatch.setattr(api, "load_admission", lambda spec: None)
    code, stdout, _ = run(capsys, "score", shared_data / "ev2r_human_eval/averitec_manual_eval_subset.jsonl", "--json",
                          "--decomposer", "replay", "--replay", shared_data / "ev2r_replay/replay_atomic_reference_prec_recall.jsonl",
                          "--llm-model", "gpt-4o-2024-05-13", "--model", tiny_nli_model)
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


# -- -o: rows kept as they are scored, resume (ev2r.engines.local_engine / runs) -----------------------------
def _rows(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_local_run_writes_item_hashes_and_a_run_record(tmp_path, capsys, tiny_nli_model):
    from ev2r.engines.runs import PART_SUFFIX, RUN_SUFFIX
    from ev2r.io.readers import item_hash, read_items

    out = tmp_path / "s.jsonl"
    code, _, _ = run(capsys, "score", SAMPLE, "-o", out, "--model", tiny_nli_model, "--limit", 3, "--no-progress")
    assert code == 0
    hashes = [item_hash(it) for it in read_items(SAMPLE, limit=3)]
    assert [r["item_hash"] for r in _rows(out)] == hashes
    record = json.loads((tmp_path / ("s.jsonl" + RUN_SUFFIX)).read_text())
    assert record["engine"] == "local" and record["item_hashes"] == hashes and record["with_facts"] is False
    assert "verifier:tiny@" in record["signature"] and "alpha" in record["options"]
    assert not (tmp_path / ("s.jsonl" + PART_SUFFIX)).exists()
    # the same command again: everything resumed, the same file
    before = out.read_bytes()
    code, _, err = run(capsys, "score", SAMPLE, "-o", out, "--model", tiny_nli_model, "--limit", 3, "--no-progress")
    assert code == 0 and "0 item(s) scored, 3 resumed" in err and out.read_bytes() == before


def test_second_system_with_the_same_ids_is_scored_not_resumed(tmp_path, capsys, tiny_nli_model):
    """turn3/ray_resume_sysA.jsonl then turn3/ray_resume_sysB_same_ids.jsonl into one -o: system B
    gets its own numbers (those of a fresh run), never A's."""
    from support.paths import SHARED_CASES

    a, b = SHARED_CASES / "turn3" / "ray_resume_sysA.jsonl", SHARED_CASES / "turn3" / "ray_resume_sysB_same_ids.jsonl"
    if not b.exists():
        pytest.skip("needs ../shared/cases/turn3")
    out, fresh = tmp_path / "out.jsonl", tmp_path / "fresh_b.jsonl"
    code, sa, _ = run(capsys, "score", a, "-o", out, "--model", tiny_nli_model, "--json", "--no-progress")
    assert code == 0
    rows_a = _rows(out)
    from ev2r.engines.runs import RunWarning

    with pytest.warns(RunWarning, match=r"out\.jsonl: 2 earlier row\(s\) are of items whose content changed since they "
                                        r"were scored \(rows \(from 0; line = the line of the file\): 0 \(line 1; id 585\), "
                                        r"1 \(line 2; id 33\); another item_hash\): they are scored again"):
        code, sb, err = run(capsys, "score", b, "-o", out, "--model", tiny_nli_model, "--json", "--no-progress")
    assert code == 0 and "resumed" not in err
    code, sfresh, _ = run(capsys, "score", b, "-o", fresh, "--model", tiny_nli_model, "--json", "--no-progress")
    assert out.read_bytes() == fresh.read_bytes() and json.loads(sb) == json.loads(sfresh)
    assert [r["id"] for r in _rows(out)] == [585, 33]
    rows_b = _rows(out)
    assert all(ra["item_hash"] != rb["item_hash"] for ra, rb in zip(rows_a, rows_b))


def test_interrupted_run_keeps_its_chunks_and_resumes_to_the_uninterrupted_file(tmp_path, capsys, tiny_nli_model,
                                                                                monkeypatch):
    from ev2r.engines.runs import PART_SUFFIX, RUN_SUFFIX
    from ev2r.metric.scorer import Ev2RScorer
    from support.ray_rows import write_rows

    inp = write_rows(80, tmp_path / "in.jsonl")  # 3 chunks of 32, 32, 16
    whole, out = tmp_path / "whole.jsonl", tmp_path / "out.jsonl"
    argv = ["score", inp, "--model", tiny_nli_model, "--no-progress", "--json", "--explain"]
    code, s_whole, _ = run(capsys, *argv, "-o", whole)
    assert code == 0
    original, calls = Ev2RScorer.score, []

    def stop_at_chunk_2(self, items):  # Ctrl-C while the second chunk is being scored
        calls.append(len(items))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return original(self, items)

    monkeypatch.setattr(Ev2RScorer, "score", stop_at_chunk_2)
    code, stdout, err = run(capsys, *argv, "-o", out)
    assert code == 130 and stdout == "" and "Traceback" not in err
    assert "interrupted after 32 of 80 item(s)" in err and "out.jsonl.part" in err and "resume" in err
    part = tmp_path / ("out.jsonl" + PART_SUFFIX)
    assert not out.exists() and len(part.read_text().splitlines()) == 32
    assert (tmp_path / ("out.jsonl" + RUN_SUFFIX)).exists()
    monkeypatch.setattr(Ev2RScorer, "score", original)
    code, s_out, err = run(capsys, *argv, "-o", out)
    assert code == 0 and "48 item(s) scored, 32 resumed" in err
    assert out.read_bytes() == whole.read_bytes() and not part.exists()  # in input order, to the last bit
    assert json.loads(s_out) == json.loads(s_whole)


def test_other_options_or_facts_are_refused_and_no_resume_rescores(tmp_path, capsys, tiny_nli_model):
    out = tmp_path / "out.jsonl"
    base = ["score", SAMPLE, "-o", out, "--model", tiny_nli_model, "--limit", 3, "--no-progress", "--json"]
    assert run(capsys, *base)[0] == 0
    before = out.read_bytes()
    code, _, err = run(capsys, *base, "--alpha", 0.7)
    assert code == 2 and "written with other scorer options" in err and "--no-resume" in err and "another -o" in err
    code, _, err = run(capsys, *base, "--explain")
    assert code == 2 and "written without --explain" in err
    assert out.read_bytes() == before
    code, stdout, _ = run(capsys, *base, "--alpha", 0.7, "--no-resume")
    assert code == 0 and "alpha:0.7" in json.loads(stdout)["signature"]
    rows = _rows(out)
    assert all(r["ev2r"] == pytest.approx(0.7 * r["f1"] + 0.3 * r["proxy"]) for r in rows)


def test_an_output_without_run_record_is_refused_not_overwritten(tmp_path, capsys, tiny_nli_model):
    out = tmp_path / "theirs.jsonl"
    out.write_text('{"id": 585, "ev2r": 0.99, "status": "ok"}\n')
    code, _, err = run(capsys, "score", SAMPLE, "-o", out, "--model", tiny_nli_model, "--limit", 2, "--no-progress")
    assert code == 2 and "has no run record" in err and "--no-resume" in err and "another -o" in err
    assert out.read_text() == '{"id": 585, "ev2r": 0.99, "status": "ok"}\n'
    code, _, _ = run(capsys, "score", SAMPLE, "-o", out, "--model", tiny_nli_model, "--limit", 2, "--no-progress",
                     "--no-resume")
    assert code == 0 and [r["id"] for r in _rows(out)] == [585, 33] and _rows(out)[0]["ev2r"] != 0.99


def test_options_a_run_does_not_use_give_a_warning_not_silence(capsys, nltk_data, monkeypatch, keyword_verifier):
    import ev2r.metric.factory as api

    code, _, err = run(capsys, "score", SAMPLE, "--json", "--limit", 2, "--scorer", "hu-meteor", "--batch-size", 8,
                       "--proxy-model", "averitec", "--model", "some/checkpoint", "--nltk-data", nltk_data,
                       "--alpha", 0.3, "--no-hybrid")
    assert code == 0
    # every option of the scorer configuration (the option table) is named, --alpha included (it was once silent)
    assert ("ev2r score: warning: --model, --proxy-model, --alpha, --batch-size, --no-hybrid not used with --scorer "
            "hu-meteor alone" in err)
    monkeypatch.setattr(api, "get_verifier", lambda *a, **k: keyword_verifier)
    code, _, err = run(capsys, "score", SAMPLE, "--json", "--limit", 2, "--llm-model", "m", "--llm-timeout", 5)
    assert code == 0 and "--llm-model, --llm-timeout not used with --decomposer rules" in err
    code, _, err = run(capsys, "score", SAMPLE, "--json", "--limit", 2)  # nothing set: no warning
    assert code == 0 and "warning" not in err



def test_rows_scored_without_a_component_are_scored_again_once_it_is_there(tmp_path, capsys, tiny_nli_model,
                                                                         monkeypatch):
    """Rows scored while nltk data was missing (ev2r_hybrid None, status ok) are not
    resumed after the data is back: what a row was scored with includes the component it lacked."""
    import os

    import claimalign.nltk_data

    if not os.path.isdir(NLTK_DATA):
        pytest.skip("needs ../shared/data/nltk_data")
    out = tmp_path / "s.jsonl"

    def missing():
        raise RuntimeError("punkt_tab not found")

    with monkeypatch.context() as m:
        m.setattr(claimalign.nltk_data, "require_nltk_data", missing)
        code, _, _ = run(capsys, "score", SAMPLE, "-o", out, "--model", tiny_nli_model, "--limit", 3, "--no-progress")
    assert code == 0
    first = _rows(out)
    assert all(r["ev2r_hybrid"] is None and "unavailable (nltk data not found" in r["error"] for r in first)
    code, _, err = run(capsys, "score", SAMPLE, "-o", out, "--model", tiny_nli_model, "--limit", 3, "--no-progress",
                       "--nltk-data", NLTK_DATA)
    assert code == 0 and "resumed" not in err  # every row scored again (the line is printed only when some resumed)
    again = _rows(out)
    assert all(r["ev2r_hybrid"] is not None and not r.get("error") for r in again)
    assert [r["ev2r"] for r in again] == [r["ev2r"] for r in first]  # the other scores as before
    # and now every row is complete: the same command resumes them all
    code, _, err = run(capsys, "score", SAMPLE, "-o", out, "--model", tiny_nli_model, "--limit", 3, "--no-progress",
                       "--nltk-data", NLTK_DATA)
    assert code == 0 and "0 item(s) scored, 3 resumed" in err


def test_the_summary_names_the_headline_score_first(capsys, tiny_nli_model):
    """One headline -- ev2r_hybrid, with Ev2R beside it; Ev2R when the hybrid is off."""
    import os

    if not os.path.isdir(NLTK_DATA):
        pytest.skip("needs ../shared/data/nltk_data")
    code, out, _ = run(capsys, "score", SAMPLE, "--model", tiny_nli_model, "--limit", 2, "--no-progress",
                       "--nltk-data", NLTK_DATA, "--json")
    summary = json.loads(out)
    code, out, _ = run(capsys, "score", SAMPLE, "--model", tiny_nli_model, "--limit", 2, "--no-progress",
                       "--nltk-data", NLTK_DATA)
    lines = out.splitlines()
    assert code == 0 and lines[1] == (f"headline: ev2r_hybrid = {summary['ev2r_hybrid']:.4f} (the score to report; Ev2R, "
                                      f"the paper's 0.5 x F1 + 0.5 x proxy, = {summary['ev2r']:.4f}; every value below is "
                                      "a mean of per-item values)")
    code, out, _ = run(capsys, "score", SAMPLE, "--model", tiny_nli_model, "--limit", 2, "--no-progress", "--no-hybrid")
    assert code == 0 and out.splitlines()[1].startswith(f"headline: ev2r = {summary['ev2r']:.4f} (ev2r_hybrid not computed")


# -- a verdict field under another name, or unknown verdicts: refused before any model loads ------------------
def test_the_verdict_under_another_name_exits_2_before_any_model_loads(tmp_path, capsys, monkeypatch):
    import ev2r.metric.factory as api

    def no_model(*a, **k):
        raise AssertionError("a verifier was loaded before the rows were checked")

    monkeypatch.setattr(api, "get_verifier", no_model)
    rows = [json.loads(l) for l in open(SAMPLE)][:3]
    p = tmp_path / "verdict.jsonl"
    p.write_text("".join(json.dumps({**{k: v for k, v in r.items() if k not in ("gold_label", "label")},
                                     "verdict": r["gold_label"]}) + "\n" for r in rows))
    code, stdout, err = run(capsys, "score", p, "--no-progress")
    assert code == 2 and stdout == "" and "loading verifier" not in err
    assert "no row has the verdict the proxy" in err and "'verdict'" in err and "rename that field to 'gold_label'" in err
    bad = tmp_path / "bad_verdicts.jsonl"
    bad.write_text("".join(json.dumps({**r, "gold_label": f"maybe {k}"}) + "\n" for k, r in enumerate(rows)))
    code, _, err = run(capsys, "score", bad, "--no-progress")
    assert code == 2 and "3 of 3 rows are unusable" in err
    assert all(f"unknown verdict 'maybe {k}'" in err for k in range(3))


def test_score_prints_the_headline_interval_and_json_carries_it(tmp_path, capsys, tiny_nli_model):
    import os

    import numpy as np

    if not os.path.isdir(NLTK_DATA):
        pytest.skip("needs ../shared/data/nltk_data")
    out = tmp_path / "s.jsonl"
    argv = ["score", SAMPLE, "--model", tiny_nli_model, "--limit", 6, "--no-progress", "--nltk-data", NLTK_DATA]
    code, stdout, _ = run(capsys, *argv, "--json", "-o", out)
    s = json.loads(stdout)
    assert code == 0 and s["headline"] == "ev2r_hybrid" and s["headline_ci_n"] == 6
    lo, hi = s["headline_ci95"]
    assert lo <= s["ev2r_hybrid"] <= hi and hi - lo > 0
    # the percentile bootstrap of the per-item values, as the HTML report's (2000 resamples, seed 0)
    vals = np.array([r["ev2r_hybrid"] for r in _rows(out)])
    means = vals[np.random.default_rng(0).integers(0, 6, size=(2000, 6))].mean(axis=1)
    assert [lo, hi] == pytest.approx([np.percentile(means, 2.5), np.percentile(means, 97.5)], abs=1e-6)
    code, text, _ = run(capsys, *argv)
    assert code == 0
    assert f"headline 95% interval: [{lo:.4f}, {hi:.4f}] (bootstrap over the 6 ok items, 2000 resamples, seed 0)" in text
