"""The AVeriTeC shared-task table, 2025 edition (FEVER-8): Ev2R recall and the new AVeriTeC score.

The 2025 task replaced 2024's Hungarian-METEOR evidence score by **Ev2R recall** judged by an LLM (the organisers
ran Llama-3.3-70B-Instruct, temperature 0; their ``EV2REvaluator``). From predictions joined to a gold file:

* **Q only**: the judge counts the gold questions and those the predicted questions cover; ``recall = support / count``.
* **Q + A**: the same over question+answer evidence split into atomic facts: the recall half of Ev2R (Akhtar,
  Schlichtkrull, Vlachos 2024, arXiv 2411.05375, sec. 3.1: reference facts supported / reference facts).
* **new AVeriTeC score**: the share of claims with the right verdict **and** Q + A recall reaching 0.5;
  ``recall_comparison="gt"`` (default, the final leaderboard script: ``> 0.5``) or ``"ge"`` (``>= 0.5``), named in
  the table, the JSON and the signature; the table gives the other reading too and counts claims at exactly 0.5.

Each score is reported as ``judged`` (mean over the claims whose judgement succeeded) and ``failures_as_zero`` (every
failure counted 0: the organisers' convention, the number to compare with the leaderboard); failed judgements carry
a status (:data:`JUDGEMENT_STATUSES`) and are listed by cause with their claim ids. Judges: :class:`LLMRecallJudge`
(the package's LLM call loop; the project's prompts or the user's copy of the organisers', :func:`load_judge_prompt`)
and :class:`NLIRecallJudge` (``judge bundled``: the offline reference scorer, labelled as not comparable with the
leaderboard). Joining and validation are those of the 2024 table (:mod:`ev2r.shared_task.averitec2024`).

Layout: :mod:`.settings` (the FEVER-8 constants), :mod:`.claims` (joining, what the judge reads), :mod:`.prompts`,
:mod:`.answers` (tasks, judgements, answer parsing), :mod:`.judges`, :mod:`.table` (scores, report, printed table).
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
