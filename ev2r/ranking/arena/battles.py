"""The arena's battles: who judges (:class:`Judge`, ``BASE_URL=MODEL[:FAMILY]``), which systems
(``SYSTEM[:FAMILY]=PATH``), the claims every system covers, the pairs sampled per claim, the
requests of both orders, and the reading of a judge's answer (``A``, ``B`` or ``tie``)."""

from __future__ import annotations

import collections
import itertools
import re
import zlib
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence

import numpy as np

from ev2r.llm.client import LLMRequest
from ev2r.llm.parse import ParseError, response_text
from ev2r.types import Evidence, Item

ORDERS = ("ab", "ba")
#: An answer's verdict (the position shown) -> the row's ``winner`` for each order.
_WINNER = {"ab": {"A": "a", "B": "b", "tie": "tie"}, "ba": {"A": "b", "B": "a", "tie": "tie"}}
DEFAULT_MAX_TOKENS = 8
NO_EVIDENCE = "(no evidence retrieved)"
NO_REFERENCE = "(no reference evidence given)"
#: GBNF grammar that restricts a judge's reply to one of the three answers (llama.cpp servers read a
#: ``grammar`` field in the request body; ``constrain_answers=True`` sends it).
ANSWER_GRAMMAR = 'root ::= "A" | "B" | "tie"'


# -- specifications ------------------------------------------------------------------------------
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


def _split_family(name: str, spec: str, option: str, last: bool) -> tuple[str, Optional[str]]:
    """``NAME[:FAMILY]`` -> (name, family or None), split at the last (``last``) or first ``:``."""
    if ":" not in name:
        return name, None
    name, family = name.rsplit(":", 1) if last else name.split(":", 1)
    if not family.strip():
        raise ValueError(f"{option}: {spec!r}: empty family after ':'")
    return name, family


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
    model, family = _split_family(model, spec, "--judge", last=True)
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
    name, family = _split_family(name, spec, "systems", last=False)
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


def _judgement_label(token: str) -> Optional[str]:
    t = token.strip().strip("*\"'`.:()[]_").strip()
    if t in ("A", "B"):
        return t
    return "tie" if t.lower() == "tie" else None


def judgement_probabilities(response: dict) -> dict[str, float]:
    """P(``A``), P(``B``), P(``tie``) from the log-probabilities of the first generated token that
    is a verdict (:func:`ev2r.llm.parse.label_distribution`; ``A``/``B`` in capitals, ``tie`` in
    any case, after quotes and Markdown marks), renormalised over the three; when the text reads
    as a tie (:func:`parse_judgement_text`: "A tie"), from the first ``tie`` token.

    Raises:
        ParseError: the response carries no logprobs, or no generated token is a verdict.
    """
    from ev2r.llm.parse import label_distribution

    try:  # the text's verdict: "A tie" is a tie, its "A" an article, as parse_judgement reads it
        first = "tie" if parse_judgement_text(response_text(response)) == "tie" else None
    except ParseError:
        first = None
    return label_distribution(response, _judgement_label, ("A", "B", "tie"), what="a verdict (A, B or tie)",
                              first=first)


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
                raise ValueError(f"id {i!r}: field 'reference_evidence' differs between systems {refs[0][0]!r} and "
                                 f"{s!r}")
        out.append(ArenaClaim(i, next(iter(claims)), refs[0][1] if refs else Evidence(()),
                              {s: it.predicted_evidence for s, it in its.items()}))
    return out


def sample_pairs(systems: Sequence[str], claim_id: str, pairs_per_claim: Optional[int],
                 seed: int) -> list[tuple[str, str]]:
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


def plan(claims: Sequence[ArenaClaim], judges: Sequence[Judge], families: Mapping[str, Optional[str]],
         pairs_per_claim: Optional[int], seed: int) -> list[tuple[ArenaClaim, str, str, list[Judge]]]:
    """``(claim, system_a, system_b, eligible judges)`` for every sampled battle, in order."""
    out = []
    for c in claims:
        for a, b in sample_pairs(list(c.evidence), c.id, pairs_per_claim, seed):
            out.append((c, a, b, [j for j in judges if eligible(j, a, b, families)]))
    return out


def check_judges(judges: Sequence[Judge]) -> list[Judge]:
    """The panel as a list, checked: at least one :class:`Judge`, each model named once.

    Raises:
        ValueError: no judge, an object that is not a :class:`Judge`, a model given twice.
    """
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


def _render(ev: Evidence, empty: str) -> str:
    return empty if ev.is_empty else ev.render()


def arena_requests(battle_plan, prompt, params: dict) -> dict[str, list[tuple[int, str, LLMRequest]]]:
    """Per judge name, ``(battle index, order, request)`` for every order of every battle it judges.

    Args:
        battle_plan: :func:`plan`'s battles; prompt: a :class:`~ev2r.llm.prompts.Prompt` with
            ``$claim``, ``$reference_evidence``, ``$evidence_a``, ``$evidence_b``; params: the
            decoding parameters of every request (:func:`answer_params`), copied into each.
    """
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
                out.setdefault(j.name, []).append((bi, order, LLMRequest([{"role": "user", "content": text}],
                                                                         dict(params))))
    return out


def answer_params(max_tokens: int, constrain_answers: bool = False, logprobs: bool = False) -> dict:
    """Decoding parameters of one judge request: ``max_tokens``, plus the answer grammar
    (:data:`ANSWER_GRAMMAR`, as ``extra_body``) when ``constrain_answers``, plus ``logprobs`` with
    the top 20 alternatives when ``logprobs`` (for ``position_debias="probabilities"``)."""
    params: dict = {"max_tokens": max_tokens}
    if logprobs:
        params.update(logprobs=True, top_logprobs=20)
    if constrain_answers:
        params["extra_body"] = {"grammar": ANSWER_GRAMMAR}
    return params
