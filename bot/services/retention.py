"""Retention: what the bot no longer needs is deleted, so the database does not grow without bound.

Kept for good: tables, seats, the action log and results (replay and the league need them).
Pruned, in small batches (each its own short transaction, so moves are not held up):

- processed update ids outside a window of ``keep_updates`` ids around the newest one handled
  (Telegram redelivers only recent updates; ids are sequential, except after a week without
  updates, when all older ids are a week old anyway);
- outbox rows kept as failed, beyond the newest ``keep_failed`` (delivered rows are deleted on delivery);
- slots (which message shows what) of tables finished or cancelled more than ``slot_grace`` seconds ago;
- blobs: a document's bytes once no queued row sends it; Telegram file ids of drawn pictures
  beyond the newest ``keep_file_ids`` (a forgotten one costs one upload, nothing else).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.services.periodic import Periodic
from bot.store.sqlite import Store

log = logging.getLogger(__name__)

BATCH = 2000


@dataclass
class Retention:
    store: Store
    keep_updates: int = 200_000
    keep_failed: int = 10_000
    keep_file_ids: int = 50_000
    slot_grace: float = 24 * 3600
    every: float = 3600.0
    latest_update: Callable[[], int | None] = lambda: None
    deleted: dict[str, int] = field(default_factory=dict)
    _job: Periodic | None = None

    def start(self) -> None:
        self._job = Periodic("retention", lambda: self.every, self.run_once)
        self._job.start()

    async def stop(self) -> None:
        if self._job is not None:
            await self._job.stop()

    async def run_once(self, now: float | None = None) -> dict[str, int]:
        """One pass over everything; returns the rows deleted per kind (also added to ``deleted``)."""
        now = time.time() if now is None else now
        counts = {"updates": await self._updates(), "outbox": await self._failed_rows(),
                  "slots": await self._slots(now), "blobs": await self._blobs()}
        for kind, n in counts.items():
            self.deleted[kind] = self.deleted.get(kind, 0) + n
        if any(counts.values()):
            log.info("retention deleted %s", counts)
        return counts

    async def _batches(self, sql: str, *args: object) -> int:
        """Run a ``DELETE ... LIMIT``-style statement until it deletes nothing; one transaction a batch."""
        total = 0
        while True:
            async with self.store.transaction(durable=False) as tx:  # losing a deletion loses nothing
                cur = await tx.db.execute(sql, (*args, BATCH))
                n = cur.rowcount
            total += max(n, 0)
            if n < BATCH:
                return total
            await asyncio.sleep(0)

    async def _updates(self) -> int:
        latest = self.latest_update()
        if latest is None:
            async with self.store.read() as tx:
                row = await tx._one("SELECT MAX(update_id) AS m FROM updates")
            latest = row["m"] if row else None
        if latest is None:
            return 0
        return await self._batches(
            "DELETE FROM updates WHERE update_id IN (SELECT update_id FROM updates "
            "WHERE update_id < ? OR update_id > ? LIMIT ?)", latest - self.keep_updates, latest)

    async def _failed_rows(self) -> int:
        async with self.store.read() as tx:
            row = await tx._one("SELECT id FROM outbox WHERE status = 'failed' ORDER BY id DESC LIMIT 1 OFFSET ?",
                                self.keep_failed - 1)
        if row is None:
            return 0
        return await self._batches("DELETE FROM outbox WHERE id IN (SELECT id FROM outbox "
                                   "WHERE status = 'failed' AND id < ? LIMIT ?)", row["id"])

    async def _slots(self, now: float) -> int:
        """Slots of tables over for ``slot_grace``; each such table is marked (``ui.slots_pruned``) once done."""
        total = 0
        while True:
            async with self.store.read() as tx:
                rows = await tx._all("SELECT id FROM tables WHERE status IN ('finished', 'cancelled') "
                                     "AND updated_at < ? AND json_extract(ui, '$.slots_pruned') IS NULL LIMIT ?",
                                     now - self.slot_grace, BATCH // 10)
            if not rows:
                return total
            async with self.store.transaction(durable=False) as tx:
                for row in rows:
                    table_id = row["id"]
                    for prefix in (f"t{table_id}:", f"h{table_id}:"):
                        cur = await tx.db.execute("DELETE FROM slots WHERE slot >= ? AND slot < ?",
                                                  (prefix, prefix[:-1] + ";"))  # ';' sorts right after ':'
                        total += max(cur.rowcount, 0)
                    cur = await tx.db.execute("DELETE FROM slots WHERE slot = ?", (f"lobby:{table_id}",))
                    total += max(cur.rowcount, 0)
                    await tx.db.execute("UPDATE tables SET ui = json_set(ui, '$.slots_pruned', 1) WHERE id = ?",
                                        (table_id,))
            await asyncio.sleep(0)

    async def _blobs(self) -> int:
        documents = await self._batches(
            "DELETE FROM blobs WHERE rowid IN (SELECT rowid FROM blobs WHERE length(data) > 0 AND key NOT IN "
            "(SELECT json_extract(payload, '$.blob') FROM outbox WHERE method = 'document' "
            "AND json_extract(payload, '$.blob') IS NOT NULL) LIMIT ?)")
        async with self.store.read() as tx:
            row = await tx._one("SELECT rowid AS r FROM blobs WHERE length(data) = 0 ORDER BY rowid DESC "
                                "LIMIT 1 OFFSET ?", self.keep_file_ids - 1)
        if row is None:
            return documents
        return documents + await self._batches(
            "DELETE FROM blobs WHERE rowid IN (SELECT rowid FROM blobs WHERE length(data) = 0 AND rowid < ? LIMIT ?)",
            row["r"])
