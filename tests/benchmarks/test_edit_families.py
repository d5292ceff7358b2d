"""benchmarks/verifier/edit_families.py: the pairs it scores are the generator's, one family and one side at
a time, and the layout each pair is counted under."""

import pytest

from ev2r.training.data import Pair
from support.modules import load_file_module
from support.paths import REPO

POOL = [Pair("The bridge was closed in March 2020 after the storm, officials said.",
             "The bridge was closed in March 2020.", "entailment", "t"),
        Pair("All staff were paid before the strike, and the mayor resigned on Monday.",
             "All staff were paid before the strike.", "entailment", "t")] * 4


@pytest.fixture(scope="module")
def ef():
    return load_file_module("edit_families_under_test", REPO / "benchmarks" / "verifier" / "edit_families.py")


def test_one_family_one_side(ef):
    yesno = ef.family_pairs(POOL, "yesno", 30, 0, 0.5)
    assert yesno and {p.source for p in yesno} == {"edit_change_yesno"}  # its "Yes." pairs entail: left out
    keep = ef.family_pairs(POOL, "date_format", 10, 0, 0.5)
    assert all(p.source == "edit_keep_date_format" and p.label == "entailment" for p in keep)
    time = ef.family_pairs(POOL, "time", 20, 0, 0.5)
    assert time and all(p.label == "contradiction" for p in time)
    assert ef.family_pairs(POOL, "time", 20, 0, 0.5) == time  # seeded per family


def test_layouts(ef):
    assert ef.layout(Pair("Question: Q?\nAnswer: a b c", "Question: Q?\nAnswer: a b d", "x", "s")) == "both answers"
    assert ef.layout(Pair("Question: Q?\nAnswer: The bridge was closed in March.", "The bridge was closed in May.",
                          "x", "s")) == "near-copy"
    assert ef.layout(Pair(POOL[0].premise, "Officials closed it.", "x", "s")) == "entailed hypothesis"
    control = ef.control_pairs(POOL, 3, 0)
    assert len(control) == 3 and all(p.label == "entailment" and p.hypothesis in p.premise for p in control)
