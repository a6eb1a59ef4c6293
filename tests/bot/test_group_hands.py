"""Hands in the group: "🂠 My hand" on the table message shows a player their hand there, to them alone (a
Telegram ephemeral message, in the fake as the Bot API documents it), with the DM hand's own keyboard; a deal
is played without leaving the group, a failed delivery falls back to the DM, and every check of a DM press
holds for a press there. The numbers the issue asks for are measured and printed (Telegram's limits on)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.bot.group_driver import (
    Run,
    drive,
    hands_up,
    line,
    live_in_group,
    my_hand,
    numbers,
    pick,
    show_hands,
    table_message,
)
from tests.bot.harness import find, play_buttons, settle, telegram_pacing
from tests.bot.helpers import answered, db_rows, replay_log
from tests.bot.webapp_helpers import APP_SETTINGS
from tests.fakebot.models import CallbackRecord, StoredMessage
from tests.fakebot.server import FakeTelegram
from tests.fakebot.users import FakeChat, FakeUser

SCALE = 5.0  # the fake's limits and the bot's pacing run this much faster (the 15 s window stays real)
PACED = telegram_pacing(SCALE)


async def press(fake: FakeTelegram, user: FakeUser, message: StoredMessage, button: dict[str, Any]) -> CallbackRecord:
    data = button["callback_data"]
    return await answered(fake, await user.press(message, lambda b: b.get("callback_data") == data), timeout=30)


def report(name: str, fake: FakeTelegram, app: Any, group: FakeChat, started: int, run: Run,
           capsys: Any) -> dict[str, float]:
    measured = numbers(fake, app, group, started, run)
    with capsys.disabled():
        print(f"\n[group hands] {line(f'{name} (limits x{SCALE:g})', measured)}")
    return measured


@pytest.mark.slow
@pytest.mark.fake(time_scale=SCALE)
@pytest.mark.bot(**PACED)
async def test_a_carnival_deal_is_played_entirely_from_the_group(fake, app, open_table, capsys):
    users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat")]
    group = fake.group("Carnival", members=users, creator=users[0])
    await open_table("carnival", users, options="quarters=1", group=group)
    await settle(fake, app)
    started = len(fake.calls)
    records = await show_hands(fake, group, users)
    assert all(not r.show_alert for r in records)
    for user in users:  # each sees their own hand, the DM's keyboard on it, nobody else's
        mine = await fake.wait_for_ephemeral(group, user)
        assert mine.receiver is user and mine.callback is not None
        assert [m.receiver for m in group.ephemerals(user)] == [user]
    run = await drive(fake, group, users, lambda: find(group, "deal 2/") is not None, random.Random(7))
    await settle(fake, app, timeout=120)
    numbers = report("a Carnival deal", fake, app, group, started, run, capsys)
    assert run.moves >= 12
    assert numbers["dm_presses"] == 0 and numbers["switches"] == 0
    assert numbers["429s"] == 0
    assert not fake.unanswered_callbacks()
    # No hand ever went to the group as a normal message: its messages carry no play buttons.
    assert all(not play_buttons(m) for m in group.messages())


@pytest.mark.slow
@pytest.mark.fake(time_scale=SCALE)
@pytest.mark.bot(**PACED)
async def test_a_machiavelli_turn_cycle_is_played_from_the_group(fake, app, open_table, db, capsys):
    users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat")]
    group = fake.group("Machiavelli", members=users, creator=users[0])
    await open_table("machiavelli", users, group=group)
    await settle(fake, app)
    started = len(fake.calls)
    await show_hands(fake, group, users)
    first = len(replay_log(db)[1])

    def cycled() -> bool:  # every seat has made a move of its own since the hands came up
        return len({seat for seat, _ in replay_log(db)[1][first:]}) >= 3

    run = await drive(fake, group, users, cycled, random.Random(3))
    await settle(fake, app, timeout=120)
    numbers = report("a Machiavelli turn cycle", fake, app, group, started, run, capsys)
    assert numbers["dm_presses"] == 0 and numbers["429s"] == 0
    assert not fake.unanswered_callbacks()


@pytest.mark.fake(time_scale=SCALE)
@pytest.mark.bot(**PACED)
async def test_failed_ephemeral_delivery_leaves_every_turn_in_the_dm(fake, app, open_table, db):
    """Cat's app refuses ephemeral messages and Bob's never receive them: Cat's press is answered with the DM
    hand, and both play every turn from the DM while Ann plays from the group; nothing is lost or doubled."""
    ann, bob, cat = users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat")]
    group = fake.group("Lossy", members=users, creator=ann)
    await open_table("carnival", users, options="quarters=1", group=group)
    await settle(fake, app)
    cat.fail_ephemeral("refused")
    bob.fail_ephemeral("lost")
    dm_before = len(cat.inbox())
    records = await show_hands(fake, group, users)
    assert not records[0].show_alert and not records[1].show_alert  # Bob's was accepted (then lost)
    assert records[2].show_alert and "private chat" in (records[2].answer_text or "")
    await settle(fake, app)
    assert len(cat.inbox()) == dm_before + 1  # her hand again, as a new DM message (it notifies)
    assert bob.ephemeral(group) == [] and cat.ephemeral(group) == []
    rng = random.Random(11)
    turns: dict[str, int] = {"Ann": 0, "Bob": 0, "Cat": 0}
    for _ in range(60):  # presses, each from where that player sees a live hand, until each has moved thrice
        if find(group, "deal 2/") is not None or min(turns.values()) >= 3:
            break
        await settle(fake, app)
        state_log = replay_log(db)[1]
        to_act = (await _to_act(app, db))
        user = users[to_act]
        if user is ann:
            message = ann.last_ephemeral(group)
        else:  # the turn reached their DM: the newest DM message has the live keyboard
            message = next(m for m in reversed(user.inbox(include_deleted=False)) if play_buttons(m))
        assert message is not None and play_buttons(message), f"{user.first_name}'s turn has no live hand"
        record = await press(fake, user, message, pick(message, rng, set()))
        assert not record.show_alert, record.answer_text
        if len(replay_log(db)[1]) > len(state_log):
            turns[user.first_name] += 1
    assert turns["Bob"] > 0 and turns["Cat"] > 0 and turns["Ann"] > 0
    presses = [r for r in fake.callbacks.values() if r.data.startswith(("mv:", "mn:", "pk:"))]
    assert all(r.message.chat.type == "private" for r in presses if r.user in (bob, cat))
    assert all(r.message.chat.type != "private" for r in presses if r.user is ann)
    assert fake.limiter.served_429 == 0


def _actions(db: Any, table_id: int) -> int:
    return int(db_rows(db, "SELECT COUNT(*) FROM actions WHERE table_id = ?", table_id)[0][0])


async def _to_act(app: Any, db: Any) -> int:
    state, _, _, _ = replay_log(db)
    assert state.to_act is not None
    return int(state.to_act)


@pytest.mark.fake(time_scale=SCALE)
@pytest.mark.bot(**PACED)
async def test_a_move_pressed_in_both_places_is_made_once(fake, app, open_table, db):
    users, group, user, eph = await hands_up(fake, app, open_table, "carnival", "Twice", options="quarters=1")
    dm = next(m for m in reversed(user.inbox(include_deleted=False)) if play_buttons(m))
    data = next(str(b["callback_data"]) for b in play_buttons(eph) if str(b["callback_data"]).startswith("mv:"))
    assert data in {str(b["callback_data"]) for b in play_buttons(dm)}  # the same keyboard, the same data
    before = len(replay_log(db)[1])
    first = await answered(fake, await user.press_data(eph, data))
    second = await answered(fake, await user.press_data(dm, data))
    await settle(fake, app)
    assert not first.show_alert and second.show_alert and "out of date" in (second.answer_text or "")
    assert len(replay_log(db)[1]) == before + 1


@pytest.mark.fake(time_scale=SCALE)
@pytest.mark.bot(**PACED)
async def test_only_seated_players_get_a_hand_and_forged_or_stale_presses_are_refused(fake, app, open_table, db):
    ann, bob, cat = users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat")]
    dan = fake.user(first_name="Dan")
    group = fake.group("Guarded", members=[*users[1:], dan], creator=ann)
    await open_table("carnival", users, options="quarters=1", group=group)
    await settle(fake, app)
    # Dan sits at no table: a clear alert, and nothing is sent to him.
    refused = await answered(fake, await dan.press(table_message(group), my_hand))
    assert refused.show_alert and "not playing" in (refused.answer_text or "")
    await show_hands(fake, group, users)
    await settle(fake, app)
    assert group.ephemerals(dan) == []
    found = live_in_group(users, group)
    assert found is not None
    user, eph = found
    data = next(str(b["callback_data"]) for b in play_buttons(eph) if str(b["callback_data"]).startswith("mv:"))
    before = _actions(db, 1)
    # Play data pressed on the group's normal table message is forged (play buttons live on a hand only).
    forged = await answered(fake, await user.press_data(table_message(group), data))
    assert forged.show_alert
    # Dan forging the same data on the table message: refused too.
    assert (await answered(fake, await dan.press_data(table_message(group), data))).show_alert
    # Naming another table (of another group, where the presser also plays) on this group's hand: refused.
    other = fake.group("Elsewhere", members=users[1:], creator=ann)
    await open_table("carnival", users, options="quarters=1", group=other)
    await settle(fake, app)
    other_id = max(row[0] for row in db_rows(db, "SELECT id FROM tables"))
    version = db_rows(db, "SELECT version FROM tables WHERE id = ?", other_id)[0][0]
    cross = await answered(fake, await user.press_data(eph, f"mv:{other_id}:{version}:0"))
    assert cross.show_alert
    assert _actions(db, 1) == before
    # The real press plays; the same press again (a stale keyboard, or the update redelivered) does not.
    assert not (await answered(fake, await user.press_data(eph, data))).show_alert
    await settle(fake, app)
    stale = await answered(fake, await user.press_data(user.last_ephemeral(group) or eph, data))
    assert stale.show_alert and "out of date" in (stale.answer_text or "")
    assert _actions(db, 1) == before + 1
    assert all(not play_buttons(m) for m in group.messages())  # never a hand as a normal group message


@pytest.mark.fake(time_scale=SCALE)
@pytest.mark.bot(**PACED)
async def test_as_administrator_the_bot_brings_the_hand_on_the_turn_unasked(fake, app, open_table, db):
    users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat")]
    group = fake.group("Admins", members=users, creator=users[0], bot_admin=True)
    table = await open_table("carnival", users, options="quarters=1", group=group, begin=False)
    await settle(fake, app)
    assert "I am an admin" in table.lobby.content  # the lobby says the bot has the rights it needs
    await answered(fake, await users[0].press(table.lobby, lambda b: b.get("callback_data", "").endswith(":start:")))
    await settle(fake, app)
    to_act = users[await _to_act(app, db)]
    shown = await fake.wait_for_ephemeral(group, to_act, lambda m: bool(play_buttons(m)), timeout=20)
    assert shown.callback is None  # nobody pressed: the administrator's right
    assert all(u.ephemeral(group) == [] for u in users if u is not to_act)  # only the one to act
    # Without the rights, the lobby says how to get them.
    plain = fake.group("Plain", members=users, creator=users[0])
    lobby = (await open_table("carnival", users, options="quarters=1", group=plain, begin=False)).lobby
    await settle(fake, app)
    assert "Make me an admin" in lobby.content
    # Demoted, the bot knows it (its membership update): no more hands unasked there.
    assert db_rows(db, "SELECT bot_admin FROM chats WHERE chat_id = ?", group.id)[0][0] == 1
    group.set_bot_admin(False)
    await settle(fake, app)
    assert db_rows(db, "SELECT bot_admin FROM chats WHERE chat_id = ?", group.id)[0][0] == 0


async def test_the_chat_setting_keeps_hands_in_dms(fake, app, open_table, db):
    ann, bob, cat = users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat")]
    group = fake.group("Private", members=users[1:], creator=ann)
    await open_table("carnival", users, options="quarters=1", group=group)
    await settle(fake, app)
    button = table_message(group)  # on by default
    await bob.send(group, "/settings")
    await settle(fake, app)
    prompt = next(m for m in reversed(group.messages()) if "hands" in m.content)
    refused = await answered(fake, await bob.press(prompt, lambda b: b.get("callback_data") == "hs:dm"))
    assert refused.show_alert and "admins" in (refused.answer_text or "").lower()
    assert db_rows(db, "SELECT hands FROM chats WHERE chat_id = ?", group.id)[0][0] == "group"
    done = await answered(fake, await ann.press(prompt, lambda b: b.get("callback_data") == "hs:dm"))
    assert not done.show_alert
    assert db_rows(db, "SELECT hands FROM chats WHERE chat_id = ?", group.id)[0][0] == "dm"
    await settle(fake, app)
    # The old button now says where the hand is; nothing is shown in the group.
    pressed = await answered(fake, await cat.press(button, my_hand))
    assert pressed.show_alert and "DM" in (pressed.answer_text or "")
    assert group.ephemerals(cat) == []
    # The next table edit carries no My hand any more.
    await _play_one_dm_move(fake, app, users)
    assert not any(any(map(my_hand, m.buttons)) for m in group.visible())


async def _play_one_dm_move(fake: FakeTelegram, app: Any, users: list[FakeUser]) -> None:
    for user in users:
        for message in reversed(user.inbox(include_deleted=False)):
            moves = [b for b in play_buttons(message) if str(b["callback_data"]).startswith("mv:")]
            if moves:
                await press(fake, user, message, moves[0])
                await settle(fake, app)
                return
    raise AssertionError("nobody has a live DM hand")


@pytest.mark.fake(time_scale=SCALE, ephemeral_window=0.0)
@pytest.mark.bot(**PACED)
async def test_an_answer_too_late_for_the_window_falls_back_to_the_dm(fake, app, open_table):
    """Telegram accepts a press's ephemeral answer only within its window: past it, the press is answered with
    an alert and the hand comes as a new DM message."""
    users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat")]
    group = fake.group("Slow", members=users[1:], creator=users[0])
    await open_table("carnival", users, options="quarters=1", group=group)
    await settle(fake, app)
    before = len(users[1].inbox())
    record = (await show_hands(fake, group, users[1:2]))[0]
    await settle(fake, app)
    assert record.show_alert and "private chat" in (record.answer_text or "")
    assert users[1].ephemeral(group) == [] and len(users[1].inbox()) == before + 1
    assert any("too old" in (c.description or "") for c in fake.errors if c.method == "sendMessage")
    assert fake.limiter.served_429 == 0


@pytest.mark.fake(time_scale=SCALE, ephemeral_consumes_callback=True)
@pytest.mark.bot(**PACED)
async def test_a_hand_gone_from_the_screen_comes_back_with_one_press(fake, app, open_table, db):
    """An ephemeral message may disappear (the app restarted): the next change finds it gone and sends nothing
    unasked (the bot is no admin); "My hand" brings it back at once, live, and play goes on there. (Here a
    send naming the press also answers it, the other reading of the documentation: the bot works with both.)"""
    users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat")]
    group = fake.group("Restart", members=users, creator=users[0])
    await open_table("carnival", users, options="quarters=1", group=group)
    await settle(fake, app)
    await show_hands(fake, group, users)
    await settle(fake, app)
    assert not fake.unanswered_callbacks()
    found = live_in_group(users, group)
    assert found is not None
    user = found[0]
    user.restart_app()  # every ephemeral message of hers is gone
    other = next(u for u in users if u is not user)
    assert user.ephemeral(group) == []
    # Her turn goes on in the DM meanwhile; back in the group, one press shows her hand, live.
    record = await answered(fake, await user.press(table_message(group), my_hand))
    assert not record.show_alert
    shown = await fake.wait_for_ephemeral(group, user, lambda m: bool(play_buttons(m)), timeout=20)
    before = _actions(db, 1)
    move = next(b for b in play_buttons(shown) if str(b["callback_data"]).startswith(("mv:", "mn:")))
    assert not (await press(fake, user, shown, move)).show_alert
    await settle(fake, app)
    assert _actions(db, 1) == before + 1 or str(move["callback_data"]).startswith("mn:")
    assert other.ephemeral(group)  # the others' hands were not touched
    assert fake.limiter.served_429 == 0


@pytest.mark.fake(time_scale=SCALE)
@pytest.mark.bot(**PACED)
async def test_a_rummy_proposal_and_back_and_a_cancel_show_in_the_group(fake, app, open_table, db):
    """The toggle hand in the group: Hint ticks cards, Lay down shows the proposal in the hand's place (with
    Confirm), Back brings the hand back; a cancelled table's hand says so and loses its keyboard."""
    users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat")]
    group = fake.group("Rummy", members=users, creator=users[0])
    await open_table("machiavelli", users, group=group, options="", begin=True)
    await settle(fake, app)
    await show_hands(fake, group, users)
    await settle(fake, app)
    laid = False
    for _ in range(12):  # turns until someone can lay down (a draw passes the turn on)
        found = live_in_group(users, group)
        assert found is not None
        user, eph = found
        ops = {str(b["callback_data"]).split(":")[3]: b for b in play_buttons(eph)}
        if "hint" in ops:
            hint = await press(fake, user, eph, ops["hint"])
            await settle(fake, app)
            if not hint.show_alert:
                ops = {str(b["callback_data"]).split(":")[3]: b for b in play_buttons(eph)}
                await press(fake, user, eph, ops["lay"])
                await settle(fake, app)
                assert "ok" in {str(b["callback_data"]).split(":")[3] for b in play_buttons(eph)}, eph.button_texts
                back = next(b for b in play_buttons(eph) if str(b["callback_data"]).split(":")[3] == "back")
                await press(fake, user, eph, back)
                await settle(fake, app)
                assert "lay" in {str(b["callback_data"]).split(":")[3] for b in play_buttons(eph)}, eph.button_texts
                laid = True
                break
        verbs = [b for b in play_buttons(eph) if str(b["callback_data"]).split(":")[3] == "do"]
        await press(fake, user, eph, verbs[0])
        await settle(fake, app)
    assert laid, "nobody could lay down in twelve turns"
    await users[0].send(group, "/cancel")
    await settle(fake, app)
    for user in users:
        shown = user.last_ephemeral(group)
        assert shown is not None and not play_buttons(shown) and "cancelled" in shown.content
    assert all(not play_buttons(m) for m in group.messages())


@pytest.mark.bot(**APP_SETTINGS)
async def test_with_the_table_app_the_group_gets_my_hand_and_its_link_and_the_hand_no_web_app(fake, app, open_table):
    """The table app's DM button opens a Mini App, which Telegram allows in private chats only: the hand shown in
    the group has the same play buttons without it; the table message has "My hand" above the app's link."""
    users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat")]
    group = fake.group("App", members=users, creator=users[0])
    await open_table("carnival", users, options="quarters=1", group=group)
    await settle(fake, app)
    table = table_message(group)
    assert my_hand(table.buttons[0]) and any("url" in b for b in table.buttons[1:])
    records = await show_hands(fake, group, users)
    await settle(fake, app)
    for user, record in zip(users, records, strict=True):
        shown = user.last_ephemeral(group)
        assert shown is not None, (record.answer_text, [(c.method, c.description) for c in fake.errors][-3:])
        dm = user.inbox(include_deleted=False)[-1]
        assert shown is not None and all("web_app" not in b for b in shown.buttons)
        assert any("web_app" in b for b in dm.buttons)
        assert [b for b in shown.buttons] == [b for b in dm.buttons if "web_app" not in b]
