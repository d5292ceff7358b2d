"""Reading and writing the dataset formats ev2r scores: JSONL items, AVeriTeC JSON and shared-task
predictions, FEVER and VitaminC rows (:mod:`.readers`); per-item output rows.

May import: ``ev2r.types`` / ``labels``, ``claimalign.textio``.
"""

from ev2r.io.readers import (InputError, InputWarning, averitec_questions_to_evidence, item_from_row, items_from_rows,
                             parse_evidence, read_items, read_rows, score_row, write_jsonl)

__all__ = ["InputError", "InputWarning", "averitec_questions_to_evidence", "item_from_row", "items_from_rows",
           "parse_evidence", "read_items", "read_rows", "score_row", "write_jsonl"]
