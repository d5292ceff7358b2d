"""``ev2r rank``: rank systems from per-item scores or judged battles (:mod:`ev2r.ranking.rating`)."""

from __future__ import annotations

import warnings

from ev2r.ranking.rating import (DEFAULT_MARGIN, RankingWarning, battles_from_rows, counted_scores_table, forest_plot,
                                 is_battle_row, rank_battles, rank_systems, ranking_table, read_system_rows)


def add_arguments(parser) -> None:
    """Arguments of ``ev2r rank``."""
    parser.add_argument("inputs", nargs="+", metavar="SCORES.jsonl",
                        help="per-item score rows (id, system, score, status?); SYSTEM=PATH sets the system of every "
                             "row of PATH (e.g. the -o output of `ev2r score`, which has no system field). Only rows "
                             "whose status is ok (or that have no status field) and whose score is not null battle "
                             "and enter mean_score; the others are counted per system and status ('skipped')")
    parser.add_argument("-o", "--output", default=None,
                        help="also write the ranking as JSON (the table is printed either way)")
    parser.add_argument("--system-field", default="system", help="field naming the system (default: system)")
    parser.add_argument("--score-field", default=None,
                        help="field holding the score (default: ev2r_hybrid, the headline score, when every input's "
                             "rows have it, else ev2r; the table says which)")
    parser.add_argument("--id-field", default="id", help="field identifying the item (default: id)")
    parser.add_argument("--margin", type=float, default=DEFAULT_MARGIN,
                        help=f"a win needs a score difference > MARGIN, else a tie (default {DEFAULT_MARGIN:g}: float "
                             "noise between reruns is a tie; 0 compares exactly)")
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap replicates over items (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and of the Elo orders")
    parser.add_argument("--elo-k", type=float, default=4.0, help="Elo K factor (default 4)")
    parser.add_argument("--elo-orders", type=int, default=20, help="random battle orders Elo is averaged over")
    parser.add_argument("--l2", type=float, default=0.0, help="L2 penalty on BT strengths (default 0: pure MLE)")
    parser.add_argument("--table", help="also write a Markdown ranking table")
    parser.add_argument("--plot", help="also write a forest plot (PNG) to this file path (not a FIFO or device)")




def run(args) -> int:
    """``ev2r rank``: read score rows, rank, write JSON (and table / plot). Returns 0."""
    import sys

    table: dict[str, dict[str, float]] = {}
    check_outputs(args)
    loaded = [read_system_rows(spec, args.system_field) for spec in args.inputs]
    judged = [is_battle_row(rows[0]) if rows else False for rows, _ in loaded]
    if any(judged):
        return _run_rank_battles(args, loaded, judged)
    if args.score_field is None:
        from ev2r.config import HEADLINE_SCORE

        every = all(rows and all(isinstance(r, dict) and HEADLINE_SCORE in r for r in rows) for rows, _ in loaded)
        args.score_field = HEADLINE_SCORE if every else "ev2r"
        print(f"ev2r rank: ranking by {args.score_field}" + (" (the headline score)" if every else
              f" (not every input has {HEADLINE_SCORE})") + "; --score-field to choose another", file=sys.stderr)
    for w in signature_warnings([path for _, path in loaded]):
        print(f"ev2r rank: warning: {w}", file=sys.stderr)
    skipped: dict[str, dict[str, int]] = {}
    for rows, path in loaded:
        part, part_skipped = counted_scores_table(rows, args.system_field, args.score_field, args.id_field,
                                                  source=path)
        for s, d in part_skipped.items():  # only rows with status ok (or none) and a score battle
            for status, n in d.items():
                skipped.setdefault(s, {})[status] = skipped.get(s, {}).get(status, 0) + n
        for item, d in part.items():
            for s, v in d.items():
                if s in table.get(item, {}):
                    raise ValueError(f"{path}: item {item!r} has a second score for system {s!r}")
                table.setdefault(item, {})[s] = v
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankingWarning)
        result = rank_systems(table, margin=args.margin, n_bootstrap=args.bootstrap, seed=args.seed,
                              elo_k=args.elo_k, elo_orders=args.elo_orders, l2=args.l2, skipped=skipped)
    for w in result["warnings"]:
        print(f"ev2r rank: warning: {w}", file=sys.stderr)
    result["settings"].update({"score_field": args.score_field, "system_field": args.system_field,
                               "inputs": list(args.inputs)})
    return _write_ranking(args, result, args.score_field)


def signature_warnings(paths: list) -> list[str]:
    """A warning when the inputs were scored under different signatures (their ``ev2r score`` run records,
    ``PATH.ev2r-run.json``, beside them): naming the fields that differ. Systems are compared fairly only
    when scored the same way (a bf16 and an fp32 run of one system differ by noise that can decide
    battles); inputs without a run record are not checked."""
    from ev2r.reporting.html import read_run_record

    sigs = {}
    out = []
    for p in paths:
        try:
            record = read_run_record(p)
        except ValueError as e:
            out.append(f"{e}; its signature is not compared")
            continue
        if record is not None and record.get("signature"):
            sigs[p] = record["signature"]
        if record is not None:  # rows edited after they were written, or of another definition: refused
            from ev2r.io.readers import read_rows
            from ev2r.io.rows import rows_problem

            problem = rows_problem(read_rows(p), record, str(p))
            if problem is not None:
                raise ValueError(problem)
    if len(set(sigs.values())) <= 1:
        return out
    fields = [dict(f.split(":", 1) if ":" in f else (f, "") for f in s.split("|")) for s in sigs.values()]
    keys = sorted({k for f in fields for k in f if len({g.get(k) for g in fields}) > 1})
    return out + [f"the inputs were scored under different signatures (fields that differ: {', '.join(keys)}): the "
                  "ranking compares the settings as well as the systems; score every system with the same options"]


#: Why ``--plot`` must be a file path (:func:`check_outputs`).
PLOT_SPECIAL_REASON = (": the forest plot is a PNG, which matplotlib writes with seeks and whose format it takes from "
                       "the file name's extension, so --plot must be a file path (e.g. ranking.png); omit --plot to "
                       "write no plot")


def check_outputs(args) -> None:
    """Before any work: ``-o``, ``--table`` and ``--plot`` can be written, and none is an input
    (``SCORES.jsonl`` or the PATH of ``SYSTEM=PATH``) or another of them. ``-o`` and ``--table`` may
    name a device or ``/dev/stdout`` (written through), never a FIFO; ``--plot`` may not name
    any of them (a PNG cannot be streamed: :data:`PLOT_SPECIAL_REASON`).

    Raises:
        ValueError: (exit status 2) naming the option and the path(s) (:func:`ev2r.cli.common.check_output`):
            an output that cannot be written (a missing folder, a folder, a socket, a symlink loop, no
            permission), is a FIFO, or is an input or another output; a ``--plot`` path that is a FIFO, a device or a
            file-descriptor path (e.g. ``/dev/stdout``).
    """
    import os

    from ev2r.cli.common import check_output

    inputs = [("input", spec if "=" not in spec or os.path.exists(spec) else spec.split("=", 1)[1])
              for spec in args.inputs]
    inputs += [("the run record of input", path + ".ev2r-run.json") for _, path in list(inputs)]
    for option, path in (("-o/--output", args.output), ("--table", args.table), ("--plot", args.plot)):
        plot = option == "--plot"
        check_output(path, option=option, inputs=inputs, special="refuse" if plot else "write",
                     special_reason=PLOT_SPECIAL_REASON if plot else "")
        if path:
            inputs.append((option, path))


def _write_ranking(args, result: dict, score_label: str) -> int:
    """Write ``ev2r rank``'s outputs (JSON, optional table and plot; each through a temporary file
    renamed into place) and print the table."""
    from claimalign.files import atomic_path, write_text
    from claimalign.jsonio import write_json

    if args.output:
        write_json(result, args.output)
    text = ranking_table(result, score_label)
    if args.table:
        write_text(text, args.table)
    if args.plot:
        with atomic_path(args.plot) as tmp:
            forest_plot(result, tmp)
    print(text, end="")
    return 0


def _run_rank_battles(args, loaded: list, judged: list) -> int:
    """``ev2r rank`` on judged battle rows (:func:`battles_from_rows`), e.g. ``ev2r arena``'s
    ``battles.jsonl``: every input must hold such rows."""
    import sys

    plain = [path for (_, path), j in zip(loaded, judged) if not j]
    if plain:
        raise ValueError(f"inputs: {', '.join(plain)} hold per-item scores while the other inputs hold judged battles "
                         "(system_a, system_b, winner); rank one kind at a time")
    rows = [r for part, _ in loaded for r in part]  # the same id in two files is the same item
    battles, info = battles_from_rows(rows, id_field=args.id_field, source=", ".join(p for _, p in loaded))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankingWarning)
        result = rank_battles(battles, n_bootstrap=args.bootstrap, seed=args.seed, elo_k=args.elo_k,
                              elo_orders=args.elo_orders, l2=args.l2)
    if info["not_used"]:
        result["warnings"].append(f"{sum(info['not_used'].values())} judgement(s) without a verdict left out "
                                  f"(by status: {info['not_used']}): never counted as a win or a tie")
    for w in result["warnings"]:
        print(f"ev2r rank: warning: {w}", file=sys.stderr)
    result["settings"].update({"input_kind": "judged battles", "inputs": list(args.inputs),
                               "judgements": info})
    return _write_ranking(args, result, "win share")
