"""What every table service shares: the store, the outbox, one lock per table and the decoded-state
cache. Each service receives this one object instead of reaching for attributes of a common class.

Both per-table maps are bounded: a lock exists only while somebody holds or waits for it, and the
state cache keeps the most recently used tables (and forgets a table the moment it ends)."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from bot.services import outbox as out
from bot.services.outbox import Outbox
from bot.services.types import Loaded, Where
from bot.store.contract import Store, StoreTx
from bot.store.rows import TableRow
from engine.core import State

CACHE_TABLES = 1024  # decoded states kept (one per table in play; an evicted one is decoded again)


@dataclass
class _Lock:
    lock: asyncio.Lock
    users: int = 0


class TableCore:
    """The store and outbox, the per-table locks and states."""

    def __init__(self, store: Store, outbox: Outbox, cache_tables: int = CACHE_TABLES) -> None:
        self.store = store
        self.outbox = outbox
        self.cache_tables = cache_tables
        self._locks: dict[int, _Lock] = {}
        self._cache: OrderedDict[int, tuple[int, State]] = OrderedDict()
        # Told a table changed: its id and new version (None: it ended), in the change's transaction (so a
        # watcher reads it after taking the table's lock).
        self.watchers: list[Callable[[int, int | None], None]] = []

    @asynccontextmanager
    async def lock(self, table_id: int) -> AsyncIterator[None]:
        """The table's lock: one change at a time per table. The entry goes when nobody holds or awaits it."""
        entry = self._locks.get(table_id)
        if entry is None:
            entry = self._locks[table_id] = _Lock(asyncio.Lock())
        entry.users += 1
        try:
            async with entry.lock:
                yield
        finally:
            entry.users -= 1
            if entry.users == 0:
                del self._locks[table_id]

    def state(self, row: TableRow) -> State:
        """The table's engine state: the cached one when it is of the row's version, else decoded."""
        cached = self._cache.get(row.id)
        if cached is not None and cached[0] == row.version:
            self._cache.move_to_end(row.id)
            return cached[1].clone()
        assert row.state is not None
        return State.from_json(row.state)

    def remember(self, row: TableRow, state: State) -> None:
        """Keep the state of a table still in play (a finished or cancelled one is forgotten)."""
        for watcher in self.watchers:
            watcher(row.id, row.version)
        if row.status != "playing":
            self.forget(row.id)
            return
        self._cache[row.id] = (row.version, state)
        self._cache.move_to_end(row.id)
        while len(self._cache) > self.cache_tables:
            self._cache.popitem(last=False)

    def forget(self, table_id: int) -> None:
        for watcher in self.watchers:
            watcher(table_id, None)
        self._cache.pop(table_id, None)

    def holds(self, table_id: int) -> bool:
        """Whether anything of the table is kept in memory (tests check that an ended table leaves nothing)."""
        return table_id in self._cache or table_id in self._locks

    async def load(self, tx: StoreTx, table_id: int) -> Loaded | None:
        row = await tx.table(table_id)
        if row is None:
            return None
        seats = await tx.seats(table_id)
        return Loaded(row, seats, names=[s.name for s in seats])

    async def say(self, where: Where, text: str, markup: Any = None, chatter: bool = False) -> None:
        """A reply: ahead of table edits; ``chatter`` (/games, /help ...) goes last and expires unsent."""
        async with self.store.transaction() as tx:
            await out.send_text(tx, where.chat_id, text, markup, thread_id=where.thread_id,
                                priority=out.CHATTER if chatter else out.REPLY,
                                ttl=out.CHATTER_TTL if chatter else None)
        self.outbox.wake()
