"""Execution engines beside the local one: Ray Data (:mod:`.ray_engine`).

May import: the ev2r core, ``claimalign``.
"""
