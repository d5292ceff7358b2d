"""The one Q/A text reader (ev2r.io.qa_text; claimalign.qa_text before 2.0): markers in any case, an answer on the
question's line, answer-only pairs, blocks without an answer marker, and the layout notes readers warn with.
Case file: turn3/answer_on_question_line.jsonl (the same content in two layouts must read alike)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, strategies as st

from ev2r.io.qa_text import LAYOUT_NOTES, parse_qa_text
from claimalign.words import has_content, is_unanswerable, strip_unanswerable
from support.paths import TESTS

CASES = TESTS / "data" / "cases" / "turn3"


def test_standard_blocks():
    text = "Question: Who won?\nAnswer: Bob won.\n\nQuestion: Where?\nAnswer: In Paris.\n"
    notes = set()
    assert parse_qa_text(text, notes) == [("Who won?", "Bob won."), ("Where?", "In Paris.")]
    assert notes == set()


@pytest.mark.parametrize("text", [
    "Question: What is the population of Kerala? Answer: 33,387,677 in 2011.",
    "question: What is the population of Kerala?\nanswer: 33,387,677 in 2011.",
    "QUESTION : What is the population of Kerala?\nANSWER : 33,387,677 in 2011.",
    "  Question: What is the population of Kerala?\n  Answer:33,387,677 in 2011.",
])
def test_marker_anywhere_any_case(text):
    assert parse_qa_text(text) == [("What is the population of Kerala?", "33,387,677 in 2011.")]


def test_inline_answer_is_noted():
    notes = set()
    parse_qa_text("Question: Who? Answer: Bob.", notes)
    assert notes == {"answer_inline"}


def test_answer_only_pair_is_plain_text_evidence():
    # 29 of 278 shared-task predictions: "Question: \nAnswer: ..." read the answer as the question
    assert parse_qa_text("Question: \nAnswer: The CDC said 6% of deaths.") == [("", "The CDC said 6% of deaths.")]
    assert parse_qa_text("Question:\nAnswer: A.\n\nQuestion: Q?\nAnswer: B.") == [("", "A."), ("Q?", "B.")]


def test_no_answer_marker():
    notes = set()
    assert parse_qa_text("Question: Who won?\nBob won the race.", notes) == [("Who won?", "Bob won the race.")]
    assert notes == {"no_answer_marker"}
    notes = set()
    assert parse_qa_text("Question: Who won? Bob did.", notes) == [("Who won?", "Bob did.")]
    assert notes == {"no_answer_marker"}
    notes = set()
    assert parse_qa_text("Question: Who won?", notes) == [("Who won?", "")]  # no answer text at all
    assert notes == set()


def test_multi_line_question_is_noted_and_kept_whole():
    notes = set()
    pairs = parse_qa_text("Question: In the annual\nreport, are cases listed?\nAnswer: No.", notes)
    assert pairs == [("In the annual\nreport, are cases listed?", "No.")]
    assert notes == {"multi_line_question"}
    assert set(LAYOUT_NOTES) == {"answer_inline", "multi_line_question", "no_answer_marker", "marker_layout", "json_pairs"}


def test_plain_text_and_leading_text():
    assert parse_qa_text("Paris is in France.") == [("", "Paris is in France.")]
    assert parse_qa_text("Intro.\nQuestion: Q?\nAnswer: A.") == [("", "Intro."), ("Q?", "A.")]
    assert parse_qa_text("  \n ") == []
    with pytest.raises(ValueError, match="text: expected a string"):
        parse_qa_text(None)  # type: ignore[arg-type]


def test_case_file_same_content_same_pairs():
    rows = [json.loads(line) for line in (CASES / "answer_on_question_line.jsonl").read_text().splitlines() if line]
    parsed = {r["id"]: parse_qa_text(r["predicted_evidence"]) for r in rows}
    two = parsed["two_lines/supported"]
    assert two == [("What is the population of Kerala?",
                    "The population of Kerala was 33,387,677 in the 2011 census.")]
    for rid, pairs in parsed.items():
        assert pairs == two, rid


@pytest.mark.parametrize("text,expected", [("...", False), ("?!?!", False), ("\U0001f642\U0001f44d", False),
                                           (" \t ", False), ("", False), (None, False), ("a", True), ("7", True),
                                           ("Čř", True), ("中文", True), ("٣", True)])
def test_has_content(text, expected):
    assert has_content(text) is expected


@pytest.mark.parametrize("text,expected", [("No answer could be found.", True), ("no answer could be found", True),
                                           ("  No answer could be found. ", True), ("No.", False),
                                           ("No answer could be found in 2019 reports.", False), ("", False)])
def test_is_unanswerable(text, expected):
    assert is_unanswerable(text) is expected


@given(st.lists(st.tuples(st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=30),
                          st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=30)),
                min_size=1, max_size=4))
def test_rendered_pairs_read_back(pairs):
    """Text rendered the AVeriTeC way reads back as the same pairs, whatever the pairs' text
    (when neither side holds a marker or a line break, and the answer is not empty)."""
    import re
    import unicodedata

    clean = []
    for q, a in pairs:
        # text is read NFC-normalised (an NFD or compatibility form reads as its NFC form)
        q, a = (unicodedata.normalize("NFC", re.sub(r"(?i)(question|answer)\s*:|\s+", " ", x)).strip()
                for x in (q, a))
        if q and a:
            clean.append((q, a))
    if not clean:
        return
    text = "\n\n".join(f"Question: {q}\nAnswer: {a}" for q, a in clean)
    assert parse_qa_text(text) == clean


@pytest.mark.parametrize("text", [
    "Question: Who won?\n\u00a0Answer: Anna won.",          # NBSP before a line-start marker
    "Question: Who won?\n\u200bAnswer: Anna won.",          # zero-width space (copy-pasted web text)
    "Question:Who won?Answer:Anna won.",                    # no space before an inline marker
    "Question: Question: Who won? Answer: Anna won.",       # a repeated marker
    "Question: Who won?\nAnswer: Answer: Anna won.",
])
def test_hostile_layouts(text):
    assert parse_qa_text(text) == [("Who won?", "Anna won.")]


@pytest.mark.parametrize("pad", ["\u00a0", "\u200b", "\ufeff"])
def test_second_block_after_invisible_characters_is_split(pad):
    assert parse_qa_text(f"Question: A?\nAnswer: a.\n\n{pad}Question: B?\nAnswer: b.") == [("A?", "a."), ("B?", "b.")]


@pytest.mark.parametrize("text", ["No answer could be found..", "No  answer  could be found.",
                                  "No\u00a0answer could be found.", "No answer could be found.\u200b",
                                  "\u201cNo answer could be found.\u201d", "No answer could be found ."])
def test_unanswerable_variants(text):
    assert is_unanswerable(text)


# an Unanswerable sentence followed (or preceded) by more text is no text of the answer wherever it stands
@pytest.mark.parametrize("text,expected", [
    ("No answer could be found. (Searched the site.)", "(Searched the site.)"),
    ("(No answer could be found.) The mayor said so on 3 May.", "The mayor said so on 3 May."),
    ("Searched the site. No answer could be found.", "Searched the site."),
    ("The page was down; no answer found.", "The page was down."),
    ("It rained. No answer could be found\u2026 It snowed.", "It rained. It snowed."),
    ("\u201cNo answer could be found.\u201d He said so.", "He said so."),
    ("No answer could be found.\nThe U.S. office closed in 2019.", "The U.S. office closed in 2019."),
    ("No answer could be found in the sources. Yes.", "Yes."),
    ("No answer could be found, but the minister denied it.", "No answer could be found, but the minister denied it."),
    ("No evidence was found that the ship carried bodies.", "No evidence was found that the ship carried bodies."),
    ("No answer could be found. No answer found.", ""),
    ("", ""),
])
def test_strip_unanswerable_wherever_it_stands(text, expected):
    assert strip_unanswerable(text) == expected


# the layouts LLM-based systems emit (../shared/cases/turn4/text/llm_layouts.jsonl and more)
LLM_LAYOUTS = {
    "numbered": "1. Question: Who won?\nAnswer: Bob.\n\n2. Question: Where?\nAnswer: Paris.",
    "numbered_paren": "1) Question: Who won?\n   Answer: Bob.\n2) Question: Where?\n   Answer: Paris.",
    "markdown": "**Question:** Who won?\n**Answer:** Bob.\n\n**Question:** Where?\n**Answer:** Paris.",
    "markdown_outside": "**Question**: Who won?\n**Answer**: Bob.\n\n**Question**: Where?\n**Answer**: Paris.",
    "question_n": "Question 1: Who won?\nAnswer 1: Bob.\n\nQuestion 2: Where?\nAnswer 2: Paris.",
    "question_n_inline": "Question 1: Who won? Answer 1: Bob.\nQuestion 2: Where? Answer 2: Paris.",
    "bullet": "- Question: Who won?\n- Answer: Bob.\n\n- Question: Where?\n- Answer: Paris.",
    "star_bullet": "* Question: Who won?\n  * Answer: Bob.\n* Question: Where?\n  * Answer: Paris.",
    "short": "Q: Who won?\nA: Bob.\n\nQ: Where?\nA: Paris.",
    "short_numbered": "Q1: Who won?\nA1: Bob.\nQ2: Where?\nA2: Paris.",
    "quoted": "> Question: Who won?\n> Answer: Bob.\n>\n> Question: Where?\n> Answer: Paris.",
    "fullwidth_colon": "Question\uff1a Who won?\nAnswer\uff1a Bob.\n\nQuestion\uff1a Where?\nAnswer\uff1a Paris.",
    "heading": "### Question 1: Who won?\nAnswer: Bob.\n\n### Question 2: Where?\nAnswer: Paris.",
    "hash_numbered": "Question #1: Who won?\nAnswer #1: Bob.\nQuestion #2: Where?\nAnswer #2: Paris.",
    "paren_numbered": "Question (1): Who won?\nAnswer (1): Bob.\nQuestion (2): Where?\nAnswer (2): Paris.",
    "short_markdown": "**Q:** Who won?\n**A:** Bob.\n\n**Q:** Where?\n**A:** Paris.",
    "numbered_markdown": "1. **Question:** Who won?\n   **Answer:** Bob.\n2. **Question:** Where?\n   **Answer:** Paris.",
}


@pytest.mark.parametrize("name", sorted(LLM_LAYOUTS))
def test_llm_layouts_read_as_the_same_pairs_with_a_note(name):
    notes: set = set()
    assert parse_qa_text(LLM_LAYOUTS[name], notes) == [("Who won?", "Bob."), ("Where?", "Paris.")]
    assert "marker_layout" in notes


def test_the_avertiec_layout_needs_no_marker_repair():
    notes: set = set()
    assert parse_qa_text("Question: Who won?\nAnswer: Bob.\n\nquestion : Where?\nANSWER: Paris.", notes) == \
        [("Who won?", "Bob."), ("Where?", "Paris.")]
    assert notes == set()


def test_short_markers_count_only_in_pairs():
    # a plain answer that happens to start with "A:" is no answer marker without "Q:" lines
    assert parse_qa_text("A: the plan was rejected.") == [("", "A: the plan was rejected.")]
    # numbered prose that is not a Q/A layout stays text
    assert parse_qa_text("1. The plan was rejected.\n2. The vote was held.") == \
        [("", "1. The plan was rejected.\n2. The vote was held.")]


def test_llm_layout_case_file_reads_as_its_reference():
    from support.paths import SHARED_CASES

    path = SHARED_CASES / "turn4" / "text" / "llm_layouts.jsonl"
    if not path.is_file():
        pytest.skip(f"case file not here: {path}")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) >= 5
    for row in rows:
        notes: set = set()
        assert parse_qa_text(row["predicted_evidence"], notes) == parse_qa_text(row["reference_evidence"]), row["id"]
        assert ("marker_layout" in notes) == (not row["id"].endswith(":plain")), row["id"]


# a marker alone on its line -- a Markdown heading ("### Question" / "### Answer"), emphasis, the bare word --
# with its text below reads like the plain layout (once read as one answer-only block: hybrid METEOR off by > 0.05)
HEADING_LAYOUTS = {
    "h3": "### Question\n{q}\n### Answer\n{a}",
    "h2_numbered_blank_lines": "## Question {n}\n\n{q}\n\n## Answer {n}\n\n{a}",
    "h4_colon": "#### Question:\n{q}\n#### Answer:\n{a}",
    "h3_short": "### Q{n}\n{q}\n### A{n}\n{a}",
    "bold_alone": "**Question**\n{q}\n**Answer**\n{a}",
    "bare_words": "Question\n{q}\nAnswer\n{a}",
    "labelled_heading": "### Evidence {n}\n### Question\n{q}\n### Answer\n{a}",
    "labelled_bold": "## Pair {n}\n**Question:** {q}\n**Answer:** {a}",
}


@pytest.mark.parametrize("layout", sorted(HEADING_LAYOUTS))
def test_markdown_heading_layouts_read_like_the_plain_layout(layout):
    pairs = [("Who won the 2019 race?", "Bob won it.\nHe led from the start."), ("Where was it held?", "In Paris.")]
    plain = "\n\n".join(f"Question: {q}\nAnswer: {a}" for q, a in pairs)
    text = "\n\n".join(HEADING_LAYOUTS[layout].format(q=q, a=a, n=n + 1) for n, (q, a) in enumerate(pairs))
    notes: set = set()
    assert parse_qa_text(text, notes) == parse_qa_text(plain) == pairs
    assert notes == {"marker_layout"}  # a repair: counted in the readers' one warning


@pytest.mark.parametrize("text", ["Question\nA\nThe letter A is first.", "He asked a question.\nAnswer\nnone",
                                  "### Notes\nSome text.", "Question:\nWho won?\nAnswer:\nBob."])
def test_plain_text_with_marker_words_is_not_repaired(text):
    notes: set = set()
    pairs = parse_qa_text(text, notes)
    assert notes == set()
    assert pairs == ([("Who won?", "Bob.")] if text.startswith("Question:") else [("", text)])


# question/answer pairs written as JSON inside the evidence text, as LLM systems print them, read as
# the pairs they hold (once read as one block of text, their Hungarian METEOR was far from the plain layout's)
JSON_PAIRS = [("Who won the 2019 race?", "Bob won it.\nHe led from the start."), ("Where was it held?", 'In "Paris".')]
JSON_LAYOUTS = {
    "one_a_line": "\n".join(json.dumps({"question": q, "answer": a}) for q, a in JSON_PAIRS),
    "trailing_commas_blank_lines": "\n\n".join(json.dumps({"question": q, "answer": a}) + "," for q, a in JSON_PAIRS),
    "capitalised_keys_extra_fields": "\n".join(json.dumps({"Question": q, "Answer": a, "url": "http://x.org"})
                                               for q, a in JSON_PAIRS),
    "json_list": json.dumps([{"question": q, "answer": a} for q, a in JSON_PAIRS]),
    "json_list_pretty": json.dumps([{"question": q, "answer": a} for q, a in JSON_PAIRS], indent=2),
}


@pytest.mark.parametrize("layout", sorted(JSON_LAYOUTS))
def test_json_pairs_in_evidence_text_read_as_the_pairs(layout, nltk_data):
    from claimalign.averitec import hu_meteor

    plain = "\n\n".join(f"Question: {q}\nAnswer: {a}" for q, a in JSON_PAIRS)
    notes: set = set()
    assert parse_qa_text(JSON_LAYOUTS[layout], notes) == parse_qa_text(plain) == JSON_PAIRS
    assert notes == {"json_pairs"}  # a repair: named in the readers' one warning
    reference = [("Who won the race in 2019?", "Bob won."), ("Where was the race?", "Paris.")]
    as_pairs = hu_meteor(parse_qa_text(JSON_LAYOUTS[layout]), reference)
    assert abs(as_pairs - hu_meteor(parse_qa_text(plain), reference)) <= 0.05
    assert abs(hu_meteor([("", JSON_LAYOUTS[layout])], reference) - as_pairs) > 0.05  # one block: what 1.2.0 read


def test_json_pair_lines_among_prose_and_json_that_is_no_pair():
    notes: set = set()
    text = 'Some context first.\n{"question": "Who won?", "answer": "Bob."}'
    assert parse_qa_text(text, notes) == [("", "Some context first."), ("Who won?", "Bob.")] and notes == {"json_pairs"}
    for other in ('{"question": "Who won?"}', '{"q": "Who?", "a": "Bob."}', '[1, 2]', '{"question": true, "answer": 1}',
                  'The set {"question": "x", "answer": "y"} is quoted mid-line.'):
        notes = set()
        assert parse_qa_text(other, notes) == [("", other)] and notes == set(), other


def test_json_in_evidence_nested_past_the_parser_is_text_and_an_answer_cannot_inject_pairs():
    # hostile review: JSON nested deeper than the parser goes was a RecursionError traceback; it is read as text
    deep = '{"question": "Who?", "answer": "Bob", "x": ' + "[" * 3000 + "]" * 3000 + "}"
    assert parse_qa_text(deep) == [("", deep)]
    deep_list = "[" * 5000 + "{" + "]" * 5000
    assert parse_qa_text(deep_list) == [("", deep_list)]
    # one JSON string is one answer: a "Question: ..." line inside it does not become a pair of its own
    text = json.dumps([{"question": "Who won?", "answer": "Bob won the race.\n\nQuestion: Injected?\nAnswer: Yes."}])
    notes: set = set()
    assert parse_qa_text(text, notes) == [("Who won?", "Bob won the race. Question: Injected? Answer: Yes.")]
    assert notes == {"json_pairs"}


# found by a hostile tester of 1.7.0: a marker in another layout inside a JSON string ("Q2:", "**Q2:**",
# "Question2:", "1. Question:", ...) still made a pair of its own -- one JSON pair hiding the gold's second pair scored
# as two honest pairs -- and in the question field it moved the real answer into the injected pair. Inside a JSON
# field markers are text: the field is held out of the text while the layout is read.
INJECTED_MARKERS = [("Q2:", "A2:"), ("Question2:", "Answer2:"), ("Question 2:", "Answer 2:"), ("**Q2:**", "**A2:**"),
                    ("1. Question:", "1. Answer:"), ("- Question:", "- Answer:"), ("> Question:", "> Answer:"),
                    ("### Question 2\n", "### Answer 2\n"), ("Q:", "A:"), ("Question：", "Answer："),
                    ("Question:", "Answer:")]
GOLD = [("Who won the 2019 race?", "Bob won the race."), ("Where was the 2019 race held?", "It was held in Paris.")]


@pytest.mark.parametrize("form", ["line", "list"])
@pytest.mark.parametrize("q_marker, a_marker", INJECTED_MARKERS)
def test_markers_inside_a_json_field_are_text_never_a_pair(q_marker, a_marker, form):
    (q1, a1), (q2, a2) = GOLD
    injected = f"\n\n{q_marker} {q2}\n{a_marker} {a2}"
    dump = (lambda obj: json.dumps(obj)) if form == "line" else (lambda obj: json.dumps([obj]))
    # plain text: the markers are the layout, read as two pairs
    assert parse_qa_text(f"Question: {q1}\nAnswer: {a1}{injected}") == GOLD
    # in the answer field: one pair, the injected lines its text
    notes: set = set()
    ((q, a),) = parse_qa_text(dump({"question": q1, "answer": a1 + injected}), notes)
    assert q == q1 and a.startswith(a1) and q2 in a and a2 in a and notes == {"json_pairs"}
    # in the question field: one pair, and the answer stays the answer
    ((q, a),) = parse_qa_text(dump({"question": q1 + injected, "answer": a1}))
    assert a == a1 and q.startswith(q1) and q2 in q and a2 in q


def test_a_json_pair_hiding_a_second_pair_scores_as_one_pair(nltk_data):
    from claimalign.averitec import hu_meteor

    (q1, a1), (q2, a2) = GOLD
    hidden = parse_qa_text(json.dumps([{"question": q1, "answer": f"{a1}\nQ2: {q2}\nA2: {a2}"}]))
    assert hidden == [(q1, f"{a1} Q2: {q2} A2: {a2}")]  # the joined text, as 1.3 meant
    honest = hu_meteor(GOLD, GOLD)
    assert hu_meteor(hidden, GOLD) == hu_meteor([(q1, f"{a1} Q2: {q2} A2: {a2}")], GOLD) < honest - 0.1


def test_a_json_field_keeps_its_text_and_a_repeated_own_marker_goes():
    text = json.dumps({"question": "Question: Who won?", "answer": "Answer: ### Evidence 2\nBob.\n\nHe led."})
    assert parse_qa_text(text) == [("Who won?", "### Evidence 2\nBob.\n\nHe led.")]
    # a JSON string is no JSON pair of the text it stands in
    text = json.dumps({"question": "Who won?", "answer": 'Bob.\n{"question": "Where?", "answer": "Paris."}'})
    assert parse_qa_text(text) == [("Who won?", 'Bob. {"question": "Where?", "answer": "Paris."}')]


# U+2028, U+2029, NEL, VT and FF (and the file / group / record separators, str.splitlines' other breaks)
# between plain-text pairs once merged two pairs into one, with a note about an answer on the question's line
LINE_BREAKS = {"LS": "\u2028", "PS": "\u2029", "NEL": "\x85", "VT": "\x0b", "FF": "\x0c", "FS": "\x1c", "GS": "\x1d",
               "RS": "\x1e"}


@pytest.mark.parametrize("name", sorted(LINE_BREAKS))
def test_other_line_breaks_are_line_breaks_where_pairs_are_read(name):
    br = LINE_BREAKS[name]
    pairs = [("Who won?", "Bob."), ("Where?", "Paris.")]
    notes: set = set()
    assert parse_qa_text(f"Question: Who won?{br}Answer: Bob.{br}{br}Question: Where?{br}Answer: Paris.", notes) == pairs
    assert notes == set()  # nothing was wrong: no note
    assert parse_qa_text(f"Question: Who won?\nAnswer: Bob.{br}Question: Where?\nAnswer: Paris.") == pairs
    notes = set()
    assert parse_qa_text(f"Q1: Who won?{br}A1: Bob.{br}Q2: Where?{br}A2: Paris.", notes) == pairs
    assert notes == {"marker_layout"}  # the repair it needed, and only that
    notes = set()
    lines = br.join(json.dumps({"question": q, "answer": a}) for q, a in pairs)
    assert parse_qa_text(lines, notes) == pairs and notes == {"json_pairs"}
    # inside a JSON string the break is a line break of its field, never a cut of the JSON line
    text = json.dumps({"question": "Who won?", "answer": f"Bob.{br}He led."}, ensure_ascii=False)
    assert parse_qa_text(text) == [("Who won?", "Bob.\nHe led.")]
    assert parse_qa_text(f"Bob won.{br}He led.") == [("", "Bob won.\nHe led.")]


# a JSON pair that is none is never read as one silently: NaN / Infinity are no answer
# text, keys that differ only in case are not resolved by keeping the last, and JSON written as pairs that does not
# parse is named by its entry (each of these once turned the text into one block of plain text, unnamed)
@pytest.mark.parametrize("text, problem", [
    ('{"question": "Q?", "answer": NaN}', " (line 1 of its text).answer: expected a string or a finite number, got NaN"),
    ('[{"question": "Q?", "answer": "A."}, {"question": "Q?", "answer": 1e999}]',
     "[1].answer: expected a string or a finite number, got Infinity"),
    ('[{"question": -Infinity, "answer": "A."}]', "[0].question: expected a string or a finite number, got -Infinity"),
    ('{"question": "Q?", "answer": "a", "Answer": "b"}',
     " (line 1 of its text): keys 'answer' and 'Answer' both give the answer (keys are read in any case); give one"),
    ('[{"Question": "Q?", "question ": "Q2?", "answer": "a"}]',
     "[0]: keys 'Question' and 'question ' both give the question (keys are read in any case); give one"),
    ('[{"question": "Q?", "answer": "a", "answer": "b"}]',
     "[0]: keys 'answer' and 'answer' both give the answer (keys are read in any case); give one"),
    ('[{"question": "Q?", "answer": "A."}, {"question": "Q2?", "answer": "A2.",}]',
     "[1]: not valid JSON (Expecting property name enclosed in double quotes at line 1, column 74 of the text)"),
    ('[\n  {"question": "Q?", "answer": "A."},\n  {"question": "Q2?" "answer": "A2."},\n  {"question": "Q3?", '
     '"answer": "A3."}\n]', "[1]: not valid JSON (Expecting ',' delimiter at line 3, column 22 of the text)"),
    ("[{'question': 'Q?', 'answer': 'A.'}]",
     "[0]: not valid JSON (Expecting property name enclosed in double quotes at line 1, column 3 of the text)"),
    ('[{"question": "Q?", "answer": "A."}] and more', ": not valid JSON (Extra data at line 1, column 38 of the text)"),
    ('Context.\n{"question": "Q?", "answer": "A.",}',
     " (line 2 of its text): not valid JSON (Expecting property name enclosed in double quotes at line 1, column 35 of "
     "the text)"),
    ('[{"question": "Q?", "answer": 1%s}]' % ("0" * 5000), "[0]: holds an integer of more than 4300 digits (Python's limit)"),
])
def test_json_pairs_that_are_none_are_named_never_read_as_text_silently(text, problem):
    from ev2r.io.qa_text import json_pair_problems

    assert json_pair_problems(text) == [problem]
    assert all(a not in ("nan", "inf", "-inf", "b") for _, a in parse_qa_text(text))  # no value invented, none chosen


def test_text_that_only_mentions_json_keys_is_no_problem():
    from ev2r.io.qa_text import json_pair_problems

    for text in ('[1] The "question": was it legal? The court said yes.', 'The set {"question": "x"} mid-line.',
                 '[{"q": "Who?", "a": "Bob."},]', "[Source] {not json}", '{"claim": "x", "answer" "y"}'):
        assert json_pair_problems(text) == [], text


@pytest.mark.parametrize("mark", ["\u200e", "\u200f", "\u3000", "\u00ad", "\u034f", "\u180e", "\u2066", "\u200b"])
def test_an_invisible_character_before_a_marker_does_not_merge_two_pairs(mark):
    # hostile round 2 (B8): LRM, an ideographic space, a soft hyphen ... before "Question:" merged two pairs silently
    text = f"Question: Who?\nAnswer: Bob.\n{mark}Question: When?\nAnswer: In 2020."
    assert parse_qa_text(text) == [("Who?", "Bob."), ("When?", "In 2020.")]


def test_blocks_plain_text_and_refusals():
    """The reader's basic contract (moved here from tests/claimalign/test_averitec.py with the reader)."""
    text = "Question: Q1?\nAnswer: A1\nsecond line\n\nQuestion: Q2?\nAnswer: A2\n"
    assert parse_qa_text(text) == [("Q1?", "A1\nsecond line"), ("Q2?", "A2")]
    assert parse_qa_text("just text") == [("", "just text")]
    assert parse_qa_text("  ") == []
    assert parse_qa_text("Question: only a question") == [("only a question", "")]
    with pytest.raises(ValueError, match="text: expected a string, got NoneType"):
        parse_qa_text(None)  # type: ignore[arg-type]


def test_evidence_from_text_builds_cleaned_pairs_and_reports_layout():
    from ev2r.io.qa_text import evidence_from_text
    from ev2r.types import Evidence, QAPair

    notes: set = set()
    ev = evidence_from_text("\u200b Paris is in France.\r\n\r\nQuestion: Who won? Answer: Bob.\u200b ", notes)
    assert ev == Evidence((QAPair("", "Paris is in France."), QAPair("Who won?", "Bob.")))
    assert notes == {"answer_inline"}
    assert evidence_from_text("Question: Q?\nAnswer: A.\n\nQuestion: Q?\nAnswer: A.").pairs == (QAPair("Q?", "A."),) * 2
    assert evidence_from_text(None) == evidence_from_text(" \u200b ") == Evidence(())
    with pytest.raises(TypeError):
        evidence_from_text(3)  # type: ignore[arg-type]


def test_the_reader_lives_in_ev2r_io_and_the_aligner_reads_no_format():
    """ev2r 2.0: the reader moved out of the aligner package (claimalign means alignment); the old paths are gone
    and the top-level one names the new home."""
    from pathlib import Path

    import claimalign
    import claimalign.averitec
    import ev2r.io
    import ev2r.io.qa_text as qa
    import ev2r.types
    from claimalign.evidence import Evidence

    assert (ev2r.io.parse_qa_text, ev2r.io.evidence_from_text, ev2r.io.json_pair_problems, ev2r.io.LAYOUT_NOTES) == \
        (qa.parse_qa_text, qa.evidence_from_text, qa.json_pair_problems, qa.LAYOUT_NOTES)
    # the module file is gone (an editable install's finder may still map the old name to another checkout)
    assert not (Path(claimalign.__file__).parent / "qa_text.py").exists()
    for module in (claimalign, ev2r.types):  # the two re-exports of 1.x name the new home
        with pytest.raises(AttributeError, match=r"since ev2r 2\.0 .* ev2r\.io\.parse_qa_text"):
            module.parse_qa_text  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        ev2r.types.nothing  # noqa: B018
    assert not hasattr(claimalign.averitec, "parse_qa_text") and not hasattr(Evidence, "from_text")
    assert "parse_qa_text" not in claimalign.__all__
