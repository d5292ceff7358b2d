"""Issue 65 row 4: one source for the formula of each score version.

``docs/index.md`` and ``docs/scoring.md`` gave ``ev2r-hybrid/1``'s formula (0.5 mutual METEOR + ...) as the shipped
one while the README, ``docs/metric.md`` and ``ev2r explain`` gave ``/4``'s. The formula of each registered version
is now written from its registered definition (:func:`ev2r.scores.version_formula`) and every page pastes it:

* every weighted sum of the ``ev2r_hybrid`` components written in the README or ``docs/`` (``0.2 proxy + 0.1
  precision + ...``) is, word for word, the formula of a registered version named in the same paragraph;
* the pages that describe the shipped score give the latest version's formula with its name;
* ``ev2r explain`` writes the shipped weights, which are the latest version's.

To fix a failure, paste the formula the message gives (``version_formula(LABEL)``) next to its versioned name.
"""

from __future__ import annotations

import re

import pytest

from ev2r.scores import version_formula
from ev2r.versions import VERSIONS, latest
from support.paths import REPO

#: every page but docs/versions.md, whose table is the registry's own text (ev2r.versions.versions_table(), checked
#: by tests/ev2r/test_versions.py)
PAGES = [REPO / "README.md", *sorted(p for p in (REPO / "docs").glob("*.md") if p.name != "versions.md")]
#: the pages that describe the shipped score: each gives the latest formula, with its versioned name
SHIPPED_PAGES = ("README.md", "index.md", "scoring.md", "metric.md")
COMPONENTS = r"(?:recall|proxy|hybrid_meteor|hybrid_embedding|precision|verified_meteor|mutual_meteor)"
_TERM = rf"\d+(?:\.\d+)?\s+(?:{COMPONENTS}|\({COMPONENTS}(?:\s*\+\s*{COMPONENTS})*\))"
#: a weighted sum of at least two terms (the right-hand side of an ev2r_hybrid formula)
WEIGHTED_SUM = re.compile(rf"{_TERM}(?:\s*\+\s*{_TERM})+")
HYBRID = {v.label: version_formula(v.label).split(" = ", 1)[1] for v in VERSIONS if v.name == "ev2r-hybrid"}


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("`", ""))


def _paragraphs(path):
    return [_flat(p) for p in re.split(r"\n\s*\n", path.read_text(encoding="utf-8"))]


def test_version_formula_is_written_from_the_registered_weights():
    assert version_formula("ev2r-hybrid/1") == "ev2r_hybrid = 0.5 mutual_meteor + 0.2 (proxy + verified_meteor) + 0.1 precision"
    assert version_formula("ev2r-hybrid/4") == "ev2r_hybrid = 0.85 verified_meteor + 0.05 (proxy + hybrid_meteor + precision)"
    assert version_formula("ev2r/4") == "Ev2R = 0.5 F1 + 0.5 proxy"
    with pytest.raises(ValueError, match="not a registered score version"):
        version_formula("ev2r-hybrid/99")


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_every_weighted_sum_on_a_page_is_a_registered_formula_named_beside_it(path):
    bad = []
    for para in _paragraphs(path):
        named = set(re.findall(r"ev2r-hybrid/\d+", para))
        for m in WEIGHTED_SUM.finditer(para):
            phrase = m.group(0)
            if not any(HYBRID.get(label) == phrase for label in named):
                fits = [label for label, f in HYBRID.items() if f == phrase]
                bad.append(f"{phrase!r} (names {sorted(named) or 'no version'}; "
                           + (f"it is the formula of {fits}" if fits else
                              f"no registered formula; the registered: {HYBRID}") + ")")
    assert not bad, f"{path.name}: " + "\n".join(bad)


@pytest.mark.parametrize("name", SHIPPED_PAGES)
def test_pages_on_the_shipped_score_give_the_latest_formula(name):
    path = REPO / name if name == "README.md" else REPO / "docs" / name
    label = latest("ev2r-hybrid").label
    assert any(label in p and HYBRID[label] in p for p in _paragraphs(path)), (
        f"{name}: paste {version_formula(label)!r} beside {label!r}")


def test_explain_writes_the_latest_weights():
    from ev2r.cli.explain import render
    from ev2r.types import Evidence, Item

    item = Item(id="1", claim="C.", predicted_evidence=Evidence(()), reference_evidence=Evidence(()))
    row = {"id": "1", "status": "ok", "ev2r_hybrid": 0.5}
    line = next(x for x in render(item, row).splitlines() if x.startswith("ev2r_hybrid"))
    terms = dict((c, float(w)) for w, c in re.findall(r"(\d+(?:\.\d+)?) x (\w+)", line))
    weights = latest("ev2r-hybrid").definition["hybrid"].removeprefix("w=").split(",")
    assert terms == {n: float(w) for n, w in (p.split(":") for p in weights) if float(w) > 0}
