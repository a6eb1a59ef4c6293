"""The deadline scheduler: ONE task sleeps until the earliest stored ``clocks.due`` (woken early when a
nearer one is written), then handles only the tables that are due. No scan of all tables, no state
loaded for a table that is not due.

Time: ``Clock.now()`` is the wall clock read once at start, advanced by the monotonic clock, so a
jump of the system clock while the bot runs moves no deadline. A deadline that passed while the
bot was down is older than ``Clock.started`` and fires once at start (announced as a catch-up); the
next turn then gets its full time, so a table gets at most one catch-up move. Each event is marked
done in the transaction of its effect, so it never fires twice.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from bot.store.contract import Store

log = logging.getLogger(__name__)
BATCH = 200  # due tables read at a time
IDLE_CAP = 6 * 3600.0  # with nothing due, look again after this long anyway (a safety net, not a poll)


class Clock:
    """Wall time anchored at start and advanced by the monotonic clock (injectable for tests)."""

    def __init__(self, wall: Callable[[], float] = time.time, mono: Callable[[], float] = time.monotonic) -> None:
        self._mono = mono
        self.started = wall()
        self._mono0 = mono()

    def now(self) -> float:
        return self.started + (self._mono() - self._mono0)


class FakeClock(Clock):
    """A clock tests move by hand."""

    def __init__(self, start: float) -> None:
        self._now = start
        super().__init__(lambda: self._now, lambda: self._now)

    def advance(self, seconds: float) -> None:
        self._now += seconds


class Deadlines:
    """Sleeps until the earliest due event and hands each due table to ``fire``."""

    def __init__(self, store: Store, clock: Clock, fire: Callable[[int], Awaitable[None]]) -> None:
        self.store = store
        self.clock = clock
        self.fire = fire
        self._wake = asyncio.Event()
        self._target: float | None = None
        self._task: asyncio.Task[None] | None = None
        self._retry = False
        self.fired = 0

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="deadlines")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    def nudge(self, due: float) -> None:
        """A deadline was written: wake the scheduler if it is nearer than the one it sleeps for."""
        if self._target is None or due < self._target:
            self._target = due
            self._wake.set()

    async def run_due(self) -> float | None:
        """Fire every table that is due now; return when the next event is (None: nothing pending).

        A table whose event fails (or does not move its ``due`` on) is left for the next round, one
        second later, so one broken table can neither stop the others nor spin the loop."""
        deferred: set[int] = set()
        fired: dict[int, float] = {}  # table -> the due it was fired for in this round
        while True:
            now = self.clock.now()
            async with self.store.read() as tx:
                due = [(tid, at) for tid, at in await tx.due_tables(now, BATCH + len(deferred))
                       if tid not in deferred]
            if not due:
                break
            for table_id, at in due:
                if fired.get(table_id) == at:  # fired for this very event and still due: it did not move on
                    deferred.add(table_id)
                    continue
                fired[table_id] = at
                try:
                    await self.fire(table_id)
                    self.fired += 1
                except Exception:  # one broken table must not stop the others' clocks
                    deferred.add(table_id)
                    log.exception("clock event at table %s failed", table_id)
        self._retry = bool(deferred)
        async with self.store.read() as tx:
            return await tx.next_due()

    async def _run(self) -> None:
        failed = 0
        while True:
            self._wake.clear()
            try:
                nxt = await self.run_due()
                failed = 0
            except Exception:
                failed += 1
                log.exception("deadline scheduler failed")
                nxt = self.clock.now() + min(60.0, 2.0 ** failed)
            if nxt is not None and self._retry and nxt <= self.clock.now():
                nxt = self.clock.now() + 1.0  # an event that failed stays due: retry it in a second, not in a spin
            self._target = nxt
            delay = IDLE_CAP if nxt is None else min(IDLE_CAP, max(0.0, nxt - self.clock.now()))
            if delay > 0:
                try:
                    await asyncio.wait_for(self._wake.wait(), timeout=delay)
                except TimeoutError:
                    pass
