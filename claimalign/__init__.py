"""claimalign: Hungarian alignment of claim / evidence sets and its similarity backends.

* :func:`align` -- Algorithm 1 of *Examining the Metrics for Document-Level Claim Extraction in
  Czech and Slovak* (zero-padded n x n similarity matrix, Hungarian assignment, score / n),
  with precision-style (/|C1|) and recall-style (/|C2|) normalisations.
* :mod:`claimalign.similarity` -- edit, METEOR, embedding cosine, BERTScore, NLI (both
  directions) and G-Eval LLM-judge similarities behind one protocol.
* :func:`align_sets`, :func:`claim_count_difference`, :func:`max_pool`, :func:`agreement`.
* :func:`hu_meteor`, :func:`hu_meteor_batch` -- AVeriTeC's Hungarian METEOR evidence score.
* :mod:`claimalign.textio` -- what the three packages share about text: one normalisation where
  text enters (Unicode NFC, one line ending), JSONL reading/writing that round-trips, tokenizer
  control strings kept as text, scripts written without spaces.

Imports nothing from ``ev2r`` (``ev2r`` and ``adversarial`` import :mod:`claimalign.textio`);
heavy libraries load on first use only.
"""

from claimalign.align import AlignmentResult, align
from claimalign.averitec import (HU_METEOR_VARIANTS, averitec_comparison_strings, hu_meteor, hu_meteor_batch,
                       hu_meteor_strings, parse_qa_text)
from claimalign.sets import AgreementResult, agreement, align_sets, claim_count_difference, max_pool
from claimalign.similarity import SIMILARITY_NAMES, Similarity, get_similarity



def __getattr__(name: str):
    """``claimalign.__version__``: the version of the ``ev2r`` distribution that ships this package
    (written once, in ``ev2r/_version.py``; read here from the installed distribution's metadata,
    since claimalign imports nothing from ev2r).

    Raises:
        AttributeError: any other missing attribute.
    """
    if name == "__version__":
        from importlib.metadata import version

        return version("ev2r")
    raise AttributeError(f"module 'claimalign' has no attribute {name!r}")

__all__ = [
    "AlignmentResult", "align", "align_sets", "claim_count_difference", "max_pool", "AgreementResult",
    "agreement", "hu_meteor", "hu_meteor_batch", "hu_meteor_strings", "HU_METEOR_VARIANTS",
    "averitec_comparison_strings", "parse_qa_text", "Similarity", "SIMILARITY_NAMES", "get_similarity",
]
