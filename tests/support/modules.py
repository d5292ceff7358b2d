"""Load a Python file that is not an importable module (a benchmark or script) as a module, for tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


def load_file_module(name: str, path: str | Path) -> ModuleType:
    """The module executed from ``path`` under ``name`` (not added to ``sys.modules``)."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} as a module")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
