"""Turn clocks over the fake Bot API: a reminder DM for a slow player, and at the deadline a move played
for them, said in the group with a mention (stored deadlines; KOZYR_AUTOPLAY_AFTER is the
default time per move)."""

from __future__ import annotations

import pytest

from tests.bot.harness import settle
from tests.fakebot.ratelimit import RateLimits


@pytest.mark.fake(limits=RateLimits.loose())
@pytest.mark.bot(KOZYR_AUTOPLAY_AFTER=1.5)
async def test_a_slow_player_is_reminded_then_played_for(fake, app, db, open_table):
    alice = fake.user(first_name="Alice")
    group = fake.group("Cards", members=[alice], creator=alice)
    await open_table("carnival", [alice], ais=2, options="quarters=1", group=group)
    await settle(fake, app)
    async with app.store.read() as tx:
        table = await tx.open_table(group.id, 0)
    assert table is not None
    started_version = table.version

    # Alice leads the first deal and does nothing: first a reminder, as a new message.
    reminder = await fake.wait_for_message(alice.dm, lambda m: m.content.startswith("⏰"), timeout=10)
    assert "Carnival" in reminder.content and "Cards" in reminder.content
    await fake.wait_until(lambda: any("ran out of time" in m.content for m in group.messages()), timeout=10,
                          what="the deadline line")
    line = next(m for m in group.messages() if "ran out of time" in m.content)
    assert line.content.startswith("⏰ Alice ran out of time")
    assert any(e.get("type") == "text_mention" and e["user"]["id"] == alice.id for e in line.entities)
    await settle(fake, app)
    reminders = [m for m in alice.inbox() if m.content.startswith("⏰")]
    assert len(reminders) >= 1
    async with app.store.read() as tx:
        after = await tx.table(table.id)
        moves = await tx.action_count(table.id)
    assert after is not None and after.version > started_version and moves >= 1
