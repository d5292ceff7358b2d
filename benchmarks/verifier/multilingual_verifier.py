"""The multilingual verifier against the bundled English one (``benchmarks/results/multilingual_verifier.md``).

For each ``--model`` (``bundled``, ``multilingual`` or a checkpoint folder written by ``ev2r
train-verifier``): 3-way accuracy and macro-F1 on CTKFacts dev (Czech), the negation probe and,
unless ``--no-english``, the trainer's English held-out sets (VitaminC real / synthetic split by
``case_id`` as in training, FEVER-Symmetric), all through the trainer's own evaluation
(:class:`ev2r.training.evaluation.ModelVerifier`: premise cut first to the model's training window);
and on CTKFacts also as ``ev2r`` scores pairs (:class:`ev2r.verifier.nli.HFNLIVerifier`: long premises
in windows, ``max``-aggregated).

    python benchmarks/verifier/multilingual_verifier.py --data-dir ../shared/data --model bundled --model /tmp/mlv/run \
        --out /tmp/mlv/measure.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path


def _folder(spec: str) -> tuple[Path, str]:
    from ev2r.verifier import loading

    if spec in ("bundled", loading.BUNDLED_VERIFIER_NAME):
        return loading.BUNDLED_DIR, loading.load_verifier("bundled").name
    if spec in loading.MULTILINGUAL_SPECS:
        return loading.assemble_multilingual()
    return Path(spec), Path(spec).name


def measure(spec: str, data_dir: Path, english: bool, cap: int, threads: int) -> dict:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from ev2r.training import data as tdata
    from ev2r.training.evaluation import ModelVerifier, evaluate_pairs
    from ev2r.verifier.loading import bundled_max_length
    from ev2r.verifier.nli import HFNLIVerifier

    torch.set_num_threads(threads)
    folder, name = _folder(spec)
    window = bundled_max_length(folder=folder)
    bf16 = json.loads((folder / "training_meta.json").read_text()).get("args", {}).get("dtype") == "bf16"
    model = AutoModelForSequenceClassification.from_pretrained(folder, dtype=torch.float32)
    view = ModelVerifier(model, AutoTokenizer.from_pretrained(folder), window, bf16)
    sets = {"ctkfacts_dev": tdata.load_ctkfacts(data_dir / tdata.CTKFACTS_FILES["dev"], "ctkfacts_dev"),
            "negation_probe": tdata.load_probe()}
    czech_probe = tdata.czech_negation_probe(data_dir / tdata.CTKFACTS_FILES["dev"])
    sets["czech_negation_probe"], sets["czech_negation_control"] = czech_probe["negated"], czech_probe["control"]
    if english:
        rng = random.Random(0)
        _, real = tdata.load_vitaminc(data_dir / tdata.DATA_FILES["vitaminc_real"], 15)
        _, syn = tdata.load_vitaminc(data_dir / tdata.DATA_FILES["vitaminc_synthetic"], 15)
        fever = tdata.load_fever_symmetric(data_dir / tdata.DATA_FILES["fever_symmetric"])
        for key, pairs in (("vitaminc_real_heldout", real), ("vitaminc_synthetic_heldout", syn), ("fever_symmetric", fever)):
            sets[key] = rng.sample(pairs, cap) if cap and len(pairs) > cap else pairs
    res: dict = {"model": name, "folder": str(folder), "window": window, "bf16": bf16}
    for key, pairs in sets.items():
        t = time.time()
        res[key] = {**evaluate_pairs(view, pairs), "seconds": round(time.time() - t, 1)}
        print(f"{name} {key}: {res[key]}", file=sys.stderr, flush=True)
    ver = HFNLIVerifier(str(folder), name=name, max_length=window, dtype="bf16" if bf16 else "fp32")
    res["ctkfacts_dev_windows"] = evaluate_pairs(ver, sets["ctkfacts_dev"])
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, required=True, help="the shared data folder")
    ap.add_argument("--model", action="append", required=True,
                    help="bundled, multilingual or a checkpoint folder of ev2r train-verifier (repeatable)")
    ap.add_argument("--no-english", action="store_true", help="CTKFacts dev and the probe only")
    ap.add_argument("--cap", type=int, default=0, help="at most this many pairs per English set (seeded sample; 0 = all)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", type=Path, default=None, help="JSON file for the results (default: stdout)")
    args = ap.parse_args(argv)
    results = [measure(m, args.data_dir, not args.no_english, args.cap, args.threads) for m in args.model]
    text = json.dumps(results, indent=1) + "\n"
    if args.out:
        args.out.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
