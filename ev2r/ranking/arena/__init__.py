"""The arena: rank evidence-retrieval systems from pairwise judgements by a panel of LLM judges.

FactArena (arXiv 2601.02669, sec. III-C) ranks fact-checking systems from *pairwise judgements*
of their open-form outputs; this module does that for retrieved evidence:

* **Battles.** For each claim present in every system's file (same claim text everywhere), pairs
  of systems are sampled (``pairs_per_claim`` distinct pairs per claim, all pairs by default;
  seeded per claim: ``numpy.random.default_rng([seed, crc32(claim id)])``, so a claim's pairs do
  not depend on the other claims). In a row, ``system_a`` is the alphabetically first system.
* **Judging.** Each judge sees the claim, the reference evidence *as a factual reference* (not as a
  gold label), the two evidence sets anonymously as ``A`` and ``B``, and the written guideline of
  the ``arena_pairwise`` prompt (coverage of what the claim's verdict needs, correctness against the
  reference, no credit for length or repetition); it answers ``A``, ``B`` or ``tie``
  (:func:`parse_judgement`). Every battle is judged **in both orders** (``ab``: system_a shown as
  A; ``ba``: system_b shown as A). A judge whose two orders name different outcomes gives a
  **tie** (``consistent: false``); when either order failed, the judgement has that order's status
  and no winner: **a failed or unparsable judgement is never a win** (nor a tie).
  With ``position_debias="probabilities"`` (for judges that always name the first-shown set) each
  order's answer is read as P(A), P(B), P(tie) from the log-probabilities, and a battle goes to the
  set whose probability averaged over both positions is ahead by more than a margin
  (:func:`combine_orders_balanced`; balanced position calibration, Wang et al. 2023).
* **Panel.** Judges come from model families; a judge never judges a battle involving a system of
  its own family (families compared case-insensitively; a judge or system without a family is
  never excluded). A battle no judge may judge is written with status ``no_eligible_judge``.
* **Calls** go through :class:`ev2r.llm.LLMClient`: cached on disk the moment each answer arrives
  (a killed run resumes, sending only what is missing), offline replay of the cache
  (``offline=True``: a miss is ``replay_missing``), bounded concurrency, timeouts, retries.
* **Ratings** come from :func:`ev2r.ranking.rating.battles_from_rows` + :func:`ev2r.ranking.rating.rank_battles`
  (Bradley-Terry MLE with ties as half wins, 95% bootstrap CIs over claims, online Elo averaged over
  orders): the battles file is read by ``ev2r rank battles.jsonl`` directly, with the same result.

Per-judgement statuses: ``ok``; ``parse_error`` (no ``A``/``B``/``tie`` at the start of the
answer); ``api_error``, ``timeout``, ``replay_missing`` (from the client); ``no_eligible_judge``.

Judge reliability (FactArena reports these per judge; :func:`judge_reliability`):

* **self-consistency**: share of the judge's judgements (both orders answered) whose two orders
  agree (the same system wins, or both are ties);
* **position bias**: share of "first shown wins" among its decisive per-order answers (``A`` vs
  ``B``, ties left out), 0.5 = none, with an exact two-sided binomial test against 0.5
  (``scipy.stats.binomtest``);
* **agreement with the panel majority**: share of its judged battles whose outcome equals the
  majority outcome of the *other* judges of that battle (leave-one-out, so a judge does not vote
  for itself; battles where the others are split evenly or absent are left out).

Agreement of the arena with a score-based ranking (:func:`ranking_agreement`): Kendall's tau-b
(``scipy.stats.kendalltau``) between the systems' Bradley-Terry strengths and their mean scores
(e.g. Ev2R) on the claims both cover, with a percentile bootstrap 95% CI over claims (claims
resampled with replacement; both rankings recomputed on each replicate).

Layout: :mod:`~ev2r.ranking.arena.battles` (judge and system specs, the claims every system
covers, pair sampling, requests, answer parsing), :mod:`~ev2r.ranking.arena.judging`
(:func:`run_arena`, :func:`estimate_arena`), :mod:`~ev2r.ranking.arena.reliability` (judge
reliability, agreement with a score ranking), :mod:`~ev2r.ranking.arena.report` (Markdown). The
command line is :mod:`ev2r.cli.arena`.
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
