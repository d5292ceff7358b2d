"""Nothing silent: bad question/answer evidence is refused naming the row, the line, the field and the entry,
and every option a message of `ev2r score` names is an option of `ev2r score`."""

import argparse
import ast
import json
import re
from pathlib import Path

import pytest

from ev2r.cli.main import build_parser, main

def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _score_parser() -> argparse.ArgumentParser:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["score"]


# -- 2. a bad entry of question/answer evidence is refused, naming row, line, field, entry and what is allowed -------

ALLOWED_LIST = 'each entry of a list of question/answer pairs is {"question": text, "answer": text}'
ALLOWED_JSON = ('Question/answer pairs written as JSON need valid JSON with one "question" and one "answer" (keys in '
                'any case), each text or a finite number, in every entry (or give the evidence as plain text)')
GOOD = {"question": "Who won?", "answer": "Bob."}


@pytest.mark.parametrize("evidence, says", [
    ([GOOD, GOOD, {"question": "Q?", "answer": None}],
     f"predicted_evidence[2].answer: expected a string, got null; {ALLOWED_LIST}"),
    ([GOOD, GOOD, {"question": "Q?"}], f"predicted_evidence[2].answer: missing (keys: question); {ALLOWED_LIST}"),
    ([GOOD, "Question: a?\nAnswer: b"], "predicted_evidence[1]: expected an object, got a string"),
    # the same pairs as JSON text (as LLM systems print them): once read as one block of plain text, silently
    (json.dumps([GOOD, GOOD, {"question": "Q?", "answer": None}]),
     f"predicted_evidence[2].answer: expected a string or a number, got null. {ALLOWED_JSON}"),
    (json.dumps([GOOD, {"question": "Q?"}]), f"predicted_evidence[1].answer: missing. {ALLOWED_JSON}"),
    (json.dumps(GOOD) + "\n" + json.dumps({"question": "Q?", "answer": None}),
     f"predicted_evidence (line 2 of its text).answer: expected a string or a number, got null. {ALLOWED_JSON}"),
    (["Plain text.", json.dumps([GOOD, {"question": "Q?", "answer": [1]}])],
     f"predicted_evidence[1][1].answer: expected a string or a number, got a list. {ALLOWED_JSON}"),
    # NaN / Infinity are no answer text ("nan", "inf"), and of two keys that differ only in case none is
    # kept silently
    (json.dumps([GOOD, {"question": "Q?", "answer": float("nan")}]),
     f"predicted_evidence[1].answer: expected a string or a finite number, got NaN. {ALLOWED_JSON}"),
    ('{"question": "Q?", "answer": 1e999}',
     f"predicted_evidence (line 1 of its text).answer: expected a string or a finite number, got Infinity. {ALLOWED_JSON}"),
    ('{"question": "Q?", "answer": "a", "Answer": "b"}',
     "predicted_evidence (line 1 of its text): keys 'answer' and 'Answer' both give the answer (keys are read in any "
     f"case); give one. {ALLOWED_JSON}"),
    ([GOOD, {"question": "Q?", "answer": "a", "Answer": "b"}],
     f"predicted_evidence[1]: keys 'answer' and 'Answer' differ only in case; give one 'answer'; {ALLOWED_LIST}"),
    # one entry of a JSON list that does not parse is named (it once made the whole text one block, unnamed)
    (json.dumps([GOOD, GOOD])[:-1] + ', {"question": "Q?", "answer": "A",}]',
     "predicted_evidence[2]: not valid JSON (Expecting property name enclosed in double quotes at line 1, column 123 "
     f"of the text). {ALLOWED_JSON}"),
])
def test_a_bad_question_answer_entry_is_refused_by_row_line_field_and_entry(tmp_path, capsys, evidence, says):
    rows = [{"id": f"r{n}", "claim": "c", "predicted_evidence": "Bob won.", "reference_evidence": "Bob won.",
             "gold_label": "supported"} for n in range(4)]
    rows[3] = {**rows[3], "id": "x", "predicted_evidence": evidence}
    inp = tmp_path / "in.jsonl"
    inp.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    code, _, err = run(capsys, "score", inp, "--no-progress")
    assert code == 2 and f"ev2r score: error: {inp}: row 3 (line 4, id 'x'): {says}" in err, err
    assert "loading verifier" not in err


def test_every_bad_row_is_named_at_once_and_good_json_pairs_still_read(tmp_path, capsys):
    from ev2r.io.readers import read_items

    rows = [{"id": "a", "claim": "c", "predicted_evidence": json.dumps([GOOD]), "reference_evidence": "r"},
            {"id": "b", "claim": "c", "predicted_evidence": [GOOD, {"question": "Q?", "answer": None}],
             "reference_evidence": "r"},
            {"id": "c", "claim": "c", "predicted_evidence": "r", "reference_evidence": json.dumps([{"question": "Q?"}])}]
    inp = tmp_path / "in.jsonl"
    inp.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    with pytest.raises(ValueError) as e:
        read_items(inp)
    msg = str(e.value)
    assert msg.startswith(f"{inp}: 2 of 3 rows are unusable:")
    assert "row 1 (line 2, id 'b'): predicted_evidence[1].answer: expected a string, got null" in msg
    assert "row 2 (line 3, id 'c'): reference_evidence[0].answer: missing" in msg
    rows = rows[:1]
    inp.write_text(json.dumps(rows[0]) + "\n")
    with pytest.warns(UserWarning, match="written as JSON"):  # read as the pair, a layout repair said once
        (item,) = read_items(inp)
    assert [(p.question, p.answer) for p in item.predicted_evidence.pairs] == [("Who won?", "Bob.")]


# -- 4. every option a message names is an option of `ev2r score` ---------------------------------------------------

OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-o)(?![\w-])")


def _check_options_named(message: str) -> None:
    known = set(_score_parser()._option_string_actions)
    named = OPTION.findall(message)
    assert named, message
    assert not [o for o in named if o not in known], message
    assert "resume=" not in message and "with_facts=" not in message  # the Python API's keywords are no options


def test_resume_messages_name_only_options_of_ev2r_score(tmp_path, capsys, nltk_data):
    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps({"id": f"i{n}", "claim": "c", "predicted_evidence": "Bob won.",
                                       "reference_evidence": "Bob won.", "gold_label": "supported"}) + "\n"
                           for n in range(3)))
    out = tmp_path / "out.jsonl"
    base = ["score", inp, "-o", out, "--scorer", "hu-meteor", "--no-progress"]
    assert run(capsys, *base)[0] == 0
    messages = []
    for extra, says in ((["--explain"], "was written without --explain"),
                        (["--limit", "1"], "not in this run"),
                        (["--scorer", "ev2r", "--no-hybrid"], "other scorer options")):
        code, _, err = run(capsys, *base, *extra)
        assert code == 2 and says in err, err
        messages.append(err)
    # an option the baselines alone do not read is warned as ignored and does not stop the resume
    code, _, err = run(capsys, *base, "--alpha", "0.7")
    assert code == 0 and "3 resumed" in err, err
    record = Path(str(out) + ".ev2r-run.json")
    saved = record.read_text()
    record.write_text("{not json")
    messages.append(run(capsys, *base)[2])
    assert "cannot be read" in messages[-1]
    record.unlink()
    messages.append(run(capsys, *base)[2])
    assert "has no run record" in messages[-1]
    record.write_text(saved)
    from ev2r.engines.runs import RunInterrupted, plan_run

    messages.append(RunInterrupted(1, 3, Path(str(out) + ".part")).message())
    from ev2r.io.readers import read_items

    with pytest.raises(ValueError) as e:  # another signature (the local engine's lazy check says the same)
        plan_run(read_items(inp), out, json.loads(json.loads(saved)["options"]), True, engine="local", signature="other")
    messages.append(str(e.value))
    assert "another signature" in messages[-1]
    for m in messages:
        _check_options_named(m)


SCORE_MODULES = ("ev2r/cli/score.py", "ev2r/cli/common.py", "ev2r/engines/runs.py", "ev2r/engines/local_engine.py",
                 "ev2r/engines/ray_engine.py", "ev2r/io/readers.py")


@pytest.mark.parametrize("path", SCORE_MODULES)
def test_every_option_in_the_messages_of_ev2r_score_is_one_of_its_options(path):
    """The class: each ``--option`` in a string of the code `ev2r score` runs (docstrings aside) is an option of it."""
    from support.paths import REPO

    tree = ast.parse((REPO / path).read_text(encoding="utf-8"))
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    known = set(_score_parser()._option_string_actions)
    strange = [(n.lineno, o) for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
               and id(n) not in docs for o in OPTION.findall(n.value) if o not in known]
    assert not strange, f"{path}: options no `ev2r score` has: {strange}"
    assert not [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                and id(n) not in docs and "(resume=False)" in n.value], path
