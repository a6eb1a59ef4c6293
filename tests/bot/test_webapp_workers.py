"""Several workers and the table app, through Redis (where it answers; skipped, saying so, elsewhere): an
initData opens one session across all workers, and a change made by another worker reaches the open
apps this one serves, even when its note arrives before its commit can be read."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from bot.app import App
from bot.webapp.auth import Gate, Refused
from bot.webapp.fanout import CHANNEL, RedisFanout, RedisSeen
from tests.bot.harness import OpenTable, settle
from tests.bot.webapp_helpers import APP_SETTINGS, AppClient, init_data, open_stream, table_token
from tests.fakebot.server import FakeTelegram
from tests.store.backends import REDIS_URL, need_redis

TOKEN = "123456:" + "A" * 35


@pytest.fixture
async def redis() -> AsyncIterator[Any]:
    need_redis()
    import redis.asyncio as aioredis

    client = aioredis.from_url(REDIS_URL)
    try:
        yield client
    finally:
        await client.aclose()


async def test_an_init_data_opens_one_session_across_workers(fake: FakeTelegram, redis: Any) -> None:
    prefix = f"kozyr:test:{uuid.uuid4().hex}"
    first, second = (Gate(TOKEN, 3600, RedisSeen(redis, prefix)) for _ in range(2))
    init = init_data(TOKEN, fake.user(first_name="Ann"))
    await first.open(init)
    with pytest.raises(Refused, match="replayed"):
        await second.open(init)
    assert 0 < await redis.ttl(f"{prefix}:{first.visitor(init).hash}") <= 3602


async def test_workers_hear_each_others_changes_and_not_their_own(redis: Any) -> None:
    channel = f"kozyr:test:{uuid.uuid4().hex}"
    heard: dict[str, list[tuple[int, int | None]]] = {"a": [], "b": []}
    a, b = RedisFanout(redis, channel), RedisFanout(redis, channel)
    await a.start(lambda t, v: heard["a"].append((t, v)))
    await b.start(lambda t, v: heard["b"].append((t, v)))
    try:
        a.publish(5, 7)
        a.publish(5, 8)  # coalesced or not, the newest version arrives
        b.publish(9, None)
        deadline = time.monotonic() + 5
        while (not heard["b"] or heard["b"][-1] != (5, 8) or not heard["a"]) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert heard["b"][-1] == (5, 8) and all(t == 5 for t, _ in heard["b"])
        assert heard["a"] == [(9, None)]
    finally:
        await a.stop()
        await b.stop()


@pytest.mark.bot(**APP_SETTINGS, REDIS_URL=REDIS_URL)
async def test_another_workers_move_reaches_this_workers_apps(fake: FakeTelegram, app: App, open_table: OpenTable,
                                                              redis: Any) -> None:
    users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cy")]
    await open_table("oh_hell", users)
    await settle(fake, app)
    assert app.table_app is not None and app.table_app.fanout is not None and app.services is not None
    async with app.store.read() as tx:
        row = (await tx.playing_tables())[0]
    state = app.services.core.state(row)
    async with aiohttp.ClientSession() as http:
        watcher = AppClient(http, app, init_data(fake.token, users[(state.to_act + 1) % 3]))
        assert (await watcher.open(table_token(app, row.id)))[0] == 200
        stream = await open_stream(watcher)
        assert (await stream.next_table())["version"] == row.version
        # "Another worker": the move is made without this worker's hub hearing it (its watcher is off),
        # and the note of it arrives before the move is even made.
        hub = app.table_app.hub
        app.services.core.watchers.remove(hub.changed)
        other = RedisFanout(redis)
        await other.start(lambda t, v: None)
        player = AppClient(http, app, init_data(fake.token, users[state.to_act]))
        assert (await player.open(table_token(app, row.id)))[0] == 200
        try:
            other.publish(row.id, row.version + 1)
            await asyncio.sleep(0.1)
            status, body = await player.move(row.version, state.legal_actions(state.to_act)[0])
            assert status == 200, body
            pushed = await stream.table_at(row.version + 1, timeout=5)
            assert pushed["version"] == row.version + 1 and pushed["seat"] == (state.to_act + 1) % 3
        finally:
            app.services.core.watchers.append(hub.changed)
            await other.stop()
            stream.response.close()
    assert CHANNEL == app.table_app.fanout.channel
