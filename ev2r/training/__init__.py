"""Training the bundled NLI verifier (``ev2r train-verifier``): data pool, augmentation, loop,
evaluation, learning curve and model card.

May import: the ev2r core, ``adversarial`` (perturbations used as augmentation), ``claimalign``.
"""
