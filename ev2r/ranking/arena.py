"""The arena: rank evidence-retrieval systems from pairwise judgements by a panel of LLM judges.

FactArena (arXiv 2601.02669, sec. III-C) ranks fact-checking systems from *pairwise judgements*
of their open-form outputs; this module does that for retrieved evidence:

* **Battles.** For each claim present in every system's file (same claim text everywhere), pairs
  of systems are sampled (``pairs_per_claim`` distinct pairs per claim, all pairs by default;
  seeded per claim: ``numpy.random.default_rng([seed, crc32(claim id)])``, so a claim's pairs do
  not depend on the other claims). In a row, ``system_a`` is the alphabetically first system.
* **Judging.** Each judge sees the claim, the reference evidence *as a factual reference* (not as a
  gold label), the two evidence sets anonymously as ``A`` and ``B``, and the written guideline of
  the ``arena_pairwise`` prompt (coverage of what the claim's verdict needs, correctness against the
  reference, no credit for length or repetition); it answers ``A``, ``B`` or ``tie``
  (:func:`parse_judgement`). Every battle is judged **in both orders** (``ab``: system_a shown as
  A; ``ba``: system_b shown as A). A judge whose two orders name different outcomes gives a
  **tie** (``consistent: false``); when either order failed, the judgement has that order's status
  and no winner: **a failed or unparsable judgement is never a win** (nor a tie).
* **Panel.** Judges come from model families; a judge never judges a battle involving a system of
  its own family (families compared case-insensitively; a judge or system without a family is
  never excluded). A battle no judge may judge is written with status ``no_eligible_judge``.
* **Calls** go through :class:`ev2r.llm.LLMClient`: cached on disk the moment each answer arrives
  (a killed run resumes, sending only what is missing), offline replay of the cache
  (``offline=True``: a miss is ``replay_missing``), bounded concurrency, timeouts, retries.
* **Ratings** come from :func:`ev2r.ranking.rating.battles_from_rows` + :func:`ev2r.ranking.rating.rank_battles`
  (Bradley-Terry MLE with ties as half wins, 95% bootstrap CIs over claims, online Elo averaged over
  orders): the battles file is read by ``ev2r rank battles.jsonl`` directly, with the same result.

Per-judgement statuses: ``ok``; ``parse_error`` (no ``A``/``B``/``tie`` at the start of the
answer); ``api_error``, ``timeout``, ``replay_missing`` (from the client); ``no_eligible_judge``.

Judge reliability (FactArena reports these per judge; :func:`judge_reliability`):

* **self-consistency**: share of the judge's judgements (both orders answered) whose two orders
  agree (the same system wins, or both are ties);
* **position bias**: share of "first shown wins" among its decisive per-order answers (``A`` vs
  ``B``, ties left out), 0.5 = none, with an exact two-sided binomial test against 0.5
  (``scipy.stats.binomtest``);
* **agreement with the panel majority**: share of its judged battles whose outcome equals the
  majority outcome of the *other* judges of that battle (leave-one-out, so a judge does not vote
  for itself; battles where the others are split evenly or absent are left out).

Agreement of the arena with a score-based ranking (:func:`ranking_agreement`): Kendall's tau-b
(``scipy.stats.kendalltau``) between the systems' Bradley-Terry strengths and their mean scores
(e.g. Ev2R) on the claims both cover, with a percentile bootstrap 95% CI over claims (claims
resampled with replacement; both rankings recomputed on each replicate).
"""

from __future__ import annotations

import collections
import itertools
import json
import math
import os
import re
import sys
import warnings
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from ev2r.llm.client import LLMClient, LLMOutcome, LLMRequest
from ev2r.llm.parse import ParseError, response_text
from ev2r.types import Evidence, Item

STATUS_OK = "ok"
STATUS_PARSE_ERROR = "parse_error"
STATUS_NO_JUDGE = "no_eligible_judge"
ORDERS = ("ab", "ba")
#: An answer's verdict (the position shown) -> the row's ``winner`` for each order.
_WINNER = {"ab": {"A": "a", "B": "b", "tie": "tie"}, "ba": {"A": "b", "B": "a", "tie": "tie"}}
DEFAULT_MAX_TOKENS = 8
NO_EVIDENCE = "(no evidence retrieved)"
NO_REFERENCE = "(no reference evidence given)"


# -- specifications ------------------------------------------------------------------------------
#: GBNF grammar that restricts a judge's reply to one of the three answers (llama.cpp servers read a
#: ``grammar`` field in the request body; ``constrain_answers=True`` sends it).
ANSWER_GRAMMAR = 'root ::= "A" | "B" | "tie"'


@dataclass(frozen=True)
class Judge:
    """One judge of the panel.

    Attributes:
        model: the model name the server expects; also the judge's name in results (unique).
        base_url: OpenAI-compatible endpoint (``http://127.0.0.1:8080/v1``); None for the OpenAI API.
        family: model family (``gemma``, ``llama``, ...); None = unknown (never excluded).
    """

    model: str
    base_url: Optional[str] = None
    family: Optional[str] = None

    @property
    def name(self) -> str:
        return self.model


def _family(value: Optional[str]) -> Optional[str]:
    return value.strip().lower() if isinstance(value, str) and value.strip() else None


def parse_judge_spec(spec: str) -> Judge:
    """``BASE_URL=MODEL[:FAMILY]`` -> :class:`Judge`. The text after the **last** ``=`` is the model;
    the text after its **last** ``:`` is the family (so a model whose name holds a colon, such as
    ``llama3:8b``, must be given with its family: ``URL=llama3:8b:llama``). An empty BASE_URL means
    the OpenAI API.

    Raises:
        ValueError: no ``=``, an empty model or family.
    """
    if not isinstance(spec, str) or "=" not in spec:
        raise ValueError(f"--judge: expected BASE_URL=MODEL[:FAMILY], got {spec!r}")
    url, model = spec.rsplit("=", 1)
    family = None
    if ":" in model:
        model, family = model.rsplit(":", 1)
        if not family.strip():
            raise ValueError(f"--judge: {spec!r}: empty family after ':'")
    if not model.strip():
        raise ValueError(f"--judge: {spec!r}: empty model name after '='")
    return Judge(model.strip(), url.strip() or None, _family(family))


def parse_system_spec(spec: str) -> tuple[str, Optional[str], str]:
    """``SYSTEM[:FAMILY]=PATH`` -> ``(system, family or None, path)`` (split at the first ``=``,
    then the name at its first ``:``).

    Raises:
        ValueError: no ``=``, an empty system name, family or path.
    """
    if not isinstance(spec, str) or "=" not in spec:
        raise ValueError(f"systems: expected SYSTEM[:FAMILY]=PATH, got {spec!r}")
    name, path = spec.split("=", 1)
    family = None
    if ":" in name:
        name, family = name.split(":", 1)
        if not family.strip():
            raise ValueError(f"systems: {spec!r}: empty family after ':'")
    if not name.strip() or not path:
        raise ValueError(f"systems: {spec!r}: empty system name or path")
    return name.strip(), _family(family), path


# -- answers -------------------------------------------------------------------------------------
_LEAD = re.compile(r"^[\s*#>\"'`(\[_]*(?:(?:final\s+)?(?:answer|verdict|winner|judg(?:e)?ment)\s*(?:is)?\s*[:\-]?\s*)?"
                   r"[\s*\"'`(\[_]*(?:(?:evidence|set)\s+)?", re.I)


def parse_judgement_text(text: str) -> str:
    """The verdict ``"A"``, ``"B"`` or ``"tie"`` at the start of a judge's answer.

    Read after leading spaces, Markdown marks, quotes and an optional label (``Answer:``,
    ``Verdict:``, ``Winner:``, then ``Evidence``/``Set``): ``tie`` in any case (also ``a tie``), else
    a capital ``A`` or ``B`` standing alone (``A.``, ``B)``, ``**A**``); a lone lower-case ``a``/``b``
    is accepted only as the whole answer (``a`` is otherwise an article). Anything else is not a
    verdict.

    Raises:
        ParseError: no verdict at the start (the message shows the answer's start).
    """
    if not isinstance(text, str):
        raise ParseError(f"expected text, got {type(text).__name__}")
    rest = _LEAD.sub("", text, count=1)
    if re.match(r"(?:a\s+)?tie(?![A-Za-z0-9])", rest, re.I):
        return "tie"
    m = re.match(r"([AB])(?![A-Za-z0-9]|['\u2019][a-z])", rest)
    if m:
        return m.group(1)
    if rest.strip().rstrip(".").strip() in ("a", "b"):
        return rest.strip()[0].upper()
    snippet = text.strip().replace("\n", " ")[:80]
    raise ParseError(f"no verdict (A, B or tie) at the start of the answer: {snippet!r}")


def parse_judgement(response: dict) -> str:
    """:func:`ev2r.llm.parse.response_text` -> :func:`parse_judgement_text`.

    Raises:
        ParseError: an empty answer or no verdict.
    """
    return parse_judgement_text(response_text(response))


# -- the claims every system covers --------------------------------------------------------------
@dataclass(frozen=True)
class ArenaClaim:
    """One claim of the arena: ``id``, ``claim``, the reference evidence and each system's evidence."""

    id: str
    claim: str
    reference: Evidence
    evidence: Mapping[str, Evidence]


def common_claims(systems: Mapping[str, Sequence[Item]], limit: Optional[int] = None) -> list[ArenaClaim]:
    """The claims (by item id) present in every system's items, in the order of the first system
    (by name). The claim text must be the same in every file; the reference evidence is the first
    non-empty one (systems by name) and must not differ between files.

    Raises:
        ValueError: fewer than two systems, an id repeated within a system, a claim text or a
            reference that differs between systems, no claim common to all, ``limit`` < 1.
    """
    if len(systems) < 2:
        raise ValueError(f"systems: need at least two systems, got {sorted(systems)}")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValueError(f"limit: must be an int >= 1, got {limit!r}")
    names = sorted(systems)
    by_id: dict[str, dict[str, Item]] = {}
    for s in names:
        seen: dict[str, Item] = {}
        for it in systems[s]:
            if it.id in seen:
                raise ValueError(f"system {s!r}: id {it.id!r} appears twice (field 'id' must be unique per system)")
            seen[it.id] = it
        by_id[s] = seen
    ids = [i for i in (it.id for it in systems[names[0]]) if all(i in by_id[s] for s in names)]
    if not ids:
        raise ValueError("id: no claim is present in every system's file; the arena needs common item ids")
    out = []
    for i in ids[:limit]:
        its = {s: by_id[s][i] for s in names}
        claims = {it.claim for it in its.values()}
        if len(claims) > 1:
            raise ValueError(f"id {i!r}: field 'claim' differs between systems "
                             f"({', '.join(f'{s}: {its[s].claim[:60]!r}' for s in names)})")
        refs = [(s, it.reference_evidence) for s, it in its.items() if not it.reference_evidence.is_empty]
        for s, ref in refs[1:]:
            if ref.render() != refs[0][1].render():
                raise ValueError(f"id {i!r}: field 'reference_evidence' differs between systems {refs[0][0]!r} and {s!r}")
        out.append(ArenaClaim(i, next(iter(claims)), refs[0][1] if refs else Evidence(()),
                              {s: it.predicted_evidence for s, it in its.items()}))
    return out


def sample_pairs(systems: Sequence[str], claim_id: str, pairs_per_claim: Optional[int], seed: int) -> list[tuple[str, str]]:
    """The pairs battling on one claim: all ``(a, b)`` with ``a < b`` when ``pairs_per_claim`` is None
    or at least their number, else that many distinct pairs drawn without replacement from
    ``default_rng([seed, crc32(claim_id)])``, in canonical order.

    Raises:
        ValueError: ``pairs_per_claim`` < 1 or ``seed`` < 0.
    """
    if pairs_per_claim is not None and (isinstance(pairs_per_claim, bool) or not isinstance(pairs_per_claim, int)
                                        or pairs_per_claim < 1):
        raise ValueError(f"pairs_per_claim: must be an int >= 1 (or None for all pairs), got {pairs_per_claim!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed: must be an integer >= 0, got {seed!r}")
    pairs = list(itertools.combinations(sorted(systems), 2))
    if pairs_per_claim is None or pairs_per_claim >= len(pairs):
        return pairs
    rng = np.random.default_rng([int(seed), zlib.crc32(str(claim_id).encode("utf-8"))])
    pick = sorted(rng.choice(len(pairs), size=pairs_per_claim, replace=False).tolist())
    return [pairs[k] for k in pick]


def eligible(judge: Judge, a: str, b: str, families: Mapping[str, Optional[str]]) -> bool:
    """Whether ``judge`` may judge ``a`` vs ``b``: not when it shares a family with either."""
    fam = _family(judge.family)
    return fam is None or fam not in (_family(families.get(a)), _family(families.get(b)))


# -- running -------------------------------------------------------------------------------------
@dataclass
class ArenaResult:
    """What :func:`run_arena` returns.

    Attributes:
        battles: one row per (claim, pair, judge) -- the ``battles.jsonl`` rows: ``id``,
            ``system_a``, ``system_b``, ``judge``, ``judge_family``, ``winner`` (``a``/``b``/``tie``,
            None unless ``status`` is ok), ``status``, ``error``, ``consistent`` (both orders agree;
            None unless both answered) and ``orders`` (per order: ``order``, ``first`` shown,
            ``answer`` (``A``/``B``/``tie`` or None), ``winner``, ``status``, ``error``, ``text``
            (the answer's first 200 characters), ``from_cache``).
        ranking: :func:`ev2r.ranking.rating.rank_battles` result, or None when no judgement succeeded.
        reliability: :func:`judge_reliability` result.
        agreement: :func:`ranking_agreement` result, or None without reference scores.
        settings: the run's settings (judges, families, prompt id, seed, ...).
        llm: per judge, the client's counters for this run (calls, cache hits, tokens, ...).
        statuses: judgement status -> count.
    """

    battles: list[dict]
    ranking: Optional[dict]
    reliability: dict
    agreement: Optional[dict]
    settings: dict
    llm: dict = field(default_factory=dict)
    statuses: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"ranking": self.ranking, "reliability": self.reliability, "agreement": self.agreement,
                "settings": self.settings, "llm": self.llm, "statuses": self.statuses}


def _render(ev: Evidence, empty: str) -> str:
    return empty if ev.is_empty else ev.render()


def _client_for(judge: Judge, clients: Optional[Mapping[str, LLMClient]], **kw) -> LLMClient:
    if clients and judge.name in clients:
        return clients[judge.name]
    return LLMClient(model=judge.model, base_url=judge.base_url, **kw)


def plan(claims: Sequence[ArenaClaim], judges: Sequence[Judge], families: Mapping[str, Optional[str]],
         pairs_per_claim: Optional[int], seed: int) -> list[tuple[ArenaClaim, str, str, list[Judge]]]:
    """``(claim, system_a, system_b, eligible judges)`` for every sampled battle, in order."""
    out = []
    for c in claims:
        for a, b in sample_pairs(list(c.evidence), c.id, pairs_per_claim, seed):
            out.append((c, a, b, [j for j in judges if eligible(j, a, b, families)]))
    return out


def _check_judges(judges: Sequence[Judge]) -> list[Judge]:
    judges = list(judges)
    if not judges:
        raise ValueError("judges: need at least one judge (--judge BASE_URL=MODEL[:FAMILY])")
    for j in judges:
        if not isinstance(j, Judge):
            raise ValueError(f"judges: expected Judge objects, got {type(j).__name__}")
    dup = [n for n, k in collections.Counter(j.name for j in judges).items() if k > 1]
    if dup:
        raise ValueError(f"judges: model {dup[0]!r} is given twice; each judge is named by its model")
    return judges


def arena_requests(battle_plan, prompt) -> dict[str, list[tuple[int, str, LLMRequest]]]:
    """Per judge name, ``(battle index, order, request)`` for every order of every battle it judges."""
    out: dict[str, list] = {}
    for bi, (c, a, b, js) in enumerate(battle_plan):
        ref = _render(c.reference, NO_REFERENCE)
        shown = {"ab": (a, b), "ba": (b, a)}
        for order in ORDERS:
            first, second = shown[order]
            text = prompt.render(claim=c.claim, reference_evidence=ref,
                                 evidence_a=_render(c.evidence[first], NO_EVIDENCE),
                                 evidence_b=_render(c.evidence[second], NO_EVIDENCE))
            for j in js:
                out.setdefault(j.name, []).append((bi, order, text))
    return out


def _order_record(order: str, first: str, out: LLMOutcome) -> dict:
    rec = {"order": order, "first": first, "answer": None, "winner": None, "status": out.status,
           "error": out.error, "text": None, "from_cache": out.from_cache}
    if not out.ok:
        return rec
    try:
        rec["text"] = response_text(out.response)[:200]
    except ParseError:
        pass
    try:
        ans = parse_judgement(out.response)
    except ParseError as e:
        rec.update(status=STATUS_PARSE_ERROR, error=str(e))
        return rec
    rec.update(answer=ans, winner=_WINNER[order][ans], status=STATUS_OK, error=None)
    return rec


def combine_orders(ab: dict, ba: dict) -> tuple[Optional[str], str, Optional[str], Optional[bool]]:
    """One judge's outcome of a battle from its two order records: ``(winner, status, error,
    consistent)``. Both ok: the common winner, or ``tie`` when they differ (``consistent`` False).
    Otherwise no winner, and the status/error of the first failed order."""
    if ab["status"] == STATUS_OK and ba["status"] == STATUS_OK:
        if ab["winner"] == ba["winner"]:
            return ab["winner"], STATUS_OK, None, True
        return "tie", STATUS_OK, None, False
    bad = ab if ab["status"] != STATUS_OK else ba
    return None, bad["status"], f"order {bad['order']}: {bad['error']}", None


def answer_params(max_tokens: int, constrain_answers: bool = False) -> dict:
    """Decoding parameters of one judge request: ``max_tokens``, plus the answer grammar
    (:data:`ANSWER_GRAMMAR`, as ``extra_body``) when ``constrain_answers``."""
    params: dict = {"max_tokens": max_tokens}
    if constrain_answers:
        params["extra_body"] = {"grammar": ANSWER_GRAMMAR}
    return params


def run_arena(systems: Mapping[str, Sequence[Item]], judges: Sequence[Judge],
              families: Optional[Mapping[str, Optional[str]]] = None, *, pairs_per_claim: Optional[int] = None,
              seed: int = 0, limit: Optional[int] = None, cache_dir: Any = None, offline: bool = False,
              concurrency: int = 4, timeout: float = 120.0, max_retries: int = 3, backoff: float = 1.0,
              max_tokens: int = DEFAULT_MAX_TOKENS, prompt: Any = None, n_bootstrap: int = 1000,
              reference_scores: Optional[Mapping[str, Mapping[str, float]]] = None,
              clients: Optional[Mapping[str, LLMClient]] = None, constrain_answers: bool = False) -> ArenaResult:
    """Run the arena (module docstring): sample battles, judge each in both orders by every eligible
    judge, rank, and measure the judges.

    Args:
        systems: ``{system name: items}`` (e.g. :func:`ev2r.io.readers.read_items` of each system's file); only
            ``id``, ``claim``, ``predicted_evidence`` and ``reference_evidence`` are used.
        judges: the panel (:class:`Judge`, unique model names).
        families: ``{system: family}`` for the systems that declare one.
        pairs_per_claim: distinct pairs per claim (>= 1; None: all pairs).
        seed: seed of the pair sampling, the bootstrap and the Elo orders (>= 0).
        limit: only the first ``limit`` common claims.
        cache_dir, offline, concurrency, timeout, max_retries, backoff: the judges'
            :class:`~ev2r.llm.client.LLMClient` settings (one client per judge, one shared cache).
        max_tokens: generation limit per answer (1..256; the verdict comes first).
        prompt: the ``arena_pairwise`` prompt (default), another shipped name, a
            :class:`~ev2r.llm.prompts.Prompt`, or template text with ``$claim``,
            ``$reference_evidence``, ``$evidence_a``, ``$evidence_b``.
        n_bootstrap: bootstrap replicates of the ratings and of the Kendall tau CI (>= 0).
        reference_scores: ``{item id: {system: score}}`` (:func:`ev2r.ranking.rating.scores_table`) to compare
            the arena's ranking with (:func:`ranking_agreement`).
        clients: ready clients by judge name (custom transports, tests).
        constrain_answers: send :data:`ANSWER_GRAMMAR` with every request (``extra_body``), so that a
            llama.cpp server can only reply ``A``, ``B`` or ``tie`` (for small or base models that
            otherwise do not answer; other servers may ignore or reject the field). Part of the
            request, so of the cache key.

    Returns:
        an :class:`ArenaResult`. Judgements never raise for the run: failures are statuses.

    Raises:
        ValueError: bad settings or inputs (see :func:`common_claims`, :func:`sample_pairs`), a
            family given for an unknown system, a prompt without the four fields.
    """
    from ev2r.llm.scorers import _resolve_prompt
    from ev2r.ranking.rating import battles_from_rows, rank_battles

    judges = _check_judges(judges)
    families = dict(families or {})
    unknown = [s for s in families if s not in systems]
    if unknown:
        raise ValueError(f"families: {unknown[0]!r} is not one of the systems {sorted(systems)}")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or not 1 <= max_tokens <= 256:
        raise ValueError(f"max_tokens: must be an int in 1..256, got {max_tokens!r}")
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, int) or n_bootstrap < 0:
        raise ValueError(f"n_bootstrap: must be an int >= 0, got {n_bootstrap!r}")
    prompt = _resolve_prompt(prompt, "arena_pairwise")
    try:
        prompt.render(claim="", reference_evidence="", evidence_a="", evidence_b="")
    except (KeyError, ValueError) as e:
        raise ValueError(f"prompt: the template must use only $claim, $reference_evidence, $evidence_a, $evidence_b "
                         f"({type(e).__name__}: {e})") from None
    claims = common_claims(systems, limit)
    battle_plan = plan(claims, judges, families, pairs_per_claim, seed)
    client_kw = dict(cache_dir=cache_dir, offline=offline, concurrency=concurrency, timeout=timeout,
                     max_retries=max_retries, backoff=backoff)
    by_judge = {j.name: j for j in judges}
    wanted = arena_requests(battle_plan, prompt)
    params = answer_params(max_tokens, constrain_answers)
    requests = {name: [(bi, order, LLMRequest([{"role": "user", "content": text}], dict(params)))
                       for bi, order, text in todo] for name, todo in wanted.items()}
    llm_stats: dict[str, dict] = {}
    decoding: dict[str, str] = {}

    def judge_all(name: str) -> list[LLMOutcome]:
        client = _client_for(by_judge[name], clients, **client_kw)
        before = dict(client.stats)
        outs = client.complete_many([r for _, _, r in requests[name]])
        llm_stats[name] = {k: client.stats[k] - before.get(k, 0) for k in client.stats}
        decoding[name] = client.signature_fields()["decoding"]
        return outs

    names = list(requests)
    answers: dict[tuple[int, str, str], LLMOutcome] = {}
    if names:
        with ThreadPoolExecutor(max_workers=len(names)) as pool:  # judges are independent servers
            for name, outs in zip(names, pool.map(judge_all, names)):
                for (bi, order, _), out in zip(requests[name], outs):
                    answers[(bi, order, name)] = out
    rows: list[dict] = []
    for bi, (c, a, b, js) in enumerate(battle_plan):
        if not js:
            rows.append({"id": c.id, "system_a": a, "system_b": b, "judge": None, "judge_family": None,
                         "winner": None, "status": STATUS_NO_JUDGE, "consistent": None, "orders": [],
                         "error": f"every judge shares a family with {a!r} or {b!r}"})
            continue
        for j in js:
            recs = [_order_record(o, a if o == "ab" else b, answers[(bi, o, j.name)]) for o in ORDERS]
            winner, status, error, consistent = combine_orders(*recs)
            rows.append({"id": c.id, "system_a": a, "system_b": b, "judge": j.name, "judge_family": j.family,
                         "winner": winner, "status": status, "error": error, "consistent": consistent,
                         "orders": recs})
    statuses = dict(collections.Counter(r["status"] for r in rows))
    ranking, battles, notes = None, None, []
    try:
        battles, info = battles_from_rows(rows, source="arena")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ranking = rank_battles(battles, n_bootstrap=n_bootstrap, seed=seed)
        if info["not_used"]:
            ranking["warnings"].append(f"{sum(info['not_used'].values())} judgement(s) without a verdict left out "
                                       f"(by status: {info['not_used']}): never counted as a win or a tie")
    except ValueError as e:  # nothing usable: the battles are still returned and written
        notes.append(f"no ranking: {e}")
    agreement = None
    if reference_scores is not None and battles is not None:
        agreement = ranking_agreement(battles, reference_scores, n_bootstrap=n_bootstrap, seed=seed)
    settings = {
        "systems": sorted(systems), "families": {s: _family(families.get(s)) for s in sorted(systems)},
        "judges": [{"name": j.name, "model": j.model, "family": j.family, "base_url": j.base_url} for j in judges],
        "prompt": prompt.id, "max_tokens": max_tokens, "pairs_per_claim": pairs_per_claim, "seed": seed,
        "n_claims": len(claims), "n_battles": len(battle_plan), "orders": list(ORDERS),
        "decoding": decoding, "offline": offline, "notes": notes,
        "rule": "both orders per judge; orders disagreeing -> tie; a failed order -> no verdict (never a win)",
    }
    return ArenaResult(rows, ranking, judge_reliability(rows), agreement, settings, llm_stats, statuses)


# -- reliability ---------------------------------------------------------------------------------
def judge_reliability(rows: Sequence[dict]) -> dict:
    """Per judge: ``n_judgements`` (rows), ``n_ok``, ``statuses``, ``self_consistency`` (+ ``n``),
    ``position_bias`` (share of first-shown wins among decisive per-order answers, + ``n``,
    ``p_value`` of the two-sided exact binomial test against 0.5), ``tie_rate`` (share of ok
    judgements that are ties), ``majority_agreement`` (+ ``n``) with the other judges' majority
    (module docstring). Values are None where their ``n`` is 0.

    Args:
        rows: battle rows as :func:`run_arena` writes them (``orders`` needed for position bias).
    """
    from scipy.stats import binomtest

    by_judge: dict[str, list[dict]] = {}
    for r in rows:
        if r.get("judge") is not None:
            by_judge.setdefault(r["judge"], []).append(r)
    battles: dict[tuple, dict[str, str]] = {}
    for r in rows:
        if r.get("judge") is not None and r.get("status") == STATUS_OK:
            battles.setdefault((str(r["id"]), r["system_a"], r["system_b"]), {})[r["judge"]] = r["winner"]
    out = {}
    for name, rs in sorted(by_judge.items()):
        ok = [r for r in rs if r["status"] == STATUS_OK]
        consistent = [bool(r["consistent"]) for r in ok if r.get("consistent") is not None]
        decisive = [o["answer"] == "A" for r in rs for o in r.get("orders") or []
                    if o.get("status") == STATUS_OK and o.get("answer") in ("A", "B")]
        agree = []
        for r in ok:
            others = [w for j, w in battles[(str(r["id"]), r["system_a"], r["system_b"])].items() if j != name]
            if not others:
                continue
            top = collections.Counter(others).most_common()
            if len(top) > 1 and top[0][1] == top[1][1]:
                continue  # the other judges are split evenly: no majority
            agree.append(r["winner"] == top[0][0])
        k_first = sum(decisive)
        out[name] = {
            "family": rs[0].get("judge_family"),
            "n_judgements": len(rs), "n_ok": len(ok),
            "statuses": dict(collections.Counter(r["status"] for r in rs)),
            "self_consistency": _share(consistent), "n_self_consistency": len(consistent),
            "position_bias": _share(decisive), "n_position": len(decisive),
            "position_p_value": float(binomtest(k_first, len(decisive), 0.5).pvalue) if decisive else None,
            "tie_rate": _share([r["winner"] == "tie" for r in ok]),
            "majority_agreement": _share(agree), "n_majority": len(agree),
        }
    return out


def _share(flags: Sequence[bool]) -> Optional[float]:
    return round(sum(flags) / len(flags), 6) if flags else None


def ranking_agreement(battles, scores: Mapping[str, Mapping[str, float]], n_bootstrap: int = 1000,
                      seed: int = 0) -> dict:
    """Kendall's tau-b between the arena's Bradley-Terry strengths and the systems' mean scores on the
    claims both cover, with a percentile bootstrap 95% CI over those claims (module docstring).

    Args:
        battles: :class:`ev2r.ranking.rating.Battles` of the arena (e.g. :func:`ev2r.ranking.rating.battles_from_rows`).
        scores: ``{item id: {system: score}}`` (:func:`ev2r.ranking.rating.scores_table`); a claim counts when
            every compared system has a score for it.
        n_bootstrap: replicates (>= 0); seed: their seed.

    Returns:
        ``{"tau", "p_value", "ci95" ([lo, hi] or None), "n_claims", "systems", "arena_rating",
        "mean_score", "n_bootstrap", "n_undefined"}`` (replicates where a ranking is constant and
        tau undefined are left out and counted). ``tau`` is None when undefined.

    Raises:
        ValueError: fewer than two systems or no claim in common.
    """
    from scipy.stats import kendalltau

    from ev2r.ranking.rating import fit_bradley_terry, to_rating

    systems = [s for s in battles.systems if any(s in d for d in scores.values())]
    if len(systems) < 2:
        raise ValueError(f"scores: need scores for at least two arena systems, found {systems}")
    idx = [battles.systems.index(s) for s in systems]
    claims = [t for t, item in enumerate(battles.items)
              if all(s in scores.get(item, {}) for s in systems)]
    if not claims:
        raise ValueError("scores: no judged claim has a score for every system (ids must match the arena's)")
    per_item = battles.per_item[np.ix_(claims, idx, idx)]
    vals = np.array([[scores[battles.items[t]][s] for s in systems] for t in claims])

    def tau_of(w: np.ndarray) -> tuple[Optional[float], Optional[float], np.ndarray, np.ndarray]:
        counts = np.tensordot(w, per_item, axes=1)
        theta, _ = fit_bradley_terry(counts, warn=False)
        means = w @ vals / w.sum()
        if np.ptp(theta) < 1e-9 or np.ptp(means) < 1e-12:
            return None, None, theta, means
        res = kendalltau(theta, means)
        return float(res.statistic), float(res.pvalue), theta, means

    n = len(claims)
    tau, p, theta, means = tau_of(np.ones(n))
    boots, undefined = [], 0
    rng = np.random.default_rng(seed)
    for _ in range(n_bootstrap):
        w = np.bincount(rng.integers(0, n, n), minlength=n).astype(float)
        t, _, _, _ = tau_of(w)
        if t is None or math.isnan(t):
            undefined += 1
        else:
            boots.append(t)
    ci = [round(float(x), 4) for x in np.percentile(boots, [2.5, 97.5])] if boots else None
    return {"tau": None if tau is None else round(tau, 4), "p_value": None if p is None else round(p, 6),
            "ci95": ci, "n_claims": n, "systems": systems,
            "arena_rating": {s: round(float(r), 3) for s, r in zip(systems, to_rating(theta))},
            "mean_score": {s: round(float(m), 6) for s, m in zip(systems, means)},
            "n_bootstrap": n_bootstrap, "n_undefined": undefined}


# -- output --------------------------------------------------------------------------------------
def _f(v: Optional[float], nd: int = 3) -> str:
    return "n/a" if v is None else f"{v:.{nd}f}"


def reliability_table(reliability: dict) -> str:
    """Markdown table of :func:`judge_reliability`."""
    lines = ["| judge | family | judged ok / all | self-consistency | first-shown wins (n, p) | ties | "
             "agreement with other judges' majority (n) |", "|---|---|---:|---:|---:|---:|---:|"]
    for name, r in reliability.items():
        p = "n/a" if r["position_p_value"] is None else f"{r['position_p_value']:.2g}"
        lines.append(f"| {name} | {r['family'] or '-'} | {r['n_ok']} / {r['n_judgements']} | "
                     f"{_f(r['self_consistency'])} ({r['n_self_consistency']}) | {_f(r['position_bias'])} "
                     f"({r['n_position']}, p={p}) | {_f(r['tie_rate'])} | {_f(r['majority_agreement'])} "
                     f"({r['n_majority']}) |")
    return "\n".join(lines) + "\n"


def render_markdown(result: ArenaResult, title: str = "Arena") -> str:
    """The ranking, the judges' reliability and the agreement with the score ranking as Markdown."""
    from ev2r.ranking.rating import ranking_table

    s = result.settings
    judges = ", ".join(f"`{j['model']}`" + (f" ({j['family']})" if j["family"] else "") for j in s["judges"])
    lines = [f"# {title}", "",
             f"Judges: {judges}; prompt `{s['prompt']}`, max_tokens {s['max_tokens']}; {s['n_claims']} claims, "
             f"{s['n_battles']} battles ({'all pairs' if s['pairs_per_claim'] is None else str(s['pairs_per_claim']) + ' pair(s)'} "
             f"per claim, seed {s['seed']}), each judged in both orders by every eligible judge. "
             f"Judgement statuses: {result.statuses}.", ""]
    if result.ranking is not None:
        lines += ["## Ranking", "", "Bradley-Terry MLE (ties = half wins) on the Elo scale, 95% CI from "
                  f"{result.ranking['settings']['bootstrap']} bootstrap resamples of claims; Elo K=4 averaged "
                  "over 20 orders; `mean win share` = (wins + ties/2) / battles.", "",
                  ranking_table(result.ranking, "win share")]
        if result.ranking["warnings"]:
            lines += ["Warnings: " + "; ".join(result.ranking["warnings"]), ""]
    else:
        lines += ["No ranking: " + "; ".join(s["notes"]), ""]
    lines += ["## Judge reliability", "", reliability_table(result.reliability)]
    if result.agreement is not None:
        a = result.agreement
        ci = "n/a" if a["ci95"] is None else f"[{a['ci95'][0]:+.2f}, {a['ci95'][1]:+.2f}]"
        lines += ["## Agreement with the score ranking", "",
                  f"Kendall tau-b between arena ratings and mean scores over {a['n_claims']} claims: "
                  f"**{_f(a['tau'], 3)}** (95% bootstrap CI {ci}, {a['n_bootstrap']} resamples of claims, "
                  f"{a['n_undefined']} undefined; p = {_f(a['p_value'], 4)}).", "",
                  "| system | arena rating | mean score |", "|---|---:|---:|"]
        for sname in sorted(a["systems"], key=lambda x: -a["arena_rating"][x]):
            lines.append(f"| {sname} | {a['arena_rating'][sname]:.1f} | {a['mean_score'][sname]:.4f} |")
        lines.append("")
    return "\n".join(lines)


# -- CLI -----------------------------------------------------------------------------------------
def add_arena_arguments(p) -> None:
    """Arguments of ``ev2r arena``."""
    p.add_argument("systems", nargs="+", metavar="SYSTEM[:FAMILY]=PATH",
                   help="each system's evidence (JSONL/JSON rows with id, claim, predicted_evidence, "
                        "reference_evidence), with an optional model family (a judge of that family never judges it)")
    p.add_argument("--judge", action="append", required=True, metavar="BASE_URL=MODEL[:FAMILY]",
                   help="a judge of the panel (repeatable): OpenAI-compatible server, model name and optional family "
                        "(the text after the last ':'; empty BASE_URL = the OpenAI API)")
    p.add_argument("-o", "--output", required=True, metavar="DIR",
                   help="folder for battles.jsonl (read by `ev2r rank`), ranking.json, reliability.json, arena.md")
    p.add_argument("--pairs-per-claim", type=int, default=None, help="distinct system pairs per claim (default: all)")
    p.add_argument("--seed", type=int, default=0, help="seed of the pair sampling, bootstrap and Elo orders")
    p.add_argument("--limit", type=int, default=None, help="only the first N common claims")
    p.add_argument("--scores", action="append", default=[], metavar="[SYSTEM=]SCORES.jsonl",
                   help="per-item scores (repeatable): SYSTEM=PATH for one system's `ev2r score -o` file, or a file "
                        "with a 'system' field; for the Kendall tau of the arena ranking against the score ranking")
    p.add_argument("--score-field", default="ev2r", help="score field of --scores files (default ev2r)")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap replicates (default 1000)")
    p.add_argument("--max-tokens", type=int, default=DEFAULT_MAX_TOKENS,
                   help=f"generation limit per answer (default {DEFAULT_MAX_TOKENS})")
    p.add_argument("--constrain-answers", action="store_true",
                   help="send a grammar that lets a llama.cpp server reply only A, B or tie (for small or base "
                        "models that otherwise do not answer)")
    p.add_argument("--prompt-file", metavar="FILE", help="judge prompt template ($claim, $reference_evidence, "
                                                         "$evidence_a, $evidence_b); default: arena_pairwise")
    p.add_argument("--llm-cache", help="answer cache folder (default: $EV2R_LLM_CACHE, else ~/.cache/ev2r/llm); "
                                       "a rerun sends only what is missing")
    p.add_argument("--llm-offline", action="store_true", help="serve answers only from the cache (replay)")
    p.add_argument("--llm-concurrency", type=int, default=4, help="parallel requests per judge (default 4)")
    p.add_argument("--llm-timeout", type=float, default=120.0, help="seconds per request attempt (default 120)")
    p.add_argument("--llm-max-retries", type=int, default=3, help="retries after 429/5xx/timeouts (default 3)")
    p.add_argument("--dry-run", action="store_true", help="print the requests per judge (cached, to send, "
                                                         "estimated tokens) as JSON; send nothing")


def _load_scores(specs: Sequence[str], score_field: str) -> Optional[dict]:
    from ev2r.ranking.rating import read_system_rows, scores_table

    if not specs:
        return None
    table: dict[str, dict[str, float]] = {}
    for spec in specs:
        rows, path = read_system_rows(spec, "system")
        for item, d in scores_table(rows, "system", score_field, source=path).items():
            for s, v in d.items():
                if s in table.get(item, {}):
                    raise ValueError(f"--scores: {path}: item {item!r} has a second score for system {s!r}")
                table.setdefault(item, {})[s] = v
    return table


def run_arena_cli(args) -> int:
    """``ev2r arena``: returns 0, or 1 when no judgement succeeded (the statuses are printed)."""
    from ev2r.io.readers import read_items, write_jsonl

    specs = [parse_system_spec(s) for s in args.systems]
    dup = [n for n, k in collections.Counter(n for n, _, _ in specs).items() if k > 1]
    if dup:
        raise ValueError(f"systems: {dup[0]!r} is given twice")
    judges = [parse_judge_spec(j) for j in args.judge]
    systems = {name: read_items(path) for name, _, path in specs}
    families = {name: fam for name, fam, _ in specs if fam}
    prompt = None
    if args.prompt_file:
        from ev2r.llm.prompts import prompt_from_text

        with open(args.prompt_file, encoding="utf-8") as fh:
            prompt = prompt_from_text(fh.read(), name=os.path.basename(args.prompt_file))
    scores = _load_scores(args.scores, args.score_field)
    if os.path.exists(args.output) and not os.path.isdir(args.output):
        raise ValueError(f"-o/--output: {args.output!r} is a file; give a folder")
    kw = dict(pairs_per_claim=args.pairs_per_claim, seed=args.seed, limit=args.limit, cache_dir=args.llm_cache,
              offline=args.llm_offline, concurrency=args.llm_concurrency, timeout=args.llm_timeout,
              max_retries=args.llm_max_retries, max_tokens=args.max_tokens, prompt=prompt,
              n_bootstrap=args.bootstrap, reference_scores=scores, constrain_answers=args.constrain_answers)
    print("ev2r arena: judges: " + ", ".join(f"{j.model} (family {j.family or 'none'}) at {j.base_url or 'OpenAI API'}"
                                             for j in judges), file=sys.stderr)
    if args.dry_run:
        print(json.dumps(estimate_arena(systems, judges, families, **{k: v for k, v in kw.items() if k in (
            "pairs_per_claim", "seed", "limit", "cache_dir", "max_tokens", "prompt", "constrain_answers")})))
        return 0
    result = run_arena(systems, judges, families, **kw)
    os.makedirs(args.output, exist_ok=True)
    write_jsonl(result.battles, os.path.join(args.output, "battles.jsonl"))
    if result.ranking is not None:
        with open(os.path.join(args.output, "ranking.json"), "w", encoding="utf-8") as fh:
            json.dump({**result.ranking, "arena": result.settings}, fh, indent=2, ensure_ascii=False)
    with open(os.path.join(args.output, "reliability.json"), "w", encoding="utf-8") as fh:
        json.dump({"judges": result.reliability, "agreement": result.agreement, "statuses": result.statuses,
                   "llm": result.llm, "settings": result.settings}, fh, indent=2, ensure_ascii=False)
    text = render_markdown(result)
    with open(os.path.join(args.output, "arena.md"), "w", encoding="utf-8") as fh:
        fh.write(text)
    for name, st in result.llm.items():  # accounting (calls, cache hits, tokens) goes to stderr
        print(f"llm {name}: " + " ".join(f"{k}={v}" for k, v in st.items()), file=sys.stderr)
    print(text)
    if result.ranking is None:
        print(f"ev2r arena: error: no judgement succeeded ({result.statuses}); "
              + "; ".join(result.settings["notes"]), file=sys.stderr)
        return 1
    return 0


def estimate_arena(systems: Mapping[str, Sequence[Item]], judges: Sequence[Judge],
                   families: Optional[Mapping[str, Optional[str]]] = None, *, pairs_per_claim: Optional[int] = None,
                   seed: int = 0, limit: Optional[int] = None, cache_dir: Any = None,
                   max_tokens: int = DEFAULT_MAX_TOKENS, prompt: Any = None, constrain_answers: bool = False) -> dict:
    """Dry run: per judge, :meth:`ev2r.llm.LLMClient.estimate` of the requests :func:`run_arena` would
    send (nothing is sent)."""
    from ev2r.llm.scorers import _resolve_prompt

    judges = _check_judges(judges)
    prompt = _resolve_prompt(prompt, "arena_pairwise")
    battle_plan = plan(common_claims(systems, limit), judges, dict(families or {}), pairs_per_claim, seed)
    out = {}
    for name, todo in arena_requests(battle_plan, prompt).items():
        j = next(j for j in judges if j.name == name)
        client = LLMClient(model=j.model, base_url=j.base_url, cache_dir=cache_dir)
        reqs = [LLMRequest([{"role": "user", "content": text}], answer_params(max_tokens, constrain_answers))
                for _, _, text in todo]
        out[name] = client.estimate(reqs).to_dict()
    return {"n_battles": len(battle_plan), "judges": out}
