"""Input rows of the Ray engine tests: a larger input made from the shipped sample (its verifiers
are in :mod:`support.fakes`)."""

from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "examples" / "averitec_sample.jsonl"


def sample_rows() -> list[dict]:
    return [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_rows(n: int, path: Path, slow_first_chunk: bool = False, unique_claims: bool = False) -> Path:
    """``n`` rows cycled from the 12-row sample with unique ids (an int id kept an int); row 5 has
    no reference evidence (``no_reference``), row 40 a claim that breaks the verifier (``error``).
    ``slow_first_chunk``: the first 32 claims make :class:`support.fakes.WordVerifier` wait (chunk 0 finishes
    last). ``unique_claims``: each claim ends in its row number (no two LLM prompts alike)."""
    src = sample_rows()
    rows = []
    for k in range(n):
        r = dict(src[k % len(src)])
        r["id"] = 10_000 + k if k % 2 else f"s{k}"
        if k == 5:
            r["reference_evidence"] = ""
        if k == 40:
            r["claim"] = r["claim"] + " boom"
        if unique_claims:
            r["claim"] = f"{r['claim']} (row {k})"
        if slow_first_chunk and k < 32:
            r["claim"] = r["claim"] + " slowly"
        rows.append(r)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path
