"""The whole bot on PostgreSQL: a Carnival game to the end, its record and the league, against the strict
fake Bot API; and a second worker without WEBHOOK_URL and REDIS_URL is refused with a clear message."""

from __future__ import annotations

import json
import random

import pytest

from bot.app import App
from bot.store.lock import AlreadyRunning
from engine.record import replay
from tests.bot.harness import find, live_hand, open_table_in, play_out, settings_for, settle
from tests.fakebot.ratelimit import RateLimits


@pytest.mark.slow
@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_carnival_game_on_postgres_to_the_end_with_record_and_league(fake, run_bot, db, tmp_path, pg_url,
                                                                            monkeypatch):
    monkeypatch.chdir(tmp_path)  # the heartbeat file (data/postgres.alive)
    (tmp_path / "data").mkdir()
    alice, bob, carol = fake.user(first_name="Alice"), fake.user(first_name="<b>&Co"), fake.user(first_name="Carol")
    group = fake.group("Cards", members=[alice, bob, carol], creator=alice)
    async with run_bot(DATABASE_URL=pg_url) as app:  # run_bot: the database is the pg_url fixture's
        assert type(app.store).__name__ == "PgStore"
        await open_table_in(fake, app, "carnival", [alice, bob, carol], options="quarters=1", group=group)
        # settle() may look between getUpdates and the inbox commit (a network round trip on PostgreSQL)
        await fake.wait_until(lambda: live_hand([alice, bob, carol]), timeout=20, what="the first hand")
        async with app.store.read() as tx:  # the game's clock is stored (bot/store/queries.py on PostgreSQL)
            clocked = await tx._all("SELECT table_id, deadline FROM clocks")
        assert len(clocked) == 1 and clocked[0]["deadline"] is not None
        await play_out(fake, app, group, [alice, bob, carol], random.Random(1))
        await settle(fake, app)
        standings = find(group, "🏁")
        assert standings is not None and "<b>&Co" in standings.content
        assert not fake.unanswered_callbacks()
        bad = [c for c in fake.errors if c.error_code != 400 or "not modified" not in (c.description or "")]
        assert not bad, bad
        await alice.send(group, "/record")
        doc = await fake.wait_for_message(group, lambda m: m.kind == "document", timeout=10)
        state = replay(json.loads(fake.files.by_id[doc.document["file_id"]].data))
        assert state.over
        await bob.send(group, "/top")
        top = await fake.wait_for_message(group, lambda m: "League" in m.content or "лиги" in m.content)
        assert "Alice" in top.content and "Carol" in top.content
        assert (await app.retention.run_once()) is not None  # retention's queries run on PostgreSQL too
    assert not db.exists(), "the SQLite file is not used"


async def test_a_second_worker_without_webhook_and_redis_is_refused(fake, run_bot, db, tmp_path, pg_url, monkeypatch):
    monkeypatch.chdir(tmp_path)
    async with run_bot(DATABASE_URL=pg_url):
        # The second App by hand, not run_bot: its start() is what must fail (and its session be closed).
        second = App(settings_for(fake, db, DATABASE_URL=pg_url))
        with pytest.raises(AlreadyRunning, match="WEBHOOK_URL .* REDIS_URL"):
            await second.start()
        await second.bot.session.close()
