"""The one reader of AVeriTeC shared-task prediction files, and their one-to-one join to a gold file.

``ev2r score PRED --references GOLD`` (:func:`join_averitec_predictions`) and ``ev2r averitec``
(:func:`read_predictions`, :func:`gold_claim_ids`, :func:`join_on_claim_id`) both read through it; what differs is
stated by two arguments: ``labels`` (official verdict strings, or any spelling read later) and ``complete`` (a
prediction for every gold claim, or only those given).

Prediction formats (:data:`FORMATS`, :func:`prediction_format`): ``"averitec"``, the original format (Schlichtkrull
et al. 2023: ``claim_id``, ``label``, ``questions: [{question, answers: [{answer, answer_type?,
boolean_explanation?}]}]`` and/or ``string_evidence``, optional ``justification``), and ``"submission-2024"``
(``claim_id``, ``pred_label``, ``evidence: [{question, answer or null}]``), never mixed in one record. A record
without evidence scores 0; records are never modified.

Ids: a gold claim's id is its 0-based position in the gold file, unless every gold record has a ``claim_id``. The
join on ``claim_id`` is one-to-one (``1`` and ``"1"`` differ): :class:`JoinError` names every missing, repeated or
unknown id, every gold claim left without a prediction (``complete``) and every claim text that differs.
``join="position"`` pairs the i-th prediction with the i-th gold claim, as the official script does, for lists of
equal length. Errors: :class:`AveritecInputError` (a ``ValueError``) naming the record, the field and the allowed
values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from claimalign import jsonio
from claimalign.text import is_valid_id, normalize_text

from ev2r.io.errors import InputError
from ev2r.io.errors import where as _where
from ev2r.labels import normalize_verdict
from ev2r.types import Evidence, QAPair

__all__ = [
    "VERDICTS", "FORMATS", "LABEL_POLICIES", "JOIN_MODES", "AveritecInputError", "JoinError", "AveritecPrediction",
    "GoldRef", "prediction_format", "read_predictions", "gold_claim_ids", "join_on_claim_id",
    "join_averitec_predictions", "same_claim", "check_verdict", "optional_text", "record_location",
    "render_averitec_answer", "averitec_questions_to_evidence",
]

#: The AVeriTeC verdicts, spelled as the official scorer and the shared-task files spell them.
VERDICTS = ("Supported", "Refuted", "Not Enough Evidence", "Conflicting Evidence/Cherrypicking")
FORMATS = ("averitec", "submission-2024")
#: ``official``: the predicted verdict is required and is one of :data:`VERDICTS` exactly (the
#: shared task); ``any``: optional and kept as given (``ev2r score`` reads any spelling later).
LABEL_POLICIES = ("official", "any")
JOIN_MODES = ("id", "position")
_MAX_IDS_SHOWN = 100


class AveritecInputError(InputError):
    """Unusable predictions or gold records; the message names the record and field."""


class JoinError(AveritecInputError):
    """Predictions that do not join the gold file one-to-one.

    Attributes:
        problems: ``{cause: [ids or indices]}`` with causes ``missing_claim_id`` (prediction
            indices), ``duplicate_claim_id``, ``unknown_claim_id``, ``missing_prediction`` (gold
            ids), ``claim_mismatch`` (ids), ``length_mismatch`` (``[n_pred, n_gold]``).
    """

    def __init__(self, message: str, problems: Dict[str, list]):
        super().__init__(message)
        self.problems = problems


@dataclass(frozen=True)
class AveritecPrediction:
    """One validated prediction record (module docstring for the formats).

    Attributes:
        index: position in the predictions file.
        claim_id: the record's ``claim_id`` as given (None when absent).
        format: ``"averitec"`` or ``"submission-2024"`` (:data:`FORMATS`).
        claim: the claim text, or None when absent.
        label: the predicted verdict as given (``pred_label``, else ``label``); None when absent
            (only with ``labels="any"``).
        evidence: submission format: ``(question, answer or None)`` per ``evidence`` item; else ``()``.
        questions: original format: the ``questions`` list as given (validated), None when absent.
        string_evidence: the ``string_evidence`` strings, None when absent.
        justification: the record's justification, or None.
        record: the record itself (not copied, never modified).
    """

    index: int
    claim_id: Any
    format: str
    claim: Optional[str]
    label: Any
    evidence: Tuple[Tuple[str, Optional[str]], ...]
    questions: Optional[Tuple[Mapping[str, Any], ...]]
    string_evidence: Optional[Tuple[str, ...]]
    justification: Optional[str]
    record: Mapping[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class GoldRef:
    """What the join needs of a gold claim: its id, its position and its claim text (or None)."""

    claim_id: Any
    index: int
    claim: Optional[str]


def _show(ids: Sequence[Any]) -> str:
    ids = list(ids)
    if len(ids) <= _MAX_IDS_SHOWN:
        return "[" + ", ".join(repr(x) for x in ids) + "]"
    return ("[" + ", ".join(repr(x) for x in ids[:_MAX_IDS_SHOWN]) + f", ...] ({len(ids)} in all)")


def record_location(kind: str, index: int, rec: Any, path: Optional[str] = None, line: Optional[int] = None) -> str:
    """Where a record is, for error messages: ``predictions[3] (claim_id 7)`` (``kind`` = ``predictions``
    or ``references``), or ``FILE: row 3 (line 5, id '7')`` when the file is named (``line``: the 1-based line
    of the file the record starts on, where known; :func:`ev2r.io.errors.where`)."""
    cid = rec.get("claim_id") if isinstance(rec, Mapping) else None
    if path is not None:
        return _where(path, index, None if cid is None else str(cid), line)
    return f"{kind}[{index}]" + (f" (claim_id {cid!r})" if cid is not None else "")


_WS = re.compile(r"\s+")


def same_claim(a: Optional[str], b: Optional[str]) -> bool:
    """Whether two claim texts agree up to whitespace (True when either is None)."""
    if a is None or b is None:
        return True
    return _WS.sub(" ", a).strip() == _WS.sub(" ", b).strip()


def render_averitec_answer(ans: dict) -> str:
    """Render one AVeriTeC answer: the answer text, followed by its ``boolean_explanation``
    for Boolean answers (``"No. The report says ..."``)."""
    text = str(ans.get("answer", "") or "").strip()
    expl = str(ans.get("boolean_explanation", "") or "").strip()
    if expl:
        text = f"{text}. {expl}" if text and not text.endswith((".", "!", "?")) else f"{text} {expl}".strip()
    return text


def averitec_questions_to_evidence(questions: Any, where: str, field: str = "questions",
                                   official: bool = False) -> Evidence:
    """AVeriTeC ``questions`` list -> :class:`Evidence`; duplicate questions dropped (first kept);
    several answers to one question are joined with a space.

    Args:
        questions: ``[{question: str, answers: [{answer: str, answer_type?, boolean_explanation?}]}]``
            (an entry ``{question, answer}`` without ``answers`` is read as one answer).
        where: the record, named in error messages; field: its field name.
        official: read ``answers`` as the official AVeriTeC scorer does (as :func:`read_predictions`
            checks predictions): absent means no answer, a single answer object is a list of one; a
            ``Boolean`` answer carries a ``boolean_explanation`` string; repeated questions are checked too.

    Raises:
        InputError: naming the entry and the field.
    """
    if not isinstance(questions, list):
        raise InputError(f"{where}: field {field!r} must be a list of {{question, answers}}, got "
                         f"{type(questions).__name__}")
    pairs, seen = [], set()
    for k, q in enumerate(questions):
        if not isinstance(q, dict) or not isinstance(q.get("question"), str):
            raise InputError(f"{where}: {field}[{k}] must be an object with a string 'question'")
        question = normalize_text(q["question"]).strip()
        if question in seen and not official:
            continue
        answers = q.get("answers")
        if answers is None and "answer" in q and not official:
            answers = [q]
        if official:  # as the official scorer reads them: absent -> no answer, a single answer -> a list of one
            if "answers" not in q and "answer" in q:
                raise InputError(f"{where}: {field}[{k}] has 'answer' but no 'answers' list (the original format "
                                 "nests answers: {question, answers: [{answer}]}); the official scorer would "
                                 "read it as unanswered")
            answers = [] if "answers" not in q else answers if isinstance(answers, list) else [answers]
        if not isinstance(answers, list):
            raise InputError(f"{where}: {field}[{k}].answers must be a list")
        for j, x in enumerate(answers):
            if not isinstance(x, dict) or not isinstance(x.get("answer"), str):
                got = type(x).__name__ if not isinstance(x, dict) else f"answer={x.get('answer')!r:.60}"
                raise InputError(f"{where}: {field}[{k}].answers[{j}] must be an object with an 'answer' string, "
                                 f"got {got}")
            expl = x.get("boolean_explanation")
            if (expl is not None or (official and x.get("answer_type") == "Boolean")) and not isinstance(expl, str):
                raise InputError(f"{where}: {field}[{k}].answers[{j}].boolean_explanation must be a string"
                                 + (" (a Boolean answer needs one)" if expl is None else "") + f", got {expl!r:.60}")
        if question in seen:
            continue
        seen.add(question)
        text = " ".join(a for a in (render_averitec_answer(x) for x in answers) if a)
        pairs.append(QAPair(question, text))
    return Evidence(tuple(pairs))


def _check_claim_id(value: Any, where: str) -> Any:
    if not is_valid_id(value):
        raise AveritecInputError(f"{where}: field 'claim_id' must be an integer (the gold claim's position) or a "
                                 f"non-empty string, got {value!r:.60}")
    return value


def check_verdict(value: Any, where: str, field_name: str) -> str:
    """``value`` when it is one of :data:`VERDICTS` exactly.

    Raises:
        AveritecInputError: naming ``where``, the field and the allowed values.
    """
    if not isinstance(value, str) or value not in VERDICTS:
        raise AveritecInputError(f"{where}: field {field_name!r} is {value!r}; allowed values: "
                                 + ", ".join(repr(v) for v in VERDICTS))
    return value


def optional_text(rec: Mapping[str, Any], key: str, where: str, null: bool = True) -> Optional[str]:
    """``rec[key]`` when it is a string; None when absent (or null, when ``null``).

    Raises:
        AveritecInputError: any other value, naming ``where`` and the field.
    """
    v = rec.get(key)
    if v is None and (null or key not in rec):
        return None
    if not isinstance(v, str):
        allowed = "(or absent/null)" if null else "(or absent)"
        raise AveritecInputError(f"{where}: field {key!r} must be a string {allowed}, got {v!r:.120}")
    return v


def prediction_format(rec: Mapping[str, Any], where: str = "prediction") -> str:
    """The format of one prediction record: ``"submission-2024"`` when it has ``evidence``,
    ``"averitec"`` when it has ``questions`` or ``string_evidence``; without either, by its label
    field (``pred_label``: submission, else original).

    Raises:
        AveritecInputError: ``evidence`` together with ``questions`` (``string_evidence`` beside
            ``evidence`` is the organisers' 2024 baseline output: its strings count as evidence).
    """
    if "evidence" in rec and "questions" in rec:
        raise AveritecInputError(f"{where}: has both 'evidence' (2024 submission format) and "
                                 "'questions' (original evaluation format); give one")
    if "evidence" in rec:
        return "submission-2024"
    if "questions" in rec or "string_evidence" in rec:
        return "averitec"
    return "submission-2024" if "pred_label" in rec else "averitec"


def _read_label(rec: Mapping[str, Any], where: str, labels: str) -> Any:
    """The predicted verdict: ``pred_label``, else ``label`` (see :data:`LABEL_POLICIES`)."""
    if labels == "official":
        if "pred_label" in rec:
            label = check_verdict(rec["pred_label"], where, "pred_label")
            if "label" in rec and rec["label"] != label:
                raise AveritecInputError(f"{where}: 'pred_label' {label!r} and 'label' {rec['label']!r} disagree; "
                                         "give one")
            return label
        if "label" in rec:
            return check_verdict(rec["label"], where, "label")
        raise AveritecInputError(f"{where}: no predicted verdict: field 'pred_label' (2024 submission format) or "
                                 "'label' (original format) is required; allowed values: "
                                 + ", ".join(repr(v) for v in VERDICTS))
    if "pred_label" in rec and "label" in rec:
        try:
            differ = normalize_verdict(rec["pred_label"]) != normalize_verdict(rec["label"])
        except ValueError:  # an unreadable optional verdict: warned about when the row is read
            differ = False
        if differ:
            raise AveritecInputError(f"{where}: 'pred_label' {rec['pred_label']!r} and 'label' {rec['label']!r} "
                                     "disagree; give one")
    return rec["pred_label"] if "pred_label" in rec else rec.get("label")


def _read_evidence(rec: Mapping[str, Any], where: str) -> Tuple[Tuple[str, Optional[str]], ...]:
    evidence = rec["evidence"]
    if not isinstance(evidence, list):
        raise AveritecInputError(f"{where}: field 'evidence' must be a list of {{question, answer}} objects, "
                                 f"got {type(evidence).__name__}")
    pairs = []
    for k, item in enumerate(evidence):
        if (not isinstance(item, Mapping) or not isinstance(item.get("question"), str) or "answer" not in item
                or not (item["answer"] is None or isinstance(item["answer"], str))):
            raise AveritecInputError(f"{where}: evidence[{k}] must be {{'question': str, 'answer': str or null}}, "
                                     f"got {item!r:.120}")
        pairs.append((item["question"], item["answer"]))
    return tuple(pairs)


def _read_original(rec: Mapping[str, Any], where: str) -> Tuple[Optional[tuple], Optional[tuple]]:
    questions = strings = None
    if "string_evidence" in rec:
        strings = rec["string_evidence"]
        if not isinstance(strings, list) or not all(isinstance(s, str) for s in strings):
            raise AveritecInputError(f"{where}: field 'string_evidence' must be a list of strings, "
                                     f"got {strings!r:.120}")
        strings = tuple(strings)
    if "questions" in rec:
        try:  # the shapes the official scorer reads: answers a list, a Boolean answer with its explanation
            averitec_questions_to_evidence(rec["questions"], where, official=True)
        except InputError as e:
            raise AveritecInputError(str(e)) from None
        questions = tuple(rec["questions"])
    return questions, strings


def read_predictions(records: Sequence[Any], labels: str = "official",
                     path: Optional[str] = None) -> List[AveritecPrediction]:
    """Validate AVeriTeC prediction records, in either format (module docstring).

    Args:
        records: the parsed records (a list of objects); not modified.
        labels: ``"official"`` (default; the verdict is required, one of :data:`VERDICTS`) or
            ``"any"`` (optional, kept as given for :func:`ev2r.labels.normalize_verdict`).
        path: the predictions file, named in error messages (else ``predictions[i]``).

    Returns:
        one :class:`AveritecPrediction` per record, in file order.

    Raises:
        AveritecInputError: not a non-empty list of objects; both formats in one record;
            ``evidence`` not a list of ``{question: str, answer: str or null}``; ``questions`` not a
            list of ``{question: str, answers: [{answer: str, ...}]}`` (a Boolean answer without its
            ``boolean_explanation`` string); ``string_evidence`` not a list of strings; a bad
            verdict (``labels="official"``: missing or not one of :data:`VERDICTS`; either
            policy: ``pred_label`` and ``label`` naming different verdicts); a ``claim_id`` that
            is not an integer or a non-empty string; ``claim`` / ``justification`` not a string.
        ValueError: unknown ``labels``.
    """
    if labels not in LABEL_POLICIES:
        raise ValueError(f"labels: {labels!r} is not one of {LABEL_POLICIES}")
    if isinstance(records, (str, bytes, Mapping)) or not isinstance(records, Sequence):
        raise AveritecInputError(f"predictions: expected a list of prediction records, got {type(records).__name__}")
    if not records:
        raise AveritecInputError("predictions: no predictions")
    out: List[AveritecPrediction] = []
    for i, rec in enumerate(records):
        where = record_location("predictions", i, rec, path, jsonio.line_of(records, i))
        if not isinstance(rec, Mapping):
            raise AveritecInputError(f"{where}: expected a JSON object, got {type(rec).__name__}")
        fmt = prediction_format(rec, where)
        label = _read_label(rec, where, labels)
        evidence: Tuple[Tuple[str, Optional[str]], ...] = ()
        questions = strings = None
        if fmt == "submission-2024":
            if "evidence" in rec:
                evidence = _read_evidence(rec, where)
            _, strings = _read_original({k: v for k, v in rec.items() if k == "string_evidence"}, where)
        elif fmt == "averitec":
            questions, strings = _read_original(rec, where)
        cid = rec.get("claim_id")  # null: no id
        if cid is not None:
            _check_claim_id(cid, where)
        out.append(AveritecPrediction(
            index=i, claim_id=cid, format=fmt, claim=optional_text(rec, "claim", where, null=False), label=label,
            evidence=evidence, questions=questions, string_evidence=strings,
            justification=optional_text(rec, "justification", where, null=True), record=rec))
    return out


def gold_claim_ids(records: Sequence[Any], path: Optional[str] = None) -> List[Any]:
    """The id of every gold claim: its position 0..N-1, or its ``claim_id`` when every record
    has one.

    Args:
        records: the gold records (AVeriTeC claim objects); only ``claim_id`` is read here.
        path: the gold file, named in error messages (else ``references[i]``).

    Raises:
        AveritecInputError: some records with a ``claim_id`` and others without, records with an
            ``id``/``unique_id`` but no ``claim_id`` (ids this reader would not use), a ``claim_id``
            that is not an integer or a non-empty string, or one given twice.
    """
    with_id = [isinstance(r, Mapping) and r.get("claim_id") is not None for r in records]
    if not all(with_id):
        if any(with_id):
            missing = [i for i, w in enumerate(with_id) if not w]
            raise AveritecInputError(f"{path or 'references'}: some gold records have a 'claim_id' and others do "
                                     f"not (without: {_show(missing)}); give every record one, or none (then the "
                                     "position is the id)")
        other = [i for i, r in enumerate(records) if isinstance(r, Mapping)
                 and any(r.get(f) is not None for f in ("id", "unique_id"))]
        if other:  # never join on a position where the file names its own ids
            raise AveritecInputError(f"{path or 'references'}: gold records {_show(other)} have an 'id'/'unique_id' "
                                     "but no 'claim_id': gold claims are identified by 'claim_id' (in every record) "
                                     "or, without it, by their position; name the ids 'claim_id' or remove them")
        return list(range(len(records)))
    ids: List[Any] = []
    seen = set()
    for i, rec in enumerate(records):
        where = record_location("references", i, rec, path, jsonio.line_of(records, i))
        cid = _check_claim_id(rec["claim_id"], where)
        if cid in seen:
            raise AveritecInputError(f"{where}: a second gold row with id {str(cid)!r} (ids must be unique in the "
                                     "references file)")
        seen.add(cid)
        ids.append(cid)
    return ids


def join_on_claim_id(predictions: Sequence[Any], gold: Sequence[Any], join: str = "id",
                     complete: bool = True) -> List[Tuple[Any, Any]]:
    """Pair predictions with gold claims one-to-one.

    Args:
        predictions: objects with ``claim_id``, ``index`` and ``claim`` (e.g.
            :class:`AveritecPrediction`).
        gold: objects with ``claim_id``, ``index`` and ``claim`` (e.g. :class:`GoldRef`), in gold order.
        join: ``"id"`` (default): a prediction's ``claim_id`` is the gold claim's id;
            ``"position"``: the i-th prediction is the i-th gold claim (lists of equal length).
        complete: every gold claim needs a prediction (the shared task); False: predictions for
            a subset of the gold claims are joined (``ev2r score``).

    Returns:
        ``(prediction, gold)`` pairs in gold order.

    Raises:
        JoinError: predictions without ``claim_id`` (``join="id"``), ids given twice, ids not in
            the gold file, gold claims without a prediction (``complete``), different lengths
            (``join="position"``), or a prediction whose ``claim`` differs from its gold
            claim's; the message names every offending id.
        ValueError: unknown ``join``.
    """
    if join not in JOIN_MODES:
        raise ValueError(f"join: {join!r} is not one of {JOIN_MODES}")
    problems: Dict[str, list] = {}
    pairs: List[Tuple[Any, Any]] = []
    if join == "position":
        if len(predictions) != len(gold):
            problems["length_mismatch"] = [len(predictions), len(gold)]
        else:
            pairs = list(zip(predictions, gold))
    else:
        no_id = [p.index for p in predictions if p.claim_id is None]
        if no_id:
            problems["missing_claim_id"] = no_id
        by_id: Dict[Any, Any] = {}
        dup: List[Any] = []
        for p in predictions:
            if p.claim_id is None:
                continue
            if p.claim_id in by_id:
                if p.claim_id not in dup:
                    dup.append(p.claim_id)
            else:
                by_id[p.claim_id] = p
        if dup:
            problems["duplicate_claim_id"] = dup
        gold_ids = {g.claim_id for g in gold}
        unknown = [cid for cid in by_id if cid not in gold_ids]
        if unknown:
            problems["unknown_claim_id"] = unknown
        missing = [g.claim_id for g in gold if g.claim_id not in by_id]
        if missing and complete:
            problems["missing_prediction"] = missing
        pairs = [(by_id[g.claim_id], g) for g in gold if g.claim_id in by_id]
    mismatch = [g.claim_id for p, g in pairs if not same_claim(p.claim, g.claim)]
    if mismatch:
        problems["claim_mismatch"] = mismatch
    if problems:
        text = {
            "missing_claim_id": "predictions without 'claim_id' (by position in the predictions file)",
            "duplicate_claim_id": "claim_id given more than once",
            "unknown_claim_id": "claim_id not in the gold file (gold ids are "
                                + ("its records' claim_id" if any(g.claim_id != g.index for g in gold)
                                   else f"positions 0..{len(gold) - 1}") + ")",
            "missing_prediction": "gold claims without a prediction",
            "claim_mismatch": "prediction 'claim' text differs from the gold claim's",
            "length_mismatch": "--join position needs as many predictions as gold claims [predictions, gold]",
        }
        parts = [f"{text[k]}: {_show(v)}" for k, v in problems.items()]
        hint = ("; the shared-task table scores every gold claim: predict them all, or give a gold file of the "
                "claims you predicted (per-item scores of a subset: ev2r score PRED --references GOLD)"
                if "missing_prediction" in problems else "")
        raise JoinError("predictions do not join the gold file one-to-one: " + "; ".join(parts) + hint, problems)
    return pairs


def join_averitec_predictions(preds: Sequence[Any], gold: Sequence[Any], pred_path: str, gold_path: str) -> list[dict]:
    """Rows for :func:`ev2r.io.readers.item_from_row` from AVeriTeC predictions joined to their gold
    claims (``ev2r score PRED --references GOLD``), in prediction order.

    Each row is the prediction record with the gold ``questions`` (the reference evidence), the
    gold ``label``, the gold ``claim`` when the prediction has none, the predicted verdict in
    ``pred_label`` and the predicted evidence in ``evidence``: the submission format's items with
    an answer; in the original format, its ``questions`` (one pair per distinct question, its
    answers joined, :func:`averitec_questions_to_evidence`) then each
    ``string_evidence`` string as an answer without a question. Predictions may cover a subset of
    the gold claims; verdicts are read later in any spelling.

    Returns:
        the joined rows; a :class:`claimalign.jsonio.RowList` carrying the predictions file's lines when
        ``preds`` carries them (so messages about a joined row name its line of the predictions file).

    Raises:
        InputError: a gold row without ``questions``; as :func:`read_predictions` (``labels="any"``)
            and :func:`gold_claim_ids`; :class:`JoinError` as :func:`join_on_claim_id` with
            ``complete=False``.
    """
    for n, g in enumerate(gold):  # the gold file's own faults are reported against the gold file
        at = _where(gold_path, n, line=jsonio.line_of(gold, n))
        if not isinstance(g, dict) or "questions" not in g:
            raise InputError(f"{at}: a references row needs 'questions' (AVeriTeC gold format)")
        averitec_questions_to_evidence(g["questions"], at)
        if g.get("label") is not None:
            try:
                normalize_verdict(g["label"], field="label")
            except ValueError as e:
                raise InputError(f"{at}: {e}") from None
    ids = gold_claim_ids(gold, gold_path)
    refs = [GoldRef(cid, n, g.get("claim") if isinstance(g.get("claim"), str) else None)
            for n, (cid, g) in enumerate(zip(ids, gold))]
    predictions = read_predictions(preds, labels="any", path=pred_path)
    try:
        pairs = join_on_claim_id(predictions, refs, complete=False)
    except JoinError as e:
        raise JoinError(f"{pred_path} (references {gold_path}): {e}", e.problems) from None
    pairs.sort(key=lambda pg: pg[0].index)
    lines: list = []  # the line of the predictions file each joined row came from (messages name it)
    out = []
    for p, g in pairs:
        merged = dict(p.record)
        lines.append(jsonio.line_of(preds, p.index))
        if p.format == "submission-2024":
            evidence = ([{"question": q, "answer": a} for q, a in p.evidence if a is not None]
                        + [{"question": "", "answer": s} for s in p.string_evidence or ()])
        else:
            qs = averitec_questions_to_evidence(list(p.questions or ()), "", official=True).pairs
            evidence = ([{"question": q.question, "answer": q.answer} for q in qs]
                        + [{"question": "", "answer": s} for s in p.string_evidence or ()])
        merged["evidence"] = evidence
        merged.pop("label", None)  # a prediction's own label is its predicted verdict, never the gold one
        if p.label is not None:
            merged["pred_label"] = p.label
        merged["questions"] = gold[g.index]["questions"]
        merged["label"] = gold[g.index].get("label")
        if merged.get("claim") is None:
            merged["claim"] = gold[g.index].get("claim")
        out.append(merged)
    return jsonio.RowList(out, lines) if None not in lines else out
