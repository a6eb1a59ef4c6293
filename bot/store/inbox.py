"""Queries of the inbox: updates received from Telegram and not yet handled (see bot/intake.py)."""

from __future__ import annotations

import time

from bot.store.sqlite import Tx


async def put(tx: Tx, update_id: int, payload: str) -> bool:
    """Keep an update until it is handled; False when it was handled already or is waiting."""
    if await tx.seen_update(update_id):
        return False
    cur = await tx.db.execute("INSERT OR IGNORE INTO inbox(update_id, payload, received_at) VALUES (?, ?, ?)",
                              (update_id, payload, time.time()))
    return cur.rowcount == 1


async def waiting(tx: Tx) -> list[tuple[int, str]]:
    """What is left to handle; on PostgreSQL (several workers) only what dead workers left, now claimed."""
    orphans = getattr(tx, "inbox_orphans", None)
    if orphans is not None:
        return await orphans()
    rows = await tx.db.execute_fetchall("SELECT update_id, payload FROM inbox ORDER BY update_id")
    return [(r["update_id"], r["payload"]) for r in rows]


async def done(tx: Tx, update_id: int) -> None:
    """The update was handled: remember its id (duplicates are refused) and drop its payload."""
    await tx.mark_update(update_id)
    await tx.db.execute("DELETE FROM inbox WHERE update_id = ?", (update_id,))


async def depth(tx: Tx) -> int:
    rows = await tx.db.execute_fetchall("SELECT COUNT(*) AS n FROM inbox")
    return int(rows[0]["n"])
