"""What the reasons of an explained score row say, in words (issue 34): shared by ``ev2r explain`` (terminal)
and ``ev2r report`` (HTML), so that both read an item the same way.

A row is one line of ``ev2r score --explain`` output (:meth:`ev2r.types.ItemScore.to_dict` with
``explain=True``): ``reference_facts`` / ``predicted_facts`` (each with ``supported``, ``probability``,
``decided_by``), ``proxy_premises`` and ``proxy_decided_by``.
"""

from __future__ import annotations

from typing import Optional

__all__ = ["reading"]


def reading(row: dict, gold: Optional[str]) -> str:
    """One line that says why the item scored what it did, from an explained row (``ev2r score --explain``).

    Args:
        row: the explained row (a dict; missing reason fields read as empty).
        gold: the gold verdict's name (``Supported``...), or None.

    >>> reading({"reference_facts": [{"supported": True}, {"supported": False}], "predicted_facts": [],
    ...          "proxy": 0.25, "proxy_premises": [], "proxy_decided_by": None}, "Refuted")
    '1 of 2 reference facts found in the prediction; the prediction gives no atomic fact (no evidence pair, or only bare / restating answers); no predicted pair is evidence for the claim, so the proxy is 0.25.'
    """
    ref, pred = row.get("reference_facts") or [], row.get("predicted_facts") or []
    parts = []
    if ref:
        parts.append(f"{sum(f['supported'] for f in ref)} of {len(ref)} reference facts found in the prediction")
    if pred:
        parts.append(f"{sum(f['supported'] for f in pred)} of {len(pred)} predicted facts backed by the reference")
    elif ref:
        parts.append("the prediction gives no atomic fact (no evidence pair, or only bare / restating answers)")
    prem = row.get("proxy_premises") or []
    k = row.get("proxy_decided_by")
    if row.get("proxy") is not None:
        if k is None or not prem:
            parts.append(f"no predicted pair is evidence for the claim, so the proxy is {row['proxy']:.2f}")
        else:
            parts.append(f"the proxy P({gold}) = {row['proxy']:.2f} comes from predicted pair {prem[k]['pair_index']}")
    return "; ".join(parts) + "." if parts else "nothing was scored."
