"""Shared test fixtures: paths relative to the repository, NLTK data, fake verifiers."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"

if (SHARED_DATA / "nltk_data").is_dir():
    os.environ.setdefault("NLTK_DATA", str(SHARED_DATA / "nltk_data"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not next to the repository")
    return SHARED_DATA


class KeywordVerifier:
    """A deterministic fake verifier: entailment when every word of the hypothesis (lower-cased,
    4+ letters) occurs in the premise, contradiction when the hypothesis contains 'not' and the
    premise does not, else neutral. Records every call."""

    name = "keyword-fake"

    def __init__(self):
        self.calls = []

    def predict(self, premises, hypotheses):
        self.calls.append((list(premises), list(hypotheses)))
        out = []
        for p, h in zip(premises, hypotheses):
            pw = set(w.strip(".,?!:").lower() for w in p.split())
            hw = [w.strip(".,?!:").lower() for w in h.split()]
            if "not" in hw and "not" not in pw:
                out.append([0.05, 0.05, 0.9])
            elif all(w in pw for w in hw if len(w) >= 4):
                out.append([0.9, 0.05, 0.05])
            else:
                out.append([0.1, 0.8, 0.1])
        return np.array(out, dtype=float).reshape(-1, 3)


@pytest.fixture
def keyword_verifier():
    return KeywordVerifier()


from tiny_models import build_tiny_nli_model  # noqa: E402

@pytest.fixture(scope="session")
def tiny_nli_model(tmp_path_factory):
    return build_tiny_nli_model(tmp_path_factory.mktemp("tiny_nli") / "tiny")[0]
