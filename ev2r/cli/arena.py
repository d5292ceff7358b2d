"""``ev2r arena``: rank systems from pairwise evidence battles judged by an LLM panel (:mod:`ev2r.ranking.arena`)."""

from ev2r.ranking.arena import add_arena_arguments as add_arguments, run_arena_cli as run  # noqa: F401
