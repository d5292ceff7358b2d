"""Training the bundled NLI verifier (``ev2r train-verifier``, :mod:`ev2r.cli.train`; ``python -m ev2r.training`` before
1.5):

* :mod:`ev2r.training.data` -- the shared data files, the :class:`~ev2r.training.data.Pair`, dataset readers;
* :mod:`ev2r.training.augment` -- negation and meaning-preserving (invariance) augmentation;
* :mod:`ev2r.training.pool` -- the training pool and evaluation sets of a run;
* :mod:`ev2r.training.evaluation` -- accuracy / macro-F1 through ``claimalign.models.predict_pairs``;
* :mod:`ev2r.training.loop` -- the run: model, optimiser, schedule, checkpoints, exact resume;
* :mod:`ev2r.training.model_card` -- learning curve and model card.

May import: the ev2r core, ``adversarial`` (perturbations used as augmentation), ``claimalign``.
"""
