"""What the README tells a new user to do works as it says.

* the README says how to build the documentation site (the ``docs`` extra) and ``ev2r[all]``, which
  ``scripts/setup.sh --all`` and ``scripts/test.sh`` install, holds every extra, ``docs`` among them;
* the README's ``ev2r report`` line says how to get each item's reasons on the page (``--explain``), and
  ``ev2r score`` has that option.
"""

from __future__ import annotations

import re
import tomllib

from support.paths import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def _extras() -> dict[str, list[str]]:
    with open(REPO / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)["project"]["optional-dependencies"]


def test_all_extra_holds_every_other_extra_docs_included():
    extras = _extras()
    m = re.fullmatch(r"ev2r\[([\w,]+)\]", extras["all"][0])
    assert m and len(extras["all"]) == 1, extras["all"]
    in_all = set(m.group(1).split(","))
    assert in_all == set(extras) - {"all"}, f"missing from all: {set(extras) - {'all'} - in_all}"
    assert "docs" in in_all and any(d.startswith("mkdocs>=") for d in extras["docs"])


def test_readme_docs_line_says_how_to_install_the_site_tools():
    line = next(p for p in README.split("\n\n") if "mkdocs build" in p)
    assert 'pip install -e ".[docs]"' in line, line


def test_readme_report_line_says_how_to_get_reasons():
    para = next(p for p in README.split("\n\n") if "ev2r report " in p)
    assert "--explain" in para and "ev2r score" in para, para
    from ev2r.cli.main import build_parser

    import argparse

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert "--explain" in sub.choices["score"].format_help()


def test_the_citation_names_this_release():
    """The README's BibTeX gives the version this checkout is (``ev2r.__version__``), so a copied citation is true."""
    from ev2r import __version__

    assert re.findall(r"version\s*=\s*\{([^}]*)\}", README) == [__version__]
