"""The handed gaming cases (``shared/cases/turn4/gaming/``) that the default scorer resists: with the
bundled verifier, no variant scores above its row's real evidence (``orig``) on Ev2R, ``ev2r_hybrid``
or their components; the word salad of the reference (G4) no higher than the reference itself (``ref_copy``),
one pair ten times (G5) no higher than the pair once (``pair1_only``). The cases it does not resist yet
(G1 negated reference, G6 junk prepended: ``adversarial.perturbations.GAMING_OPEN``) are reported by the
gaming suite, not asserted here."""

from __future__ import annotations

import pytest

from support.paths import SHARED_CASES

pytestmark = pytest.mark.slow

RESISTED = ("G2_echo_appended.jsonl", "G3_claim_as_question.jsonl", "G7_nei_empty.jsonl", "G8_refq_trivial.jsonl",
            "G9_unanswerable_variant_as_denial.jsonl", "G4_word_salad.jsonl", "G5_duplicates.jsonl")
#: variant -> the row it must not score above (default: the row's real evidence, ``orig``)
BASELINE = {"ref_shuffled": "ref_copy", "dup10": "pair1_only"}
SCORES = ("precision", "recall", "f1", "proxy", "ev2r", "ev2r_hybrid")


@pytest.fixture(scope="module")
def scorer():
    from ev2r.metric.factory import make_item_scorer

    return make_item_scorer()


#: Not resisted yet (README, "What the score resists"): with the bundled verifier the negated reference of row 77
#: reads as the gold verdict (proxy 0.06 -> 0.997), and ten pairs of another claim's evidence prepended to row 533
#: hold a pair that entails its claim (proxy 0.04 -> 0.99). Strict xfail: once a fix closes one, this fails and
#: the file moves to RESISTED.
OPEN = ("G1_negated_reference.jsonl", "G6_junk_no_penalty.jsonl")


@pytest.mark.parametrize("name", RESISTED + tuple(pytest.param(n, marks=pytest.mark.xfail(
    strict=True, reason="open gaming class (GAMING_OPEN)")) for n in OPEN))
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
        orig = rows[f"{row_id}:{BASELINE.get(variant, 'orig')}"]
        for s in SCORES:
            if rows[it.id].get(s) is not None and orig.get(s) is not None:
                assert rows[it.id][s] <= orig[s] + 5e-3, f"{it.id}: {s} {rows[it.id][s]:.3f} > real {orig[s]:.3f}"
                compared += 1
    assert compared >= 10  # the file's variants were scored, not skipped (G4, G5: 2 variants x 6 scores each)
