"""claimalign.meteor_fast.wordnet_senses reads WordNet as nltk's reader does, without its 5-second start-up."""

import re

import pytest

from claimalign.meteor_fast import wordnet_senses
from support.paths import SHARED_DATA


def test_senses_in_nltks_order_on_known_words(nltk_data):
    senses = wordnet_senses("buy")
    assert senses[0][0] == "n" and "purchase" in senses[1][1]  # the noun first, then the verb "purchase"
    assert {pos for pos, _ in wordnet_senses("awful")} == {"a", "r"}  # satellites under "a"
    assert wordnet_senses("geese")[0][1][0] == "goose"  # nltk's morphology (the exception lists)
    assert wordnet_senses("qwzx") == ()


@pytest.mark.slow
def test_same_senses_as_nltks_reader_on_every_word_of_the_rated_rows(nltk_data):
    """Every word of both rating sets (12,024 distinct): the same (part of speech, lemma names) sequence as
    ``nltk.corpus.wordnet.synsets`` (slow: nltk's reader takes 5-9 s to start)."""
    from nltk.corpus import wordnet as wn

    words = set()
    for name in ("averitec_manual_eval_subset.jsonl", "averitec_shared_task_dev.jsonl"):
        text = (SHARED_DATA / "ev2r_human_eval" / name).read_text(encoding="utf-8")
        words |= {w.casefold() for w in re.findall(r"[A-Za-z][A-Za-z'-]*", text)}
    assert len(words) > 10_000
    differ = [w for w in sorted(words)
              if wordnet_senses(w) != tuple(("a" if s.pos() == "s" else s.pos(), tuple(s.lemma_names()))
                                            for s in wn.synsets(w))]
    assert differ == []
