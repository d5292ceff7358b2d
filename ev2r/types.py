"""Data types shared by the metric, its backends and the CLI.

* :class:`QAPair` / :class:`Evidence`: evidence as AVeriTeC renders it, a list of question/answer pairs
  (``Question: <q>\nAnswer: <a>`` blocks separated by a blank line), or plain text held as one pair with an empty
  question; :class:`Item`: one scoring unit (claim, predicted and reference evidence, gold verdict);
  :class:`AtomicFact`: one atomic fact with the pair it came from.
* :class:`ItemScore` / :class:`CorpusScore`: results; an item that failed keeps ``status`` and ``error`` and has
  ``None`` scores, never 0 or NaN. :class:`LLMUsage`: what an LLM call cost, carried by each per-item result.

**Statuses**, one vocabulary for the metric, the LLM client, the AVeriTeC 2025 judge and the arena (the strings
are what the output files hold); ``ok`` is the only success:

==========================  ===================================================================
``ok``                      scored / judged
``error``                   anything else (a prompt that cannot be filled, a verifier failure)
``parse_error``             an LLM answer that is not what the schema asks for (after re-asks)
``api_error``               the server refused or failed (after retries), or could not be reached
``timeout``                 every attempt ran past the client's timeout
``replay_missing``          offline replay and no cached (or recorded) answer
``replay_inconsistent``     a recorded answer fails the schema checks
``no_reference``            the reference evidence is empty (nothing to compare with)
``no_label``                the verdict the proxy scores is missing
``no_reference_questions``  AVeriTeC 2025: the gold claim has no questions (no call)
``missing_keys``            AVeriTeC 2025: JSON without the facts-count / support keys
``bad_counts``              AVeriTeC 2025: a count not a whole number >= 0, or support > facts count
``zero_facts``              AVeriTeC 2025: facts count 0 (recall undefined)
``no_reference_facts``      AVeriTeC 2025, bundled judge: the reference gave no atomic facts
``no_eligible_judge``       arena: every judge shares a family with one of the two systems
``failed``                  AVeriTeC 2025 per claim: one of its two judgements failed
==========================  ===================================================================
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Iterable, Optional, Sequence

# Text normalisation (NFC, one line ending) and the id rule are shared with claimalign and
# adversarial: they live in the lowest package (claimalign.text) and are re-exported here.
from claimalign.text import clean_text, is_valid_id, normalize_text  # noqa: F401
from claimalign.words import has_content, is_unanswerable  # noqa: F401 (re-exported)

from claimalign.evidence import Evidence, Item, QAPair  # noqa: F401 (re-exported: the inputs)
from ev2r.labels import Verdict, normalize_verdict  # noqa: F401

STATUS_OK = "ok"
STATUS_ERROR = "error"
STATUS_PARSE_ERROR = "parse_error"
STATUS_API_ERROR = "api_error"
STATUS_TIMEOUT = "timeout"
STATUS_REPLAY_MISSING = "replay_missing"
STATUS_REPLAY_INCONSISTENT = "replay_inconsistent"
STATUS_NO_REFERENCE = "no_reference"
STATUS_NO_LABEL = "no_label"
STATUS_NO_REFERENCE_QUESTIONS = "no_reference_questions"
STATUS_MISSING_KEYS = "missing_keys"
STATUS_BAD_COUNTS = "bad_counts"
STATUS_ZERO_FACTS = "zero_facts"
STATUS_NO_REFERENCE_FACTS = "no_reference_facts"
STATUS_NO_ELIGIBLE_JUDGE = "no_eligible_judge"
STATUS_FAILED = "failed"

#: What one request to an LLM server ends in (:class:`ev2r.llm.LLMOutcome`).
CALL_STATUSES = (STATUS_OK, STATUS_API_ERROR, STATUS_TIMEOUT, STATUS_REPLAY_MISSING)
#: Every status of a scored item (:class:`ItemScore`).
ITEM_STATUSES = (STATUS_OK, STATUS_ERROR, STATUS_PARSE_ERROR, STATUS_API_ERROR, STATUS_TIMEOUT,
                 STATUS_REPLAY_MISSING, STATUS_REPLAY_INCONSISTENT, STATUS_NO_REFERENCE, STATUS_NO_LABEL)
#: Every status of an AVeriTeC 2025 judgement (:class:`ev2r.shared_task.averitec2025.Judgement`).
JUDGEMENT_STATUSES = (STATUS_OK, STATUS_NO_REFERENCE_QUESTIONS, STATUS_API_ERROR, STATUS_TIMEOUT,
                      STATUS_REPLAY_MISSING, STATUS_PARSE_ERROR, STATUS_MISSING_KEYS, STATUS_BAD_COUNTS,
                      STATUS_ZERO_FACTS, STATUS_NO_REFERENCE_FACTS, STATUS_ERROR)
#: Every status of an arena judgement (a row of ``battles.jsonl``).
ARENA_STATUSES = (STATUS_OK, STATUS_PARSE_ERROR, STATUS_API_ERROR, STATUS_TIMEOUT, STATUS_REPLAY_MISSING,
                  STATUS_NO_ELIGIBLE_JUDGE)


@dataclass(frozen=True)
class LLMUsage:
    """What LLM requests cost: of one item (one request and its re-asks), or a sum over items.

    All counts are integers >= 0. ``requests``: requests answered (from the cache or the server,
    re-asks included); ``calls``: attempts sent to the server; ``cache_hits``: requests answered
    from the cache; ``retries``: attempts repeated after a retryable failure; ``failures``:
    requests that ended without an answer (``api_error``, ``timeout``, ``replay_missing``);
    ``prompt_tokens`` / ``completion_tokens``: as the server reported them for answers received now;
    ``cached_prompt_tokens`` / ``cached_completion_tokens``: the same for answers from the cache;
    ``reasks``: requests sent again because the answer was unusable.

    Add two with ``+``; :meth:`total` sums a sequence (None entries are skipped).

    >>> total = LLMUsage.total([LLMUsage(requests=1, calls=2, retries=1), None, LLMUsage(requests=1, cache_hits=1)])
    >>> total.requests, total.calls, total.cache_hits, total.retries
    (2, 2, 1, 1)
    """

    requests: int = 0
    calls: int = 0
    cache_hits: int = 0
    retries: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0
    cached_completion_tokens: int = 0
    reasks: int = 0

    #: the client's counters (:attr:`ev2r.llm.LLMClient.stats`), in order; then ``reasks``
    COUNTERS = ("requests", "calls", "cache_hits", "retries", "failures", "prompt_tokens", "completion_tokens",
                "cached_prompt_tokens", "cached_completion_tokens")

    def __add__(self, other: "LLMUsage") -> "LLMUsage":
        if not isinstance(other, LLMUsage):
            return NotImplemented
        return LLMUsage(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(LLMUsage)})

    @classmethod
    def total(cls, usages: Iterable[Optional["LLMUsage"]]) -> Optional["LLMUsage"]:
        """The sum of the usages that are not None; None when all are None (no LLM was involved)."""
        out = None
        for u in usages:
            if u is not None:
                out = u if out is None else out + u
        return out

    def counters(self) -> dict[str, int]:
        """The client's counters (:data:`COUNTERS`), without ``reasks``."""
        return {k: getattr(self, k) for k in self.COUNTERS}

    def to_dict(self) -> dict[str, int]:
        """:meth:`counters` and ``reasks``."""
        return {**self.counters(), "reasks": self.reasks}


@dataclass(frozen=True)
class AtomicFact:
    """One atomic fact. ``pair_index`` is the index of the :class:`QAPair` it came from (or None)."""

    text: str
    pair_index: Optional[int] = None


@dataclass(frozen=True)
class PremiseReason:
    """The premise behind a judgement: which pair of which side's evidence, what the verifier read in it.

    Attributes:
        side: ``"reference"`` or ``"predicted"``: whose evidence the premise comes from.
        pair_index: index of the question/answer pair in that side's evidence; None for a premise that
            spans several pairs (``premise_window`` > 1).
        premise: the premise text as the verifier read it (``Question: ...\nAnswer: ...`` or the answer).
        entailment, neutral, contradiction: the verifier's distribution for (premise, hypothesis), each in
            [0, 1], summing to 1 (rounded to 6 places); exactly (1, 0, 0) when the premise is a copy of the
            fact's own pair (``ev2r.metric.reference``, ``+twin``: set by that rule, not read by the verifier).
        n_premises: premises the hypothesis could be checked against (the other side's evidence pairs).
        n_checked: of them, those sent to the verifier (premise pruning, :data:`ev2r.config.PREMISE_TOP_K`, keeps the
            rest out).
    """

    side: str
    pair_index: Optional[int]
    premise: str
    entailment: float
    neutral: float
    contradiction: float
    n_premises: int = 0
    n_checked: int = 0


@dataclass
class FactSupport:
    """A fact with the verifier's judgement against the other side's evidence.

    ``probability`` is the support probability in [0, 1] (None for recorded LLM judgements that
    are only yes/no), ``supported`` the decision, ``pair_index`` the index of the question/answer pair
    of its own side's evidence the fact came from (None when the decomposer does not say).
    ``decided_by`` is the premise of highest P(entailment) among those checked
    (:class:`PremiseReason`; None when no premise was checked or the backend does not say): the pair
    that supports the fact, or, for an unsupported fact, the closest one. It explains the value and
    never changes it.
    """

    fact: str
    supported: bool
    probability: Optional[float] = None
    pair_index: Optional[int] = None
    decided_by: Optional[PremiseReason] = None

    @classmethod
    def from_dict(cls, d: dict) -> "FactSupport":
        """From a row's fact object (:meth:`ItemScore.to_dict`), ``decided_by`` included when present."""
        reason = d.get("decided_by")
        return cls(fact=d["fact"], supported=d["supported"], probability=d.get("probability"),
                   pair_index=d.get("pair_index"),
                   decided_by=PremiseReason(**reason) if isinstance(reason, dict) else reason)


#: The :class:`ItemScore` fields that explain the scores and are written only by ``--explain``.
EXPLAIN_FIELDS = ("proxy_premises", "proxy_decided_by", "hybrid_alignment", "contradicted_pairs", "admission")
#: The fields of an output row that are not scores: the item's id, row and status, its error, its facts, the content
#: hash of the item (``item_hash``), and the definition that made the row and its seal (``signature_hash``,
#: ``row_hash``: :func:`ev2r.engines.runs.output_row`). Every other scalar field of a row is a score.
ROW_META_FIELDS = ("id", "row", "status", "error", "predicted_facts", "reference_facts", "item_hash", "signature_hash",
                   "row_hash")


@dataclass
class ItemScore:
    """Per-item result. Scores are in [0, 1], or None when not computed (see ``status``).

    ``llm`` is the item's :class:`LLMUsage` when an LLM backend scored it (None otherwise); it is
    accounting, not a score: :meth:`to_dict` (the output row) leaves it out and it is not compared.

    The reasons (not compared, written only by ``to_dict(explain=True)``): ``proxy_premises``,
    the predicted pairs the proxy read, each with its (entailment, neutral, contradiction) against the
    claim (:class:`PremiseReason`, ``side="predicted"``); ``proxy_decided_by``, the position in that list of
    the pair that decided the proxy (highest P(gold verdict): entailment for Supported, contradiction for
    Refuted, neutral for Not Enough Evidence; None without premises); ``hybrid_alignment``, the Hungarian
    alignment behind ``hybrid_meteor``: ``{"predicted": i, "reference": j, "meteor": m}`` per matched pair,
    ``i`` / ``j`` the pair indices in each side's evidence; ``contradicted_pairs``, the predicted pairs that
    the reference evidence contradicts and that are therefore no premise of recall, the proxy or the combined
    score's alignments (:mod:`ev2r.metric.contradiction`): ``{"predicted": i, "reference": j, "premise": the
    reference pair's text, "entailment", "neutral", "contradiction": the verifier's distribution with predicted
    answer i as the hypothesis}`` per pair; ``admission``, the admission stage's decision on each predicted pair
    (:meth:`ev2r.metric.admitted.Admission.to_dict`: ``{"pair", "kept", "reason", "decided_by"}``, with
    ``p_evidence`` and ``label`` where the learned reading was asked).
    """

    id: str
    row: int
    precision: Optional[float] = None
    recall: Optional[float] = None
    f1: Optional[float] = None
    proxy: Optional[float] = None
    ev2r: Optional[float] = None
    status: str = STATUS_OK
    error: Optional[str] = None
    predicted_facts: list[FactSupport] = field(default_factory=list)
    reference_facts: list[FactSupport] = field(default_factory=list)
    extra_scores: dict[str, Optional[float]] = field(default_factory=dict)
    llm: Optional[LLMUsage] = field(default=None, compare=False)
    proxy_premises: list[PremiseReason] = field(default_factory=list, compare=False)
    proxy_decided_by: Optional[int] = field(default=None, compare=False)
    hybrid_alignment: list[dict] = field(default_factory=list, compare=False)
    contradicted_pairs: list[dict] = field(default_factory=list, compare=False)
    admission: list[dict] = field(default_factory=list, compare=False)

    @property
    def ok(self) -> bool:
        return self.status == STATUS_OK

    @property
    def ev2r_hybrid(self) -> Optional[float]:
        """The headline score, ``ev2r_hybrid`` in [0, 1] (held in :attr:`extra_scores`, as the output row flattens
        it), or None when it was not computed (the row's ``error`` says why)."""
        return self.extra_scores.get("ev2r_hybrid")

    def to_dict(self, explain: bool = False) -> dict:
        """The output row: every field but ``llm`` (accounting, not a score), extra scores flattened.
        The reasons (each fact's ``decided_by``, ``proxy_premises``, ``proxy_decided_by``,
        ``hybrid_alignment``) only with ``explain=True`` (``ev2r score --explain``)."""
        d = asdict(self)
        d.pop("llm")
        extra = d.pop("extra_scores")
        d.update(extra)
        reasons = {k: d.pop(k) for k in EXPLAIN_FIELDS}
        if explain:
            d.update(reasons)
        else:
            for side in ("predicted_facts", "reference_facts"):
                for f in d[side]:
                    f.pop("decided_by", None)
        return d


@dataclass
class CorpusScore:
    """Corpus summary: means over items whose status is ``ok`` (and whose value is not None)."""

    n: int
    n_failed: int
    precision: Optional[float]
    recall: Optional[float]
    f1: Optional[float]
    proxy: Optional[float]
    ev2r: Optional[float]
    signature: str
    extra: dict[str, Optional[float]] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict:
        d = asdict(self)
        extra = d.pop("extra")
        d.update(extra)
        return d


def mean_or_none(values: Sequence[Optional[float]]) -> Optional[float]:
    """Mean of the non-None values, or None when there are none (never NaN)."""
    vals = [float(v) for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def __getattr__(name: str):
    """Names this module re-exported before ev2r 2.0 and no longer holds: an :class:`AttributeError` naming where
    each lives now (``parse_qa_text`` is :func:`ev2r.io.parse_qa_text`: the question/answer text reader is a reader,
    in a layer above this module).

    Raises:
        AttributeError: always, for any name the module does not define.
    """
    if name == "parse_qa_text":
        raise AttributeError("module 'ev2r.types' has no attribute 'parse_qa_text': since ev2r 2.0 the question/answer "
                             "text reader is ev2r.io.parse_qa_text (from ev2r.io import parse_qa_text)")
    raise AttributeError(f"module 'ev2r.types' has no attribute {name!r}")
