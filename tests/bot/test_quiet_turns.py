"""A player is notified only when they have something to do, and a group's table never runs ahead of its log.

Pyanitsa with the default ``flip=auto`` plays every move itself: nobody has a choice, so a player's DM gets the
deal's hand message and nothing new after it (each round used to send every player a new "Waiting for ..."
message, 40 in a 40-round game). Its rounds go to the group's log, paced like Telegram: the table message
(its status line, "round 15/40") may only show rounds whose lines the group has already been shown.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from tests.bot.harness import find, last_id, open_table_in, settle, telegram_pacing
from tests.fakebot.server import FakeTelegram
from tests.fakebot.users import FakeUser

SCALE = 10  # Telegram's limits and the bot's pacing ten times faster
STATUS = re.compile(r"round (\d+)/(\d+)")  # the table message's status line
LOGGED = re.compile(r"^Round (\d+):", re.M)  # a round's line in the group's log


def new_messages(user: FakeUser, after: int) -> list:
    return [m for m in user.inbox() if m.message_id > after]


@pytest.mark.slow
@pytest.mark.fake(time_scale=SCALE)
@pytest.mark.bot(KOZYR_AI_DELAY=0.1, **telegram_pacing(SCALE))
async def test_pyanitsa_sends_one_message_a_deal_and_its_table_follows_the_log(fake: FakeTelegram, run_bot):
    users = [fake.user(first_name=f"P{i}", language_code="en") for i in range(3)]
    group = fake.group("Drunkards", members=users, creator=users[0])
    for user in users:
        await user.start_bot()
    async with run_bot() as app:  # run_bot: the players' /start wait for the bot, as after a restart
        await settle(fake, app)
        before = {u.id: last_id(u.dm) for u in users}
        await open_table_in(fake, app, "pyanitsa", users, options="max_rounds=40", group=group)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 240
        while find(group, "🏁") is None:
            assert loop.time() < deadline, "the game did not end"
            await asyncio.sleep(0.2)
        await settle(fake, app)

        for user in users:
            got = new_messages(user, before[user.id])
            quiet = [m for m in got if not m.buttons]
            assert len(quiet) <= 1, (f"{user.first_name} got {len(quiet)} DM messages without buttons in one deal "
                                     f"(nothing to do, nothing new): {[m.content[-40:] for m in quiet[:3]]}")
            assert not any(m.buttons for m in got), "the table flips: nobody gets a Flip button"

        # What the group was shown, in the order it was shown: the status of every table message, sent or
        # edited, against the rounds its log had shown by then.
        shown = 0
        statuses = 0
        for call in fake.calls:
            if not call.ok or call.params.get("chat_id") != group.id:
                continue
            if call.method not in ("sendMessage", "editMessageText"):
                continue
            text = str(call.params.get("text", ""))
            rounds = [int(k) for k in LOGGED.findall(text)]
            if rounds:
                shown = max(shown, *rounds)
            status = STATUS.search(text)
            if status and int(status.group(1)) < int(status.group(2)):  # the round in play (the last one ends it)
                statuses += 1
                assert int(status.group(1)) - 1 <= shown, (
                    f"the table says round {status.group(1)} while the log has shown rounds up to {shown}")
        assert statuses >= 2, "the group saw its table"
