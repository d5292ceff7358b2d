"""Render a :class:`~adversarial.suite.RobustnessReport` as JSON, Markdown and a PNG chart.

``write_report(report, out_dir)`` writes ``report.json`` (layout: :meth:`RobustnessReport.to_dict`),
``report.md`` (a summary matrix, the full table, violations, coverage and one example per
perturbation), ``report.png`` (per perturbation, the % change of every score, with the region that
meets the declared expectation shaded) and ``per_item.jsonl`` (base and perturbed scores per item).
"""

from __future__ import annotations

import math
import os
from typing import Optional

from claimalign.files import atomic_path, write_text
from claimalign.jsonio import write_json, write_jsonl

from adversarial.perturbations import INVARIANT, MEANING_DAMAGING, MEANING_PRESERVING, NO_INCREASE
from adversarial.suite import FAIL, NA, PASS, RobustnessReport, ScoreCheck

_MARK = {PASS: "✓", NA: "–"}


def _arrow(shown: str) -> str:
    """The direction of a change as printed (``"+25.7%"`` -> ``"↑"``, ``"-3.1%"`` -> ``"↓"``, a change
    that rounds to zero -> ``"→"``): the arrow always agrees with the sign shown beside it."""
    digits = shown.lstrip("+-").rstrip("%")
    try:
        if float(digits) == 0.0:
            return "→"
    except ValueError:
        return ""
    return "↓" if shown.startswith("-") else "↑"


def _pct(x: Optional[float]) -> str:
    return "n/a" if x is None else f"{x:+.1f}%"


def _num(x: Optional[float], nd: int = 3) -> str:
    return "n/a" if x is None else f"{x:.{nd}f}"


def _mark(c: ScoreCheck) -> str:
    if c.verdict == FAIL:
        return "✗" if c.gated else "(✗)"
    return _MARK.get(c.verdict, "?")


def _cell(c: ScoreCheck, row_expected: str = "") -> str:
    """``"↑ +25.7% ✗"``: the observed change of the mean (arrow and sign agree; the expectation is the
    row's ``expected`` column, repeated in the cell only where this score's differs) and the verdict."""
    if c.pct_change is not None:
        val = _pct(c.pct_change)
    else:
        val = f"{c.mean_change:+.3f}" if c.mean_change is not None else "n/a"
    arrow = _arrow(val)
    if arrow == "→":  # "+0.0%" / "-0.0%": no sign for a change that rounds to zero
        val = val.lstrip("+-")
    text = f"{arrow} {val} {_mark(c)}" if arrow else f"{val} {_mark(c)}"
    return text if c.expected == row_expected else f"{text} (expected {c.expected})"


def _row_expected(checks: list) -> str:
    """The expectation most of a perturbation's checks share (``invariant`` / ``decrease``)."""
    exps = [c.expected for c in checks]
    return max(dict.fromkeys(exps), key=exps.count) if exps else ""


def _expect_text(c: ScoreCheck) -> str:
    if c.expected == INVARIANT:
        return f"invariant (±{c.tolerance_pct:g}%)"
    if c.expected == "no_increase":
        return f"no increase (≤ +{c.tolerance_pct:g}%)"
    if c.expected == "no_gain_over_original":
        return f"no gain over the real evidence (mean ≤ 0, ≤ {c.tolerance_pct:g}% of items rising)"
    return f"decrease (≤ −{c.tolerance_pct:g}%)"


def _gate_text(report: RobustnessReport, mode: str) -> str:
    status = report.gate_status(mode)
    if status == "failed":
        return f"FAILED ({len(report.violations(mode))} violation(s))"
    if status == "not judged":
        return "NOT JUDGED (no counted check had enough items for a verdict)"
    if status == "inconclusive":
        counted = [c for c in report.checks() if mode == "all" or c.gated]
        return (f"INCONCLUSIVE ({len(report.not_judged(mode))} of {len(counted)} "
                f"{'gated' if mode == 'gated' else 'counted'} checks not judged: too few items)")
    return "PASSED"


def _tally(checks: list) -> str:
    n = {v: sum(c.verdict == v for c in checks) for v in (PASS, FAIL, NA)}
    return f"{n[PASS]} passed, {n[FAIL]} violated, {n[NA]} not judged (too few items)"


def gate_summary(report: RobustnessReport, mode: str = "gated") -> str:
    """One unambiguous line on the gate: its status, then the gated checks and the ungated (reported)
    checks counted separately, and which of them the gate ``mode`` counts, e.g. ``PASSED -- gated
    checks: 12 passed, 0 violated, 2 not judged (too few items); ungated checks (reported, not
    counted by mode gated): 5 passed, 3 violated, 0 not judged (too few items)``.

    Raises:
        ValueError: unknown ``mode`` (see :meth:`RobustnessReport.violations`).
    """
    status = _gate_text(report, mode)
    gated = [c for c in report.checks() if c.gated]
    ungated = [c for c in report.checks() if not c.gated]
    counted = {"gated": ("counted", "reported, not counted by mode gated"),
               "all": ("counted", "counted by mode all"),
               "none": ("reported, not counted by mode none", "reported, not counted by mode none")}[mode]
    return (f"{status} -- gated checks ({counted[0]}): {_tally(gated)}; "
            f"ungated checks ({counted[1]}): {_tally(ungated)}")


def render_markdown(report: RobustnessReport, mode: str = "gated", detail: bool = True) -> str:
    """The report as Markdown. ``detail=False`` gives only the header, the summary matrix and the
    violations (what the CLI prints to the log).

    Raises:
        ValueError: unknown ``mode`` (see :meth:`RobustnessReport.violations`).
    """
    viol = report.violations(mode)
    all_fail = report.violations("all")
    s = report.settings
    lines = [
        f"# Robustness report: {report.scorer}",
        "",
        f"{report.n_items} items, seed {report.seed}, {s['n_boot']} bootstrap resamples, "
        f"absolute floor {s['abs_tol']:g}, at least {s['min_n']} items per verdict; "
        f"gate mode `{mode}`: **{_gate_text(report, mode)}**.",
        "",
        f"Checks: {gate_summary(report, mode).split(' -- ', 1)[1]}.",
        "",
        *([f"Ev2R scorer signature: `{s['ev2r_signature']}`.", ""] if s.get("ev2r_signature") else []),
        "Cells: the observed change of the mean score on the items the perturbation applied to "
        "(perturbed vs base; ↑ rose, ↓ fell, → unchanged at the precision shown; arrow and sign always agree), "
        "against the expectation in the row's `expected` column (invariant: stays within its tolerance; "
        "decrease: falls), and the verdict: ✓ meets the expectation, "
        "✗ violates a gated check (its CI95 excludes meeting it), (✗) violates a reported (not gated) check, "
        "– not enough items to judge (too few items, or a check that misses its expectation while its CI95 "
        "still reaches the region that meets it; an invariant check passes on its mean change).",
        "",
    ]
    base = " | ".join(f"{sc}" for sc in report.scores)
    lines += [f"| perturbation | kind | coverage | expected | {base} |",
              "|---|---|---|---|" + "---|" * len(report.scores)]
    lines.append("| *(base mean)* | | | | " + " | ".join(_num(report.base_means.get(sc)) for sc in report.scores)
                 + " |")
    for p in report.perturbations:
        cov = "unavailable" if p.unavailable else f"{p.n_applied}/{p.n_items}"
        kind = {MEANING_PRESERVING: "preserving", MEANING_DAMAGING: "damaging"}.get(p.kind, p.kind)
        exp = _row_expected([p.checks[sc] for sc in report.scores]) or p.expected
        lines.append(f"| {p.name} | {kind} | {cov} | {exp} | "
                     + " | ".join(_cell(p.checks[sc], exp) for sc in report.scores) + " |")
    lines.append("")
    if viol:
        lines += ["## Violations", ""]
        lines += [f"- **{c.perturbation} / {c.score}** (expected {_expect_text(c)}): {c.reason}" for c in viol]
        lines.append("")
    undecided = report.not_judged(mode)
    if undecided:
        lines += [f"## Not judged ({'gated' if mode == 'gated' else 'counted'} checks without a verdict)", ""]
        lines += [f"- **{c.perturbation} / {c.score}** (expected {_expect_text(c)}): "
                  + (f"mean change {c.mean_change:+.4f}, CI95 [{c.ci95[0]:+.4f}, {c.ci95[1]:+.4f}]"
                     if c.mean_change is not None and c.ci95 is not None else "no interval")
                  + (f", {100 * c.rise_rate:.0f}% of {c.n} items rose" if c.rise_rate is not None else f", n = {c.n}")
                  for c in undecided]
        lines.append("")
    unavailable = [p for p in report.perturbations if p.unavailable]
    if unavailable:
        lines += ["## Unavailable perturbations", ""]
        lines += [f"- **{p.name}**: {p.unavailable}" for p in unavailable]
        lines.append("")
    if not detail:
        return "\n".join(lines)

    other = [c for c in all_fail if c not in viol]
    if other:
        lines += ["## Other violated checks (reported, not gating)", ""]
        lines += [f"- {c.perturbation} / {c.score} (expected {_expect_text(c)}): {c.reason}" for c in other]
        lines.append("")
    lines += ["## All checks", "",
              "Δ = mean perturbed − mean base over the items scored both ways; CI95 = percentile bootstrap "
              "95% interval of Δ; pass rate = share of items meeting the expectation one by one.", "",
              "| perturbation | score | expected | gated | base | perturbed | Δ | %Δ | CI95 of Δ | pass rate "
              "| n | skipped | failed | verdict |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in report.checks():
        ci = f"[{c.ci95[0]:+.3f}, {c.ci95[1]:+.3f}]" if c.ci95 else "n/a"
        pr = "n/a" if c.pass_rate is None else f"{100 * c.pass_rate:.0f}%"
        md = "n/a" if c.mean_change is None else f"{c.mean_change:+.3f}"
        lines.append(f"| {c.perturbation} | {c.score} | {_expect_text(c)} | {'yes' if c.gated else 'no'} | "
                     f"{_num(c.mean_base)} | {_num(c.mean_perturbed)} | {md} | {_pct(c.pct_change)} | {ci} | {pr} | "
                     f"{c.n} | {c.n_skipped} | {c.n_failed} | {c.verdict} |")
    lines += ["", "## Coverage and skip reasons", ""]
    for p in report.perturbations:
        reasons = "; ".join(f"{r} ({k})" for r, k in sorted(p.skip_reasons.items(), key=lambda x: -x[1])) or "none"
        lines.append(f"- **{p.name}** ({p.description}): applied to {p.n_applied}/{p.n_items} "
                     f"({100 * p.coverage:.0f}%); skipped: {reasons}")
    lines += ["", "## One example per perturbation", ""]
    for p in report.perturbations:
        if not p.example:
            continue
        before = p.example["before"].replace("\n", " / ")
        after = p.example["after"].replace("\n", " / ")
        lines += [f"**{p.name}** (item `{p.example['id']}`)", "", f"- before: {before}", f"- after: {after}", ""]
    return "\n".join(lines)


def render_png(report: RobustnessReport, path: str, mode: str = "gated", title: Optional[str] = None) -> None:
    """Draw the summary that fits a screen (a bar chart of 43 perturbations would be 1430 x 7962 px):
    one row per perturbation (grouped by kind), one column per score, each cell coloured by its verdict
    (green: meets the expectation; red: a gated check violated; orange: a reported check violated; grey:
    not judged) and labelled with the % change of the mean. At most about 1300 x 1100 px for the 43
    perturbations and 12 scores of the suites; the per-check bars with their intervals are
    :func:`render_png_details`.

    Raises:
        ImportError: matplotlib is not installed.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    scores = report.scores
    kinds = list(dict.fromkeys([MEANING_PRESERVING, MEANING_DAMAGING] + [p.kind for p in report.perturbations]))
    perts = [p for k in kinds for p in report.perturbations if p.kind == k]
    codes = {PASS: 0, FAIL: 1, NA: 3}
    grid = [[(2 if (p.checks[sc].verdict == FAIL and not p.checks[sc].gated) else codes.get(p.checks[sc].verdict, 3))
             for sc in scores] for p in perts]
    cmap = ListedColormap(["#bfe5bf", "#e8797a", "#f6c27a", "#dcdcdc"])
    w = min(13.0, max(8.5, 3.2 + 0.78 * len(scores)))
    h = min(11.0, max(3.6, 2.4 + 0.22 * len(perts)))  # room for the title, the score names and the legend
    fig, ax = plt.subplots(figsize=(w, h), dpi=100)
    ax.imshow(grid, cmap=cmap, vmin=-0.5, vmax=3.5, aspect="auto", interpolation="nearest")
    fs = 8 if len(perts) <= 30 else 7
    for r, p in enumerate(perts):
        for c, sc in enumerate(scores):
            ck = p.checks[sc]
            v = ck.pct_change
            if v is None:  # no percentage (a base mean of 0): the absolute change, else nothing scored
                text = "n/a" if ck.mean_change is None else f"{ck.mean_change:+.3f}"
            else:
                text = "0%" if abs(v) < 0.5 else f"{v:+.0f}%"
            ax.text(c, r, text, ha="center", va="center", fontsize=fs)
    sym = {INVARIANT: "≈", "no_gain_over_original": "≤", NO_INCREASE: "≤+"}
    ax.set_yticks(range(len(perts)))
    ax.set_yticklabels([f"{p.name} ({sym.get(p.expected, '↓')})" for p in perts], fontsize=fs)
    ax.set_xticks(range(len(scores)))
    ax.set_xticklabels(scores, rotation=35, ha="right", fontsize=8)
    ax.xaxis.tick_top()
    plt.setp(ax.get_xticklabels(), rotation=35, ha="left")
    for k in range(1, len(perts)):
        if perts[k].kind != perts[k - 1].kind:
            ax.axhline(k - 0.5, color="black", lw=1.0)
    handles = [Patch(color="#bfe5bf", label="meets the expectation"),
               Patch(color="#e8797a", label="gated check violated"),
               Patch(color="#f6c27a", label="reported check violated"),
               Patch(color="#dcdcdc", label="not judged")]
    fig.legend(handles=handles, loc="lower left", ncol=4, fontsize=8, frameon=False, bbox_to_anchor=(0.01, 0.0))
    fig.suptitle(title or f"Robustness of {report.scorer}: {report.n_items} items, seed {report.seed}; mode {mode}:\n"
                 f"{_gate_text(report, mode)}\ncell: % change of the mean score (perturbed vs base); "
                 "≈ invariant, ↓ decrease, ≤ no gain over the real evidence", x=0.01, ha="left", fontsize=9)
    fig.tight_layout(rect=(0, 0.35 / h, 1, 1 - 0.55 / h))
    fig.savefig(path, dpi=100)
    plt.close(fig)


def render_png_details(report: RobustnessReport, path: str, mode: str = "gated", title: Optional[str] = None) -> None:
    """Draw the detailed chart: one row per perturbation (meaning-preserving above, meaning-damaging below),
    one bar per score giving the % change of its mean; behind each bar, the region that meets the
    declared expectation is shaded green (invariant: ±tolerance; decrease: below −tolerance);
    a black line gives the 95% bootstrap interval of the change, which decides the verdict;
    violations are marked with a red ✗ (gated) or an orange ✗ (not gated), checks with too few items
    to judge with a grey ?. Values beyond the axis are clipped and printed.

    Raises:
        ImportError: matplotlib is not installed.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    scores = report.scores
    kinds = list(dict.fromkeys([MEANING_PRESERVING, MEANING_DAMAGING] + [p.kind for p in report.perturbations]))
    groups = [(k, [p for p in report.perturbations if p.kind == k]) for k in kinds]
    groups = [(k, ps) for k, ps in groups if ps]
    nb = len(scores)
    heights = [max(1, len(ps)) * (0.28 * nb + 0.35) for _, ps in groups]
    fig, axes = plt.subplots(len(groups), 1, figsize=(11, 1.4 + sum(heights)), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    colors = plt.get_cmap("tab10").colors
    pcts = [c.pct_change for p in report.perturbations for c in p.checks.values() if c.pct_change is not None]
    lo, hi = -100.0, float(min(60.0, max([20.0] + [v + 8.0 for v in pcts])))
    bar_h = 0.8 / nb
    for (kind, ps), ax in zip(groups, axes[:, 0]):
        for gi, p in enumerate(ps):
            for j, sc in enumerate(scores):
                c = p.checks[sc]
                y = gi + (j - (nb - 1) / 2) * bar_h
                tol = c.tolerance_pct
                if c.expected == INVARIANT:
                    ax.add_patch(plt.Rectangle((-tol, y - bar_h / 2), 2 * tol, bar_h, color="#cdeccd", zorder=0, lw=0))
                elif c.expected == "no_gain_over_original":
                    ax.add_patch(plt.Rectangle((lo, y - bar_h / 2), -lo, bar_h, color="#cdeccd", zorder=0, lw=0))
                else:
                    ax.add_patch(plt.Rectangle((lo, y - bar_h / 2), -tol - lo, bar_h, color="#cdeccd", zorder=0, lw=0))
                v = c.pct_change
                if v is None:
                    ax.text(0.5, y, "n/a", va="center", fontsize=6, color="grey")
                    continue
                vc = min(max(v, lo), hi)
                ax.barh(y, vc, height=bar_h * 0.9, color=colors[j % 10], zorder=2)
                ax.plot([vc], [y], marker="|", ms=7, mew=2, color=colors[j % 10], zorder=3)  # shows 0% too
                if vc != v:
                    ax.text(vc, y, f" {v:+.0f}%", va="center", ha="left" if v > 0 else "right", fontsize=6, zorder=3)
                if c.ci95 is not None and abs(c.mean_base or 0.0) > 1e-12:
                    # what decides the verdict: the 95% interval of the change, in % of the base mean
                    e0, e1 = (min(max(100.0 * e / c.mean_base, lo), hi) for e in c.ci95)
                    ax.plot([min(e0, e1), max(e0, e1)], [y, y], color="black", lw=1.0, zorder=3)
                    for e in (e0, e1):
                        ax.plot([e], [y], marker="|", ms=4, mew=1, color="black", zorder=3)
                if c.verdict == FAIL:
                    ax.text(vc + (3 if vc >= 0 else -3), y, "✗", va="center", ha="center", fontsize=8, zorder=4,
                            color="red" if c.gated else "darkorange", fontweight="bold")
                elif c.verdict == NA:
                    ax.text(vc + (3 if vc >= 0 else -3), y, "?", va="center", ha="center", fontsize=7, zorder=4,
                            color="grey")
        ax.set_yticks(range(len(ps)))
        sym = {INVARIANT: "≈", "no_gain_over_original": "≤ real"}
        ax.set_yticklabels([f"{p.name}\n({sym.get(p.expected, '↓')} expected, {p.n_applied}/{p.n_items})"
                            for p in ps], fontsize=8)
        ax.set_ylim(len(ps) - 0.5, -0.5)
        ax.set_xlim(lo - 2, hi + 2)
        ax.axvline(0, color="black", lw=0.8, zorder=1)
        for gi in range(len(ps) - 1):
            ax.axhline(gi + 0.5, color="#dddddd", lw=0.6, zorder=1)
        ax.set_title("gaming strategies (must not score above the real evidence)" if kind == "gaming"
                     else f"{kind} perturbations", fontsize=10, loc="left")
        ax.grid(axis="x", color="#eeeeee", zorder=0)
        ax.set_axisbelow(True)
    axes[-1, 0].set_xlabel("% change of the mean score (perturbed vs base)")
    handles = [Patch(color=colors[j % 10], label=sc) for j, sc in enumerate(scores)]
    handles.append(Patch(color="#cdeccd", label="meets the expectation"))
    handles.append(Line2D([0], [0], color="black", lw=1.0, label="CI95 of the change"))
    handles.append(Line2D([0], [0], color="grey", lw=0, marker="$?$", label="not enough items to judge"))
    total_h = 1.4 + sum(heights)
    fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.01, 1 - 0.5 / total_h),
               ncol=min(len(handles), 6), fontsize=8, frameon=False)
    nv = len(report.violations(mode))
    verdict = f"mode {mode}: " + (f"FAILED ({nv} violated check(s); ✗ red: gated, orange: reported)" if nv
                                  else _gate_text(report, mode))
    fig.suptitle(title or f"Robustness of {report.scorer}: {report.n_items} items, seed {report.seed}; {verdict}",
                 x=0.01, y=1 - 0.15 / total_h, ha="left", va="top", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.85 / total_h))
    fig.savefig(path, dpi=130)
    plt.close(fig)


def write_report(report: RobustnessReport, out_dir: str, mode: str = "gated", png: bool = True,
                 stem: str = "report", png_details: bool = False) -> dict[str, str]:
    """Write ``<stem>.json``, ``<stem>.md``, ``<stem>.png`` (the summary, unless ``png=False``; with
    ``png_details`` also ``<stem>_details.png``, :func:`render_png_details`) and
    ``<stem>_per_item.jsonl`` (``per_item.jsonl`` when ``stem`` is ``report``) into ``out_dir``
    (created). Returns {"json", "md", "png"?, "per_item"} -> path.

    Raises:
        ValueError: ``out_dir`` is a symlink that leads nowhere (dangling, or a loop) or not a folder, or a file the
            report would write in it is a symlink or not a regular file (a hostile pass: ``report.md`` linked to a
            file outside the folder was overwritten): refused before anything is written.
    """
    if os.path.islink(out_dir) and not os.path.exists(out_dir):
        raise ValueError(f"-o/--output: {out_dir} is a symlink that leads nowhere (dangling, or a loop): give a folder")
    if os.path.lexists(out_dir) and not os.path.isdir(out_dir):
        raise ValueError(f"-o/--output: {out_dir} exists and is not a folder: give a folder")
    os.makedirs(out_dir, exist_ok=True)
    paths = {"json": os.path.join(out_dir, f"{stem}.json"), "md": os.path.join(out_dir, f"{stem}.md"),
             "per_item": os.path.join(out_dir, "per_item.jsonl" if stem == "report" else f"{stem}_per_item.jsonl")}
    planned = list(paths.values()) + ([os.path.join(out_dir, f"{stem}.png")] if png else []) + \
        ([os.path.join(out_dir, f"{stem}_details.png")] if png and png_details else [])
    for path in planned:
        if os.path.islink(path) or (os.path.lexists(path) and not os.path.isfile(path)):
            raise ValueError(f"-o/--output: {path} is {'a symlink' if os.path.islink(path) else 'not a regular file'}; "
                             "a report never writes through a link out of its folder: remove it or give another folder")
    # each file through a temporary file renamed into place (claimalign.files.atomic_write)
    write_json(report.to_dict(mode), paths["json"], indent=2, ensure_ascii=True, allow_nan=False,
               default=_json_default)
    write_text(render_markdown(report, mode) + "\n", paths["md"])
    # one record per line for every reader, read back by ev2r's readers (claimalign.jsonio)
    write_jsonl(report.per_item, paths["per_item"], allow_nan=False)
    if png:
        paths["png"] = os.path.join(out_dir, f"{stem}.png")
        with atomic_path(paths["png"]) as tmp:
            render_png(report, tmp, mode)
        if png_details:
            paths["png_details"] = os.path.join(out_dir, f"{stem}_details.png")
            with atomic_path(paths["png_details"]) as tmp:
                render_png_details(report, tmp, mode)
    return paths


def _json_default(o):
    if isinstance(o, float) and not math.isfinite(o):  # pragma: no cover - guarded by allow_nan
        return None
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")
