"""The arena as Markdown: ranking, judge reliability, agreement with the score ranking."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:  # pragma: no cover
    from ev2r.ranking.arena.judging import ArenaResult


def _f(v: Optional[float], nd: int = 3) -> str:
    return "n/a" if v is None else f"{v:.{nd}f}"


def reliability_table(reliability: dict) -> str:
    """Markdown table of :func:`judge_reliability`."""
    lines = ["| judge | family | judged ok / all | self-consistency | first-shown wins (n, p) | ties | "
             "agreement with other judges' majority (n) |", "|---|---|---:|---:|---:|---:|---:|"]
    for name, r in reliability.items():
        p = "n/a" if r["position_p_value"] is None else f"{r['position_p_value']:.2g}"
        lines.append(f"| {name} | {r['family'] or '-'} | {r['n_ok']} / {r['n_judgements']} | "
                     f"{_f(r['self_consistency'])} ({r['n_self_consistency']}) | {_f(r['position_bias'])} "
                     f"({r['n_position']}, p={p}) | {_f(r['tie_rate'])} | {_f(r['majority_agreement'])} "
                     f"({r['n_majority']}) |")
    return "\n".join(lines) + "\n"


def render_markdown(result: "ArenaResult", title: str = "Arena") -> str:
    """The ranking, the judges' reliability and the agreement with the score ranking as Markdown."""
    from ev2r.ranking.rating import ranking_table

    s = result.settings
    judges = ", ".join(f"`{j['model']}`" + (f" ({j['family']})" if j["family"] else "") for j in s["judges"])
    lines = [f"# {title}", "",
             f"Judges: {judges}; prompt `{s['prompt']}`, max_tokens {s['max_tokens']}; {s['n_claims']} claims, "
             f"{s['n_battles']} battles "
             f"({'all pairs' if s['pairs_per_claim'] is None else str(s['pairs_per_claim']) + ' pair(s)'} per claim, "
             f"seed {s['seed']}), each judged in both orders by every eligible judge. Rule: {s.get('rule', 'n/a')}. "
             f"Judgement statuses: {result.statuses}.", ""]
    if result.ranking is not None:
        lines += ["## Ranking", "", "Bradley-Terry MLE (ties = half wins) on the Elo scale, 95% CI from "
                  f"{result.ranking['settings']['bootstrap']} bootstrap resamples of claims; Elo K=4 averaged "
                  "over 20 orders; `mean win share` = (wins + ties/2) / battles.", "",
                  ranking_table(result.ranking, "win share")]
        if result.ranking["warnings"]:
            lines += ["Warnings: " + "; ".join(result.ranking["warnings"]), ""]
    else:
        lines += ["No ranking: " + "; ".join(s["notes"]), ""]
    lines += ["## Judge reliability", "", reliability_table(result.reliability)]
    if result.agreement is not None:
        a = result.agreement
        ci = "n/a" if a["ci95"] is None else f"[{a['ci95'][0]:+.2f}, {a['ci95'][1]:+.2f}]"
        lines += ["## Agreement with the score ranking", "",
                  f"Kendall tau-b between arena ratings and mean scores over {a['n_claims']} claims: "
                  f"**{_f(a['tau'], 3)}** (95% bootstrap CI {ci}, {a['n_bootstrap']} resamples of claims, "
                  f"{a['n_undefined']} undefined; p = {_f(a['p_value'], 4)}).", "",
                  "| system | arena rating | mean score |", "|---|---:|---:|"]
        for sname in sorted(a["systems"], key=lambda x: -a["arena_rating"][x]):
            lines.append(f"| {sname} | {a['arena_rating'][sname]:.1f} | {a['mean_score'][sname]:.4f} |")
        lines.append("")
    return "\n".join(lines)
