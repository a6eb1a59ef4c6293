"""A seat taken over after its player missed their deadlines (the table's clock: strikes 2, then someone may
take the seat), end to end over the fake Bot API: the lost player's hand shown in the group says the seat is no
longer theirs, with no keyboard; their DM hand says so too; nothing they press, there or in the DM, does
anything; the new player gets the hand, alone, and plays it.

The time runs out as in the other deadline tests that run the whole bot (tests/bot/test_holes_faults.py): the
stored deadline is moved to now, and the clocks' scheduler looks."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from bot.app import App
from tests.bot.group_driver import live_in_group, my_hand, pick, show_hands, table_message, version_of
from tests.bot.harness import lobby_button, open_table_in, play_buttons, settle
from tests.bot.helpers import answered, db_rows
from tests.fakebot.models import StoredMessage
from tests.fakebot.ratelimit import RateLimits
from tests.fakebot.server import FakeTelegram
from tests.fakebot.users import FakeUser

NO_LONGER = "no longer your seat"


async def time_runs_out(app: App, table_id: int) -> None:
    """The turn's time is up: its stored deadline (and the turn's start) moved to now, under the table's lock,
    then the scheduler fires what is due, as it would have when that time came."""
    services = app.services
    assert services is not None and services.clocks is not None
    clocks = services.clocks
    async with services.core.lock(table_id), app.store.transaction() as tx:
        c = await tx.clock(table_id)
        assert c is not None and c.deadline is not None and c.turn_start is not None
        early = c.deadline - clocks.now()
        c.turn_start, c.deadline, c.due = c.turn_start - early, c.deadline - early, c.deadline - early
        await tx.save_clock(c)
    await clocks.scheduler.run_due()


def dm_hand(user: FakeUser) -> StoredMessage:
    """The user's newest DM message that showed a hand (now, or before an edit)."""
    found = [m for m in user.inbox(include_deleted=False)
             if any("Your hand" in (text or "") for text in (m.content, *(h["text"] for h in m.history)))]
    assert found, f"{user.first_name} has no hand in the DM"
    return found[-1]


def facts(db: Path) -> tuple[int, int, int | None]:
    """(version, actions logged, the user at seat 0) of the table."""
    version = db_rows(db, "SELECT version FROM tables WHERE id = 1")[0][0]
    actions = db_rows(db, "SELECT COUNT(*) FROM actions WHERE table_id = 1")[0][0]
    return version, actions, db_rows(db, "SELECT user_id FROM seats WHERE table_id = 1 AND seat = 0")[0][0]


def seat0_moves(db: Path) -> int:
    return db_rows(db, "SELECT COUNT(*) FROM actions WHERE table_id = 1 AND seat = 0")[0][0]


@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_seat_taken_after_missed_deadlines_is_the_new_players_alone(fake: FakeTelegram, app: App,
                                                                           db: Path) -> None:
    bob, ann, cat, dan = users = [fake.user(first_name=n) for n in ("Bob", "Ann", "Cat", "Dan")]
    group = fake.group("Deadlines", members=users, creator=ann)
    await dan.start_bot()
    table = await open_table_in(fake, app, "carnival", [bob, ann, cat], options="quarters=1", group=group,
                                begin=False)
    lobby = table.lobby
    presses: list[Any] = ["⏱ Clock", *[lambda b: b["text"].startswith("❌")] * 4,  # strikes 3 -> 5 -> 0 -> 1 -> 2
                          "🤖 then: the AI plays the seat"]  # -> then: someone may take the seat
    for button in presses:
        await answered(fake, await bob.press(lobby, button))
        await settle(fake, app)
    assert "❌ strikes: 2" in lobby.button_texts and "🤖 then: someone may take the seat" in lobby.button_texts
    for button in ("« Back", lobby_button("start")):
        await answered(fake, await bob.press(lobby, button))
        await settle(fake, app)
    players = [bob, ann, cat]
    await show_hands(fake, group, players)
    await settle(fake, app)
    copy = bob.last_ephemeral(group)
    assert copy is not None and "Your hand" in copy.content

    # Bob (seat 0) lets his time run out twice in a row; Ann and Cat play their turns from the group.
    rng, tried = random.Random(7), set[tuple[int, str]]()
    for _ in range(60):
        if "🙋 Take the seat" in " ".join(b for m in group.visible() for b in m.button_texts):
            break
        found = live_in_group(players, group)
        assert found is not None, "nobody has a live hand in the group"
        user, hand = found
        if user is bob:
            await time_runs_out(app, 1)
        else:
            data = pick(hand, rng, tried)["callback_data"]
            assert not (await answered(fake, await user.press_data(hand, data))).show_alert
        await settle(fake, app)
    offer = next(m for m in group.visible() if "🙋 Take the seat" in m.button_texts)
    assert "Bob missed too many moves" in offer.content
    assert sum("Bob ran out of time" in m.content for m in group.visible()) == 2

    # Dan, not seated, takes it with the group's button.
    await answered(fake, await dan.press(offer, "🙋 Take the seat"))
    await settle(fake, app)
    version, actions, holder = facts(db)
    assert holder == dan.id
    assert any("Dan takes the seat of Bob" in m.content for m in group.visible())

    # Bob's copy in the group says the seat is no longer his, with no keyboard; so does his DM hand.
    assert NO_LONGER in copy.content and not copy.buttons
    old_dm = dm_hand(bob)
    assert NO_LONGER in old_dm.content and not old_dm.buttons and "Your hand" not in old_dm.content
    # Whatever Bob presses there (his old buttons, forged at the current version, or "My hand") does nothing.
    bob_screen = [(m.content, m.edit_count) for m in (copy, old_dm)]
    for message in (copy, old_dm):
        for data in (f"mv:1:{version}:0", f"mv:1:{version - 1}:0"):
            refused = await answered(fake, await bob.press_data(message, data))
            assert refused.show_alert and "not playing at this table" in (refused.answer_text or "")
    refused = await answered(fake, await bob.press(table_message(group), my_hand))
    assert refused.show_alert and "not playing at this table" in (refused.answer_text or "")
    await settle(fake, app)
    assert facts(db) == (version, actions, dan.id)
    assert [(m.content, m.edit_count) for m in (copy, old_dm)] == bob_screen
    assert [m for m in bob.ephemeral(group) if NO_LONGER not in m.content] == []
    assert not [m for m in bob.inbox() if play_buttons(m)]

    # Dan has the hand in his DM, and in the group, to him alone (a new message, never Bob's copy).
    assert "Your hand" in dm_hand(dan).content
    assert not (await answered(fake, await dan.press(table_message(group), my_hand))).show_alert
    await settle(fake, app)
    mine = dan.last_ephemeral(group)
    assert mine is not None and mine is not copy and mine.receiver is dan and "Your hand" in mine.content
    assert [m.receiver for m in group.ephemerals() if m.content == mine.content] == [dan]
    # Whoever is to act has a keyboard of the table's new version (the take-over made the old one stale).
    live = live_in_group([dan, ann, cat], group)
    assert live is not None and version_of(live[1]) == version

    # ... and plays it: the table goes on to his turn, and his press from the group is his seat's move.
    players = [dan, ann, cat]
    for _ in range(20):
        found = live_in_group(players, group)
        assert found is not None, "nobody has a live hand in the group"
        user, hand = found
        data = pick(hand, rng, tried)["callback_data"]
        seat_moves = seat0_moves(db)
        assert not (await answered(fake, await user.press_data(hand, data))).show_alert
        await settle(fake, app)
        if user is dan:
            break
    assert user is dan and seat0_moves(db) == seat_moves + 1 and facts(db)[2] == dan.id
    assert NO_LONGER in copy.content and NO_LONGER in old_dm.content  # nothing of Dan's reaches Bob
    assert not [m for m in bob.inbox() if play_buttons(m)]
    assert fake.limiter.served_429 == 0
