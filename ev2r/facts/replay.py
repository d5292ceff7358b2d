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

from ev2r.config import REPLY_READINGS
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
    (those it holds) differ from the item's (compared after :func:`claimalign.textio.clean_text`,
    evidence as parsed pairs), or None when all match; a record holding such a field as something
    other than text never matches (a record of the minimal schema, ``model``, ``id``, ``llm_response``,
    joins on the id alone, as documented). Rating files reuse AVeriTeC claim ids across
    teams and splits, so a recording found by id may judge another claim's evidence."""
    for name in ("claim", "predicted_evidence", "reference_evidence", "content_sha256"):
        if name in record and record[name] is not None and not isinstance(record[name], str):
            return f"{name} is not text"  # a field that cannot be compared never vouches for a join
    if isinstance(record.get("content_sha256"), str):
        return None if record["content_sha256"] == content_sha256(item) else "content_sha256"
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
        scores_from: how a recorded reply is read (:func:`read_reference_reply`): ``strict``
            (default; reproduces the authors' recorded values), ``checks`` or ``counts`` (a
            recording of the live LLM path, read as that path reads it).

    Raises:
        FileNotFoundError: ``path`` does not exist.
        ValueError: malformed rows (naming the line), two rows for one (model, id), or ``model`` ambiguous/unknown (listing
            the models present).
    """

    def __init__(self, path: str | Path, model: Optional[str] = None, scores_from: str = "strict"):
        if scores_from not in SCORE_SOURCES:
            raise ValueError(f"scores_from: {scores_from!r} is not one of {SCORE_SOURCES}")
        self.scores_from = scores_from
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
        fields = {"ref": "replay", "decomp": f"replay-{self.model}", "support": "llm"}
        if self.scores_from != "strict":
            fields["read"] = f"{self.scores_from}>{'counts' if self.scores_from == 'checks' else 'checks'}"
        return fields

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
            out.append(read_reference_reply(resp, self.scores_from))
        return out


# -- reading a reply as far as it goes (issue 22 item 6) ----------------------------------------
#: where precision / recall come from when a reply is read (:func:`read_reference_reply`):
#: ``checks`` -- the share of per-fact checks that say "supported" (the definition, Akhtar et al.
#: 2024 sec. 3.1), else the stated counts; ``counts`` -- support / count as stated (what the
#: FEVER-8 scorer reads), else the checks; ``strict`` -- both must be there and agree with each
#: other and with the stated precision/recall, else the item is not scored (the authors' replay).
SCORE_SOURCES = REPLY_READINGS

_MARKER_STYLES = (r"{n}\.", r"{n}\)", r"\({n}\)", r"\[{n}\]", r"{n}:", r"{n} -")
_BULLET = re.compile(r"^\s*(?:[-*\u2022\u2013\u2014\u25cf\u25aa]|\d+[.)])\s+")
_FACT_KEYS = ("fact", "statement", "text", "claim", "atomic_fact", "content")
_VERDICT_KEYS = ("verdict", "check", "label", "result", "status", "judgement", "judgment", "support", "supported")


def _sequential(text: str, style: str) -> list[str]:
    """Items of ``text`` under one marker style, when its first marker opens the text."""
    positions = []
    expected, pos = 1, 0
    while True:
        m = re.compile(r"(?:^|(?<=\s))" + style.format(n=expected) + r"\s").search(text, pos)
        if m is None:
            break
        positions.append((m.start(), m.end()))
        expected, pos = expected + 1, m.end()
    if not positions or positions[0][0] != 0:
        return []
    return [text[e:(positions[k + 1][0] if k + 1 < len(positions) else len(text))].strip()
            for k, (_s, e) in enumerate(positions)]


def _dict_text(d: dict) -> Optional[str]:
    for k in _FACT_KEYS:
        if isinstance(d.get(k), str) and d[k].strip():
            return d[k].strip()
    texts = [v for v in d.values() if isinstance(v, str) and v.strip()]
    return texts[0].strip() if len(texts) == 1 else None


def split_enumeration(value) -> Optional[list[str]]:
    """The items of an enumeration in any common layout, or None when ``value`` is not one.

    * a JSON list of strings (empty strings dropped), or of objects with one text field
      (``fact``, ``statement``, ``text``, ...; a check object keeps its verdict, see
      :func:`check_flags`);
    * text numbered with sequential markers of one style -- ``1. a 2. b``, ``1) a 2) b``,
      ``(1) a``, ``[1] a``, ``1: a``, ``1 - a`` -- on one line or on several (numbers inside an item,
      "in 2014. It", "5.18", stay in it; the first marker must open the text);
    * lines that start with a bullet (``-``, ``*``, ``\u2022``, dashes) or a number;
    * otherwise several non-empty lines are several items, and one line is one item.

    Returns [] for empty text or an empty list; None for a number, a mapping, or a list holding
    anything else (that is not an enumeration).
    """
    if isinstance(value, list):
        out = []
        for v in value:
            if isinstance(v, str):
                if v.strip():
                    out.append(v.strip())
            elif isinstance(v, dict):
                t = _dict_text(v)
                if t is None:
                    return None
                out.append(t)
            else:
                return None
        return out
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text:
        return []
    best: list[str] = []
    for style in _MARKER_STYLES:
        items = _sequential(text, style)
        if len(items) > len(best):
            best = items
    if best:
        return [b for b in best if b]
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) > 1 and all(_BULLET.match(ln) for ln in lines):
        return [_BULLET.sub("", ln).strip() for ln in lines]
    if len(lines) > 1:
        return [ln.strip() for ln in lines]
    return [text]


def check_flags(value) -> Optional[list[bool]]:
    """Per-fact verdicts of a check field: each item of :func:`split_enumeration` read by
    :func:`check_says_supported`; a check object gives its boolean ``supported`` (or its verdict
    text). None when the field is not an enumeration."""
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        flags = []
        for v in value:
            b = next((v[k] for k in ("supported", "is_supported", "support") if isinstance(v.get(k), bool)), None)
            if b is None:
                t = next((v[k] for k in _VERDICT_KEYS if isinstance(v.get(k), str)), None)
                if t is None:
                    t = " ".join(x for x in v.values() if isinstance(x, str))
                b = check_says_supported(t)
            flags.append(bool(b))
        return flags
    items = split_enumeration(value)
    return None if items is None else [check_says_supported(c) for c in items]


def _as_number(v) -> Optional[float]:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v) if math.isfinite(v) else None
    if isinstance(v, str):
        try:
            x = float(v.strip().rstrip("%"))
        except ValueError:
            return None
        return x if math.isfinite(x) else None
    return None


def _whole(v) -> Optional[int]:
    x = _as_number(v)
    return int(x) if x is not None and x.is_integer() and x >= 0 else None


def read_reference_reply(resp: dict, scores_from: str = "checks") -> ReferenceResult:
    """Read a reference-based reply (the recorded schema's keys, :data:`ev2r.llm.parse.REFERENCE_KEYS`)
    as far as it goes, and score it.

    Per side (predicted -> precision, reference -> recall), two readings:

    * *checks*: the per-fact checks (:func:`check_flags`), when there is one check per
      enumerated fact (or checks and no separate fact list): supported checks / checks;
    * *counts*: ``support ... / facts count ...`` when both are whole numbers with
      0 <= support <= count and count > 0 (numeric strings accepted).

    ``scores_from`` (:data:`SCORE_SOURCES`) says which reading scores the side and which is the
    fallback; ``strict`` is :func:`parse_recorded_response` (all must agree). Both readings and
    the stated value go into ``extra_scores`` (``precision_from_checks``, ``precision_from_counts``,
    ``precision_stated``, and the same for recall; None where a reading fails), and
    ``reading_disagreements`` counts the sides on which the two readings differ (> 1e-6): a
    disagreement is recorded on the item, never a reason to drop it.

    Returns:
        a :class:`~ev2r.scores.ReferenceResult`: status ``ok`` when both sides could be read
        (precision and recall in [0, 1]); ``replay_inconsistent`` with the reasons otherwise (the
        live LLM path turns it into a ``parse_error``).

    Raises:
        ValueError: ``scores_from`` not in :data:`SCORE_SOURCES`.
    """
    if scores_from not in SCORE_SOURCES:
        raise ValueError(f"scores_from: {scores_from!r} is not one of {SCORE_SOURCES}")
    if scores_from == "strict":
        return parse_recorded_response(resp)
    res = ReferenceResult()
    problems: list[str] = []
    values: dict[str, float] = {}
    extra: dict[str, Optional[float]] = {}
    disagreements = 0
    for side, score_name in SIDES:
        facts = split_enumeration(resp.get(f"facts in {side} evidence"))
        flags = check_flags(resp.get(f"fact check {side} evidence"))
        check_texts = split_enumeration(resp.get(f"fact check {side} evidence")) or []
        from_checks = None
        if flags and (not facts or len(flags) == len(facts)):
            from_checks = sum(flags) / len(flags)
            facts = facts or check_texts
        count, support = _whole(resp.get(f"facts count {side} evidence")), _whole(resp.get(f"support {side} evidence"))
        from_counts = support / count if count and support is not None and support <= count else None
        stated = _as_number(resp.get(score_name))
        extra[f"{score_name}_from_checks"] = from_checks
        extra[f"{score_name}_from_counts"] = from_counts
        extra[f"{score_name}_stated"] = stated if stated is not None and 0.0 <= stated <= 1.0 else None
        fs = [FactSupport(fact=f, supported=bool(flags[k]) if from_checks is not None else False)
              for k, f in enumerate(facts or [])]
        if side == "predicted":
            res.predicted_facts = fs
        else:
            res.reference_facts = fs
        if from_checks is not None and from_counts is not None and abs(from_checks - from_counts) > 1e-6:
            disagreements += 1
        order = (from_checks, from_counts) if scores_from == "checks" else (from_counts, from_checks)
        value = next((v for v in order if v is not None), None)
        if value is None:
            why = []
            if flags is None or not flags:
                why.append("no per-fact checks")
            elif facts and len(flags) != len(facts):
                why.append(f"{len(flags)} checks for {len(facts)} facts")
            why.append(f"counts {resp.get(f'facts count {side} evidence')!r} / "
                       f"{resp.get(f'support {side} evidence')!r} not usable")
            problems.append(f"{side}: " + ", ".join(why))
            continue
        values[score_name] = value
    res.extra_scores = {**extra, "reading_disagreements": float(disagreements)}
    if problems:
        res.status, res.error = "replay_inconsistent", "; ".join(problems)
        return res
    res.precision, res.recall = values["precision"], values["recall"]
    res.f1 = f1_score(res.precision, res.recall)
    return res
