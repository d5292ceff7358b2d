"""A ranking as a Markdown table (:func:`ranking_table`) and a forest plot (:func:`forest_plot`)."""

from __future__ import annotations

import numpy as np

from ev2r.ranking.bradley_terry import BASE_RATING

__all__ = ["ranking_table", "forest_plot", "md_cell"]

#: ASCII punctuation Markdown may read as markup in a table cell; each is written backslash-escaped.
_MD_SPECIAL = set("\\`*_{}[]<>()#+-.!|~$&")


def md_cell(text: str) -> str:
    r"""``text`` as a Markdown table cell that renders literally: ``|`` (which would end the cell) and every
    other ASCII punctuation Markdown may read as markup backslash-escaped (CommonMark: any ASCII punctuation
    may be), line breaks as spaces.

    >>> md_cell("a|b $x$ *c*")
    'a\\|b \\$x\\$ \\*c\\*'
    """
    text = " ".join(str(text).splitlines())
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in text)


def ranking_table(result: dict, score_field: str = "score") -> str:
    """Markdown table of a :func:`rank_systems` result, best first; when rows were skipped
    (``result["skipped"]``: status not ok, or no score) a line below the table counts them per
    system and status."""
    lines = ["Bradley-Terry rating: the rating to report (maximum likelihood over all battles at once, centred on "
             "1000; a 400-point gap means 10:1 odds of winning), with its 95% bootstrap CI over items. Online Elo "
             "(averaged over random battle orders, K small) is a check on the order only: it is on its own scale, "
             "shrunk towards 1000, and its numbers are not comparable with the Bradley-Terry ones."
             + (f" Battles are won on the per-item `{score_field}`." if score_field != "win share" else
                " Battles are the judges' verdicts."), "",
             f"| rank | system | Bradley-Terry rating | 95% CI | online Elo (check) | mean {score_field} | items | "
             "W / L / T |",
             "|---:|---|---:|---|---:|---:|---:|---|"]
    for n, s in enumerate(result["ranking"], 1):
        r = result["ratings"][s]
        n = r.get("rank", n)  # equal ratings share a rank
        ci = f"[{r['ci95'][0]:.1f}, {r['ci95'][1]:.1f}]" if r.get("ci95") else "n/a"
        lines.append(f"| {n} | {md_cell(s)} | {r['rating']:.1f} | {ci} | {r['elo']:.1f} | {r['mean_score']:.4f} | "
                     f"{r['n_items']} | {r['wins']} / {r['losses']} / {r['ties']} |")
    skipped = result.get("skipped") or {}
    if skipped:
        from ev2r.ranking.battles import skipped_text

        lines += ["", f"Skipped rows (status not ok, or no score; they neither battle nor enter the mean): "
                      f"{result.get('n_skipped', sum(sum(d.values()) for d in skipped.values()))} -- "
                      f"{skipped_text({md_cell(k): v for k, v in skipped.items()})}"]
        unranked = sorted(set(skipped) - set(result["ranking"]))
        if unranked:
            lines.append(f"Not ranked (no counted row): {', '.join(md_cell(u) for u in unranked)}")
    return "\n".join(lines) + "\n"


def forest_plot(result: dict, path: str, title: str = "Bradley-Terry ratings (95% bootstrap CI)") -> None:
    """Forest plot (PNG): the Bradley-Terry rating and its CI per system, best at the top, on its own axis; the
    online Elo beside it on a second axis of its own (the two are on different scales). System names
    are drawn literally: ``$`` is never read as matplotlib mathtext."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = result["ranking"][::-1]
    y = np.arange(len(order))
    r = np.array([result["ratings"][s]["rating"] for s in order])
    fig, (ax, ax_elo) = plt.subplots(1, 2, figsize=(9, 0.5 * len(order) + 1.6), sharey=True,
                                     gridspec_kw={"width_ratios": [3, 1.4]})
    if all(result["ratings"][s].get("ci95") for s in order):
        lo = np.array([result["ratings"][s]["ci95"][0] for s in order])
        hi = np.array([result["ratings"][s]["ci95"][1] for s in order])
        ax.errorbar(r, y, xerr=[r - lo, hi - r], fmt="o", color="C0", capsize=3)
    else:
        ax.plot(r, y, "o", color="C0")
    ax.axvline(BASE_RATING, color="grey", lw=0.8, ls=":")
    ax.set_yticks(y, order)
    for label in ax.get_yticklabels():  # "$a$" is a name, not mathtext (which raised on "$x")
        label.set_parse_math(False)
    ax.set_xlabel("Bradley-Terry rating (report this; 400 points = 10:1 odds)")
    ax.set_title(title, fontsize=10)
    ax_elo.plot([result["ratings"][s]["elo"] for s in order], y, "D", mfc="none", color="C1")
    ax_elo.axvline(BASE_RATING, color="grey", lw=0.8, ls=":")
    ax_elo.set_xlabel("online Elo (own scale; a check)")
    ax_elo.set_title("online Elo", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
