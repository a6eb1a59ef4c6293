"""Bot API calls that cost players nothing to skip: a keyboard taken off a hand that has none (Telegram
answers "message is not modified"), and getChatMember at /new once the bot's own rights are known from its
membership updates."""

from __future__ import annotations

import random

import pytest

from tests.bot.harness import find, play_out, settle
from tests.fakebot.ratelimit import RateLimits


@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_new_deal_takes_the_keyboard_off_only_hands_that_have_one(fake, app, open_table):
    users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat")]
    table = await open_table("carnival", users, options="quarters=1")
    await play_out(fake, app, table.group, users, random.Random(3))
    await settle(fake, app)
    assert find(table.group, "🏁") is not None  # three deals: two new deals
    clears = fake.calls_of("editMessageReplyMarkup")
    assert [c.description for c in clears if not c.ok] == []  # none of them changed nothing
    for user in users:  # and no hand of a finished deal kept a keyboard
        hands = [m for m in user.dm.messages() if m.from_bot and "Carnival" in m.content]
        assert len(hands) >= 3 and all(not m.buttons for m in hands), [m.button_texts for m in hands]


def _asked_about_itself(fake) -> int:
    """getChatMember calls about the bot itself (others ask about people: /cancel's rights)."""
    return sum(1 for c in fake.calls_of("getChatMember") if c.params.get("user_id") == fake.bot_id)


async def test_new_asks_telegram_about_its_rights_only_until_it_knows(fake, app):
    ann, bob = fake.user(first_name="Ann"), fake.user(first_name="Bob")
    added = fake.group("Added", members=[bob], creator=ann)
    fake.emit_my_chat_member(added, ann, "left", "member")  # the bot was added: Telegram said so
    await settle(fake, app)
    await ann.send(added, "/new carnival")
    await settle(fake, app)
    assert _asked_about_itself(fake) == 0
    assert find(added, "Make me an admin") is not None  # it knows it is no administrator there
    added.set_bot_admin(True)  # promoted: the update says so, still nothing asked
    await ann.send(added, "/cancel")
    await settle(fake, app)
    await ann.send(added, "/new carnival")
    await settle(fake, app)
    assert _asked_about_itself(fake) == 0
    assert "I am an admin" in [m for m in added.messages() if "Carnival" in m.content][-1].content

    older = fake.group("Older", members=[bob], creator=ann, bot_admin=True)  # joined before any update was kept
    await ann.send(older, "/new carnival")
    await settle(fake, app)
    assert _asked_about_itself(fake) == 1  # asked once...
    assert find(older, "I am an admin") is not None
    await ann.send(older, "/cancel")
    await settle(fake, app)
    await ann.send(older, "/new carnival")
    await settle(fake, app)
    assert _asked_about_itself(fake) == 1  # ...and kept
