"""Execution engines beside the local one: Ray Data (:mod:`.ray_engine`: the driver, the actor, the
pipeline; :mod:`.ray_limiter`: the cluster-wide cap on LLM requests; :mod:`.runs`: a run's options,
files and what a rerun resumes).

May import: the ev2r core, ``claimalign``.
"""
