"""Test setup for claimalign: NLTK data from the repository's sibling ``../shared/data``."""

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
NLTK_DATA_DIR = (REPO_ROOT / ".." / "shared" / "data" / "nltk_data").resolve()
SHARED_DATA_DIR = (REPO_ROOT / ".." / "shared" / "data").resolve()

if NLTK_DATA_DIR.is_dir():
    os.environ["NLTK_DATA"] = str(NLTK_DATA_DIR)
    try:  # nltk may already be imported by another test module
        import nltk

        if str(NLTK_DATA_DIR) not in nltk.data.path:
            nltk.data.path.insert(0, str(NLTK_DATA_DIR))
    except ImportError:
        pass
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: loads a model (deselect with -m 'not slow')")


@pytest.fixture
def nltk_data():
    """Skip when the offline NLTK data (punkt_tab + WordNet) is not beside the repository."""
    if not (NLTK_DATA_DIR / "corpora" / "wordnet").is_dir():
        pytest.skip(f"NLTK data not found at {NLTK_DATA_DIR}")
    return NLTK_DATA_DIR


@pytest.fixture
def shared_data():
    if not SHARED_DATA_DIR.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA_DIR}")
    return SHARED_DATA_DIR
