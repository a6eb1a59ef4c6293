"""The table as players live it, over the fake Bot API with Telegram's own limits:
the live group view and its lag, turn pings, leaving and cancelling mid-game; and the outbox's
queues: another chat's backlog costs nothing, chatter expires, commands are throttled."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import statistics
import time
from contextlib import closing

import pytest

from bot.services import outbox as out
from tests.bot.harness import (
    find,
    live_hand,
    opened_store,
    play_buttons,
    play_out,
    settle,
    telegram_pacing,
)
from tests.bot.helpers import answered, db_rows, replay_log
from tests.fakebot.ratelimit import RateLimits
from tests.fakebot.users import FakeUser

# Telegram's limits and the bot's own pacing for them (the harness turns it off), both FLOW_SCALE times
# faster: the fast game's waits take a third of the time, and its lags are compared in Telegram's seconds.
FLOW_SCALE = 3
MESSAGE_CALLS = {"sendMessage", "editMessageText", "editMessageReplyMarkup", "sendPhoto", "editMessageMedia",
                 "editMessageCaption", "sendDocument"}


@pytest.mark.fake(time_scale=FLOW_SCALE)
@pytest.mark.bot(**telegram_pacing(FLOW_SCALE))
async def test_a_fast_game_under_telegram_limits_keeps_the_group_close_behind(fake, app, open_table, db, capsys):
    """Three people press the moment their keyboard arrives. Telegram's limits (20 a minute in the
    group, 1 a second per chat) are enforced by the fake, on a clock FLOW_SCALE times faster; the group
    view must keep up without a 429, its lag measured in the fake's (Telegram's) seconds."""
    users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat")]
    group = fake.group("Fast", members=users, creator=users[0])
    lobby = (await open_table("carnival", users, options="quarters=1", group=group)).lobby
    rng = random.Random(5)
    started = len(fake.calls)
    moves, latencies = 0, []
    last_version = -1
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 600
    while find(group, "🏁") is None:
        assert loop.time() < deadline, "the game did not end"
        found = live_hand(users)
        version = int(play_buttons(found[1])[0]["callback_data"].split(":")[2]) if found else -1
        if found is None or version <= last_version:
            await asyncio.sleep(0.005)
            continue
        user, message = found
        buttons = play_buttons(message)
        data = rng.choice(buttons)["callback_data"]
        record = await user.press(message, lambda b, d=data: b.get("callback_data") == d)
        if data.startswith("mv:"):
            moves += 1
            last_version = version
            pressed = loop.time()
            await fake.wait_until(lambda v=version: _newer(users, v) or find(group, "🏁"), timeout=60,
                                  what="the next keyboard")
            if find(group, "🏁") is None:
                latencies.append(loop.time() - pressed)
        await answered(fake, record, timeout=20)
    await settle(fake, app, timeout=120)

    calls = [c for c in fake.calls[started:] if c.ok]
    message_calls = [c for c in calls if c.method in MESSAGE_CALLS]
    group_new = [c for c in message_calls if c.params.get("chat_id") == group.id
                 and c.method.startswith("send")]
    _, _, events, _ = replay_log(db)
    tricks = sum(1 for move in events for e in move if e.get("type") == "trick")
    lags = sorted(lag * FLOW_SCALE for lag in app.outbox.group_lags)  # in Telegram's seconds
    per_move = len(message_calls) / moves
    keyboard_p50 = statistics.median(latencies) * 1000
    with capsys.disabled():
        print(f"\n[flow] {moves} moves, {tricks} tricks: message calls per move {per_move:.2f}, "
              f"new group messages per trick {len(group_new) / tricks:.2f}, "
              f"group lag p50 {lags[len(lags) // 2]:.2f} s max {lags[-1]:.2f} s, "
              f"429s {fake.limiter.served_429}, press -> next keyboard p50 {keyboard_p50:.0f} ms")
    assert fake.limiter.served_429 == 0
    # Start costs the group one message, not two: the lobby message becomes the first deal's table
    # (a lobby edit and a new table message put the first table edits 3 s further behind).
    first = find(group, "deal 1/")
    assert first is not None and first.message_id == lobby.message_id
    assert len(group_new) <= tricks, "at most one new group message per trick"
    assert lags[-1] <= 3.05 * 2 + 1.0, "the group view is never far behind"
    assert lags[len(lags) // 2] <= 3.5
    assert per_move <= 2.5
    assert not fake.unanswered_callbacks()


def _newer(users: list[FakeUser], version: int) -> bool:
    found = live_hand(users)
    return found is not None and int(play_buttons(found[1])[0]["callback_data"].split(":")[2]) > version


@pytest.mark.fake(limits=RateLimits.loose())
@pytest.mark.bot(KOZYR_PING_AFTER=0)
async def test_a_turn_pings_with_a_new_message_and_the_old_one_loses_its_keyboard(fake, app, open_table):
    ann, bob = fake.user(first_name="Ann"), fake.user(first_name="Bob")
    group = fake.group("Ping", members=[ann, bob], creator=ann)
    for user in (ann, bob):
        await user.start_bot()
    await settle(fake, app)
    await open_table("carnival", [ann, bob], ais=1, options="quarters=1", group=group)
    await settle(fake, app)
    rng = random.Random(2)
    for _ in range(8):
        user, message = live_hand([ann, bob])
        before = len(user.inbox())
        other = bob if user is ann else ann
        other_before = len(other.inbox())
        data = rng.choice(play_buttons(message))["callback_data"]
        await answered(fake, await user.press(message, lambda b, d=data: b.get("callback_data") == d))
        await settle(fake, app)
        nxt = live_hand([ann, bob])
        assert nxt is not None
        for u in (ann, bob):  # one live keyboard per player at most: older hand messages have none
            assert sum(1 for m in u.inbox() if play_buttons(m)) <= 1
        if data.startswith("mv:") and nxt[0] is other:
            assert len(other.inbox()) > other_before, "the turn came as a NEW message (a notification)"
            assert nxt[1] is other.inbox()[-1]
        if nxt[0] is user and data.startswith("mv:"):
            # several moves in a row: the same message is edited, no new notification
            assert len(user.inbox()) == before or "deal" in user.inbox()[-1].content


@pytest.mark.fake(limits=RateLimits.loose())
@pytest.mark.bot(KOZYR_PING_AFTER=3600)
async def test_a_player_at_the_screen_gets_edits_not_new_messages(fake, app, open_table):
    ann, bob = fake.user(first_name="Ann"), fake.user(first_name="Bob")
    group = fake.group("NoPing", members=[ann, bob], creator=ann)
    for user in (ann, bob):
        await user.start_bot()
    await settle(fake, app)
    await open_table("carnival", [ann, bob], ais=1, options="quarters=1", group=group)
    await settle(fake, app)
    counts = (len(ann.inbox()), len(bob.inbox()))
    rng = random.Random(3)
    for _ in range(4):  # players who acted seconds ago are at the screen: edits, not new messages
        user, message = live_hand([ann, bob])
        data = rng.choice([b for b in play_buttons(message) if b["callback_data"].startswith("mv:")]
                          or play_buttons(message))["callback_data"]
        await answered(fake, await user.press(message, lambda b, d=data: b.get("callback_data") == d))
        await settle(fake, app)
    # A player's first turn of the deal may ping (they had not acted yet); after that no new message.
    assert len(ann.inbox()) - counts[0] <= 1 and len(bob.inbox()) - counts[1] <= 1


@pytest.mark.fake(limits=RateLimits.loose())
async def test_leave_mid_game_hands_the_seat_to_an_ai_and_the_game_ends(fake, app, open_table, db):
    ann, bob, cat = fake.user(first_name="Ann"), fake.user(first_name="Bob"), fake.user(first_name="Cat")
    group = fake.group("Leave", members=[ann, bob, cat], creator=ann)
    await open_table("carnival", [ann, bob, cat], options="quarters=1", group=group)
    await settle(fake, app)
    # Cat (neither creator nor admin) may not hand Bob's seat over.
    await cat.send(group, "/leave Bob")
    await settle(fake, app)
    assert find(group, "Only the table's creator or an admin") is not None
    # Bob leaves himself: asked first, nothing changes until he confirms.
    await bob.send(group, "/leave")
    prompt = await fake.wait_for_message(group, lambda m: "leave the game?" in m.content, timeout=10)
    assert db_rows(db, "SELECT user_id FROM seats WHERE seat = 1")[0][0] == bob.id
    stranger = await cat.press(prompt, lambda b: b["text"].startswith("🤖"))  # not hers to confirm
    await answered(fake, stranger)
    assert stranger.show_alert and db_rows(db, "SELECT user_id FROM seats WHERE seat = 1")[0][0] == bob.id
    await answered(fake, await bob.press(prompt, lambda b: b["text"].startswith("🤖")))
    await settle(fake, app)
    assert db_rows(db, "SELECT user_id FROM seats WHERE seat = 1")[0][0] is None
    assert not prompt.buttons, "the question's buttons are gone once answered"
    assert find(group, "Bob left the game") is not None
    assert not any(play_buttons(m) for m in bob.inbox()), "Bob has no live keyboard left"
    assert "You left the game" in bob.inbox()[-1].content
    # The creator hands Cat's seat over as well (Cat went away): seat number 3.
    await ann.send(group, "/leave 3")
    prompt = await fake.wait_for_message(group, lambda m: "Cat: leave the game?" in m.content, timeout=10)
    await answered(fake, await ann.press(prompt, lambda b: b["text"].startswith("🤖")))
    await settle(fake, app)
    assert db_rows(db, "SELECT COUNT(*) FROM seats WHERE user_id IS NULL")[0][0] == 2
    await play_out(fake, app, group, [ann], random.Random(4))  # nobody is stuck: Ann plays to the end
    await settle(fake, app)
    assert find(group, "🏁") is not None
    assert not fake.unanswered_callbacks()


@pytest.mark.fake(limits=RateLimits.loose())
async def test_cancel_mid_game_removes_every_dm_keyboard_and_tells_the_players(fake, app, open_table, db):
    ann, bob, cat = fake.user(first_name="Ann"), fake.user(first_name="Bob"), fake.user(first_name="Cat")
    group = fake.group("Cancel", members=[ann, bob, cat], creator=ann)
    await open_table("carnival", [ann, bob, cat], options="quarters=1", group=group)
    await settle(fake, app)
    user, message = live_hand([ann, bob, cat])
    await answered(fake, await user.press(message, lambda b: b in play_buttons(message)[:1]))
    await settle(fake, app)
    assert live_hand([ann, bob, cat]) is not None
    await ann.send(group, "/cancel")
    await settle(fake, app)
    for u in (ann, bob, cat):
        assert not any(play_buttons(m) for m in u.inbox()), f"{u.first_name} still has a live keyboard"
        assert "This table was cancelled." in u.inbox()[-1].content
    assert find(group, "The table was cancelled.") is not None


async def test_a_backlog_in_one_chat_costs_another_chat_nothing(fake, db):  # the outbox alone, Telegram's limits
    """200,000 rows queued for one chat: picking the next row of any chat is an index seek (the plan
    says so), and a message for another chat goes out while the backlog waits."""
    async with opened_store(db) as store:
        async with store.transaction() as tx:
            await tx.db.executemany(
                "INSERT INTO outbox(chat_id, method, payload, priority, created_at) VALUES (?, 'send', ?, 1, ?)",
                [(-1001, '{"text":"x","markup":null,"thread":0}', time.time()) for _ in range(200_000)])
        with closing(sqlite3.connect(db)) as conn:
            def plan(sql: str, *args: object) -> str:
                return " | ".join(r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + sql, args))

            nxt = plan("SELECT * FROM outbox WHERE chat_id = ? AND status = 'pending' ORDER BY priority, id LIMIT 1",
                       -5)
            merge = plan("SELECT id FROM outbox WHERE merge_key = ? AND status = 'pending' ORDER BY id DESC LIMIT 1",
                         "slot:x")
            assert "outbox_next" in nxt and "TEMP B-TREE" not in nxt, nxt
            assert "outbox_merge" in merge, merge
        async with store.read() as tx:
            assert await tx.pending_chats() == [-1001]
        ann = fake.user(first_name="Ann")
        backlogged = fake.group("Busy", members=[ann], creator=ann)
        other = fake.group("Quiet", members=[ann], creator=ann)
        with closing(sqlite3.connect(db)) as conn, conn:
            conn.execute("UPDATE outbox SET chat_id = ?", (backlogged.id,))
        bot = fake.make_bot()
        outbox = out.Outbox(store, bot, out.RateLimiter(1.05, 20, 30))
        outbox.start()
        try:
            async with store.transaction() as tx:
                await out.send_text(tx, other.id, "your move", priority=out.REPLY)
            outbox.wake()
            await fake.wait_until(lambda: any(m.content == "your move" for m in other.messages()), timeout=20,
                                  what="the quiet chat's message")
            assert len(backlogged.messages()) <= 2, "the other chat did not wait for the backlog"
        finally:
            await outbox.stop()
            await bot.session.close()


@pytest.mark.fake(time_scale=10)  # Telegram's limits and the bot's pacing ten times faster: a tenth of the wait
@pytest.mark.bot(**telegram_pacing(10))
async def test_chatter_expires_and_a_spammer_is_throttled(fake, app, db):
    ann = fake.user(first_name="Ann")
    group = fake.group("Spam", members=[ann], creator=ann)
    for _ in range(60):
        await ann.send(group, "/games")
    await settle(fake, app, timeout=120)
    replies = [m for m in group.messages() if "Games" in m.content]
    assert 1 <= len(replies) <= app.throttle.burst + 2, len(replies)
    assert app.throttle.dropped >= 60 - app.throttle.burst - 5
    assert fake.limiter.served_429 == 0
    async with app.store.transaction() as tx:  # a chatter row whose time has passed is never sent
        await out.send_text(tx, group.id, "stale answer", priority=out.CHATTER, ttl=-1)
    app.outbox.wake()
    await app.outbox.drain()
    assert find(group, "stale answer") is None and app.outbox.expired >= 1


@pytest.mark.fake(limits=RateLimits.loose())
async def test_settings_keyboard_goes_after_a_choice_and_join_is_answered_privately(fake, app, open_table, db):
    ann, bob = fake.user(first_name="Ann"), fake.user(first_name="Bob")
    group = fake.group("Small", members=[ann, bob], creator=ann)
    for user in (ann, bob):
        await user.start_bot()
    await settle(fake, app)
    await ann.send("/settings")
    choice = await fake.wait_for_message(ann.dm, lambda m: "Русский" in m.button_texts, timeout=10)
    await answered(fake, await ann.press(choice, "Русский"))
    await settle(fake, app)
    assert not choice.buttons, "the language keyboard is gone once chosen"
    await open_table("carnival", [ann], group=group, begin=False)
    await settle(fake, app)
    before = len(group.messages())
    await ann.send(group, "/join")  # the creator sits already
    await settle(fake, app)
    assert len(group.messages()) == before, "the group is not told"
    assert "уже за этим столом" in ann.inbox()[-1].content or "already" in ann.inbox()[-1].content


@pytest.mark.fake(limits=RateLimits.loose())
@pytest.mark.bot(KOZYR_PING_AFTER=3600)
async def test_a_new_deal_shows_each_hand_once(fake, app, open_table, db):
    """At a new deal the last deal's hand message keeps its own text (only its keyboard goes) and the new
    hand comes once, in a new message: not the new hand twice."""
    ann, bob = fake.user(first_name="Ann"), fake.user(first_name="Bob")
    group = fake.group("Deals", members=[ann, bob], creator=ann)
    await open_table("carnival", [ann, bob], ais=1, options="quarters=1", group=group)
    await settle(fake, app)
    rng = random.Random(6)
    while "deal 2" not in (ann.inbox()[-1].content + bob.inbox()[-1].content):
        user, message = live_hand([ann, bob])
        data = rng.choice(play_buttons(message))["callback_data"]
        await answered(fake, await user.press(message, lambda b, d=data: b.get("callback_data") == d))
        await settle(fake, app)
    for user in (ann, bob):
        deal2 = [m for m in user.inbox() if "deal 2" in m.content]
        assert len(deal2) == 1, f"{user.first_name} sees the deal-2 hand {len(deal2)} times"
        deal1 = [m for m in user.inbox() if "deal 1" in m.content]
        assert deal1 and not any(play_buttons(m) for m in deal1), "the last deal's keyboards are gone"


@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_seat_offered_to_the_group_is_taken_with_a_join_button(fake, app, open_table, db):
    ann, bob, cat, dan = (fake.user(first_name=n) for n in ("Ann", "Bob", "Cat", "Dan"))
    group = fake.group("Offer", members=[ann, bob, cat, dan], creator=ann)
    for user in (ann, bob, cat, dan):
        await user.start_bot()
    await settle(fake, app)
    await open_table("carnival", [ann, bob, cat], options="quarters=1", group=group)
    await settle(fake, app)
    await bob.send(group, "/leave")
    prompt = await fake.wait_for_message(group, lambda m: "leave the game?" in m.content, timeout=10)
    await answered(fake, await bob.press(prompt, lambda b: b["text"].startswith("🙋")))
    await settle(fake, app)
    offer = await fake.wait_for_message(group, lambda m: "✋ Take this seat" in m.button_texts, timeout=10)
    assert db_rows(db, "SELECT user_id FROM seats WHERE seat = 1")[0][0] is None  # an AI meanwhile
    seated = await cat.press(offer, "✋ Take this seat")
    await answered(fake, seated)
    assert seated.show_alert, "Cat plays already"
    await answered(fake, await dan.press(offer, "✋ Take this seat"))
    await settle(fake, app)
    assert db_rows(db, "SELECT user_id, name FROM seats WHERE seat = 1")[0] == (dan.id, "Dan")
    assert not offer.buttons and "Dan takes the seat" in offer.content
    assert dan.inbox() and "Your hand" in dan.inbox()[-1].content
    await play_out(fake, app, group, [ann, cat, dan], random.Random(8))
    await settle(fake, app)
    assert find(group, "🏁") is not None and "Dan" in find(group, "🏁").content


@pytest.mark.fake(limits=RateLimits.loose())
async def test_when_the_global_budget_is_short_keyboards_go_before_table_edits(fake, db):  # the outbox alone
    async with opened_store(db) as store:
        ann = fake.user(first_name="Ann", started=True)
        groups = [fake.group(f"G{i}", members=[ann], creator=ann) for i in range(3)]
        async with store.transaction() as tx:  # older table edits in three groups...
            for group in groups:
                await out.send_text(tx, group.id, "table", slot=f"t{group.id}", priority=out.TABLE)
        bot = fake.make_bot()
        limiter = out.RateLimiter(0.0, 100000, 1)  # one call a second in all
        limiter.global_sent.append(time.monotonic())  # ...and this second's call is spent
        outbox = out.Outbox(store, bot, limiter)
        outbox.start()
        try:
            await asyncio.sleep(0.2)  # the worker has seen the groups' rows, and could send none
            async with store.transaction() as tx:  # then a player's keyboard
                await out.send_text(tx, ann.id, "your turn", priority=out.REPLY)
            outbox.wake()
            await outbox.drain(timeout=20)
        finally:
            await outbox.stop()
            await bot.session.close()
        sends = [c.params["chat_id"] for c in fake.calls if c.method == "sendMessage"]
        assert sends[0] == ann.id and sorted(sends[1:]) == sorted(g.id for g in groups)
