"""The live push: every open app of a table gets the table's new picture after each change.

One process: the table core tells the hub a table changed (``TableCore.watchers``, called inside the
change's transaction); the hub then waits for the table's lock, which the change holds until its
commit is durable, reads the table once and gives every open app of it its own picture (a seat's own
hand, or the spectators' view). Changes that come faster than a push coalesce: an app only ever needs
the newest picture. Several workers: the hub tells the others of each change through a ``Fanout``
(bot/webapp/fanout.py) and hears theirs (``remote``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from bot.services.core import TableCore
from bot.services.types import Loaded
from engine.core import State

log = logging.getLogger(__name__)

Build = Callable[[Loaded, State | None, int, str], dict[str, Any]]
STREAMS_PER_USER = 8  # open apps one user may keep on one worker (a phone, a desktop, a few reloads)
REMOTE_TRIES = 40  # reads of a table another worker changed, while its commit is not visible yet
REMOTE_WAIT = 0.025  # seconds between them


class Fanout(Protocol):
    """The other workers: told of this worker's changes (``publish``), telling this one of theirs."""

    def publish(self, table_id: int, version: int | None) -> None: ...


@dataclass(eq=False)
class Subscriber:
    """One open app: who it is, and the newest picture not yet sent (older ones are dropped)."""

    table_id: int
    user_id: int
    latest: dict[str, Any] | None = None
    closed: bool = False
    ready: asyncio.Event = field(default_factory=asyncio.Event)

    def offer(self, picture: dict[str, Any]) -> None:
        self.latest = picture
        self.ready.set()

    def close(self) -> None:
        self.closed = True
        self.ready.set()

    async def next(self, timeout: float) -> dict[str, Any] | None:
        """The next picture, or None after ``timeout`` (time for a keep-alive) or once closed."""
        try:
            await asyncio.wait_for(self.ready.wait(), timeout)
        except TimeoutError:
            return None
        self.ready.clear()
        picture, self.latest = self.latest, None
        return picture


class Hub:
    def __init__(self, core: TableCore, build: Build, fanout: Fanout | None = None) -> None:
        self.core = core
        self.build = build
        self.fanout = fanout
        self._subs: dict[int, set[Subscriber]] = {}
        self._per_user: dict[int, int] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._dirty: set[int] = set()
        self._wanted: dict[int, int] = {}  # table -> the version another worker made (not yet readable here)
        core.watchers.append(self.changed)

    def subscribe(self, table_id: int, user_id: int) -> Subscriber | None:
        """A new open app; None when the user has ``STREAMS_PER_USER`` open already (each holds a connection)."""
        if self._per_user.get(user_id, 0) >= STREAMS_PER_USER:
            return None
        self._per_user[user_id] = self._per_user.get(user_id, 0) + 1
        sub = Subscriber(table_id, user_id)
        self._subs.setdefault(table_id, set()).add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        subs = self._subs.get(sub.table_id)
        if subs is not None and sub in subs:
            subs.discard(sub)
            left = self._per_user.get(sub.user_id, 1) - 1
            if left > 0:
                self._per_user[sub.user_id] = left
            else:
                self._per_user.pop(sub.user_id, None)
            if not subs:
                del self._subs[sub.table_id]

    def watching(self, table_id: int) -> int:
        return len(self._subs.get(table_id, ()))

    def changed(self, table_id: int, version: int | None = None) -> None:
        """A table changed here (called in its transaction): push once its lock is free, coalescing bursts."""
        if self.fanout is not None:
            self.fanout.publish(table_id, version)
        self._mark(table_id)

    def remote(self, table_id: int, version: int | None) -> None:
        """Another worker changed a table: push it, once this worker's store shows ``version``."""
        if table_id not in self._subs:
            return
        if version is not None:
            self._wanted[table_id] = max(version, self._wanted.get(table_id, version))
        self._mark(table_id)

    def _mark(self, table_id: int) -> None:
        if table_id not in self._subs:
            return
        self._dirty.add(table_id)
        if table_id not in self._tasks:
            task = asyncio.get_running_loop().create_task(self._push(table_id), name=f"app-push-{table_id}")
            self._tasks[table_id] = task

    async def _push(self, table_id: int) -> None:
        try:
            while table_id in self._dirty:
                self._dirty.discard(table_id)
                await self._push_once(table_id)
        except Exception:
            log.exception("pushing table %s to its open apps failed", table_id)
        finally:
            self._tasks.pop(table_id, None)
            self._dirty.discard(table_id)
            self._wanted.pop(table_id, None)

    async def _push_once(self, table_id: int) -> None:
        for _ in range(REMOTE_TRIES):
            async with self.core.lock(table_id):  # a change made here holds it until its commit is on disk
                async with self.core.store.read() as tx:
                    loaded = await self.core.load(tx, table_id)
                    lang = await tx.chat_lang(loaded.row.chat_id) if loaded is not None else "en"
            if loaded is None:
                return
            if loaded.row.version >= self._wanted.get(table_id, 0):
                break
            await asyncio.sleep(REMOTE_WAIT)  # another worker's commit is on its way
        else:
            return
        state = self.core.state(loaded.row) if loaded.row.state is not None else None
        for sub in list(self._subs.get(table_id, ())):
            sub.offer(self.build(loaded, state, sub.user_id, lang))

    async def close(self) -> None:
        """End every open stream (the server stops) and every push under way."""
        for subs in self._subs.values():
            for sub in subs:
                sub.close()
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
