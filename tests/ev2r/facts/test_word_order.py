"""The word-order test (issue 32, ``shuffled_reference``): word salad is no evidence on the predicted side."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from ev2r.facts.word_order import (CLASSES, MIN_WORDS, SALAD_Z, WordOrderModel, available_languages, is_word_salad,
                                   load_model, salad_threshold, salad_z, tokens)
from ev2r.metric.reference import evidence_pairs
from ev2r.types import Evidence, QAPair
from support.paths import SHARED_CASES

REAL = ("Turkish officials announced Thursday that a vaccine from the Chinese company Sinovac has an efficacy rate "
        "of 91.25 percent, but the finding was based on preliminary results from a small clinical trial.")
SALAD = ("a has trial from a officials results Turkish that the efficacy on small of in Sinovac 91.25 rate company "
         "Thursday percent, announced vaccine but an finding was based preliminary Chinese clinical the.")


def test_tables_ship_for_english_and_czech_and_are_proper_distributions():
    assert available_languages() == ("cs", "en")
    for lang in available_languages():
        m = load_model(lang)
        assert len(m.vocab) == 2000 and m.log_prob.shape == (2000 + len(CLASSES),) * 2
        # each row of P(b | a) is the interpolation of two distributions over the same ids: it sums to 1
        assert np.allclose(np.exp(m.log_prob.astype(np.float64)).sum(1), 1.0, atol=1e-4)
        assert np.isfinite(m.log_prob).all()


def test_an_unknown_language_is_a_clear_error():
    with pytest.raises(ValueError, match=r"lang: no word-order table for 'xx'; tables: cs, en"):
        load_model("xx")


def test_tokens_split_numbers_words_and_punctuation():
    assert tokens("Kerala's 3,33,87,677 (2011).") == ["Kerala", "'", "s", "3,33,87,677", "(", "2011", ")", "."]


def test_a_hand_computed_model_scores_the_real_order_above_its_permutations():
    # vocabulary a, b, c: the corpus only ever says "a b c"; the model puts every bigram of that order far above
    # the others, so the observed order's log-probability difference to the permutation mean is positive
    vocab = ["a", "b", "c"]
    v = len(vocab)
    rows = np.array([v + 3, 0, 1, 2])
    cols = np.array([0, 1, 2, v + 4])
    m = WordOrderModel.from_counts("toy", vocab, rows, cols, np.array([100, 100, 100, 100]), bigram_weight=0.9)
    # P(b | a) = 0.9 * 1 + 0.1 * P_unigram(b); unigram counts: column sums + 1 over the 8 ids
    unigram = np.array([101, 101, 101, 1, 1, 1, 1, 101], dtype=float)
    unigram /= unigram.sum()
    assert math.isclose(float(np.exp(m.log_prob[0, 1])), 0.9 + 0.1 * unigram[1], rel_tol=1e-5)
    assert math.isclose(float(np.exp(m.log_prob[1, 0])), 0.1 * unigram[0], rel_tol=1e-5)
    st = m.sentence_stats("a b c a b c", np.random.default_rng(0), n_permutations=32)
    assert st is not None and st[0] > 0 and st[2] == 6 and st[3] == 6


def test_real_prose_passes_and_its_word_salad_is_caught():
    z_real, w_real = salad_z(REAL)
    z_salad, w_salad = salad_z(SALAD)
    assert w_real == w_salad == len(REAL.split())
    assert z_real > salad_threshold(w_real) and not is_word_salad(REAL)
    assert z_salad < salad_threshold(w_salad) and is_word_salad(SALAD)


def test_the_threshold_grows_with_the_square_root_of_the_words():
    assert salad_threshold(MIN_WORDS) == SALAD_Z
    assert math.isclose(salad_threshold(100), 4.0)


def test_short_answers_and_uncovered_languages_are_never_word_salad():
    assert salad_z("Valerie Owens Biden") is None and not is_word_salad("Valerie Owens Biden")
    french = "Le gouvernement a adopté lundi le projet de loi sur le budget de l'État pour l'année prochaine."
    assert salad_z(french) is None
    assert salad_z(" ".join(reversed(french.split()))) is None


def test_czech_has_its_own_table():
    real = "Vláda v pondělí schválila návrh zákona o státním rozpočtu na příští rok."
    salad = "rok. zákona v na státním pondělí Vláda návrh schválila o rozpočtu příští"
    assert not is_word_salad(real) and is_word_salad(salad)


def test_the_test_is_deterministic_and_pure():
    from ev2r.facts import word_order

    first = salad_z(SALAD)
    word_order._judge.cache_clear()
    assert salad_z(SALAD) == first  # recomputed: the permutations are seeded by the text


def test_word_salad_is_no_predicted_pair_but_stays_in_the_reference():
    """With the word-order rule family in force (the default; with_rules keeps the test on it if it is retired)."""
    from ev2r.metric.admission import with_rules

    with with_rules("word_salad"):
        _salad_is_no_predicted_pair()


def _salad_is_no_predicted_pair():
    claim = "SinoVac COVID-19 vaccine (CoronaVac) has an efficacy rate of 91.25% in Indonesia."
    q = "Which country shows the SinoVac COVID-19 vaccine (CoronaVac) efficacy rate at 91.25%?"
    ev = Evidence((QAPair(q, SALAD), QAPair(q, REAL)))
    assert [k for k, _ in evidence_pairs(ev, claim)] == [1]  # the predicted side: the salad is no pair
    assert [k for k, _ in evidence_pairs(ev)] == [0, 1]  # the reference side reads every answer


def test_the_handed_word_salad_rows_are_caught_and_their_references_are_not():
    path = SHARED_CASES / "turn4" / "gaming" / "G4_word_salad.jsonl"
    if not path.exists():
        pytest.skip(f"{path} is not beside the repository")
    from ev2r.io.readers import read_items

    items = {it.id: it for it in read_items(path)}
    judged = 0
    for key, it in items.items():
        for p in it.predicted_evidence.pairs:
            r = salad_z(p.answer)
            if r is None:
                continue
            judged += 1
            assert is_word_salad(p.answer) == key.endswith("ref_shuffled"), (key, p.answer, r)
    assert judged >= 4
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert {r["id"] for r in rows} == set(items)


def test_the_shipped_tables_are_what_the_script_builds_from_the_shared_data(tmp_path):
    from support.modules import load_file_module
    from support.paths import REPO, SHARED_DATA

    if not (SHARED_DATA / "vitaminc" / "vitaminc_real_test.jsonl").exists():
        pytest.skip(f"{SHARED_DATA} is not beside the repository")
    script = load_file_module("build_word_order_table", REPO / "scripts" / "build_word_order_table.py")
    assert script.main(["--data-dir", str(SHARED_DATA), "--out", str(tmp_path)]) == 0
    for lang in ("en", "cs"):
        with np.load(tmp_path / f"word_order_{lang}.npz") as built, \
                np.load(REPO / "ev2r" / "facts" / "data" / f"word_order_{lang}.npz") as shipped:
            for key in ("vocab", "rows", "cols", "counts"):
                assert np.array_equal(built[key], shipped[key]), (lang, key)
    licence = (REPO / "ev2r" / "facts" / "data" / "WORD_ORDER_LICENSE").read_text(encoding="utf-8")
    assert "CC BY-SA 3.0" in licence and "No AVeriTeC text" in licence


def test_a_space_more_is_the_same_text():
    table = "Year 2019 2020 2021\nGDP 2.3 -3.4 5.7\nInflation 1.8 1.2 4.7"
    assert salad_z(table) == salad_z(table + " ") == salad_z(" " + table.replace(" ", "  "))
    assert salad_z(SALAD) == salad_z(SALAD + "  ")


def test_order_free_text_is_not_judged():
    # every order scores alike: the order says nothing either way (before: z of rounding noise, 6 numbers "salad")
    for text in ("1 2 3 4 5 6", "the the the the the the the the the the", "2021 2022 2023 2024 2025 2026 2027"):
        assert salad_z(text) is None and not is_word_salad(text)


def test_numbers_and_punctuation_alone_are_read_by_the_english_table():
    text = "2019: 3.5%; 2020: 8.1%; 2021: 5.4%; 2022: 3.6%"
    expected = load_model("en").z(text, [text])
    assert salad_z(text) == (expected[0], expected[1])


def test_any_str_is_judged_and_other_types_are_a_clear_error():
    assert salad_z("The bill \ud800 was signed into law by the governor on 3 May 2021.") is not None  # lone surrogate
    for bad in (None, 3, b"The bill was signed."):
        with pytest.raises(TypeError, match=r"answer: expected str, got "):
            is_word_salad(bad)  # type: ignore[arg-type]


def test_a_sentence_without_end_is_read_up_to_its_cap():
    from ev2r.facts.word_order import MAX_SENTENCE_WORDS

    words = " ".join(f"item{i}" if i % 3 else "the" for i in range(5 * MAX_SENTENCE_WORDS))
    r = salad_z(words)
    assert r is not None and r[1] == MAX_SENTENCE_WORDS


def test_a_salad_sentence_behind_a_fluent_one_is_cut_and_the_fluent_one_kept():
    from adversarial.perturbations.gaming import PROSE_LEAD
    from ev2r.facts.word_order import judge, strip_word_salad

    answer = f"{PROSE_LEAD} {SALAD}"
    j = judge(answer)
    assert j.sentences == (PROSE_LEAD, SALAD)
    # judged as a whole, the fluent sentence carries the salad (issue 32's shuffled_reference_behind_prose) ...
    assert not j.is_salad and j.answer is not None and j.answer[1] == len(answer.split())
    # ... judged on its own, the salad sentence is word salad and the fluent one is not
    assert j.salad_sentences == (False, True)
    assert strip_word_salad(answer) == PROSE_LEAD
    # the per-sentence z is the pooled statistic of that sentence alone: diff / sqrt(var) of the same draws
    stats = load_model("en").stats(answer, j.sentences)
    assert all(st is not None for st in stats)
    assert j.per_sentence == tuple((st[0] / st[1] ** 0.5, st[2]) for st in stats)  # type: ignore[index]
    pooled = (stats[0][0] + stats[1][0]) / (stats[0][1] + stats[1][1]) ** 0.5  # type: ignore[index]
    assert math.isclose(j.answer[0], pooled, rel_tol=1e-12)


def test_strip_word_salad_leaves_prose_as_it_is_and_drops_an_answer_of_salad():
    from ev2r.facts.word_order import strip_word_salad

    two = f"{REAL} {REAL}"
    assert strip_word_salad(REAL) is REAL and strip_word_salad(two) is two  # the same object: nothing cut
    assert strip_word_salad(SALAD) == ""
    assert strip_word_salad("Valerie Owens Biden") == "Valerie Owens Biden"  # too short to judge
    with pytest.raises(TypeError, match=r"answer: expected str, got int"):
        strip_word_salad(3)  # type: ignore[arg-type]


def test_a_one_sentence_answer_gets_one_verdict():
    from ev2r.facts.word_order import judge

    for text in (REAL, SALAD):
        j = judge(text)
        assert len(j.sentences) == 1 and j.per_sentence == (j.answer,)
        assert j.salad_sentences == (j.is_salad,)


def test_the_fluent_sentence_before_salad_is_the_predicted_pair_left_when_it_is_about_the_claim():
    from ev2r.metric.admission import with_rules

    with with_rules("word_salad"):  # whether or not the family is retired from the default
        _fluent_lead_left()


def _fluent_lead_left():
    from adversarial.perturbations.gaming import PROSE_LEAD

    claim = "SinoVac COVID-19 vaccine (CoronaVac) has an efficacy rate of 91.25% in Indonesia."
    q = "Which country shows the SinoVac COVID-19 vaccine (CoronaVac) efficacy rate at 91.25%?"
    ev = Evidence((QAPair(q, f"{REAL} {SALAD}"), QAPair(q, f"{PROSE_LEAD} {SALAD}")))
    kept = evidence_pairs(ev, claim)
    # REAL holds 5 of the claim's 9 content words; the lead holds none of them: what is left of a
    # salad answer must be about the claim itself, the question it sits under does not make it so
    assert [(k, p.answer) for k, p in kept] == [(0, REAL)]
    assert [p.answer for _, p in evidence_pairs(ev)] == [p.answer for p in ev.pairs]  # the reference side: as written


def test_a_sentence_in_another_language_does_not_hide_the_salad_beside_it():
    # a breaker's finding: the Spanish sentence put the answer under half coverage, and then no sentence was judged
    from ev2r.facts.word_order import judge, strip_word_salad

    spanish = ("Según el informe oficial publicado por el gobierno el lunes, esto fue lo que se encontró en la "
               "investigación realizada durante varios meses por expertos independientes.")
    answer = f"{spanish} {SALAD}"
    j = judge(answer)
    assert j.answer is None and not is_word_salad(answer)  # the answer as a whole: not judged, as before
    assert j.per_sentence[0] is None and j.salad_sentences == (False, True)  # the English salad sentence is
    assert strip_word_salad(answer) == spanish
    french = "Le gouvernement a adopté lundi le projet de loi sur le budget de l'État pour l'année prochaine."
    assert strip_word_salad(f"{french} {french}") == f"{french} {french}"  # text no table covers: never cut


# the words of REAL shuffled (adversarial.perturbations.words.shuffle_sentence, seed 0): z 0.12 on its own
SALAD0 = ("announced Sinovac preliminary finding company that small of based vaccine percent, results Thursday clinical "
          "the Turkish but has the an from a 91.25 efficacy from was Chinese a on officials rate trial.")


def test_a_premise_supports_a_fact_only_when_they_share_a_content_word():
    from ev2r.metric.reference import NLIReferenceScorer, shares_content
    from ev2r.types import Item

    assert shares_content("This claim was made in 04/01/2021.", "Question: When?\nAnswer: It was made on 04/01/2021.")
    assert not shares_content("Amanda Wilcox made the claim.", "Question: Does sunscreen protect the skin?\nAnswer: Yes, "
                              "sunscreen protects the skin from sun damage.")
    assert shares_content("He said it.", "Anything at all.")  # no content word to anchor: not decided here

    class EntailsEverything:  # the verifier's worst case: every pair read as entailment
        name = "entails-everything"

        def predict(self, premises, hypotheses):
            return np.tile([0.9, 0.05, 0.05], (len(premises), 1))

    class AnswerFacts:
        name = "answers"

        def decompose(self, evidence, claim=""):
            from ev2r.types import AtomicFact
            return [AtomicFact(p.answer, k) for k, p in enumerate(evidence.pairs)]

    claim = "Sunscreens cause cancer, not the sun."
    ref = Evidence((QAPair("Who made the claim?", "Amanda Wilcox made the claim."),
                    QAPair("Do sunscreens cause cancer?", "No study found that sunscreens cause cancer.")))
    pred = Evidence((QAPair("Does sunscreen cause cancer?", "Studies of sunscreens found no cancer risk."),))
    item = Item(id="a", claim=claim, predicted_evidence=pred, reference_evidence=ref)
    (res,) = NLIReferenceScorer(EntailsEverything(), AnswerFacts(), calibration=None).score_reference([item])
    # the Wilcox fact shares no content word with the predicted pair: not checked, unsupported, whatever the
    # verifier would have said; the cancer fact is checked and supported
    assert [f.supported for f in res.reference_facts] == [False, True]
    assert res.reference_facts[0].decided_by is None and res.recall == 0.5


def test_salad_cut_into_short_lines_or_sentences_is_judged_as_a_run():
    from adversarial.perturbations.gaming import PROSE_LEAD
    from ev2r.facts.word_order import judge, strip_word_salad

    words = [w.rstrip(".!?") or w for w in SALAD0.split()]  # 31 words
    lines3 = "\n".join(" ".join(words[i:i + 3]) for i in range(0, len(words), 3))
    j = judge(lines3)
    # no line has the 4 words a sentence needs to be tested, so the answer as a whole is not judged ...
    assert j.answer is None and all(r is None for r in j.per_sentence) and len(j.sentences) == 11
    # ... but the lines follow each other and are judged together: every one is salad
    assert j.short_runs == (True,) * 11 and strip_word_salad(lines3) == ""
    short5 = " ".join(" ".join(words[i:i + 5]) + "." for i in range(0, len(words), 5))
    assert strip_word_salad(f"{PROSE_LEAD} {short5}") == PROSE_LEAD
    # the same lines of the real sentence are not salad, nor are short real sentences in a row
    real = [w.rstrip(".!?") or w for w in REAL.split()]
    real3 = "\n".join(" ".join(real[i:i + 3]) for i in range(0, len(real), 3))
    prose = "Yes. It is true. He said so. The vote was held. Then it passed."
    for text in (real3, prose):
        assert not any(judge(text).salad_sentences) and strip_word_salad(text) is text


def test_a_markdown_table_is_not_prose_and_not_word_salad():
    from ev2r.facts.word_order import judge, strip_word_salad

    table = ("Inflation by year:\n| Year | Rate | Jobs |\n|---|---|---|\n| 2019 | 3.5% | 12,000 |\n"
             "| 2020 | 4.1% | 9,500 |\n| 2021 | 5.2% | 14,200 |")
    j = judge(table)
    # the rows are not tested (nor run together as short sentences); "Inflation by year:" alone is too short
    assert j.answer is None and not any(j.salad_sentences) and strip_word_salad(table) is table
    # what the boilerplate rule leaves (rows joined, the header row dropped) is kept as the predicted pair too
    claim = "Inflation rate reached 5.2% in 2021 in the United States."
    kept = evidence_pairs(Evidence((QAPair("What was the inflation rate in 2021?", table),)), claim, relevant=True)
    assert len(kept) == 1 and "| 2021 | 5.2% | 14,200 |" in kept[0][1].answer


def test_salad_joined_by_one_filler_word_is_judged_without_it():
    from ev2r.facts.word_order import FILLER_SHARE, judge, strip_word_salad

    words = [w.rstrip(".!?,") for w in SALAD0.split()]
    for filler in (", and ", " and ", " of the "):
        text = filler.join(words) + "."
        j = judge(text)
        # the filler at every other place is an order no random one has: as written the sentence passes ...
        assert j.answer is not None and not j.is_salad and j.per_sentence[0] is not None
        # ... and without the filler it is the salad it was
        assert j.filler_salad == (True,) and strip_word_salad(text) == ""
    # prose whose most frequent word is a third of its words stays prose without it
    prose = "The higher the concentration of the compound used, the more cells died."
    assert prose.lower().split().count("the") / len(prose.split()) >= FILLER_SHARE
    assert judge(prose).filler_salad == (False,) and strip_word_salad(prose) is prose
