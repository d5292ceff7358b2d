"""claimalign: Hungarian alignment of claim / evidence sets and its similarity backends.

* :func:`align` -- Algorithm 1 of *Examining the Metrics for Document-Level Claim Extraction in
  Czech and Slovak* (zero-padded n x n similarity matrix, Hungarian assignment, score / n),
  with precision-style (/|C1|) and recall-style (/|C2|) normalisations.
* :mod:`claimalign.similarity` -- edit, METEOR, embedding cosine, BERTScore, NLI (both
  directions) and G-Eval LLM-judge similarities behind one protocol.
* :func:`align_sets`, :func:`claim_count_difference`, :func:`max_pool`, :func:`agreement`.
* :func:`hu_meteor`, :func:`hu_meteor_batch` -- AVeriTeC's Hungarian METEOR evidence score.
* What the three packages share below the alignment: :mod:`claimalign.text` (one normalisation where
  text enters: Unicode NFC, one line ending), :mod:`claimalign.jsonio` (JSON / JSONL records read with
  limits and written so they read back), :mod:`claimalign.files` (atomic writes), :mod:`claimalign.scripts`
  (scripts written without spaces), :mod:`claimalign.tokens` (tokenizer control strings kept as text).

Imports nothing from ``ev2r`` (``ev2r`` and ``adversarial`` import those modules); heavy libraries load on
first use only. It reads no file format: the reader of question/answer evidence text (``parse_qa_text``, here
before ev2r 2.0) is ``ev2r.io.qa_text``.
"""

from claimalign.align import AlignmentResult, align
from claimalign.averitec import (HU_METEOR_VARIANTS, averitec_comparison_strings, hu_meteor, hu_meteor_batch,
                                 hu_meteor_strings)
from claimalign.sets import AgreementResult, agreement, align_sets, claim_count_difference, max_pool
from claimalign.similarity import SIMILARITY_NAMES, Similarity, get_similarity



def __getattr__(name: str):
    """``claimalign.__version__``: the version of the ``ev2r`` distribution that ships this package
    (written once, in ``ev2r/_version.py``; read here from the installed distribution's metadata,
    since claimalign imports nothing from ev2r).

    Raises:
        AttributeError: any other missing attribute; for ``parse_qa_text`` it names its home since ev2r 2.0.
    """
    if name == "__version__":
        from importlib.metadata import version

        return version("ev2r")
    if name == "parse_qa_text":
        raise AttributeError("module 'claimalign' has no attribute 'parse_qa_text': since ev2r 2.0 the question/answer "
                             "text reader is ev2r.io.parse_qa_text (from ev2r.io import parse_qa_text)")
    raise AttributeError(f"module 'claimalign' has no attribute {name!r}")

__all__ = [
    "AlignmentResult", "align", "align_sets", "claim_count_difference", "max_pool", "AgreementResult",
    "agreement", "hu_meteor", "hu_meteor_batch", "hu_meteor_strings", "HU_METEOR_VARIANTS",
    "averitec_comparison_strings", "Similarity", "SIMILARITY_NAMES", "get_similarity",
]
