"""Helpers shared by the benchmarks: paths relative
to the repository, the verifier a run used, the machine, the command line, stratified sampling."""

from __future__ import annotations

import datetime as _dt
import gzip
import json
import os
import platform
import shlex
import sys
from pathlib import Path
from typing import Optional, Sequence

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
RESULTS = REPO / "benchmarks" / "results"

#: The folders the scripts are grouped in, one per purpose (``benchmarks/README.md``).
PURPOSES = ("agreement", "robustness", "verifier", "speed", "parity", "ranking")

if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
# a script imports another by its module name (``from correlation import correlate``), whichever folder holds it
for _purpose in PURPOSES:
    if str(REPO / "benchmarks" / _purpose) not in sys.path:
        sys.path.insert(0, str(REPO / "benchmarks" / _purpose))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
if (DATA / "nltk_data").is_dir():
    os.environ.setdefault("NLTK_DATA", str(DATA / "nltk_data"))


def command() -> str:
    """The command line that ran this script, relative to the repository root."""
    script = os.path.relpath(os.path.abspath(sys.argv[0]), REPO)
    return "python " + " ".join(shlex.quote(a) for a in [script, *sys.argv[1:]])


#: the CPU flags that decide the verifier's bf16 speed (lscpu / /proc/cpuinfo names)
SPEED_FLAGS = ("avx512f", "avx512_bf16", "amx_bf16", "amx_tile", "amx_int8")


def cpu_flags() -> str:
    """Which of :data:`SPEED_FLAGS` the CPU reports (``/proc/cpuinfo``), space-separated; "" where unknown."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    have = set()
    for line in text.splitlines():
        if line.startswith("flags"):
            have.update(line.split(":", 1)[1].split())
    return " ".join(f for f in SPEED_FLAGS if f in have)


def machine() -> dict:
    """The machine a benchmark ran on: platform, Python, CPU count, torch threads and versions, the
    1-minute load average at the time of the call (other jobs on the machine slow timings), UTC time."""
    import torch

    from ev2r.signature import package_version as _version

    return {"platform": platform.platform(), "python": platform.python_version(), "cpu_count": os.cpu_count(),
            "cpu_flags": cpu_flags(),
            "torch_threads": torch.get_num_threads(), "torch": _version("torch"),
            "transformers": _version("transformers"), "device": "cpu",
            "load_average_1m": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
            "utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


def timed_score(argv: Sequence[str], cwd, env: dict, stderr_path, what: str) -> dict:
    """Run ``python argv`` (an ``ev2r score ... --json`` child) in ``cwd`` with ``env``, its stderr kept in
    ``stderr_path``; timed by wall clock and the child's CPU (user + system, os.wait4) with its peak resident memory.
    Returns ``wall_s``, ``cpu_s``, ``max_rss_mb``, ``load_1m`` (before the start), ``summary`` (the last stdout line,
    parsed) and ``stderr``.

    Raises:
        SystemExit: the child exits non-zero, naming ``what`` and the end of its stderr.
    """
    import subprocess
    import time

    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    with open(stderr_path, "w+", encoding="utf-8") as err:
        proc = subprocess.Popen([sys.executable, *argv], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=err)
        out = proc.stdout.read().decode() if proc.stdout else ""
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        err.seek(0)
        stderr = err.read()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{what}: ev2r score exited {code}:\n{stderr[-2000:]}")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "max_rss_mb": usage.ru_maxrss / 1024,
            "load_1m": load0, "summary": json.loads(out.strip().splitlines()[-1]), "stderr": stderr}


def model_dir(spec: str) -> Optional[Path]:
    from ev2r.verifier.loading import BUNDLED_DIR

    if spec in ("bundled", "default"):
        return BUNDLED_DIR
    p = Path(spec)
    return p if p.is_dir() else None


def training_meta(spec: str) -> dict:
    d = model_dir(spec)
    if d is None or not (d / "training_meta.json").exists():
        return {}
    try:
        return json.loads((d / "training_meta.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}


def heldout_percent(spec: str, default: int = 15) -> int:
    """The VitaminC case-level held-out share the verifier was trained with (its
    training_meta.json), else ``default``: VitaminC rows outside it were training data."""
    return int(training_meta(spec).get("args", {}).get("heldout_percent", default))


def verifier_info(spec: str, verifier) -> dict:
    meta = training_meta(spec)
    args = meta.get("args", {})
    return {"spec": spec, "name": getattr(verifier, "name", type(verifier).__name__),
            "training_command": meta.get("command"), "steps": args.get("steps"),
            "smoke_or_random": bool(args.get("steps") is not None and args.get("steps", 0) < 1000)}


def load(spec: str, device: str = "cpu", batch_size: int = 32, **kwargs):
    """The verifier of ``spec`` (``bundled`` or a checkpoint); ``kwargs`` go to ``load_verifier``."""
    from ev2r.verifier.loading import load_verifier

    try:
        return load_verifier(spec, device=device, batch_size=batch_size, **kwargs)
    except FileNotFoundError as e:
        raise SystemExit(f"error: {e}\n(the bundled verifier is not in ev2r/verifier/models yet: pass --model PATH)") from e


def stratified_sample(rows: Sequence[dict], key, limit: Optional[int], seed: int, keep_all: Sequence = ()) -> list:
    """Seeded sample of at most ``limit`` rows keeping class proportions of ``key(row)``; classes in
    ``keep_all`` are kept whole (rare classes), the rest fill the remaining budget proportionally.
    Input order is kept."""
    import numpy as np

    if limit is None or limit >= len(rows):
        return list(rows)
    rng = np.random.default_rng(seed)
    groups: dict = {}
    for i, r in enumerate(rows):
        groups.setdefault(key(r), []).append(i)
    chosen = []
    for k in keep_all:
        chosen.extend(groups.pop(k, []))
    budget = max(0, limit - len(chosen))
    total = sum(len(v) for v in groups.values())
    for k in sorted(groups, key=str):
        idx = groups[k]
        take = min(len(idx), int(round(budget * len(idx) / total))) if total else 0
        chosen.extend(rng.choice(idx, size=take, replace=False).tolist())
    return [rows[i] for i in sorted(chosen)]


def open_text(path, mode: str = "r"):
    """``path`` opened as UTF-8 text, through gzip when its name ends in ``.gz`` (the per-item rows and the large
    JSON of ``results/`` are stored compressed: ``results/README.md``). Written ``.gz`` files carry no time stamp,
    so the same rows give the same bytes."""
    if str(path).endswith(".gz"):
        if "r" in mode:
            return gzip.open(path, "rt", encoding="utf-8")
        return _GzipText(path)
    return open(path, mode, encoding="utf-8")


class _GzipText:
    """A text file written through gzip with ``mtime=0`` (``gzip.open`` stamps the time; reproducible bytes need none)."""

    def __init__(self, path):
        import io

        self._raw = open(path, "wb")
        self._gz = gzip.GzipFile(filename="", mode="wb", fileobj=self._raw, compresslevel=9, mtime=0)
        self._text = io.TextIOWrapper(self._gz, encoding="utf-8", newline="")

    def write(self, s: str) -> int:
        return self._text.write(s)

    def close(self) -> None:
        self._text.close()
        self._raw.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def read_json(path):
    """A JSON file, plain or ``.gz``."""
    with open_text(path) as fh:
        return json.load(fh)


def write_jsonl(rows, path) -> None:
    """``rows`` as JSONL to ``path`` (compressed when it ends in ``.gz``)."""
    with open_text(path, "w") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")


def compress(path, drop: Sequence[str] = ()) -> Path:
    """Replace the JSON or JSONL file ``path`` by ``path.gz`` (reproducible bytes, see :func:`open_text`) and return
    the new path. ``drop``: top-level keys removed from every row of a JSONL file first (the gaming suite's gamed
    text, ``changed``, which no reader of the rows uses and which the suite remakes from its seed)."""
    path = Path(path)
    out = Path(f"{path}.gz")
    text = path.read_text(encoding="utf-8")
    if drop:
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
        text = "".join(json.dumps({k: v for k, v in r.items() if k not in drop}, ensure_ascii=False) + "\n"
                       for r in rows)
    with open_text(out, "w") as fh:
        fh.write(text)
    path.unlink()
    return out


def read_jsonl(path, opt: str = "") -> list[dict]:
    """The JSON objects of a JSONL file, plain or ``.gz`` (blank lines skipped).

    Raises:
        SystemExit: the file cannot be read, or a line is not a JSON object: the message names ``opt`` (the option
            that gave the file, if any), the file and the line."""
    where = f"{opt}: " if opt else ""
    try:
        with open_text(path) as fh:
            lines = fh.read().splitlines()
    except (OSError, EOFError, UnicodeDecodeError) as e:
        raise SystemExit(f"{where}cannot read {path} ({type(e).__name__}: {e})") from None
    rows = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise SystemExit(f"{where}{path}, line {n}: not JSON ({e.msg})") from None
        if not isinstance(row, dict):
            raise SystemExit(f"{where}{path}, line {n}: not a JSON object")
        rows.append(row)
    return rows


def header(title: str, info: dict) -> str:
    m = info["machine"]
    v = info["verifier"]
    lines = [f"# {title}", "", f"Command: `{info['command']}`", "",
             f"Machine: {m['platform']}, {m['cpu_count']} CPUs (torch threads {m['torch_threads']}), "
             f"torch {m['torch']}, transformers {m['transformers']}, CPU flags: {m.get('cpu_flags') or 'not recorded'}, "
             f"{m['utc']}, 1-min load average "
             f"{m.get('load_average_1m')} (other jobs on the machine slow timings).", "",
             f"Verifier: `{v['name']}` (`--model {v['spec']}`)"
             + (f"; trained by `{v['training_command']}`" if v.get("training_command") else "") + "."]
    if v.get("smoke_or_random"):
        lines += ["", "**Provisional: a smoke-test checkpoint (few training steps) produced these numbers; rerun "
                      "with the final bundled verifier.**"]
    return "\n".join(lines) + "\n"


def write(prefix: Path, md: str, data: dict, gz: bool = False) -> None:
    """``prefix.md`` and ``prefix.json`` (``prefix.json.gz`` with ``gz``: the tables whose JSON is over 200 KB,
    ``results/README.md``)."""
    prefix.parent.mkdir(parents=True, exist_ok=True)
    Path(f"{prefix}.md").write_text(md, encoding="utf-8")
    js = Path(f"{prefix}.json" + (".gz" if gz else ""))
    with open_text(js, "w") as fh:
        fh.write(json.dumps(data, indent=2, ensure_ascii=False))
    print(f"wrote {prefix}.md, {js}", file=sys.stderr)


def display_path(path) -> str:
    """``path`` as a result file records it: relative to the repository root when it lies beside or
    inside it (``../shared/data/...``), so committed tables name no machine's absolute paths."""
    p = Path(path)
    if not p.is_absolute():
        return str(path)
    rel = os.path.relpath(p.resolve(), REPO)
    return rel if not rel.startswith(os.path.join("..", "..")) else str(path)


def replay_content_matches(record: Optional[dict], item) -> bool:
    """Whether a recorded LLM reply (a row of ``ev2r_replay``: ``claim``, ``predicted_evidence``) was made
    for ``item`` (an :class:`ev2r.types.Item`): :func:`ev2r.facts.replay.recording_mismatch` finds no
    differing field (ids of different rating files collide: 4 of the 144 shared-task rows share an id
    with a recorded reply for another claim of the 86-row subset). ``None`` (no recording) or a record
    without ``claim`` gives False."""
    from ev2r.facts.replay import recording_mismatch

    if not isinstance(record, dict) or not isinstance(record.get("claim"), str):
        return False
    return recording_mismatch(record, item) is None


def parse_named(spec: str, option: str) -> tuple[Optional[str], str]:
    """``NAME=PATH`` -> ``(NAME, PATH)``; a plain ``PATH`` (or one whose part before the first ``=``
    holds a path separator) -> ``(None, PATH)``. Raises ValueError naming ``option`` for an empty
    name or path.

    >>> parse_named("86=a/b.jsonl", "--data"), parse_named("a/b=c.jsonl", "--data")
    (('86', 'a/b.jsonl'), (None, 'a/b=c.jsonl'))
    """
    name, sep, path = spec.partition("=")
    if not sep or "/" in name or os.sep in name:
        name, path = None, spec
    if name is not None and not name.strip():
        raise ValueError(f"{option} {spec!r}: empty NAME before '=' (expected NAME=PATH or PATH)")
    if not path.strip():
        raise ValueError(f"{option} {spec!r}: empty PATH (expected NAME=PATH or PATH)")
    return (None if name is None else name.strip()), path


def default_names(paths: Sequence[str], n_rows: Sequence[int], given: Sequence[Optional[str]]) -> list[str]:
    """Column names of rating files: the given name, else the file's row count (``86``, ``144``), else
    (when two files have the same count or a count equals a given name) the file's stem. Raises
    ValueError when two files end up with the same name.

    >>> default_names(["x/a.jsonl", "y/b.jsonl"], [86, 144], [None, None])
    ['86', '144']
    >>> default_names(["x/a.jsonl", "y/b.jsonl"], [86, 86], [None, "dev"])
    ['86', 'dev']
    >>> default_names(["x/a.jsonl", "y/b.jsonl"], [86, 86], [None, None])
    ['a', 'b']
    """
    counts = [str(n) for n in n_rows]
    names = []
    for i, (path, given_name) in enumerate(zip(paths, given)):
        if given_name is not None:
            names.append(given_name)
            continue
        clash = counts.count(counts[i]) > 1 and sum(g is None and c == counts[i] for g, c in zip(given, counts)) > 1
        names.append(Path(path).stem if clash or counts[i] in [g for g in given if g] else counts[i])
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"--data: two files are named {dup} (give NAME=PATH to tell them apart)")
    return names
