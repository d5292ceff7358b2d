"""Adversarial ("checklist") robustness tests for evidence scores.

Perturb an item's predicted evidence with seeded, pure perturbations that declare whether a score
should stay put (meaning-preserving) or drop (meaning-damaging), run any scorer over base and
perturbed items, and report mean change, % change, bootstrap 95% CIs and pass rates against the
declared expectations (JSON, Markdown, PNG). Importing this package loads no model and reads no
file; see :mod:`adversarial.perturbations`, :mod:`adversarial.suite`, :mod:`adversarial.report`,
:mod:`ev2r.cli.robustness`.
"""

from adversarial.perturbations import (
    DECREASE, INVARIANT, PERTURBATIONS, Expectation, Perturbation, PerturbationResult, get_perturbations,
)
from adversarial.suite import RobustnessReport, Scorer, run_suite

__all__ = [
    "DECREASE", "INVARIANT", "PERTURBATIONS", "Expectation", "Perturbation", "PerturbationResult",
    "get_perturbations", "RobustnessReport", "Scorer", "run_suite",
]
