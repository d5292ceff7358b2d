"""The version of the ``ev2r`` distribution (the packages ``ev2r``, ``claimalign`` and ``adversarial``),
written in this one place: ``pyproject.toml`` reads it (``[tool.setuptools.dynamic]``), :data:`ev2r.__version__`
re-exports it, and every score signature carries it (``ev2r:<version>|...``).

Imports nothing, so the build backend can read it without importing the package's dependencies.
"""

__version__ = "2.0.0"
