"""Reading and writing the dataset formats ev2r scores: JSONL items, AVeriTeC JSON, FEVER and VitaminC
rows, per-item output rows (:mod:`.readers`); AVeriTeC shared-task prediction files and their join to a
gold file (:mod:`.averitec`, the one reader of both ``ev2r score --references`` and ``ev2r averitec``); the one
reader of question/answer evidence text (:mod:`.qa_text`: :func:`parse_qa_text`, :func:`evidence_from_text`).

May import: ``ev2r.types`` / ``labels`` / ``scores`` / ``signature``, ``claimalign`` (its text, JSON and file
modules, the input types). ``ev2r.facts`` reads recorded evidence text with :mod:`.qa_text`.
"""

from ev2r.io.qa_text import LAYOUT_NOTES, evidence_from_text, json_pair_problems, parse_qa_text

from ev2r.io.readers import (InputError, InputWarning, averitec_questions_to_evidence, item_from_row, items_from_rows,
                             parse_evidence, read_items, read_rows, score_row, write_jsonl)

__all__ = ["InputError", "InputWarning", "LAYOUT_NOTES", "averitec_questions_to_evidence", "evidence_from_text",
           "item_from_row", "items_from_rows", "json_pair_problems", "parse_evidence", "parse_qa_text", "read_items",
           "read_rows", "score_row", "write_jsonl"]
