"""Schema versions: numbered SQL files in ``bot/store/migrations/``, applied in order at start.

How to add one: create ``bot/store/migrations/NNNN_what.sql`` with the next number (4 digits);
it runs once, in one transaction, and ``PRAGMA user_version`` becomes NNNN. Never edit a
migration that has shipped: add a new one (``ALTER TABLE``, ``CREATE TABLE``, a data fix).
A database whose version is newer than the newest file is refused (an older bot would
misread it), with a message that says so.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from importlib import resources

NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


class SchemaTooNew(RuntimeError):
    """The database was written by a newer Kozyr."""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def migrations() -> list[Migration]:
    """Every shipped migration, by version; numbers must run 1, 2, 3... with no gap or repeat."""
    found = []
    for entry in resources.files("bot.store").joinpath("migrations").iterdir():
        match = NAME.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if versions != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migrations must be numbered 1..N without gaps: {[m.name for m in found]}")
    return found


def latest() -> int:
    return len(migrations())


def upgrade(db: sqlite3.Connection) -> list[str]:
    """Bring the database to the newest version; returns the names applied. The connection must be
    in autocommit mode (``isolation_level=None``)."""
    current = db.execute("PRAGMA user_version").fetchone()[0]
    todo = migrations()
    if current > len(todo):
        raise SchemaTooNew(f"the database is at schema version {current}, but this Kozyr knows only up to "
                           f"{len(todo)}: it was used by a newer version; run that version (or restore a backup)")
    applied = []
    for migration in todo[current:]:
        # executescript commits whatever is open first, then runs the script as written: BEGIN ... COMMIT
        # makes the migration and its version number one transaction.
        try:
            db.executescript(f"BEGIN IMMEDIATE;\n{migration.sql}\n;PRAGMA user_version = {migration.version};\nCOMMIT;")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        applied.append(migration.name)
    return applied
