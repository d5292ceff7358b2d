"""An item's numbers do not depend on its batch -- the same alone, among other items, in any
order, at verifier batch sizes 1 and 64, in the default dtype, with the bundled verifier (slow: loads it).

Before the fix the sample's items moved by up to ~4e-3 between these runs in bf16 (proxy 0.363 in ``ev2r explain``
and 0.359 in ``ev2r score``); the verifier now pads every pair by its own length (a multiple of 8 tokens) and
batches only pairs of one padded length (:func:`claimalign.models.predict_pairs` ``length_bucket=8``).

On a CPU with AMX, oneDNN's AMX bf16 kernels make a pair's numbers depend slightly on its batch and on the thread
count (up to ~5e-3: ``benchmarks/results/batch_invariance_v1272.md``): the claim holds there with those
kernels off (``ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16``, set before torch runs), so the test runs itself again with it."""

from pathlib import Path

import pytest

from support.cpu import amx_in_use, rerun_without_amx

pytest.importorskip("torch")

SAMPLE = Path(__file__).resolve().parents[3] / "examples" / "averitec_sample.jsonl"


def _flat(value, prefix=""):
    """(path, leaf) pairs of a nested row dict."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _flat(v, f"{prefix}.{k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _flat(v, f"{prefix}[{i}]")
    else:
        yield prefix, value


def assert_same_rows(got, want, tol=1e-6):
    """Every number of every row (``to_dict(explain=True)``: scores, facts, premises, admission) within ``tol``,
    everything else equal."""
    assert [s.id for s in got] == [s.id for s in want]
    for g, w in zip(got, want):
        a, b = dict(_flat(g.to_dict(explain=True))), dict(_flat(w.to_dict(explain=True)))
        assert a.keys() == b.keys(), g.id
        for key in a:
            if isinstance(a[key], float) and isinstance(b[key], float):
                assert abs(a[key] - b[key]) <= tol, (g.id, key, a[key], b[key])
            else:
                assert a[key] == b[key], (g.id, key)


@pytest.mark.slow
def test_an_items_numbers_do_not_depend_on_its_batch(nltk_data):
    if amx_in_use():  # the AMX kernels: the claim holds without them
        rerun_without_amx(__file__, "test_an_items_numbers_do_not_depend_on_its_batch")
        return
    from ev2r import build_scorer, read_items

    items = read_items(str(SAMPLE))
    picked = [items[0], items[4], items[11]]
    scorer = build_scorer()  # bundled verifier, dtype "auto" (bf16 on a CPU with native bf16), batch size 32
    assert scorer.reference_scorer.verifier.length_bucket == 8
    alone = [scorer.score([it])[0] for it in picked]
    assert all(s.ok for s in alone)
    assert_same_rows(scorer.score(picked), alone)
    assert_same_rows(scorer.score(picked[::-1])[::-1], alone)
    whole = {s.id: s for s in scorer.score(items)}  # among all 12 sample rows
    assert_same_rows([whole[it.id] for it in picked], alone)
    for batch_size in (1, 64):
        other = build_scorer(batch_size=batch_size)
        assert other.reference_scorer.verifier.batch_size == batch_size
        assert_same_rows(other.score([picked[1], picked[0], picked[2]]), [alone[1], alone[0], alone[2]])
