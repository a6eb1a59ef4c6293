"""Forged, stale, repeated and garbage presses change nothing and get a polite answer; names are escaped."""

from __future__ import annotations

import random

import pytest

from tests.bot.harness import find, live_hand, open_table_in, play_buttons, play_out, settle
from tests.bot.helpers import (
    answered,
    db_rows,
    group_text,
    log_lines,
    not_modified_only,
    replay_log,
    table_facts,
)
from tests.fakebot.ratelimit import RateLimits

NASTY = ("<b>&Co", "<script>alert(1)</script>", "a&amp;b <i>")


@pytest.mark.fake(limits=RateLimits.loose())
async def test_forged_stale_and_repeated_presses_change_nothing(fake, run_bot, db):
    ann = fake.user(first_name=NASTY[0], language_code="en", started=True)
    bob = fake.user(first_name=NASTY[1], language_code="ru", started=True)
    cat = fake.user(first_name=NASTY[2], started=True)
    eve = fake.user(first_name="Eve", started=True)  # in the group, not seated
    group = fake.group("<i>R&D</i> cards", members=[ann, bob, cat, eve], creator=ann)
    players = [ann, bob, cat]
    async with run_bot() as app:  # what the bot sent is checked once it stopped
        for user in (ann, bob, cat, eve):  # started=True already: /start gets each a DM all the same
            await user.start_bot()
        await settle(fake, app)
        await open_table_in(fake, app, "carnival", players, options="quarters=1", group=group)
        await settle(fake, app)
        eve_dm = eve.last_dm()
        assert eve_dm is not None

        async def refused(user, message, data, *, expect_text=True) -> None:
            before = table_facts(db)
            record = await answered(fake, await user.press_data(message, data))
            await settle(fake, app)
            assert table_facts(db) == before, f"{data!r} by {user.first_name!r} changed the table"
            if expect_text:
                assert record.answer_text, f"{data!r} got no explanation"

        # One real move first, so an out-of-date keyboard exists.
        mover, hand = live_hand(players)
        stale = play_buttons(hand)[0]["callback_data"]
        await answered(fake, await mover.press(hand, lambda b: b.get("callback_data") == stale))
        await settle(fake, app)
        mover, hand = live_hand(players)
        table_id, version, _ = stale.split(":")[1:]
        assert int(version) < table_facts(db)[0]
        current = play_buttons(hand)[0]["callback_data"]
        _, t, v, _ = current.split(":")
        others = [u for u in players if u is not mover]

        await refused(mover, hand, stale)                         # an out-of-date keyboard
        await refused(eve, eve_dm, current)                      # not seated
        await refused(eve, group.messages()[0], current)         # not seated, pressed in the group
        for other in others:                                     # seated, out of turn, forged data
            await refused(other, other.inbox()[-1], current)
        for garbage in ("mv:abc", "mv:1:2", "mv:1:2:3:4", "☃\x01\x7f€", "lb:999:start", "lb:999:join:",
                        "lb:abc:join:", "mn:x:y:z", f"mv:{t}:{v}:99", f"mv:{t}:{v}:-1", f"mv:999:{v}:0",
                        f"mv:{t}:{int(v) + 1}:0", f"mn:{t}:{int(v) - 1}:0", "lg:u:xx", "lg:zz:ru",
                        f"lb:{t}:start:", f"lb:{t}:join:", f"lb:{t}:opt:quarters"):
            await refused(mover, hand, garbage)
        assert not fake.unanswered_callbacks()

        # The same button twice, quickly: applied once.
        version0, count0, _ = table_facts(db)
        first = await mover.press(hand, lambda b: b.get("callback_data") == current)
        second = await mover.press_data(hand, current)
        await answered(fake, first)
        await answered(fake, second)
        await settle(fake, app)
        version1, count1, _ = table_facts(db)
        assert (version1, count1) == (version0 + 1, count0 + 1)
        assert second.answer_text and second.show_alert

        # /score mid-game shows every name (escaped) in the sheet.
        await bob.send(group, "/score")
        await settle(fake, app)
        presses = await play_out(fake, app, group, players, random.Random(7))
        assert presses > 10
        await ann.send(group, "/score")
        await settle(fake, app)

    state, _, events, names = replay_log(db)
    assert state.over and names == list(NASTY)
    text = group_text(group)
    for line in log_lines("carnival", events, names, "en"):
        assert line in text
    standings = find(group, "🏁")
    assert standings is not None
    for nasty, total in zip(NASTY, state.scores(), strict=True):
        assert f"{nasty}: {total}" in standings.content
    sheets = [m for m in group.messages() if "score sheet" in m.content]
    assert len(sheets) == 2 and all(NASTY[0][:12] in m.content for m in sheets)
    for user in players:
        assert any("<i>R&D</i> cards" in m.content for m in user.inbox())
    # Nothing the bot sent was refused (bad HTML would be a 400 "can't parse entities").
    assert not_modified_only(fake) == []
    sent = " ".join(str(c.params.get("text", "")) + str(c.params.get("caption", "")) for c in fake.calls)
    assert "<script>" not in sent and "&lt;script&gt;" in sent
    assert db_rows(db, "SELECT COUNT(*) FROM outbox")[0][0] == 0
