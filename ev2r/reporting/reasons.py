"""What the reasons of an explained score row say, in words: shared by ``ev2r explain`` (terminal)
and ``ev2r report`` (HTML), so that both read an item the same way.

A row is one line of ``ev2r score --explain`` output (:meth:`ev2r.types.ItemScore.to_dict` with
``explain=True``): ``reference_facts`` / ``predicted_facts`` (each with ``supported``, ``probability``,
``decided_by``), ``proxy_premises`` and ``proxy_decided_by``.
"""

from __future__ import annotations

from typing import Optional

__all__ = ["reading", "proxy_breakdown", "run_weights", "ev2r_terms", "hybrid_terms"]


def run_weights(signature: Optional[str]) -> tuple:
    """The weights a run's numbers were made with, read from its full signature (the run record's ``signature``, or
    ``str(scorer.signature())``): ``(alpha, hybrid)`` -- ``alpha`` the weight of F1 in Ev2R (``Ev2R = alpha F1 +
    (1 - alpha) proxy``, the ``alpha`` field; the paper's is 0.5) and ``hybrid`` the ``ev2r_hybrid`` weights above 0
    as ``[(column, weight)]`` in the signature's order (the ``hybrid`` field, ``w=recall:0,proxy:0.05,...``). Each is
    None where the signature does not hold it (no signature or record, a run without Ev2R or without the
    combination, a field that does not read), so that no formula is printed with weights the run did not use.

    >>> run_weights("ev2r:1.7.0|alpha:0.3|hybrid:w=recall:0,proxy:0.05,verified_meteor:0.95")
    (0.3, [('proxy', 0.05), ('verified_meteor', 0.95)])
    >>> run_weights(None), run_weights("ev2r:1.7.0|ref:none")
    ((None, None), (None, None))
    """
    import math

    from ev2r.signature import Signature

    try:
        fields = Signature.parse(signature).fields if isinstance(signature, str) and signature else {}
    except ValueError:
        fields = {}
    alpha: Optional[float] = None
    try:
        alpha = float(fields["alpha"]) if "alpha" in fields else None
    except ValueError:
        pass
    if alpha is not None and not (math.isfinite(alpha) and 0.0 <= alpha <= 1.0):
        alpha = None
    hybrid: Optional[list] = None
    text = fields.get("hybrid", "")
    if text.startswith("w="):
        try:
            hybrid = [(name, float(w)) for name, _, w in (part.partition(":") for part in text[2:].split(","))]
            hybrid = [(name, w) for name, w in hybrid if w > 0]
        except ValueError:
            hybrid = None
    return alpha, hybrid


def _number(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def ev2r_terms(alpha: Optional[float], row: Optional[dict] = None, times: str = "x") -> str:
    """The right-hand side of Ev2R's formula with the run's ``alpha`` (:func:`run_weights`), with the row's values
    when ``row`` is given: ``0.3 x F1 0.400 + 0.7 x proxy 0.500``; with ``alpha`` None (not recorded) the formula in
    words, ``alpha x F1 0.400 + (1 - alpha) x proxy 0.500``, never a weight the run may not have used.

    >>> ev2r_terms(0.3, {"f1": 0.4, "proxy": 0.5}), ev2r_terms(None)
    ('0.3 x F1 0.400 + 0.7 x proxy 0.500', 'alpha x F1 + (1 - alpha) x proxy')
    """
    f1 = "" if row is None else f" {_number(row.get('f1'))}"
    proxy = "" if row is None else f" {_number(row.get('proxy'))}"
    if alpha is None:
        return f"alpha {times} F1{f1} + (1 - alpha) {times} proxy{proxy}"
    return f"{alpha:g} {times} F1{f1} + {1 - alpha:g} {times} proxy{proxy}"


def hybrid_terms(weights: Optional[list], row: Optional[dict] = None, times: str = "x") -> str:
    """The right-hand side of ``ev2r_hybrid``'s formula with the run's weights (:func:`run_weights`), with the row's
    values when ``row`` is given (``0.05 x proxy 0.500 + 0.95 x verified_meteor 0.200``); ``weights`` None (not
    recorded): ``its weights are not recorded`` in words.

    >>> hybrid_terms([("proxy", 0.05), ("verified_meteor", 0.95)], {"proxy": 0.5})
    '0.05 x proxy 0.500 + 0.95 x verified_meteor n/a'
    """
    if weights is None:
        return "the run's weights (not recorded: no run record with its signature)"
    return " + ".join(f"{w:g} {times} {c}" + ("" if row is None else f" {_number(row.get(c))}") for c, w in weights)


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
        from claimalign.words import MIN_CLAIM_TOKENS, content_tokens
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
    ... # doctest: +NORMALIZE_WHITESPACE
    '1 of 2 reference facts found in the prediction; the prediction gives no atomic fact (no evidence pair, or only
    bare / restating answers); no predicted pair is evidence for the claim, so the proxy is 0.25.'
    >>> reading({"contradicted_pairs": [{"predicted": 2, "reference": 0}]}, "Refuted")
    ... # doctest: +NORMALIZE_WHITESPACE
    'predicted pair 2 rewrites reference evidence that contradicts it, so it is no evidence (no premise of recall or
    the proxy, facts unsupported).'
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
                     f"{'them' if len(contra) > 1 else 'it'}, so {'they are' if len(contra) > 1 else 'it is'} no "
                     "evidence (no premise of recall or the proxy, facts unsupported)")
    prem = row.get("proxy_premises") or []
    k = row.get("proxy_decided_by")
    if row.get("proxy") is not None:
        if k is None or not prem:
            parts.append(f"no predicted pair is evidence for the claim, so the proxy is {row['proxy']:.2f}")
        elif len(prem) == 1:
            parts.append(f"the proxy P({gold}) = {row['proxy']:.2f} is predicted pair "
                         f"{prem[k]['pair_index']}'s reading")
        else:
            how = ("is the least neutral: Not Enough Evidence joins the pairs by their smallest P(neutral)"
                   if str(gold).casefold().startswith("not enough") else "reads the gold verdict most strongly")
            parts.append(f"the proxy P({gold}) = {row['proxy']:.2f} joins the {len(prem)} predicted pairs' readings "
                         f"(pair {prem[k]['pair_index']} {how})")
    return "; ".join(parts) + "." if parts else "nothing was scored."
