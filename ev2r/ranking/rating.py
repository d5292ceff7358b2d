"""Rank systems from per-item scores: pairwise battles -> Bradley-Terry (MLE) + online Elo.

Input: rows ``{id, <system field>, <score field>, status?}`` -- one score per (item, system), e.g. the
per-item Ev2R scores ``ev2r score -o`` writes, one file per system. Only rows whose ``status`` is
``ok`` (or that have no ``status`` field, e.g. a user's own score table) and whose score is not null
count; a failed item (``replay_missing``, ``no_reference``, ...) neither battles nor enters
``mean_score``, and the result counts the skipped rows per system and status (``skipped``). Each item on which two
systems both have a score is one *battle* between them (FactArena-style arena ranking of
fact-checking systems, arXiv 2601.02669; Chatbot Arena, Chiang et al. 2024, arXiv 2403.04132):

* system a **wins** when ``score_a - score_b > margin``; ``|score_a - score_b| <= margin`` is a
  **tie** (``margin`` >= 0, default :data:`DEFAULT_MARGIN` = 1e-6 absolute: a rerun whose scores
  differ only by float noise -- different hardware, batch order, dtype -- ties rather than winning
  or losing every battle; pass ``margin=0`` for exact comparison).

Bradley-Terry: ``P(a beats b) = 1 / (1 + exp(theta_b - theta_a))``. The strengths maximise the
likelihood with ties counted as half a win for each side (Rao & Kupper's simple convention):

    NLL(theta) = - sum_{a != b} W[a, b] * log sigmoid(theta_a - theta_b) + l2/2 * ||theta||^2
    W[a, b] = wins of a over b + 0.5 * ties between a and b

minimised with ``scipy.optimize.minimize`` (trust-region Newton, analytic gradient and Hessian). theta is only defined
up to a constant: ratings are reported centred on a mean of 1000 within each connected component (a choice that does not
depend on names or order) on the Elo scale ``rating = 1000 + 400 * log10(e) * theta``: a 400-point gap means 10:1 odds.
The fit depends on the battles only through ``W``, so it is invariant to the order of battles and of input rows, and
renaming systems renames the ratings.

A finite MLE exists only when, in every split of a component into two groups, each group beats
or ties the other at least once (Zermelo 1929; Ford 1957): the "beats or ties" graph must be
strongly connected. When it is not (a system wins or loses every battle), a warning is emitted
and a weak L2 penalty ``l2_fallback`` keeps the ratings finite. When the comparison graph itself
is disconnected (some systems never meet on a common item), ratings of different components are
not comparable: a warning names the components and each is centred on 1000 separately.

Ranks: systems are ordered by rating; systems whose ratings differ by at most
:data:`RATING_TIE_POINTS` (0.001 Elo points, the precision ratings are reported with) share a
rank (standard competition ranking: 1, 1, 3).

Confidence intervals: percentile bootstrap over **items** (items resampled with replacement,
battles rebuilt from the resampled items), seeded, ``n_bootstrap`` replicates (default 1000).

Judged battles: rows ``{id, system_a, system_b, winner: "a" | "b" | "tie" | null, status, judge}``
(one per judgement, as ``ev2r arena`` writes them; :func:`battles_from_rows`) are read as they are:
each ok judgement is one battle (a tie half a win for each side), a judgement without a verdict
(``status`` other than ``ok``) is counted and left out, never a win; the bootstrap resamples items
with all their judgements; ``mean_score`` is then the system's win share.

Elo (for comparison): online updates ``R_a += K (S_a - E_a)`` with ``E_a = 1 / (1 + 10^((R_b -
R_a)/400))``, start 1000, K = 4 by default (Chatbot Arena), over the battle list in
``elo_orders`` random orders (default 20, seed ``seed``) and averaged, which reduces, but does not
remove, its dependence on battle order.

Layout: :mod:`.battles` (battles from scores or judged rows), :mod:`.bradley_terry` (the fit, Elo,
bootstrap, ranks), :mod:`.report` (table, plot); every name is importable from this module.
"""

from ev2r.ranking.battles import (BATTLE_FIELDS, DEFAULT_MARGIN, NULL_SCORE, WINNERS, Battles, battles_from_rows,
                                  counted_scores_table, is_battle_row, make_battles, read_system_rows, row_counts,
                                  scores_table, skipped_text)
from ev2r.ranking.bradley_terry import (BASE_RATING, ELO_SCALE, RATING_TIE_POINTS, RankingWarning, elo_online,
                                        fit_bradley_terry, rank_battles, rank_systems, share_ranks, to_rating)
from ev2r.ranking.report import forest_plot, ranking_table

__all__ = ["ELO_SCALE", "BASE_RATING", "DEFAULT_MARGIN", "RATING_TIE_POINTS", "BATTLE_FIELDS", "WINNERS",
           "RankingWarning", "Battles", "scores_table", "counted_scores_table", "row_counts", "skipped_text",
           "NULL_SCORE", "make_battles", "is_battle_row", "battles_from_rows",
           "fit_bradley_terry", "to_rating", "elo_online", "rank_systems", "rank_battles", "share_ranks",
           "ranking_table", "forest_plot", "read_system_rows"]
