"""`ev2r score` names the score version it printed and its range, and prints the short signature;
`-h` fits a screen and `--help-all` lists every option."""

import argparse
import json
import re

import pytest

from support.signatures import V1_SIG
from ev2r.cli import score as score_cli
from ev2r.cli.helpfmt import SCREEN_LINES, first_clause, two_level_help
from ev2r.cli.main import build_parser, main
from ev2r.types import CorpusScore

SAMPLE = "examples/averitec_sample.jsonl"
DEFAULT_SIG = V1_SIG  # an ev2r-hybrid/1 run (tests/support/signatures.py)


def _summary(sig=DEFAULT_SIG):
    return CorpusScore(n=2, n_failed=0, precision=0.2, recall=0.3, f1=0.25, proxy=0.4, ev2r=0.325, signature=sig,
                       extra={"ev2r_hybrid": 0.1234})


def test_text_summary_names_the_version_and_prints_the_short_signature(capsys):
    args = argparse.Namespace(json=False, output="out.jsonl")
    assert score_cli._report_score(args, _summary(), [], ["ev2r"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("headline: ev2r_hybrid = 0.1234 (the score to report")
    assert out[2] == ("version: ev2r-hybrid/1 in [0, 1]; real systems' evidence 0.104 (86 rows) and 0.134 (144 "
                      "rows); the gold evidence 0.871 and 0.863 (docs/versions.md)")
    sig_line = next(line for line in out if line.strip().startswith("signature:"))
    short = sig_line.split("signature: ", 1)[1]
    assert short == ("ev2r-hybrid/1|ev2r/1|verifier:ev2r-minilm-nli@c82b0fc475+bf16|ev2r:1.0.0|transformers:5.25.0|"
                     "torch:2.13.0+cpu")
    assert len(short) <= 200 and "prem-rule" not in "\n".join(out)
    assert out[-1].strip() == "(full signature: --json, or out.jsonl.ev2r-run.json)"


def test_json_summary_keeps_the_full_signature(capsys):
    args = argparse.Namespace(json=True, output=None)
    score_cli._report_score(args, _summary(), [], ["ev2r"])
    d = json.loads(capsys.readouterr().out)
    assert d["signature"] == DEFAULT_SIG
    assert d["versions"] == {"ev2r_hybrid": "ev2r-hybrid/1", "ev2r": "ev2r/1"}
    assert d["short_signature"].startswith("ev2r-hybrid/1|ev2r/1|verifier:")


def test_a_custom_definition_is_not_printed_as_a_version(capsys):
    args = argparse.Namespace(json=False, output=None)
    score_cli._report_score(args, _summary(DEFAULT_SIG.replace("alpha:0.5", "alpha:0.7")), [], ["ev2r"])
    out = capsys.readouterr().out
    assert "version: ev2r-hybrid/custom-" in out
    from ev2r.versions import latest

    assert f"not a registered version (differs from {latest('ev2r-hybrid').label} in " in out  # the latest version
    assert "signature: ev2r-hybrid/custom-" in out and "|ev2r/custom-" in out


def test_score_run_end_to_end_json_has_versions(capsys, tiny_nli_model):
    code = main(["score", SAMPLE, "--json", "--model", str(tiny_nli_model), "--limit", "2", "--no-progress"])
    d = json.loads(capsys.readouterr().out)
    assert code == 0 and "verifier:tiny@" in d["signature"]
    # another verifier is another definition: a custom one, never ev2r-hybrid/1
    assert d["versions"]["ev2r_hybrid"].startswith("ev2r-hybrid/custom-")
    assert d["short_signature"].startswith(d["versions"]["ev2r_hybrid"] + "|" + d["versions"]["ev2r"] + "|verifier:tiny@")


def _help(argv, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 0
    return capsys.readouterr().out


def test_score_help_fits_a_screen_and_help_all_has_every_option(capsys, monkeypatch):
    short = _help(["score", "-h"], capsys, monkeypatch)
    lines = short.splitlines()
    assert len(lines) <= SCREEN_LINES
    assert lines[0] == "usage: ev2r score INPUT [-o OUT.jsonl] [--json] [options]"
    for group in ("inputs and outputs:", "the scores:", "models:", "run control:"):
        assert group in lines
    for opt in ("--output", "--json", "--references", "--scorer", "--no-hybrid", "--model", "--engine", "--help-all"):
        assert opt in short
    assert "  --llm-base-url" not in short and "  --alpha" not in short  # (named in the last line only)
    assert "ev2r score --help-all" in " ".join(lines[-2:])
    full = _help(["score", "--help-all"], capsys, monkeypatch)
    p = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices["score"]
    for a in p._actions:
        for s in a.option_strings:
            assert s in full, s
    assert "LLM facts (--decomposer llm or replay):" in full
    assert "advanced:" not in full  # its options (ablations) left in 2.0
    assert len(full.splitlines()) > SCREEN_LINES


def test_every_command_help_fits_a_screen_or_names_help_all(capsys, monkeypatch):
    from ev2r.cli.main import COMMANDS

    from ev2r.cli.helpfmt import COMMON_BY_COMMAND, _key

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    from ev2r.cli.train import add_arguments as train_arguments

    sub["train-verifier"] = argparse.ArgumentParser(prog="ev2r train-verifier")
    train_arguments(sub["train-verifier"])
    for cmd, names in COMMON_BY_COMMAND.items():  # a renamed option is named here (the CLI skips it)
        known = {_key(a) for a in sub[cmd]._actions}
        assert [n for n in names if n not in known] == [], cmd
    for cmd in [*COMMANDS, "train-verifier"]:
        text = _help([cmd, "-h"], capsys, monkeypatch)
        n = len(text.splitlines())
        assert n <= SCREEN_LINES or f"ev2r {cmd} --help-all" in text, (cmd, n)


def test_two_level_help_checks_names():
    p = argparse.ArgumentParser(prog="x")
    p.add_argument("--a")
    with pytest.raises(ValueError, match="'--b' is not an option of 'x'"):
        two_level_help(p, ["--b"])
    two_level_help(p, ["--a"])  # fits a screen: left as it is
    assert "--help-all" not in p.format_help()
    assert first_clause("NLI verifier: 'bundled' (default)") == "NLI verifier"
    assert first_clause("x" * 100 + " tail", limit=10).endswith("...")


# -- a run pinned to a registered version ------------------------------------------------------------------------------
def _sig_of(label, extra=""):
    """A full signature whose definition is the registered version ``label``'s (runtime fields around it)."""
    from ev2r import versions as V

    fields = dict(V.get(label).definition)
    fields["verifier"] += "+bf16"  # a compute precision is not part of the definition
    return "ev2r:1.2.0|" + "|".join(f"{k}:{v}" for k, v in fields.items()) + extra + "|transformers:5.25.0|torch:2.13.0"


def test_every_registered_version_is_computed_here_or_names_the_commit_that_computes_it():
    from ev2r import versions as V

    for v in V.VERSIONS:
        if v is V.latest(v.name):
            assert V.require_computable(v.label) is v
        else:
            commit, release = V.COMPUTED_BY[v.label]
            with pytest.raises(ValueError, match=f"git checkout {commit} && bash scripts/setup.sh") as e:
                V.require_computable(v.label)
            assert f"release {release}" in str(e.value) and V.latest(v.name).label in str(e.value)


def test_score_version_refused_before_any_work(capsys):
    # an old version: exit 2 with the commit that computes it, before the input is even read
    assert main(["score", "no-such-input.jsonl", "--score-version", "ev2r-hybrid/2", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "ev2r-hybrid/2 is not computed by this release" in err and "git checkout 11502de" in err
    # an unknown name: the registered ones listed
    assert main(["score", "no-such-input.jsonl", "--score-version", "ev2r-hybrid/9", "--no-progress"]) == 2
    assert "registered: ev2r-hybrid/1, ev2r/1" in capsys.readouterr().err


def test_score_version_checked_against_what_the_run_defined(capsys):
    from ev2r import versions as V

    latest = V.latest("ev2r-hybrid").label
    sig = _sig_of(latest)
    args = argparse.Namespace(json=True, output=None, score_version=latest)
    assert score_cli._report_score(args, _summary(sig), [], ["ev2r"]) == 0
    assert json.loads(capsys.readouterr().out)["versions"]["ev2r_hybrid"] == latest
    V.check_computed(V.latest("ev2r").label, sig)  # the same run computed ev2r/N too
    # an option that changes the definition (alpha 0.7): refused, naming the field
    args = argparse.Namespace(json=True, output=None, score_version=latest)
    with pytest.raises(ValueError, match=r"define ev2r-hybrid/custom-[0-9a-f]{10}, not .*alpha: 0.5 -> 0.7"):
        score_cli._report_score(args, _summary(sig.replace("alpha:0.5", "alpha:0.7")), [], ["ev2r"])
    # a run without the combination did not compute ev2r-hybrid
    no_hybrid = "|".join(p for p in sig.split("|") if not p.startswith(V.HYBRID_FIELDS))
    with pytest.raises(ValueError, match="did not compute ev2r_hybrid"):
        V.check_computed(latest, no_hybrid)


def _admission_copy(tmp_path, threshold=None, shift=0.0):
    """A copy of the bundled admission folder, its model.json's name unchanged (``admission-v1``), with another
    ``threshold`` and/or its weights shifted by ``shift``."""
    import shutil

    import numpy as np

    from ev2r.metric.admission_model import MODEL_DIR

    folder = tmp_path / f"adm-{threshold}-{shift}"
    shutil.copytree(MODEL_DIR, folder)
    meta = json.loads((folder / "model.json").read_text())
    if threshold is not None:
        meta["threshold"] = threshold
    (folder / "model.json").write_text(json.dumps(meta))
    if shift:
        w = dict(np.load(folder / "weights.npz"))
        w["coef"] = w["coef"] + shift
        np.savez(folder / "weights.npz", **w)
    return folder


def test_the_admission_model_is_in_the_signature_by_content_not_by_its_name(tmp_path):
    from ev2r.metric.admission_model import AdmissionModel
    from ev2r.metric.definition import data_digest
    from ev2r import versions as V

    bundled = AdmissionModel.load()
    assert V.get("ev2r/4").constants["data"] == "ff12a33637"  # with the verifiers' part: test_definition.py
    assert AdmissionModel.load(_admission_copy(tmp_path)).digest() == bundled.digest()  # the same model elsewhere
    changed = [AdmissionModel.load(_admission_copy(tmp_path, threshold=0.99)),
               AdmissionModel.load(_admission_copy(tmp_path, shift=1e-12))]
    assert all(m.name == "admission-v1" for m in changed)  # the name its folder gives is unchanged ...
    digests = {data_digest(m) for m in changed} | {data_digest(bundled), data_digest(None)}
    assert len(digests) == 4  # ... its content is not
    # a run with it is a custom definition, named with the field that differs
    sig = _sig_of(V.latest("ev2r-hybrid").label, f"|data:{data_digest(changed[0])}")
    found = V.identify(sig)["ev2r-hybrid"]
    assert found.version is None and set(found.differs) == {"data"}
    assert V.identify(_sig_of(V.latest("ev2r-hybrid").label, "|data:ff12a33637"))["ev2r-hybrid"].version is V.latest(
        "ev2r-hybrid")


def test_score_version_broken_by_the_options_is_refused_before_any_work(capsys, tmp_path, nltk_data):
    # hostile review: these were refused only after every item had been scored (and -o written)
    from ev2r import versions as V

    hybrid, plain = V.latest("ev2r-hybrid").label, V.latest("ev2r").label
    cases = [(["--scorer", "hu-meteor"], plain, "did not compute ev2r"),
             (["--no-hybrid"], hybrid, "did not compute ev2r_hybrid"),
             (["--alpha", "0.7"], plain, "alpha: 0.5 -> 0.7"),
             # the signature once kept 6 significant digits, so this passed the pin
             (["--alpha", "0.50000004"], plain, "alpha: 0.5 -> 0.50000004")]
    for k, (opts, label, says) in enumerate(cases):
        out = tmp_path / f"o{k}.jsonl"
        code = main(["score", SAMPLE, "--limit", "1", "--no-progress", "-o", str(out), "--score-version", label, *opts])
        err = capsys.readouterr().err
        assert code == 2 and re.search(says, err), (opts, err)
        assert "loading verifier" not in err and not out.exists()  # nothing scored, nothing written
    # a copy of the bundled admission folder with another threshold once kept the name admission-v1 (the
    # admission model is the Python API's research hook since 2.0)
    from ev2r.metric.factory import build_scorer

    with pytest.raises(ValueError, match="data: ff12a33637 -> [0-9a-f]{10} \\(the admission model's weights and settings"):
        V.check_computed(hybrid, build_scorer(admission=str(_admission_copy(tmp_path, threshold=0.99))).signature())
    # an unregistered name says which option it came from
    assert main(["score", SAMPLE, "--score-version", "EV2R-HYBRID/4", "--no-progress"]) == 2
    assert "--score-version: 'EV2R-HYBRID/4' is not a registered score version" in capsys.readouterr().err


def test_a_verifier_copy_with_another_configuration_or_class_is_not_the_registered_one(tmp_path):
    # hostile round 2 (B2, B7): the verifier's name hashes its weights only; a copy of the bundled folder with its
    # labels swapped (or a wrapper object giving the bundled name) kept the name, and the version
    import shutil

    from ev2r.metric.definition import data_digest
    from ev2r.verifier.loading import BUNDLED_DIR
    from ev2r.verifier.nli import CONFIG_FILES, HFNLIVerifier, config_fingerprint

    copy = tmp_path / "ev2r-minilm-nli"
    copy.mkdir()
    for name in CONFIG_FILES:
        if (BUNDLED_DIR / name).is_file():
            shutil.copy(BUNDLED_DIR / name, copy / name)
    assert config_fingerprint(str(copy)) == config_fingerprint(str(BUNDLED_DIR.resolve()))
    config = json.loads((copy / "config.json").read_text())
    config["id2label"] = {k: config["id2label"][str(2 - int(k))] for k in config["id2label"]}
    (copy / "config.json").write_text(json.dumps(config))
    bundled, swapped = HFNLIVerifier(str(BUNDLED_DIR)), HFNLIVerifier(str(copy))
    assert swapped.config_digest() != bundled.config_digest()
    assert data_digest(None, [swapped]) != data_digest(None, [bundled])

    class Wrapper:
        name = bundled.name

        def predict(self, premises, hypotheses):  # pragma: no cover - never called
            raise AssertionError

    assert data_digest(None, [Wrapper()]) != data_digest(None, [bundled])


def test_another_wordnet_is_another_data_digest(tmp_path, monkeypatch, nltk_data):
    # hostile round 2 (B4): an emptied WordNet index moved hybrid_meteor (0.4365 -> 0.4066) under the /4 name
    import shutil

    import nltk

    from ev2r.metric.definition import nltk_digest

    before = nltk_digest()
    copy = tmp_path / "nltk_data"
    shutil.copytree(nltk.data.find("corpora/wordnet"), copy / "corpora" / "wordnet")
    shutil.copytree(nltk.data.find("tokenizers/punkt_tab"), copy / "tokenizers" / "punkt_tab")
    monkeypatch.setattr(nltk.data, "path", [str(copy), *nltk.data.path])
    assert nltk_digest() == before  # the same files elsewhere
    index = copy / "corpora" / "wordnet" / "index.noun"
    index.write_text("".join(line for line in index.read_text().splitlines(keepends=True) if line.startswith("  ")))
    shutil.copytree(copy, tmp_path / "edited")  # another root: the digest is computed again
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path / "edited"), *nltk.data.path])
    assert nltk_digest() != before
