"""One source for the formula of each score version: the registry (:mod:`ev2r.versions`), written out by
:func:`ev2r.scores.version_formula`.

* The documentation pages write no formula, weight or shipped version name by hand: they hold directives
  (``{{ formula: ev2r-hybrid }}``, ``{{ version: ev2r-hybrid }}``, ``{{ versions_table }}``) that the MkDocs hook
  ``scripts/docs_hooks.py`` fills from the registry when the site is built. These tests render every page through
  the hook and check what a reader gets: the pages on the shipped score give the latest version's formula with its
  name, and no page holds a weighted sum of the ``ev2r_hybrid`` components outside a directive.
* The README is not built with the site: every weighted sum it writes is, word for word, the formula of a registered
  version named in the same paragraph, and it gives the latest formula beside the latest name (paste what a failure
  prints).
* ``ev2r explain`` writes the shipped weights, which are the latest version's.
"""

from __future__ import annotations

import doctest
import re

import pytest

from ev2r.config import DEFAULTS, HYBRID_COMPONENTS, HYBRID_WEIGHTS
from ev2r.metric.combined import weights_field
from ev2r.scores import version_formula
from ev2r.versions import VERSIONS, computed_table, latest, versions_table
from support.modules import load_file_module
from support.paths import REPO

HOOKS = load_file_module("docs_hooks", REPO / "scripts" / "docs_hooks.py")
DOCS = sorted((REPO / "docs").glob("*.md"))
#: the pages that describe the shipped score: each gives the latest formula, with its versioned name
SHIPPED_PAGES = ("index.md", "scoring.md", "metric.md")
COMPONENTS = r"(?:recall|proxy|hybrid_meteor|hybrid_embedding|precision|verified_meteor|mutual_meteor)"
_TERM = rf"\d+(?:\.\d+)?\s+(?:{COMPONENTS}|\({COMPONENTS}(?:\s*\+\s*{COMPONENTS})*\))"
#: a weighted sum of at least two terms (the right-hand side of an ev2r_hybrid formula)
WEIGHTED_SUM = re.compile(rf"{_TERM}(?:\s*\+\s*{_TERM})+")
HYBRID = {v.label: version_formula(v.label).split(" = ", 1)[1] for v in VERSIONS if v.name == "ev2r-hybrid"}


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("`", ""))


def _paragraphs(text: str) -> list[str]:
    return [_flat(p) for p in re.split(r"\n\s*\n", text)]


def test_version_formula_is_written_from_the_registered_weights():
    assert version_formula("ev2r-hybrid/1") == "ev2r_hybrid = 0.5 mutual_meteor + 0.2 (proxy + verified_meteor) + 0.1 precision"
    assert version_formula("ev2r-hybrid/4") == "ev2r_hybrid = 0.85 verified_meteor + 0.05 (proxy + hybrid_meteor + precision)"
    assert version_formula("ev2r/4") == "Ev2R = 0.5 F1 + 0.5 proxy"
    with pytest.raises(ValueError, match="not a registered score version"):
        version_formula("ev2r-hybrid/99")


def test_the_latest_formula_is_the_configuration():
    """The latest versions read the weights and alpha of ev2r.config: the formula the docs render is the shipped one."""
    hybrid, plain = latest("ev2r-hybrid"), latest("ev2r")
    assert hybrid.definition["hybrid"] == weights_field(HYBRID_WEIGHTS)
    assert hybrid.definition["alpha"] == plain.definition["alpha"] == "0.5" == f"{DEFAULTS.alpha:g}"
    terms = dict((c, float(w)) for w, c in re.findall(r"(\d+(?:\.\d+)?) (\w+)", version_formula(hybrid.label)))
    grouped = re.findall(r"(\d+(?:\.\d+)?) \(([\w +]+)\)", version_formula(hybrid.label))
    terms.update({c: float(w) for w, names in grouped for c in names.split(" + ")})
    assert terms == {c: w for c, w in zip(HYBRID_COMPONENTS, HYBRID_WEIGHTS) if w > 0}


def test_the_hook_is_registered_in_mkdocs_yml():
    text = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r"^hooks:\n(?:[ \t]+- \S+\n)*?[ \t]+- scripts/docs_hooks\.py$", text, re.M), "mkdocs.yml: hooks:"


def test_the_hook_writes_each_directive_from_the_registry():
    latest_label = latest("ev2r-hybrid").label
    assert HOOKS.render("{{ formula: ev2r-hybrid }}") == version_formula(latest_label)
    assert HOOKS.render("`{{formula:ev2r-hybrid/2}}`") == (
        "`ev2r_hybrid = 0.8 verified_meteor + 0.05 (proxy + hybrid_meteor + precision + mutual_meteor)`")
    assert HOOKS.render("{{ version: ev2r-hybrid }}, {{ version: ev2r }}") == f"{latest_label}, {latest('ev2r').label}"
    assert HOOKS.render("{{ released: ev2r-hybrid/1 }} / {{ alpha }}") == "1.0.0 / 0.5"
    assert HOOKS.render("{{ versions_table }}") + "\n" == versions_table()
    assert HOOKS.render("{{ computed_table }}") + "\n" == computed_table()
    table = HOOKS.render("{{ formulas: ev2r-hybrid }}").splitlines()
    assert table[2] == "| `ev2r-hybrid/1` | `ev2r_hybrid = 0.5 mutual_meteor + 0.2 (proxy + verified_meteor) + 0.1 precision` |"
    assert table[3].startswith("| `ev2r-hybrid/2`, `ev2r-hybrid/3` | `ev2r_hybrid = 0.8 verified_meteor")
    assert len(table) == 2 + len(set(HYBRID.values()))
    assert HOOKS.render("no directive: {x} {{}}") == "no directive: {x} {{}}"
    assert doctest.testmod(HOOKS).failed == 0


@pytest.mark.parametrize("text,message", [
    ("{{ formual: ev2r-hybrid }}", r"p\.md: unknown directive '\{\{ formual: ev2r-hybrid \}\}'; directives: formula, "),
    ("{{ formula }}", r"p\.md: '\{\{ formula \}\}': formula needs a score name or version"),
    ("{{ alpha: ev2r }}", r"alpha takes no argument"),
    ("{{ formula: ev2r-hybrid/99 }}", r"p\.md: .*'ev2r-hybrid/99' is not a registered score version"),
    ("{{ version: bleu }}", r"p\.md: .*no registered version of 'bleu'"),
])
def test_a_bad_directive_stops_the_build(text, message):
    with pytest.raises(ValueError, match=message):
        HOOKS.render(text, "p.md")


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_docs_pages_write_no_weighted_sum_by_hand(path):
    """A formula on a page is a directive, so that it follows the registry; the rendered page has no directive left."""
    text = path.read_text(encoding="utf-8")
    pasted = [m.group(0) for p in _paragraphs(text) for m in WEIGHTED_SUM.finditer(p)]
    assert not pasted, (f"{path.name}: write {{{{ formula: LABEL }}}} (scripts/docs_hooks.py) instead of the "
                        f"pasted formulas {pasted}")
    rendered = HOOKS.render(text, path.name)
    assert "{{" not in rendered and "}}" not in rendered


@pytest.mark.parametrize("name", SHIPPED_PAGES)
def test_pages_on_the_shipped_score_give_the_latest_formula(name):
    rendered = HOOKS.render((REPO / "docs" / name).read_text(encoding="utf-8"), name)
    label = latest("ev2r-hybrid").label
    assert any(label in p and HYBRID[label] in p for p in _paragraphs(rendered)), (
        f"{name}: write `{{{{ formula: ev2r-hybrid }}}}` beside `{{{{ version: ev2r-hybrid }}}}`")


def test_every_weighted_sum_in_the_readme_is_a_registered_formula_named_beside_it():
    bad = []
    for para in _paragraphs((REPO / "README.md").read_text(encoding="utf-8")):
        named = set(re.findall(r"ev2r-hybrid/\d+", para))
        for m in WEIGHTED_SUM.finditer(para):
            phrase = m.group(0)
            if not any(HYBRID.get(label) == phrase for label in named):
                fits = [label for label, f in HYBRID.items() if f == phrase]
                bad.append(f"{phrase!r} (names {sorted(named) or 'no version'}; "
                           + (f"it is the formula of {fits}" if fits else
                              f"no registered formula; the registered: {HYBRID}") + ")")
    assert not bad, "README.md: " + "\n".join(bad)


def test_the_readme_gives_the_latest_formula():
    label = latest("ev2r-hybrid").label
    assert any(label in p and HYBRID[label] in p for p in _paragraphs((REPO / "README.md").read_text("utf-8"))), (
        f"README.md: paste {version_formula(label)!r} beside {label!r}")


def test_explain_writes_the_latest_weights():
    from ev2r.cli.explain import render
    from ev2r.types import Evidence, Item

    item = Item(id="1", claim="C.", predicted_evidence=Evidence(()), reference_evidence=Evidence(()))
    row = {"id": "1", "status": "ok", "ev2r_hybrid": 0.5}
    line = next(x for x in render(item, row).splitlines() if x.startswith("ev2r_hybrid"))
    terms = dict((c, float(w)) for w, c in re.findall(r"(\d+(?:\.\d+)?) x (\w+)", line))
    weights = latest("ev2r-hybrid").definition["hybrid"].removeprefix("w=").split(",")
    assert terms == {n: float(w) for n, w in (p.split(":") for p in weights) if float(w) > 0}
