"""A 429 storm: the fake's limits are tight and the bot's own pacing is off, so it hits 429s;
it must wait them out, finish the game and lose nothing."""

from __future__ import annotations

import json
import random
import time

import pytest

from bot.presentation.registry import presentation
from bot.ui import words
from tests.bot.harness import find, open_table_in, play_out, settle
from tests.bot.helpers import db_rows, group_text, log_lines, plain, replay_log
from tests.fakebot.ratelimit import RateLimits

STORM = RateLimits(per_chat_per_second=2.0, per_chat_burst=2, group_per_window=15, group_window=3.0,
                   global_per_second=30)


@pytest.mark.slow
@pytest.mark.fake(limits=STORM)
async def test_a_game_through_a_429_storm_loses_nothing(fake, run_bot, db):
    began = time.monotonic()
    ann = fake.user(first_name="Ann")
    group = fake.group("Storm", creator=ann)
    # The bot's own pacing is off (harness defaults): only Telegram's 429s slow it down.
    async with run_bot() as app:  # the whole run, its stop included, is timed
        await open_table_in(fake, app, "carnival", [ann], ais=2, options="quarters=1", group=group)
        await play_out(fake, app, group, [ann], random.Random(2))
        await settle(fake, app, timeout=60)

        assert fake.stats["rate_limited"] > 0 and app.outbox.retry_afters > 0
        assert db_rows(db, "SELECT COUNT(*) FROM outbox") == [(0,)]  # nothing pending, nothing failed
        state, _, events, names = replay_log(db)
        assert state.over
        text = group_text(group)
        for line in log_lines("carnival", events, names, "en"):
            assert line in text, line
        standings = find(group, "🏁")
        assert standings is not None
        for name, total in zip(names, state.scores(), strict=True):
            assert f"{name}: {total}" in standings.content

        # The final content of every message is what the bot last wanted: the last table message
        # shows the final table, Ann's hand message of the last deal her final hand.
        table = [m for m in group.messages() if m.content.startswith(words.title("carnival", "en") + " · ")]
        # (the live table message: the table with its clock line, then the latest events)
        clock = "⏱ 1 d per move"  # the table's time control (the default) under the table
        table_text = "\n".join([*presentation("carnival").table_lines(state.view(None), names, "en"), clock])
        assert table[-1].content.startswith(plain(table_text))
        hand = presentation("carnival").hand_text(state.view(0), names, "en", "Storm", False)
        assert plain(hand) == ann.last_dm().content
        slots = dict(db_rows(db, "SELECT slot, message_id FROM slots WHERE chat_id = ?", ann.id))
        hand_n = json.loads(db_rows(db, "SELECT ui FROM tables WHERE id = 1")[0][0])["hand_n"]["0"]
        assert slots[f"h1:0:{hand_n}"] == ann.last_dm().message_id  # her newest hand message
        assert not fake.unanswered_callbacks()
        bad = [c for c in fake.errors if c.error_code != 429 and "not modified" not in (c.description or "")]
        assert bad == []
    assert time.monotonic() - began < 60
