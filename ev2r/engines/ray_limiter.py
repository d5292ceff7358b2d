"""The cluster-wide cap on LLM requests of a Ray run (:mod:`ev2r.engines.ray_engine`, module docstring
"LLM judge"): one :class:`RequestSemaphore` actor, and the :class:`RayRequestLimiter` each worker's
:class:`ev2r.llm.LLMClient` takes a permit from before every request it sends.
"""

from __future__ import annotations

import time

#: Seconds added to the LLM request timeout before a permit whose holder died is reclaimed.
LEASE_SLACK_S = 60.0


class RequestSemaphore:
    """A counting semaphore with leases, run as one async Ray actor for the whole cluster.

    Args:
        limit: permits (max requests in flight at once), an int >= 1.
        lease_s: seconds after which a permit that was never released (its holder died) is
            reclaimed, > 0.

    Raises:
        ValueError: ``limit`` < 1 or ``lease_s`` <= 0.
    """

    def __init__(self, limit: int, lease_s: float):
        import asyncio

        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit: must be an integer >= 1, got {limit!r}")
        if not lease_s > 0:
            raise ValueError(f"lease_s: must be > 0, got {lease_s!r}")
        self.limit = limit
        self.lease_s = float(lease_s)
        self._holders: dict[int, float] = {}
        self._next = 0
        self._cond = asyncio.Condition()
        self.peak = 0
        self.granted = 0
        self.reclaimed = 0

    def _expire(self) -> None:
        now = time.monotonic()
        for token, deadline in list(self._holders.items()):
            if deadline < now:
                del self._holders[token]
                self.reclaimed += 1

    async def acquire(self) -> int:
        """Wait for a permit; returns its token (give it to :meth:`release`)."""
        import asyncio

        async with self._cond:
            while True:
                self._expire()
                if len(self._holders) < self.limit:
                    break
                try:
                    await asyncio.wait_for(self._cond.wait(), timeout=1.0)
                except asyncio.TimeoutError:
                    pass
            token = self._next
            self._next += 1
            self._holders[token] = time.monotonic() + self.lease_s
            self.granted += 1
            self.peak = max(self.peak, len(self._holders))
            return token

    async def release(self, token: int) -> None:
        """Give a permit back (an unknown or reclaimed token is ignored)."""
        async with self._cond:
            self._holders.pop(token, None)
            self._cond.notify_all()

    async def stats(self) -> dict:
        """``limit``, ``peak`` (most permits held at once), ``granted``, ``reclaimed``, ``held``."""
        return {"limit": self.limit, "peak": self.peak, "granted": self.granted, "reclaimed": self.reclaimed,
                "held": len(self._holders)}


class _Permit:
    """Context manager: one permit of a :class:`RequestSemaphore` actor held around one request."""

    def __init__(self, handle):
        self.handle = handle
        self.token = None

    def __enter__(self):
        import ray

        self.token = ray.get(self.handle.acquire.remote())
        return self

    def __exit__(self, *exc):
        import ray

        ray.get(self.handle.release.remote(self.token))
        return False


class RayRequestLimiter:
    """``LLMClient.limiter`` for Ray actors: each call returns a context manager holding one permit
    of the cluster-wide :class:`RequestSemaphore` actor ``handle``."""

    def __init__(self, handle):
        self.handle = handle

    def __call__(self) -> _Permit:
        return _Permit(self.handle)
