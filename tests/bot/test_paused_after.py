"""KOZYR_PAUSED_AFTER: how late a deadline may be handled before the bot counts as having been stopped
(the move is played, but it is no strike). The same minute-late deadline is a strike under the default
of 120 s and forgiven under a 30 s setting."""

from __future__ import annotations

from bot.app import build_services
from bot.config import Settings
from bot.services.ai_seats import AiSeats
from bot.services.deadlines import FakeClock
from bot.services.outbox import Outbox, RateLimiter
from bot.store.sqlite import Store
from tests.bot.test_clocks import ANN, GROUP, HOUR, T0, _clock, _quiet, _sent, _table


async def _late_deadline(path, paused_after: float | None) -> tuple[bool, list[str]]:
    """One human and two AI seats; the human's deadline is handled a minute late. Whether it counted as a
    missed deadline (a strike), and the group's "ran out of time" lines."""
    store = await Store(path).open()
    clock = FakeClock(T0)
    extra = {} if paused_after is None else {"paused_after": paused_after}
    tables = build_services(store, Outbox(store, None, RateLimiter(0, 1, 1)), "kozyr_test_bot",  # type: ignore[arg-type]
                            ai_delay=0.0, clock=clock, default_per_move=HOUR, ai=AiSeats(think_ms=5.0), **extra)
    assert tables.clocks is not None
    try:
        table_id = await _table(tables, [ANN], 2)
        c = await _clock(store, table_id)
        assert c.turn_seat == 0 and c.deadline is not None
        clock.advance(c.deadline + 60 - clock.now())
        await tables.clocks.fire(table_id)  # the reminder was never sent: the deadline's move comes first
        c = await _clock(store, table_id)
        if c.due is not None and c.due <= clock.now():
            await tables.clocks.fire(table_id)
        await _quiet(tables)
        missed = int((await _clock(store, table_id)).missed.get("0", 0))
        return missed == 1, [x for x in await _sent(store, GROUP) if "ran out of time" in x]
    finally:
        await tables.stop()
        await store.close()


async def test_a_minute_late_deadline_is_a_strike_by_default_and_forgiven_with_a_shorter_setting(tmp_path):
    struck, lines = await _late_deadline(tmp_path / "default.sqlite3", None)
    assert struck and len(lines) == 1 and "while I was down" not in lines[0]
    struck, lines = await _late_deadline(tmp_path / "short.sqlite3", 30.0)
    assert not struck and len(lines) == 1 and "while I was down" in lines[0]


def test_the_setting_is_read_from_the_environment_and_checked(monkeypatch):
    base = {"BOT_TOKEN": "123456:" + "a" * 30}
    assert Settings(_env_file=None, **base).paused_after == 120.0  # type: ignore[call-arg]
    monkeypatch.setenv("KOZYR_PAUSED_AFTER", "45")
    monkeypatch.delenv("BOT_TOKEN", raising=False)
    assert Settings(_env_file=None, **base).paused_after == 45.0  # type: ignore[call-arg]
