"""Where the tests find the repository and the project's shared data (``../shared/data`` beside the
checkout, or ``$EV2R_SHARED_DATA``)."""

from __future__ import annotations

import os
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
SHARED_DATA = Path(os.environ.get("EV2R_SHARED_DATA") or REPO.parent / "shared" / "data").resolve()
NLTK_DATA = SHARED_DATA / "nltk_data"
SHARED_CASES = SHARED_DATA.parent / "cases"
