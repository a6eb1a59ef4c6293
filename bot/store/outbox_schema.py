"""The outbox's priority classes, expiry and indexes, added to a database made by an older schema.sql.

Why a module and not schema.sql: SQLite has no ``ADD COLUMN IF NOT EXISTS``, and the indexes below need
the new columns, so they are applied here, after schema.sql, in an idempotent way. The same SQL is listed
at the end of schema.sql for the numbered migrations.
"""

from __future__ import annotations

from typing import Any

COLUMNS = (
    # 0 replies and turn pings, 1 game news, 2 table edits (merged), 3 chatter that may expire
    ("priority", "INTEGER NOT NULL DEFAULT 1"),
    ("expires_at", "REAL"),  # wall-clock time after which the row is dropped unsent (a stale /games answer)
    ("created_at", "REAL"),  # when the oldest change the row carries was committed (the group view's lag)
)
INDEXES = (
    # The next row of one chat: an index seek, whatever the backlog (issue 9, item 10).
    "CREATE INDEX IF NOT EXISTS outbox_next ON outbox(chat_id, priority, id) WHERE status = 'pending'",
    # Merging an edit into its pending row (issue 14: was a scan of every pending row).
    "CREATE INDEX IF NOT EXISTS outbox_merge ON outbox(merge_key) WHERE status = 'pending'",
)


async def ensure(db: Any) -> None:
    """Add the missing columns and the indexes (cheap when they exist)."""
    rows = await db.execute_fetchall("PRAGMA table_info(outbox)")
    have = {r[1] for r in rows}
    for column, decl in COLUMNS:
        if column not in have:
            await db.execute(f"ALTER TABLE outbox ADD COLUMN {column} {decl}")
    for sql in INDEXES:
        await db.execute(sql)
