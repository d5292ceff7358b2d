"""The names that lived here before 2.0, re-exported where callers import them: text normalisation
(:mod:`claimalign.text`), JSON / JSONL records (:mod:`claimalign.jsonio`), files and atomic writes
(:mod:`claimalign.files`), unspaced scripts (:mod:`claimalign.scripts`) and tokenizer control strings
(:mod:`claimalign.tokens`). New code imports from those modules.
"""

from __future__ import annotations

from claimalign.files import (WRITE_THROUGH_KINDS, atomic_path, atomic_write, output_kind, read_text_file,  # noqa: F401
                              same_file, write_text)
from claimalign.jsonio import (MAX_JSON_DEPTH, RowList, check_depth, dumps_jsonl, json_depth,  # noqa: F401
                               line_of, list_element_lines, loads_checked, parse_json_or_jsonl, parse_jsonl,
                               read_rows_file, row_where, split_jsonl_lines, write_json, write_jsonl)
from claimalign.scripts import (UNSPACED_SCRIPTS, ScriptWarning, has_unspaced_script,  # noqa: F401
                                non_ascii_letter_share, split_unspaced_script, warn_unspaced_script)
from claimalign.text import (INVISIBLE, check_encodable, clean_text, is_valid_id, normalize_strings,  # noqa: F401
                             normalize_text)
from claimalign.tokens import guard_special_tokens, neutralize_special_tokens  # noqa: F401

__all__ = [
    "normalize_text", "normalize_strings", "clean_text", "is_valid_id", "check_encodable", "INVISIBLE",
    "split_jsonl_lines", "parse_jsonl", "parse_json_or_jsonl", "RowList", "row_where", "line_of", "list_element_lines",
    "read_text_file", "read_rows_file",
    "dumps_jsonl", "write_jsonl", "MAX_JSON_DEPTH", "json_depth", "check_depth", "loads_checked", "atomic_path",
    "atomic_write", "output_kind", "WRITE_THROUGH_KINDS", "write_json", "write_text", "same_file",
    "guard_special_tokens", "neutralize_special_tokens", "UNSPACED_SCRIPTS",
    "has_unspaced_script", "split_unspaced_script", "ScriptWarning", "warn_unspaced_script", "non_ascii_letter_share",
]
