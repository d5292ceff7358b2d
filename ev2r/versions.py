"""Versioned score names: what a reported number means, in a name a paper can cite (sacrebleu's model).

Each score people report has a short versioned name, ``<name>/<n>`` (``ev2r-hybrid/1``, ``ev2r/1``), that
fixes its **whole definition**: the fact rules, the premise rules, the verifier (with the hash of its
weights), the weights of the combination. The definition is the full scorer signature
(:meth:`ev2r.metric.scorer.Ev2RScorer.signature`) without what does not define the score:

* the library versions (``ev2r``, ``transformers``, ``torch``) and the engine (``engine:ray``) -- they are in
  the short signature, so a number still says what produced it;
* the verifier's compute precision when it stays within :data:`PRECISION_BOUND` of fp32 per item and
  :data:`PRECISION_MEAN_BOUND` on the mean of a thresholded column (``+bf16`` at the end of a verifier's name,
  chosen by the hardware with ``--dtype auto``; measured by ``benchmarks/parity/precision_bound.py``) -- also in the
  short signature. A precision beyond the bound (``+int8``, dynamic quantisation: it moves one item's proxy by
  up to 0.85) is part of the definition, so a run with it
  is ``ev2r-hybrid/custom-<fingerprint>``, like any other option that changes the numbers;
* the columns that are not the score: HU-METEOR baselines (``extra-*``), the calibration of the graded
  columns (``cal``), and for ``ev2r/N`` the combination (``hybrid``, ``hybrid-emb``);
* the digests of the declared scoring constants (:data:`CONSTANTS_FIELDS`: ``const``, ``hybrid-const``;
  :mod:`ev2r.metric.definition` declares every constant a score reads, stage by stage, and writes the digest of
  their live values). They are left out of the fingerprint so that the fingerprints registered before them stay;
  a version records them instead (:attr:`MetricVersion.constants`, from ``ev2r/4`` and ``ev2r-hybrid/4`` on), and
  :func:`identify` names a run that version only when its fingerprint **and** its digests agree: changing any
  declared constant makes the run ``.../custom-<fingerprint>``, naming the digest that differs. A signature
  without the digests (written before 1.2.0's last commits) is identified by its fingerprint alone.

Every other field of the signature belongs to the definition, so a field a later change adds is part of
it without anyone listing it here. :data:`VERSIONS` holds every registered version with the definition it
pins and that definition's :func:`fingerprint`; ``tests/ev2r/test_versions.py`` fails when the default
scorer's definition is no registered version -- a change of a definition is a visible version bump.

The latest version of each name reads the fields that the configuration's constants write from them
(:data:`ev2r.config.HYBRID_WEIGHTS` -> ``hybrid``, :attr:`ev2r.config.ScorerConfig.alpha` -> ``alpha``), so the
weights and the alpha are written once, in :mod:`ev2r.config`; every earlier version writes its values literally
(history). Its fingerprint stays literal: a changed constant no longer gives the registered fingerprint, and the
import fails, naming the fields, until the change is registered as a new version.

Adding a version (e.g. ``ev2r-hybrid/5`` after a change of :data:`ev2r.config.HYBRID_WEIGHTS`): write the values
the previous latest version was registered with literally in its entry (the import error names the field), append
one :class:`MetricVersion` entry reading the configuration (``tests/ev2r/test_versions.py`` prints the new default
definition and its fingerprint, ready to paste) with its recorded sample value (:data:`RECORDED_SAMPLE`) and the
commit that computes the previous one (:data:`COMPUTED_BY`), and a line in ``CHANGELOG.md``. The documentation
renders the versions table and each version's formula from this registry when the site is built
(``scripts/docs_hooks.py``). Earlier entries stay: a number reported as ``ev2r-hybrid/1`` keeps its meaning.

    >>> sig = ("ev2r:1.0.0|ref:nli|verifier:m@abc+bf16|proxy:nli-gold|map:v1|alpha:0.5|"
    ...        "transformers:5.25.0|torch:2.13.0+cpu")
    >>> definition("ev2r", sig)
    {'ref': 'nli', 'verifier': 'm@abc', 'proxy': 'nli-gold', 'map': 'v1', 'alpha': '0.5'}
    >>> identify(sig)["ev2r"].label          # no registered version has this definition
    'ev2r/custom-1161a1c3df'
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Mapping, Optional

from ev2r.config import DEFAULTS, HYBRID_COMPONENTS, HYBRID_WEIGHTS
from ev2r.signature import Signature, exact_number, weights_text

#: Fields of the signature that say what ran, not what the score is (short signature only).
RUNTIME_FIELDS = ("ev2r", "transformers", "torch", "engine")
#: Fields whose value is a verifier name: their compute-precision suffix is not part of the definition.
VERIFIER_FIELDS = ("verifier", "proxy-verifier")
#: The most a compute precision may move, against fp32, one item's score that is continuous in the verifier's
#: probabilities (proxy, ev2r_hybrid and its parts, graded_*) and keep the version's name (measured by
#: benchmarks/parity/precision_bound.py on both development rating sets: bf16 0.025, int8 0.85; docs/versions.md).
PRECISION_BOUND = 0.05
#: The columns that count facts at P(entailment) >= threshold: a fact near the threshold may change side under any
#: precision (bf16 moved one item's recall by 0.5), so these are bounded on the corpus mean, by PRECISION_MEAN_BOUND.
THRESHOLDED_COLUMNS = ("precision", "recall", "f1", "ev2r")
#: The most a compute precision may move the corpus mean of a :data:`THRESHOLDED_COLUMNS` column against fp32
#: (bf16 0.0069, int8 0.050 on the development sets).
PRECISION_MEAN_BOUND = 0.01
#: Compute precisions measured within :data:`PRECISION_BOUND` of fp32: their suffix on a verifier's name is
#: not part of the definition. Any other suffix (``+int8``) is, and names a custom definition.
BOUNDED_PRECISIONS = ("bf16",)
#: The bounded compute precision a verifier's name ends with (``ev2r-minilm-nli@c82b0fc475+bf16``).
DTYPE_SUFFIX = re.compile(r"\+(?:" + "|".join(BOUNDED_PRECISIONS) + r")$")
#: Fields that define no reported score: the graded columns' calibration and the baseline columns.
NON_SCORE_FIELDS = ("cal",)
NON_SCORE_PREFIXES = ("extra-",)
#: Fields of the combination, part of ``ev2r-hybrid/N`` only.
HYBRID_FIELDS = ("hybrid", "hybrid-emb", "hybrid-meteor")
#: The digests of the declared scoring constants (:func:`ev2r.metric.definition.signature_fields`) -> the names whose
#: versions they pin. Not in the fingerprinted definition; checked against :attr:`MetricVersion.constants`.
CONSTANTS_FIELDS = {"const": ("ev2r-hybrid", "ev2r"), "hybrid-const": ("ev2r-hybrid",), "data": ("ev2r-hybrid", "ev2r")}
_DIGEST = re.compile(r"^[0-9a-f]{10}$")
#: What each digest field hashes, for the messages that name a field where a run differs from a version.
DIGEST_MEANING = {"const": "the declared scoring constants", "hybrid-const": "the combination's constants",
                  "data": "the admission model's weights and settings and the package's data files, by content "
                          "(ScorerConfig.admission)"}

#: Versioned name -> the score column it names.
SCORE_COLUMNS = {"ev2r-hybrid": "ev2r_hybrid", "ev2r": "ev2r"}
#: The columns ``ev2r/N`` also fixes (cite them as ``ev2r/1 recall``): the paper's components.
EV2R_COMPONENTS = ("precision", "recall", "f1", "proxy")
#: Most characters of a short signature with the default options (tests/ev2r/test_versions.py checks it).
SHORT_SIGNATURE_MAX = 200


@dataclass(frozen=True)
class MetricVersion:
    """One registered version of a reported score.

    Attributes:
        name: the score's versioned family, a key of :data:`SCORE_COLUMNS` (``"ev2r-hybrid"``, ``"ev2r"``).
        number: its version, an integer >= 1 (``ev2r-hybrid/1``).
        released: the package version that made it the default (``"1.0.0"``).
        definition: the signature fields it pins (:func:`definition` of a signature), in signature order.
        fingerprint: :func:`fingerprint` of ``definition`` (10 hex digits); checked on import.
        summary: what the score is, in one sentence.
        value_range: the closed range every value takes, ``(0.0, 1.0)``.
        typical: the values it takes on known evidence, in words (real systems' and the gold evidence).
        agreement: Spearman with the human ratings on each development set (rating set -> text).
        gaming: the gaming suite's record (one sentence with the tables it comes from).
        constants: the digests of the declared scoring constants it was computed with (:data:`CONSTANTS_FIELDS`
            that pin its name -> 10 hex digits), or None for a version registered before the digests (identified by
            its fingerprint alone). Not part of its fingerprint.

    Raises:
        ValueError: an unknown name, a number < 1, a range that is not ``lo < hi``, a fingerprint
            that is not the definition's (a pasted definition edited by hand), or ``constants`` with a field that
            does not pin this name or a value that is not 10 hex digits (naming it).
    """

    name: str
    number: int
    released: str
    definition: Mapping[str, str]
    fingerprint: str
    summary: str
    value_range: tuple[float, float] = (0.0, 1.0)
    typical: str = ""
    agreement: Mapping[str, str] = field(default_factory=dict)
    gaming: str = ""
    constants: Optional[Mapping[str, str]] = None

    def __post_init__(self):
        if self.name not in SCORE_COLUMNS:
            raise ValueError(f"MetricVersion: name {self.name!r} is not one of {tuple(SCORE_COLUMNS)}")
        if isinstance(self.number, bool) or not isinstance(self.number, int) or self.number < 1:
            raise ValueError(f"MetricVersion {self.name}: number must be an integer >= 1, got {self.number!r}")
        lo, hi = self.value_range
        if not lo < hi:
            raise ValueError(f"MetricVersion {self.label}: value_range must be (lo, hi) with lo < hi, got "
                             f"{self.value_range!r}")
        got = fingerprint(self.definition)
        if got != self.fingerprint:
            read = {k: v for k, v in configured(self.name).items() if self.definition.get(k) == v}
            hint = (f" (it reads {sorted(read)} from ev2r.config, which now gives {read}: write the values "
                    f"{self.label} was registered with literally in its entry, as in `git show HEAD:ev2r/config.py`, "
                    f"and append the new definition, fingerprint {got!r}, as {self.name}/{self.number + 1}; "
                    f"docs/versions.md, 'Adding a version')" if read else "")
            raise ValueError(f"MetricVersion {self.label}: fingerprint {self.fingerprint!r} is not its "
                             f"definition's ({got!r}); a registered definition is never edited -- add a new "
                             f"version{hint}")
        for key, value in (self.constants or {}).items():
            if self.name not in CONSTANTS_FIELDS.get(key, ()):
                raise ValueError(f"MetricVersion {self.label}: constants field {key!r} does not pin {self.name} "
                                 f"(fields: {[k for k, names in CONSTANTS_FIELDS.items() if self.name in names]})")
            if not isinstance(value, str) or not _DIGEST.match(value):
                raise ValueError(f"MetricVersion {self.label}: constants[{key!r}] must be 10 hex digits, got {value!r}")

    @property
    def label(self) -> str:
        """The versioned name, ``ev2r-hybrid/1``."""
        return f"{self.name}/{self.number}"

    @property
    def column(self) -> str:
        """The score column it names (``ev2r_hybrid``)."""
        return SCORE_COLUMNS[self.name]

    def range_text(self) -> str:
        """``[0, 1]``."""
        lo, hi = self.value_range
        return f"[{lo:g}, {hi:g}]"


# -- the definition of a signature -----------------------------------------------------------------------
def _definition_value(key: str, value: str) -> str:
    return DTYPE_SUFFIX.sub("", value) if key in VERIFIER_FIELDS else value


def definition(name: str, signature: str) -> dict[str, str]:
    """The fields of ``signature`` that define the score ``name`` (module docstring), in signature order.

    Args:
        name: a key of :data:`SCORE_COLUMNS` (``"ev2r-hybrid"`` or ``"ev2r"``).
        signature: a full scorer signature (:class:`ev2r.signature.Signature` or its text).

    Raises:
        ValueError: an unknown ``name``, or a ``signature`` that is not ``key:value|...``.
    """
    if name not in SCORE_COLUMNS:
        raise ValueError(f"definition: name {name!r} is not one of {tuple(SCORE_COLUMNS)}")
    out = {}
    for key, value in Signature.parse(str(signature)).fields.items():
        if (key in RUNTIME_FIELDS or key in NON_SCORE_FIELDS or key in CONSTANTS_FIELDS
                or key.startswith(NON_SCORE_PREFIXES)):
            continue
        if name == "ev2r" and key in HYBRID_FIELDS:
            continue
        out[key] = _definition_value(key, value)
    return out


def fingerprint(fields: Mapping[str, str]) -> str:
    """SHA-256 of the fields as ``key:value|...`` (in the given order), first 10 hex digits.

    >>> fingerprint({"alpha": "0.5"})
    '4ab986ee8f'
    """
    text = "|".join(f"{k}:{v}" for k, v in fields.items())
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


def computed(name: str, signature: str) -> bool:
    """Whether a run with this signature computed the score ``name``: ``ev2r`` needs a reference scorer or a
    proxy (the signature then has ``alpha``), ``ev2r-hybrid`` the combination (``hybrid``)."""
    fields = Signature.parse(str(signature)).fields
    return "hybrid" in fields if name == "ev2r-hybrid" else "alpha" in fields


# -- the registry ----------------------------------------------------------------------------------------
def configured(name: str) -> dict[str, str]:
    """The definition fields of ``name`` that the configuration's constants write, as the signature writes them:
    ``alpha`` (:attr:`ev2r.config.ScorerConfig.alpha`, Ev2R = alpha F1 + (1 - alpha) proxy) for both names, and
    ``hybrid`` (:data:`ev2r.config.HYBRID_WEIGHTS` over :data:`ev2r.config.HYBRID_COMPONENTS`) for ``ev2r-hybrid``.
    The latest version of each name reads them from here (module docstring).

    Args:
        name: a key of :data:`SCORE_COLUMNS` (``"ev2r-hybrid"`` or ``"ev2r"``).

    Raises:
        ValueError: an unknown ``name``.

    >>> configured("ev2r")
    {'alpha': '0.5'}
    """
    if name not in SCORE_COLUMNS:
        raise ValueError(f"configured: name {name!r} is not one of {tuple(SCORE_COLUMNS)}")
    out = {"alpha": exact_number(DEFAULTS.alpha)}
    if name == "ev2r-hybrid":
        out["hybrid"] = weights_text(HYBRID_WEIGHTS, HYBRID_COMPONENTS)
    return out


# The definition of 1.0.0's default (`ev2r score` with no option): rules-v2 facts, premise rules with the
# word-order test order-v3 and +anchor, the contradiction rule, the bundled MiniLM verifier c82b0fc475.
_DEFINITION_1 = {
    "ref": "nli", "decomp": "rules-v2", "v2-rev": "2", "unans": "drop", "boiler": "v2", "support": "p>=0.5",
    "prem": "qa-pair-max+lex-top5+twin+anchor+contra0.5/rw0.7",
    "prem-rule": "pred-answer-2w+span4+rel0.1/20+order-v3+wnsyn",
    "verifier": "ev2r-minilm-nli@c82b0fc475", "window": "128-max", "hyp": "clause-window-min",
    "proxy": "nli-gold", "agg": "qa-pair-max",
    "proxy-rule": "pred-answer-2w+span4+rel0.1/20+order-v3+wnsyn+nee-rel+contra0.5/rw0.7",
    "map": "v1", "alpha": "0.5",
}
_HYBRID_1 = {
    "hybrid": "w=recall:0,proxy:0.2,hybrid_meteor:0,hybrid_embedding:0,precision:0.1,verified_meteor:0.2,"
              "mutual_meteor:0.5",
    "hybrid-emb": "all-MiniLM-L6-v2",
}

#: ``ev2r/2`` (1.0.0): the admission stage with its learned reading, graded near-copies, Not Enough Evidence
#: relevance at every claim length, one shared content word for short claims (CHANGELOG.md, 1.0.0).
_DEFINITION_2 = {
    "adm": "admission-v1", **_DEFINITION_1,
    "prem": "qa-pair-max+lex-top5+twin~0.85+anchor+contra0.5/rw0.7",
    "prem-rule": "pred-answer-2w+span4+rel0.1/20+short1+order-v3+wnsyn",
    "proxy-rule": "pred-answer-2w+span4+rel0.1/20+short1+order-v3+wnsyn+nee-rel-all+contra0.5/rw0.7",
}
#: ``ev2r-hybrid/2``: the combination refit on both development rating sets.
_HYBRID_2 = {
    "hybrid": "w=recall:0,proxy:0.05,hybrid_meteor:0.05,hybrid_embedding:0,precision:0.05,verified_meteor:0.8,"
              "mutual_meteor:0.05",
    "hybrid-emb": "all-MiniLM-L6-v2",
}

#: ``ev2r/3`` (1.1.0): a near-copy of a gold pair read through its copy -- numbers compared as values, typos respelled,
#: a copy but for typos is the copy (the edited gold as the prediction moves no score for typos).
_DEFINITION_3 = {**_DEFINITION_2, "prem": "qa-pair-max+lex-top5+twin~0.85/num+respell+anchor+contra0.5/rw0.7"}
#: ``ev2r-hybrid/3``: the same weights as /2, its METEOR columns matching typos and numbers as values (fuzzy-v1).
_HYBRID_3 = {**_HYBRID_2, "hybrid-meteor": "fuzzy-v1"}
#: ``ev2r/4`` (1.2.0): a near-copy read through its copy with WordNet synonyms respelled too, and a pair that is the
#: copy but for typos, synonyms and numbers admitted as the gold pair itself, so the proxy and the METEOR columns read
#: the gold's words (synonyms and numbers as words within 10%); the word-order rule retired.
#: The word-order rule (``order-v3``) retired (``ev2r.metric.admission.RETIRED_RULES``: it closed no reference-free
#: check; the shuffled gold still falls 95-97% below the gold). The latest ``ev2r/N``: its alpha (0.5) read from the
#: configuration (:func:`configured`).
_DEFINITION_4 = {**_DEFINITION_3,
                 "prem": "qa-pair-max+lex-top5+twin~0.85/num+contr+art+respell-syn+anchor+contra0.5/rw0.7",
                 "prem-rule": "pred-answer-2w+span4+rel0.1/20+short1+wnsyn",
                 "proxy-rule": "pred-answer-2w+span4+rel0.1/20+short1+wnsyn+nee-rel-all+contra0.5/rw0.7",
                 **configured("ev2r")}
#: ``ev2r-hybrid/4``: the weights refit on /4's columns (combination.md: mutual METEOR's 0.05 moves to verified METEOR),
#: on ev2r/4's reading. The latest ``ev2r-hybrid/N``: its weights read from the configuration (:func:`configured`).
_HYBRID_4 = {**_HYBRID_3, "hybrid": configured("ev2r-hybrid")["hybrid"]}

#: The digests of the declared scoring constants (``ev2r.metric.definition``) of ``ev2r/4`` and ``ev2r-hybrid/4``
#: (recorded with the digests, 1.2.0): ``const`` (admission, facts, reference side, proxy) and
#: ``hybrid-const`` (the combination's METEOR).
_CONSTANTS_4 = "859ad8bd54"
_HYBRID_CONSTANTS_4 = "c9a59cf6b8"
#: The digest of what ``ev2r/4`` reads from files by content (``data``: :func:`ev2r.metric.definition.data_digest`: the
#: bundled admission model's weights and settings, its sentence encoder, the verb tables, nltk's WordNet and punkt_tab
#: files, and the bundled verifier's configuration and tokenizer, whose weights its name hashes), recorded in 1.8.0
#: (before it, a copy of the admission folder with another threshold kept the name ``admission-v1`` and so the
#: version's name). The definition is unchanged; a run record written before 1.8.0 has no ``data`` field and is
#: identified without it.
_DATA_4 = "ff12a33637"

#: Every registered version, oldest first within a name. Append; never edit or remove an entry.
VERSIONS: tuple[MetricVersion, ...] = (
    MetricVersion(
        name="ev2r-hybrid", number=1, released="1.0.0",
        definition={**_DEFINITION_1, **_HYBRID_1}, fingerprint="ecce126014",
        summary="0.5 mutual METEOR + 0.2 verified METEOR + 0.2 proxy + 0.1 precision (weights fitted by "
                "benchmarks/agreement/combination.py), the recommended score to report",
        typical="real systems' evidence 0.104 (86 rows) and 0.134 (144 rows); the gold evidence 0.871 and 0.863",
        agreement={"86": "semantic coverage +0.413, verdict agreement +0.432",
                   "144": "semantic coverage +0.310, verdict agreement +0.341"},
        gaming="gated strategies: 15 of 16 passed, 0 violated, 1 not judged on each development set "
               "(gaming_86.md, gaming_144.md); ungated: 0 violated"),
    MetricVersion(
        name="ev2r", number=1, released="1.0.0",
        definition=dict(_DEFINITION_1), fingerprint="7e879961ad",
        summary="the paper's Ev2R, 0.5 F1 + 0.5 proxy (Akhtar et al. 2024), with this project's offline "
                "rule-based facts and bundled verifier; fixes its precision, recall, F1 and proxy too",
        typical="real systems' evidence 0.213 (86 rows) and 0.251 (144 rows); the gold evidence 0.677 and 0.660",
        agreement={"86": "semantic coverage +0.400, verdict agreement +0.395",
                   "144": "semantic coverage +0.211, verdict agreement +0.335"},
        gaming="gated strategies: 15 of 16 passed, 0 violated, 1 not judged on each development set "
               "(gaming_86.md, gaming_144.md); ungated: 0 violated"),
    MetricVersion(
        name="ev2r-hybrid", number=2, released="1.0.0",
        definition={**_DEFINITION_2, **_HYBRID_2}, fingerprint="5ecea70bac",
        summary="0.8 verified METEOR + 0.05 each of proxy, precision, Hungarian METEOR and mutual METEOR (refit by "
                "benchmarks/agreement/combination.py to beat HU-METEOR on both sets and both ratings), over the pairs "
                "the admission stage admits (learned reading admission-v1); the recommended score to report",
        typical="real systems' evidence 0.074 (86 rows) and 0.114 (144 rows); the gold evidence 0.965 "
                "(reference_as_prediction.md)",
        agreement={"86": "semantic coverage +0.471, verdict agreement +0.451",
                   "144": "semantic coverage +0.370, verdict agreement +0.304"},
        gaming="257 of 273 gated checks without a gain on each development set (gaming.md, re-weighed); reference-"
               "free strategies with held-out phrasings: gaming_heldout.md"),
    MetricVersion(
        name="ev2r", number=2, released="1.0.0",
        definition=dict(_DEFINITION_2), fingerprint="12f46b9d8a",
        summary="the paper's Ev2R, 0.5 F1 + 0.5 proxy (Akhtar et al. 2024), over the pairs the admission stage "
                "admits (admission-v1), near-copies of a pair graded (no cliff at the exact copy), Not Enough "
                "Evidence earned only by evidence on the claim at every claim length",
        typical="real systems' evidence 0.216 (86 rows) and 0.247 (144 rows); the gold evidence 0.663",
        agreement={"86": "semantic coverage +0.382, verdict agreement +0.414",
                   "144": "semantic coverage +0.199, verdict agreement +0.286"},
        gaming="257 of 273 gated checks without a gain on each development set (gaming.md); held-out phrasings: "
               "gaming_heldout.md"),
    MetricVersion(
        name="ev2r-hybrid", number=3, released="1.1.0",
        definition={**_DEFINITION_3, **_HYBRID_3}, fingerprint="e98967f205",
        summary="ev2r-hybrid/2's weights (0.8 verified METEOR + 0.05 each of proxy, precision, Hungarian METEOR and "
                "mutual METEOR) with METEOR matching a word one edit away and numbers as values, and a near-copy of a "
                "gold pair read through its copy (numbers as values, typos respelled); the recommended score to report",
        typical="real systems' evidence 0.075 (86 rows) and 0.115 (144 rows); the gold evidence 0.965 "
                "(reference_as_prediction.md)",
        agreement={"86": "semantic coverage +0.467, verdict agreement +0.453",
                   "144": "semantic coverage +0.370, verdict agreement +0.304"},
        gaming="CI gaming gate, 30 rows of each set: 197 and 194 gated checks passed, 0 violated (gaming_gate_86.md, "
               "gaming_gate_144.md); held-out phrasings and the edited gold: rules_ablation_v3.md"),
    MetricVersion(
        name="ev2r", number=3, released="1.1.0",
        definition=dict(_DEFINITION_3), fingerprint="827877bd64",
        summary="ev2r/2 with a near-copy of a gold pair read through its copy (numbers as values, typos respelled, "
                "a copy but for typos is the copy): the gold with typos as the prediction scores as the gold",
        typical="real systems' evidence 0.216 (86 rows) and 0.247 (144 rows), as ev2r/2",
        agreement={"86": "semantic coverage +0.382, verdict agreement +0.414",
                   "144": "semantic coverage +0.199, verdict agreement +0.286"},
        gaming="as ev2r-hybrid/3 (rules_ablation_v3.md)"),
    MetricVersion(
        name="ev2r-hybrid", number=4, released="1.2.0",
        definition={**_DEFINITION_4, **_HYBRID_4}, fingerprint="200391ea4d",
        constants={"const": _CONSTANTS_4, "hybrid-const": _HYBRID_CONSTANTS_4, "data": _DATA_4},
        summary="0.85 verified METEOR + 0.05 each of proxy, precision and Hungarian METEOR (refit by "
                "benchmarks/agreement/combination.py on ev2r/4's columns), on ev2r/4's reading: a copy of a gold pair "
                "but for typos, synonyms, contractions, articles and numbers written as words read as the gold pair "
                "itself, and the word-order rule retired; the recommended score to report",
        typical="real systems' evidence 0.077 (86 rows) and 0.118 (144 rows); the gold evidence 0.965 "
                "(reference_as_prediction.md)",
        agreement={"86": "semantic coverage +0.464, verdict agreement +0.471",
                   "144": "semantic coverage +0.367, verdict agreement +0.304"},
        gaming="the full suite on every row of both development sets: 0 of 169 gated (reference-free) checks "
               "violated on each (gaming.md); the gold edited within 10%, rewritten at least 90% below the gold "
               "(robustness_invariance.md); held-out phrasings: 4 of 48 checks fail (gaming_heldout.md)"),
    MetricVersion(
        name="ev2r", number=4, released="1.2.0",
        definition=dict(_DEFINITION_4), fingerprint="71af38c832", constants={"const": _CONSTANTS_4, "data": _DATA_4},
        summary="ev2r/3 with a copy of a gold pair but for typos, synonyms, contractions, articles and numbers written "
                "as words read as the gold pair itself (the proxy included), and the word-order rule retired: the gold "
                "edited so as to keep its meaning scores within 10% of the gold",
        typical="real systems' evidence 0.219 (86 rows) and 0.249 (144 rows); the gold evidence 0.663",
        agreement={"86": "semantic coverage +0.377, verdict agreement +0.440",
                   "144": "semantic coverage +0.194, verdict agreement +0.288"},
        gaming="as ev2r-hybrid/4"),
)


def _check_registry(versions: tuple[MetricVersion, ...]) -> None:
    """Each name numbered 1, 2, ... without gaps; no definition registered twice under one name.

    Raises:
        ValueError: naming the duplicate or the gap.
    """
    for name in SCORE_COLUMNS:
        mine = [v for v in versions if v.name == name]
        numbers = [v.number for v in mine]
        if numbers != list(range(1, len(mine) + 1)):
            raise ValueError(f"VERSIONS: {name} is numbered {numbers}; expected 1, 2, ... in order")
        prints = [v.fingerprint for v in mine]
        if len(set(prints)) != len(prints):
            raise ValueError(f"VERSIONS: {name} registers one definition twice ({prints})")


_check_registry(VERSIONS)


def latest(name: str) -> MetricVersion:
    """The newest registered version of ``name`` (the current default's).

    Raises:
        ValueError: an unknown name.
    """
    mine = [v for v in VERSIONS if v.name == name]
    if not mine:
        raise ValueError(f"latest: no registered version of {name!r}; names: {tuple(SCORE_COLUMNS)}")
    return mine[-1]


def get(label: str) -> MetricVersion:
    """The registered version ``label`` (``"ev2r-hybrid/1"``).

    Raises:
        ValueError: ``label`` is not a registered version (naming the registered ones).
    """
    for v in VERSIONS:
        if v.label == label:
            return v
    raise ValueError(f"{label!r} is not a registered score version; registered: "
                     f"{', '.join(v.label for v in VERSIONS)}")


#: Where a registered version that this release no longer computes is computed: the commit of this
#: repository whose default scorer identifies as that version (checked by running its ``build_scorer().signature()``
#: through this registry), and the release line it belongs to. The latest version of each name is computed by this
#: release itself. Recompute an old number with ``git checkout <commit> && bash scripts/setup.sh && .venv/bin/ev2r
#: score FILE`` (docs/versions.md, "Recomputing an old number").
COMPUTED_BY = {
    "ev2r-hybrid/1": ("a96bd6a", "1.0.0"), "ev2r/1": ("a96bd6a", "1.0.0"),
    "ev2r-hybrid/2": ("11502de", "1.0.0"), "ev2r/2": ("11502de", "1.0.0"),
    "ev2r-hybrid/3": ("db76440", "1.1.0"), "ev2r/3": ("db76440", "1.1.0"),
}


#: Each registered version's value on the shipped sample (``examples/averitec_sample.jsonl``, ``ev2r score --json``:
#: ``ev2r_hybrid`` for ``ev2r-hybrid/N``, ``ev2r`` for ``ev2r/N``), computed by the commit of :data:`COMPUTED_BY`
#: (or this release) with torch 2.13.0 CPU in bf16: ``scripts/check_old_versions.py`` recomputes every one in CI
#: (to 2e-3: bf16 kernels differ between CPUs).
RECORDED_SAMPLE = {
    "ev2r-hybrid/1": 0.1074, "ev2r/1": 0.2234,
    "ev2r-hybrid/2": 0.0879, "ev2r/2": 0.2234,
    "ev2r-hybrid/3": 0.0913, "ev2r/3": 0.2234,
    "ev2r-hybrid/4": 0.0943, "ev2r/4": 0.2228,
}


def require_computable(label: str) -> MetricVersion:
    """The registered version ``label`` when this release computes it (the latest of its name, the default's
    definition); otherwise an error that says which commit computes it.

    Args:
        label: a versioned name, ``"ev2r-hybrid/4"``.

    Returns:
        the :class:`MetricVersion`.

    Raises:
        ValueError: ``label`` is not registered (naming the registered ones), or this release does not compute it
            (naming the commit and release that do, and the command that recomputes a number with them).
    """
    try:
        v = get(label)
    except ValueError as e:
        raise ValueError(f"--score-version: {e}") from None
    if v is latest(v.name):
        return v
    commit, release = COMPUTED_BY.get(label, (None, v.released))
    where = (f"git checkout {commit} && bash scripts/setup.sh && .venv/bin/ev2r score FILE" if commit else
             f"pip install ev2r=={release}")
    raise ValueError(f"--score-version: {label} is not computed by this release (its rules and weights are those of "
                     f"release {release}; this release computes {latest(v.name).label}). Recompute a number reported "
                     f"as {label} with the code that defines it: {where} (docs/versions.md, 'Recomputing an old "
                     f"number')")


def check_computed(label: str, signature: str) -> None:
    """That a run with ``signature`` computed the registered version ``label`` (``ev2r score --score-version``).

    Raises:
        ValueError: the run did not compute that score, or computed another definition (naming the run's versioned
            name and the fields where it differs, e.g. an option such as ``--alpha`` that changes the definition).
    """
    v = require_computable(label)
    found = identify(signature).get(v.name)
    if found is None:
        raise ValueError(f"--score-version {label}: the run did not compute {v.column} (see --scorer, --no-hybrid)")
    if found.version is not v:
        shown = "; ".join(f"{k}: {a or 'absent'} -> {b or 'absent'}" + (f" ({DIGEST_MEANING[k]})" if k in DIGEST_MEANING
                                                                          else "")
                          for k, (a, b) in list(found.differs.items())[:3])
        raise ValueError(f"--score-version {label}: the options of this run define {found.label}, not {label} "
                         f"(differs in {shown}); drop the options that change the definition")


@dataclass(frozen=True)
class Identified:
    """What :func:`identify` found for one score of a run.

    Attributes:
        name: the score's family (``"ev2r-hybrid"``).
        fingerprint: the fingerprint of the run's definition.
        version: the registered version with that definition, or None (a custom definition).
        differs: when ``version`` is None: ``{field: (latest version's value, this run's value)}`` against the
            latest registered version (None for a field one side lacks); for a run with a registered definition
            but other constants, the digest fields (``const``, ``hybrid-const``) against that version's.
    """

    name: str
    fingerprint: str
    version: Optional[MetricVersion]
    differs: Mapping[str, tuple[Optional[str], Optional[str]]] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """``ev2r-hybrid/1``, or ``ev2r-hybrid/custom-<fingerprint>`` for an unregistered definition."""
        return self.version.label if self.version else f"{self.name}/custom-{self.fingerprint}"


def identify(signature: str) -> dict[str, Identified]:
    """The versioned name of every score the run with ``signature`` computed (``ev2r-hybrid`` first).

    A run is a registered version when its definition's fingerprint is that version's and, where the version
    records constants digests (:attr:`MetricVersion.constants`), the run's digests are those; a run with the
    definition but other digests is ``<name>/custom-<fingerprint of the definition and its digests>``.

    Raises:
        ValueError: a ``signature`` that is not ``key:value|...``.
    """
    out = {}
    every = Signature.parse(str(signature)).fields
    for name in SCORE_COLUMNS:
        if not computed(name, signature):
            continue
        fields = definition(name, signature)
        fp = fingerprint(fields)
        match = next((v for v in VERSIONS if v.name == name and v.fingerprint == fp), None)
        differs: dict[str, tuple[Optional[str], Optional[str]]] = {}
        if match is not None:
            # the run's constants digests against those the version records (a signature without them: not checked)
            differs = {k: (want, every[k]) for k, want in (match.constants or {}).items()
                       if k in every and every[k] != want}
            if differs:  # the registered definition with other constants: a custom one, named with its digests
                match = None
                fp = fingerprint({**fields, **{k: every[k] for k in differs}})
        else:
            ref = dict(latest(name).definition)
            differs = {k: (ref.get(k), fields.get(k)) for k in list(ref) + [k for k in fields if k not in ref]
                       if ref.get(k) != fields.get(k)}
        out[name] = Identified(name, fp, match, differs)
    return out


def short_signature(signature: str) -> str:
    """The signature to print beside a number: the versioned names of the scores computed, the verifiers
    (name, weights hash, compute precision), the baseline columns, the library versions and the engine.

    With the default options it is at most :data:`SHORT_SIGNATURE_MAX` characters, e.g.
    ``ev2r-hybrid/1|ev2r/1|verifier:ev2r-minilm-nli@c82b0fc475+bf16|ev2r:1.0.0|transformers:5.25.0|torch:2.13.0+cpu``.
    The full signature (every rule) stays in the run record and in ``ev2r score --json``.

    Raises:
        ValueError: a ``signature`` that is not ``key:value|...``.
    """
    fields = Signature.parse(str(signature)).fields
    parts = [ident.label for ident in identify(signature).values()]
    keep = [k for k in fields if k in VERIFIER_FIELDS and fields[k] != "none"]
    keep += [k for k in fields if k.startswith(NON_SCORE_PREFIXES)]
    keep += [k for k in RUNTIME_FIELDS if k in fields]
    parts += [f"{k}:{fields[k]}" for k in keep]
    return "|".join(parts)


def describe(signature: str) -> str:
    """One line saying which version a run's headline score is and the range it takes, for ``ev2r score``:
    ``ev2r-hybrid/1 in [0, 1]; ...typical values...``; for an unregistered definition, the fields in which it
    differs from the latest version; "" when the run computed neither score (HU-METEOR alone).

    Raises:
        ValueError: a ``signature`` that is not ``key:value|...``.
    """
    found = identify(signature)
    if not found:
        return ""
    ident = next(iter(found.values()))  # the headline's: ev2r-hybrid when computed, else ev2r
    if ident.version is not None:
        v = ident.version
        return f"{v.label} in {v.range_text()}; {v.typical} (docs/versions.md)"
    ref = latest(ident.name)
    shown = [f"{k}: {a or 'absent'} -> {b or 'absent'}" for k, (a, b) in list(ident.differs.items())[:3]]
    more = f" and {len(ident.differs) - 3} more" if len(ident.differs) > 3 else ""
    return (f"{ident.label} in {ref.range_text()}: not a registered version (differs from {ref.label} in "
            f"{'; '.join(shown)}{more}); cite the full signature (--json or the run record), not {ref.label}")


def summary_fields(signature: str) -> dict:
    """What ``ev2r score --json`` and the ``evaluate`` module add beside the full ``signature``:
    ``versions`` (score column -> versioned name) and ``short_signature``.

    Raises:
        ValueError: a ``signature`` that is not ``key:value|...``.
    """
    return {"versions": {SCORE_COLUMNS[n]: ident.label for n, ident in identify(signature).items()},
            "short_signature": short_signature(signature)}


def versions_table() -> str:
    """The Markdown table of every registered version (docs/versions.md renders it when the site is built,
    scripts/docs_hooks.py)."""
    lines = ["| version | released | score | range | typical values | Spearman with people (86 / 144 rows) "
             "| gaming record | fingerprint |",
             "|---|---|---|---|---|---|---|---|"]
    for v in VERSIONS:
        agree = "; ".join(f"{k}: {t}" for k, t in v.agreement.items())
        lines.append(f"| `{v.label}` | {v.released} | {v.summary} | {v.range_text()} | {v.typical} | {agree} "
                     f"| {v.gaming} | `{v.fingerprint}` |")
    return "\n".join(lines) + "\n"


def computed_table() -> str:
    """The Markdown table of where each registered version is computed (docs/versions.md, "Recomputing an old
    number", renders it): the versions computed by one commit of :data:`COMPUTED_BY` (or by this release, the latest
    of each name) in one row, with the command that scores a file with them and their :data:`RECORDED_SAMPLE` values."""
    groups: dict[tuple[str, str], list[MetricVersion]] = {}
    for v in VERSIONS:
        commit, release = COMPUTED_BY.get(v.label, ("", f"{v.released} on"))
        groups.setdefault((commit, release), []).append(v)
    lines = ["| version | computed by commit | release line | check it out and score | the shipped sample "
             "(each version's score, in the order of the first column) |", "|---|---|---|---|---|"]
    for (commit, release), mine in groups.items():
        names = ", ".join(f"`{v.label}`" for v in mine)
        values = " / ".join(f"{RECORDED_SAMPLE[v.label]:.4f}" for v in mine)
        if commit:
            lines.append(f"| {names} | `{commit}` | {release} | `git checkout {commit} && bash scripts/setup.sh && "
                         f".venv/bin/ev2r score FILE` | {values} |")
        else:
            lines.append(f"| {names} | this release | {release} | `ev2r score FILE --score-version {mine[0].label}` "
                         f"| {values} (the README's worked example) |")
    return "\n".join(lines) + "\n"
