"""Small bookkeeping writes that may share one transaction: a delivered outbox row recorded done, a handled
update taken out of the inbox. Each cost a transaction of its own (a BEGIN, and a COMMIT that writes WAL
frames), several per move (bench/bot.py --sql counts them).

``await batch.run(work)`` queues ``work(tx)`` and returns once a transaction that ran it committed. The
first waiting write starts a writer; the writer takes everything queued by the time it holds the store's
lock, so writes that come while the store is busy go together. Not fsynced on its own (``durable=False``):
only writes whose loss costs at most a repeat belong here. If the shared transaction fails, each write is
tried again alone, so one write's fault is only its own (and raised to its own caller).

Riding along: on SQLite the store's every write transaction (a move, the intake's updates) takes what is
queued here before its COMMIT (``Store.rider``), so most bookkeeping costs no BEGIN and COMMIT of its own.
The shared batch's writer therefore waits ``RIDE_WAIT`` before it starts a transaction of its own, and only
for what no other transaction took meanwhile. A write that rides runs under a savepoint: its fault rolls back
only the writes that rode, never the host's, and they are written by the batch's own transaction instead;
a host that fails to COMMIT hands them back the same way.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable

from bot.store.contract import Store, StoreTx

Work = Callable[[StoreTx], Awaitable[object]]
Settle = Callable[[BaseException | None], None]

RIDE_WAIT = 0.01  # seconds queued writes wait for a transaction that happens anyway to take them along
SAVEPOINT = "bookkeeping"


class Batch:
    def __init__(self, store: Store, ride_wait: float = 0.0) -> None:
        self.store = store
        self.ride_wait = ride_wait  # how long the writer leaves queued writes to other transactions
        self.waiting: list[tuple[Work, asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None
        self.transactions = 0  # shared transactions committed (tests, benchmarks)
        self.rode = 0  # writes committed along with another transaction (tests, benchmarks)

    async def run(self, work: Work) -> None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiting.append((work, done))
        if self._writer is None:
            self._writer = asyncio.create_task(self._write(), name="store-batch")
        await done

    async def ride(self, tx: StoreTx) -> Settle | None:
        """Run the queued writes in ``tx``, a transaction about to COMMIT (``Store.rider``); how to settle
        them once the COMMIT succeeded (None) or failed (its error). None: nothing rode."""
        if not self.waiting:
            return None
        taken, self.waiting = self.waiting, []
        try:
            await tx.savepoint(SAVEPOINT)
            for work, _ in taken:
                await work(tx)
            await tx.release(SAVEPOINT)
        except BaseException as exc:  # the host goes on without them; the writer runs them (each alone if need be)
            self._hand_back(taken)
            if not isinstance(exc, Exception):
                raise  # cancelled: the host rolls back whole
            await tx.rollback_to(SAVEPOINT)  # if even that fails, the host fails (and rolls back)
            await tx.release(SAVEPOINT)
            return None

        def settle(failed: BaseException | None) -> None:
            if failed is not None:
                self._hand_back(taken)
                return
            self.rode += len(taken)
            for _, done in taken:
                _settle(done, None)
        return settle

    def _hand_back(self, taken: list[tuple[Work, asyncio.Future[None]]]) -> None:
        self.waiting[:0] = taken
        if self._writer is None:
            self._writer = asyncio.create_task(self._write(), name="store-batch")

    async def _write(self) -> None:
        batch: list[tuple[Work, asyncio.Future[None]]] = []
        try:
            while self.waiting:
                batch = []
                if self.ride_wait:
                    await asyncio.sleep(self.ride_wait)  # meanwhile, a transaction may take them along
                    if not self.waiting:
                        break
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
        rides = hasattr(store, "rider")  # SQLite: every write transaction takes the queued writes along
        batch = _SHARED[store] = Batch(store, ride_wait=RIDE_WAIT if rides else 0.0)
        if rides:
            store.rider = batch.ride  # type: ignore[attr-defined]  # SQLite's Store only (bot/store/sqlite.py)
    return batch


def _settle(done: asyncio.Future[None], exc: BaseException | None) -> None:
    if done.done():  # its caller was cancelled meanwhile
        return
    if exc is None:
        done.set_result(None)
    else:
        done.set_exception(exc)
