"""The definition derived, not typed (ev2r.metric.definition): every scoring constant is declared,
its live value enters the run's signature (``const``, ``hybrid-const``), changing one renames the run, and a module-
level constant of a scoring module that is neither declared nor exempt fails here."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

from ev2r import versions as V
from ev2r.metric import definition as D

ROOT = Path(__file__).resolve().parents[3]
_UPPER = re.compile(r"^_?[A-Z][A-Z0-9_]*$")


# -- the scan: module-level UPPER_CASE constants -------------------------------------------------------------------
def _literal(node: ast.AST) -> bool:
    """A value written in the source: a number, text or bool, a tuple/list/set/dict of them, ``frozenset(...)`` or
    ``set(...)`` of them, ``"...".split()``, sums of them. Empty containers (caches filled at run time) are not."""
    if isinstance(node, ast.Constant):
        return node.value is not None and not isinstance(node.value, bytes)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _literal(node.operand)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_literal(e) for e in node.elts)
    if isinstance(node, ast.BinOp):
        return _literal(node.left) and _literal(node.right)
    if isinstance(node, ast.Dict):
        return bool(node.keys) and all(k is not None and _literal(k) and _literal(v)
                                       for k, v in zip(node.keys, node.values))
    if isinstance(node, ast.Call) and not node.keywords and len(node.args) == 1:
        if isinstance(node.func, ast.Name) and node.func.id in ("frozenset", "set", "tuple"):
            return _literal(node.args[0])
        if isinstance(node.func, ast.Attribute) and node.func.attr == "split":
            return _literal(node.func.value)
    if isinstance(node, ast.Call) and not node.keywords and not node.args and isinstance(node.func, ast.Attribute):
        return node.func.attr == "split" and _literal(node.func.value)
    return False


def module_constants(source: str) -> dict[str, str | None]:
    """The module-level ``UPPER_CASE`` (or ``_UPPER_CASE``) constants of ``source`` whose value is written in it
    (:func:`_literal`; -> None) or is another such name (``SPAN_MIN_TOKENS = MIN_CLAIM_TOKENS``; -> that name)."""
    found: dict[str, str | None] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name, value = node.targets[0].id, node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            name, value = node.target.id, node.value
        else:
            continue
        alias = isinstance(value, ast.Name) and bool(_UPPER.match(value.id))
        if _UPPER.match(name) and (alias or _literal(value)):
            found[name] = value.id if alias else None  # type: ignore[attr-defined]
    return found


def scanned_modules() -> list[str]:
    """Every module of :data:`ev2r.metric.definition.SCANNED_PACKAGES` (but the declaration itself) and
    :data:`~ev2r.metric.definition.SCANNED_MODULES`."""
    out = []
    for pkg in D.SCANNED_PACKAGES:
        path = ROOT.joinpath(*pkg.split("."))
        out += [f"{pkg}.{m.name}" for m in pkgutil.iter_modules([str(path)]) if not m.ispkg]
    out = [m for m in out if m != D.__name__]
    return sorted(out) + list(D.SCANNED_MODULES)


def _source(module: str) -> str:
    return ROOT.joinpath(*module.split(".")).with_suffix(".py").read_text(encoding="utf-8")


def test_the_scan_finds_constants_and_leaves_out_caches():
    src = ("import re\nTHRESHOLD = 0.3\n_WORDS = frozenset('a b'.split())\nPAIRS = (('a', 1), ('b', -2))\n"
           "_CACHE = {}\nALIAS = THRESHOLD\nPATTERN = re.compile('x')\nlower = 2\nTEXT = 'a' + 'b'\n")
    assert module_constants(src) == {"THRESHOLD": None, "_WORDS": None, "PAIRS": None, "ALIAS": "THRESHOLD",
                                     "TEXT": None}
    assert len(scanned_modules()) >= 20 and "ev2r.metric.admission" in scanned_modules()
    assert "ev2r.metric.definition" not in scanned_modules()


def test_no_scoring_constant_is_undeclared():
    """FAILS when a scoring module gains a module-level constant that is neither declared (ev2r.metric.definition.STAGES:
    its value then enters the run's signature) nor exempt with a reason (NOT_SCORING)."""
    declared = {f"{m}:{n}" for _, m, n in D.declared()}
    covered = declared | set(D.NOT_SCORING)
    undeclared = []
    for m in scanned_modules():
        for name, alias in module_constants(_source(m)).items():
            # a second name of a constant of the same module is covered by the constant's declaration
            if f"{m}:{name}" not in covered and not (alias is not None and f"{m}:{alias}" in covered):
                undeclared.append(f"{m}:{name}")
    assert undeclared == [], (f"scoring constants outside the definition: {undeclared}; declare each in "
                              "ev2r.metric.definition.STAGES (then record the new digests: a new version), or exempt "
                              "it in NOT_SCORING with why it moves no score")
    assert not declared & set(D.NOT_SCORING), "a constant both declared and exempt"
    assert all(reason.strip() for reason in D.NOT_SCORING.values())
    dup = [k for k in declared if [f"{m}:{n}" for _, m, n in D.declared()].count(k) > 1]
    assert dup == [], f"declared twice: {dup}"
    # constants once found outside the fingerprint are declared
    for name in ("DUPLICATE_COSINE", "SYNONYM_SENSES"):
        assert f"ev2r.metric.admission:{name}" in declared
    for name in ("RESTATE_COVERAGE", "RESTATE_NOVELTY", "RESTATE_WRAP_NOVELTY"):
        assert f"ev2r.metric.restatement:{name}" in declared
    assert {"ev2r.metric.proxy:RELEVANCE_FULL", "ev2r.metric.prefilter:STEM_CHARS"} <= declared


# -- each declared constant moves the digest and the versioned name ---------------------------------------------------
def _changed(value):
    """Another value of the same kind (a number moved, a flag flipped, text or a collection extended)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + 0.01
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, (tuple, list)):
        return type(value)([*value, value[-1]]) if value else type(value)(["x"])
    if isinstance(value, frozenset):
        return value | {"zz-not-a-word"}
    if isinstance(value, set):
        return value | {"zz-not-a-word"}
    if isinstance(value, dict):
        return {**value, "zz-not-a-key": "x"}
    raise AssertionError(f"no changed value for {value!r}")


@pytest.fixture(scope="module")
def default_signature() -> str:
    """The default scorer's full signature (builds it; loads no weights)."""
    import nltk

    nltk_dir = ROOT.parent / "shared" / "data" / "nltk_data"
    if not (nltk_dir / "corpora" / "wordnet").is_dir():
        pytest.skip(f"NLTK data not found at {nltk_dir}")
    if str(nltk_dir) not in nltk.data.path:
        nltk.data.path.insert(0, str(nltk_dir))
    from ev2r.metric.factory import build_scorer

    return str(build_scorer().signature())


def _with_fields(signature: str, fields: dict) -> str:
    parts = [p if p.partition(":")[0] not in fields else f"{p.partition(':')[0]}:{fields[p.partition(':')[0]]}"
             for p in signature.split("|")]
    return "|".join(parts)


def test_the_default_records_its_constants(default_signature):
    fields = dict(p.split(":", 1) for p in default_signature.split("|"))
    assert (fields["const"], fields["hybrid-const"], fields["data"]) == ("859ad8bd54", "c9a59cf6b8", "ff12a33637")
    assert V.get("ev2r-hybrid/4").constants == {"const": "859ad8bd54", "hybrid-const": "c9a59cf6b8",
                                                "data": "ff12a33637"}
    assert V.get("ev2r/4").constants == {"const": "859ad8bd54", "data": "ff12a33637"}
    assert V.get("ev2r-hybrid/3").constants is None  # registered before the digests
    found = V.identify(default_signature)
    hybrid, plain = V.latest("ev2r-hybrid").label, V.latest("ev2r").label  # the default is the latest of each name
    assert (found["ev2r-hybrid"].label, found["ev2r"].label) == (hybrid, plain)
    short = V.short_signature(default_signature)
    assert short.startswith(f"{hybrid}|{plain}|verifier:ev2r-minilm-nli@c82b0fc475") and "const" not in short
    assert len(short) <= V.SHORT_SIGNATURE_MAX
    # the digests are outside the fingerprinted definition
    assert "const" not in V.definition("ev2r", default_signature)
    assert "hybrid-const" not in V.definition("ev2r-hybrid", default_signature)
    assert "data" not in V.definition("ev2r-hybrid", default_signature)


_LIVE = [(st, m, n) for st, m, n in D.declared() if f"{m}:{n}" not in D.FIXED_VALUES]


@pytest.mark.parametrize("stage,module,name", _LIVE, ids=[f"{m}:{n}" for _, m, n in _LIVE])
def test_each_declared_constant_renames_the_run(default_signature, monkeypatch, stage, module, name):
    """Changing any declared constant changes a digest of the run's signature, and the run is then no registered
    version (ev2r-hybrid/custom-..., naming the digest); ev2r/N moves with the stages it reads."""
    mod = importlib.import_module(module)
    before = D.signature_fields(hybrid=True)
    monkeypatch.setattr(mod, name, _changed(getattr(mod, name)))
    after = D.signature_fields(hybrid=True)
    field = "hybrid-const" if stage == "combination" else "const"
    assert after[field] != before[field] and re.fullmatch(r"[0-9a-f]{10}", after[field])
    assert {k: v for k, v in after.items() if k != field} == {k: v for k, v in before.items() if k != field}
    found = V.identify(_with_fields(default_signature, after))
    hybrid = found["ev2r-hybrid"]
    assert hybrid.version is None and hybrid.label.startswith("ev2r-hybrid/custom-")
    assert hybrid.label != f"ev2r-hybrid/custom-{V.latest('ev2r-hybrid').fingerprint}"  # not the registered one
    assert hybrid.differs == {field: (before[field], after[field])}
    # ev2r/N reads no combination constant
    assert found["ev2r"].label == (V.latest("ev2r").label if stage == "combination" else found["ev2r"].label)
    if stage != "combination":
        assert found["ev2r"].version is None and found["ev2r"].differs == {"const": (before["const"], after["const"])}


def test_a_fixed_value_is_hashed_as_the_constant_was(monkeypatch):
    """A constant that left the code keeps its place and value in the digest (FIXED_VALUES): the registered digest
    is reproduced, and another value would give another digest."""
    assert D.FIXED_VALUES == {"ev2r.metric.admission:RETIRED_RULES": ("word_salad",)}
    from ev2r.metric import admission

    assert not hasattr(admission, "RETIRED_RULES")
    assert D.values(("admission",))["ev2r.metric.admission:RETIRED_RULES"] == "('word_salad')"
    assert D.signature_fields(hybrid=False)["const"] == "859ad8bd54"
    monkeypatch.setitem(D.FIXED_VALUES, "ev2r.metric.admission:RETIRED_RULES", ())  # type: ignore[index]
    assert D.signature_fields(hybrid=False)["const"] != "859ad8bd54"


def test_a_changed_constant_reaches_the_scorer_and_the_version_pin(monkeypatch, nltk_data):
    """End to end: DUPLICATE_COSINE changed, build_scorer's run is a custom definition, describe names the digest,
    and --score-version of the latest ev2r-hybrid/N refuses it."""
    from ev2r.metric import admission
    from ev2r.metric.factory import build_scorer

    monkeypatch.setattr(admission, "DUPLICATE_COSINE", 0.9)
    sig = build_scorer().signature()
    found = V.identify(sig)
    assert found["ev2r-hybrid"].label.startswith("ev2r-hybrid/custom-") and found["ev2r"].label.startswith("ev2r/custom-")
    assert set(found["ev2r-hybrid"].differs) == {"const"}
    label = V.latest("ev2r-hybrid").label
    assert f"differs from {label} in const: 859ad8bd54 -> " in V.describe(sig)
    with pytest.raises(ValueError, match=rf"define ev2r-hybrid/custom-[0-9a-f]{{10}}, not {label} \(differs in "
                                         r"const: 859ad8bd54 -> "):
        V.check_computed(label, sig)


def test_a_signature_without_digests_is_identified_by_its_fingerprint(default_signature):
    """A run record written before the digests (1.2.0's earlier commits, benchmarks/results) keeps its name."""
    old = "|".join(p for p in default_signature.split("|") if not p.startswith(tuple(V.CONSTANTS_FIELDS)))
    assert "const:" not in old
    assert {k: v.label for k, v in V.identify(old).items()} == {n: V.latest(n).label for n in ("ev2r-hybrid", "ev2r")}


def test_constants_of_a_version_are_checked():
    four = V.get("ev2r/4")
    with pytest.raises(ValueError, match=r"ev2r/4: constants field 'hybrid-const' does not pin ev2r"):
        V.MetricVersion(name="ev2r", number=4, released="9", definition=dict(four.definition),
                        fingerprint=four.fingerprint, summary="", constants={"hybrid-const": "0123456789"})
    with pytest.raises(ValueError, match=r"constants\['const'\] must be 10 hex digits, got 'xyz'"):
        V.MetricVersion(name="ev2r", number=4, released="9", definition=dict(four.definition),
                        fingerprint=four.fingerprint, summary="", constants={"const": "xyz"})


# -- the signature's fragments written from the constants -------------------------------------------------------------
def test_signature_fragments_are_derived_from_the_constants(monkeypatch, nltk_data):
    from ev2r.metric import admission, restatement
    from ev2r.metric.contradiction import CONTRADICTION_MIN, REWRITE_MIN, ReferenceContradiction
    from ev2r.metric.reference import NLIReferenceScorer, premise_rule
    from ev2r.facts.rules import RuleBasedDecomposer

    assert premise_rule().startswith("pred-answer-2w+span4+rel0.1/20+short1")
    assert ReferenceContradiction(verifier=None).rule == f"contra{CONTRADICTION_MIN:g}/rw{REWRITE_MIN:g}" \
        == "contra0.5/rw0.7"
    monkeypatch.setattr(admission, "ANSWER_MIN_WORDS", 3)
    monkeypatch.setattr(restatement, "SPAN_MIN_TOKENS", 5)
    monkeypatch.setattr(admission, "PREMISE_RELEVANCE_MIN", 0.15)
    monkeypatch.setattr(admission, "RELEVANCE_CLAIM_CAP", 25)
    monkeypatch.setattr(admission, "SHORT_CLAIM_MIN_SHARED", 2)
    assert premise_rule().startswith("pred-answer-3w+span5+rel0.15/25+short2")
    monkeypatch.setattr(admission, "TWIN_MIN_SIMILARITY", 0.9)
    ref = NLIReferenceScorer(None, RuleBasedDecomposer(), calibration=None)
    assert "+twin~0.9/num+contr+art+" in ref.signature_fields()["prem"]


def test_the_derived_constants_are_the_ones_admission_reads(monkeypatch):
    """ANSWER_MIN_WORDS ("2w") and SHORT_CLAIM_MIN_SHARED ("short1") decide what admission keeps."""
    from ev2r.metric import admission
    from ev2r.metric.admitted import admit
    from ev2r.types import Evidence, QAPair

    claim = "The city council approved the new stadium budget in March."
    ev = Evidence((QAPair("When was the stadium budget approved?", "Council approved March"),))
    assert admit(ev, claim)[0].reason == "kept"
    monkeypatch.setattr(admission, "ANSWER_MIN_WORDS", 4)  # three words are now a bare answer
    assert admit(ev, claim)[0].reason == "bare_answer"
    monkeypatch.undo()
    short = "Fluoride is poison."  # under MIN_CLAIM_TOKENS content words: one shared word is enough
    one = Evidence((QAPair("What does the CDC say?", "Fluoride at 0.7 mg/L in water is safe for teeth."),))
    assert admit(one, short, relevant=True)[0].reason == "kept"
    monkeypatch.setattr(admission, "SHORT_CLAIM_MIN_SHARED", 2)
    assert admit(one, short, relevant=True)[0].reason == "off_topic"
