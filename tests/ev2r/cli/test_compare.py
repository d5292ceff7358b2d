"""``ev2r compare`` and ``ev2r report --compare``: paired significance of a system against a baseline.

Score files are written here directly, rows and run record as ``ev2r score -o`` writes them (the record's
structure and signature copied from a real run of the shipped sample), so no model is loaded; one test scores
prediction files with a fake verifier."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from ev2r.cli.main import main
from ev2r.stats import holm

#: The signature of `ev2r score examples/averitec_sample.jsonl -o ...` (1.7.0, CPU with bf16).
SIGNATURE = (
    "ev2r:1.7.0|adm:admission-v1|ref:nli|decomp:rules-v2|v2-rev:2|unans:drop|boiler:v2|support:p>=0.5|"
    "prem:qa-pair-max+lex-top5+twin~0.85/num+contr+art+respell-syn+anchor+contra0.5/rw0.7|"
    "prem-rule:pred-answer-2w+span4+rel0.1/20+short1+wnsyn|cal:temp-1.69@72c3e94a|"
    "verifier:ev2r-minilm-nli@c82b0fc475+bf16|window:128-max|hyp:clause-window-min|proxy:nli-gold|agg:qa-pair-max|"
    "proxy-rule:pred-answer-2w+span4+rel0.1/20+short1+wnsyn+nee-rel-all+contra0.5/rw0.7|map:v1|alpha:0.5|"
    "hybrid:w=recall:0,proxy:0.05,hybrid_meteor:0.05,hybrid_embedding:0,precision:0.05,verified_meteor:0.85,"
    "mutual_meteor:0|hybrid-emb:all-MiniLM-L6-v2|hybrid-meteor:fuzzy-v1|const:859ad8bd54|hybrid-const:c9a59cf6b8|"
    "transformers:5.25.0|torch:2.13.0+cpu")
OPTIONS = {"admission": "bundled", "alpha": 0.5, "baselines": [], "batch_size": 32, "contradiction": True,
           "copy_reading": "near", "decomposer": "rules", "device": None, "dtype": "auto", "ev2r": True, "hybrid": True,
           "hybrid_columns": "weighted", "llm_options": None, "meteor_match": "fuzzy", "premise_top_k": 5,
           "proxy_target": "gold", "proxy_verifier": None, "replay": None, "replay_model": None,
           "reply_reading": None, "restatement": "lexical", "support": "threshold", "threshold": 0.5,
           "unanswerable": "drop", "verifier": "bundled"}

# the hand case of tests/ev2r/test_stats.py: differences (3, 1, 2, -1)/8, exact p = 6/16
BASE = [0.25, 0.5, 0.125, 0.5]
SYS = [0.625, 0.625, 0.375, 0.375]


def _sig(**fields) -> str:
    """:data:`SIGNATURE` with fields replaced (value None: removed)."""
    parts = dict(chunk.split(":", 1) for chunk in SIGNATURE.split("|"))
    for k, v in fields.items():
        k = k.replace("_", "-")
        if v is None:
            parts.pop(k, None)
        else:
            parts[k] = v
    return "|".join(f"{k}:{v}" for k, v in parts.items())


def write_scores(path: Path, values, *, ids=None, status=None, signature=SIGNATURE, options=None, record=True,
                 ev2r=None, extra_rows=()) -> Path:
    """Score rows as ``ev2r score -o`` writes them (``values``: the ``ev2r_hybrid`` of each item) and their run record
    (``record=False``: none)."""
    ids = list(range(len(values))) if ids is None else ids
    rows = []
    for k, (i, v) in enumerate(zip(ids, values)):
        st = (status or {}).get(i, "ok")
        h = hashlib.sha256(f"item {i}".encode()).hexdigest()
        ok = st == "ok"
        rows.append({"id": i, "row": k, "precision": 0.5 if ok else None, "recall": 0.5 if ok else None,
                     "f1": 0.5 if ok else None, "proxy": 0.5 if ok else None,
                     "ev2r": (ev2r[k] if ev2r else 0.5) if ok else None, "status": st,
                     "error": None if ok else "no replay", "hybrid_meteor": 0.3 if ok else None,
                     "verified_meteor": v if ok else None, "ev2r_hybrid": v if ok else None, "item_hash": h})
    rows += list(extra_rows)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    if record:
        rec = {"format": 2, "engine": "local", "options": json.dumps({**OPTIONS, **(options or {})}, sort_keys=True),
               "with_facts": False, "signature": signature, "n_items": len(rows),
               "item_hashes": [r["item_hash"] for r in rows]}
        Path(str(path) + ".ev2r-run.json").write_text(json.dumps(rec, indent=4), encoding="utf-8")
    return path


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


@pytest.fixture
def pair(tmp_path):
    return write_scores(tmp_path / "a.jsonl", BASE), write_scores(tmp_path / "b.jsonl", SYS)


def test_hand_case_json(capsys, pair):
    a, b = pair
    code, out, err = _run(capsys, "compare", a, b, "--json")
    assert code == 0, err
    res = json.loads(out)
    col = res["systems"][0]["columns"]["ev2r_hybrid"]
    assert col["n"] == 4 and col["exact"] is True
    assert col["p_value"] == pytest.approx(6 / 16) and col["p_holm"] == col["p_value"]
    assert col["difference"] == pytest.approx(5 / 32)
    assert col["baseline_mean"] == pytest.approx(1.375 / 4) and col["system_mean"] == pytest.approx(0.5)
    assert (col["system_higher"], col["baseline_higher"], col["ties"]) == (3, 1, 0)
    assert col["interval"][0] <= col["difference"] <= col["interval"][1]
    assert [d["id"] for d in col["largest_differences"]] == [0, 2, 1, 3]  # |3|, |2|, |1|, |-1| eighths, id order
    assert col["largest_differences"][0]["difference"] == pytest.approx(0.375)
    assert res["settings"]["resamples"] == 2000 and res["settings"]["seed"] == 0 and res["settings"]["correction"] is None
    assert res["systems"][0]["same_definition"] is True and res["columns"] == ["ev2r_hybrid"]


def test_hand_case_table(capsys, pair):
    a, b = pair
    code, out, _ = _run(capsys, "compare", a, b)
    assert code == 0
    assert "ev2r_hybrid (the headline)" in out and "2000 resamples, seed 0" in out
    row = next(line for line in out.splitlines() if line.startswith(f"| {b} |"))
    assert "| 4 | 0.3438 | 0.5000 | +0.1562 |" in row and "| 0.3750 |" in row and "| 3 / 1 / 0 |" in row
    assert "exact, all 2^4 sign flips" in out and "within noise at the 5% level" in out
    assert "largest differences (id, system - baseline, baseline -> system): 0 +0.3750 (0.250 -> 0.625)" in out
    assert "ev2r explain INPUT --id 0" in out and "definitions: the same in every file" in out
    assert "Holm" not in out  # one system: nothing to correct
    # rows written with --explain: the hint reads the run's own rows (--scores)
    b.write_text("".join(json.dumps({**json.loads(line), "proxy_premises": []}) + "\n"
                         for line in b.read_text().splitlines()))
    _, out, _ = _run(capsys, "compare", a, b)
    assert f"ev2r explain INPUT --id 0 --scores {b} (INPUT: the file {b} scored" in out


def test_same_file_gives_zero_difference_and_p_one(capsys, pair):
    a, _ = pair
    code, out, _ = _run(capsys, "compare", a, a, "--json")
    col = json.loads(out)["systems"][0]["columns"]["ev2r_hybrid"]
    assert code == 0 and col["difference"] == 0 and col["interval"] == [0, 0] and col["p_value"] == 1.0
    assert col["ties"] == 4 and col["largest_differences"] == []
    code, out, _ = _run(capsys, "compare", a, a)
    assert "no item differs" in out


def test_swapping_sides_flips_difference_and_interval_keeps_p(capsys, tmp_path):
    import numpy as np

    rng = np.random.default_rng(3)
    a = write_scores(tmp_path / "a.jsonl", list(rng.uniform(size=30)))
    b = write_scores(tmp_path / "b.jsonl", list(rng.uniform(size=30)))
    ab = json.loads(_run(capsys, "compare", a, b, "--json", "--permutations", "2000")[1])["systems"][0]["columns"]
    ba = json.loads(_run(capsys, "compare", b, a, "--json", "--permutations", "2000")[1])["systems"][0]["columns"]
    x, y = ab["ev2r_hybrid"], ba["ev2r_hybrid"]
    assert y["difference"] == pytest.approx(-x["difference"], abs=1e-12)
    assert y["interval"] == pytest.approx([-x["interval"][1], -x["interval"][0]], abs=1e-12)
    assert y["p_value"] == x["p_value"] and x["exact"] is False and x["n_permutations"] == 2000
    assert (y["system_higher"], y["baseline_higher"]) == (x["baseline_higher"], x["system_higher"])


def test_several_systems_holm_corrected_and_named(capsys, tmp_path):
    a = write_scores(tmp_path / "a.jsonl", BASE + [0.5, 0.5])
    b = write_scores(tmp_path / "b.jsonl", SYS + [0.75, 0.625])
    c = write_scores(tmp_path / "c.jsonl", [0.5, 0.5, 0.5, 0.5, 0.5, 0.25])
    code, out, err = _run(capsys, "compare", a, b, c, "--json", "--columns", "ev2r_hybrid,ev2r")
    assert code == 0, err
    res = json.loads(out)
    assert res["settings"]["correction"].startswith("holm") and res["columns"] == ["ev2r_hybrid", "ev2r"]
    ps = [s["columns"]["ev2r_hybrid"]["p_value"] for s in res["systems"]]
    assert [s["columns"]["ev2r_hybrid"]["p_holm"] for s in res["systems"]] == pytest.approx(holm(ps))
    assert ps[0] == pytest.approx(8 / 64)  # (3, 1, 2, -1, 2, 1)/8: a sum of 8 eighths or more, either sign: 8 of 64 flips
    assert ps[1] == pytest.approx(6 / 8)  # (2, 0, 3, 0, 0, -2)/8: the zeros flip to nothing; 6 of the 8 others
    assert res["systems"][0]["columns"]["ev2r"]["p_value"] == 1.0  # ev2r is 0.5 everywhere
    _, text, _ = _run(capsys, "compare", a, b, c)
    assert "p (Holm) corrected over the 2 systems" in text and "| p (Holm) |" in text
    assert "p (Holm) = 0.2500" in text and "p (Holm) = 0.7500" in text  # 2 x 8/64, then max(0.25, 1 x 0.75)


# -- definitions -----------------------------------------------------------------------------------------------------
DIFFERENT = {
    "verifier weights": (dict(signature=_sig(verifier="ev2r-minilm-nli@0123456789+bf16")),
                         "verifier: ev2r-minilm-nli@c82b0fc475+bf16 vs ev2r-minilm-nli@0123456789+bf16"),
    "dtype": (dict(signature=_sig(verifier="ev2r-minilm-nli@c82b0fc475")),
              "verifier compute precision (--dtype): bf16 vs fp32"),
    "decomposer": (dict(signature=_sig(decomp="rules-v1", v2_rev=None)), "decomp: rules-v2 vs rules-v1"),
    "replay": (dict(options={"replay": "/data/replay_b.jsonl"}), "replay file (--replay): none vs replay_b.jsonl"),
    "score version": (dict(signature=_sig(hybrid="w=recall:1")), "score version: ev2r-hybrid/"),
}


@pytest.mark.parametrize("what", sorted(DIFFERENT))
def test_different_definitions_refused_then_allowed_and_said_on_every_line(capsys, tmp_path, what):
    kwargs, named = DIFFERENT[what]
    a = write_scores(tmp_path / "a.jsonl", BASE)
    b = write_scores(tmp_path / "b.jsonl", SYS, **kwargs)
    c = write_scores(tmp_path / "c.jsonl", SYS)
    code, out, err = _run(capsys, "compare", a, c, b)
    assert code == 2 and out == ""
    assert f"{a} and {b} were not scored under one definition" in err and named in err
    assert "--allow-different-definitions" in err
    code, out, err = _run(capsys, "compare", a, b, c, "--allow-different-definitions", "--columns", "ev2r_hybrid,ev2r")
    assert code == 0, err
    rows = [line for line in out.splitlines() if line.startswith(f"| {b} |")]
    assert len(rows) == 2 and all("DIFFERENT" in r for r in rows)  # one table per column, each row says so
    assert all(line.endswith("| same |") for line in out.splitlines() if line.startswith(f"| {c} |"))
    assert f"DIFFERENT DEFINITIONS (--allow-different-definitions): {b} vs {a}" in out
    res = json.loads(_run(capsys, "compare", a, b, "--allow-different-definitions", "--json")[1])
    assert res["systems"][0]["same_definition"] is False and any(named in d for d in res["systems"][0]["differences"])


def test_library_versions_are_noted_not_refused(capsys, tmp_path):
    a = write_scores(tmp_path / "a.jsonl", BASE)
    b = write_scores(tmp_path / "b.jsonl", SYS, signature=_sig(torch="2.14.0+cpu", ev2r="1.8.0"))
    code, out, err = _run(capsys, "compare", a, b)
    assert code == 0, err
    assert f"note: {b} vs {a}: torch: 2.13.0+cpu vs 2.14.0+cpu (a library or engine, not the definition)" in out


def test_no_run_record_refused_unless_allowed(capsys, tmp_path):
    a = write_scores(tmp_path / "a.jsonl", BASE)
    b = write_scores(tmp_path / "b.jsonl", SYS, record=False)
    code, _, err = _run(capsys, "compare", a, b)
    assert code == 2 and f"{b} has no run record (b.jsonl.ev2r-run.json beside it)" in err
    code, out, _ = _run(capsys, "compare", a, b, "--allow-different-definitions")
    assert code == 0 and "DIFFERENT" in next(line for line in out.splitlines() if line.startswith(f"| {b} |"))


def test_a_record_of_other_rows_is_refused(capsys, tmp_path):
    a = write_scores(tmp_path / "a.jsonl", BASE)
    b = write_scores(tmp_path / "b.jsonl", SYS)
    rec = Path(str(b) + ".ev2r-run.json")
    doc = json.loads(rec.read_text())
    doc["item_hashes"] = doc["item_hashes"][:2]
    rec.write_text(json.dumps(doc))
    code, _, err = _run(capsys, "compare", a, b)
    assert code == 2 and f"2 row(s) of {b} are not items of its run record (ids 2, 3)" in err


def test_rows_of_another_signature_are_refused(capsys, tmp_path):
    from ev2r.signature import text_digest

    a = write_scores(tmp_path / "a.jsonl", BASE)
    b = write_scores(tmp_path / "b.jsonl", SYS)
    rows = [json.loads(line) for line in b.read_text().splitlines()]
    for k, r in enumerate(rows):  # rows of format 3 name the signature that made them
        r["signature_hash"] = text_digest(SIGNATURE if k else _sig(alpha="0.7"))
    b.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, _, err = _run(capsys, "compare", a, b)
    assert code == 2 and f"1 row(s) of {b} were made under another definition than its run record's" in err
    rows[0]["signature_hash"] = text_digest(SIGNATURE)
    b.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert _run(capsys, "compare", a, b)[0] == 0


def test_an_interrupted_no_resume_record_is_read_through_to_the_rows_record(capsys, tmp_path):
    a = write_scores(tmp_path / "a.jsonl", BASE)
    b = write_scores(tmp_path / "b.jsonl", SYS)
    rec = Path(str(b) + ".ev2r-run.json")
    kept = json.loads(rec.read_text())
    interrupted = {**kept, "signature": _sig(alpha="0.7"), "previous_out": True}  # another run's, interrupted
    rec.write_text(json.dumps(interrupted))
    code, _, err = _run(capsys, "compare", a, b)
    assert code == 2 and f"the run record of {b} is of an interrupted --no-resume run" in err
    rec.write_text(json.dumps({**interrupted, "previous_record": kept}))  # record format 3 keeps the rows' record
    code, out, err = _run(capsys, "compare", a, b)
    assert code == 0, err
    assert "definitions: the same in every file" in out


# -- items -----------------------------------------------------------------------------------------------------------
def test_missing_and_failed_items_are_reported_and_left_out(capsys, tmp_path):
    a = write_scores(tmp_path / "a.jsonl", [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8], status={2: "replay_missing"})
    b = write_scores(tmp_path / "b.jsonl", [0.2, 0.2, 0.3, 0.1, 0.6, 0.9, 0.4], ids=[0, 1, 2, 3, 4, 5, 9],
                     status={3: "error"})
    code, out, err = _run(capsys, "compare", a, b)
    assert code == 0, err
    assert (f"{b}: 4 items paired; left out: 2 not in {b} (ids 6, 7); 1 not in {a} (ids 9); 1 failed in {a} "
            f"(status other than ok: 2 replay_missing); 1 failed in {b} (status other than ok: 3 error)") in out
    res = json.loads(_run(capsys, "compare", a, b, "--json")[1])["systems"][0]
    assert res["items"] == {"n_baseline": 8, "n_system": 7, "paired": 4, "only_baseline": ["6", "7"],
                            "only_system": ["9"], "failed_baseline": [{"id": "2", "status": "replay_missing"}],
                            "failed_system": [{"id": "3", "status": "error"}]}
    col = res["columns"]["ev2r_hybrid"]  # items 0, 1, 4, 5: differences 0.1, 0, 0.1, 0.3
    assert col["n"] == 4 and col["difference"] == pytest.approx(0.125)
    assert (col["system_higher"], col["baseline_higher"], col["ties"]) == (3, 0, 1)


def test_ids_match_as_text_and_null_values_are_left_out_by_name(capsys, tmp_path):
    a = write_scores(tmp_path / "a.jsonl", [0.1, 0.2, 0.3], ids=[585, 33, 7])
    b = write_scores(tmp_path / "b.jsonl", [0.2, 0.3, 0.4], ids=["585", "33", "7"])
    lines = b.read_text().splitlines()
    row = json.loads(lines[2])
    row["ev2r_hybrid"] = None  # an ok row without the headline (no nltk data when it was scored)
    lines[2] = json.dumps(row)
    b.write_text("\n".join(lines) + "\n")
    code, out, err = _run(capsys, "compare", a, b)
    assert code == 0, err
    assert "3 items paired; nothing left out" in out
    assert "1 paired item(s) left out, without ev2r_hybrid on both sides: ids 7" in out
    assert "| 2 |" in next(line for line in out.splitlines() if line.startswith(f"| {b} |"))


def test_no_common_items_is_refused_saying_why(capsys, tmp_path):
    a = write_scores(tmp_path / "a.jsonl", [0.1, 0.2, 0.3], ids=[1, 2, 3])
    b = write_scores(tmp_path / "b.jsonl", [0.1, 0.2], ids=[4, 5])
    code, _, err = _run(capsys, "compare", a, b)
    assert code == 2
    assert f"{a} vs {b}: 0 item(s) with ev2r_hybrid on both sides (0 ok items in common of 3 and 2 rows" in err
    assert "a paired comparison needs at least 2 of the same items (ids) scored in both files" in err


def test_bad_columns_ids_and_settings_are_named(capsys, tmp_path):
    a = write_scores(tmp_path / "a.jsonl", BASE)
    b = write_scores(tmp_path / "b.jsonl", SYS)
    code, _, err = _run(capsys, "compare", a, b, "--columns", "ev2r_hybrid,bleu")
    assert code == 2 and f"--columns: bleu is not a score column of {a} (its columns: precision, recall" in err
    dup = write_scores(tmp_path / "d.jsonl", [0.1, 0.2], ids=[1, 1])
    code, _, err = _run(capsys, "compare", a, dup)
    assert code == 2 and f"{dup}: id '1' is in rows 0 and 1: items are matched by id" in err
    with pytest.raises(SystemExit):
        main(["compare", str(a), str(b), "--resamples", "0"])
    assert "--resamples: expected an integer >= 1, got '0'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["compare", str(a), str(b), "--columns", "ev2r,"])
    assert "expected score columns separated by commas" in capsys.readouterr().err


# -- prediction files ----------------------------------------------------------------------------------------------------
def test_prediction_files_are_scored_with_one_scorer(capsys, tmp_path, monkeypatch):
    """Rows without score columns are scored first, every file by the same scorer (one definition); a fake verifier
    stands in for the bundled one (no model loaded)."""
    import ev2r.metric.factory as factory
    from support.fakes import KeywordVerifier

    real = factory.build_scorer
    built = []

    def fake_build_scorer(**kwargs):
        built.append(kwargs)
        return real(verifier=KeywordVerifier(), hybrid=False, admission="none")

    monkeypatch.setattr(factory, "build_scorer", fake_build_scorer)
    ref = "Question: What is the population of Kerala?\nAnswer: Kerala has 33 million people."
    claims = [("Kerala has 33 million people.", ref), ("Kerala has 33 million people.", "Question: Who?\nAnswer: Bob."),
              ("Paris is in France.", "Question: Where is Paris?\nAnswer: Paris is in France."),
              ("Cats can fly.", "Question: Can cats fly?\nAnswer: No, cats cannot fly.")]
    rows_a = [{"id": k, "claim": c, "predicted_evidence": "Question: Who?\nAnswer: Nobody knows.",
               "reference_evidence": r, "gold_label": "Supported"} for k, (c, r) in enumerate(claims)]
    rows_b = [dict(row, predicted_evidence=row["reference_evidence"]) for row in rows_a]
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("".join(json.dumps(r) + "\n" for r in rows_a))
    b.write_text("".join(json.dumps(r) + "\n" for r in rows_b))
    code, out, err = _run(capsys, "compare", a, b, "--columns", "ev2r,recall", "--json")
    assert code == 0, err
    assert len(built) == 1 and built[0] == {}  # one scorer, the default options
    assert f"{a} has no score columns: scoring its 4 item(s) with the default scorer" in err
    res = json.loads(out)["systems"][0]
    assert res["scored_here"] is True and res["same_definition"] is True
    assert res["columns"]["recall"]["system_mean"] == 1.0  # the gold evidence as prediction recalls every fact
    assert res["columns"]["recall"]["difference"] > 0
    code, out, _ = _run(capsys, "compare", a, b, "--columns", "recall")
    assert f"why an item scored what it did: ev2r explain {b} --id" in out


# -- ev2r report --compare -------------------------------------------------------------------------------------------
def test_report_with_a_comparison_section(capsys, tmp_path):
    a = write_scores(tmp_path / "a.jsonl", BASE)
    b = write_scores(tmp_path / "b.jsonl", SYS)
    page = tmp_path / "page.html"
    code, _, err = _run(capsys, "report", a, "--compare", b, "-o", page)
    assert code == 0, err
    html = page.read_text()
    assert f'<h2 id="comparison">Comparison with {b}</h2>' in html
    section = html[html.index('<table id="compare">'):]
    row = next(line for line in section.splitlines() if line.startswith("<tr><td>ev2r_hybrid</td>"))
    assert ('<td class="num">4</td><td class="num">0.344</td><td class="num">0.500</td><td class="num">+0.156</td>'
            in row and '<td class="num">0.3750</td><td>3 / 1 / 0</td>' in row)
    assert "Largest differences in ev2r_hybrid (id: other &minus; this): 0: +0.375" in html
    plain = tmp_path / "plain.html"
    assert _run(capsys, "report", a, "-o", plain)[0] == 0 and 'id="comparison"' not in plain.read_text()


def test_report_compare_refuses_different_definitions_unless_allowed(capsys, tmp_path):
    a = write_scores(tmp_path / "a.jsonl", BASE)
    b = write_scores(tmp_path / "b.jsonl", SYS, signature=_sig(verifier="ev2r-minilm-nli@c82b0fc475"))
    page = tmp_path / "page.html"
    code, _, err = _run(capsys, "report", a, "--compare", b, "-o", page)
    assert code == 2 and "verifier compute precision (--dtype): bf16 vs fp32" in err and not page.exists()
    code, _, err = _run(capsys, "report", a, "--compare", b, "-o", page, "--allow-different-definitions")
    assert code == 0, err
    assert "DIFFERENT DEFINITIONS (--allow-different-definitions): verifier compute precision" in page.read_text()
    code, _, err = _run(capsys, "report", a, "-o", page, "--allow-different-definitions")
    assert code == 2 and "--allow-different-definitions: only with --compare" in err


def _sealed(path: Path, values) -> Path:
    """Rows as ``ev2r score -o`` 1.8.0 on writes them: each with its ``signature_hash`` and ``row_hash`` seal, and a
    format 3 run record (its rows are then checked as a resume checks them)."""
    from ev2r.io.rows import row_seal
    from ev2r.signature import text_digest

    write_scores(path, values)
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for r in rows:
        r["ev2r"] = 0.5 * r["f1"] + 0.5 * r["proxy"]
        r["ev2r_hybrid"] = 0.05 * (r["proxy"] + r["hybrid_meteor"] + r["precision"]) + 0.85 * r["verified_meteor"]
        r["signature_hash"] = text_digest(SIGNATURE)
        r["row_hash"] = row_seal(r)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    record_path = Path(str(path) + ".ev2r-run.json")
    record = json.loads(record_path.read_text(encoding="utf-8"))
    record_path.write_text(json.dumps({**record, "format": 3}), encoding="utf-8")
    return path


def test_sealed_score_files_compare(capsys, tmp_path):
    """Score files with sealed rows (what `ev2r score -o` writes since 1.8.0) compare: the seals were once checked on
    the rows as the report reads them (with an added `explained` field), so every such file was refused."""
    a, b = _sealed(tmp_path / "a.jsonl", BASE), _sealed(tmp_path / "b.jsonl", SYS)
    code, out, err = _run(capsys, "compare", a, b, "--json")
    assert code == 0, err
    got = json.loads(out)["systems"][0]["columns"]["ev2r_hybrid"]["difference"]
    assert got == pytest.approx(0.85 * (sum(SYS) - sum(BASE)) / 4)
    rows = [json.loads(line) for line in b.read_text(encoding="utf-8").splitlines()]
    rows[0]["verified_meteor"] = 0.99  # an edited row is still refused
    b.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, _, err = _run(capsys, "compare", a, b)
    assert code == 2 and "not as the run that made them wrote them" in err
