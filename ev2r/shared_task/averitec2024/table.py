"""The AVeriTeC 2024 table as the organisers' ``eval.py`` prints it (:func:`format_official_table`)."""

from __future__ import annotations

import math
from typing import Optional

from ev2r.io.averitec import VERDICTS
from ev2r.shared_task.averitec2024.claims import MAX_QUESTIONS
from ev2r.shared_task.averitec2024.scoring import AVERITEC_LEVELS, TYPE_THRESHOLDS, AveritecReport

__all__ = ["format_official_table"]


def _line(left: str, right: str) -> str:
    # the official print_with_space: pad the name to 40 characters (no space when longer)
    return left + " " * (40 - len(left)) + right


def _num(v: Optional[float]) -> str:
    return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else repr(float(v))


def table_notes(report: AveritecReport) -> list[str]:
    """This package's status lines on a 2024 table (``ev2r averitec`` prints them on stderr, so that stdout
    is the official script's table line for line): claims joined and failed, pairs capped,
    claims without predicted evidence, justifications taken from the evidence, what the by-type blocks
    mean, and the classes whose F1 is undefined."""
    r = report
    failed = ", ".join(f"{k} {n}" for k, n in r.n_failed.items()) or "none"
    out = [f"claims: {r.n_claims} joined; failed: {failed}; capped at {MAX_QUESTIONS} predicted pairs: "
           f"{r.n_capped}; no predicted evidence: {r.n_no_predicted_evidence}; justification from evidence: "
           f"{r.n_justification_from_evidence}",
           "by-type blocks: thresholds " + " then ".join(str(t) for t in TYPE_THRESHOLDS)
           + " (mean evidence score above the threshold, else 0; labels not used)"]
    if r.f1_undefined_classes:
        out.append("F1 undefined (no gold, no prediction; shown as 0): " + ", ".join(r.f1_undefined_classes))
    return out


def format_official_table(report: AveritecReport) -> str:
    """The table as the official script prints it (same names, order and layout; numbers as
    Python ``repr`` of the float); this package's status lines are :func:`table_notes`. A subset report
    (``report.subset``, ``ev2r averitec --subset``) says so in its first and last lines, so that it
    is never taken for the official number."""
    r = report
    out = []
    if r.subset:
        out.append(f"SUBSET: {r.n_claims} of {r.n_gold_claims} gold claims scored (--subset: only the predicted "
                   "claims); NOT the official shared-task numbers, which score every gold claim")
    out += ["AVeriTeC evaluation:", "====================",
           _line("Question-only score (HU-meteor):", _num(r.question_only)),
           _line("Question-answer score (HU-meteor):", _num(r.question_answer)),
           "====================", "Veracity F1 scores:"]
    for v in VERDICTS:
        out.append(_line(f" * {v}:", _num(r.veracity_f1[v])))
    out.append(_line(" * macro:", _num(r.macro_f1)))
    out.append(_line(" * acc:", _num(r.accuracy)))
    out.append(_line("Justification score (meteor):", _num(r.justification)))
    out += ["--------------------", "Averitec scores:"]
    for level in AVERITEC_LEVELS:
        out.append(_line(f" * Veracity scores (meteor @ {level}):", _num(r.averitec_veracity[level])))
        out.append(_line(f" * Justification scores (meteor @ {level}):", _num(r.averitec_justification[level])))
    for thr in TYPE_THRESHOLDS:
        out.append("--------------------")
        for t, v in r.by_type[thr].items():
            out.append(_line(f" * Veracity scores ({t}):", _num(v)))
    out.append("====================")
    if r.subset:
        out.append(f"SUBSET of {r.n_claims}/{r.n_gold_claims} gold claims: not comparable with the official "
                   "(every-claim) numbers")
    return "\n".join(out)
