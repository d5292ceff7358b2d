"""The layers of the code base hold: the import contracts in ``pyproject.toml`` (``[tool.importlinter]``,
checked by import-linter's ``lint-imports``) and no use of another package's private names.

Layers, bottom first (README "Layout"): ``claimalign.text`` / ``files`` / ``scripts`` / ``jsonio`` <- the rest of
``claimalign`` <- the ev2r core (``ev2r.types``, ``labels``, ``config``, ``io``, ``facts``, ``verifier``,
``metric``, ``llm``) <- ``adversarial`` <- ``ev2r.training`` / ``shared_task`` / ``ranking`` / ``engines`` /
``integrations`` <- ``ev2r.cli`` <- ``benchmarks``. A module imports only from its own layer or below;
imports inside functions count.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("claimalign", "ev2r", "adversarial")


def _contract_ids() -> list:
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return [c["id"] for c in config["tool"]["importlinter"]["contracts"]]


def _lint_imports() -> str:
    exe = Path(sys.executable).with_name("lint-imports")
    found = str(exe) if exe.is_file() else shutil.which("lint-imports")
    if not found:
        pytest.fail("import-linter is not installed: pip install -e '.[dev]' (the layer contracts run in CI)")
    return found


@pytest.mark.parametrize("contract", _contract_ids())
def test_import_contract(contract):
    """``lint-imports --contract ID`` in the repository root (it reads ``pyproject.toml`` there): the
    report names each broken import with its line."""
    proc = subprocess.run([_lint_imports(), "--contract", contract, "--no-cache"], cwd=REPO, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, f"import contract {contract!r} broken:\n{proc.stdout}\n{proc.stderr}"


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _private_imports(path: Path, importer_top: str) -> list:
    """``(line, text)`` of each import in ``path`` of a private module or name (``_x``, not ``__x__``)
    of another top-level package among :data:`PACKAGES`."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] in PACKAGES and parts[0] != importer_top and any(map(_is_private, parts[1:])):
                    found.append((node.lineno, f"import {alias.name}"))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            parts = node.module.split(".")
            if parts[0] not in PACKAGES or parts[0] == importer_top:
                continue
            names = [a.name for a in node.names]
            if any(map(_is_private, parts[1:])) or any(map(_is_private, names)):
                found.append((node.lineno, f"from {node.module} import {', '.join(names)}"))
    return found


def test_no_private_names_imported_across_packages():
    """No module of ``claimalign``, ``ev2r``, ``adversarial`` or ``benchmarks`` imports a private module
    (``pkg._mod``) or a private name (``from pkg.mod import _name``) of another of the three packages:
    what one package offers another is public and documented. (Tests may reach into internals.)"""
    bad = []
    for top in PACKAGES + ("benchmarks",):
        for path in sorted((REPO / top).rglob("*.py")):
            for line, text in _private_imports(path, top):
                bad.append(f"{path.relative_to(REPO)}:{line}: {text}")
    assert not bad, "private names imported across packages:\n" + "\n".join(bad)


def test_private_import_check_sees_both_forms(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("import claimalign._x\nfrom ev2r.metric import _version, __version__\nfrom ev2r._a import b\n"
                   "from adversarial import perturbations\nfrom ._y import z\n", encoding="utf-8")
    assert [line for line, _ in _private_imports(src, "benchmarks")] == [1, 2, 3]
    assert _private_imports(src, "claimalign") == [(2, "from ev2r.metric import _version, __version__"),
                                                   (3, "from ev2r._a import b")]


def _layer_modules() -> set:
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    names = set()
    for contract in config["tool"]["importlinter"]["contracts"]:
        if contract["type"] != "layers":
            continue
        for layer in contract["layers"]:
            for name in layer.replace("|", ":").split(":"):
                names.add(name.strip().strip("()"))
    return names


def test_every_module_has_a_layer():
    """Each module or sub-package directly under ``ev2r/`` and ``claimalign/`` is in a layer of the
    layers contract (a new module would otherwise go unchecked)."""
    listed = _layer_modules()
    unlisted = []
    for top in ("ev2r", "claimalign"):
        for path in sorted((REPO / top).iterdir()):
            if path.suffix == ".py" and path.stem not in ("__init__", "__main__"):
                name = f"{top}.{path.stem}"
            elif path.is_dir() and (path / "__init__.py").is_file():
                name = f"{top}.{path.name}"
            else:
                continue
            if name not in listed:
                unlisted.append(name)
    assert "adversarial" in listed
    assert not unlisted, f"not in any layer of [tool.importlinter] in pyproject.toml: {', '.join(unlisted)}"


def _import_cycles(edges: dict) -> list:
    """The strongly connected components of more than one module in the graph ``edges`` (module -> the modules
    it imports), each sorted; Tarjan's algorithm, iterative."""
    index: dict = {}
    low: dict = {}
    on_stack: set = set()
    stack: list = []
    cycles: list = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                if len(comp) > 1:
                    cycles.append(sorted(comp))
    return cycles


def test_cycle_finder_finds_a_cycle_and_only_it():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": set()}
    assert _import_cycles(edges) == [["a", "b", "c"]]
    assert _import_cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    """No two modules of ``claimalign``, ``ev2r``, ``adversarial`` import each other, directly or
    through others, counting imports inside functions (grimp's graph, what import-linter reads). Once
    ``ev2r`` -> ``ev2r.metric.factory`` -> ``ev2r.metric.scorer`` -> ``ev2r`` and
    ``adversarial.perturbations`` <-> ``adversarial.perturbations.gaming``."""
    import grimp

    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    edges = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    assert _import_cycles(edges) == []


#: the most lines a module of the packages may have (test_no_module_over_700_lines)
MAX_MODULE_LINES = 700


def test_no_module_over_700_lines():
    long = []
    for top in PACKAGES:
        for path in sorted((REPO / top).rglob("*.py")):
            n = len(path.read_text(encoding="utf-8").splitlines())
            if n > MAX_MODULE_LINES:
                long.append(f"{path.relative_to(REPO)}: {n} lines")
    assert not long, f"modules over {MAX_MODULE_LINES} lines:\n" + "\n".join(long)
