"""The scoring constants, declared once per stage, and the digest of their live values.

A version's name (:mod:`ev2r.versions`) pins the fields of the scorer's signature; most fields are assembled from
options and a few constants (``twin~0.85`` from :data:`ev2r.metric.admission.TWIN_MIN_SIMILARITY`). Every other
constant that moves a number (a cosine, a share, a word list) is declared here, in :data:`STAGES`, by module and
name. :func:`signature_fields` reads their values **as the running code has them** and writes two digests into the
run's signature:

* ``const``: the stages that every score reads (admission, facts, reference side, proxy), for ``ev2r/N`` and
  ``ev2r-hybrid/N``;
* ``hybrid-const``: the combination's (METEOR's parameters, the predicted pairs it aligns), for ``ev2r-hybrid/N``.

The digests are not part of a version's fingerprint (the registered fingerprints predate them); a version records
them beside it (:attr:`ev2r.versions.MetricVersion.constants`) and :func:`ev2r.versions.identify` names a run that
version only when both agree, so changing a declared constant renames the run ``.../custom-<fingerprint>``.

A constant that is not declared fails ``tests/ev2r/metric/test_definition.py``: it scans
:data:`SCANNED_MODULES` for module-level ``UPPER_CASE`` constants (numbers, text, tuples, sets, dicts of them, and
aliases of such a constant) and requires each to be in :data:`STAGES` or in :data:`NOT_SCORING` with its reason.

    >>> sorted(signature_fields(hybrid=True))
    ['const', 'hybrid-const']
    >>> canonical((0.5, frozenset({"b", "a"}), {"k": True}))
    "(0.5,{'a','b'},{'k':True})"
"""

from __future__ import annotations

import functools
import hashlib
import importlib
from typing import Mapping

from claimalign.nltk_data import import_nltk

#: Stage -> module -> the names of its scoring constants (module-level attributes). Each constant is declared once.
STAGES: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    # which pairs are evidence (ev2r.metric.admission and the rules it calls)
    "admission": {
        "ev2r.metric.admission": (
            "PREMISE_RELEVANCE_MIN", "RELEVANCE_CLAIM_CAP", "DUPLICATE_COSINE", "ANSWER_MIN_WORDS",
            "SHORT_CLAIM_MIN_SHARED", "RETIRED_RULES", "TWIN_MIN_SIMILARITY", "COPY_TEXT", "_APOSTROPHES",
            "_EXPANSION", "_SYMBOLS", "_NEGATIONS", "RESPELL_SYNONYMS", "SYNONYM_SENSES"),
        "ev2r.metric.restatement": (
            "RESTATE_COVERAGE", "RESTATE_NOVELTY", "RESTATE_WRAP_NOVELTY", "WRAP_FILLER", "SPAN_MIN_TOKENS"),
        "ev2r.metric.admission_model": ("MODEL_NAME", "_NEGATIONS"),
        "ev2r.facts.rules": ("BOILERPLATE_RULE", "BOILERPLATE_DEFAULT", "_SEPARATOR_CHARS", "_PUNCTUATION",
                             "_SAME_SCRIPT"),
        "claimalign.words": ("MIN_CLAIM_TOKENS", "NO_ANSWER", "_AFTER_CUT", "_STOP"),
        "claimalign.meteor_fast": ("_UNITS", "_SCALES"),  # numbers written as words, read as values (copy_text)
    },
    # the atomic facts (ev2r.facts: the rule-based decomposer; the reading of an LLM's or a replay's reply)
    "facts": {
        "ev2r.facts.rules": ("RULES_DECOMPOSER_ID",),
        "ev2r.facts.declarative": (
            "RULES_V2_ID", "RULES_V2_REVISION", "_BE", "_HAVE", "_DO", "_MODAL", "_WH", "_DETERMINERS",
            "_PREP_AFTER", "_NP_STOP", "_MONTHS", "_ANSWER_LOWER", "_REPORTING", "_REPORTED_PAST"),
        "ev2r.facts.reply": ("SIDES", "_MARKER_STYLES", "_FACT_KEYS", "_VERDICT_KEYS", "_VERDICT_WORDS",
                             "REPLY_KEYS"),
    },
    # precision and recall: premises chosen for each fact, the contradiction veto
    "reference": {
        "ev2r.metric.prefilter": ("STEM_CHARS",),
        "ev2r.metric.contradiction": ("CONTRADICTION_MIN", "REWRITE_MIN"),
    },
    # the proxy: Not Enough Evidence earned by relevant evidence
    "proxy": {
        "ev2r.metric.proxy": ("RELEVANCE_FULL",),
    },
    # ev2r_hybrid's columns: METEOR (Hungarian, verified, mutual) over the first MAX_PREDICTED predicted pairs
    "combination": {
        "claimalign.meteor_fast": ("ALPHA", "BETA", "GAMMA", "FUZZY_MIN_LETTERS"),
        "claimalign.averitec": ("MAX_PREDICTED",),
        "claimalign.scripts": ("_UNSPACED_RANGES",),
    },
}

#: Constants that moved to another module after the registered versions' digests were computed, under the name the
#: digests read (``"module:NAME"`` where it lives now -> where it lived): a move changes no value, so no digest.
DIGEST_NAMES: Mapping[str, str] = {
    "claimalign.scripts:_UNSPACED_RANGES": "claimalign.textio:_UNSPACED_RANGES",
    **{f"claimalign.words:{name}": f"claimalign.qa_text:{name}"
       for name in ("MIN_CLAIM_TOKENS", "NO_ANSWER", "_AFTER_CUT", "_STOP")},
}

#: Constants the registered versions' digests read that no longer live in the code, with the value the digest reads
#: (``"module:NAME"`` -> value): what they stated is now how the code is. ``RETIRED_RULES`` named the rule families
#: left out of the default (the word-order rule); that rule left the library in 2.0.0 (its last commit: e43eb97).
FIXED_VALUES: Mapping[str, object] = {
    "ev2r.metric.admission:RETIRED_RULES": ("word_salad",),
}

#: The stages of each digest field (:func:`signature_fields`).
DIGEST_STAGES: Mapping[str, tuple[str, ...]] = {
    "const": ("admission", "facts", "reference", "proxy"),
    "hybrid-const": ("combination",),
}

#: Module-level UPPER_CASE constants of :data:`SCANNED_MODULES` that move no score, each with why ("module:NAME"). A
#: second name of a constant of the same module (``FUNCTION_WORDS = _STOP``) is covered by that constant's entry.
NOT_SCORING: Mapping[str, str] = {
    # names of things (reasons, rule families, columns, statuses, options), not values a score reads
    "ev2r.metric.admission:REASONS": "names of the admission reasons",
    "ev2r.metric.admission_model:NON_EVIDENCE_CLASSES": "class names of the training corpus (the model file holds "
                                                         "the classes it reads)",
    "ev2r.metric.combined:HYBRID_NAME": "a column name",
    "ev2r.metric.combined:METEOR_COLUMN": "a column name",
    "ev2r.metric.combined:EMBEDDING_COLUMN": "a column name",
    "ev2r.metric.combined:VERIFIED_METEOR_COLUMN": "a column name",
    "ev2r.metric.combined:MUTUAL_METEOR_COLUMN": "a column name",
    "ev2r.metric.reference:GRADED_NAMES": "column names",
    "ev2r.metric.scorer:SCORE_NAMES": "column names",
    "ev2r.metric.prefilter:PREFILTER_STAGES": "names of the option's values",
    "ev2r.facts.rules:RULE_DECOMPOSERS": "names of the option's values",
    "ev2r.facts.reply:SCORE_SOURCES": "names of the option's values (ev2r.config.REPLY_READINGS)",
    "ev2r.verifier.nli:LONG_HYPOTHESIS_POLICIES": "names of the option's values (the policy is the window field)",
    "ev2r.verifier.calibration:METHODS": "names of the option's values",
    "ev2r.verifier.loading:BUNDLED_VERIFIER_NAME": "a verifier's name (the signature holds it with its weights' hash)",
    "ev2r.verifier.loading:MULTILINGUAL_VERIFIER_NAME": "a verifier's name (as above)",
    "ev2r.verifier.loading:FAST_VERIFIER_NAME": "a verifier's name (as above)",
    "ev2r.verifier.loading:AVERITEC_VERIFIER_NAME": "a verifier's name (as above)",
    "ev2r.verifier.loading:EDITS_VERIFIER_NAME": "a verifier's name (as above)",
    "ev2r.verifier.cache:CACHE_FILE": "the on-disk cache's file name (a cache returns the numbers it stored, exactly)",
    "ev2r.verifier.cache:CACHE_FORMAT": "the on-disk cache's format version (as above)",
    "ev2r.verifier.cache:BUSY_TIMEOUT_S": "how long a run waits for another holding the cache's lock (as above)",
    "ev2r.verifier.cache:_SCHEMA": "the cache's SQLite tables (as above)",
    "claimalign.averitec:HU_METEOR_VARIANTS": "names of the baseline columns' variants (extra-*, not a score)",
    "claimalign.averitec:HU_METEOR_TOKENS": "names of the option's values",
    "claimalign.models:DTYPES": "names of the option's values (the dtype is the verifier's +bf16 / +int8)",
    "claimalign.models:TRUNCATIONS": "names of the option's values",
    "claimalign.models:PRECISIONS": "names of the option's values",
    # messages, notes, files, formats
    "ev2r.metric.combined:UNAVAILABLE": "the start of a message",
    "ev2r.metric.proxy:LONG_CLAIM": "the start of a note on a row (the score stands)",
    "ev2r.metric.proxy:ABSENCE_ON_CLAIM": "the start of a note on a row (the score stands)",
    "ev2r.io.qa_text:LAYOUT_NOTES": "warning texts of the readers",
    "ev2r.facts.declarative:VERB_LEMMAS_FILE": "a file name (its content is data, not hashed: docs/versions.md)",
    "ev2r.facts.declarative:VERB_EXCEPTION_FORMS_FILE": "a file name (as above)",
    "ev2r.verifier.calibration:CALIBRATION_FILE": "a file name",
    "ev2r.verifier.calibration:SCHEMA_VERSION": "the calibration file's format",
    # outside the definition by design
    "ev2r.verifier.calibration:EPS": "the graded columns' calibration only (the cal field, no reported score)",
    "ev2r.verifier.calibration:_SHORT": "the graded columns' calibration id (the cal field)",
    "ev2r.verifier.loading:NON_ENGLISH_SHARE": "when to warn that evidence is not English (a warning)",
    "ev2r.metric.admission:_CACHE_MAX": "a cache's size (the cached values are the same)",
    # how text is read from files and written (the readers', tested by their own tests)
    "ev2r.verifier.nli:CONFIG_FILES": "names of files whose content the data digest hashes (data_digest)",
    "ev2r.metric.definition:NLTK_RESOURCES": "names of nltk files whose content the data digest hashes (nltk_digest)",
    "ev2r.io.qa_text:_PAD": "the Q/A text layout parser's pattern (reading the input)",
    "ev2r.io.qa_text:_DECOR": "the Q/A text layout parser's pattern (reading the input)",
    "ev2r.io.qa_text:_EMPH": "the Q/A text layout parser's pattern (reading the input)",
    "claimalign.text:INVISIBLE": "characters the readers strip from a field's edges (reading the input)",
    "claimalign.jsonio:_RAW_LINE_BREAKS": "JSON writing",
    "claimalign.jsonio:MAX_JSON_DEPTH": "JSON reading",
    "claimalign.jsonio:_HUGE_INT_FIELD": "JSON reading",
    "claimalign.files:WRITE_THROUGH_KINDS": "file writing",
    "claimalign.scripts:UNSPACED_SCRIPTS": "script names in a warning",
}

#: The modules whose module-level UPPER_CASE constants must each be declared (:data:`STAGES`) or exempt
#: (:data:`NOT_SCORING`): every module of ev2r.metric, ev2r.facts and ev2r.verifier (listed by the test from the
#: packages), and these modules of claimalign that scoring calls.
SCANNED_PACKAGES = ("ev2r.metric", "ev2r.facts", "ev2r.verifier")
SCANNED_MODULES = ("ev2r.scores", "ev2r.io.qa_text", "claimalign.words", "claimalign.meteor_fast",
                   "claimalign.averitec", "claimalign.align", "claimalign.text", "claimalign.jsonio",
                   "claimalign.files", "claimalign.scripts", "claimalign.models",
                   "claimalign.nli")


def declared() -> list[tuple[str, str, str]]:
    """Every declared constant as ``(stage, module, name)``, in declaration order."""
    return [(stage, module, name) for stage, modules in STAGES.items() for module, names in modules.items()
            for name in names]


def canonical(value) -> str:
    """The text of a constant's value that the digest reads: the same value gives the same text in every process
    (sets and dicts sorted; floats as ``repr``).

    Raises:
        TypeError: a value that is not a bool, number, text, or a tuple, list, set or dict of them.
    """
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, (tuple, list)):
        return "(" + ",".join(canonical(v) for v in value) + ")"
    if isinstance(value, (set, frozenset)):
        return "{" + ",".join(sorted(canonical(v) for v in value)) + "}"
    if isinstance(value, dict):
        return "{" + ",".join(sorted(f"{canonical(k)}:{canonical(v)}" for k, v in value.items())) + "}"
    raise TypeError(f"canonical: a scoring constant must be a bool, number, text or a tuple, set or dict of them; "
                    f"got {type(value).__name__}")


def values(stages: tuple[str, ...] = tuple(STAGES)) -> dict[str, str]:
    """``"module:NAME" -> canonical value`` of the constants of ``stages``, read from the modules as they run
    (named as :data:`DIGEST_NAMES` says where one has moved).

    Raises:
        ValueError: an unknown stage, or a declared constant its module does not have (naming it).
    """
    out = {}
    for stage in stages:
        if stage not in STAGES:
            raise ValueError(f"values: stage {stage!r} is not one of {tuple(STAGES)}")
        for module, names in STAGES[stage].items():
            mod = importlib.import_module(module)
            for name in names:
                fixed = f"{module}:{name}"
                if fixed in FIXED_VALUES:
                    out[DIGEST_NAMES.get(fixed, fixed)] = canonical(FIXED_VALUES[fixed])
                    continue
                if not hasattr(mod, name):
                    raise ValueError(f"ev2r.metric.definition.STAGES[{stage!r}]: {module} has no constant {name}")
                out[DIGEST_NAMES.get(f"{module}:{name}", f"{module}:{name}")] = canonical(getattr(mod, name))
    return out


def digest(stages: tuple[str, ...]) -> str:
    """SHA-256 (first 10 hex digits) of the ``module:NAME=value`` lines of the constants of ``stages``
    (:func:`values`), in declaration order.

    Raises:
        ValueError: as :func:`values`.
    """
    text = "\n".join(f"{k}={v}" for k, v in values(stages).items())
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


def signature_fields(hybrid: bool) -> dict[str, str]:
    """The run's constants digests for its signature: ``const`` (:data:`DIGEST_STAGES`) and, with ``hybrid`` (the run
    computes ``ev2r_hybrid``), ``hybrid-const``."""
    out = {"const": digest(DIGEST_STAGES["const"])}
    if hybrid:
        out["hybrid-const"] = digest(DIGEST_STAGES["hybrid-const"])
    return out


#: The data files of the package that the shipped definition reads (beside the verifier, hashed in its name, and the
#: admission model): the rules-v2 verb tables of :mod:`ev2r.facts.declarative`.
DATA_FILES = ("wordnet30_verb_lemmas.txt.gz", "wordnet30_verb_exception_forms.txt")


def _file_digest(name: str) -> str:
    from importlib import resources

    from ev2r.signature import text_digest

    try:
        data = resources.files("ev2r.facts").joinpath("data").joinpath(name).read_bytes()
    except (FileNotFoundError, OSError):
        return "missing"
    return text_digest(data)


def _verifier_part(verifier) -> str:
    """What the ``data`` digest says of one verifier: its configuration and tokenizer files
    (:meth:`ev2r.verifier.nli.HFNLIVerifier.config_digest`), or, for another object, its class (a verifier object of
    another class is never the verifier a name was registered with, whatever ``name`` it gives)."""
    from ev2r.verifier.nli import HFNLIVerifier

    if type(verifier) is HFNLIVerifier:
        return verifier.config_digest()
    return f"{type(verifier).__module__}.{type(verifier).__qualname__}"


def _encoder_part(admission) -> str:
    """The sentence encoder the admission model reads with: the bundled all-MiniLM-L6-v2 folder's weights and
    configuration (:func:`ev2r.verifier.nli.checkpoint_digest`), or the class of an encoder object given."""
    from claimalign.models import default_encoder_path
    from claimalign.similarity.embedding import EmbeddingSimilarity
    from ev2r.verifier.nli import checkpoint_digest

    encoder = getattr(admission, "encoder", None)  # None until the model first encodes: then the shared default
    path = encoder.model_path if isinstance(encoder, EmbeddingSimilarity) else None
    if encoder is not None and not isinstance(encoder, EmbeddingSimilarity):
        return f"{type(encoder).__module__}.{type(encoder).__qualname__}"
    try:
        return checkpoint_digest(str(path) if path is not None else str(default_encoder_path()))
    except (RuntimeError, OSError):
        return "missing"


#: nltk's data the METEOR columns and the WordNet rules read (``corpora/wordnet``, ``tokenizers/punkt_tab/english``),
#: hashed by content into the ``data`` digest (:func:`nltk_digest`).
NLTK_RESOURCES = {"corpora/wordnet": ("index.noun", "index.verb", "index.adj", "index.adv", "data.noun", "data.verb",
                                      "data.adj", "data.adv", "noun.exc", "verb.exc", "adj.exc", "adv.exc",
                                      "lexnames"),
                  "tokenizers/punkt_tab/english": ("abbrev_types.txt", "collocations.tab", "ortho_context.tab",
                                                   "sent_starters.txt")}


def nltk_digest() -> str:
    """10 hex digits of the SHA-256 of the nltk data files the scores read (:data:`NLTK_RESOURCES`: WordNet's index,
    data and exception files, punkt_tab's English tables), found where nltk finds them (a folder or a zip alike), or
    ``missing`` where nltk finds none (the signature then says ``+nosyn`` too). Kept per process for the same files."""
    try:
        nltk = import_nltk()
    except ImportError:
        return "missing"
    parts = []
    for resource in NLTK_RESOURCES:
        try:
            parts.append((resource, str(nltk.data.find(resource))))
        except LookupError:
            parts.append((resource, "missing"))
    return _nltk_digest(tuple(parts))


@functools.lru_cache(maxsize=4)
def _nltk_digest(found: tuple) -> str:
    nltk = import_nltk()
    h = hashlib.sha256()
    for resource, root in found:
        h.update(resource.encode("utf-8") + b"\0")
        if root == "missing":
            h.update(b"missing\0")
            continue
        pointer = nltk.data.find(resource)
        for name in NLTK_RESOURCES[resource]:
            try:
                with pointer.join(name).open() as fh:
                    data = fh.read()
            except (OSError, LookupError, ValueError):
                data = b"<absent>"
            h.update(name.encode("utf-8") + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()[:10]


def data_digest(admission, verifiers=()) -> str:
    """The signature's ``data`` field: 10 hex digits of the SHA-256 of everything a run reads from files that defines
    its numbers, by content: the admission model in force (:meth:`ev2r.metric.admission_model.AdmissionModel.digest`:
    its weights and settings, not the name its ``model.json`` gives; ``none`` without one) and the package's data
    files (:data:`DATA_FILES`). A copy of the bundled
    admission folder with another threshold or other weights gives another digest, so a run with it is never
    identified as a registered version (:func:`ev2r.versions.identify`).

    It also hashes the nltk data the scores read (:func:`nltk_digest`: WordNet, punkt_tab), the configuration and
    tokenizer files of each verifier (their weights are hashed in their names;
    a copy of the bundled folder with its labels swapped keeps the name) and the sentence encoder the admission model
    reads with.

    Args:
        admission: the admission model of the scorer (an object with ``digest()``), or None.
        verifiers: the scorer's verifier objects (the facts' and the proxy's), in order; duplicates counted once.
    """
    from ev2r.signature import text_digest

    if admission is None:
        adm = "none"
    elif callable(getattr(admission, "digest", None)):
        adm = str(admission.digest())
    else:  # a duck-typed model: named by its class and its fields' text (no weights to hash)
        adm = f"{type(admission).__module__}.{type(admission).__qualname__}:{text_digest(repr(vars(admission)))}"
    files = list(DATA_FILES)
    lines = [f"adm={adm}"] + [f"{name}={_file_digest(name)}" for name in files]
    if admission is not None:
        lines.append(f"adm-encoder={_encoder_part(admission)}")
    lines.append(f"nltk={nltk_digest()}")
    seen: list = []
    for v in verifiers:
        if v is not None and not any(v is w for w in seen):
            seen.append(v)
            lines.append(f"verifier={_verifier_part(v)}")
    return text_digest("\n".join(lines))
