"""Whole Carnival games over real HTTP: a real aiogram Bot against the fake Bot API server."""

from __future__ import annotations

import json
import random

import pytest

from engine.record import replay
from tests.bot.harness import find, play_out, settle
from tests.fakebot.ratelimit import RateLimits


@pytest.mark.fake(limits=RateLimits.loose())
async def test_three_humans_play_a_quarter_to_the_end(fake, app, db, open_table):
    alice = fake.user(first_name="Alice", language_code="en", started=False)
    bob = fake.user(first_name="<b>&Co", language_code="ru")
    carol = fake.user(first_name="Carol")
    group = fake.group("Cards", members=[alice, bob, carol], creator=alice)
    for user in (alice, bob, carol):
        await user.start_bot()
    await settle(fake, app)
    lobby = (await open_table("carnival", [alice, bob, carol], options="quarters=1", group=group, begin=False)).lobby
    await settle(fake, app)
    assert "&lt;b&gt;&amp;Co" not in lobby.content  # the fake shows plain text: the name is intact
    assert "<b>&Co" in lobby.content
    await alice.press(lobby, "▶️ Start")
    presses = await play_out(fake, app, group, [alice, bob, carol], random.Random(1))
    await settle(fake, app)

    standings = find(group, "🏁")
    assert standings is not None and "Alice" in standings.content and "<b>&Co" in standings.content
    assert presses >= 3 * (3 + 6)  # 3 deals: 3 bids and at least 6 cards each... per player
    assert not fake.unanswered_callbacks()
    bad = [c for c in fake.errors if c.error_code != 400 or "not modified" not in (c.description or "")]
    assert not bad, bad

    await alice.send(group, "/record")
    doc = await fake.wait_for_message(group, lambda m: m.kind == "document", timeout=10)
    record = json.loads(fake.files.by_id[doc.document["file_id"]].data)
    state = replay(record)
    assert state.over
    assert record["players"] == ["Alice", "<b>&Co", "Carol"]
    totals = state.scores()
    for name, total in zip(record["players"], totals, strict=True):
        assert f"{name}: {total}" in standings.content

    await bob.send(group, "/top")
    top = await fake.wait_for_message(group, lambda m: "League" in m.content or "лиги" in m.content)
    assert "Alice" in top.content and "Carol" in top.content
