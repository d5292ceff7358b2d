"""Fixtures every test folder shares: the project's data, NLTK data, fake verifiers, a tiny NLI
checkpoint and the LLM servers (from :mod:`support`, which holds the shared fakes and helpers).

The data-backed tests read the project's ``../shared/data`` beside the checkout and skip when it is
not there; with ``EV2R_REQUIRE_SHARED_DATA=1`` (``.ci/run`` sets it) a missing folder stops the run
at once with an error naming what is missing, instead of a dozen skipped files.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from support.fakes import KeywordVerifier
from support.llm_fixtures import (  # noqa: F401 (fixtures and the report hook)
    fake_server, llama_server, pytest_runtest_makereport, shared_llama, start_llama)
from support.paths import NLTK_DATA, REPO, SHARED_DATA  # noqa: F401 (REPO: for the tests' use)
from support.tiny_models import build_tiny_nli_model

if NLTK_DATA.is_dir():  # read by nltk when it is first imported (lazily, by the tests that need it)
    os.environ.setdefault("NLTK_DATA", str(NLTK_DATA))
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


#: the project's warning categories, errors in the tests (pyproject.toml, [tool.pytest.ini_options] filterwarnings)
PROJECT_WARNINGS = ("ev2r.io.errors.InputWarning", "ev2r.verifier.calibration.UncalibratedWarning",
                    "ev2r.engines.runs.RunWarning", "ev2r.ranking.bradley_terry.RankingWarning",
                    "ev2r.verifier.nli.LongHypothesisWarning", "ev2r.verifier.loading.LanguageWarning",
                    "claimalign.scripts.ScriptWarning")


def pytest_collection_modifyitems(config, items):
    """The tests that need the local LLM server (marked ``llm``) show the project's warnings instead of
    failing on them: they could not be run where the warnings were made errors (no llama.cpp build there). Drop
    this once a CI log shows them free of unexpected ones."""
    relax = [pytest.mark.filterwarnings(f"default::{cat}") for cat in PROJECT_WARNINGS]
    for item in items:
        if item.get_closest_marker("llm"):
            for mark in relax:
                item.add_marker(mark)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` (or ``$EV2R_SHARED_DATA``); skips the test when it is not there."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"the project's data folder {SHARED_DATA} is not beside the repository")
    return SHARED_DATA


@pytest.fixture
def nltk_data() -> Path:
    """The offline NLTK data (punkt_tab + WordNet), put on nltk's path; skips when it is missing."""
    if not (NLTK_DATA / "corpora" / "wordnet").is_dir():
        pytest.skip(f"NLTK data not found at {NLTK_DATA}")
    import nltk

    if str(NLTK_DATA) not in nltk.data.path:
        nltk.data.path.insert(0, str(NLTK_DATA))
    return NLTK_DATA


@pytest.fixture
def keyword_verifier():
    return KeywordVerifier()


@pytest.fixture(scope="session")
def tiny_nli_model(tmp_path_factory):
    return build_tiny_nli_model(tmp_path_factory.mktemp("tiny_nli") / "tiny")[0]
