"""Run perturbations against any scorer and check the declared expectations.

Scorer protocol (:data:`Scorer`): ``scorer(items) -> list[dict[str, float | None]]``, one dict per
item, in input order (e.g. ``{"precision", "recall", "f1", "proxy", "ev2r"}``); ``None`` means
the score failed for that item: the item is left out of that score's statistics and counted in
``n_failed``, never taken as 0.

For each perturbation and score, over the items the perturbation applied to and that have both a
base and a perturbed value (``n`` of them):

* ``mean_base``, ``mean_perturbed``, ``mean_change`` (perturbed - base), ``pct_change``
  (``100 * mean_change / mean_base``; None when ``mean_base`` is 0);
* ``ci95``: percentile bootstrap 95% CI of ``mean_change`` over items (``scipy.stats.bootstrap``,
  ``n_boot`` resamples, seeded; None when n < 2);
* ``pass_rate``: share of items meeting the expectation item by item. Invariant: ``|change| <=
  max(tol% * base, abs_tol)``. Decrease: the score dropped by at least ``tol% * base`` (an item
  already at 0 passes when it stays at 0);
* ``verdict`` (the gate uses this, not the pass rate):

  - ``invariant``: pass when ``|pct_change| <= tolerance_pct`` or ``|mean_change| <= abs_tol``
    (the absolute floor, 0.01 by default, keeps tiny base means from turning noise into large
    percentages);
  - ``decrease``: pass when ``pct_change <= -tolerance_pct`` **and** the upper end of ``ci95`` is
    below 0 (a drop beyond the margin that is not resampling noise); ``n/a`` when ``mean_base <=
    abs_tol`` (a score at its floor cannot drop);
  - ``no_increase``: pass when ``pct_change <= tolerance_pct`` or ``mean_change <= abs_tol`` (falling
    or staying is fine; content-free padding must not raise a score); fails when ``ci95`` lies wholly
    above ``max(tolerance% * |mean_base|, abs_tol)``;
  - ``no_gain_over_original`` (gaming strategies, :mod:`adversarial.perturbations.gaming`): the gamed
    evidence must not score above the real evidence. Pass when ``mean_change <= GAIN_NOISE`` (0.001)
    **and** at most ``tolerance_pct`` percent of the items rose (``rise_rate``; an item rises when its
    change exceeds ``RISE_MIN``, 0.005: the bf16 verifier's scores move by up to ~1e-3 with their
    batch); fail when ``ci95`` lies wholly above 0.001 (the mean gain is not resampling noise) or more
    than ``tolerance_pct`` percent rose while the mean rose; otherwise ``n/a``;
  - ``n/a`` when ``n < min_n`` (3 by default): too few items to judge; never a violation.

  A check that does not pass fails only when the interval says so: ``invariant`` fails when
  ``ci95`` lies wholly outside the allowed band ``+/- max(tolerance% * |mean_base|, abs_tol)``;
  ``decrease`` fails when ``ci95`` lies wholly above the required drop ``-tolerance% * mean_base``.
  Otherwise (the interval reaches both sides, as with a handful of items) the verdict is ``n/a``,
  "not enough items to judge", never a violation.

A violation is a check with verdict ``fail``; :meth:`RobustnessReport.violations` selects the gated
ones (``mode="gated"``, the default of the CLI), all of them (``"all"``) or none (``"none"``).
Everything is deterministic given ``seed``: each (perturbation, item) gets its own generator
(:func:`adversarial.perturbations.item_rng`) and each bootstrap its own seeded generator.
"""

from __future__ import annotations

import math
import numbers
import zlib
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Optional, Sequence

import numpy as np

from claimalign.evidence import Item

from adversarial.perturbations import INVARIANT, NO_GAIN, NO_INCREASE, Perturbation, get_perturbations, item_rng
from adversarial.resources import ResourceMissingError

Scorer = Callable[[Sequence[Item]], list]
FAIL_MODES = ("gated", "all", "none")
PASS, FAIL, NA = "pass", "fail", "n/a"
#: changes smaller than this are float noise (e.g. 0.8000000000000002 - 0.8), never a decrease
_NOISE = 1e-9
#: ``no_gain_over_original``: a mean change up to this is no gain, and an item rises only when its score
#: grows by more than :data:`RISE_MIN` -- the verifier's bf16 scores move by up to ~1e-3 with the
#: batch they are computed in (padding), which is no gain of the evidence
GAIN_NOISE = 1e-3
RISE_MIN = 5e-3


@dataclass
class ScoreCheck:
    """One (perturbation, score) result; see the module docstring for every field's meaning."""

    perturbation: str
    score: str
    expected: str
    tolerance_pct: float
    gated: bool
    mean_base: Optional[float]
    mean_perturbed: Optional[float]
    mean_change: Optional[float]
    pct_change: Optional[float]
    ci95: Optional[tuple[float, float]]
    pass_rate: Optional[float]
    n: int
    n_skipped: int
    n_failed: int
    verdict: str
    reason: str = ""
    rise_rate: Optional[float] = None

    def to_dict(self) -> dict:
        d = asdict(self)
        d["ci95"] = list(self.ci95) if self.ci95 is not None else None
        return d


@dataclass
class PerturbationSummary:
    """Coverage and checks of one perturbation.

    Attributes:
        name, kind, description: from the :class:`~adversarial.perturbations.Perturbation`.
        n_items: items offered; n_applied / n_skipped: how many it changed / skipped.
        coverage: n_applied / n_items (0..1).
        skip_reasons: reason -> count.
        unavailable: why the perturbation could not run at all (e.g. WordNet missing), else None.
        example: one applied item's change (``id``, ``before``, ``after``), or None.
        expected: the default expected effect (``invariant`` / ``decrease``; scores may override).
        checks: score name -> :class:`ScoreCheck`.
    """

    name: str
    kind: str
    description: str
    n_items: int
    n_applied: int
    n_skipped: int
    coverage: float
    skip_reasons: dict[str, int]
    unavailable: Optional[str]
    example: Optional[dict]
    expected: str = ""
    checks: dict[str, ScoreCheck] = field(default_factory=dict)

    def to_dict(self) -> dict:
        d = {k: v for k, v in asdict(self).items() if k != "checks"}
        d["scores"] = {s: c.to_dict() for s, c in self.checks.items()}
        return d


@dataclass
class RobustnessReport:
    """Result of :func:`run_suite`.

    Attributes:
        scorer: a name for the scorer (free text).
        scores: score names, in the scorer's order.
        n_items: items run; seed: the seed; settings: ``n_boot``, ``abs_tol``, ``min_n``.
        base_means: mean base score per score (over items where it is not None);
        base_failed: items whose base score is None, per score.
        perturbations: one :class:`PerturbationSummary` each, in run order.
        per_item: one record per (perturbation, item): ids, applied/skip reason, base and
            perturbed scores, and ``changed``: the perturbed text of each field it changed.
    """

    scorer: str
    scores: list[str]
    n_items: int
    seed: int
    settings: dict[str, Any]
    base_means: dict[str, Optional[float]]
    base_failed: dict[str, int]
    perturbations: list[PerturbationSummary]
    per_item: list[dict] = field(default_factory=list)

    def checks(self) -> list[ScoreCheck]:
        """Every check, perturbation-major."""
        return [c for p in self.perturbations for c in p.checks.values()]

    def violations(self, mode: str = "gated") -> list[ScoreCheck]:
        """Failed checks counted by ``mode``: ``"gated"`` (checks declared gated), ``"all"``, ``"none"``.

        Raises:
            ValueError: unknown ``mode``.
        """
        if mode not in FAIL_MODES:
            raise ValueError(f"fail_on_violation: expected one of {', '.join(FAIL_MODES)}, got {mode!r}")
        if mode == "none":
            return []
        return [c for c in self.checks() if c.verdict == FAIL and (mode == "all" or c.gated)]

    def judged(self, mode: str = "gated") -> list[ScoreCheck]:
        """Checks counted by ``mode`` that reached a verdict (enough items: not ``n/a``)."""
        if mode not in FAIL_MODES:
            raise ValueError(f"fail_on_violation: expected one of {', '.join(FAIL_MODES)}, got {mode!r}")
        return [c for c in self.checks() if c.verdict != NA and (mode == "all" or c.gated)]

    def gate_status(self, mode: str = "gated") -> str:
        """``"passed"`` (every counted check judged, none violated), ``"failed"`` (a counted check violated),
        ``"inconclusive"`` (none violated, but :meth:`not_judged` is not empty: some counted checks had too few
        items, or an interval reaching both sides, for a verdict -- a gate that judged only part of its checks
        has not passed) or ``"not judged"`` (no counted check reached a verdict at all). With
        ``mode="none"`` nothing is counted and the status is ``"passed"``."""
        if self.violations(mode):
            return "failed"
        if mode == "none":
            return "passed"
        if not self.judged(mode):
            return "not judged"
        if self.not_judged(mode):
            return "inconclusive"
        return "passed"

    def not_judged(self, mode: str = "gated") -> list[ScoreCheck]:
        """Checks counted by ``mode`` that reached no verdict (``n/a``)."""
        if mode not in FAIL_MODES:
            raise ValueError(f"fail_on_violation: expected one of {', '.join(FAIL_MODES)}, got {mode!r}")
        if mode == "none":
            return []
        return [c for c in self.checks() if c.verdict == NA and (mode == "all" or c.gated)]

    def passed(self, mode: str = "gated") -> bool:
        """True when :meth:`gate_status` is ``"passed"`` for ``mode``."""
        return self.gate_status(mode) == "passed"

    def to_dict(self, mode: str = "gated") -> dict:
        """JSON-ready dict (the ``report.json`` layout): ``perturbations[name]["scores"][score]``
        holds ``mean_base, mean_perturbed, pct_change, ci95, expected, pass_rate, n, n_skipped``, ..."""
        return {
            "schema": "adversarial-robustness/1",
            "scorer": self.scorer,
            "scores": self.scores,
            "n_items": self.n_items,
            "seed": self.seed,
            "settings": dict(self.settings, fail_on_violation=mode),
            "base_means": self.base_means,
            "base_failed": self.base_failed,
            "passed": self.passed(mode),
            "gate_status": self.gate_status(mode),
            "violations": [{"perturbation": c.perturbation, "score": c.score, "reason": c.reason}
                           for c in self.violations(mode)],
            "perturbations": {p.name: p.to_dict() for p in self.perturbations},
        }


def _validate_scores(out: Any, n: int, what: str) -> list[dict[str, Optional[float]]]:
    if not isinstance(out, (list, tuple)) or len(out) != n:
        got = f"{len(out)} results" if isinstance(out, (list, tuple)) else type(out).__name__
        raise ValueError(f"scorer ({what}): expected a list of {n} dicts (one per item), got {got}")
    clean = []
    for i, d in enumerate(out):
        if not isinstance(d, dict):
            raise ValueError(f"scorer ({what})[{i}]: expected a dict of score name -> float | None, got {d!r}")
        row = {}
        for k, v in d.items():
            if v is None:
                row[k] = None
                continue
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise ValueError(f"scorer ({what})[{i}][{k!r}]: expected a float or None, got {v!r}")
            if math.isnan(float(v)):
                raise ValueError(f"scorer ({what})[{i}][{k!r}]: NaN; a failed score must be None")
            row[k] = float(v)
        clean.append(row)
    return clean


def _bootstrap_ci(diffs: np.ndarray, n_boot: int, seed_parts: list[int]) -> Optional[tuple[float, float]]:
    if len(diffs) < 2:
        return None
    if np.all(diffs == diffs[0]):
        return (float(diffs[0]), float(diffs[0]))
    from scipy.stats import bootstrap

    res = bootstrap((diffs,), np.mean, n_resamples=n_boot, confidence_level=0.95, method="percentile",
                    rng=np.random.default_rng(seed_parts))
    return (float(res.confidence_interval.low), float(res.confidence_interval.high))


def _item_pass(effect: str, tol: float, abs_tol: float, base: float, pert: float) -> bool:
    d = pert - base
    if effect == INVARIANT:
        return abs(d) <= max(tol / 100.0 * abs(base), abs_tol) + 1e-12
    if effect == NO_INCREASE:
        return d <= max(tol / 100.0 * abs(base), abs_tol) + 1e-12
    if effect == NO_GAIN:
        return d <= RISE_MIN
    if base <= 1e-12:
        return pert <= 1e-12
    return d < 0 and -d >= tol / 100.0 * base - 1e-12


def check_score(p: Perturbation, score: str, base: list, pert: list, n_skipped: int, *, abs_tol: float, min_n: int,
                n_boot: int, seed: int) -> ScoreCheck:
    """The verdict of one perturbation on one score, as :func:`run_suite` reaches it: ``base`` / ``pert`` are the
    item-aligned scores (None where an item failed) of the items the perturbation applied to, ``n_skipped`` the
    items it did not apply to; the expectation is ``p``'s for ``score``; the bootstrap is seeded by ``seed``, the
    perturbation and the score. Used again by ``benchmarks/robustness/gaming.py --reweigh`` to judge a recomputed
    score."""
    return _check(p, score, base, pert, n_skipped, abs_tol=abs_tol, min_n=min_n, n_boot=n_boot, seed=seed)


def _check(p: Perturbation, score: str, base: list, pert: list, n_skipped: int, *, abs_tol: float, min_n: int,
           n_boot: int, seed: int) -> ScoreCheck:
    exp = p.expectation(score)
    pairs = [(b, q) for b, q in zip(base, pert) if b is not None and q is not None]
    n_failed = len(base) - len(pairs)
    n = len(pairs)
    common = dict(perturbation=p.name, score=score, expected=exp.effect, tolerance_pct=exp.tolerance_pct,
                  gated=exp.gated, n=n, n_skipped=n_skipped, n_failed=n_failed)
    if n == 0:
        return ScoreCheck(mean_base=None, mean_perturbed=None, mean_change=None, pct_change=None, ci95=None,
                          pass_rate=None, verdict=NA, reason="no item with both scores", **common)
    b = np.array([x for x, _ in pairs])
    q = np.array([y for _, y in pairs])
    d = q - b
    mb, mq, md = float(b.mean()), float(q.mean()), float(d.mean())
    pct = 100.0 * md / mb if abs(mb) > 1e-12 else None
    ci = _bootstrap_ci(d, n_boot, [seed, zlib.crc32(p.name.encode()), zlib.crc32(score.encode())])
    rate = float(np.mean([_item_pass(exp.effect, exp.tolerance_pct, abs_tol, x, y) for x, y in pairs]))
    pct_s = f"{pct:+.1f}%" if pct is not None else f"{md:+.4f} (base 0)"
    ci_s = f"[{ci[0]:+.4f}, {ci[1]:+.4f}]" if ci else "n/a"
    if n < min_n:
        verdict, reason = NA, f"not enough items to judge: only {n} item(s) scored (< {min_n})"
    elif exp.effect == INVARIANT:
        band = max(exp.tolerance_pct / 100.0 * abs(mb), abs_tol)
        ok = (pct is not None and abs(pct) <= exp.tolerance_pct) or abs(md) <= abs_tol
        rule = f"allowed +/-{exp.tolerance_pct:g}% (or |change| <= {abs_tol:g})"
        if ok:
            verdict, reason = PASS, f"change {pct_s}, {rule}"
        elif ci is not None and (ci[0] > band or ci[1] < -band):
            verdict, reason = FAIL, f"change {pct_s} with CI95 {ci_s} wholly outside the allowed band; {rule}"
        else:
            verdict, reason = NA, (f"not enough items to judge: change {pct_s} but its CI95 {ci_s} over {n} items "
                                   f"reaches the allowed band ({rule})")
    elif exp.effect == NO_GAIN:
        rise = 1.0 - rate
        rule = f"no mean gain and at most {exp.tolerance_pct:g}% of items rising"
        rise_s = f"{100 * rise:.0f}% of {n} items rose"
        if md <= GAIN_NOISE and 100.0 * rise <= exp.tolerance_pct + 1e-9:
            verdict, reason = PASS, f"change {md:+.4f}, {rise_s}; {rule}"
        elif ci is not None and ci[0] > GAIN_NOISE:
            verdict, reason = FAIL, f"gain {md:+.4f} with CI95 {ci_s} wholly above 0, {rise_s}; {rule}"
        elif md > GAIN_NOISE and 100.0 * rise > exp.tolerance_pct:
            verdict, reason = FAIL, f"gain {md:+.4f} (CI95 {ci_s}) and {rise_s}; {rule}"
        else:
            verdict, reason = NA, f"change {md:+.4f}, CI95 {ci_s}, {rise_s}: reaches both sides of {rule}"
    elif exp.effect == NO_INCREASE:
        band = max(exp.tolerance_pct / 100.0 * abs(mb), abs_tol)
        ok = (pct is not None and pct <= exp.tolerance_pct) or md <= abs_tol
        rule = f"allowed rise <= {exp.tolerance_pct:g}% (or change <= {abs_tol:g})"
        if ok:
            verdict, reason = PASS, f"change {pct_s}, {rule}"
        elif ci is not None and ci[0] > band:
            verdict, reason = FAIL, f"change {pct_s} with CI95 {ci_s} wholly above the allowed rise; {rule}"
        else:
            verdict, reason = NA, (f"not enough items to judge: change {pct_s} but its CI95 {ci_s} over {n} items "
                                   f"reaches the allowed rise ({rule})")
    elif mb <= abs_tol:
        verdict, reason = NA, f"base mean {mb:.4f} is at the floor: cannot decrease"
    else:
        need = -exp.tolerance_pct / 100.0 * mb
        rule = f"required <= -{exp.tolerance_pct:g}% with CI95 of the change below 0"
        if pct is not None and pct <= -exp.tolerance_pct and ci is not None and ci[1] < -_NOISE:
            verdict, reason = PASS, f"change {pct_s}, {rule} ({ci_s})"
        elif ci is not None and ci[0] > need:
            verdict, reason = FAIL, (f"change {pct_s} with CI95 {ci_s} wholly above the required drop "
                                     f"{need:+.4f}; {rule}")
        else:
            verdict, reason = NA, (f"not enough items to judge: change {pct_s}, CI95 {ci_s} over {n} items "
                                   f"spans both meeting and missing the expectation ({rule})")
    return ScoreCheck(mean_base=mb, mean_perturbed=mq, mean_change=md, pct_change=pct, ci95=ci, pass_rate=rate,
                      verdict=verdict, reason=reason,
                      rise_rate=float(np.mean(d > RISE_MIN)) if exp.effect == NO_GAIN else None, **common)


def _example(before: Item, after: Item, limit: int = 400) -> dict:
    if before.claim != after.claim:  # a claim perturbation (contrastive_claim): the claim and its verdict
        verdict = lambda it: f" [{it.gold_label.value}]" if it.gold_label is not None else ""
        return {"id": before.id, "before": (before.claim + verdict(before))[:limit],
                "after": (after.claim + verdict(after))[:limit]}
    a, b = before.predicted_evidence.pairs, after.predicted_evidence.pairs
    if len(a) == len(b):
        for pa, pb in zip(a, b):
            if pa != pb:
                return {"id": before.id, "before": pa.render()[:limit], "after": pb.render()[:limit]}
    tb, ta = before.predicted_evidence.render(), after.predicted_evidence.render()
    k = 0  # show where the two differ (pairs added at the end would be cut off by the limit otherwise)
    while k < min(len(tb), len(ta)) and tb[k] == ta[k]:
        k += 1
    start = max(0, k - limit // 4)
    cut = (lambda t: ("…" if start else "") + t[start:start + limit])
    return {"id": before.id, "before": cut(tb), "after": cut(ta)}


def _changed_text(before: Item, after: Item) -> dict:
    """What a perturbation changed, as text: ``{"claim": ..., "predicted_evidence": ...,
    "reference_evidence": ...}`` with only the fields that differ (evidence rendered as
    ``Question: ...\nAnswer: ...`` blocks), so a reader of ``per_item.jsonl`` sees the perturbed input."""
    out = {}
    if after.claim != before.claim:
        out["claim"] = after.claim
    for side in ("predicted_evidence", "reference_evidence"):
        if getattr(after, side) != getattr(before, side):
            out[side] = getattr(after, side).render()
    return out


def run_suite(items: Sequence[Item], scorer: Scorer, perturbations: Optional[Sequence[Perturbation | str]] = None,
              *, seed: int = 0, scores: Optional[Sequence[str]] = None, n_boot: int = 2000, abs_tol: float = 0.01,
              min_n: int = 3, scorer_name: str = "scorer") -> RobustnessReport:
    """Score ``items`` and every perturbed version of them, and check each declared expectation.

    Args:
        items: the items (not modified). Perturbations act on ``predicted_evidence``.
        scorer: ``items -> [ {score: float | None} ]`` (see :data:`Scorer`); called twice: once on
            ``items``, once on all perturbed items together.
        perturbations: :class:`Perturbation` objects or registry names (default: all of
            :data:`adversarial.perturbations.PERTURBATIONS`).
        seed: the seed (non-negative int) of every perturbation and bootstrap.
        scores: score names to check (default: every name the scorer returns on ``items``).
        n_boot: bootstrap resamples (>= 100); abs_tol: absolute floor on mean changes (>= 0);
        min_n: fewest scored items for a verdict (>= 1); scorer_name: label for the report.

    Returns:
        a :class:`RobustnessReport`.

    Raises:
        ValueError: no items, bad arguments, or a scorer output that breaks the protocol.
    """
    items = list(items)
    if not items:
        raise ValueError("items: expected at least one item, got none")
    if not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed: expected a non-negative integer, got {seed!r}")
    if n_boot < 100:
        raise ValueError(f"n_boot: expected >= 100, got {n_boot!r}")
    if abs_tol < 0 or min_n < 1:
        raise ValueError(f"abs_tol >= 0 and min_n >= 1 required, got abs_tol={abs_tol!r}, min_n={min_n!r}")
    perts = [p if isinstance(p, Perturbation) else get_perturbations([p])[0]
             for p in (perturbations or get_perturbations())]

    base = _validate_scores(scorer(items), len(items), "base items")
    names = list(scores) if scores is not None else list(dict.fromkeys(k for row in base for k in row))
    if not names:
        raise ValueError("scorer returned no score names on the base items")
    for s in names:
        if not any(s in row for row in base):
            raise ValueError(f"scores: {s!r} is not returned by the scorer; it returns: "
                             f"{', '.join(dict.fromkeys(k for row in base for k in row))}")
    if all(row.get(s) is None for row in base for s in names):
        raise ValueError(f"scorer returned no score at all on the {len(items)} base items (every value is None): "
                         "it failed on every item, so nothing can be tested (for ev2r, `ev2r score` on the same "
                         "input shows each item's status and error)")

    # Perturb everything first, then score all perturbed items in one call.
    plans: list[tuple[Perturbation, list, Optional[str]]] = []
    batch: list[Item] = []
    for p in perts:
        fn = p.bind(items) if p.bind is not None else p.fn
        results: list = []
        unavailable = None
        for i, it in enumerate(items):
            try:
                r = fn(it, item_rng(seed, p.name, i))
            except ResourceMissingError as e:
                unavailable = str(e)
                results = []
                break
            except Exception as e:
                e.add_note(f"while applying perturbation {p.name!r} to item {i} (id {it.id!r})")
                raise
            if r.applied:
                results.append((i, r, len(batch)))
                batch.append(r.item)
            else:
                results.append((i, r, None))
        plans.append((p, results, unavailable))
    pert_scores = _validate_scores(scorer(batch), len(batch), "perturbed items") if batch else []

    summaries, per_item = [], []
    for p, results, unavailable in plans:
        applied = [(i, r, k) for i, r, k in results if k is not None]
        reasons: dict[str, int] = {}
        for _, r, k in results:
            if k is None:
                reasons[r.skip_reason or "skipped"] = reasons.get(r.skip_reason or "skipped", 0) + 1
        n_skipped = len(items) - len(applied)
        if unavailable:
            reasons = {f"unavailable: {unavailable}": len(items)}
        example = _example(items[applied[0][0]], applied[0][1].item) if applied else None
        summ = PerturbationSummary(p.name, p.kind, p.description, len(items), len(applied), n_skipped,
                                   len(applied) / len(items), reasons, unavailable, example, p.expect.effect)
        for s in names:
            b = [base[i].get(s) for i, _, _ in applied]
            q = [pert_scores[k].get(s) for _, _, k in applied]
            summ.checks[s] = _check(p, s, b, q, n_skipped, abs_tol=abs_tol, min_n=min_n, n_boot=n_boot, seed=seed)
            if unavailable:
                summ.checks[s].reason = f"unavailable: {unavailable}"
        summaries.append(summ)
        for i, r, k in results:
            per_item.append({"perturbation": p.name, "index": i, "id": items[i].id, "row": items[i].row,
                             "applied": k is not None, "skip_reason": r.skip_reason, "n_edits": r.n_edits,
                             "base": {s: base[i].get(s) for s in names},
                             "perturbed": {s: pert_scores[k].get(s) for s in names} if k is not None else None,
                             "changed": _changed_text(items[i], r.item) if k is not None else None})

    base_means, base_failed = {}, {}
    for s in names:
        vals = [row.get(s) for row in base]
        ok = [v for v in vals if v is not None]
        base_means[s] = float(np.mean(ok)) if ok else None
        base_failed[s] = len(vals) - len(ok)
    return RobustnessReport(scorer_name, names, len(items), int(seed),
                            {"n_boot": n_boot, "abs_tol": abs_tol, "min_n": min_n},
                            base_means, base_failed, summaries, per_item)
