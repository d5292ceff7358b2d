"""The Hugging Face ecosystem: ``datasets`` loaders and scoring (:mod:`.hf_datasets`) and the
``evaluate`` metric module (:mod:`.hf_evaluate`).

May import: the ev2r core, ``claimalign``.
"""
