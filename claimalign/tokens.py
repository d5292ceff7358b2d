"""Text in the data never becomes a tokenizer control token (``"[SEP]"``, ``"<s>"``): the one guard every model
loader applies (:func:`guard_special_tokens`), a module of its own beside :mod:`claimalign.text`."""

from __future__ import annotations

from typing import Any, Callable, Sequence


def _special_strings(tokenizer: Any) -> list[str]:
    names = set(getattr(tokenizer, "all_special_tokens", None) or [])
    for tok in (getattr(tokenizer, "added_tokens_decoder", None) or {}).values():
        if getattr(tok, "special", False):
            names.add(str(tok))
    return sorted((n for n in names if n), key=len, reverse=True)


def neutralize_special_tokens(text: str, specials: Sequence[str]) -> str:
    """``text`` with every occurrence of a special-token string (``"[SEP]"``, ``"<s>"``...) broken
    by a space after its first character (``"[SEP]"`` -> ``"[ SEP]"``), repeated until none is
    left, so no occurrence can be read as the control token. Used only when the tokenizer cannot
    split special-token strings itself (:func:`guard_special_tokens`)."""
    changed = True
    while changed:
        changed = False
        for s in specials:
            if len(s) > 1 and s in text:
                text = text.replace(s, s[0] + " " + s[1:])
                changed = True
    return text


def guard_special_tokens(tokenizer: Any) -> Callable[[str], str]:
    """Make sure text in the data never becomes a tokenizer control token.

    Sets the tokenizer's ``split_special_tokens`` (transformers: a literal ``"[SEP]"`` in the text
    is then tokenised as ``[``, ``sep``, ``]``, while the real special tokens are still added by
    the tokenizer around the sequences) and checks that it took effect: every special-token string
    of the tokenizer, tokenised without special tokens, must give no special token id (other than
    the unknown token's). Where the
    installed transformers does not honour the setting, the returned function neutralises the
    special-token strings in the text (:func:`neutralize_special_tokens`).

    Args:
        tokenizer: a Hugging Face tokenizer (slow or fast).

    Returns:
        a function to apply to every text before it is tokenised (the identity when the tokenizer
        splits special-token strings itself).
    """
    specials = _special_strings(tokenizer)
    try:
        tokenizer.split_special_tokens = True
    except (AttributeError, ValueError):  # pragma: no cover - a tokenizer without the setting
        pass
    # an unknown character becoming the unknown token is not this bug (and not a control token)
    special_ids = set(getattr(tokenizer, "all_special_ids", None) or []) - {getattr(tokenizer, "unk_token_id", None)}
    leaked = False
    for s in specials:
        try:
            ids = tokenizer(s, add_special_tokens=False)["input_ids"]
        except Exception:  # pragma: no cover - a tokenizer that cannot encode its own token
            leaked = True
            break
        if any(i in special_ids for i in ids):
            leaked = True
            break
    if not leaked:
        return lambda text: text
    return lambda text: neutralize_special_tokens(text, specials)
