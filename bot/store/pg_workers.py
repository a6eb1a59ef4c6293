"""The workers sharing one PostgreSQL database, and the settings they must agree on.

Why: workers behind one webhook share what none may choose alone. Telegram sends one secret_token (the
last setWebhook wins), so a worker with another WEBHOOK_SECRET would refuse every update it is given,
quietly, as 401s; and a worker whose code expects another schema version would either migrate the
database under a running older worker or read a schema it does not know. So a worker refuses to start,
with one line, when a live worker disagrees.

"Another worker's settings", durably: the table ``kozyr_workers``, one row a worker, written at start
(before any migration) under the migration lock, so workers starting together are checked one after
another. A row holds a hash of the secret (never the secret) and the schema version the worker's code
expects. Whether its worker is alive is not a heartbeat's age but the worker's presence lock
(``pg_advisory_lock(PRESENCE, worker)``, bot/store/postgres.py), which PostgreSQL releases the moment the
worker's connection ends, a SIGKILL or a crashed machine included (once the server notices the dead
connection): a dead worker's row never blocks anyone, and is deleted by the next worker that starts. A
worker that hangs with its connection open still counts as alive, as it still holds its claims.

The table is outside the numbered migrations (like ``schema_version``): it must be readable before them.
"""

from __future__ import annotations

import hashlib
import os
import socket
from dataclasses import dataclass
from typing import Any

from bot.store.pg_migrate import MIGRATE_LOCK

REGISTRY = ("CREATE TABLE IF NOT EXISTS kozyr_workers (worker INTEGER PRIMARY KEY, secret_hash TEXT NOT NULL, "
            "code_schema INTEGER NOT NULL, host TEXT NOT NULL, pid INTEGER NOT NULL, "
            "started_at DOUBLE PRECISION NOT NULL)")


class WorkerMismatch(RuntimeError):
    """A live worker on the same database has settings this one cannot work beside (one line, exit 2)."""


def secret_hash(secret: str | None) -> str:
    """What the registry keeps of WEBHOOK_SECRET: enough to compare, not to recover it ("" when unset)."""
    if not secret:
        return ""
    return hashlib.sha256(b"kozyr webhook secret\n" + secret.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Identity:
    """The settings every worker on one database must share."""

    secret_hash: str
    code_schema: int  # the newest migration this worker's code has


def mismatch(mine: Identity, other: Any) -> str | None:
    """Why this worker may not run beside ``other`` (a registry row), or None."""
    where = f"worker {other['worker']} (pid {other['pid']} on {other['host']})"
    if other["secret_hash"] != mine.secret_hash:
        return (f"cannot start: WEBHOOK_SECRET differs from the one of the running {where}: all workers behind "
                "one webhook must share one secret (Telegram sends only the last one set)")
    if other["code_schema"] != mine.code_schema:
        return (f"cannot start: this Kozyr expects database schema version {mine.code_schema}, the running {where} "
                f"expects {other['code_schema']}: stop the workers of the other version first (no two versions share "
                "a database)")
    return None


async def register(conn: Any, worker: int, mine: Identity, presence: int) -> None:
    """Check this worker against the live ones and record it, under the migration lock; WorkerMismatch
    when a live one disagrees. Rows of dead workers (their presence lock is free) are deleted."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATE_LOCK)
        await conn.execute(REGISTRY)
        await conn.execute("DELETE FROM kozyr_workers WHERE pg_try_advisory_xact_lock_shared($1, worker)", presence)
        for other in await conn.fetch("SELECT * FROM kozyr_workers WHERE worker <> $1 ORDER BY started_at", worker):
            problem = mismatch(mine, other)
            if problem is not None:
                raise WorkerMismatch(problem)
        await conn.execute(
            "INSERT INTO kozyr_workers(worker, secret_hash, code_schema, host, pid, started_at) "
            "VALUES ($1, $2, $3, $4, $5, extract(epoch FROM now())) ON CONFLICT (worker) DO UPDATE SET "
            "secret_hash = excluded.secret_hash, code_schema = excluded.code_schema",
            worker, mine.secret_hash, mine.code_schema, socket.gethostname(), os.getpid())


async def unregister(conn: Any, worker: int) -> None:
    """A worker stopping cleanly takes its row away (a killed one's is ignored, then deleted)."""
    await conn.execute("DELETE FROM kozyr_workers WHERE worker = $1", worker)
