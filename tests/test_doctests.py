"""The ``>>>`` examples in the docstrings of ``ev2r``, ``claimalign`` and ``adversarial`` run and print
what they show (``doctest``, with ``ELLIPSIS``: ``...`` in an expected output matches anything).

Every module whose source has a ``>>>`` is one test; an example that cannot run offline is marked
``# doctest: +SKIP`` in its docstring. The ``evaluate`` module's examples load the metric through
``evaluate.load`` (a few seconds) and are marked slow.
"""

from __future__ import annotations

import doctest
import importlib
import io
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("ev2r", "claimalign", "adversarial")
SLOW = {"ev2r.integrations.hf_evaluate.ev2r_metric"}  # evaluate.load + a scorer: ~8 s on 2 cores
NEEDS = {"ev2r.integrations.hf_evaluate.ev2r_metric": "evaluate"}  # optional extra the module imports


def _modules_with_examples() -> list:
    names = []
    for top in PACKAGES:
        for path in sorted((REPO / top).rglob("*.py")):
            if ">>>" in path.read_text(encoding="utf-8"):
                parts = list(path.relative_to(REPO).with_suffix("").parts)
                if parts[-1] == "__init__":
                    parts.pop()
                names.append(".".join(parts))
    return names


def _param(name: str):
    return pytest.param(name, marks=[pytest.mark.slow] if name in SLOW else [], id=name)


@pytest.mark.parametrize("module", [_param(m) for m in _modules_with_examples()])
def test_docstring_examples(module):
    if module in NEEDS:
        pytest.importorskip(NEEDS[module], reason=f"{module}'s examples need {NEEDS[module]!r} (pip install -e '.[hf]')")
    mod = importlib.import_module(module)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out = io.StringIO()
    tests = [t for t in doctest.DocTestFinder().find(mod) if t.examples]
    assert tests, f"{module}: a '>>>' in the source but no docstring example found"
    for test in tests:
        runner.run(test, out=out.write)
    assert runner.failures == 0, f"{runner.failures} docstring example(s) of {module} failed:\n{out.getvalue()}"
