"""The arena: rank evidence-retrieval systems from pairwise judgements by a panel of LLM judges.

FactArena (arXiv 2601.02669, sec. III-C) ranks fact-checking systems from pairwise judgements of their outputs;
this package does that for retrieved evidence:

* **Battles**: for each claim every system covers, pairs of systems (``pairs_per_claim``, all by default; seeded
  per claim). Each judge sees the claim, the reference evidence as a factual reference, the two evidence sets as
  ``A`` and ``B`` and the ``arena_pairwise`` guideline, and answers ``A``, ``B`` or ``tie`` (:func:`parse_judgement`).
* **Both orders**: every battle is judged with each system shown first; orders that disagree give a tie, and a
  failed or unparsable judgement is never a win (nor a tie). ``position_debias="probabilities"`` reads each order's
  P(A), P(B), P(tie) instead (:func:`combine_orders_balanced`; balanced position calibration, Wang et al. 2023).
* **Panel**: a judge never judges a battle of a system of its own model family (status ``no_eligible_judge`` when
  no judge may). Calls go through :class:`ev2r.llm.LLMClient` (cached, resumable, offline replay).
* **Ratings**: :func:`ev2r.ranking.rating.rank_battles` (Bradley-Terry with ties as half wins, bootstrap CIs over
  claims, Elo); ``ev2r rank battles.jsonl`` reads the battles file with the same result.

:func:`judge_reliability` gives per judge its self-consistency, position bias (with an exact binomial test against
0.5) and agreement with the other judges' majority; :func:`ranking_agreement` gives Kendall's tau-b between the
arena's strengths and a score's means, with a bootstrap CI over claims.

Layout: :mod:`.battles` (specs, claims, pair sampling, requests, parsing), :mod:`.judging` (:func:`run_arena`,
:func:`estimate_arena`), :mod:`.reliability`, :mod:`.report` (Markdown); the command line is :mod:`ev2r.cli.arena`.
"""

from ev2r.ranking.arena.battles import (ANSWER_GRAMMAR, DEFAULT_MAX_TOKENS, NO_EVIDENCE, NO_REFERENCE, ORDERS,
                                        ArenaClaim, Judge, answer_params, arena_requests, common_claims, eligible,
                                        parse_judge_spec, parse_judgement, parse_judgement_text, parse_system_spec,
                                        judgement_probabilities, plan, sample_pairs)
from ev2r.ranking.arena.judging import (POSITION_DEBIAS, ArenaResult, combine_orders, combine_orders_balanced,
                                        estimate_arena, run_arena)
from ev2r.ranking.arena.reliability import judge_reliability, ranking_agreement
from ev2r.ranking.arena.report import reliability_table, render_markdown

__all__ = [
    "ANSWER_GRAMMAR", "DEFAULT_MAX_TOKENS", "NO_EVIDENCE", "NO_REFERENCE", "ORDERS", "ArenaClaim", "ArenaResult",
    "Judge", "POSITION_DEBIAS", "answer_params", "arena_requests", "combine_orders", "combine_orders_balanced",
    "judgement_probabilities", "common_claims", "eligible", "estimate_arena",
    "judge_reliability", "parse_judge_spec", "parse_judgement", "parse_judgement_text", "parse_system_spec", "plan",
    "ranking_agreement", "reliability_table", "render_markdown", "run_arena", "sample_pairs",
]
