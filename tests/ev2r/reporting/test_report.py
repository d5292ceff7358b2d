"""``ev2r report``: the self-contained HTML page of a scored run. The numbers on the page are the
rows' own; evidence text never becomes markup; the page works in a real browser (headless Chromium)."""

from __future__ import annotations

import json
import os
import re
import shutil

import pytest

from ev2r.cli.main import main
from ev2r.io.readers import score_row
from ev2r.labels import Verdict
from ev2r.metric.factory import build_scorer
from ev2r.reporting.html import corpus_means, headline_interval, render_report, report_items
from ev2r.types import Evidence, Item, QAPair


def _items():
    ref = Evidence((QAPair("Who won the race?", "Alice Smith won the race in Paris."),
                    QAPair("When was the race?", "The race took place in June 2019.")))
    pred = Evidence((QAPair("Where was the race?", "The race took place in June 2019."),
                     QAPair("Who won?", "Alice Smith won the race in Paris, ahead of Bob Jones.")))
    other = Evidence((QAPair("What is <script>alert(1)</script>?", "A tag & an ampersand."),))
    return [Item(id="a", claim="Alice Smith won the Paris race.", predicted_evidence=pred, reference_evidence=ref,
                 gold_label=Verdict.SUPPORTED, row=0),
            Item(id="b", claim="Bob <b>Jones</b> won.", predicted_evidence=other, reference_evidence=ref,
                 gold_label=Verdict.REFUTED, row=1)]


@pytest.fixture
def explained(keyword_verifier):
    items = _items()
    scores = build_scorer(verifier=keyword_verifier, baselines=(), hybrid=False).score(items)
    return items, [score_row(it, s, "explain") for it, s in zip(items, scores)]


def test_summary_is_the_rows_own_means_with_the_headline_first(explained):
    items, rows = explained
    means = corpus_means(rows)
    assert means["n"] == 2 and means["n_failed"] == 0
    for k in ("precision", "recall", "f1", "proxy", "ev2r"):
        assert means[k] == pytest.approx((rows[0][k] + rows[1][k]) / 2)
    html = render_report(report_items(rows, items))
    # without ev2r_hybrid the headline falls back to Ev2R, printed first, with its value
    head = re.search(r'<p class="headline" id="headline">(.*?)</p>', html, re.S).group(1)
    assert "<code>ev2r</code>" in head and f"{means['ev2r']:.3f}" in head
    assert html.index('id="headline"') < html.index('id="summary"') < html.index('id="items"')


def test_reasons_are_on_the_page_and_text_is_escaped(explained):
    items, rows = explained
    html = render_report(report_items(rows, items))
    won = next(f for f in rows[0]["reference_facts"] if f["fact"].startswith("Alice"))
    assert won["supported"] and won["decided_by"]["pair_index"] == 1
    section = html[html.index('id="item-0"'):html.index('id="item-1"')]
    assert "supported by predicted pair 1" in section and "Alice Smith won the race in Paris." in section
    assert "reads the verdict most strongly" in section and "Reading:" in section
    assert "The proxy joins the pairs' readings" in section
    # evidence and claims are text, never markup
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "Bob &lt;b&gt;Jones&lt;/b&gt; won." in html and "A tag &amp; an ampersand." in html
    # self-contained: no resource from the network
    assert not re.search(r'(src|href)="(https?:)?//', html)
    assert html.count("<script>") == 1  # the page's own script only


def test_a_contradicted_rewrite_is_shown_with_its_reference_pair(keyword_verifier):
    ref = _items()[0].reference_evidence
    it = Item(id="c", claim="Alice Smith won the Paris race.", gold_label=Verdict.SUPPORTED, row=0, reference_evidence=ref,
              predicted_evidence=Evidence((QAPair("When was the race?", "It is not true that the race took place in June 2019."),)))
    row = score_row(it, build_scorer(verifier=keyword_verifier, baselines=(), hybrid=False).score([it])[0], "explain")
    assert [(c["predicted"], c["reference"], c["contradiction"]) for c in row["contradicted_pairs"]] == [(0, 1, 0.9)]
    html = render_report(report_items([row], [it]))
    section = html[html.index('id="item-0"'):]
    assert "predicted pair 0 &larr; reference pair 1" in section and "are contradicted by it" in section
    assert "The race took place in June 2019." in section


def test_rows_without_items_or_reasons_still_report(explained):
    items, rows = explained
    plain = [{k: v for k, v in r.items() if k not in ("proxy_premises", "proxy_decided_by", "hybrid_alignment")}
             for r in rows]
    html = render_report(report_items(plain))
    assert "score with <code>ev2r score --explain</code>" in html and "<th data-type=\"text\">claim</th>" not in html
    assert html.count('<tr data-item="') == 2


def test_headline_interval_brackets_the_mean_and_is_seeded():
    rows = [{"id": i, "status": "ok", "ev2r": v} for i, v in enumerate([0.1, 0.2, 0.9, 0.4])]
    rows.append({"id": 9, "status": "no_reference", "ev2r": None})
    lo, hi = headline_interval(rows, "ev2r")
    assert lo < 0.4 < hi and (lo, hi) == headline_interval(rows, "ev2r")
    assert headline_interval(rows[:1], "ev2r") is None


@pytest.mark.parametrize("row, needle", [
    ({"status": "ok"}, "row 0 has no field 'id'"),
    ({"id": 1}, "row 0 has no field 'status'"),
    ({"id": 1, "status": "ok", "ev2r": 1.5}, "row 0 field 'ev2r' = 1.5"),
    ({"id": 1, "status": "ok", "proxy": float("nan")}, "field 'proxy' = nan"),
    ([1, 2], "row 0 is a list"),
    # found by trying to break the report: a boolean counted as 1, text and lists, huge integers, bad reasons
    ({"id": 1, "status": "ok", "f1": True}, "field 'f1' = True"),
    ({"id": 1, "status": "ok", "ev2r": "0.5"}, "field 'ev2r' = '0.5'"),
    ({"id": 1, "status": "ok", "ev2r": [0.1]}, "field 'ev2r' = [0.1]"),
    ({"id": 1, "status": "ok", "f1": 10 ** 400}, "field 'f1' = 1000"),
    ({"id": 1, "status": "ok", "row": "abc"}, "field 'row' = 'abc'"),
    ({"id": 1, "status": "ok", "proxy_premises": [], "proxy_decided_by": 0}, None),
    ({"id": 1, "status": "ok", "proxy_premises": [{"entailment": 0.5, "neutral": 0.5, "contradiction": 0.0,
                                                   "premise": "p", "pair_index": 0}], "proxy_decided_by": 99},
     "field 'proxy_decided_by' = 99: expected an integer in [0, 0]"),
    ({"id": 1, "status": "ok", "reference_facts": "x"}, "field 'reference_facts': expected a list of facts"),
    ({"id": 1, "status": "ok", "predicted_facts": [{"fact": "a"}]}, "field 'predicted_facts'[0]: expected an object"),
    ({"id": 1, "status": "ok", "proxy_premises": [], "hybrid_alignment": [{"predicted": 1}]},
     "field 'hybrid_alignment'[0].reference = None"),
    ({"id": 1, "status": "ok", "proxy_premises": [{"neutral": 0.5, "contradiction": 0.0, "premise": "p"}]},
     "field 'proxy_premises'[0].entailment = None"),
    ({"id": 1, "status": "ok", "proxy_premises": [], "contradicted_pairs": {"predicted": 0}},
     "field 'contradicted_pairs': expected a list"),
    ({"id": 1, "status": "ok", "proxy_premises": [], "contradicted_pairs": [{"predicted": 0, "reference": 1, "premise": "p",
                                                                             "entailment": 0.1, "neutral": 0.1}]},
     "field 'contradicted_pairs'[0].contradiction = None"),
])
def test_bad_rows_are_refused_by_name(row, needle):
    if needle is None:  # an explained row without premises: proxy_decided_by is not read
        assert report_items([row], source="s.jsonl")[0].row["proxy_decided_by"] is None
        return
    with pytest.raises(ValueError, match=re.escape(needle)):
        report_items([row], source="s.jsonl")


def test_explained_and_plain_rows_mix_and_an_edited_input_is_not_joined(tmp_path, explained, capsys):
    items, rows = explained
    plain = {k: v for k, v in rows[1].items() if k not in ("proxy_premises", "proxy_decided_by", "hybrid_alignment")}
    plain["reference_facts"] = [{k: v for k, v in f.items() if k != "decided_by"} for f in plain["reference_facts"]]
    html = render_report(report_items([rows[0], plain], items))
    section = html[html.index('id="item-1"'):]
    assert "No reasons in this row" in section and "reads the verdict most strongly" not in section
    # the input edited since scoring: the row is not joined to the new claim (never a claim beside old scores)
    scores, src = tmp_path / "s.jsonl", tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": it.id, "claim": it.claim + (" EDITED" if k == 0 else ""),
                                       "predicted_evidence": it.predicted_evidence.render(),
                                       "reference_evidence": it.reference_evidence.render(),
                                       "gold_label": it.gold_label.value}) + "\n" for k, it in enumerate(items)),
                   encoding="utf-8")
    from ev2r.io.readers import read_items, item_hash

    for r, it in zip(rows, read_items(src)):  # the rows as if scored from the file before the edit
        r["item_hash"] = item_hash(it) if it.id == "b" else "0" * 64
    scores.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "r.html"
    with pytest.warns(Warning, match="1 of 2 rows have no item with the same content"):
        assert main(["report", str(scores), "-o", str(out), "--input", str(src)]) == 0
    assert "EDITED" not in out.read_text(encoding="utf-8")


def test_the_run_record_beside_the_rows_is_an_input_never_an_output(tmp_path, explained, capsys):
    items, rows = explained
    scores = tmp_path / "s.jsonl"
    scores.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    record = tmp_path / "s.jsonl.ev2r-run.json"
    record.write_text(json.dumps({"signature": "ev2r:0.1.0|alpha:0.5"}), encoding="utf-8")
    assert main(["report", str(scores), "-o", str(record)]) == 2
    assert "the run record of SCORES.jsonl" in capsys.readouterr().err
    assert json.loads(record.read_text())["signature"] == "ev2r:0.1.0|alpha:0.5"
    assert main(["rank", f"A={scores}", f"B={scores}", "-o", str(record)]) == 2
    record.write_text("[1, 2]", encoding="utf-8")  # not a run record: named, exit 2
    assert main(["report", str(scores), "-o", str(tmp_path / "r.html")]) == 2
    assert "s.jsonl.ev2r-run.json: not a run record" in capsys.readouterr().err


def test_report_command_writes_the_page_and_refuses_its_input_as_output(tmp_path, explained, capsys):
    items, rows = explained
    scores = tmp_path / "s.jsonl"
    scores.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "r.html"
    assert main(["report", str(scores), "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert main(["report", str(scores), "-o", str(scores)]) == 2
    assert "refusing to overwrite an input" in capsys.readouterr().err
    assert main(["report", str(scores), "-o", str(out), "--references", str(scores)]) == 2


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def _browser_or_skip():
    need = os.environ.get("EV2R_REQUIRE_BROWSER", "0") == "1"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if need:
            raise
        pytest.skip("needs playwright (pip install -e '.[browser]')")
    if not os.path.exists(CHROMIUM):
        if need:
            pytest.fail(f"EV2R_REQUIRE_BROWSER=1 but no chromium at {CHROMIUM} (apt-get install chromium)")
        pytest.skip("needs Debian's chromium (apt-get install chromium)")
    return sync_playwright


#: Flags for a headless Chromium on a machine without a network (no background connections).
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def test_the_page_works_in_headless_chromium(tmp_path, explained):
    sync_playwright = _browser_or_skip()
    items, rows = explained
    page_file = tmp_path / "report.html"
    page_file.write_text(render_report(report_items(rows, items)), encoding="utf-8")
    errors, requests = [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(page_file.as_uri())
        # every item is listed; no drill-down is open before a click
        assert page.locator("#items tbody tr").count() == 2
        assert page.locator("section.item.shown").count() == 0
        # one drill-down opened by clicking its row
        page.locator('#items tbody tr[data-item="0"]').click()
        shown = page.locator("section.item.shown")
        assert shown.count() == 1 and shown.get_attribute("id") == "item-0"
        assert "Reference facts" in shown.inner_text() and "reads the verdict most strongly" in shown.inner_text()
        assert page.locator('#items tbody tr.open').get_attribute("data-item") == "0"
        # sorting by Ev2R (descending on the second click) puts the higher row first
        head = page.locator("#items th", has_text=re.compile(r"^ev2r$"))
        head.click()
        head.click()
        first = page.locator("#items tbody tr").first.get_attribute("data-item")
        assert rows[int(first)]["ev2r"] == max(r["ev2r"] for r in rows)
        assert head.get_attribute("aria-sort") == "descending"
        page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
        browser.close()
    assert errors == []
    assert all(u.startswith(("file:", "data:")) for u in requests), requests
    assert (tmp_path / "report.png").stat().st_size > 10_000


def test_the_proxy_breakdown_gives_back_the_rows_proxy(explained):
    """The page and `ev2r explain` show how the proxy is made (joined readings, P(verdict), relevance); that
    arithmetic must give the row's own proxy (the premises are rounded to 6 decimals in the rows)."""
    from ev2r.reporting.reasons import proxy_breakdown

    items, rows = explained
    for it, row in zip(items, rows):
        b = proxy_breakdown(row, it.gold_label.value, it.claim)
        if row["proxy_premises"]:
            assert b["proxy"] == pytest.approx(row["proxy"], abs=1e-5)
        else:
            assert b is None and row["proxy"] == 0.0


# -- the formulas with the run's alpha and weights; a baseline run under its own headline -------------------------

def _text(html: str) -> str:
    import html as htmllib

    body = re.sub(r"<style>.*?</style>|<script>.*?</script>", "", html, flags=re.S)
    return " ".join(htmllib.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def test_the_report_prints_ev2r_with_the_runs_alpha(keyword_verifier):
    # with --alpha 0.3 the report printed "Ev2R 0.470 = 0.5 x F1 0.400 + 0.5 x proxy 0.500": false arithmetic
    items = _items()
    scorer = build_scorer(verifier=keyword_verifier, baselines=(), hybrid=False, alpha=0.3)
    rows = [score_row(it, s, "explain") for it, s in zip(items, scorer.score(items))]
    text = _text(render_report(report_items(rows, items), {"signature": str(scorer.signature())}))
    for r in rows:
        assert f"Ev2R {r['ev2r']:.3f} = 0.3 × F1 {r['f1']:.3f} + 0.7 × proxy {r['proxy']:.3f}" in text
        assert abs(0.3 * r["f1"] + 0.7 * r["proxy"] - r["ev2r"]) < 1e-9
    assert "0.5 × F1" not in text
    # rows without their run record: the formula in words, never the default's weights
    text = _text(render_report(report_items(rows, items)))
    assert f"Ev2R {rows[0]['ev2r']:.3f} = alpha × F1 {rows[0]['f1']:.3f} + (1 - alpha) × proxy" in text
    assert "alpha not recorded" in text and "0.5 × F1" not in text


def test_the_report_prints_the_hybrid_and_the_summary_with_the_runs_weights(explained):
    items, rows = explained
    rows = [dict(r, ev2r_hybrid=0.25, verified_meteor=0.2) for r in rows]
    sig = "ev2r:1.0.0|alpha:0.4|hybrid:w=recall:0,proxy:0.2,precision:0.1,verified_meteor:0.7"
    text = _text(render_report(report_items(rows, items), {"signature": sig}))
    assert "ev2r_hybrid = 0.2 × proxy + 0.1 × precision + 0.7 × verified_meteor." in text
    assert (f"ev2r_hybrid 0.250 = 0.2 × proxy {rows[0]['proxy']:.3f} + 0.1 × precision {rows[0]['precision']:.3f} "
            "+ 0.7 × verified_meteor 0.200") in text
    assert "Ev2R (0.4 × F1 + 0.6 × proxy; the paper's is 0.5 × F1 + 0.5 × proxy) = " in text
    text = _text(render_report(report_items(rows, items), {"signature": sig.replace("alpha:0.4", "alpha:0.5")}))
    assert "Ev2R (0.5 × F1 + 0.5 × proxy, the paper's) = " in text


def test_a_baseline_run_is_reported_under_its_own_headline():
    # a --scorer hu-meteor run said "ev2r = n/a (12 scored item(s) lack it: see their notes)" with no row noted
    values = [0.436, 0.217, 0.178]
    rows = [{"id": n, "row": n, "precision": None, "recall": None, "f1": None, "proxy": None, "ev2r": None,
             "status": "ok", "error": None, "hu_meteor": v, "hu_meteor_q": 0.3} for n, v in enumerate(values)]
    sig = "ev2r:1.7.0|adm:none|ref:none|verifier:none|proxy:none|extra-hu_meteor:hu-meteor-qa"
    html = render_report(report_items(rows), {"signature": sig})
    head = _text(re.search(r'<p class="headline" id="headline">(.*?)</p>', html, re.S).group(1))
    assert head.startswith(f"Headline: hu_meteor = {sum(values) / 3:.3f} (95% bootstrap interval")
    text = _text(html)
    assert "see their notes" not in text and "Ev2R n/a" not in text and "× F1" not in text
    assert "A low proxy means" not in text
    assert "hu_meteor 0.436" in text  # each item shows the run's own score
    assert re.search(r'<th data-type="num" class="num">hu_meteor</th>', html)  # and the table has it


@pytest.mark.parametrize("errors, says", [
    (["ev2r_hybrid: no encoder", "ev2r_hybrid: no encoder"], "(2 scored item(s) lack it: see their notes)"),
    ([None, "ev2r_hybrid: no encoder"], "(2 scored item(s) lack it: see the notes of 1 of them)"),
    ([None, None], "(2 scored item(s) lack it; their rows give no reason)"),
])
def test_a_headline_the_rows_lack_points_to_notes_only_where_there_are_some(explained, errors, says):
    items, rows = explained
    rows = [dict(r, ev2r_hybrid=None, error=e) for r, e in zip(rows, errors)]
    head = _text(re.search(r'<p class="headline" id="headline">(.*?)</p>',
                           render_report(report_items(rows, items)), re.S).group(1))
    assert head.startswith("Headline: ev2r_hybrid = n/a") and says in head


def test_the_headline_names_the_version_to_cite(explained, nltk_data):
    """The page says under which name its headline is cited: the registered version its run record's signature
    identifies (the default's: ev2r-hybrid/4 as in the README), a custom name for another definition, none without a
    record or for a baseline's headline."""
    from ev2r.reporting.html import headline_version
    from ev2r.versions import latest

    items, rows = explained
    rows = [dict(r, ev2r_hybrid=0.25, verified_meteor=0.2) for r in rows]
    sig = str(build_scorer().signature())  # builds, loads no weights
    label = latest("ev2r-hybrid").label
    assert headline_version("ev2r_hybrid", sig) == label and headline_version("ev2r", sig) == latest("ev2r").label
    head = re.search(r'<p class="headline" id="headline">(.*?)</p>',
                     render_report(report_items(rows, items), {"signature": sig}), re.S).group(1)
    assert f"<code>ev2r_hybrid</code> (<code>{label}</code>, the name to cite) = <b>0.250</b>" in head
    assert "the name to cite" not in _text(render_report(report_items(rows, items)))
    assert headline_version("hu_meteor", sig) is None
    assert headline_version("ev2r", "ev2r:1.0.0|alpha:0.4").startswith("ev2r/custom-")
