"""The whole bot on PostgreSQL: a Carnival game to the end, its record and the league, against the strict
fake Bot API; and a second worker without WEBHOOK_URL and REDIS_URL is refused with a clear message."""

from __future__ import annotations

import json
import random

import pytest

from bot.app import App
from bot.store.lock import AlreadyRunning
from engine.record import replay
from tests.bot.harness import find, live_hand, play_out, running_bot, settings_for, settle
from tests.fakebot.ratelimit import RateLimits
from tests.store.backends import PG_URL, drop_schema, fresh_schema, need_postgres


@pytest.fixture
async def pg_url():
    need_postgres()
    import asyncpg

    schema = fresh_schema()
    conn = await asyncpg.connect(PG_URL)
    await conn.execute(f'CREATE SCHEMA "{schema}"')
    await conn.close()
    sep = "&" if "?" in PG_URL else "?"
    yield f"{PG_URL}{sep}search_path={schema}"
    await drop_schema(schema)


@pytest.mark.slow
@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_carnival_game_on_postgres_to_the_end_with_record_and_league(fake, tmp_path, pg_url, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the heartbeat file (data/postgres.alive)
    (tmp_path / "data").mkdir()
    alice, bob, carol = fake.user(first_name="Alice"), fake.user(first_name="<b>&Co"), fake.user(first_name="Carol")
    group = fake.group("Cards", members=[alice, bob, carol], creator=alice)
    async with running_bot(fake, tmp_path / "unused.sqlite3", DATABASE_URL=pg_url) as app:
        assert type(app.store).__name__ == "PgStore"
        for user in (alice, bob, carol):
            await user.start_bot()
        await settle(fake, app)
        await alice.send(group, "/new carnival quarters=1")
        lobby = await fake.wait_for_message(group, lambda m: "Join" in " ".join(m.button_texts), timeout=10)
        await settle(fake, app)
        for user in (bob, carol):
            await user.press(lobby, "✋ Join")
            await settle(fake, app)
        await alice.press(lobby, "▶️ Start")
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
    assert not tmp_path.joinpath("unused.sqlite3").exists()


async def test_a_second_worker_without_webhook_and_redis_is_refused(fake, tmp_path, pg_url, monkeypatch):
    monkeypatch.chdir(tmp_path)
    async with running_bot(fake, tmp_path / "x.sqlite3", DATABASE_URL=pg_url):
        second = App(settings_for(fake, tmp_path / "x.sqlite3", DATABASE_URL=pg_url))
        with pytest.raises(AlreadyRunning, match="WEBHOOK_URL .* REDIS_URL"):
            await second.start()
        await second.bot.session.close()
