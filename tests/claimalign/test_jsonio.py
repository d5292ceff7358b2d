"""``claimalign.jsonio`` and ``claimalign.files``: nesting-depth and integer-length limits of every JSON/JSONL
reader, and the atomic writers (a temporary file beside the target renamed into place)."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import given, settings, strategies as st

from claimalign import files, jsonio
from claimalign.files import atomic_path, same_file, write_text
from claimalign.jsonio import MAX_JSON_DEPTH, json_depth, write_json, write_jsonl
from support.paths import SHARED_CASES

DEEP_CASE = SHARED_CASES / "turn3" / "deep_nested_500.jsonl"


def _nested(depth: int, kind: str = "list"):
    """A JSON text of one row whose nesting is exactly ``depth`` (the row object counts 1)."""
    inner = "[" * (depth - 1) + "]" * (depth - 1) if kind == "list" else '{"a":' * (depth - 1) + "1" + "}" * (depth - 1)
    return '{"id": 0, "claim": "x", "predicted_evidence": ' + inner + "}" if depth > 1 else '{"id": 0}'


@pytest.mark.skipif(not DEEP_CASE.exists(), reason="shared cases not present")
def test_the_500_deep_case_is_an_error_naming_file_row_and_limit():
    text = DEEP_CASE.read_text(encoding="utf-8")
    with pytest.raises(ValueError) as e:
        jsonio.parse_json_or_jsonl(text, str(DEEP_CASE))
    msg = str(e.value)
    assert str(DEEP_CASE) in msg and "row 0" in msg and f"{MAX_JSON_DEPTH} levels" in msg
    with pytest.raises(ValueError, match="row 0"):
        jsonio.read_rows_file(DEEP_CASE)


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 500, 1000, 100_000])
@pytest.mark.parametrize("kind", ["list", "object"])
def test_too_deep_rows_are_refused_in_jsonl_and_json_lists(depth, kind):
    row = _nested(depth, kind)
    with pytest.raises(ValueError, match=rf"f.jsonl: row 1 \(line 2\): nested more than {MAX_JSON_DEPTH}"):
        jsonio.parse_jsonl('{"id": 9}\n' + row, "f.jsonl")
    with pytest.raises(ValueError, match=rf"f.json: row 1\b.*nested more than {MAX_JSON_DEPTH}"):
        jsonio.parse_json_or_jsonl('[{"id": 9},\n' + row + "]", "f.json")
    with pytest.raises(ValueError, match=rf"one.json: nested more than {MAX_JSON_DEPTH}"):
        jsonio.parse_json_or_jsonl(row.replace('{"id": 0,', '{\n"id": 0,', 1), "one.json")


def test_brackets_inside_strings_do_not_count():
    s = '{"claim": "' + "[" * 5000 + '\\"{{{"}'
    assert jsonio.parse_jsonl(s)[0]["claim"].startswith("[[[")
    assert jsonio.parse_json_or_jsonl("[" + s + "]")[0]["claim"].endswith('"{{{')


@settings(max_examples=60, deadline=None)
@given(depth=st.integers(1, 3 * MAX_JSON_DEPTH), kind=st.sampled_from(["list", "object"]),
       container=st.sampled_from(["jsonl", "json"]))
def test_any_depth_is_read_or_refused_by_the_limit_never_a_recursion_error(depth, kind, container):
    row = _nested(depth, kind)
    text = row if container == "jsonl" else "[" + row + "]"
    if depth <= MAX_JSON_DEPTH:
        (parsed,) = jsonio.parse_json_or_jsonl(text, "f")
        assert json_depth(parsed) == depth
    else:
        with pytest.raises(ValueError, match="limit"):
            jsonio.parse_json_or_jsonl(text, "f")


def test_json_depth():
    assert json_depth(1) == 0 and json_depth([]) == 1 and json_depth({"a": [[], {"b": 1}]}) == 3
    assert json_depth([[[[]]]], stop=2) == 3 and json_depth([[[[]]]] * 2) == 4


@pytest.mark.parametrize("line", ['{"id": %s, "claim": "c"}', '{"claim": "c", "n": -%s}'])
def test_an_integer_too_long_to_read_names_the_file_and_field(line):
    digits = "9" * 5000
    field = "id" if '"id"' in line else "n"
    with pytest.raises(ValueError, match=rf"f.jsonl: row 0 \(line 1\): field '{field}' holds an integer of 5000 "
                                         "digits"):
        jsonio.parse_jsonl(line % digits, "f.jsonl")
    with pytest.raises(ValueError, match=rf"f.json: field '{field}' holds an integer of 5000 digits"):
        jsonio.parse_json_or_jsonl("[" + line % digits + "]", "f.json")


# -- writing -------------------------------------------------------------------------------------

def test_a_failed_write_keeps_the_previous_file_and_leaves_no_temporary(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")

    def rows():
        yield {"a": 1}
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        write_jsonl(rows(), out)
    assert out.read_text() == "previous\n" and os.listdir(tmp_path) == ["out.jsonl"]
    with pytest.raises(TypeError):
        write_json({"x": object()}, out)
    with pytest.raises(KeyboardInterrupt):
        with files.atomic_write(out) as fh:
            fh.write("half")
            raise KeyboardInterrupt
    assert out.read_text() == "previous\n" and os.listdir(tmp_path) == ["out.jsonl"]


def test_writers_replace_the_file_follow_symlinks_and_keep_permissions(tmp_path):
    real = tmp_path / "real.jsonl"
    real.write_text("old\n")
    os.chmod(real, 0o640)
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    write_jsonl([{"a": "\u2028"}], link)
    assert link.is_symlink() and jsonio.read_rows_file(real) == [{"a": "\u2028"}]
    assert oct(os.stat(real).st_mode & 0o777) == oct(0o640)
    write_json({"b": [1]}, tmp_path / "x.json")
    assert json.loads((tmp_path / "x.json").read_text()) == {"b": [1]}
    write_text("t", tmp_path / "x.md")
    assert (tmp_path / "x.md").read_text() == "t"
    assert sorted(os.listdir(tmp_path)) == ["link.jsonl", "real.jsonl", "x.json", "x.md"]


def test_atomic_path_keeps_the_extension_for_writers_that_go_by_it(tmp_path):
    with atomic_path(tmp_path / "plot.png") as tmp:
        assert tmp.endswith(".png") and os.path.dirname(tmp) == str(tmp_path.resolve())
        open(tmp, "wb").write(b"png")
    assert (tmp_path / "plot.png").read_bytes() == b"png"


def test_same_file(tmp_path, monkeypatch):
    f = tmp_path / "f.jsonl"
    f.write_text("x")
    (tmp_path / "l.jsonl").symlink_to(f)
    os.link(f, tmp_path / "h.jsonl")
    monkeypatch.chdir(tmp_path)
    assert same_file("f.jsonl", "./f.jsonl") and same_file(f, "l.jsonl") and same_file(f, "h.jsonl")
    assert same_file("new.jsonl", tmp_path / "sub" / ".." / "new.jsonl")
    assert not same_file(f, tmp_path / "other.jsonl")


@pytest.mark.parametrize("text, key", [('{"claim": "a", "claim": "b"}', "claim"),
                                       ('{"evidence": [{"answer": "Bob", "answer": "Alice"}]}', "answer")])
def test_a_key_given_twice_in_one_object_is_refused_by_name(text, key):
    # hostile round 2 (B8): JSON keeps the last of two equal keys silently (a duplicated claim, a second answer)
    with pytest.raises(ValueError, match=rf"rows.jsonl line 3: the key '{key}' is given twice in one object"):
        jsonio.loads_checked(text, "rows.jsonl line 3")
    assert jsonio.loads_checked('{"answer": "Bob", "Answer": "Alice"}', "x") == {"answer": "Bob", "Answer": "Alice"}


def test_the_names_of_claimalign_textio_are_kept_there():
    """``claimalign.textio`` (split into text, jsonio, files and scripts) still gives each name it gave, the same
    object as its new module's."""
    import importlib

    from claimalign import textio

    for name in textio.__all__:
        obj = getattr(textio, name)
        home = getattr(obj, "__module__", None)
        assert home != "claimalign.textio", name
        if home is not None:
            assert getattr(importlib.import_module(home), name) is obj, name
