"""Gaming strategies: evidence a cheating or lazy system could output to raise its score without
retrieving better evidence (cases in ``shared/cases/turn4/gaming/``).

Each strategy is a pure, seeded function ``(item, rng) -> PerturbationResult`` like every
perturbation of :mod:`adversarial.perturbations`, and every one declares the same expectation for
every score: ``no_gain_over_original`` -- the gamed evidence must not score above the item's real
predicted evidence (:mod:`adversarial.suite`: the check fails when the bootstrap CI95 of the mean
change lies wholly above 0). Some strategies copy what a leaderboard participant never sees (the
reference evidence, negated or shuffled); they stand for the worst case of evidence that *looks
like* the reference and says something else. The catalogue is :data:`GAMING_STRATEGIES`.

Strategies by what they exploit:

* **the reference, made wrong**: ``negated_reference`` (the handed case: "It is not true that ..."),
  ``negated_reference_other`` (other denial templates, none of which the verifier's training
  augmentation uses: :data:`SUITE_DENIALS`), ``negated_reference_inline`` (each sentence negated in
  place by :func:`adversarial.perturbations.negate_sentence`: "not", "never", a flipped Yes/No),
  ``shuffled_reference`` (the reference's answers with their words shuffled),
  ``shuffled_reference_behind_prose`` (the same behind one fluent sentence per answer),
  ``shuffled_reference_behind_clause`` (behind a fluent clause, in the salad's first sentence);
* **the claim echoed back**: ``claim_echo_appended`` / ``claim_echo_prepended`` (the real evidence
  plus "Is it true that <claim>? Yes." and the claim as an answer), ``claim_question_verdict``
  ("Is it true that <claim>?" answered with the gold verdict's word), ``claim_question_wrong_verdict``
  (answered with the opposite word), ``claim_question_x`` (answered "x"), ``claim_copy`` (the claim
  as the only answer), ``claim_paraphrase_appended`` (the claim reworded with WordNet synonyms,
  appended), ``claim_question_unanswerable`` (the claim asked, answered by a variant of "No answer
  could be found.");
* **volume without content**: ``one_pair_repeated`` (the first real pair ten times, then the rest),
  ``evidence_repeated`` (every real pair three times), ``junk_appended`` (40 pairs of other claims'
  evidence appended), ``junk_prepended`` (10 prepended), ``off_topic_only`` (one sentence about
  something else), ``script_hiding`` (the claim appended behind words in three scripts that the
  scraped-page rule drops from the facts);
* **the reference's questions without answers**: ``reference_questions_trivial`` (each
  reference question answered "x", "Yes", "No", a URL or a year);
* **in Czech** (:data:`adversarial.perturbations.GAMING_STRATEGIES_CS`, with the language-free
  ``shuffled_reference``, ``one_pair_repeated`` and ``evidence_repeated``): ``negated_reference_cs`` ("Není pravda,
  že ..."), ``negated_reference_inline_cs`` (the first verb negated, ``ne-``), ``claim_echo_appended_cs`` ("Je pravda,
  že <claim>? Ano." and the claim).
"""

from __future__ import annotations

from typing import Sequence

from claimalign.evidence import Evidence, Item, QAPair
from claimalign.words import has_content, is_unanswerable

from adversarial._text import RNG, as_generator, map_sentences
from adversarial.perturbations.base import PerturbationResult, PerturbFn, apply_to_text

__all__ = [
    "SUITE_DENIALS", "UNANSWERABLE_VARIANTS", "that_clause", "TRIVIAL_ANSWERS", "OFF_TOPIC_PAIR", "SCRIPT_MIX",
    "negated_reference", "negated_reference_other", "negated_reference_inline", "shuffled_reference",
    "PROSE_LEAD", "PROSE_CLAUSE", "shuffled_reference_behind_prose", "shuffled_reference_behind_clause",
    "claim_echo_appended", "claim_echo_prepended", "claim_question_verdict", "claim_question_wrong_verdict",
    "claim_question_x", "claim_copy", "claim_paraphrase_appended", "claim_question_unanswerable",
    "one_pair_repeated", "evidence_repeated", "make_junk_appended", "make_junk_prepended", "junk_appended",
    "junk_prepended", "off_topic_only", "script_hiding", "reference_questions_trivial",
    "CZECH_DENIAL", "CZECH_ECHO_QUESTION", "CZECH_YES", "negated_reference_cs", "negated_reference_inline_cs",
    "claim_echo_appended_cs",
]

#: Denial templates of the suite (``{s}``: the sentence, first letter lower-cased). None of them is a
#: template of the verifier's training augmentation (:data:`ev2r.training.augment.DENIAL_TEMPLATES`),
#: so the suite measures whether the verifier reads a denial it never saw in training.
SUITE_DENIALS = (
    "It is a myth that {s}.",
    "Nobody has ever shown that {s}.",
    "Claims that {s} have been debunked.",
    "It is wrong to say that {s}.",
    "The idea that {s} is untrue.",
)
#: Ways people type AVeriTeC's Unanswerable answer.
UNANSWERABLE_VARIANTS = ("No answer could be found\u2026", "No answer could be found. No answer could be found.",
                         "No answer found.", "(No answer could be found.)", "No answer could be found in the sources.")
#: Answers that state nothing about the question's subject.
TRIVIAL_ANSWERS = ("x", "Yes", "No", "https://www.example.com/news/article-1234", "2021")
#: One pair about something else entirely.
OFF_TOPIC_PAIR = QAPair("What is the capital of France?", "Paris is the capital of France.")
#: Words of three scripts (a language switcher), which the scraped-page rule reads as boilerplate.
SCRIPT_MIX = ("English Espa\u00f1ol \u4e2d\u6587 \u0420\u0443\u0441\u0441\u043a\u0438\u0439 "
              "\u0627\u0644\u0639\u0631\u0628\u064a\u0629")


def _informative(evidence: Evidence) -> list[QAPair]:
    return [p for p in evidence.pairs if has_content(p.answer) and not is_unanswerable(p.answer)]


_FUNCTION_WORDS = frozenset(
    "the a an it there this that these those its his her their our we they he she yes no".split())


def that_clause(sentence: str) -> str:
    """``sentence`` as a that-clause: final punctuation dropped, a capitalised function word
    ("The", "It", ...) lower-cased; names keep their case."""
    s = sentence.strip().rstrip(".!?\u2026 ")
    first = s.split(" ", 1)[0]
    if first.lower() in _FUNCTION_WORDS and first[:1].isupper():
        s = s[0].lower() + s[1:]
    return s


def _question(claim: str) -> str:
    return f"Is it true that {that_clause(claim)}?"


def _done(item: Item, pairs: Sequence[QAPair], n_edits: int) -> PerturbationResult:
    new = item.with_predicted(Evidence(tuple(pairs)))
    if new.predicted_evidence == item.predicted_evidence:
        return PerturbationResult.skip("the gamed evidence equals the real evidence")
    return PerturbationResult(new, None, max(1, n_edits))


def _need_claim(item: Item) -> PerturbationResult | None:
    return None if has_content(item.claim) else PerturbationResult.skip("no claim text")


def _need_reference(item: Item) -> tuple[list[QAPair], PerturbationResult | None]:
    pairs = _informative(item.reference_evidence)
    return pairs, (None if pairs else PerturbationResult.skip("no reference pair with an answer"))


def _need_predicted(item: Item) -> tuple[list[QAPair], PerturbationResult | None]:
    pairs = _informative(item.predicted_evidence)
    return pairs, (None if pairs else PerturbationResult.skip("no predicted pair with an answer"))


# ----------------------------------------------------------------------------- the reference, made wrong

def _rewrite_reference(item: Item, rewrite) -> PerturbationResult:
    pairs, skip = _need_reference(item)
    if skip:
        return skip
    # only the pairs the rewrite changed: a reference pair left as it is would be gold evidence, which a
    # system may well retrieve (and ev2r credits as such: reference.py, +twin), not a gamed answer
    new = [QAPair(p.question, a) for p in pairs if (a := map_sentences(p.answer, rewrite)) != p.answer]
    if not new:
        return PerturbationResult.skip("no reference answer the rewrite changes")
    return _done(item, new, len(new))


def negated_reference(item: Item, rng: RNG) -> PerturbationResult:
    """The reference's pairs as the prediction, each answer sentence prefixed "It is not true that"
    (the handed case G1)."""
    return _rewrite_reference(item, lambda s: f"It is not true that {that_clause(s)}.")


def negated_reference_other(item: Item, rng: RNG) -> PerturbationResult:
    """The reference's pairs, each answer sentence wrapped in a denial template of
    :data:`SUITE_DENIALS` drawn per sentence."""
    g = as_generator(rng)
    return _rewrite_reference(
        item, lambda s: SUITE_DENIALS[int(g.integers(len(SUITE_DENIALS)))].format(s=that_clause(s)))


def negated_reference_inline(item: Item, rng: RNG) -> PerturbationResult:
    """The reference's pairs, each answer sentence negated in place
    (:func:`adversarial.perturbations.negate_sentence`: "not" / "never" inserted or removed, Yes/No flipped);
    a pair with no sentence it can negate is left out (as by every rewrite of the reference here)."""
    from adversarial.perturbations.meaning import negate_sentence

    return _rewrite_reference(item, negate_sentence)


def shuffled_reference(item: Item, rng: RNG) -> PerturbationResult:
    """The reference's pairs, the words of each answer sentence shuffled (word salad, handed case G4)."""
    from adversarial.perturbations.words import shuffle_sentence

    g = as_generator(rng)
    return _rewrite_reference(item, lambda s: shuffle_sentence(s, g))


#: The fluent sentence ``shuffled_reference_behind_prose`` puts before each answer's word salad.
PROSE_LEAD = "According to the official report that was released by the government on Monday, the following was found."
#: The fluent clause ``shuffled_reference_behind_clause`` puts before each answer's word salad, in its sentence.
PROSE_CLAUSE = "According to the official report that was released by the government on Monday,"


def _behind(item: Item, rng: RNG, lead: str) -> PerturbationResult:
    r = shuffled_reference(item, rng)
    if not r.applied or r.item is None:
        return r
    pairs = tuple(QAPair(p.question, f"{lead} {p.answer}") for p in r.item.predicted_evidence.pairs)
    return _done(item, list(pairs), len(pairs))


def shuffled_reference_behind_prose(item: Item, rng: RNG) -> PerturbationResult:
    """``shuffled_reference`` with :data:`PROSE_LEAD` before each answer: one fluent sentence carries a salad
    answer past a word-order test of the answer as a whole, so such a test must judge each sentence."""
    return _behind(item, rng, PROSE_LEAD)


def shuffled_reference_behind_clause(item: Item, rng: RNG) -> PerturbationResult:
    """``shuffled_reference`` with the clause :data:`PROSE_CLAUSE` before each answer, in the salad's first
    sentence: a word-order test that judges a sentence as a whole judges the fluent clause with the salad after
    it."""
    return _behind(item, rng, PROSE_CLAUSE)


# ----------------------------------------------------------------------------- the claim echoed back

def _echo_pairs(item: Item) -> list[QAPair]:
    return [QAPair(_question(item.claim), "Yes."), QAPair("", item.claim.strip())]


def claim_echo_appended(item: Item, rng: RNG) -> PerturbationResult:
    """The real evidence, then "Is it true that <claim>?" answered "Yes." and the claim as an answer (G2)."""
    skip = _need_claim(item)
    if skip:
        return skip
    return _done(item, list(item.predicted_evidence.pairs) + _echo_pairs(item), 2)


def claim_echo_prepended(item: Item, rng: RNG) -> PerturbationResult:
    """The echo pairs of :func:`claim_echo_appended` before the real evidence."""
    skip = _need_claim(item)
    if skip:
        return skip
    return _done(item, _echo_pairs(item) + list(item.predicted_evidence.pairs), 2)


def _verdict_word(item: Item, wrong: bool) -> str | None:
    from claimalign.evidence import Verdict

    label = item.gold_label
    if label == Verdict.SUPPORTED:
        return "No." if wrong else "Yes."
    if label == Verdict.REFUTED:
        return "Yes." if wrong else "No."
    return None


def claim_question_verdict(item: Item, rng: RNG) -> PerturbationResult:
    """Only "Is it true that <claim>?" answered with the gold verdict's word ("Yes." for Supported,
    "No." for Refuted; skipped for the other verdicts) (G3)."""
    word = _verdict_word(item, wrong=False)
    if word is None or _need_claim(item):
        return PerturbationResult.skip("the verdict is neither Supported nor Refuted")
    return _done(item, [QAPair(_question(item.claim), word)], 1)


def claim_question_wrong_verdict(item: Item, rng: RNG) -> PerturbationResult:
    """Only "Is it true that <claim>?" answered with the opposite word ("No." for Supported)."""
    word = _verdict_word(item, wrong=True)
    if word is None or _need_claim(item):
        return PerturbationResult.skip("the verdict is neither Supported nor Refuted")
    return _done(item, [QAPair(_question(item.claim), word)], 1)


def claim_question_x(item: Item, rng: RNG) -> PerturbationResult:
    """Only "Is it true that <claim>?" answered "x"."""
    skip = _need_claim(item)
    if skip:
        return skip
    return _done(item, [QAPair(_question(item.claim), "x")], 1)


def claim_copy(item: Item, rng: RNG) -> PerturbationResult:
    """The claim itself as the only answer (no question)."""
    skip = _need_claim(item)
    if skip:
        return skip
    return _done(item, [QAPair("", item.claim.strip())], 1)


def claim_paraphrase_appended(item: Item, rng: RNG) -> PerturbationResult:
    """The real evidence, then the claim reworded ("According to reports, " + WordNet synonyms for
    about half of its content words) as the answer to "What was reported?".

    Raises:
        adversarial.resources.ResourceMissingError: WordNet is not installed (the suite reports the
            strategy as unavailable).
    """
    from adversarial.perturbations.words import synonyms

    skip = _need_claim(item)
    if skip:
        return skip
    g = as_generator(rng)
    reworded = apply_to_text(lambda it, r: synonyms(it, r, rate=0.5), item.claim, g) or item.claim
    text = f"According to reports, {that_clause(reworded)}."
    return _done(item, list(item.predicted_evidence.pairs) + [QAPair("What was reported?", text)], 1)


def claim_question_unanswerable(item: Item, rng: RNG) -> PerturbationResult:
    """Only "Is it true that <claim>?" answered with a variant of "No answer could be found."
    (:data:`UNANSWERABLE_VARIANTS`, drawn) (G9)."""
    skip = _need_claim(item)
    if skip:
        return skip
    g = as_generator(rng)
    answer = UNANSWERABLE_VARIANTS[int(g.integers(len(UNANSWERABLE_VARIANTS)))]
    return _done(item, [QAPair(_question(item.claim), answer)], 1)


# ----------------------------------------------------------------------------- volume without content

def one_pair_repeated(item: Item, rng: RNG) -> PerturbationResult:
    """The real evidence with its first pair ten times in a row (G5: copies of one pair must not
    each take a reference pair)."""
    pairs, skip = _need_predicted(item)
    if skip:
        return skip
    real = list(item.predicted_evidence.pairs)
    return _done(item, [real[0]] * 10 + real[1:], 9)


def evidence_repeated(item: Item, rng: RNG) -> PerturbationResult:
    """Every real pair three times in a row."""
    pairs, skip = _need_predicted(item)
    if skip:
        return skip
    return _done(item, [p for p in item.predicted_evidence.pairs for _ in range(3)], 2 * len(pairs))


def _junk(items: Sequence[Item], k: int, at_end: bool) -> PerturbFn:
    def fn(item: Item, rng: RNG) -> PerturbationResult:
        g = as_generator(rng)
        others = [p for it in items if it.claim != item.claim for p in _informative(it.predicted_evidence)]
        if not others:
            return PerturbationResult.skip("no other claim's evidence in the run")
        picked = [others[int(j)] for j in g.choice(len(others), size=min(k, len(others)), replace=False)]
        real = list(item.predicted_evidence.pairs)
        return _done(item, real + picked if at_end else picked + real, len(picked))
    return fn


def make_junk_appended(items: Sequence[Item]) -> PerturbFn:
    """:func:`junk_appended` drawing its 40 pairs from the other claims of ``items``."""
    return _junk(items, 40, at_end=True)


def make_junk_prepended(items: Sequence[Item]) -> PerturbFn:
    """:func:`junk_prepended` drawing its 10 pairs from the other claims of ``items``."""
    return _junk(items, 10, at_end=False)


def junk_appended(item: Item, rng: RNG) -> PerturbationResult:
    """The real evidence, then 40 pairs of other claims' evidence (G6). Alone (no run to draw from)
    it is skipped; the suite binds it to the run's items (:func:`make_junk_appended`)."""
    return PerturbationResult.skip("needs the other items of the run (bind)")


def junk_prepended(item: Item, rng: RNG) -> PerturbationResult:
    """10 pairs of other claims' evidence, then the real evidence (bound like :func:`junk_appended`)."""
    return PerturbationResult.skip("needs the other items of the run (bind)")


def off_topic_only(item: Item, rng: RNG) -> PerturbationResult:
    """One pair about something else (:data:`OFF_TOPIC_PAIR`) as the whole evidence (G7)."""
    return _done(item, [OFF_TOPIC_PAIR], 1)


def script_hiding(item: Item, rng: RNG) -> PerturbationResult:
    """The real evidence, then the claim behind words of three scripts (:data:`SCRIPT_MIX`): a unit
    the scraped-page rule drops from the facts, which the proxy would still read."""
    skip = _need_claim(item)
    if skip:
        return skip
    pair = QAPair("Which languages is the page in?", f"{SCRIPT_MIX} {item.claim.strip()}")
    return _done(item, list(item.predicted_evidence.pairs) + [pair], 1)


# ----------------------------------------------------------------------------- the reference's questions, no answers

def reference_questions_trivial(item: Item, rng: RNG) -> PerturbationResult:
    """Each reference question answered by one of :data:`TRIVIAL_ANSWERS` (drawn per pair) (G8)."""
    pairs, skip = _need_reference(item)
    if skip:
        return skip
    g = as_generator(rng)
    new = [QAPair(p.question, TRIVIAL_ANSWERS[int(g.integers(len(TRIVIAL_ANSWERS)))])
           for p in pairs if p.question.strip()]
    if not new:
        return PerturbationResult.skip("no reference question")
    return _done(item, new, len(new))


# ----------------------------------------------------------------------------- in Czech

#: The Czech denial the Czech strategies wrap each reference sentence in ("It is not true that ...").
CZECH_DENIAL = "Není pravda, že {s}."
#: The Czech claim echo: "Is it true that <claim>?" answered "Yes.".
CZECH_ECHO_QUESTION, CZECH_YES = "Je pravda, že {s}?", "Ano."


def _cs_clause(sentence: str) -> str:
    """A Czech sentence as a že-clause: final punctuation dropped, a capital first letter lower-cased unless
    the second letter is a capital too (an abbreviation) -- Czech capitalises names, which the rule cannot
    tell from a sentence start, so a name may come out lower-cased (the verifier reads it either way)."""
    s = sentence.strip().rstrip(".!?\u2026 ")
    return s[0].lower() + s[1:] if len(s) > 1 and s[0].isupper() and not s[1].isupper() else s


def negated_reference_cs(item: Item, rng: RNG) -> PerturbationResult:
    """The reference's pairs, each answer sentence as "Není pravda, že ..." (Czech ``negated_reference``)."""
    return _rewrite_reference(item, lambda s: CZECH_DENIAL.format(s=_cs_clause(s)))


def negated_reference_inline_cs(item: Item, rng: RNG) -> PerturbationResult:
    """The reference's pairs, each answer sentence with its first verb negated
    (:func:`adversarial.perturbations.meaning.negate_czech`; a sentence it cannot negate stays as it is)."""
    from adversarial.perturbations.meaning import negate_czech

    return _rewrite_reference(item, lambda s: negate_czech(s) or s)


def claim_echo_appended_cs(item: Item, rng: RNG) -> PerturbationResult:
    """The real evidence, then "Je pravda, že <claim>?" answered "Ano." and the claim as an answer (Czech
    ``claim_echo_appended``)."""
    skip = _need_claim(item)
    if skip:
        return skip
    echo = [QAPair(CZECH_ECHO_QUESTION.format(s=_cs_clause(item.claim)), CZECH_YES), QAPair("", item.claim.strip())]
    return _done(item, list(item.predicted_evidence.pairs) + echo, 2)
