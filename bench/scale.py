"""Scale-out benchmark: the store side of a move at 1,000 concurrent tables, side by side for
one worker on SQLite, one worker on PostgreSQL and two workers (two processes) on PostgreSQL.

Run from the repository root (PostgreSQL at KOZYR_TEST_PG_URL, default postgresql://postgres@127.0.0.1/test)::

    python3 bench/scale.py                 # 1,000 tables, 10 s per phase and setup
    python3 bench/scale.py --seconds 5 --tables 200

What a "move" is here: the transaction a move makes in the bot (``Play.press``, bot/services/play.py), through the real
stores (bot/store/sqlite.py, bot/store/postgres.py): mark the update handled, read the table (on PostgreSQL
``FOR UPDATE``: the per-table serialisation between workers), count and append the action, save the table's
version and a ~3 KB snapshot, queue the group's edit (merged per table), COMMIT durably. Not included: the
engine, drawing, aiogram and HTTP (bench/bot.py measures those on SQLite). Each worker also runs an outbox
sender that, as the bot's outbox does, lists the chats with pending rows and claims each one's next row (on
PostgreSQL ``FOR UPDATE SKIP LOCKED``, one worker per chat at a time) and marks it sent, with no pacing; every
delivered row id is collected and a row delivered twice is reported. The CPU of the workers and of the PostgreSQL
server during each throughput phase is printed too: on a machine with few cores it sets the ceiling.

Two phases per setup:
- throughput: every table sends its next move as soon as the last one committed (closed loop): moves/s;
- latency: an open loop at ``--rate`` moves a second per table (default 0.25: 250 moves/s over 1,000 tables,
  people playing cards), update arrival to COMMIT: p50 / p99. Updates go round-robin to the workers, as a load
  balancer in front of webhook workers would send them (so one table's moves land on both workers).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import os
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PG_URL = os.environ.get("KOZYR_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
STATE = {"deal": 1, "hands": [[f"{r}{s}" for r in "6789TJQKA" for s in "SHDC"] for _ in range(6)],
         "log": ["x" * 40] * 40}


def open_store(kind: str, where: str) -> Any:
    if kind == "sqlite":
        from bot.store.sqlite import Store
        return Store(where)
    from bot.store.postgres import PgStore
    return PgStore(PG_URL, schema=where, pool_size=8)


async def setup(kind: str, where: str, tables: int) -> list[int]:
    from bot.store.sqlite import SeatRow

    store = await open_store(kind, where).open()
    ids = []
    try:
        for start in range(0, tables, 100):
            async with store.transaction() as tx:
                for n in range(start, min(tables, start + 100)):
                    tid = await tx.create_table(-1000 - n, 0, "carnival", n + 1, {}, n)
                    await tx.set_seats(tid, [SeatRow(i, 10 * n + i + 1, f"P{i}") for i in range(3)])
                    table = await tx.table(tid)
                    table.status, table.state = "playing", STATE
                    await tx.save_table(table)
                    ids.append(tid)
    finally:
        await store.close()
    return ids


async def move(store: Any, update_id: int, tid: int) -> None:
    async with store.transaction() as tx:
        await tx.mark_update(update_id)
        table = await tx.table(tid)
        idx = await tx.action_count(tid)
        await tx.append_action(tid, idx, idx % 3, f"play:{idx}")
        table.version += 1
        table.state = {**STATE, "deal": idx}
        await tx.save_table(table)
        await tx.enqueue(table.chat_id, "edit", {"text": f"move {idx}", "markup": None}, slot=f"table:{tid}",
                         merge_key=f"table:{tid}")


async def sender(store: Any, stop: asyncio.Event, delivered: list[int], rnd: random.Random) -> None:
    """Deliver as the bot's outbox does (bot/services/outbox.py), with no pacing: the chats with pending rows, then
    each chat's next row claimed (``next_row``) and marked sent, at most BATCH chats a transaction, starting at a
    random chat so two workers do not queue behind each other on the same rows."""
    while not stop.is_set():
        sent = 0
        async with store.transaction(durable=False) as tx:
            chats = await tx.pending_chats()
            start = rnd.randrange(len(chats)) if chats else 0
            for chat_id in (chats[start:] + chats[:start])[:BATCH]:
                row = await tx.next_row(chat_id)
                if row is not None:
                    delivered.append(row.id)
                    await tx.outbox_done(row, slot_message=row.id)
                    sent += 1
        if not sent:
            await asyncio.sleep(0.01)


BATCH = 100


async def run_worker(kind: str, where: str, tids: list[int], me: int, workers: int, mode: str, seconds: float,
                     rate: float, start_at: float) -> dict[str, Any]:
    store = await open_store(kind, where).open()
    stop = asyncio.Event()
    delivered: list[int] = []
    latencies: list[float] = []
    send_task = asyncio.create_task(sender(store, stop, delivered, random.Random(me)))
    await asyncio.sleep(max(0.0, start_at - time.time()))
    end = time.monotonic() + seconds
    counter = iter(range(me, 10**12, workers))

    async def closed(tid: int) -> None:
        while time.monotonic() < end:
            t0 = time.perf_counter()
            await move(store, next(counter) + 10**9 * (1 + me), tid)
            latencies.append(time.perf_counter() - t0)

    async def opened(tid: int, rnd: random.Random) -> None:
        pending: set[asyncio.Task] = set()
        nxt = time.monotonic() + rnd.expovariate(rate) * workers
        while nxt < end:
            await asyncio.sleep(max(0.0, nxt - time.monotonic()))
            arrived = time.perf_counter()

            async def one(arrived: float = arrived) -> None:
                await move(store, next(counter) + 10**9 * (1 + me), tid)
                latencies.append(time.perf_counter() - arrived)
            task = asyncio.create_task(one())
            pending.add(task)
            task.add_done_callback(pending.discard)
            nxt += rnd.expovariate(rate) * workers  # this worker gets every workers-th update of the table
        await asyncio.gather(*pending)

    if mode == "closed":
        mine = tids[me::workers]
        await asyncio.gather(*(closed(t) for t in mine))
    else:
        await asyncio.gather(*(opened(t, random.Random(t * 7 + me)) for t in tids))
    elapsed = seconds
    await asyncio.sleep(0.5)
    stop.set()
    await send_task
    await store.close()
    return {"moves": len(latencies), "latencies": latencies, "delivered": delivered, "elapsed": elapsed}


def _worker(args: tuple, out: Any) -> None:
    out.put(asyncio.run(run_worker(*args)))


TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of these processes (the ones that have ended count 0)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICK


def postgres_pids() -> list[int]:
    """The PostgreSQL server's processes on this machine (its backends serve the bench's connections)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == "postgres":
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, from /proc/stat (idle and iowait are not busy)."""
    values = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    total = sum(values[:8])
    return (total - values[3] - values[4]) / TICK, total / TICK


def phase(kind: str, where: str, tids: list[int], workers: int, mode: str, seconds: float,
          rate: float) -> dict[str, Any]:
    """One timed phase; besides moves and latencies it measures where the CPU went during the timed window
    (the workers, the PostgreSQL server, the whole machine), so a ceiling set by the cores shows as such."""
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    start_at = time.time() + 3.0  # spawned interpreters import and connect first
    procs = [ctx.Process(target=_worker, args=((kind, where, tids, me, workers, mode, seconds, rate, start_at), out))
             for me in range(workers)]
    for p in procs:
        p.start()
    time.sleep(max(0.0, start_at - time.time()))
    pids = [p.pid for p in procs if p.pid is not None]
    pg = postgres_pids() if kind == "postgres" else []
    w0, pg0, (busy0, all0) = cpu_seconds(pids), cpu_seconds(pg), machine_busy()
    time.sleep(seconds)
    pg = sorted(set(pg) | set(postgres_pids())) if kind == "postgres" else []
    w1, pg1, (busy1, all1) = cpu_seconds(pids), cpu_seconds(pg), machine_busy()
    results = [out.get() for _ in procs]
    for p in procs:
        p.join()
    lat = sorted(x for r in results for x in r["latencies"])
    delivered = [x for r in results for x in r["delivered"]]
    moves = sum(r["moves"] for r in results)
    per_move = 1000 / moves if moves else float("nan")
    return {"moves_s": moves / seconds, "p50": 1000 * lat[len(lat) // 2] if lat else float("nan"),
            "p99": 1000 * lat[int(len(lat) * 0.99)] if lat else float("nan"),
            "doubles": len(delivered) - len(set(delivered)), "moves": moves,
            "worker_ms": (w1 - w0) * per_move, "pg_ms": (pg1 - pg0) * per_move,
            "busy": (busy1 - busy0) / (all1 - all0) if all1 > all0 else float("nan")}


async def drop(schema: str) -> None:
    import asyncpg
    conn = await asyncpg.connect(PG_URL)
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--rate", type=float, default=0.25, help="moves a second per table in the latency phase")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, kind, workers in (("SQLite, 1 worker", "sqlite", 1), ("PostgreSQL, 1 worker", "postgres", 1),
                                     ("PostgreSQL, 2 workers", "postgres", 2)):
            where = str(Path(tmp) / f"{uuid.uuid4().hex}.sqlite3") if kind == "sqlite" else \
                f"kozyr_bench_{uuid.uuid4().hex[:10]}"
            try:
                tids = asyncio.run(setup(kind, where, args.tables))
                thr = phase(kind, where, tids, workers, "closed", args.seconds, args.rate)
                lat = phase(kind, where, tids, workers, "open", args.seconds, args.rate)
            finally:
                if kind == "postgres":
                    asyncio.run(drop(where))
            rows.append((label, thr, lat))
            print(f"  done: {label}", file=sys.stderr, flush=True)
    print(f"{args.tables} tables, {args.seconds:g} s a phase, latency phase at {args.rate:g} moves/s a table "
          f"({args.rate * args.tables:g} offered), load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
    print(f"{'setup':24} {'moves/s':>9} {'p50 ms':>8} {'p99 ms':>8} | {'open p50':>9} {'open p99':>9} "
          f"{'served/s':>9} {'doubles':>8}")
    for label, thr, lat in rows:
        print(f"{label:24} {thr['moves_s']:9.0f} {thr['p50']:8.1f} {thr['p99']:8.1f} | {lat['p50']:9.1f} "
              f"{lat['p99']:9.1f} {lat['moves_s']:9.0f} {thr['doubles'] + lat['doubles']:8d}")
    print("\nwhere the CPU went in the throughput phase (ms of CPU per move; busy: the whole machine's cores in use)")
    print(f"{'setup':24} {'workers':>9} {'PostgreSQL':>11} {'busy':>6}")
    for label, thr, _ in rows:
        print(f"{label:24} {thr['worker_ms']:9.2f} {thr['pg_ms']:11.2f} {100 * thr['busy']:5.0f}%")
    one, two = rows[1][1], rows[2][1]
    ceiling = os.cpu_count() or 1
    cost = one["worker_ms"] + one["pg_ms"]
    bound = 1000 * ceiling / cost / one["moves_s"] if cost and one["moves_s"] else float("nan")
    print(f"two PostgreSQL workers / one: {two['moves_s'] / one['moves_s']:.2f}x (target >= 1.6x); "
          f"open-loop p99 with two: {rows[2][2]['p99']:.1f} ms (target <= 50 ms)")
    print(f"the cores' ceiling: one worker and its PostgreSQL share spend {cost:.2f} ms of CPU a move, so "
          f"{ceiling} cores can carry at most {bound:.2f}x one worker's moves/s, however many workers run")


if __name__ == "__main__":
    main()
