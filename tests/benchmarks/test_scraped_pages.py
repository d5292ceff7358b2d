"""benchmarks/agreement/scraped_pages.py: the survey of scraped-page answers, the before/after comparison from
score files and the two-set verdict (no model). The script is loaded from its path."""

import json

import pytest

from ev2r.io.readers import item_hash, items_from_rows, read_items
from support.modules import load_file_module
from support.paths import REPO

MENU = "Home | News | Sport | Business | Climate | Contact us"


@pytest.fixture(scope="module")
def bench():
    return load_file_module("scraped_pages_bench", REPO / "benchmarks" / "agreement" / "scraped_pages.py")


def _items():
    long_prose = "The ministry denied the report on Monday and said the figures were invented. " * 12  # 948 chars
    answers = [f"{MENU}\n\nThe ministry denied the report on Monday.", long_prose, "Yes.", "It was 1968."]
    rows = [{"id": i, "claim": f"Claim {i}.", "predicted_evidence": f"Question: q{i}?\nAnswer: {a}",
             "reference_evidence": f"Question: r{i}?\nAnswer: The report was denied.", "gold_label": "refuted",
             "human_ratings": {"semantic_coverage": [1, 3, 2, 5][i], "verdict_agreement": [0, 1, 0, 1][i]}}
            for i, a in enumerate(answers)]
    return items_from_rows(rows, "ratings.jsonl")


def test_survey_counts_long_answers_and_boilerplate_units(bench):
    s = bench.survey(_items(), min_chars=800)
    assert (s["rows"], s["predicted_answers"], s["long_answers"], s["long_answer_rows"]) == (4, 4, 1, [1])
    assert s["facts_from_long_off"] == s["facts_from_long_on"] == 12 and s["long_with_boilerplate"] == 0
    assert s["boilerplate_units"] == {"predicted:separators": 1}
    assert s["predicted_facts_off"] - s["predicted_facts_on"] == 1  # the menu is no fact; its sentence is
    assert s["examples"][0]["row"] == 0 and s["examples"][0]["reasons"] == ["separators"]


def test_compare_and_verdict(bench, tmp_path):
    items = _items()

    def rows(ev2r):
        return [{"id": it.source_id, "row": it.row, "recall": ev2r[k], "ev2r": ev2r[k], "proxy": 0.5 + k / 10,
                 "status": "ok", "item_hash": item_hash(it)} for k, it in enumerate(items)]

    before, after = rows([0.1, 0.3, 0.2, 0.4]), rows([0.1, 0.3, 0.2, 0.5])
    r = bench.compare(items, before, after, ("b.jsonl", "a.jsonl"), n_boot=50, seed=0)
    assert r["changed_rows"] == [3]
    c = r["cells"]["ev2r/semantic_coverage"]
    assert c["before"]["spearman"] == pytest.approx(1.0) and c["after"]["spearman"] == pytest.approx(1.0)
    assert c["diff"]["diff"] == pytest.approx(0.0)
    assert bench.verdict({"x": r}) == ("on", [])
    worse = bench.compare(items, before, rows([0.4, 0.3, 0.2, 0.1]), ("b", "a"), n_boot=50, seed=0)
    state, losses = bench.verdict({"86": r, "144": worse})
    assert state == "off" and losses[0].startswith("144: recall/semantic_coverage -")


def test_main_writes_the_table(bench, tmp_path):
    items = _items()
    data = tmp_path / "ratings.jsonl"
    data.write_text("".join(json.dumps({"id": it.source_id, "claim": it.claim,
                                        "predicted_evidence": it.predicted_evidence.render(),
                                        "reference_evidence": it.reference_evidence.render(), "gold_label": "refuted",
                                        "human_ratings": it.extra["human_ratings"]}) + "\n" for it in items))
    items = read_items(data)
    score = [{"id": it.source_id, "row": it.row, "ev2r": [0.1, 0.3, 0.2, 0.4][k], "status": "ok",
              "item_hash": item_hash(it)} for k, it in enumerate(items)]
    scores = tmp_path / "s.jsonl"
    scores.write_text("".join(json.dumps(r) + "\n" for r in score))
    out = tmp_path / "res"
    assert bench.main(["--data", f"d={data}", "--before", f"d={scores}", "--after", f"d={scores}",
                       "--n-boot", "20", "--out", str(out)]) == 0
    md = (tmp_path / "res.md").read_text()
    assert "| ev2r/semantic_coverage | d | +1.000" in md and "**Decision: the test is on by default**" in md
    assert json.loads((tmp_path / "res.json").read_text())["survey"]["d"]["rows"] == len(items)
