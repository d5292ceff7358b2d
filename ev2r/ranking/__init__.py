"""Ranking systems: battles from per-item scores, Bradley-Terry and Elo ratings with bootstrap CIs
(:mod:`.rating`, the public API over :mod:`.battles`, :mod:`.bradley_terry` and :mod:`.report`), and
the LLM-panel evidence arena (:mod:`.arena`; FactArena, arXiv 2601.02669).

May import: the ev2r core (``ev2r.llm`` for the arena judges), ``claimalign``.
"""
