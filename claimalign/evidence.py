"""The inputs of fact-checking evaluation, shared by the three packages (``adversarial`` and ``ev2r``
both read them, and both import this lowest package, never each other): a claim's evidence as question/answer pairs
(:class:`QAPair`, :class:`Evidence`), one item to score (:class:`Item`) and its verdicts (:class:`Verdict`, one
normaliser for every dataset's spelling, :func:`normalize_verdict`). ``ev2r.types`` and ``ev2r.labels`` re-export them
under their old names.

Evidence as AVeriTeC renders it (Schlichtkrull et al., 2023) is a list of question/answer pairs
(``Question: <q>\nAnswer: <a>`` blocks separated by a blank line), or plain text (FEVER / VitaminC sentences) held as
one pair with an empty question. The reader of that text is ``ev2r.io.qa_text`` (``evidence_from_text``: what
``Evidence.from_text`` was before ev2r 2.0); this package reads no file format.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Optional

from claimalign.nli import label_key
from claimalign.words import has_content
from claimalign.text import clean_text, normalize_text


class Verdict(str, enum.Enum):
    """Canonical claim verdicts (AVeriTeC's four; FEVER's three map onto the first three)."""

    SUPPORTED = "supported"
    REFUTED = "refuted"
    NOT_ENOUGH_EVIDENCE = "not enough evidence"
    CONFLICTING = "conflicting evidence/cherrypicking"


_VERDICT_SPELLINGS: dict[str, Verdict] = {}
for _v, _names in {
    Verdict.SUPPORTED: ["supported", "supports", "support", "true", "entailment", "entailed"],
    Verdict.REFUTED: ["refuted", "refutes", "refute", "false", "contradiction", "contradicted"],
    Verdict.NOT_ENOUGH_EVIDENCE: [
        "not enough evidence", "not enough info", "not enough information", "nei", "neutral",
        "not enough evidence/information", "insufficient evidence", "insufficient information",
    ],
    Verdict.CONFLICTING: [
        "conflicting evidence/cherrypicking", "conflicting evidence", "conflicting", "cherrypicking",
        "conflicting/cherrypicking", "conflicting information", "contradicting information",
        "contradicting information (some evidence parts support the claim whereas others refute it)",
    ],
}.items():
    for _n in _names:
        _VERDICT_SPELLINGS[label_key(_n)] = _v

#: Matching keys of the accepted spellings (:func:`claimalign.nli.label_key`: case, spaces and punctuation ignored).
ALLOWED_VERDICT_SPELLINGS = sorted({n for n in _VERDICT_SPELLINGS})


def normalize_verdict(label: object, field: str = "label") -> Verdict:
    """Normalise any dataset's verdict spelling to a :class:`Verdict`.

    Case, spacing, hyphens, slashes and underscores do not matter (``"conflicting/cherry-picking"``,
    ``"Cherry-picking"``, ``"NOT_ENOUGH_INFO"``, ``" not  enough information "`` are all accepted).

    Args:
        label: a string such as ``"Refuted"``, ``"REFUTES"``, ``"not enough information"``,
            ``"Conflicting Evidence/Cherrypicking"``, or an NLI label (entailment -> supported,
            neutral -> not enough evidence, contradiction -> refuted), or a :class:`Verdict`.
        field: the input field's name, used in the error message.

    Raises:
        ValueError: unknown label, naming ``field`` and the allowed values.
    """
    if isinstance(label, Verdict):
        return label
    if not isinstance(label, str) or not label.strip():
        raise ValueError(f"{field}: expected a verdict string, got {label!r}; allowed: "
                         f"{', '.join(v.value for v in Verdict)} (or FEVER's SUPPORTS/REFUTES/NOT ENOUGH INFO, or NLI "
                         "labels)")
    try:
        return _VERDICT_SPELLINGS[label_key(label)]
    except KeyError:
        raise ValueError(f"{field}: unknown verdict {label!r}; allowed: {', '.join(v.value for v in Verdict)} "
                         "(or FEVER's SUPPORTS/REFUTES/NOT ENOUGH INFO, or NLI labels)") from None


@dataclass(frozen=True)
class QAPair:
    """One question/answer pair of evidence. ``question`` may be empty (plain-text evidence)."""

    question: str
    answer: str

    def __post_init__(self):
        # text enters here too (API users, perturbations): NFC, one line ending (claimalign.text)
        for name in ("question", "answer"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise ValueError(f"QAPair.{name}: expected a string, got {type(value).__name__}")
            object.__setattr__(self, name, normalize_text(value))

    def render(self) -> str:
        """``Question: <q>\\nAnswer: <a>``, or just the answer when there is no question."""
        if not self.question:
            return self.answer
        return f"Question: {self.question}\nAnswer: {self.answer}"


@dataclass(frozen=True)
class Evidence:
    """Evidence as an ordered tuple of :class:`QAPair` (AVeriTeC) or one plain-text pair."""

    pairs: tuple[QAPair, ...]

    def __post_init__(self):
        # a list (or any sequence) of pairs is held as a tuple: evidence is immutable and hashable
        if isinstance(self.pairs, (str, bytes, dict)) or not hasattr(self.pairs, "__iter__"):
            raise ValueError(f"Evidence.pairs: expected a sequence of QAPair, got {type(self.pairs).__name__}")
        pairs = tuple(self.pairs)
        for k, p in enumerate(pairs):
            if not isinstance(p, QAPair):
                raise ValueError(f"Evidence.pairs[{k}]: expected a QAPair (or build the evidence with "
                                 f"Evidence.from_pairs or ev2r.io.evidence_from_text), got {type(p).__name__}")
        object.__setattr__(self, "pairs", pairs)

    @classmethod
    def from_pairs(cls, pairs: Iterable[Any], field_name: str = "evidence") -> "Evidence":
        """From a list of ``{"question", "answer"}`` dicts (or :class:`QAPair`).

        Raises:
            ValueError: an element is not a mapping with string ``question`` and ``answer``, or has keys that differ
                from ``question`` / ``answer`` only in case beside them (``"answer"`` and ``"Answer"``), naming the
                entry and the field (``evidence[2].answer: expected a string, got null``) and what is allowed.
        """
        from claimalign.jsonio import describe_json

        allowed = "each entry of a list of question/answer pairs is {\"question\": text, \"answer\": text}"
        out = []
        for k, p in enumerate(pairs):
            if isinstance(p, QAPair):
                out.append(p)
                continue
            if not isinstance(p, dict):
                raise ValueError(f"{field_name}[{k}]: expected an object, got {describe_json(p)} ({p!r:.60}); "
                                 f"{allowed}")
            for name in ("question", "answer"):  # "answer" beside "Answer": which one was meant? never one silently
                spelled = [key for key in p if isinstance(key, str) and key.strip().lower() == name]
                if len(spelled) > 1:
                    raise ValueError(f"{field_name}[{k}]: keys {' and '.join(map(repr, spelled))} differ only in case; "
                                     f"give one {name!r}; {allowed}")
            if "answer" not in p:
                raise ValueError(f"{field_name}[{k}].answer: missing (keys: {', '.join(map(str, p)) or 'none'}); "
                                 f"{allowed}")
            if not isinstance(p["answer"], str):
                raise ValueError(f"{field_name}[{k}].answer: expected a string, got {describe_json(p['answer'])}; "
                                 f"{allowed}")
            q = p.get("question", "") or ""
            if not isinstance(q, str):
                raise ValueError(f"{field_name}[{k}].question: expected a string, got {describe_json(q)}; {allowed}")
            out.append(QAPair(clean_text(q), clean_text(p["answer"])))
        return cls(tuple(out))

    def render(self) -> str:
        """Blocks joined by a blank line (the AVeriTeC convention)."""
        return "\n\n".join(p.render() for p in self.pairs)

    @property
    def is_empty(self) -> bool:
        return all(not clean_text(p.answer) and not clean_text(p.question) for p in self.pairs)

    def with_content(self) -> "Evidence":
        """The pairs whose answer holds a letter or digit (:func:`claimalign.words.has_content`):
        what states something. Content-free pairs ("...", emoji, blank answers) are no evidence."""
        return Evidence(tuple(p for p in self.pairs if has_content(p.answer)))


@dataclass(frozen=True)
class Item:
    """One item to score.

    Attributes:
        id: the input row's identifier (results are joined to inputs on it, or on ``row``).
        claim: the claim text.
        predicted_evidence: evidence the system retrieved.
        reference_evidence: gold evidence (may be empty for reference-free use).
        gold_label: the claim's gold verdict, or None when unknown (proxy is then not computed).
        predicted_label: the system's verdict, if given (carried through, not scored).
        row: 0-based position in the input file (held-out rating files can repeat an ``id``).
        extra: any other input fields, carried through untouched.
        source_id: the identifier exactly as the input gave it (e.g. the integer ``585``; ``id``
            is its string form, used for joining); None when the row had no id field.
        line: the 1-based line of the input file the row starts on (blank lines and a pretty-printed
            JSON list make it differ from ``row + 1``), for messages; None when the item came from no
            file. Not part of the item's content (nor of its hash).
    """

    id: str
    claim: str
    predicted_evidence: Evidence
    reference_evidence: Evidence
    gold_label: Optional[Verdict] = None
    predicted_label: Optional[Verdict] = None
    row: int = 0
    extra: dict = field(default_factory=dict, compare=False, hash=False)
    source_id: Any = field(default=None, compare=False, hash=False)
    line: Optional[int] = field(default=None, compare=False, hash=False)

    def __post_init__(self):
        if not isinstance(self.claim, str):
            raise ValueError(f"Item.claim: expected a string, got {type(self.claim).__name__}")
        object.__setattr__(self, "claim", normalize_text(self.claim))  # NFC, one line ending (claimalign.text)
        for name in ("predicted_evidence", "reference_evidence"):
            if not isinstance(getattr(self, name), Evidence):
                raise ValueError(f"Item.{name}: expected an ev2r.types.Evidence (e.g. "
                                 f"ev2r.io.evidence_from_text(text)), got {type(getattr(self, name)).__name__}")
        for name in ("gold_label", "predicted_label"):  # any verdict spelling -> Verdict; else a clear error
            value = getattr(self, name)
            if value is not None and not isinstance(value, Verdict):
                object.__setattr__(self, name, normalize_verdict(value, field=f"Item.{name}"))

    def with_predicted(self, evidence: Evidence) -> "Item":
        """A copy with other predicted evidence (used by perturbations; the item is immutable)."""
        return replace(self, predicted_evidence=evidence)
