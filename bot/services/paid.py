"""Paid broadcasts (Bot API 7.11, ``allow_paid_broadcast``): past Telegram's free ~30 messages a second in
all, a new message may go at once for 0.1 Telegram Star instead of waiting, up to 1000 a second.

Why: the free rate caps one bot token at about ten moves a second however fast the machine (bench/bot.py
prints the ceiling). The operator opts in with an hourly Stars budget (``KOZYR_PAID_BROADCAST_STARS_PER_HOUR``,
0 = off). Only sends carry the parameter (sendMessage, sendPhoto, sendDocument...): an edit, a deletion or a
callback answer cannot be paid for and always waits for the free rate.

The budget is counted per clock hour in the database (``paid_spend``), which every worker shares, taken in
chunks of ``CHUNK`` messages: a restart does not give the hour's Stars back (at worst it leaves the rest of a
taken chunk unspent), and several workers never spend more than the budget together.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from bot.store.contract import Store

STAR_TENTHS_PER_MESSAGE = 1  # 0.1 Star a message (Telegram's price), counted in tenths to stay exact
PAID_PER_SECOND = 1000  # Telegram's rate for paid broadcasts
PAYABLE = frozenset({"send", "photo", "document"})  # outbox methods whose Bot API call may be paid for


def messages_per_hour(stars_per_hour: float) -> int:
    """How many paid messages an hourly budget of Stars buys."""
    return int(stars_per_hour * 10 / STAR_TENTHS_PER_MESSAGE + 1e-9)


def stars(messages: int) -> float:
    return messages * STAR_TENTHS_PER_MESSAGE / 10


Take = Callable[[int, int, int], Awaitable[int]]  # (hour, wanted, the hour's limit) -> messages granted


class PaidBudget:
    """This process's share of the hour's paid messages, taken from the shared count ``CHUNK`` at a time."""

    CHUNK = 10  # messages (1 Star) taken from the database at a time: one write per ten paid messages

    def __init__(self, per_hour: int, take: Take, clock: Callable[[], float] = time.time) -> None:
        self.per_hour = per_hour
        self._take = take
        self.clock = clock
        self.hour = -1
        self.left = 0  # messages taken for ``hour`` and not yet sent
        self.spent_out = -1  # an hour whose budget is spent: not asked again before the next one
        self.paid = 0  # paid messages this process sent (for /status and the bench)
        self.refused = 0  # messages that wanted to be paid for but the budget was spent: they waited

    @property
    def on(self) -> bool:
        return self.per_hour > 0

    def spent(self) -> bool:
        """Whether this hour's budget is known to be spent (nothing more is paid before the next hour)."""
        return self.spent_out == int(self.clock() // 3600)

    async def take(self) -> bool:
        """One paid message, if the hour's budget has one left (then True: send it paid)."""
        if self.per_hour <= 0:
            return False
        hour = int(self.clock() // 3600)
        if hour != self.hour:  # what was left of the last hour's chunk belongs to that hour
            self.hour, self.left = hour, 0
        if self.left == 0:
            got = 0 if self.spent_out == hour else await self._take(hour, min(self.CHUNK, self.per_hour),
                                                                     self.per_hour)
            if got <= 0:
                self.spent_out = hour
                self.refused += 1
                return False
            self.left = got
        self.left -= 1
        self.paid += 1
        return True


def store_budget(store: Store, stars_per_hour: float) -> PaidBudget:
    """The budget counted in ``store`` (``paid_spend``; PostgreSQL when several workers share it)."""

    async def take(hour: int, wanted: int, limit: int) -> int:
        async with store.transaction() as tx:
            return await tx.take_paid(hour, wanted, limit)

    return PaidBudget(messages_per_hour(stars_per_hour), take)
