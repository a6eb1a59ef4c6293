"""Clocks with a fake clock: stored deadlines across a restart, reminders and quiet hours, the
N-strikes rule, the pause vote, the creator's extension, the bank, and no double fire.

The real SQLite store and services (``bot.app.build_services``) run; the outbox is not started, so what
the bot would send is read from the outbox table."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

from bot.app import Services, build_services
from bot.services.ai_seats import AiSeats
from bot.services.clocks import ClockService
from bot.services.deadlines import FakeClock
from bot.services.outbox import Outbox, RateLimiter
from bot.services.quiet import quiet_until
from bot.services.types import Actor, Where
from bot.store.rows import ClockRow, Prefs
from bot.store.sqlite import Store

GROUP = -1001
ANN, BOB, CARL = Actor(11, "Ann", "en"), Actor(12, "Bob", "en"), Actor(13, "Carl", "en")
T0 = datetime(2026, 1, 15, 8, 0, tzinfo=UTC).timestamp()
HOUR, DAY = 3600.0, 86400.0


async def _service(path, now: float, per_move: float = HOUR) -> tuple[Store, Services, ClockService, FakeClock]:
    store = await Store(path).open()
    clock = FakeClock(now)
    tables = build_services(store, Outbox(store, None, RateLimiter(0, 1, 1)), "kozyr_test_bot",  # type: ignore[arg-type]
                            ai_delay=0.0, clock=clock, default_per_move=per_move,
                            ai=AiSeats(think_ms=5.0))  # the AI searches briefly, as the harness's bots do
    assert tables.clocks is not None
    return store, tables, tables.clocks, clock


async def _quiet(tables: Services) -> None:
    for _ in range(2000):
        if not tables.play.ai_busy():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("AI seats never stopped")


async def _table(tables: Services, humans: list[Actor], ais: int, clock_presses: dict[str, int] | None = None) -> int:
    where = Where(GROUP, 0, "Cards", "en")
    async with tables.core.store.transaction() as tx:
        await tx.ensure_chat(GROUP, "Cards", "en")
    await tables.lobby.new_table(where, humans[0], "carnival", ["quarters=1"])
    table_id = await tables.lobby.open_table_id(where)
    assert table_id is not None
    for other in humans[1:]:
        assert (await tables.lobby.join(table_id, other, "en")).text == "You are in."
    for _ in range(ais):
        await tables.lobby.add_ai(table_id, humans[0], "en")
    assert tables.clocks is not None
    for key, times in (clock_presses or {}).items():
        for _ in range(times):
            answer = await tables.clocks.lobby_clock(table_id, humans[0], "en", key, False)
            assert not answer.alert, answer.text
    assert not (await tables.lobby.start(table_id, humans[0], "en", False)).alert
    await _quiet(tables)
    return table_id


async def _clock(store: Store, table_id: int) -> ClockRow:
    async with store.read() as tx:
        c = await tx.clock(table_id)
    assert c is not None
    return c


async def _sent(store: Store, chat_id: int) -> list[str]:
    async with store.read() as tx:
        rows = await tx._all("SELECT payload FROM outbox WHERE chat_id = ? AND method = 'send' ORDER BY id", chat_id)
    return [json.loads(r["payload"])["text"] for r in rows]


async def _human_moves(store: Store, table_id: int, seats: tuple[int, ...]) -> int:
    async with store.read() as tx:
        rows = await tx._all(f"SELECT COUNT(*) AS n FROM actions WHERE table_id = ? AND seat IN "
                             f"({', '.join('?' for _ in seats)})", table_id, *seats)
    return rows[0]["n"]


async def _to_act(store: Store, tables: Services, table_id: int) -> tuple[int | None, int]:
    async with store.read() as tx:
        row = await tx.table(table_id)
    assert row is not None
    return tables.core.state(row).to_act, row.version


async def test_a_deadline_that_passed_while_down_fires_once_at_start_and_never_again(tmp_path):
    db = tmp_path / "k.sqlite3"
    store, tables, clocks, clock = await _service(db, T0)
    table_id = await _table(tables, [ANN], 2)
    c = await _clock(store, table_id)
    assert c.turn_seat == 0 and c.deadline == T0 + HOUR and c.due == T0 + HOUR / 2
    await store.close()

    # Down for two days: the deadline passed meanwhile. The next process starts later.
    store, tables, clocks, clock = await _service(db, T0 + 2 * DAY)
    try:
        before = await _human_moves(store, table_id, (0,))
        await asyncio.gather(clocks.scheduler.run_due(), clocks.scheduler.run_due(), clocks.fire(table_id))
        await _quiet(tables)
        assert await _human_moves(store, table_id, (0,)) == before + 1
        lines = [x for x in await _sent(store, GROUP) if "ran out of time" in x]
        assert len(lines) == 1 and "while I was down" in lines[0]
        assert 'href="tg://user?id=11"' in lines[0]
        assert not [x for x in await _sent(store, ANN.user_id) if x.startswith("⏰")], "stale reminders were sent"
        # The next turn has its full time: nothing more is due now, however often the scheduler looks.
        c = await _clock(store, table_id)
        assert c.deadline is not None and c.deadline >= T0 + 2 * DAY + HOUR
        for _ in range(3):
            await clocks.scheduler.run_due()
        assert await _human_moves(store, table_id, (0,)) == before + 1
    finally:
        await tables.stop()
        await store.close()


async def test_reminders_at_half_time_and_near_the_deadline_each_once(tmp_path):
    store, tables, clocks, clock = await _service(tmp_path / "k.sqlite3", T0)
    try:
        table_id = await _table(tables, [ANN], 2)
        clock.advance(HOUR * 0.5)
        assert await clocks.scheduler.run_due() == T0 + 0.9 * HOUR
        await clocks.scheduler.run_due()
        reminders = [x for x in await _sent(store, ANN.user_id) if x.startswith("⏰")]
        assert len(reminders) == 1 and "30 min left" in reminders[0] and "Cards" in reminders[0]
        clock.advance(HOUR * 0.4)
        await clocks.scheduler.run_due()
        reminders = [x for x in await _sent(store, ANN.user_id) if x.startswith("⏰")]
        assert len(reminders) == 2 and "6 min left" in reminders[1]
        assert await _human_moves(store, table_id, (0,)) == 0
        assert (await _clock(store, table_id)).due == T0 + HOUR
    finally:
        await tables.stop()
        await store.close()


def test_quiet_hours_across_midnight_in_two_time_zones():
    # 23:00-08:00 local. 20:30 UTC is 23:30 in Moscow (quiet until 05:00 UTC) and 15:30 in New York.
    at = datetime(2026, 1, 15, 20, 30, tzinfo=UTC).timestamp()
    moscow = quiet_until(at, "Europe/Moscow", 23 * 60, 8 * 60)
    assert moscow == datetime(2026, 1, 16, 5, 0, tzinfo=UTC).timestamp()
    assert quiet_until(at, "America/New_York", 23 * 60, 8 * 60) == at
    # 04:30 UTC: 07:30 in Moscow (quiet for 30 more minutes), 23:30 in New York (quiet until 13:00 UTC).
    late = datetime(2026, 1, 16, 4, 30, tzinfo=UTC).timestamp()
    assert quiet_until(late, "Europe/Moscow", 23 * 60, 8 * 60) == late + 1800
    assert quiet_until(late, "America/New_York", 23 * 60, 8 * 60) == datetime(2026, 1, 16, 13, 0,
                                                                               tzinfo=UTC).timestamp()
    # A fixed offset works the same way; no quiet hours: never held back.
    assert quiet_until(at, "+03:00", 23 * 60, 8 * 60) == moscow
    assert quiet_until(at, "Europe/Moscow", None, None) == at


async def test_a_reminder_in_quiet_hours_waits_for_their_end_and_one_too_late_is_dropped(tmp_path):
    store, tables, clocks, clock = await _service(tmp_path / "k.sqlite3", T0, per_move=DAY)
    try:
        async with store.transaction() as tx:
            await tx.save_prefs(ANN.user_id, Prefs("Europe/Moscow", 23 * 60, 8 * 60))
        table_id = await _table(tables, [ANN], 2)
        # Half time is 20:00 UTC = 23:00 in Moscow: quiet. It waits until 08:00 Moscow = 05:00 UTC.
        clock.advance(12 * HOUR)
        await clocks.scheduler.run_due()
        assert not [x for x in await _sent(store, ANN.user_id) if x.startswith("⏰")]
        assert (await _clock(store, table_id)).due == datetime(2026, 1, 16, 5, 0, tzinfo=UTC).timestamp()
        clock.advance(9 * HOUR)  # 05:00 UTC
        await clocks.scheduler.run_due()
        assert len([x for x in await _sent(store, ANN.user_id) if x.startswith("⏰")]) == 1
        c = await _clock(store, table_id)
        assert c.stage == 1 and c.due == T0 + 0.9 * DAY  # the last reminder at 05:36 UTC = 08:36 Moscow
    finally:
        await tables.stop()
        await store.close()


async def _miss(clocks: ClockService, clock: FakeClock, tables: Services, store: Store, table_id: int) -> None:
    c = await _clock(store, table_id)
    assert c.deadline is not None
    clock.advance(c.deadline - clock.now())
    await clocks.scheduler.run_due()
    await _quiet(tables)


async def test_n_missed_deadlines_in_a_row_hand_the_seat_to_the_ai(tmp_path):
    store, tables, clocks, clock = await _service(tmp_path / "k.sqlite3", T0)
    try:
        table_id = await _table(tables, [ANN], 2, {"st": 4})  # strikes 3 -> 5 -> 0 -> 1 -> 2
        assert (await _clock(store, table_id)).strikes == 2
        await _miss(clocks, clock, tables, store, table_id)
        assert (await _clock(store, table_id)).missed == {"0": 1}
        # Ann moves herself: the count starts over.
        to_act, version = await _to_act(store, tables, table_id)
        assert to_act == 0
        assert not (await tables.play.press(table_id, version, 0, ANN, "en")).alert
        await _quiet(tables)
        assert (await _clock(store, table_id)).missed == {}
        await _miss(clocks, clock, tables, store, table_id)
        assert not any("missed too many" in x for x in await _sent(store, GROUP))
        await _miss(clocks, clock, tables, store, table_id)
        told = [x for x in await _sent(store, GROUP) if "missed too many" in x]
        assert len(told) == 1 and "rest of the game" in told[0]
        async with store.read() as tx:
            row = await tx.table(table_id)
        assert row is not None and row.ui.autopilot == [0]
        # From now on the AI plays the seat: no deadline runs for it, and the game goes on without Ann.
        assert (await _clock(store, table_id)).due is None
        async with store.read() as tx:
            row = await tx.table(table_id)
            seat0 = await tx._all("SELECT COUNT(*) AS n FROM actions WHERE table_id = ? AND seat = 0", table_id)
        assert row is not None and row.status == "finished", "the AI seats and Ann's autopilot play to the end"
        assert seat0[0]["n"] > 4  # 4 moves up to the hand-over (3 at deadlines, 1 pressed); the AI went on
    finally:
        await tables.stop()
        await store.close()


async def test_a_majority_vote_pauses_and_resumes_the_clock(tmp_path):
    store, tables, clocks, clock = await _service(tmp_path / "k.sqlite3", T0)
    try:
        table_id = await _table(tables, [ANN, BOB], 1)
        c = await _clock(store, table_id)
        assert (await clocks.vote(table_id, CARL, True, "en")).alert  # not seated: no vote
        clock.advance(600)
        await clocks.vote(table_id, ANN, True, "en")
        assert not (await _clock(store, table_id)).paused  # 1 of 2: no majority yet
        await clocks.vote(table_id, ANN, True, "en")  # voting twice counts once
        assert not (await _clock(store, table_id)).paused
        # A move meanwhile does not forget the vote.
        to_act, version = await _to_act(store, tables, table_id)
        assert not (await tables.play.press(table_id, version, 0, [ANN, BOB][to_act or 0], "en")).alert
        await _quiet(tables)
        c = await _clock(store, table_id)
        assert c.votes == [ANN.user_id] and c.deadline is not None
        await clocks.vote(table_id, BOB, True, "en")
        paused = await _clock(store, table_id)
        assert paused.paused and paused.due is None and paused.time_left == c.deadline - (T0 + 600)
        clock.advance(10 * DAY)
        await clocks.scheduler.run_due()
        assert await _human_moves(store, table_id, (0, 1)) == 1  # only the move pressed above
        await clocks.vote(table_id, BOB, False, "en")
        await clocks.vote(table_id, ANN, False, "en")
        running = await _clock(store, table_id)
        assert not running.paused and running.deadline == clock.now() + paused.time_left
        assert any("paused by vote" in x for x in await _sent(store, GROUP))
    finally:
        await tables.stop()
        await store.close()


async def test_the_creator_extends_a_deadline_once(tmp_path):
    store, tables, clocks, clock = await _service(tmp_path / "k.sqlite3", T0)
    try:
        table_id = await _table(tables, [ANN, BOB], 1)
        before = (await _clock(store, table_id)).deadline
        assert before is not None
        assert (await clocks.extend(table_id, BOB, "en")).alert  # not the creator
        assert not (await clocks.extend(table_id, ANN, "en")).alert
        assert (await _clock(store, table_id)).deadline == before + HOUR
        again = await clocks.extend(table_id, ANN, "en")
        assert again.alert and "already" in again.text
        assert (await _clock(store, table_id)).deadline == before + HOUR
    finally:
        await tables.stop()
        await store.close()


async def test_a_slow_move_eats_the_bank(tmp_path):
    store, tables, clocks, clock = await _service(tmp_path / "k.sqlite3", T0, per_move=60.0)
    try:
        table_id = await _table(tables, [ANN], 2, {"bk": 1})  # bank 5 min
        c = await _clock(store, table_id)
        assert c.bank == 300 and c.deadline == T0 + 60 + 300
        clock.advance(100)  # 40 s over the time per move
        to_act, version = await _to_act(store, tables, table_id)
        await tables.play.press(table_id, version, 0, ANN, "en")
        await _quiet(tables)
        c = await _clock(store, table_id)
        assert c.banks == {"0": 260.0}
        if c.turn_seat == 0:
            assert c.deadline == c.turn_start + 60 + 260
    finally:
        await tables.stop()
        await store.close()


async def test_the_table_caption_shows_the_time_control_in_the_chat_language(tmp_path):
    from bot.render.table import layout_table
    from bot.services.pictures import Pictures

    store = await Store(tmp_path / "k.sqlite3").open()
    tables = build_services(store, Outbox(store, None, RateLimiter(0, 1, 1)), "kozyr_test_bot",  # type: ignore[arg-type]
                            ai_delay=0.0, pictures=Pictures(), clock=FakeClock(T0), default_per_move=2 * DAY)
    try:
        async with store.transaction() as tx:
            await tx.ensure_chat(GROUP, "Cards", "ru")
        await _table(tables, [ANN], 2, {"bk": 2})  # bank 1 h
        async with store.read() as tx:
            rows = await tx._all("SELECT payload FROM outbox WHERE chat_id = ? AND method = 'photo'", GROUP)
        captions = [json.loads(r["payload"])["caption"] for r in rows]
        assert captions and captions[0].endswith("⏱ 2 д на ход + запас 1 ч")
        # ... and the picture itself draws it (the issue: "shown on the table picture").
        spec = json.loads(rows[0]["payload"])["picture"]
        drawn = layout_table(spec["view"], spec["names"], spec["lang"]).texts
        assert [d.text for d in drawn if d.kind == "clock"] == ["⏱ 2 д на ход + запас 1 ч"]
        assert Pictures.render(spec).startswith(b"\x89PNG")
    finally:
        await tables.stop()
        await store.close()


async def test_after_the_strikes_someone_not_seated_may_take_the_seat(tmp_path):
    store, tables, clocks, clock = await _service(tmp_path / "k.sqlite3", T0)
    try:
        # strikes 3 -> 5 -> 0 -> 1; then: someone may take the seat. Bob sits at seat 1, Ann is to act.
        table_id = await _table(tables, [ANN, BOB], 1, {"st": 3, "ab": 1})
        await _miss(clocks, clock, tables, store, table_id)
        offer = [x for x in await _sent(store, GROUP) if "until someone takes it" in x]
        assert len(offer) == 1
        async with store.read() as tx:
            payload = json.loads((await tx._one("SELECT payload FROM outbox WHERE payload LIKE '%until someone%'"))
                                 ["payload"])
        assert "ts:" in json.dumps(payload["markup"])
        to_act, version = await _to_act(store, tables, table_id)
        refused = await tables.play.press(table_id, version, 0, ANN, "en")  # Ann lost the seat: her buttons are dead
        assert refused.alert and "The AI plays your seat now" in refused.text
        seat = 0
        assert (await clocks.take_seat(table_id, seat, BOB, "en")).alert  # already seated
        assert (await clocks.take_seat(table_id, 2, CARL, "en")).alert  # the AI's own seat is not offered
        async with store.transaction() as tx:  # Ann's current hand message was delivered (message 77)...
            await tx.set_slot(f"h{table_id}:0:{(await tx.table(table_id)).ui.hand_deal}", ANN.user_id, 77)
            # ...and an update of it is still queued (her DM is slow)
            await tx.enqueue(ANN.user_id, "edit", {"text": "old"}, slot="x", merge_key=f"slot:h{table_id}:0:9")
        assert not (await clocks.take_seat(table_id, seat, CARL, "en")).alert
        assert (await clocks.take_seat(table_id, seat, Actor(14, "Dan", "en"), "en")).alert  # taken already
        async with store.read() as tx:
            seats = await tx.seats(table_id)
            row = await tx.table(table_id)
        assert row is not None and seats[0].user_id == CARL.user_id and row.ui.autopilot == []
        assert any("Carl takes the seat of Ann" in x for x in await _sent(store, GROUP))
        assert await _sent(store, CARL.user_id), "Carl got his hand"
        async with store.read() as tx:
            ann_rows = await tx._all("SELECT method, merge_key, payload FROM outbox WHERE chat_id = ? "
                                     "AND status = 'pending'", ANN.user_id)
            mapped = await tx._all("SELECT chat_id FROM slots WHERE slot LIKE ?", f"h{table_id}:0:%")
        # Nothing of Carl's reaches Ann: her queued hand update is gone, her old keyboard is cleared, and the
        # seat's hand slot no longer names her message.
        assert not [r for r in ann_rows if (r["merge_key"] or "").startswith(f"slot:h{table_id}:0:")]
        assert ("clear_markup", {"message_id": 77}) in [(r["method"], json.loads(r["payload"])) for r in ann_rows]
        assert all(r["chat_id"] != ANN.user_id for r in mapped)
        assert (await _clock(store, table_id)).missed == {}
    finally:
        await tables.stop()
        await store.close()
