"""Which store DATABASE_URL names, and who may run on it.

SQLite (the default): one process per database file (bot/store/lock.py). PostgreSQL: several worker
processes may share the database, but only in webhook mode (one getUpdates poller per token) and with
REDIS_URL (Telegram's limits shared between them, bot/shared_limits.py); otherwise the first worker holds
a PostgreSQL advisory lock and a second one is refused with a message saying what it needs.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from bot.config import Settings
from bot.store.contract import Store
from bot.store.lock import AlreadyRunning, ProcessLock

SINGLE_WORKER_LOCK = 0x4B6F7A31  # pg_advisory_lock key of the only worker ("Koz1"), with the schema's hash


class PgSingleWorker:
    """A session advisory lock on a connection of its own, held for the process's life (PostgreSQL
    releases it when the connection drops, a SIGKILL included)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._conn: Any = None

    async def acquire(self) -> None:
        import asyncpg

        self._conn = await asyncpg.connect(self.url)
        if not await self._conn.fetchval("SELECT pg_try_advisory_lock($1, hashtext(current_schema()))",
                                         SINGLE_WORKER_LOCK):
            await self._conn.close()
            self._conn = None
            raise AlreadyRunning("another Kozyr worker is running on this PostgreSQL database; several workers "
                                 "need WEBHOOK_URL (one poller per token) and REDIS_URL (shared Telegram limits)")

    async def release(self) -> None:
        if self._conn is not None:
            await self._conn.close()
            self._conn = None


class Backend:
    """The store, its lock, and the errors that mean "cannot open the database"."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.lock: ProcessLock | PgSingleWorker | None
        if settings.is_postgres:
            import asyncpg

            from bot.store.pg_migrate import migrations
            from bot.store.pg_workers import Identity, secret_hash
            from bot.store.postgres import PgStore

            identity = Identity(secret_hash(settings.webhook_secret), migrations()[-1].version)
            self.store: Store = PgStore(settings.database_url, identity=identity)  # mypy checks the contract
            shared = bool(settings.webhook_url and settings.redis_url)
            self.lock = None if shared else PgSingleWorker(settings.database_url)
            self.open_errors: tuple[type[BaseException], ...] = (OSError, asyncpg.PostgresError)
        else:
            from bot.store.sqlite import Store as SqliteStore

            self.store = SqliteStore(settings.database_path, settings.sqlite_driver)
            self.lock = ProcessLock(settings.database_path)
            self.open_errors = (sqlite3.DatabaseError,)

    async def acquire(self) -> None:
        if isinstance(self.lock, PgSingleWorker):
            await self.lock.acquire()
        elif self.lock is not None:
            self.lock.acquire()

    async def release(self) -> None:
        if isinstance(self.lock, PgSingleWorker):
            await self.lock.release()
        elif self.lock is not None:
            self.lock.release()
