"""Reasons: the premise that decided each fact, the proxy's premises, the hybrid's alignment;
``ev2r score --explain`` rows and ``ev2r explain``. The reasons never change a score."""

from __future__ import annotations

import json

import pytest

from ev2r.cli.main import main
from ev2r.labels import Verdict
from ev2r.metric.factory import build_scorer
from ev2r.types import EXPLAIN_FIELDS, Evidence, FactSupport, Item, PremiseReason, QAPair
from support.paths import NLTK_DATA

SCORE_KEYS = ("precision", "recall", "f1", "proxy", "ev2r", "status", "error")


def _items():
    ref = Evidence((QAPair("Who won the race?", "Alice Smith won the race in Paris."),
                    QAPair("When was the race?", "The race took place in June 2019.")))
    pred = Evidence((QAPair("Where was the race?", "The race took place in June 2019."),
                     QAPair("Who won?", "Alice Smith won the race in Paris, ahead of Bob Jones.")))
    return [Item(id="a", claim="Alice Smith won the Paris race.", predicted_evidence=pred,
                 reference_evidence=ref, gold_label=Verdict.SUPPORTED, row=0)]


def test_each_fact_names_the_premise_of_highest_entailment(keyword_verifier):
    (s,) = build_scorer(verifier=keyword_verifier, baselines=(), hybrid=False).score(_items())
    for f in s.reference_facts + s.predicted_facts:
        r = f.decided_by
        assert isinstance(r, PremiseReason) and r.n_checked >= 1 and r.n_premises >= r.n_checked
        assert r.entailment == pytest.approx(f.probability)
        assert abs(r.entailment + r.neutral + r.contradiction - 1) < 1e-5
    # the reference fact "Alice Smith won the race in Paris." is entailed by the predicted pair 1 only
    won = next(f for f in s.reference_facts if f.fact.startswith("Alice"))
    assert won.supported and won.decided_by.side == "predicted" and won.decided_by.pair_index == 1
    assert won.decided_by.premise.endswith("Alice Smith won the race in Paris, ahead of Bob Jones.")
    june = next(f for f in s.predicted_facts if "June" in f.fact)
    assert june.decided_by.side == "reference" and june.decided_by.pair_index == 1
    # the proxy: both predicted pairs read, the one of highest P(entailment) decides a Supported claim
    assert [p.pair_index for p in s.proxy_premises] == [0, 1] and s.proxy_decided_by == 1


def test_reasons_never_change_a_score_and_appear_only_when_asked(keyword_verifier):
    scorer = build_scorer(verifier=keyword_verifier, baselines=(), hybrid=False)
    (s,) = scorer.score(_items())
    plain, explained = s.to_dict(), s.to_dict(explain=True)
    assert {k: plain[k] for k in SCORE_KEYS} == {k: explained[k] for k in SCORE_KEYS}
    assert not set(EXPLAIN_FIELDS) & set(plain) and set(EXPLAIN_FIELDS) <= set(explained)
    assert all("decided_by" not in f for f in plain["predicted_facts"] + plain["reference_facts"])
    assert all("decided_by" in f for f in explained["predicted_facts"])
    # a row read back is the same support (the resume path)
    back = FactSupport.from_dict(explained["reference_facts"][0])
    assert back == s.reference_facts[0]


def test_score_explain_rows_resume_and_keep_the_scores(tmp_path, capsys, tiny_nli_model):
    import os

    if not os.path.isdir(NLTK_DATA):
        pytest.skip("needs ../shared/data/nltk_data")
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": it.id, "claim": it.claim, "predicted_evidence": it.predicted_evidence.render(),
                                       "reference_evidence": it.reference_evidence.render(), "gold_label": "supported"}) + "\n"
                           for it in _items()), encoding="utf-8")
    plain, explained = tmp_path / "p.jsonl", tmp_path / "e.jsonl"
    common = ["score", str(src), "--model", str(tiny_nli_model), "--no-progress", "--nltk-data", str(NLTK_DATA)]
    assert main(common + ["-o", str(plain)]) == 0
    assert main(common + ["-o", str(explained), "--explain"]) == 0
    p, e = (json.loads(x.read_text().splitlines()[0]) for x in (plain, explained))
    for k in ("precision", "recall", "f1", "proxy", "ev2r", "ev2r_hybrid", "hybrid_meteor", "verified_meteor"):
        assert p[k] == e[k], k  # bit for bit
    assert {"proxy_premises", "proxy_decided_by", "hybrid_alignment"} <= set(e) and "proxy_premises" not in p
    assert all(a["predicted"] in (0, 1) and a["reference"] in (0, 1) and 0 <= a["meteor"] <= 1 for a in e["hybrid_alignment"])
    capsys.readouterr()
    assert main(common + ["-o", str(explained), "--explain"]) == 0
    assert "0 item(s) scored, 1 resumed" in capsys.readouterr().err
    assert main(common + ["-o", str(explained)]) == 2  # written with --explain: no silent mix
    assert "with --explain" in capsys.readouterr().err


def test_explain_command_prints_the_reasons_and_names_an_unknown_id(tmp_path, capsys, tiny_nli_model):
    src = tmp_path / "in.jsonl"
    it = _items()[0]
    src.write_text(json.dumps({"id": 7, "claim": it.claim, "predicted_evidence": it.predicted_evidence.render(),
                               "reference_evidence": it.reference_evidence.render(), "gold_label": "supported"}) + "\n",
                   encoding="utf-8")
    assert main(["explain", str(src), "--id", "7", "--model", str(tiny_nli_model), "--nltk-data", str(NLTK_DATA)]) == 0
    out = capsys.readouterr().out
    for text in ("claim: Alice Smith won the Paris race.", "Reference facts", "Predicted facts", "Proxy",
                 "predicted pair 1", "Reading:", "signature: ev2r:"):
        assert text in out, text
    assert main(["explain", str(src), "--id", "7", "--json", "--model", str(tiny_nli_model)]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["id"] == 7 and "proxy_premises" in row and "decided_by" in row["reference_facts"][0]
    assert main(["explain", str(src), "--id", "8", "--model", str(tiny_nli_model)]) == 2
    assert "--id '8': no row of" in capsys.readouterr().err and "ids: 7" in capsys.readouterr().err + "ids: 7"


def test_explain_reads_the_runs_own_row_with_scores(tmp_path, capsys, tiny_nli_model):
    """--scores shows the run's row as written (a value only the file holds is shown, not recomputed)."""
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": it.id, "claim": it.claim, "predicted_evidence": it.predicted_evidence.render(),
                                       "reference_evidence": it.reference_evidence.render(), "gold_label": "supported"}) + "\n"
                           for it in _items()), encoding="utf-8")
    scores = tmp_path / "s.jsonl"
    assert main(["score", str(src), "--model", str(tiny_nli_model), "--no-progress", "--no-hybrid", "--explain",
                 "-o", str(scores)]) == 0
    row = json.loads(scores.read_text().splitlines()[0])
    row["proxy"] = 0.123456  # a value only the file holds: shown as it is, not recomputed
    scores.write_text(json.dumps(row) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["explain", str(src), "--id", "a", "--scores", str(scores), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["proxy"] == 0.123456
    plain = tmp_path / "p.jsonl"
    plain.write_text(json.dumps({k: v for k, v in row.items() if k != "proxy_premises"}) + "\n", encoding="utf-8")
    assert main(["explain", str(src), "--id", "a", "--scores", str(plain)]) == 2
    assert "written without --explain" in capsys.readouterr().err


def test_a_contradicted_rewrite_is_explained_as_one(keyword_verifier):
    from ev2r.cli.explain import render
    from ev2r.io.readers import score_row

    q, gold = "Did Amazon remove Parler?", "Amazon Web Services stopped hosting Parler on January 10, 2021."
    negated = QAPair(q, "It is not true that Amazon Web Services stopped hosting Parler on January 10, 2021.")
    it = Item(id="n", claim="Amazon suspended Parler from its web hosting service on January 10, 2021.",
              predicted_evidence=Evidence((QAPair("When?", "Parler went offline on January 10, 2021."), negated)),
              reference_evidence=Evidence((QAPair(q, gold),)), gold_label=Verdict.SUPPORTED, row=0)
    (s,) = build_scorer(verifier=keyword_verifier, baselines=(), hybrid=False).score([it])
    row = score_row(it, s, "explain")
    assert [c["predicted"] for c in row["contradicted_pairs"]] == [1]
    text = render(it, row, 200)
    assert "its predicted pair 1 rewrites reference pair 0, which contradicts it" in text
    assert "premise pruning" not in text
    assert "not read: predicted pair 1 (contradicted rewrite of the reference)" in text
    assert "predicted pair 1 rewrites reference evidence that contradicts it" in text  # the Reading line


def test_explain_takes_the_score_options(tmp_path, capsys, tiny_nli_model):
    src = tmp_path / "in.jsonl"
    it = _items()[0]
    src.write_text(json.dumps({"id": 7, "claim": it.claim, "predicted_evidence": it.predicted_evidence.render(),
                               "reference_evidence": it.reference_evidence.render(), "gold_label": "supported"}) + "\n",
                   encoding="utf-8")
    sigs = {}
    for flags in ((), ("--alpha", "0.3")):
        assert main(["explain", str(src), "--id", "7", "--model", str(tiny_nli_model), *flags]) == 0
        sigs[flags] = capsys.readouterr().out.rsplit("signature: ", 1)[1]
    assert "+contra" in sigs[()] and "+contra" in sigs[("--alpha", "0.3")]  # the veto is always on (2.0)
    assert "alpha:0.5" in sigs[()] and "alpha:0.3" in sigs[("--alpha", "0.3")]
    # the options ev2r score lost in 2.0 are explain's no more: refused, naming why
    assert main(["explain", str(src), "--id", "7", "--no-contradiction"]) == 2
    assert "--no-contradiction: left in 2.0" in capsys.readouterr().err


def test_explain_given_the_scores_file_as_input_names_the_file_it_needs(tmp_path, capsys, monkeypatch):
    """Given the scores file, `ev2r explain SCORES --id ID` names the input file it needs (it once said "field
    'claim' must be a non-empty string, got None")."""
    import ev2r.metric.factory as api

    monkeypatch.setattr(api, "get_verifier", lambda *a, **k: pytest.fail("a verifier was loaded"))
    explained = tmp_path / "s.jsonl"
    explained.write_text(json.dumps({"id": "a", "row": 0, "status": "ok", "ev2r": 0.5, "proxy_premises": [],
                                     "item_hash": "0" * 64}) + "\n", encoding="utf-8")
    assert main(["explain", str(explained), "--id", "a"]) == 2
    err = capsys.readouterr().err
    assert "holds the rows `ev2r score` wrote" in err and "give the input that was scored as INPUT" in err
    assert f"--scores {explained}" in err and "'claim' must be" not in err
    plain = tmp_path / "p.jsonl"
    plain.write_text(json.dumps({"id": "a", "row": 0, "status": "ok", "item_hash": "0" * 64}) + "\n", encoding="utf-8")
    assert main(["explain", str(plain), "--id", "a"]) == 2
    assert "written without --explain" in capsys.readouterr().err


# -- the formulas with the run's alpha and weights; help texts that hold --------------------------------------------

EV2R_LINE = r"Ev2R (\d\.\d{3}) = ([\d.]+|alpha) x F1 (\d\.\d{3}) \+ ([\d.]+|\(1 - alpha\)) x proxy (\d\.\d{3})"


def _ev2r_line(out: str):
    import re

    m = re.search(EV2R_LINE, out)
    assert m is not None, out
    return m.groups()


def test_explain_prints_ev2r_with_the_runs_alpha_scored_or_read_from_scores(tmp_path, capsys, tiny_nli_model):
    # with --alpha 0.3 explain and report printed "Ev2R 0.470 = 0.5 x F1 0.400 + 0.5 x proxy 0.500": false arithmetic
    src = tmp_path / "in.jsonl"
    it = _items()[0]
    src.write_text(json.dumps({"id": 7, "claim": it.claim, "predicted_evidence": it.predicted_evidence.render(),
                               "reference_evidence": it.reference_evidence.render(), "gold_label": "supported"}) + "\n",
                   encoding="utf-8")
    scores = tmp_path / "s.jsonl"
    model = ["--model", str(tiny_nli_model)]
    assert main(["score", str(src), *model, "--alpha", "0.3", "--explain", "--no-progress", "-o", str(scores)]) == 0
    row = json.loads(scores.read_text().splitlines()[0])
    capsys.readouterr()
    for argv in (["--alpha", "0.3", *model], ["--scores", str(scores)]):
        assert main(["explain", str(src), "--id", "7", *argv]) == 0
        ev2r, a, f1, b, proxy = _ev2r_line(capsys.readouterr().out)
        assert (a, b) == ("0.3", "0.7"), argv
        assert (ev2r, f1, proxy) == tuple(f"{row[k]:.3f}" for k in ("ev2r", "f1", "proxy"))
        assert abs(0.3 * row["f1"] + 0.7 * row["proxy"] - row["ev2r"]) < 1e-9  # the printed formula is the row's
    # the default alpha prints 0.5; rows without their run record: the formula in words, no weight made up
    assert main(["explain", str(src), "--id", "7", *model]) == 0
    assert _ev2r_line(capsys.readouterr().out)[1::2] == ("0.5", "0.5")
    (tmp_path / "s.jsonl.ev2r-run.json").unlink()
    assert main(["explain", str(src), "--id", "7", "--scores", str(scores)]) == 0
    out = capsys.readouterr().out
    assert _ev2r_line(out)[1::2] == ("alpha", "(1 - alpha)") and "alpha not recorded" in out


def test_explain_prints_the_hybrid_with_the_weights_of_its_signature():
    from ev2r.cli.explain import render
    from ev2r.reporting.reasons import run_weights

    item = _items()[0]
    row = {"id": "a", "status": "ok", "ev2r": 0.43, "f1": 0.4, "proxy": 0.5, "ev2r_hybrid": 0.3,
           "proxy_premises": [], "verified_meteor": 0.2, "precision": 1.0}
    weights = run_weights("ev2r:1.0.0|alpha:0.4|hybrid:w=recall:0,proxy:0.2,precision:0.1,verified_meteor:0.7")
    text = render(item, row, 120, weights)
    assert "Ev2R 0.430 = 0.4 x F1 0.400 + 0.6 x proxy 0.500" in text
    assert "ev2r_hybrid 0.300 = 0.2 x proxy 0.500 + 0.1 x precision 1.000 + 0.7 x verified_meteor 0.200" in text


STALE_HELP = ("third or fourth decimal", "third decimal", "with the other pairs of their batch", "every row holding",
              "with a repeated id")


def test_no_help_text_says_an_item_scored_alone_differs_or_a_repeated_id_shows_every_row():
    # scoring is bit-identical alone or batched and a repeated id is refused when a file is read: help
    # texts that said otherwise are gone, in every command
    import argparse

    from ev2r.cli.main import build_parser

    def full(parser) -> str:  # --help-all where -h shows the common options only (ev2r.cli.helpfmt)
        return " ".join(getattr(parser, "_ev2r_full_help", parser.format_help)().split())

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name, parser in sub.choices.items():
        assert not [s for s in STALE_HELP if s in full(parser)], name
    explain = full(sub.choices["explain"])
    assert "a repeated id is refused" in explain and "bit for bit" in explain
