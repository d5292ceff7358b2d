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
  The organisers' published scripts disagree on "reaches": one tests ``recall >= 0.5``, another
  ``recall > 0.5``; both are available (``recall_comparison="ge"`` (default) or ``"gt"``), and
  the choice is named in the table, the JSON and the signature. On a claim judged at exactly
  0.5 (say 1 of 2 facts) they differ.

**Two means per score.** Every judgement has a status (:data:`JUDGEMENT_STATUSES`); a failed one
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

* :class:`LLMRecallJudge`: one chat request per claim and part through
  :class:`ev2r.llm.LLMClient` (on-disk cache, offline replay, resume, bounded concurrency,
  retries, statuses). Prompts: the project's own (``ev2r/llm/templates/averitec2025_recall.txt`` and
  ``averitec2025_question_recall.txt``, JSON answer with the organisers' key names), or a file
  holding the user's own copy of the organisers' prompt text (:func:`load_judge_prompt`: their
  ``str.format`` placeholders ``{}`` = claim, reference evidence, predicted evidence, in that
  order, or ``$claim`` / ``$reference_evidence`` / ``$predicted_evidence``).
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
"""

from __future__ import annotations

import collections
import hashlib
import math
import os
import re
import string
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ev2r.shared_task.averitec2024 import AveritecInputError, JoinError, join_claims, prepare_gold, prepare_predictions

__all__ = [
    "EDITION", "RECALL_LEVEL", "RECALL_COMPARISONS", "JUDGES", "PARTS", "JUDGEMENT_STATUSES",
    "BUNDLED_JUDGE_LABEL", "OFFICIAL_JUDGE_MODEL", "DEFAULT_MAX_TOKENS", "Claim2025", "JudgeTask",
    "Judgement", "JudgePrompt", "JudgeAnswerError", "LLMRecallJudge", "NLIRecallJudge",
    "ClaimResult2025", "ScoreSummary", "Averitec2025Report", "prepare_claims_2025", "render_pairs",
    "render_questions", "load_judge_prompt", "parse_recall_answer", "meets_recall_level",
    "new_averitec_contribution", "plan_judgements", "evaluate_averitec_2025", "estimate_averitec_2025",
    "build_judge", "format_2025_table", "AveritecInputError", "JoinError",
]

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

STATUS_OK = "ok"
#: Every judgement status. ``ok`` is the only success; the others are failure causes.
JUDGEMENT_STATUSES = (
    "ok",
    "no_reference_questions",  # the gold claim has no questions: nothing to compare with (no call)
    "api_error",               # the server refused or failed after retries, or could not be reached
    "timeout",                 # every attempt ran past the timeout
    "replay_missing",          # offline replay and no cached answer
    "parse_error",             # no JSON object in the answer (garbage, empty, cut off)
    "missing_keys",            # JSON without the facts-count / support keys
    "bad_counts",              # a count that is not a whole number >= 0, or support > facts count
    "zero_facts",              # facts count 0: recall undefined (officially ZeroDivisionError -> 0)
    "no_reference_facts",      # bundled judge: the reference evidence gave no atomic facts
    "error",                   # anything else (a prompt that cannot be filled, a verifier failure)
)
_MAX_IDS_SHOWN = 20


# ----------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class Claim2025:
    """One joined claim, as the 2025 judge sees it.

    Attributes:
        claim_id: the gold claim's id (its position in the gold file unless the gold records
            carry ``claim_id``).
        claim: claim text ("" when neither record has one).
        gold_label, pred_label: verdicts from :data:`~ev2r.shared_task.averitec2024.VERDICTS`.
        reference_pairs: ``(question, first answer)`` per gold question.
        reference_questions: the gold questions.
        predicted_pairs: ``(question, answer)`` per predicted evidence item with an answer
            (``("", text)`` for ``string_evidence``).
        predicted_questions: every predicted question.
        notes: ``reference_question_without_answer``, ``predicted_question_without_answer``.
    """

    claim_id: Any
    claim: str
    gold_label: str
    pred_label: str
    reference_pairs: Tuple[Tuple[str, str], ...]
    reference_questions: Tuple[str, ...]
    predicted_pairs: Tuple[Tuple[str, str], ...]
    predicted_questions: Tuple[str, ...]
    notes: Tuple[str, ...] = ()


def _as_list(answers: Any) -> list:
    if answers is None:
        return []
    return answers if isinstance(answers, list) else [answers]


def _gold_view(rec: Mapping[str, Any]) -> Tuple[List[Tuple[str, str]], List[str], bool]:
    pairs, questions, unanswered = [], [], False
    for q in rec.get("questions") or []:
        answers = _as_list(q.get("answers"))
        if answers:
            pairs.append((q["question"], answers[0]["answer"]))  # officially answers[0] only
        else:
            pairs.append((q["question"], NO_ANSWER))
            unanswered = True
        questions.append(q["question"])
    return pairs, questions, unanswered


def _predicted_view(rec: Mapping[str, Any], fmt: str) -> Tuple[List[Tuple[str, str]], List[str], bool]:
    pairs, questions, unanswered = [], [], False
    if fmt == "submission-2024":
        for item in rec.get("evidence") or []:
            questions.append(item["question"])
            if item.get("answer") is None:
                unanswered = True
            else:
                pairs.append((item["question"], item["answer"]))
    else:
        for q in rec.get("questions") or []:
            questions.append(q["question"])
            answers = _as_list(q.get("answers"))
            if not answers:
                unanswered = True
            for a in answers:
                text = a["answer"]
                if a.get("answer_type") == "Boolean":
                    text += ". " + a["boolean_explanation"]
                pairs.append((q["question"], text))
    for s in rec.get("string_evidence") or []:
        pairs.append(("", s))
    return pairs, questions, unanswered


def prepare_claims_2025(predictions: Sequence[Any], references: Sequence[Any], join: str = "id") -> List[Claim2025]:
    """Validate, join and extract what the 2025 judge reads.

    Args:
        predictions: list of prediction dicts, 2024/2025 submission format (``claim_id``,
            ``pred_label``, ``evidence: [{question, answer}]``) or the original AVeriTeC format
            (``claim_id``, ``label``, ``questions``/``string_evidence``); not modified.
        references: list of gold AVeriTeC claim dicts (``claim``, ``label``, ``questions:
            [{question, answers: [{answer, ...}]}]``); not modified.
        join: ``"id"`` (default) or ``"position"`` (see :func:`ev2r.shared_task.averitec2024.join_claims`).

    Returns:
        one :class:`Claim2025` per gold claim, in gold order.

    Raises:
        AveritecInputError: malformed records (record, field and allowed values named).
        JoinError: predictions that do not join the gold file one-to-one.
        ValueError: unknown ``join``.
    """
    gold = prepare_gold(references)
    preds = prepare_predictions(predictions)
    out: List[Claim2025] = []
    for p, g in join_claims(preds, gold, join=join):
        ref_pairs, ref_q, ref_unanswered = _gold_view(references[g.index])
        pred_pairs, pred_q, pred_unanswered = _predicted_view(predictions[p.index], p.format)
        notes = []
        if ref_unanswered:
            notes.append("reference_question_without_answer")
        if pred_unanswered:
            notes.append("predicted_question_without_answer")
        claim = g.claim if g.claim is not None else (p.claim or "")
        out.append(Claim2025(claim_id=g.claim_id, claim=claim, gold_label=g.label, pred_label=p.label,
                             reference_pairs=tuple(ref_pairs), reference_questions=tuple(ref_q),
                             predicted_pairs=tuple(pred_pairs), predicted_questions=tuple(pred_q),
                             notes=tuple(notes)))
    return out


def render_pairs(pairs: Sequence[Tuple[str, str]]) -> str:
    """Q + A evidence as the FEVER-8 scorer renders it: ``question + "\\t\\t\\n" + answer +
    "\\t\\t\\n\\n"`` per pair, concatenated (an answer-only pair: ``answer + "\\t\\t\\n\\n"``).

    >>> render_pairs([("Who?", "Ann."), ("", "Plain text.")])
    'Who?\\t\\t\\nAnn.\\t\\t\\n\\nPlain text.\\t\\t\\n\\n'
    """
    return "".join((q + "\t\t\n" if q else "") + a + "\t\t\n\n" for q, a in pairs)


def render_questions(questions: Sequence[str]) -> str:
    """Question-only evidence as the FEVER-8 scorer passes it to ``str.format``: a Python list
    literal.

    >>> render_questions(["Who?", "When?"])
    "['Who?', 'When?']"
    """
    return str(list(questions))


# ----------------------------------------------------------------------------- prompts

_TEMPLATE_FIELDS = ("claim", "reference_evidence", "predicted_evidence")
_TEMPLATE_RE = re.compile(r"\$(?:\{)?(claim|reference_evidence|predicted_evidence)\b")


@dataclass(frozen=True)
class JudgePrompt:
    """A judge prompt.

    Attributes:
        name: the shipped prompt's name, or ``file:<file name>``.
        text: the prompt text.
        sha256: hex digest of the UTF-8 text (its first 12 digits enter the signature).
        style: ``"template"`` (``$claim``, ``$reference_evidence``, ``$predicted_evidence``) or
            ``"format"`` (the organisers' ``str.format`` text: ``{}`` placeholders filled with
            claim, reference evidence, predicted evidence in that order; ``{0}``..``{2}`` also
            accepted; literal braces doubled).
        source: ``"shipped"`` or the file path.
    """

    name: str
    text: str
    sha256: str
    style: str
    source: str = "shipped"

    @property
    def id(self) -> str:
        return f"{self.name}@{self.sha256[:12]}"

    def render(self, claim: str, reference_evidence: str, predicted_evidence: str) -> str:
        """The filled prompt.

        Raises:
            KeyError, ValueError, IndexError: the text cannot be filled (checked at load time).
        """
        if self.style == "template":
            return string.Template(self.text).substitute(claim=claim, reference_evidence=reference_evidence,
                                                         predicted_evidence=predicted_evidence)
        return self.text.format(claim, reference_evidence, predicted_evidence)


def _check_format_prompt(text: str, option: str) -> None:
    help_ = (f"{option}: expected the organisers' prompt with str.format placeholders -- three '{{}}' filled with "
             "the claim, the reference evidence and the predicted evidence, in that order (literal braces "
             "doubled: '{{{{' and '}}}}') -- or a template with $claim, $reference_evidence, $predicted_evidence")
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as e:
        raise ValueError(f"{help_}; the text does not parse: {e}") from None
    names = [f for _, f, _, _ in parsed if f is not None]
    bad = [f for f in names if f not in ("", "0", "1", "2")]
    if bad:
        raise ValueError(f"{help_}; found unknown placeholder(s) {['{' + f + '}' for f in bad]!r}")
    auto = [f for f in names if f == ""]
    numbered = {f for f in names if f != ""}
    if auto and numbered:
        raise ValueError(f"{help_}; found both '{{}}' and numbered placeholders")
    if auto and len(auto) != 3:
        raise ValueError(f"{help_}; found {len(auto)} '{{}}' placeholder(s), not 3")
    if not auto and not {"1", "2"} <= numbered:
        raise ValueError(f"{help_}; no placeholders for the reference and predicted evidence")
    try:
        text.format("C", "R", "P")
    except (ValueError, IndexError, KeyError) as e:
        raise ValueError(f"{help_}; {type(e).__name__}: {e}") from None


def _check_template_prompt(text: str, option: str) -> None:
    missing = [f for f in ("reference_evidence", "predicted_evidence") if not re.search(
        r"\$(?:\{)?" + f + r"\b", text)]
    if missing:
        raise ValueError(f"{option}: a $-template must contain {', '.join('$' + m for m in missing)} "
                         "(fields: $claim, $reference_evidence, $predicted_evidence)")
    try:
        string.Template(text).substitute(claim="C", reference_evidence="R", predicted_evidence="P")
    except KeyError as e:
        raise ValueError(f"{option}: unknown template field ${e.args[0]}; allowed fields: $claim, "
                         "$reference_evidence, $predicted_evidence (write $$ for a literal $)") from None
    except ValueError as e:
        raise ValueError(f"{option}: {e} (write $$ for a literal $; fields: $claim, $reference_evidence, "
                         "$predicted_evidence)") from None


def load_judge_prompt(path: Any = None, part: str = "question_answer", option: Optional[str] = None) -> JudgePrompt:
    """The judge prompt for ``part``: the shipped one (``path`` None), or a file.

    A file holding ``$claim`` / ``$reference_evidence`` / ``$predicted_evidence`` is a
    :class:`string.Template`; any other file is read as the organisers' ``str.format`` text
    (``{}`` = claim, reference evidence, predicted evidence). The file is read as UTF-8, as is.

    Args:
        path: None, a file path, or a :class:`JudgePrompt` (returned as is).
        part: ``"question_only"`` or ``"question_answer"`` (which shipped prompt).
        option: the name used in error messages (default ``--prompt-file`` /
            ``--question-prompt-file``).

    Raises:
        ValueError: unknown ``part``; a file that cannot be read, is empty, or whose placeholders
            are not the three fields (the message names ``option`` and the accepted forms).
    """
    if part not in PARTS:
        raise ValueError(f"part: {part!r} is not one of {PARTS}")
    if option is None:
        option = "--question-prompt-file" if part == "question_only" else "--prompt-file"
    if isinstance(path, JudgePrompt):
        return path
    if path is None:
        from ev2r.llm.prompts import load_prompt

        p = load_prompt(SHIPPED_PROMPTS[part])
        return JudgePrompt(p.name, p.text, p.sha256, "template", "shipped")
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"{option}: expected a file path, got {type(path).__name__}")
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"{option}: cannot read {os.fspath(path)!r}: {e}") from None
    if not text.strip():
        raise ValueError(f"{option}: {os.fspath(path)!r} is empty")
    if _TEMPLATE_RE.search(text):
        style = "template"
        _check_template_prompt(text, option)
    else:
        style = "format"
        _check_format_prompt(text, option)
    return JudgePrompt(f"file:{os.path.basename(os.fspath(path))}", text,
                       hashlib.sha256(text.encode("utf-8")).hexdigest(), style, os.fspath(path))


# ----------------------------------------------------------------------------- judgements


@dataclass(frozen=True)
class JudgeTask:
    """One judgement to make.

    Attributes:
        claim_id: the claim's id; part: ``"question_only"`` or ``"question_answer"``.
        claim: claim text.
        reference, predicted: questions (str) for ``question_only``; ``(question, answer)``
            pairs for ``question_answer``. Both non-empty (empty cases are decided without a
            judge).
    """

    claim_id: Any
    part: str
    claim: str
    reference: tuple
    predicted: tuple


@dataclass
class Judgement:
    """The outcome of one judgement.

    Attributes:
        status: one of :data:`JUDGEMENT_STATUSES`.
        recall: ``support / facts`` in [0, 1] when ``ok``, else None.
        support, facts: the judge's counts (None when unknown).
        error: why it failed (None when ``ok``).
        from_cache: LLM judge: the answer came from the cache (None for other judges or no call).
        called: whether the judge was asked at all (False for decided cases).
    """

    status: str
    recall: Optional[float] = None
    support: Optional[int] = None
    facts: Optional[int] = None
    error: Optional[str] = None
    from_cache: Optional[bool] = None
    called: bool = True

    @property
    def ok(self) -> bool:
        return self.status == STATUS_OK

    def to_dict(self) -> dict:
        return {"status": self.status, "recall": self.recall, "support": self.support, "facts": self.facts,
                "error": self.error, "from_cache": self.from_cache, "called": self.called}


class JudgeAnswerError(ValueError):
    """An answer that gives no recall; ``status`` is ``parse_error``, ``missing_keys``,
    ``bad_counts`` or ``zero_facts``."""

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status = status


_KEY_FAMILIES = {"question_only": ("reference questions", "reference evidence"),
                 "question_answer": ("reference evidence", "reference questions")}


def _count(value: Any, key: str) -> int:
    v = value
    if isinstance(v, str):
        try:
            v = float(v.strip())
        except ValueError:
            raise JudgeAnswerError("bad_counts", f"{key!r}: expected a whole number >= 0, got {value!r}") from None
    if isinstance(v, float) and math.isfinite(v) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise JudgeAnswerError("bad_counts", f"{key!r}: expected a whole number >= 0, got {value!r}")
    return v


def parse_recall_answer(response: Any, part: str) -> Tuple[int, int]:
    """``(support, facts)`` from a judge's chat-completion response.

    Args:
        response: the server's response dict (``choices[0].message.content`` holds the answer)
            or the answer text itself.
        part: ``"question_only"`` (keys ``facts count reference questions``, ``support reference
            questions``) or ``"question_answer"`` (``... reference evidence``); either family is
            accepted for either part, the part's own first.

    Returns:
        ``(support, facts)`` with ``0 <= support <= facts`` and ``facts >= 1``; recall is
        ``support / facts`` (Ev2R paper sec. 3.1; FEVER-8 scorer).

    Raises:
        JudgeAnswerError: ``parse_error`` (no JSON object), ``missing_keys``, ``bad_counts``
            (not a whole number >= 0, or support > facts), ``zero_facts`` (facts count 0).
        ValueError: unknown ``part``.
    """
    from ev2r.llm.parse import ParseError, extract_json_object, response_text

    if part not in PARTS:
        raise ValueError(f"part: {part!r} is not one of {PARTS}")
    try:
        text = response if isinstance(response, str) else response_text(response)
        obj = extract_json_object(text)
    except ParseError as e:
        raise JudgeAnswerError("parse_error", str(e)) from None
    except (AttributeError, TypeError) as e:  # not a response dict
        raise JudgeAnswerError("parse_error", f"unexpected response shape: {type(e).__name__}: {e}") from None
    for fam in _KEY_FAMILIES[part]:
        count_key, support_key = f"facts count {fam}", f"support {fam}"
        if count_key in obj and support_key in obj:
            break
    else:
        fam = _KEY_FAMILIES[part][0]
        raise JudgeAnswerError("missing_keys", f"the answer lacks 'facts count {fam}' and 'support {fam}' (or the "
                                               f"'{_KEY_FAMILIES[part][1]}' pair); keys given: {sorted(obj)[:10]}")
    facts = _count(obj[count_key], count_key)
    support = _count(obj[support_key], support_key)
    if facts == 0:
        raise JudgeAnswerError("zero_facts", f"{count_key!r} is 0: recall undefined (the organisers' script divides "
                                             "by it and scores the claim 0)")
    if support > facts:
        raise JudgeAnswerError("bad_counts", f"{support_key!r} ({support}) is above {count_key!r} ({facts})")
    return support, facts


REASK_MESSAGE = ("Your previous answer could not be used: {error}. Reply again with only the JSON object, with the "
                 "keys \"facts count {family}\" and \"support {family}\" as whole numbers (support at most the "
                 "facts count, facts count at least 1).")


class LLMRecallJudge:
    """Ev2R recall judged by an LLM over an OpenAI-compatible API (the 2025 judge).

    Args:
        client: an :class:`ev2r.llm.LLMClient` (model, endpoint, cache, offline replay,
            concurrency, retries); the organisers used ``Llama-3.3-70B-Instruct`` at
            temperature 0.
        prompt: the Q + A prompt: None (shipped ``averitec2025_recall``), a file path or a
            :class:`JudgePrompt` (see :func:`load_judge_prompt`).
        question_prompt: the Q-only prompt, likewise (shipped ``averitec2025_question_recall``).
        max_tokens: generation limit per answer (>= 1; the organisers' 3000 by default).
        max_reasks: re-asks after an unusable answer, 0..3 (0 by default: the organisers do not
            re-ask); a re-ask sends the conversation, the model's answer and why it was rejected.

    Raises:
        ValueError: a client without ``complete_many``, an argument out of range, a bad prompt
            file.
    """

    kind = "llm"

    def __init__(self, client: Any, prompt: Any = None, question_prompt: Any = None,
                 max_tokens: int = DEFAULT_MAX_TOKENS, max_reasks: int = 0):
        if not callable(getattr(client, "complete_many", None)) or not hasattr(client, "model"):
            raise ValueError(f"client: expected an ev2r.llm.LLMClient, got {type(client).__name__}")
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError(f"max_tokens (--llm-max-tokens): must be an int >= 1, got {max_tokens!r}")
        if isinstance(max_reasks, bool) or not isinstance(max_reasks, int) or not 0 <= max_reasks <= 3:
            raise ValueError(f"max_reasks (--llm-max-reasks): must be an int in 0..3, got {max_reasks!r}")
        self.client = client
        self.prompts = {"question_answer": load_judge_prompt(prompt, "question_answer"),
                        "question_only": load_judge_prompt(question_prompt, "question_only")}
        self.max_tokens = max_tokens
        self.max_reasks = max_reasks
        self.last_run: dict = {}

    @property
    def label(self) -> str:
        where = getattr(self.client, "base_url", None) or "the OpenAI API"
        mode = " (offline replay from the cache)" if getattr(self.client, "offline", False) else ""
        own = [p for p in self.prompts.values() if p.source == "shipped"]
        wording = ("; project prompts, not the organisers' wording" if len(own) == 2 else
                   "; prompts: " + ", ".join(f"{_PART_NAMES[k]} {p.id}" for k, p in self.prompts.items()))
        return f"judge: LLM {self.client.model} at {where}{mode}{wording}"

    def signature_fields(self) -> Dict[str, str]:
        fields = {"judge": "llm"}
        sig = getattr(self.client, "signature_fields", None)
        fields.update(sig() if callable(sig) else {"llm": str(self.client.model)})
        fields.update({"maxtok": str(self.max_tokens), "reask": str(self.max_reasks),
                       "prompt_q": self.prompts["question_only"].id, "prompt_qa": self.prompts["question_answer"].id,
                       "render": RENDERING})
        return fields

    def request_for(self, task: JudgeTask):
        """The first-round chat request of ``task``.

        Raises:
            KeyError, ValueError, IndexError: the prompt cannot be filled.
        """
        from ev2r.llm import LLMRequest

        if task.part == "question_only":
            ref, pred = render_questions(task.reference), render_questions(task.predicted)
        else:
            ref, pred = render_pairs(task.reference), render_pairs(task.predicted)
        text = self.prompts[task.part].render(task.claim, ref, pred)
        return LLMRequest([{"role": "user", "content": text}], {"max_tokens": self.max_tokens})

    def judge(self, tasks: Sequence[JudgeTask]) -> List[Judgement]:
        """One :class:`Judgement` per task, in order; never raises for the batch."""
        from ev2r.llm import LLMRequest

        results: List[Optional[Judgement]] = [None] * len(tasks)
        pending: Dict[int, Any] = {}
        for i, t in enumerate(tasks):
            try:
                pending[i] = self.request_for(t)
            except Exception as e:  # a prompt that cannot be filled: this task only
                results[i] = Judgement("error", error=f"prompt: {type(e).__name__}: {e}", called=False)
        before = dict(getattr(self.client, "stats", {}) or {})
        n_reasks = 0
        for round_ in range(self.max_reasks + 1):
            if not pending:
                break
            order = sorted(pending)
            outcomes = self.client.complete_many([pending[i] for i in order])
            nxt: Dict[int, Any] = {}
            for i, out in zip(order, outcomes):
                if not out.ok:
                    results[i] = Judgement(out.status, error=out.error)
                    continue
                part = tasks[i].part
                try:
                    support, facts = parse_recall_answer(out.response, part)
                except JudgeAnswerError as e:
                    results[i] = Judgement(e.status, error=f"{e} (attempt {round_ + 1})", from_cache=out.from_cache)
                    if round_ < self.max_reasks:
                        answer = ""
                        try:
                            answer = out.response["choices"][0]["message"]["content"] or ""
                        except (KeyError, IndexError, TypeError):
                            pass
                        msg = REASK_MESSAGE.format(error=e, family=_KEY_FAMILIES[part][0])
                        nxt[i] = LLMRequest(list(pending[i].messages) + [{"role": "assistant", "content": answer},
                                                                          {"role": "user", "content": msg}],
                                            dict(pending[i].params))
                    continue
                results[i] = Judgement(STATUS_OK, recall=support / facts, support=support, facts=facts,
                                       from_cache=out.from_cache)
            n_reasks += len(nxt)
            pending = nxt
        final = [r if r is not None else Judgement("error", error="not judged") for r in results]
        stats = getattr(self.client, "stats", {}) or {}
        self.last_run = {k: stats[k] - before.get(k, 0) for k in stats}
        self.last_run["reasks"] = n_reasks
        self.last_run["statuses"] = dict(collections.Counter(j.status for j in final))
        return final

    def estimate(self, tasks: Sequence[JudgeTask], price_in_per_mtok: Optional[float] = None,
                 price_out_per_mtok: Optional[float] = None):
        """Dry run: the first-round requests, minus those already cached (sends nothing)."""
        reqs = []
        for t in tasks:
            try:
                reqs.append(self.request_for(t))
            except Exception:
                continue
        return self.client.estimate(reqs, price_in_per_mtok, price_out_per_mtok)


class NLIRecallJudge:
    """Ev2R recall without an LLM: ev2r's offline reference scorer (``judge bundled``).

    Recall = reference atomic facts (rule-based, ``rules-v2``) supported by the predicted
    evidence (max P(entailment) over its question/answer pairs >= ``threshold``) / reference
    facts (:class:`ev2r.metric.reference.NLIReferenceScorer`, built with :func:`ev2r.metric.factory.build_scorer`).
    For Q only, each question is one fact and each predicted question one premise. **Not** the
    official LLM judge: its numbers are labelled :data:`BUNDLED_JUDGE_LABEL` everywhere.

    Args:
        verifier: ``"bundled"`` (default), a checkpoint path / hub id, or an object with
            ``predict(premises, hypotheses) -> (n, 3)`` array of [entailment, neutral,
            contradiction] probabilities.
        device, batch_size, dtype: see :func:`ev2r.metric.factory.get_verifier` (ignored for an object).
        threshold: P(entailment) at which a fact is supported, in (0, 1).

    Raises:
        ValueError: a verifier that cannot be loaded or a bad option (named).
    """

    kind = "bundled"

    def __init__(self, verifier: Any = "bundled", device: Optional[str] = None, batch_size: int = 32,
                 dtype: str = "auto", threshold: float = 0.5):
        from ev2r.metric.factory import build_scorer
        from ev2r.metric.scorer import Ev2RScorer

        scorer = build_scorer(verifier=verifier, decomposer="rules", threshold=threshold, device=device,
                              batch_size=batch_size, dtype=dtype)
        self.verifier_name = scorer.verifier_name
        self.reference_scorer = scorer.reference_scorer
        # reference part only: no proxy (it needs no verdict here and would cost verifier calls)
        self._scorer = Ev2RScorer(scorer.reference_scorer, None, verifier_name=scorer.verifier_name)
        self.last_run: dict = {}

    @property
    def label(self) -> str:
        return f"{BUNDLED_JUDGE_LABEL} [verifier {self.verifier_name}, rule-based atomic facts]"

    def signature_fields(self) -> Dict[str, str]:
        fields = {"judge": "bundled-nli-not-official"}
        fields.update(self.reference_scorer.signature_fields())
        fields["verifier"] = str(self.verifier_name)
        return fields

    @staticmethod
    def item_for(task: JudgeTask):
        from ev2r.types import Evidence, Item, QAPair

        if task.part == "question_only":
            ref = Evidence(tuple(QAPair("", q) for q in task.reference))
            pred = Evidence(tuple(QAPair("", q) for q in task.predicted))
        else:
            ref = Evidence(tuple(QAPair(q, a) for q, a in task.reference))
            pred = Evidence(tuple(QAPair(q, a) for q, a in task.predicted))
        return Item(id=f"{task.claim_id}:{task.part}", claim=task.claim, predicted_evidence=pred,
                    reference_evidence=ref)

    def judge(self, tasks: Sequence[JudgeTask]) -> List[Judgement]:
        """One :class:`Judgement` per task, in order; never raises for the batch."""
        items, out = [], [None] * len(tasks)
        idx = []
        for i, t in enumerate(tasks):
            try:
                items.append(self.item_for(t))
                idx.append(i)
            except ValueError as e:
                out[i] = Judgement("error", error=str(e), called=False)
        scores = self._scorer.score(items) if items else []
        for i, s in zip(idx, scores):
            if s.status == STATUS_OK and s.recall is not None:
                out[i] = Judgement(STATUS_OK, recall=float(s.recall),
                                   support=sum(bool(f.supported) for f in s.reference_facts),
                                   facts=len(s.reference_facts))
            elif s.status == "no_reference":
                out[i] = Judgement("no_reference_facts", error=s.error)
            else:
                out[i] = Judgement("error", error=f"{s.status}: {s.error}")
        final = [j if j is not None else Judgement("error", error="not judged") for j in out]
        self.last_run = {"statuses": dict(collections.Counter(j.status for j in final))}
        return final


# ----------------------------------------------------------------------------- scoring


def meets_recall_level(recall: float, comparison: str = "ge", level: float = RECALL_LEVEL) -> bool:
    """Whether a Q + A recall reaches the new AVeriTeC score's level (FEVER-8: 0.5).

    ``"ge"``: ``recall >= level`` (the FEVER-8 scoring script); ``"gt"``: ``recall > level``
    (another of the organisers' published scripts).

    >>> meets_recall_level(0.5, "ge"), meets_recall_level(0.5, "gt")
    (True, False)

    Raises:
        ValueError: unknown ``comparison``.
    """
    if comparison not in RECALL_COMPARISONS:
        raise ValueError(f"recall_comparison (--recall-comparison): {comparison!r} is not one of "
                         f"{RECALL_COMPARISONS} (ge: recall >= {level:g}, gt: recall > {level:g})")
    return recall >= level if comparison == "ge" else recall > level


def new_averitec_contribution(recall: float, label_correct: bool, comparison: str = "ge",
                              level: float = RECALL_LEVEL) -> float:
    """One claim's share of the new AVeriTeC score (FEVER-8): 1.0 when the verdict is right
    **and** the Q + A recall reaches ``level`` (:func:`meets_recall_level`), else 0.0."""
    return 1.0 if (label_correct and meets_recall_level(recall, comparison, level)) else 0.0


def plan_judgements(claims: Sequence[Claim2025]):
    """Split the work: judgements decided without a judge, and the :class:`JudgeTask` list.

    Per claim and part (``question_only``, ``question_answer``): no gold questions -> status
    ``no_reference_questions`` (no call); no predicted questions / Q + A evidence -> recall 0.0,
    status ``ok``, note ``no_predicted_questions`` / ``no_predicted_evidence`` (no call);
    otherwise a task.

    Returns:
        ``(decided, notes, tasks, keys)``: ``decided`` maps ``(claim index, part)`` to a
        :class:`Judgement`; ``notes`` maps a claim index to its extra notes; ``keys[i]`` is the
        ``(claim index, part)`` of ``tasks[i]``.
    """
    decided: Dict[Tuple[int, str], Judgement] = {}
    notes: Dict[int, List[str]] = collections.defaultdict(list)
    tasks: List[JudgeTask] = []
    keys: List[Tuple[int, str]] = []
    for k, c in enumerate(claims):
        for part in PARTS:
            ref = c.reference_questions if part == "question_only" else c.reference_pairs
            pred = c.predicted_questions if part == "question_only" else c.predicted_pairs
            if not ref:
                decided[(k, part)] = Judgement("no_reference_questions", called=False,
                                               error="the gold claim has no questions: nothing to compare with")
            elif not pred:
                decided[(k, part)] = Judgement(STATUS_OK, recall=0.0, support=0, facts=None, called=False)
                notes[k].append("no_predicted_questions" if part == "question_only" else "no_predicted_evidence")
            else:
                tasks.append(JudgeTask(c.claim_id, part, c.claim, tuple(ref), tuple(pred)))
                keys.append((k, part))
    return decided, notes, tasks, keys


def estimate_averitec_2025(predictions: Sequence[Any], references: Sequence[Any], judge: "LLMRecallJudge",
                           join: str = "id", price_in_per_mtok: Optional[float] = None,
                           price_out_per_mtok: Optional[float] = None):
    """Dry run of the LLM judge: the requests the table needs, those already cached, estimated
    tokens (:class:`ev2r.llm.CostEstimate`); sends nothing.

    Raises:
        ValueError: ``judge`` is not an :class:`LLMRecallJudge`; bad records (as
            :func:`evaluate_averitec_2025`).
    """
    if not isinstance(judge, LLMRecallJudge):
        raise ValueError("--dry-run: only meaningful with the LLM judge (--judge llm)")
    _, _, tasks, _ = plan_judgements(prepare_claims_2025(predictions, references, join=join))
    return judge.estimate(tasks, price_in_per_mtok, price_out_per_mtok)


def build_judge(kind: str = "llm", *, llm_model: Optional[str] = None, llm_base_url: Optional[str] = None,
                llm_cache: Any = None, llm_offline: bool = False, llm_concurrency: int = 4,
                llm_timeout: float = 120.0, llm_max_retries: int = 3, api_key_env: str = "OPENAI_API_KEY",
                max_tokens: int = DEFAULT_MAX_TOKENS, max_reasks: int = 0, prompt_file: Any = None,
                question_prompt_file: Any = None, llm_client: Any = None, verifier: Any = "bundled",
                device: Optional[str] = None, batch_size: int = 32, dtype: str = "auto"):
    """The judge the ``ev2r averitec --edition 2025`` options describe.

    Args:
        kind: ``"llm"`` (:class:`LLMRecallJudge` over an :class:`ev2r.llm.LLMClient` built from
            the ``llm_*`` options, or ``llm_client`` when given) or ``"bundled"``
            (:class:`NLIRecallJudge` from ``verifier``, ``device``, ``batch_size``, ``dtype``).

    Raises:
        ValueError: unknown ``kind``; no ``llm_model``; no endpoint and no API key for a live
            run; an option out of range; a bad prompt file (each message names the option).
    """
    if kind not in JUDGES:
        raise ValueError(f"judge (--judge): {kind!r} is not one of {JUDGES} (llm: the FEVER-8 LLM judge; "
                         "bundled: the offline NLI verifier, not the official judge)")
    if kind == "bundled":
        return NLIRecallJudge(verifier=verifier, device=device, batch_size=batch_size, dtype=dtype)
    if llm_client is None:
        if not llm_model:
            raise ValueError(f"--llm-model: the 2025 LLM judge needs a model name (the organisers used "
                             f"{OFFICIAL_JUDGE_MODEL} on an OpenAI-compatible server, --llm-base-url); or use "
                             "--judge bundled for the offline NLI verifier (not the official judge)")
        if llm_base_url is None and not llm_offline and not os.environ.get(api_key_env):
            raise ValueError(f"--llm-base-url: no endpoint given and {api_key_env} is not set; give the "
                             "OpenAI-compatible server (e.g. http://127.0.0.1:8000/v1), set the key for the OpenAI "
                             "API, or replay a filled cache with --llm-offline --llm-cache DIR")
        from ev2r.llm import LLMClient

        try:
            llm_client = LLMClient(model=llm_model, base_url=llm_base_url, api_key_env=api_key_env,
                                   cache_dir=llm_cache, offline=llm_offline, concurrency=llm_concurrency,
                                   timeout=llm_timeout, max_retries=llm_max_retries)
        except ValueError as e:
            msg = str(e)
            for name in ("concurrency", "timeout", "max_retries"):
                if msg.startswith(name + ":"):
                    msg = f"--llm-{name.replace('_', '-')}" + msg[len(name):]
            raise ValueError(msg) from None
    return LLMRecallJudge(llm_client, prompt=prompt_file, question_prompt=question_prompt_file,
                          max_tokens=max_tokens, max_reasks=max_reasks)


@dataclass
class ClaimResult2025:
    """The 2025 scores of one claim.

    Attributes:
        claim_id: the gold claim's id.
        status: ``"ok"`` when both judgements are ``ok``, else ``"failed"``.
        failures: ``{part: cause}`` for the parts that failed.
        notes: ``no_predicted_evidence``, ``no_predicted_questions``,
            ``reference_question_without_answer``, ``predicted_question_without_answer``.
        pred_label, gold_label, label_correct: verdicts and their equality.
        q_recall, qa_recall: recalls in [0, 1], None when that judgement failed.
        meets_level: whether ``qa_recall`` reaches 0.5 under the comparison (None when failed).
        new_averitec: 1.0 or 0.0 (None when the Q + A judgement failed).
        question_only, question_answer: the :class:`Judgement` of each part.
        n_reference_questions, n_predicted_questions, n_predicted_pairs: sizes.
        judge: the judge's label.
    """

    claim_id: Any
    status: str
    failures: Dict[str, str]
    notes: Tuple[str, ...]
    pred_label: str
    gold_label: str
    label_correct: bool
    q_recall: Optional[float]
    qa_recall: Optional[float]
    meets_level: Optional[bool]
    new_averitec: Optional[float]
    question_only: Judgement
    question_answer: Judgement
    n_reference_questions: int
    n_predicted_questions: int
    n_predicted_pairs: int
    judge: str

    def to_dict(self) -> dict:
        return {"claim_id": self.claim_id, "edition": EDITION, "status": self.status,
                "failures": dict(self.failures), "notes": list(self.notes), "pred_label": self.pred_label,
                "gold_label": self.gold_label, "label_correct": self.label_correct, "q_recall": self.q_recall,
                "qa_recall": self.qa_recall, "meets_level": self.meets_level, "new_averitec": self.new_averitec,
                "question_only": self.question_only.to_dict(), "question_answer": self.question_answer.to_dict(),
                "n_reference_questions": self.n_reference_questions,
                "n_predicted_questions": self.n_predicted_questions, "n_predicted_pairs": self.n_predicted_pairs,
                "judge": self.judge}


@dataclass
class ScoreSummary:
    """One score both ways.

    Attributes:
        judged: mean over the ``n_judged`` claims whose judgement succeeded (None when none).
        n_judged: how many.
        failures_as_zero: sum over judged claims / ``n_claims`` -- every failure counted as 0,
            the organisers' convention.
        n_claims: all joined claims.
    """

    judged: Optional[float]
    n_judged: int
    failures_as_zero: float
    n_claims: int

    def to_dict(self) -> dict:
        return {"judged": self.judged, "n_judged": self.n_judged, "failures_as_zero": self.failures_as_zero,
                "n_claims": self.n_claims}


def _summary(values: Sequence[float], n_claims: int) -> ScoreSummary:
    total = math.fsum(values)
    return ScoreSummary(judged=total / len(values) if values else None, n_judged=len(values),
                        failures_as_zero=total / n_claims, n_claims=n_claims)


@dataclass
class Averitec2025Report:
    """The 2025 table and per-claim results.

    Attributes:
        edition: ``"2025"``.
        n_claims: joined claims.
        judge: the judge's label (says ``not the official LLM judge`` for the bundled judge).
        judge_kind: ``"llm"`` or ``"bundled"`` (or the custom judge's ``kind``).
        official_judge: False for the bundled judge (its numbers are not the leaderboard's).
        recall_comparison: ``"ge"`` or ``"gt"``; recall_level: 0.5.
        question_only, question_answer: :class:`ScoreSummary` of the Ev2R recalls.
        new_averitec: :class:`ScoreSummary` of the new AVeriTeC score.
        n_failed: ``{part: {cause: count}}``; failed_ids: ``{part: {cause: [ids]}}``.
        notes: ``{note: count}`` over claims.
        judge_run: the judge's accounting (LLM: calls, cache hits, retries, tokens, re-asks,
            statuses).
        signature: the settings that change the numbers, ``k:v|k:v``.
        claims: per-claim :class:`ClaimResult2025`, in gold order.
    """

    edition: str
    n_claims: int
    judge: str
    judge_kind: str
    official_judge: bool
    recall_comparison: str
    recall_level: float
    question_only: ScoreSummary
    question_answer: ScoreSummary
    new_averitec: ScoreSummary
    n_failed: Dict[str, Dict[str, int]]
    failed_ids: Dict[str, Dict[str, list]]
    notes: Dict[str, int]
    judge_run: dict
    signature: str
    claims: List[ClaimResult2025] = field(default_factory=list, repr=False)

    @property
    def comparison_text(self) -> str:
        return f"Q + A recall {_COMPARISON_SYMBOL[self.recall_comparison]} {self.recall_level:g}"

    def to_dict(self, with_claims: bool = False) -> dict:
        """Plain-JSON form."""
        d = {"edition": self.edition, "n_claims": self.n_claims, "judge": self.judge, "judge_kind": self.judge_kind,
             "official_judge": self.official_judge, "recall_comparison": self.recall_comparison,
             "recall_level": self.recall_level, "new_averitec_rule": f"label correct and {self.comparison_text}",
             "question_only": self.question_only.to_dict(), "question_answer": self.question_answer.to_dict(),
             "new_averitec": self.new_averitec.to_dict(),
             "n_failed": {k: dict(v) for k, v in self.n_failed.items()},
             "failed_ids": {k: {c: list(ids) for c, ids in v.items()} for k, v in self.failed_ids.items()},
             "notes": dict(self.notes), "judge_run": dict(self.judge_run), "signature": self.signature}
        if with_claims:
            d["claims"] = [c.to_dict() for c in self.claims]
        return d


def _signature(judge: Any, comparison: str) -> str:
    from ev2r import __version__

    fields = {"averitec": EDITION}
    sig = getattr(judge, "signature_fields", None)
    fields.update(sig() if callable(sig) else {"judge": str(getattr(judge, "kind", type(judge).__name__))})
    fields["cmp"] = f"{comparison}{RECALL_LEVEL:g}"
    fields["ev2r"] = __version__
    return "|".join(f"{k}:{v}" for k, v in fields.items())


def evaluate_averitec_2025(predictions: Sequence[Any], references: Sequence[Any], judge: Any,
                           recall_comparison: str = "ge", join: str = "id") -> Averitec2025Report:
    """The AVeriTeC 2025 (FEVER-8) table of ``predictions`` against ``references``.

    Args:
        predictions: list of prediction dicts (see :func:`prepare_claims_2025`); not modified.
        references: list of gold AVeriTeC claim dicts; not modified.
        judge: an :class:`LLMRecallJudge`, an :class:`NLIRecallJudge`, or any object with
            ``judge(tasks) -> list[Judgement]`` (one per :class:`JudgeTask`, in order),
            ``label`` and ``kind``.
        recall_comparison: ``"ge"`` (default; recall >= 0.5) or ``"gt"`` (recall > 0.5), for the
            new AVeriTeC score.
        join: ``"id"`` (default) or ``"position"``.

    Returns:
        :class:`Averitec2025Report`: per score the mean over judged claims and the mean with
        failures counted as 0 (the organisers' convention), failures by cause with ids.

    Raises:
        ValueError: unknown ``recall_comparison`` / ``join``; a ``judge`` without ``judge()``,
            or one that returns the wrong number of judgements.
        AveritecInputError, JoinError: malformed or non-joining records (see
            :mod:`ev2r.shared_task.averitec2024`).
    """
    if recall_comparison not in RECALL_COMPARISONS:
        raise ValueError(f"recall_comparison (--recall-comparison): {recall_comparison!r} is not one of "
                         f"{RECALL_COMPARISONS} (ge: recall >= {RECALL_LEVEL:g}, gt: recall > {RECALL_LEVEL:g})")
    if not callable(getattr(judge, "judge", None)):
        raise ValueError(f"judge: expected an LLMRecallJudge, an NLIRecallJudge or an object with "
                         f"judge(tasks), got {type(judge).__name__}")
    claims = prepare_claims_2025(predictions, references, join=join)
    decided, notes_by_claim, tasks, keys = plan_judgements(claims)
    got = list(judge.judge(tasks)) if tasks else []
    if len(got) != len(tasks):
        raise ValueError(f"judge: returned {len(got)} judgements for {len(tasks)} tasks")
    judgements = decided
    for key, j in zip(keys, got):
        if not isinstance(j, Judgement):
            raise ValueError(f"judge: expected Judgement objects, got {type(j).__name__}")
        if j.status == STATUS_OK and (j.recall is None or not (0.0 <= j.recall <= 1.0)):
            j = Judgement("bad_counts", support=j.support, facts=j.facts, from_cache=j.from_cache,
                          error=f"recall outside [0, 1]: {j.recall!r}")
        judgements[key] = j

    label = str(getattr(judge, "label", getattr(judge, "kind", type(judge).__name__)))
    results: List[ClaimResult2025] = []
    for k, c in enumerate(claims):
        jq, jqa = judgements[(k, "question_only")], judgements[(k, "question_answer")]
        failures = {part: j.status for part, j in (("question_only", jq), ("question_answer", jqa)) if not j.ok}
        correct = c.pred_label == c.gold_label
        meets = None if not jqa.ok else meets_recall_level(jqa.recall, recall_comparison)
        results.append(ClaimResult2025(
            claim_id=c.claim_id, status="failed" if failures else STATUS_OK, failures=failures,
            notes=tuple(notes_by_claim[k]) + c.notes, pred_label=c.pred_label, gold_label=c.gold_label,
            label_correct=correct, q_recall=jq.recall if jq.ok else None, qa_recall=jqa.recall if jqa.ok else None,
            meets_level=meets, new_averitec=None if meets is None else (1.0 if (correct and meets) else 0.0),
            question_only=jq, question_answer=jqa, n_reference_questions=len(c.reference_questions),
            n_predicted_questions=len(c.predicted_questions), n_predicted_pairs=len(c.predicted_pairs), judge=label))

    n = len(results)
    failed_ids: Dict[str, Dict[str, list]] = {}
    for part in PARTS:
        by: Dict[str, list] = {}
        for r in results:
            if part in r.failures:
                by.setdefault(r.failures[part], []).append(r.claim_id)
        failed_ids[part] = by
    notes = collections.Counter(note for r in results for note in r.notes)
    return Averitec2025Report(
        edition=EDITION, n_claims=n, judge=label, judge_kind=str(getattr(judge, "kind", "custom")),
        official_judge=getattr(judge, "kind", None) != "bundled", recall_comparison=recall_comparison,
        recall_level=RECALL_LEVEL,
        question_only=_summary([r.q_recall for r in results if r.q_recall is not None], n),
        question_answer=_summary([r.qa_recall for r in results if r.qa_recall is not None], n),
        new_averitec=_summary([r.new_averitec for r in results if r.new_averitec is not None], n),
        n_failed={part: {c: len(ids) for c, ids in by.items()} for part, by in failed_ids.items()},
        failed_ids=failed_ids, notes=dict(notes), judge_run=dict(getattr(judge, "last_run", {}) or {}),
        signature=_signature(judge, recall_comparison), claims=results)


# ----------------------------------------------------------------------------- printing


def _line(left: str, right: str) -> str:
    return left + " " * (40 - len(left)) + right


def _num(v: Optional[float]) -> str:
    return "n/a" if v is None else repr(float(v))


def _show(ids: Sequence[Any]) -> str:
    ids = list(ids)
    head = ", ".join(repr(x) for x in ids[:_MAX_IDS_SHOWN])
    return f"[{head}, ...] ({len(ids)} in all)" if len(ids) > _MAX_IDS_SHOWN else f"[{head}]"


def format_2025_table(report: Averitec2025Report) -> str:
    """The 2025 table: the organisers' score names (``Q only (Ev2R recall)``, ``Q + A (Ev2R
    recall)``) and the new AVeriTeC score, first with failures counted as 0 (the organisers'
    convention), then over judged claims only; then the judge, the comparison, failures by cause
    with ids, notes and the signature."""
    r = report
    rule = r.comparison_text
    title = "AVeriTeC 2025 (FEVER-8) evaluation:"
    if not r.official_judge:
        title = "AVeriTeC 2025 (FEVER-8) evaluation -- " + BUNDLED_JUDGE_LABEL + ":"
    out = [title, "====================", r.judge, f"new AVeriTeC score: label correct and {rule} "
           f"(--recall-comparison {r.recall_comparison})", "===================="]
    names = (("Q only (Ev2R recall):", "question_only"), ("Q + A (Ev2R recall):", "question_answer"),
             (f"new AVeriTeC score (recall {_COMPARISON_SYMBOL[r.recall_comparison]} {r.recall_level:g}):",
              "new_averitec"))
    out.append(f"Failures counted as 0 (official convention, n={r.n_claims}):")
    for name, key in names:
        out.append(_line(name, _num(getattr(r, key).failures_as_zero)))
    out.append("--------------------")
    out.append("Over judged claims only (failures left out):")
    for name, key in names:
        s = getattr(r, key)
        out.append(_line(name, f"{_num(s.judged)} (n={s.n_judged})"))
    out.append("====================")
    for part in PARTS:
        by = r.failed_ids[part]
        text = "; ".join(f"{cause} {len(ids)} {_show(ids)}" for cause, ids in by.items()) or "none"
        out.append(f"failed {_PART_NAMES[part]}: {text}")
    if r.notes:
        out.append("notes: " + ", ".join(f"{k} {v}" for k, v in sorted(r.notes.items())))
    if not r.official_judge:
        out.append("NOTE: " + BUNDLED_JUDGE_LABEL + "; these numbers are not comparable with the FEVER-8 leaderboard")
    out.append(f"signature: {r.signature}")
    return "\n".join(out)
