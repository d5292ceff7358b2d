"""ev2r.config and ev2r.signature: defaults defined once, validated configuration, signature objects."""

from __future__ import annotations

import argparse
import dataclasses
import pickle

import pytest

from ev2r.config import DECOMPOSERS, DEFAULTS, DTYPES, REPLY_READINGS, ScorerConfig
from ev2r.metric.factory import build_scorer
from ev2r.signature import Signature


def test_defaults_are_the_papers_and_the_bundled_setup():
    # Akhtar et al. 2024, sec. 3.3 (alpha) and 3.1 (support at P(entailment) >= 0.5)
    assert (DEFAULTS.alpha, DEFAULTS.threshold) == (0.5, 0.5)
    assert (DEFAULTS.verifier, DEFAULTS.decomposer, DEFAULTS.dtype) == ("bundled", "rules", "auto")
    sig = build_scorer(verifier=_Fake()).signature()
    assert (sig["support"], sig["proxy"], sig["unans"], sig["hybrid-meteor"]) == ("p>=0.5", "nli-gold", "drop", "fuzzy-v1")


class _Fake:
    name = "fake"

    def predict(self, premises, hypotheses):
        raise AssertionError("not called")


#: The fields and CLI options that left in 2.0 (commit e43eb97 computes them).
REMOVED_FIELDS = ("support", "proxy_target", "unanswerable", "meteor_match", "contradiction", "proxy_credit",
                  "premise_top_k", "copy_reading", "restatement")
REMOVED_OPTIONS = ("--support", "--proxy-target", "--unanswerable", "--meteor-match", "--no-contradiction",
                   "--premise-top-k", "--copy-reading", "--restatement", "--hybrid-columns", "--admission",
                   "--threshold", "--with-facts", "--llm-price-in", "--llm-price-out", "--replay-model",
                   "--ray-address")


@pytest.mark.parametrize("name", REMOVED_FIELDS)
def test_removed_fields_are_no_options_and_build_scorer_names_them(name):
    assert name not in ScorerConfig.field_names()
    with pytest.raises(ValueError, match=f"{name}: not a scorer option; allowed: verifier, "):
        build_scorer(verifier=_Fake(), **{name: None})


@pytest.mark.parametrize("flag", REMOVED_OPTIONS)
def test_removed_options_are_refused_by_ev2r_score(flag, capsys):
    from ev2r.cli import score

    p = argparse.ArgumentParser(prog="ev2r score")
    score.add_arguments(p)
    with pytest.raises(SystemExit):
        p.parse_args(["in.jsonl", flag, "x"] if flag != "--no-contradiction" else ["in.jsonl", flag])
    assert f"unrecognized arguments: {flag}" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["score", "explain", "robustness"])
def test_a_removed_option_is_refused_naming_what_replaces_it(command, capsys):
    from ev2r.cli.main import REMOVED_OPTIONS as MESSAGES, main

    assert set(MESSAGES) == set(REMOVED_OPTIONS)
    assert main([command, "in.jsonl", "--llm-price-in=0.5"]) == 2
    assert "ev2r: error: --llm-price-in: left in 2.0: use --llm-price IN,OUT" in capsys.readouterr().err
    assert main([command, "in.jsonl", "--hybrid-columns", "all"]) == 2
    assert "build_scorer(hybrid_columns='all')" in capsys.readouterr().err


def test_score_has_at_most_32_options():
    from ev2r.cli import score

    p = argparse.ArgumentParser()
    score.add_arguments(p)
    flags = [a for a in p._actions if a.option_strings and not set(a.option_strings) & {"-h", "--help-all"}]
    assert len(flags) == 32  # 47 in 1.9.0


def test_config_is_frozen_and_replace_validates():
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULTS.alpha = 0.3  # type: ignore[misc]
    assert DEFAULTS.replace(alpha=1).alpha == 1.0 and isinstance(DEFAULTS.replace(alpha=1).alpha, float)
    with pytest.raises(ValueError, match=r"decomposer: 'bm25' is not one of \('rules', 'rules-v1'"):
        DEFAULTS.replace(decomposer="bm25")


@pytest.mark.parametrize("changes, message", [
    ({"alpha": "0.5"}, r"alpha: expected a number in \[0, 1\], got '0.5'"),
    ({"alpha": True}, r"alpha: expected a number"),
    ({"threshold": None}, r"threshold: expected a number"),
    ({"baselines": 3}, r"baselines: expected a list of names from \('hu-meteor',\)"),
    ({"baselines": ["bleu"]}, r"scorer: 'bleu' is not one of \('hu-meteor',\)"),
    ({"replay": "x.jsonl"}, r"replay: a recorded-outputs file was given but decomposer is 'rules'"),
    ({"verifier": 3}, r"verifier: expected 'bundled', a checkpoint path / hub id, or an object with predict"),
    ({"ev2r": False}, r"baselines: with ev2r=False at least one of \('hu-meteor',\) is needed"),
])
def test_bad_values_name_the_field_and_the_allowed_values(changes, message):
    with pytest.raises(ValueError, match=message):
        ScorerConfig(**changes)


def test_baselines_normalised_to_a_tuple():
    assert ScorerConfig(baselines="hu-meteor").baselines == ("hu-meteor",)
    assert ScorerConfig(baselines=None).baselines == ()
    assert ScorerConfig(baselines=["hu-meteor"]) == ScorerConfig(baselines=("hu-meteor",))


def test_cli_defaults_and_choices_are_the_configs():
    from ev2r.cli import score

    p = argparse.ArgumentParser()
    score.add_arguments(p)
    args = p.parse_args(["in.jsonl"])
    fields = [f.name for f in ScorerConfig.cli_fields()]
    assert fields == ["verifier", "proxy_verifier", "decomposer", "alpha", "replay", "reply_reading", "device",
                      "batch_size", "dtype", "hybrid", "cache"]
    for name in fields:  # each option's dest is its field, its default the field's
        assert getattr(args, name) == getattr(DEFAULTS, name), name
    choices = {a.dest: tuple(a.choices) for a in p._actions if a.choices}
    assert choices["decomposer"] == DECOMPOSERS and choices["dtype"] == DTYPES
    assert choices["reply_reading"] == REPLY_READINGS
    helps = {a.dest: a.help for a in p._actions}
    assert helps["alpha"] == "Ev2R weight of F1 (default 0.5)" and helps["batch_size"].endswith("(default 32)")
    assert {a.dest: a.option_strings for a in p._actions}["hybrid"] == ["--no-hybrid"]
    assert p.parse_args(["in.jsonl", "--no-hybrid"]).hybrid is False


def test_options_map_back_to_the_config_without_a_hand_written_mapping():
    from ev2r.cli import score
    from ev2r.cli.common import config_from_args

    p = argparse.ArgumentParser()
    score.add_arguments(p)
    assert config_from_args(p.parse_args(["in.jsonl"])) == DEFAULTS
    got = config_from_args(p.parse_args(["in.jsonl", "--model", "fast", "--alpha", "0.3", "--no-hybrid", "--dtype",
                                         "fp32", "--proxy-model", "averitec", "--batch-size", "8"]))
    assert got == DEFAULTS.replace(verifier="fast", alpha=0.3, hybrid=False, dtype="fp32", proxy_verifier="averitec",
                                   batch_size=8)
    # a --proxy-model naming the --model verifier is no separate proxy verifier (the default's signature)
    assert config_from_args(p.parse_args(["in.jsonl", "--proxy-model", "bundled"])).proxy_verifier is None
    assert score.scorer_options(p.parse_args(["in.jsonl", "--alpha", "0.3"])) == DEFAULTS.replace(alpha=0.3).to_dict()


def test_evaluate_module_options_are_the_config_fields():
    from ev2r.integrations.hf_evaluate.core import SCORER_OPTIONS

    assert set(SCORER_OPTIONS) <= set(ScorerConfig.field_names())
    assert {"alpha", "threshold", "decomposer", "verifier", "dtype"} <= set(SCORER_OPTIONS)


def test_build_scorer_from_config_equals_from_options(keyword_verifier):
    a = build_scorer(verifier=keyword_verifier, alpha=0.25, threshold=0.7)
    b = build_scorer(config=ScorerConfig(verifier=keyword_verifier, alpha=0.25, threshold=0.7))
    assert a.signature() == b.signature()
    assert b.signature()["alpha"] == "0.25" and b.signature()["support"] == "p>=0.7"
    # overrides apply to the config given (build_scorer(config=None, **overrides))
    c = build_scorer(ScorerConfig(verifier=keyword_verifier, threshold=0.7), alpha=0.25)
    assert c.signature() == a.signature()


def test_scorer_signature_fields_in_order(keyword_verifier):
    sig = build_scorer(verifier=keyword_verifier).signature()
    assert isinstance(sig, Signature) and isinstance(sig, str)
    assert list(sig.fields) == ["ev2r", "adm", "ref", "decomp", "v2-rev", "unans", "boiler", "support", "prem", "prem-rule", "cal", "verifier", "proxy", "agg", "proxy-rule",
                                "map", "alpha", "hybrid", "hybrid-emb", "hybrid-meteor", "const", "hybrid-const", "data", "transformers",
                                "torch"]
    from claimalign.meteor_fast import synonyms_available

    syn = "+wnsyn" if synonyms_available() else "+nosyn"  # restatements read WordNet synonyms where it is found
    assert str(sig).startswith("ev2r:") and "|adm:admission-v1|ref:nli|decomp:rules-v2|v2-rev:2|unans:drop|boiler:v2|support:p>=0.5|prem:qa-pair-max+lex-top5+twin~0.85/num+contr+art+respell-syn+anchor+contra0.5/rw0.7|" \
                                             f"prem-rule:pred-answer-2w+span4+rel0.1/20+short1{syn}|cal:none|verifier:keyword-fake|proxy:nli-gold|" \
                                             f"agg:qa-pair-max|proxy-rule:pred-answer-2w+span4+rel0.1/20+short1{syn}+nee-rel-all+contra0.5/rw0.7|map:v1|alpha:0.5|" in sig


def test_verifier_declares_its_own_fields(keyword_verifier):
    class Declaring(type(keyword_verifier)):
        def signature_fields(self):
            return {"verifier": "declared@1", "window": "64-mean"}

    sig = build_scorer(verifier=Declaring()).signature()
    assert sig["verifier"] == "declared@1" and sig["window"] == "64-mean"


def test_signature_round_trip_and_errors():
    sig = Signature.from_parts({"a": "1", "b": "x:y"}, {"c": "2"})
    assert str(sig) == "a:1|b:x:y|c:2" and sig.fields == {"a": "1", "b": "x:y", "c": "2"}
    assert Signature.parse(str(sig)) == sig and pickle.loads(pickle.dumps(sig)) == sig
    assert sig[0] == "a"  # still a string
    with pytest.raises(ValueError, match="field 'a' declared twice"):
        Signature.from_parts({"a": "1"}, {"a": "2"})
    with pytest.raises(ValueError, match=r"contains '\|'"):
        Signature.from_parts({"a": "1|2"})
    with pytest.raises(ValueError, match="is not key:value"):
        Signature.parse("a:1|oops")


def test_llm_connection_defaults_are_read_by_every_llm_entry_point():
    import inspect

    from ev2r.config import LLM_DEFAULTS
    from ev2r.llm import LLMClient, LLMReferenceScorer
    from ev2r.ranking.arena import run_arena
    from ev2r.shared_task.averitec2025 import build_judge

    assert (LLM_DEFAULTS.concurrency, LLM_DEFAULTS.timeout, LLM_DEFAULTS.max_retries) == (4, 120.0, 3)
    for fn, names in [(LLMClient.__init__, ("concurrency", "timeout", "max_retries", "backoff")),
                      (LLMReferenceScorer.__init__, ("concurrency", "timeout", "max_retries", "backoff")),
                      (run_arena, ("concurrency", "timeout", "max_retries", "backoff")),
                      (build_judge, ("llm_concurrency", "llm_timeout", "llm_max_retries"))]:
        params = inspect.signature(fn).parameters
        for name in names:
            assert params[name].default == getattr(LLM_DEFAULTS, name.removeprefix("llm_")), (fn, name)
    from ev2r.cli import score

    p = argparse.ArgumentParser()
    score.add_arguments(p)
    args = p.parse_args(["in.jsonl"])
    assert (args.llm_concurrency, args.llm_timeout) == (LLM_DEFAULTS.concurrency, LLM_DEFAULTS.timeout)


@pytest.mark.parametrize("changes, message", [
    ({"alpha": float("nan")}, r"alpha: expected a value in \[0, 1\], got nan"),
    ({"alpha": 2}, r"alpha: expected a value in \[0, 1\], got 2.0"),
    ({"threshold": 0}, r"threshold: expected a value in \(0, 1\), got 0.0"),
    ({"threshold": 1}, r"threshold: expected a value in \(0, 1\)"),
    ({"hybrid_columns": "some"}, r"hybrid_columns: 'some' is not one of \('weighted', 'all'\)"),
    ({"admission": ""}, r"admission: an empty spec"),
    ({"dtype": "fp64"}, r"dtype: 'fp64' is not one of \('auto', 'fp32', 'bf16', 'int8'\)"),
    ({"batch_size": 0}, r"batch_size: must be an integer >= 1, got 0"),
    ({"batch_size": True}, r"batch_size: must be an integer >= 1, got True"),
    ({"chunk_size": 1.5}, r"chunk_size: must be an integer >= 1, got 1.5"),
    ({"ev2r": "no"}, r"ev2r: expected True or False, got 'no'"),
    ({"device": 5}, r"device: expected a torch device string"),
    ({"llm_options": [1]}, r"llm_options: expected a dict"),
])
def test_ranges_and_choices_are_checked_on_creation(changes, message):
    with pytest.raises(ValueError, match=message):
        ScorerConfig(**changes)


def test_config_copies_llm_options_and_round_trips(keyword_verifier):
    opts = {"model": "m"}
    c = ScorerConfig(decomposer="llm", llm_options=opts)
    opts["model"] = "changed"
    assert c.llm_options == {"model": "m"}
    assert ScorerConfig(**c.to_dict()) == c
    with pytest.raises(ValueError, match="config: expected an ev2r.config.ScorerConfig"):
        build_scorer(config={"alpha": 0.3})
    # [] and () are the same baselines
    assert build_scorer(config=ScorerConfig(verifier=keyword_verifier), baselines=[]).signature() \
        == build_scorer(verifier=keyword_verifier).signature()


def test_signature_parse_is_strict():
    for bad, message in [("a:1|a:2", "repeats a field"), (":1", "without a name"), (b"a:1", "expected a string"),
                         (None, "expected a string")]:
        with pytest.raises(ValueError, match=message):
            Signature.parse(bad)
    with pytest.raises(ValueError, match="needs a non-empty name and a value"):
        Signature.from_parts({"a": None})
    assert Signature.parse("") == "" and Signature.parse("").fields == {}


def test_reply_reading_is_checked_and_reaches_the_llm_and_replay_scorers(tmp_path):
    import json

    from ev2r.config import REPLY_READINGS, ScorerConfig
    from ev2r.metric.factory import build_scorer

    assert REPLY_READINGS == ("checks", "counts", "strict")
    with pytest.raises(ValueError, match=r"reply_reading: 'best' is not one of \('checks', 'counts', 'strict'\)"):
        ScorerConfig(decomposer="llm", reply_reading="best")
    with pytest.raises(ValueError, match="only an LLM reply is read"):
        ScorerConfig(decomposer="rules", reply_reading="checks")
    rec = tmp_path / "r.jsonl"
    rec.write_text(json.dumps({"model": "m", "id": "1", "llm_response": {}}) + "\n")
    fake = type("V", (), {"name": "fake", "predict": lambda self, p, h: None})()
    sc = build_scorer(verifier=fake, decomposer="replay", replay=str(rec), reply_reading="counts", hybrid=False)
    assert sc.reference_scorer.scores_from == "counts"
    assert build_scorer(verifier=fake, decomposer="replay", replay=str(rec), hybrid=False).reference_scorer.scores_from \
        == "strict"
    llm = build_scorer(verifier=fake, decomposer="llm", llm_options={"model": "m", "base_url": "http://127.0.0.1:9/v1"},
                       hybrid=False)
    assert llm.reference_scorer.scores_from == "checks" and "read:checks>counts" in llm.signature()


def test_build_scorer_takes_config_positionally_and_the_rest_by_name():
    """``build_scorer(cfg, "fast")`` once set ``progress`` to a string and failed only inside ``score()``."""
    with pytest.raises(TypeError):
        build_scorer(ScorerConfig(), "fast")  # type: ignore[misc]
    with pytest.raises(ValueError, match=r"progress: expected a callable \(done, total\) or None, got str"):
        build_scorer(progress="fast", verifier=_Fake())
