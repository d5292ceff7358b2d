"""The versioned score names (ev2r.versions): the registry, the short signature, and the guard that a change
of the default definition is a visible version bump."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.signatures import V1_SIG
from ev2r import versions as V

ROOT = Path(__file__).resolve().parents[2]

DEFAULT_SIG = V1_SIG  # an ev2r-hybrid/1 run (tests/support/signatures.py)


def _entry_to_paste(name: str, fields: dict, fp: str) -> str:
    n = V.latest(name).number + 1
    return (f"MetricVersion(name={name!r}, number={n}, released=<next release>, definition={fields!r}, "
            f"fingerprint={fp!r}, summary=..., typical=..., agreement=..., gaming=...)")


def test_default_definition_is_registered(nltk_data):
    """FAILS when the default scorer's definition (rules, verifier) changes without a new version in
    ev2r/versions.py: add the entry printed below and a CHANGELOG.md line (docs/versions.md, 'Adding a version'). A
    change of the weights or alpha of ev2r.config stops the import of ev2r.versions instead, naming what to do."""
    from ev2r.metric.factory import build_scorer

    sig = build_scorer().signature()  # builds, loads no weights (the verifier's name hashes its files)
    for name in V.SCORE_COLUMNS:
        fields = V.definition(name, sig)
        fp = V.fingerprint(fields)
        current = V.latest(name)
        if fp != current.fingerprint:
            changed = {k: (current.definition.get(k), fields.get(k))
                       for k in dict.fromkeys([*current.definition, *fields])
                       if current.definition.get(k) != fields.get(k)}
            pytest.fail(f"the default definition of {name} is no longer {current.label} (changed fields, "
                        f"registered -> now: {changed}); a changed definition needs a new version: append to "
                        f"ev2r.versions.VERSIONS\n    {_entry_to_paste(name, fields, fp)}\nand add a CHANGELOG.md "
                        "line (docs/versions.md renders the registry when the site is built)")
        # the declared scoring constants (ev2r.metric.definition): their digests are those the version records
        run = {k: v for k, v in sig.fields.items() if k in (current.constants or {})}
        assert run == dict(current.constants or {}), (
            f"a declared scoring constant of {current.label} changed (digests registered -> now: "
            f"{dict(current.constants or {})} -> {run}): a changed constant is a new version (ev2r.metric.definition)")
        assert V.identify(sig)[name].version is current


#: the versions registered so far, in order (a later release appends; none of these ever changes)
HISTORY = ["ev2r-hybrid/1", "ev2r/1", "ev2r-hybrid/2", "ev2r/2", "ev2r-hybrid/3", "ev2r/3", "ev2r-hybrid/4", "ev2r/4"]


def test_registered_versions():
    assert [v.label for v in V.VERSIONS][:len(HISTORY)] == HISTORY
    assert (V.get("ev2r-hybrid/4").fingerprint, V.get("ev2r/4").fingerprint) == ("200391ea4d", "71af38c832")
    four, ev2r_four = V.get("ev2r-hybrid/4"), V.get("ev2r/4")
    assert {k: v for k, v in four.definition.items() if k not in V.HYBRID_FIELDS} == dict(ev2r_four.definition)
    assert "respell-syn" in ev2r_four.definition["prem"] and "verified_meteor:0.85,mutual_meteor:0" in four.definition["hybrid"]
    three, ev2r_three = V.get("ev2r-hybrid/3"), V.get("ev2r/3")
    assert {k: v for k, v in three.definition.items() if k not in V.HYBRID_FIELDS} == dict(ev2r_three.definition)
    assert three.definition["hybrid-meteor"] == "fuzzy-v1" and "respell" in ev2r_three.definition["prem"]
    two, ev2r_two = V.get("ev2r-hybrid/2"), V.get("ev2r/2")
    assert {k: v for k, v in two.definition.items() if k not in V.HYBRID_FIELDS} == dict(ev2r_two.definition)
    assert two.definition["adm"] == "admission-v1"  # the admission stage's learned reading is part of /2
    hybrid, ev2r = V.get("ev2r-hybrid/1"), V.get("ev2r/1")
    assert (hybrid.column, ev2r.column) == ("ev2r_hybrid", "ev2r")
    assert hybrid.fingerprint == "ecce126014" and ev2r.fingerprint == "7e879961ad"
    # ev2r/1 pins everything of ev2r-hybrid/1 but the combination
    assert {k: v for k, v in hybrid.definition.items() if k not in V.HYBRID_FIELDS} == dict(ev2r.definition)
    assert hybrid.definition["verifier"] == "ev2r-minilm-nli@c82b0fc475"
    assert hybrid.range_text() == "[0, 1]"
    with pytest.raises(ValueError, match="'ev2r-hybrid/99' is not a registered score version; registered: "
                                         + ", ".join(v.label for v in V.VERSIONS) + "$"):
        V.get("ev2r-hybrid/99")


def test_the_latest_versions_read_the_configuration(monkeypatch):
    """The weights and alpha are written once, in ev2r.config; a change there is refused until it is a new version."""
    import importlib.util
    import re
    import sys

    from ev2r import config
    from ev2r.metric.combined import weights_field

    hybrid = V.latest("ev2r-hybrid")
    assert hybrid.definition["hybrid"] == weights_field(config.HYBRID_WEIGHTS) == V.configured("ev2r-hybrid")["hybrid"]
    assert V.latest("ev2r").definition["alpha"] == hybrid.definition["alpha"] == V.configured("ev2r")["alpha"] == "0.5"
    assert V.get("ev2r-hybrid/1").definition["hybrid"].startswith("w=recall:0,proxy:0.2,")  # history stays literal
    with pytest.raises(ValueError, match="configured: name 'bleu' is not one of"):
        V.configured("bleu")
    # new weights in ev2r.config: loading the registry fails, naming the new fingerprint and the version to add
    new = list(config.HYBRID_WEIGHTS)  # 0.05 moved from the largest weight to the next component
    top = new.index(max(new))
    new[top], new[(top + 1) % len(new)] = round(new[top] - 0.05, 10), round(new[(top + 1) % len(new)] + 0.05, 10)
    new = tuple(new)
    monkeypatch.setattr(config, "HYBRID_WEIGHTS", new)
    spec = importlib.util.spec_from_file_location("ev2r_versions_probe", V.__file__)
    probe = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "ev2r_versions_probe", probe)
    got = V.fingerprint({**hybrid.definition, "hybrid": weights_field(new)})
    with pytest.raises(ValueError, match=re.escape(
            f"{hybrid.label}: fingerprint {hybrid.fingerprint!r} is not its definition's ({got!r}); a registered "
            "definition is never edited -- add a new version (it reads ['alpha', 'hybrid'] from ev2r.config, which "
            f"now gives {{'alpha': '0.5', 'hybrid': {weights_field(new)!r}}}: write the values {hybrid.label} was "
            f"registered with literally in its entry") + ".*" + re.escape(
            f"fingerprint {got!r}, as ev2r-hybrid/{hybrid.number + 1}; docs/versions.md, 'Adding a version')")):
        spec.loader.exec_module(probe)


def test_a_registered_definition_cannot_be_edited():
    with pytest.raises(ValueError, match="ev2r/2: fingerprint 'x' is not its definition's .* add a new version"):
        V.MetricVersion(name="ev2r", number=2, released="9", definition={"alpha": "0.6"}, fingerprint="x",
                        summary="")
    with pytest.raises(ValueError, match="name 'bleu' is not one of"):
        V.MetricVersion(name="bleu", number=1, released="9", definition={}, fingerprint=V.fingerprint({}),
                        summary="")
    with pytest.raises(ValueError, match="number must be an integer >= 1, got 0"):
        V.MetricVersion(name="ev2r", number=0, released="9", definition={}, fingerprint=V.fingerprint({}),
                        summary="")


def test_adding_a_version_is_one_entry(monkeypatch):
    """ev2r-hybrid/5 after a rule change: one entry; /1 keeps its meaning, the new default is /5."""
    new_sig = DEFAULT_SIG.replace("+anchor+contra", "+anchor+admit2+contra")
    fields = V.definition("ev2r-hybrid", new_sig)
    n = V.latest("ev2r-hybrid").number + 1
    two = V.MetricVersion(name="ev2r-hybrid", number=n, released="1.3.0", definition=fields,
                          fingerprint=V.fingerprint(fields), summary="s")
    monkeypatch.setattr(V, "VERSIONS", V.VERSIONS + (two,))
    V._check_registry(V.VERSIONS)
    assert V.latest("ev2r-hybrid") is two
    assert V.identify(new_sig)["ev2r-hybrid"].label == f"ev2r-hybrid/{n}"
    assert V.identify(DEFAULT_SIG)["ev2r-hybrid"].label == "ev2r-hybrid/1"
    assert V.identify(new_sig)["ev2r"].label.startswith("ev2r/custom-")  # no ev2r/N registered in this test
    numbers = ", ".join(str(k) for k in [*range(1, n + 1), n])
    with pytest.raises(ValueError, match=rf"ev2r-hybrid is numbered \[{numbers}\]"):
        V._check_registry(V.VERSIONS + (two,))


def test_definition_leaves_out_runtime_fields():
    d = V.definition("ev2r-hybrid", DEFAULT_SIG)
    for k in ("ev2r", "transformers", "torch", "cal"):
        assert k not in d
    assert d["verifier"] == "ev2r-minilm-nli@c82b0fc475"  # +bf16 is the hardware's choice
    # another machine (fp32, other library versions, the Ray engine) runs the same version
    other = (DEFAULT_SIG.replace("+bf16", "").replace("transformers:5.25.0", "transformers:4.50.0")
             + "|engine:ray")
    assert V.identify(other)["ev2r-hybrid"].label == "ev2r-hybrid/1"
    assert V.definition("ev2r", DEFAULT_SIG) == {k: v for k, v in d.items() if k not in ("hybrid", "hybrid-emb")}
    with pytest.raises(ValueError, match="name 'bleu' is not one of"):
        V.definition("bleu", DEFAULT_SIG)


def test_short_signature_default_and_with_baselines():
    short = V.short_signature(DEFAULT_SIG)
    assert short == ("ev2r-hybrid/1|ev2r/1|verifier:ev2r-minilm-nli@c82b0fc475+bf16|ev2r:1.0.0|"
                     "transformers:5.25.0|torch:2.13.0+cpu")
    assert len(DEFAULT_SIG) == 599 and len(short) == 109
    with_meteor = DEFAULT_SIG.replace("|hybrid:", "|extra-hu_meteor:hu-meteor-qa|extra-hu_meteor_q:hu-meteor-q|hybrid:")
    short = V.short_signature(with_meteor + "|engine:ray")
    assert short.endswith("|extra-hu_meteor:hu-meteor-qa|extra-hu_meteor_q:hu-meteor-q|ev2r:1.0.0|"
                          "transformers:5.25.0|torch:2.13.0+cpu|engine:ray")
    assert len(short) <= V.SHORT_SIGNATURE_MAX


def test_short_signature_of_other_runs():
    no_hybrid = DEFAULT_SIG.split("|hybrid:")[0] + "|transformers:5.25.0|torch:2.13.0+cpu"
    assert V.short_signature(no_hybrid).startswith("ev2r/1|verifier:")
    meteor_only = "ev2r:1.0.0|ref:none|verifier:none|proxy:none|extra-hu_meteor:hu-meteor-qa|torch:2.13.0"
    assert V.short_signature(meteor_only) == "extra-hu_meteor:hu-meteor-qa|ev2r:1.0.0|torch:2.13.0"
    assert V.describe(meteor_only) == ""
    proxy_ver = DEFAULT_SIG.replace("|agg:", "|proxy-verifier:ev2r-minilm-nli-averitec@deb2d43696+bf16|agg:")
    short = V.short_signature(proxy_ver)
    assert "|proxy-verifier:ev2r-minilm-nli-averitec@deb2d43696+bf16|" in short
    assert short.startswith("ev2r-hybrid/custom-") and len(short) <= V.SHORT_SIGNATURE_MAX


def _sig_of(version) -> str:
    """A full signature whose definition is ``version``'s (runtime fields added)."""
    return "ev2r:1.0.0|" + "|".join(f"{k}:{v}" for k, v in version.definition.items()) + \
        "|transformers:5.25.0|torch:2.13.0+cpu"


def test_describe_registered_and_custom():
    line = V.describe(DEFAULT_SIG)
    assert line.startswith("ev2r-hybrid/1 in [0, 1]; real systems' evidence 0.104 (86 rows) and 0.134 (144 rows); "
                           "the gold evidence 0.871 and 0.863")
    custom = V.describe(DEFAULT_SIG.replace("alpha:0.5", "alpha:0.7"))
    assert custom.startswith("ev2r-hybrid/custom-")
    assert f"not a registered version (differs from {V.latest('ev2r-hybrid').label} in " in custom  # the latest
    assert "alpha: 0.5 -> 0.7" in V.describe(_sig_of(V.get("ev2r-hybrid/4")).replace("alpha:0.5", "alpha:0.7"))
    assert V.summary_fields(DEFAULT_SIG) == {"versions": {"ev2r_hybrid": "ev2r-hybrid/1", "ev2r": "ev2r/1"},
                                             "short_signature": V.short_signature(DEFAULT_SIG)}
    with pytest.raises(ValueError, match="not key:value"):
        V.describe("garbage")


def _versions_page() -> str:
    """docs/versions.md as the site shows it: its directives written from the registry (scripts/docs_hooks.py)."""
    from support.modules import load_file_module

    hooks = load_file_module("docs_hooks", ROOT / "scripts" / "docs_hooks.py")
    return hooks.render((ROOT / "docs" / "versions.md").read_text(encoding="utf-8"), "versions.md")


def test_docs_and_changelog_carry_every_version():
    source = (ROOT / "docs" / "versions.md").read_text(encoding="utf-8")
    assert "{{ versions_table }}" in source and "{{ computed_table }}" in source  # rendered when the site is built
    assert V.versions_table() in _versions_page() + "\n"
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    for v in V.VERSIONS:
        assert f"`{v.label}`" in changelog, f"CHANGELOG.md does not name {v.label}"


def test_evaluate_card_says_what_the_docs_say():
    pytest.importorskip("evaluate")
    from ev2r.integrations.hf_evaluate import ev2r_metric

    docs = _versions_page()
    for v in V.VERSIONS:
        line = f"  * {v.label} ({v.column}) in {v.range_text()}: {v.typical}"
        assert line in ev2r_metric._DESCRIPTION
        assert f"| `{v.label}` | {v.released} | {v.summary} | {v.range_text()} | {v.typical} |" in docs
    assert "short_signature" in ev2r_metric._KWARGS_DESCRIPTION and "ev2r-hybrid/1" in ev2r_metric._KWARGS_DESCRIPTION


def test_every_registered_version_has_a_recorded_sample_value_and_a_place_that_computes_it():
    """scripts/check_old_versions.py (CI) recomputes each of these; docs/versions.md shows the same numbers."""
    from ev2r.versions import COMPUTED_BY, RECORDED_SAMPLE, VERSIONS, latest

    assert set(RECORDED_SAMPLE) == {v.label for v in VERSIONS}
    for v in VERSIONS:
        assert (v is latest(v.name)) != (v.label in COMPUTED_BY), v.label
        assert 0.0 < RECORDED_SAMPLE[v.label] < 1.0
    table = _versions_page()
    for n in (1, 2, 3):
        row = next(line for line in table.splitlines() if line.startswith(f"| `ev2r-hybrid/{n}`, `ev2r/{n}` |"))
        assert row.rstrip(" |").endswith(f"{RECORDED_SAMPLE[f'ev2r-hybrid/{n}']:.4f} / {RECORDED_SAMPLE[f'ev2r/{n}']:.4f}")
        assert f"| `{COMPUTED_BY[f'ev2r/{n}'][0]}` | {COMPUTED_BY[f'ev2r/{n}'][1]} | `git checkout " in row
    assert "| `ev2r-hybrid/1`, `ev2r/1` | `a96bd6a` | 1.0.0 | `git checkout a96bd6a && bash scripts/setup.sh && " in table
    for v in VERSIONS:  # the latest of each name: computed by this release
        if v is latest(v.name):
            row = next(line for line in table.splitlines() if f"`{v.label}`" in line and "ev2r score FILE" in line)
            assert f"| this release | {v.released} on | `ev2r score FILE --score-version " in row
            assert f"{RECORDED_SAMPLE[v.label]:.4f}" in row.split(" | ")[-1]
