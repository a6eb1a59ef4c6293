"""Clocks that forgive: a player's vacation stops their clocks (at most N days a calendar year, days not
used given back), and a deadline that fell while the bot was down or paused is no strike."""

from __future__ import annotations

import pytest

from bot.app import Services, build_services
from bot.services.deadlines import FakeClock
from bot.services.outbox import Outbox, RateLimiter
from bot.store.sqlite import Store
from tests.bot.harness import settle
from tests.bot.test_clocks import ANN, BOB, DAY, HOUR, T0, _clock, _quiet, _table, _to_act
from tests.fakebot.ratelimit import RateLimits


async def _services(path, clock: FakeClock, days: int = 10) -> tuple[Store, Services]:
    store = await Store(path).open()
    services = build_services(store, Outbox(store, None, RateLimiter(0, 1, 1)), "kozyr_test_bot",  # type: ignore[arg-type]
                              ai_delay=0.0, clock=clock, default_per_move=HOUR, vacation_days=days)
    return store, services


async def test_a_vacation_moves_the_running_deadline_and_starts_new_turns_when_back(tmp_path):
    clock = FakeClock(T0)
    store, services = await _services(tmp_path / "k.sqlite3", clock)
    vacations = services.vacations
    assert vacations is not None and services.clocks is not None
    try:
        table_id = await _table(services, [ANN, BOB], 1)
        to_act, version = await _to_act(store, services, table_id)
        player, other = (ANN, BOB) if to_act == 0 else (BOB, ANN)
        before = await _clock(store, table_id)
        assert before.deadline == T0 + HOUR
        assert "for 3 days" in await vacations.start(player.user_id, 3, "en")
        moved = await _clock(store, table_id)
        assert moved.deadline == before.deadline + 3 * DAY and moved.turn_start == T0 + 3 * DAY
        # nothing falls due while away: a day later the scheduler plays nothing
        clock.advance(DAY)
        await services.clocks.scheduler.run_due()
        assert (await _clock(store, table_id)).deadline == moved.deadline
        assert "already on vacation" in await vacations.start(player.user_id, 1, "en")
        # back after one day: two days given back, the turn has what it had left
        assert "Welcome back" in await vacations.end(player.user_id, "en")
        back = await _clock(store, table_id)
        assert back.deadline == clock.now() + HOUR
        async with store.read() as tx:
            assert await tx.vacation_days(player.user_id, 2026) == pytest.approx(1.0)
            assert await tx.away(player.user_id) is None
        # the player moves; when the other one is on vacation, their turn starts when they are back
        assert "for 2 days" in await vacations.start(other.user_id, 2, "en")
        _, version = await _to_act(store, services, table_id)
        assert not (await services.play.press(table_id, version, 0, player, "en")).alert
        await _quiet(services)
        c = await _clock(store, table_id)
        away_seat = 1 - (to_act or 0)
        if c.turn_seat == away_seat:  # the player on vacation is next: their time starts when they are back
            assert c.turn_start == clock.now() + 2 * DAY and c.deadline == c.turn_start + HOUR
        else:
            assert c.turn_seat == to_act and c.turn_start == clock.now()
    finally:
        await services.stop()
        await store.close()


async def test_vacation_days_are_capped_per_year(tmp_path):
    clock = FakeClock(T0)
    store, services = await _services(tmp_path / "k.sqlite3", clock, days=5)
    vacations = services.vacations
    assert vacations is not None
    try:
        assert "for 4 days" in await vacations.start(ANN.user_id, 4, "en")
        clock.advance(5 * DAY)
        assert "1 of 5" in await vacations.status(ANN.user_id, "en")
        assert "for 1 days" in await vacations.start(ANN.user_id, 9, "en")  # only what is left
        clock.advance(2 * DAY)
        assert "No vacation days left" in await vacations.start(ANN.user_id, 1, "en")
        assert "Write the number of days" in await vacations.start(ANN.user_id, 0, "en")
        clock.advance(365 * DAY)  # a new year, new days
        assert "for 2 days" in await vacations.start(ANN.user_id, 2, "en")
    finally:
        await services.stop()
        await store.close()


async def test_a_deadline_that_fell_while_the_bot_was_down_is_no_strike(tmp_path):
    path = tmp_path / "k.sqlite3"
    clock = FakeClock(T0)
    store, services = await _services(path, clock)
    try:
        table_id = await _table(services, [ANN, BOB], 1, {"st": 3})  # strikes 3 -> 5 -> 0 -> 1: one strike
        c = await _clock(store, table_id)
        assert c.strikes == 1 and c.deadline is not None
        deadline = c.deadline
    finally:
        await services.stop()
        await store.close()
    # the bot comes back two hours after the deadline: the catch-up move is played, nobody is struck
    later = FakeClock(deadline + 2 * HOUR)
    store, services = await _services(path, later)
    assert services.clocks is not None
    try:
        await services.clocks.scheduler.run_due()
        await _quiet(services)
        after = await _clock(store, table_id)
        assert after.missed == {} or set(after.missed.values()) == {0}
        async with store.read() as tx:
            row = await tx.table(table_id)
        assert row is not None and row.ui.autopilot == []  # no hand-over
        # a deadline missed while the bot runs still counts: the seat goes to the AI
        c = await _clock(store, table_id)
        assert c.deadline is not None
        later.advance(c.deadline - later.now())
        await services.clocks.scheduler.run_due()
        await _quiet(services)
        async with store.read() as tx:
            row = await tx.table(table_id)
        assert row is not None and row.ui.autopilot != []
    finally:
        await services.stop()
        await store.close()


async def test_a_deadline_handled_long_after_it_fell_while_running_is_no_strike(tmp_path):
    """The process was paused (a stopped container, a suspended host): the scheduler wakes late."""
    clock = FakeClock(T0)
    store, services = await _services(tmp_path / "k.sqlite3", clock)
    assert services.clocks is not None
    try:
        table_id = await _table(services, [ANN, BOB], 1, {"st": 3})
        c = await _clock(store, table_id)
        assert c.deadline is not None
        clock.advance(c.deadline - clock.now() + 3 * HOUR)
        await services.clocks.scheduler.run_due()
        await _quiet(services)
        async with store.read() as tx:
            row = await tx.table(table_id)
        assert row is not None and row.ui.autopilot == []
        lines = [x for x in await _all_sent(store) if "no strike" in x]
        assert lines
    finally:
        await services.stop()
        await store.close()


async def _all_sent(store: Store) -> list[str]:
    async with store.read() as tx:
        rows = await tx._all("SELECT payload FROM outbox WHERE method = 'send' ORDER BY id")
    return [r["payload"] for r in rows]


@pytest.mark.fake(limits=RateLimits.loose())
async def test_vacation_in_the_dm_over_the_bot_api(fake, app):
    ann = fake.user(first_name="Ann")
    await ann.start_bot()
    await settle(fake, app)
    await ann.send(ann.dm, "/vacation")
    await settle(fake, app)
    assert "Vacation days left this year: 14 of 14" in ann.last_dm().content
    await ann.send(ann.dm, "/vacation 2")
    await settle(fake, app)
    assert "clocks stop for 2 days" in ann.last_dm().content
    await ann.send(ann.dm, "/vacation off")
    await settle(fake, app)
    assert "Welcome back" in ann.last_dm().content
    group = fake.group("G", members=[], creator=ann)
    await ann.send(group, "/vacation 2")
    await settle(fake, app)
    assert "private chat" in group.messages()[-1].content
