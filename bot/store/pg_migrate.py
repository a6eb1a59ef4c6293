"""PostgreSQL schema versions: ``bot/store/pg_migrations/NNNN_name.sql``, one per SQLite migration number.

The version lives in the table ``schema_version`` (one row). Each migration and its version bump are
one transaction; an advisory lock makes workers starting together migrate once, one after another.
A database newer than this Kozyr is refused, as for SQLite (``bot/store/migrate.py``).
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from bot.store.migrate import NAME, Migration, SchemaTooNew
from bot.store.migrate import migrations as sqlite_migrations

MIGRATE_LOCK = 0x4B6F7A7972  # pg_advisory_xact_lock key held while migrating ("Kozyr")


def migrations() -> list[Migration]:
    """The PostgreSQL migrations, by version; their numbers must be exactly the SQLite ones."""
    found = []
    for entry in resources.files("bot.store").joinpath("pg_migrations").iterdir():
        match = NAME.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    expected = [m.version for m in sqlite_migrations()]
    if [m.version for m in found] != expected:
        raise RuntimeError(f"PostgreSQL migrations {[m.name for m in found]} must match the SQLite ones one "
                           f"for one (versions {expected})")
    return found


async def current_version(conn: Any) -> int:
    exists = await conn.fetchval("SELECT to_regclass('schema_version') IS NOT NULL")
    if not exists:
        return 0
    return int(await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_version"))


async def upgrade(conn: Any) -> list[str]:
    """Bring the database (the connection's schema) to the newest version; returns the names applied."""
    todo = migrations()
    applied: list[str] = []
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATE_LOCK)
        await conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        current = await current_version(conn)
    if current > len(todo):
        raise SchemaTooNew(f"the database is at schema version {current}, but this Kozyr knows only up to "
                           f"{len(todo)}: it was used by a newer version; run that version (or restore a backup)")
    for migration in todo:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATE_LOCK)
            if migration.version <= await current_version(conn):
                continue  # another worker applied it while this one waited for the lock
            await conn.execute(migration.sql)
            await conn.execute("DELETE FROM schema_version")
            await conn.execute("INSERT INTO schema_version(version) VALUES ($1)", migration.version)
        applied.append(migration.name)
    return applied
