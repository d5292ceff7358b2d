"""Replay of recorded LLM judgements for the reference-based score (offline, no network).

The Ev2R authors released the JSON answers GPT-4o / GPT-3.5 gave to their reference-based
prompt (Akhtar et al. 2024, sec. 3.1, Appendix prompt "atomic reference prec/recall"): numbered
atomic facts of each side, a check per fact, the model's own counts (``facts count ...``,
``support ...``) and its ``precision`` / ``recall``. :class:`ReplayReferenceScorer` serves
those judgements as a :class:`~ev2r.metric.reference.ReferenceScorer`:

    precision = support predicted evidence / facts count predicted evidence
    recall    = support reference evidence / facts count reference evidence

which reproduces the recorded values row by row. A recorded answer is **inconsistent** (status
``replay_inconsistent``, no score) when a count is missing or not a whole number, the number of
enumerated facts differs from the stated count, the support exceeds the count, the stated
precision/recall differ from support/count, or there are zero reference facts. An item with
no recording for the chosen model gets ``replay_missing``.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Optional, Sequence

from claimalign import textio

from ev2r.types import Evidence, FactSupport, Item
from ev2r.scores import ReferenceResult, f1_score

SIDES = (("predicted", "precision"), ("reference", "recall"))


def split_numbered(text: str) -> list[str]:
    """Split ``"1. A. 2. B. 3. C."`` into ``["A.", "B.", "C."]``.

    Only *sequential* markers count (1, then 2, ...), each at the start or after whitespace
    and followed by whitespace, so numbers inside a fact ("in 2014. It ...", "5.18") are kept.
    Text without a leading "1." is returned as one element (or [] when empty).
    """
    text = (text or "").strip()
    if not text:
        return []
    positions = []
    expected, pos = 1, 0
    while True:
        m = re.compile(rf"(?:^|(?<=\s)){expected}\.\s").search(text, pos)
        if m is None:
            break
        positions.append((m.start(), m.end()))
        expected, pos = expected + 1, m.end()
    if not positions or positions[0][0] != 0:
        return [text]
    out = []
    for k, (_start, e) in enumerate(positions):
        stop = positions[k + 1][0] if k + 1 < len(positions) else len(text)
        out.append(text[e:stop].strip())
    return out


_NEG = re.compile(r"\b(not|no|partially|contradict\w*|unsupported|does ?n[o']t)\b", re.I)
_POS = re.compile(r"\b(support(ed|s)?|aligns?|confirm(ed|s)?|consistent)\b", re.I)


def check_says_supported(check: str) -> bool:
    """Read one per-fact check sentence: supported unless its verdict part is negative.

    The verdict is the check's last sentence (the model restates the fact first)."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", check.strip()) if s.strip()]
    verdict = sentences[-1] if sentences else check
    if "not enough information" in verdict.lower():
        return False
    return bool(_POS.search(verdict)) and not _NEG.search(verdict)


def _as_count(v) -> Optional[int]:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return None


def parse_recorded_response(resp: dict) -> ReferenceResult:
    """Turn one recorded ``llm_response`` dict into a :class:`ReferenceResult` (module doc)."""
    res = ReferenceResult()
    problems: list[str] = []
    values = {}
    for side, score_name in SIDES:
        texts = [resp.get(f"facts in {side} evidence", "") or "", resp.get(f"fact check {side} evidence", "") or ""]
        if not all(isinstance(t, str) for t in texts):
            res.status = "replay_inconsistent"
            res.error = f"{side}: 'facts in'/'fact check' fields must be text, got {[type(t).__name__ for t in texts]}"
            return res
        facts = split_numbered(texts[0])
        checks = split_numbered(texts[1])
        count = _as_count(resp.get(f"facts count {side} evidence"))
        support = _as_count(resp.get(f"support {side} evidence"))
        stated = resp.get(score_name)
        flags = [check_says_supported(checks[k]) if k < len(checks) else False for k in range(len(facts))]
        fs = [FactSupport(fact=f, supported=s) for f, s in zip(facts, flags)]
        if side == "predicted":
            res.predicted_facts = fs
        else:
            res.reference_facts = fs
        if count is None or support is None:
            problems.append(f"{side}: count/support missing or not whole numbers "
                            f"({resp.get(f'facts count {side} evidence')!r}, {resp.get(f'support {side} evidence')!r})")
            continue
        if count != len(facts):
            problems.append(f"{side}: stated {count} facts but {len(facts)} enumerated")
        if support > count or support < 0:
            problems.append(f"{side}: support {support} outside 0..{count}")
        if count == 0:
            problems.append(f"{side}: zero facts")
            continue
        value = support / count
        if not isinstance(stated, (int, float)) or isinstance(stated, bool) or not math.isclose(stated, value, abs_tol=1e-6):
            problems.append(f"{side}: stated {score_name} {stated!r} != support/count = {value:.6f}")
        values[score_name] = value
    if problems:
        res.status, res.error = "replay_inconsistent", "; ".join(problems)
        return res
    res.precision, res.recall = values["precision"], values["recall"]
    res.f1 = f1_score(res.precision, res.recall)
    return res


def recording_mismatch(record: dict, item: Item) -> Optional[str]:
    """Which of the recording's ``claim`` / ``predicted_evidence`` / ``reference_evidence`` fields
    (those it holds) differ from the item's (compared after :func:`claimalign.textio.clean_text`,
    evidence as parsed pairs), or None when all match; a record holding such a field as something
    other than text never matches (a record of the minimal schema, ``model``, ``id``, ``llm_response``,
    joins on the id alone, as documented). Rating files reuse AVeriTeC claim ids across
    teams and splits, so a recording found by id may judge another claim's evidence."""
    for name in ("claim", "predicted_evidence", "reference_evidence"):
        if name in record and record[name] is not None and not isinstance(record[name], str):
            return f"{name} is not text"  # a field that cannot be compared never vouches for a join
    if isinstance(record.get("claim"), str) and textio.clean_text(record["claim"]) != textio.clean_text(item.claim):
        return "claim"
    for side in ("predicted_evidence", "reference_evidence"):
        if isinstance(record.get(side), str) and Evidence.from_text(record[side]) != getattr(item, side):
            return side
    return None


class ReplayReferenceScorer:
    """Serve recorded LLM reference-based judgements by item id, when the recording is of the item's
    content (:func:`recording_mismatch`); else the item gets status ``replay_missing``, naming the field.

    Args:
        path: JSONL of recordings (``model``, ``id``, ``llm_response``; schema of
            ``shared/data/ev2r_replay``).
        model: which recorded model to use; required when the file holds several models.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        ValueError: malformed rows (naming the line), two rows for one (model, id), or ``model`` ambiguous/unknown (listing
            the models present).
    """

    def __init__(self, path: str | Path, model: Optional[str] = None):
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"--replay: {path} does not exist")
        rows = []
        # read as every input is (claimalign.textio): line breaks only, NFC text, so ids join
        for n, line in textio.split_jsonl_lines(textio.read_text_file(path)):
            if line.strip():
                try:
                    row = textio.normalize_strings(textio.loads_checked(line, f"{path}:{n}"))
                except json.JSONDecodeError as e:
                    raise ValueError(f"{path}:{n}: not valid JSON ({e.msg})") from None
                if not isinstance(row, dict):
                    raise ValueError(f"{path}:{n}: expected a JSON object with model, id, llm_response")
                for key in ("model", "id", "llm_response"):
                    if key not in row:
                        raise ValueError(f"{path}:{n}: missing field {key!r} (need model, id, llm_response)")
                if not isinstance(row["model"], str):
                    raise ValueError(f"{path}:{n}: field 'model' must be a string, got {row['model']!r}")
                if isinstance(row["id"], (dict, list)) or row["id"] is None:
                    raise ValueError(f"{path}:{n}: field 'id' must be a string or number, got {row['id']!r}")
                rows.append((n, row))
        models = sorted({r["model"] for _, r in rows})
        if not models:
            raise ValueError(f"--replay: {path} holds no recorded responses (an empty file)")
        if model is None:
            if len(models) != 1:
                raise ValueError(f"--replay-model: {path} holds several models, choose one of {models}")
            model = models[0]
        elif model not in models:
            raise ValueError(f"--replay-model: {model!r} is not in {path}; available: {models}")
        self.model = model
        self.path = path
        self.records: dict[str, dict] = {}
        for n, r in rows:
            if r["model"] == model:
                key = str(r["id"])
                if key in self.records:
                    raise ValueError(f"{path}:{n}: a second recorded response for model {model!r} and id {key!r} "
                                     "(one response per (model, id); which one to score would be a guess)")
                self.records[key] = r
        self.name = f"replay:{model}"

    def signature_fields(self) -> dict[str, str]:
        return {"ref": "replay", "decomp": f"replay-{self.model}", "support": "llm"}

    def score_reference(self, items: Sequence[Item]) -> list[ReferenceResult]:
        out = []
        for item in items:
            rec = self.records.get(str(item.id))
            if rec is None:
                out.append(ReferenceResult(status="replay_missing",
                                           error=f"no recording for id {item.id!r} by {self.model}"))
                continue
            mismatch = recording_mismatch(rec, item)
            if mismatch:
                out.append(ReferenceResult(status="replay_missing",
                                           error=f"the recording for id {item.id!r} by {self.model} is of other "
                                                 f"content ({mismatch}): ids alone never join a recording"))
                continue
            resp = rec["llm_response"]
            if not isinstance(resp, dict):
                out.append(ReferenceResult(status="replay_inconsistent", error="llm_response is not a JSON object"))
                continue
            out.append(parse_recorded_response(resp))
        return out
