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
