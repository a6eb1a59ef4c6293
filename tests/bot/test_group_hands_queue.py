"""Hands in the group and the group's own view: where ephemeral messages count against the group's 20 a minute
(the default, conservative reading) the table goes first and a hand waits a bounded number of the group's calls;
where they do not, a player's hand has a pace of its own. And the smaller cases: a stale press on the group copy
redraws it, a seat that changes hands clears the old player's copy, an app that refused one gets no hand unasked.
All through the fake Bot API with its limits on (tests/fakebot), the bot paced as in production."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.services import outbox as out
from tests.bot.group_driver import hands_up, my_hand, show_hands, table_message
from tests.bot.harness import find, play_buttons, settle, telegram_pacing
from tests.bot.helpers import answered, db_rows
from tests.fakebot.ratelimit import RateLimits
from tests.fakebot.server import ApiCall, FakeTelegram
from tests.fakebot.users import FakeChat, FakeUser

SCALE = 2.0  # one group call every 1.5 s: room for two presses while a row waits
PACED = telegram_pacing(SCALE)
FAST = 5.0  # for tests that need no two presses while a row waits: the suite waits less
FAST_PACED = telegram_pacing(FAST)
EPH_METHODS = ("editEphemeralMessageText", "deleteEphemeralMessage")


def is_ephemeral(call: ApiCall) -> bool:
    return call.method in EPH_METHODS or call.params.get("ephemeral_message_parameters") is not None


def group_calls(fake: FakeTelegram, group: FakeChat, since: int) -> list[ApiCall]:
    """The message calls the group got since ``since`` (served, not refused)."""
    return [c for c in fake.calls[since:] if c.ok and c.params.get("chat_id") == group.id
            and c.method.startswith(("send", "edit", "delete"))]


def ops(message: Any) -> dict[str, dict[str, Any]]:
    """A toggle hand's buttons by their operation (the first of each), "on3"/"off3" for card 3."""
    found: dict[str, dict[str, Any]] = {}
    for b in play_buttons(message):
        _, _, _, op, *arg = str(b["callback_data"]).split(":")
        found.setdefault(op, b)
        found.setdefault(op + (arg[0] if arg else ""), b)
    return found


async def press(fake: FakeTelegram, user: FakeUser, message: Any, button: dict[str, Any]) -> Any:
    data = button["callback_data"]
    return await answered(fake, await user.press(message, lambda b: b.get("callback_data") == data), timeout=30)


@pytest.mark.fake(time_scale=SCALE)
@pytest.mark.bot(**PACED)
async def test_the_table_edit_after_a_move_goes_before_the_toggle_answers_queued_ahead_of_it(fake, app, open_table):
    """The player to act toggles a card on and off, the second answer still waiting for the group's next call,
    then draws: the group's table message is edited before any hand in the group, that answer included."""
    users, group, user, eph = await hands_up(fake, app, open_table, "machiavelli", "Rummy order")
    card = next(op for op in ops(eph) if op.startswith("on") and op != "on")
    edits = eph.edit_count
    await press(fake, user, eph, ops(eph)[card])
    await fake.wait_until(lambda: eph.edit_count > edits, timeout=10, what="the first toggle's answer")
    assert "off" + card[2:] in ops(eph)
    await press(fake, user, eph, ops(eph)["off" + card[2:]])  # its answer waits: the group just had a call
    draw = ops(eph).get("do0") or ops(eph)["do"]
    since = len(fake.calls)
    assert not (await press(fake, user, eph, draw)).show_alert
    await settle(fake, app)
    calls = group_calls(fake, group, since)
    first_eph = next(i for i, c in enumerate(calls) if is_ephemeral(c))
    table = table_message(group).message_id
    first_table = next(i for i, c in enumerate(calls) if not is_ephemeral(c) and c.method.startswith("edit")
                       and c.params.get("message_id") == table)
    assert first_table < first_eph, [c.method for c in calls]
    assert fake.limiter.served_429 == 0


@pytest.mark.fake(time_scale=5.0)
@pytest.mark.bot(**telegram_pacing(5.0))
async def test_a_hand_waits_a_bounded_number_of_group_calls_while_the_table_is_edited_nonstop(fake, app, db):
    """A group whose table changes faster than it may be edited always has a table edit waiting, which goes
    before hands; still the hand of a player to act goes out after about HAND_PATIENCE table edits, one redrawn
    after a move after about REDRAW_PATIENCE, and two hands that waited are never sent back to back (the table
    gets at least every other call)."""
    ann, bob = users = [fake.user(first_name=n) for n in ("Ann", "Bob")]
    group = fake.group("Busy", members=users, creator=ann, bot_admin=True)
    async with app.store.transaction() as tx:
        await out.send_text(tx, group.id, "table 0", slot="busy-table", priority=out.TABLE)
    app.outbox.wake()
    table = await fake.wait_for_message(group, lambda m: m.content == "table 0", timeout=10)
    since = len(fake.calls)
    async with app.store.transaction() as tx:  # Bob's hand redrawn after his move, then Ann's turn
        for user, priority in ((bob, out.REDRAW), (ann, out.HAND)):
            payload = {"user": user.id, "text": f"hand of {user.first_name}", "markup": None, "thread": 0,
                       "cq": None, "admin": True, "t": 0, "g": group.id}
            await tx.enqueue(group.id, "eph", payload, slot=f"busy-hand:{user.id}", merge_key=f"slot:busy:{user.id}",
                             priority=priority)
    stop = asyncio.Event()

    async def edit_nonstop() -> None:
        n = 0
        while not stop.is_set():
            n += 1
            async with app.store.transaction() as tx:
                await out.edit_text(tx, group.id, "busy-table", f"table {n}", priority=out.TABLE)
            app.outbox.wake()
            await asyncio.sleep(0.05)

    editing = asyncio.create_task(edit_nonstop())
    try:
        await fake.wait_until(lambda: all(u.ephemeral(group) for u in users), timeout=60, what="both hands")
        await fake.wait_until(lambda: table.edit_count >= out.REDRAW_PATIENCE + 6, timeout=60)
    finally:
        stop.set()
        await editing
    calls = group_calls(fake, group, since)
    kinds = [f"hand:{c.params['ephemeral_message_parameters']['receiver_user_id']}" if is_ephemeral(c) else "table"
             for c in calls]
    first, second = kinds.index(f"hand:{ann.id}"), kinds.index(f"hand:{bob.id}")
    assert first < second and len(kinds) - kinds.count("table") == 2, kinds  # the player to act's first
    assert out.HAND_PATIENCE - 2 <= first <= out.HAND_PATIENCE + 2, kinds  # table edits before it
    assert out.REDRAW_PATIENCE - 3 <= second <= out.REDRAW_PATIENCE + 3, kinds
    assert fake.limiter.served_429 == 0


@pytest.mark.fake(time_scale=SCALE, limits=RateLimits(ephemeral_counts=False))
@pytest.mark.bot(**PACED, KOZYR_EPHEMERAL_COUNTS="0")
async def test_when_ephemeral_messages_do_not_count_a_players_hand_has_its_own_pace(fake, app, open_table):
    """The other reading: a toggle's answer in the group is paced per player, like a private chat, so several
    come back while the group may send nothing, and none is counted against the group's limits."""
    users, group, user, eph = await hands_up(fake, app, open_table, "machiavelli", "Free hands")
    counted = fake.limiter.counted[group.id]
    since = len(fake.calls)
    backlog = 6  # the group's news, queued before the toggles and more urgent than any hand
    async with app.store.transaction() as tx:
        for n in range(backlog):
            await out.send_text(tx, group.id, f"news {n}", priority=out.GAME)
    app.outbox.wake()
    cards = [op for op in ops(eph) if op.startswith("on") and op != "on"][:3]
    for card in cards:  # three toggles, each waiting for its answer
        edits = eph.edit_count
        await press(fake, user, eph, ops(eph)[card])
        await fake.wait_until(lambda e=edits: eph.edit_count > e, timeout=30, what="the toggle's answer")
    news = [c for c in group_calls(fake, group, since) if not is_ephemeral(c)]
    assert len(news) < backlog, "the answers waited for the group's backlog"
    await settle(fake, app)
    assert fake.limiter.counted[group.id] == counted + backlog  # the answers were not counted against the group
    assert fake.limiter.served_429 == 0


@pytest.mark.fake(time_scale=FAST)
@pytest.mark.bot(**FAST_PACED)
async def test_a_stale_press_on_a_group_copy_is_refused_and_that_copy_redrawn(fake, app, open_table, db):
    """Two copies of a hand on screen (My hand pressed twice); a move made from the DM leaves the older one
    stale. Its press is refused, and that very copy shows the current hand at once."""
    users, group, user, first = await hands_up(fake, app, open_table, "carnival", "Two copies", options="quarters=1")
    await answered(fake, await user.press(table_message(group), my_hand))  # a second copy
    second = await fake.wait_for_ephemeral(group, user, after=first, timeout=10)
    await settle(fake, app)
    dm = next(m for m in reversed(user.inbox(include_deleted=False)) if play_buttons(m))
    move = next(b for b in play_buttons(dm) if str(b["callback_data"]).startswith("mv:"))
    assert not (await press(fake, user, dm, move)).show_alert  # the move, from the DM
    await settle(fake, app)
    assert second.content != first.content  # the newest copy follows; the older one is stale
    stale = next(str(b["callback_data"]) for b in play_buttons(first) if str(b["callback_data"]).startswith("mv:"))
    edits = first.edit_count
    record = await answered(fake, await user.press_data(first, stale))
    assert record.show_alert and "out of date" in (record.answer_text or "")
    await fake.wait_until(lambda: first.edit_count > edits, timeout=5 * 60 / 20 / SCALE, what="the copy redrawn")
    await settle(fake, app)
    assert first.content == second.content or first.edit_count > edits and stale not in str(first.buttons)
    assert stale not in str(first.buttons)
    assert fake.limiter.served_429 == 0


@pytest.mark.fake(time_scale=FAST)
@pytest.mark.bot(**FAST_PACED)
async def test_a_seat_that_changes_hands_clears_the_old_players_group_copy(fake, app, open_table, db):
    """Bob leaves: the AI plays his seat until someone takes it. His copy of the hand in the group says it is no
    longer his (no keyboard), his presses there are refused; Dan takes the seat, and his hand in the group is a
    new message to him alone, never an edit of Bob's copy."""
    ann, bob, cat, dan = users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat", "Dan")]
    group = fake.group("Handover", members=users, creator=ann)
    await open_table("carnival", users[:3], options="quarters=1", group=group)
    await dan.start_bot()
    await settle(fake, app)
    await show_hands(fake, group, users[:3])
    await settle(fake, app)
    copy = bob.last_ephemeral(group)
    assert copy is not None and "no longer" not in copy.content
    await bob.send(group, "/leave")
    prompt = await fake.wait_for_message(group, lambda m: "leave the game?" in m.content, timeout=10)
    await answered(fake, await bob.press(prompt, lambda b: b["text"].startswith("🙋")))
    await settle(fake, app)
    assert db_rows(db, "SELECT user_id FROM seats WHERE seat = 1")[0][0] is None  # the AI's meanwhile
    assert "no longer your seat" in copy.content and not play_buttons(copy)
    version = db_rows(db, "SELECT version FROM tables WHERE id = 1")[0][0]
    refused = await answered(fake, await bob.press_data(copy, f"mv:1:{version}:0"))
    assert refused.show_alert
    offer = await fake.wait_for_message(group, lambda m: "✋ Take this seat" in m.button_texts, timeout=10)
    await answered(fake, await dan.press(offer, "✋ Take this seat"))
    await settle(fake, app)
    assert db_rows(db, "SELECT user_id FROM seats WHERE seat = 1")[0][0] == dan.id
    record = await answered(fake, await dan.press(table_message(group), my_hand))
    assert not record.show_alert
    mine = await fake.wait_for_ephemeral(group, dan, timeout=10)
    await settle(fake, app)
    assert mine.receiver is dan and "Your hand" in mine.content
    assert "no longer your seat" in copy.content  # Bob's copy never shows Dan's hand
    assert [m.receiver for m in group.ephemerals() if "no longer" in m.content] == [bob]
    assert fake.limiter.served_429 == 0


@pytest.mark.fake(time_scale=FAST)
@pytest.mark.bot(**FAST_PACED)
async def test_an_app_that_refused_a_hand_gets_none_unasked_and_plays_from_the_dm(fake, app, open_table, db):
    """The bot is an admin, so the hand of each player to act comes up in the group unasked; Cat's app refuses
    it. The bot remembers: her later turns cost the group no call, and she plays them from her DM."""
    ann, bob, cat = users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat")]
    group = fake.group("Refused", members=users, creator=ann, bot_admin=True)
    cat.fail_ephemeral("refused")
    await open_table("carnival", users, options="quarters=1", group=group)
    await settle(fake, app)
    cat_turns = 0
    for _ in range(40):
        if find(group, "deal 2/") is not None or cat_turns >= 3:
            break
        await settle(fake, app)
        user, message = next((u, m) for u in users for m in reversed(u.inbox(include_deleted=False))
                             if play_buttons(m))
        move = next(b for b in play_buttons(message) if str(b["callback_data"]).startswith(("mv:", "mn:")))
        cat_turns += user is cat
        assert not (await press(fake, user, message, move)).show_alert
    await settle(fake, app)
    assert cat_turns >= 2
    to_cat = [c for c in fake.calls if c.method == "sendMessage"
              and (c.params.get("ephemeral_message_parameters") or {}).get("receiver_user_id") == cat.id]
    assert len(to_cat) == 1 and not to_cat[0].ok  # tried once, refused, never again
    assert ann.ephemeral(group) or bob.ephemeral(group)  # the others' hands still come up unasked
    assert fake.limiter.served_429 == 0
