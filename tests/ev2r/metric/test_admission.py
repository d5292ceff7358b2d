"""The admission stage: each pair classified once, with its reason and what decided it."""

from __future__ import annotations

import numpy as np
import pytest

from ev2r.metric.admission import REASONS, prime, same_meaning
from ev2r.metric.admitted import AdmissionSettings, Admitted, admit
from ev2r.metric.admission_model import AdmissionModel, lexical_features, mask_claim
from ev2r.training.admission import fill, read_corpus, slot_values, CORPUS
from ev2r.types import Evidence, Item, QAPair

CLAIM = "Joe Biden signed an executive order banning fracking on federal land in 2021."


def _under(model) -> Admitted:
    """Readings made with the learned reading ``model``."""
    return Admitted(AdmissionSettings(model))


def _reasons(pairs, **kw):
    return [(a.kept, a.reason) for a in admit(Evidence(tuple(QAPair(q, a) for q, a in pairs)), **kw)]


def test_each_rule_names_its_reason_and_keeps_evidence():
    pairs = [("Q?", "..."),                                             # no letter or digit
             ("Q?", "No answer could be found."),                         # AVeriTeC's Unanswerable text
             ("Is it true?", "Yes."),                                     # bare
             ("Is it true?", "2021"),                                     # one word
             ("What happened?", CLAIM),                                   # the claim itself
             ("What did the order do?", "The January 2021 order paused new oil and gas leases on federal land; "
                                        "it did not ban fracking."),      # evidence
             ("Where?", "The Louvre holds the Mona Lisa in Paris, France.")]  # about something else
    got = _reasons(pairs, claim=CLAIM, relevant=True)
    assert got == [(False, "no_content"), (False, "unanswerable"), (False, "bare_answer"), (False, "bare_answer"),
                   (False, "restates_claim"), (True, "kept"), (False, "off_topic")]
    assert {r for _, r in got} <= set(REASONS)


def test_the_reference_side_keeps_what_the_predicted_side_drops():
    """Without a claim (the gold evidence) only the content and Unanswerable rules apply."""
    assert _reasons([("Is it true?", "Yes."), ("What happened?", CLAIM)]) == [(True, "kept"), (True, "kept")]


def test_a_copy_of_a_gold_pair_is_read_as_the_gold_reads_it():
    gold = Evidence((QAPair("Did he sign it?", "No."),))
    got = admit(Evidence((QAPair("did he sign  it?", "No."),)), CLAIM, gold=gold)
    assert [(a.kept, a.decided_by) for a in got] == [(True, "rule:gold-copy")]


def test_duplicates_and_contradicted_pairs():
    ans = "The January 2021 order paused new oil and gas leases on federal land."
    ev = Evidence((QAPair("Q1?", ans), QAPair("Q2 reworded?", ans.upper()), QAPair("Q3?", ans + " Really.")))
    got = admit(ev, CLAIM, dedupe=True, exclude=(2,))
    assert [(a.kept, a.reason, a.duplicate_of) for a in got] == [(True, "kept", None), (False, "duplicate", 0),
                                                                 (False, "contradicted", None)]


def test_decisions_are_json_ready():
    d = admit(Evidence((QAPair("Q?", "Yes."),)), CLAIM)[0].to_dict()
    assert d == {"pair": 0, "kept": False, "reason": "bare_answer", "decided_by": "rule:bare_answer"}


def test_mask_claim_keeps_negations_and_new_words():
    assert mask_claim("Media outlets claimed that Joe Biden signed an order banning fracking.", CLAIM) == \
        "Media outlets claimed that something."
    assert mask_claim("Fracking was not banned.", CLAIM) == "something was not something."


def test_lexical_features_by_hand():
    f = lexical_features(CLAIM, "Is it true?", "Nothing relevant turned up.")
    # no claim word; 4 content words (nothing relev turn up? -> 'noth', 'relev', 'turn'), all new
    assert f[0] == 0.0 and f[1] == 0.0 and f[4] == 0.0 and f[5] == 0.0
    assert f[2] == pytest.approx(np.log1p(3)) and f[3] == pytest.approx(np.log1p(3))


def test_slots_fill_and_a_bad_slot_is_named():
    v = slot_values(CLAIM, __import__("random").Random(0))
    assert v["claim_clause"] == CLAIM[:-1]
    assert fill("Reports say {claim_clause}.", v) == "Reports say " + CLAIM
    with pytest.raises(ValueError, match=r"\{speaker\}"):
        fill("{speaker} said so", v)


def test_the_training_corpus_has_every_class_in_families():
    rows = read_corpus(CORPUS)
    classes = {r["class"] for r in rows}
    assert {"evidence", "absence", "attribution", "verdict", "boilerplate", "restatement"} <= classes
    assert len({r["family"] for r in rows}) >= 40 and len(rows) >= 700


def test_a_model_folder_without_weights_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="weights.npz"):
        AdmissionModel.load(tmp_path)


@pytest.mark.slow
def test_the_bundled_reading_drops_unseen_non_evidence_and_keeps_evidence():
    """Phrasings written for this test (in no corpus): absence, attribution, verdict, boilerplate."""
    model = AdmissionModel.load()
    non = ["Sadly the search engine returned zero matching documents.",
           f"Several bloggers insist that {CLAIM[0].lower() + CLAIM[1:-1]}.",
           "Verdict: pants on fire.",
           "Subscribe now to keep reading. Already a member? Log in."]
    ev = ["Federal records show the January 27, 2021 order paused new leasing but left existing fracking permits "
          "in place.",
          "Interior Department data list 4,600 drilling permits approved on federal land in the first half of 2021."]
    prime([(CLAIM, "What did you find?", a) for a in non + ev], model)
    got = [admit(Evidence((QAPair("What did you find?", a),)), CLAIM, admitted=_under(model))[0] for a in non + ev]
    assert [a.kept for a in got] == [False] * len(non) + [True] * len(ev)
    assert all(a.reason == "non_evidence" and a.decided_by == "model:admission-v1" for a in got[:len(non)])
    assert all(0.0 <= a.p_evidence <= 1.0 for a in got)
    assert got[0].label == "absence"
    # determinism: the same question asked again gives the same probability
    again = admit(Evidence((QAPair("What did you find?", ev[0]),)), CLAIM, admitted=_under(model))[0]
    assert again.p_evidence == got[len(non)].p_evidence


@pytest.mark.slow
def test_duplicates_by_meaning_but_not_a_changed_figure():
    model = AdmissionModel.load()
    assert same_meaning("The order paused new oil and gas leases on federal land.",
                        "The order paused new oil and gas leases on federal lands.", model)
    assert not same_meaning("The order paused 30 leases.", "The order paused 40 leases.", model)


# -- no evidence, or evidence about something else, earns no Not Enough Evidence, at any claim length
class _NeutralVerifier:
    name = "neutral-fake"

    def predict(self, premises, hypotheses):
        return np.tile([0.05, 0.9, 0.05], (len(premises), 1))


NEI_CLAIMS = {"one word": "Vaccines!", "short": "Vaccines cause autism.",
              "long": "Vaccines given to children in 2019 caused autism in thousands of cases across Europe."}


@pytest.mark.parametrize("length", sorted(NEI_CLAIMS))
def test_not_enough_evidence_is_earned_only_by_evidence_on_the_claim(length):
    from ev2r.labels import Verdict
    from ev2r.metric.proxy import NLIProxyScorer

    claim = NEI_CLAIMS[length]
    ref = Evidence((QAPair("Q?", "Studies found no link."),))

    def item(pairs):
        return Item(id="x", claim=claim, predicted_evidence=Evidence(tuple(QAPair(q, a) for q, a in pairs)),
                    reference_evidence=ref, gold_label=Verdict.NOT_ENOUGH_EVIDENCE)

    scorer = NLIProxyScorer(_NeutralVerifier())
    empty, off, on = scorer.score_proxy([
        item([]),
        item([("Where is it?", "The Louvre in Paris holds the Mona Lisa, painted by Leonardo da Vinci.")]),
        item([("What do studies say?", "A 2019 Danish study of 657,461 vaccinated children found no link to autism.")])])
    assert empty.proxy == 0.0 and off.proxy == 0.0
    assert on.proxy == pytest.approx(0.9)


class _FakeReading:
    """An admission model whose P(evidence) is 0 for answers containing "nothing", else 1 (no encoder)."""

    classes = ("evidence", "absence")
    threshold = 0.5

    def __init__(self, scope="all"):
        self.scope = scope
        self.name = f"fake-{scope}"

    def features(self, claims, questions, answers):
        return np.array([[0.0 if "nothing" in a.lower() else 1.0] for a in answers]).reshape(-1, 1)

    def features_and_vectors(self, claims, questions, answers):
        uniq = sorted(set(answers))
        return self.features(claims, questions, answers), dict(zip(uniq, self.encode(uniq)))

    def proba_from_features(self, x):
        return np.hstack([x, 1.0 - x])

    def predict_proba(self, claims, questions, answers):
        return self.proba_from_features(self.features(claims, questions, answers))

    def encode(self, texts):
        return np.eye(len(texts), 4)[:, :4] if texts else np.zeros((0, 4))


@pytest.mark.parametrize("scope", ["all", "proxy"])
def test_the_scope_of_the_learned_reading(scope):
    """scope "all": a pair read as non-evidence is no premise of the proxy and gives no atomic fact; scope "proxy":
    only the proxy leaves it out. The decision is on the item's ``admission`` record and the model in the signature."""
    from ev2r import build_scorer
    from ev2r.labels import Verdict

    from support.fakes import KeywordVerifier

    claim = "Amazon suspended Parler from its web hosting service on January 10, 2021."
    absent = "Sadly nothing about Amazon suspending Parler turned up in the hosting news of January 2021."
    item = Item(id="a", claim=claim, predicted_evidence=Evidence((QAPair("What did the search find?", absent),)),
                reference_evidence=Evidence((QAPair("Did Amazon suspend Parler?", "Amazon suspended Parler."),)),
                gold_label=Verdict.SUPPORTED)
    scorer = build_scorer(verifier=KeywordVerifier(), hybrid=False, admission=_FakeReading(scope))
    (s,) = scorer.score([item])
    assert s.admission == [{"pair": 0, "kept": False, "reason": "non_evidence", "decided_by": f"model:fake-{scope}",
                            "p_evidence": 0.0, "label": "absence"}]
    assert s.proxy == 0.0  # no premise either way
    assert (len(s.predicted_facts) == 0) == (scope == "all")
    assert f"adm:fake-{scope}" in str(scorer.signature())


@pytest.mark.parametrize("claim", ["Fluoride.", "Masks stop Covid.", "Fluoride in tap water causes cancer in children."])
def test_a_pair_about_something_else_is_off_topic_at_every_claim_length(claim):
    """A hostile pass: "Canberra is the capital of Australia." was a premise (proxy 0.546) for the claim "Fluoride."."""
    off = admit(Evidence((QAPair("What is the capital?", "Canberra is the capital of Australia."),)), claim,
                relevant=True)
    assert [(a.kept, a.reason) for a in off] == [(False, "off_topic")]
    word = claim.split()[0].strip(".")
    on = admit(Evidence((QAPair("What did the review find?", f"A 2015 Cochrane review of {word} studies found no "
                                                            "effect in 20 trials."),)), claim, relevant=True)
    assert [(a.kept, a.reason) for a in on] == [(True, "kept")]


def test_a_near_copy_is_read_through_its_copy_typos_respelled_denials_kept():
    """Invariance to typos: a copy of a gold pair with typos is admitted respelled like the gold pair (the verifier
    then reads the gold's words); a word the copy adds ("not") stays."""
    from ev2r.metric.admission import nearest_copy, respell, respell_pair

    gold = QAPair("Was covid thought to be pre planned?", "The suggestion that COVID-19 was planned is false.")
    typo = QAPair("Was coivd thought to be pre planned?", "The suggestion that CVOID-19 was planned is flase.")
    assert respell_pair(typo, gold) == gold
    assert respell("It was not planned.", "It was planned.") == "It was not planned."
    assert respell("The senator vote.", "The senator voted and the senate voter.") == "The senator vote."  # two near
    assert nearest_copy(typo, [QAPair("Who?", "Nobody."), gold]) == gold
    assert nearest_copy(QAPair("Who?", "The mayor signed it."), [gold]) is None
    admitted = admit(Evidence((typo,)), claim="COVID-19 pandemic pre-planned with the help from Bill Gates.",
                     relevant=True, gold=Evidence((gold,)))
    assert admitted[0].kept and admitted[0].decided_by == "rule:gold-copy" and admitted[0].pair == gold


def test_a_copy_but_for_synonyms_and_numbers_is_admitted_as_the_copy():
    """ev2r/4 (invariance within 10%): WordNet synonyms are respelled like the copy, numbers compare as
    values; a pair that is the copy but for those is admitted as the gold pair itself, so that the proxy, the facts
    and the METEOR columns read the gold's words. Antonyms, denials and changed figures keep a pair apart."""
    from ev2r.metric.admission import copy_grade, read_through_copy, respell, respell_reads_synonyms

    if not respell_reads_synonyms():
        pytest.skip("WordNet not installed")
    gold = QAPair("How many people did the company hire in 2020?", "The company hired forty-five workers in 2020.")
    syn = QAPair("How many people did the company employ in 2020?", "The company hired 45 workers in 2020.")
    assert respell("The company will employ staff.", "The company will hire staff.") == "The company will hire staff."
    assert copy_grade(syn, gold) == 1.0 and read_through_copy(syn, [gold]) == gold
    admitted = admit(Evidence((syn,)), claim="The company hired 45 workers in 2020.", relevant=True,
                     gold=Evidence((gold,)))
    assert admitted[0].kept and admitted[0].pair == gold
    # contractions written out and articles dropped: still the copy; a denial stays a denial
    contracted = QAPair("How many people did company hire in 2020?", "The company hired forty-five workers in 2020.")
    assert copy_grade(contracted, gold) == 1.0
    neg_gold = QAPair("Did it pass?", "The bill did not pass, and it is not law.")
    assert copy_grade(QAPair("Did it pass?", "The bill didn't pass, and it's not law."), neg_gold) == 1.0
    assert copy_grade(QAPair("Did it pass?", "The bill did pass, and it is law."), neg_gold) < 1.0
    # an antonym is no synonym; a denial and a changed figure stay
    assert respell("The tax will decrease.", "The tax will increase.") == "The tax will decrease."
    assert copy_grade(QAPair(gold.question, "The company hired 46 workers in 2020."), gold) < 1.0
    denied = QAPair(gold.question, "The company never hired forty-five workers in 2020.")
    assert read_through_copy(denied, [gold]) != gold and "never" in read_through_copy(denied, [gold]).answer


def test_the_scores_of_a_copy_but_for_synonyms_and_numbers_are_the_copys():
    """The whole metric: the gold with its numbers in words and a synonym scores as the gold itself (Ev2R, proxy,
    precision, recall, the METEOR columns), with the bundled verifier."""
    from ev2r import build_scorer
    from ev2r.labels import Verdict

    gold = Evidence((QAPair("How many people did the company hire in 2020?", "The company hired 45 workers in 2020."),
                     QAPair("Who said so?", "The annual report of the company.")))
    edited = Evidence((QAPair("How many people did the company employ in 2020?",
                              "The company hired forty-five workers in twenty twenty."),
                       QAPair("Who said so?", "The yearly report of the company.")))
    claim = "The company hired 45 workers in 2020."
    scorer = build_scorer(hybrid=True)
    a, b = scorer.score([Item("x", claim, gold, gold, Verdict.SUPPORTED),
                         Item("y", claim, edited, gold, Verdict.SUPPORTED)])
    for name in ("ev2r", "proxy", "precision", "recall"):
        assert getattr(b, name) == pytest.approx(getattr(a, name), abs=1e-6), name
    for name in ("hybrid_meteor", "verified_meteor", "ev2r_hybrid"):
        assert b.extra_scores[name] == pytest.approx(a.extra_scores[name], abs=1e-6), name


# a hostile review of ev2r/4's reading (helper 12): each predicted answer means something else than the gold's
@pytest.mark.parametrize("predicted,gold", [
    ("The senator will oppose the bill.", "The senator will defend the bill."),   # a synonym in a rare sense
    ("Prices will double by 2030.", "Prices will treble by 2030."),
    ("The deficit was 2 trillion dollars.", "The deficit was 2 million dollars."),  # hyperbole sense of "million"
    ("The deficit was 2 billion dollars.", "The deficit was 2 million dollars."),   # one edit, but a word
    ("The economy was awful.", "The economy was awesome."),                          # "awful" in a sense of "awesome"
    ("The late president spoke.", "The former president spoke."),
    ("Growth was -2.5%.", "Growth was 2.5%."), ("Inflation was >5%.", "Inflation was <5%."),
    ("It cost \u20ac5 million.", "It cost $5 million."),
    ("The CEO was fired.", "The CEO was hired."), ("Troops entered Iran.", "Troops entered Iraq."),
    ("Eighty people died.", "Eight people died."), ("Vitamin A causes cancer.", "Vitamin causes cancer."),
    ("The mayor could sign the order.", "The mayor couldn't sign the order."),      # no "couldn" respelled in
    ("The mayor couldn\u2018t sign the order.", "The mayor could sign the order."),  # any apostrophe is a denial
])
def test_a_pair_that_means_something_else_is_no_copy(predicted, gold):
    from ev2r.metric.admission import copy_grade, read_through_copy

    p, g = QAPair("What happened?", predicted), QAPair("What happened?", gold)
    assert copy_grade(p, g) < 1.0 and read_through_copy(p, [g]) is not g


def test_two_spellings_of_one_gold_pair_are_admitted_once():
    gold = QAPair("Did the bill pass?", "The bill did not pass in 2021.")
    pred = Evidence((QAPair("Did the bill pass?", "The bill didn't pass in 2021."),
                     QAPair("Did the bill pass?", "The bill did not pass in twenty twenty-one."),
                     QAPair("Did the bill pass?", "The bill did not pass in 2022.")))
    got = admit(pred, claim="The bill passed in 2021.", relevant=True, gold=Evidence((gold,)), dedupe=True)
    assert [(a.kept, a.reason) for a in got][:2] == [(True, "kept"), (False, "duplicate")]
    assert got[0].pair == gold and got[2].pair != gold  # a changed year is no copy


# ----------------------------------------------------------------------------- respell / copy text: hostile inputs
@pytest.mark.parametrize("text,like", [
    ("It was never planned.", "It was ever planned."),                  # was "ever": the denial gone
    ("Neither was planned.", "Either was planned."),                     # was "Either"
    ("It doesn't work.", "It does work."),                               # was "does't"
    ("It couldn\u2019t pass.", "It could pass."),
])
def test_respell_keeps_denials(text, like):
    from ev2r.metric.admission import respell

    assert respell(text, like) == text


@pytest.mark.parametrize("text", ["", " ", "...", "?!", "https://x.org/a?b=1", "北京大学", "مرحبا", "café", "two three",
                                  "-", "x" * 1000, "\u200b", "1,000,000,000 %"])
def test_copy_helpers_never_crash(text):
    from ev2r.metric.admission import copy_similarity, copy_text, nearest_copy, respell, respell_pair

    copy_text(text)
    assert respell(text, text) == text
    respell(text, "The suggestion is false.")
    respell_pair(QAPair(text, text), QAPair("Who?", text))
    assert 0.0 <= copy_similarity(QAPair(text, text), QAPair("Who?", "x")) <= 1.0
    nearest_copy(QAPair(text, text), [QAPair(text, text), QAPair("a", "b")])


def test_prime_encodes_each_answer_once():
    """The answers' embeddings that :func:`same_meaning` compares come with the features :func:`prime` computes:
    an answer primed is never encoded again (on the 86 rated rows, 242 answers were encoded twice before 1.8.0)."""
    import ev2r.metric.admission as admission

    class CountingEncoder:
        def __init__(self):
            self.encoded = []

        def encode(self, texts):
            self.encoded.extend(texts)
            vecs = np.random.default_rng(len(self.encoded)).normal(size=(len(texts), 384))
            return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)

    enc = CountingEncoder()
    model = AdmissionModel(classes=("evidence", "absence"), mean=np.zeros(393), scale=np.ones(393),
                           coef=np.zeros((2, 393)), intercept=np.zeros(2), name="counting", encoder=enc)
    answers = ["The mayor signed it in May.", "Nobody signed anything.", "It was signed by the council."]
    admission._EMBED.clear()
    prime([("The mayor signed the order.", "Who signed it?", a) for a in answers], model)
    assert [enc.encoded.count(a) for a in answers] == [1, 1, 1]  # once each, with the features
    assert not same_meaning(answers[0], answers[2], model)  # random embeddings: not the same
    assert [enc.encoded.count(a) for a in answers] == [1, 1, 1]  # read from the cache, not encoded again
    same_meaning(answers[0], "A text never primed.", model)
    assert enc.encoded.count("A text never primed.") == 1


def test_two_models_of_one_name_never_share_readings():
    """The cache of the learned reading knows a model by its content: a second model named ``admission-v1`` (as every
    model the trainer writes is) with other weights, in the same process, reads the pair itself."""
    class Encoder:
        def encode(self, texts):
            return np.ones((len(texts), 384)) / np.sqrt(384)

    def model(intercept):
        return AdmissionModel(classes=("evidence", "absence"), mean=np.zeros(393), scale=np.ones(393),
                              coef=np.zeros((2, 393)), intercept=np.array(intercept), name="admission-v1",
                              encoder=Encoder())

    pair = Evidence((QAPair("What did the order do?", "The order paused new oil and gas leases on federal land."),))
    reasons = []
    for m in (model([5.0, -5.0]), model([-5.0, 5.0])):
        reasons.append(admit(pair, CLAIM, admitted=_under(m))[0].reason)
    assert reasons == ["kept", "non_evidence"]


def test_a_model_object_without_features_and_vectors_still_reads():
    """A model object with the protocol before 1.8.0 (``features``, ``proba_from_features``, ``encode``) is read as
    before: its answers encoded apart."""
    class OldStyle(_FakeReading):
        def __getattribute__(self, name):
            if name == "features_and_vectors":
                raise AttributeError(name)
            return super().__getattribute__(name)

    pairs = Evidence((QAPair("What was found?", "Nothing was found."), QAPair("What did it do?", "It paused leases.")))
    got = [a.reason for a in admit(pairs, CLAIM, admitted=_under(OldStyle()))]
    assert [a.reason for a in admit(pairs, CLAIM, admitted=_under(_FakeReading()))] == got
    assert got[0] == "non_evidence"


def test_two_encoders_never_share_readings_or_embeddings():
    """Same weights, another sentence encoder: another reading (the caches know a model by its encoder too)."""
    class Encoder:
        def __init__(self, value):
            self.value = value

        def encode(self, texts):
            v = np.zeros((len(texts), 384))
            v[:, 0] = self.value
            v[:, 1] = np.sqrt(1 - self.value ** 2)
            return v

    coef = np.zeros((2, 393))
    coef[0, 0], coef[1, 0] = 4.0, -4.0  # P(evidence) rises with the first coordinate of the masked answer's embedding

    def model(value):
        return AdmissionModel(classes=("evidence", "absence"), mean=np.zeros(393), scale=np.ones(393), coef=coef,
                              intercept=np.zeros(2), name="admission-v1", encoder=Encoder(value))

    pair = Evidence((QAPair("What did the order do?", "The order paused new oil and gas leases on federal land."),))
    reasons = []
    for m in (model(1.0), model(-1.0)):
        reasons.append(admit(pair, CLAIM, admitted=_under(m))[0].reason)
    assert reasons == ["kept", "non_evidence"]


# -- the settings as a value: each part takes its own view, and bad values are named -----------------------------------
def _scope_items():
    from ev2r.labels import Verdict

    claim = "Amazon suspended Parler from its web hosting service on January 10, 2021."
    absent = "Sadly nothing about Amazon suspending Parler turned up in the hosting news of January 2021."
    real = "Amazon suspended Parler from its web hosting service on January 10, 2021, after the Capitol riot."
    ref = Evidence((QAPair("Did Amazon suspend Parler?", "Amazon suspended Parler on January 10, 2021."),))
    return [Item(id=str(k), claim=claim, predicted_evidence=Evidence(tuple(QAPair("What was found?", a) for a in ans)),
                 reference_evidence=ref, gold_label=Verdict.SUPPORTED)
            for k, ans in enumerate([(absent,), (absent, real), (real,)])]


@pytest.mark.parametrize("scope", ["all", "proxy"])
def test_a_part_given_the_chunks_readings_reads_what_it_reads_in_a_run(scope):
    """A reference scorer, proxy or combiner called on its own with ``admit_items(items, settings)`` gives what
    ``Ev2RScorer.score`` gives (each part takes its view: with scope "proxy", the reference side reads the rules)."""
    from ev2r import build_scorer
    from ev2r.metric.admitted import admit_items

    from support.fakes import KeywordVerifier

    items = _scope_items()
    scorer = build_scorer(verifier=KeywordVerifier(), hybrid=False, admission=_FakeReading(scope))
    whole = scorer.score(items)
    readings = admit_items(items, scorer.settings)
    alone = scorer.reference_scorer.score_reference(items, readings)
    proxies = scorer.proxy_scorer.score_proxy(items, readings)
    assert [(r.precision, r.recall) for r in alone] == [(s.precision, s.recall) for s in whole]
    assert [p.proxy for p in proxies] == [s.proxy for s in whole]
    assert (len(whole[0].predicted_facts) == 0) == (scope == "all")  # scope all: the absence statement gives no fact


def test_the_record_says_what_the_alignments_read_under_a_proxy_scope():
    """With a learned reading of scope "proxy", a pair it drops is still aligned (the alignments read the rules)."""
    from ev2r import build_scorer

    from support.fakes import KeywordVerifier

    (_, s, _) = build_scorer(verifier=KeywordVerifier(), admission=_FakeReading("proxy")).score(_scope_items())
    assert [(d["kept"], d["reason"], d.get("aligned")) for d in s.admission] == [
        (False, "non_evidence", None), (True, "kept", True)]


def test_a_reading_that_fails_on_one_item_fails_that_item_alone():
    from ev2r import build_scorer

    from support.fakes import KeywordVerifier

    class Fragile(_FakeReading):
        def features(self, claims, questions, answers):
            if any("riot" in a for a in answers):
                raise RuntimeError("cannot read this answer")
            return super().features(claims, questions, answers)

        def features_and_vectors(self, claims, questions, answers):
            return self.features(claims, questions, answers), {a: v for a, v in zip(sorted(set(answers)),
                                                                                 self.encode(sorted(set(answers))))}

    scores = build_scorer(verifier=KeywordVerifier(), hybrid=False, admission=Fragile()).score(_scope_items())
    assert [s.ok for s in scores] == [True, False, False]
    assert "cannot read this answer" in scores[1].error


def test_bad_admission_values_are_named():
    from ev2r.metric.admitted import AdmissionSettings
    from ev2r.metric.scorer import Ev2RScorer

    with pytest.raises(ValueError, match=r"admission: 'none' is a spec that build_scorer\(admission=...\) loads"):
        AdmissionSettings("none")
    with pytest.raises(ValueError, match=r"admission: 'bundled' is a spec"):
        Ev2RScorer(None, admission="bundled")

    class PredictOnly:
        name, threshold, classes = "p", 0.5, ("evidence", "absence")

        def predict_proba(self, claims, questions, answers):
            return np.full((len(answers), 2), 0.5)

    with pytest.raises(ValueError, match=r"a PredictOnly lacks proba_from_features\(\), features_and_vectors\(\)"):
        AdmissionSettings(PredictOnly())
    from ev2r.config import ScorerConfig

    with pytest.raises(ValueError, match=r"admission: expected 'bundled', 'none', a model folder or an AdmissionModel; "
                                         r"a PredictOnly lacks"):
        ScorerConfig(admission=PredictOnly())
    with pytest.raises(ValueError, match=r"admitted: expected an Admitted \(admit_items\(items, settings\) makes one\), "
                                         r"got AdmissionSettings"):
        admit(Evidence((QAPair("Q?", "An answer here."),)), CLAIM, admitted=AdmissionSettings())


def test_two_model_objects_without_a_digest_never_share_readings():
    """Two learned readings of one class and name (no ``digest``) with other weights: each reads for itself."""
    class Weighted(_FakeReading):
        def __init__(self, p):
            super().__init__()
            self.name, self.p = "same-name", p

        def features(self, claims, questions, answers):
            return np.full((len(answers), 1), self.p)

    pair = Evidence((QAPair("What did the order do?", "The order paused new oil and gas leases on federal land."),))
    got = [admit(pair, CLAIM, admitted=_under(Weighted(p)))[0].reason for p in (1.0, 0.0, 1.0)]
    assert got == ["kept", "non_evidence", "kept"]


def test_an_encoder_that_takes_no_weak_reference_gets_a_token():
    from ev2r.metric.admission_model import encoder_cache_key

    class Slotted:
        __slots__ = ("value",)
        __hash__ = None  # type: ignore[assignment]

    class Model:
        def __init__(self):
            self.encoder = Slotted()

    m = Model()
    first = encoder_cache_key(m)
    assert first == encoder_cache_key(m) and first.split(".")[-1].startswith("Slotted#")
    assert encoder_cache_key(Model()) != first
