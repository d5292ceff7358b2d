"""The rule decomposers on real-evidence shapes: AVeriTeC's
Unanswerable answers, answer-only pairs, content-free answers; the same rules in rules-v1 and v2."""

from __future__ import annotations

import pytest

from ev2r.facts.rules import DeclarativeDecomposer, RuleBasedDecomposer, get_rule_decomposer
from ev2r.io import evidence_from_text
from ev2r.types import Evidence

UNANSWERED = ("Question: Did France24 do a news item about the claim?\nAnswer: No answer could be found.\n\n"
              "Question: What did the ministry say?\nAnswer: The ministry denied the report.")


@pytest.mark.parametrize("cls", [RuleBasedDecomposer, DeclarativeDecomposer])
def test_unanswerable_pair_gives_no_fact_by_default(cls):
    facts = [f.text for f in cls().decompose(evidence_from_text(UNANSWERED))]
    assert len(facts) == 1 and "ministry denied the report" in facts[0]
    # before: rules-v2 read the "No" as a denial and emitted "Answer could be found."
    assert not any("could be found" in f or "did not do" in f for f in facts)


@pytest.mark.parametrize("cls", [RuleBasedDecomposer, DeclarativeDecomposer])
def test_an_unanswerable_pair_is_signed_drop_and_the_statement_mode_is_gone(cls):
    # "statement" (one fact saying no answer was found) left in 2.0; commit e43eb97 computes it
    assert cls().signature_fields()["unans"] == "drop"
    with pytest.raises(TypeError, match="unanswerable"):
        cls(unanswerable="statement")
    with pytest.raises(TypeError, match="unanswerable"):
        get_rule_decomposer("rules", unanswerable="statement")


@pytest.mark.parametrize("name", ["rules-v1", "rules-v2"])
def test_answer_only_pairs_give_facts(name):
    # 29 of 278 shared-task predictions are written "Question: \nAnswer: ...": before, the answer was read
    # as the question and the prediction had no fact (precision 0.0, status ok: a silent zero)
    ev = evidence_from_text("Question: \nAnswer: The CDC said 6% of deaths listed COVID-19 alone. "
                            "Other conditions were listed too.")
    facts = [f.text for f in get_rule_decomposer(name).decompose(ev)]
    assert facts == ["The CDC said 6% of deaths listed COVID-19 alone.", "Other conditions were listed too."]


@pytest.mark.parametrize("name", ["rules-v1", "rules-v2"])
def test_answer_on_the_question_line_gives_the_same_facts(name):
    d = get_rule_decomposer(name)
    two = d.decompose(evidence_from_text("Question: What is the population of Kerala?\nAnswer: 33,387,677 in 2011."))
    one = d.decompose(evidence_from_text("question: What is the population of Kerala? answer: 33,387,677 in 2011."))
    assert [f.text for f in one] == [f.text for f in two] and two


# --- scraped web pages: the boilerplate test ---------------------------------------------------------------

import warnings  # noqa: E402

from ev2r.facts.rules import boilerplate_reason, prose_pieces  # noqa: E402

REAL = "The ministry denied the report on Monday, saying the figures had been invented by a blog."
MENU = ("Question: What did the ministry say?\nAnswer: Home | News | Sport | Business | Climate | Contact us\n\n"
        "English Español Français Deutsch 中文 Русский العربية\n\n" + REAL)
# 1,500 characters of ordinary news prose, proper nouns and numbers included (nothing in it is boilerplate)
PROSE = (
    "The Centers for Disease Control and Prevention said on Wednesday that 6% of the deaths involving COVID-19 "
    "listed no other condition on the death certificate. Some people took that to mean that the other 94% of "
    "deaths were caused by something else, which is not what the agency said. Death certificates often list "
    "several conditions, and the agency counted 2.6 additional conditions per death on average. Doctors write "
    "down the chain of events that led to a death, so pneumonia or respiratory failure caused by the virus is "
    "listed beside it. People over the age of 65 and those with diabetes, heart disease or obesity were more "
    "likely to die after an infection, as the agency had reported since the spring of 2020. Twitter removed a "
    "post that promoted the false reading of the figures, after it had been shared by President Donald Trump "
    "to his 85.6 million followers. Public health experts in New York, London and Prague said the statistic "
    "had been misunderstood rather than hidden. The agency publishes its weekly counts on its website, with "
    "notes that explain how the certificates are coded. In a statement, a spokesperson said the figures had "
    "not been updated quietly and that the methods had been the same since the start of the pandemic. The "
    "National Center for Health Statistics, which compiles the data, said that it would add a short "
    "explanation to its tables. Fact-checkers at several newspapers reached the same conclusion within a day, "
    "and the claim was rated false by three of them before the end of the week.")
CZECH = ("Vláda v pondělí schválila návrh zákona o státním rozpočtu na příští rok, který počítá se schodkem "
         "282 miliard korun. Ministr financí Zbyněk Stanjura uvedl, že Česká národní banka i Evropská komise "
         "s tímto schodkem souhlasí.")


def test_prose_is_long_enough_to_matter():
    assert len(PROSE) >= 1500


@pytest.mark.parametrize("cls", [RuleBasedDecomposer, DeclarativeDecomposer])
def test_menu_answer_keeps_only_its_real_sentence(cls):
    ev = evidence_from_text(MENU)
    on = [f.text for f in cls(boilerplate=True).decompose(ev)]
    assert len(on) == 1 and "The ministry denied the report on Monday" in on[0]
    # the test is what removes the menu: without it the menu and the language list are facts
    off = [f.text for f in cls(boilerplate=False).decompose(ev)]
    assert any("Sport" in f for f in off) and any("中文" in f for f in off) and len(off) == 3


@pytest.mark.parametrize("cls", [RuleBasedDecomposer, DeclarativeDecomposer])
@pytest.mark.parametrize("text", [PROSE, CZECH], ids=["english-1500-chars", "czech"])
def test_prose_keeps_all_its_facts(cls, text):
    ev = evidence_from_text(f"Question: \nAnswer: {text}")
    off = [f.text for f in cls(boilerplate=False).decompose(ev)]
    assert [f.text for f in cls(boilerplate=True).decompose(ev)] == off
    assert len(off) >= (10 if text is PROSE else 2)


def test_glued_scraped_page_keeps_the_prose_at_its_end():
    # the shape of the 144 rows' row 123 (a 3,327-character Urban Institute page): a menu of link labels,
    # text nodes glued without a space ("byRelevanceDate", "2017The"), one real sentence at the end
    labels = ("Research Areas Aging and retirement Artificial intelligence Child welfare Children and youth Crime "
              "Disability Equity Policy Economic Mobility Education Families Global Issues Greater DC Health "
              "Housing Housing Finance Immigration Land Use Neighborhoods Nonprofits Race and Equity ")
    sentence = ("The gap in the homeownership rate between black and white families in the US is bigger today "
                "than it was in 1968")
    page = f"Reducing the Racial Homeownership Gap | Urban Institute Skip to main content Sort byRelevanceDate " \
           f"{labels}Further Reading American Community Survey, 2017{sentence}"
    assert boilerplate_reason(page) == "glued"
    assert prose_pieces(page) == [sentence]
    facts = DeclarativeDecomposer(boilerplate=True).decompose(evidence_from_text(f"Question: \nAnswer: {page}"))
    assert [f.text for f in facts] == [sentence]


@pytest.mark.parametrize("unit, reason", [
    ("Home | News | Sport | Weather | Contact us", "separators"),
    ("Reducing the Racial Homeownership Gap | Urban Institute", None),  # a page title: one separator
    ("Home › Politics › Elections › 2020 › Results", "separators"),
    ("English Español Français 中文 Русский", "languages"),
    ("Risk of AutismThimerosal FAQsRelated Scientific ArticlesInfant and Environmental Exposures StudyTimeline",
     "glued"),
    # not boilerplate: a headline, a date alone (an answer to "when?"), a long list that punctuates,
    # a sentence quoting one name in another script, brands with an inner capital
    ("44 African Countries Sign Agreement to Establish African Continental Free Trade Area", None),
    ("March 3, 2021", None),
    ("Alaska, Arizona, District of Columbia, Florida, Georgia, Hawaii, Idaho, Illinois, Iowa, Kansas, Maine, "
     "Maryland, Massachusetts, Michigan, Minnesota, Montana, Nebraska, Nevada, New Hampshire, New Jersey", None),
    ("The mayor of Moscow (Москва) met the delegation on Friday.", None),
    ("McDonald's sold the iPhone case at a McLaren event.", None),
    # v2 (../shared/cases/turn4/text/boilerplate_false_positives.jsonl): native-script names in
    # English prose, words quoted in two other scripts, a numeric table, slash-separated names in a sentence
    ("Kerala's population (കേരളം) is 3,33,87,677 according to the 2011 census (जनगणना).", None),
    ("The Russian word мир and the Chinese word 和平 both mean peace.", None),
    ("Unemployment: 2019 | 3.5% | 2020 | 8.1% | 2021 | 5.4%", None),
    ("COVID-19 vaccines: Pfizer-BioNTech / Moderna / Johnson&Johnson / AstraZeneca are authorised in the EU.", None),
    ("Kerala (കേരളം, केरल) is a state.", None),
    ("Home / News / Sport / Weather", "separators"),  # a slash breadcrumb is still a menu
    ("English Español 中文 Русский العربية The Senate passed the bill.", "languages"),  # the gaming suite's script hiding
])
def test_boilerplate_reason(unit, reason):
    assert boilerplate_reason(unit) == reason


def test_boilerplate_changes_the_signature_only_when_on():
    # on by default: score files written before the test (no "boiler" field) do not mix with new ones
    for name in ("rules-v1", "rules-v2"):
        rev = {"v2-rev": "2"} if name == "rules-v2" else {}
        assert get_rule_decomposer(name).signature_fields() == {"decomp": name, **rev, "unans": "drop", "boiler": "v2"}
        assert get_rule_decomposer(name, boilerplate=False).signature_fields() == {"decomp": name, **rev, "unans": "drop"}


def test_scraped_pages_of_the_shared_task_rows(shared_data):
    from ev2r.io.readers import read_items

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the reader's layout notes for these rows, tested in tests/ev2r/io
        items = {it.row: it for it in read_items(shared_data / "ev2r_human_eval/averitec_shared_task_dev.jsonl")}
    on, off = DeclarativeDecomposer(), DeclarativeDecomposer(boilerplate=False)
    page = on.decompose(items[123].predicted_evidence)
    assert [f.text for f in page if f.pair_index == 2] == [
        "The gap in the homeownership rate between black and white families in the US is bigger today than it was "
        "when it was legal to refuse to sell someone a home because of the color of their skin."]
    # row 6: a glued CDC menu (354 characters) gives no fact; every other pair keeps its facts
    menu, kept = on.decompose(items[6].predicted_evidence), off.decompose(items[6].predicted_evidence)
    assert not [f for f in menu if f.pair_index == 0] and [f for f in kept if f.pair_index == 0]
    assert [f.text for f in menu] == [f.text for f in kept if f.pair_index != 0]


def test_boilerplate_false_positives_case_file_gives_facts():
    """Each sentence of the handed case file is one atomic fact of its own."""
    import json

    from support.paths import SHARED_CASES

    path = SHARED_CASES / "turn4" / "text" / "boilerplate_false_positives.jsonl"
    if not path.is_file():
        pytest.skip(f"case file not here: {path}")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) == 4
    for row in rows:
        facts = DeclarativeDecomposer(boilerplate=True).decompose(evidence_from_text(f"Question: \nAnswer: {row['sentence']}"))
        assert [f.text for f in facts] == [row["sentence"]], row["id"]


# "No answer could be found. (Searched the site.)" once gave the fact "Answer could be found." (and with rules-v2 the
# denial "Amazon did not remove Parler."): an Unanswerable sentence is no fact wherever it stands; the rest is read
UNANSWERABLE_AMONG_TEXT = [
    ("No answer could be found. (Searched the site.)", "Searched the site"),
    ("Searched the site. No answer could be found.", "Searched the site"),
    ("(No answer could be found.) The mayor said so on 3 May.", "The mayor said so on 3 May"),
    ("The page was down; no answer found.", "The page was down"),
    ("No answer found\u2026 Parler moved to another host in 2021.", "Parler moved to another host in 2021"),
]


@pytest.mark.parametrize("name", ["rules-v1", "rules-v2"])
@pytest.mark.parametrize("answer,rest", UNANSWERABLE_AMONG_TEXT)
def test_an_unanswerable_sentence_among_text_is_no_fact(name, answer, rest):
    from ev2r.types import QAPair

    facts = [f.text for f in get_rule_decomposer(name).decompose(
        Evidence((QAPair("Did Amazon remove Parler from its hosting services?", answer),)))]
    assert len(facts) == 1 and rest in facts[0]
    assert not any("answer" in f.lower().replace("did amazon", "") or "did not remove" in f for f in facts)
