"""How the project's own warnings print: one line, ``ev2r: InputWarning: ...``, without the file name, line number
and source line Python adds (the default format names a line inside ev2r and echoes it, which tells a user
nothing); the ``ev2r`` commands print ``ev2r COMMAND: InputWarning: ...``.

Installed when ``ev2r`` is imported (:func:`install`), and only the format of the project's own categories changes
(those defined in ``ev2r``, ``claimalign`` and ``adversarial``: :func:`is_own`): ``warnings.formatwarning`` is
wrapped, so other libraries' warnings print as before, and filters, ``-W``, ``warnings.catch_warnings`` and
``pytest.warns`` see every warning as before.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Optional

__all__ = ["OWN_PACKAGES", "install", "is_own"]

#: the packages whose warning categories print as one plain line
OWN_PACKAGES = ("ev2r", "claimalign", "adversarial")


def is_own(category: Any) -> bool:
    """Whether ``category`` is one of the project's warning classes (defined in :data:`OWN_PACKAGES`).

    >>> from ev2r.io.errors import InputWarning
    >>> is_own(InputWarning), is_own(UserWarning), is_own(DeprecationWarning)
    (True, False, False)
    """
    return isinstance(category, type) and str(getattr(category, "__module__", "")).split(".")[0] in OWN_PACKAGES


class _Format:
    """The wrapped ``warnings.formatwarning``: the project's categories as ``PREFIX: Category: message``, every
    other one by the function it replaced."""

    def __init__(self, original: Callable[..., str], prefix: str) -> None:
        self.original = original
        self.prefix = prefix

    def __call__(self, message: Any, category: Any, filename: str, lineno: int, line: Optional[str] = None) -> str:
        if is_own(category):
            return f"{self.prefix}: {category.__name__}: {message}\n"
        return self.original(message, category, filename, lineno, line)


def install(prefix: str = "ev2r") -> None:
    """Make the project's warnings print as ``PREFIX: Category: message`` (one line, no source line); the CLI
    passes ``ev2r COMMAND``. Calling it again only changes the prefix (the format is wrapped once).

    >>> import warnings
    >>> from ev2r.io.errors import InputWarning
    >>> install()
    >>> warnings.formatwarning("3 rows were odd", InputWarning, "/x/ev2r/io/readers.py", 619, "items = f()")
    'ev2r: InputWarning: 3 rows were odd\\n'
    >>> warnings.formatwarning("old", DeprecationWarning, "m.py", 3, "f()").startswith("m.py:3: DeprecationWarning")
    True
    """
    current = warnings.formatwarning
    if isinstance(current, _Format):
        current.prefix = prefix
    else:
        warnings.formatwarning = _Format(current, prefix)  # type: ignore[assignment]
