"""A long claim whose deciding words come late was misread with no flag (a 92-word claim ending
"... the footbridge has never opened." got proxy 0.001 against "The footbridge opened in May 2019.", its 5-word form
0.98). The score stands as defined (the registered default is unchanged); the item now carries a flag -- its row's
``error`` says "long claim: ..." (status ok) -- and ``ev2r score`` counts such items.
"""

from __future__ import annotations

import numpy as np
import pytest

from ev2r.labels import Verdict
from ev2r.metric.proxy import LONG_CLAIM, NLIProxyScorer, claim_read_in_part
from ev2r.io import evidence_from_text
from ev2r.types import Item
from support.fakes import KeywordVerifier
from support.paths import REPO

LONG = ("The city council announced in a lengthy press statement last week that after years of planning, several "
        "public consultations, two changes of contractor, a budget that grew from four million to eleven million "
        "pounds, repeated delays caused by flooding along the riverbank, objections from local residents about noise, "
        "and a long dispute with the national rail operator over access to the embankment, the new pedestrian and "
        "cycle crossing linking the old market district with the university campus on the southern bank of the river, "
        "widely known as the footbridge, has never opened.")
SHORT = "The footbridge has never opened."
EVIDENCE = evidence_from_text("Question: When did the footbridge open?\nAnswer: The footbridge opened in May 2019.")
REFERENCE = evidence_from_text("Question: Has the footbridge opened?\nAnswer: Yes, it opened to the public in May 2019.")


def _item(claim, i=0, evidence=EVIDENCE):
    return Item(id=str(i), claim=claim, predicted_evidence=evidence, reference_evidence=REFERENCE,
                gold_label=Verdict.REFUTED)


class _WindowedVerifier(KeywordVerifier):
    """KeywordVerifier with the bundled verifier's tokenizer and window, as HFNLIVerifier exposes them once loaded."""

    def __init__(self, window=128):
        super().__init__()
        from transformers import AutoTokenizer

        self._tokenizer = AutoTokenizer.from_pretrained(str(REPO / "ev2r" / "verifier" / "models" / "minilm-nli"))
        self._window, self._n_special = window, 3


def test_a_claim_over_half_the_window_is_flagged_and_a_short_one_is_not():
    v = _WindowedVerifier()
    n = len(v._tokenizer(LONG, add_special_tokens=False)["input_ids"])
    assert n > 64 and len(v._tokenizer(SHORT, add_special_tokens=False)["input_ids"]) <= 64
    premise = EVIDENCE.pairs[0].render()
    note = claim_read_in_part(v, LONG, [premise])
    assert note.startswith(f"{LONG_CLAIM}: the claim has {n} tokens, more than half the verifier's 128-token window")
    assert "read whole" in note  # 105 + the premise + 3 fit in 128
    long_premise = "Question: When?\nAnswer: " + " ".join(["The footbridge opened in May 2019."] * 4)
    assert "read in windows" in claim_read_in_part(v, LONG, [premise, long_premise])
    assert claim_read_in_part(v, SHORT, [premise]) is None
    assert claim_read_in_part(v, LONG, []) is None  # nothing was read
    assert claim_read_in_part(KeywordVerifier(), LONG, [premise]) is None  # no tokenizer: an LLM judge, a fake
    assert claim_read_in_part(_WindowedVerifier(window=512), LONG, [premise]) is None  # a wider verifier reads it


def test_the_flag_is_on_the_row_the_scores_unchanged():
    from ev2r import build_scorer

    flagged = build_scorer(verifier=_WindowedVerifier(), hybrid=False).score([_item(LONG), _item(SHORT, 1)])
    plain = build_scorer(verifier=KeywordVerifier(), hybrid=False).score([_item(LONG), _item(SHORT, 1)])
    assert [s.status for s in flagged] == ["ok", "ok"]
    assert flagged[0].error.startswith(f"{LONG_CLAIM}: ") and flagged[1].error is None and plain[0].error is None
    for a, b in zip(flagged, plain):  # a flag, not a score change
        assert (a.precision, a.recall, a.proxy, a.ev2r) == (b.precision, b.recall, b.proxy, b.ev2r)
    assert NLIProxyScorer(_WindowedVerifier()).score_proxy([_item(LONG)])[0].note.startswith(LONG_CLAIM)


@pytest.mark.slow
def test_the_issue_example_with_the_bundled_verifier_is_flagged_and_counted(tmp_path, capsys, nltk_data):
    import json

    from ev2r.cli.main import main

    rows = [{"id": i, "claim": c, "predicted_evidence": EVIDENCE.pairs[0].render(),
             "reference_evidence": REFERENCE.pairs[0].render(), "gold_label": "refuted"} for i, c in enumerate([LONG, SHORT])]
    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["score", str(inp), "-o", str(out), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "note: 1 item(s) have a claim longer than half the verifier's token window" in err and (
        "rows (from 0; line = the line of the file): 0 (line 1; id 0)" in err)
    got = [json.loads(line) for line in out.read_text().splitlines()]
    assert got[0]["error"].startswith(f"{LONG_CLAIM}: the claim has 105 tokens") and got[1]["error"] is None
    assert got[0]["proxy"] < 0.05 < 0.9 < got[1]["proxy"]  # the misreading stands (the flag says so)
    assert np.isfinite(got[0]["ev2r"])
