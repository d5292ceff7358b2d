"""Reading and writing the dataset formats ev2r scores: JSONL items, AVeriTeC JSON, FEVER and VitaminC
rows, per-item output rows (:mod:`.readers`); AVeriTeC shared-task prediction files and their join to a
gold file (:mod:`.averitec`, the one reader of both ``ev2r score --references`` and ``ev2r averitec``).

May import: ``ev2r.types`` / ``labels``, ``claimalign`` (its text, JSON and file modules, the Q/A text reader).
"""

from ev2r.io.readers import (InputError, InputWarning, averitec_questions_to_evidence, item_from_row, items_from_rows,
                             parse_evidence, read_items, read_rows, score_row, write_jsonl)

__all__ = ["InputError", "InputWarning", "averitec_questions_to_evidence", "item_from_row", "items_from_rows",
           "parse_evidence", "read_items", "read_rows", "score_row", "write_jsonl"]
