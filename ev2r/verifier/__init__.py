"""The NLI verifier of Ev2R: :mod:`ev2r.verifier.nli` (:class:`~ev2r.verifier.nli.HFNLIVerifier`: long-premise
windows, signature name, token counters, on top of ``claimalign.models``' one loader and one pair-inference
routine) and :mod:`ev2r.verifier.loading` (spec -> verifier: the bundled model in ``models/``, checkpoint
folders, hub ids; device checks; the process-wide cache).

May import: ``ev2r.config``, ``claimalign`` (``claimalign.models``, ``claimalign.nli``, ``claimalign.text``,
``claimalign.scripts``, ``claimalign.words``).
"""
