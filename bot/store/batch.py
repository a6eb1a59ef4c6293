"""Small bookkeeping writes that may share one transaction: a delivered outbox row recorded done, a handled
update taken out of the inbox. Each cost a transaction of its own (a BEGIN, and a COMMIT that writes WAL
frames), several per move (bench/bot.py --sql counts them).

``await batch.run(work)`` queues ``work(tx)`` and returns once a transaction that ran it committed. The
first waiting write starts a writer; the writer takes everything queued by the time it holds the store's
lock, so writes that come while the store is busy go together. Not fsynced on its own (``durable=False``):
only writes whose loss costs at most a repeat belong here. If the shared transaction fails, each write is
tried again alone, so one write's fault is only its own (and raised to its own caller).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable

from bot.store.contract import Store, StoreTx

Work = Callable[[StoreTx], Awaitable[object]]


class Batch:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.waiting: list[tuple[Work, asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None
        self.transactions = 0  # shared transactions committed (tests, benchmarks)

    async def run(self, work: Work) -> None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiting.append((work, done))
        if self._writer is None:
            self._writer = asyncio.create_task(self._write(), name="store-batch")
        await done

    async def _write(self) -> None:
        batch: list[tuple[Work, asyncio.Future[None]]] = []
        try:
            while self.waiting:
                batch = []
                try:
                    async with self.store.transaction(durable=False) as tx:
                        batch, self.waiting = self.waiting, []  # taken once the lock is held
                        for work, _ in batch:
                            await work(tx)
                except Exception as exc:
                    began = bool(batch)
                    if not began:  # the transaction never began (a locked database): all waiting share its fault
                        batch, self.waiting = self.waiting, []
                    if not began or len(batch) == 1:
                        for _, done in batch:
                            _settle(done, exc)
                        continue
                    for work, done in batch:  # each alone: one write's fault must not be the others'
                        try:
                            async with self.store.transaction(durable=False) as tx:
                                await work(tx)
                        except Exception as alone:
                            _settle(done, alone)
                        else:
                            _settle(done, None)
                    continue
                self.transactions += 1
                for _, done in batch:
                    _settle(done, None)
        finally:  # cancelled (the loop stops): what was not committed is not written; its callers see it
            self._writer = None
            for _, done in batch + self.waiting:
                done.cancel()  # no-op for those already settled
            self.waiting = []


_SHARED: weakref.WeakKeyDictionary[Store, Batch] = weakref.WeakKeyDictionary()


def shared(store: Store) -> Batch:
    """The store's one bookkeeping batch: the intake's handled updates and the outbox's delivered rows share
    its transactions (apart, each took a BEGIN and a COMMIT of its own, bench/bot.py counts the commits)."""
    batch = _SHARED.get(store)
    if batch is None:
        batch = _SHARED[store] = Batch(store)
    return batch


def _settle(done: asyncio.Future[None], exc: BaseException | None) -> None:
    if done.done():  # its caller was cancelled meanwhile
        return
    if exc is None:
        done.set_result(None)
    else:
        done.set_exception(exc)
