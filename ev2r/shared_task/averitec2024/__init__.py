"""The AVeriTeC shared-task table (2024 edition), with the organisers' names and numbers.

Reproduces what the official ``eval.py`` (Schlichtkrull et al. 2023; the FEVER 2024 shared task, Schlichtkrull et
al. 2024) prints, from predictions joined to a gold file: the question-only and question-answer scores (Hungarian
METEOR, the latter the claim's evidence score ``e``), veracity F1 per class, macro F1 and accuracy, the justification
METEOR, the AVeriTeC scores at levels 0.1-0.5 (right label **and** ``e > level``) and the thresholded evidence score
by claim type.

Hungarian METEOR (Schlichtkrull et al. 2023, Sec. 5; official ``compute_pairwise_evidence_score``):
``M[i, j] = METEOR(reference=tok(gold_j), hypothesis=tok(pred_i))`` (nltk ``single_meteor_score``, ``tok`` =
``nltk.word_tokenize``), optimal one-to-one assignment, assigned total / **number of gold strings**; in [0, 1]. Only
the first 10 predicted strings are scored (official ``max_questions = 10``); gold strings are never cut.

Both the original AVeriTeC format and the 2024 submission format are read (:mod:`ev2r.io.averitec`, comparison
strings by :func:`claimalign.averitec.averitec_comparison_strings`). Predictions join on ``claim_id`` one to one
(:class:`JoinError` names the offending ids; ``join="position"`` zips equal-length lists as the official script
does). Well-formed input gets the official numbers; malformed input fails by name instead of crashing (a gold claim
without questions or justification: status ``failed`` with its causes; bad labels or fields:
:class:`AveritecInputError`), and the inputs are never modified.

Layout: :mod:`.claims` (records, validation, join), :mod:`.scoring` (:func:`evaluate_averitec`,
:class:`AveritecReport`), :mod:`.table` (:func:`format_official_table`); every name is importable from this package.
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
