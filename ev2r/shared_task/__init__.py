"""The AVeriTeC shared-task evaluations: the 2024 table (Hungarian METEOR, :mod:`.averitec2024`) and the
2025 FEVER-8 table (Ev2R recall judged by an LLM or the bundled verifier, :mod:`.averitec2025`).

May import: the ev2r core, ``claimalign``.
"""
