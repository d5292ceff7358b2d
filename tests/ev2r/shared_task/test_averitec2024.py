"""``ev2r averitec``: the AVeriTeC 2024 shared-task table.

* parity: every number of the official ``eval.py`` output for the parity fixture
  (``averitec/parity/official_eval_1.txt``), same names, same order, to 1e-9;
* the cached METEOR equals nltk's, value for value;
* hand-computed small cases, strict ``>`` at the levels, failures with causes, the 10-pair cap,
  both prediction formats;
* refusal of predictions that do not join the gold file one-to-one (exit 2, ids named);
* inputs are never modified.
"""

import copy
import json
import os
import re

import pytest

from ev2r.shared_task.averitec2024 import (
    AVERITEC_LEVELS,
    VERDICTS,
    AveritecInputError,
    JoinError,
    averitec_contribution,
    evaluate_averitec,
    format_official_table,
    table_notes,
    prepare_predictions,
    thresholded_evidence,
)
from ev2r.cli.main import main

from support.paths import REPO as REPO_ROOT  # noqa: E402
SHARED = (REPO_ROOT / ".." / "shared" / "data").resolve()
NLTK_DATA = SHARED / "nltk_data"
PARITY = SHARED / "averitec" / "parity"
DEV = SHARED / "averitec" / "dev.json"

if NLTK_DATA.is_dir():
    os.environ.setdefault("NLTK_DATA", str(NLTK_DATA))
    import nltk

    if str(NLTK_DATA) not in nltk.data.path:
        nltk.data.path.insert(0, str(NLTK_DATA))

needs_nltk = pytest.mark.skipif(not (NLTK_DATA / "corpora" / "wordnet").is_dir(),
                                reason=f"nltk data not found at {NLTK_DATA}")
needs_parity = pytest.mark.skipif(not (PARITY / "official_eval_1.txt").is_file() or not DEV.is_file(),
                                  reason=f"parity fixture not found under {SHARED}")

_ROW = re.compile(r"^(.*:)\s*(\S+)$")


def parse_official(text):
    """``(name, value)`` rows of the official script's printout, in order (lines without a
    number, such as headers and rulers, are skipped)."""
    rows = []
    for line in text.splitlines():
        m = _ROW.match(line)
        if m:
            rows.append((m.group(1), float(m.group(2))))
    return rows


@pytest.fixture(scope="module")
def parity_inputs():
    preds = json.loads((PARITY / "predictions_1.json").read_text())
    gold = json.loads(DEV.read_text())
    return preds, gold


@pytest.fixture(scope="module")
def parity_report(parity_inputs):
    preds, gold = parity_inputs
    return evaluate_averitec(preds, gold, edition="2024")


# ----------------------------------------------------------------------------- parity


@needs_nltk
@needs_parity
def test_every_official_number_matches_to_1e9(parity_report):
    official = parse_official((PARITY / "official_eval_1.txt").read_text())
    ours = parity_report.official_rows()
    assert len(official) == 31  # 2 HU-meteor, 4 F1 + macro + acc, justification, 2 x 6 levels, 2 x 5 types
    assert [n for n, _ in ours] == [n for n, _ in official]
    for (name, want), (_, got) in zip(official, ours):
        assert got is not None, name
        assert abs(got - want) <= 1e-9, (name, got, want)


@needs_nltk
@needs_parity
def test_printed_table_has_the_official_names_layout_and_numbers(parity_report):
    official_text = (PARITY / "official_eval_1.txt").read_text().splitlines()
    ours = format_official_table(parity_report).splitlines()
    assert len(ours) == len(official_text)  # stdout is the official table line for line; notes go to stderr
    for want, got in zip(official_text, ours):
        mw, mg = _ROW.match(want), _ROW.match(got)
        if mw is None:
            assert got == want  # headers and rulers verbatim
        else:
            assert mg is not None and mg.group(1) == mw.group(1)
            assert got.index(mg.group(2)) == want.index(mw.group(2))  # same column
            assert abs(float(mg.group(2)) - float(mw.group(2))) <= 1e-9
    assert table_notes(parity_report)[0].startswith("claims: 500 joined; failed: none")


@needs_nltk
@needs_parity
def test_parity_report_status_counts(parity_report):
    r = parity_report
    assert r.n_claims == 500 and r.n_failed == {} and r.failed_ids == {}
    assert r.formats == {"averitec": 500}
    assert r.n_scored == {"question_only": 500, "question_answer": 500, "justification": 500,
                          "averitec_justification": 500}
    assert r.n_capped == sum("capped" in c.notes for c in r.claims) > 0
    assert r.n_justification_from_evidence == 500 - 153  # 153 predictions carry a justification
    assert r.accuracy == 0.678 and r.f1_undefined_classes == []
    # the by-type block is the thresholded evidence score, not a label accuracy
    ev = [c.qa_score for c in r.claims if "Position Statement" in c.claim_types]
    assert r.by_type[0.2]["Position Statement"] == pytest.approx(sum(e if e > 0.2 else 0 for e in ev) / len(ev),
                                                                  abs=1e-12)
    assert r.type_counts == {"Event/Property Claim": 307, "Position Statement": 29, "Causal Claim": 54,
                             "Numerical Claim": 119, "Quote Verification": 69}


@needs_nltk
@needs_parity
def test_fast_meteor_equals_nltk_on_fixture_pairs(parity_inputs):
    from nltk.corpus import wordnet
    from nltk.translate.meteor_score import single_meteor_score

    from claimalign.meteor_fast import _stem, single_meteor, synonyms, tokenize

    preds, gold = parity_inputs
    from ev2r.shared_task.averitec2024 import join_claims, prepare_gold

    pairs = join_claims(prepare_predictions(preds), prepare_gold(gold))[:40]
    work = set()
    for p, g in pairs:
        for ps, rs in ((p.qa_strings[:10], g.qa_strings), (p.q_strings[:10], g.q_strings)):
            work.update((tokenize(r), tokenize(h)) for h in ps for r in rs)
        work.add((tokenize(g.justification), tokenize(p.justification_text)))
    assert len(work) > 500
    for r, h in work:
        assert single_meteor(r, h) == single_meteor_score(list(r), list(h)), (r, h)
    words = {_stem(w.lower()) for r, h in work for w in r + h}
    for w in sorted(words)[:1500]:
        assert synonyms(w) == {lem.name() for s in wordnet.synsets(w) for lem in s.lemmas()}, w


# ----------------------------------------------------------------------------- hand-computed

# nonsense tokens: no stem or WordNet synonym links between them
GOLD = [
    {"claim": "c0", "label": "Supported", "justification": "zqx wvy", "claim_types": ["Numerical Claim"],
     "questions": [{"question": "zqx wvy kfp", "answers": [{"answer": "plm", "answer_type": "Extractive"}]}]},
    {"claim": "c1", "label": "Refuted", "justification": "tnv brq",
     "claim_types": ["Numerical Claim", "Causal Claim"],
     "questions": [{"question": "brq tnv", "answers": {"answer": "hjd", "answer_type": "Abstractive"}},
                   {"question": "xcv mnb", "answers": [{"answer": "lkj", "answer_type": "Extractive"}]}]},
    {"claim": "c2", "label": "Not Enough Evidence", "justification": "abc", "claim_types": ["Causal Claim"],
     "questions": []},
]
PREDS = [
    {"claim_id": 1, "claim": "c1", "pred_label": "Supported",  # 2024 submission format, no justification
     "evidence": [{"question": "brq tnv", "answer": "hjd"}, {"question": "pwo", "answer": "qqq"}]},
    {"claim_id": 0, "claim": "c0", "label": "Supported", "justification": "zqx wvy",
     "questions": [{"question": "zqx wvy kfp", "answers": [{"answer": "plm", "answer_type": "Extractive"}]}]},
    {"claim_id": 2, "label": "Not Enough Evidence"},  # no evidence at all
]


def meteor_identical(n):
    """nltk METEOR of a string against itself, n tokens: P = R = 1, one chunk."""
    return 1 - 0.5 * (1 / n) ** 3


@needs_nltk
def test_hand_computed_table():
    r = evaluate_averitec(PREDS, GOLD)
    c0, c1, c2 = r.claims  # gold order
    assert [c.claim_id for c in r.claims] == [0, 1, 2]
    assert c0.q_score == pytest.approx(meteor_identical(3), abs=1e-12)
    assert c0.qa_score == pytest.approx(meteor_identical(4), abs=1e-12)
    assert c0.justification_score == pytest.approx(meteor_identical(2), abs=1e-12)
    # claim 1: one of two gold questions matched exactly, the other prediction unrelated
    assert c1.format == "submission-2024" and c1.n_reference_qa == 2
    assert c1.q_score == pytest.approx(meteor_identical(2) / 2, abs=1e-12)
    assert c1.qa_score == pytest.approx(meteor_identical(3) / 2, abs=1e-12)
    # justification fallback "brq tnv hjd pwo qqq" vs "tnv brq": 2 matches, P 2/5, R 1, 2 chunks
    p, rec = 2 / 5, 1.0
    fmean = p * rec / (0.9 * p + 0.1 * rec)
    assert c1.justification_score == pytest.approx((1 - 0.5 * 1.0 ** 3) * fmean, abs=1e-12)
    assert "justification_from_evidence" in c1.notes
    # claim 2: no gold questions -> failed, not 0; its empty justification fallback scores 0
    assert c2.status == "failed" and c2.failures == ("no_reference_evidence", "no_reference_questions")
    assert c2.q_score is None and c2.qa_score is None and c2.averitec is None
    assert c2.justification_score == 0.0 and "no_predicted_evidence" in c2.notes
    assert r.n_failed == {"no_reference_evidence": 1, "no_reference_questions": 1}
    assert r.failed_ids == {"no_reference_evidence": [2], "no_reference_questions": [2]}

    assert r.question_only == pytest.approx((c0.q_score + c1.q_score) / 2, abs=1e-12)
    assert r.question_answer == pytest.approx((c0.qa_score + c1.qa_score) / 2, abs=1e-12)
    assert r.n_scored["question_answer"] == 2 and r.n_scored["justification"] == 3
    # labels: gold S, R, NEE; predicted S, S, NEE
    assert r.veracity_f1 == pytest.approx({"Supported": 2 / 3, "Refuted": 0.0, "Not Enough Evidence": 1.0,
                                           "Conflicting Evidence/Cherrypicking": 0.0})
    assert r.macro_f1 == pytest.approx((2 / 3 + 1) / 4) and r.accuracy == pytest.approx(2 / 3)
    assert r.f1_undefined_classes == ["Conflicting Evidence/Cherrypicking"]
    assert r.justification == pytest.approx((c0.justification_score + c1.justification_score) / 3, abs=1e-12)
    # Averitec @ level over the 2 claims with an evidence score: claim 0 right, claim 1 wrong
    assert r.averitec_veracity == {lv: 0.5 for lv in AVERITEC_LEVELS}
    e1 = c1.qa_score  # 0.4907...: above 0.1 .. 0.4, not above 0.5
    assert 0.4 < e1 < 0.5
    for lv in AVERITEC_LEVELS:
        want = (c0.justification_score + (c1.justification_score if e1 > lv else 0.0)) / 2
        assert r.averitec_justification[lv] == pytest.approx(want, abs=1e-12)
    assert r.by_type[0.2] == pytest.approx({"Numerical Claim": (c0.qa_score + e1) / 2, "Causal Claim": e1})
    assert r.type_counts == {"Numerical Claim": 2, "Causal Claim": 2}


@needs_nltk
def test_gold_without_justification_fails_only_the_justification_means():
    gold = copy.deepcopy(GOLD)
    del gold[0]["justification"]
    r = evaluate_averitec(PREDS, gold)
    c0 = r.claims[0]
    assert c0.failures == ("no_reference_justification",) and c0.justification_score is None
    assert c0.qa_score is not None and r.n_scored["justification"] == 2
    assert r.n_scored["averitec_justification"] == 1  # claim 1 only (claim 2 has no evidence score)
    assert r.averitec_veracity == {lv: 0.5 for lv in AVERITEC_LEVELS}  # claim 0 still counts here
    assert r.failed_ids["no_reference_justification"] == [0]


def test_levels_are_strict():
    assert averitec_contribution(0.25, True, 0.25) == 0.0
    assert averitec_contribution(0.2500001, True, 0.25) == 1.0
    assert averitec_contribution(0.9, False, 0.25) == 0.0
    assert thresholded_evidence(0.3, 0.3) == 0.0
    assert thresholded_evidence(0.31, 0.3) == 0.31


@needs_nltk
def test_ten_pair_cap_and_2024_format_strings():
    gold = [{"claim": "c", "label": "Refuted", "justification": "j", "claim_types": [],
             "questions": [{"question": "q0", "answers": [{"answer": "a0"}]}]}]
    ev = [{"question": f"x{k}", "answer": f"y{k}"} for k in range(11)] + [{"question": "q0", "answer": "a0"}]
    r = evaluate_averitec([{"claim_id": 0, "pred_label": "Refuted", "evidence": ev}], gold)
    c = r.claims[0]
    assert c.n_predicted_qa == 12 and "capped" in c.notes and r.n_capped == 1
    assert c.qa_score == 0.0 and c.q_score == 0.0  # the matching 12th pair is past the cap
    ev = [{"question": "q0", "answer": None}, {"question": "q0", "answer": "a0"}]
    p = prepare_predictions([{"claim_id": 0, "pred_label": "Refuted", "evidence": ev}])[0]
    assert p.qa_strings == ("q0 a0",) and p.q_strings == ("q0", "q0")  # null answers drop from q+a only
    p = prepare_predictions([{"claim_id": 0, "label": "Refuted", "string_evidence": ["s1", "s2"],
                              "questions": [{"question": "q", "answers": []}]}])[0]
    assert p.qa_strings == ("q No answer could be found.", "s1", "s2") and p.q_strings == ("q",)


# ----------------------------------------------------------------------------- bad input


def test_bad_labels_name_field_and_allowed_values():
    with pytest.raises(AveritecInputError, match=r"predictions\[0\].*'pred_label' is 'True'.*'Supported'"):
        prepare_predictions([{"claim_id": 0, "pred_label": "True", "evidence": []}])
    with pytest.raises(AveritecInputError, match="no predicted verdict.*'pred_label'.*'label'"):
        prepare_predictions([{"claim_id": 0, "evidence": []}])
    with pytest.raises(AveritecInputError, match="disagree"):
        prepare_predictions([{"claim_id": 0, "pred_label": "Refuted", "label": "Supported"}])
    with pytest.raises(AveritecInputError, match=r"evidence\[0\]"):
        prepare_predictions([{"claim_id": 0, "pred_label": "Refuted", "evidence": ["text"]}])
    with pytest.raises(ValueError, match="edition"):
        evaluate_averitec(PREDS, GOLD, edition="2023")
    bad_gold = copy.deepcopy(GOLD)
    bad_gold[1]["label"] = "refuted"
    with pytest.raises(AveritecInputError, match=r"references\[1\].*'label'.*allowed values"):
        evaluate_averitec(PREDS, bad_gold)


@pytest.mark.parametrize("preds, cause, ids", [
    (PREDS + [dict(PREDS[0])], "duplicate_claim_id", [1]),
    (PREDS[:2], "missing_prediction", [2]),
    (PREDS + [{"claim_id": 7, "label": "Refuted"}], "unknown_claim_id", [7]),
    ([dict(PREDS[0], claim="another claim")] + PREDS[1:], "claim_mismatch", [1]),
    ([{k: v for k, v in PREDS[0].items() if k != "claim_id"}] + PREDS[1:], "missing_claim_id", [0]),
])
def test_bad_joins_are_refused_naming_the_ids(preds, cause, ids):
    with pytest.raises(JoinError) as info:
        evaluate_averitec(preds, GOLD)
    assert info.value.problems[cause] == ids
    assert "do not join the gold file one-to-one" in str(info.value)


def test_null_is_not_absent_for_evidence_fields():
    # the one AVeriTeC prediction reader (ev2r.io.averitec) refuses null evidence fields; a null answer is accepted
    for row, match in [({"claim_id": 0, "pred_label": "Refuted", "evidence": None}, "'evidence' must be a list"),
                       ({"claim_id": 0, "label": "Refuted", "questions": None}, "'questions' must be a list"),
                       ({"claim_id": 0, "label": "Refuted", "string_evidence": None}, "'string_evidence' must be"),
                       ({"claim_id": 0, "pred_label": "Refuted", "evidence": [], "questions": []}, "give one")]:
        with pytest.raises(AveritecInputError, match=match):
            prepare_predictions([row])


def test_read_as_the_official_scorer_reads():
    # the organisers' 2024 baseline writes string_evidence beside evidence: Q+A strings gain them, Q strings
    # come from evidence; a question without answers reads "No answer could be found."; one answer object = a list
    (p,) = prepare_predictions([{"claim_id": 0, "pred_label": "Refuted", "evidence": [{"question": "q", "answer": "a"}],
                                 "string_evidence": ["s"]}])
    assert (p.qa_strings, p.q_strings) == (("q a", "s"), ("q",))
    (p,) = prepare_predictions([{"claim_id": 0, "label": "Refuted", "questions": [{"question": "q"}]}])
    assert p.qa_strings == ("q No answer could be found.",) and p.q_strings == ("q",)
    (p,) = prepare_predictions([{"claim_id": 0, "label": "Refuted",
                                 "questions": [{"question": "q", "answers": {"answer": "a"}}]}])
    assert p.qa_strings == ("q a",)
    gold = [dict(g, id=f"x{k}") for k, g in enumerate(GOLD)]
    with pytest.raises(AveritecInputError, match=r"references: gold records \[0, 1, 2\] have an 'id'"):
        evaluate_averitec(PREDS, gold)


def test_position_join_needs_equal_lengths():
    with pytest.raises(JoinError) as info:
        evaluate_averitec(PREDS[:2], GOLD, join="position")
    assert info.value.problems == {"length_mismatch": [2, 3]}


@needs_nltk
def test_inputs_are_not_modified():
    preds, gold = copy.deepcopy(PREDS), copy.deepcopy(GOLD)
    evaluate_averitec(preds, gold)
    assert preds == PREDS and gold == GOLD
    assert isinstance(gold[1]["questions"][0]["answers"], dict)  # the official script would make it a list


# ----------------------------------------------------------------------------- CLI


def _write(tmp_path, name, rows):
    path = tmp_path / name
    path.write_text(json.dumps(rows))
    return str(path)


@needs_nltk
def test_cli_json_and_per_claim_rows(tmp_path, capsys):
    pred, gold = _write(tmp_path, "p.json", PREDS), _write(tmp_path, "g.json", GOLD)
    out = tmp_path / "claims.jsonl"
    code = main(["averitec", pred, "--references", gold, "--edition", "2024", "--json", "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    summary = json.loads(captured.out)
    assert summary["n_failed"] == {"no_reference_evidence": 1, "no_reference_questions": 1}
    assert summary["max_questions"] == 10
    assert summary["averitec_veracity"]["0.25"] == 0.5 and set(summary["veracity_f1"]) == set(VERDICTS)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["claim_id"] for r in rows] == [0, 1, 2]
    assert [r["status"] for r in rows] == ["ok", "ok", "failed"]
    assert rows[2]["failures"] == ["no_reference_evidence", "no_reference_questions"]
    assert rows[2]["qa_score"] is None


def test_cli_refuses_bad_join_with_exit_2(tmp_path, capsys):
    pred = _write(tmp_path, "p.json", PREDS + [{"claim_id": 9, "label": "Refuted"}])
    gold = _write(tmp_path, "g.json", GOLD)
    code = main(["averitec", pred, "--references", gold])
    err = capsys.readouterr().err
    assert code == 2
    assert "claim_id not in the gold file (gold ids are positions 0..2): [9]" in err


def test_cli_bad_label_exit_2(tmp_path, capsys):
    pred = _write(tmp_path, "p.json", [dict(PREDS[0], pred_label="SUPPORTS")] + PREDS[1:])
    code = main(["averitec", pred, "--references", _write(tmp_path, "g.json", GOLD)])
    assert code == 2 and "'pred_label' is 'SUPPORTS'; allowed values" in capsys.readouterr().err


@needs_nltk
@needs_parity
def test_cli_on_parity_fixture_prints_official_table(capsys):
    code = main(["averitec", str(PARITY / "predictions_1.json"), "--references", str(DEV)])
    out = capsys.readouterr().out
    assert code == 0
    want = parse_official((PARITY / "official_eval_1.txt").read_text())
    got = parse_official(out)[:len(want)]
    assert [n for n, _ in got] == [n for n, _ in want]
    assert max(abs(a - b) for (_, a), (_, b) in zip(got, want)) <= 1e-9


# ------------------------------------------------ subset (--subset: only the gold claims with a prediction, marked)


@needs_nltk
def test_subset_scores_only_the_predicted_claims_and_says_so():
    preds = [p for p in PREDS if p["claim_id"] in (0, 1)]
    with pytest.raises(JoinError, match="gold claims without a prediction: \\[2\\]"):
        evaluate_averitec(preds, GOLD)
    r = evaluate_averitec(preds, GOLD, subset=True)
    assert r.subset is True and r.n_claims == 2 and r.n_gold_claims == 3
    full = evaluate_averitec(PREDS, GOLD)
    assert full.subset is False and full.n_gold_claims == 3
    # the same per-claim numbers as in the full table
    for a, b in zip(r.claims, full.claims[:2]):
        assert (a.claim_id, a.q_score, a.qa_score, a.justification_score) == \
            (b.claim_id, b.q_score, b.qa_score, b.justification_score)
    d = r.to_dict()
    assert d["subset"] is True and d["n_gold_claims"] == 3 and "not the official" in d["subset_note"]
    assert "subset_note" not in full.to_dict() and full.to_dict()["subset"] is False
    table = format_official_table(r).splitlines()
    assert table[0].startswith("SUBSET: 2 of 3 gold claims scored") and "NOT the official" in table[0]
    assert table[-1].startswith("SUBSET of 2/3 gold claims")
    assert format_official_table(full).splitlines()[0] == "AVeriTeC evaluation:"
    # --subset with every gold claim predicted is the official table, unmarked
    assert evaluate_averitec(PREDS, GOLD, subset=True).subset is False
    with pytest.raises(ValueError, match="claim_id only"):
        evaluate_averitec(preds, GOLD, subset=True, join="position")
