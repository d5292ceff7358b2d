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

import functools
import json
import math
import re
from pathlib import Path
from typing import Callable, Optional, Sequence

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
        example_facts: ``example_facts(prompt_id) -> frozenset`` of a record's ``prompt`` (e.g.
            :func:`ev2r.llm.prompts.example_facts_of`, passed by the scorer factory): a reply that
            copies that prompt's worked example is refused, as the live run refused it. None: no check.
        scores_from: how a recorded reply is read (:func:`read_reference_reply`): ``strict``
            (default; reproduces the authors' recorded values), ``checks`` or ``counts`` (a
            recording of the live LLM path, read as that path reads it).

    Raises:
        FileNotFoundError: ``path`` does not exist.
        ValueError: malformed rows (naming the line), two rows for one (model, id), or ``model`` ambiguous/unknown (listing
            the models present).
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


# -- reading a reply as far as it goes (issue 22 item 6) ----------------------------------------
#: where precision / recall come from when a reply is read (:func:`read_reference_reply`):
#: ``checks`` -- the share of per-fact checks that say "supported" (the definition, Akhtar et al.
#: 2024 sec. 3.1), else the stated counts; ``counts`` -- support / count as stated (what the
#: FEVER-8 scorer reads), else the checks; ``strict`` -- both must be there and agree with each
#: other and with the stated precision/recall, else the item is not scored (the authors' replay).
SCORE_SOURCES = REPLY_READINGS

_MARKER_STYLES = (r"{n}\.", r"{n}\)", r"\({n}\)", r"\[{n}\]", r"{n}:", r"{n} -")
_BULLET = re.compile(r"^\s*(?:[-*\u2022\u2013\u2014\u25cf\u25aa]|\d+[.):])\s+")
_LINE_MARKER = re.compile(r"^\s*(?:\(?\d+[.):\]]|\[\d+\]|[-*\u2022\u2013\u2014\u25cf\u25aa])(?:\s+|$)")
_FACT_KEYS = ("fact", "statement", "text", "claim", "atomic_fact", "content")
_VERDICT_KEYS = ("verdict", "check", "label", "result", "status", "judgement", "judgment", "support", "supported",
                 "is_supported")
_PLACEHOLDER = re.compile(r"\W*(?:<[^<>]*>|\[[^\[\]]*\]|\{[^{}]*\})\W*")

# a verdict phrase at the end of a check ("... Not supported.") or at its start ("Supported. ..."); the
# negative forms first, so "not supported" is never read as "supported"
_VERDICT_WORDS = (r"neither\s+supported\s+nor\s+\w+|not\s+enough\s+(?:information|evidence)|"
                  r"(?:is|are|was|were)?\s*n[o']t\s+supported|not\s+supported|unsupported|partially\s+supported|"
                  r"partly\s+supported|refuted|contradict(?:ed|s)?|nepodporov\w*|nepodlo\w*|"
                  r"supported|podporov\w*|podlo\w*|true|false|yes|no")
_VERDICT_END = re.compile(rf"(?i)\b({_VERDICT_WORDS})\b\s*[.!)\]\u3002]*\s*(?:\([^()]*\)\s*[.!]*\s*)?$")
_VERDICT_START = re.compile(rf"(?i)^\s*[\W\d]*?\b({_VERDICT_WORDS})\b\s*[.:!\-\u2013\u2014]")
_POSITIVE = re.compile(r"(?i)^(supported|podporov\w*|podlo\w*|true|yes)$")


def check_verdict(check) -> Optional[bool]:
    """The verdict of one per-fact check, or None when it states none.

    Text: a verdict phrase that ends the check ("A is red. Supported.", "A is not red: Supported",
    "Supported (the date is not given).") or opens it ("Supported. A is red."); "supported",
    "yes", "true" (and Czech "podporováno") are positive; "not supported", "isn't supported",
    "unsupported", "partially supported", "neither supported nor refuted", "not enough information",
    "refuted", "contradicted", "no", "false" are negative; "Supported?" or a restated fact alone
    has no verdict. A boolean, 1/0, or a check object's ``supported`` / ``verdict`` value is read
    the same way (the object's fact text is never scanned).
    """
    if isinstance(check, bool):
        return check
    if isinstance(check, (int, float)) and check in (0, 1):
        return bool(check)
    if isinstance(check, dict):
        for k in _VERDICT_KEYS:
            if k in check:
                v = check_verdict(check[k])
                if v is not None:
                    return v
        return None
    if not isinstance(check, str):
        return None
    text = check.strip()
    m = _VERDICT_END.search(text) or _VERDICT_START.search(text)
    if m is None:
        return None
    word = re.sub(r"\s+", " ", m.group(1).strip())
    return bool(_POSITIVE.match(word))


def _strip_verdict(check: str) -> str:
    """A check's text without its verdict phrase (the fact it restates)."""
    out = _VERDICT_END.sub("", check).strip()
    if out == check.strip():
        out = _VERDICT_START.sub("", check).strip()
    return out.rstrip(" :-\u2013\u2014").strip()


def _sequential(text: str, style: str, line_start: bool = False) -> list[str]:
    """Items of ``text`` under one marker style, when its first marker opens the text (``line_start``:
    markers only at the start of a line)."""
    positions = []
    expected, pos = 1, 0
    lead = r"(?:^|(?<=\n))[ \t]*" if line_start else r"(?:^|(?<=\s))"
    while True:
        m = re.compile(lead + style.format(n=expected) + r"(?=\s|$)", re.M if line_start else 0).search(text, pos)
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
    texts = [v for k, v in d.items() if isinstance(v, str) and v.strip() and k not in _VERDICT_KEYS]
    return max(texts, key=len).strip() if texts else None


def split_enumeration(value, expected: Optional[int] = None) -> Optional[list[str]]:
    """The items of an enumeration in any common layout, or None when ``value`` is not one.

    * a JSON list of strings (empty strings dropped), or of objects with a text field (``fact``,
      ``statement``, ``text``, ...; else their longest text that is not a verdict);
    * text with several lines, each item opening a line (numbered ``1.`` ``1)`` ``(1)`` ``[1]``
      ``1:`` or bulleted ``-`` ``*`` ``\u2022``); lines before the first marker ("Facts:") are a
      preamble, not an item;
    * text numbered with sequential markers of one style on one line -- ``1. a 2. b``, ``1) a 2) b``,
      ``(1) a``, ``[1] a``, ``1: a``, ``1 - a`` (numbers inside an item, "in 2014. It", "5.18", stay in
      it; the first marker must open the text). Where a number inside an item reads as the next
      marker ("finished in 2. place. 2. ..."), the split at markers that follow a sentence end is
      taken when it has as many items, or when its length is ``expected`` (the reply's stated
      count);
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
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) > 1:
        first = next((k for k, ln in enumerate(lines) if _LINE_MARKER.match(ln)), None)
        if first is not None:
            body = "\n".join(lines[first:])
            best: list[str] = []
            for style in _MARKER_STYLES:
                items = _sequential(body, style, line_start=True)
                if len(items) > len(best):
                    best = items
            marked = [ln for ln in lines[first:] if _LINE_MARKER.match(ln)]
            if len(best) >= max(2, len(marked)):
                return [b for b in best if b]
            if len(marked) == len(lines) - first and all(_BULLET.match(ln) for ln in marked):
                return [t for t in (_BULLET.sub("", ln).strip() for ln in marked) if t]
    candidates: list[list[str]] = []
    for style in _MARKER_STYLES:
        items = _sequential(text, style)
        if items:
            candidates.append(items)
    if candidates:
        longest = [x for x in max(candidates, key=len) if x]
        sentence = [x for x in _sequential_after_sentence(text) if x]
        if expected is not None:
            for c in (sentence, longest):
                if len(c) == expected:
                    return c
        if len(sentence) >= 2 and len(sentence) == len(longest):
            # as many items either way: the split at sentence ends keeps "finished in 2. place" whole
            return sentence
        return longest
    if len(lines) > 1:
        return [ln.strip() for ln in lines]
    return [text]


def _sequential_after_sentence(text: str) -> list[str]:
    """``1. a. 2. b.`` split only at markers after a sentence end (or the text's start)."""
    positions = []
    expected, pos = 1, 0
    while True:
        lead = r"^" if expected == 1 else r"(?<=[.!?;)\]\"'\u201d\u3002])\s+"
        m = re.compile(lead + rf"{expected}\.(?=\s|$)").search(text, pos)
        if m is None:
            break
        start = m.start() if expected == 1 else m.end() - len(f"{expected}.")
        positions.append((start, m.end()))
        expected, pos = expected + 1, m.end()
    if not positions:
        return []
    return [text[e:(positions[k + 1][0] if k + 1 < len(positions) else len(text))].strip()
            for k, (_s, e) in enumerate(positions)]


def check_flags(value, expected: Optional[int] = None) -> Optional[list[Optional[bool]]]:
    """Per-fact verdicts of a check field (:func:`check_verdict` of each item of
    :func:`split_enumeration`; a JSON list of booleans or of check objects is read item by item);
    an item without a verdict is None. None when the field is not an enumeration."""
    if isinstance(value, list) and value and all(isinstance(v, (dict, bool)) for v in value):
        return [check_verdict(v) for v in value]
    items = split_enumeration(value, expected)
    return None if items is None else [check_verdict(c) for c in items]


def _as_number(v) -> Optional[float]:
    if isinstance(v, bool) or v is None:
        return None
    try:
        if isinstance(v, (int, float)):
            x = float(v)
        elif isinstance(v, str):
            x = float(v.strip().rstrip("%"))
        else:
            return None
    except (ValueError, OverflowError):
        return None
    return x if math.isfinite(x) else None


def _whole(v) -> Optional[int]:
    x = _as_number(v)
    return int(x) if x is not None and x.is_integer() and 0 <= x < 1e9 else None


def is_placeholder(fact: str) -> bool:
    """A template placeholder instead of a fact: no letter or digit ("...", "-"), or a bracketed
    slot such as "<fact>", "<fact>.", "[fact]", "{fact}"."""
    from claimalign.qa_text import has_content

    return not has_content(fact) or bool(_PLACEHOLDER.fullmatch(fact))


def normalize_reply(resp: dict) -> dict:
    """A copy of a reply with fact lists written as JSON lists turned into numbered text and
    numeric strings ("3", "0.5") turned into numbers -- the one normalisation every reading applies
    before the recorded schema's checks, live or replayed."""
    out = dict(resp)
    for side in ("predicted", "reference"):
        for key in (f"facts in {side} evidence", f"fact check {side} evidence"):
            v = out.get(key)
            if isinstance(v, list) and all(isinstance(x, str) for x in v):
                out[key] = " ".join(f"{k}. {x.strip()}" for k, x in enumerate(v, 1))
        for key in (f"facts count {side} evidence", f"support {side} evidence"):
            v = out.get(key)
            if isinstance(v, str):
                x = _as_number(v)
                out[key] = int(x) if x is not None and x.is_integer() else x if x is not None else v
    for key in ("precision", "recall"):
        v = out.get(key)
        if isinstance(v, str) and _as_number(v) is not None:
            out[key] = _as_number(v)
    return out


#: the keys of a reference-based reply, in the prompt's order (the Ev2R authors' schema;
#: :data:`ev2r.llm.parse.REFERENCE_KEYS` is this tuple)
REPLY_KEYS = (
    "facts in predicted evidence", "fact check predicted evidence", "facts count predicted evidence",
    "support predicted evidence", "facts in reference evidence", "fact check reference evidence",
    "facts count reference evidence", "support reference evidence", "precision", "recall",
)


@functools.lru_cache(maxsize=8)
def _key_pattern(keys: tuple) -> "re.Pattern[str]":
    """``"key":`` for any of ``keys`` (spaces allowed inside the quotes and before the colon)."""
    return re.compile(r'"\s*(' + "|".join(re.escape(k) for k in keys) + r')\s*"\s*:')


def keyed_object_from_text(text: str, keys: Sequence[str] = REPLY_KEYS) -> Optional[dict]:
    """A reply object read from text that is JSON but for unescaped double quotes inside string
    values (small models quote a phrase: ``"... as the "greatest natural disaster.""``), or None.

    The text must hold an object that closes (from its first ``{`` to its last ``}``: a reply cut
    off at the length limit is never read this way) and at least two of ``keys`` written as
    ``"key":``, the last of which holds a whole JSON value up to the closing brace (an object
    that stops inside a value is not read). Every such occurrence starts a value that runs to the
    next one (or to the closing brace); a value is decoded as JSON when it is valid JSON, else, when it is quoted, taken as the
    text between its outer quotes (``\\n`` and ``\\"`` unescaped). A key given twice keeps its
    last value, as :func:`json.loads` does. Keys not in ``keys`` are not read (their text stays in
    the value before them).
    """
    if not isinstance(text, str):
        return None
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    body = text[start + 1:end]
    hits = list(_key_pattern(tuple(keys)).finditer(body))
    if len({m.group(1) for m in hits}) < 2:
        return None
    obj: dict = {}
    for m, nxt in zip(hits, hits[1:] + [None]):
        raw = body[m.end():nxt.start() if nxt is not None else len(body)].strip().rstrip(",").strip()
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            if nxt is None:  # the last value must be whole JSON: else the object did not close there
                return None
            if len(raw) >= 2 and raw[0] == raw[-1] == '"':
                value = raw[1:-1].replace("\\n", "\n").replace('\\"', '"')
            else:
                value = raw
        obj[m.group(1)] = value
    return obj


def read_reference_reply(resp: dict, scores_from: str = "checks") -> ReferenceResult:
    """Read a reference-based reply (the recorded schema's keys, :data:`ev2r.llm.parse.REFERENCE_KEYS`)
    as far as it goes, and score it.

    Per side (predicted -> precision, reference -> recall), two readings:

    * *checks*: the per-fact checks (:func:`check_flags`), when every check states a verdict and
      there is one check per enumerated fact (or checks and no separate fact list, the facts then
      being the checks without their verdicts): supported checks / checks;
    * *counts*: ``support ... / facts count ...`` when both are whole numbers with
      0 <= support <= count and count > 0 (numeric strings accepted).

    ``scores_from`` (:data:`SCORE_SOURCES`) says which reading scores the side and which is the
    fallback; ``strict`` is :func:`parse_recorded_response` after :func:`normalize_reply` (all must
    agree). In the other modes both readings and the stated value go into ``extra_scores``
    (``precision_from_checks``, ``precision_from_counts``, ``precision_stated``, and the same for
    recall; None where a reading fails), and ``reading_disagreements`` counts the sides on which the
    two readings differ (> 1e-6): a disagreement is recorded on the item, never a reason to drop it.
    Facts that are template placeholders (:func:`is_placeholder`) make the reply unreadable in
    every mode.

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
        try:
            res = parse_recorded_response(normalize_reply(resp))
        except (TypeError, ValueError, OverflowError) as e:  # a value no schema check foresaw
            return ReferenceResult(status="replay_inconsistent", error=f"unreadable reply ({type(e).__name__}: {e})")
        return _refuse_placeholders(res)
    res = ReferenceResult()
    problems: list[str] = []
    values: dict[str, float] = {}
    extra: dict[str, Optional[float]] = {}
    disagreements = 0
    for side, score_name in SIDES:
        count, support = _whole(resp.get(f"facts count {side} evidence")), _whole(resp.get(f"support {side} evidence"))
        facts = split_enumeration(resp.get(f"facts in {side} evidence"), count)
        check_value = resp.get(f"fact check {side} evidence")
        flags = check_flags(check_value, count if not facts else len(facts))
        from_checks = None
        if flags and all(f is not None for f in flags) and (not facts or len(flags) == len(facts)):
            from_checks = sum(bool(f) for f in flags) / len(flags)
            if not facts:
                texts = split_enumeration(check_value, len(flags)) or []
                facts = [_strip_verdict(t) if isinstance(t, str) else t for t in texts]
        from_counts = support / count if count and support is not None and support <= count else None
        stated = _as_number(resp.get(score_name))
        extra[f"{score_name}_from_checks"] = from_checks
        extra[f"{score_name}_from_counts"] = from_counts
        extra[f"{score_name}_stated"] = stated if stated is not None and 0.0 <= stated <= 1.0 else None
        fs = [FactSupport(fact=f, supported=bool(flags[k]) if from_checks is not None and flags else False)
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
            if not flags:
                why.append("no per-fact checks")
            elif any(f is None for f in flags):
                why.append(f"{sum(f is None for f in flags)} of {len(flags)} checks state no verdict")
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
    return _refuse_placeholders(res)


def _refuse_placeholders(res: ReferenceResult) -> ReferenceResult:
    if res.status != "ok":
        return res
    for side, facts in (("predicted", res.predicted_facts), ("reference", res.reference_facts)):
        bad = [f.fact for f in facts if not isinstance(f.fact, str) or is_placeholder(f.fact)]
        if bad:
            return ReferenceResult(status="replay_inconsistent", error=f"{side}: placeholder facts instead of content "
                                                                       f"({bad[:2]!r})", extra_scores=res.extra_scores)
    return res
