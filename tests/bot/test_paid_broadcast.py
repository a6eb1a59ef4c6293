"""Paid broadcasts (bot/services/paid.py): past the free global rate a send may go at once, paid, within the
hour's Stars budget; edits always wait; a spent budget waits; a restart does not give the hour's Stars back.
The outbox delivers through a real aiogram Bot to the fake Bot API, which counts paid messages apart."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import aiohttp
from aiogram.client.default import DefaultBotProperties
from aiogram.enums import ParseMode

from bot.services import outbox as out
from bot.services.outbox import Outbox, RateLimiter
from bot.services.paid import PaidBudget, messages_per_hour, store_budget
from bot.store.sqlite import Store
from tests.bot.harness import opened_store
from tests.fakebot.server import FakeTelegram

HOUR = 3600.0 * 490_000  # some clock hour


def _budget(store: Store, stars: float, clock: list[float]) -> PaidBudget:
    budget = store_budget(store, stars)
    budget.clock = lambda: clock[0]
    return budget


async def test_an_hours_budget_is_spent_once_even_across_a_restart(tmp_path):
    db = tmp_path / "s.sqlite3"
    clock = [HOUR + 10]
    assert messages_per_hour(2.5) == 25
    async with opened_store(db) as store:
        first = _budget(store, 2.5, clock)
        assert [await first.take() for _ in range(15)] == [True] * 15  # two chunks of 10 taken from the count
    async with opened_store(db) as store:  # the process restarts within the hour
        again = _budget(store, 2.5, clock)
        got = [await again.take() for _ in range(30)]
        assert got.count(True) == 5  # what the first left of its chunk is lost, never spent twice
        assert again.spent() and again.refused > 0
        clock[0] += 3600  # the next hour has its budget again
        assert await again.take() and not again.spent()


async def test_no_budget_is_never_paid(tmp_path):
    async with opened_store(tmp_path / "s.sqlite3") as store:
        budget = store_budget(store, 0)
        assert not budget.on and not await budget.take()
        async with store.read() as tx:  # nothing asked of the database
            assert await tx.db.execute_fetchall("SELECT * FROM paid_spend") == []


async def _run(fake: FakeTelegram, db: Path, stars: float, per_second: int, fill: object) -> Outbox:
    """An outbox over ``db`` with ``per_second`` free messages a second and a budget of ``stars`` an hour,
    run until ``fill(tx)``'s rows are all delivered."""
    bot = fake.make_bot(default=DefaultBotProperties(parse_mode=ParseMode.HTML))
    store = await Store(db).open()
    outbox = Outbox(store, bot, RateLimiter(0.0, 100000, per_second), paid=store_budget(store, stars))
    outbox.start()
    try:
        async with store.transaction() as tx:
            await fill(tx)  # type: ignore[operator]
        outbox.wake()
        await outbox.drain(timeout=30)
    finally:
        await outbox.stop()
        await store.close()
        await bot.session.close()
    return outbox


async def test_sends_past_the_free_rate_go_paid_and_each_costs_a_tenth_of_a_star(fake, tmp_path):
    users = [fake.user(first_name=f"P{i}", started=True) for i in range(40)]

    async def fill(tx):
        for user in users:
            await out.send_text(tx, user.id, f"hello {user.id}")

    t0 = time.monotonic()
    outbox = await _run(fake, tmp_path / "s.sqlite3", 100.0, 5, fill)
    assert outbox.paid is not None and outbox.paid.paid >= 30  # 5 free in the first second, the rest paid
    assert fake.limiter.paid_messages == outbox.paid.paid
    assert fake.limiter.stars_charged == outbox.paid.paid / 10
    assert fake.limiter.served_429 == 0 and fake.errors == []
    assert all([m.content for m in u.dm.messages()] == [f"hello {u.id}"] for u in users)
    assert time.monotonic() - t0 < 5  # 40 at the free 5 a second would take 8 s
    sends = fake.calls_of("sendMessage")
    assert sum(1 for c in sends if c.params.get("allow_paid_broadcast")) == outbox.paid.paid


async def test_edits_are_never_paid_they_wait_for_the_free_rate(fake, tmp_path):
    users = [fake.user(first_name=f"P{i}", started=True) for i in range(12)]
    db = tmp_path / "s.sqlite3"

    async def first(tx):
        for user in users:
            await out.send_text(tx, user.id, "v1", slot=f"s{user.id}")

    await _run(fake, db, 100.0, 100, first)  # sent within the free rate: nothing paid
    assert fake.limiter.paid_messages == 0

    async def edits(tx):
        for user in users:
            await out.edit_text(tx, user.id, f"s{user.id}", "v2")

    t0 = time.monotonic()
    outbox = await _run(fake, db, 100.0, 4, edits)
    assert outbox.paid is not None and outbox.paid.paid == 0 and fake.limiter.paid_messages == 0
    assert time.monotonic() - t0 > 1.5  # 12 edits at 4 a second: they waited
    assert all([m.content for m in u.dm.messages()] == ["v2"] for u in users)
    assert fake.errors == [] and fake.limiter.served_429 == 0


async def test_a_spent_budget_waits_for_the_free_rate(fake, tmp_path):
    users = [fake.user(first_name=f"P{i}", started=True) for i in range(24)]

    async def fill(tx):
        for user in users:
            await out.send_text(tx, user.id, "hi")

    outbox = await _run(fake, tmp_path / "s.sqlite3", 0.5, 8, fill)  # 5 paid messages an hour
    assert outbox.paid is not None and outbox.paid.paid == 5 and outbox.paid.refused > 0
    assert fake.limiter.paid_messages == 5
    assert Counter(len(u.dm.messages()) for u in users) == {1: 24}
    assert fake.errors == [] and fake.limiter.served_429 == 0


async def test_the_fake_counts_a_paid_send_and_refuses_a_paid_edit(fake, fake_bot):
    user = fake.user(first_name="Ann", started=True)
    sent = await fake_bot.send_message(user.id, "x", allow_paid_broadcast=True)
    assert fake.limiter.paid_messages == 1 and fake.limiter.stars_charged == 0.1
    # aiogram's EditMessageText has no such field: the request is made by hand, as a bot that tried would.
    async with aiohttp.ClientSession() as http:
        async with http.post(f"{fake.base_url}/bot{fake.token}/editMessageText",
                             json={"chat_id": user.id, "message_id": sent.message_id, "text": "y",
                                   "allow_paid_broadcast": True}) as response:
            body = await response.json()
    assert response.status == 400 and "allow_paid_broadcast" in body["description"]
    assert [m.content for m in user.dm.messages()] == ["x"]
