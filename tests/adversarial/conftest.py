"""Fixtures of the adversarial tests.

WordNet comes from the repository-relative ``../shared/data/nltk_data`` when it exists (set as
``NLTK_DATA`` and put on nltk's path); tests that need it skip otherwise.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

_NLTK_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "nltk_data"
if _NLTK_DATA.is_dir():  # read by nltk when it is first imported (lazily, by the tests that need it)
    os.environ.setdefault("NLTK_DATA", str(_NLTK_DATA))


@pytest.fixture
def wordnet():
    """nltk's WordNet, or skip the test when its data is not installed."""
    from adversarial.resources import ResourceMissingError, wordnet as load

    try:
        return load()
    except ResourceMissingError as e:
        pytest.skip(str(e))


@pytest.fixture
def items():
    from adv_helpers import make_items

    return make_items()
