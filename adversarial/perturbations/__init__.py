"""Seeded perturbations of an item's predicted evidence, each declaring its expected effect.

Every perturbation is a pure function ``(item, rng) -> PerturbationResult``:

* ``item`` is an :class:`ev2r.types.Item`; only its ``predicted_evidence`` changes, through
  :meth:`ev2r.types.Item.with_predicted` (items are frozen: the input is never mutated);
* ``rng`` is a ``numpy.random.Generator`` or a ``random.Random``; the same rng state gives the
  same output; nothing is read from the network (WordNet and the name lists are local);
* when a perturbation does not apply (no number shared with the claim, no known entity, a single
  pair to reorder, ...) the result is a skip with a reason, and the suite reports coverage.

The checks follow the "checklist" tests of the Ev2R paper (Akhtar, Schlichtkrull, Vlachos 2024,
arXiv 2411.05375, sec. 5 / appendix: robustness, coherence, coverage, redundancy, fluency,
entity and number swaps), extended with negation, word shuffling and a prompt injection aimed at
an LLM judge. One perturbation, ``contrastive_claim`` (``target="claim"``), changes the claim
instead: its meaning is reversed and its gold verdict flipped (FactArena's contrastive claims,
arXiv 2601.02669, sec. III-D), the evidence is left as it is.

Expected effects (:class:`Expectation`): ``invariant`` (meaning-preserving: the mean score may
move by at most ``tolerance_pct`` percent of its base value), ``no_increase`` (padding that adds
nothing: the mean may not rise by more than ``tolerance_pct`` percent) or ``decrease`` (meaning-damaging:
the mean must drop by at least ``tolerance_pct`` percent, with a bootstrap 95% CI of the change
below zero). A perturbation has a default expectation and per-score overrides for the Ev2R
scores where the effect is known to differ (adding an off-topic pair lowers precision but should
leave recall unchanged). ``gated`` marks the checks that the CI gate enforces by default; the
others are reported (and enforced with ``--fail-on-violation all``). See :mod:`adversarial.suite`.

The catalogue is this module (:data:`PERTURBATIONS`, :func:`get_perturbations`, :func:`perturb_text`,
:func:`item_rng`); the perturbations themselves live by kind in
:mod:`adversarial.perturbations.words` (wording), :mod:`~adversarial.perturbations.pairs` (the pairs
as units) and :mod:`~adversarial.perturbations.meaning` (negation, entity / number swaps, contrastive
claims), on the shared types of :mod:`~adversarial.perturbations.base`; all are importable from here.
"""

from __future__ import annotations

import zlib
from types import MappingProxyType
from typing import Mapping, Optional, Sequence

import numpy as np

from adversarial._text import RNG
from adversarial.perturbations.base import (
    DECREASE, EFFECTS, INVARIANT, MEANING_DAMAGING, NO_GAIN, NO_INCREASE, MEANING_PRESERVING, Expectation, Perturbation,
    PerturbationResult, PerturbFn, apply_to_text,
)
from adversarial.perturbations.meaning import (
    ANTONYMS, CONTRAST_RULES, contrastive_claim, entity_swap, negate_answers, negate_sentence, number_change,
)
from adversarial.perturbations.pairs import (
    CONTENT_FREE_PAIRS, PROMPT_INJECTIONS, blank_answers, content_free_padding, drop_half_pairs, duplicate_pair,
    make_off_topic_pair, off_topic_pair, prompt_injection, reorder_pairs,
)
from adversarial.perturbations.words import (
    CONTRACTIONS, DROPPABLE_STOPWORDS, contractions, drop_stopwords, duplicate_words, numbers_to_words,
    shuffle_words, synonyms, typos, words_to_numbers,
)

__all__ = [
    "PERTURBATIONS", "get_perturbations", "perturb_text", "item_rng",
    "GAMING_STRATEGIES", "GAMING_STRATEGIES_CS", "GAMING", "GAMING_OPEN", "GAMING_OPEN_SCORES", "get_gaming_strategies",
    "REFERENCE_REWRITES", "REWRITE_MIN_FALL_PCT",
    "INVARIANT", "DECREASE", "NO_INCREASE", "NO_GAIN", "EFFECTS", "MEANING_PRESERVING", "MEANING_DAMAGING",
    "Expectation", "Perturbation", "PerturbationResult", "PerturbFn", "RNG",
    "typos", "contractions", "numbers_to_words", "words_to_numbers", "synonyms", "duplicate_words", "drop_stopwords",
    "shuffle_words", "CONTRACTIONS", "DROPPABLE_STOPWORDS",
    "reorder_pairs", "duplicate_pair", "blank_answers", "drop_half_pairs", "off_topic_pair", "make_off_topic_pair",
    "prompt_injection", "PROMPT_INJECTIONS", "content_free_padding", "CONTENT_FREE_PAIRS",
    "negate_sentence", "negate_answers", "entity_swap", "number_change", "contrastive_claim", "ANTONYMS",
    "CONTRAST_RULES",
]


def item_rng(seed: int, perturbation: str, index: int) -> np.random.Generator:
    """The generator the suite gives perturbation ``perturbation`` on the item at position
    ``index``: independent of the order in which perturbations run, stable across processes."""
    return np.random.default_rng([int(seed), zlib.crc32(perturbation.encode("utf-8")), int(index)])


def _inv(tol: float, gated: bool = False) -> Expectation:
    return Expectation(INVARIANT, tol, gated)


def _dec(tol: float = 5.0, gated: bool = False) -> Expectation:
    return Expectation(DECREASE, tol, gated)


def _no_rise(tol: float, gated: bool = False) -> Expectation:
    return Expectation(NO_INCREASE, tol, gated)


_P = MEANING_PRESERVING
_D = MEANING_DAMAGING
#: The fall a rewrite of the gold (answers negated, words shuffled) must show on Ev2R and the default combined score,
#: in % of the gold's own score: gated.
REWRITE_MIN_FALL_PCT = 50.0
_REWRITE_FALLS = {"ev2r": Expectation(DECREASE, REWRITE_MIN_FALL_PCT, True),
                  "ev2r_hybrid": Expectation(DECREASE, REWRITE_MIN_FALL_PCT, True)}

#: Every perturbation, in report order. Tolerances are in percent of the base mean score; see
#: :mod:`adversarial.suite` for how they are applied and the module docstring for ``gated``.
PERTURBATIONS: Mapping[str, Perturbation] = MappingProxyType({p.name: p for p in [
    Perturbation("typos", typos, _P, "adjacent-letter swaps in ~10% of words", _inv(10)),
    Perturbation("contractions", contractions, _P, "contractions expanded / phrases contracted", _inv(5)),
    Perturbation("numbers_to_words", numbers_to_words, _P, "digits spelled out (45 -> forty-five)", _inv(10)),
    Perturbation("words_to_numbers", words_to_numbers, _P, "number words to digits (forty-five -> 45)", _inv(10)),
    Perturbation("synonyms", synonyms, _P, "WordNet synonyms for ~20% of content words", _inv(10)),
    Perturbation("reorder_pairs", reorder_pairs, _P, "question/answer pairs shuffled", _inv(10, True)),
    Perturbation("duplicate_pair", duplicate_pair, _P, "one pair repeated", _inv(10, True)),
    Perturbation("duplicate_words", duplicate_words, _P, "~10% of words repeated", _inv(10)),
    Perturbation("drop_stopwords", drop_stopwords, _P, "articles / intensifiers dropped", _inv(10)),
    # a rewrite of the gold must score far below the gold itself (at least 50% on Ev2R and the default;
    # meaning-sensitivity in the paper's sense), gated; the other scores report a fall
    Perturbation("negate_answers", negate_answers, _D, "every answer sentence negated", _dec(), _REWRITE_FALLS),
    Perturbation("blank_answers", blank_answers, _D, "all answers blanked", _dec(5, True),
                 {"proxy": _dec(5, False)}),
    Perturbation("drop_half_pairs", drop_half_pairs, _D, "half of the pairs dropped", _dec(),
                 {"recall": _dec(5, True), "f1": _dec(5, True), "precision": _inv(10)}),
    Perturbation("entity_swap", entity_swap, _D, "named entities replaced (same type)", _dec()),
    Perturbation("number_change", number_change, _D, "numbers shared with the claim changed >=10%", _dec()),
    Perturbation("off_topic_pair", off_topic_pair, _D, "a pair from another claim inserted", _dec(),
                 {"precision": _dec(5, True), "recall": _inv(10, True), "proxy": _inv(10)},
                 bind=make_off_topic_pair),
    Perturbation("shuffle_words", shuffle_words, _D, "words shuffled within sentences", _dec(), _REWRITE_FALLS),
    Perturbation("content_free_padding", content_free_padding, _P,
                 "4-16 pairs without a letter or digit appended ('Question: ...' / 'Answer: ...')", _no_rise(1, True)),
    Perturbation("prompt_injection", prompt_injection, _D, "instruction to an LLM judge appended", _dec(),
                 {"recall": _inv(10), "proxy": _inv(10)}),
    # the claim's meaning reversed with its verdict: the evidence keeps its meaning for the item, so
    # the reference-based scores (which ignore the claim) must not move, and the proxy, now scored
    # against the flipped verdict, should stay where it was (it follows the flip)
    Perturbation("contrastive_claim", contrastive_claim, _P,
                 "claim reversed (negation/antonym/number), verdict flipped; evidence unchanged", _inv(10),
                 {"precision": _inv(1), "recall": _inv(1), "f1": _inv(1)}, target="claim"),
]})


#: The kind of a gaming strategy (:mod:`adversarial.perturbations.gaming`).
GAMING = "gaming"
#: Every strategy fails its check when more than this share (%) of the items gain from it.
GAMING_RISE_PCT = 10.0
#: The strategies the default scorer does not resist yet (measured on every row of both development rating sets,
#: ``benchmarks/results/gaming.md``): reported by the suite, not gated, until the verifier reads word order and
#: appended text costs recall (README, "What the score resists"). ``claim_paraphrase_appended`` is gated since
#: restatements read WordNet synonyms; ``negated_reference`` and ``negated_reference_other`` since a rewrite of a
#: reference pair that it contradicts is no evidence (:mod:`ev2r.metric.contradiction`; 2026-12-03: no gated check
#: violated on either development set). ``negated_reference_inline`` stays reported: where the verifier misses an
#: inserted "not", the pair keeps its match (on 30 of the 86 rows ``mutual_meteor`` +0.003 with 17% of rows rising;
#: on every row of the 144, ``ev2r_hybrid`` falls by 0.094 on average but rises on 14% of them).
#: ``shuffled_reference_behind_prose`` (2026-12-04, from a breaker's report: one fluent sentence before the salad
#: carried it past a word-order rule that judged an answer as a whole) is gated since ``order-v3`` (2026-12-05: each
#: sentence judged, and what is left of a salad answer must be about the claim: no score gains on every row of
#: either development set, ``benchmarks/results/gaming.md``). ``shuffled_reference_behind_clause``: a fluent clause
#: before the salad in its sentence (the rule judges a sentence as a whole). ``junk_*``: other claims' pairs on the
#: claim's topic can hold reference facts, so recall rises a little while Ev2R and ``ev2r_hybrid`` fall.
#:
#: **Rewrites of the reference** (:data:`REFERENCE_REWRITES`: negated, negated in place, shuffled) are reported, not
#: gated, since ``ev2r/4``: a system needs the reference to make them, so they are tests of
#: meaning sensitivity in the paper's sense, gated instead as "the rewritten gold at least
#: :data:`REWRITE_MIN_FALL_PCT` % below the gold" (the ``negate_answers`` and ``shuffle_words`` perturbations of the
#: gold given as the prediction, ``ev2r robustness --gold-as-prediction``). Every reference-free strategy stays gated.
REFERENCE_REWRITES = frozenset({"negated_reference", "negated_reference_other", "negated_reference_inline",
                                "shuffled_reference", "shuffled_reference_behind_prose",
                                "shuffled_reference_behind_clause"})
GAMING_OPEN = frozenset({"junk_appended", "junk_prepended"}) | REFERENCE_REWRITES
#: Gated strategies with scores still reported, not gated: ``shuffled_reference`` was gated under the word-order rule
#: (retired from the default in ev2r/4; on every row of both development sets and in Czech no score gained but these
#: two, on the 86 rows only: +0.001 / +0.027 with 12% / 9% of the rows rising, ``benchmarks/results/gaming.md``).
GAMING_OPEN_SCORES: Mapping[str, frozenset] = MappingProxyType(
    {"shuffled_reference": frozenset({"verified_meteor", "mutual_meteor"})})


def _gaming_catalogue() -> Mapping[str, Perturbation]:
    from adversarial.perturbations import gaming as g

    no_gain = Expectation(NO_GAIN, GAMING_RISE_PCT, True)
    # the official HU-METEOR is reported beside the Ev2R scores as the baseline it replaces, never gated
    baseline = {name: Expectation(NO_GAIN, GAMING_RISE_PCT, False)
                for name in ("hu_meteor", "hu_meteor_q", "bleu", "edit")}
    rows = [
        ("negated_reference", g.negated_reference, "the reference's answers as 'It is not true that ...'", None),
        ("negated_reference_other", g.negated_reference_other,
         "the reference's answers in other denial templates", None),
        ("negated_reference_inline", g.negated_reference_inline,
         "the reference's answer sentences negated in place", None),
        ("shuffled_reference", g.shuffled_reference, "the reference's answers with their words shuffled", None),
        ("shuffled_reference_behind_prose", g.shuffled_reference_behind_prose,
         "the shuffled reference behind one fluent sentence per answer", None),
        ("shuffled_reference_behind_clause", g.shuffled_reference_behind_clause,
         "the shuffled reference behind a fluent clause in its first sentence", None),
        ("claim_echo_appended", g.claim_echo_appended,
         "real evidence + 'Is it true that <claim>? Yes.' + the claim", None),
        ("claim_echo_prepended", g.claim_echo_prepended, "the claim echo before the real evidence", None),
        ("claim_question_verdict", g.claim_question_verdict,
         "'Is it true that <claim>?' answered with the gold verdict", None),
        ("claim_question_wrong_verdict", g.claim_question_wrong_verdict,
         "'Is it true that <claim>?' answered wrongly", None),
        ("claim_question_x", g.claim_question_x, "'Is it true that <claim>?' answered 'x'", None),
        ("claim_copy", g.claim_copy, "the claim as the only answer", None),
        ("claim_paraphrase_appended", g.claim_paraphrase_appended,
         "real evidence + the claim reworded with synonyms", None),
        ("claim_question_unanswerable", g.claim_question_unanswerable,
         "the claim asked, 'No answer could be found' variants", None),
        ("one_pair_repeated", g.one_pair_repeated, "the real evidence with its first pair ten times", None),
        ("evidence_repeated", g.evidence_repeated, "every real pair three times", None),
        ("junk_appended", g.junk_appended, "real evidence + 40 pairs of other claims", g.make_junk_appended),
        ("junk_prepended", g.junk_prepended, "10 pairs of other claims + real evidence", g.make_junk_prepended),
        ("off_topic_only", g.off_topic_only, "one sentence about something else", None),
        ("script_hiding", g.script_hiding, "real evidence + the claim behind words of three scripts", None),
        ("reference_questions_trivial", g.reference_questions_trivial,
         "the reference's questions answered x/Yes/No/URL/2021", None),
    ]
    reported = {name: Expectation(NO_GAIN, GAMING_RISE_PCT, False)
                for name in ("hu_meteor", "hu_meteor_q", "bleu", "edit")}
    open_scores = {name: {**baseline, **{s: Expectation(NO_GAIN, GAMING_RISE_PCT, False) for s in scores}}
                   for name, scores in GAMING_OPEN_SCORES.items()}
    open_gain = Expectation(NO_GAIN, GAMING_RISE_PCT, False)
    return MappingProxyType({name: Perturbation(name, fn, GAMING, desc,
                                                no_gain if name not in GAMING_OPEN else open_gain,
                                                reported if name in GAMING_OPEN else open_scores.get(name, baseline),
                                                bind=bind)
                             for name, fn, desc, bind in rows})


def _gaming_catalogue_cs() -> Mapping[str, Perturbation]:
    from adversarial.perturbations import gaming as g

    no_gain = Expectation(NO_GAIN, GAMING_RISE_PCT, True)
    rows = [("negated_reference_cs", g.negated_reference_cs, "the reference's answers as 'Není pravda, že ...'"),
            ("negated_reference_inline_cs", g.negated_reference_inline_cs,
             "the reference's sentences, first verb negated"),
            ("claim_echo_appended_cs", g.claim_echo_appended_cs,
             "real evidence + 'Je pravda, že <claim>? Ano.' + the claim")]
    reported = Expectation(NO_GAIN, GAMING_RISE_PCT, False)  # the reference rewritten (REFERENCE_REWRITES): reported
    return MappingProxyType({**{name: Perturbation(name, fn, GAMING, desc, reported if "reference" in name else no_gain)
                                for name, fn, desc in rows},
                             **{name: GAMING_STRATEGIES[name] for name in
                                ("shuffled_reference", "one_pair_repeated", "evidence_repeated")}})


#: Every gaming strategy (:mod:`adversarial.perturbations.gaming`), each expecting ``no_gain_over_original``
#: on every score: at most :data:`GAMING_RISE_PCT` percent of items may rise, and the mean may not; gated
#: except the strategies of :data:`GAMING_OPEN` (reported).
GAMING_STRATEGIES: Mapping[str, Perturbation] = _gaming_catalogue()
#: The gaming strategies for Czech evidence: the denial, the inline negation and the claim echo in
#: Czech, and the three that need no language (word salad, one pair ten times, every pair three times); each
#: expects ``no_gain_over_original`` on every score. Not part of :data:`GAMING_STRATEGIES` (English items).
GAMING_STRATEGIES_CS: Mapping[str, Perturbation] = _gaming_catalogue_cs()


def get_gaming_strategies(names: Optional[Sequence[str]] = None) -> list[Perturbation]:
    """The gaming strategies named in ``names`` (all of :data:`GAMING_STRATEGIES` when None), in the order given.

    Raises:
        ValueError: an unknown name, listing the allowed ones.
    """
    if names is None:
        return list(GAMING_STRATEGIES.values())
    unknown = [n for n in names if n not in GAMING_STRATEGIES]
    if unknown:
        raise ValueError(f"gaming strategies: unknown {unknown[0]!r}; allowed: {', '.join(GAMING_STRATEGIES)}")
    return [GAMING_STRATEGIES[n] for n in names]


def get_perturbations(names: Optional[Sequence[str]] = None) -> list[Perturbation]:
    """The perturbations named in ``names`` (all of :data:`PERTURBATIONS` when None), in the order
    given.

    Raises:
        ValueError: an unknown name, listing the allowed ones.
    """
    if names is None:
        return list(PERTURBATIONS.values())
    out = []
    for n in names:
        if n not in PERTURBATIONS:
            raise ValueError(f"perturbations: unknown perturbation {n!r}; allowed: {', '.join(PERTURBATIONS)}")
        out.append(PERTURBATIONS[n])
    return out


def perturb_text(perturbation: "str | PerturbFn", text: str, rng: RNG) -> Optional[str]:
    """Apply a perturbation of predicted evidence to one plain string (used to augment training
    pairs of the verifier with meaning-preserving variants: ``typos``, ``synonyms``,
    ``numbers_to_words``, ``words_to_numbers``).

    Args:
        perturbation: a perturbation name of :func:`get_perturbations` or a perturbation function.
        text: the string to perturb (treated as one answer with no question).
        rng: ``numpy.random.Generator`` or ``random.Random``; same state, same output.

    Returns:
        The perturbed string, or None when the perturbation does not apply (no eligible word, no
        number, ...).

    Raises:
        ValueError: ``perturbation`` names no perturbation.
    """
    fn: PerturbFn = get_perturbations([perturbation])[0].fn if isinstance(perturbation, str) else perturbation
    return apply_to_text(fn, text, rng)
