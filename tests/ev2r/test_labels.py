import pytest

from ev2r.labels import (NLILabel, Verdict, normalize_nli_label, normalize_verdict, verdict_probability)


@pytest.mark.parametrize("raw, expected", [
    ("Supported", Verdict.SUPPORTED), ("SUPPORTS", Verdict.SUPPORTED), ("supported", Verdict.SUPPORTED),
    ("Refuted", Verdict.REFUTED), ("REFUTES", Verdict.REFUTED), ("refuted", Verdict.REFUTED),
    ("Not Enough Evidence", Verdict.NOT_ENOUGH_EVIDENCE), ("NOT ENOUGH INFO", Verdict.NOT_ENOUGH_EVIDENCE),
    ("not enough information", Verdict.NOT_ENOUGH_EVIDENCE), ("neutral", Verdict.NOT_ENOUGH_EVIDENCE),
    ("Conflicting Evidence/Cherrypicking", Verdict.CONFLICTING),
    ("conflicting evidence/cherry-picking", Verdict.CONFLICTING),
    ("contradicting information (some evidence parts support the claim whereas others refute it)", Verdict.CONFLICTING),
    ("entailment", Verdict.SUPPORTED), ("contradiction", Verdict.REFUTED),
])
def test_every_dataset_spelling_normalises(raw, expected):
    assert normalize_verdict(raw) is expected


def test_all_spellings_in_shared_data_normalise(shared_data):
    import json
    labels = set()
    for f in ("averitec/dev.json", "averitec/train.json"):
        labels |= {r["label"] for r in json.loads((shared_data / f).read_text())}
    for line in (shared_data / "ev2r_human_eval/averitec_manual_eval_subset.jsonl").read_text().splitlines():
        r = json.loads(line)
        labels |= {r["gold_label"], r["human_label"]}
    for line in (shared_data / "fever/fever2_fixers_adversarial_test.jsonl").read_text().splitlines():
        labels.add(json.loads(line)["label"])
    for lab in labels:
        normalize_verdict(lab)  # raises if unknown
    assert len({normalize_verdict(x) for x in labels}) == 4


@pytest.mark.parametrize("bad", ["maybe", "", None, 3])
def test_unknown_verdict_names_field_and_allowed_values(bad):
    with pytest.raises(ValueError, match=r"gold_label.*allowed: supported, refuted"):
        normalize_verdict(bad, field="gold_label")


def test_nli_labels_and_rejects_meaningless_names():
    assert normalize_nli_label("ENTAILMENT") is NLILabel.ENTAILMENT
    assert normalize_nli_label("Contradiction") is NLILabel.CONTRADICTION
    with pytest.raises(ValueError, match="LABEL_0"):
        normalize_nli_label("LABEL_0")


def test_verdict_to_nli_mapping_hand_values():
    e, n, c = 0.2, 0.3, 0.5
    assert verdict_probability(Verdict.SUPPORTED, e, n, c) == 0.2
    assert verdict_probability(Verdict.REFUTED, e, n, c) == 0.5
    assert verdict_probability(Verdict.NOT_ENOUGH_EVIDENCE, e, n, c) == 0.3
    assert verdict_probability(Verdict.CONFLICTING, e, n, c) == pytest.approx(0.4)  # 2 * min(0.2, 0.5)
    assert verdict_probability(Verdict.CONFLICTING, 0.9, 0.0, 0.1) == pytest.approx(0.2)
    assert verdict_probability(Verdict.CONFLICTING, 0.5, 0.0, 0.5) == 1.0


def test_item_reads_any_verdict_spelling_and_refuses_unknown_ones():
    # a raw string used to reach the proxy unnormalised and fall through to the conflicting mapping
    from ev2r.io import evidence_from_text
    from ev2r.types import Item

    ev = evidence_from_text("Paris is the capital of France.")
    item = Item(id="1", claim="c", predicted_evidence=ev, reference_evidence=ev, gold_label="supported",
                predicted_label="REFUTES")
    assert item.gold_label is Verdict.SUPPORTED and item.predicted_label is Verdict.REFUTED
    with pytest.raises(ValueError, match="Item.gold_label: unknown verdict 'maybe'"):
        Item(id="1", claim="c", predicted_evidence=ev, reference_evidence=ev, gold_label="maybe")


def test_verdict_probability_refuses_a_raw_string():
    from ev2r.labels import verdict_probability

    with pytest.raises(ValueError, match="verdict: expected an ev2r.labels.Verdict"):
        verdict_probability("supported", 0.9, 0.05, 0.05)


def test_item_refuses_a_claim_or_evidence_of_the_wrong_type():
    from ev2r.io import evidence_from_text
    from ev2r.types import Item

    ev = evidence_from_text("Paris is the capital of France.")
    with pytest.raises(ValueError, match="Item.claim: expected a string, got NoneType"):
        Item(id="1", claim=None, predicted_evidence=ev, reference_evidence=ev)
    with pytest.raises(ValueError, match=r"Item.predicted_evidence: expected an ev2r.types.Evidence"):
        Item(id="1", claim="c", predicted_evidence="text", reference_evidence=ev)
