"""Running the arena: every battle judged in both orders by every eligible judge through the one
LLM call loop (:func:`ev2r.llm.loop.ask`), the rows of ``battles.jsonl``, the ranking, the judges'
reliability; and the dry run (:func:`estimate_arena`)."""

from __future__ import annotations

import collections
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

from ev2r.config import LLM_DEFAULTS
from ev2r.llm.client import LLMClient
from ev2r.llm.loop import Answer, ask, estimate_asks
from ev2r.llm.parse import ParseError, response_text
from ev2r.llm.prompts import resolve_prompt
from ev2r.ranking.arena.battles import (_WINNER, DEFAULT_MAX_TOKENS, ORDERS, Judge, _family, answer_params,
                                        arena_requests, check_judges, common_claims, judgement_probabilities,
                                        parse_judgement, plan)
from ev2r.ranking.arena.reliability import judge_reliability, ranking_agreement
from ev2r.types import STATUS_NO_ELIGIBLE_JUDGE, STATUS_OK, Item, LLMUsage


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
        llm: per judge, what its requests of this run cost: the sum of their
            :class:`ev2r.types.LLMUsage` as the client's counters (requests, calls, cache hits,
            retries, failures, tokens).
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


def _client_for(judge: Judge, clients: Optional[Mapping[str, LLMClient]], **kw) -> LLMClient:
    if clients and judge.name in clients:
        return clients[judge.name]
    return LLMClient(model=judge.model, base_url=judge.base_url, **kw)


#: ``position_debias`` values of :func:`run_arena`
POSITION_DEBIAS = ("none", "probabilities")
#: default margin of the balanced decision (difference of the two systems' mean probabilities)
DEFAULT_DEBIAS_MARGIN = 0.05


def _parse(index: int, response: dict) -> str:
    return parse_judgement(response)


def _parse_probabilities(index: int, response: dict) -> tuple[str, dict[str, float]]:
    """``(answer, probabilities)``: the most probable of A/B/tie and P over the three."""
    probs = judgement_probabilities(response)
    return max(probs, key=lambda k: probs[k]), probs


def _order_record(order: str, first: str, answer: Answer) -> dict:
    """One order's record in a battle row, from its :class:`~ev2r.llm.loop.Answer`."""
    out = answer.outcome
    rec = {"order": order, "first": first, "answer": None, "winner": None, "status": answer.status,
           "error": answer.error, "text": None, "from_cache": out.from_cache}
    if out.ok:
        try:
            rec["text"] = response_text(out.response)[:200]
        except ParseError:
            pass
    if answer.ok:
        value, probs = answer.value if isinstance(answer.value, tuple) else (answer.value, None)
        rec.update(answer=value, winner=_WINNER[order][value])
        if probs is not None:
            rec["probabilities"] = {k: round(v, 6) for k, v in probs.items()}
    return rec


def combine_orders_balanced(ab: dict, ba: dict, margin: float = DEFAULT_DEBIAS_MARGIN
                            ) -> tuple[Optional[str], str, Optional[str], Optional[bool], Optional[dict]]:
    """One judge's outcome of a battle from the answer *probabilities* of its two orders
    (``position_debias="probabilities"``): ``(winner, status, error, consistent, balanced)``.

    Balanced position calibration (Wang et al. 2023, "Large Language Models are not Fair
    Evaluators", sec. 3.2: a candidate's score is its mean over both positions), on the verdict
    probabilities: ``s_a = (P_ab(A) + P_ba(B)) / 2`` and ``s_b = (P_ab(B) + P_ba(A)) / 2``; the
    winner is ``a`` when ``s_a - s_b > margin``, ``b`` when ``s_b - s_a > margin``, else ``tie``. A
    judge that always names the first-shown set with the same probability scores both sets
    alike (a tie); what moves the decision is how much the *content* shifts its probabilities.
    ``consistent`` is whether the two orders' most probable answers agree (as in
    :func:`combine_orders`); a failed order gives no winner, with its status."""
    if ab["status"] != STATUS_OK or ba["status"] != STATUS_OK:
        return combine_orders(ab, ba) + (None,)
    pab, pba = ab["probabilities"], ba["probabilities"]
    s_a = (pab["A"] + pba["B"]) / 2
    s_b = (pab["B"] + pba["A"]) / 2
    winner = "a" if s_a - s_b > margin else "b" if s_b - s_a > margin else "tie"
    return winner, STATUS_OK, None, ab["winner"] == ba["winner"], {"a": round(s_a, 6), "b": round(s_b, 6)}


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


def run_arena(systems: Mapping[str, Sequence[Item]], judges: Sequence[Judge],
              families: Optional[Mapping[str, Optional[str]]] = None, *, pairs_per_claim: Optional[int] = None,
              seed: int = 0, limit: Optional[int] = None, cache_dir: Any = None, offline: bool = False,
              concurrency: int = LLM_DEFAULTS.concurrency, timeout: float = LLM_DEFAULTS.timeout,
              max_retries: int = LLM_DEFAULTS.max_retries, backoff: float = LLM_DEFAULTS.backoff,
              max_tokens: int = DEFAULT_MAX_TOKENS, prompt: Any = None, n_bootstrap: int = 1000,
              reference_scores: Optional[Mapping[str, Mapping[str, float]]] = None,
              clients: Optional[Mapping[str, LLMClient]] = None, constrain_answers: bool = False,
              position_debias: str = "none", debias_margin: float = DEFAULT_DEBIAS_MARGIN) -> ArenaResult:
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
        position_debias: ``none`` (default: the FactArena rule, the answers of both orders must
            agree) or ``probabilities``: the requests ask for the top-20 log-probabilities, each
            order's answer is P(A), P(B), P(tie) (:func:`judgement_probabilities`; a response
            without them is a ``parse_error``) and a battle is decided by
            :func:`combine_orders_balanced` with ``debias_margin`` -- for judges that always name
            the first-shown set (the Qwen 0.5B/1.5B instruct models do, 16 of 16). Named in the
            settings' ``rule``.
        debias_margin: the margin of :func:`combine_orders_balanced` (0 <= margin < 1).

    Returns:
        an :class:`ArenaResult`. Judgements never raise for the run: failures are statuses.

    Raises:
        ValueError: bad settings or inputs (see :func:`common_claims`, :func:`sample_pairs`), a
            family given for an unknown system, a prompt without the four fields.
    """
    from ev2r.ranking.rating import battles_from_rows, rank_battles

    judges = check_judges(judges)
    families = dict(families or {})
    unknown = [s for s in families if s not in systems]
    if unknown:
        raise ValueError(f"families: {unknown[0]!r} is not one of the systems {sorted(systems)}")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or not 1 <= max_tokens <= 256:
        raise ValueError(f"max_tokens: must be an int in 1..256, got {max_tokens!r}")
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, int) or n_bootstrap < 0:
        raise ValueError(f"n_bootstrap: must be an int >= 0, got {n_bootstrap!r}")
    if position_debias not in POSITION_DEBIAS:
        raise ValueError(f"position_debias: {position_debias!r} is not one of {POSITION_DEBIAS}")
    if (isinstance(debias_margin, bool) or not isinstance(debias_margin, (int, float))
            or not 0 <= debias_margin < 1):
        raise ValueError(f"debias_margin: must be a number in [0, 1), got {debias_margin!r}")
    balanced = position_debias == "probabilities"
    prompt = resolve_prompt(prompt, "arena_pairwise")
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
    requests = arena_requests(battle_plan, prompt, answer_params(max_tokens, constrain_answers, logprobs=balanced))
    parse = _parse_probabilities if balanced else _parse
    llm_stats: dict[str, dict] = {}
    decoding: dict[str, str] = {}

    def judge_all(name: str) -> list[Answer]:
        client = _client_for(by_judge[name], clients, **client_kw)
        got = ask(client, [r for _, _, r in requests[name]], parse)
        llm_stats[name] = LLMUsage.total(a.usage for a in got).counters()  # the arena never re-asks
        decoding[name] = client.signature_fields()["decoding"]
        return got

    names = list(requests)
    answers: dict[tuple[int, str, str], Answer] = {}
    if names:
        with ThreadPoolExecutor(max_workers=len(names)) as pool:  # judges are independent servers
            for name, got in zip(names, pool.map(judge_all, names)):
                for (bi, order, _), answer in zip(requests[name], got):
                    answers[(bi, order, name)] = answer
    rows: list[dict] = []
    for bi, (c, a, b, js) in enumerate(battle_plan):
        if not js:
            rows.append({"id": c.id, "system_a": a, "system_b": b, "judge": None, "judge_family": None,
                         "winner": None, "status": STATUS_NO_ELIGIBLE_JUDGE, "consistent": None, "orders": [],
                         "error": f"every judge shares a family with {a!r} or {b!r}"})
            continue
        for j in js:
            recs = [_order_record(o, a if o == "ab" else b, answers[(bi, o, j.name)]) for o in ORDERS]
            row_extra = {}
            if balanced:
                winner, status, error, consistent, scores = combine_orders_balanced(*recs, margin=debias_margin)
                row_extra["balanced"] = scores
            else:
                winner, status, error, consistent = combine_orders(*recs)
            rows.append({"id": c.id, "system_a": a, "system_b": b, "judge": j.name, "judge_family": j.family,
                         "winner": winner, "status": status, "error": error, "consistent": consistent,
                         "orders": recs, **row_extra})
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
        "rule": (f"both orders per judge; balanced probabilities (mean over both positions), a winner only when "
                 f"ahead by more than {debias_margin}; a failed order -> no verdict (never a win)" if balanced else
                 "both orders per judge; orders disagreeing -> tie; a failed order -> no verdict (never a win)"),
        "position_debias": position_debias, "debias_margin": debias_margin if balanced else None,
    }
    return ArenaResult(rows, ranking, judge_reliability(rows), agreement, settings, llm_stats, statuses)


def estimate_arena(systems: Mapping[str, Sequence[Item]], judges: Sequence[Judge],
                   families: Optional[Mapping[str, Optional[str]]] = None, *, pairs_per_claim: Optional[int] = None,
                   seed: int = 0, limit: Optional[int] = None, cache_dir: Any = None,
                   max_tokens: int = DEFAULT_MAX_TOKENS, prompt: Any = None, constrain_answers: bool = False,
                   position_debias: str = "none") -> dict:
    """Dry run: per judge, :func:`ev2r.llm.loop.estimate_asks` of the requests :func:`run_arena` would
    send (:class:`ev2r.llm.CostEstimate` as a dict; the arena never re-asks), ``n_no_eligible_judge`` (battles
    no judge may judge, with a ``note`` when there are any); nothing is sent."""
    judges = check_judges(judges)
    prompt = resolve_prompt(prompt, "arena_pairwise")
    battle_plan = plan(common_claims(systems, limit), judges, dict(families or {}), pairs_per_claim, seed)
    out = {}
    if position_debias not in POSITION_DEBIAS:
        raise ValueError(f"position_debias: {position_debias!r} is not one of {POSITION_DEBIAS}")
    balanced = position_debias == "probabilities"
    params = answer_params(max_tokens, constrain_answers, logprobs=balanced)
    for name, todo in arena_requests(battle_plan, prompt, params).items():
        j = next(j for j in judges if j.name == name)
        client = LLMClient(model=j.model, base_url=j.base_url, cache_dir=cache_dir)
        out[name] = estimate_asks(client, [r for _, _, r in todo],
                                  _parse_probabilities if balanced else _parse).to_dict()
    unjudged = sum(1 for *_, js in battle_plan if not js)
    res: dict = {"n_battles": len(battle_plan), "n_no_eligible_judge": unjudged, "judges": out}
    if unjudged:
        res["note"] = (f"{unjudged} of {len(battle_plan)} battles have no eligible judge (every judge shares a family "
                       "with one of the two systems): they would be written with status no_eligible_judge")
    return res
