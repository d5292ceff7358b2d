"""The scoring rules that close the gaming holes the adversarial suite found, on hand-made items with fake
verifiers (no model): the question is context (bare answers are no premise), a restated claim is
neither a premise nor an atomic fact, Unanswerable text as people type it, the yes/no rule only for
polar questions, Not Enough Evidence needs relevant evidence, copies count once in the alignment,
and the verified METEOR follows the verifier."""

from __future__ import annotations

import numpy as np
import pytest

from claimalign.words import claim_coverage, content_tokens, is_bare_answer, is_unanswerable
from ev2r.metric.restatement import restates_claim
from ev2r.facts.rules import DeclarativeDecomposer, RuleBasedDecomposer, strip_boilerplate
from ev2r.labels import Verdict
from ev2r.metric.combined import HybridCombiner, informative, reference_pair_support
from ev2r.metric.proxy import NLIProxyScorer, relevance
from ev2r.metric.reference import NLIReferenceScorer, evidence_pairs, pair_premises
from ev2r.types import Evidence, FactSupport, Item, ItemScore, QAPair

from support.fakes import KeywordVerifier

CLAIM = "Amazon suspended Parler from its web hosting service on January 10, 2021."
Q = "Did Amazon remove Parler from its hosting services?"

# the Unanswerable text as people type it (shared/cases/turn4/text/unanswerable_variants.jsonl and more)
UNANSWERABLE = ["No answer could be found.", "No answer could be found\u2026", "No answer could be found. No answer could be found.",
                "No answer could be found.\nNo answer could be found.", "No answer could be found in the sources.",
                "No answer found.", "No answer could be found\u3002", "(No answer could be found.)",
                "no answer was found online", "\u201cNo answer could be found.\u201d"]


@pytest.mark.parametrize("answer", UNANSWERABLE)
def test_unanswerable_as_typed_gives_no_fact_and_no_premise(answer):
    assert is_unanswerable(answer)
    ev = Evidence((QAPair(Q, answer),))
    for dec in (DeclarativeDecomposer(), RuleBasedDecomposer()):
        assert dec.decompose(ev, CLAIM) == []  # never the denial "Amazon did not remove Parler ..."
    assert pair_premises(ev) == [] and pair_premises(ev, claim=CLAIM) == []


@pytest.mark.parametrize("answer", ["No evidence was found that Amazon removed Parler.",
                                    "No answer could be found, but Amazon said it suspended Parler.",
                                    "No, Amazon did not remove it."])
def test_statements_that_start_alike_are_not_unanswerable(answer):
    assert not is_unanswerable(answer)


@pytest.mark.parametrize("question,answer", [("What is Joe Biden's sister called?", "No."),
                                             ("Who owns Dominion?", "Yes."),
                                             ("What is Joe Biden's sister called?", "x"),
                                             ("Is Valerie Owens married to Stephen Owens?", "x"),
                                             ("Who owns Dominion?", "https://www.example.com/dominion")])
def test_bare_answers_to_wh_questions_state_nothing(question, answer):
    # shared/cases/turn4/text/yes_no_wh_question.jsonl: not "Joe Biden's sister called is No."
    assert is_bare_answer(answer)
    assert DeclarativeDecomposer().decompose(Evidence((QAPair(question, answer),))) == []


def test_yes_no_rule_still_reads_polar_questions():
    facts = DeclarativeDecomposer().decompose(Evidence((QAPair("Did the senate pass the bill?", "No."),)))
    assert [f.text for f in facts] == ["The senate did not pass the bill."]


def test_content_tokens_and_restatement_by_hand():
    assert content_tokens("Yes, it is true.") == frozenset()
    assert content_tokens("The vaccines were approved") == {"vaccin", "approv"}
    assert claim_coverage("Parler went offline", CLAIM) == pytest.approx(1 / 9)
    assert restates_claim(CLAIM, CLAIM)
    assert restates_claim(f"It is not true that {CLAIM[0].lower() + CLAIM[1:]}", CLAIM)
    assert restates_claim(f"Is it true that {CLAIM.rstrip('.')}? Yes.", CLAIM)
    assert not restates_claim("January 10, 2021.", CLAIM)  # confirms a detail: covers 3 of 9 tokens
    # a clause of the claim copied verbatim restates it, however little of the claim it covers (as with
    # what the scraped-page rule left of the claim hidden behind three scripts)
    two = "Mars has almost no oxygen. So, NASA's Perseverance rover cannot land on Mars."
    assert restates_claim("So, NASA's Perseverance rover cannot land on Mars.", two)
    assert not restates_claim("NASA's Perseverance rover landed on Mars in 2021.", two)
    assert not restates_claim("Amazon Web Services told Parler it would suspend its account at midnight "
                              "because of violent content, according to BuzzFeed News.", CLAIM)


def test_evidence_pairs_the_question_is_context():
    ev = Evidence((QAPair(f"Is it true that {CLAIM.rstrip('.')}?", "Yes."),   # bare: judged by its question alone
                   QAPair("", CLAIM),                                           # the claim copied
                   QAPair("What did Amazon say?", "Amazon said Parler broke its rules on violent content."),
                   QAPair("Languages?", "English Espa\u00f1ol \u4e2d\u6587 \u0420\u0443\u0441\u0441\u043a\u0438\u0439 " + CLAIM),
                   QAPair("Anything else?", "No answer found.")))
    assert [k for k, _ in evidence_pairs(ev, CLAIM)] == [2]
    assert [k for k, _ in evidence_pairs(ev)] == [0, 1, 2]  # without the claim: every pair with an answer (but menus)
    assert strip_boilerplate(ev.pairs[3].answer) == ""


def test_proxy_does_not_credit_the_question_or_the_claim():
    kv = KeywordVerifier()
    proxy = NLIProxyScorer(kv)
    echo = Item(id="e", claim=CLAIM, gold_label=Verdict.SUPPORTED, reference_evidence=Evidence(()),
                predicted_evidence=Evidence((QAPair(f"Is it true that {CLAIM.rstrip('.')}?", "Yes."), QAPair("", CLAIM))))
    assert proxy.score_proxy([echo])[0].proxy == 0.0  # no premise left: (0, 1, 0)
    assert kv.calls == []  # nothing was sent to the verifier
    # the claim wrapped in a template, or copied whole behind a few words ("AWS said:"), restates it; an answer
    # that adds what its source said beside the claim's words is evidence
    for wrapped in (f"It is true that {CLAIM}", f"AWS said: {CLAIM}"):
        assert proxy.score_proxy([echo.with_predicted(Evidence((QAPair("What happened?", wrapped),)))])[0].proxy == 0.0
    assert proxy.score_proxy([echo.with_predicted(Evidence((QAPair(
        "What happened?", f"AWS told Reuters: {CLAIM.rstrip('.')}, over violent posts."),)))])[0].proxy == pytest.approx(0.9)
    real = echo.with_predicted(Evidence((QAPair("What did AWS do?", "AWS emailed Parler that Amazon suspended it from "
                                                "its web hosting service at midnight on January 10, 2021, citing violent "
                                                "posts."),)))
    assert proxy.score_proxy([real])[0].proxy == pytest.approx(0.9)


def test_not_enough_evidence_needs_relevant_evidence():
    proxy = NLIProxyScorer(KeywordVerifier())
    nee = Item(id="n", claim="The Muslim population of Kerala is 88,73,472.", gold_label=Verdict.NOT_ENOUGH_EVIDENCE,
               reference_evidence=Evidence(()),
               predicted_evidence=Evidence((QAPair("What is the capital of France?", "Paris is the capital of France."),)))
    assert proxy.score_proxy([nee])[0].proxy == 0.0  # off-topic: relevance 0
    empty = nee.with_predicted(Evidence(()))
    assert proxy.score_proxy([empty])[0].proxy == 0.0  # no evidence earns no "not enough evidence"
    on_topic = nee.with_predicted(Evidence((QAPair("How many Muslims live in Kerala?",
                                                   "Census figures for the Muslim population of Kerala differ by source."),)))
    assert proxy.score_proxy([on_topic])[0].proxy == pytest.approx(0.8)  # KeywordVerifier: neutral 0.8, relevance 1
    assert relevance([], nee.claim) == 0.0


def test_restated_claim_is_no_atomic_fact():
    ref = Evidence((QAPair("What did AWS do?", "AWS suspended Parler's account on 10 January 2021 over violent posts."),))
    pred = Evidence((QAPair("", CLAIM), QAPair("What did AWS do?", "AWS suspended Parler's account on 10 January 2021.")))
    it = Item(id="f", claim=CLAIM, predicted_evidence=pred, reference_evidence=ref, gold_label=Verdict.SUPPORTED)
    res = NLIReferenceScorer(KeywordVerifier(), DeclarativeDecomposer(), calibration=None).score_reference([it])[0]
    assert [f.fact for f in res.predicted_facts] == ["AWS suspended Parler's account on 10 January 2021."]
    assert [f.pair_index for f in res.predicted_facts] == [1]
    assert res.precision == 1.0


def test_copies_count_once_in_the_alignment(nltk_data):
    ref = Evidence((QAPair("When was it signed?", "The treaty was signed in Paris in 2015."),
                    QAPair("Who signed it?", "195 countries signed the treaty.")))
    one = Evidence((QAPair("When was it signed?", "It was signed in Paris in 2015."),))
    dup = Evidence(one.pairs * 10)
    assert informative(dup).pairs == one.pairs
    comb = HybridCombiner()
    items = [Item(id=str(k), claim="The climate treaty was signed in Paris by every nation.", predicted_evidence=ev, reference_evidence=ref)
             for k, ev in enumerate((one, dup))]
    meteor, _, why = comb.meteor_columns(items)
    assert why is None and meteor[0] == meteor[1] > 0


def test_verified_meteor_follows_the_reference_facts(nltk_data):
    ref = Evidence((QAPair("When was it signed?", "The treaty was signed in Paris in 2015."),
                    QAPair("Who signed it?", "195 countries signed the treaty.")))
    it = Item(id="v", claim="The climate treaty was signed in Paris by every nation.", predicted_evidence=ref, reference_evidence=ref)
    comb = HybridCombiner()

    def score(probs):
        s = ItemScore(id="v", row=0)
        s.reference_facts = [FactSupport(f"f{j}", p >= 0.5, p, j) for j, p in enumerate(probs)]
        return s

    meteor, full, _ = comb.meteor_columns([it], [score([1.0, 1.0])])
    _, half, _ = comb.meteor_columns([it], [score([1.0, 0.0])])
    _, none, _ = comb.meteor_columns([it], [score([0.0, 0.0])])
    assert full[0] == pytest.approx(meteor[0])
    assert none[0] == 0.0
    assert half[0] == pytest.approx(meteor[0] / 2, abs=0.02)  # one of the two reference pairs verified
    assert reference_pair_support(score([0.2, 0.8]).reference_facts) == {0: 0.2, 1: 0.8}


def test_mutual_meteor_needs_both_sides_facts_found(nltk_data):
    """``mutual_meteor`` weighs each aligned cell by v_j (the reference pair's facts found in the prediction)
    and by u_i (the predicted pair's own facts found in the reference): a denied copy of the reference whose
    own facts the reference contradicts (u = 0) keeps no match even where the verifier misread v as 1."""
    ref = Evidence((QAPair("When was it signed?", "The treaty was signed in Paris in 2015."),
                    QAPair("Who signed it?", "195 countries signed the treaty.")))
    it = Item(id="m", claim="The climate treaty was signed in Paris by every nation.", predicted_evidence=ref, reference_evidence=ref)
    comb = HybridCombiner()

    def score(v, u):
        s = ItemScore(id="m", row=0)
        s.reference_facts = [FactSupport(f"r{j}", p >= 0.5, p, j) for j, p in enumerate(v)]
        s.predicted_facts = [FactSupport(f"p{i}", p >= 0.5, p, i) for i, p in enumerate(u)]
        return s

    def run(v, u):
        mutual: list = []
        meteor, verified, _ = comb.meteor_columns([it], [score(v, u)], mutual=mutual)
        return meteor[0], verified[0], mutual[0]

    meteor, verified, both = run([1.0, 1.0], [1.0, 1.0])
    assert both == pytest.approx(meteor) == pytest.approx(verified)
    _, verified, denied = run([1.0, 1.0], [0.0, 0.0])
    assert verified == pytest.approx(meteor) and denied == 0.0
    _, _, half = run([1.0, 1.0], [1.0, 0.0])
    assert half == pytest.approx(meteor / 2, abs=0.02)  # the predicted copy of pair 1 is not found in the reference
    _, _, quarter = run([0.5, 0.5], [0.5, 0.5])
    assert quarter == pytest.approx(meteor / 4, abs=1e-9)  # v_j * u_i on the diagonal: 0.25 of each match
    # without scores there is no verification either way
    mutual: list = []
    comb.meteor_columns([it], None, mutual=mutual)
    assert mutual == [None]


def test_boilerplate_is_no_premise_either():
    ev = Evidence((QAPair("What happened?", "Home | News | Sport | Weather. The bill was signed on 3 May."),))
    assert pair_premises(ev, claim="The bill was signed.") == ["Question: What happened?\nAnswer: The bill was signed on 3 May."]
    assert np.isfinite(relevance(pair_premises(ev, claim="The bill was signed."), "The bill was signed."))


def test_predicted_pairs_about_something_else_are_no_premise():
    # a reference fact about the claim is not supported by another claim's evidence appended (junk, G6)
    claim = "The mayor of Springfield banned fireworks in 2021."
    ref = Evidence((QAPair("What did the mayor do?", "The mayor of Springfield signed an order banning fireworks on "
                                                     "public land, citing fire risk, in June 2021."),))
    junk = QAPair("What did the senate vote on?", "Fireworks were banned by the mayor of Springfield in 2021 and the senate voted.")
    junk_unrelated = QAPair("Who won the cup?", "The home team won the cup after extra time.")
    pred = Evidence((junk_unrelated,))
    assert evidence_pairs(pred, claim, relevant=True) == []
    assert [k for k, _ in evidence_pairs(pred, claim)] == [0]  # the reference side keeps background pairs
    assert [k for k, _ in evidence_pairs(Evidence((junk,)), claim, relevant=True)] == [0]  # on topic: kept
    it = Item(id="j", claim=claim, predicted_evidence=pred, reference_evidence=ref, gold_label=Verdict.SUPPORTED)
    kv = KeywordVerifier()
    scorer = NLIReferenceScorer(kv, DeclarativeDecomposer(), calibration=None)
    res = scorer.score_reference([it])[0]
    assert res.recall == 0.0 and res.precision == 0.0  # the junk's own fact stays a fact: unsupported, it costs precision
    assert not any("home team" in p for prem, _ in kv.calls for p in prem if p.startswith("Question: Who won"))
    assert "prem-rule" in scorer.signature_fields()


def test_a_long_claim_keeps_its_relevant_pairs():
    """A claim of ~60 content words of context asks no more of one pair than a claim of 20."""
    from claimalign.words import claim_coverage, content_tokens
    from ev2r.metric.reference import PREMISE_RELEVANCE_MIN, RELEVANCE_CLAIM_CAP, evidence_pairs

    context = ("In a speech delivered to supporters at a rally in the state capital on a cold Tuesday evening, after "
               "weeks of campaigning across rural counties and debates with opponents about taxes, schools, bridges, "
               "hospitals, pensions, farming subsidies, roads, "
               "healthcare costs and the future of the manufacturing industry, which lost thousands of jobs over the "
               "past decade according to reports published by regional newspapers and think tanks, the governor "
               "repeated his familiar talking points about economic growth and public safety and then said that ")
    claim = context + "the state's unemployment rate fell to 3 percent in 2022."
    pair = QAPair("What was the state's unemployment rate in 2022?", "It rose to 7 percent in 2022, figures show.")
    n = len(content_tokens(claim))
    shared = len(content_tokens(pair.render()) & content_tokens(claim))
    assert n > 50 and shared == 5  # state, unemploy, rate, 2022, percent
    assert claim_coverage(pair.render(), claim) == pytest.approx(shared / n)
    assert shared / n < PREMISE_RELEVANCE_MIN  # out of the whole claim, the pair would be off-topic
    assert claim_coverage(pair.render(), claim, RELEVANCE_CLAIM_CAP) == pytest.approx(shared / RELEVANCE_CLAIM_CAP)
    assert [k for k, _ in evidence_pairs(Evidence((pair,)), claim=claim, relevant=True)] == [0]
    # a short claim is counted out of its own length, as before
    assert claim_coverage("Paris.", "Paris is the capital of France.", RELEVANCE_CLAIM_CAP) == pytest.approx(1 / 3)


def test_a_one_word_predicted_answer_is_no_premise_and_gives_no_fact():
    """The gaming suite's reference_questions_trivial: the reference's questions answered "2021" raised
    precision on 28% of the 144 rows with a verifier that reads structure better; a one-word answer is judged by
    its question alone, so on the predicted side it is no evidence (punctuation around it does not count)."""
    claim = "The Senate passed the infrastructure bill in 2021."
    ev = Evidence((QAPair("When did the Senate pass the bill?", "2021"),
                   QAPair("When did the Senate pass the bill?", "2021 :"),
                   QAPair("When did the Senate pass the bill?", "In August 2021, by 69 votes to 30.")))
    assert [k for k, _ in evidence_pairs(ev, claim=claim)] == [2]
    assert [k for k, _ in evidence_pairs(ev)] == [0, 1, 2]  # the reference side (no claim) keeps them


def test_what_the_boilerplate_rule_leaves_of_a_hidden_claim_is_judged_as_an_answer():
    """The gaming suite's script_hiding: on 7 of the 86 rows the sentence splitter left the claim's last sentence (or a
    tail of it) once the words of three scripts were dropped, and that remainder was a premise entailing the
    claim from its own words; it is a restatement, checked after the boilerplate is stripped as before."""
    two = ("Combustion cannot exist without at least 16% of oxygen content to burn, and Mars atmosphere only "
           "contains 0'16% of molecular oxygen. So, NASA's Perseverance rover cannot land on Mars.")
    hidden = QAPair("Which languages is the page in?",
                    "English Espa\u00f1ol \u4e2d\u6587 \u0420\u0443\u0441\u0441\u043a\u0438\u0439 "
                    "\u0627\u0644\u0639\u0631\u0628\u064a\u0629 " + two)
    real = QAPair("Is there oxygen on Mars?", "Mars's atmosphere is 0.13% oxygen, NASA says.")
    stripped = strip_boilerplate(hidden.answer)
    assert stripped and stripped != hidden.answer  # the rule leaves part of the claim...
    assert [k for k, _ in evidence_pairs(Evidence((real, hidden)), two, relevant=True)] == [0]  # ...which is no premise


def test_the_claim_reworded_with_synonyms_restates_it(nltk_data):
    """The paraphrased echo (gaming suite): a word whose WordNet synonym is a claim word counts as that word, so the
    claim reworded ("sum" for "total", "forestall" for "prevent") behind an anonymous attribution is the claim;
    an answer that adds its own content is not; the signature says the rule read synonyms."""
    from claimalign.meteor_fast import synonym_tokens, synonyms_available
    from ev2r.metric.restatement import restates_claim
    from ev2r.metric.reference import PREMISE_RULE, premise_rule

    assert synonyms_available()
    claim = "Face masks do not prevent the transmission of Covid-19."
    echo = "According to reports, Face masks do not forestall the transmission of Covid-19."
    assert restates_claim(echo, claim, synonym_tokens) and not restates_claim(echo, claim)  # words as written
    assert restates_claim("According to reports, the sum population of Kerala, India is 3,56,99,443.",
                          "The total population of Kerala, India is 3,56,99,443", synonym_tokens)
    assert not restates_claim("The WHO said masks cut transmission by 50% in hospitals.", claim, synonym_tokens)
    assert not restates_claim("Face masks do not forestall the transmission of Covid-19 among children under five.", claim,
                              synonym_tokens)
    from ev2r.metric.reference import RELEVANCE_RULE

    assert premise_rule() == PREMISE_RULE + RELEVANCE_RULE + "+wnsyn"
    ev = Evidence((QAPair("What was reported?", "According to reports, face masks do not forestall the transmission of Covid-19."),
                   QAPair("What did the WHO say?", "The WHO said masks cut transmission by 50% in hospitals.")))
    assert [k for k, _ in evidence_pairs(ev, claim)] == [1]


def test_the_claim_copied_whole_inside_a_little_filler_restates_it():
    # shared/cases/turn4/gaming/G6_junk_no_penalty.jsonl: ten pairs "Answer k: see <claim>." prepended (proxy 0.04 -> 0.99)
    from ev2r.metric.restatement import RESTATE_WRAP_NOVELTY

    assert RESTATE_WRAP_NOVELTY == 3
    assert restates_claim(f"Answer 0: see {CLAIM}", CLAIM)  # "answer", "0", "see": 3 words of its own
    assert restates_claim(f"Answer 12: see the claim {CLAIM}", CLAIM)
    assert restates_claim(f"Reuters, AP: {CLAIM}", CLAIM)  # a label before a colon, nothing after the claim
    # words that add a fact around the whole claim are no filler: a date, a number, a clause (cases the gaming
    # suite's checkers found)
    assert not restates_claim(f"Reuters: {CLAIM.rstrip('.')} over violent posts.", CLAIM)
    assert not restates_claim(f"In a letter on Sunday, {CLAIM[0].lower()}{CLAIM[1:]}", CLAIM)
    assert not restates_claim("Trump won Texas in 2020 with 52.1% of the vote.", "Trump won Texas in 2020")
    assert not restates_claim(f"12 {CLAIM}", CLAIM)  # a number alone is no list index
    # the claim must be copied on word boundaries ("Saudi Arabia" is not inside "Saudi Arabian")
    assert not restates_claim("See: Biden froze arms sales to Saudi Arabian firms.", "Biden froze arms sales to Saudi Arabia")
    # 4 words of its own around the whole claim: evidence that quotes the claim, kept
    assert not restates_claim(f"Reuters and the AP reported from Seattle in 2022 that {CLAIM[0].lower()}{CLAIM[1:]}", CLAIM)
    assert not restates_claim("Amazon suspended Parler on January 10, 2021, after the Capitol riot.", CLAIM)
    pairs = evidence_pairs(Evidence((QAPair(f"Question 0 about {CLAIM}", f"Answer 0: see {CLAIM}"),
                                     QAPair(Q, "Amazon Web Services stopped hosting Parler on January 10, 2021."))), CLAIM)
    assert [k for k, _ in pairs] == [1]


def test_restatement_lives_in_the_metric_only():
    """Restating the claim is the metric's decision (ev2r.metric.restatement); the claimalign names that reached
    back into ev2r (deprecated in 1.1) are removed: the aligner imports nothing of ev2r."""
    import ev2r.io.qa_text as qa
    from ev2r.metric import restatement

    assert callable(restatement.restates_claim)
    for name in ("restates_claim", "is_claim_span", "SPAN_MIN_TOKENS"):
        with pytest.raises(AttributeError, match=f"no attribute '{name}'"):
            getattr(qa, name)
