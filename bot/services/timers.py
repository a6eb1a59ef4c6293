"""Turn timers: remind a player who has not moved for a while, and move for one who vanished.

A table's clock is its last change (``tables.updated_at``): every move and lobby change bumps
it, so a deadline needs no column of its own and survives restarts. One loop wakes for the
earliest due table; a reminder is a NEW message (edits do not notify), sent once per turn.
"""

from __future__ import annotations

import asyncio
import logging

from bot.services.tables import Tables

log = logging.getLogger(__name__)


class Timers:
    """``remind_after`` / ``autoplay_after`` are seconds of inactivity; 0 switches either off."""

    def __init__(self, tables: Tables, remind_after: float, autoplay_after: float) -> None:
        self.tables = tables
        self.remind_after = remind_after
        self.autoplay_after = autoplay_after
        self._task: asyncio.Task[None] | None = None

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
        for table_id, version, idle, reminded in await self.tables.waiting_humans():
            if self.autoplay_after and idle >= self.autoplay_after:
                await self.tables.play_for_absent(table_id, version)
                continue
            if self.remind_after and idle >= self.remind_after and reminded != version:
                await self.tables.remind(table_id, version)
            for limit in (self.remind_after, self.autoplay_after):
                if limit and idle < limit:
                    soonest = min(soonest, limit - idle)
        return max(soonest, 0.05)
