"""The handed gaming cases (``shared/cases/turn4/gaming/``) that the default scorer resists: with the
bundled verifier, no variant scores above its row's real evidence (``orig``) on Ev2R, ``ev2r_hybrid``
or their components. The cases it does not resist yet (G1 negated reference, G4 word salad, G6 junk:
``adversarial.perturbations.GAMING_OPEN``) are reported by the gaming suite, not asserted here."""

from __future__ import annotations

import pytest

from support.paths import SHARED_CASES

pytestmark = pytest.mark.slow

RESISTED = ("G2_echo_appended.jsonl", "G3_claim_as_question.jsonl", "G7_nei_empty.jsonl", "G8_refq_trivial.jsonl",
            "G9_unanswerable_variant_as_denial.jsonl")
SCORES = ("precision", "recall", "f1", "proxy", "ev2r", "ev2r_hybrid")


@pytest.fixture(scope="module")
def scorer():
    from ev2r.metric.factory import make_item_scorer

    return make_item_scorer()


@pytest.mark.parametrize("name", RESISTED)
def test_no_variant_scores_above_the_real_evidence(name, scorer, nltk_data):
    from ev2r.io.readers import read_items

    path = SHARED_CASES / "turn4" / "gaming" / name
    if not path.exists():
        pytest.skip(f"{path} is not beside the repository")
    items = read_items(path)
    rows = dict(zip((it.id for it in items), scorer(items)))
    compared = 0
    for it in items:
        row_id, variant = str(it.id).split(":", 1)
        if variant == "orig" or variant.startswith(("ref_copy", "pair1_only")):
            continue
        orig = rows[f"{row_id}:orig"]
        for s in SCORES:
            if rows[it.id].get(s) is not None and orig.get(s) is not None:
                assert rows[it.id][s] <= orig[s] + 5e-3, f"{it.id}: {s} {rows[it.id][s]:.3f} > real {orig[s]:.3f}"
                compared += 1
    assert compared >= 10  # the file's variants were scored, not skipped
