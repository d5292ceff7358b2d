"""A question/answer pair's own sentences as training pairs (ev2r.training.contained), and the pool's
tokenisation that leaves out a pair the tokenizer cannot cut (ev2r.training.loop.tokenize_pool)."""

import random

import pytest

from ev2r.training.contained import CONTAINED_CHANGING, MAX_CHARS, augment_contained
from ev2r.training.data import Pair
from ev2r.training.edits import CHANGE_LABEL, PRESERVING

POOL = [Pair("The infection rate based on the above numbers is 0.09% in the county.", "The rally drew crowds.",
             "neutral", "t"),
        Pair("About 460,000 people attended the rally in Sturgis in 2020.",
             "Barack Obama was born in Hawaii in 1961 to his parents.", "entailment", "t"),
        Pair("The company reported revenue of $5 million last year, up 20 percent.",
             "The bridge opened in May 2019 after three years of work.", "entailment", "t")]
STATEMENTS = {t for p in POOL for t in (p.premise, p.hypothesis) if len(t) >= 30}


def answer_of(premise: str) -> str:
    assert premise.startswith("Question: ") and "\nAnswer: " in premise
    return premise.split("\nAnswer: ", 1)[1]


def test_plain_pairs_hold_their_hypothesis_word_for_word():
    out = augment_contained(POOL, random.Random(0), 200, edit_share=0.0)
    assert len(out) == 200 and {p.source for p in out} == {"contained_plain"}
    for p in out:
        assert p.label == "entailment" and p.hypothesis in STATEMENTS
        assert p.hypothesis.rstrip(".") in answer_of(p.premise)
        assert len(p.premise) + len(p.hypothesis) <= MAX_CHARS + len("Question: \nAnswer: ") + 4


def test_edited_pairs_carry_their_family_label():
    out = augment_contained(POOL, random.Random(1), 300, edit_share=1.0)
    kinds = set()
    for p in out:
        _, kind, family = p.source.split("_", 2)
        kinds.add(kind)
        if kind == "keep":
            assert family in PRESERVING and p.label == "entailment"
            # the edit is on one side: the hypothesis is the statement or its edit, and the other one is in the answer
            answer = answer_of(p.premise)
            if p.hypothesis in STATEMENTS:
                assert p.hypothesis.rstrip(".") not in answer  # the answer holds the edited copy
            else:
                assert any(s.rstrip(".") in answer for s in STATEMENTS)
        else:
            assert kind == "change" and family in CONTAINED_CHANGING and p.label == CHANGE_LABEL[family]
            assert p.hypothesis not in STATEMENTS
    assert kinds == {"keep", "change"}


def test_questions_that_ask_about_a_changed_value_keep_the_answer_deciding():
    out = augment_contained(POOL, random.Random(2), 400, edit_share=0.0)
    asking = [p for p in out if p.premise.startswith(("Question: Is it true", "Question: Did the source",
                                                      "Question: Was it reported"))]
    assert asking and all(p.label == "entailment" for p in asking)


def test_deterministic_and_bad_options():
    assert augment_contained(POOL, random.Random(5), 50) == augment_contained(POOL, random.Random(5), 50)
    assert augment_contained(POOL[:1], random.Random(5), 10) == []  # too few statements
    with pytest.raises(ValueError, match="n: -1"):
        augment_contained(POOL, random.Random(0), -1)
    with pytest.raises(ValueError, match="edit_share"):
        augment_contained(POOL, random.Random(0), 5, edit_share=1.5)


class _CuttingTokenizer:
    """A stand-in with the fast tokenizers' behaviour: a pair whose premise is shorter than what must be cut raises."""

    def __call__(self, premises, hypotheses, truncation, max_length):
        assert truncation == "only_first"
        ids = []
        for p, h in zip(premises, hypotheses):
            over = len(p.split()) + len(h.split()) - max_length
            if over > 0 and over >= len(p.split()):
                raise Exception("Truncation error: Sequence to truncate too short to respect the provided max_length")
            ids.append(list(range(min(len(p.split()) + len(h.split()), max_length))))
        return {"input_ids": ids}


def test_tokenize_pool_leaves_out_only_the_pair_it_cannot_cut(capsys):
    from ev2r.training.loop import tokenize_pool

    ok = [Pair("a b c d e f", "x y", "entailment", "t"), Pair("a b c d e f g h i j", "x", "neutral", "t")]
    bad = Pair("a b", "w " * 9, "neutral", "t")
    kept, enc = tokenize_pool(_CuttingTokenizer(), ok + [bad], 8)
    assert kept == ok and [len(x) for x in enc["input_ids"]] == [8, 8]
    assert "left out 1 pair(s)" in capsys.readouterr().out
    kept, _ = tokenize_pool(_CuttingTokenizer(), ok, 8)
    assert kept == ok and capsys.readouterr().out == ""


def test_polar_question_moves_the_auxiliary_and_keeps_names():
    from ev2r.training.contained import polar_question

    assert polar_question("The company was founded in 1990.") == "Was the company founded in 1990?"
    assert polar_question("Case Keenum is a Washington Redskins player.") == "Is Case Keenum a Washington Redskins player?"
    assert polar_question("The bridge has not opened.") is None  # already negated
    assert polar_question("Magneto might have recovered his powers.") is None  # a modal before the auxiliary
    assert polar_question("Rain fell all day long in the city, they said.") is None  # no auxiliary
    # a clause or punctuation in the subject, a negative word anywhere, a question: no question is made
    for statement in ("In 2020, the company was sold.", "The number of people who were killed is 50.",
                      "There are no reliable population figures.", "The bridge wasn't opened in May.",
                      "No one was injured in the fire.", "Every state has adopted the rule.",
                      "Is the bridge open?", "The company was sold in 2020!"):
        assert polar_question(statement) is None, statement


def test_polar_pairs_read_the_decomposers_statement_of_the_answer():
    from ev2r.facts.declarative import qa_to_statements
    from ev2r.training.contained import polar_question

    pool = POOL + [Pair("The film was released worldwide on 13 January 2012.", "Seth Rollins is the reigning champion.",
                        "entailment", "t")]
    out = [p for p in augment_contained(pool, random.Random(4), 300, polar_share=1.0)]
    assert out and all(p.source.startswith("contained_polar_") for p in out)
    for p in out:
        q, a = p.premise[len("Question: "):].split("\nAnswer: ", 1)
        if p.source == "contained_polar_denied":
            assert a == "No." and p.label == "contradiction" and polar_question(p.hypothesis) == q
        elif p.source in ("contained_polar_yes", "contained_polar_no"):
            assert p.label == "entailment" and p.hypothesis == qa_to_statements(q, [a])[0][0]
        else:
            assert p.source == "contained_polar_no_then" and a.startswith("No. ") and p.label == "entailment"
            assert p.hypothesis == a[len("No. "):] or p.hypothesis == qa_to_statements(q, ["No."])[0][0]
    with pytest.raises(ValueError, match="polar_share"):
        augment_contained(POOL, random.Random(0), 5, polar_share=-0.1)


def test_balanced_polar_pairs_contradict_as_often_as_they_entail():
    from ev2r.facts.declarative import qa_to_statements

    pool = POOL + [Pair("The film was released worldwide on 13 January 2012.", "Seth Rollins is the reigning champion.",
                        "entailment", "t")]
    out = augment_contained(pool, random.Random(6), 400, polar_share=1.0, polar_balanced=True)
    assert out and all(p.source.startswith("contained_polar_bal_") for p in out)
    labels = [p.label for p in out]
    assert 0.42 < labels.count("contradiction") / len(labels) < 0.58
    for p in out:
        q, a = p.premise[len("Question: "):].split("\nAnswer: ", 1)
        word = a.split(" ", 1)[0]
        other = "No." if word == "Yes." else "Yes."
        if p.source.endswith("_said"):
            assert p.label == "entailment" and p.hypothesis == qa_to_statements(q, [word])[0][0]
        elif p.source.endswith("_opposite"):
            assert p.label == "contradiction" and p.hypothesis == qa_to_statements(q, [other])[0][0]
        else:
            assert p.label == "entailment" and a.endswith(p.hypothesis)


def test_tokenize_pool_with_the_bundled_tokenizer():
    """The real fast tokenizer raises a bare Exception for a pair it cannot cut; tokenize_pool leaves that pair out."""
    from transformers import AutoTokenizer

    from ev2r.training.loop import TrainingOptionError, tokenize_pool
    from ev2r.verifier.loading import BUNDLED_DIR

    tok = AutoTokenizer.from_pretrained(str(BUNDLED_DIR))
    good = Pair("The bridge opened in May 2019.", "The bridge opened.", "entailment", "t")
    bad = Pair("Short.", " ".join(["word"] * 60), "neutral", "t")
    kept, enc = tokenize_pool(tok, [good, bad], 32)
    assert kept == [good] and len(enc["input_ids"]) == 1
    with pytest.raises(TrainingOptionError, match="no training pair fits 32 tokens"):
        tokenize_pool(tok, [bad], 32)


def test_edit_families_skip_bounds_and_coordinated_names():
    """A number after a bound ("less than 31") changed is no contradiction; swapped coordinated names keep the meaning."""
    from ev2r.training.edits import edit_text

    assert edit_text("number", "It got less than 31 reviews.", random.Random(0)) is None
    assert edit_text("scale", "It cost more than 10 million dollars.", random.Random(0)) is None
    assert edit_text("scale", "It cost 10 million dollars.", random.Random(0)) not in (None, "It cost 10 million dollars.")
    assert edit_text("roles", "known as the Metairie Outlet Canal and the Upperline Canal today",
                     random.Random(0)) is None
    assert edit_text("roles", "Joe Biden defeated Donald Trump in the election.",
                     random.Random(0)) == "Donald Trump defeated Joe Biden in the election."
    # "wasn't" is a negation already: the negation family takes it away rather than stacking a second one
    assert edit_text("negation", "The bridge wasn't opened in May.", random.Random(0)) == "The bridge was opened in May."
