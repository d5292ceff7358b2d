"""Helpers shared by the ``ev2r`` commands: verifier options, the output-path check, number format."""

from __future__ import annotations

import argparse
import os
import re
from typing import Any, Iterable, Optional

from claimalign.files import same_file
# re-exported: the CLI modules' names for them
from ev2r.verifier.loading import proxy_verifier_option, verifier_key  # noqa: F401
from ev2r.config import (COPY_READINGS, DEFAULTS, DTYPES, METEOR_MATCH_MODES, PROXY_TARGETS, RESTATEMENT_READINGS,
                         SUPPORT_MODES)


def add_verifier_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default=DEFAULTS.verifier,
                   help="NLI verifier: 'bundled' (default, English), 'edits' (the bundled one continued on edits that "
                        "change or keep a fact's meaning; opt-in, with --proxy-model bundled: docs/verifiers.md), "
                        "'fast' (3 layers distilled from the bundled one: "
                        "about 2.3x faster, lower agreement with people; benchmarks/results/distilled_verifier.md), "
                        "'multilingual' (the shipped Czech / Slovak / multilingual one), a local checkpoint or a "
                        "Hugging Face id (e.g. MoritzLaurer/DeBERTa-v3-large-mnli-fever-anli-ling-wanli; needs a "
                        "network)")
    p.add_argument("--device", default=None, help="torch device (default: $EV2R_DEVICE, else cuda if available, else "
                                                  "cpu)")
    p.add_argument("--batch-size", type=int, default=DEFAULTS.batch_size,
                   help=f"verifier batch size (default {DEFAULTS.batch_size})")
    p.add_argument("--dtype", choices=DTYPES, default=DEFAULTS.dtype,
                   help="verifier precision (default auto: bf16 on CUDA or on a CPU with native bf16 -- "
                        "AVX512-BF16/AMX -- else fp32; int8 = CPU dynamic quantisation, beyond the precision bound: a "
                        "custom version name, docs/versions.md); part of the signature")


#: The options :func:`add_metric_args` adds (argparse dest -> default): what a run that loads no verifier (baselines
#: alone) warns about when they are set (:func:`warn_ignored`).
METRIC_OPTION_DEFAULTS = {"alpha": DEFAULTS.alpha, "threshold": DEFAULTS.threshold, "support": DEFAULTS.support,
                          "proxy_target": DEFAULTS.proxy_target, "proxy_model": DEFAULTS.proxy_verifier,
                          "no_contradiction": False, "admission": DEFAULTS.admission,
                          "copy_reading": DEFAULTS.copy_reading, "restatement": DEFAULTS.restatement,
                          "meteor_match": DEFAULTS.meteor_match}


def proxy_model_arg(text: str) -> str:
    """``--proxy-model``: a non-empty spec (an empty or blank one names no verifier).

    >>> proxy_model_arg("averitec")
    'averitec'
    """
    if not text.strip():
        raise argparse.ArgumentTypeError(f"an empty spec ({text!r}); give 'averitec', 'bundled', 'fast', a checkpoint "
                                         "folder or a Hugging Face id, or leave the option out (the --model verifier)")
    return text


def add_metric_args(p: argparse.ArgumentParser) -> None:
    """The options that change the values of Ev2R (``ev2r score`` and ``ev2r explain`` take the same):
    ``--alpha``, ``--threshold``, ``--support``, ``--proxy-target``, ``--proxy-model``, ``--no-contradiction``,
    ``--admission``, ``--meteor-match``, ``--copy-reading``, ``--restatement``."""
    p.add_argument("--alpha", type=float, default=DEFAULTS.alpha,
                   help=f"Ev2R weight of F1 (default {DEFAULTS.alpha:g})")
    p.add_argument("--threshold", type=float, default=DEFAULTS.threshold,
                   help=f"P(entailment) at which a fact is supported (default {DEFAULTS.threshold:g})")
    p.add_argument("--support", choices=SUPPORT_MODES, default=DEFAULTS.support,
                   help="how a fact's P(entailment) becomes its support: threshold (default: 1 when P >= --threshold, "
                        "else 0, as the paper) or soft (P itself)")
    p.add_argument("--proxy-target", choices=PROXY_TARGETS, default=DEFAULTS.proxy_target,
                   help="gold verdict (default) or the annotators' verdict (authors' variant, comparison only)")
    p.add_argument("--proxy-model", default=DEFAULTS.proxy_verifier, metavar="SPEC", type=proxy_model_arg,
                   help="the proxy's own verifier (the paper's proxy is a model fine-tuned on AVeriTeC): 'averitec' "
                        "(the bundled verifier continued on AVeriTeC train pairs; CC BY-NC 4.0; reads AVeriTeC "
                        "evidence better: docs/verifiers.md), 'bundled', a local checkpoint or a "
                        "Hugging Face id; default: the --model verifier (a SPEC naming it, e.g. 'bundled' with the "
                        "default --model, is the default: no separate proxy verifier, the same signature and version)")
    p.add_argument("--no-contradiction", action="store_true",
                   help="read the predicted pairs that the reference evidence contradicts as any pair (default: left "
                        "out of the premises of recall, the proxy and the combined alignments; "
                        "ev2r.metric.contradiction)")
    p.add_argument("--admission", default=DEFAULTS.admission, metavar="SPEC",
                   help="the learned reading of non-evidence in the admission stage (ev2r.metric.admission): 'bundled' "
                        "(default), 'none' (its rules alone) or a folder holding a saved model; part of the signature")
    p.add_argument("--copy-reading", default=DEFAULTS.copy_reading, choices=COPY_READINGS,
                   help="how a predicted pair that copies a gold pair is read: 'near' (a near-copy, typos and synonyms "
                        "respelled, read as the gold pair: ev2r/4), 'exact' (only a copy is the gold pair; the "
                        "verifier reads every other pair in its own words) or 'verified' (a near-copy is the gold pair "
                        "where the verifier reads both as saying the same thing: only as good as the verifier's "
                        "reading of one-word changes, see docs/admission.md); part of the signature")
    p.add_argument("--restatement", default=DEFAULTS.restatement, choices=RESTATEMENT_READINGS,
                   help="how a predicted answer that only says the claim again is found: 'lexical' (the claim's words, "
                        "wrapped or reworded with synonyms) or 'mutual' (also an answer the verifier reads as "
                        "entailing the claim and entailed by it); part of the signature")
    p.add_argument("--meteor-match", default=DEFAULTS.meteor_match, choices=METEOR_MATCH_MODES,
                   help="how the METEOR of the combined score's columns matches words: 'exact' (nltk's METEOR) or "
                        "'fuzzy' (also a word one edit away, and numbers as values: 'forty-five' = '45'); the "
                        "hu-meteor baseline is always the official one")


def premise_top_k_arg(text: str):
    """``--premise-top-k``: ``all`` -> None (every premise), else an integer >= 1."""
    if text.lower() == "all":
        return None
    if not re.fullmatch(r"[0-9]+", text) or int(text) < 1:  # plain ASCII digits: no "+2", "1_0", other scripts
        raise argparse.ArgumentTypeError(f"expected an integer >= 1 or 'all', got {text!r}")
    return int(text)


def add_premise_args(p: argparse.ArgumentParser) -> None:
    """``--premise-top-k K|all`` (:attr:`ev2r.config.ScorerConfig.premise_top_k`)."""
    default = "all" if DEFAULTS.premise_top_k is None else DEFAULTS.premise_top_k
    p.add_argument("--premise-top-k", type=premise_top_k_arg, default=DEFAULTS.premise_top_k, metavar="K|all",
                   help="check each atomic fact against only its K premises (question/answer pairs of the other side) "
                        f"of highest lexical overlap, or 'all' for every premise (exhaustive); default {default} "
                        "(what it costs: benchmarks/results/pruning.md)")


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
        flags: option dest -> the flag to name where it is not ``--`` + the dest with dashes (``verifier`` ->
            ``--model``).

    Returns:
        the option names warned about (``--batch-size``, ...), in ``defaults`` order.
    """
    import sys

    given = [(flags or {}).get(name, f"--{name.replace('_', '-')}") for name, default in defaults.items()
             if getattr(args, name, default) != default]
    if given:
        print(f"{command}: warning: {', '.join(given)} not used {reason}", file=stream or sys.stderr)
    return given
