"""ev2r: evaluate the evidence that automated fact-checking systems retrieve (the Ev2R metric).

Ev2R (Akhtar, Schlichtkrull, Vlachos 2024, arXiv 2411.05375) combines a reference-based score
(precision/recall/F1 over atomic facts) and a proxy-reference score (P(gold verdict | claim,
predicted evidence) from an NLI verifier): Ev2R = alpha * F1 + (1 - alpha) * proxy.

Public API (imports are light; models load on first use):

* :func:`ev2r.metric.factory.build_scorer` -> :class:`ev2r.metric.scorer.Ev2RScorer` (``score``, ``corpus``)
* :func:`ev2r.io.readers.read_items`, :class:`ev2r.types.Item`
* :func:`ev2r.verifier.loading.load_verifier`
"""

from ev2r import _warnfmt
from ev2r._version import __version__

# the project's warnings (InputWarning, UncalibratedWarning, ...) print as one line, without a source line
_warnfmt.install()

__all__ = ["__version__", "build_scorer", "read_items", "load_verifier", "evaluate_module_path"]


def build_scorer(*args, **kwargs):
    """See :func:`ev2r.metric.factory.build_scorer`."""
    from ev2r.metric.factory import build_scorer as _build

    return _build(*args, **kwargs)


def read_items(*args, **kwargs):
    """See :func:`ev2r.io.readers.read_items`."""
    from ev2r.io.readers import read_items as _read

    return _read(*args, **kwargs)


def load_verifier(*args, **kwargs):
    """See :func:`ev2r.verifier.loading.load_verifier`."""
    from ev2r.verifier.loading import load_verifier as _load

    return _load(*args, **kwargs)


def evaluate_module_path() -> str:
    """Path of the ``evaluate`` metric module shipped in the package, for
    ``evaluate.load(ev2r.evaluate_module_path())``."""
    from pathlib import Path

    return str(Path(__file__).parent / "integrations" / "hf_evaluate" / "ev2r_metric.py")
