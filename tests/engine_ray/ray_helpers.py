"""Helpers of the Ray engine tests: deterministic verifiers that Ray workers can import (this folder
is put on the workers' PYTHONPATH by the ``ray_local`` fixture) and a larger input made from the
shipped sample."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "examples" / "averitec_sample.jsonl"
_WORD = re.compile(r"[a-z0-9]+")


class WordVerifier:
    """P(entailment) grows with the share of hypothesis words found in the premise; 'not' on one
    side only means contradiction. A hypothesis containing ``boom`` raises (the item fails with
    status ``error``, as locally); one containing ``slowly`` waits ``delay`` seconds."""

    name = "word-fake"

    def __init__(self, delay: float = 0.0):
        self.delay = delay

    def predict(self, premises, hypotheses):
        out = np.zeros((len(premises), 3))
        for k, (p, h) in enumerate(zip(premises, hypotheses)):
            pw, hw = set(_WORD.findall(p.lower())), set(_WORD.findall(h.lower()))
            if "boom" in hw:
                raise RuntimeError("the verifier broke on this pair")
            if "slowly" in hw and self.delay:
                time.sleep(self.delay)
            r = len(pw & hw) / max(1, len(hw))
            if ("not" in pw) != ("not" in hw):
                out[k] = (0.05, 0.15, 0.8)
            else:
                e = 0.05 + 0.9 * r / 3.0 ** 0.5
                out[k] = (e, (1 - e) * 0.7, (1 - e) * 0.3)
        return out


class CrashOnceVerifier(WordVerifier):
    """A :class:`WordVerifier` whose process dies (``os._exit``) at its first call while
    ``marker`` does not exist; the one that creates ``marker`` dies, later calls score."""

    def __init__(self, marker: str):
        super().__init__()
        self.marker = marker

    def predict(self, premises, hypotheses):
        try:
            fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return super().predict(premises, hypotheses)
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        os._exit(1)  # a worker killed in the middle of a chunk


def sample_rows() -> list[dict]:
    return [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_rows(n: int, path: Path, slow_first_chunk: bool = False, unique_claims: bool = False) -> Path:
    """``n`` rows cycled from the 12-row sample with unique ids (an int id kept an int); row 5 has
    no reference evidence (``no_reference``), row 40 a claim that breaks the verifier (``error``).
    ``slow_first_chunk``: the first 32 claims make :class:`WordVerifier` wait (chunk 0 finishes
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
