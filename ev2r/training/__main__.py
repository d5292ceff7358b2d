"""``python -m ev2r.training`` was the ``ev2r train-verifier`` command before 1.5; it now only says so (it imports
nothing: the command line lives above this package)."""

import sys

sys.exit("python -m ev2r.training was removed in ev2r 1.5: run `ev2r train-verifier` (or `python -m ev2r.cli "
         "train-verifier`) with the same options")
