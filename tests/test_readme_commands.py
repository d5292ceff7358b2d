"""The README's commands after the worked example work as written, and the one warning
the shipped sample prints is the one the README explains.

* the README's ``ev2r report`` line once left out ``--input``, so the page a newcomer opened had ids and numbers but
  no claims. The block after ``<!-- example-command: report -->`` is read here: every ``ev2r`` line parses with the
  CLI's own parser (an option renamed or dropped fails), the ``report`` line reads the rows the ``score`` line
  writes and names the scored file, and run as written (on rows scored with a fake verifier, so no model loads) it
  gives a page with every claim of the sample, which the same command without ``--input`` does not.
* ``examples/averitec_sample.jsonl`` warns once, about row 11 (id 284), whose real AVeriTeC reference question
  runs over two lines; the row stays as AVeriTeC wrote it and the README says why the warning is there.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import shlex

import pytest

from ev2r.cli.main import build_parser, main
from ev2r.io.errors import InputWarning
from ev2r.io.readers import read_items, score_row, write_jsonl
from ev2r.metric.factory import build_scorer
from ev2r.verifier.calibration import UncalibratedWarning
from support.paths import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
SAMPLE = "examples/averitec_sample.jsonl"


def _commands(marker: str) -> dict[str, list[str]]:
    """The ``ev2r ...`` lines of the fenced block after ``<!-- MARKER -->``, by subcommand, split as a shell would."""
    at = README.find(f"<!-- {marker} -->")
    assert at >= 0, f"README.md has no <!-- {marker} --> marker"
    block = re.compile(r"```bash\n(.*?)\n```", re.S).search(README, at)
    assert block and block.start() - at < 40, f"no ```bash block right after <!-- {marker} -->"
    out = {}
    for line in block.group(1).splitlines():
        args = shlex.split(line)
        assert args[0] == "ev2r", f"a line of the block is not an ev2r command: {line!r}"
        out[args[1]] = args[1:]
    return out


def _option(args: list[str], *names: str) -> str:
    at = next(i for i, a in enumerate(args) if a in names)
    return args[at + 1]


def test_readme_report_block_parses_and_chains():
    cmds = _commands("example-command: report")
    assert list(cmds) == ["explain", "score", "report"]
    parsed = {name: build_parser().parse_args(args) for name, args in cmds.items()}  # SystemExit on a bad option
    assert parsed["score"].explain is True and parsed["score"].input == SAMPLE
    # the report reads what the score line wrote, and names the file that was scored
    assert parsed["report"].scores == parsed["score"].output == "sample_scores.jsonl"
    assert parsed["report"].input == SAMPLE and parsed["report"].output == "report.html"
    # explain's id is a row of the sample
    assert parsed["explain"].input == SAMPLE
    ids = [json.loads(line)["id"] for line in (REPO / SAMPLE).read_text(encoding="utf-8").splitlines()]
    assert int(_option(cmds["explain"], "--id")) in ids


def test_readme_report_line_is_the_one_the_report_help_documents():
    """``--input`` is what adds the claims (``ev2r report --help``)."""
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    help_text = " ".join(sub.choices["report"].format_help().split())
    assert "--input ITEMS the file that was scored (JSONL / AVeriTeC JSON): adds each item's claim" in help_text


def _text(page: str) -> str:
    """The page's text: tags dropped, entities read, white space collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_readme_report_command_gives_a_page_with_the_claims(tmp_path, keyword_verifier, capsys):
    """The README's ``ev2r report`` line run as written (its files in a temporary folder) on the sample's rows
    scored with ``--explain``: every item's drill-down gives its claim and gold verdict; without ``--input`` none
    does."""
    with pytest.warns(InputWarning, match="rows 11 "):  # the sample's one warning (test_sample_warns_once_...)
        items = read_items(REPO / SAMPLE)
    with pytest.warns(UncalibratedWarning, match="keyword-fake has no local checkpoint"):
        scorer = build_scorer(verifier=keyword_verifier, baselines=(), hybrid=False)
        scores = scorer.score(items)
    write_jsonl([score_row(it, s, "explain") for it, s in zip(items, scores)], tmp_path / "sample_scores.jsonl")
    args = _commands("example-command: report")["report"]
    local = {"sample_scores.jsonl": str(tmp_path / "sample_scores.jsonl"), "report.html": str(tmp_path / "report.html"),
             SAMPLE: str(REPO / SAMPLE)}
    with pytest.warns(InputWarning, match="rows 11 "):  # --input reads the sample again
        assert main([local.get(a, a) for a in args]) == 0
    page = _text((tmp_path / "report.html").read_text(encoding="utf-8"))
    claims = [" ".join(it.claim.split()) for it in items]
    assert len(claims) == 12 and [c for c in claims if f"Claim: {c} Gold verdict: " not in page] == []
    bare = [a for a in args if a not in ("--input", SAMPLE)]
    assert len(bare) == len(args) - 2
    assert main([local.get(a, a) for a in bare]) == 0
    page = _text((tmp_path / "report.html").read_text(encoding="utf-8"))
    assert "Claim: " not in page and "Gold verdict: " not in page
    assert capsys.readouterr().err.count("ev2r report: 12 items -> ") == 2


def test_sample_warns_once_about_row_11_and_the_readme_says_why():
    raw = (REPO / SAMPLE).read_text(encoding="utf-8").splitlines()
    row = json.loads(raw[11])
    assert row["id"] == 284
    # the real AVeriTeC text: a question that runs over two lines before its Answer: marker
    assert "Question: In the Annual Stats \nCrime Statistics 2019/2020 report are GBVF" in row["reference_evidence"]
    with pytest.warns(InputWarning) as rec:
        read_items(REPO / SAMPLE)
    assert len(rec) == 1, [str(w.message) for w in rec]
    msg = str(rec[0].message)
    assert msg.startswith(f"{REPO / SAMPLE}: 1 row(s) where a question spans several lines before its Answer: marker "
                          "(read as one question): rows 11 (line 12; id 284, reference_evidence)."), msg
    # the README says so right after the command that prints it
    after = README[README.index("<!-- example-command: score -->"):README.index("## A worked example")]
    assert "`InputWarning` is on purpose: row 11 (id 284)" in after and "question over two lines" in after


def test_readme_is_at_most_200_lines():
    assert README.count("\n") <= 200, README.count("\n")
