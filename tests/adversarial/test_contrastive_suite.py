"""The contrastive-claim perturbation in a suite run and in the robustness report: a proxy that
reads the claim follows the flipped verdict (invariant, pass); a proxy that ignores the claim and
only echoes the verdict moves and is caught; reference-based scores (claim-blind) do not move."""

from __future__ import annotations

from adversarial.report import render_markdown
from adversarial.suite import run_suite
from ev2r.labels import Verdict
from ev2r.types import Evidence, Item, QAPair

from support.fakes import coverage_scorer


def items(n=8):
    out = []
    names = "alpha beta gamma delta epsilon zeta eta theta".split()  # no numbers: negation is the only rule
    for k in range(n):
        ev = Evidence((QAPair(f"Was the {names[k]} bill signed?", f"Yes, the {names[k]} bill was signed in May."),))
        gold = Verdict.SUPPORTED if k % 2 == 0 else Verdict.REFUTED
        claim = f"The {names[k]} bill was signed by the governor." if gold == Verdict.SUPPORTED else \
            f"The {names[k]} bill was not signed by the governor."
        out.append(Item(id=f"b{k}", claim=claim, predicted_evidence=ev, reference_evidence=ev, gold_label=gold, row=k))
    return out


def reading_proxy(it):
    """The evidence says 'signed': the verdict it supports is 'supported' unless the claim says 'not'."""
    predicted = Verdict.REFUTED if " not " in f" {it.claim} " else Verdict.SUPPORTED
    return 0.9 if predicted == it.gold_label else 0.1


def scorer_with(proxy):
    def score(its):
        return [dict(ref, proxy=proxy(it)) for ref, it in zip(coverage_scorer(its), its)]
    return score


def test_contrastive_claim_rows_in_the_report():
    its = items()
    rep = run_suite(its, scorer_with(reading_proxy), ["contrastive_claim"], seed=0, n_boot=200)
    p = rep.perturbations[0]
    assert p.n_applied == 8 and p.coverage == 1.0
    for s in ("precision", "recall", "f1", "proxy"):
        c = p.checks[s]
        assert c.expected == "invariant" and c.mean_change == 0.0 and c.verdict == "pass", (s, c.reason)
    assert p.checks["proxy"].mean_base == 0.9
    assert p.example == {"id": "b0", "before": "The alpha bill was signed by the governor. [supported]",
                         "after": "The alpha bill was not signed by the governor. [refuted]"}
    flipped = [r for r in rep.per_item if r["applied"]]
    assert len(flipped) == 8
    md = render_markdown(rep, mode="all")
    assert "| contrastive_claim |" in md and "before: The alpha bill was signed by the governor. [supported]" in md

    # a proxy that ignores the claim (P(gold) from the verdict alone) does not follow the flip: caught
    blind = run_suite(its, scorer_with(lambda it: 0.9 if it.gold_label == Verdict.SUPPORTED else 0.1),
                      ["contrastive_claim"], seed=0, n_boot=200)
    c = blind.perturbations[0].checks["proxy"]
    assert c.mean_change == 0.0  # half the items gain 0.8, half lose 0.8: the mean hides it ...
    assert c.pass_rate == 0.0  # ... but not one item meets the expectation
    only_supported = [it for it in its if it.gold_label == Verdict.SUPPORTED]
    c = run_suite(only_supported, scorer_with(lambda it: 0.9 if it.gold_label == Verdict.SUPPORTED else 0.1),
                  ["contrastive_claim"], seed=0, n_boot=200).perturbations[0].checks["proxy"]
    assert c.verdict == "fail" and round(c.pct_change, 6) == round(100 * (0.1 - 0.9) / 0.9, 6)
    assert c.ci95[0] == c.ci95[1] and abs(c.ci95[0] + 0.8) < 1e-9
