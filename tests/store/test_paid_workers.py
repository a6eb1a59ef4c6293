"""Two workers on one PostgreSQL database, with Telegram's limits shared through Redis, deliver a queue that
exceeds the free 30 a second partly as paid broadcasts: no row is delivered twice or lost, the paid
messages stay within the hour's budget together, and Telegram (the strict fake) refuses next to nothing.

Why "next to nothing" and not zero: the shared buckets keep a 10% margin for calls granted apart that reach
Telegram together (bot/shared_limits.py). On a machine starved of CPU (CI runs three test steps at once on
two cores) a worker may hold granted calls for longer than that, and a refused call is retried after its
retry_after, delivered once like any other row. Without the shared limits the two workers would be refused
hundreds of times here (each sends at up to its own ``local`` rate); with them, idle, none."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter

import pytest
from aiogram.client.default import DefaultBotProperties
from aiogram.enums import ParseMode

from bot.services import outbox as out
from bot.services.outbox import Outbox, RateLimiter
from bot.services.paid import store_budget
from bot.shared_limits import RedisLimiter, SharedLimitMiddleware
from tests.fakebot.server import FakeTelegram
from tests.store.backends import PG_URL, REDIS_URL, drop_schema, fresh_schema, need_postgres, need_redis

pytestmark = pytest.mark.slow  # a few seconds of paced sends

STARS = 10.0  # 100 paid messages an hour, for both workers together


@pytest.mark.parametrize("local", [15, 1000])
async def test_two_workers_paying_for_sends_never_deliver_a_row_twice(fake: FakeTelegram, local: int):
    """``local``: each worker's own free rate; at 15 a second each outbox pays past its own count, at 1000
    only the shared free bucket (22 a second for both) fills, and the outbox Bot's middleware pays."""
    need_postgres()
    need_redis()
    import redis.asyncio as aioredis

    from bot.store.postgres import PgStore

    users = [fake.user(first_name=f"P{i}", started=True) for i in range(90)]
    schema, prefix = fresh_schema(), f"kozyr-test:{uuid.uuid4().hex}"
    stores = [PgStore(PG_URL, schema=schema) for _ in range(2)]
    workers: list[tuple[Outbox, object]] = []
    middlewares: list[SharedLimitMiddleware] = []
    client = aioredis.from_url(REDIS_URL)
    try:
        for store in stores:
            await store.open()
        async with stores[0].transaction() as tx:  # 180 sends and 90 edits, queued before either worker starts
            for user in users:
                await out.send_text(tx, user.id, f"{user.id} a", slot=f"s{user.id}")
                await out.send_text(tx, user.id, f"{user.id} b")
                await out.log_line(tx, user.id, f"{user.id} c")
        for store in stores:
            bot = fake.make_bot(default=DefaultBotProperties(parse_mode=ParseMode.HTML))
            budget = store_budget(store, STARS)
            middlewares.append(SharedLimitMiddleware(RedisLimiter(client, prefix=prefix), budget))
            bot.session.middleware(middlewares[-1])
            outbox = Outbox(store, bot, RateLimiter(0.0, 100000, local), paid=budget)
            workers.append((outbox, bot))
        for outbox, _ in workers:
            outbox.start()
        for outbox, _ in workers:
            await outbox.drain(timeout=60)
        await asyncio.sleep(0.2)  # the other worker's last deliveries are recorded
        for outbox, _ in workers:
            await outbox.drain(timeout=10)
    finally:
        for outbox, bot in workers:
            await outbox.stop()
            await bot.session.close()  # type: ignore[attr-defined]
        for store in stores:
            await store.close()
        keys = [k async for k in client.scan_iter(f"{prefix}:*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()
        await drop_schema(schema)
    texts = Counter(m.content for u in users for m in u.dm.messages())
    assert all(n == 1 for n in texts.values()), [t for t, n in texts.items() if n > 1][:5]
    assert set(texts) == {f"{u.id} {k}" for u in users for k in "abc"}
    paid = [w.paid.paid for w, _ in workers if w.paid is not None]
    assert fake.limiter.paid_messages == sum(paid) > 0  # both workers were past the free rate
    assert fake.limiter.paid_messages <= STARS * 10 and fake.limiter.stars_charged <= STARS
    assert fake.limiter.served_429 <= 5, dict(fake.limiter.served_429_by_chat)  # which chats were refused
    if local > 100:  # the outboxes never saw their own free rate full: the shared one made them pay
        assert sum(m.made_paid for m in middlewares) > 0
