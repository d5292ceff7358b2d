"""Progress of a long command on stderr: a tqdm bar on a terminal, plain periodic lines elsewhere
(logs, CI), nothing with ``--no-progress``. A helper of the commands (``score``, ``robustness``),
not a command itself.

Plain lines look like ``ev2r score: 500/5000 items (10%), 1.4 items/s, about 54 min left`` and
come each time another ``every_pct`` percent is done or ``every_s`` seconds have passed since the
last line (whichever is first; defaults 10 % and 60 s), and once at the end.

The rate counts only work done in this run, at the pace it goes on: it is measured from the first update (the
items a resumed run found done are not in it; no rate is shown before an item is done after it), and once an item
is done after the second update, from the second (the end of the first chunk: loading the models does not stretch
every later estimate). The last line's rate runs from the first update (in ``ev2r score``, the start: loading included).
"""

from __future__ import annotations

import math
import sys
import time
from typing import Callable, Optional, TextIO

__all__ = ["Progress", "EVERY_PCT", "EVERY_S"]

#: A plain progress line each time another EVERY_PCT percent of the items is done ...
EVERY_PCT = 10.0
#: ... or EVERY_S seconds have passed since the last line.
EVERY_S = 60.0


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class Progress:
    """Report ``done`` of ``total`` items as they complete (:meth:`update`), then :meth:`close`.

    Args:
        label: the prefix of each line, e.g. ``"ev2r score"``.
        total: items expected (>= 0; :meth:`update` may change it).
        enabled: False (``--no-progress``) prints nothing.
        stream: where to write (default ``sys.stderr``).
        tty: force the terminal (tqdm bar) or plain mode; None: ``stream.isatty()``.
        every_pct, every_s: plain mode's period (see the module docstring); both > 0.
        unit: the counted thing (``"items"``).
        clock: seconds (``time.monotonic``; tests pass their own).

    Raises:
        ValueError: ``total`` < 0 or a period that is not > 0.
    """

    def __init__(self, label: str, total: int, enabled: bool = True, stream: Optional[TextIO] = None,
                 tty: Optional[bool] = None, every_pct: float = EVERY_PCT, every_s: float = EVERY_S,
                 unit: str = "items", clock: Callable[[], float] = time.monotonic) -> None:
        if total < 0:
            raise ValueError(f"total: must be >= 0, got {total}")
        if not (every_pct > 0 and every_s > 0):
            raise ValueError(f"every_pct / every_s: must be > 0, got {every_pct!r} / {every_s!r}")
        self.label, self.total, self.unit = label, int(total), unit
        self.stream = stream if stream is not None else sys.stderr
        self.every_pct, self.every_s, self.clock = float(every_pct), float(every_s), clock
        self.enabled = bool(enabled)
        if tty is None:
            isatty = getattr(self.stream, "isatty", None)
            tty = bool(isatty()) if callable(isatty) else False
        self.tty = tty
        self.done = 0
        self._start = clock()
        self._last_t = self._start
        self._last_pct = 0.0
        self._marks: list[tuple[int, float]] = []  # (done, time) of the first two updates: the rate's origin
        self._closed = False
        self._bar = None
        if self.enabled and self.tty:
            from tqdm.auto import tqdm

            self._bar = tqdm(total=self.total, unit=unit.rstrip("s") or "item", desc=label, file=self.stream)

    def rate(self) -> Optional[float]:
        """Items per second done in this run (module docstring), or None before any item is done after the first
        update: from the second update's count and time once an item was done after it, else from the first's."""
        for n0, t0 in reversed(self._marks):
            if self.done > n0:
                return (self.done - n0) / max(self.clock() - t0, 1e-9)
        return None

    def line(self) -> str:
        """The plain progress line for the current count."""
        elapsed = max(self.clock() - self._start, 1e-9)
        rate = self.rate()
        if self.done >= self.total and self._marks and self.done > self._marks[0][0]:  # the last line: from the
            n0, t0 = self._marks[0]  # first update (a run's start: loading included) to the end
            rate = (self.done - n0) / max(self.clock() - t0, 1e-9)
        text = f"{self.label}: {self.done}/{self.total} {self.unit}"
        if self.total:
            text += f" ({100.0 * self.done / self.total:.0f}%)"
        if rate is not None:
            text += f", {rate:.1f} {self.unit}/s" if rate >= 0.1 else f", {rate:.3f} {self.unit}/s"
        if 0 < self.done < self.total and rate:
            text += f", about {_duration((self.total - self.done) / rate)} left"
        elif self.done >= self.total:
            text += f", {_duration(elapsed)} in all"
        return text

    def update(self, done: int, total: Optional[int] = None) -> None:
        """``done`` items of ``total`` (default: the total given before) are finished; a
        callable(done, total) as :class:`ev2r.metric.scorer.Ev2RScorer` takes for ``progress``."""
        if total is not None and total != self.total:
            self.total = int(total)
            if self._bar is not None:
                self._bar.total = self.total
        first = not self._marks
        if len(self._marks) < 2:
            self._marks.append((int(done), self.clock()))
        self.done = int(done)
        if not self.enabled or self._closed:
            return
        if self._bar is not None:
            if first and self.done:  # found done by a resumed run: tqdm's rate leaves them out
                self._bar.initial = self._bar.n = self._bar.last_print_n = self.done
                self._bar.refresh()
            else:
                self._bar.update(self.done - self._bar.n)
            return
        now = self.clock()
        pct = 100.0 * self.done / self.total if self.total else 100.0
        due = (math.floor(pct / self.every_pct) > math.floor(self._last_pct / self.every_pct)
               or now - self._last_t >= self.every_s)
        if due and self.done < self.total:
            self._emit(now, pct)

    def _emit(self, now: float, pct: float) -> None:
        print(self.line(), file=self.stream, flush=True)
        self._last_t, self._last_pct = now, pct

    def close(self) -> None:
        """End: close the bar, or print the final plain line (once; nothing when disabled or when
        nothing was done, e.g. a dry run or an error before the first item)."""
        if self._closed:
            return
        self._closed = True
        if self._bar is not None:
            self._bar.close()
        elif self.enabled and self.done > 0:
            self._emit(self.clock(), 100.0)

    def __call__(self, done: int, total: Optional[int] = None) -> None:
        self.update(done, total)
