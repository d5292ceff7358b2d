"""Fixtures of the adversarial tests. WordNet comes from ``../shared/data/nltk_data`` (the root
conftest sets ``NLTK_DATA``); tests that need it skip when it is missing."""

from __future__ import annotations

import pytest



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
    from support.fakes import make_items

    return make_items()
