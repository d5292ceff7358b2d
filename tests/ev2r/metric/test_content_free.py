"""Text without a letter or digit is no atomic fact and supports nothing: in
every rule decomposer, in the verifier path (facts from any decomposer, premises) and in the proxy's
premises. Case files: turn3/content_free_facts_punct.jsonl, content_free_facts_emoji.jsonl,
content_free_padding.jsonl (padding cannot raise a score). The verifier is a fake that, like the
bundled model did, entails anything content-free with P = 0.85."""

from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ev2r.facts.rules import DeclarativeDecomposer, RuleBasedDecomposer
from ev2r.io.readers import InputWarning, read_items
from ev2r.metric.factory import build_scorer
from ev2r.io import evidence_from_text
from ev2r.types import AtomicFact, Evidence, Item, QAPair
from support.fakes import GullibleVerifier
from support.paths import TESTS

CASES = TESTS / "data" / "cases" / "turn3"
SCORES = ("precision", "recall", "f1", "proxy", "ev2r")


def scorer(decomposer="rules"):
    return build_scorer(verifier=GullibleVerifier(), decomposer=decomposer)


def values(s):
    return {k: getattr(s, k) for k in SCORES}


@pytest.mark.parametrize("name", ["content_free_facts_punct.jsonl", "content_free_facts_emoji.jsonl"])
@pytest.mark.parametrize("decomposer", ["rules-v1", "rules-v2"])
def test_content_free_prediction_gives_no_fact_and_no_credit(name, decomposer):
    n = {"content_free_facts_punct.jsonl": 4, "content_free_facts_emoji.jsonl": 2}[name]
    with pytest.warns(InputWarning, match=f"MOST ITEMS HAVE NO PREDICTED EVIDENCE -- .*{name}: {n} of {n} item"):
        items = read_items(CASES / name)  # the reader says so, and each scores 0 (asserted below)
    assert len(items) == n
    for s in scorer(decomposer).score(items):
        assert s.status == "ok"
        assert s.predicted_facts == []  # "...", "?!?!", emoji: no atomic fact
        assert s.precision == 0.0 and s.recall == 0.0 and s.f1 == 0.0
        assert s.proxy == 0.0  # no premise: (0, 1, 0), and the gold verdict is supported


def test_padding_case_cannot_raise_any_score():
    items = read_items(CASES / "content_free_padding.jsonl")
    scores = {it.id: values(s) for it, s in zip(items, scorer().score(items))}
    for base in ("494", "591", "77"):
        orig = scores[f"{base}-orig"]
        for pad in ("plus4dots", "plus16dots"):
            assert scores[f"{base}-{pad}"] == orig, (base, pad)


class ListDecomposer:
    """A decomposer (e.g. an LLM's) that returns content-free facts beside real ones."""

    name = "list-fake"

    def decompose(self, evidence, claim=""):
        return [AtomicFact(text=t, pair_index=0) for t in ("Paris is in France.", "...", "\U0001f642")]


def test_facts_from_any_decomposer_are_filtered_in_the_verifier_path():
    from ev2r.metric.reference import NLIReferenceScorer

    item = Item(id="1", claim="Paris is in France.", predicted_evidence=evidence_from_text("Paris is in France."),
                reference_evidence=evidence_from_text("Paris is in France."))
    res = NLIReferenceScorer(GullibleVerifier(), ListDecomposer()).score_reference([item])[0]
    assert [f.fact for f in res.predicted_facts] == ["Paris is in France."]


@pytest.mark.parametrize("cls", [RuleBasedDecomposer, DeclarativeDecomposer])
def test_content_free_sentences_are_dropped_not_merged(cls):
    facts = cls().decompose(Evidence((QAPair("", "Paris is the capital of France. ... \U0001f642 !!!"),)))
    assert [f.text for f in facts] == ["Paris is the capital of France."]


CONTENT_FREE = st.text(alphabet=st.sampled_from(list(string.punctuation + " \t") + ["\U0001f642", "\u2014", "\u2026"]),
                       min_size=1, max_size=12)
BASE = [Item(id=str(k), claim=c, predicted_evidence=evidence_from_text(p), reference_evidence=evidence_from_text(r),
             gold_label=g)
        for k, (c, p, r, g) in enumerate([
            ("Paris is the capital of France.", "Question: What is the capital of France?\nAnswer: Paris.",
             "Question: What is the capital of France?\nAnswer: Paris is the capital.", "supported"),
            ("The moon is made of cheese.", "The moon is rock. Cheese is food.",
             "Question: What is the moon made of?\nAnswer: Rock and dust.", "refuted"),
            ("Kerala has 33 million people.", "Question: Population?\nAnswer: Unknown figures were given.",
             "Question: What is the population of Kerala?\nAnswer: 33 million in 2011.", "not enough evidence"),
        ])]
BASE_SCORES = None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(s=CONTENT_FREE, q=CONTENT_FREE, where=st.sampled_from(["pair", "qa", "appended"]))
def test_adding_content_free_text_never_raises_any_score(s, q, where):
    """Property: for any content-free string s, adding s as evidence -- a plain pair, a
    Question/Answer pair, or appended to the last answer -- never raises any score."""
    global BASE_SCORES
    sc = scorer()
    if BASE_SCORES is None:
        BASE_SCORES = [values(x) for x in sc.score(BASE)]
    padded = []
    for it in BASE:
        pairs = it.predicted_evidence.pairs
        if where == "pair":
            new = pairs + (QAPair("", s),)
        elif where == "qa":
            new = pairs + (QAPair(q, s),)
        else:
            new = pairs[:-1] + (QAPair(pairs[-1].question, pairs[-1].answer + " " + s),)
        padded.append(it.with_predicted(Evidence(new)))
    for before, after in zip(BASE_SCORES, (values(x) for x in sc.score(padded))):
        for k in SCORES:
            assert after[k] <= before[k] + 1e-12, (k, s, where)
