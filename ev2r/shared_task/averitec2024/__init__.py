"""The AVeriTeC shared-task table (2024 edition), with the organisers' names and numbers.

Reproduces what the organisers' official ``eval.py`` (AVeriTeC repository, Schlichtkrull et
al., 2023; the scorer of the AVeriTeC shared task at FEVER 2024, Schlichtkrull et al., 2024,
*The Automated Verification of Textual Claims (AVeriTeC) Shared Task*) prints, from
predictions joined to a gold file:

* **Question-only score (HU-meteor)**: per claim, Hungarian METEOR of the predicted questions
  against the gold questions; mean over claims.
* **Question-answer score (HU-meteor)**: the same over question+answer strings (the claim's
  *evidence score*, below ``e``).
* **Veracity F1** per class (``Supported``, ``Refuted``, ``Not Enough Evidence``,
  ``Conflicting Evidence/Cherrypicking``), **macro** F1 and **acc**uracy
  (``sklearn.metrics.f1_score`` / ``accuracy_score``, the official calls).
* **Justification score (meteor)**: METEOR of the predicted justification against the gold
  one; a prediction without a ``justification`` uses its first 10 evidence strings joined by a
  space (the official fallback).
* **Averitec scores** at levels 0.1, 0.2, 0.25, 0.3, 0.4, 0.5: *Veracity* = share of claims
  whose label is right **and** ``e > level`` (strictly, as officially); *Justification* = mean
  of the justification METEOR counted only where ``e > level`` (0 elsewhere).
* **Veracity scores by claim type**, two blocks, thresholds 0.2 then 0.3: per gold
  ``claim_types`` entry, the mean over its claims of ``e`` where ``e > threshold``, else 0.
  Despite the official name this block does **not** look at labels: it is the thresholded
  evidence score (checked on the parity fixture).

Hungarian METEOR (Schlichtkrull et al. 2023, Sec. 5; official ``compute_pairwise_evidence_score``):
``M[i, j] = METEOR(reference=tok(gold_j), hypothesis=tok(pred_i))`` (nltk
``single_meteor_score``: alpha 0.9, beta 3, gamma 0.5, WordNet; ``tok`` = ``nltk.word_tokenize``),
optimal one-to-one assignment (``scipy.optimize.linear_sum_assignment``, maximise), assigned
total / **number of gold strings**; in [0, 1].

Comparison strings (official ``extract_full_comparison_strings``; this module builds them with
:func:`claimalign.averitec.averitec_comparison_strings` for the original format):

* original AVeriTeC format (``questions: [{question, answers: [{answer, answer_type,
  boolean_explanation?}]}]`` and/or ``string_evidence: [str]``, ``label``, optional
  ``justification``): one ``question + " " + answer`` per answer (a Boolean answer followed by
  ``". " + boolean_explanation``; a question without answers gives ``question + " No answer could
  be found."``), then the ``string_evidence`` strings. Question-only: the questions, or, when the
  record has no ``questions`` field, its ``string_evidence``.
* 2024 submission format (``claim_id``, ``evidence: [{question, answer, ...}]``, ``pred_label``):
  ``question + " " + answer`` for each item whose ``answer`` is not null; question-only: the first
  10 items' questions, as the organisers' 2024 baseline scorer does. A record that mixes
  ``evidence`` with ``questions``/``string_evidence`` is refused (:mod:`ev2r.io.averitec`). The 2024
  format has no justification; its fallback is the joined evidence strings as above (documented
  choice: the 2024 scorer printed no justification score).

**The 10-pair cap** (official ``max_questions = 10``) is kept: only the first 10 predicted
question+answer strings (first 10 questions for the question-only score) are scored; gold
strings are never cut. Each claim records whether it was capped.

**Reading and joining** are those of every AVeriTeC prediction file (:mod:`ev2r.io.averitec`, the
one reader, shared with ``ev2r score --references``). The gold file (e.g. AVeriTeC ``dev.json``)
has no ``claim_id``: a gold claim's id is its 0-based position in the file (when every gold record
carries a ``claim_id``, that is used instead). Predictions join on their ``claim_id``; the join
must be one-to-one, otherwise :class:`JoinError` names the offending ids (duplicates, ids absent
from the gold file, gold ids without a prediction, a prediction whose ``claim`` text differs from
the gold claim's). The official script zips the two lists by position instead;
``join="position"`` does that, but only for lists of equal length whose ``claim`` texts (where
given) agree.

**Departures from the official script on malformed input** (well-formed input, such as the
parity fixture, gets the official numbers to floating-point rounding):

* a gold claim with no questions (the official script raises ``ZeroDivisionError``: its
  Hungarian METEOR divides by the number of gold strings) or no justification (``KeyError``)
  gets status ``failed`` with its causes (``no_reference_questions``, ``no_reference_evidence``,
  ``no_reference_justification``); it is left out of the means that need the missing part
  (``n_scored`` says how many claims each mean covers), and the report gives ``n_failed`` by
  cause with the ids. On the parity fixture no claim fails;
* a prediction with no evidence scores 0 (as officially; a retrieval that found nothing earns
  nothing) but is flagged ``no_predicted_evidence``;
* an F1 class with neither gold nor predicted claims is 0 (sklearn ``zero_division=0``, as
  officially) and is listed in ``f1_undefined_classes``;
* bad labels or fields raise :class:`AveritecInputError` (a ``ValueError``) naming the record,
  the field and the allowed values; the input objects are never modified (the official script
  rewrites non-list ``answers`` in place).

Tokens are exactly ``nltk.word_tokenize``'s (:func:`claimalign.meteor_fast.tokenize`), with no Unicode
normalisation or splitting of unspaced scripts, so the numbers stay the official ones on any text
(:func:`claimalign.hu_meteor` uses the same tokens by default; only its ``tokens="script"`` departs).

Layout: :mod:`.claims` (records, validation, join), :mod:`.scoring` (:func:`evaluate_averitec`,
:class:`AveritecReport`), :mod:`.table` (:func:`format_official_table`); every name is importable
from this package.

Speed: each distinct string is tokenised once and each distinct (gold, predicted) token pair is
scored once, with :mod:`claimalign.meteor_fast` (nltk's METEOR, identical values, per-word
stemming and WordNet look-ups cached); ``meteor="nltk"`` calls nltk's own function instead.
"""

from ev2r.shared_task.averitec2024.claims import (FORMATS, MAX_QUESTIONS, VERDICTS, AveritecInputError, GoldClaim,
                                                 JoinError, PredictedClaim, join_claims, prepare_gold,
                                                 prepare_predictions)
from ev2r.shared_task.averitec2024.scoring import (AVERITEC_LEVELS, EDITIONS, FAILURE_CAUSES, METEOR_IMPLEMENTATIONS,
                                                  TYPE_THRESHOLDS, AveritecReport, ClaimResult, averitec_contribution,
                                                  evaluate_averitec, thresholded_evidence)
from ev2r.shared_task.averitec2024.table import format_official_table, table_notes

__all__ = [
    "EDITIONS", "VERDICTS", "AVERITEC_LEVELS", "TYPE_THRESHOLDS", "MAX_QUESTIONS", "FORMATS",
    "FAILURE_CAUSES", "METEOR_IMPLEMENTATIONS", "AveritecInputError", "JoinError", "GoldClaim", "PredictedClaim",
    "ClaimResult", "AveritecReport", "prepare_gold", "prepare_predictions", "join_claims",
    "evaluate_averitec", "format_official_table", "table_notes", "averitec_contribution", "thresholded_evidence",
]
