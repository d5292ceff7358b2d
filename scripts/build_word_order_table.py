"""Build the word-order tables of :mod:`ev2r.facts.word_order` from redistributable text in ../shared/data.

    python scripts/build_word_order_table.py --data-dir ../shared/data --out ev2r/facts/data

writes ``word_order_en.npz`` (VitaminC claims and evidence, CC BY-SA 3.0; the premises and hypotheses of the
NLI files the package may redistribute: fever_rte_dev, taxinli_mnli, wice, conjnli, cad_snli, snli_dev_test,
med, breaking_nli) and ``word_order_cs.npz`` (CTKFacts train claims and evidence, CC BY-SA 3.0). Each holds the
``--top`` most frequent lower-cased tokens as ``vocab`` and the bigram counts over them and the classes of
:data:`ev2r.facts.word_order.CLASSES` as sparse ``rows`` / ``cols`` / ``counts``. No AVeriTeC text (CC BY-NC,
and the development sets are drawn from it) goes in.
"""

from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path

import numpy as np

from ev2r.facts.word_order import CLASSES, tokens

NLI_FILES = ("fever_rte_dev", "taxinli_mnli", "wice", "conjnli", "cad_snli", "snli_dev_test", "med", "breaking_nli")


def english_texts(data: Path) -> list[str]:
    out = []
    for name in ("vitaminc_real_test", "vitaminc_synthetic_test"):
        for line in open(data / "vitaminc" / f"{name}.jsonl", encoding="utf-8"):
            row = json.loads(line)
            out += [row["evidence"], row["claim"]]
    for name in NLI_FILES:
        for line in open(data / "nli" / f"{name}.jsonl", encoding="utf-8"):
            row = json.loads(line)
            out += [row["premise"], row["hypothesis"]]
    return list(dict.fromkeys(out))


def czech_texts(data: Path) -> list[str]:
    out = []
    for line in open(data / "ctkfacts" / "ctkfacts_train.jsonl", encoding="utf-8"):
        row = json.loads(line)
        out += [row["claim"]] + [p for p in row["evidence"].split("\n") if p.strip()]
    return list(dict.fromkeys(out))


def table(texts: list[str], top: int) -> dict[str, np.ndarray]:
    freq = collections.Counter(t.lower() for text in texts for t in tokens(text) if not t[0].isdigit())
    vocab = [w for w, _ in freq.most_common(top)]
    index = {w: i for i, w in enumerate(vocab)}
    v = len(vocab)
    pairs: collections.Counter = collections.Counter()
    for text in texts:
        ids = [v + 3]
        for t in tokens(text):
            ids.append(v if t[0].isdigit() else index.get(t.lower(), v + 1 if t[0].isupper() else v + 2))
        ids.append(v + 4)
        pairs.update(zip(ids[:-1], ids[1:]))
    keys = sorted(pairs)
    assert len(CLASSES) == 5
    return {"vocab": np.array(vocab), "rows": np.array([a for a, _ in keys], dtype=np.int32),
            "cols": np.array([b for _, b in keys], dtype=np.int32),
            "counts": np.array([pairs[k] for k in keys], dtype=np.int32)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", default="../shared/data")
    ap.add_argument("--out", default="ev2r/facts/data")
    ap.add_argument("--top", type=int, default=2000, help="vocabulary size per language")
    args = ap.parse_args(argv)
    data, out = Path(args.data_dir), Path(args.out)
    for lang, texts in (("en", english_texts(data)), ("cs", czech_texts(data))):
        t = table(texts, args.top)
        np.savez_compressed(out / f"word_order_{lang}.npz", **t)
        print(f"{lang}: {len(texts)} texts, {len(t['vocab'])} words, {len(t['counts'])} bigrams, "
              f"{int(t['counts'].sum())} tokens")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
