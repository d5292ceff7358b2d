"""Every file of the text failure cases (tests/data/cases/text, copied from ../shared/cases/text)
gives the right behaviour: one normalisation where text enters (NFC, one line ending), JSONL that
round-trips, no text lost by the sentence splitter, data text never a tokenizer control token,
verdict spellings people use, ties in ranking, scripts without spaces.

The verifier used here is the tiny random checkpoint (fast): equal inputs must give equal
outputs whatever the weights, which is what these cases are about.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from claimalign.jsonio import read_rows_file
from claimalign.scripts import ScriptWarning
from ev2r.cli.main import main
from ev2r.io.readers import InputWarning, read_items, read_rows, write_jsonl
from ev2r.labels import Verdict, normalize_verdict

HERE = Path(__file__).resolve().parent
CASES = HERE / "data" / "cases" / "text"
SHARED_CASES = HERE.parents[1] / "shared" / "cases" / "text"
NLTK_DIR = HERE.parents[1] / "shared" / "data" / "nltk_data"


def case(name: str) -> Path:
    return CASES / name


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def rows_of(path: Path) -> list[dict]:
    return read_rows(path)


@pytest.fixture
def nltk_data():
    if not (NLTK_DIR / "corpora" / "wordnet").is_dir():
        pytest.skip(f"NLTK data (punkt_tab, WordNet) not found at {NLTK_DIR}")
    return NLTK_DIR


def test_case_copies_match_the_shared_cases():
    if not SHARED_CASES.is_dir():
        pytest.skip(f"{SHARED_CASES} is not beside the repository (the copies in {CASES} are used)")
    names = sorted(p.name for p in SHARED_CASES.iterdir())
    assert names == sorted(p.name for p in CASES.iterdir())
    for name in names:
        assert (CASES / name).read_bytes() == (SHARED_CASES / name).read_bytes(), name


# -- Unicode normalisation ---------------------------------------------------------------------

def test_nfd_and_nfc_czech_slovak_evidence_read_as_the_same_text():
    items = {it.id: it for it in read_items(case("unicode_nfc_vs_nfd_czech_slovak.jsonl"))}
    for lang in ("cs", "sk"):
        nfc, nfd = items[f"{lang}-nfc-nfc"], items[f"{lang}-nfd-nfc"]
        assert nfd.predicted_evidence == nfc.predicted_evidence == nfc.reference_evidence
        assert nfd.predicted_evidence == nfd.reference_evidence


def test_hu_meteor_nfd_equals_nfc_and_is_about_one(tmp_path, capsys, nltk_data):
    out = tmp_path / "hu.jsonl"
    code, _, err = run(capsys, "score", case("unicode_nfc_vs_nfd_czech_slovak.jsonl"), "--scorer", "hu-meteor",
                       "-o", out, "--nltk-data", nltk_data, "--no-progress")
    assert code == 0, err
    got = {r["id"]: r for r in read_rows(out)}
    for lang in ("cs", "sk"):
        assert got[f"{lang}-nfd-nfc"]["hu_meteor"] == got[f"{lang}-nfc-nfc"]["hu_meteor"]
        assert got[f"{lang}-nfd-nfc"]["hu_meteor"] > 0.999  # was 0.75-0.78


@pytest.mark.parametrize("similarity", ["edit", "meteor"])
def test_align_nfc_against_nfd_is_identical(tmp_path, capsys, nltk_data, similarity):
    out = tmp_path / "align.jsonl"
    code, _, err = run(capsys, "align", case("align_cs_nfc.jsonl"), case("align_cs_nfd.jsonl"),
                       "--similarity", similarity, "-o", out, "--nltk-data", nltk_data)
    assert code == 0, err
    (row,) = read_rows(out)
    assert row["score"] == 1.0 and row["precision"] == 1.0 and row["recall"] == 1.0  # was 0.939 / 0.841
    assert [(p["a_index"], p["b_index"], p["similarity"]) for p in row["pairs"]] == [(0, 0, 1.0), (1, 1, 1.0), (2, 2, 1.0)]


def test_embedding_similarity_nfd_equals_nfc(tiny_nli_model):
    from claimalign.similarity import EmbeddingSimilarity

    nfc = rows_of(case("align_cs_nfc.jsonl"))[0]["claims"]
    raw_nfd = [json.loads(line)["claims"] for line in case("align_cs_nfd.jsonl").read_text("utf-8").splitlines()][0]
    assert raw_nfd != nfc  # the file really holds NFD text
    sim = EmbeddingSimilarity(model=tiny_nli_model)
    m = sim.matrix(raw_nfd, nfc)
    assert np.allclose(np.diag(m), 1.0)
    assert np.array_equal(sim.encode(raw_nfd), sim.encode(nfc))


# -- line endings ------------------------------------------------------------------------------

def test_cr_crlf_and_lf_evidence_parse_alike():
    items = {it.id: it for it in read_items(case("cr_only_line_endings.jsonl"))}
    lf = items["lf"].predicted_evidence
    assert len(lf.pairs) == 2 and lf.pairs[1].question == "Who paid for it?"
    assert items["crlf"].predicted_evidence == lf
    assert items["cr-only"].predicted_evidence == lf  # was one question with an empty answer


# -- scored end to end (tiny verifier): equal input text gives equal scores, and facts exist ---

@pytest.mark.parametrize("name, groups", [
    ("cr_only_line_endings.jsonl", [("lf", "crlf", "cr-only")]),
    ("unicode_nfc_vs_nfd_czech_slovak.jsonl", [("cs-nfc-nfc", "cs-nfd-nfc"), ("sk-nfc-nfc", "sk-nfd-nfc")]),
    ("pysbd_placeholder_emoji.jsonl", []),
    ("pysbd_placeholder_pred_only.jsonl", []),
])
def test_scores_of_equal_text_are_equal_and_never_silent_zeros(tmp_path, capsys, tiny_nli_model, name, groups):
    out = tmp_path / "scores.jsonl"
    code, _, err = run(capsys, "score", case(name), "--model", tiny_nli_model, "-o", out, "--explain",
                       "--no-progress", "--dtype", "fp32")
    assert code == 0, err
    assert "no reference" not in err
    rows = {r["id"]: r for r in read_rows(out)}
    for r in rows.values():
        assert r["status"] == "ok", r
        assert r["predicted_facts"] and r["reference_facts"]
        for k in ("precision", "recall", "f1", "proxy", "ev2r"):
            assert r[k] is not None
    for group in groups:
        first = rows[group[0]]
        for other in group[1:]:
            for k in ("precision", "recall", "f1", "proxy", "ev2r"):
                assert rows[other][k] == first[k], (other, k)
            assert rows[other]["predicted_facts"] == first["predicted_facts"]


# -- JSONL records split on line breaks only; what ev2r writes, ev2r reads -----------------------

def test_raw_u2028_and_nel_inside_strings_are_data():
    items = read_items(case("jsonl_raw_u2028_nel.jsonl"))
    assert [it.id for it in items] == ["ls-2028", "nel-0085"]
    # the record is not cut at them; where question/answer pairs are read they are line breaks
    assert items[0].predicted_evidence.pairs[0].answer == "It opened in May 2019.\nLocal press covered it."
    assert items[1].predicted_evidence.pairs[0].answer == "It opened in May 2019.\nLocal press covered it."


def test_written_rows_read_back(tmp_path):
    rows = read_rows(case("jsonl_raw_u2028_nel.jsonl")) + read_rows(case("jsonl_id_with_u2028_roundtrip.jsonl"))
    out = tmp_path / "copy.jsonl"
    write_jsonl(rows, out)
    assert read_rows(out) == rows
    assert len(out.read_text("utf-8").splitlines()) == len(rows)  # one line per record for any reader


def test_score_output_with_u2028_id_is_read_back_by_rank(tmp_path, capsys, nltk_data):
    src = case("jsonl_id_with_u2028_roundtrip.jsonl")
    out = tmp_path / "scores.jsonl"
    code, _, err = run(capsys, "score", src, "--scorer", "hu-meteor", "-o", out, "--nltk-data", nltk_data,
                       "--no-progress")
    assert code == 0, err
    back = read_rows(out)
    assert [r["id"] for r in back] == ["doc7\u2028claim1", "doc7-claim2"]
    assert len(out.read_text("utf-8").splitlines()) == 2
    ranking = tmp_path / "rank.json"
    code, _, err = run(capsys, "rank", f"a={out}", f"b={out}", "--score-field", "hu_meteor", "-o", ranking,
                       "--bootstrap", 0)
    assert code == 0, err
    result = json.loads(ranking.read_text("utf-8"))
    assert result["n_items"] == 2 and result["ratings"]["a"]["ties"] == 2
    assert read_rows_file(ranking) == result  # ev2r's own JSON output is readable by its reader
    with pytest.raises(ValueError, match="one JSON object, not rows"):
        read_rows(ranking)  # ... and is not taken for score rows


def test_rank_reads_raw_u2028(tmp_path, capsys):
    out = tmp_path / "rank.json"
    code, _, err = run(capsys, "rank", case("rank_raw_u2028.jsonl"), "-o", out, "--bootstrap", 0)
    assert code == 0, err
    result = json.loads(out.read_text("utf-8"))
    assert result["n_items"] == 2 and set(result["ranking"]) == {"s1", "s2"}
    assert result["ratings"]["s1"]["wins"] == 1 and result["ratings"]["s2"]["wins"] == 1


# -- the sentence splitter loses no text ---------------------------------------------------------

@pytest.mark.parametrize("name", ["pysbd_placeholder_emoji.jsonl", "pysbd_placeholder_pred_only.jsonl"])
def test_splitter_placeholders_do_not_delete_answers(name):
    from ev2r.facts.rules import get_rule_decomposer

    for decomposer in (get_rule_decomposer("rules-v1"), get_rule_decomposer("rules-v2")):
        for it in read_items(case(name)):
            for ev in (it.predicted_evidence, it.reference_evidence):
                facts = " ".join(f.text for f in decomposer.decompose(ev))
                assert "after two years of work" in facts, (it.id, decomposer.name)
                for ch in ("\u261d", "\u0238"):
                    assert (ch in ev.pairs[0].answer) == (ch in facts)


# -- data text never becomes a control token ----------------------------------------------------

def test_special_token_strings_in_text_are_text(tiny_nli_model):
    from ev2r.verifier.nli import HFNLIVerifier

    rows = {r["id"]: r for r in read_rows(case("verify_special_tokens_in_text_2.jsonl"))}
    v = HFNLIVerifier(tiny_nli_model, dtype="fp32")
    ids = sorted(rows)
    probs = dict(zip(ids, v.predict([rows[i]["premise"] for i in ids], [rows[i]["hypothesis"] for i in ids])))
    # "[SEP]" written in the data reads exactly like "[ SEP ]": brackets and letters, no control token
    for literal, spaced in (("b", "c"), ("d", "e"), ("f", "g")):
        assert np.array_equal(probs[literal], probs[spaced]), literal
    tok = v._tokenizer
    enc = tok(rows["d"]["premise"], rows["d"]["hypothesis"])
    assert enc["input_ids"].count(tok.sep_token_id) == 2 and enc["input_ids"].count(tok.cls_token_id) == 1
    assert tok.mask_token_id not in tok(rows["f"]["premise"])["input_ids"]


def test_verify_cli_special_tokens(tmp_path, capsys, tiny_nli_model):
    out = tmp_path / "v.jsonl"
    code, _, err = run(capsys, "verify", case("verify_special_tokens_in_text_2.jsonl"), "-o", out, "--model",
                       tiny_nli_model, "--dtype", "fp32")
    assert code == 0, err
    got = {r["id"]: (r["entailment"], r["neutral"], r["contradiction"]) for r in read_rows(out)}
    assert got["b"] == got["c"] and got["d"] == got["e"] and got["f"] == got["g"]


# -- verdict spellings; a field the run does not need never stops it -----------------------------

def test_label_spellings_people_use():
    items = read_items(case("label_spellings.jsonl"))
    assert [it.gold_label for it in items] == [Verdict.CONFLICTING, Verdict.REFUTED, Verdict.SUPPORTED]
    assert [normalize_verdict(it.extra["human_label"]) for it in items] == [
        Verdict.CONFLICTING, Verdict.NOT_ENOUGH_EVIDENCE, Verdict.CONFLICTING]


def test_label_spellings_file_scores(tmp_path, capsys, nltk_data):
    code, out, err = run(capsys, "score", case("label_spellings.jsonl"), "--scorer", "hu-meteor", "--json",
                         "--nltk-data", nltk_data, "--no-progress")
    assert code == 0, err
    assert json.loads(out)["n"] == 3 and json.loads(out)["n_failed"] == 0


def test_unneeded_unreadable_label_warns_with_a_count_and_the_run_goes_on(tmp_path, capsys, nltk_data):
    rows = read_rows(case("label_spellings.jsonl"))
    rows[0]["human_label"] = "mostly true-ish"
    rows[2]["human_label"] = "???"
    rows[1]["predicted_label"] = "half-true"
    p = tmp_path / "in.jsonl"
    write_jsonl(rows, p)
    with pytest.warns(InputWarning, match=r"2 row\(s\) whose 'human_label'.*rows 0 \(line 1.*2 \(line 3.*1 row\(s\) whose 'predicted_label'.*rows 1 \(line 2"):
        items = read_items(p)
    assert items[1].predicted_label is None and items[1].extra["predicted_label"] == "half-true"  # kept, not lost
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        code, out, err = run(capsys, "score", p, "--scorer", "hu-meteor", "--json", "--nltk-data", nltk_data,
                             "--no-progress")
    assert code == 0, err
    assert json.loads(out)["n_failed"] == 0
    from ev2r.io.readers import InputError

    # a caller that needs the field (no score does since 2.0, --proxy-target human left) stops, naming the row
    with pytest.raises(InputError, match=r"row 0 \(line 1, id .lbl-1.\): human_label: unknown verdict"):
        read_items(p, strict_labels=("human_label",))


# -- ties in ranking ----------------------------------------------------------------------------

def test_float_noise_is_a_tie_and_equal_ratings_share_a_rank(tmp_path, capsys):
    out = tmp_path / "rank.json"
    code, stdout, err = run(capsys, "rank", case("rank_float_noise_ties.jsonl"), "-o", out, "--bootstrap", 50)
    assert code == 0, err
    r = json.loads(out.read_text("utf-8"))
    a, rerun, b = (r["ratings"][s] for s in ("sysA", "sysA_rerun", "sysB"))
    assert a["ties"] == rerun["ties"] == 6 and a["wins"] == rerun["wins"] == 6  # ties with each other, beat sysB
    assert a["rating"] == pytest.approx(rerun["rating"], abs=1e-3)  # was 838 points apart
    assert a["rank"] == rerun["rank"] == 1 and b["rank"] == 3
    assert r["settings"]["margin"] == 1e-6
    assert "| 1 | sysA |" in stdout and ("| 1 | sysA_rerun |" in stdout or "| 1 | sysA\\_rerun |" in stdout) and "| 3 | sysB |" in stdout
    code, _, _ = run(capsys, "rank", case("rank_float_noise_ties.jsonl"), "-o", out, "--bootstrap", 0, "--margin", 0)
    exact = json.loads(out.read_text("utf-8"))
    assert code == 0 and exact["ratings"]["sysA"]["ties"] == 0  # --margin 0 compares exactly, as asked


# -- scripts without spaces ---------------------------------------------------------------------

def test_identical_non_latin_sets_align_as_identical(tmp_path, capsys, nltk_data):
    out = tmp_path / "align.jsonl"
    f = case("align_non_latin.jsonl")
    with pytest.warns(ScriptWarning, match="METEOR.*without spaces"):
        code, _, err = run(capsys, "align", f, f, "--similarity", "meteor", "-o", out, "--nltk-data", nltk_data)
    assert code == 0, err
    for row in read_rows(out):
        assert row["score"] == 1.0, row["id"]  # zh was 0.5
        assert [(p["a_index"], p["b_index"]) for p in row["pairs"]] == [(0, 0), (1, 1)]


def test_meteor_gives_partial_credit_in_unspaced_scripts(nltk_data):
    from claimalign.similarity import MeteorSimilarity

    short, long = rows_of(case("align_non_latin.jsonl"))[3]["claims"]
    with pytest.warns(ScriptWarning):
        m = MeteorSimilarity().matrix([short, long], [short, long])
    assert m[0, 0] == m[1, 1] == 1.0
    assert 0.2 < m[0, 1] < 1.0 and 0.2 < m[1, 0] < 1.0  # shared characters count; one token each gave 0


def test_hu_meteor_identical_non_latin_evidence(tmp_path, capsys, nltk_data):
    out = tmp_path / "hu.jsonl"
    with pytest.warns(ScriptWarning, match="Hungarian METEOR"):
        code, _, err = run(capsys, "score", case("non_latin_identical_evidence.jsonl"), "--scorer", "hu-meteor",
                           "-o", out, "--nltk-data", nltk_data, "--no-progress")
    assert code == 0, err
    from claimalign import hu_meteor
    from nltk import word_tokenize
    from nltk.translate.meteor_score import single_meteor_score

    # --scorer hu-meteor is the AVeriTeC baseline: official tokens (word_tokenize) in every script,
    # so the Chinese row keeps its whole-sentence tokens (with the warning); spaced scripts score ~1
    items = {it.id: it for it in read_items(case("non_latin_identical_evidence.jsonl"))}
    for r in read_rows(out):
        pairs = [(p.question, p.answer) for p in items[r["id"]].predicted_evidence.pairs]
        official = [single_meteor_score(word_tokenize(f"{q} {a}"), word_tokenize(f"{q} {a}")) for q, a in pairs]
        assert r["hu_meteor"] == pytest.approx(sum(official) / len(official), abs=1e-12), r["id"]
        if r["id"].startswith("zh"):
            assert r["hu_meteor"] < 0.99  # a few whole-sentence tokens, as the official scorer has them
            with pytest.warns(ScriptWarning):
                assert hu_meteor(pairs, pairs, tokens="script") > 0.999  # claimalign's script-aware tokens
        else:
            assert r["hu_meteor"] > 0.999 and r["hu_meteor_q"] > 0.99, r["id"]


def test_no_script_warning_for_spaced_scripts(nltk_data):
    from claimalign import hu_meteor

    for it in read_items(case("non_latin_identical_evidence.jsonl"))[:3]:  # cs, el, ru
        pairs = [(p.question, p.answer) for p in it.predicted_evidence.pairs]
        with warnings.catch_warnings():
            warnings.simplefilter("error", ScriptWarning)
            assert hu_meteor(pairs, pairs) > 0.999
