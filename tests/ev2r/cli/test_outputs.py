"""Outputs that cannot destroy what they name, runs that cannot lose each other's rows, one id rule.

* every command's output goes through one helper (:func:`claimalign.files.atomic_path`): a device is
  written through and stays what it was, a symlink is followed (target written, link kept), ``/dev/stdout``
  works; ``ev2r score`` refuses a device / FIFO ``-o`` before any work, by name, and every
  command refuses a FIFO before any work (its open blocked after the work until a reader came);
* ``ev2r score`` holds ``OUT.lock`` (pid inside) and refuses a second run; a stale lock is taken over;
* a resume that would drop rows of items not in the run is refused; changed items are counted;
* ids that collide are refused at read time in every command, naming both rows.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import threading
import warnings

import pytest

from claimalign.files import atomic_write, output_kind
from ev2r.cli.main import main
from support.paths import NLTK_DATA

ITEM = {"id": 1, "claim": "Paris is in France.", "predicted_evidence": "Question: Where?\nAnswer: Paris is in France.",
        "reference_evidence": "Question: Where?\nAnswer: France.", "gold_label": "supported"}


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


class FifoReader:
    """Reads a FIFO in a thread (a FIFO's open for writing waits for a reader)."""

    def __init__(self, path):
        self.data = b""
        self.thread = threading.Thread(target=self._read, args=(path,), daemon=True)
        self.thread.start()

    def _read(self, path):
        with open(path, "rb") as fh:
            self.data = fh.read()

    def text(self) -> str:
        self.thread.join(timeout=30)
        assert not self.thread.is_alive(), "the writer never closed the FIFO"
        return self.data.decode("utf-8")


def _align_inputs(tmp_path):
    a = _jsonl(tmp_path / "a.jsonl", [{"id": 1, "claims": ["Paris is in France."]}])
    b = _jsonl(tmp_path / "b.jsonl", [{"id": 1, "claims": ["Paris is in France."]}])
    return a, b


def _rank_input(tmp_path):
    rows = [{"id": i, "system": s, "score": v} for i in range(6) for s, v in (("A", 0.5 + 0.01 * i), ("B", 0.4))]
    return _jsonl(tmp_path / "scores.jsonl", rows)


def _report_input(tmp_path):
    return _jsonl(tmp_path / "s.jsonl", [{"id": 1, "row": 0, "status": "ok", "error": None, "ev2r": 0.5,
                                          "ev2r_hybrid": 0.25}])


# -- the helper ------------------------------------------------------------------------------------------------

def test_output_kind_names_what_a_path_is(tmp_path):
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    (tmp_path / "f").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "f")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    kinds = {n: output_kind(tmp_path / n) for n in ("p", "f", "link", "dangling", "loop", "new")}
    assert kinds == {"p": "fifo", "f": "file", "link": "file", "dangling": "missing", "loop": "loop", "new": "missing"}
    assert output_kind("/dev/null") == "device" and output_kind("/dev/stdout") == "fd"
    assert output_kind(tmp_path) == "dir"


def test_atomic_write_through_a_fifo_and_dev_null_never_replaces_them(tmp_path):
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    reader = FifoReader(fifo)
    with atomic_write(fifo) as fh:
        fh.write("rows\n")
    assert reader.text() == "rows\n"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and os.listdir(tmp_path) == ["p"]  # nothing beside it
    before = os.stat("/dev/null")
    with atomic_write("/dev/null") as fh:  # safe: written through (run as root this replaced /dev/null)
        fh.write("x")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


def test_atomic_write_follows_a_symlink_and_keeps_it(tmp_path):
    target = tmp_path / "real.jsonl"
    target.write_text("old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    with atomic_write(link) as fh:
        fh.write("new\n")
    assert link.is_symlink() and os.readlink(link) == str(target) and target.read_text() == "new\n"
    dangling = tmp_path / "d.jsonl"
    dangling.symlink_to(tmp_path / "created.jsonl")
    with atomic_write(dangling) as fh:
        fh.write("made\n")
    assert dangling.is_symlink() and (tmp_path / "created.jsonl").read_text() == "made\n"
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    with pytest.raises(OSError, match="symlink loop"):
        with atomic_write(tmp_path / "loop") as fh:
            fh.write("x")


# -- every command ---------------------------------------------------------------------------------------------

COMMANDS = {
    "align": lambda t: ["align", *_align_inputs(t)],
    "rank": lambda t: ["rank", _rank_input(t), "--score-field", "score", "--bootstrap", "20"],
    "report": lambda t: ["report", _report_input(t)],
}


FIFO_COMMANDS = {
    **{name: (lambda t, make=make: [*make(t), "-o"]) for name, make in COMMANDS.items()},
    "rank --table": lambda t: [*COMMANDS["rank"](t), "--table"],
    "verify": lambda t: ["verify", _jsonl(t / "pairs.jsonl", [{"premise": "A.", "hypothesis": "A."}]), "-o"],
    "averitec": lambda t: ["averitec", _jsonl(t / "pred.jsonl", [{"claim_id": 0}]), "--references",
                           _jsonl(t / "gold.jsonl", [{"claim": "A."}]), "-o"],
}


@pytest.mark.parametrize("command", sorted(FIFO_COMMANDS))
def test_each_command_refuses_a_fifo_before_any_work(tmp_path, command):
    """A FIFO output once blocked a command after all its work until a reader came (or delivered
    nothing): every command refuses it by name before reading its input; nothing is written beside it. Run in a
    subprocess with a timeout, so that a regression fails instead of hanging."""
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    argv = [str(a) for a in FIFO_COMMANDS[command](tmp_path)] + [str(fifo)]
    proc = subprocess.run([sys.executable, "-m", "ev2r.cli.main", *argv], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path, env={**os.environ, "NLTK_DATA": str(NLTK_DATA)})
    assert proc.returncode == 2, proc.stderr
    assert "is a FIFO (named pipe), not a regular file" in proc.stderr and "/dev/stdout" in proc.stderr
    assert "loading" not in proc.stderr  # before any model or work
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".out.fifo")]  # no temporary file beside it


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_command_follows_a_symlink_and_writes_dev_null_through(tmp_path, capsys, command):
    target = tmp_path / "target.out"
    target.write_text("old")
    link = tmp_path / "link.out"
    link.symlink_to(target)
    code, _, err = run(capsys, *COMMANDS[command](tmp_path), "-o", link)
    assert code == 0, err
    assert link.is_symlink() and target.read_text() != "old" and len(target.read_text()) > 20
    before = os.stat("/dev/null")
    code, _, err = run(capsys, *COMMANDS[command](tmp_path), "-o", "/dev/null")
    assert code == 0, err
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode) and os.stat("/dev/null").st_ino == before.st_ino


def test_dev_stdout_works(tmp_path):
    a, b = _align_inputs(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "ev2r.cli.main", "align", str(a), str(b), "-o", "/dev/stdout"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert len(rows) == 1 and rows[0]["id"] == 1 and rows[0]["score"] == pytest.approx(1.0)


@pytest.mark.parametrize("extra", [[], ["--no-resume"]])
def test_score_refuses_a_fifo_or_device_before_any_work(tmp_path, capsys, extra):
    inp = _jsonl(tmp_path / "in.jsonl", [ITEM])
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    for out, what in ((fifo, "a FIFO"), ("/dev/null", "a device"), ("/dev/stdout", "a file-descriptor path")):
        code, _, err = run(capsys, "score", inp, "-o", out, "--scorer", "hu-meteor", *extra)
        assert code == 2 and f"is {what}" in err and "not a regular file" in err and "omit -o" in err
        assert "--no-resume" not in err.split("error:", 1)[1]  # the old message suggested it
        assert "loading verifier" not in err  # before the work
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and sorted(os.listdir(tmp_path)) == ["in.jsonl", "out.fifo"]
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode) and not os.path.exists("/dev/null.part")


def test_score_refuses_a_sidecar_that_is_not_a_regular_file(tmp_path, capsys):
    inp = _jsonl(tmp_path / "in.jsonl", [ITEM])
    os.mkfifo(tmp_path / "out.jsonl.part")
    code, _, err = run(capsys, "score", inp, "-o", tmp_path / "out.jsonl", "--scorer", "hu-meteor", "--no-resume")
    assert code == 2 and "out.jsonl.part" in err and "a FIFO" in err
    assert stat.S_ISFIFO(os.lstat(tmp_path / "out.jsonl.part").st_mode)


# -- the lock --------------------------------------------------------------------------------------------------

def test_a_second_run_into_a_held_output_is_refused_naming_the_holder(tmp_path):
    from ev2r.engines.runs import OutputLocked, output_lock

    out = tmp_path / "out.jsonl"
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time\nfrom ev2r.engines.runs import output_lock\n"
                               f"with output_lock({str(out)!r}):\n    print('held', flush=True)\n    time.sleep(60)\n"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        lock = json.loads((tmp_path / "out.jsonl.lock").read_text())
        assert lock["pid"] == holder.pid
        with pytest.raises(OutputLocked, match=rf"being written by another ev2r score run \(pid {holder.pid} on "):
            with output_lock(out):
                pass
    finally:
        holder.kill()
        holder.wait()
    # the holder died without removing its lock file: a stale lock, detected and taken over
    assert (tmp_path / "out.jsonl.lock").exists()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with output_lock(out) as me:
            assert json.loads((tmp_path / "out.jsonl.lock").read_text())["pid"] == os.getpid() == me["pid"]
    assert any(f"stale lock out.jsonl.lock of a run that is no longer running (pid {holder.pid}" in str(w.message)
               for w in caught)
    assert not (tmp_path / "out.jsonl.lock").exists()  # released


def test_score_cli_refuses_while_another_run_holds_the_output(tmp_path, capsys):
    from ev2r.engines.runs import output_lock

    inp = _jsonl(tmp_path / "in.jsonl", [ITEM])
    out = tmp_path / "out.jsonl"
    holder = subprocess.Popen([sys.executable, "-c", "import time\nfrom ev2r.engines.runs import output_lock\n"
                               f"with output_lock({str(out)!r}):\n    print('held', flush=True)\n    time.sleep(60)\n"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        code, _, err = run(capsys, "score", inp, "-o", out, "--scorer", "hu-meteor", "--nltk-data",
                           os.environ.get("NLTK_DATA", str(NLTK_DATA)))
        assert code == 2 and f"pid {holder.pid}" in err and not out.exists()
    finally:
        holder.kill()
        holder.wait()
    del output_lock


# -- resume never drops rows silently ---------------------------------------------------------------------------

def _items(n):
    from ev2r.io import evidence_from_text
    from ev2r.types import Item

    return [Item(id=f"i{k}", claim=f"Claim {k}.", predicted_evidence=evidence_from_text(f"e{k}"),
                 reference_evidence=evidence_from_text("r"), row=k) for k in range(n)]


def test_a_resume_that_would_drop_rows_is_refused_and_changed_rows_are_counted(tmp_path):
    from ev2r.engines.runs import DroppedRowsError, RunWarning, finish_run, plan_run
    from ev2r.io.readers import item_hash
    from ev2r.types import ItemScore

    items = _items(5)
    out = tmp_path / "out.jsonl"
    plan = plan_run(items, out, {}, True, engine="local")
    finish_run(plan, items, {k: ItemScore(id=it.id, row=k, ev2r=0.5) for k, it in enumerate(items)}, False, "sig")
    before = out.read_bytes()
    with pytest.raises(DroppedRowsError, match=r"holds 3 row\(s\) of items that are not in this run \(ids 'i2', "
                                               r"'i3', 'i4'\).*--limit.*--no-resume"):
        plan_run(items[:2], out, {}, True, engine="local")  # --limit 2 into a finished run of 5
    assert out.read_bytes() == before
    changed = items[:4] + [items[4].with_predicted(items[0].predicted_evidence)]  # item i4's content changed
    with pytest.warns(RunWarning, match=r"1 earlier row\(s\) are of items whose content changed since they were scored "
                                        r"\(rows \(from 0; line = the line of the file\): 4 \(id i4\); another item_hash\)"):
        plan = plan_run(changed, out, {}, True, engine="local")
    assert sorted(plan.done) == [0, 1, 2, 3] and plan.pending == [4] and item_hash(changed[4]) not in before.decode()
    plan = plan_run(items[:2], out, {}, False, engine="local")  # --no-resume: allowed, nothing deleted yet
    assert plan.pending == [0, 1] and out.read_bytes() == before


# -- ids -------------------------------------------------------------------------------------------------------

COLLISIONS = [
    ([{"id": 1}, {"id": "1"}], r"rows 0 \(line 1\) and 1 \(line 2\) have one id '1': 1 \(a number\) and '1' \(text\)"),
    ([{"id": "a"}, {"id": "b"}, {"id": "a"}], r"rows 0 \(line 1\) and 2 \(line 3\) have one id 'a': the same id is written"),
    ([{"id": "\u0158ada"}, {"id": "R\u030cada"}], r"rows 0 \(line 1\) and 1 \(line 2\) .*Unicode NFC"),
    ([{"id": "1"}, {}], r"rows 0 \(line 1\) and 1 \(line 2\) have one id '1': a row without an id gets its row number 1"),
]


@pytest.mark.parametrize("ids,message", COLLISIONS)
def test_colliding_ids_are_refused_when_read_naming_both_rows(tmp_path, capsys, ids, message):
    rows = [{k: v for k, v in ITEM.items() if k != "id"} | extra for extra in ids]
    inp = _jsonl(tmp_path / "in.jsonl", rows)
    from ev2r.io.readers import InputError, read_items

    with pytest.raises(InputError, match=message):
        read_items(inp)
    code, _, err = run(capsys, "score", inp, "--scorer", "hu-meteor", "-o", tmp_path / "o.jsonl")
    assert code == 2 and "have one id" in err and not (tmp_path / "o.jsonl").exists()
    code, _, err = run(capsys, "explain", inp, "--id", "1")
    assert code == 2 and "have one id" in err


def test_align_refuses_colliding_ids_naming_both_rows_and_lines(tmp_path, capsys):
    a = _jsonl(tmp_path / "a.jsonl", [{"id": 1, "claims": ["x"]}, {"id": "1", "claims": ["y"]}])
    b = _jsonl(tmp_path / "b.jsonl", [{"id": 1, "claims": ["x"]}])
    code, _, err = run(capsys, "align", a, b)
    assert code == 2 and "a.jsonl: rows 0 (line 1) and 1 (line 2) have one id '1': 1 (a number) and '1' (text) are the same id" in err


# -- rank names, explain text ----------------------------------------------------------------------------------

def test_rank_draws_and_tabulates_names_with_dollar_and_bar_literally(tmp_path, capsys):
    names = ("x$_$y | z", "$\\frac$")  # mathtext raised on these (exit 2, no table); | ended the cell
    rows = [{"id": i, "system": s, "score": v} for i in range(6) for s, v in ((names[0], 0.5 + 0.01 * i),
                                                                                (names[1], 0.4))]
    inp = _jsonl(tmp_path / "s.jsonl", rows)
    code, _, err = run(capsys, "rank", inp, "--score-field", "score", "--bootstrap", "20", "--table",
                       tmp_path / "t.md", "--plot", tmp_path / "p.png")
    assert code == 0, err
    table = (tmp_path / "t.md").read_text()
    line = next(x for x in table.splitlines() if x.startswith("| 1 |"))
    assert "| x\\$\\_\\$y \\| z |" in line and len(re.split(r"(?<!\\)\|", line)) == 10  # 8 cells: the | is data
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"


def test_explain_escapes_control_characters_and_normalises_the_typed_id(tmp_path, capsys):
    from ev2r.cli.explain import escape_controls

    assert escape_controls("t\x1b]0;owned\x07\x1b[2J\u202eevil\r\nok") == "t\\x1b]0;owned\\x07\\x1b[2J\\u202eevil\\x0d\nok"
    inp = _jsonl(tmp_path / "in.jsonl", [dict(ITEM, id="\u0158ada", claim="Paris \x1b[31mis\x1b[0m in France.")])
    code, _, err = run(capsys, "explain", inp, "--id", "R\u030cada", "--scores", tmp_path / "none.jsonl")
    assert "no row of" not in err  # the NFD id typed finds the NFC row (then --scores is missing)


# -- "loading verifier" counts what is left -----------------------------------------------------------------

def test_loading_counts_only_items_left_and_nothing_left_loads_nothing(tmp_path, capsys, tiny_nli_model, monkeypatch):
    import ev2r.metric.factory as factory

    inp = _jsonl(tmp_path / "in.jsonl", [dict(ITEM, id=k, claim=f"Paris is in France {k}.") for k in range(3)])
    out = tmp_path / "out.jsonl"
    base = ["score", inp, "-o", out, "--model", tiny_nli_model, "--no-progress", "--no-hybrid"]
    code, _, err = run(capsys, *base, "--limit", 2)
    assert code == 0 and "(2 item(s) to score)" in err
    code, _, err = run(capsys, *base)  # one more item: only it is left
    assert code == 0 and "(1 item(s) to score)" in err and "1 item(s) scored, 2 resumed" in err
    built = []
    real = factory.build_scorer
    monkeypatch.setattr(factory, "build_scorer", lambda **kw: built.append(kw) or real(**kw))
    code, stdout, err = run(capsys, *base)  # finished: the scorer is built (its signature checks the rows)
    assert code == 0 and len(built) == 1 and "0 item(s) scored, 3 resumed" in err  # but no model is loaded:
    assert "loading verifier" not in err
    assert "n=3 n_failed=0" in stdout and not (tmp_path / "out.jsonl.lock").exists()


# -- report errors name file, row and column ----------------------------------------------------------------

@pytest.mark.parametrize("field,value,message", [
    ("ev2r", "x", "row 1 (line 2) field 'ev2r' = 'x': expected a number in [0, 1] or null"),
    ("row", "x", "row 1 (line 2) field 'row' = 'x': expected an integer >= 0 or null"),  # row 1 counts from 0
    ("error", 3, "row 1 (line 2) field 'error': expected text or null, got 3"),
    ("predicted_facts", [{"fact": "a", "supported": True, "probability": "x"}],
     "row 1 (line 2) field 'predicted_facts'[0].probability = 'x': expected a number in [0, 1] or null"),
])
def test_report_errors_name_the_file_row_and_column(tmp_path, capsys, field, value, message):
    good = {"id": 1, "row": 0, "status": "ok", "ev2r": 0.5}  # no 'error' field: a row may leave it out
    scores = _jsonl(tmp_path / "s.jsonl", [good, {**good, "id": 2, "row": 1, field: value}])
    code, _, err = run(capsys, "report", scores, "-o", tmp_path / "r.html")
    assert code == 2 and f"s.jsonl: {message}" in err and not (tmp_path / "r.html").exists()
    code, _, err = run(capsys, "report", _jsonl(tmp_path / "ok.jsonl", [good]), "-o", tmp_path / "r.html")
    assert code == 0 and (tmp_path / "r.html").read_text().count("0.500") >= 1


@pytest.mark.parametrize("kind", ["user file", "symlink to a user file"])
def test_a_lock_path_ev2r_did_not_write_is_never_replaced(tmp_path, kind):
    """A hostile pass: ``OUT.lock`` naming a user's file (or a symlink to one) was overwritten or deleted, exit 0.
    It is refused before any work, the file untouched; an ev2r lock left by a dead run is still taken over."""
    from ev2r.engines.runs import output_lock

    out = tmp_path / "scores.jsonl"
    precious = tmp_path / "precious.txt"
    precious.write_text("my notes\n")
    lock = tmp_path / "scores.jsonl.lock"
    if kind == "user file":
        lock.write_text("my notes\n")
    else:
        lock.symlink_to(precious)
    with pytest.raises(ValueError, match="lock"):
        with output_lock(out):
            pass
    assert precious.read_text() == "my notes\n"
    assert lock.is_symlink() == (kind != "user file") and lock.read_text() == "my notes\n"
    lock.unlink()
    lock.write_text(json.dumps({"pid": 999999, "host": "elsewhere", "started": 0.0}))  # a dead run's lock
    from ev2r.engines.runs import RunWarning

    with pytest.warns(RunWarning, match=r"scores\.jsonl: took over the stale lock scores\.jsonl\.lock of a run that is no "
                                        r"longer running \(pid 999999 on elsewhere, started 1970-01-01 00:00:00\)"):
        with output_lock(out) as held:
            assert held["pid"] == os.getpid()
