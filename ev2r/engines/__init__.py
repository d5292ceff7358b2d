"""Execution engines: in this process (:mod:`.local_engine`, rows kept as they are scored) and Ray Data
(:mod:`.ray_engine`: the driver, the actor, the pipeline; :mod:`.ray_limiter`: the cluster-wide cap on
LLM requests); :mod:`.runs`: a run's options, record and files, and what a rerun resumes (both engines).

May import: the ev2r core, ``claimalign``.
"""
