"""The composed table services: what a table keeps in memory is bounded, and a table that
ended (finished or cancelled) leaves nothing behind; a failing AI move is logged and retried.

The real SQLite store and services run; the outbox is not started (what would be sent stays queued)."""

from __future__ import annotations

import asyncio
import logging

from bot.app import Services, build_services
from bot.services.ai_seats import AiSeats
from bot.services.core import TableCore
from bot.services.outbox import Outbox, RateLimiter
from bot.services.types import Actor, Where
from bot.store.sqlite import Store

GROUP = -1001
ANN = Actor(11, "Ann", "en")
WHERE = Where(GROUP, 0, "Cards", "en")


async def _tables(path) -> tuple[Store, Services]:
    store = await Store(path).open()
    outbox = Outbox(store, None, RateLimiter(0, 1, 1))  # type: ignore[arg-type]  # never started: no bot needed
    return store, build_services(store, outbox, "kozyr_test_bot", ai_delay=0.0, timed=False,
                                 ai=AiSeats(think_ms=5.0))  # the AI searches briefly, as the harness's bots do


async def _quiet(tables: Services) -> None:
    for _ in range(4000):
        if not tables.play.ai_busy():
            return
        await asyncio.sleep(0.002)
    raise AssertionError("AI seats never stopped")


async def _started(tables: Services, ais: int = 2) -> int:
    async with tables.core.store.transaction() as tx:
        await tx.ensure_chat(GROUP, "Cards", "en")
    await tables.lobby.new_table(WHERE, ANN, "carnival", ["quarters=1"])
    table_id = await tables.lobby.open_table_id(WHERE)
    assert table_id is not None
    for _ in range(ais):
        assert not (await tables.lobby.add_ai(table_id, ANN, "en")).alert
    assert not (await tables.lobby.start(table_id, ANN, "en", False)).alert
    await _quiet(tables)
    return table_id


async def test_a_finished_table_leaves_no_lock_state_or_ai_task_behind(tmp_path):
    store, tables = await _tables(tmp_path / "k.sqlite3")
    try:
        table_id = await _started(tables)
        assert tables.core.holds(table_id)  # a table in play keeps its decoded state
        moves = 0
        while True:
            async with store.read() as tx:
                row = await tx.table(table_id)
            assert row is not None
            if row.status != "playing":
                break
            state = tables.core.state(row)
            assert state.to_act == 0, "the AI seats moved until Ann's turn"
            answer = await tables.play.press(table_id, row.version, 0, ANN, "en")
            assert not answer.alert, answer.text
            moves += 1
            await _quiet(tables)
        assert row.status == "finished" and moves > 0
        assert not tables.core.holds(table_id)
        assert not tables.play.ai_running(table_id)
    finally:
        await tables.stop()
        await store.close()


async def test_a_cancelled_table_leaves_nothing_behind(tmp_path):
    store, tables = await _tables(tmp_path / "k.sqlite3")
    try:
        table_id = await _started(tables)
        assert tables.core.holds(table_id)
        assert not (await tables.lobby.cancel(table_id, ANN, "en", is_admin=False)).alert
        await _quiet(tables)
        assert not tables.core.holds(table_id)
        assert not tables.play.ai_running(table_id)
    finally:
        await tables.stop()
        await store.close()


async def test_the_state_cache_keeps_only_the_most_recent_tables(tmp_path):
    store, tables = await _tables(tmp_path / "k.sqlite3")
    try:
        first = await _started(tables)
        async with store.read() as tx:
            row = await tx.table(first)
        assert row is not None
        core = TableCore(store, tables.core.outbox, cache_tables=2)
        states = {}
        for table_id in (first, 10_001, 10_002):  # three tables in play through a cache of two
            row.id = table_id
            states[table_id] = core.state(row)
            core.remember(row, states[table_id])
        assert not core.holds(first) and core.holds(10_001) and core.holds(10_002)
        core.state(row)  # the cached state is handed out as a copy, and the table becomes the most recent
        assert core.state(row) is not states[10_002]
    finally:
        await tables.stop()
        await store.close()


async def test_a_table_lock_lives_only_while_it_is_held_or_awaited(tmp_path):
    store, tables = await _tables(tmp_path / "k.sqlite3")
    try:
        core = tables.core
        order: list[str] = []

        async def hold(name: str) -> None:
            async with core.lock(7):
                order.append(f"{name} in")
                await asyncio.sleep(0.01)
                order.append(f"{name} out")

        await asyncio.gather(hold("a"), hold("b"), hold("c"))
        assert order == ["a in", "a out", "b in", "b out", "c in", "c out"]  # one at a time
        assert not core.holds(7)
    finally:
        await tables.stop()
        await store.close()


async def test_a_failing_ai_move_is_logged_and_retried_and_stop_leaves_no_task(tmp_path, caplog):
    store, tables = await _tables(tmp_path / "k.sqlite3")
    try:
        table_id = await _started(tables)
        play = tables.play
        await store.close()  # the database goes away under the AI: each step fails ...
        play.ai_delay = 0.0
        with caplog.at_level(logging.WARNING, logger="bot.services.play"):
            play.schedule_ai(table_id)
            await asyncio.sleep(0.05)
            assert play.ai_running(table_id)  # ... and is retried, never given up
            assert "AI move at table" in caplog.text
            await play.stop()
        assert not play.ai_running(table_id)
    finally:
        await tables.stop()
        await store.close()
