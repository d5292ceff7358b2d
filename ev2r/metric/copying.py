"""How a predicted pair that copies a gold pair is read: the copy reading in force for a run, set by
:class:`ev2r.metric.scorer.Ev2RScorer` and read by :func:`ev2r.metric.admission.copy_grade` (re-exported by
:mod:`ev2r.metric.admission`)."""

from __future__ import annotations

import contextlib
import contextvars
from typing import Any, Iterator

from ev2r.metric.scoped import scoped

#: How a predicted pair that copies a gold pair is read: ``near`` (``ev2r/2``-``/4``) = a copy or near-copy
#: (:func:`copy_grade` at least :data:`TWIN_MIN_SIMILARITY`, typos and synonyms respelled like the copy) is read as the
#: gold pair, a near-copy's facts graded at least :func:`ev2r.metric.reference.twin_grade`; ``exact`` = only a copy
#: (the same text but for case and spacing, :func:`pair_key`) is the gold pair, every other pair is read in its own
#: words; ``verified`` = a near-copy (:func:`copy_similarity`, no respelling) is the gold pair only where the verifier
#: reads the two pairs as saying the same thing (:func:`ev2r.metric.restatement.mutual_entailment`), else it is read in
#: its own words: the verifier, not a list of edits, decides what keeps the meaning.
COPY_READINGS = ("near", "exact", "verified")
_COPY: contextvars.ContextVar = contextvars.ContextVar("ev2r_copy_reading", default=("near", None))


@contextlib.contextmanager
def copy_reading(mode: str, verifier=None) -> Iterator[None]:
    """Within the block, copies of gold pairs are read as ``mode`` (:data:`COPY_READINGS`) says, ``verified`` with the
    NLI ``verifier`` (``predict(premises, hypotheses) -> (n, 3)``); the signature's admission value says which
    (``+copy:exact``, ``+copy:verified``; nothing for ``near``).

    Raises:
        ValueError: ``mode`` not in :data:`COPY_READINGS` (named, with the allowed values), or ``verified`` without a
            verifier.
    """
    if mode not in COPY_READINGS:
        raise ValueError(f"copy_reading: {mode!r} not among {list(COPY_READINGS)}")
    if mode == "verified" and verifier is None:
        raise ValueError("copy_reading: 'verified' needs an NLI verifier (none given)")
    with scoped(_COPY, (mode, verifier)):
        yield


def current_copy_reading() -> str:
    """The copy reading in force (:func:`copy_reading`): one of :data:`COPY_READINGS`."""
    return _COPY.get()[0]


def copy_setting() -> tuple[str, Any]:
    """The copy reading in force and its verifier (None unless ``verified``)."""
    return _COPY.get()
