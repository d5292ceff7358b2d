"""Pages of the documentation site made at build time (mkdocs-gen-files runs this; see mkdocs.yml).

* ``cli.md``: the CLI reference, rendered from the argparse parsers themselves
  (:func:`ev2r.cli.main.build_parser`, and ``ev2r train-verifier``'s own parser), so an option that is added,
  renamed or moved to another argument group shows up on the next build; nothing here lists an option by hand.
* ``verifier-cards/NAME.md``: the model card of each shipped verifier (``ev2r/verifier/models/NAME/README.md``).
* ``benchmarks/README.md`` and ``benchmarks/results/**.md``: the benchmark catalogue and every table it lists,
  as the benchmark scripts wrote them.

Run by hand to see the CLI page: ``.venv/bin/python scripts/docs_pages.py --print-cli``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _cell(text: str) -> str:
    text = " ".join(str(text).split())
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def _flags(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    if action.nargs == 0:
        return ", ".join(f"`{s}`" for s in action.option_strings)
    fmt = argparse.HelpFormatter("ev2r")
    metavar = fmt._format_args(action, fmt._get_default_metavar_for_optional(action))
    return ", ".join(f"`{s} {metavar}`" for s in action.option_strings)


def _default(action: argparse.Action) -> str:
    if not action.option_strings or action.nargs == 0 or action.default in (None, argparse.SUPPRESS):
        return ""
    return f"`{action.default}`" if action.default != "" else '`""`'


def render_parser(parser: argparse.ArgumentParser, title: str, level: int = 2) -> str:
    """Markdown for one parser: usage, description, then one table per argument group, in the parser's order."""
    os.environ["COLUMNS"] = "110"
    out = [f"{'#' * level} `{title}`", ""]
    out += ["```text", parser.format_usage().strip(), "```", ""]
    if parser.description:
        out += [parser.description.strip(), ""]
    formatter = parser._get_formatter()
    for group in parser._action_groups:
        actions = [a for a in group._group_actions if a.help != argparse.SUPPRESS
                   and not isinstance(a, argparse._SubParsersAction)]
        if not actions:
            continue
        out += [f"{'#' * (level + 1)} {group.title[:1].upper() + group.title[1:]}", ""]
        if group.description:
            out += [group.description.strip(), ""]
        out += ["| option | default | what it does |", "|---|---|---|"]
        for a in actions:
            text = formatter._expand_help(a) if a.help else ""
            out.append(f"| {_flags(a)} | {_cell(_default(a))} | {_cell(text)} |")
        out.append("")
    return "\n".join(out)


def cli_page() -> str:
    sys.path.insert(0, str(REPO))
    from ev2r.cli import train
    from ev2r.cli.main import build_parser

    root = build_parser()
    sub = next(a for a in root._actions if isinstance(a, argparse._SubParsersAction))
    helps = {c.dest: c.help for c in sub._choices_actions}
    out = ["# CLI reference", "",
           "Generated at build time from the argument parsers (`scripts/docs_pages.py`): this page is what "
           "`ev2r COMMAND --help` prints, as tables. Exit status: 0 success, 1 `ev2r score` ran but every item "
           "failed, 2 unusable input or options.", "",
           "| command | what it does |", "|---|---|"]
    out += [f"| [`ev2r {name}`](#ev2r-{name}) | {_cell(helps.get(name, ''))} |" for name in sub.choices]
    out.append("")
    for name, parser in sub.choices.items():
        if name == "train-verifier":  # dispatched before parsing: its parser is ev2r.cli.train's
            parser = argparse.ArgumentParser(prog="ev2r train-verifier", description=train.DESCRIPTION,
                                             formatter_class=argparse.ArgumentDefaultsHelpFormatter)
            train.add_arguments(parser)
        out.append(render_parser(parser, f"ev2r {name}"))
    return "\n".join(out) + "\n"


def main() -> None:
    import mkdocs_gen_files

    with mkdocs_gen_files.open("cli.md", "w") as f:
        f.write(cli_page())
    mkdocs_gen_files.set_edit_path("cli.md", "../scripts/docs_pages.py")

    for card in sorted((REPO / "ev2r/verifier/models").glob("*/README.md")):
        target = f"verifier-cards/{card.parent.name}.md"
        with mkdocs_gen_files.open(target, "w") as f:
            f.write(card.read_text(encoding="utf-8"))
        mkdocs_gen_files.set_edit_path(target, f"../{card.relative_to(REPO)}")

    bench = REPO / "benchmarks"
    for page in [bench / "README.md", *sorted((bench / "results").rglob("*.md"))]:
        target = str(page.relative_to(REPO))
        with mkdocs_gen_files.open(target, "w") as f:
            f.write(page.read_text(encoding="utf-8"))
        mkdocs_gen_files.set_edit_path(target, f"../{target}")


if __name__ == "__main__" and "--print-cli" in sys.argv:
    print(cli_page())
elif __name__ != "__main__" or "mkdocs_gen_files" in sys.modules:
    main()
