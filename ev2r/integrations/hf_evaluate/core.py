"""What the ``evaluate`` module computes: columns of texts -> the CLI's corpus numbers.

:func:`compute_ev2r` turns ``predictions`` / ``references`` / ``claims`` / ``labels`` columns into
:class:`~ev2r.types.Item` rows exactly as ``ev2r score`` reads a JSONL file (through
:func:`ev2r.io.readers.item_from_row`, with ``predicted_evidence``, ``reference_evidence`` and
``gold_label`` fields) and scores them with :func:`ev2r.metric.factory.build_scorer`; so the corpus numbers
(``ev2r``, ``precision``, ``recall``, ``f1``, ``proxy``) equal the CLI's for the same rows and
options.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ev2r.config import ScorerConfig

#: Options accepted at load time (``evaluate.load(path, alpha=0.3)``) or in ``compute(...)``: the fields of
#: :class:`ev2r.config.ScorerConfig` (the one option table) but ``ev2r`` and ``chunk_size``; all but ``return_items`` /
#: ``ids`` go to :func:`ev2r.metric.factory.build_scorer`.
SCORER_OPTIONS = tuple(n for n in ScorerConfig.field_names() if n not in ("ev2r", "chunk_size"))
OTHER_OPTIONS = ("return_items", "ids")
OPTION_NAMES = SCORER_OPTIONS + OTHER_OPTIONS
#: ``model`` is accepted as an alias of ``verifier`` (the CLI's ``--model``), ``proxy_model`` of ``proxy_verifier``.
ALIASES = {"model": "verifier", "proxy_model": "proxy_verifier"}


def normalize_options(options: dict, source: str) -> dict:
    """Check option names (aliases resolved). Raises ValueError naming an unknown option."""
    out = {}
    for k, v in options.items():
        key = ALIASES.get(k, k)
        if key not in OPTION_NAMES:
            raise ValueError(f"{k}: unknown ev2r option ({source}); allowed: {', '.join(OPTION_NAMES)}")
        out[key] = v
    return out


def _column(name: str, values: Any, n: Optional[int]) -> list:
    if values is None:
        raise ValueError(f"{name}: missing (a list with one entry per item)")
    if isinstance(values, (str, bytes)):
        raise ValueError(f"{name}: expected a list with one entry per item, got a single string")
    values = list(values)
    if n is not None and len(values) != n:
        raise ValueError(f"{name}: has {len(values)} entries, predictions has {n}")
    return values


def build_items(predictions: Sequence[Any], references: Sequence[Any], claims: Sequence[str],
                labels: Optional[Sequence[Optional[str]]] = None, ids: Optional[Sequence[Any]] = None) -> list:
    """Items from columns, as the CLI would read rows ``{id, claim, predicted_evidence,
    reference_evidence, gold_label}``.

    Args:
        predictions: predicted evidence per item: text (``Question: ...\\nAnswer: ...`` blocks or
            plain text) or a list of ``{question, answer}``.
        references: reference evidence per item, same forms ('' for none).
        claims: claim texts (non-empty).
        labels: gold verdicts (any spelling :func:`ev2r.labels.normalize_verdict` accepts) or None
            per item or '' per item (proxy then not computed); None for the whole column = no labels.
        ids: item ids (default ``0 .. n-1``).

    Raises:
        ValueError: columns of different lengths or a bad entry, naming the column and the row.
    """
    from ev2r.io.readers import items_from_rows

    predictions = _column("predictions", predictions, None)
    n = len(predictions)
    references = _column("references", references, n)
    claims = _column("claims", claims, n)
    labels = [None] * n if labels is None else _column("labels", labels, n)
    ids = list(range(n)) if ids is None else _column("ids", ids, n)
    rows = [{"id": ids[k], "claim": claims[k], "predicted_evidence": predictions[k],
             "reference_evidence": references[k] if references[k] is not None else "",
             "gold_label": labels[k] if labels[k] != "" else None} for k in range(n)]
    # one reader: the same checks and the same warnings (unreadable optional verdicts, repaired Q/A
    # layouts, counted) as `ev2r score`
    return items_from_rows(rows, "<compute>")


def compute_ev2r(predictions, references, claims, labels=None, **options) -> dict:
    """Ev2R corpus scores (the CLI's ``--json`` numbers) for columns of texts.

    Returns:
        ``{"ev2r", "precision", "recall", "f1", "proxy"}`` and ``ev2r_hybrid`` with its columns (means over
        ok items, in [0, 1], or None when no item could be scored), plus ``n``, ``n_failed``, ``failures``, the
        full ``signature``, ``versions`` (score -> versioned name, e.g. ``{"ev2r_hybrid": "ev2r-hybrid/1"}``:
        :mod:`ev2r.versions`), ``short_signature``, any baseline columns, and ``items`` (per-item dicts) when
        ``return_items=True``.

    Raises:
        ValueError: an unknown option or bad input (naming it).
    """
    from ev2r.metric.factory import build_scorer

    options = normalize_options(options, "compute")
    return_items = bool(options.pop("return_items", False))
    ids = options.pop("ids", None)
    if "baselines" in options and options["baselines"] is None:
        options.pop("baselines")
    items = build_items(predictions, references, claims, labels, ids)
    scorer = build_scorer(**options)
    scores = scorer.score(items)
    summary = scorer.corpus(scores).to_dict()
    from ev2r.versions import summary_fields

    summary.update(summary_fields(summary["signature"]))  # versions, short_signature (as ev2r score --json)
    if return_items:
        rows = []
        for s in scores:
            d = s.to_dict()
            d.pop("predicted_facts"), d.pop("reference_facts")
            rows.append(d)
        summary["items"] = rows
    return summary
