"""``ev2r align A.jsonl B.jsonl``: per-row claim-set alignment of two JSONL files.

Each input row: ``{"id": ..., "claims": [str, ...]}`` (field names configurable). Rows are
joined on ``id`` (never on position); A is read as the candidate (C1), B as the reference (C2).
``ev2r`` mounts this through :func:`add_arguments` and :func:`run`; it also runs
standalone as ``python -m ev2r.cli.align A.jsonl B.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Dict, List, Optional, Sequence, TextIO, Tuple

from claimalign.similarity import SIMILARITY_NAMES, LLMJudgeError, get_similarity
from claimalign.files import read_text_file
from claimalign.jsonio import loads_checked, row_where, split_jsonl_lines, write_jsonl
from claimalign.text import check_encodable, clean_text, is_valid_id, normalize_strings
from ev2r.cli.common import check_output, input_paths

__all__ = ["add_arguments", "run", "read_claim_rows", "main"]


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add the ``align`` subcommand's arguments to ``parser`` and return it."""
    parser.add_argument("a", metavar="A.jsonl", help="candidate sets: JSONL rows {id, claims: [...]}")
    parser.add_argument("b", metavar="B.jsonl", help="reference sets: JSONL rows {id, claims: [...]}")
    parser.add_argument("--similarity", choices=SIMILARITY_NAMES + ("nli", "llm"), default="edit",
                        help="pairwise similarity backend (default: edit); nli: mutual entailment (mean of both "
                             "directions) by a verifier, --model bundled (English, default) or multilingual (Czech, "
                             "Slovak) or a checkpoint; llm: the G-Eval 0-4 LLM judge through "
                             "the library's cached, retrying client (--llm-model, --llm-base-url)")
    parser.add_argument("-o", "--output", metavar="OUT.jsonl", default=None,
                        help="write one JSON row per id with scores and pairings")
    parser.add_argument("--id-field", default="id", help="row id field (default: id)")
    parser.add_argument("--claims-field", default="claims", help="list-of-claims field (default: claims)")
    parser.add_argument("--nltk-data", default=None, metavar="DIR",
                        help="nltk data folder (punkt_tab, WordNet) for --similarity meteor; default: $NLTK_DATA")
    parser.add_argument("--model", default=None,
                        help="local encoder directory for embedding/bertscore (default: all-MiniLM-L6-v2); for nli the "
                             "verifier: bundled (default), multilingual, or an NLI checkpoint")
    parser.add_argument("--llm-model", default=None, help="--similarity llm: model name on the server (required)")
    parser.add_argument("--llm-base-url", default=None,
                        help="--similarity llm: OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1 (default: the "
                             "OpenAI API, key in $OPENAI_API_KEY)")
    parser.add_argument("--llm-cache", default=None, help="--similarity llm: answer cache folder (default: "
                                                          "$EV2R_LLM_CACHE, else ~/.cache/ev2r/llm)")
    parser.add_argument("--llm-offline", action="store_true", help="--similarity llm: answers only from the cache")
    return parser


def _llm_judge(args: argparse.Namespace):
    """The G-Eval judge of ``--similarity llm`` over :class:`ev2r.llm.LLMClient` (cache, retries).

    Raises:
        ValueError: no ``--llm-model``, or ``--llm-*`` options without ``--similarity llm``.
    """
    given = [f"--{k.replace('_', '-')}" for k in ("llm_model", "llm_base_url", "llm_cache")
             if getattr(args, k, None) is not None] + (["--llm-offline"] if getattr(args, "llm_offline", False) else [])
    if args.similarity != "llm":
        if given:
            raise ValueError(f"{', '.join(given)}: only used with --similarity llm")
        return None
    if not getattr(args, "llm_model", None):
        raise ValueError("--llm-model: --similarity llm needs the judge's model name (and --llm-base-url for a "
                         "local OpenAI-compatible server)")
    from claimalign.similarity import LLMJudgeSimilarity
    from ev2r.llm import LLMClient

    return LLMJudgeSimilarity(LLMClient(model=args.llm_model, base_url=args.llm_base_url, cache_dir=args.llm_cache,
                                        offline=args.llm_offline))


def read_claim_rows(path: str, id_field: str, claims_field: str,
                    original_ids: Optional[Dict[str, Any]] = None) -> Dict[str, List[str]]:
    """``{id: claims}`` from a JSONL file (ids compared as strings; ``original_ids``, when given, receives
    ``{id as a string: the id as written}`` so that outputs keep an integer id an integer).

    Read as every reader of the packages reads (:mod:`claimalign.jsonio`): records split on line
    breaks only (LF, CR LF, CR), strings in Unicode NFC with LF line ends, so NFD and NFC spellings
    of one claim are the same claim.

    Raises:
        ValueError: an unreadable or non-UTF-8 file, invalid JSON, a row nested deeper than
            :data:`claimalign.jsonio.MAX_JSON_DEPTH` or holding an over-long integer, a missing field, claims that are
            not a list of strings, an empty or whitespace-only claim (the message names the file, the
            row and its line), or two rows with one id (:mod:`claimalign.ids`: ``1`` and ``"1"``, NFC and
            NFD spellings, a repeated id; naming both rows and lines).
    """
    from claimalign.ids import IdRegistry

    rows: Dict[str, List[str]] = {}
    registry = IdRegistry(path, field=id_field)
    n = -1  # the row (0-based, blank lines skipped); every message names it and the line
    for lineno, line in split_jsonl_lines(read_text_file(path)):
        if line.strip():
            n += 1
            at = row_where(path, n, lineno)
            try:
                row = loads_checked(line, at)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{at}: invalid JSON ({exc.msg})") from None
            if not isinstance(row, dict) or id_field not in row or claims_field not in row:
                raise ValueError(f"{at}: expected an object with fields {id_field!r} and {claims_field!r}")
            check_encodable(row, at, "")
            raw_id = row[id_field]  # as written: a collision names NFC / NFD spellings
            row = normalize_strings(row)
            claims = row[claims_field]
            if not isinstance(claims, list) or not all(isinstance(c, str) for c in claims):
                raise ValueError(f"{at}: field {claims_field!r} must be a list of strings")
            blank = [k for k, c in enumerate(claims) if not clean_text(c)]
            if blank:
                raise ValueError(f"{at}: field {claims_field!r} has empty or whitespace-only claims at "
                                 f"positions {blank[:5]} (a blank string is not a claim; drop it)")
            rid = row[id_field]
            if not is_valid_id(rid):
                raise ValueError(f"{at}: field {id_field!r} must be a non-empty string or an integer, "
                                 f"got {rid!r}")
            key = registry.add(raw_id, row_where(None, n, lineno), key=str(rid))  # one rule: claimalign.ids
            rows[key] = claims
            if original_ids is not None:
                original_ids[key] = rid
    return rows


def _join(a: Dict[str, List[str]], b: Dict[str, List[str]]) -> List[Tuple[str, List[str], List[str]]]:
    only_a = [k for k in a if k not in b]
    only_b = [k for k in b if k not in a]
    if only_a or only_b:
        raise ValueError(f"ids differ between the files: only in A {only_a[:5]}{'...' if len(only_a) > 5 else ''},"
                         f" only in B {only_b[:5]}{'...' if len(only_b) > 5 else ''}")
    return [(k, a[k], b[k]) for k in a]


def run(args: argparse.Namespace, stdout: Optional[TextIO] = None) -> int:
    """Run the alignment described by ``args`` (from :func:`add_arguments`).

    Prints one line per id (set score, precision- and recall-style values on the paper's 0-100
    scale, pair count) and the means; with ``-o`` writes one JSON row per id: ``id``,
    ``similarity``, ``score``/``precision``/``recall`` in [0, 1], ``count_difference``
    (|A| - |B|), ``pairs`` (``a_index``, ``b_index``, ``a``, ``b``, ``similarity``),
    ``unmatched_a``, ``unmatched_b``.

    Returns:
        0 on success, 2 on invalid input (the reason is printed to stderr).
    """
    from claimalign.sets import align_sets

    out = stdout or sys.stdout
    try:
        # before any alignment (or paid LLM call) is made; never onto an input
        check_output(args.output, inputs=input_paths(("A", args.a), ("B", args.b)))
        ids: Dict[str, Any] = {}
        a = read_claim_rows(args.a, args.id_field, args.claims_field, ids)
        b = read_claim_rows(args.b, args.id_field, args.claims_field)
        joined = _join(a, b)
        kwargs: Dict[str, Any] = {}
        if args.model is not None:
            if args.similarity not in ("embedding", "bertscore", "nli"):
                raise ValueError(f"--model: only used with --similarity embedding|bertscore|nli, not {args.similarity}")
            kwargs["model"] = args.model
        if args.similarity == "nli":
            from claimalign.similarity import NLISimilarity
            from ev2r.verifier.loading import get_verifier

            sim = NLISimilarity(get_verifier(kwargs.get("model", "bundled")))
        else:
            sim = _llm_judge(args) or get_similarity(args.similarity, **kwargs)
        if args.similarity == "meteor":
            from claimalign.nltk_data import add_nltk_data_path, require_nltk_data

            if getattr(args, "nltk_data", None):
                add_nltk_data_path(args.nltk_data)
            require_nltk_data()
    except (OSError, ValueError, RuntimeError) as exc:
        print(f"ev2r align: error: {exc}", file=sys.stderr)
        return 2
    records = []
    try:
        results = [(key, ca, cb, align_sets(ca, cb, sim)) for key, ca, cb in joined]
    except LLMJudgeError as exc:  # a failed judge request or an unscorable answer: never a default score
        print(f"ev2r align: error: --similarity llm: {exc}", file=sys.stderr)
        return 2
    except (OSError, LookupError, ImportError, RuntimeError) as exc:  # a backend's model or data loads lazily
        print(f"ev2r align: error: --similarity {args.similarity}: could not load what the backend needs: "
              f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else exc!r}",
              file=sys.stderr)
        return 2
    for key, ca, cb, res in results:
        records.append({
            "id": ids.get(key, key), "similarity": sim.name, "score": res.score, "precision": res.precision,
            "recall": res.recall, "n_a": res.n_left, "n_b": res.n_right, "count_difference": res.n_left - res.n_right,
            "pairs": [{"a_index": i, "b_index": j, "a": ca[i], "b": cb[j], "similarity": s}
                      for (i, j), s in zip(res.pairs, res.pair_scores)],
            "unmatched_a": list(res.unmatched_left), "unmatched_b": list(res.unmatched_right),
        })
    print(f"{'id':<20} {'score':>7} {'prec':>7} {'recall':>7} {'|A|':>4} {'|B|':>4}  "
          f"(printed 0-100; -o writes 0-1; similarity={sim.name})",
          file=out)
    for r in records:
        print(f"{str(r['id'])[:20]:<20} {100 * r['score']:7.2f} {100 * r['precision']:7.2f} {100 * r['recall']:7.2f}"
              f" {r['n_a']:4d} {r['n_b']:4d}", file=out)
        for p in r["pairs"]:
            print(f"    {p['a_index']:>3} <-> {p['b_index']:<3} {100 * p['similarity']:6.2f}  "
                  f"{p['a'][:40]!r} | {p['b'][:40]!r}", file=out)
    if records:
        n = len(records)
        print(f"mean over {n} rows: score {100 * sum(r['score'] for r in records) / n:.2f}, "
              f"precision {100 * sum(r['precision'] for r in records) / n:.2f}, "
              f"recall {100 * sum(r['recall'] for r in records) / n:.2f}, "
              f"count difference {sum(r['count_difference'] for r in records) / n:+.2f}", file=out)
    if args.output:
        write_jsonl(records, args.output)
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Standalone entry point: ``python -m ev2r.cli.align A.jsonl B.jsonl [options]``."""
    parser = add_arguments(argparse.ArgumentParser(prog="ev2r align", description=__doc__.splitlines()[0]))
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
