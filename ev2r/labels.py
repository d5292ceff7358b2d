"""One label normaliser for every dataset the project reads, and the verdict -> NLI mapping.

Vocabularies: AVeriTeC (Schlichtkrull et al., 2023: ``Supported``, ``Refuted``, ``Not Enough Evidence``,
``Conflicting Evidence/Cherrypicking``, and the spellings of released files), FEVER / VitaminC (``SUPPORTS``,
``REFUTES``, ``NOT ENOUGH INFO``) and NLI (``entailment``, ``neutral``, ``contradiction``: :class:`NLILabel`,
defined in :mod:`claimalign.nli`, re-exported here). Every spelling is normalised to one canonical :class:`Verdict`.

The proxy-reference score (Akhtar et al. 2024, sec. 3.2) asks the verifier for P(gold verdict | claim, evidence);
:data:`VERDICT_TO_NLI` maps a verdict to the verifier's classes: supported -> P(entailment), refuted ->
P(contradiction), not enough evidence -> P(neutral), and conflicting -> ``min(P(entailment), P(contradiction)) * 2``
clipped to [0, 1] (high only when the verifier puts substantial mass on both; over several pairs
:mod:`ev2r.metric.proxy` takes the min of the max entailment and the max contradiction). The mapping is named in the
metric signature (``map:v1``).
"""

from __future__ import annotations


from claimalign.nli import NLILabel, label_key, normalize_nli_label  # noqa: F401 (re-exported: one NLI vocabulary)
# the verdicts are read where the inputs are (claimalign.evidence, the lowest package)
from claimalign.evidence import ALLOWED_VERDICT_SPELLINGS, Verdict, normalize_verdict  # noqa: F401 (re-exported)


#: Which verifier class(es) stand for each verdict in the proxy score (see module docstring).
VERDICT_TO_NLI: dict[Verdict, str] = {
    Verdict.SUPPORTED: "entailment",
    Verdict.REFUTED: "contradiction",
    Verdict.NOT_ENOUGH_EVIDENCE: "neutral",
    Verdict.CONFLICTING: "min(entailment,contradiction)*2",
}
LABEL_MAPPING_ID = "map:v1"


def verdict_probability(verdict: Verdict, entailment: float, neutral: float, contradiction: float) -> float:
    """P(verdict) from one NLI distribution, by :data:`VERDICT_TO_NLI`. Result in [0, 1].

    >>> verdict_probability(Verdict.REFUTED, 0.1, 0.2, 0.7)
    0.7
    >>> verdict_probability(Verdict.CONFLICTING, 0.45, 0.1, 0.45)
    0.9

    Raises:
        ValueError: ``verdict`` is not a :class:`Verdict` (a raw string must go through
            :func:`normalize_verdict` first, never fall through to another verdict's mapping).
    """
    if not isinstance(verdict, Verdict):
        raise ValueError(f"verdict: expected an ev2r.labels.Verdict (see normalize_verdict), got {verdict!r}")
    if verdict is Verdict.SUPPORTED:
        return float(entailment)
    if verdict is Verdict.REFUTED:
        return float(contradiction)
    if verdict is Verdict.NOT_ENOUGH_EVIDENCE:
        return float(neutral)
    return float(min(1.0, 2.0 * min(entailment, contradiction)))
