"""Faults that lose or stall play, driving the real bot over the fake Bot API: an outside
write lock, a kicked bot, a wall-clock jump (and the catch-up after downtime), an oversized reply."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time

import pytest

from tests.bot.harness import live_hand, open_table_in, play_buttons, settle
from tests.bot.helpers import answered, db_rows, not_modified_only
from tests.fakebot.ratelimit import RateLimits


async def _carnival_with_two_ai(fake, app, group, ann):
    lobby = (await open_table_in(fake, app, "carnival", [ann], ais=2, options="quarters=1", group=group)).lobby
    await settle(fake, app)
    return lobby


def _moves(db) -> int:
    return db_rows(db, "SELECT COUNT(*) FROM actions")[0][0]


async def _press_any(fake, user):
    found = live_hand([user])
    assert found is not None, "the player has no live keyboard"
    _, message = found
    data = play_buttons(message)[0]["callback_data"]
    return await user.press(message, lambda b: b.get("callback_data") == data)


@pytest.mark.fake(limits=RateLimits.loose())
async def test_item9_an_outside_write_lock_stalls_nothing_and_the_ai_moves_after_it(fake, run_bot, db):
    """Another process holds the write lock for 6 s (longer than the old 5 s busy timeout): the event
    loop stays free, the player's move is applied once the lock goes, the AI seats then move, and no
    outbox row is marked failed."""
    ann = fake.user(first_name="Ann")
    group = fake.group("Cards", creator=ann)
    async with run_bot(KOZYR_AI_DELAY=0.05) as app:  # the fake's errors are read once it stopped
        await ann.start_bot()
        await settle(fake, app)
        await _carnival_with_two_ai(fake, app, group, ann)
        before = _moves(db)
        other = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
        other.execute("BEGIN IMMEDIATE")
        release = threading.Timer(6.0, lambda: other.execute("COMMIT"))
        release.start()
        worst, stop = 0.0, asyncio.Event()

        async def probe() -> None:
            nonlocal worst
            while not stop.is_set():
                mark = time.monotonic()
                await asyncio.sleep(0.02)
                worst = max(worst, time.monotonic() - mark)

        prober = asyncio.create_task(probe())
        press = await _press_any(fake, ann)
        await fake.wait_until(lambda: press.answered, timeout=30, what="the press's answer")
        release.join()
        await fake.wait_until(lambda: _moves(db) >= before + 3, timeout=30, what="the AI seats' moves")
        stop.set()
        await prober
        other.close()
        await settle(fake, app)
        assert getattr(app.store, "busy_waits", 1) > 0, "the bot never met the lock (the test proves nothing)"
        assert worst < 2.0, f"the event loop stalled for {worst:.2f} s"
        assert db_rows(db, "SELECT COUNT(*) FROM outbox WHERE status = 'failed'") == [(0,)]
        assert live_hand([ann]) is not None  # play goes on: Ann has her next keyboard
    assert not_modified_only(fake) == []


@pytest.mark.fake(limits=RateLimits.loose())
async def test_item12_a_kicked_bot_pauses_the_table_and_resumes_when_added_back(fake, run_bot, db):
    ann, bob = fake.user(first_name="Ann"), fake.user(first_name="Bob")
    group = fake.group("Cards", members=[bob], creator=ann)
    async with run_bot(KOZYR_AI_DELAY=0.05) as app:  # the fake's errors are read once it stopped
        await open_table_in(fake, app, "carnival", [ann, bob], ais=1, options="quarters=1", group=group)
        await settle(fake, app)
        group.kick_bot(by=ann)
        await settle(fake, app)
        for user in (ann, bob):
            assert "paused" in user.last_dm().content and "Cards" in user.last_dm().content
        moves = _moves(db)
        mover = next(u for u in (ann, bob) if live_hand([u]) is not None)
        press = await answered(fake, await _press_any(fake, mover))
        await settle(fake, app)
        assert "paused" in press.answer_text and press.show_alert
        await app.services.clocks.scheduler.run_due() if app.services and app.services.clocks else None
        await asyncio.sleep(0.3)  # AI seats would have moved by now
        await settle(fake, app)
        assert _moves(db) == moves
        forbidden = [c for c in fake.errors if c.error_code == 403]
        assert forbidden == [], "the bot kept writing to a group it was kicked from"

        group.add_bot(by=ann)
        await settle(fake, app)
        assert "goes on" in group.messages()[-1].content
        for user in (ann, bob):
            assert "goes on" in user.last_dm().content
        press = await answered(fake, await _press_any(fake, mover))
        await settle(fake, app)
        assert not press.show_alert and _moves(db) > moves
    assert not_modified_only(fake) == []


@pytest.mark.fake(limits=RateLimits.loose())
@pytest.mark.bot(KOZYR_AUTOPLAY_AFTER=3600)
async def test_item13_a_wall_clock_jump_plays_nothing_and_downtime_catches_up_one_move(fake, run_bot, db, monkeypatch):
    real_time = time.time
    ann = fake.user(first_name="Ann")
    group = fake.group("Cards", creator=ann)
    async with run_bot() as app:
        await ann.start_bot()
        await settle(fake, app)
        await _carnival_with_two_ai(fake, app, group, ann)
        assert live_hand([ann]) is not None
        moves = _moves(db)
        monkeypatch.setattr(time, "time", lambda: real_time() + 86400)  # the wall clock jumps a day
        assert app.services is not None and app.services.clocks is not None
        await app.services.clocks.scheduler.run_due()
        await settle(fake, app)
        monkeypatch.setattr(time, "time", real_time)
        assert _moves(db) == moves, "a wall-clock jump played a move"
        assert not any("ran out of time" in m.content for m in group.messages())

    # The bot was down for two days while Ann's move was due: one move (announced), then no more.
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE clocks SET turn_start = turn_start - 2 * 86400, deadline = deadline - 2 * 86400, "
                     "due = due - 2 * 86400")
    async with run_bot() as app:  # the same database, after two days down
        await fake.wait_until(lambda: _moves(db) > moves, timeout=20, what="the catch-up move")
        await settle(fake, app)
        away = [m for m in group.messages() if "while I was down" in m.content]
        assert len(away) == 1
        human = db_rows(db, "SELECT COUNT(*) FROM actions WHERE seat = 0")[0][0]
        assert live_hand([ann]) is not None  # the AI seats played on, and Ann is to act again
        monkeypatch.setattr(time, "time", lambda: real_time() + 5 * 86400)
        assert app.services is not None and app.services.clocks is not None
        for _ in range(3):
            await app.services.clocks.scheduler.run_due()
        await settle(fake, app)
        monkeypatch.setattr(time, "time", real_time)
        assert db_rows(db, "SELECT COUNT(*) FROM actions WHERE seat = 0")[0][0] == human
    # (a poll of the stopped bot may still hang at the fake when the new one starts: a 409, no harm)
    assert [e for e in not_modified_only(fake) if e[1] != 409] == []


@pytest.mark.fake(limits=RateLimits.loose())
async def test_item14_an_error_reply_is_capped_and_delivered(fake, run_bot, db):
    ann = fake.user(first_name="Ann")
    group = fake.group("Cards", creator=ann)
    async with run_bot() as app:  # the fake's errors are read once it stopped
        await ann.start_bot()
        await settle(fake, app)
        bogus = " ".join(f"o{i}=&" for i in range(580))
        command = f"/new carnival {bogus}"
        assert len(command) <= 4096
        await ann.send(group, command)
        await settle(fake, app)
        reply = group.messages()[-1].content
        assert reply.startswith("Those house rules don't work") and len(reply) <= 4096
        assert db_rows(db, "SELECT COUNT(*) FROM outbox") == [(0,)]
    assert not_modified_only(fake) == []
