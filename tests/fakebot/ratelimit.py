"""Telegram-like flood limits: per chat (~1 msg/s with a small burst), per group (20/min), global (30/s).

Why: a bot that floods a group during a fast game gets 429s in production; tests must see them.
Rejected requests are not counted (like Telegram, roughly), and every 429 is tallied for asserts.
"""

from __future__ import annotations

import math
from collections import defaultdict, deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from .errors import ApiError


@dataclass
class RateLimits:
    """Limits; ``None`` disables a limit.  Defaults approximate Telegram's documented behaviour."""

    per_chat_per_second: float | None = 1.0
    per_chat_burst: int = 5
    group_per_window: int | None = 20
    group_window: float = 60.0
    global_per_second: int | None = 30
    count_edits: bool = True
    # Whether an ephemeral message (sent or edited) counts against its group's limits: Telegram does not say. True
    # is the conservative reading; False paces each receiver's ephemeral messages in a group apart, like a
    # private chat (per_chat_*), and only the global limit is shared.
    ephemeral_counts: bool = True

    @classmethod
    def off(cls) -> RateLimits:
        return cls(per_chat_per_second=None, group_per_window=None, global_per_second=None)

    @classmethod
    def loose(cls) -> RateLimits:
        """Generous limits for fast game simulations that still catch runaway loops."""
        return cls(per_chat_per_second=50.0, per_chat_burst=200, group_per_window=2000, group_window=60.0,
                   global_per_second=500)


class RateLimiter:
    def __init__(self, limits: RateLimits, clock: Callable[[], float]) -> None:
        self.limits = limits
        self.clock = clock
        self._buckets: dict[Hashable, tuple[float, float]] = {}  # chat -> (tokens, last time)
        self._group: dict[Hashable, deque[float]] = defaultdict(deque)
        self._global: deque[float] = deque()
        self.served_429 = 0
        self.served_429_by_chat: dict[Hashable, int] = defaultdict(int)
        self.counted: dict[Hashable, int] = defaultdict(int)

    def check(self, chat_id: Hashable, is_group: bool) -> None:
        """Count one send/edit in ``chat_id`` (a chat's id, or any key with its own per-chat pacing) or raise
        ApiError(429)."""
        lim = self.limits
        now = self.clock()
        waits: list[float] = []
        tokens = None
        if lim.per_chat_per_second:
            tokens, last = self._buckets.get(chat_id, (float(lim.per_chat_burst), now))
            tokens = min(float(lim.per_chat_burst), tokens + (now - last) * lim.per_chat_per_second)
            if tokens < 1.0:
                waits.append((1.0 - tokens) / lim.per_chat_per_second)
        if is_group and lim.group_per_window:
            q = self._group[chat_id]
            while q and q[0] <= now - lim.group_window:
                q.popleft()
            if len(q) >= lim.group_per_window:
                waits.append(q[0] + lim.group_window - now)
        if lim.global_per_second:
            while self._global and self._global[0] <= now - 1.0:
                self._global.popleft()
            if len(self._global) >= lim.global_per_second:
                waits.append(self._global[0] + 1.0 - now)
        if waits:
            self.served_429 += 1
            self.served_429_by_chat[chat_id] += 1
            if tokens is not None:
                self._buckets[chat_id] = (tokens, now)
            retry = max(1, math.ceil(max(waits)))
            raise ApiError(429, f"Too Many Requests: retry after {retry}", {"retry_after": retry})
        if tokens is not None:
            self._buckets[chat_id] = (tokens - 1.0, now)
        if is_group and lim.group_per_window:
            self._group[chat_id].append(now)
        if lim.global_per_second:
            self._global.append(now)
        self.counted[chat_id] += 1
