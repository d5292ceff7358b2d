"""Rank systems from per-item scores: pairwise battles -> Bradley-Terry (MLE) + online Elo.

Input: rows ``{id, <system field>, <score field>, status?}``, one score per (item, system), e.g. ``ev2r score -o``
files; only ``ok`` rows (or rows without a status) with a score count, the others are counted in ``skipped``. Each
item two systems both scored is one battle (FactArena, arXiv 2601.02669; Chatbot Arena, arXiv 2403.04132): a wins
when ``score_a - score_b > margin``, else a tie (``margin`` default :data:`DEFAULT_MARGIN`, so float noise ties).
Judged battles (``ev2r arena`` rows, :func:`battles_from_rows`) are read as they are; a judgement without a verdict
is counted and left out, never a win.

Bradley-Terry, ties as half wins (Rao & Kupper):

    NLL(theta) = - sum_{a != b} W[a, b] * log sigmoid(theta_a - theta_b) + l2/2 * ||theta||^2
    W[a, b] = wins of a over b + 0.5 * ties between a and b

reported on the Elo scale ``rating = 1000 + 400 * log10(e) * theta``, centred on 1000 per connected component
(components that never meet are not comparable: a warning names them). Where no finite MLE exists (a system wins or
loses every battle; Zermelo 1929, Ford 1957) a warning is emitted and the weak penalty ``l2_fallback`` keeps the
ratings finite. Ratings within :data:`RATING_TIE_POINTS` share a rank (1, 1, 3). CIs: percentile bootstrap over
items (``n_bootstrap``, seeded). Elo (for comparison): online ``K = 4`` updates averaged over ``elo_orders`` random
battle orders.

Layout: :mod:`.battles`, :mod:`.bradley_terry` (the fit, Elo, bootstrap, ranks), :mod:`.report` (table, plot);
every name is importable from this module.
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
