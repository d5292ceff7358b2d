"""A compute precision keeps a version's name only within ev2r.versions.PRECISION_BOUND of fp32:
bf16 is held to the bound on the shipped sample; int8, which goes beyond it, is part of the definition
(``ev2r-hybrid/custom-<fingerprint>``)."""

from __future__ import annotations

import pytest

from ev2r import versions as V
from support.paths import REPO
from support.signatures import V1_SIG

SAMPLE = REPO / "examples" / "averitec_sample.jsonl"
#: The sample's columns the bound covers (every score column of a default run).
COLUMNS = ("precision", "recall", "f1", "proxy", "ev2r", "ev2r_hybrid", "graded_f1", "graded_precision",
           "graded_recall", "hybrid_meteor", "verified_meteor")


def test_only_bounded_precisions_leave_the_definition():
    assert V.BOUNDED_PRECISIONS == ("bf16",) and 0 < V.PRECISION_BOUND <= 0.05 and 0 < V.PRECISION_MEAN_BOUND <= 0.01
    fp32 = V1_SIG.replace("+bf16", "")
    assert V.identify(V1_SIG)["ev2r-hybrid"].label == V.identify(fp32)["ev2r-hybrid"].label == "ev2r-hybrid/1"
    int8 = V1_SIG.replace("+bf16", "+int8")
    found = V.identify(int8)
    assert found["ev2r-hybrid"].label.startswith("ev2r-hybrid/custom-")
    assert found["ev2r"].label.startswith("ev2r/custom-")
    assert found["ev2r-hybrid"].label != V.identify(V1_SIG.replace("alpha:0.5", "alpha:0.7"))["ev2r-hybrid"].label
    # the name says where it differs from the latest version, the precision included
    assert found["ev2r-hybrid"].differs["verifier"][1] == "ev2r-minilm-nli@c82b0fc475+int8"
    assert "+int8" in V.definition("ev2r", int8)["verifier"]
    assert V.short_signature(int8).startswith("ev2r-hybrid/custom-")
    # an unmeasured precision (fp16 is no --dtype) is not silently bounded either
    assert V.identify(V1_SIG.replace("+bf16", "+fp16"))["ev2r-hybrid"].version is None


def _columns(scores) -> list[dict]:
    out = []
    for s in scores:
        assert s.ok, s.error
        row = s.to_dict()
        out.append({k: row[k] for k in COLUMNS})
    return out


@pytest.mark.slow
def test_each_shipped_precision_is_held_to_its_bound_on_the_sample(nltk_data):
    """fp32 and bf16 runs of the bundled verifier on the 12 sample rows: the same registered versions, no continuous
    score of any item more than PRECISION_BOUND apart and no thresholded column's mean more than PRECISION_MEAN_BOUND;
    int8 goes beyond the bound and prints a custom name (it is part of the definition)."""
    from ev2r.io.readers import read_items
    from ev2r.metric.factory import build_scorer

    items = read_items(SAMPLE)
    assert len(items) == 12
    runs = {}
    for dtype in ("fp32", "bf16", "int8"):
        scorer = build_scorer(dtype=dtype, device="cpu")
        runs[dtype] = (_columns(scorer.score(items)), V.identify(str(scorer.signature())))
    ref, ref_names = runs["fp32"]
    latest = {name: V.latest(name).label for name in V.SCORE_COLUMNS}
    assert {n: i.label for n, i in ref_names.items()} == latest
    assert {n: i.label for n, i in runs["bf16"][1].items()} == latest

    continuous = [k for k in COLUMNS if k not in V.THRESHOLDED_COLUMNS]

    def largest(dtype):  # per item, the columns continuous in the verifier's probabilities
        return max(abs(a[k] - b[k]) for a, b in zip(ref, runs[dtype][0]) for k in continuous)

    def mean_change(dtype):  # the corpus means of the thresholded columns
        return max(abs(sum(b[k] - a[k] for a, b in zip(ref, runs[dtype][0]))) / len(ref) for k in V.THRESHOLDED_COLUMNS)

    bf16 = largest("bf16")
    assert bf16 <= V.PRECISION_BOUND, f"bf16 moves a score of one sample item by {bf16:.4f} > {V.PRECISION_BOUND}"
    assert mean_change("bf16") <= V.PRECISION_MEAN_BOUND
    # int8 goes beyond the bound here too (measured: proxy 0.49 on one item), which is why it is renamed; if a
    # change brings it within the bound, add it to BOUNDED_PRECISIONS with the measurement on both sets
    assert largest("int8") > V.PRECISION_BOUND
    assert all(i.label.startswith(f"{n}/custom-") for n, i in runs["int8"][1].items())
    assert "+int8" in runs["int8"][1]["ev2r-hybrid"].differs["verifier"][1]
