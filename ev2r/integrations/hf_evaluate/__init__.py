"""The ``evaluate`` metric module of ev2r (``ev2r_metric.py``) and the logic it calls.

``evaluate.load(ev2r.evaluate_module_path())`` loads :mod:`ev2r_metric` (a copy of the file is
imported by ``evaluate``, so it imports this package absolutely). The scoring itself is
:func:`ev2r.integrations.hf_evaluate.core.compute_ev2r`, usable without ``evaluate`` installed.
"""
