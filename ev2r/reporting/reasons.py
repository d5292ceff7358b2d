"""What the reasons of an explained score row say, in words (issue 34): shared by ``ev2r explain`` (terminal)
and ``ev2r report`` (HTML), so that both read an item the same way.

A row is one line of ``ev2r score --explain`` output (:meth:`ev2r.types.ItemScore.to_dict` with
``explain=True``): ``reference_facts`` / ``predicted_facts`` (each with ``supported``, ``probability``,
``decided_by``), ``proxy_premises`` and ``proxy_decided_by``.
"""

from __future__ import annotations

from typing import Optional

__all__ = ["reading", "proxy_breakdown"]


def proxy_breakdown(row: dict, gold: Optional[str], claim: Optional[str] = None) -> Optional[dict]:
    """How the proxy of an explained row was made, from its ``proxy_premises`` (the rule of
    :mod:`ev2r.metric.proxy`): the per-pair distributions joined as max entailment, min neutral, max
    contradiction, renormalised (``joined``: ``(e, n, c)``); P(gold verdict) read from that
    (``verdict_p``); for a Not-Enough-Evidence claim the relevance factor it is multiplied by
    (``relevance``, needs ``claim``; None otherwise) and the resulting ``proxy``. None without premises or
    without a known gold verdict.

    Args:
        row: an ``ev2r score --explain`` row.
        gold: the gold verdict as written (``Supported``, ``refuted``, ...), or None.
        claim: the claim text (for the relevance factor of a Not-Enough-Evidence claim).

    >>> row = {"proxy_premises": [{"entailment": 0.736, "neutral": 0.2, "contradiction": 0.064, "premise": "a"},
    ...                           {"entailment": 0.1, "neutral": 0.148, "contradiction": 0.407, "premise": "b"}]}
    >>> b = proxy_breakdown(row, "supported")
    >>> [round(x, 3) for x in b["joined"]], round(b["verdict_p"], 3), b["relevance"]
    ([0.57, 0.115, 0.315], 0.57, None)
    """
    prem = row.get("proxy_premises") or []
    if not prem or not gold:
        return None
    from ev2r.labels import Verdict, normalize_verdict, verdict_probability

    try:
        verdict = normalize_verdict(gold, field="gold_label")
    except ValueError:
        return None
    import numpy as np

    from ev2r.verifier.nli import aggregate_windows

    # the proxy's own joining rule (ev2r.metric.proxy: aggregate_windows "max" over the pairs)
    joined = tuple(float(x) for x in aggregate_windows(
        np.array([[p["entailment"], p["neutral"], p["contradiction"]] for p in prem]), "max"))
    p_verdict = verdict_probability(verdict, *joined)
    rel = None
    if verdict is Verdict.NOT_ENOUGH_EVIDENCE and claim:
        from claimalign.qa_text import MIN_CLAIM_TOKENS, content_tokens
        from ev2r.metric.proxy import relevance

        if len(content_tokens(claim)) >= MIN_CLAIM_TOKENS:
            rel = relevance([p["premise"] for p in prem], claim)
    return {"joined": joined, "verdict": verdict.value, "verdict_p": p_verdict, "relevance": rel,
            "proxy": p_verdict * rel if rel is not None else p_verdict}


def reading(row: dict, gold: Optional[str]) -> str:
    """One line that says why the item scored what it did, from an explained row (``ev2r score --explain``).

    Args:
        row: the explained row (a dict; missing reason fields read as empty).
        gold: the gold verdict's name (``Supported``...), or None.

    >>> reading({"reference_facts": [{"supported": True}, {"supported": False}], "predicted_facts": [],
    ...          "proxy": 0.25, "proxy_premises": [], "proxy_decided_by": None}, "Refuted")
    '1 of 2 reference facts found in the prediction; the prediction gives no atomic fact (no evidence pair, or only bare / restating answers); no predicted pair is evidence for the claim, so the proxy is 0.25.'
    >>> reading({"contradicted_pairs": [{"predicted": 2, "reference": 0}]}, "Refuted")
    'predicted pair 2 rewrites reference evidence that contradicts it, so it is no evidence (no premise of recall or the proxy, facts unsupported).'
    """
    ref, pred = row.get("reference_facts") or [], row.get("predicted_facts") or []
    parts = []
    if ref:
        parts.append(f"{sum(f['supported'] for f in ref)} of {len(ref)} reference facts found in the prediction")
    if pred:
        parts.append(f"{sum(f['supported'] for f in pred)} of {len(pred)} predicted facts backed by the reference")
    elif ref:
        parts.append("the prediction gives no atomic fact (no evidence pair, or only bare / restating answers)")
    contra = row.get("contradicted_pairs") or []
    if contra:
        which = ", ".join(str(c["predicted"]) for c in contra)
        parts.append(f"predicted pair{'s' if len(contra) > 1 else ''} {which} rewrite{'' if len(contra) > 1 else 's'} "
                     "reference evidence that contradicts "
                     f"{'them' if len(contra) > 1 else 'it'}, so {'they are' if len(contra) > 1 else 'it is'} no evidence "
                     "(no premise of recall or the proxy, facts unsupported)")
    prem = row.get("proxy_premises") or []
    k = row.get("proxy_decided_by")
    if row.get("proxy") is not None:
        if k is None or not prem:
            parts.append(f"no predicted pair is evidence for the claim, so the proxy is {row['proxy']:.2f}")
        elif len(prem) == 1:
            parts.append(f"the proxy P({gold}) = {row['proxy']:.2f} is predicted pair {prem[k]['pair_index']}'s reading")
        else:
            how = ("is the least neutral: Not Enough Evidence joins the pairs by their smallest P(neutral)"
                   if str(gold).casefold().startswith("not enough") else "reads the gold verdict most strongly")
            parts.append(f"the proxy P({gold}) = {row['proxy']:.2f} joins the {len(prem)} predicted pairs' readings "
                         f"(pair {prem[k]['pair_index']} {how})")
    return "; ".join(parts) + "." if parts else "nothing was scored."
