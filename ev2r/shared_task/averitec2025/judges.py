"""The judges of the AVeriTeC 2025 table: the LLM judge (the official kind) and the bundled NLI
judge (offline, not comparable with the leaderboard), and :func:`build_judge` for the CLI options."""

from __future__ import annotations

import collections
import os
from typing import Any, Dict, List, Optional, Sequence

from ev2r.config import DEFAULTS, LLM_DEFAULTS
from ev2r.llm.client import CostEstimate, LLMClient, LLMRequest
from ev2r.llm.loop import ask, estimate_asks
from ev2r.shared_task.averitec2025.answers import (REASK_MESSAGE, _KEY_FAMILIES, JudgeAnswerError, Judgement,
                                                   JudgeTask, parse_recall_answer)
from ev2r.shared_task.averitec2025.claims import render_pairs, render_questions
from ev2r.shared_task.averitec2025.prompts import load_judge_prompt
from ev2r.shared_task.averitec2025.settings import (_PART_NAMES, BUNDLED_JUDGE_LABEL, DEFAULT_MAX_TOKENS, JUDGES,
                                                    OFFICIAL_JUDGE_MODEL, RENDERING)
from ev2r.types import STATUS_ERROR, STATUS_NO_REFERENCE, STATUS_NO_REFERENCE_FACTS, STATUS_OK, Evidence, Item, QAPair


class LLMRecallJudge:
    """Ev2R recall judged by an LLM over an OpenAI-compatible API (the 2025 judge).

    Args:
        client: an :class:`ev2r.llm.LLMClient` (model, endpoint, cache, offline replay,
            concurrency, retries); the organisers used ``Llama-3.3-70B-Instruct`` at
            temperature 0.
        prompt: the Q + A prompt: None (shipped ``averitec2025_recall``), a file path or a
            :class:`JudgePrompt` (see :func:`load_judge_prompt`).
        question_prompt: the Q-only prompt, likewise (shipped ``averitec2025_question_recall``).
        max_tokens: generation limit per answer (>= 1; the organisers' 3000 by default).
        max_reasks: re-asks after an unusable answer, 0..3 (0 by default: the organisers do not
            re-ask); a re-ask sends the conversation, the model's answer and why it was rejected.

    Raises:
        ValueError: a client without ``complete_many``, an argument out of range, a bad prompt
            file.
    """

    kind = "llm"

    def __init__(self, client: Any, prompt: Any = None, question_prompt: Any = None,
                 max_tokens: int = DEFAULT_MAX_TOKENS, max_reasks: int = 0):
        if not callable(getattr(client, "complete_many", None)) or not hasattr(client, "model"):
            raise ValueError(f"client: expected an ev2r.llm.LLMClient, got {type(client).__name__}")
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError(f"max_tokens (--llm-max-tokens): must be an int >= 1, got {max_tokens!r}")
        if isinstance(max_reasks, bool) or not isinstance(max_reasks, int) or not 0 <= max_reasks <= 3:
            raise ValueError(f"max_reasks (--llm-max-reasks): must be an int in 0..3, got {max_reasks!r}")
        self.client = client
        self.prompts = {"question_answer": load_judge_prompt(prompt, "question_answer"),
                        "question_only": load_judge_prompt(question_prompt, "question_only")}
        self.max_tokens = max_tokens
        self.max_reasks = max_reasks

    @property
    def label(self) -> str:
        where = getattr(self.client, "base_url", None) or "the OpenAI API"
        mode = " (offline replay from the cache)" if getattr(self.client, "offline", False) else ""
        own = [p for p in self.prompts.values() if p.source == "shipped"]
        wording = ("; project prompts, not the organisers' wording" if len(own) == 2 else
                   "; prompts: " + ", ".join(f"{_PART_NAMES[k]} {p.id}" for k, p in self.prompts.items()))
        return f"judge: LLM {self.client.model} at {where}{mode}{wording}"

    def signature_fields(self) -> Dict[str, str]:
        fields = {"judge": "llm"}
        sig = getattr(self.client, "signature_fields", None)
        fields.update(sig() if callable(sig) else {"llm": str(self.client.model)})
        fields.update({"maxtok": str(self.max_tokens), "reask": str(self.max_reasks),
                       "prompt_q": self.prompts["question_only"].id, "prompt_qa": self.prompts["question_answer"].id,
                       "render": RENDERING})
        return fields

    def request_for(self, task: JudgeTask) -> LLMRequest:
        """The first-round chat request of ``task``.

        Raises:
            KeyError, ValueError, IndexError: the prompt cannot be filled.
        """
        if task.part == "question_only":
            ref, pred = render_questions(task.reference), render_questions(task.predicted)
        else:
            ref, pred = render_pairs(task.reference), render_pairs(task.predicted)
        text = self.prompts[task.part].render(task.claim, ref, pred)
        return LLMRequest([{"role": "user", "content": text}], {"max_tokens": self.max_tokens})

    def _plan(self, tasks: Sequence[JudgeTask]):
        """``(decided, pending, requests)``: failed judgements by position (a prompt that cannot be
        filled), the positions to ask and their first-round requests."""
        decided: Dict[int, Judgement] = {}
        pending: List[int] = []
        requests: List[LLMRequest] = []
        for i, t in enumerate(tasks):
            try:
                requests.append(self.request_for(t))
                pending.append(i)
            except Exception as e:  # a prompt that cannot be filled: this task only
                decided[i] = Judgement(STATUS_ERROR, error=f"prompt: {type(e).__name__}: {e}", called=False)
        return decided, pending, requests

    def _loop_options(self, tasks: Sequence[JudgeTask], pending: List[int]) -> dict:
        """The options of :func:`ev2r.llm.loop.ask` for the requests of ``pending`` tasks."""
        parts = [tasks[i].part for i in pending]
        return dict(rejects=(JudgeAnswerError,), status_of=lambda e: e.status, max_reasks=self.max_reasks,
                    reask_message=lambda k, e: REASK_MESSAGE.format(error=e, family=_KEY_FAMILIES[parts[k]][0]))

    def judge(self, tasks: Sequence[JudgeTask]) -> List[Judgement]:
        """One :class:`Judgement` per task, in order; never raises for the batch. Each LLM judgement
        carries what it cost in ``llm`` (:class:`ev2r.types.LLMUsage`)."""
        decided, pending, requests = self._plan(tasks)
        parts = [tasks[i].part for i in pending]
        answers = ask(self.client, requests, lambda k, response: parse_recall_answer(response, parts[k]),
                      **self._loop_options(tasks, pending))
        out = dict(decided)
        for i, a in zip(pending, answers):
            if a.ok:
                support, facts = a.value
                out[i] = Judgement(STATUS_OK, recall=support / facts, support=support, facts=facts,
                                   from_cache=a.outcome.from_cache, llm=a.usage)
            elif a.rejected:
                out[i] = Judgement(a.status, error=a.error_with_attempt(), from_cache=a.outcome.from_cache,
                                   llm=a.usage)
            else:  # the call failed (after the client's retries)
                out[i] = Judgement(a.status, error=a.error, llm=a.usage)
        return [out[i] for i in range(len(tasks))]

    def estimate(self, tasks: Sequence[JudgeTask], price_in_per_mtok: Optional[float] = None,
                 price_out_per_mtok: Optional[float] = None) -> CostEstimate:
        """Dry run of :meth:`judge` (sends nothing): the requests, those answered by the cache, the
        upper bound of the re-asks, and the tasks not counted (a prompt that cannot be filled) with
        the reason (:func:`ev2r.llm.loop.estimate_asks`)."""
        decided, pending, requests = self._plan(tasks)
        parts = [tasks[i].part for i in pending]
        not_counted = collections.Counter(j.error[:200] for j in decided.values())
        return estimate_asks(self.client, requests, lambda k, response: parse_recall_answer(response, parts[k]),
                             not_counted=not_counted, price_in_per_mtok=price_in_per_mtok,
                             price_out_per_mtok=price_out_per_mtok, **self._loop_options(tasks, pending))


class NLIRecallJudge:
    """Ev2R recall without an LLM: ev2r's offline reference scorer (``judge bundled``).

    Recall = reference atomic facts (rule-based, ``rules-v2``) supported by the predicted
    evidence (max P(entailment) over its question/answer pairs >= ``threshold``) / reference
    facts (:class:`ev2r.metric.reference.NLIReferenceScorer`, built with :func:`ev2r.metric.factory.build_scorer`).
    For Q only, each question is one fact and each predicted question one premise. **Not** the
    official LLM judge: its numbers are labelled :data:`BUNDLED_JUDGE_LABEL` everywhere.

    Args:
        verifier: ``"bundled"`` (default), a checkpoint path / hub id, or an object with
            ``predict(premises, hypotheses) -> (n, 3)`` array of [entailment, neutral,
            contradiction] probabilities.
        device, batch_size, dtype: see :func:`ev2r.metric.factory.get_verifier` (ignored for an object).
        threshold: P(entailment) at which a fact is supported, in (0, 1).

    Raises:
        ValueError: a verifier that cannot be loaded or a bad option (named).
    """

    kind = "bundled"

    def __init__(self, verifier: Any = DEFAULTS.verifier, device: Optional[str] = None,
                 batch_size: int = DEFAULTS.batch_size, dtype: str = DEFAULTS.dtype,
                 threshold: float = DEFAULTS.threshold):
        from ev2r.metric.factory import build_scorer
        from ev2r.metric.scorer import Ev2RScorer

        scorer = build_scorer(verifier=verifier, decomposer="rules", threshold=threshold, device=device,
                              batch_size=batch_size, dtype=dtype)
        self.verifier_name = scorer.verifier_fields.get("verifier", "none")
        self.reference_scorer = scorer.reference_scorer
        # reference part only: no proxy (it needs no verdict here and would cost verifier calls)
        self._scorer = Ev2RScorer(scorer.reference_scorer, None, verifier_fields=scorer.verifier_fields)

    @property
    def label(self) -> str:
        return f"{BUNDLED_JUDGE_LABEL} [verifier {self.verifier_name}, rule-based atomic facts]"

    def signature_fields(self) -> Dict[str, str]:
        fields = {"judge": "bundled-nli-not-official"}
        fields.update(self.reference_scorer.signature_fields())
        fields["verifier"] = str(self.verifier_name)
        return fields

    @staticmethod
    def item_for(task: JudgeTask) -> Item:
        """The ev2r item of ``task``: each question (Q only) or question/answer pair (Q + A) one
        evidence pair; id ``<claim id>:<part>``."""
        if task.part == "question_only":
            ref = Evidence(tuple(QAPair("", q) for q in task.reference))
            pred = Evidence(tuple(QAPair("", q) for q in task.predicted))
        else:
            ref = Evidence(tuple(QAPair(q, a) for q, a in task.reference))
            pred = Evidence(tuple(QAPair(q, a) for q, a in task.predicted))
        return Item(id=f"{task.claim_id}:{task.part}", claim=task.claim, predicted_evidence=pred,
                    reference_evidence=ref)

    def judge(self, tasks: Sequence[JudgeTask]) -> List[Judgement]:
        """One :class:`Judgement` per task, in order; never raises for the batch."""
        items, out = [], [None] * len(tasks)
        idx = []
        for i, t in enumerate(tasks):
            try:
                items.append(self.item_for(t))
                idx.append(i)
            except ValueError as e:
                out[i] = Judgement(STATUS_ERROR, error=str(e), called=False)
        scores = self._scorer.score(items) if items else []
        for i, s in zip(idx, scores):
            if s.status == STATUS_OK and s.recall is not None:
                out[i] = Judgement(STATUS_OK, recall=float(s.recall),
                                   support=sum(bool(f.supported) for f in s.reference_facts),
                                   facts=len(s.reference_facts))
            elif s.status == STATUS_NO_REFERENCE:
                out[i] = Judgement(STATUS_NO_REFERENCE_FACTS, error=s.error)
            else:
                out[i] = Judgement(STATUS_ERROR, error=f"{s.status}: {s.error}")
        return [j if j is not None else Judgement(STATUS_ERROR, error="not judged") for j in out]


def build_judge(kind: str = "llm", *, llm_model: Optional[str] = None, llm_base_url: Optional[str] = None,
                llm_cache: Any = None, llm_offline: bool = False, llm_concurrency: int = LLM_DEFAULTS.concurrency,
                llm_timeout: float = LLM_DEFAULTS.timeout, llm_max_retries: int = LLM_DEFAULTS.max_retries,
                api_key_env: str = "OPENAI_API_KEY",
                max_tokens: int = DEFAULT_MAX_TOKENS, max_reasks: int = 0, prompt_file: Any = None,
                question_prompt_file: Any = None, llm_client: Any = None, verifier: Any = "bundled",
                device: Optional[str] = None, batch_size: int = DEFAULTS.batch_size, dtype: str = DEFAULTS.dtype):
    """The judge the ``ev2r averitec --edition 2025`` options describe.

    Args:
        kind: ``"llm"`` (:class:`LLMRecallJudge` over an :class:`ev2r.llm.LLMClient` built from
            the ``llm_*`` options, or ``llm_client`` when given) or ``"bundled"``
            (:class:`NLIRecallJudge` from ``verifier``, ``device``, ``batch_size``, ``dtype``).

    Raises:
        ValueError: unknown ``kind``; no ``llm_model``; no endpoint and no API key for a live
            run; an option out of range; a bad prompt file (each message names the option).
    """
    if kind not in JUDGES:
        raise ValueError(f"judge (--judge): {kind!r} is not one of {JUDGES} (llm: the FEVER-8 LLM judge; "
                         "bundled: the offline NLI verifier, not the official judge)")
    if kind == "bundled":
        return NLIRecallJudge(verifier=verifier, device=device, batch_size=batch_size, dtype=dtype)
    if llm_client is None:
        if not llm_model:
            raise ValueError(f"--llm-model: the 2025 LLM judge needs a model name (the organisers used "
                             f"{OFFICIAL_JUDGE_MODEL} on an OpenAI-compatible server, --llm-base-url); or use "
                             "--judge bundled for the offline NLI verifier (not the official judge)")
        if llm_base_url is None and not llm_offline and not os.environ.get(api_key_env):
            raise ValueError(f"--llm-base-url: no endpoint given and {api_key_env} is not set; give the "
                             "OpenAI-compatible server (e.g. http://127.0.0.1:8000/v1), set the key for the OpenAI "
                             "API, or replay a filled cache with --llm-offline --llm-cache DIR")
        try:
            llm_client = LLMClient(model=llm_model, base_url=llm_base_url, api_key_env=api_key_env,
                                   cache_dir=llm_cache, offline=llm_offline, concurrency=llm_concurrency,
                                   timeout=llm_timeout, max_retries=llm_max_retries)
        except ValueError as e:
            msg = str(e)
            for name in ("concurrency", "timeout", "max_retries"):
                if msg.startswith(name + ":"):
                    msg = f"--llm-{name.replace('_', '-')}" + msg[len(name):]
            raise ValueError(msg) from None
    return LLMRecallJudge(llm_client, prompt=prompt_file, question_prompt=question_prompt_file,
                          max_tokens=max_tokens, max_reasks=max_reasks)
