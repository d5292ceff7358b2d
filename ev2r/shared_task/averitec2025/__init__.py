"""The AVeriTeC shared-task table, 2025 edition (FEVER-8): Ev2R recall and the new AVeriTeC score.

The 2025 AVeriTeC shared task (FEVER-8 workshop, ACL 2025) replaced the Hungarian-METEOR
evidence score of 2024 by **Ev2R recall** judged by an LLM (the organisers ran
Llama-3.3-70B-Instruct through an OpenAI-compatible endpoint, temperature 0, 3000 new tokens;
scoring script: ``EV2REvaluator`` in the shared-task repository). This module computes its table
from predictions joined to a gold file:

* **Q only (Ev2R recall)**: the judge reads the gold questions and the predicted questions and
  answers how many gold questions (``facts count reference questions``) there are and how many
  of them the predicted questions cover (``support reference questions``);
  ``recall = support / count``, in [0, 1].
* **Q + A (Ev2R recall)**: the same over question+answer evidence: the judge splits the gold
  evidence into atomic facts (``facts count reference evidence``) and counts those the predicted
  evidence supports (``support reference evidence``); ``recall = support / count``. This is the
  recall half of the Ev2R reference-based score (Akhtar, Schlichtkrull, Vlachos 2024, *Ev2R:
  Evaluating Evidence Retrieval in Automated Fact-Checking*, arXiv 2411.05375, sec. 3.1:
  recall = reference facts supported by the predicted evidence / reference facts).
* **new AVeriTeC score**: the share of claims whose predicted verdict equals the gold verdict
  **and** whose Q + A recall reaches 0.5 (FEVER-8 scorer, ``ev2r_reporting_levels = [0.5]``).
  The organisers' published scripts disagree on "reaches": the final FEVER-8 leaderboard script tests
  ``recall > 0.5``, the April 2025 script ``recall >= 0.5`` (the rules text names 0.44). Both are available:
  ``recall_comparison="gt"`` (default, as the final script) or ``"ge"``; the choice is named in the table,
  the JSON and the signature, and the table gives the score under the other one too. On a claim judged at
  exactly 0.5 (say 1 of 2 facts, common: recall is a ratio of small integers) they differ: the table counts
  those claims (``n_at_level``).

**Two means per score.** Every judgement has a status (:data:`JUDGEMENT_STATUSES`, from the
package's one status vocabulary in :mod:`ev2r.types`); a failed one
(unparsable answer, missing keys, a zero or impossible count, an API error or time-out, a
replay miss, a gold claim without questions) never turns into a 0 silently. Each score is
reported

* ``judged``: the mean over the claims whose judgement succeeded (``n_judged`` of them), and
* ``failures_as_zero``: the mean over **all** joined claims with every failure counted as 0 --
  the organisers' convention (their script scores a claim whose answer could not be used as
  recall 0.0 and divides by the number of claims); the number to compare with the leaderboard.

The report gives ``n_failed`` by cause for each part, with the claim ids. A gold claim without
questions is not sent to the judge (there is nothing to divide by): status
``no_reference_questions``, listed, out of the ``judged`` means, 0 in ``failures_as_zero``.

**What the judge sees** (the organisers' ``prepare_dataset``; rendering ``fever8``):

* Q + A, gold: per gold question ``question + "\\t\\t\\n" + first answer + "\\t\\t\\n\\n"``
  (only ``answers[0]["answer"]``, no Boolean explanation, as officially; a gold question without
  answers -- which makes the official script crash -- gets ``"No answer could be found."`` and
  the note ``reference_question_without_answer``).
* Q + A, predicted: every ``evidence`` item (2024/2025 submission format: ``claim_id``,
  ``pred_label``, ``evidence: [{question, answer}]``; no 10-pair cap, as officially) rendered
  the same way; an item whose ``answer`` is null is left out of the Q + A evidence (its
  question stays in the Q-only list; note ``predicted_question_without_answer``). Predictions in
  the original AVeriTeC format (``questions`` with ``answers``) give one pair per answer (a
  Boolean answer followed by ``". " + boolean_explanation``); ``string_evidence`` entries are
  added as answer-only lines.
* Q only: the questions as a Python list literal (``str(list_of_questions)``, which is what
  the organisers' ``str.format`` of a list produces).
* the claim: the gold record's ``claim`` (else the prediction's, else empty).

A prediction with no Q + A evidence (or no questions) is not sent: its recall is 0.0 with status
``ok`` and the note ``no_predicted_evidence`` (``no_predicted_questions``): a system that
retrieved nothing is credited with nothing.

**Judges.**

* :class:`LLMRecallJudge`: one chat request per claim and part through the package's one LLM call
  loop (:func:`ev2r.llm.loop.ask` over :class:`ev2r.llm.LLMClient`: on-disk cache, offline replay,
  resume, bounded concurrency, retries, re-asks, statuses, per-judgement usage). Prompts: the project's own
  (``ev2r/llm/templates/averitec2025_recall.txt`` and ``averitec2025_question_recall.txt``, JSON answer with the
  organisers' key names), or a file holding the user's own copy of the organisers' prompt text
  (:func:`load_judge_prompt`: their ``str.format`` placeholders ``{}`` = claim, reference evidence, predicted evidence,
  in that order, or ``$claim`` / ``$reference_evidence`` / ``$predicted_evidence``).
* :class:`NLIRecallJudge` (``judge bundled``): no LLM; the recall of ev2r's offline reference
  scorer (rule-based atomic facts, NLI verifier; :func:`ev2r.metric.factory.build_scorer`). Labelled
  everywhere as ``judge: bundled NLI verifier (offline), not the official LLM judge``: its
  numbers are **not** comparable with the leaderboard.

**Answers.** The JSON object is found anywhere in the answer (code fence, preamble), a
departure from the organisers' first-``{...}``-match regex, which fails on nested braces. Both
key families are accepted for both parts (``... reference questions`` and ``... reference
evidence``); counts may be numeric strings; the model's own ``recall``/``precision`` keys are
ignored (the organisers recompute ``support / count`` too). Departures, each a failure status
rather than a number: a count of 0 (``zero_facts``; officially a ``ZeroDivisionError`` -> 0), a
support above the count or a negative / fractional / non-numeric count (``bad_counts``;
officially a recall above 1 could pass the level).

Joining and validation are those of the 2024 table (:func:`ev2r.shared_task.averitec2024.prepare_gold`,
:func:`~ev2r.shared_task.averitec2024.prepare_predictions`, :func:`~ev2r.shared_task.averitec2024.join_claims`): bad
records raise :class:`~ev2r.shared_task.averitec2024.AveritecInputError` naming the record, the field and
the allowed values; the inputs are never modified.

Layout: :mod:`~ev2r.shared_task.averitec2025.settings` (the FEVER-8 constants),
:mod:`~ev2r.shared_task.averitec2025.claims` (joining, what the judge reads),
:mod:`~ev2r.shared_task.averitec2025.prompts` (judge prompts),
:mod:`~ev2r.shared_task.averitec2025.answers` (tasks, judgements, answer parsing),
:mod:`~ev2r.shared_task.averitec2025.judges` (the LLM and bundled judges),
:mod:`~ev2r.shared_task.averitec2025.table` (scores, the report, the printed table).
"""

from ev2r.shared_task.averitec2024 import AveritecInputError, JoinError
from ev2r.shared_task.averitec2025.answers import (JudgeAnswerError, Judgement, JudgeTask, REASK_MESSAGE,
                                                   parse_recall_answer)
from ev2r.shared_task.averitec2025.claims import Claim2025, prepare_claims_2025, render_pairs, render_questions
from ev2r.shared_task.averitec2025.judges import LLMRecallJudge, NLIRecallJudge, build_judge
from ev2r.shared_task.averitec2025.prompts import JudgePrompt, load_judge_prompt
from ev2r.shared_task.averitec2025.settings import (BUNDLED_JUDGE_LABEL, DEFAULT_MAX_TOKENS, EDITION,
                                                    JUDGEMENT_STATUSES, JUDGES, NO_ANSWER, OFFICIAL_JUDGE_MODEL,
                                                    PARTS, RECALL_COMPARISONS, RECALL_LEVEL, RENDERING,
                                                    DEFAULT_RECALL_COMPARISON, COMPARISON_SOURCES,
                                                    SHIPPED_PROMPTS, STATUS_OK)
from ev2r.shared_task.averitec2025.table import (Averitec2025Report, ClaimResult2025, ScoreSummary,
                                                 estimate_averitec_2025, evaluate_averitec_2025, format_2025_table,
                                                 judge_accounting, meets_recall_level, new_averitec_contribution,
                                                 plan_judgements)

__all__ = [
    "EDITION", "RECALL_LEVEL", "RECALL_COMPARISONS", "DEFAULT_RECALL_COMPARISON", "COMPARISON_SOURCES", "JUDGES",
    "PARTS", "JUDGEMENT_STATUSES",
    "BUNDLED_JUDGE_LABEL", "OFFICIAL_JUDGE_MODEL", "DEFAULT_MAX_TOKENS", "Claim2025", "JudgeTask",
    "Judgement", "JudgePrompt", "JudgeAnswerError", "LLMRecallJudge", "NLIRecallJudge",
    "ClaimResult2025", "ScoreSummary", "Averitec2025Report", "prepare_claims_2025", "render_pairs",
    "render_questions", "load_judge_prompt", "parse_recall_answer", "meets_recall_level",
    "new_averitec_contribution", "plan_judgements", "evaluate_averitec_2025", "estimate_averitec_2025",
    "build_judge", "format_2025_table", "judge_accounting", "AveritecInputError", "JoinError", "REASK_MESSAGE",
    "NO_ANSWER", "RENDERING", "SHIPPED_PROMPTS", "STATUS_OK",
]
