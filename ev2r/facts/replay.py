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
no recording for the chosen model gets ``replay_missing``. The replies are read by :mod:`ev2r.facts.reply`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Optional, Sequence

from claimalign.files import read_text_file
from claimalign.jsonio import loads_checked, split_jsonl_lines
from claimalign.text import clean_text, normalize_strings

from ev2r.facts.reply import (REPLY_KEYS, SCORE_SOURCES, SIDES, check_flags, check_says_supported, check_verdict,
                              is_placeholder, keyed_object_from_text, normalize_reply, parse_recorded_response,
                              read_reference_reply, split_enumeration, split_numbered)
from ev2r.io.qa_text import evidence_from_text
from ev2r.scores import ReferenceResult
from ev2r.types import Evidence, Item

# the reply readers live in ev2r.facts.reply; re-exported here, where they were first defined
__all__ = ["ReplayReferenceScorer", "content_sha256", "copied_example_fact", "recording_mismatch", "REPLY_KEYS",
           "SCORE_SOURCES", "SIDES", "check_flags", "check_says_supported", "check_verdict", "is_placeholder",
           "keyed_object_from_text", "normalize_reply", "parse_recorded_response", "read_reference_reply",
           "split_enumeration", "split_numbered"]


def copied_example_fact(res: ReferenceResult, item: Item, example: frozenset) -> Optional[str]:
    """The first fact of ``res`` that is one of a prompt's worked-example facts (``example``,
    case-folded; :meth:`ev2r.llm.prompts.Prompt.example_facts`) and that the item's claim and
    evidence do not contain -- a reply that copied the example instead of judging the item -- or None."""
    if not example:
        return None
    seen = " ".join([item.claim, item.predicted_evidence.render(), item.reference_evidence.render()]).casefold()
    for f in res.predicted_facts + res.reference_facts:
        key = f.fact.strip().casefold()
        if key in example and key not in seen:
            return f.fact
    return None


def content_sha256(item: Item) -> str:
    """SHA-256 (hex) of what an LLM judgement of ``item`` depends on: its claim and the
    question/answer pairs of both evidences, as read (canonical JSON). Recorded as
    ``content_sha256`` by :meth:`ev2r.llm.LLMReferenceScorer.score_and_record`, so a replay joins
    only the content that was judged even where the rendered evidence text does not read back
    pair for pair."""
    import hashlib

    def pairs(ev: Evidence) -> list:
        return [[p.question, p.answer] for p in ev.pairs]

    canon = json.dumps([item.claim, pairs(item.predicted_evidence), pairs(item.reference_evidence)],
                       ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()


def recording_mismatch(record: dict, item: Item) -> Optional[str]:
    """``"content_sha256"`` when the recording carries that hash (:func:`content_sha256`) and it is
    not the item's (the hash alone decides then); else which of the recording's ``claim`` /
    ``predicted_evidence`` / ``reference_evidence`` fields
    (those it holds) differ from the item's (compared after :func:`claimalign.text.clean_text`,
    evidence as parsed pairs), or None when all match; a record holding such a field as something
    other than text never matches (a record of the minimal schema, ``model``, ``id``, ``llm_response``,
    joins on the id alone, as documented). Rating files reuse AVeriTeC claim ids across
    teams and splits, so a recording found by id may judge another claim's evidence."""
    for name in ("claim", "predicted_evidence", "reference_evidence", "content_sha256"):
        if name in record and record[name] is not None and not isinstance(record[name], str):
            return f"{name} is not text"  # a field that cannot be compared never vouches for a join
    if isinstance(record.get("content_sha256"), str):
        return None if record["content_sha256"] == content_sha256(item) else "content_sha256"
    if isinstance(record.get("claim"), str) and clean_text(record["claim"]) != clean_text(item.claim):
        return "claim"
    for side in ("predicted_evidence", "reference_evidence"):
        if isinstance(record.get(side), str) and evidence_from_text(record[side]) != getattr(item, side):
            return side
    return None


class ReplayReferenceScorer:
    """Serve recorded LLM reference-based judgements by item id, when the recording is of the item's
    content (:func:`recording_mismatch`); else the item gets status ``replay_missing``, naming the field.

    Args:
        path: JSONL of recordings (``model``, ``id``, ``llm_response``; schema of
            ``shared/data/ev2r_replay``).
        model: which recorded model to use; required when the file holds several models.
        example_facts: ``example_facts(prompt_id) -> frozenset`` of a record's ``prompt`` (e.g.
            :func:`ev2r.llm.prompts.example_facts_of`, passed by the scorer factory): a reply that
            copies that prompt's worked example is refused, as the live run refused it. None: no check.
        scores_from: how a recorded reply is read (:func:`read_reference_reply`): ``strict``
            (default; reproduces the authors' recorded values), ``checks`` or ``counts`` (a
            recording of the live LLM path, read as that path reads it).

    Raises:
        FileNotFoundError: ``path`` does not exist.
        ValueError: malformed rows (naming the line), two rows for one (model, id), or ``model`` ambiguous/unknown
            (listing the models present).
    """

    def __init__(self, path: str | Path, model: Optional[str] = None, scores_from: str = "strict",
                 example_facts: Optional[Callable[[Optional[str]], frozenset]] = None):
        if scores_from not in SCORE_SOURCES:
            raise ValueError(f"scores_from: {scores_from!r} is not one of {SCORE_SOURCES}")
        self.scores_from = scores_from
        self.example_facts = example_facts
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"--replay: {path} does not exist")
        rows = []
        # read as every input is (claimalign.jsonio): line breaks only, NFC text, so ids join
        for n, line in split_jsonl_lines(read_text_file(path)):
            if line.strip():
                try:
                    row = normalize_strings(loads_checked(line, f"{path}:{n}"))
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
                raise ValueError(f"--llm-model: {path} holds several models, choose one of {models} (the recorded "
                                 "model to replay)")
            model = models[0]
        elif model not in models:
            raise ValueError(f"--llm-model: recorded model {model!r} is not in {path}; available: {models}")
        self.model = model
        self.path = path
        #: the first recording of each id (what an id-only lookup sees); ``by_id`` holds them all
        self.records: dict[str, dict] = {}
        self.by_id: dict[str, list[dict]] = {}
        for n, r in rows:
            if r["model"] == model:
                key = str(r["id"])
                same = self.by_id.setdefault(key, [])
                # rating files reuse ids: several recordings of one id are allowed when each carries the
                # content hash of what it judged, and the hashes differ
                if same and (not isinstance(r.get("content_sha256"), str)
                             or any(x.get("content_sha256") in (None, r["content_sha256"]) for x in same)):
                    raise ValueError(f"{path}:{n}: a second recorded response for model {model!r} and id {key!r} "
                                     "(one response per (model, id), or per content_sha256; which one to score "
                                     "would be a guess)")
                same.append(r)
                self.records.setdefault(key, r)
        self.name = f"replay:{model}"

    def recording_for(self, item: Item) -> tuple[Optional[dict], Optional[str]]:
        """``(record, None)``: the recording of this item's content; ``(None, why)`` when there is
        none (no recording of the id, or only recordings of other content, naming the field)."""
        recs = self.by_id.get(str(item.id))
        if not recs:
            return None, f"no recording for id {item.id!r} by {self.model}"
        mismatch = None
        for rec in recs:
            mismatch = recording_mismatch(rec, item)
            if mismatch is None:
                return rec, None
        return None, (f"the recording for id {item.id!r} by {self.model} is of other content ({mismatch}): ids alone "
                      "never join a recording")

    def signature_fields(self) -> dict[str, str]:
        fields = {"ref": "replay", "decomp": f"replay-{self.model}", "support": "llm"}
        if self.scores_from != "strict":
            fields["read"] = f"{self.scores_from}>{'counts' if self.scores_from == 'checks' else 'checks'}"
        return fields

    def score_reference(self, items: Sequence[Item]) -> list[ReferenceResult]:
        out = []
        for item in items:
            rec, why = self.recording_for(item)
            if rec is None:
                out.append(ReferenceResult(status="replay_missing", error=why))
                continue
            resp = rec["llm_response"]
            repaired = isinstance(resp, str) and self.scores_from != "strict"
            if repaired and rec.get("finish_reason") == "length":
                out.append(ReferenceResult(status="replay_inconsistent", error="the recorded reply was cut off at the "
                                                                               "length limit (finish_reason length)"))
                continue
            if repaired:  # the recorded text of a reply that was not valid JSON: read as the live run read it
                resp = keyed_object_from_text(resp)
            if not isinstance(resp, dict):
                out.append(ReferenceResult(status="replay_inconsistent", error="llm_response is not a JSON object"))
                continue
            res = read_reference_reply(resp, self.scores_from)
            if repaired and res.status == "ok":
                res.extra_scores["reply_json_repaired"] = 1.0
            example = self.example_facts(rec.get("prompt")) if self.example_facts is not None else frozenset()
            copied = copied_example_fact(res, item, example) if res.status == "ok" else None
            if copied is not None:  # refused live too (LLMReferenceScorer), so the replay agrees
                res = ReferenceResult(status="replay_inconsistent", extra_scores=res.extra_scores,
                                      error=f"the reply copies the prompt's example instead of judging this item "
                                            f"({copied!r})")
            out.append(res)
        return out
