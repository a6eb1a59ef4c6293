"""Vacations: a player away for some days has their clocks stopped, at most N days a calendar year
(``KOZYR_VACATION_DAYS``), set in the DM with ``/vacation DAYS`` and ended early with ``/vacation off``
(the days not used are given back).

How the clock stops: a turn that begins while the player is away starts its time when they are back
(``ClockService.moved`` reads the ``away`` row); a turn already running when the vacation starts has its
deadline (and its reminders) moved on by the vacation's length, and back by what is left of it when the
player returns early. Nothing is counted against them meanwhile: no deadline falls while they are away."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.services.core import TableCore
from bot.services.deadlines import Clock
from bot.services.timecontrol import next_due
from bot.store.contract import StoreTx as Tx
from bot.ui.clock_words import DAY, span
from bot.ui.i18n import t


def year_of(at: float) -> int:
    return datetime.fromtimestamp(at, UTC).year


class Vacations:
    def __init__(self, core: TableCore, clock: Clock, nudge: object, days_per_year: int) -> None:
        self.core = core
        self.store = core.store
        self.clock = clock
        self._nudge = nudge  # the deadline scheduler's nudge(due): a moved deadline may be nearer
        self.days_per_year = days_per_year

    async def _shift(self, tx: Tx, user_id: int, seconds: float) -> int:
        """Move the running turns of this player by ``seconds`` (later, or earlier when negative, never
        before now); how many."""
        now = self.clock.now()
        moved = 0
        for row in await tx.tables_of_user(user_id):
            if row.status != "playing":
                continue
            seat = next((s.seat for s in await tx.seats(row.id) if s.user_id == user_id), None)
            c = await tx.clock(row.id)
            if c is None or seat is None or c.turn_seat != seat or c.deadline is None or c.turn_start is None:
                continue
            shift = max(seconds, now - c.deadline) if seconds < 0 else seconds
            c.deadline += shift
            c.turn_start += shift
            c.due = next_due(c)
            await tx.save_clock(c)
            if c.due is not None:
                self._nudge(c.due)  # type: ignore[operator]
            moved += 1
        return moved

    async def status(self, user_id: int, lang: str) -> str:
        now = self.clock.now()
        async with self.store.read() as tx:
            away = await tx.away(user_id)
            used = await tx.vacation_days(user_id, year_of(now))
        left = max(0.0, self.days_per_year - used)
        lines = []
        if away and away[1] > now:
            lines.append(t(lang, "🏖 You are on vacation for {left} more; /vacation off to come back.",
                           left=span(away[1] - now, lang)))
        days_left = f"{left:g}"  # formatted outside the call: the catalog extractor skips f-strings inside it
        lines.append(t(lang, "Vacation days left this year: {left} of {total}. /vacation DAYS stops your clocks "
                             "for that many days.", left=days_left, total=self.days_per_year))
        return "\n".join(lines)

    async def start(self, user_id: int, days: int, lang: str) -> str:
        """Go away for ``days`` whole days (fewer if the year has fewer left)."""
        now = self.clock.now()
        if days <= 0:
            return t(lang, "Write the number of days, like /vacation 3.")
        async with self.store.transaction() as tx:
            away = await tx.away(user_id)
            if away and away[1] > now:
                return t(lang, "You are already on vacation: /vacation off first.")
            year = year_of(now)
            left = self.days_per_year - await tx.vacation_days(user_id, year)
            taken = min(float(days), left)
            if taken <= 0:
                return t(lang, "No vacation days left this year ({total} a year).", total=self.days_per_year)
            until = now + taken * DAY
            await tx.set_away(user_id, now, until)
            await tx.add_vacation_days(user_id, year, taken)
            await self._shift(tx, user_id, until - now)
        days_taken = f"{taken:g}"  # formatted outside the call, as above
        return t(lang, "🏖 Your clocks stop for {days} days, until you are back or send /vacation off.",
                 days=days_taken)

    async def end(self, user_id: int, lang: str) -> str:
        """Back early: the unused days are given back and the running turns' time starts again now."""
        now = self.clock.now()
        async with self.store.transaction() as tx:
            away = await tx.away(user_id)
            await tx.clear_away(user_id)
            if not away or away[1] <= now:
                return t(lang, "You are not on vacation.")
            unused = away[1] - max(now, away[0])
            await tx.add_vacation_days(user_id, year_of(away[0]), -unused / DAY)
            await self._shift(tx, user_id, -unused)
        return t(lang, "Welcome back: your clocks run again.")
