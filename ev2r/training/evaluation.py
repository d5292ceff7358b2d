"""Evaluation during and after training: accuracy / macro-F1 of a model on NLI pairs, and the
proxy's verdict reading of AVeriTeC items, through the project's one pair-inference routine
(:func:`claimalign.models.predict_pairs`)."""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from claimalign.models import predict_pairs
from claimalign.nli import map_nli_labels
from ev2r.labels import VERDICT_TO_NLI
from ev2r.training.data import LABEL2ID, Pair

__all__ = ["macro_f1", "ModelVerifier", "evaluate_pairs", "evaluate_averitec_verdicts"]


def macro_f1(gold: Sequence[int], pred: Sequence[int], labels: Iterable[int]) -> float:
    """Macro-averaged F1 over ``labels`` that occur in gold or pred (sklearn's definition)."""
    from sklearn.metrics import f1_score

    return float(f1_score(gold, pred, labels=sorted(set(gold) | set(pred)), average="macro", zero_division=0))


class ModelVerifier:
    """The verifier protocol over an in-memory model (the one being trained): ``predict(premises,
    hypotheses) -> (n, 3)`` float64 [P(entailment), P(neutral), P(contradiction)].

    Runs :func:`claimalign.models.predict_pairs` as the pairs were tokenised for training: premise
    cut first (``only_first``, first window only), no special-token guard, columns from the
    model's ``config.id2label``; in eval mode, under bf16 autocast when ``bf16``.

    Args:
        model, tokenizer: a 3-way sequence-classification model and its tokenizer.
        max_length: token limit of a pair.
        bf16: autocast the forward passes to bfloat16.
        batch_size: pairs per forward pass.

    Raises:
        ValueError: the model's ``config.id2label`` does not name the three NLI classes.
    """

    name = "model-in-training"

    def __init__(self, model, tokenizer, max_length: int, bf16: bool, batch_size: int = 64):
        self.model, self.tokenizer, self.max_length = model, tokenizer, max_length
        self.bf16, self.batch_size = bf16, batch_size
        self.columns = map_nli_labels(model.config.id2label, source="model config.id2label")

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        import torch

        self.model.eval()
        dev = next(self.model.parameters()).device
        with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=self.bf16):
            return predict_pairs(self.model, self.tokenizer, premises, hypotheses, max_length=self.max_length,
                                 batch_size=self.batch_size, columns=self.columns, truncation="only_first", device=dev)


def evaluate_pairs(verifier, pairs: Sequence[Pair]) -> dict:
    """Accuracy / macro-F1 of ``verifier`` (e.g. a :class:`ModelVerifier`) on labelled ``pairs``
    (3-way argmax), plus 2-way accuracy (argmax over entailment vs contradiction) for two-class
    sets such as FEVER-Symmetric. Values rounded to 4 decimals; ``n`` is ``len(pairs)`` (>= 1)."""
    probs = verifier.predict([p.premise for p in pairs], [p.hypothesis for p in pairs])
    gold = [LABEL2ID[p.label] for p in pairs]
    pred = [max(range(3), key=lambda k: pr[k]) for pr in probs]
    pred2 = [0 if pr[0] >= pr[2] else 2 for pr in probs]
    acc = sum(g == p for g, p in zip(gold, pred)) / len(pairs)
    acc2 = sum(g == p for g, p in zip(gold, pred2)) / len(pairs)
    return {"n": len(pairs), "accuracy": round(acc, 4), "macro_f1": round(macro_f1(gold, pred, range(3)), 4),
            "accuracy_2way": round(acc2, 4)}


def evaluate_averitec_verdicts(verifier, items: Sequence) -> dict:
    """Verdict accuracy / macro-F1 of the proxy's reading (:class:`ev2r.metric.proxy.NLIProxyScorer`: each
    Q/A pair a premise, max-aggregated) on items from :func:`ev2r.training.data.load_averitec_items`, and the mean
    P(gold verdict) of that reading (``proxy_gold_mean``: the proxy of the gold evidence as the prediction, before the
    relevance factor)."""
    from ev2r.metric.proxy import NLIProxyScorer

    dists = NLIProxyScorer(verifier).distributions(items)
    gold = [LABEL2ID[VERDICT_TO_NLI[it.gold_label]] for it in items]
    pred = [int(max(range(3), key=lambda k: d[k])) for d in dists]
    acc = sum(a == b for a, b in zip(gold, pred)) / max(1, len(items))
    from ev2r.labels import verdict_probability

    p_gold = [verdict_probability(it.gold_label, *d) for it, d in zip(items, dists)]
    return {"n": len(items), "accuracy": round(acc, 4), "proxy_gold_mean": round(sum(p_gold) / max(1, len(p_gold)), 4),
            "macro_f1": round(macro_f1(gold, pred, range(3)), 4),
            "accuracy_2way": round(sum((g == 0) == (d[0] >= d[2]) for g, d in zip(gold, dists) if g != 1)
                                   / max(1, sum(g != 1 for g in gold)), 4)}
