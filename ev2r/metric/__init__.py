"""The Ev2R metric: reference-based precision/recall/F1 over atomic facts (:mod:`.reference`), the
proxy-reference score (:mod:`.proxy`), their combination and corpus aggregation (:mod:`.scorer`), and
:func:`.factory.build_scorer`, which wires a configured scorer from names (Akhtar et al. 2024, sec. 3).

May import: ``ev2r.types`` / ``labels`` / ``config``, ``ev2r.facts``, ``ev2r.verifier``, ``ev2r.llm``
(its LLM backend), ``claimalign``.
"""
