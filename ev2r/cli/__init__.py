"""The ``ev2r`` command line: one module per command; argparse lives only here.

May import: everything in the project (the top layer below ``benchmarks``).
"""

from ev2r.cli.main import main

__all__ = ["main"]
