"""``ev2r explain INPUT --id ID``: why one item scored what it did, in the terminal.

The item is scored as ``ev2r score`` scores it (the same options, the same numbers) and printed with its
reasons: the claim and gold verdict; Ev2R and ``ev2r_hybrid`` with the parts they are made of; each
reference fact with the predicted pair that supports it, or the closest one and what the verifier read
in it (entailment / neutral / contradiction); each predicted fact likewise against the reference; the
predicted pairs the proxy read and the one that decided it; the Hungarian alignment behind
``hybrid_meteor``; and a one-line reading of the result. ``--json`` prints the row ``ev2r score
--explain`` writes for the item instead.

Text from the data is printed with its control characters escaped (:func:`escape_controls`: an ANSI escape
(ESC ``[2J``) prints as the text ``\\x1b[2J``), so a dataset cannot retitle, clear or colour the terminal
or hide text; ``--id`` is read as the file's ids are (Unicode NFC, :func:`claimalign.text.normalize_text`).

Pairs are counted from 0 within each side's evidence (as ``pair_index`` in the rows); the row is counted from 0 (the
score rows' ``row``), with the 1-based line of the input file beside it. The formulas are printed with the run's
``alpha`` and ``ev2r_hybrid`` weights (read from the scorer's signature, or with ``--scores`` from the run record beside
the rows; :func:`ev2r.reporting.reasons.run_weights`).
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from typing import Optional

from ev2r.cli.common import METRIC_FIELDS, VERIFIER_FIELDS, add_config_args, config_from_args
from ev2r.reporting.reasons import ev2r_terms, hybrid_terms, proxy_breakdown, reading, run_weights


def add_arguments(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p.add_argument("input", help="the items (JSONL / AVeriTeC JSON, as for ev2r score)")
    p.add_argument("--id", required=True, dest="item_id", metavar="ID",
                   help="the item's id (as in the input's id field; ids are unique in a file: a repeated id is "
                        "refused when the file is read)")
    p.add_argument("--references", help="AVeriTeC gold JSON to join an AVeriTeC predictions file with")
    p.add_argument("--nltk-data", default=None, metavar="DIR", help="folder with nltk's punkt_tab and WordNet data")
    p.add_argument("--json", action="store_true", help="print the explained row (the fields of ev2r score --explain)")
    p.add_argument("--scores", default=None, metavar="SCORES.jsonl",
                   help="rows written by `ev2r score INPUT --explain -o SCORES.jsonl`: show the item's row from there "
                        "(the run's row as written, its formulas with the run's alpha and weights from the run record "
                        "beside it) instead of scoring it again. Without it the item is scored again: with the run's "
                        "options on the same machine it gets the run's precision, recall, F1, proxy, Ev2R and "
                        "ev2r_hybrid bit for bit (an item scores the same alone or batched; the calibrated graded_* "
                        "columns can differ in the 5th decimal)")
    p.add_argument("--width", type=int, default=100, help="line width of the text (default 100)")
    add_config_args(p, VERIFIER_FIELDS + METRIC_FIELDS)  # as ev2r score's (the one option table)
    return p


def escape_controls(text: str) -> str:
    r"""``text`` with every control character except newline written as an escape: C0 and C1 controls
    (ESC of ANSI sequences, CR, BEL...; tab too), DEL, and the Unicode format characters that reorder or
    hide text (bidirectional overrides and isolates U+202A-U+202E, U+2066-U+2069, U+200E/U+200F, U+061C)
    -- as ``\xNN`` / ``\uNNNN``, so printed data cannot act on the terminal.

    >>> escape_controls("a\x1b[2Jb\u202ec\nd")
    'a\\x1b[2Jb\\u202ec\nd'
    """
    out = []
    for ch in text:
        o = ord(ch)
        if ch == "\n":
            out.append(ch)
        elif o < 0x20 or 0x7F <= o <= 0x9F:
            out.append(f"\\x{o:02x}")
        elif 0x202A <= o <= 0x202E or 0x2066 <= o <= 0x2069 or o in (0x200E, 0x200F, 0x061C):
            out.append(f"\\u{o:04x}")
        else:
            out.append(ch)
    return "".join(out)


def _short(text: str, n: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 3] + "..."


def _dist(r: dict) -> str:
    return f"e {r['entailment']:.2f} / n {r['neutral']:.2f} / c {r['contradiction']:.2f}"


def _fact_lines(facts: list, other: str, width: int, contradicted: frozenset = frozenset()) -> list[str]:
    """The lines of each fact and its deciding premise; a fact of a predicted pair in ``contradicted`` (the pairs
    the reference contradicts) names the reference pair that contradicts its pair, not a closest premise."""
    out = []
    for k, f in enumerate(facts):
        mark = "supported  " if f["supported"] else "unsupported"
        p = f.get("probability")
        head = f"  [{k}] {mark} P(e)={p:.3f}" if p is not None else f"  [{k}] {mark}"
        out.append(textwrap.fill(f"{head}  {_short(f['fact'], 300)}", width, subsequent_indent="        "))
        r = f.get("decided_by")
        if r is None:
            out.append(f"        no {other} premise checked: none shares a content word with it, or there is none")
            continue
        where = f"{other} pair {r['pair_index']}" if r["pair_index"] is not None else f"{other} pairs (window)"
        if f.get("pair_index") in contradicted:
            out.append(textwrap.fill(f"        unsupported: its predicted pair {f['pair_index']} rewrites {where}, "
                                     f"which contradicts it ({_dist(r)}; a contradicted rewrite): "
                                     f"{_short(r['premise'])}", width, subsequent_indent="          "))
            continue
        verb = "supported by" if f["supported"] else "closest:"
        pruned = (f", {r['n_checked']} of {r['n_premises']} premises checked (premise pruning)"
                  if r["n_checked"] < r["n_premises"] else "")
        out.append(textwrap.fill(f"        {verb} {where} ({_dist(r)}{pruned}): {_short(r['premise'])}", width,
                                 subsequent_indent="          "))
    return out


def render(item, row: dict, width: int = 100, weights: Optional[tuple] = None) -> str:
    """The terminal text of one explained item (``row``: its ``ev2r score --explain`` row).

    Args:
        item: the :class:`~ev2r.types.Item` scored.
        row: its ``ev2r score --explain`` row.
        width: the line width (>= 40).
        weights: ``(alpha, hybrid)`` of the run that made ``row`` (:func:`ev2r.reporting.reasons.run_weights` of its
            signature): the formulas are printed with them, a member None (not recorded) in words. None: the
            default options' (``alpha`` 0.5 and the latest ``ev2r_hybrid`` weights).
    """
    if weights is None:
        from ev2r.config import HYBRID_COMPONENTS, HYBRID_WEIGHTS

        from ev2r.config import DEFAULTS

        weights = (DEFAULTS.alpha, [(c, w) for c, w in zip(HYBRID_COMPONENTS, HYBRID_WEIGHTS) if w > 0])
    alpha, hybrid = weights
    gold = item.gold_label.value if item.gold_label is not None else None
    fmt = (lambda v: "n/a" if v is None else f"{v:.3f}")
    at = f"line {item.line} of the input" if item.line is not None else "not from a file"
    lines = [f"item {row['id']} (row {item.row}, counted from 0 as in the score rows; {at}; status {row['status']})",
             textwrap.fill(f"claim: {item.claim}", width, subsequent_indent="       "),
             f"gold verdict: {gold or 'none given (no proxy)'}", ""]
    if row.get("error"):
        lines += [textwrap.fill(f"note: {row['error']}", width, subsequent_indent="      "), ""]
    unknown = "   (alpha not recorded: no run record with its signature)" if alpha is None else ""
    lines.append(f"Ev2R {fmt(row.get('ev2r'))} = {ev2r_terms(alpha, row)}   (F1 of precision "
                 f"{fmt(row.get('precision'))}, recall {fmt(row.get('recall'))}){unknown}")
    if "ev2r_hybrid" in row:
        lines.append(f"ev2r_hybrid {fmt(row.get('ev2r_hybrid'))} = {hybrid_terms(hybrid, row)}")
    adm = row.get("admission") or []
    if adm:
        n_kept = sum(1 for a in adm if a["kept"])
        lines += ["", f"Admission (ev2r.metric.admission): {n_kept} of {len(adm)} predicted pairs are evidence; each "
                      "pair's decision and what made it:"]
        for a in adm:
            learned = (f", P(evidence) {a['p_evidence']:.2f} (read as {a['label']})" if a.get("p_evidence") is not None
                       else "")
            dup = f" of pair {a['duplicate_of']}" if a.get("duplicate_of") is not None else ""
            if a["kept"] and a.get("aligned") is False:  # read by the verifier, aligned once
                what = f"kept (not aligned: it says what pair {a.get('duplicate_of')} says)"
            else:
                what = "kept" if a["kept"] else "dropped, " + a["reason"] + dup
            lines.append(f"    pair {a['pair']}: {what} [{a['decided_by']}{learned}]")
    lines += ["", "Reference facts (recall: each checked against the predicted pairs that are evidence):"]
    lines += _fact_lines(row.get("reference_facts") or [], "predicted", width) or ["  none"]
    lines += ["", "Predicted facts (precision: each checked against the reference pairs):"]
    contra = row.get("contradicted_pairs") or []
    lines += _fact_lines(row.get("predicted_facts") or [], "reference", width,
                         frozenset(c["predicted"] for c in contra)) or ["  none"]
    if contra:
        lines += ["", "Predicted pairs that rewrite a reference pair and are contradicted by it (no premise of recall, "
                      "the proxy or the alignments; their facts unsupported):"]
        for c in contra:
            lines.append(textwrap.fill(f"    predicted pair {c['predicted']} <- reference pair {c['reference']} "
                                       f"({_dist(c)}): {_short(c['premise'])}", width, subsequent_indent="       "))
    prem = row.get("proxy_premises") or []
    lines += ["", f"Proxy {fmt(row.get('proxy'))}: P(gold verdict) from the predicted pairs read against the claim, "
                  "joined as max entailment, min neutral, max contradiction, renormalised (-> the deciding pair):"]
    for j, r in enumerate(prem):
        star = "->" if j == row.get("proxy_decided_by") else "  "
        lines.append(textwrap.fill(f" {star} predicted pair {r['pair_index']} ({_dist(r)}): {_short(r['premise'])}",
                                   width, subsequent_indent="       "))
    if contra:
        lines.append(f"    not read: predicted pair{'s' if len(contra) > 1 else ''} "
                     f"{', '.join(str(c['predicted']) for c in contra)} (contradicted "
                     f"rewrite{'s' if len(contra) > 1 else ''} of the reference)")
    if not prem:
        lines.append("    no predicted pair is evidence for the claim (none, or bare / restating / off-topic answers, "
                     "or contradicted rewrites)")
    b = proxy_breakdown(row, gold, item.claim)
    if b is not None:
        e, n, c = b["joined"]
        rel = (f" x relevance {b['relevance']:.3f} (Not Enough Evidence is earned only by evidence on the claim's "
               "topic)"
               f" = {b['proxy']:.3f}" if b["relevance"] is not None else "")
        lines.append(f"    joined: e {e:.3f} / n {n:.3f} / c {c:.3f} -> P({b['verdict']}) = {b['verdict_p']:.3f}{rel}")
    if "hybrid_meteor" in row:
        lines += ["", f"Hungarian alignment behind hybrid_meteor {fmt(row.get('hybrid_meteor'))} (predicted pair -> "
                      "reference pair, METEOR):"]
        from ev2r.metric.combined import reference_pair_support
        from ev2r.types import FactSupport

        support = reference_pair_support([FactSupport.from_dict(f) for f in row.get("reference_facts") or []])
        if "verified_meteor" in row:
            lines[-1] = lines[-1][:-2] + (f"; verified_meteor {fmt(row.get('verified_meteor'))} weighs every METEOR "
                                          "similarity to a reference pair by the mean P(entailment) of that pair's "
                                          "facts (its support) and aligns again):")
        for a in row.get("hybrid_alignment") or []:
            s_j = support.get(a["reference"], 0.0)
            lines.append(f"    {a['predicted']} -> {a['reference']}  METEOR {a['meteor']:.3f}"
                         + (f"; reference pair {a['reference']}'s support (mean P(e) of its facts) {s_j:.3f}"
                            if "verified_meteor" in row else ""))
        if not row.get("hybrid_alignment"):
            lines.append("    no pair aligned")
    lines += ["", textwrap.fill(f"Reading: {reading(row, gold)}", width, subsequent_indent="         ")]
    return "\n".join(lines)


def run(args, stdout=None) -> int:
    """Score the items whose id is ``--id`` and print them with their reasons. Returns 0, or 2 when no row
    has the id (the message lists a few ids of the file)."""
    from ev2r.io.readers import read_items, score_row
    from ev2r.metric.factory import build_scorer

    out = stdout or sys.stdout
    if args.nltk_data:
        from claimalign.nltk_data import add_nltk_data_path

        add_nltk_data_path(args.nltk_data)
    if args.width < 40:
        raise ValueError(f"--width: at least 40 characters, got {args.width}")
    from claimalign.text import normalize_text

    check_not_scores(args.input)
    items = read_items(args.input, references=args.references)
    wanted = normalize_text(args.item_id)  # the file's ids are read in NFC: the typed one too (NFD from a Mac)
    chosen = [it for it in items if str(it.source_id if it.source_id is not None else it.id) == wanted
              or str(it.id) == wanted]
    if not chosen:
        some = ", ".join(str(it.id) for it in items[:8])
        raise ValueError(f"--id {wanted!r}: no row of {args.input} has this id (ids: {escape_controls(some)}"
                         f"{', ...' if len(items) > 8 else ''})")
    rows, signature = _rows_from_scores(args.scores, chosen) if args.scores else (None, None)
    if rows is None:
        print(f"ev2r explain: loading verifier {args.verifier} ...", file=sys.stderr)
        scorer = build_scorer(config_from_args(args))
        rows = [score_row(it, s, "explain") for it, s in zip(chosen, scorer.score(chosen))]
        signature = str(scorer.signature())
    weights = run_weights(signature)  # the formulas with this run's alpha and weights (--alpha, --score-version)
    for k, (it, row) in enumerate(zip(chosen, rows)):
        if args.json:  # json escapes C0 controls itself; C1 and bidi characters are escaped here
            print(escape_controls(json.dumps(row, ensure_ascii=False)), file=out)
        else:
            print(escape_controls(("\n" + "=" * min(args.width, 100) + "\n" if k else "")
                                  + render(it, row, args.width, weights)), file=out)
    if not args.json:
        print(f"\nsignature: {escape_controls(str(signature))}", file=out)
    return 0


def check_not_scores(path: str) -> None:
    """Refuse, naming the file it needs, an INPUT that is ``ev2r score`` output (rows holding ``item_hash`` and
    ``status`` but no ``claim``) rather than the items scored: explain reads the claim and both evidences from
    the input, and the scores file holds none of them (rather than "field 'claim' must be a
    non-empty string, got None").

    Args:
        path: the INPUT argument.

    Raises:
        ValueError: ``path`` holds score rows; the message says which file to give and where the scores go
            (``--scores``). Unreadable files are left to :func:`ev2r.io.readers.read_items`.
    """
    from ev2r.io.readers import InputError, read_rows

    try:
        rows = read_rows(path)
    except InputError:
        return  # read_items says what is wrong with it
    first = next((r for r in rows if isinstance(r, dict)), None)
    if first is None or "claim" in first or not {"item_hash", "status"} <= set(first):
        return
    explained = "proxy_premises" in first
    raise ValueError(f"{path} holds the rows `ev2r score` wrote (item_hash, status; no claim or evidence), not the "
                     "items: give the input that was scored as INPUT"
                     + (f" and these rows as --scores: `ev2r explain INPUT --id ID --scores {path}`" if explained else
                        " (these rows were written without --explain, so they cannot be shown: `ev2r explain INPUT "
                        "--id ID` scores the item again)"))


def _rows_from_scores(path: str, chosen: list) -> tuple:
    """The ``ev2r score --explain`` rows of ``chosen`` items from ``path`` (matched by content hash) and the
    run's signature (its run record, when beside it).

    Raises:
        ValueError: a chosen item has no row in ``path`` with the same content hash (scored from another
            input, or the input changed since), or its row was written without ``--explain``.
    """
    from ev2r.io.readers import item_hash, read_rows

    by_hash = {r.get("item_hash"): r for r in read_rows(path) if isinstance(r, dict)}
    rows = []
    for it in chosen:
        r = by_hash.get(item_hash(it))
        if r is None:
            raise ValueError(f"--scores: {path} has no row for item {it.id} as it reads now (no row with its "
                             "item_hash): score INPUT again with --explain, or leave --scores out")
        if "proxy_premises" not in r:
            raise ValueError(f"--scores: {path} was written without --explain (its rows hold no reasons); "
                             "score with `ev2r score INPUT --explain -o ...`, or leave --scores out")
        rows.append(r)
    from ev2r.reporting.html import clean_row, read_run_record

    for n, r in enumerate(rows):  # checked as the report checks them (naming the field); shown as written
        clean_row(r, n, f"--scores {path}")
    record = read_run_record(path)
    return rows, (record or {}).get("signature") or "n/a (no run record beside --scores)"
