"""A per-user command throttle: one person typing /games two thousand times must not fill the queue.

Commands (messages starting with "/") of one user pass at a sustained ``rate`` per second with a
burst of ``burst``; beyond that they are dropped silently (a reply saying "slow down" would itself be
the spam). Button presses are not throttled: each is answered at once and acts only on its own table.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import Message, TelegramObject


class CommandThrottle(BaseMiddleware):
    """Token bucket per user; the table of users is bounded (least recently seen dropped first)."""

    def __init__(self, rate: float = 1.0, burst: int = 20, users: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.users = users
        self.clock = clock
        self.dropped = 0
        self._buckets: OrderedDict[int, tuple[float, float]] = OrderedDict()

    def allow(self, user_id: int) -> bool:
        now = self.clock()
        tokens, at = self._buckets.pop(user_id, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - at) * self.rate)
        allowed = tokens >= 1.0
        self._buckets[user_id] = (tokens - 1.0 if allowed else tokens, now)
        while len(self._buckets) > self.users:
            self._buckets.popitem(last=False)
        return allowed

    async def __call__(self, handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
                       event: TelegramObject, data: dict[str, Any]) -> Any:
        if isinstance(event, Message) and event.from_user is not None and (event.text or "").startswith("/"):
            if not self.allow(event.from_user.id):
                self.dropped += 1
                return None
        return await handler(event, data)
