"""The store and the outbox on a real SQLite file; delivery through a real aiogram Bot against the fake server."""

from __future__ import annotations

import asyncio
import sqlite3
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiogram.client.default import DefaultBotProperties
from aiogram.enums import ParseMode

from bot.services import outbox as out
from bot.services.outbox import LOG_LIMIT, Outbox, RateLimiter
from bot.store.sqlite import Store
from tests.bot.harness import opened_store
from tests.fakebot.ratelimit import RateLimits
from tests.fakebot.server import FakeTelegram


@asynccontextmanager
async def delivering(fake: FakeTelegram, store: Store) -> AsyncIterator[Outbox]:
    bot = fake.make_bot(default=DefaultBotProperties(parse_mode=ParseMode.HTML))
    outbox = Outbox(store, bot, RateLimiter(0.0, 100000, 100000))
    outbox.start()
    try:
        yield outbox
    finally:
        await outbox.stop()
        await bot.session.close()


def rows(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT chat_id, method, slot, merge_key, payload, status FROM outbox ORDER BY id").fetchall()


async def test_edits_of_one_slot_merge_into_the_newest_content(tmp_path):
    db = tmp_path / "s.sqlite3"
    async with opened_store(db) as store:
        async with store.transaction() as tx:
            await out.send_text(tx, -5, "v1", slot="a")
            await out.edit_text(tx, -5, "a", "v2")
            await out.edit_text(tx, -5, "b", "other")
            await out.edit_text(tx, -5, "a", "v3")
    got = rows(db)
    assert [(r[1], r[2]) for r in got] == [("send", "a"), ("edit", "b")]  # a send not yet made stays a send
    assert '"v3"' in got[0][4] and '"other"' in got[1][4]


async def test_log_lines_merge_until_a_row_was_attempted_or_is_long(tmp_path):
    db = tmp_path / "s.sqlite3"
    async with opened_store(db) as store:
        async with store.transaction() as tx:
            await out.log_line(tx, -5, "one")
            await out.log_line(tx, -5, "two")
            await out.log_line(tx, -7, "elsewhere")
        async with store.read() as tx:
            head = (await tx.heads())[0]
        assert head.payload["text"] == "one\ntwo"
        async with store.transaction() as tx:
            await tx.outbox_attempted(head.id, "network")
            await out.log_line(tx, -5, "three")  # the attempted row is not touched: its text may be out already
            await out.log_line(tx, -5, "x" * (LOG_LIMIT - 2))  # too long to merge
        texts = [r[4] for r in rows(db) if r[0] == -5]
        assert len(texts) == 3 and '"one\\ntwo"' in texts[0] and '"three"' in texts[1]


async def test_outbox_done_keeps_what_was_merged_while_in_flight(tmp_path):
    db = tmp_path / "s.sqlite3"
    async with opened_store(db) as store:
        async with store.transaction() as tx:
            await out.log_line(tx, -5, "one")
            await out.send_text(tx, -5, "table v1", slot="t")
        async with store.read() as tx:
            log_row = (await tx.heads())[0]
        async with store.transaction() as tx:  # a line arrives while "one" is on its way
            await out.log_line(tx, -5, "two")
            assert not await tx.outbox_done(log_row, slot_message=None)
        async with store.read() as tx:
            rest = await tx.pending("log:-5:0")
        assert rest is not None and rest.payload["text"] == "two"  # only what was not sent yet

        async with store.transaction() as tx:  # the log row goes out; now the table's send is in flight
            assert await tx.outbox_done(rest)
        async with store.read() as tx:
            send_row = (await tx.heads())[0]
        assert send_row.method == "send"
        async with store.transaction() as tx:
            await out.edit_text(tx, -5, "t", "table v2")
            assert not await tx.outbox_done(send_row, slot_message=42)
            assert await tx.slot_message("t") == 42
        left = rows(db)
        assert len(left) == 1 and left[0][1] == "edit" and '"table v2"' in left[0][4]  # an edit of message 42

        async with store.read() as tx:
            again = (await tx.heads())[0]
        async with store.transaction() as tx:
            assert await tx.outbox_done(again)
        assert rows(db) == []


@pytest.mark.fake(limits=RateLimits.loose())
async def test_delivery_is_fifo_per_chat_and_edits_land_on_the_slot_message(fake, tmp_path):
    db = tmp_path / "s.sqlite3"
    ann = fake.user(first_name="Ann", started=True)
    group = fake.group("G", members=[ann], creator=ann)
    async with opened_store(db) as store, delivering(fake, store) as outbox:
        for i in range(12):
            async with store.transaction() as tx:
                await out.send_text(tx, group.id, f"group {i}")
                await out.send_text(tx, ann.id, f"dm {i}")
                if i == 3:
                    await out.send_text(tx, group.id, "<b>table</b> 0", slot="tbl")
                if i > 3:
                    await out.edit_text(tx, group.id, "tbl", f"<b>table</b> {i}")
            outbox.wake()
        await outbox.drain()
        texts = [m.content for m in group.messages() if m.content.startswith("group")]
        assert texts == [f"group {i}" for i in range(12)]
        assert [m.content for m in ann.inbox()] == [f"dm {i}" for i in range(12)]
        tables = [m for m in group.messages() if m.content.startswith("table")]
        assert len(tables) == 1 and tables[0].content == "table 11"
        assert tables[0].entities and tables[0].entities[0]["type"] == "bold"
        # An edit that changes nothing is "message is not modified" for Telegram: done, not failed.
        async with store.transaction() as tx:
            await out.edit_text(tx, group.id, "tbl", "<b>table</b> 11")
        outbox.wake()
        await outbox.drain()
        assert any("not modified" in (c.description or "") for c in fake.errors)
        assert rows(db) == []
    assert not [c for c in fake.errors if "not modified" not in (c.description or "")]


@pytest.mark.fake(limits=RateLimits.loose())
async def test_deleting_a_message_that_was_never_sent_is_done_and_the_queue_goes_on(fake, tmp_path):
    """A delete whose slot names no message has nothing to do: the row is done, the chat's next row goes
    (it stayed at the head of its queue, picked again and again)."""
    db = tmp_path / "d.sqlite3"
    ann = fake.user(first_name="Ann", started=True)
    group = fake.group("G", members=[ann], creator=ann)
    async with opened_store(db) as store, delivering(fake, store) as outbox:
        async with store.transaction() as tx:
            await tx.enqueue(group.id, "delete", {}, slot="never-sent")
            await out.send_text(tx, group.id, "after")
        outbox.wake()
        await asyncio.wait_for(outbox.drain(), 10)
        assert [m.content for m in group.messages()] == ["after"]
        assert rows(db) == []


@pytest.mark.fake(limits=RateLimits.loose())
async def test_undeliverable_rows_are_kept_as_failed_and_the_rest_goes_on(fake, tmp_path):
    db = tmp_path / "s.sqlite3"
    never = fake.user(first_name="Never")  # never opened the bot: 403
    quitter = fake.user(first_name="Quitter", started=True)
    quitter.block_bot()
    ok = fake.user(first_name="Ok", started=True)
    async with opened_store(db) as store, delivering(fake, store) as outbox:
        async with store.transaction() as tx:
            for user in (never, quitter, ok):
                await tx.upsert_user(user.id, user.first_name, None, "en")
                await tx.set_user_started(user.id)
                await out.send_text(tx, user.id, "your cards")
                await out.send_text(tx, user.id, "more")
        outbox.wake()
        await outbox.drain()
        assert [m.content for m in ok.inbox()] == ["your cards", "more"]
        failed = [r for r in rows(db) if r[5] == "failed"]
        assert sorted({r[0] for r in failed}) == sorted([never.id, quitter.id])
        assert len(failed) == 4 and not [r for r in rows(db) if r[5] != "failed"]
        async with store.read() as tx:
            assert (await tx.user(quitter.id)).blocked
            assert not (await tx.user(never.id)).started
            assert await tx.outbox_counts() == {"failed": 4}


async def test_migrate_chat_moves_tables_queues_and_forgets_old_messages(tmp_path):
    db = tmp_path / "s.sqlite3"
    async with opened_store(db) as store:
        async with store.transaction() as tx:
            await tx.ensure_chat(-5, "Old", "ru")
            table_id = await tx.create_table(-5, 0, "carnival", 1, {}, 7)
            await out.send_text(tx, -5, "hello", slot="lobby")
            await tx.set_slot("lobby", -5, 3)
            await tx.set_slot("dm", 99, 4)
            await tx.migrate_chat(-5, -1005)
            assert (await tx.table(table_id)).chat_id == -1005
            assert await tx.chat_lang(-1005) == "ru"
            assert await tx.slot_message("lobby") is None and await tx.slot_message("dm") == 4
            assert await tx.open_table(-1005, 0) is not None and await tx.open_table(-5, 0) is None
        assert [r[0] for r in rows(db)] == [-1005]


@pytest.mark.fake(limits=RateLimits.loose())
async def test_outbox_follows_a_group_upgraded_to_a_supergroup(fake, tmp_path):
    db = tmp_path / "s.sqlite3"
    ann = fake.user(first_name="Ann", started=True)
    group = fake.group("G", members=[ann], creator=ann)
    async with opened_store(db) as store, delivering(fake, store) as outbox:
        async with store.transaction() as tx:
            await out.send_text(tx, group.id, "table v1", slot="tbl")
        outbox.wake()
        await outbox.drain()
        super_group = group.migrate_to_supergroup(by=ann)
        async with store.transaction() as tx:
            await out.edit_text(tx, group.id, "tbl", "table v2")
            await out.log_line(tx, group.id, "a line")
        outbox.wake()
        await outbox.drain()
        # game news goes ahead of table edits (priority classes), so the line comes first here
        assert [m.content for m in super_group.messages()] == ["a line", "table v2"]
        assert rows(db) == []
        async with store.transaction() as tx:  # the slot now names the new message: edits go there
            await out.edit_text(tx, super_group.id, "tbl", "table v3")
        outbox.wake()
        await outbox.drain()
        assert [m.content for m in super_group.messages()] == ["a line", "table v3"]


@pytest.mark.fake(limits=RateLimits(per_chat_per_second=4.0, per_chat_burst=2, group_per_window=None,
                                     global_per_second=None))
async def test_retry_after_is_waited_out_and_nothing_is_dropped(fake, tmp_path):
    db = tmp_path / "s.sqlite3"
    group = fake.group("G")
    async with opened_store(db) as store, delivering(fake, store) as outbox:
        async with store.transaction() as tx:
            for i in range(6):
                await out.send_text(tx, group.id, f"m{i}")
        outbox.wake()
        await outbox.drain(timeout=20)
        assert fake.stats["rate_limited"] > 0 and outbox.retry_afters > 0
        assert [m.content for m in group.messages()] == [f"m{i}" for i in range(6)]
        assert rows(db) == []


class AskCounting(RateLimiter):
    """The real limiter, counting how often the outbox asks it about each chat."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.asked: Counter[int] = Counter()

    def ready_at(self, chat_id: int, now: float, overall: bool = True) -> float:
        self.asked[chat_id] += 1
        return super().ready_at(chat_id, now, overall)


@pytest.mark.fake(limits=RateLimits.loose())
async def test_chats_waiting_for_the_limiter_are_not_looked_at_on_every_wake(fake, tmp_path):
    """300 groups just served wait a minute for their next call; meanwhile the messages to a DM, each its own
    wake, ask the limiter about each group at most twice in all (once to send, once to learn its wait), not
    on every wake, and the DM's messages still go in order."""
    db = tmp_path / "s.sqlite3"
    groups = [fake.group(f"G{i}") for i in range(300)]
    user = fake.user(first_name="Ann")
    await user.start_bot()
    bot = fake.make_bot(default=DefaultBotProperties(parse_mode=ParseMode.HTML))
    limiter = AskCounting(0.0, 1, 100000)  # a group served waits a minute
    outbox = Outbox(await Store(db).open(), bot, limiter)
    outbox.start()
    try:
        async with outbox.store.transaction() as tx:
            for group in groups:
                await out.send_text(tx, group.id, "hello")
        outbox.wake()
        await outbox.drain(timeout=20)
        assert all([m.content for m in g.messages()] == ["hello"] for g in groups)
        for i in range(5):
            async with outbox.store.transaction() as tx:
                await out.send_text(tx, user.id, f"m{i}")
            outbox.wake()
            await outbox.drain(timeout=5)
        assert max(limiter.asked[g.id] for g in groups) <= 2, limiter.asked.most_common(3)
        assert [m.content for m in user.dm.messages()][-5:] == [f"m{i}" for i in range(5)]
    finally:
        await outbox.stop()
        await outbox.store.close()
        await bot.session.close()


@pytest.mark.fake(limits=RateLimits.loose())
async def test_deliveries_that_end_together_are_recorded_in_one_transaction(fake, tmp_path):
    """A delivered row is recorded done with the others that ended meanwhile, in one transaction
    (one BEGIN and one COMMIT for all), and each chat's next row waits until its last one is recorded."""
    db = tmp_path / "s.sqlite3"
    users = [fake.user(first_name=f"P{i}", started=True) for i in range(20)]
    async with opened_store(db) as store, delivering(fake, store) as outbox:
        async with store.transaction() as tx:
            for user in users:
                await out.send_text(tx, user.id, "first")
                await out.send_text(tx, user.id, "second")
        outbox.wake()
        for _ in range(500):  # every chat's first row is on its way
            if len(outbox._inflight) == len(users):
                break
            await asyncio.sleep(0.01)
        commits = store.wal.committed
        async with store.read():  # the store is busy while the calls end: their records queue
            for _ in range(500):
                if len(outbox.finished.waiting) == len(users):
                    break
                await asyncio.sleep(0.01)
            assert len(outbox.finished.waiting) == len(users)
            assert all(len(u.inbox()) == 1 for u in users)  # no second row before the first is recorded
        await outbox.drain()
        assert [m.content for u in users for m in u.inbox()] == ["first", "second"] * len(users)
        assert rows(db) == []
        # the twenty first rows in one transaction; the twenty second rows in at most a few more
        assert store.wal.committed - commits < len(users)


async def test_a_shared_bookkeeping_transaction_keeps_one_writes_fault_its_own(tmp_path):
    """bot/store/batch.py: writes queued while the store is busy commit in one transaction; when one of
    them fails, the others are still written (each alone) and only its own caller sees the error."""
    from bot.store.batch import Batch

    db = tmp_path / "s.sqlite3"
    async with opened_store(db) as store:
        batch = Batch(store)

        def put(update_id: int) -> Any:
            async def work(tx: Any) -> None:
                if update_id == 3:
                    raise ValueError("this one is broken")
                await tx.inbox_done(update_id)
            return work

        async with store.read():  # busy: all five queue, then go in one transaction
            calls = [asyncio.create_task(batch.run(put(i))) for i in range(5)]
            await asyncio.sleep(0.05)
            assert len(batch.waiting) == 5
        results = await asyncio.gather(*calls, return_exceptions=True)
        assert [type(r).__name__ for r in results] == ["NoneType"] * 3 + ["ValueError"] + ["NoneType"]
        with sqlite3.connect(db) as conn:
            assert [r[0] for r in conn.execute("SELECT update_id FROM updates ORDER BY 1")] == [0, 1, 2, 4]

        async with store.read():
            calls = [asyncio.create_task(batch.run(put(i))) for i in (10, 11, 12)]
            await asyncio.sleep(0.05)
        await asyncio.gather(*calls)
        assert batch.transactions == 1  # the three in one (the first, failed, one does not count)
