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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.services.periodic import Periodic
from bot.store.contract import Store, StoreTx

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

    async def _batches(self, prune: Callable[[StoreTx], Awaitable[int]]) -> int:
        """Run one pruning query until it deletes less than a batch; one short transaction a batch."""
        total = 0
        while True:
            async with self.store.transaction(durable=False) as tx:  # losing a deletion loses nothing
                n = await prune(tx)
            total += max(n, 0)
            if n < BATCH:
                return total
            await asyncio.sleep(0)

    async def _updates(self) -> int:
        latest = self.latest_update()
        if latest is None:
            async with self.store.read() as tx:
                latest = await tx.latest_update()
        if latest is None:
            return 0
        low, high = latest - self.keep_updates, latest
        return await self._batches(lambda tx: tx.prune_updates(low, high, BATCH))

    async def _failed_rows(self) -> int:
        return await self._batches(lambda tx: tx.prune_failed(self.keep_failed, BATCH))

    async def _slots(self, now: float) -> int:
        """Slots of tables over for ``slot_grace``; each such table is marked (``ui.slots_pruned``) once done."""
        total = 0
        while True:
            async with self.store.read() as tx:
                table_ids = await tx.ended_with_slots(now - self.slot_grace, BATCH // 10)
            if not table_ids:
                return total
            async with self.store.transaction(durable=False) as tx:
                for table_id in table_ids:
                    total += await tx.prune_slots(table_id)
            await asyncio.sleep(0)

    async def _blobs(self) -> int:
        documents = await self._batches(lambda tx: tx.prune_documents(BATCH))
        return documents + await self._batches(lambda tx: tx.prune_file_ids(self.keep_file_ids, BATCH))
