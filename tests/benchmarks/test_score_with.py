"""benchmarks/agreement/score_with.py: ``ev2r score`` with the research hook's fields set (ev2r 2.0 left them out of
its options), and the benchmark-side readings that replaced removed library options (design_choices' soft support,
correlation's human-target proxy)."""

import json

import pytest

from support.modules import load_file_module
from support.paths import REPO

SAMPLE = REPO / "examples" / "averitec_sample.jsonl"


@pytest.fixture(scope="module")
def sw():
    return load_file_module("score_with", REPO / "benchmarks" / "agreement" / "score_with.py")


def test_fields_are_the_hooks_only(sw):
    assert sw.parse_fields(["hybrid_columns=all", "admission=none", "threshold=0.6"]) == {
        "hybrid_columns": "all", "admission": "none", "threshold": 0.6}
    for bad in ("alpha=0.3", "hybrid_columns", "threshold=high", "premise_top_k=3"):
        with pytest.raises(ValueError, match="expected NAME=VALUE|threshold: expected a number"):
            sw.parse_fields([bad])


def test_all_columns_reach_the_rows_and_the_default_rows_keep_theirs(sw, tmp_path, capsys, monkeypatch,
                                                                    keyword_verifier, nltk_data):
    import ev2r.metric.factory as api

    monkeypatch.setattr(api, "get_verifier", lambda *a, **k: keyword_verifier)
    monkeypatch.setattr(api, "load_admission", lambda spec: None)  # the rules alone: seconds, not a model load
    every, plain = tmp_path / "every.jsonl", tmp_path / "plain.jsonl"
    common = [str(SAMPLE), "--limit", "2", "--no-progress", "--json", "--nltk-data", str(nltk_data)]
    assert sw.main(["hybrid_columns=all", "--", *common, "-o", str(every)]) == 0
    s_every = json.loads(capsys.readouterr().out)
    assert sw.main(["--", *common, "-o", str(plain)]) == 0
    s_plain = json.loads(capsys.readouterr().out)
    rows_every = [json.loads(x) for x in every.read_text().splitlines()]
    rows_plain = [json.loads(x) for x in plain.read_text().splitlines()]
    assert all("hybrid_embedding" in r and "mutual_meteor" in r for r in rows_every)
    assert not any("hybrid_embedding" in r for r in rows_plain)  # a zero-weight column is left out by default
    assert [r["ev2r_hybrid"] for r in rows_every] == [r["ev2r_hybrid"] for r in rows_plain]  # no number changes
    assert s_every["ev2r_hybrid"] == s_plain["ev2r_hybrid"]
    assert sw.main(["alpha=0.3", "--", *common]) == 2
    assert "NAME one of hybrid_columns, admission, threshold" in capsys.readouterr().err


def test_design_choices_soft_reading_by_hand():
    from types import SimpleNamespace as N

    dc = load_file_module("design_choices", REPO / "benchmarks" / "agreement" / "design_choices.py")
    f = lambda p: N(probability=p)  # noqa: E731
    (soft, failed) = dc.soft_reading([N(status="ok", predicted_facts=[f(0.9), f(0.3)], reference_facts=[f(0.6)],
                                        proxy=0.8),
                                      N(status="no_reference", predicted_facts=[], reference_facts=[], proxy=0.5)])
    assert soft.precision == pytest.approx(0.6) and soft.recall == pytest.approx(0.6)
    assert soft.f1 == pytest.approx(0.6) and soft.ev2r == pytest.approx(0.5 * 0.6 + 0.5 * 0.8)
    assert failed.ev2r is None and failed.proxy == 0.5


def test_correlation_human_target_proxy_reads_human_label(keyword_verifier):
    from ev2r.metric.proxy import NLIProxyScorer
    from ev2r.types import Evidence, Item, QAPair

    cor = load_file_module("correlation", REPO / "benchmarks" / "agreement" / "correlation.py")
    pred = Evidence((QAPair("Is Paris the capital of France?", "Paris is the capital of France."),))
    item = Item(id="h", claim="Paris is the capital of France.", predicted_evidence=pred, reference_evidence=pred,
                gold_label="refuted", extra={"human_label": "supported"})
    none = Item(id="n", claim=item.claim, predicted_evidence=pred, reference_evidence=pred, gold_label="refuted")
    proxy = NLIProxyScorer(keyword_verifier)
    gold = [r.proxy for r in proxy.score_proxy([item])]
    supported = [r.proxy for r in proxy.score_proxy([Item(id="s", claim=item.claim, predicted_evidence=pred,
                                                          reference_evidence=pred, gold_label="supported")])]
    assert cor.human_target_proxy(proxy, [item, none]) == [supported[0], None]
    assert supported[0] != gold[0]
