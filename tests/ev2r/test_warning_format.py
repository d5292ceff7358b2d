"""From Python, the project's own warnings print as one line, ``ev2r: InputWarning: ...``, without
the ``/.../ev2r/io/readers.py:619:`` location and the echoed source line (``items = items_from_rows(...)``) that
Python's default format adds; other libraries' warnings print as before (:mod:`ev2r._warnfmt`)."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import pytest

from ev2r._warnfmt import OWN_PACKAGES, install, is_own
from support.paths import REPO

SAMPLE = "examples/averitec_sample.jsonl"


def test_reading_the_sample_from_python_prints_one_plain_line():
    code = "from ev2r import read_items\nitems = read_items('examples/averitec_sample.jsonl')\nprint(len(items))"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONWARNINGS",)}
    run = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout == "12\n"
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith(f"ev2r: InputWarning: {SAMPLE}: 1 row(s) where a question spans several lines before "
                               "its Answer: marker (read as one question): rows 11 (line 12; id 284, "
                               "reference_evidence)."), lines[0]
    assert "readers.py" not in run.stderr and "items_from_rows" not in run.stderr


def test_the_cli_prefix_names_the_command_and_other_warnings_keep_their_format():
    from ev2r.io.errors import InputWarning
    from ev2r.verifier.calibration import UncalibratedWarning

    assert is_own(InputWarning) and is_own(UncalibratedWarning) and not is_own(UserWarning)
    assert OWN_PACKAGES == ("ev2r", "claimalign", "adversarial")
    try:
        install("ev2r score")
        assert (warnings.formatwarning("no calibration", UncalibratedWarning, "/x/ev2r/metric/reference.py", 268,
                                       "warnings.warn(...)") == "ev2r score: UncalibratedWarning: no calibration\n")
        # installed once: a second install only changes the prefix, it does not wrap the wrapper
        install("ev2r report")
        assert warnings.formatwarning("m", InputWarning, "f.py", 1, None) == "ev2r report: InputWarning: m\n"
        assert (warnings.formatwarning("old api", DeprecationWarning, "/x/lib.py", 7, "f()")
                == "/x/lib.py:7: DeprecationWarning: old api\n  f()\n")
    finally:
        install("ev2r")


def test_filters_still_see_the_project_warnings():
    """Only the format changes: ``-W error::...``-style filters and recording work on the categories as before."""
    from ev2r.io.errors import InputWarning

    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        warnings.warn("x", InputWarning, stacklevel=1)
    assert [w.category for w in rec] == [InputWarning]
    with warnings.catch_warnings():
        warnings.simplefilter("error", InputWarning)
        with pytest.raises(InputWarning, match="^x$"):
            warnings.warn("x", InputWarning, stacklevel=1)


def test_every_project_category_is_an_error_in_the_tests():
    """The categories pyproject.toml makes errors in the tests are every warning class of the project
    (tests/conftest.py's PROJECT_WARNINGS, relaxed for the LLM-server tests only)."""
    import importlib
    import tomllib

    from conftest import PROJECT_WARNINGS

    ini = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    errors = [f.split("::")[1] for f in ini["filterwarnings"] if f.startswith("error::")]
    assert errors == list(PROJECT_WARNINGS)
    classes = set()
    for top in OWN_PACKAGES:
        for path in sorted((REPO / top).rglob("*.py")):
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.startswith("class ") and line.rstrip().endswith("Warning):"):
                    module = ".".join(path.relative_to(REPO).with_suffix("").parts)
                    classes.add(f"{module}.{line.split()[1].split('(')[0]}")
    assert classes == set(PROJECT_WARNINGS), classes ^ set(PROJECT_WARNINGS)
    for name in PROJECT_WARNINGS:
        module, cls = name.rsplit(".", 1)
        assert is_own(getattr(importlib.import_module(module), cls))
