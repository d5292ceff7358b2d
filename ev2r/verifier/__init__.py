"""The NLI verifier: loading (the bundled model in ``models/``, any Hugging Face checkpoint), dtype and
device, and premise/hypothesis -> P(entailment, neutral, contradiction) inference.

May import: ``ev2r.types`` / ``labels``, ``claimalign``.
"""
