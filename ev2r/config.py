"""The scorer configuration: every default of the metric defined once.

:class:`ScorerConfig` is a frozen dataclass holding what :func:`ev2r.metric.factory.build_scorer`
needs to wire an :class:`~ev2r.metric.scorer.Ev2RScorer`. Its field defaults (:data:`DEFAULTS`) are
the only copy of the library's defaults, and its field metadata the one option table: the CLI's options (flag,
default, choices, help: :func:`ev2r.cli.common.add_config_args`), ``build_scorer``'s overrides, the ``evaluate``
module's option list and the signature's ``alpha`` all read them.

    >>> DEFAULTS.alpha, DEFAULTS.threshold, DEFAULTS.decomposer, DEFAULTS.dtype
    (0.5, 0.5, 'rules', 'auto')
    >>> ScorerConfig(alpha=1).alpha
    1.0
    >>> ScorerConfig(decomposer="bm25")
    Traceback (most recent call last):
    ...
    ValueError: decomposer: 'bm25' is not one of ('rules', 'rules-v1', 'rules-v2', 'replay', 'llm')

Sources: alpha = 0.5 (Ev2R = alpha * F1 + (1 - alpha) * proxy; Akhtar, Schlichtkrull, Vlachos 2024,
arXiv 2411.05375, sec. 3.3); a fact is supported when P(entailment) >= 0.5 (sec. 3.1).
"""

from __future__ import annotations

import dataclasses
import json
import numbers
import os
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from claimalign.models import DTYPES  # noqa: F401 (re-exported: the one list, where dtypes are resolved)

#: Atomic-fact decomposers: ``rules`` (= ``rules-v2``, declarative statements), ``rules-v1``
#: (question + answer sentence), ``replay`` (recorded LLM outputs), ``llm`` (OpenAI-compatible server).
DECOMPOSERS = ("rules", "rules-v1", "rules-v2", "replay", "llm")
#: how an LLM reply gives precision/recall (:data:`ev2r.facts.replay.SCORE_SOURCES`): per-fact
#: checks first, stated counts first, or both agreeing
REPLY_READINGS = ("checks", "counts", "strict")
# DTYPES (verifier precision: auto = bf16 where the hardware runs it natively, else fp32; fp32, bf16,
# int8 on CPU) comes from claimalign.models, which resolves them.
#: Per-item baseline columns that can be computed beside (or instead of) Ev2R.
BASELINE_SCORERS = ("hu-meteor",)
#: What ``ev2r score --scorer`` accepts.
SCORER_NAMES = ("ev2r",) + BASELINE_SCORERS
#: How a premise longer than the verifier's token window is scored: the best window, the mean, or cut.
LONG_PREMISE_POLICIES = ("max", "mean", "truncate")
#: The components of the combined per-item score ``ev2r_hybrid`` (:mod:`ev2r.metric.combined`), in order:
#: Ev2R's recall and proxy, Hungarian METEOR and Hungarian-aligned MiniLM cosine over the pairs that are
#: evidence (both divided by the number of reference pairs), Ev2R's precision (so that unrelated text
#: costs something), and the Hungarian METEOR whose every reference pair counts only as far as
#: the verifier finds that pair's atomic facts supported (``verified_meteor``: a negated or word-shuffled
#: copy of the reference matches it word for word but supports none of its facts), and that METEOR verified
#: both ways (``mutual_meteor``: each predicted pair counts only as far as its own facts are found in the reference).
HYBRID_COMPONENTS = ("recall", "proxy", "hybrid_meteor", "hybrid_embedding", "precision", "verified_meteor",
                     "mutual_meteor")
#: Their weights (sum 1): this project's fit, not a published formula (since ev2r-hybrid/2): among the grid
#: (step 0.05) points at least as good as Ev2R *and HU-METEOR* on both dev sets and both ratings (semantic
#: coverage, verdict agreement) and gaining from the fewest reference-free gaming set/strategy pairs (the
#: reference's rewrites are meaning-sensitivity tests, reported), the one that maximises the smaller of the
#: two dev sets' Spearman with semantic_coverage, chosen by ``benchmarks/agreement/combination.py`` (table and
#: leave-one-set-out results: benchmarks/results/combination.md; tests/benchmarks/test_combination.py checks
#: these equal the ones its JSON chose).
HYBRID_WEIGHTS = (0.0, 0.05, 0.05, 0.0, 0.05, 0.85, 0.0)
#: The score to report: ``ev2r_hybrid`` agrees best with people on both development rating sets
#: and on other teams' held-out rows (``benchmarks/results/correlation_dev.md``, ``combination.md``) and is
#: gated by the gaming suite; ``ev2r`` (the paper's 0.5 F1 + 0.5 proxy) is the fallback when the combined
#: score is off (``--no-hybrid``) or not computed. Printed first by ``ev2r score``.
HEADLINE_SCORE = "ev2r_hybrid"
#: Which component columns the combiner adds: those with a weight above 0, or all of them (for fitting).
HYBRID_COLUMN_MODES = ("weighted", "all")
#: Each atomic fact is checked against only its this many premises of highest lexical overlap
#: (:func:`ev2r.metric.prefilter.top_k_premises`; the signature's ``prem`` field writes ``+lex-top5``). Other k and
#: the exhaustive run (every premise) are computed by commit e43eb97 (``--premise-top-k``;
#: ``benchmarks/results/pruning.md``).
PREMISE_TOP_K = 5


def proxy_spec(text: str) -> str:
    """``--proxy-model``: a non-empty spec (an empty or blank one names no verifier).

    >>> proxy_spec("averitec")
    'averitec'

    Raises:
        argparse.ArgumentTypeError: an empty or blank spec (argparse names the option).
    """
    import argparse

    if not text.strip():
        raise argparse.ArgumentTypeError(f"an empty spec ({text!r}); give 'averitec', 'bundled', 'fast', a checkpoint "
                                         "folder or a Hugging Face id, or leave the option out (the --model verifier)")
    return text


def option(default: Any = None, *, cli: Optional[str] = None, help: str = "", group: str = "scores",
           **argparse_options: Any) -> Any:
    """A :class:`ScorerConfig` field whose metadata is its command-line option (the one option table,
    :func:`ev2r.cli.common.add_config_args`): ``cli`` the flag (None: Python API only), ``help`` its help
    (``{default}`` is replaced by the default), ``group`` the help section of ``ev2r score`` (``scores``,
    ``models``, ``run``, ``llm``), and argparse's ``choices``, ``type``, ``metavar`` or ``action``
    (``store_false``: the flag turns the field off).

    Returns:
        a :func:`dataclasses.field` with ``default`` and that metadata (read by :meth:`ScorerConfig.cli_fields`).
    """
    return field(default=default, metadata={"cli": cli, "help": help, "group": group, **argparse_options})


def admission_model_problem(obj: Any) -> Optional[str]:
    """What keeps ``obj`` from being a learned reading of non-evidence that the admission stage can ask
    (:mod:`ev2r.metric.admission`: ``name``, ``threshold``, ``classes``, ``proba_from_features(x)`` and
    ``features_and_vectors(claims, questions, answers)`` or ``features(...)`` with ``encode(texts)``, as
    :class:`ev2r.metric.admission_model.AdmissionModel` has), or None when nothing does.

    >>> admission_model_problem(object())[:60]
    'a object lacks name, threshold, classes, proba_from_features'
    """
    missing = [a for a in ("name", "threshold", "classes") if not hasattr(obj, a)]
    if not callable(getattr(obj, "proba_from_features", None)):
        missing.append("proba_from_features()")
    if not (callable(getattr(obj, "features_and_vectors", None))
            or (callable(getattr(obj, "features", None)) and callable(getattr(obj, "encode", None)))):
        missing.append("features_and_vectors() (or features() and encode())")
    return None if not missing else f"a {type(obj).__name__} lacks {', '.join(missing)}"


@dataclass(frozen=True)
class ScorerConfig:
    """Everything that configures an :class:`~ev2r.metric.scorer.Ev2RScorer` (validated on creation).

    Each field's metadata is its command-line option where it has one (:func:`option`; ``ev2r score``,
    ``explain``, ``robustness``, ``averitec`` and the ``evaluate`` module read this one table).

    Attributes:
        verifier: ``"bundled"``, a checkpoint path / hub id, or an object with
            ``predict(premises, hypotheses) -> (n, 3)`` and ``name`` (CLI ``--model``).
        proxy_verifier: the verifier of the proxy alone (the paper's proxy is its own fine-tuned model, Akhtar et
            al. 2024 sec. 3.2): a spec as ``verifier`` (e.g. ``"averitec"``, the bundled verifier continued on
            AVeriTeC train, CC BY-NC 4.0) or an object; None (default) = ``verifier`` (CLI ``--proxy-model``).
        decomposer: one of :data:`DECOMPOSERS`.
        alpha: Ev2R weight of F1, a number in [0, 1] (sec. 3.3).
        replay, replay_model: recorded LLM outputs (JSONL) and which model to replay
            (``decomposer="replay"`` only; CLI ``--replay`` and ``--llm-model``).
        llm_options: keyword options of :class:`ev2r.llm.LLMReferenceScorer` (``decomposer="llm"``; CLI ``--llm-*``).
        reply_reading: how an LLM reply (live or recorded) gives precision/recall, one of
            :data:`REPLY_READINGS` or None for the decomposer's default (``"checks"`` for
            ``decomposer="llm"``, ``"strict"`` for ``"replay"``, which reproduces the authors'
            recordings); see :func:`ev2r.facts.replay.read_reference_reply`.
        baselines: names from :data:`BASELINE_SCORERS` (extra per-item columns; CLI ``--scorer``).
        device: torch device, or None for ``$EV2R_DEVICE`` / cuda if available / cpu.
        batch_size: verifier batch size (pairs), an integer >= 1.
        dtype: one of :data:`DTYPES`.
        ev2r: False computes only the ``baselines`` (no verifier is loaded; CLI: ``--scorer`` without ``ev2r``).
        chunk_size: items per verifier pass (bounds memory; progress granularity), >= 1.
        hybrid: also compute the combined score ``ev2r_hybrid`` and its columns ``hybrid_meteor``,
            ``hybrid_embedding`` (:mod:`ev2r.metric.combined`, weights :data:`HYBRID_WEIGHTS`); only with
            ``ev2r=True`` (CLI ``--no-hybrid`` turns it off).
        cache: a folder (str or path-like, created when missing) for the on-disk cache of the verifier's pair
            probabilities and the admission reading's encodings across runs (:mod:`ev2r.verifier.cache`), or None
            (default: no cache). It changes no number's definition (not in the signature).

    **Research hook** (Python API only, no ``ev2r score`` option; a value other than the default defines a score
    that is no registered version, ``.../custom-<fingerprint>``):

        threshold: P(entailment) at which a fact counts as supported, in (0, 1) (default 0.5, the paper's sec. 3.1).
        hybrid_columns: one of :data:`HYBRID_COLUMN_MODES`: ``"weighted"`` (default) adds only the component
            columns whose weight is above 0 (no encoder is loaded for a zero-weight ``hybrid_embedding``), ``"all"``
            every one (what ``benchmarks/agreement/combination.py`` fits the weights on).
        admission: the learned reading of non-evidence of the admission stage (:mod:`ev2r.metric.admission`):
            ``"bundled"`` (default: :data:`ev2r.metric.admission_model.MODEL_NAME`), ``"none"`` (the rules alone),
            a folder holding a model saved by :meth:`ev2r.metric.admission_model.AdmissionModel.save`, or a model
            object (what the admission benchmarks compare).

    Fixed since ev2r 2.0 (their other values are computed by commit e43eb97, release 1.9.0): the 0/1 support at
    ``threshold`` (``support:p>=0.5``), the gold verdict as the proxy's target (``proxy:nli-gold``), no fact for an
    Unanswerable answer (``unans:drop``), the fuzzy METEOR of the combined score's columns (``hybrid-meteor:fuzzy-v1``),
    the contradiction veto (``+contra0.5/rw0.7``) and the lexical first stage of :data:`PREMISE_TOP_K` premises
    (``+lex-top5``).

    A configuration holding ``llm_options`` (a dict) is not hashable.

    Raises:
        ValueError: a field outside its allowed values, naming the field and the allowed values.
    """

    verifier: Any = option(
        "bundled", cli="--model", group="models", metavar="MODEL",
        help="NLI verifier: 'bundled' (default, English), 'edits' (the bundled one continued on edits that change or "
             "keep a fact's meaning; opt-in, with --proxy-model bundled: docs/verifiers.md), 'fast' (3 layers "
             "distilled from the bundled one: about 2.3x faster, lower agreement with people; "
             "benchmarks/results/distilled_verifier.md), 'multilingual' (the shipped Czech / Slovak / multilingual "
             "one), a local checkpoint or a Hugging Face id (e.g. MoritzLaurer/DeBERTa-v3-large-mnli-fever-anli-"
             "ling-wanli; needs a network)")
    proxy_verifier: Any = option(
        None, cli="--proxy-model", metavar="SPEC", type=proxy_spec,
        help="the proxy's own verifier (the paper's proxy is a model fine-tuned on AVeriTeC): 'averitec' (the "
             "bundled verifier continued on AVeriTeC train pairs; CC BY-NC 4.0; reads AVeriTeC evidence better: "
             "docs/verifiers.md), 'bundled', a local checkpoint or a Hugging Face id; default: the --model verifier "
             "(a SPEC naming it, e.g. 'bundled' with the default --model, is the default: no separate proxy "
             "verifier, the same signature and version)")
    decomposer: str = option(
        "rules", cli="--decomposer", choices=DECOMPOSERS,
        help="atomic facts: rules = rules-v2 (declarative statements, offline; default), rules-v1 (question + "
             "answer sentence), replay (recorded LLM outputs), llm (OpenAI-compatible server)")
    alpha: float = option(0.5, cli="--alpha", type=float, help="Ev2R weight of F1 (default {default})")
    threshold: float = option(0.5)
    replay: Optional[str] = option(None, cli="--replay", metavar="FILE", group="llm",
                                   help="recorded LLM outputs (JSONL) for --decomposer replay (--llm-model picks the "
                                        "recorded model when the file holds several)")
    replay_model: Optional[str] = option(None)
    llm_options: Optional[Mapping[str, Any]] = option(None)
    reply_reading: Optional[str] = option(
        None, cli="--reply-reading", choices=REPLY_READINGS, group="llm",
        help="how an LLM reply (--decomposer llm or replay) gives precision/recall: checks (the per-fact checks, "
             "else the stated counts; default with llm), counts (the stated counts, else the checks) or strict "
             "(both, agreeing; default with replay: the authors' recorded values)")
    baselines: tuple = option(())
    device: Optional[str] = option(None, cli="--device", group="models",
                                   help="torch device (default: $EV2R_DEVICE, else cuda if available, else cpu)")
    batch_size: int = option(32, cli="--batch-size", type=int, group="models",
                             help="verifier batch size (default {default})")
    dtype: str = option(
        "auto", cli="--dtype", choices=DTYPES, group="models",
        help="verifier precision (default auto: bf16 on CUDA or on a CPU with native bf16 -- AVX512-BF16/AMX -- else "
             "fp32; int8 = CPU dynamic quantisation, beyond the precision bound: a custom version name, "
             "docs/versions.md); part of the signature")
    ev2r: bool = option(True)
    chunk_size: int = option(32)
    hybrid: bool = option(
        True, cli="--no-hybrid", action="store_false",
        help="leave out the combined score ev2r_hybrid (the headline) and its columns (default: computed with the "
             "ev2r scorer: a fixed weighted mean of its components, the verified Hungarian METEOR first; weights in "
             "ev2r.config.HYBRID_WEIGHTS, fitted by benchmarks/agreement/combination.py; docs/metric.md)")
    hybrid_columns: str = option("weighted")
    admission: Any = option("bundled")
    cache: Any = option(
        None, cli="--cache", metavar="DIR", group="run",
        help="keep the verifier's pair probabilities and the admission reading's encodings in DIR (created when "
             "missing; one SQLite file, ev2r-cache.sqlite) and read them back in later runs of the same definition: "
             "a rerun computes only what is new. Entries are filed by verifier / encoder definition (weights, "
             "precision, window, device, library versions): another definition's are never read. Changes no "
             "number's definition (the signature and version name are the same); OUT.ev2r-run.json names the cache. "
             "Default: no cache")

    def __post_init__(self):
        # the checks (and their order and wording) are those build_scorer always made
        if isinstance(self.alpha, bool) or not isinstance(self.alpha, numbers.Real):
            raise ValueError(f"alpha: expected a number in [0, 1], got {self.alpha!r}")
        object.__setattr__(self, "alpha", float(self.alpha))
        if isinstance(self.threshold, bool) or not isinstance(self.threshold, numbers.Real):
            raise ValueError(f"threshold: expected a number in (0, 1), got {self.threshold!r}")
        object.__setattr__(self, "threshold", float(self.threshold))
        baselines = self.baselines
        if baselines is None:
            baselines = ()
        if isinstance(baselines, str):
            baselines = (baselines,)
        if not isinstance(baselines, (list, tuple, set, frozenset)):
            raise ValueError(f"baselines: expected a list of names from {BASELINE_SCORERS}, got {baselines!r}")
        object.__setattr__(self, "baselines", tuple(baselines))
        if self.replay and self.decomposer != "replay":
            raise ValueError(f"replay: a recorded-outputs file was given but decomposer is {self.decomposer!r}; "
                             "use decomposer='replay' (CLI: --decomposer replay) or drop --replay")
        if not isinstance(self.verifier, str) and not callable(getattr(self.verifier, "predict", None)):
            raise ValueError(f"verifier: expected 'bundled', a checkpoint path / hub id, or an object with "
                             f"predict(premises, hypotheses), got {type(self.verifier).__name__}")
        if (self.proxy_verifier is not None and not isinstance(self.proxy_verifier, str)
                and not callable(getattr(self.proxy_verifier, "predict", None))):
            raise ValueError("proxy_verifier: expected None (the verifier), 'averitec', 'bundled', a checkpoint path "
                             f"/ hub id, or an object with predict(premises, hypotheses), got "
                             f"{type(self.proxy_verifier).__name__}")
        if isinstance(self.proxy_verifier, str) and not self.proxy_verifier.strip():
            raise ValueError("proxy_verifier: an empty spec; give None (the verifier), 'averitec', 'bundled', a "
                             "checkpoint path or a hub id")
        if self.decomposer not in DECOMPOSERS:
            raise ValueError(f"decomposer: {self.decomposer!r} is not one of {DECOMPOSERS}")
        for b in self.baselines:
            if b not in BASELINE_SCORERS:
                raise ValueError(f"scorer: {b!r} is not one of {BASELINE_SCORERS}")
        if not self.ev2r and not self.baselines:
            raise ValueError(f"baselines: with ev2r=False at least one of {BASELINE_SCORERS} is needed "
                             "(there is nothing else to compute)")
        # ranges and choices (the same wording the scorer classes use when built directly)
        if not (0.0 <= self.alpha <= 1.0):  # NaN fails too
            raise ValueError(f"alpha: expected a value in [0, 1], got {self.alpha!r}")
        if not (0.0 < self.threshold < 1.0):
            raise ValueError(f"threshold: expected a value in (0, 1), got {self.threshold!r}")
        for name, allowed in (("dtype", DTYPES), ("hybrid_columns", HYBRID_COLUMN_MODES)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name}: {getattr(self, name)!r} is not one of {allowed}")
        for name in ("batch_size", "chunk_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name}: must be an integer >= 1, got {value!r}")
        if isinstance(self.admission, str) and not self.admission.strip():
            raise ValueError("admission: an empty spec; give 'bundled', 'none' or a folder holding a saved model")
        if not isinstance(self.admission, str):
            problem = admission_model_problem(self.admission)
            if problem is not None:
                raise ValueError(f"admission: expected 'bundled', 'none', a model folder or an AdmissionModel; "
                                 f"{problem}")
        for name in ("ev2r", "hybrid"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name}: expected True or False, got {getattr(self, name)!r}")
        if self.device is not None and not isinstance(self.device, str):
            raise ValueError(f"device: expected a torch device string (cpu, cuda, cuda:N, mps) or None, "
                             f"got {self.device!r}")
        if self.reply_reading is not None and self.reply_reading not in REPLY_READINGS:
            raise ValueError(f"reply_reading: {self.reply_reading!r} is not one of {REPLY_READINGS}")
        if self.reply_reading is not None and self.decomposer not in ("llm", "replay"):
            raise ValueError(f"reply_reading: only an LLM reply is read (decomposer 'llm' or 'replay'), "
                             f"but decomposer is {self.decomposer!r}")
        if self.llm_options is not None:
            if not isinstance(self.llm_options, Mapping):
                raise ValueError(f"llm_options: expected a dict of LLMReferenceScorer options, got "
                                 f"{type(self.llm_options).__name__}")
            object.__setattr__(self, "llm_options", dict(self.llm_options))  # a copy: the caller's dict may change
            inner = self.llm_options.get("scores_from")
            if inner is not None and inner not in REPLY_READINGS:
                raise ValueError(f"llm_options: scores_from {inner!r} is not one of {REPLY_READINGS}")
            if inner is not None and self.reply_reading is not None and inner != self.reply_reading:
                raise ValueError(f"reply_reading: {self.reply_reading!r} contradicts llm_options' scores_from "
                                 f"{inner!r}; give one of them")
        if self.cache is not None and not callable(getattr(self.cache, "get_pairs", None)):  # else an opened cache
            if not isinstance(self.cache, (str, os.PathLike)) or not os.fspath(self.cache):
                raise ValueError(f"cache: expected None (no cache) or a folder path, got {self.cache!r}")
            object.__setattr__(self, "cache", os.fspath(self.cache))

    def replace(self, **changes: Any) -> "ScorerConfig":
        """A copy with ``changes`` applied (validated again)."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        """The fields as a plain dict (``ScorerConfig(**config.to_dict())`` is an equal configuration)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The option names a configuration takes, in declaration order."""
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def cli_fields(cls) -> tuple[dataclasses.Field, ...]:
        """The fields that have a command-line option (metadata ``cli``, :func:`option`), in declaration order."""
        return tuple(f for f in dataclasses.fields(cls) if f.metadata.get("cli"))


#: The library's defaults (Ev2R paper settings with the bundled verifier and rule-based facts).
DEFAULTS = ScorerConfig()


@dataclass(frozen=True)
class LLMConnection:
    """How every LLM backend talks to its OpenAI-compatible server (:class:`ev2r.llm.LLMClient`):
    parallel requests, seconds per request attempt, retries after a 429 / 5xx / timeout /
    connection failure, and the first back-off in seconds (doubled per retry)."""

    concurrency: int = 4
    timeout: float = 120.0
    max_retries: int = 3
    backoff: float = 1.0


#: The LLM connection defaults the client, the LLM scorers, the 2025 judge, the arena and the CLI read.
LLM_DEFAULTS = LLMConnection()


#: Scorer options a 1.9 run record holds that left in 2.0, each at the one value 2.0 computes: a record holding one at
#: that value was written under the options 2.0 runs (so its output resumes); at another value it was not.
RETIRED_OPTIONS = {"support": "threshold", "proxy_target": "gold", "unanswerable": "drop", "meteor_match": "fuzzy",
                   "contradiction": True, "proxy_credit": False, "premise_top_k": 5, "copy_reading": "near",
                   "restatement": "lexical"}


def options_match(old: Optional[str], new: str) -> bool:
    """Whether a run record's options (:func:`ev2r.engines.runs.options_record` text, ``old``) are this run's
    (``new``): equal, or equal
    once the options 2.0 retired are read at their one value (:data:`RETIRED_OPTIONS`) and an option the old record
    lacks is read at its default (a 1.9 record has no ``chunk_size``).

    >>> options_match('{"alpha": 0.5, "support": "threshold"}', '{"alpha": 0.5}')
    True
    >>> options_match('{"alpha": 0.5, "support": "soft"}', '{"alpha": 0.5}')
    False
    """
    if old == new:
        return True
    try:
        o, n = json.loads(old or ""), json.loads(new)
    except ValueError:
        return False
    if not isinstance(o, dict) or not isinstance(n, dict):
        return False
    for k, v in RETIRED_OPTIONS.items():
        if k in o and k not in n and o[k] == v:
            del o[k]
    for k in set(n) - set(o):  # an option the old record lacks, read at its default (as the record writes it)
        if hasattr(DEFAULTS, k) and json.loads(json.dumps(getattr(DEFAULTS, k), default=str)) == n[k]:
            o[k] = n[k]
    return o == n
