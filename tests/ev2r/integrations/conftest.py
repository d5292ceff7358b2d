"""Test setup for the evaluate / datasets integration: offline hub settings, a network block and
a tiny deterministic stand-in verifier (no model)."""

import os
import socket

import pytest

from support.fakes import OverlapVerifier

# before evaluate / datasets are imported: they read these at import time
os.environ["HF_EVALUATE_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"

from support.paths import REPO as REPO_ROOT  # noqa: E402
SHARED_DATA = (REPO_ROOT / ".." / "shared" / "data").resolve()
EXAMPLE = REPO_ROOT / "examples" / "averitec_sample.jsonl"



@pytest.fixture
def fake_verifier():
    return OverlapVerifier()


@pytest.fixture
def patched_verifier(monkeypatch):
    """``build_scorer(verifier=<any string>)`` (CLI --model, evaluate verifier=) gets the fake."""
    import ev2r.metric.factory

    fake = OverlapVerifier()
    monkeypatch.setattr(ev2r.metric.factory, "get_verifier",
                        lambda spec, device=None, batch_size=32, dtype="auto", weights=True: fake)
    return fake


@pytest.fixture
def no_network(monkeypatch):
    """Any socket connection to a non-loopback address raises."""
    real_connect = socket.socket.connect

    def guarded(self, address):
        host = address[0] if isinstance(address, tuple) else address
        if isinstance(host, str) and (host.startswith("127.") or host in ("::1", "localhost")) \
                or self.family == getattr(socket, "AF_UNIX", None):
            return real_connect(self, address)
        raise OSError(f"network blocked in tests: connect to {address!r}")

    monkeypatch.setattr(socket.socket, "connect", guarded)
    yield


def real_model_spec():
    """The bundled verifier (its weights ship in the package)."""
    from ev2r.verifier.loading import BUNDLED_DIR

    if (BUNDLED_DIR / "config.json").exists():
        return "bundled"
    return None


#: ROWS' row 2 (id c) has no predicted evidence on purpose (it scores 0), so every reader of ROWS warns about it; the
#: tests that read ROWS take that warning as given (not as an error), test_build_items_matches_cli_reader asserts it
ROWS_WARNING = r"\S+. 1 of 5 item\(s\) have no predicted evidence .*. 2 \((line 3; )?id (c|2)\)$"
ROWS_WARNED = pytest.mark.filterwarnings(f"ignore:{ROWS_WARNING}:ev2r.io.errors.InputWarning")

ROWS = [
    {"id": "a", "claim": "Paris is the capital of France.", "predicted_evidence": "Question: What is the capital of France?\nAnswer: France's 1958 constitution names Paris as its capital.",
     "reference_evidence": "Question: Which city is France's capital?\nAnswer: The capital of France is Paris.", "gold_label": "Supported"},
    {"id": "b", "claim": "The moon is made of cheese.", "predicted_evidence": "Apollo samples show the moon is made of rock and dust, not cheese.",
     "reference_evidence": "Question: What is the moon made of?\nAnswer: Rock and dust.\n\nQuestion: Is it cheese?\nAnswer: No, it is not cheese.",
     "gold_label": "refuted"},
    {"id": "c", "claim": "It rained in Leeds on Monday.", "predicted_evidence": "",
     "reference_evidence": "Weather records show rain in Leeds on Monday.", "gold_label": "NOT ENOUGH INFO"},
    {"id": "d", "claim": "A claim with no reference.", "predicted_evidence": "Some text about a claim.",
     "reference_evidence": "", "gold_label": "supported"},
    {"id": "e", "claim": "Cats sleep a lot.", "predicted_evidence": "Cats sleep up to 16 hours a day.",
     "reference_evidence": "Cats sleep for most of the day.", "gold_label": None},
]
