"""Nothing silent: every note `ev2r score` prints about rows names the row, the line and the id, and
`--proxy-model` naming the `--model` verifier keeps the default's signature and version."""

import argparse
import json
import re

import pytest

from support.signatures import V1_SIG
from ev2r.cli import score as score_cli
from ev2r.cli.main import build_parser, main
from ev2r.io.errors import InputWarning
from ev2r.metric.proxy import ABSENCE_ON_CLAIM, LONG_CLAIM
from ev2r.io import evidence_from_text
from ev2r.types import CorpusScore, Evidence, Item, ItemScore

ROWS = "rows (from 0; line = the line of the file): "


def _score_parser() -> argparse.ArgumentParser:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["score"]


# -- 1. every note about rows names the row, the line and the id ---------------------------------------------------

def _items(lines):
    return [Item(id=f"i{n}", claim="c", predicted_evidence=evidence_from_text("x"), reference_evidence=Evidence(()),
                 row=n, line=line) for n, line in enumerate(lines)]


def test_flag_notes_name_each_row_by_row_line_and_id(capsys):
    items = _items([1, 3, 4, 6])  # a JSON list file: a row's line is not its row + 1
    scores = [ItemScore(id="i0", row=0, ev2r=0.5),
              ItemScore(id="i1", row=1, ev2r=0.5, error=f"{LONG_CLAIM}: the claim has 105 tokens"),
              ItemScore(id="i2", row=2, ev2r=0.5, error=f"{ABSENCE_ON_CLAIM}: 1 predicted pair(s)"),
              ItemScore(id="i3", row=3, ev2r=0.5, error=f"{LONG_CLAIM}: the claim has 99 tokens; ev2r_hybrid: no encoder")]
    summary = CorpusScore(n=4, n_failed=0, precision=0.2, recall=0.3, f1=0.25, proxy=0.4, ev2r=0.5, signature=V1_SIG)
    score_cli._report_score(argparse.Namespace(json=True, output=None), summary, scores, ["ev2r"], items=items)
    err = capsys.readouterr().err.splitlines()
    long_note = next(line for line in err if f"'{LONG_CLAIM}: ...'" in line)
    assert long_note.endswith(f"(each row's error says '{LONG_CLAIM}: ...'); {ROWS}1 (line 3; id i1), 3 (line 6; id i3)")
    absence = next(line for line in err if f"'{ABSENCE_ON_CLAIM}: ...'" in line)
    assert absence.endswith(f"; {ROWS}2 (line 4; id i2)")
    hybrid = next(line for line in err if "have no ev2r_hybrid" in line)
    assert hybrid.endswith(f"first reason: no encoder; {ROWS}3 (line 6; id i3)")
    assert not any("ids " in line for line in err)  # the old form: "ids 'i1', 'i3'"


def test_no_reference_and_every_failed_name_the_rows(capsys):
    items = _items([2, 3])
    scores = [ItemScore(id="i0", row=0, status="no_reference"), ItemScore(id="i1", row=1, status="error", error="boom")]
    summary = CorpusScore(n=2, n_failed=2, precision=None, recall=None, f1=None, proxy=None, ev2r=None,
                          signature=V1_SIG, failures={"no_reference": 1, "error": 1})
    assert score_cli._report_score(argparse.Namespace(json=True, output=None), summary, scores, ["ev2r"],
                                   items=items) == 1
    err = capsys.readouterr().err
    assert f"pass --references GOLD.json; {ROWS}0 (line 2; id i0)\n" in err
    assert f"every item failed ({{'no_reference': 1, 'error': 1}}); first error ({ROWS}1 (line 3; id i1)): boom" in err


def test_the_language_warning_names_rows_and_lines(tmp_path, capsys, monkeypatch):
    rows = [{"id": "en", "claim": "Paris is the capital of France.", "predicted_evidence": "Q: a?\nA: b",
             "reference_evidence": "x", "gold_label": "supported"},
            {"id": "cs", "claim": "Praha je hlavním městem České republiky a největším městem.",
             "predicted_evidence": "Praha je hlavní město.", "reference_evidence": "Ano, Praha.", "gold_label": "supported"}]
    inp = tmp_path / "in.json"
    inp.write_text(json.dumps(rows, indent=1, ensure_ascii=False))  # a JSON list: row 1 starts on line 9
    monkeypatch.setattr(score_cli, "_score", lambda *a, **k: 0)  # no model: the warning comes before scoring
    with pytest.warns(UserWarning, match=re.escape("(rows (from 0; line = the line of the file): 1 (line 9; id cs): >=")), \
            pytest.warns(InputWarning, match=r"in\.json: 1 row\(s\) where question/answer markers in another layout .*"
                                             r"rows 0 \(line 2; id en, predicted_evidence\)"):  # row en's Q: / A:
        assert main(["score", str(inp), "--no-progress"]) == 0


# -- 3. --proxy-model naming the --model verifier is no separate proxy verifier ---------------------------------------

def _options(*argv):
    return score_cli.scorer_options(_score_parser().parse_args(["in.jsonl", *argv]))


def test_proxy_model_naming_the_model_verifier_keeps_the_default_options():
    from ev2r.verifier.loading import BUNDLED_DIR

    default = _options()
    assert default["proxy_verifier"] is None
    for same in (["--proxy-model", "bundled"], ["--proxy-model", "Bundled"], ["--proxy-model", "ev2r-minilm-nli"],
                 ["--proxy-model", str(BUNDLED_DIR)], ["--model", "default", "--proxy-model", "bundled"]):
        assert _options(*same) == {**default, "verifier": _options(*same)["verifier"]}, same
    fast = _options("--model", "fast")
    assert _options("--model", "fast", "--proxy-model", "fast") == fast and fast["proxy_verifier"] is None
    assert _options("--proxy-model", "averitec")["proxy_verifier"] == "averitec"  # a separate proxy verifier
    assert _options("--model", "fast", "--proxy-model", "bundled")["proxy_verifier"] == "bundled"


def test_proxy_model_naming_the_model_verifier_gives_the_default_signature(tiny_nli_model):
    from ev2r.metric.factory import build_scorer

    def signature(*argv):
        options = _options("--model", str(tiny_nli_model), "--no-hybrid", *argv)
        return str(build_scorer(**{**options, "admission": "none"}).signature())

    plain = signature()
    assert signature("--proxy-model", str(tiny_nli_model)) == plain
    assert signature("--proxy-model", str(tiny_nli_model) + "/") == plain  # the same folder, spelled otherwise
    assert "proxy-verifier" not in plain




def test_baselines_alone_record_no_metric_option():
    """With --scorer hu-meteor alone no metric option is read: the run record holds the defaults, so that an output
    resumes whatever those options were set to (they are warned as ignored)."""
    plain = _options("--scorer", "hu-meteor")
    assert plain["ev2r"] is False and plain["baselines"] == ("hu-meteor",)
    assert _options("--scorer", "hu-meteor", "--alpha", "0.7", "--proxy-model", "averitec", "--no-hybrid",
                    "--model", "fast") == plain
    assert _options("--alpha", "0.7")["alpha"] == 0.7  # with the metric they are read
