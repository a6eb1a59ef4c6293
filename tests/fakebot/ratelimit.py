"""Telegram-like flood limits: per chat (~1 msg/s with a small burst), per group (20/min), global (30/s).

Why: a bot that floods a group during a fast game gets 429s in production; tests must see them.
Rejected requests are not counted (like Telegram, roughly), and every 429 is tallied for asserts.

Paid broadcasts (a send with ``allow_paid_broadcast``, Bot API 7.11) count against a global limit of their
own (``paid_per_second``, Telegram's 1000) instead of the free 30 a second; the per-chat and group limits
hold as for any message. Each one is tallied with the Stars it costs (0.1), so tests can assert the bill.
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
    paid_per_second: int | None = 1000
    # Whether an ephemeral message (sent or edited) counts against its group's limits: Telegram does not say. True
    # is the conservative reading; False paces each receiver's ephemeral messages in a group apart, like a
    # private chat (per_chat_*), and only the global limit is shared.
    ephemeral_counts: bool = True

    @classmethod
    def off(cls) -> RateLimits:
        return cls(per_chat_per_second=None, group_per_window=None, global_per_second=None, paid_per_second=None)

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
        self._paid: deque[float] = deque()
        self.paid_messages = 0  # paid broadcasts served
        self.paid_by_chat: dict[int, int] = defaultdict(int)
        self.served_429 = 0
        self.served_429_by_chat: dict[Hashable, int] = defaultdict(int)
        self.counted: dict[Hashable, int] = defaultdict(int)

    @property
    def stars_charged(self) -> float:
        """What the paid broadcasts served cost the bot: 0.1 Telegram Star each."""
        return self.paid_messages / 10

    def check(self, chat_id: Hashable, is_group: bool, paid: bool = False) -> None:
        """Count one send/edit in ``chat_id`` (a chat's id, or any key with its own per-chat pacing; ``paid``: a
        paid broadcast) or raise ApiError(429)."""
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
        overall, limit = (self._paid, lim.paid_per_second) if paid else (self._global, lim.global_per_second)
        if limit:
            while overall and overall[0] <= now - 1.0:
                overall.popleft()
            if len(overall) >= limit:
                waits.append(overall[0] + 1.0 - now)
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
        if limit:
            overall.append(now)
        if paid:
            self.paid_messages += 1
            self.paid_by_chat[chat_id] += 1
        self.counted[chat_id] += 1
