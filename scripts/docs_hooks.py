"""MkDocs hook (``hooks:`` in mkdocs.yml): the pages name the score versions, give their formulas and hold the
registry's tables through directives that this hook writes from the registry (:mod:`ev2r.versions`) when the site is
built, so no page holds a pasted copy of a weight, a formula or a version name that a change could leave behind.

A directive is ``{{ NAME }}`` or ``{{ NAME: ARG }}`` anywhere in a page's Markdown (inline code and code blocks
included); ``ARG`` is a score name (``ev2r-hybrid``, ``ev2r``: its latest registered version) or, where a version is
meant, a registered versioned name (``ev2r-hybrid/2``):

* ``{{ formula: ARG }}``: the version's formula (:func:`ev2r.scores.version_formula`), e.g. for ``ev2r-hybrid/1``
  ``ev2r_hybrid = 0.5 mutual_meteor + 0.2 (proxy + verified_meteor) + 0.1 precision``;
* ``{{ formulas: NAME }}``: a table of every registered version of ``NAME`` with its formula;
* ``{{ version: NAME }}``: the latest registered version's name (``ev2r-hybrid/N``);
* ``{{ released: ARG }}``: the release that made the version the default (``1.0.0`` for ``ev2r-hybrid/1``);
* ``{{ alpha }}``: the alpha of the latest ``ev2r/N`` (Ev2R = alpha F1 + (1 - alpha) proxy);
* ``{{ versions_table }}``: :func:`ev2r.versions.versions_table`;
* ``{{ computed_table }}``: :func:`ev2r.versions.computed_table`.

Any other ``{{ ... }}`` stops the build, naming the page and the directives (``mkdocs build --strict``).
``tests/test_formulas.py`` renders every page through :func:`render`.

    >>> render("`{{ formula: ev2r-hybrid/1 }}` ({{ released: ev2r-hybrid/1 }})")
    '`ev2r_hybrid = 0.5 mutual_meteor + 0.2 (proxy + verified_meteor) + 0.1 precision` (1.0.0)'
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: ``{{ name }}`` or ``{{ name: argument }}``
DIRECTIVE = re.compile(r"\{\{\s*([^\s:{}]+)\s*(?::\s*([^\s{}]*)\s*)?\}\}")
#: directive -> whether it takes an argument
DIRECTIVES = {"formula": True, "formulas": True, "version": True, "released": True, "alpha": False,
              "versions_table": False, "computed_table": False}


def _registry():
    if str(REPO) not in sys.path:  # this checkout's ev2r, not an installed copy elsewhere
        sys.path.insert(0, str(REPO))
    from ev2r import versions

    return versions


def _version(arg: str):
    """The registered version ``arg`` names: a versioned name, or a score name for its latest version."""
    versions = _registry()
    return versions.get(arg) if "/" in arg else versions.latest(arg)


def _formulas(name: str) -> str:
    from ev2r.scores import version_formula

    versions = _registry()
    rows: dict[str, list[str]] = {}
    for v in versions.VERSIONS:
        if v.name == name:
            rows.setdefault(version_formula(v.label), []).append(f"`{v.label}`")
    if not rows:
        raise ValueError(f"no registered version of {name!r}; names: {tuple(versions.SCORE_COLUMNS)}")
    lines = ["| version | formula |", "|---|---|"]
    lines += [f"| {', '.join(labels)} | `{formula}` |" for formula, labels in rows.items()]
    return "\n".join(lines)


def _expand(name: str, arg: str | None) -> str:
    from ev2r.scores import version_formula

    versions = _registry()
    if name == "formula":
        return version_formula(_version(arg).label)
    if name == "formulas":
        return _formulas(arg)
    if name == "version":
        return _version(arg).label
    if name == "released":
        return _version(arg).released
    if name == "alpha":
        return versions.latest("ev2r").definition["alpha"]
    if name == "versions_table":
        return versions.versions_table().rstrip("\n")
    return versions.computed_table().rstrip("\n")  # computed_table


def render(markdown: str, where: str = "page") -> str:
    """``markdown`` with every directive (module docstring) replaced by what the registry says.

    Args:
        markdown: a page's Markdown.
        where: the page's name, for the error message.

    Raises:
        ValueError: an unknown directive, one without the argument it needs or with one it does not take, or an
            argument that names no registered score or version (naming the page and the directive).
    """
    def one(m: re.Match) -> str:
        name, arg = m.group(1), m.group(2) or None
        if name not in DIRECTIVES:
            raise ValueError(f"{where}: unknown directive {m.group(0)!r}; directives: "
                             f"{', '.join(DIRECTIVES)} (scripts/docs_hooks.py)")
        if DIRECTIVES[name] != (arg is not None):
            raise ValueError(f"{where}: {m.group(0)!r}: {name} " + ("needs a score name or version, e.g. "
                             f"{{{{ {name}: ev2r-hybrid }}}}" if DIRECTIVES[name] else "takes no argument"))
        try:
            return _expand(name, arg)
        except ValueError as e:
            raise ValueError(f"{where}: {m.group(0)!r}: {e}") from None

    return DIRECTIVE.sub(one, markdown)


def on_page_markdown(markdown, page, config, files, **kwargs):
    """MkDocs' hook: each page's Markdown, rendered (:func:`render`)."""
    return render(markdown, page.file.src_uri)
