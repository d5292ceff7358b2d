"""Helpers shared by the ``ev2r`` commands: verifier options, the output-path check, number format."""

from __future__ import annotations

import argparse
import os
from typing import Any, Iterable, Optional

from claimalign.files import same_file
# re-exported: the CLI modules' names for them
from ev2r.verifier.loading import proxy_verifier_option, verifier_key  # noqa: F401
from ev2r.config import DEFAULTS, ScorerConfig, proxy_spec

#: ``--proxy-model``'s check (:func:`ev2r.config.proxy_spec`), under the CLI's former name.
proxy_model_arg = proxy_spec
#: The verifier's options (``--model``, ``--device``, ``--batch-size``, ``--dtype``): every command that loads one.
VERIFIER_FIELDS = ("verifier", "device", "batch_size", "dtype")
#: The options that change the values of Ev2R and that ``ev2r score``, ``explain`` and ``robustness`` all take.
METRIC_FIELDS = ("alpha", "proxy_verifier")


def config_flags(names: Iterable[str] = ()) -> dict[str, str]:
    """Field name -> its command-line flag (:class:`ev2r.config.ScorerConfig`'s field metadata), for ``names``
    (default: every field that has one).

    >>> config_flags(["verifier", "hybrid"])
    {'verifier': '--model', 'hybrid': '--no-hybrid'}
    """
    names = tuple(names)
    return {f.name: f.metadata["cli"] for f in ScorerConfig.cli_fields() if not names or f.name in names}


def config_defaults(names: Iterable[str] = ()) -> dict[str, Any]:
    """Field name -> its default (:data:`ev2r.config.DEFAULTS`), for the fields with a flag among ``names``
    (default: all of them): what :func:`warn_ignored` compares the parsed values with."""
    return {name: getattr(DEFAULTS, name) for name in config_flags(names)}


def add_config_args(parser, names: Iterable[str] = (), groups: Optional[dict] = None, unset: bool = False,
                    aliases: Optional[dict[str, Iterable[str]]] = None, help_prefix: str = "") -> None:
    """Add the options of :class:`ev2r.config.ScorerConfig`'s fields ``names`` (default: every field with a flag) to
    ``parser``, their flag, default, choices, type and help read from the field's metadata (:func:`ev2r.config.option`:
    the one option table). Each option's argparse ``dest`` is the field's name (``--model`` -> ``verifier``,
    ``--no-hybrid`` -> ``hybrid``), so :func:`config_from_args` reads them back without a mapping.

    Args:
        parser: an :class:`argparse.ArgumentParser` (or argument group).
        names: the fields, in the order added (a name without a flag is an error).
        groups: metadata ``group`` (``scores``, ``models``, ``run``, ``llm``) -> the argument group to add it to;
            a group not named goes to ``parser``.
        unset: every default None (so a command can tell a given option from one left out).
        aliases: field name -> further flags for the same option (``{"verifier": ["--verifier"]}``).
        help_prefix: text put before every help (``"--judge bundled: "``).

    Raises:
        ValueError: a name that is no field with a flag.
    """
    fields = {f.name: f for f in ScorerConfig.cli_fields()}
    for name in tuple(names) or tuple(fields):
        f = fields.get(name)
        if f is None:
            raise ValueError(f"add_config_args: {name!r} is no ScorerConfig field with a flag; those: "
                             f"{', '.join(fields)}")
        meta = dict(f.metadata)
        flag, group, text = meta.pop("cli"), meta.pop("group"), meta.pop("help")
        default = f.default
        shown = f"{default:g}" if isinstance(default, float) else default
        kwargs = {k: v for k, v in meta.items() if k in ("choices", "type", "metavar", "action")}
        target = (groups or {}).get(group, parser)
        target.add_argument(flag, *((aliases or {}).get(name, ())), dest=name, default=None if unset else default,
                            help=help_prefix + text.replace("{default}", str(shown)), **kwargs)


def config_from_args(args: argparse.Namespace, config: Optional[ScorerConfig] = None,
                     **overrides: Any) -> ScorerConfig:
    """The :class:`ev2r.config.ScorerConfig` that parsed options give: ``config`` (default
    :data:`ev2r.config.DEFAULTS`) with every field that :func:`add_config_args` added to ``args`` (a None from
    ``unset=True`` keeps ``config``'s value), then ``overrides`` (what a command reads from its own options:
    ``ev2r``/``baselines`` from ``--scorer``, ``llm_options`` from ``--llm-*``). A ``proxy_verifier`` naming the
    verifier is None (:func:`proxy_verifier_option`: no separate proxy verifier, the default's signature).

    Raises:
        ValueError: a value outside its field's allowed values (naming the field), as :class:`ScorerConfig`.
    """
    config = config or DEFAULTS
    given = {f.name: getattr(args, f.name) for f in ScorerConfig.cli_fields()
             if hasattr(args, f.name) and getattr(args, f.name) is not None}
    values = {**given, **overrides}
    verifier = values.get("verifier", config.verifier)
    values["proxy_verifier"] = proxy_verifier_option(verifier, values.get("proxy_verifier", config.proxy_verifier))
    return config.replace(**values)


def add_verifier_args(p: argparse.ArgumentParser) -> None:
    """``--model``, ``--device``, ``--batch-size``, ``--dtype`` (:data:`VERIFIER_FIELDS`; dests ``verifier``,
    ``device``, ``batch_size``, ``dtype``)."""
    add_config_args(p, VERIFIER_FIELDS)


def fmt(v) -> str:
    return "n/a" if v is None else f"{v:.4f}"


def input_paths(*specs) -> list[tuple[str, str]]:
    """``(label, path)`` pairs for :func:`check_output` from ``(label, value)`` pairs, dropping
    values that are None or empty; a list value gives one pair per element."""
    out = []
    for label, value in specs:
        for v in (value if isinstance(value, (list, tuple)) else [value]):
            if v:
                out.append((label, os.fspath(v)))
    return out


def check_output(path, option: str = "-o/--output", inputs: Iterable[tuple[str, Any]] = (), kind: str = "file",
                 files: Iterable[str] = (), sidecars: Iterable[str] = (), special: str = "write",
                 special_reason: str = "") -> None:
    """Fail before any work when an output cannot be written or would overwrite an input.

    Every command that writes calls this for each of its outputs before it reads or computes
    anything costly. The outputs themselves are then written through
    :func:`claimalign.files.atomic_write` (a temporary file beside the target, renamed into place).
    What ``path`` may name (the one rule of every command; :func:`claimalign.files.atomic_path`):
    a regular file or nothing yet (replaced in one step); a symlink, which is followed (the file it
    points to is written, the link kept); a device or a file-descriptor path (``/dev/null``,
    ``/dev/stdout``), written through -- never unlinked or replaced -- or, with ``special="refuse"``,
    refused by name. A FIFO (``mkfifo``) is refused in every command: its open waits for a
    reader, so a command blocked after all its work, or delivered nothing; ``/dev/stdout`` (also
    ``>(...)`` and ``| cmd``) streams instead. A folder, a socket or a symlink loop is refused.

    Args:
        path: the output path; None or '' (no output) checks nothing.
        option: the option that gave ``path``, for messages (``-o/--output``, ``--table``, ``--out``...).
        inputs: ``(label, path)`` for every file the command reads (``("input", "a.jsonl")``,
            ``("--references", "dev.json")``; see :func:`input_paths`) -- and earlier outputs, so two
            outputs cannot be one file. Compared by resolved path and, where both exist,
            :func:`os.path.samefile` (symlinks, ``./x``, hard links are the same file).
        kind: ``"file"``: ``path`` is a file to write (its folder must exist); ``"dir"``: a folder the
            command creates if needed and writes ``files`` into.
        files: with ``kind="dir"``: the names of the files written into the folder.
        sidecars: with ``kind="file"``: suffixes of the other files the command writes, renames or
            removes beside ``path`` (``".part"``, ``".ev2r-run.json"`` for ``ev2r score``): each of
            ``path + suffix`` is checked against the inputs as well (``score X.part -o X
            --no-resume`` would remove its own input), and must be a regular file where it exists.
        special: ``"write"`` (default): a device or file-descriptor path is written through (a FIFO
            never is); ``"refuse"``: refused, naming what it is and ``special_reason`` (``ev2r score``,
            which keeps files beside its output and resumes from it).

    Raises:
        ValueError: (exit status 2) naming the option and path: a missing folder, a file where a
            folder is wanted or the reverse, no write permission, a FIFO, a socket or symlink loop, a
            device or file-descriptor path with ``special="refuse"``, a sidecar that is not a regular file, or an output
            that is the same file as an input (naming both).
    """
    from claimalign.files import WRITE_THROUGH_KINDS, output_kind

    if not path:
        return
    if kind not in ("file", "dir"):
        raise ValueError(f"check_output: kind must be 'file' or 'dir', got {kind!r}")
    if special not in ("write", "refuse"):
        raise ValueError(f"check_output: special must be 'write' or 'refuse', got {special!r}")
    path = os.fspath(path)
    inputs = list(inputs)
    if kind == "dir":
        if os.path.exists(path) and not os.path.isdir(path):
            raise ValueError(f"{option}: {path!r} is a file; give a folder")
        existing = os.path.abspath(path)
        while not os.path.exists(existing):  # the nearest folder that exists: created below it
            existing = os.path.dirname(existing)
        if not os.path.isdir(existing):
            raise ValueError(f"{option}: {existing!r} is a file, so folder {path!r} cannot be created")
        if not os.access(existing, os.W_OK):
            raise ValueError(f"{option}: folder {existing!r} is not writable")
        for label, inp in inputs:
            if same_file(path, inp):
                raise ValueError(f"{option}: {path!r} is {label} {os.fspath(inp)!r}; give another folder")
        targets = [os.path.join(path, f) for f in files]
    else:
        what = output_kind(path)
        names = {"device": "a device", "fifo": "a FIFO (named pipe)", "fd": "a file-descriptor path (standard "
                 "output, a pipe, a terminal)", "socket": "a socket", "loop": "a symlink loop", "other": "not a file"}
        if what == "fifo" and special != "refuse":  # a FIFO's open blocks until a reader comes
            raise ValueError(f"{option}: {path!r} is {names[what]}, not a regular file: ev2r opens it only after "
                             "all its work and then waits for a reader (or delivers nothing), so it refuses it "
                             "before any work; give a file path, or /dev/stdout to stream the output")
        if what in WRITE_THROUGH_KINDS:
            if special == "refuse":
                raise ValueError(f"{option}: {path!r} is {names[what]}, not a regular file{special_reason}")
            if not os.access(path, os.W_OK):
                raise ValueError(f"{option}: {path!r} ({names[what]}) is not writable")
            return  # written through: nothing is created beside it, and reading it is no overwrite
        if what in ("socket", "loop", "other"):
            raise ValueError(f"{option}: {path!r} is {names[what]}: give a file path")
        folder = os.path.dirname(os.path.realpath(path))  # a symlink is followed: its target is written
        if not os.path.isdir(folder):
            raise ValueError(f"{option}: folder {folder!r} does not exist")
        if os.path.isdir(path):
            raise ValueError(f"{option}: {path!r} is a directory, not a file")
        if not os.access(folder, os.W_OK):
            raise ValueError(f"{option}: folder {folder!r} is not writable")
        if os.path.exists(path) and not os.access(path, os.W_OK):
            raise ValueError(f"{option}: {path!r} is not writable")
        targets = [path] + [path + suffix for suffix in sidecars]
        for side in targets[1:]:
            if os.path.lexists(side) and output_kind(side) != "file":
                raise ValueError(f"{option}: {side!r}, a file this command writes or removes beside {path!r}, is "
                                 f"{names.get(output_kind(side), 'not a regular file')}; ev2r replaces or removes only "
                                 "regular files it wrote: move it away or give another output path")
    beside = set(targets[1:]) if kind == "file" else set()
    for target in targets:
        for label, inp in inputs:
            if same_file(target, inp):
                what = f" (a file this command writes or removes beside {path!r})" if target in beside else ""
                raise ValueError(f"{option}: {target!r}{what} is the same file as {label} {os.fspath(inp)!r}; "
                                 "refusing to overwrite an input -- give another output path")


def warn_ignored(command: str, args: argparse.Namespace, defaults: dict[str, Any], reason: str, stream=None,
                 flags: Optional[dict[str, str]] = None) -> list[str]:
    """Warn (one line on stderr) about options this run does not use but were given other values than
    their defaults, so a value the user set is never silently dropped.

    Args:
        command: the command, for the message (``"ev2r score"``).
        args: the parsed options.
        defaults: option dest -> its default; an option whose value differs is reported.
        reason: why they are not used (``"with --scorer hu-meteor alone (no verifier is loaded)"``).
        flags: option dest -> the flag to name where it is not ``--`` + the dest with dashes; the
            :class:`~ev2r.config.ScorerConfig` fields' flags (:func:`config_flags`: ``verifier`` -> ``--model``) are
            known without it.

    Returns:
        the option names warned about (``--batch-size``, ...), in ``defaults`` order.
    """
    import sys

    flags = {**config_flags(), **(flags or {})}
    given = [flags.get(name, f"--{name.replace('_', '-')}") for name, default in defaults.items()
             if getattr(args, name, default) != default]
    if given:
        print(f"{command}: warning: {', '.join(given)} not used {reason}", file=stream or sys.stderr)
    return given
