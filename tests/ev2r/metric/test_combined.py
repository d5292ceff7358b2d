"""ev2r_hybrid (ev2r.metric.combined): the weighted mean on hand-computed components, its signature
field, the row / corpus fields, None with a reason when a component is missing."""

import pytest

from claimalign import align_sets
from claimalign.similarity import EditSimilarity
from ev2r.config import DEFAULTS, HYBRID_COMPONENTS, HYBRID_WEIGHTS, ScorerConfig
from ev2r.io.readers import score_row
from ev2r.metric import combined
from ev2r.metric.combined import HybridCombiner, check_weights, hybrid_value, weights_field
from ev2r.metric.factory import build_scorer
from ev2r.metric.scorer import corpus_summary
from ev2r.types import Evidence, Item, ItemScore, QAPair
from support.fakes import KeywordVerifier

W = (0.3, 0.2, 0.3, 0.2, 0.0, 0.0, 0.0)


def test_formula_on_hand_computed_components():
    comps = {"recall": 0.5, "proxy": 1.0, "hybrid_meteor": 0.2, "hybrid_embedding": 0.4}
    value, why = hybrid_value(comps, W)
    assert why is None
    assert value == pytest.approx(0.3 * 0.5 + 0.2 * 1.0 + 0.3 * 0.2 + 0.2 * 0.4)  # 0.49
    assert hybrid_value(comps, (1, 0, 0, 0, 0, 0, 0.0)) == (0.5, None)
    assert hybrid_value({k: 1.0 for k in HYBRID_COMPONENTS}, W)[0] == pytest.approx(1.0)
    assert hybrid_value({k: 0.0 for k in HYBRID_COMPONENTS}, W) == (0.0, None)


def test_missing_component_gives_none_with_reason_never_zero():
    comps = {"recall": 0.5, "proxy": None, "hybrid_meteor": 0.2, "hybrid_embedding": 0.4}
    assert hybrid_value(comps, W) == (None, "proxy is None")
    del comps["proxy"]
    assert hybrid_value(comps, W) == (None, "proxy is None")
    # a component with weight 0 is not needed
    assert hybrid_value(comps, (0.5, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0)) == (pytest.approx(0.35), None)
    value, why = hybrid_value({**comps, "proxy": float("nan")}, W)
    assert value is None and "proxy" in why


def test_weights_are_checked():
    assert check_weights(HYBRID_WEIGHTS) == tuple(float(w) for w in HYBRID_WEIGHTS)
    assert len(HYBRID_WEIGHTS) == len(HYBRID_COMPONENTS)
    with pytest.raises(ValueError, match="sum to 0.9"):
        check_weights((0.3, 0.2, 0.2, 0.2, 0.0, 0.0, 0.0))
    with pytest.raises(ValueError, match="expected 7 numbers"):
        check_weights((0.5, 0.5))
    with pytest.raises(ValueError, match="proxy = -0.1"):
        check_weights((0.6, -0.1, 0.3, 0.2, 0.0, 0.0, 0.0))


def test_signature_field_names_every_weight():
    assert weights_field(W) == "w=recall:0.3,proxy:0.2,hybrid_meteor:0.3,hybrid_embedding:0.2,precision:0,verified_meteor:0,mutual_meteor:0"
    fields = HybridCombiner(W).signature_fields()
    assert fields == {"hybrid": "w=recall:0.3,proxy:0.2,hybrid_meteor:0.3,hybrid_embedding:0.2,precision:0,verified_meteor:0,mutual_meteor:0",
                      "hybrid-emb": "all-MiniLM-L6-v2", "hybrid-meteor": "fuzzy-v1"}  # the only METEOR since 2.0


# -- in the scorer -------------------------------------------------------------------------------
class EditCombiner(HybridCombiner):
    """The real combiner with the cheap edit similarity in place of the MiniLM encoder (no model load)."""

    def _similarity(self):
        return EditSimilarity()


def _ev(*pairs):
    return Evidence(tuple(QAPair(q, a) for q, a in pairs))


def _items():
    ref = _ev(("Where is the Eiffel Tower?", "The Eiffel Tower is in Paris."),
              ("When was it built?", "It was built in 1889."))
    same = Item(id="a", claim="The Eiffel Tower is in Paris.", predicted_evidence=ref, reference_evidence=ref,
                gold_label="supported", row=0)
    other = Item(id="b", claim="The Eiffel Tower is in Paris.",
                 predicted_evidence=_ev(("Who painted it?", "Gustave painted the tower brown.")),
                 reference_evidence=ref, gold_label="supported", row=1)
    return [same, other]


def _scorer(monkeypatch, weights=W):
    scorer = build_scorer(verifier=KeywordVerifier(), hybrid=False)
    scorer.combiner = EditCombiner(weights)
    return scorer


def test_rows_carry_the_components_and_the_weighted_mean(monkeypatch, nltk_data):
    scorer = _scorer(monkeypatch)
    items = _items()
    scores = scorer.score(items)
    for s in scores:
        e = s.extra_scores
        expect = 0.3 * s.recall + 0.2 * s.proxy + 0.3 * e["hybrid_meteor"] + 0.2 * e["hybrid_embedding"]
        assert e["ev2r_hybrid"] == pytest.approx(expect)
        assert "ev2r_hybrid" not in (s.error or "") and s.status == "ok"  # other columns may add notes
    same, other = scores
    # identical evidence: edit similarity 1 on both aligned pairs (n = 2), METEOR near 1, recall 1
    assert same.extra_scores["hybrid_embedding"] == pytest.approx(1.0)
    assert same.recall == 1.0
    # one predicted pair against two reference pairs: zero padding, n = max(1, 2) = 2
    sim = EditSimilarity().matrix(["Who painted it? Gustave painted the tower brown."],
                                  ["Where is the Eiffel Tower? The Eiffel Tower is in Paris.",
                                   "When was it built? It was built in 1889."])
    assert other.extra_scores["hybrid_embedding"] == pytest.approx(sim.max() / 2)
    row = score_row(items[1], other)
    assert {"hybrid_meteor", "hybrid_embedding", "ev2r_hybrid"} <= set(row)
    assert row["ev2r_hybrid"] == other.extra_scores["ev2r_hybrid"]
    assert list(row)[-1] == "item_hash"
    summary = scorer.corpus(scores)
    assert summary.extra["ev2r_hybrid"] == pytest.approx((same.extra_scores["ev2r_hybrid"]
                                                          + other.extra_scores["ev2r_hybrid"]) / 2)
    assert summary.to_dict()["ev2r_hybrid"] == summary.extra["ev2r_hybrid"]
    assert scorer.signature()["hybrid"] == weights_field(W)


def test_no_nltk_data_gives_none_and_the_reason(monkeypatch):
    import claimalign.nltk_data

    def missing():
        raise RuntimeError("punkt_tab not found")

    monkeypatch.setattr(claimalign.nltk_data, "require_nltk_data", missing)
    scorer = _scorer(monkeypatch)
    scores = scorer.score(_items())
    for s in scores:
        assert s.status == "ok" and s.ev2r is not None  # the other scores stand
        assert s.extra_scores["hybrid_meteor"] is None and s.extra_scores["ev2r_hybrid"] is None
        assert "ev2r_hybrid: hybrid_meteor unavailable (nltk data not found: punkt_tab not found)" in s.error
        assert s.extra_scores["hybrid_embedding"] is not None
    assert scorer.corpus(scores).extra["ev2r_hybrid"] is None
    # with METEOR's weight 0 it is not needed
    scorer = _scorer(monkeypatch, weights=(0.5, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0))
    s = scorer.score(_items())[0]
    assert s.extra_scores["ev2r_hybrid"] == pytest.approx(0.5 * s.recall + 0.5 * s.proxy)
    assert "ev2r_hybrid" not in (s.error or "")


def test_encoder_that_cannot_load_gives_none_and_the_reason(monkeypatch, nltk_data):
    monkeypatch.setattr(combined, "_ENCODERS", {})
    scorer = build_scorer(verifier=KeywordVerifier(), hybrid=False)
    scorer.combiner = HybridCombiner(W, encoder="/nonexistent/encoder")
    s = scorer.score(_items())[0]
    assert s.extra_scores["hybrid_embedding"] is None and s.extra_scores["ev2r_hybrid"] is None
    assert "ev2r_hybrid: hybrid_embedding unavailable (encoder:" in s.error
    assert s.extra_scores["hybrid_meteor"] is not None


def test_item_without_label_or_reference(monkeypatch, nltk_data):
    scorer = _scorer(monkeypatch)
    a, b = _items()
    no_label = Item(id="n", claim=a.claim, predicted_evidence=a.predicted_evidence,
                    reference_evidence=a.reference_evidence, row=0)
    no_ref = Item(id="r", claim=a.claim, predicted_evidence=a.predicted_evidence, reference_evidence=Evidence(()),
                  gold_label="supported", row=1)
    s_label, s_ref = scorer.score([no_label, no_ref])
    assert s_label.extra_scores["ev2r_hybrid"] is None and "ev2r_hybrid: proxy is None" in s_label.error
    assert s_ref.extra_scores["ev2r_hybrid"] is None and s_ref.extra_scores["hybrid_embedding"] is None
    assert "ev2r_hybrid: recall is None (status no_reference)" in s_ref.error


def test_corpus_is_none_when_an_ok_item_lacks_it():
    scores = [ItemScore(id="a", row=0, extra_scores={"ev2r_hybrid": 0.4}),
              ItemScore(id="b", row=1, extra_scores={"ev2r_hybrid": None}, error="ev2r_hybrid: x")]
    assert corpus_summary(scores, "sig").extra["ev2r_hybrid"] is None
    scores[1].status = "no_label"  # failed items are left out of every mean
    assert corpus_summary(scores, "sig").extra["ev2r_hybrid"] == 0.4


def test_on_by_default_and_off_by_option():
    assert DEFAULTS.hybrid is True
    on = build_scorer(verifier=KeywordVerifier())
    assert isinstance(on.combiner, HybridCombiner) and on.combiner.weights == check_weights(HYBRID_WEIGHTS)
    assert on.signature()["hybrid"] == weights_field(HYBRID_WEIGHTS)
    off = build_scorer(verifier=KeywordVerifier(), hybrid=False)
    assert off.combiner is None and "hybrid" not in off.signature().fields
    assert build_scorer(config=DEFAULTS.replace(verifier=KeywordVerifier(), hybrid=False)).combiner is None
    with pytest.raises(ValueError, match="hybrid: expected True or False"):
        ScorerConfig(hybrid="yes")


class CountingEncoder:
    """An encoder-backed similarity stand-in: bag-of-letters vectors, counting encode calls."""

    name = "letters"

    def __init__(self):
        self.calls = []

    def encode(self, texts):
        import numpy as np

        self.calls.append(list(texts))
        v = np.array([[t.lower().count(c) for c in "abcdefghijklmnopqrstuvwxyz"] for t in texts], dtype=float)
        return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9)

    def matrix(self, left, right):
        import numpy as np

        return np.clip(self.encode(left) @ self.encode(right).T, 0.0, 1.0)


def test_embedding_column_encodes_each_distinct_string_of_a_chunk_once(monkeypatch, nltk_data):
    enc = CountingEncoder()

    class Combiner(HybridCombiner):
        def _similarity(self):
            return enc

    items = _items()
    got, why = Combiner(W).embedding_column(items)
    assert why is None and len(enc.calls) == 1  # one pass for the whole chunk
    assert len(enc.calls[0]) == len(set(enc.calls[0])) == 3  # two reference strings + one other, each once
    per_item = [align_sets(Combiner._strings(it.predicted_evidence), Combiner._strings(it.reference_evidence),
                           CountingEncoder()).recall for it in items]
    assert got == pytest.approx(per_item)


def test_weighted_columns_leave_out_a_zero_weight_component_and_load_no_encoder(monkeypatch, nltk_data):
    monkeypatch.setattr(combined, "_ENCODERS", {})
    scorer = build_scorer(verifier=KeywordVerifier(), hybrid=False)
    scorer.combiner = HybridCombiner((0.2, 0.3, 0.5, 0.0, 0.0, 0.0, 0.0), encoder="/nonexistent/encoder")  # would fail to load
    s = scorer.score(_items())[0]
    assert "hybrid_embedding" not in s.extra_scores and s.extra_scores["ev2r_hybrid"] is not None
    assert "ev2r_hybrid" not in (s.error or "") and combined._ENCODERS == {}
    every = HybridCombiner((0.2, 0.3, 0.5, 0.0, 0.0, 0.0, 0.0), encoder="/nonexistent/encoder", columns="all")
    scorer.combiner = every
    s = scorer.score(_items())[0]
    assert s.extra_scores["hybrid_embedding"] is None  # asked for: computed (here it cannot load) ...
    assert s.extra_scores["ev2r_hybrid"] is not None  # ... and not needed by the score
    with pytest.raises(ValueError, match="hybrid_columns: 'some' is not one of"):
        HybridCombiner(columns="some")
