"""The WordNet 3.0 verb tables behind ``rules-v2`` (``ev2r/facts/data/``, made by
``scripts/make_verb_tables.py``): the same facts with and without nltk's data, and the same answers as
nltk's WordNet reader gave (``is_base_verb`` / ``is_inflected_verb`` before the tables).

The parity tests need the project's nltk data (WordNet 3.0) and skip without it; the others need no data
and no nltk."""

from __future__ import annotations

import fnmatch
import gzip
import json
import re
import sys

import pytest

from ev2r.facts import declarative
from ev2r.facts.declarative import is_base_verb, is_inflected_verb, qa_to_statements
from support.paths import REPO
from support.modules import load_file_module

SCRIPT = REPO / "scripts" / "make_verb_tables.py"
DATA = REPO / "ev2r" / "facts" / "data"
DEV_SETS = ("averitec_manual_eval_subset.jsonl", "averitec_shared_task_dev.jsonl")


@pytest.fixture(scope="module")
def script():
    mod = load_file_module("make_verb_tables", SCRIPT)
    return mod


@pytest.fixture
def no_nltk(monkeypatch):
    """nltk made unimportable and NLTK_DATA unset, the tables read afresh."""
    monkeypatch.delenv("NLTK_DATA", raising=False)
    for name in [m for m in sys.modules if m == "nltk" or m.startswith("nltk.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "nltk", None)  # `import nltk` now raises ImportError
    declarative._verb_table.cache_clear()
    yield
    declarative._verb_table.cache_clear()


def _table(name: str) -> list[str]:
    data = (DATA / name).read_bytes()
    text = (gzip.decompress(data) if name.endswith(".gz") else data).decode("utf-8")
    return [line for line in text.splitlines() if line and not line.startswith("#")]


# -- no data, no nltk ---------------------------------------------------------------------------------

def test_verbs_are_known_without_nltk(no_nltk):
    with pytest.raises(ImportError):
        import nltk  # noqa: F401
    # verbs the old no-WordNet fallback list lacked ("abolish", "rescind"), WordNet answers
    assert [is_base_verb(w) for w in ("abolish", "Rescind", "declare", "declared", "did", "the", "pandemic")] == [
        True, True, True, False, False, False, False]
    assert [is_inflected_verb(w) for w in ("banned", "built", "written", "Spoken", "rung", "writes", "pen", "taking")] \
        == [True, True, True, True, False, False, False, False]


def test_rules_v2_facts_without_nltk_are_wordnet_facts(no_nltk):
    # before the tables, without NLTK_DATA "abolish" was not a verb and the pair fell back to rules-v1's
    # "Did the mayor abolish the tax? Yes"
    assert qa_to_statements("Did the mayor abolish the tax?", ["Yes"]) == [("The mayor abolished the tax.", True)]
    assert qa_to_statements("Has the minister spoken about the plan?", ["No"]) == [
        ("The minister has not spoken about the plan.", True)]


def test_tables_are_wordnet_30_sized_sorted_and_lower_case():
    lemmas, forms = _table(declarative.VERB_LEMMAS_FILE), _table(declarative.VERB_EXCEPTION_FORMS_FILE)
    assert len(lemmas) == 11529  # WordNet 3.0's verb lemmas ("unique strings", wnstats(7WN))
    assert len(forms) == 383
    for words in (lemmas, forms):
        assert words == sorted(set(words))
        assert all(re.fullmatch(r"[a-z0-9][a-z0-9_.'/-]*", w) for w in words), [w for w in words if w != w.lower()]
    assert not [w for w in forms if w.endswith(("ed", "s", "ing"))]
    assert {"abolish", "declare", "ban", "give_up"} <= set(lemmas) and "declared" not in lemmas
    assert {"written", "begun", "spoken"} <= set(forms) and "rung" not in forms  # "rung" is also a noun


def test_tables_and_licence_are_package_data():
    tomllib = pytest.importorskip("tomllib")
    patterns = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"]["ev2r"]
    shipped = sorted(p.name for p in DATA.iterdir() if p.is_file())
    assert shipped == sorted([declarative.VERB_LEMMAS_FILE, declarative.VERB_EXCEPTION_FORMS_FILE, "WORDNET_LICENSE"])
    for name in shipped:
        assert any(fnmatch.fnmatch(f"facts/data/{name}", pat) for pat in patterns), (name, patterns)
    assert "WordNet 3.0 Copyright 2006 by Princeton University." in (DATA / "WORDNET_LICENSE").read_text(
        encoding="utf-8")


def test_missing_table_is_an_error_naming_it():
    with pytest.raises(FileNotFoundError, match=r"ev2r/facts/data/absent\.txt is missing"):
        declarative._verb_table("absent.txt")


# -- parity with nltk's WordNet (needs the project's nltk data) ----------------------------------------

def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _dev_words(shared_data) -> set[str]:
    """Every word type of both dev sets (claims, both evidences, all text fields), in the ways the rules
    cut words (``_WORD``; whitespace tokens stripped to letters, ' and -, or lower-cased and stripped of
    commas), as written and lower-cased."""
    words: set[str] = set()
    for name in DEV_SETS:
        path = shared_data / "ev2r_human_eval" / name
        for line in path.read_text(encoding="utf-8").splitlines():
            for text in _strings(json.loads(line)):
                words.update(declarative._WORD.findall(text))
                tokens = text.split()
                words.update(re.sub(r"[^A-Za-z'-]", "", t) for t in tokens)
                words.update(t.lower().strip(",") for t in tokens)  # what _ends_np looks up
    words.discard("")
    return words | {w.lower() for w in words}


@pytest.fixture(scope="module")
def wordnet(script):
    from support.paths import NLTK_DATA

    if not (NLTK_DATA / "corpora" / "wordnet").is_dir():
        pytest.skip(f"NLTK data not found at {NLTK_DATA}")
    return script.load_wordnet(NLTK_DATA)


def test_functions_equal_nltk_wordnet_on_lemmas_exceptions_and_dev_words(script, wordnet, shared_data):
    dev = _dev_words(shared_data)
    assert len(dev) > 5000  # both dev sets read
    words = dev | set(wordnet.all_lemma_names(pos="v")) | set(wordnet._exception_map["v"]) | set(
        wordnet._exception_map["n"])
    words |= {w.capitalize() for w in list(words)[:2000]}
    base_wrong = [w for w in sorted(words) if is_base_verb(w) != script.wordnet_is_base_verb(wordnet, w)]
    infl_wrong = [w for w in sorted(words) if is_inflected_verb(w) != script.wordnet_is_inflected_verb(wordnet, w)]
    assert base_wrong == [] and infl_wrong == []
    # not vacuous: both answers occur among the dev words
    assert {is_base_verb(w) for w in dev} == {True, False} and {is_inflected_verb(w) for w in dev} == {True, False}


def test_shipped_tables_are_what_the_script_makes(script, wordnet, tmp_path, capsys):
    from support.paths import NLTK_DATA

    assert script.main(["--check", "--nltk-data", str(NLTK_DATA)]) == 0
    assert script.main(["--nltk-data", str(NLTK_DATA), "--out", str(tmp_path)]) == 0
    for name in (declarative.VERB_LEMMAS_FILE, declarative.VERB_EXCEPTION_FORMS_FILE, "WORDNET_LICENSE"):
        assert script.read_shipped(name, tmp_path) == script.read_shipped(name)
    # a stale table fails --check, naming the file
    path = tmp_path / declarative.VERB_EXCEPTION_FORMS_FILE
    path.write_text(path.read_text(encoding="utf-8") + "zzz\n", encoding="utf-8")
    capsys.readouterr()
    assert script.main(["--check", "--nltk-data", str(NLTK_DATA), "--out", str(tmp_path)]) == 1
    assert declarative.VERB_EXCEPTION_FORMS_FILE in capsys.readouterr().err
    # a folder without WordNet: exit 2
    assert script.main(["--check", "--nltk-data", str(tmp_path)]) == 2
