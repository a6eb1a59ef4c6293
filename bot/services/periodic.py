"""A background job run every N seconds until stopped (retention, the league's season clock).

A failing pass is logged and tried again at the next tick: one bad pass must never stop the job for good.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)


class Periodic:
    def __init__(self, name: str, every: Callable[[], float], step: Callable[[], Awaitable[Any]]) -> None:
        self.name, self.every, self.step = name, every, step
        self._task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=self.name)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            try:
                await self.step()
            except Exception:
                log.exception("%s: pass failed; trying again at the next tick", self.name)
            await asyncio.sleep(self.every())
