"""Atomic facts: evidence text -> facts. Rule-based decomposers (:mod:`.rules`, with the declarative
rewriting of question/answer pairs in :mod:`.declarative`) and the replay of recorded LLM judgements
(:mod:`.replay`). The LLM decomposer lives in :mod:`ev2r.llm.scorers`.

May import: ``ev2r.types`` / ``labels`` / ``scores``, ``ev2r.io`` (the replay reads recorded evidence text with
the one question/answer reader, :func:`ev2r.io.qa_text.evidence_from_text`), ``claimalign``.
"""
