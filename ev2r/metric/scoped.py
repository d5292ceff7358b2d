"""One context manager for the run settings the metric keeps in context variables (the admission stage's rule families,
learned reading, copy reading and restatement verifier): set for the block, restored after it."""

from __future__ import annotations

import contextlib
import contextvars
from typing import Any, Iterator


@contextlib.contextmanager
def scoped(var: contextvars.ContextVar, value: Any) -> Iterator[None]:
    """Within the block, ``var`` holds ``value``; after it, what it held before (also when the block raises)."""
    token = var.set(value)
    try:
        yield
    finally:
        var.reset(token)
