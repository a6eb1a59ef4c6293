"""The bot's hot path on a real SQLite file: every outbox query the store really runs is an
index seek; durable commits share one fsync taken outside the store's lock (a failed fsync fails its
commit); the outbox shows nothing a pending fsync could still take back; a picture replaced by a newer
one is never drawn or sent."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from bot.app import App
from bot.services import outbox as out
from bot.services.outbox import Outbox, RateLimiter
from bot.services.pictures import Pictures
from bot.store.sqlite import Store
from bot.store.walsync import WalSync
from tests.bot.harness import live_hand, play_buttons, play_first_move, settle, start_carnival
from tests.fakebot.ratelimit import RateLimits

# Not seeks by nature, and not on the move path: a count for /status and the graceful stop, and the rare
# move of a group to its supergroup's id.
NOT_SEEKS = ("GROUP BY status", "UPDATE outbox SET chat_id")


class SlowWal(WalSync):
    """The real fsync, started 0.3 s late: long enough to see who waits for it and who does not."""

    def _fsync(self) -> None:
        time.sleep(0.3)
        super()._fsync()


async def test_every_outbox_query_the_store_runs_is_an_index_seek(tmp_path: Path) -> None:
    """The SQL is what the store really executes (traced on its connection), run again against an outbox
    holding 50,000 pending rows of ten other chats: each costs a few thousand SQLite instructions at most,
    where reading the backlog would cost hundreds of thousands (a query without its index does)."""
    db = tmp_path / "q.sqlite3"
    store = await Store(db).open()
    traced: list[str] = []
    try:
        async with store.transaction() as tx:
            await tx.db.executemany(
                "INSERT INTO outbox(chat_id, method, merge_key, payload, priority, created_at) "
                "VALUES (?, 'edit', ?, '{\"text\":\"x\",\"markup\":null,\"thread\":0}', 2, ?)",
                [(-1000 - i % 10, f"slot:bulk{i}", time.time()) for i in range(50_000)])
        store._db._db.set_trace_callback(traced.append)
        async with store.transaction() as tx:
            await out.send_text(tx, -5, "hello", slot="t1")
            await out.edit_text(tx, -5, "t1", "hello again")  # merges into the pending send
            await out.clear_keyboard(tx, 7, "h1")
            await out.clear_keyboard(tx, 7, "h1")
            await out.log_line(tx, -5, "line 1")
            await out.log_line(tx, -5, "line 2")  # appended to the pending log row
            await tx.drop_pending("slot:nothing")
        async with store.read() as tx:
            chats = await tx.pending_chats()
            row = await tx.next_row(-5)
            assert await tx.any_pending()
            await tx.outbox_counts()
        assert row is not None and -5 in chats
        async with store.transaction(durable=False) as tx:
            await tx.outbox_attempted(row.id, "network")
            await tx.outbox_done(row, slot_message=11)
            await tx.drop_expired(row.id)
            await tx.outbox_failed(row.id, "test")
            await tx.migrate_chat(-5, -1005)
        store._db._db.set_trace_callback(None)
        statements = [s for s in traced if "outbox" in s and not s.startswith(("BEGIN", "COMMIT"))]
        assert len(statements) >= 12, statements
        with closing(sqlite3.connect(db, isolation_level=None)) as conn:
            for sql in statements:
                if any(marker in sql for marker in NOT_SEEKS):
                    continue
                work = [0]  # SQLite virtual machine instructions, in hundreds: a scan of the backlog is 50,000+ rows

                def tick(work: list[int] = work) -> int:
                    work[0] += 1
                    return 0

                conn.set_progress_handler(tick, 100)
                conn.execute("BEGIN")
                conn.execute(sql).fetchall()
                conn.execute("ROLLBACK")
                conn.set_progress_handler(None, 100)
                plan = [r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + sql)]
                assert work[0] < 50, f"{work[0] * 100} instructions: {sql}\n -> {plan}"
    finally:
        await store.close()


async def test_durable_commits_share_an_fsync_taken_outside_the_lock(tmp_path: Path) -> None:
    """While a slow fsync runs, another transaction begins and commits at once (the lock is free); the
    durable transactions return only after an fsync that began after their COMMIT, and twenty of them
    queued together need far fewer than twenty fsyncs."""
    store = await Store(tmp_path / "g.sqlite3").open()
    store.wal = SlowWal(store.wal.db_path)
    try:
        done: dict[int, float] = {}

        async def move(i: int) -> None:
            async with store.transaction() as tx:
                await tx.mark_update(i)
            done[i] = time.monotonic()
            assert store.wal.synced >= i  # its own commit (the i-th) is on disk

        first = asyncio.create_task(move(1))
        while store.wal.committed < 1:
            await asyncio.sleep(0.001)
        start = time.monotonic()
        async with store.transaction(durable=False) as tx:  # the lock is not held during the fsync
            await tx.mark_update(1000)
        assert time.monotonic() - start < 0.2 and not first.done()
        await first
        assert done[1] - start >= 0.25  # it waited for the (slow) fsync
        syncs = store.wal.syncs
        await asyncio.gather(*(move(i) for i in range(3, 23)))  # commits 3..22
        assert store.wal.synced >= 22
        assert store.wal.syncs - syncs <= 3, store.wal.syncs - syncs
    finally:
        await store.close()


class FailingWal(WalSync):
    """An fsync that fails while ``fail`` is set (a disk error)."""

    fail = True

    def _fsync(self) -> None:
        if self.fail:
            raise OSError(5, "Input/output error")
        super()._fsync()


async def test_a_failed_fsync_fails_the_commit_waiting_for_it_and_the_next_one_syncs(tmp_path: Path) -> None:
    """A durable transaction whose fsync fails raises (nobody is told it is on disk); the next one syncs."""
    store = await Store(tmp_path / "f.sqlite3").open()
    wal = store.wal = FailingWal(store.wal.db_path)
    try:
        with pytest.raises(OSError):
            async with store.transaction() as tx:
                await tx.mark_update(1)
        assert wal.synced < wal.committed
        wal.fail = False
        async with store.transaction() as tx:
            await tx.mark_update(2)
        assert wal.synced == wal.committed and wal.syncs >= 1
    finally:
        await store.close()


@pytest.mark.fake(limits=RateLimits.off())
async def test_the_outbox_sends_nothing_before_the_move_it_shows_is_on_disk(fake, db: Path) -> None:  # the outbox alone
    """A move's message is committed (visible to the outbox) while its fsync still runs: the outbox waits
    for that fsync before sending, so power loss can never take back a move someone was shown."""
    store = await Store(db).open()
    store.wal = SlowWal(store.wal.db_path)
    try:
        ann = fake.user(first_name="Ann")
        group = fake.group("Durable", members=[ann], creator=ann)
        bot = fake.make_bot()
        outbox = Outbox(store, bot, RateLimiter(0.0, 100000, 100000))
        outbox.start()
        try:
            async def move() -> None:
                async with store.transaction() as tx:
                    await out.send_text(tx, group.id, "your move")

            task = asyncio.create_task(move())
            while store.wal.committed < 1:
                await asyncio.sleep(0.001)
            committed_at = time.monotonic()
            outbox.wake()
            await fake.wait_until(lambda: any(m.content == "your move" for m in group.messages()), timeout=10,
                                  what="the move's message")
            assert store.wal.synced >= 1
            assert time.monotonic() - committed_at >= 0.25  # not before the (slow) fsync ended
            await task
        finally:
            await outbox.stop()
            await bot.session.close()
    finally:
        await store.close()


def _standings(total: int) -> dict[str, Any]:
    return {"kind": "standings", "names": ["Ann", "Bob"], "totals": [total, 0], "lang": "en"}


@pytest.mark.fake(limits=RateLimits.off())
async def test_a_picture_replaced_before_or_while_it_is_drawn_is_never_sent(fake, db: Path) -> None:  # the outbox alone
    """The table picture of move 1 is being drawn when move 2 commits a new one: the outbox draws move 2's
    and sends only that. Then moves 3 and 4 come while the chat waits for its turn: only 4 is drawn."""
    store = await Store(db).open()
    loop = asyncio.get_running_loop()
    drawn: list[int] = []

    async def move(total: int) -> None:
        async with store.transaction() as tx:
            await out.edit_picture(tx, group.id, "t1", _standings(total), f"after move {total}")

    def render(spec: dict[str, Any]) -> bytes:  # the real drawing; move 2 commits while move 1 is drawn
        drawn.append(spec["totals"][0])
        if spec["totals"][0] == 1:
            asyncio.run_coroutine_threadsafe(move(2), loop).result(timeout=10)
        return Pictures.render(spec)

    try:
        ann = fake.user(first_name="Ann")
        group = fake.group("Pictures", members=[ann], creator=ann)
        bot = fake.make_bot()
        outbox = Outbox(store, bot, RateLimiter(0.0, 100000, 100000), render)
        outbox.start()
        try:
            await move(1)
            outbox.wake()
            await outbox.drain()
            photos = [m for m in group.messages() if m.kind == "photo"]
            assert drawn == [1, 2] and outbox.pictures_replaced == 1
            assert [m.content for m in photos] == ["after move 2"] and photos[0].edit_count == 0
            assert len(fake.calls_of("sendPhoto")) == 1 and not fake.calls_of("editMessageMedia")

            outbox.limiter.retry_after(group.id, time.monotonic(), 0.5)  # the chat must wait its turn
            await move(3)
            await move(4)
            outbox.wake()
            await outbox.drain()
            assert drawn == [1, 2, 4], "move 3's picture was replaced before its turn: never drawn"
            assert [m.content for m in group.messages() if m.kind == "photo"] == ["after move 4"]
            assert len(fake.calls_of("editMessageMedia")) == 1
        finally:
            await outbox.stop()
            await bot.session.close()
    finally:
        await store.close()


@pytest.mark.fake(limits=RateLimits.loose())
async def test_admin_checks_skip_the_creator_and_ask_telegram_once_per_person(fake, app, open_table) -> None:
    """Start pressed by a player who is not the creator asks Telegram once, however often it is pressed
    (the answer is kept briefly); the creator's own presses never ask."""
    ann, bob, cat = fake.user(first_name="Ann"), fake.user(first_name="Bob"), fake.user(first_name="Cat")
    group = fake.group("Admins", members=[cat], admins=[bob], creator=ann)
    lobby = (await open_table("carnival", [ann, bob, cat], group=group, begin=False)).lobby
    await settle(fake, app)
    presses = [await cat.press(lobby, "▶️ Start") for _ in range(3)]
    await settle(fake, app)
    assert all(p.answered and p.answer_text and "Only the table's creator" in p.answer_text for p in presses)
    # (/new asks once about the bot itself: whether it is an admin there, bot/handlers/group_hands.py)
    about_people = [c for c in fake.calls_of("getChatMember") if c.params.get("user_id") != fake.bot_id]
    assert len(about_people) == 1, "three presses by one person: one question"
    await ann.press(lobby, "▶️ Start")  # the creator: nothing to ask
    await settle(fake, app)
    assert len([c for c in fake.calls_of("getChatMember") if c.params.get("user_id") != fake.bot_id]) == 1
    assert any(play_buttons(m) for u in (ann, bob, cat) for m in u.inbox()), "the game started"


@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_press_that_gives_the_turn_to_a_person_starts_no_ai_loop(fake, app) -> None:
    """Three people: after each move the next player has a choice, so no AI loop is started only to read
    the table and end (it was one more read of the table and its seats per move)."""
    from bot.services.types import Actor

    users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat")]
    group = fake.group("People", members=users[1:], creator=users[0])
    await start_carnival(fake, app, users, group)
    assert app.services is not None
    for _ in range(4):
        live = live_hand(users)
        assert live is not None
        user, message = live
        data = next(str(b["callback_data"]) for b in play_buttons(message)
                    if str(b["callback_data"]).startswith("mv:"))
        _, table, version, index = data.split(":")
        answer = await app.services.play.press(int(table), int(version), int(index),
                                        Actor(user.id, user.first_name, "en"), "en")
        assert not answer.alert, answer.text
        assert not app.services.play.ai_running(int(table))
        await settle(fake, app)


@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_getupdates_batch_is_stored_in_one_transaction(fake, run_bot) -> None:
    """Five updates waiting together reach the bot in one getUpdates answer and are kept in the inbox by
    ONE durable transaction (one fsync wait, not five in a row), and each is then handled; marking an
    update handled is bookkeeping that waits for no fsync (README, "Durability")."""
    users = [fake.user(first_name=f"U{i}") for i in range(5)]
    async with run_bot(polling=False) as app:
        transactions: list[list[str]] = []

        def trace(sql: str) -> None:
            if sql.startswith("BEGIN"):
                transactions.append([])
            elif transactions:
                transactions[-1].append(sql)

        app.store._db._db.set_trace_callback(trace)  # the inline driver's sqlite3 connection
        durable: list[bool] = []  # per COMMIT, in order: whether its transaction waits for an fsync
        committed_one = app.store.wal.committed_one

        def counted(flag: bool) -> int:
            durable.append(flag)
            return committed_one(flag)

        app.store.wal.committed_one = counted  # type: ignore[method-assign]
        for user in users:
            await user.start_bot()  # queued: the bot is not polling yet
        app.start_polling()
        await settle(fake, app)
        stored = [sum("INSERT INTO inbox" in sql for sql in tx) for tx in transactions]
        assert [n for n in stored if n] == [5], stored
        # A handled update may also leave the inbox riding along in another transaction, under a savepoint
        # (bot/store/batch.py): whoever waits for that transaction's fsync, its bookkeeping caller does not.
        kinds = {("put" if any("INSERT INTO inbox" in q for q in tx) else
                  "done" if any("DELETE FROM inbox" in q for q in _own(tx)) else "other", flag)
                 for tx, flag in zip(transactions, durable, strict=True)}
        assert ("put", True) in kinds and ("done", False) in kinds and ("done", True) not in kinds, kinds
        assert all(u.inbox() for u in users), "each /start was handled and answered"


def _own(statements: list[str]) -> list[str]:
    """A transaction's own statements: without the bookkeeping that rode along (bot/store/batch.py)."""
    return statements[:statements.index("SAVEPOINT bookkeeping")] if "SAVEPOINT bookkeeping" in statements \
        else statements


@pytest.mark.fake(limits=RateLimits.loose())
async def test_handling_starts_during_the_inbox_fsync_and_the_offset_waits_for_it(fake, run_bot) -> None:
    """An update is handled as soon as its inbox row is committed, while that row's (slow) fsync runs;
    Telegram is told it was received (the next getUpdates' offset) only once the fsync is done. Whatever
    the handler tells anyone waits for its own fsync, which began later and so covers the inbox row."""
    ann = fake.user(first_name="Ann")
    async with run_bot(polling=False) as app:
        app.store.wal = wal = SlowWal(app.store.wal.db_path)
        synced_at: list[float] = []
        fsync = wal._fsync

        def timed_fsync() -> None:
            fsync()
            synced_at.append(time.monotonic())

        wal._fsync = timed_fsync  # type: ignore[method-assign]
        seen: list[tuple[int, int]] = []  # (synced, committed) when the handler began
        feed = app.dispatcher.feed_update

        async def watched(bot: Any, update: Any, **kwargs: Any) -> Any:
            seen.append((wal.synced, wal.committed))
            return await feed(bot, update, **kwargs)

        app.dispatcher.feed_update = watched  # type: ignore[method-assign]
        polls: list[tuple[float, int | None]] = []  # (when, offset) of every getUpdates the fake received
        get = fake.updates.get

        async def polled(offset: int | None, *args: Any) -> Any:
            polls.append((time.monotonic(), offset))
            return await get(offset, *args)

        fake.updates.get = polled  # type: ignore[method-assign]
        await ann.start_bot()
        app.start_polling()
        await settle(fake, app)
        assert ann.inbox(), "the /start was handled and answered"
        synced, committed = seen[0]
        assert synced < committed, "the handler began before the inbox row's fsync ended"
        confirmed = [at for at, offset in polls if (offset or 0) > 1]
        assert confirmed and synced_at and confirmed[0] >= synced_at[0]


@pytest.mark.fake(limits=RateLimits.loose())
async def test_handled_updates_are_not_kept_in_memory(fake, app) -> None:
    """After a lobby, a start and a few moves, no handled update is still alive but the last (the intake's
    last getUpdates batch, until the next one): aiogram's cache of ``Update.event_type`` kept the last 128
    (with their messages, keyboards and names) for good."""
    import gc

    from aiogram.types import Update

    users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat")]
    group = fake.group("People", members=users[1:], creator=users[0])
    await start_carnival(fake, app, users, group)
    for _ in range(3):
        await play_first_move(fake, app, users)
    last = fake.updates.next_id - 1
    gc.collect()
    alive = sorted(o.update_id for o in gc.get_objects() if type(o) is Update)
    assert last >= 10
    assert alive in ([], [last])


@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_press_is_modeled_without_the_pressed_messages_keyboard(fake, app, db: Path) -> None:
    """Telegram sends the keyboard of the pressed message with every press; modeling it was most of an
    update's cost, and only a press on an out-of-date keyboard reads it (from the inbox, which keeps the
    update as received: the next test). The handler gets the update without it, and the
    move is made all the same."""
    from aiogram.types import Update

    users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat")]
    group = fake.group("People", members=users[1:], creator=users[0])
    await start_carnival(fake, app, users, group)
    stored: list[str] = []
    app.store._db._db.set_trace_callback(
        lambda sql: stored.append(sql) if sql.startswith("INSERT INTO inbox") else None)
    handled: list[Update] = []
    feed = app.dispatcher.feed_update

    async def watched(bot: Any, update: Update, **kwargs: Any) -> Any:
        handled.append(update)
        return await feed(bot, update, **kwargs)

    app.dispatcher.feed_update = watched  # type: ignore[method-assign]
    live = live_hand(users)
    assert live is not None
    user, message = live
    data = next(str(b["callback_data"]) for b in play_buttons(message)
                if str(b["callback_data"]).startswith("mv:"))
    table_id = int(data.split(":")[1])
    before = await version_of(app, table_id)
    assert message.to_api()["reply_markup"]["inline_keyboard"], "Telegram sends the keyboard with the press"
    sent = await user.press_data(message, data)
    await settle(fake, app)
    assert [u.callback_query.data for u in handled if u.callback_query] == [sent.data]
    query = handled[0].callback_query
    assert query is not None and query.message is not None and query.message.reply_markup is None
    assert len(stored) == 1 and '"callback_query"' in stored[0] and '"message_id"' in stored[0]
    assert data in stored[0].split('"reply_markup":', 1)[1], "the inbox keeps the update as received"
    assert await version_of(app, table_id) > before, "the move was made"


async def version_of(app: App, table_id: int) -> int:
    async with app.store.read() as tx:
        table = await tx.table(table_id)
    assert table is not None
    return table.version


@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_stale_press_on_a_copy_of_the_hand_takes_the_copys_keyboard_away(fake, app) -> None:
    """A hand sent twice (delivery is at least once: a crash between a send and its record) leaves a copy
    whose buttons go out of date; a press on one takes that copy's keyboard away, and only its. Whether the
    pressed keyboard plays at the table is read from the press as stored in the inbox (its model leaves the
    keyboard out)."""
    import copy

    users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat")]
    group = fake.group("People", members=users[1:], creator=users[0])
    await start_carnival(fake, app, users, group)
    live = live_hand(users)
    assert live is not None
    user, message = live
    twin = fake.store_bot_message(message.chat, text=message.text,
                                  reply_markup=copy.deepcopy(message.reply_markup))
    data = next(str(b["callback_data"]) for b in play_buttons(message)
                if str(b["callback_data"]).startswith("mv:"))
    table_id = int(data.split(":")[1])
    await user.press_data(message, data)  # the move: the version moves on
    await settle(fake, app)
    moved = await version_of(app, table_id)
    assert twin.buttons, "the copy still offers the old moves"
    await user.press_data(twin, data)  # out of date now
    await settle(fake, app)
    assert not twin.buttons, "the copy's keyboard was taken away"
    assert [c.params.get("message_id") for c in fake.calls_of("editMessageReplyMarkup")] == [twin.message_id]
    assert await version_of(app, table_id) == moved, "the stale press changed nothing"
