"""``python -m ev2r.training``: the ``ev2r train-verifier`` command (:mod:`ev2r.cli.train`)."""

from ev2r.cli.train import main

raise SystemExit(main())
