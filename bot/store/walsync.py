"""Group commit for SQLite: many transactions, one fsync, and the store's lock never held during it.

Why: with ``synchronous=FULL`` every COMMIT waits for its own fsync while holding the store's only
lock, so under load every other transaction (a move at another table, the outbox's bookkeeping)
queues behind the disk: bench/bot.py measured update -> commit p99 at 79-231 ms at 200 tables.

How: the connection runs with ``synchronous=NORMAL`` in WAL mode, where COMMIT writes the WAL into
the operating system's cache and returns (a crash of the bot loses nothing from then on: the data is
the kernel's). A durable transaction then waits, outside the store's lock, until an fsync of the WAL
that began after its COMMIT has finished; every commit made before that fsync began rides along.

The guarantee (the same as FULL's, as seen from outside): whatever a durable transaction did is on
disk before ``Store.transaction()`` returns, so before the bot acknowledges it to anyone (a callback
answer, a Telegram offset). The outbox sends only rows whose durable commits are synced
(``Store.durable()``), so no message shows a move that power loss could take back. What power loss
may take: the non-durable bookkeeping (an outbox row marked sent, an update id marked seen) of the
last moment, which costs a repeat, never a loss.

Checkpoints (copying the WAL into the database file, two more fsyncs) run on their own connection in
a worker thread, not inside a COMMIT on the event loop (``wal_autocheckpoint`` is 0 on the main one).
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path

CHECKPOINT_EVERY = 500  # commits between checkpoints (SQLite's own default is 1000 pages)


class WalSync:
    """Counts commits and makes them durable in batches; ``None`` path: an in-memory database."""

    def __init__(self, db_path: Path | None) -> None:
        self.db_path = db_path
        self.committed = 0  # commits made so far (sequence numbers)
        self.durable_mark = 0  # the newest commit that must reach the disk before it is acknowledged
        self.synced = 0  # every commit up to this one is on disk
        self.syncs = 0  # fsyncs made (tests and bench/bot.py read it)
        self.checkpoints = 0
        self._running: asyncio.Future[None] | None = None
        self._checkpoint: asyncio.Future[None] | None = None
        self._checkpointed_at = 0
        self._wal_ino: int | None = None  # the WAL file whose directory entry was synced
        self._ckpt_db: sqlite3.Connection | None = None

    def committed_one(self, durable: bool) -> int:
        """Count a COMMIT that just returned; its sequence number."""
        self.committed += 1
        if durable:
            self.durable_mark = self.committed
        if self.db_path is None:
            self.synced = self.committed
        elif self.committed - self._checkpointed_at >= CHECKPOINT_EVERY and self._checkpoint is None:
            self._checkpointed_at = self.committed
            self._checkpoint = asyncio.ensure_future(self._run_checkpoint())
        return self.committed

    async def wait(self, seq: int | None = None) -> None:
        """Return once commit ``seq`` (default: the newest durable one) is on disk."""
        target = self.durable_mark if seq is None else seq
        while self.synced < target:
            if self._running is None:
                self._running = asyncio.ensure_future(self._sync())
            await asyncio.shield(self._running)

    async def _sync(self) -> None:
        upto = self.committed  # taken before the fsync starts: these commits are in the WAL already
        try:
            await asyncio.to_thread(self._fsync)
        finally:
            self._running = None
        self.syncs += 1
        self.synced = max(self.synced, upto)

    def _fsync(self) -> None:
        assert self.db_path is not None
        try:
            fd = os.open(f"{self.db_path}-wal", os.O_RDONLY)
        except FileNotFoundError:  # no WAL (yet): whatever was committed is in the database file
            fd = os.open(self.db_path, os.O_RDONLY)
        try:
            os.fsync(fd)
            ino = os.fstat(fd).st_ino
        finally:
            os.close(fd)
        if ino != self._wal_ino:  # a new WAL file: its name must survive power loss too
            directory = os.open(self.db_path.parent, os.O_RDONLY)
            try:
                os.fsync(directory)
            finally:
                os.close(directory)
            self._wal_ino = ino

    async def _run_checkpoint(self) -> None:
        try:
            await asyncio.to_thread(self._checkpoint_now)
            self.checkpoints += 1
        except sqlite3.Error:
            pass  # busy (a backup reading): the next one catches up; the WAL only grows meanwhile
        finally:
            self._checkpoint = None

    def _checkpoint_now(self) -> None:
        if self._ckpt_db is None:
            self._ckpt_db = sqlite3.connect(self.db_path or ":memory:", isolation_level=None,
                                            check_same_thread=False)
            self._ckpt_db.execute("PRAGMA busy_timeout=0")
            self._ckpt_db.execute("PRAGMA synchronous=FULL")
        # PASSIVE: copies what it can without waiting for the writer; the writer restarts the WAL
        # from its beginning once everything is copied, so the file stops growing.
        self._ckpt_db.execute("PRAGMA wal_checkpoint(PASSIVE)")

    async def close(self) -> None:
        """Finish a running fsync or checkpoint and close the checkpoint connection."""
        for job in (self._running, self._checkpoint):
            if job is not None:
                await asyncio.gather(job, return_exceptions=True)
        if self._ckpt_db is not None:
            self._ckpt_db.close()
            self._ckpt_db = None
