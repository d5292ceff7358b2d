"""Shared test fixtures: paths relative to the repository, NLTK data, fake verifiers.

The data-backed tests read the project's ``../shared/data`` beside the checkout and skip when it is
not there; with ``EV2R_REQUIRE_SHARED_DATA=1`` (``.ci/run`` sets it) a missing folder stops the run
at once with an error naming what is missing, instead of a dozen skipped files.
"""

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

# what the data-backed tests read from ../shared/data (checked when EV2R_REQUIRE_SHARED_DATA=1)
REQUIRED_SHARED_DATA = (
    "nltk_data/tokenizers/punkt_tab", "nltk_data/corpora/wordnet", "averitec/dev.json",
    "averitec/filtered_parallel_src.json", "averitec/filtered_parallel_tgt.json", "averitec/parity/official_eval_1.txt",
    "averitec/parity/predictions_1.json", "ev2r_human_eval/averitec_manual_eval_subset.jsonl",
    "ev2r_replay/replay_atomic_reference_prec_recall.jsonl", "fever/fever2_fixers_adversarial_test.jsonl", "anchors",
)


def pytest_sessionstart(session):
    """With ``EV2R_REQUIRE_SHARED_DATA=1``: exit (status 4, a usage error) when any of
    :data:`REQUIRED_SHARED_DATA` is missing under ``../shared/data``."""
    if os.environ.get("EV2R_REQUIRE_SHARED_DATA", "0") != "1":
        return
    missing = [name for name in REQUIRED_SHARED_DATA if not (SHARED_DATA / name).exists()]
    if missing:
        pytest.exit(f"EV2R_REQUIRE_SHARED_DATA=1 but the project's data folder {SHARED_DATA} lacks: "
                    f"{', '.join(missing)} (the data-backed tests would skip); put ../shared/data beside the "
                    "checkout", returncode=pytest.ExitCode.USAGE_ERROR)


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
