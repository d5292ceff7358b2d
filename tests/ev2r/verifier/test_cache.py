"""The on-disk cache across runs: a warm run reads exactly what the filling run computed, a cache
of another definition is never read, the run record names the cache, and the signature does not change."""

from __future__ import annotations

import json
import shutil
import sqlite3

import numpy as np
import pytest

import ev2r.metric.admission as admission
from ev2r.cli.main import main
from ev2r.io.readers import read_items
from ev2r.io.rows import output_row
from ev2r.metric.admission_model import AdmissionModel
from ev2r.metric.factory import build_scorer
from ev2r.verifier.cache import CACHE_FILE, DiskCache, definition_key
from ev2r.verifier.loading import BUNDLED_DIR
from ev2r.verifier.nli import HFNLIVerifier
from ev2r.versions import identify

SAMPLE = "examples/averitec_sample.jsonl"


@pytest.fixture
def tiny(tiny_nli_model, tmp_path):
    """The tiny random checkpoint with the bundled verifier's calibration beside it (the graded columns need one)."""
    import dataclasses

    from ev2r.verifier.calibration import read_calibration, write_calibration
    from ev2r.verifier.nli import dir_fingerprint

    folder = tmp_path / "tiny"
    shutil.copytree(tiny_nli_model, folder)
    bundled = read_calibration(BUNDLED_DIR / "calibration.json")  # the bundled map, filed for these weights
    write_calibration(dataclasses.replace(bundled, weights=dir_fingerprint(folder)), folder / "calibration.json")
    return str(folder)


def _exact_parts(tiny: str):
    """A verifier and an admission reading whose numbers do not depend on their batch (one pair / one text per
    forward pass), so that a run without the cache computes every value as the run that filled it."""
    from claimalign.similarity.embedding import EmbeddingSimilarity

    verifier = HFNLIVerifier(tiny, batch_size=1, max_batch_tokens=None, dtype="fp32")
    verifier._load()  # as get_verifier does: the signature names the resolved window
    rng = np.random.default_rng(0)
    reading = AdmissionModel(classes=("evidence", "absence"), mean=np.zeros(41), scale=np.ones(41),
                             coef=rng.normal(scale=0.3, size=(2, 41)), intercept=np.array([2.0, -2.0]),
                             name="tiny-reading", encoder=EmbeddingSimilarity(model=tiny, batch_size=1))
    return verifier, reading


def _rows(scorer, items):
    admission._CACHE.clear()  # the process's own caches: each run reads the pairs afresh
    admission._EMBED.clear()
    signature = str(scorer.signature())
    return [output_row(it, s, "explain", signature) for it, s in zip(items, scorer.score(items))], signature


def test_a_warm_cache_gives_the_rows_of_a_run_without_it_field_by_field(tiny, tmp_path):
    verifier, reading = _exact_parts(tiny)
    items = read_items(SAMPLE, limit=4)
    cache = tmp_path / "cache"
    plain, sig = _rows(build_scorer(verifier=verifier, admission=reading), items)
    cold_scorer = build_scorer(verifier=verifier, admission=reading, cache=cache)
    cold, sig_cold = _rows(cold_scorer, items)
    warm_scorer = build_scorer(verifier=verifier, admission=reading, cache=str(cache))
    warm, sig_warm = _rows(warm_scorer, items)
    assert cold == plain and warm == plain  # every field, the explanations' probabilities included
    assert sig_cold == sig_warm == sig and identify(sig_warm) == identify(sig)  # the cache is no part of the definition
    # the warm run asked neither model: everything was read
    stats = warm_scorer.cache.stats
    defs = warm_scorer.cache.definitions
    assert set(defs) == {"verifier", "admission-encoder"}
    assert all(stats[key]["written"] == 0 and stats[key]["read"] > 0 for key in defs.values()), (stats, defs)
    warm_verifier = warm_scorer.reference_scorer.verifier
    assert type(warm_verifier) is HFNLIVerifier and warm_verifier.n_model_pairs == 0
    assert verifier.disk_cache is None  # the verifier given is left as it was, and its model is shared, not loaded again
    assert warm_verifier._nli is verifier._nli and cold_scorer.reference_scorer.verifier._nli is verifier._nli
    assert cold_scorer.cache.stats[defs["verifier"]]["written"] > 0


def test_a_cache_of_another_definition_is_never_read(tiny, tmp_path):
    items = read_items(SAMPLE, limit=2)
    cache = tmp_path / "cache"
    first = build_scorer(verifier=HFNLIVerifier(tiny, name="reader-a"), admission="none", cache=cache)
    first.score(items)
    for other in (HFNLIVerifier(tiny, name="reader-b"), HFNLIVerifier(tiny, name="reader-a", max_length=64)):
        second = build_scorer(verifier=other, admission="none", cache=cache)
        second.score(items)
        key = second.cache.definitions["verifier"]
        assert key != first.cache.definitions["verifier"]
        assert second.cache.stats[key]["read"] < second.cache.stats[key]["written"]  # computed, not read
        assert second.reference_scorer.verifier.n_model_pairs > 0
        assert "other definition(s) in the file, not read" in second.cache.summary()
    # an entry is found under its own definition key only
    store = DiskCache(cache)
    a = definition_key({"kind": "verifier-pairs", "name": "a"})
    store.put_pairs(a, [(("premise", "hypothesis"), np.array([0.7, 0.2, 0.1]))])
    assert store.get_pairs(definition_key({"kind": "verifier-pairs", "name": "b"}), [("premise", "hypothesis")]) == {}
    assert store.get_pairs(a, [("premise", "hypothesis")])[("premise", "hypothesis")].tolist() == [0.7, 0.2, 0.1]


def test_values_are_stored_exactly(tmp_path):
    store = DiskCache(tmp_path)
    values = {("p", "h32"): np.array([0.5, 0.25, 0.25]), ("p", "h64"): np.array([1 / 3, 1 / 7, 1 - 1 / 3 - 1 / 7])}
    store.put_pairs("k", values.items())
    back = DiskCache(tmp_path).get_pairs("k", list(values))
    assert all(back[k].tobytes() == v.astype(np.float64).tobytes() for k, v in values.items())


def test_a_folder_that_cannot_hold_the_cache_is_named_with_the_option(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ValueError, match=r"--cache: cannot create the cache folder .*file/sub"):
        DiskCache(blocker / "sub", option="--cache")
    with pytest.raises(ValueError, match=r"cache: .*is a file; give a folder"):
        build_scorer(verifier=HFNLIVerifier(str(BUNDLED_DIR)), cache=blocker)
    with pytest.raises(ValueError, match=r"cache: expected None \(no cache\) or a folder path, got 3"):
        build_scorer(cache=3)
    code = main(["score", SAMPLE, "--limit", "1", "--cache", str(blocker / "sub")])
    assert code == 2 and "--cache: cannot create the cache folder" in capsys.readouterr().err
    other = tmp_path / "other"
    other.mkdir()
    with sqlite3.connect(other / CACHE_FILE) as conn:  # an ev2r cache of a format this release does not read
        conn.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute("INSERT INTO meta VALUES ('format', '99')")
    with pytest.raises(ValueError, match=r"--cache: .* of format '99'; this ev2r reads format 1 only"):
        DiskCache(other, option="--cache")


def test_the_run_record_names_the_cache_and_a_rerun_reads_the_same_rows(tiny, tmp_path, capsys):
    from ev2r.engines.runs import RUN_SUFFIX

    cache = tmp_path / "cache"
    cold, warm = tmp_path / "cold.jsonl", tmp_path / "warm.jsonl"
    for out in (cold, warm):
        code = main(["score", SAMPLE, "--limit", "3", "--model", tiny, "--no-progress", "-o", str(out),
                     "--cache", str(cache)])
        err = capsys.readouterr().err
        assert code == 0 and f"cache {cache / CACHE_FILE}: verifier" in err
    assert "verifier 0 read" not in err and ", 0 written" in err  # the second run computed nothing new
    assert cold.read_text() == warm.read_text()  # the rows of the run that filled the cache
    record = json.loads((tmp_path / ("warm.jsonl" + RUN_SUFFIX)).read_text())
    assert record["cache"]["path"] == str(cache / CACHE_FILE)
    assert set(record["cache"]["definitions"]) == {"verifier", "admission-encoder"}
    assert "cache" not in json.loads(record["options"])  # not among the options a resume compares
    # the same output resumed without the cache: the options match, nothing is scored again
    code = main(["score", SAMPLE, "--limit", "3", "--model", tiny, "--no-progress", "-o", str(warm)])
    assert code == 0 and "0 item(s) scored, 3 resumed" in capsys.readouterr().err
    assert "cache" not in json.loads((tmp_path / ("warm.jsonl" + RUN_SUFFIX)).read_text())


def test_a_second_verifier_shares_the_tokenizer_and_every_equal_tensor(tiny, tmp_path, monkeypatch):
    """Two readers (``--model X --proxy-model Y``) hold once what they have in common (the AVeriTeC verifier's word
    embeddings are the bundled verifier's); the numbers are those of a model loaded alone."""
    import ev2r.verifier.nli as nli
    from safetensors.torch import load_file, save_file

    other = tmp_path / "other"
    shutil.copytree(tiny, other)
    tensors = load_file(str(other / "model.safetensors"))
    tensors["classifier.bias"] = tensors["classifier.bias"] + 1.0  # one tensor of its own
    save_file(tensors, str(other / "model.safetensors"), metadata={"format": "pt"})
    monkeypatch.setattr(nli, "_LOADED", [])
    first, second = HFNLIVerifier(tiny), HFNLIVerifier(str(other))
    first._load()
    second._load()
    n = len(list(second._nli.model.named_parameters()))
    assert second.shared == {"tokenizer": 1, "tensors": n - 1, "elements": second.shared["elements"]}
    assert second._nli.tokenizer is first._nli.tokenizer
    emb = "bert.embeddings.word_embeddings.weight"
    assert second._nli.model.get_parameter(emb) is first._nli.model.get_parameter(emb)
    assert second._nli.model.get_parameter("classifier.bias") is not first._nli.model.get_parameter("classifier.bias")
    premises, hypotheses = ["The mayor signed the order in May.", "[SEP] Kerala"], ["The order was signed.", "Kerala"]
    got = second.predict(premises, hypotheses)
    monkeypatch.setattr(nli, "_LOADED", [])
    alone = HFNLIVerifier(str(other))
    assert np.array_equal(alone.predict(premises, hypotheses), got) and alone.shared["tensors"] == 0


def _fill(folder, worker, rounds):
    store = DiskCache(folder)
    for r in range(rounds):  # one transaction each; half the keys are the other worker's too
        store.put_pairs("k", [((f"p{r}", f"h{worker}"), np.full(3, worker / 3)), ((f"p{r}", "both"), np.ones(3) / 3)])
        store.put_texts("t", [(f"text {r} {worker}", np.arange(4.0) * worker)])


def test_two_processes_filling_one_cache_leave_it_whole(tmp_path):
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    DiskCache(tmp_path)  # created once, then filled by both at the same time
    workers = [ctx.Process(target=_fill, args=(str(tmp_path), w, 150)) for w in (1, 2)]
    for p in workers:
        p.start()
    for p in workers:
        p.join(120)
    assert [p.exitcode for p in workers] == [0, 0]
    with sqlite3.connect(tmp_path / CACHE_FILE) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("SELECT count(*) FROM pairs").fetchone() == (450,)
        assert conn.execute("SELECT count(*) FROM texts").fetchone() == (300,)
    store = DiskCache(tmp_path)
    got = store.get_pairs("k", [("p149", "h2"), ("p0", "both")])
    assert got[("p149", "h2")].tolist() == [2 / 3] * 3 and got[("p0", "both")].tolist() == [1 / 3] * 3


@pytest.mark.slow
def test_the_bundled_verifier_rerun_with_a_warm_cache_gives_the_filling_runs_rows(tmp_path, capsys):
    """The shipped definition on real rows: the warm run's file is the cold run's byte for byte, asks no model for a
    pair or a text, and every number of a run without the cache is within the bf16 batch dependence of an AMX CPU
    (docs/metric.md, Determinism; 0 where the pass is batch-invariant)."""
    from ev2r.engines.runs import RUN_SUFFIX
    from ev2r.versions import PRECISION_BOUND

    cache = tmp_path / "cache"
    files = {}
    for name, extra in (("plain", []), ("cold", ["--cache", str(cache)]), ("warm", ["--cache", str(cache)])):
        admission._CACHE.clear()
        admission._EMBED.clear()
        files[name] = tmp_path / f"{name}.jsonl"
        code = main(["score", SAMPLE, "--limit", "10", "--no-progress", "--explain", "-o", str(files[name]), *extra])
        err = capsys.readouterr().err
        assert code == 0, err
    assert "verifier 0 read" not in err and "admission-encoder 0 read" not in err and err.count(", 0 written") == 2
    assert files["warm"].read_text() == files["cold"].read_text()
    records = {k: json.loads((tmp_path / f"{k}.jsonl{RUN_SUFFIX}").read_text()) for k in files}
    assert records["plain"]["signature"] == records["warm"]["signature"]
    assert identify(records["warm"]["signature"]) == identify(records["plain"]["signature"])
    worst = 0.0
    for a, b in zip(files["plain"].read_text().splitlines(), files["cold"].read_text().splitlines()):
        a, b = json.loads(a), json.loads(b)
        for k, v in a.items():
            if isinstance(v, float) and isinstance(b[k], float):
                worst = max(worst, abs(v - b[k]))
    assert worst <= PRECISION_BOUND


def test_a_damaged_cache_file_or_a_folder_naming_no_user_is_an_error_naming_the_option(tmp_path):
    """A page of the file overwritten after it was made (found when read), and ``~user`` naming no user: a
    ValueError naming ``cache`` and the file, never sqlite's or pathlib's own error deep in a run."""
    import numpy as np

    from ev2r.verifier.cache import CACHE_FILE, DiskCache

    cache = DiskCache(tmp_path)
    key = cache.register("verifier", {"kind": "nli", "name": "m@0"})
    cache.put_pairs(key, [((f"premise {k} " * 20, "hypothesis"), np.array([0.5, 0.25, 0.25], np.float32))
                          for k in range(400)])
    cache.close()
    raw = bytearray((tmp_path / CACHE_FILE).read_bytes())
    page = 4096
    for start in range(page, len(raw), page):  # every page but the first (the header) overwritten
        raw[start:start + page] = b"\xab" * min(page, len(raw) - start)
    (tmp_path / CACHE_FILE).write_bytes(bytes(raw))
    for f in tmp_path.glob(CACHE_FILE + "-*"):
        f.unlink()
    with pytest.raises(ValueError, match=r"^cache: (the cache file .* is damaged|.* is not an ev2r cache that can be "
                                         r"opened)"):
        again = DiskCache(tmp_path)
        again.get_pairs(key, [("premise 1 " * 20, "hypothesis")])
    with pytest.raises(ValueError, match=r"^cache: cannot read the folder '~no_such_user_ev2r/x'"):
        DiskCache("~no_such_user_ev2r/x")


def test_a_fully_warm_run_never_loads_the_verifiers_weights(tiny, tmp_path):
    """With a cache, the weights load at the first pair the cache does not hold: a run that finds every pair there
    reads only the tokenizer and configuration, and its rows are the filling run's."""
    from ev2r.verifier.loading import clear_verifier_cache

    items = read_items(SAMPLE, limit=3)
    cache = tmp_path / "cache"
    clear_verifier_cache()
    cold_scorer = build_scorer(verifier=tiny, admission="none", cache=cache)
    cold, _ = _rows(cold_scorer, items)
    assert cold_scorer.reference_scorer.verifier._nli.model is not None  # the cold run computed its pairs
    clear_verifier_cache()  # a new process, as far as the verifier goes
    warm_scorer = build_scorer(verifier=tiny, admission="none", cache=cache)
    warm, _ = _rows(warm_scorer, items)
    verifier = warm_scorer.reference_scorer.verifier
    assert warm == cold and verifier.n_model_pairs == 0
    assert verifier._nli.model is None and verifier._model is None  # the weights were never read
    # one pair the cache does not hold: the weights load then, and give the numbers of a verifier loaded at once
    clear_verifier_cache()
    pair = (["A pair no run has asked about."], ["Nothing was cached."])
    eager = HFNLIVerifier(tiny, dtype=verifier.dtype)
    assert np.array_equal(verifier.predict(*pair), eager.predict(*pair))
    assert verifier._nli.model is not None and verifier.n_model_pairs == 1


def test_weights_that_cannot_be_read_are_an_error_naming_the_checkpoint_when_first_needed(tiny, tmp_path):
    """The tokenizer and configuration are checked when the scorer is built; damaged weights behind a cache are a
    ValueError naming the checkpoint at the first pair the cache does not hold, and without a cache at once."""
    from ev2r.verifier.loading import clear_verifier_cache, get_verifier

    broken = tmp_path / "broken"
    shutil.copytree(tiny, broken)
    (broken / "model.safetensors").write_bytes(b"not a safetensors file")
    clear_verifier_cache()
    lazy = get_verifier(str(broken), weights=False)
    assert lazy._nli.model is None and lazy.signature_fields()["window"].startswith(str(lazy._window))
    with pytest.raises(ValueError, match="broken: the verifier's weights cannot be loaded") as first:
        lazy.predict(["The mayor signed the order."], ["The order was signed."])
    reason = lazy._nli.load_error
    assert reason  # the failure is kept: the next pair is refused with it, the file is not read again
    (broken / "model.safetensors").unlink()
    with pytest.raises(ValueError, match="broken: the verifier's weights cannot be loaded") as second:
        lazy.predict(["Another pair."], ["Not cached either."])
    assert lazy._nli.load_error == reason and reason.split(":")[0] in str(second.value)
    assert str(first.value).split(": ", 2)[-1] in str(second.value)
    clear_verifier_cache()
    with pytest.raises(ValueError, match=r"--model '.*broken': cannot be loaded as a 3-way NLI verifier"):
        get_verifier(str(broken))
    clear_verifier_cache()
