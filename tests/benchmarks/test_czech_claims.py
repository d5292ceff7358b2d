"""benchmarks/robustness/czech_claims.py: the CTKFacts pair builder, the per-document claim sets, the
Czech negation marker, the AUC routine and its bootstrap, and the committed Czech -> Slovak file. No model."""

import json

import numpy as np
import pytest

from support.modules import load_file_module
from support.paths import REPO

BENCH = REPO / "benchmarks" / "robustness" / "czech_claims.py"
SK_FILE = REPO / "benchmarks" / "data" / "czech_slovak_pairs.jsonl"


@pytest.fixture(scope="module")
def bench():
    return load_file_module("czech_claims", BENCH)


def _row(i, claim, label, group, doc="d1"):
    return {"id": i, "claim": claim, "label": label, "source_document": doc, "mutated_from": group}


# source claim 10: S, S, R, N -> pairs SS (preserving), SR x2 (changing), SN/SN/RN excluded
# source claim 20: R, R -> excluded; source claim 30: a single S -> no pair
FIXTURE = [
    _row(11, "Jan chodí do práce.", "SUPPORTS", 10),
    _row(12, "Jan pracuje.", "SUPPORTS", 10),
    _row(13, "Jan nechodí do práce.", "REFUTES", 10),
    _row(14, "Jan má psa.", "NOT ENOUGH INFO", 10),
    _row(21, "Praha leží na Moravě.", "REFUTES", 20, "d2"),
    _row(22, "Praha je vesnice.", "REFUTES", 20, "d2"),
    _row(31, "Brno je město.", "SUPPORTS", 30, "d2"),
]


def test_build_pairs_classes_and_counts(bench):
    pairs, counts = bench.build_pairs(FIXTURE)
    assert [(p["id_a"], p["id_b"], p["class"]) for p in pairs] == [
        (11, 12, "preserving"), (11, 13, "changing"), (12, 13, "changing")]
    assert counts == {"rows": 7, "groups": 3, "groups_with_pairs": 1, "preserving": 1, "changing": 2,
                      "negation": {"preserving": 0, "changing": 1},
                      "excluded": {"NOT ENOUGH INFO/REFUTES": 1, "NOT ENOUGH INFO/SUPPORTS": 2, "REFUTES/REFUTES": 1}}
    # the lower id is always side a; only "chodí" vs "nechodí" is a negation contrast
    assert [p["negation"] for p in pairs] == [False, True, False]
    assert pairs[1]["a"] == "Jan chodí do práce." and pairs[1]["document"] == "d1"


def test_pair_class_table(bench):
    assert bench.pair_class("SUPPORTS", "SUPPORTS") == "preserving"
    assert bench.pair_class("SUPPORTS", "REFUTES") == bench.pair_class("REFUTES", "SUPPORTS") == "changing"
    for a, b in [("REFUTES", "REFUTES"), ("SUPPORTS", "NOT ENOUGH INFO"), ("NOT ENOUGH INFO", "NOT ENOUGH INFO")]:
        assert bench.pair_class(a, b) is None


def test_document_sets(bench):
    docs = bench.document_sets(FIXTURE + [_row(15, "Jan je zaměstnaný.", "SUPPORTS", 10)])
    # only source claim 10 has >= 2 SUPPORTS and a REFUTES; anchor = its lowest-id SUPPORTS claim
    assert docs == [{"document": "d1", "anchors": ["Jan chodí do práce."], "groups": 1,
                     "preserving": ["Jan pracuje.", "Jan je zaměstnaný."], "changing": ["Jan nechodí do práce."]}]


def test_set_scores_hand_computed(bench):
    from claimalign.similarity import EditSimilarity

    docs = bench.document_sets(FIXTURE)
    r = bench.set_scores(EditSimilarity(), docs)
    from rapidfuzz.distance import Levenshtein

    pres = Levenshtein.normalized_similarity("Jan chodí do práce.", "Jan pracuje.")
    chg = Levenshtein.normalized_similarity("Jan chodí do práce.", "Jan nechodí do práce.")
    assert r["preserving"]["score"] == pytest.approx(pres) and r["changing"]["score"] == pytest.approx(chg)
    assert r["gap"] == pytest.approx(pres - chg) and r["share_preserving_higher"] == 0.0  # edit is fooled
    assert r["n_documents"] == 1


def test_read_ctkfacts_names_row_and_field(bench, tmp_path):
    p = tmp_path / "c.jsonl"
    p.write_text(json.dumps(FIXTURE[0]) + "\n" + json.dumps({**FIXTURE[1], "label": "TRUE"}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"row 1: field 'label' is 'TRUE'"):
        bench.read_ctkfacts(p)
    q = tmp_path / "d.jsonl"
    q.write_text(json.dumps({k: v for k, v in FIXTURE[0].items() if k != "mutated_from"}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"d.jsonl: row 0: missing field\(s\) mutated_from"):
        bench.read_ctkfacts(q)


def test_negation_markers(bench):
    assert bench.negation_contrast("Jan chodí do práce.", "Jan nechodí do práce.")
    assert bench.negation_contrast("Taylor byl postaven před soud.", "Taylor nebyl postaven před soud.")
    assert bench.negation_contrast("Pochod proběhl.", "Při pochodu nikdo nezemřel.")
    # superlative nej-, a noun with ne-, and two negated claims are no contrast
    assert not bench.negation_contrast("Nejvyšší soud rozhodl.", "Soud rozhodl.")
    assert not bench.negation_contrast("Nemocnice je nová.", "Nemocnice je stará.")
    assert bench.negation_markers("Nemocnice je nová.", "Nemocnice je stará.") == []
    assert not bench.negation_contrast("Jan není doma.", "Jan nemá čas.")


def test_roc_auc_hand_values(bench):
    assert bench.roc_auc([0.9, 0.8], [0.1, 0.2]) == 1.0
    assert bench.roc_auc([0.1, 0.2], [0.9, 0.8]) == 0.0
    assert bench.roc_auc([0.5, 0.5], [0.5, 0.5, 0.5]) == 0.5  # all ties
    # pos {0.8, 0.4}, neg {0.6, 0.4}: 0.8 beats both (2), 0.4 ties 0.4 (0.5), loses to 0.6 -> 2.5 / 4
    assert bench.roc_auc([0.8, 0.4], [0.6, 0.4]) == pytest.approx(0.625)
    # pos {3}, neg {1, 2, 3, 4}: wins 2, tie 0.5 -> 2.5 / 4
    assert bench.roc_auc([3], [1, 2, 3, 4]) == pytest.approx(0.625)
    with pytest.raises(ValueError, match="both classes"):
        bench.roc_auc([], [0.1])
    with pytest.raises(ValueError, match="finite"):
        bench.roc_auc([np.nan], [0.1])


def test_roc_auc_matches_pairwise_definition(bench):
    rng = np.random.default_rng(3)
    pos, neg = rng.integers(0, 5, 17) / 4, rng.integers(0, 5, 23) / 4  # many ties
    brute = np.mean([(p > n) + 0.5 * (p == n) for p in pos for n in neg])
    assert bench.roc_auc(pos, neg) == pytest.approx(brute)


def test_bootstrap_aucs(bench):
    pos = [0.9, 0.8, 0.7, 0.6, 0.65]
    neg = [0.1, 0.2, 0.3, 0.75, 0.4, 0.5]
    out = bench.bootstrap_aucs({"x": (pos, neg), "y": (neg[:5], pos + [0.0])}, n_boot=300, seed=1, reference="x")
    assert out["x"]["auc"] == pytest.approx(bench.roc_auc(pos, neg))
    assert out["x"]["ci95"][0] <= out["x"]["auc"] <= out["x"]["ci95"][1] and out["x"]["n_pos"] == 5
    assert out["y"]["diff_vs_reference"] == pytest.approx(out["y"]["auc"] - out["x"]["auc"])
    assert out["y"]["diff_ci95"][1] < 0  # y is clearly worse, in every paired resample
    assert "diff_vs_reference" not in out["x"]
    again = bench.bootstrap_aucs({"x": (pos, neg)}, n_boot=300, seed=1)
    assert again["x"]["ci95"] == out["x"]["ci95"]  # seeded
    # a perfect separator stays 1.0 in every resample
    assert bench.bootstrap_aucs({"p": ([1, 2], [0, -1])}, n_boot=50)["p"]["ci95"] == [1.0, 1.0]
    with pytest.raises(ValueError, match="different pairs"):
        bench.bootstrap_aucs({"x": (pos, neg), "y": (pos, neg[:2])})
    with pytest.raises(ValueError, match="reference"):
        bench.bootstrap_aucs({"x": (pos, neg)}, reference="e5")


def test_pair_scores_reads_the_matrix_per_pair(bench):
    from claimalign.similarity import EditSimilarity
    from rapidfuzz.distance import Levenshtein

    pairs, _ = bench.build_pairs(FIXTURE)
    got = bench.pair_scores(EditSimilarity(), pairs)
    assert got.tolist() == pytest.approx([Levenshtein.normalized_similarity(p["a"], p["b"]) for p in pairs])

    class Asym:
        def matrix(self, left, right):
            return np.array([[len(x) / (len(x) + len(y)) for y in right] for x in left])

    sym = bench.pair_scores(Asym(), pairs, symmetric_mean=True)
    assert sym.tolist() == pytest.approx([0.5] * len(pairs))


def test_slovak_file_parses_with_both_classes(bench):
    pairs = bench.read_slovak_pairs(SK_FILE)
    classes = [p["class"] for p in pairs]
    assert classes.count("preserving") == classes.count("changing") >= 12
    rows = [json.loads(line) for line in SK_FILE.read_text(encoding="utf-8").splitlines()]
    assert all("written for this benchmark, not from CTKFacts" in r["source"] for r in rows)
    # each Czech claim has one faithful and one changed rendering; the faithful one is not a copy
    by_claim = {}
    for r in rows:
        by_claim.setdefault(r["ctkfacts_id"], []).append(r)
    assert all(sorted(x["class"] for x in v) == ["changing", "preserving"] for v in by_claim.values())
    assert all(r["sk"] != r["cs"] for r in rows)
    assert {r["edit"] for r in rows} == {"faithful", "negation", "number"}


def test_read_slovak_pairs_errors(bench, tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_text(json.dumps({"id": "a", "cs": "x", "sk": "y", "class": "same", "edit": "faithful"}) + "\n",
                 encoding="utf-8")
    with pytest.raises(ValueError, match=r"row 0: field 'class' is 'same'"):
        bench.read_slovak_pairs(p)


def test_docstring_examples(bench):
    import doctest

    result = doctest.testmod(bench, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 5 and result.failed == 0
