"""The handed gaming cases (``shared/cases/turn4/gaming/``) that the default scorer resists: with the
bundled verifier, no variant scores above its row's real evidence (``orig``) on Ev2R, ``ev2r_hybrid``
or their components; the word salad of the reference (G4) no higher than the reference itself (``ref_copy``),
one pair ten times (G5) no higher than the pair once (``pair1_only``). G1 (the reference negated) is resisted since
a rewrite of a reference pair that it contradicts is no evidence (``ev2r.metric.contradiction``), G6 (ten pairs
"Answer k: see <claim>." prepended) since the claim copied whole inside a few words restates it
(``ev2r.metric.restatement.RESTATE_WRAP_NOVELTY``)."""

from __future__ import annotations

import pytest

from support.paths import SHARED_CASES

pytestmark = pytest.mark.slow

RESISTED = ("G1_negated_reference.jsonl", "G2_echo_appended.jsonl", "G3_claim_as_question.jsonl",
            "G4_word_salad.jsonl", "G5_duplicates.jsonl", "G6_junk_no_penalty.jsonl", "G7_nei_empty.jsonl",
            "G8_refq_trivial.jsonl", "G9_unanswerable_variant_as_denial.jsonl")
#: variant -> the row it must not score above (default: the row's real evidence, ``orig``)
BASELINE = {"ref_shuffled": "ref_copy", "dup10": "pair1_only"}
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
        orig = rows[f"{row_id}:{BASELINE.get(variant, 'orig')}"]
        for s in SCORES:
            if rows[it.id].get(s) is not None and orig.get(s) is not None:
                assert rows[it.id][s] <= orig[s] + 5e-3, f"{it.id}: {s} {rows[it.id][s]:.3f} > real {orig[s]:.3f}"
                compared += 1
    assert compared >= 10  # the file's variants were scored, not skipped (G4, G5: 2 variants x 6 scores each)
