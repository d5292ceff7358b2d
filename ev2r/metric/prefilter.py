"""A cheap first stage before the verifier: which premises can plausibly support a fact.

The reference-based score judges every atomic fact against every pair of the other side (:mod:`ev2r.metric.reference`)
and the verifier is nearly all of the run time. A fact needs *one* premise that entails it, and a premise sharing
none of its words rarely does; so, as retrieve-then-rerank pipelines do, each fact is checked only against its ``k``
premises of highest lexical overlap (tokens lower-cased, cut to their first :data:`STEM_CHARS` characters):

    score(p | h) = sum over distinct stems t of h that occur in p of  idf(t),
    idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))        (BM25's idf, Robertson & Zaragoza 2009)

with N the premises on that side of the item and df(t) how many contain t. Every premise tied with the k-th is kept
(text the stems cannot split scores 0 everywhere and nothing is dropped), and the premises kept are returned in
their original order, so the verifier's batches do not depend on the ranking. The scorer's ``k`` is
:data:`ev2r.config.PREMISE_TOP_K` (5); what it costs against the exhaustive run is ``benchmarks/results/pruning.md``
(measured by ``benchmarks/agreement/pruning.py`` at commit e43eb97, which also computes other ``k``).
"""

from __future__ import annotations

import functools
import math
import re
import numbers
from typing import Sequence

__all__ = ["STEM_CHARS", "PREFILTER_STAGES", "stems", "overlap_scores", "top_k_premises"]

#: Characters a token keeps as its stem.
STEM_CHARS = 5
#: The first stages :func:`top_k_premises` knows (the signature names the one used).
PREFILTER_STAGES = ("lexical",)

_TOKEN = re.compile(r"\w+", re.UNICODE)


@functools.lru_cache(maxsize=65536)
def stems(text: str) -> frozenset[str]:
    """The distinct stems of ``text``: lower-cased (``str.casefold``) ``\\w+`` tokens cut to
    :data:`STEM_CHARS` characters (cached: a premise is stemmed once, not once per fact).

    >>> sorted(stems("Elected in 2019; the election's result"))
    ['2019', 'elect', 'in', 'resul', 's', 'the']
    """
    return frozenset(t[:STEM_CHARS] for t in _TOKEN.findall(text.casefold()))


def overlap_scores(hypothesis: str, premises: Sequence[str]) -> list[float]:
    """BM25-idf-weighted stem overlap of each premise with ``hypothesis`` (module docstring), >= 0, summed exactly
    (:func:`math.fsum`), so that two premises whose stems tie with the k-th tie in every process (a plain sum over the
    stems' set depends on the set's iteration order, which ``PYTHONHASHSEED`` changes: 1.9.0 kept 5 or 6 premises
    for one fact of the 144 rated rows depending on the process).

    Here N = 2: "won" is in both premises (idf ln 1.2 = 0.182), "in", "biden", "2020" in one (ln 2 = 0.693).

    >>> [round(s, 3) for s in overlap_scores("Biden won in 2020", ["Trump won in 2016", "Biden won 2020"])]
    [0.875, 1.569]
    """
    prem = [stems(p) for p in premises]
    n = len(prem)
    out = []
    hyp = stems(hypothesis)
    df = {t: sum(t in p for p in prem) for t in hyp}
    idf = {t: math.log(1.0 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
    for p in prem:  # fsum: exactly rounded whatever the set's order, so ties do not depend on PYTHONHASHSEED
        out.append(math.fsum(idf[t] for t in hyp if t in p))
    return out


def top_k_premises(hypothesis: str, premises: Sequence[str], k: int) -> list[int]:
    """Indices of the premises whose :func:`overlap_scores` for ``hypothesis`` is at least the k-th
    highest (the k best and every premise tied with the k-th), in their original order; every index
    when ``k`` is at least ``len(premises)``.

    >>> top_k_premises("Biden won in 2020", ["Trump won in 2016", "Rain in Spain", "Biden won 2020"], 2)
    [0, 2]
    >>> top_k_premises("Biden won", ["Biden won Ohio", "Biden won Iowa", "Rain"], 1)  # a tie: both kept
    [0, 1]

    Raises:
        ValueError: ``k`` not an integer >= 1 (naming ``k``).
    """
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise ValueError(f"k: expected an integer >= 1, got {k!r}")
    k = int(k)
    if k >= len(premises):
        return list(range(len(premises)))
    scores = overlap_scores(hypothesis, premises)
    cut = sorted(scores, reverse=True)[k - 1]
    return [j for j, sc in enumerate(scores) if sc >= cut]
