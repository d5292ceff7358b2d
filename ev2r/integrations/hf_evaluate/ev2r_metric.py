"""Ev2R as a Hugging Face ``evaluate`` metric.

Load it offline from the installed package::

    import evaluate, ev2r
    metric = evaluate.load(ev2r.evaluate_module_path())          # HF_EVALUATE_OFFLINE=1 is fine

The computation is :func:`ev2r.integrations.hf_evaluate.core.compute_ev2r`: the same items, scorer and corpus
numbers as ``ev2r score --json``.
"""

import inspect

import datasets
import evaluate

from ev2r.config import DEFAULTS
from ev2r.integrations.hf_evaluate.core import compute_ev2r, normalize_options

_CITATION = """\
@article{akhtar2024ev2r,
  title   = {Ev2R: Evaluating Evidence Retrieval in Automated Fact-Checking},
  author  = {Akhtar, Mubashara and Schlichtkrull, Michael and Vlachos, Andreas},
  journal = {arXiv preprint arXiv:2411.05375},
  year    = {2024}
}
"""

_DESCRIPTION = """\
Ev2R scores the evidence an automated fact-checking system retrieved for a claim.
Reference-based part: the predicted and the reference evidence are split into atomic facts; an
NLI verifier checks each predicted fact against the reference evidence (precision) and each
reference fact against the predicted evidence (recall); F1 combines them. Proxy-reference part:
the probability the verifier gives the claim's gold verdict when the predicted evidence is the
premise. Ev2R = alpha * F1 + (1 - alpha) * proxy (alpha = 0.5; Akhtar, Schlichtkrull and Vlachos
2024, sec. 3). Offline by default: rule-based facts and the bundled MiniLM NLI verifier.
Corpus scores are means over the items that could be scored; an item that failed is counted in
`n_failed` and never scored as 0.

The score to report is `ev2r_hybrid` (this project's fitted combination; Ev2R is the paper's score).
Each reported score has a versioned name that fixes its whole definition (rules, weights, verifier);
cite it with the short signature (`short_signature`); the full `signature` pins every rule:
{versions}
A run with other options is `<name>/custom-<fingerprint>`, not a registered version. Versions,
agreement with people and gaming record: docs/versions.md; changes: CHANGELOG.md.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): the predicted (retrieved) evidence per item, as text: AVeriTeC
        question/answer blocks ("Question: <q>\\nAnswer: <a>", separated by a blank line) or plain
        text (a FEVER / VitaminC sentence).
    references (list of str): the reference (gold) evidence per item, same form; "" for none
        (reference-based scores are then None and the item counts as failed: `no_reference`).
    claims (list of str): the claim per item (non-empty).
    labels (list of str or None): the claim's gold verdict per item, any spelling of AVeriTeC
        (Supported, Refuted, Not Enough Evidence, Conflicting Evidence/Cherrypicking), FEVER
        (SUPPORTS, REFUTES, NOT ENOUGH INFO) or NLI labels; None or "" -> no proxy for that item (status `no_label`).
Options (at load time, `evaluate.load(path, alpha=0.3)`, or per call, `compute(..., alpha=0.3)`;
a per-call value wins):
    verifier (str or object): "bundled" (default), a checkpoint path / hub id, or an object with
        `predict(premises, hypotheses) -> (n, 3)` [entailment, neutral, contradiction]. Alias: model.
    decomposer (str): "rules" (default, = "rules-v2": declarative statements), "rules-v1",
        "replay" (with `replay=FILE`) or "llm" (with `llm_options`).
    alpha (float in [0, 1]): weight of F1 (default {alpha:g}).
    proxy_verifier (str or object): the proxy's own verifier (e.g. "averitec"); default: verifier. Alias: proxy_model.
    baselines (list of str): e.g. ["hu-meteor"] adds the Hungarian METEOR columns.
    batch_size (int), device (str): verifier batching and torch device.
    dtype (str): verifier precision, "auto" (default: bf16 where the hardware runs it natively,
        else fp32), "fp32", "bf16" or "int8" (CPU); recorded in the signature.
    cache (str): a folder for the on-disk cache of the verifier's probabilities (changes no number).
    Every other ev2r.config.ScorerConfig field is accepted too (the research hook: threshold,
    hybrid_columns, admission; docs/api.md); a value other than its default is a custom version.
    return_items (bool): also return the per-item scores under "items".
    ids (list): item ids for "items" (default 0..n-1).
Returns:
    ev2r_hybrid (the score to report), ev2r, precision, recall, f1, proxy: corpus means in [0, 1]
    (None when no item was scored); n, n_failed, failures: item counts; versions: score -> versioned
    name (e.g. {"ev2r_hybrid": "ev2r-hybrid/1", "ev2r": "ev2r/1"}); short_signature: the versioned
    names, verifier and library versions (cite it); signature: every setting behind the numbers.
Raises:
    ValueError: mismatched column lengths, an empty claim, an unknown verdict or option (named).
Examples:
    A stand-in verifier that gives every pair P(entailment) = 0.9 (so the example runs without a
    model): every fact is supported (F1 = 1) and P(supported) = 0.9, so Ev2R = 0.5 * 1 + 0.5 * 0.9.

    >>> import evaluate, ev2r, numpy as np
    >>> class AlwaysEntails:
    ...     name = "always-entails"
    ...     def predict(self, premises, hypotheses):
    ...         return np.tile([0.9, 0.05, 0.05], (len(premises), 1))
    >>> metric = evaluate.load(ev2r.evaluate_module_path(), verifier=AlwaysEntails())
    >>> results = metric.compute(predictions=["France's 1958 constitution names Paris as its capital."],
    ...                          references=["The capital of France is Paris."],
    ...                          claims=["Paris is France's capital."], labels=["SUPPORTS"])
    >>> print(round(results["ev2r"], 3), results["f1"], round(results["proxy"], 3))
    0.95 1.0 0.9

    Batches accumulate with add_batch; alpha = 1 keeps only the reference-based F1:

    >>> for p, r, c, l in [(["France's 1958 constitution names Paris as its capital."], ["Paris is France's capital."],
    ...                     ["Paris is France's capital."], ["supported"]),
    ...                    (["It rained."], [None], ["It rained."], ["supported"])]:
    ...     metric.add_batch(predictions=p, references=r, claims=c, labels=l)
    >>> results = metric.compute(alpha=1.0)
    >>> print(results["n"], results["n_failed"], results["failures"], results["ev2r"])
    2 1 {'no_reference': 1} 1.0

    With the bundled verifier (the default):

    >>> metric = evaluate.load(ev2r.evaluate_module_path())            # doctest: +SKIP
    >>> metric.compute(predictions=preds, references=refs, claims=claims, labels=labels)  # doctest: +SKIP
""".replace("{alpha:g}", f"{DEFAULTS.alpha:g}")


def _versions_text() -> str:
    """The registered score versions, one line each, from :data:`ev2r.versions.VERSIONS` (what docs/versions.md
    shows): name, range, typical values."""
    from ev2r.versions import VERSIONS

    return "\n".join(f"  * {v.label} ({v.column}) in {v.range_text()}: {v.typical}" for v in VERSIONS)


_DESCRIPTION = _DESCRIPTION.replace("{versions}", _versions_text())


def _check_columns(columns: dict, batch: bool) -> None:
    """Clear errors before ``evaluate`` stores anything: ``predictions`` and ``claims`` are required
    (``references`` and ``labels`` may be None); in a batch each is a list, not a single string.

    Raises:
        ValueError: naming the column.
    """
    for name in ("predictions", "claims"):
        if columns.get(name) is None:
            one = {"predictions": "prediction", "claims": "claims"}[name] if not batch else name
            raise ValueError(f"{one}: missing; ev2r needs predictions, references, claims (and labels for the "
                             "proxy) for every item")
    if batch:
        for name in ("predictions", "references", "claims", "labels"):
            if isinstance(columns.get(name), (str, bytes)):
                raise ValueError(f"{name}: expected a list with one entry per item, got a single string "
                                 f"(wrap it: {name}=[...])")


def _none_to_empty(column):
    if column is None or isinstance(column, str):
        return column
    return ["" if v is None else v for v in column]


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Ev2r(evaluate.Metric):
    """Ev2R evidence scores (see the module description)."""

    def __init__(self, config_name=None, **kwargs):
        # evaluate.load(path, **init_kwargs) passes scorer options here: keep them as this
        # module's configuration (a compute() option of the same name overrides it).
        base = inspect.signature(evaluate.EvaluationModule.__init__).parameters
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in base}
        self.ev2r_options = normalize_options(options, "evaluate.load")
        super().__init__(config_name=config_name, **kwargs)

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of items (columns as in compute). None labels / references are stored as ''
        (Arrow string columns; '' means no label / no reference evidence).
        """
        _check_columns(dict(kwargs, predictions=predictions, references=references), batch=True)
        kwargs = {k: _none_to_empty(v) if k == "labels" else v for k, v in kwargs.items()}
        return super().add_batch(predictions=predictions, references=_none_to_empty(references), **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one item (``prediction``, ``reference``, ``claims``=str, ``labels``=str or None).
        """
        _check_columns(dict(kwargs, predictions=prediction, references=reference), batch=False)
        if "labels" in kwargs and kwargs["labels"] is None:
            kwargs["labels"] = ""
        return super().add(prediction=prediction, reference="" if reference is None else reference, **kwargs)

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({
                "predictions": datasets.Value("string"),
                "references": datasets.Value("string"),
                "claims": datasets.Value("string"),
                "labels": datasets.Value("string"),
            }),
            homepage="https://arxiv.org/abs/2411.05375",
            license="MIT",
            codebase_urls=["https://github.com/mubasharaak/Ev2R"],
            reference_urls=["https://arxiv.org/abs/2411.05375"],
        )

    def _compute(self, predictions, references, claims, labels, **kwargs):
        options = dict(self.ev2r_options)
        options.update(normalize_options(kwargs, "compute"))
        return compute_ev2r(predictions, references, claims, labels, **options)
