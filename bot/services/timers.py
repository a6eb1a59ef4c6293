"""Turn timers: remind a player who has not moved for a while, and move for one who vanished.

A table's clock is its last change (``tables.updated_at``): every move and lobby change bumps
it, so a deadline needs no column of its own and survives restarts. One loop wakes for the
earliest due table; a reminder is a NEW message (edits do not notify), sent once per turn.

Waiting is measured on the monotonic clock: the wall clock is read once per turn, when the timers
first see it, so a jump of the wall clock (NTP, a VM resumed, an operator) moves nothing. A turn first
seen at start counts the downtime; one already overdue then gets one move (announced as a catch-up),
and the next turn waits its full time: at most one catch-up move per table.
"""

from __future__ import annotations

import asyncio
import logging
import time

from bot.services.tables import Tables

log = logging.getLogger(__name__)


class Timers:
    """``remind_after`` / ``autoplay_after`` are seconds of inactivity; 0 switches either off."""

    def __init__(self, tables: Tables, remind_after: float, autoplay_after: float) -> None:
        self.tables = tables
        self.remind_after = remind_after
        self.autoplay_after = autoplay_after
        self._task: asyncio.Task[None] | None = None
        self.monotonic = time.monotonic
        self._seen: dict[tuple[int, int], tuple[float, float]] = {}  # (table, version) -> (first seen, idle then)
        self._last_tick: float | None = None

    def start(self) -> None:
        if self.remind_after or self.autoplay_after:
            self._task = asyncio.create_task(self._run(), name="timers")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None

    async def _run(self) -> None:
        while True:
            try:
                delay = await self.tick()
            except Exception:  # a bug here must not stop the clock for good
                log.exception("turn timers failed")
                delay = 30.0
            await asyncio.sleep(delay)

    async def tick(self) -> float:
        """Handle every table that is due; return the seconds until the next one may be."""
        # With nothing due, look again within the shortest limit: a table may start meanwhile.
        soonest = min([60.0] + [limit for limit in (self.remind_after, self.autoplay_after) if limit])
        waiting = await self.tables.waiting_humans()
        now = self.monotonic()
        startup = self._last_tick is None
        since_last = 0.0 if self._last_tick is None else max(0.0, now - self._last_tick)
        self._last_tick = now
        seen: dict[tuple[int, int], tuple[float, float]] = {}
        for table_id, version, wall_idle, reminded in waiting:
            key = (table_id, version)
            first = self._seen.get(key)
            if first is None:
                # A turn that began after the last look is at most that old, whatever the wall clock says.
                first = (now, max(0.0, wall_idle) if startup else min(max(0.0, wall_idle), since_last))
            seen[key] = first
            idle = first[1] + (now - first[0])
            if self.autoplay_after and idle >= self.autoplay_after:
                await self.tables.play_for_absent(table_id, version, catch_up=first[0] == now and startup)
                continue
            if self.remind_after and idle >= self.remind_after and reminded != version:
                await self.tables.remind(table_id, version)
            for limit in (self.remind_after, self.autoplay_after):
                if limit and idle < limit:
                    soonest = min(soonest, limit - idle)
        self._seen = seen
        return max(soonest, 0.05)
