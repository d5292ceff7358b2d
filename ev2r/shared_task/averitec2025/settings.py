"""The AVeriTeC 2025 (FEVER-8) settings: edition, recall level and comparisons, parts, judges,
the organisers' judge model and token limit, the rendering, and the judgement statuses (from the
package's one status vocabulary, :mod:`ev2r.types`)."""

# Every judgement status (JUDGEMENT_STATUSES): ``ok`` is the only success; the others are failure
# causes, each explained in ev2r.types: ``no_reference_questions`` (no call), ``api_error``,
# ``timeout``, ``replay_missing``, ``parse_error``, ``missing_keys``, ``bad_counts``, ``zero_facts``,
# ``no_reference_facts`` (bundled judge), ``error``.
from ev2r.types import JUDGEMENT_STATUSES, STATUS_OK  # noqa: F401 (re-exported)

EDITION = "2025"
RECALL_LEVEL = 0.5  # FEVER-8 scorer: ev2r_reporting_levels = [0.5]
RECALL_COMPARISONS = ("ge", "gt")
#: The default comparison of the new AVeriTeC score: ``gt`` (``recall > 0.5``), as the organisers' final FEVER-8
#: leaderboard scoring script; ``ge`` (``recall >= 0.5``) is their April 2025 script (the rules text names 0.44).
#: Recall is a ratio of small integers, so a claim judged at exactly 0.5 (1 of 2, 2 of 4 facts) is common: the two
#: differ on exactly those claims, which the table counts (``n_at_level``) and scores both ways.
DEFAULT_RECALL_COMPARISON = "gt"
#: what each comparison is: the organisers' script that uses it
COMPARISON_SOURCES = {"gt": "the final FEVER-8 leaderboard script", "ge": "the organisers' April 2025 script"}
_COMPARISON_SYMBOL = {"ge": ">=", "gt": ">"}
JUDGES = ("llm", "bundled")
PARTS = ("question_only", "question_answer")
_PART_NAMES = {"question_only": "Q only", "question_answer": "Q + A"}
OFFICIAL_JUDGE_MODEL = "Llama-3.3-70B-Instruct"
DEFAULT_MAX_TOKENS = 3000  # the organisers' MAX_TOKENS
NO_ANSWER = "No answer could be found."
RENDERING = "fever8"
BUNDLED_JUDGE_LABEL = "judge: bundled NLI verifier (offline), not the official LLM judge"
SHIPPED_PROMPTS = {"question_only": "averitec2025_question_recall", "question_answer": "averitec2025_recall"}
_MAX_IDS_SHOWN = 20
