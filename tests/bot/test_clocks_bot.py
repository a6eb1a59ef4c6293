"""Clocks over the fake Bot API: the lobby's clock keyboard, the clock in the hand DM, /mytables across
chats with the player's turns first, /hand and the jump buttons (the old keyboard dies), the pause vote
by command, and time zone / quiet hours in the DM's /settings."""

from __future__ import annotations

import pytest

from tests.bot.harness import live_hand, open_table_in, play_buttons, settle
from tests.bot.helpers import answered
from tests.fakebot.ratelimit import RateLimits


async def _open(fake, app, group, creator, others=(), ais=0):
    table = await open_table_in(fake, app, "carnival", [creator, *others], ais=ais, options="quarters=1", group=group,
                                begin=False)
    await settle(fake, app)
    return table.lobby


@pytest.mark.fake(limits=RateLimits.loose())
async def test_lobby_clock_mytables_hand_and_vote_over_the_bot_api(fake, app, db):
    ann, bob, carl = fake.user(first_name="Ann"), fake.user(first_name="Bob"), fake.user(first_name="Carl")
    home = fake.group("Home", members=[ann], creator=ann)
    club = fake.group("Club", members=[ann, bob, carl], creator=bob)
    for user in (ann, bob, carl):
        await user.start_bot()
    await settle(fake, app)

    # The lobby: the clock keyboard; only the creator (or an admin) steps a setting.
    lobby = await _open(fake, app, home, ann, ais=2)
    assert "⏱ 1 d per move" in lobby.content
    await answered(fake, await ann.press(lobby, "⏱ Clock"))
    await settle(fake, app)
    assert "⏱ 1 d per move" in home.messages()[0].button_texts
    await answered(fake, await ann.press(lobby, "⏱ 1 d per move"))
    await settle(fake, app)
    assert "⏱ 2 d per move" in lobby.content and "⏱ 2 d per move" in lobby.button_texts
    await answered(fake, await ann.press(lobby, "« Back"))
    await settle(fake, app)
    await answered(fake, await ann.press(lobby, "▶️ Start"))
    await settle(fake, app)
    hand = live_hand([ann])
    assert hand is not None and "⏱ 2 d per move · 1 d 23 h left" in hand[1].content

    club_lobby = await _open(fake, app, club, bob, others=[ann], ais=1)
    refused = await answered(fake, await ann.press(club_lobby, "⏱ Clock"))
    await settle(fake, app)
    refused = await answered(fake, await ann.press(club_lobby, "⏱ 1 d per move"))
    assert refused.show_alert and "creator" in refused.answer_text
    await answered(fake, await bob.press(club_lobby, "« Back"))
    await settle(fake, app)
    await answered(fake, await bob.press(club_lobby, "▶️ Start"))
    await settle(fake, app)

    # /mytables: both tables, Ann's turn first (Home), then Club where Bob is to act.
    await ann.send(ann.dm, "/mytables")
    await settle(fake, app)
    listing = ann.last_dm()
    assert listing is not None
    lines = listing.content.splitlines()
    assert lines[0] == "Your tables:"
    assert lines[1].startswith("👉 Carnival — Home: your turn, 1 d 23 h left")
    assert lines[2].startswith("• Carnival — Club: Bob, 23 h") and len(lines) == 3
    assert [b["text"] for b in listing.buttons] == ["🃏 👉 Carnival · Home", "🃏 Carnival · Club"]

    # The jump button re-sends the hand as a new message; the old one's keyboard dies.
    old = live_hand([ann])
    assert old is not None
    await answered(fake, await ann.press(listing, "🃏 👉 Carnival · Home"))
    await settle(fake, app)
    new = live_hand([ann])
    assert new is not None and new[1].message_id != old[1].message_id
    assert play_buttons(old[1]) == [] and len([m for m in ann.inbox() if play_buttons(m)]) == 1
    # /hand does the same for the tables where it is Ann's turn.
    await ann.send(ann.dm, "/hand")
    await settle(fake, app)
    newest = live_hand([ann])
    assert newest is not None and newest[1].message_id > new[1].message_id and play_buttons(new[1]) == []
    # A jump button for a table Carl does not sit at gives him nothing.
    await carl.send(carl.dm, "/mytables")
    await settle(fake, app)
    assert carl.last_dm().content == "You are not playing at any table now."
    forged = await answered(fake, await carl.press_data(carl.last_dm(), listing.buttons[0]["callback_data"]))
    assert forged.show_alert and not [m for m in carl.inbox() if play_buttons(m)]

    # The pause vote by command in the group: a majority of the seated humans.
    await carl.send(club, "/pause")
    await settle(fake, app)
    assert "You are not playing at this table." in club.messages()[-1].content
    await bob.send(club, "/pause")
    await settle(fake, app)
    assert "Bob votes to pause the clock (1 of 2)." in club.messages()[-1].content
    await ann.send(club, "/pause")
    await settle(fake, app)
    assert club.messages()[-1].content.startswith("⏸ The clock is paused by vote.")
    await ann.send(ann.dm, "/mytables")
    await settle(fake, app)
    assert "Club: Bob, paused" in ann.last_dm().content

    # Time zone and quiet hours in the DM's /settings; a bad value is one line and changes nothing.
    await ann.send(ann.dm, "/settings tz Europe/Moscow")
    await settle(fake, app)
    assert ann.last_dm().content.startswith("Time zone set: Europe/Moscow")
    await ann.send(ann.dm, "/settings quiet 25-3")
    await settle(fake, app)
    assert ann.last_dm().content.startswith("Write quiet hours like")
    await ann.send(ann.dm, "/settings quiet 23-8")
    await settle(fake, app)
    assert ann.last_dm().content.endswith("quiet hours (no reminders): 23:00–08:00")
    assert "Europe/Moscow" in ann.last_dm().content
