"""AVeriTeC's Hungarian METEOR evidence score (Schlichtkrull et al., NeurIPS 2023 Datasets & Benchmarks).

As the official scorer (``eval.py``: ``compute_pairwise_evidence_score``, ``evaluate_questions_only``) does, per
claim: comparison strings (``question + " " + answer`` per answer, a Boolean answer followed by
``". " + boolean_explanation``, a question without answer ``question + " No answer could be found."``; the
questions alone for the question-only variant; ``string_evidence`` as it is), the first 10 predicted strings kept,
``M[i, j] = nltk single_meteor_score(word_tokenize(reference_j), word_tokenize(predicted_i))``, the optimal
assignment (:func:`claimalign.align`), and the assigned total divided by the **number of reference strings**.

Text is NFC-normalised first. ``tokens="official"`` (the default, the AVeriTeC baseline of ``ev2r score --scorer
hu-meteor``) are exactly ``nltk.word_tokenize``'s in every script: text written without spaces stays one token, as
officially, and a :class:`claimalign.scripts.ScriptWarning` says so. ``tokens="script"`` makes each character of such
a script a token (:func:`claimalign.meteor_fast.meteor_words`) and departs from the official numbers on such text
only. Inputs must be sequences of pairs: a plain string is rejected (dividing by its length would count characters).
"""

from __future__ import annotations

import warnings
from typing import Any, List, Mapping, Optional, Sequence

import numpy as np

from claimalign.align import align
from claimalign.meteor_fast import meteor_tokens, meteor_words, tokenize
from claimalign.nltk_data import require_nltk_data
from claimalign.words import NO_ANSWER
from claimalign.scripts import ScriptWarning, UNSPACED_SCRIPTS, has_unspaced_script, warn_unspaced_script
from claimalign.text import normalize_text

__all__ = [
    "HU_METEOR_VARIANTS", "HU_METEOR_TOKENS", "MAX_PREDICTED", "hu_meteor", "hu_meteor_batch", "hu_meteor_strings",
    "pair_strings", "averitec_comparison_strings", "meteor_matrix",
]

HU_METEOR_VARIANTS = ("qa", "q")
#: Tokenisations of :func:`hu_meteor` (module docstring): the official one, and the script-aware one.
HU_METEOR_TOKENS = ("official", "script")
MAX_PREDICTED = 10


def _check_variant(variant: str) -> None:
    if variant not in HU_METEOR_VARIANTS:
        raise ValueError(f"variant: {variant!r} is not one of {HU_METEOR_VARIANTS} ('qa' question+answer, 'q' question "
                         "only)")


def _check_tokens(tokens: str) -> None:
    if tokens not in HU_METEOR_TOKENS:
        raise ValueError(f"tokens: {tokens!r} is not one of {HU_METEOR_TOKENS} ('official' nltk.word_tokenize as "
                         "AVeriTeC's eval.py, 'script' one token per character in scripts written without spaces)")


def _official_tokens_warning(texts: Sequence[str]) -> None:
    """The ScriptWarning of the official tokenisation (one message, so Python shows it once per call site)."""
    if any(has_unspaced_script(t) for t in texts):
        warnings.warn(
            "Hungarian METEOR: text written in a script without spaces between words "
            f"({', '.join(UNSPACED_SCRIPTS)}); it is tokenised as AVeriTeC's official scorer does "
            "(nltk.word_tokenize: such a sentence is one token), so METEOR cannot judge it word by word there. "
            "tokens='script' compares it character by character (not the official numbers).",
            ScriptWarning, stacklevel=3)


def _check_max(max_predicted: Optional[int]) -> None:
    if max_predicted is not None and (not isinstance(max_predicted, int) or isinstance(max_predicted, bool)
                                      or max_predicted < 1):
        raise ValueError(f"max_predicted: must be None or an int >= 1, got {max_predicted!r}")


def pair_strings(pairs: Any, variant: str = "qa", name: str = "pairs") -> List[str]:
    """Comparison strings of (question, answer) pairs, as the official scorer builds them.

    ``"qa"``: ``question + " " + answer``; ``"q"``: the question. A pair with an empty question
    (plain-text evidence) contributes its answer text in both variants (the official scorer's
    ``string_evidence`` fallback).

    Args:
        pairs: sequence of ``(question, answer)`` 2-tuples/lists of str (``answer`` may be None
            for ``"q"``).
        variant: ``"qa"`` or ``"q"``.
        name: argument name for error messages.

    Raises:
        ValueError: ``pairs`` is a string, an element is not a (str, str) pair, bad ``variant``.
    """
    _check_variant(variant)
    if isinstance(pairs, (str, bytes)) or isinstance(pairs, Mapping):
        raise ValueError(f"{name}: expected a list of (question, answer) tuples, got {type(pairs).__name__}")
    try:
        items = list(pairs)
    except TypeError:
        raise ValueError(f"{name}: expected a list of (question, answer) tuples, got {type(pairs).__name__}") from None
    out: List[str] = []
    for k, p in enumerate(items):
        if isinstance(p, (str, bytes)) or not isinstance(p, (tuple, list)) or len(p) != 2:
            raise ValueError(f"{name}[{k}]: expected a (question, answer) pair, got {p!r}")
        q, a = p
        if not isinstance(q, str) or not (isinstance(a, str) or (a is None and variant == "q")):
            raise ValueError(f"{name}[{k}]: question and answer must be strings, got {p!r}")
        if not q:
            out.append(a or "")
        else:
            out.append(q + " " + a if variant == "qa" else q)
    return out


def hu_meteor_strings(predicted: Sequence[str], reference: Sequence[str],
                      max_predicted: Optional[int] = MAX_PREDICTED, tokens: str = "official") -> float:
    """Hungarian METEOR over ready comparison strings (steps 2-5 of the module docstring).

    Args:
        predicted: predicted comparison strings (any number; the first ``max_predicted`` used).
        reference: reference comparison strings (>= 1).
        max_predicted: cap on predicted strings (official: 10); None for no cap.
        tokens: ``"official"`` (``nltk.word_tokenize``, as AVeriTeC's ``eval.py``) or ``"script"``
            (one token per character in scripts written without spaces); module docstring.

    Returns:
        float in [0, 1]; 0.0 when there is no predicted string.

    Raises:
        ValueError: empty ``reference`` (the official scorer divides by zero there), strings
            instead of sequences, non-string elements, bad ``max_predicted`` or ``tokens``.
        RuntimeError: nltk data (punkt_tab, WordNet) not found.
    """
    _check_max(max_predicted)
    _check_tokens(tokens)
    for nm, seq in (("predicted", predicted), ("reference", reference)):
        if isinstance(seq, (str, bytes)):
            raise ValueError(f"{nm}: expected a sequence of strings, got a single string")
    pred = list(predicted)
    ref = list(reference)
    for nm, seq in (("predicted", pred), ("reference", ref)):
        for k, s in enumerate(seq):
            if not isinstance(s, str):
                raise ValueError(f"{nm}[{k}]: expected str, got {type(s).__name__}")
    if not ref:
        raise ValueError("reference: no reference evidence; Hungarian METEOR divides by the number of"
                         " reference items and is undefined for an empty reference")
    if max_predicted is not None:
        pred = pred[:max_predicted]
    if not pred:
        return 0.0
    return align(meteor_matrix(pred, ref, tokens)).recall


def meteor_matrix(predicted: Sequence[str], reference: Sequence[str], tokens: str = "official",
                  fuzzy: bool = False) -> np.ndarray:
    """The METEOR similarity matrix of Hungarian METEOR (step 4 of the module docstring): shape
    ``(len(predicted), len(reference))``, ``[i, j] = METEOR(hypothesis=predicted[i],
    reference=reference[j])`` in [0, 1], strings NFC-normalised and tokenised as ``tokens`` says.
    No cap and no check of the sequences (:func:`hu_meteor_strings` does both). ``fuzzy``: METEOR with the typo and
    number stage of :func:`claimalign.meteor_fast.single_meteor` (not the official number then).

    Raises:
        RuntimeError: nltk data (punkt_tab, WordNet) not found.
    """
    _check_tokens(tokens)
    if not predicted or not reference:
        return np.zeros((len(predicted), len(reference)))
    require_nltk_data()
    pred = [normalize_text(s) for s in predicted]
    ref = [normalize_text(s) for s in reference]
    if tokens == "official":
        _official_tokens_warning(pred + ref)
        tp = [tokenize(s) for s in pred]
        tr = [tokenize(s) for s in ref]
    else:
        warn_unspaced_script(pred + ref, "Hungarian METEOR")
        tp = [meteor_words(s) for s in pred]
        tr = [meteor_words(s) for s in ref]
    return np.array([[meteor_tokens(r, h, fuzzy) for r in tr] for h in tp], dtype=np.float64)


def hu_meteor(predicted_pairs: Any, reference_pairs: Any, variant: str = "qa",
              max_predicted: Optional[int] = MAX_PREDICTED, tokens: str = "official") -> float:
    """AVeriTeC Hungarian METEOR of one claim's predicted evidence against its reference.

    Args:
        predicted_pairs: list of ``(question, answer)`` string tuples (a Boolean answer should
            already carry its explanation, ``"Yes. <explanation>"``, as the official strings do).
        reference_pairs: list of ``(question, answer)`` string tuples, >= 1.
        variant: ``"qa"`` (question+answer, the AVeriTeC evidence score) or ``"q"``
            (question-only score).
        max_predicted: cap on predicted pairs (official: 10); None for no cap.
        tokens: ``"official"`` (default: ``nltk.word_tokenize`` in every script, as AVeriTeC's
            ``eval.py``) or ``"script"`` (claimalign's script-aware tokens); module docstring.

    Returns:
        float in [0, 1]: sum of METEOR over the optimal one-to-one pairing / number of
        reference items (Schlichtkrull et al., 2023; official ``eval.py``).

    Raises:
        ValueError: a string instead of a list of pairs, malformed pairs, bad ``variant`` /
            ``max_predicted`` / ``tokens``, empty ``reference_pairs``.
        RuntimeError: nltk data not found.
    """
    _check_tokens(tokens)
    pred = pair_strings(predicted_pairs, variant, "predicted_pairs")
    ref = pair_strings(reference_pairs, variant, "reference_pairs")
    if not ref:
        raise ValueError("reference_pairs: no reference pairs; Hungarian METEOR divides by the number of"
                         " reference items and is undefined for an empty reference")
    return hu_meteor_strings(pred, ref, max_predicted, tokens)


def hu_meteor_batch(predicted: Sequence[Any], references: Sequence[Any], variant: str = "qa",
                    max_predicted: Optional[int] = MAX_PREDICTED, tokens: str = "official") -> np.ndarray:
    """:func:`hu_meteor` over many claims, index-aligned (join on id before calling).

    Each distinct string is tokenised once and each distinct (reference, predicted) token pair
    is scored once across the whole batch.

    Args:
        predicted: N lists of (question, answer) pairs.
        references: N lists of (question, answer) pairs, same order.
        variant, max_predicted, tokens: as :func:`hu_meteor`.

    Returns:
        float64 array of shape (N,), values in [0, 1].

    Raises:
        ValueError: different lengths, or any item invalid (the message names its index).
    """
    for nm, seq in (("predicted", predicted), ("references", references)):
        if isinstance(seq, (str, bytes)):
            raise ValueError(f"{nm}: expected a sequence of pair lists, got a string")
    p, r = list(predicted), list(references)
    if len(p) != len(r):
        raise ValueError(f"predicted/references: different numbers of items ({len(p)} vs {len(r)})")
    out = np.empty(len(p), dtype=np.float64)
    for i, (x, y) in enumerate(zip(p, r)):
        try:
            out[i] = hu_meteor(x, y, variant, max_predicted, tokens)
        except ValueError as exc:
            raise ValueError(f"item {i}: {exc}") from None
    return out


def averitec_comparison_strings(example: Mapping[str, Any], variant: str = "qa") -> List[str]:
    """Comparison strings of one AVeriTeC JSON record, built as the official scorer does.

    ``"qa"``: per question and per answer ``question + " " + answer`` (Boolean answers followed
    by ``". " + boolean_explanation``; no answers: ``question + " No answer could be found."``);
    ``"q"``: one string per question. Then any ``string_evidence`` entries (``"qa"`` variant
    only; for ``"q"`` they are used only when there is no ``questions`` field, as officially).

    Args:
        example: dict with ``questions`` (list of ``{question, answers: [...]}``) and/or
            ``string_evidence`` (list of str).
        variant: ``"qa"`` or ``"q"``.

    Raises:
        ValueError: bad ``variant`` or a record without the expected fields/types.
    """
    _check_variant(variant)
    if not isinstance(example, Mapping):
        raise ValueError(f"example: expected a dict, got {type(example).__name__}")
    out: List[str] = []
    questions = example.get("questions")
    if questions is not None:
        if not isinstance(questions, list):
            raise ValueError("example['questions']: expected a list")
        for k, q in enumerate(questions):
            if not isinstance(q, Mapping) or not isinstance(q.get("question"), str):
                raise ValueError(f"example['questions'][{k}]: expected {{'question': str, 'answers': [...]}}")
            if variant == "q":
                out.append(q["question"])
                continue
            answers = q.get("answers", [])
            if not isinstance(answers, list):
                answers = [answers]
            for j, a in enumerate(answers):
                where = f"example['questions'][{k}]['answers'][{j}]"
                if not isinstance(a, Mapping) or not isinstance(a.get("answer"), str):
                    raise ValueError(f"{where}: expected {{'answer': str, ...}}, got {a!r:.80}")
                s = q["question"] + " " + a["answer"]
                if a.get("answer_type") == "Boolean":
                    expl = a.get("boolean_explanation")
                    if not isinstance(expl, str):
                        raise ValueError(f"{where}: a Boolean answer needs a 'boolean_explanation' string, "
                                         f"got {expl!r:.80}")
                    s += ". " + expl
                out.append(s)
            if not answers:
                out.append(q["question"] + " " + NO_ANSWER)
    strings = example.get("string_evidence")
    if strings is not None and (variant == "qa" or questions is None):
        if isinstance(strings, str) or not isinstance(strings, list):
            raise ValueError("example['string_evidence']: expected a list of strings")
        out.extend(str(s) for s in strings)
    if questions is None and strings is None:
        raise ValueError("example: has neither 'questions' nor 'string_evidence'")
    return out


