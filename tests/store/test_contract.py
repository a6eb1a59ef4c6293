"""One behaviour suite over both stores: what a service sees must not depend on the database.

A query added to one store and not the other, or answering differently, fails here (the lead mirrors
flow/clocks changes into bot/store/postgres.py against this suite).
"""

from __future__ import annotations

import asyncio
import inspect
import time

import pytest

from bot.store.contract import StoreTx, contract_methods
from bot.store.postgres import PgTx
from bot.store.rows import TableUi, UserRow
from bot.store.sqlite import SeatRow, Tx
from tests.store.backends import opened


def public(cls: type) -> set[str]:
    return {n for n, f in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_")}


def test_the_contract_lists_every_query_of_the_sqlite_store():
    assert public(Tx) == set(contract_methods()), "add the new query to bot/store/contract.py and postgres.py"


@pytest.mark.parametrize("cls", [Tx, PgTx], ids=["sqlite", "postgres"])
def test_each_store_has_every_query_with_the_contract_parameters(cls):
    missing = set(contract_methods()) - public(cls)
    assert not missing, f"{cls.__module__}.{cls.__name__} lacks {sorted(missing)}"
    for name in contract_methods():
        want = list(inspect.signature(getattr(StoreTx, name)).parameters.items())
        got = list(inspect.signature(getattr(cls, name)).parameters.items())
        assert [(n, p.default, p.kind) for n, p in got] == [(n, p.default, p.kind) for n, p in want], name
        assert inspect.iscoroutinefunction(getattr(cls, name)), name


async def test_updates_are_marked_once(store):
    async with store.transaction() as tx:
        assert not await tx.seen_update(7)
        assert await tx.mark_update(7) is True
        assert await tx.mark_update(7) is False
    async with store.read() as tx:
        assert await tx.seen_update(7)


async def test_users_keep_a_chosen_language_and_flags(store):
    async with store.transaction() as tx:
        await tx.upsert_user(1, "Ann", "ann", "ru")
        await tx.upsert_user(1, "Anna", None, "en")
        assert await tx.user_lang(1) == "en"
        await tx.set_user_lang(1, "ru")
        await tx.upsert_user(1, "Anna", "a", "en")
        await tx.set_user_started(1)
        await tx.set_user_blocked(1)
    async with store.read() as tx:
        user = await tx.user(1)
        assert user == UserRow(1, "Anna", "a", "ru", started=False, blocked=True)
        assert await tx.user(2) is None and await tx.user_lang(2) == "en"
    async with store.transaction() as tx:
        await tx.set_user_started(1, True)
        user = await tx.user(1)
        assert (user.started, user.blocked) == (True, False)


async def test_chats_titles_and_languages(store):
    async with store.transaction() as tx:
        await tx.ensure_chat(-5, "Group", "ru")
        await tx.ensure_chat(-5, "Renamed", "en")
        await tx.set_chat_lang(-6, "ru")
    async with store.read() as tx:
        assert (await tx.chat_title(-5), await tx.chat_lang(-5)) == ("Renamed", "ru")
        assert (await tx.chat_title(-6), await tx.chat_lang(-6)) == ("", "ru")
        assert (await tx.chat_title(-7), await tx.chat_lang(-7)) == ("", "en")


async def test_chat_hands_setting_and_bot_admin(store):
    async with store.read() as tx:
        assert await tx.chat_hands(-8) == ("group", False)  # the default, before the chat has a row
    async with store.transaction() as tx:
        await tx.ensure_chat(-8, "Group", "en")
        await tx.set_chat_hands(-8, "dm")
        await tx.set_chat_bot_admin(-8, True)
        await tx.set_chat_bot_admin(-9, True)
    async with store.read() as tx:
        assert await tx.chat_hands(-8) == ("dm", True)
        assert await tx.chat_hands(-9) == ("group", True)
        assert await tx.chat_lang(-8) == "en"
    async with store.transaction() as tx:
        await tx.set_chat_hands(-8, "group")
        await tx.set_chat_bot_admin(-8, False)
        await tx.migrate_chat(-9, -1009)
    async with store.read() as tx:
        assert await tx.chat_hands(-8) == ("group", False)
        assert await tx.chat_hands(-1009) == ("group", True)


async def test_tables_seats_and_one_open_table_per_topic(store):
    async with store.transaction() as tx:
        tid = await tx.create_table(-5, 0, "carnival", 1, {"quarters": 1}, 42)
        other = await tx.create_table(-5, 9, "oh_hell", 2, {}, 43)
        await tx.set_seats(tid, [SeatRow(0, 1, "Ann"), SeatRow(1, None, "AI")])
        table = await tx.table(tid)
        ui = TableUi(lobby_mode="opts", ai_levels={"🤖 Ada": "easy"}, autopilot=[1], extra={"m": 5})
        table.status, table.version, table.state, table.ui = "playing", 3, {"x": [1, 2]}, ui
        await tx.save_table(table)
    assert other > tid
    async with store.read() as tx:
        got = await tx.table(tid)
        assert (got.chat_id, got.game, got.status, got.options, got.seed, got.version, got.state, got.ui) == \
            (-5, "carnival", "playing", {"quarters": 1}, 42, 3, {"x": [1, 2]}, ui)
        assert got.updated_at > 0
        assert (await tx.open_table(-5, 0)).id == tid
        assert (await tx.last_table(-5, 9)).id == other
        assert [t.id for t in await tx.open_tables_of_chat(-5)] == [tid, other]
        assert [t.id for t in await tx.playing_tables()] == [tid]
        assert [t.id for t in await tx.tables_of_user(1)] == [tid]
        assert await tx.tables_of_user(2) == []
        seats = await tx.seats(tid)
        assert [(s.seat, s.user_id, s.name, s.is_ai) for s in seats] == [(0, 1, "Ann", False), (1, None, "AI", True)]
        assert await tx.table(999) is None and await tx.open_table(-5, 1) is None
    with pytest.raises(Exception) as err:
        async with store.transaction() as tx:
            await tx.create_table(-5, 0, "carnival", 1, {}, 1)
    assert "unique" in str(err.value).lower() or "UniqueViolation" in type(err.value).__name__
    async with store.read() as tx:  # the failed transaction left nothing behind
        assert len(await tx.open_tables_of_chat(-5)) == 2


async def test_a_failed_transaction_changes_nothing(store):
    with pytest.raises(RuntimeError):
        async with store.transaction() as tx:
            await tx.create_table(-1, 0, "carnival", 1, {}, 1)
            await tx.enqueue(-1, "send", {"text": "x"})
            raise RuntimeError("boom")
    async with store.read() as tx:
        assert await tx.open_table(-1, 0) is None and await tx.heads() == []


async def test_join_tokens_replace_and_forged_tokens_open_nothing(store):
    async with store.transaction() as tx:
        tid = await tx.create_table(-5, 0, "carnival", 1, {}, 1)
        await tx.set_join_token(tid, "aaa")
        await tx.set_join_token(tid, "bbb")
    async with store.read() as tx:
        assert await tx.join_token(tid) == "bbb"
        assert (await tx.token_table("bbb")).id == tid
        assert await tx.token_table("aaa") is None and await tx.join_token(tid + 1) is None


async def test_the_action_log(store):
    async with store.transaction() as tx:
        tid = await tx.create_table(-5, 0, "carnival", 1, {}, 1)
        assert await tx.action_count(tid) == 0
        await tx.append_action(tid, 0, 2, "bid:3")
        await tx.append_action(tid, 1, 0, "play:AS")
    async with store.read() as tx:
        assert await tx.action_count(tid) == 2
        assert await tx.actions(tid) == [[2, "bid:3"], [0, "play:AS"]]
    async with store.transaction() as tx:  # a move logs its action after the last, in one statement
        other = await tx.create_table(-6, 0, "carnival", 1, {}, 1)
        assert await tx.log_action(other, 1, "bid:0") == 0  # its own log starts at 0
        assert await tx.log_action(tid, 1, "play:KS") == 2
        assert await tx.log_action(tid, 2, "play:QS") == 3
    async with store.read() as tx:
        assert await tx.actions(tid) == [[2, "bid:3"], [0, "play:AS"], [1, "play:KS"], [2, "play:QS"]]
        assert await tx.actions(other) == [[1, "bid:0"]]


async def test_outbox_merges_claims_heads_per_chat_and_records_delivery(store):
    async with store.transaction() as tx:
        await tx.enqueue(-1, "send", {"text": "a"}, slot="s1", merge_key="k1")
        await tx.enqueue(-1, "send", {"text": "b"}, slot="s1", merge_key="k1")  # merged into the pending row
        await tx.enqueue(-2, "send", {"text": "log"})
        await tx.tag_last("log:-2")
        await tx.enqueue(-1, "edit", {"text": "c"})
    async with store.read() as tx:
        heads = await tx.heads()
        assert [(h.chat_id, h.payload, h.slot, h.merge_key) for h in heads] == \
            [(-1, {"text": "b"}, "s1", "k1"), (-2, {"text": "log"}, None, "log:-2")]
        assert (await tx.pending("log:-2")).id == heads[1].id
        assert len(await tx.heads(1)) == 1
    first, log = heads
    async with store.transaction() as tx:
        await tx.enqueue(-1, "send", {"text": "newer"}, merge_key="k1")  # merged while in flight
        await tx.set_payload(log.id, {"text": "log\nmore"})
        assert await tx.outbox_done(first, slot_message=77) is False  # stays, as an edit of message 77
        assert await tx.outbox_done(log) is False  # stays with only the lines added since
    async with store.read() as tx:
        assert await tx.slot_message("s1") == 77
        heads = await tx.heads()
        assert [(h.method, h.payload) for h in heads] == [("edit", {"text": "newer"}), ("send", {"text": "more"})]
    async with store.transaction() as tx:
        assert await tx.outbox_done(heads[0]) is True
        await tx.outbox_attempted(heads[1].id, "timeout")
        await tx.outbox_failed(heads[1].id, "403")
    async with store.read() as tx:
        heads = await tx.heads()
        assert [(h.method, h.payload, h.attempts) for h in heads] == [("edit", {"text": "c"}, 0)]
        assert await tx.outbox_counts() == {"pending": 1, "failed": 1}


async def test_blobs_slots_results_and_chat_migration(store):
    async with store.transaction() as tx:
        await tx.put_blob("k", b"\x00png")
        await tx.put_blob("k", b"other")
        await tx.set_blob_file_id("k", "F1")
        await tx.set_slot("s", -1, 5)
        await tx.set_slot("s", -1, 6)
        await tx.ensure_chat(-1, "Old", "ru")
        tid = await tx.create_table(-1, 0, "carnival", 1, {}, 1)
        table = await tx.table(tid)
        seats = [SeatRow(0, 1, "Ann"), SeatRow(1, None, "AI")]
        await tx.add_results(table, seats, [10, -3], [1, 2])
        await tx.add_results(table, seats, [11, -3], [1, 2])
        await tx.enqueue(-1, "send", {"text": "x"})
        await tx.migrate_chat(-1, -100)
    async with store.read() as tx:
        assert await tx.blob("k") == (b"\x00png", "F1")
        with pytest.raises(KeyError):
            await tx.blob("nope")
        assert await tx.slot_message("s") is None  # the old chat's messages are forgotten
        assert (await tx.chat_title(-100), await tx.chat_lang(-100)) == ("Old", "ru")
        assert (await tx.table(tid)).chat_id == -100
        assert [h.chat_id for h in await tx.heads()] == [-100]
        rows = await tx._all("SELECT score FROM results ORDER BY seat")
        assert [r["score"] for r in rows] == [11, -3]


async def test_outbox_priorities_expiry_and_dropping(store):
    async with store.transaction() as tx:
        await tx.enqueue(-1, "edit", {"text": "table"}, slot="s", merge_key="slot:s", priority=2)
        await tx.enqueue(-1, "send", {"text": "news"})
        await tx.enqueue(-1, "send", {"text": "games"}, priority=3, ttl=60)
        await tx.enqueue(-2, "send", {"text": "ping"}, priority=0)
        # a merge keeps the row's place and created_at, takes the urgent priority; an edit stays an edit
        await tx.enqueue(-1, "clear_markup", {"text": "newer"}, slot="s", merge_key="slot:s", priority=1)
    async with store.read() as tx:
        assert await tx.any_pending()
        assert await tx.pending_chats() == [-2, -1]
        row = await tx.next_row(-1)
        assert (row.method, row.payload, row.priority) == ("clear_markup", {"text": "newer"}, 1)
        assert row.expires_at is None and row.created_at is not None
        assert (await tx.next_row(-2)).payload == {"text": "ping"}
        assert await tx.next_row(-3) is None
        assert [h.payload["text"] for h in await tx.heads()] == ["newer", "ping"]
        # many chats' next rows at once: as one by one, in the order asked, chats with none left out
        assert [r.payload["text"] for r in await tx.next_rows([-3, -1, -2])] == ["newer", "ping"]
        assert [r.id for r in await tx.next_rows([-2, -1])] == [(await tx.next_row(c)).id for c in (-2, -1)]
    async with store.transaction() as tx:
        games = [r for r in await tx._all("SELECT * FROM outbox WHERE priority = 3")][0]
        assert games["expires_at"] == pytest.approx(games["created_at"] + 60)
        await tx.drop_expired(games["id"])
        assert await tx.drop_pending("slot:s") == 1
        assert await tx.drop_pending("slot:s") == 0
        row = await tx.next_row(-1)
        assert row.payload == {"text": "news"}
        await tx.outbox_attempted(row.id, "timeout")
    async with store.transaction() as tx:
        await tx.enqueue(-1, "send", {"text": "x"}, merge_key="m")
        await tx.outbox_attempted((await tx.pending("m")).id, "timeout")
        assert await tx.drop_pending("m") == 0  # a row a worker has tried may be on its way: kept
        assert await tx.outbox_done(await tx.next_row(-1))
        assert await tx.outbox_done(await tx.next_row(-1))
        assert await tx.outbox_done(await tx.next_row(-2))
    async with store.read() as tx:
        assert not await tx.any_pending() and await tx.pending_chats() == []


async def test_outbox_aging_sends_the_oldest_row_of_the_aged_classes_that_waited_first(store):
    """``next_row(chat, (low, high, before, step))``: a row of class p in low..high queued before ``before - (p -
    low) * step`` goes first, the oldest of them; rows of other classes never age; none waited long enough: the
    most urgent row."""
    async with store.transaction() as tx:
        await tx.enqueue(-1, "send", {"text": "chatter"}, priority=5)
        await tx.enqueue(-1, "eph", {"text": "redraw"}, slot="e1", merge_key="slot:e1", priority=4)
        await tx.enqueue(-1, "eph", {"text": "hand"}, slot="e2", merge_key="slot:e2", priority=3)
        await tx.enqueue(-1, "edit", {"text": "table"}, slot="t", merge_key="slot:t", priority=2)
    async with store.transaction() as tx:
        head = await tx.next_row(-1)
        assert head.payload == {"text": "table"}
        assert (await tx.next_row(-1, (3, 4, head.created_at - 60, 0))).payload == {"text": "table"}
        later = time.time() + 1
        assert (await tx.next_row(-1, (3, 4, later, 0))).payload == {"text": "redraw"}  # the oldest of 3..4
        assert (await tx.next_row(-1, (3, 4, later, 600))).payload == {"text": "hand"}  # class 4 waits 600 s more
        assert (await tx.next_row(-1, (5, 5, later, 0))).payload == {"text": "chatter"}
        assert await tx.outbox_done(await tx.next_row(-1, (3, 4, later, 0)))
        assert (await tx.next_row(-1, (3, 4, later, 0))).payload == {"text": "hand"}
    # A merge keeps the time a row has waited, unless it raises the row's class: it waits in its new class anew.
    async with store.transaction() as tx:
        await tx.enqueue(-1, "eph", {"text": "redraw 2"}, slot="e1", merge_key="slot:e1", priority=4)
        queued = (await tx.pending("slot:e1")).created_at
        await asyncio.sleep(0.02)
        await tx.enqueue(-1, "eph", {"text": "redraw 3"}, slot="e1", merge_key="slot:e1", priority=4)
        assert (await tx.pending("slot:e1")).created_at == queued
        await tx.enqueue(-1, "eph", {"text": "your turn"}, slot="e1", merge_key="slot:e1", priority=3)
        raised = await tx.pending("slot:e1")
        assert raised.priority == 3 and raised.created_at > queued


async def test_postgres_a_chat_is_sent_by_one_worker_even_when_an_urgent_row_jumps_the_queue(tmp_path):
    from bot.store.postgres import PgStore
    from tests.store.backends import PG_URL

    async with opened("postgres", tmp_path) as a:
        b = await PgStore(PG_URL, schema=a.schema).open()
        try:
            async with a.transaction() as tx:
                await tx.enqueue(-1, "send", {"text": "table"}, priority=2)
            async with a.read() as tx:
                held = await tx.next_row(-1)
                assert held.payload == {"text": "table"}  # a is sending it
            async with b.transaction() as tx:
                await tx.enqueue(-1, "send", {"text": "ping"}, priority=0)
            async with b.read() as tx:
                assert await tx.next_row(-1) is None  # the chat is a's while a has a row of it in flight
                assert await tx.next_rows([-1]) == []
            async with a.read() as tx:
                assert (await tx.next_row(-1)).payload == {"text": "ping"}  # a sends it next
            async with a.transaction() as tx:
                assert await tx.outbox_done(held)
            async with b.read() as tx:
                assert await tx.next_row(-1) is None  # "ping" is still a's claim
            await a.close()
            async with b.read() as tx:
                assert (await tx.next_row(-1)).payload == {"text": "ping"}  # a died: b takes over
        finally:
            await b.close()


async def test_postgres_rows_claimed_together_are_nobody_elses_while_claimed_and_after(tmp_path):
    from bot.store.postgres import PgStore
    from tests.store.backends import PG_URL

    async with opened("postgres", tmp_path) as a:
        b = await PgStore(PG_URL, schema=a.schema).open()
        try:
            async with a.transaction() as tx:
                for chat in (-1, -2, -3):
                    await tx.enqueue(chat, "send", {"text": f"to {chat}"})
            async with a.read() as tx:
                claimed = await tx.next_rows([-1, -2])
                assert [r.chat_id for r in claimed] == [-1, -2]
                async with b.read() as other:  # while a's claim is in flight (its rows locked): skipped
                    assert [r.chat_id for r in await other.next_rows([-1, -2, -3])] == [-3]
            async with b.read() as tx:  # committed: a's claims stand
                assert await tx.next_rows([-1, -2]) == []
        finally:
            await b.close()


async def test_clocks_and_user_prefs(store):
    """The clock queries (bot/store/queries.py, one SQL text) answer alike on both stores."""
    from bot.store import rows as clocks

    async with store.transaction() as tx:
        tid = await tx.create_table(-1, 0, "carnival", 1, {}, 1)
        other = await tx.create_table(-2, 0, "carnival", 1, {}, 1)
        for t in (tid, other):
            table = await tx.table(t)
            table.status = "playing"
            await tx.save_table(table)
        assert await tx.clock(tid) is None
        assert sorted(await tx.playing_without_clock()) == [tid, other]
        await tx.save_clock(clocks.ClockRow(tid, 60, bank=120, banks={"0": 120.5}, due=1000.5,
                                                     deadline=1010, turn_version=3, turn_seat=0, votes=[7]))
        await tx.save_clock(clocks.ClockRow(other, 30.0))
        assert await tx.playing_without_clock() == []
    async with store.transaction() as tx:
        c = await tx.clock(tid)
        assert (c.per_move, c.bank, c.banks, c.due, c.deadline, c.votes, c.paused) == \
            (60, 120, {"0": 120.5}, 1000.5, 1010, [7], False)
        c.paused, c.due, c.stage = True, 999, 1
        await tx.save_clock(c)
        assert await tx.due_tables(999.5) == [(tid, 999)]
        assert await tx.due_tables(998) == []
        assert await tx.next_due() == 999
        got = await tx.clocks_of([tid, other, 12345])
        assert sorted(got) == [tid, other] and got[tid].paused and got[tid].stage == 1
        assert await tx.clocks_of([]) == {}
        assert await tx.prefs(5) == clocks.Prefs()
        await tx.save_prefs(5, clocks.Prefs("Europe/Kyiv", 1320, 480))
        await tx.save_prefs(5, clocks.Prefs("+03:00", None, None))
        assert await tx.prefs(5) == clocks.Prefs("+03:00", None, None)
        await tx.enqueue(5, "send", {"text": "hand"}, slot=f"hand:{tid}:0", merge_key=f"slot:hand:{tid}:0")
        await tx.enqueue(5, "send", {"text": "other"})
        await tx.set_slot(f"hand:{tid}:0:1", 5, 77)
        await tx.set_slot(f"hand:{other}:0", 5, 78)
        assert await tx.forget_hand(5, f"hand:{tid}:") == [77]
        assert [h.payload["text"] for h in await tx.heads()] == ["other"]
        assert await tx.slot_message(f"hand:{other}:0") == 78


@pytest.mark.parametrize("kind", ["postgres"])
async def test_postgres_serialises_a_table_across_connections_and_skips_claimed_outbox_rows(kind, tmp_path):
    async with opened(kind, tmp_path) as store:
        async with store.transaction() as tx:
            tid = await tx.create_table(-1, 0, "carnival", 1, {}, 1)
            await tx.enqueue(-1, "send", {"text": "1"})
            await tx.enqueue(-1, "send", {"text": "2"})
            await tx.enqueue(-2, "send", {"text": "3"})
        order: list[str] = []
        holding = asyncio.Event()

        async def first() -> None:
            async with store.transaction() as tx:
                table = await tx.table(tid)
                claimed = await tx.heads()
                assert [h.payload["text"] for h in claimed] == ["1", "3"]
                holding.set()
                await asyncio.sleep(0.3)
                table.version += 1
                await tx.save_table(table)
                order.append("first saved")

        async def second() -> None:
            await holding.wait()
            async with store.transaction() as tx:
                assert await tx.heads() == []  # both heads are claimed by the other worker; "2" waits behind "1"
                table = await tx.table(tid)  # waits for the first transaction's lock
                order.append(f"second read v{table.version}")

        await asyncio.gather(first(), second())
        assert order == ["first saved", "second read v1"]


async def test_postgres_workers_claim_chats_and_take_over_what_a_dead_worker_held(tmp_path):
    from bot.store.postgres import PgStore
    from tests.store.backends import PG_URL

    async with opened("postgres", tmp_path) as a:
        b = await PgStore(PG_URL, schema=a.schema).open()
        try:
            async with a.transaction() as tx:
                await tx.enqueue(-1, "send", {"text": "1"})
                await tx.enqueue(-1, "send", {"text": "2"})
                await tx.enqueue(-2, "send", {"text": "3"})
                assert await tx.inbox_put(10, "{}")
            async with a.read() as tx:
                assert [h.payload["text"] for h in await tx.heads()] == ["1", "3"]  # both chats are a's now
            async with b.read() as tx:
                assert await tx.heads() == []  # a is alive: its chats stay with it
                assert await tx.inbox_waiting() == []  # and so does the update it is handling
            async with a.transaction() as tx:
                first = (await tx.heads())[0]
                assert await tx.outbox_done(first)
            async with b.read() as tx:
                assert [h.payload["text"] for h in await tx.heads()] == ["2"]  # chat -1's next row is free
            await a.close()  # a dies (its presence lock goes with its connection)
            async with b.read() as tx:
                assert [h.payload["text"] for h in await tx.heads()] == ["2", "3"]
                assert await tx.inbox_waiting() == [(10, "{}")]
            async with b.read() as tx:
                assert await tx.inbox_waiting() == []  # taken once
        finally:
            await b.close()
