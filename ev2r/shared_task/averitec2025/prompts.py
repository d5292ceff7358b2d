"""Judge prompts of the AVeriTeC 2025 table: the shipped ones, or a file with the user's copy of
the organisers' ``str.format`` text or a ``$``-template (:func:`load_judge_prompt`)."""

from __future__ import annotations

import hashlib
import os
import re
import string
from dataclasses import dataclass
from typing import Any, Optional

from ev2r.shared_task.averitec2025.settings import PARTS, SHIPPED_PROMPTS

_TEMPLATE_FIELDS = ("claim", "reference_evidence", "predicted_evidence")
_TEMPLATE_RE = re.compile(r"\$(?:\{)?(claim|reference_evidence|predicted_evidence)\b")


@dataclass(frozen=True)
class JudgePrompt:
    """A judge prompt.

    Attributes:
        name: the shipped prompt's name, or ``file:<file name>``.
        text: the prompt text.
        sha256: hex digest of the UTF-8 text (its first 12 digits enter the signature).
        style: ``"template"`` (``$claim``, ``$reference_evidence``, ``$predicted_evidence``) or
            ``"format"`` (the organisers' ``str.format`` text: ``{}`` placeholders filled with
            claim, reference evidence, predicted evidence in that order; ``{0}``..``{2}`` also
            accepted; literal braces doubled).
        source: ``"shipped"`` or the file path.
    """

    name: str
    text: str
    sha256: str
    style: str
    source: str = "shipped"

    @property
    def id(self) -> str:
        return f"{self.name}@{self.sha256[:12]}"

    def render(self, claim: str, reference_evidence: str, predicted_evidence: str) -> str:
        """The filled prompt.

        Raises:
            KeyError, ValueError, IndexError: the text cannot be filled (checked at load time).
        """
        if self.style == "template":
            return string.Template(self.text).substitute(claim=claim, reference_evidence=reference_evidence,
                                                         predicted_evidence=predicted_evidence)
        return self.text.format(claim, reference_evidence, predicted_evidence)


def _check_format_prompt(text: str, option: str) -> None:
    help_ = (f"{option}: expected the organisers' prompt with str.format placeholders -- three '{{}}' filled with "
             "the claim, the reference evidence and the predicted evidence, in that order (literal braces "
             "doubled: '{{{{' and '}}}}') -- or a template with $claim, $reference_evidence, $predicted_evidence")
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as e:
        raise ValueError(f"{help_}; the text does not parse: {e}") from None
    names = [f for _, f, _, _ in parsed if f is not None]
    bad = [f for f in names if f not in ("", "0", "1", "2")]
    if bad:
        raise ValueError(f"{help_}; found unknown placeholder(s) {['{' + f + '}' for f in bad]!r}")
    auto = [f for f in names if f == ""]
    numbered = {f for f in names if f != ""}
    if auto and numbered:
        raise ValueError(f"{help_}; found both '{{}}' and numbered placeholders")
    if auto and len(auto) != 3:
        raise ValueError(f"{help_}; found {len(auto)} '{{}}' placeholder(s), not 3")
    if not auto and not {"1", "2"} <= numbered:
        raise ValueError(f"{help_}; no placeholders for the reference and predicted evidence")
    try:
        text.format("C", "R", "P")
    except (ValueError, IndexError, KeyError) as e:
        raise ValueError(f"{help_}; {type(e).__name__}: {e}") from None


def _check_template_prompt(text: str, option: str) -> None:
    missing = [f for f in ("reference_evidence", "predicted_evidence") if not re.search(
        r"\$(?:\{)?" + f + r"\b", text)]
    if missing:
        raise ValueError(f"{option}: a $-template must contain {', '.join('$' + m for m in missing)} "
                         "(fields: $claim, $reference_evidence, $predicted_evidence)")
    try:
        string.Template(text).substitute(claim="C", reference_evidence="R", predicted_evidence="P")
    except KeyError as e:
        raise ValueError(f"{option}: unknown template field ${e.args[0]}; allowed fields: $claim, "
                         "$reference_evidence, $predicted_evidence (write $$ for a literal $)") from None
    except ValueError as e:
        raise ValueError(f"{option}: {e} (write $$ for a literal $; fields: $claim, $reference_evidence, "
                         "$predicted_evidence)") from None


def load_judge_prompt(path: Any = None, part: str = "question_answer", option: Optional[str] = None) -> JudgePrompt:
    """The judge prompt for ``part``: the shipped one (``path`` None), or a file.

    A file holding ``$claim`` / ``$reference_evidence`` / ``$predicted_evidence`` is a
    :class:`string.Template`; any other file is read as the organisers' ``str.format`` text
    (``{}`` = claim, reference evidence, predicted evidence). The file is read as UTF-8, as is.

    Args:
        path: None, a file path, or a :class:`JudgePrompt` (returned as is).
        part: ``"question_only"`` or ``"question_answer"`` (which shipped prompt).
        option: the name used in error messages (default ``--prompt-file`` /
            ``--question-prompt-file``).

    Raises:
        ValueError: unknown ``part``; a file that cannot be read, is empty, or whose placeholders
            are not the three fields (the message names ``option`` and the accepted forms).
    """
    if part not in PARTS:
        raise ValueError(f"part: {part!r} is not one of {PARTS}")
    if option is None:
        option = "--question-prompt-file" if part == "question_only" else "--prompt-file"
    if isinstance(path, JudgePrompt):
        return path
    if path is None:
        from ev2r.llm.prompts import load_prompt

        p = load_prompt(SHIPPED_PROMPTS[part])
        return JudgePrompt(p.name, p.text, p.sha256, "template", "shipped")
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"{option}: expected a file path, got {type(path).__name__}")
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"{option}: cannot read {os.fspath(path)!r}: {e}") from None
    if not text.strip():
        raise ValueError(f"{option}: {os.fspath(path)!r} is empty")
    if _TEMPLATE_RE.search(text):
        style = "template"
        _check_template_prompt(text, option)
    else:
        style = "format"
        _check_format_prompt(text, option)
    return JudgePrompt(f"file:{os.path.basename(os.fspath(path))}", text,
                       hashlib.sha256(text.encode("utf-8")).hexdigest(), style, os.fspath(path))
