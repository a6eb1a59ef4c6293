"""Scale-out benchmark: the store side of a move at 1,000 concurrent tables, side by side for
one worker on SQLite, one worker on PostgreSQL and two workers (two processes) on PostgreSQL.

Run from the repository root (PostgreSQL at KOZYR_TEST_PG_URL, default postgresql://postgres@127.0.0.1/test)::

    python3 bench/scale.py                 # 1,000 tables, 10 s per phase and setup (about 2 minutes)
    python3 bench/scale.py --seconds 5     # quicker (about 1 minute); --tables 200 smaller

What a "move" is here: the transaction a move makes in the bot (``Play.press``, bot/services/play.py), through the real
stores (bot/store/sqlite.py, bot/store/postgres.py): mark the update handled, read the table (on PostgreSQL
``FOR UPDATE``: the per-table serialisation between workers), count and append the action, save the table's
version and a ~3 KB snapshot, queue the group's edit (merged per table), COMMIT durably. Not included: the
engine, drawing, aiogram and HTTP (bench/bot.py measures those on SQLite). Each worker also runs an outbox
sender that, as the bot's outbox does, lists the chats with pending rows, claims each one's next row (on
PostgreSQL ``FOR UPDATE SKIP LOCKED``, one worker per chat at a time; ``next_rows``: one statement for them
all) in one transaction, then marks each sent in a transaction of its own, with no pacing; every delivery
(row id and content) is collected and one delivered twice is reported ("doubles", must be 0). In the closed
loop on PostgreSQL the sender runs in a process of its own, so the CPU of the moves and the sends is apart.

Two phases per setup:
- closed loop ("throughput"): every table sends its next move as soon as the last one committed: moves/s;
- open loop ("latency"): ``--rate`` moves a second per table (default 0.25: 250 moves/s over 1,000 tables,
  people playing cards), update arrival to COMMIT: p50 / p99. Updates go round-robin to the workers, as a load
  balancer in front of webhook workers would send them (so one table's moves land on both workers).

Before each PostgreSQL phase, every pool connection makes two moves outside the timed window (``warm_up``):
asyncpg prepares each statement once a connection, so the windows measure a worker that has run a while,
and the bench prints a new connection's first move against its second apart.

What it prints besides: the CPU a move and a send takes (/proc/<pid>/stat of the worker processes and of their
PostgreSQL backends, found by application_name: process CPU, which a loaded machine does not bend the way it
bends wall-clock time), two workers' against one's, and the cores N moves/s need; where a move's time went on
the worker's side (connection + BEGIN, statements, COMMIT; the event loop's lag); and what the moves'
backends were doing, sampled every 10 ms from pg_stat_activity (bench/pg_watch.py): running, waiting for a
lock (which lock, from pg_locks, and which statement of which backend holds it), for the WAL flush, or idle in
their transaction waiting for the worker to send the next statement.
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

import pg_watch  # noqa: E402  (bench/, the script's own folder)

PG_URL = os.environ.get("KOZYR_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
STATE = {"deal": 1, "hands": [[f"{r}{s}" for r in "6789TJQKA" for s in "SHDC"] for _ in range(6)],
         "log": ["x" * 40] * 40}


def app_name(where: str, role: str = "") -> str:
    """The application_name of a phase's connections (``role``: "moves" or "sends"): bench/pg_watch.py finds
    their backends by it."""
    return f"kozyr-bench-{where[-10:]}-{role}"


def open_store(kind: str, where: str, role: str = "moves") -> Any:
    if kind == "sqlite":
        from bot.store.sqlite import Store
        return Store(where)
    from bot.store.postgres import PgStore
    return PgStore(f"{PG_URL}?application_name={app_name(where, role)}", schema=where,
                   pool_size=POOL if role == "moves" else 2)


POOL = int(os.environ.get("KOZYR_BENCH_POOL", "8"))


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


async def move(store: Any, update_id: int, tid: int, parts: dict[str, list[float]] | None = None) -> None:
    """One move; ``parts`` gets where its time went: acquiring a connection and BEGIN, the statements, COMMIT."""
    t0 = time.perf_counter()
    async with store.transaction() as tx:
        t1 = time.perf_counter()
        await tx.mark_update(update_id)
        table = await tx.table(tid)
        idx = await tx.action_count(tid)
        await tx.append_action(tid, idx, idx % 3, f"play:{idx}")
        table.version += 1
        table.state = {**STATE, "deal": idx}
        await tx.save_table(table)
        await tx.enqueue(table.chat_id, "edit", {"text": f"move {idx}", "markup": None}, slot=f"table:{tid}",
                         merge_key=f"table:{tid}")
        t2 = time.perf_counter()
    if parts is not None:
        t3 = time.perf_counter()
        parts["acquire + BEGIN"].append(t1 - t0)
        parts["statements"].append(t2 - t1)
        parts["COMMIT"].append(t3 - t2)


async def sender(store: Any, stop: asyncio.Event, delivered: list[tuple[int, str]], rnd: random.Random,
                 tries: list[int], own: bool, start_at: float, early: list[tuple[int, str]]) -> None:
    """Deliver as the bot's outbox does (bot/services/outbox.py), with no pacing and no HTTP: each chat's next
    row claimed (``next_rows``: one statement) in one short transaction, at most BATCH chats, then each row
    marked sent in a transaction of its own (``durable=False``). The claim holds the claimed rows' locks until
    it commits, and a move merging its edit into such a row waits for that: so claims and deliveries are
    separate transactions, as in the bot, not one transaction holding a hundred rows.

    Which chats: with ``own`` (this process makes moves too), as the bot, the chats its own moves enqueued to
    (``store.queued``) at once, and every chat with pending rows (the other worker's, rows skipped while
    another held them) every RESCAN seconds; a sender alone lists every pending chat, starting at a random one
    so two senders do not queue behind each other, and asks them BATCH at a time before it lists them again.
    What it delivers before ``start_at`` (the warm-up's rows) goes to ``early``: checked for doubles, not counted."""
    rescan_at = 0.0
    todo: list[int] = []  # a sender alone: the chats of its last look not asked yet
    while not stop.is_set():
        now = time.monotonic()
        if own and now < rescan_at and not store.queued:
            await asyncio.sleep(0.01)  # the bot's outbox waits for an enqueue's wake-up instead
            continue
        async with store.read() as tx:
            if own and now < rescan_at:
                tried = sorted(store.queued)[:BATCH]
                store.queued.difference_update(tried)
            else:
                if own or not todo:
                    rescan_at = now + RESCAN
                    chats = await tx.pending_chats()
                    start = rnd.randrange(len(chats)) if chats else 0
                    todo = chats[start:] + chats[:start]
                tried, todo = todo[:BATCH], todo[BATCH:]
            rows = await tx.next_rows(tried)
        timed = time.time() >= start_at
        tries[0] += len(tried) if timed else 0
        for row in rows:
            # a row merged while in flight goes again, changed (so the text is part of what must not repeat)
            (delivered if timed else early).append((row.id, row.payload["text"]))
            async with store.transaction(durable=False) as tx:
                await tx.outbox_done(row, slot_message=row.id)
        if not rows:
            await asyncio.sleep(0.01)


RESCAN = 1.0  # the bot's outbox: 5 s
BATCH = 100


async def warm_up(store: Any, tids: list[int], me: int) -> list[tuple[float, float]]:
    """Two moves on every pool connection at once, before the timed window: asyncpg prepares each statement
    once per connection (a parse, a plan and a type look-up on the server), so a worker's first moves on a
    new connection cost more. Measured here and printed apart; the timed windows then measure a worker that
    has been running a while. The rows they queue are delivered before the window opens (``sender``).
    Returns (first move, second move) seconds for each connection."""
    async def two(i: int) -> tuple[float, float]:
        tid = tids[(me * store.pool_size + i) % len(tids)]
        times = []
        for k in range(2):
            t0 = time.perf_counter()
            await move(store, 10**11 + 1000 * me + 10 * i + k, tid)
            times.append(time.perf_counter() - t0)
        return times[0], times[1]
    return list(await asyncio.gather(*(two(i) for i in range(store.pool_size))))


async def loop_lag(stop: asyncio.Event, lags: list[float]) -> None:
    """How late a 5 ms sleep wakes: the event loop blocked (or the process without a core) for that long."""
    while not stop.is_set():
        t0 = time.perf_counter()
        await asyncio.sleep(0.005)
        lags.append(time.perf_counter() - t0 - 0.005)


async def run_worker(kind: str, where: str, tids: list[int], me: int, workers: int, mode: str, seconds: float,
                     rate: float, start_at: float, role: str) -> dict[str, Any]:
    """One worker's ``role``: "moves", "sends" (the outbox sender alone, in a process of its own, so the CPU
    of moves and of sends is counted apart) or "both" (one process, as the bot)."""
    store = await open_store(kind, where, "sends" if role == "sends" else "moves").open()
    if kind == "postgres":  # every pool connection opened before the timed window: its CPU is not the moves'
        async def hold() -> None:
            async with store.read():
                await asyncio.sleep(0.2)
        await asyncio.gather(*(hold() for _ in range(store.pool_size)))
    cold = await warm_up(store, tids, me) if kind == "postgres" and role != "sends" else []
    stop = asyncio.Event()
    delivered: list[tuple[int, str]] = []
    early: list[tuple[int, str]] = []  # delivered before the timed window (the warm-up's rows)
    latencies: list[float] = []
    parts: dict[str, list[float]] = {"acquire + BEGIN": [], "statements": [], "COMMIT": [], "loop lag": []}
    tries = [0]  # chats asked for their next row (None: another worker has the chat, or nothing is pending)
    send_task = asyncio.create_task(sender(store, stop, delivered, random.Random(me), tries, role == "both",
                                           start_at, early)) if role != "moves" else None
    if role == "sends":
        await asyncio.sleep(max(0.0, start_at + seconds + 1.5 - time.time()))
        stop.set()
        await send_task
        await store.close()
        return {"moves": 0, "latencies": [], "delivered": delivered, "parts": parts, "role": role, "tries": tries[0],
                "seconds_in": [], "cold": [], "early": early}
    await asyncio.sleep(max(0.0, start_at - time.time()))
    lag_task = asyncio.create_task(loop_lag(stop, parts["loop lag"]))
    end = time.monotonic() + seconds
    began = time.perf_counter()
    seconds_in: list[int] = []  # the second of the phase each open-loop move arrived in
    counter = iter(range(me, 10**12, workers))

    async def closed(tid: int) -> None:
        while time.monotonic() < end:
            t0 = time.perf_counter()
            await move(store, next(counter) + 10**9 * (1 + me), tid, parts)
            latencies.append(time.perf_counter() - t0)

    async def opened(tid: int, rnd: random.Random) -> None:
        pending: set[asyncio.Task] = set()
        nxt = time.monotonic() + rnd.expovariate(rate) * workers
        while nxt < end:
            await asyncio.sleep(max(0.0, nxt - time.monotonic()))
            arrived = time.perf_counter()

            async def one(arrived: float = arrived) -> None:
                await move(store, next(counter) + 10**9 * (1 + me), tid, parts)
                latencies.append(time.perf_counter() - arrived)
                seconds_in.append(int(arrived - began))
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
    await asyncio.sleep(1.5)  # the parent reads the backends' CPU before they close
    stop.set()
    await asyncio.gather(lag_task, *([send_task] if send_task is not None else []))
    await store.close()
    return {"moves": len(latencies), "latencies": latencies, "delivered": delivered, "parts": parts, "role": role,
            "tries": tries[0], "seconds_in": seconds_in, "cold": cold, "early": early}


def _worker(args: tuple, out: Any) -> None:
    out.put(asyncio.run(run_worker(*args)))


def cpu_seconds(pids: list[int]) -> float:
    return sum(pg_watch.cpu_seconds(pids).values())


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, from /proc/stat (idle and iowait are not busy)."""
    values = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    total = sum(values[:8])
    return (total - values[3] - values[4]) / pg_watch.TICK, total / pg_watch.TICK


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else float("nan")


def phase(kind: str, where: str, tids: list[int], workers: int, mode: str, seconds: float,
          rate: float) -> dict[str, Any]:
    """One timed phase; besides moves and latencies it measures where the CPU went during the timed window
    (the workers, their PostgreSQL backends, the server's background processes, the whole machine) and, on
    PostgreSQL, what the backends were waiting on (bench/pg_watch.py)."""
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    start_at = time.time() + 4.0  # spawned interpreters import, connect and fill their pools first
    # Closed loop on PostgreSQL: the sender in a process of its own, so the CPU of moves and sends is counted
    # apart. Open loop: one process a worker, moves and sends on one event loop, as in the bot (four processes
    # for two workers would make a 2-core machine's scheduling, not the store, the latency measured).
    roles = ("moves", "sends") if kind == "postgres" and mode == "closed" else ("both",)
    procs = [ctx.Process(target=_worker, args=((kind, where, tids, me, workers, mode, seconds, rate, start_at, role),
                                               out), name=role)
             for me in range(workers) for role in roles]
    for p in procs:
        p.start()
    time.sleep(max(0.0, start_at - time.time()))
    movers = [p.pid for p in procs if p.pid is not None and p.name != "sends"]
    senders = [p.pid for p in procs if p.pid is not None and p.name == "sends"]
    w0, s0, (busy0, all0) = cpu_seconds(movers), cpu_seconds(senders), machine_busy()
    watch = pg_watch.Watch(PG_URL, app_name(where), "moves") if kind == "postgres" else None
    if watch is not None:
        asyncio.run(watch.run(seconds))
        server = watch.cpu()
    else:
        time.sleep(seconds)
        server = {}
    w1, s1, (busy1, all1) = cpu_seconds(movers), cpu_seconds(senders), machine_busy()
    results = [out.get() for _ in procs]
    for p in procs:
        p.join()
    lat = [x for r in results for x in r["latencies"]]
    delivered = [x for r in results for x in r["delivered"]]
    everything = delivered + [x for r in results for x in r["early"]]
    moves = sum(r["moves"] for r in results)
    per_move = 1000 / moves if moves else float("nan")
    per_send = 1000 / len(delivered) if delivered else float("nan")
    parts = {k: [x for r in results for x in r["parts"][k]] for k in results[0]["parts"]}
    by_second: dict[int, list[float]] = {}
    for r in results:
        for second, latency in zip(r["seconds_in"], r["latencies"], strict=False):
            by_second.setdefault(second, []).append(latency)
    return {"moves_s": moves / seconds, "p50": pct(lat, 0.5), "p99": pct(lat, 0.99),
            "doubles": len(everything) - len(set(everything)),
            "cold": [x for r in results for x in r["cold"]], "moves": moves, "sent": len(delivered),
            "tries": sum(r["tries"] for r in results),
            "worker_ms": (w1 - w0) * per_move, "pg_ms": server.get(app_name(where, "moves"), 0.0) * per_move,
            "send_ms": (s1 - s0) * per_send, "send_pg_ms": server.get(app_name(where, "sends"), 0.0) * per_send,
            "background_ms": server.get("background", 0.0) * per_move,
            "busy": (busy1 - busy0) / (all1 - all0) if all1 > all0 else float("nan"),
            "parts": {k: (pct(v, 0.5), pct(v, 0.99)) for k, v in parts.items()}, "watch": watch,
            "p99_by_second": [pct(by_second[k], 0.99) for k in sorted(by_second)]}


async def drain(kind: str, where: str) -> None:
    """Send what the closed loop left queued (up to a row per table) before the open loop starts: else its
    first seconds measure two senders draining a thousand chats, not people's moves (p99 by second showed
    it: 750 ms in the first second, 20 ms from the third), then a VACUUM ANALYZE as autovacuum would."""
    store = await open_store(kind, where, "sends").open()
    try:
        while True:
            async with store.read() as tx:
                rows = await tx.next_rows(await tx.pending_chats())
            if not rows:
                break
            for row in rows:
                async with store.transaction(durable=False) as tx:
                    await tx.outbox_done(row, slot_message=row.id)
    finally:
        await store.close()
    if kind == "postgres":
        import asyncpg
        conn = await asyncpg.connect(PG_URL, server_settings={"search_path": where})
        try:
            await conn.execute("VACUUM ANALYZE")
        finally:
            await conn.close()


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
                asyncio.run(drain(kind, where))
                lat = phase(kind, where, tids, workers, "open", args.seconds, args.rate)
            finally:
                if kind == "postgres":
                    asyncio.run(drop(where))
            rows.append((label, thr, lat))
            print(f"  done: {label}", file=sys.stderr, flush=True)
    report(args, rows)


def move_ms(r: dict[str, Any]) -> float:
    """The moves' own CPU a move: the worker process and its PostgreSQL backends."""
    return r["worker_ms"] + r["pg_ms"]


def total_ms(r: dict[str, Any]) -> float:
    """Everything a move costs: its own CPU, its share of the sends (sends a move x CPU a send) and of the
    server's background processes."""
    sends = r["sent"] / r["moves"] if r["moves"] else 0.0
    send = r["send_ms"] + r["send_pg_ms"] if r["send_ms"] == r["send_ms"] else 0.0  # nan: in the worker's
    return move_ms(r) + sends * send + r["background_ms"]


def report(args: argparse.Namespace, rows: list[tuple[str, dict[str, Any], dict[str, Any]]]) -> None:
    print(f"{args.tables} tables, {args.seconds:g} s a phase, latency phase at {args.rate:g} moves/s a table "
          f"({args.rate * args.tables:g} offered); load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
          f"at the end, {os.cpu_count()} CPUs (wall-clock figures below are only as good as that load allows)")
    print(f"{'setup':24} {'moves/s':>9} {'p50 ms':>8} {'p99 ms':>8} | {'open p50':>9} {'open p99':>9} "
          f"{'served/s':>9} {'doubles':>8}")
    for label, thr, lat in rows:
        print(f"{label:24} {thr['moves_s']:9.0f} {thr['p50']:8.1f} {thr['p99']:8.1f} | {lat['p50']:9.1f} "
              f"{lat['p99']:9.1f} {lat['moves_s']:9.0f} {thr['doubles'] + lat['doubles']:8d}")
    print("\nCPU, ms (process CPU from /proc/<pid>/stat, so the machine's load does not bend it): a move's in the "
          "worker process and in its PostgreSQL backends (found by application_name); a send's in the outbox "
          "sender's process (a process of its own in the closed loop on PostgreSQL; elsewhere it is in the "
          "worker's figure) and "
          "its backends; the server's background processes (WAL writer, checkpointer: shared with any other "
          "client of this server) a move; total a move = move + sends a move x send + background")
    print(f"{'setup':24} {'phase':>6} {'move:wkr':>9} {'pg':>6} {'send:wkr':>9} {'pg':>6} {'sends/mv':>9} "
          f"{'backgr':>7} {'total':>7} {'busy':>5} {'asks/send':>10}")
    for label, thr, lat in rows:
        for name, r in (("closed", thr), ("open", lat)):
            print(f"{label:24} {name:>6} {r['worker_ms']:9.3f} {r['pg_ms']:6.3f} {r['send_ms']:9.3f} "
                  f"{r['send_pg_ms']:6.3f} {r['sent'] / max(1, r['moves']):9.2f} {r['background_ms']:7.3f} "
                  f"{total_ms(r):7.3f} {100 * r['busy']:4.0f}% {r['tries'] / max(1, r['sent']):10.2f}")
    one, two = rows[1], rows[2]
    print(f"two workers / one, CPU a move, closed loop: the move's own {move_ms(two[1]) / move_ms(one[1]):.2f}x, "
          f"everything {total_ms(two[1]) / total_ms(one[1]):.2f}x (target <= 1.15x)")
    print(f"two workers / one, CPU a move, open loop (moves and sends in one process): "
          f"{total_ms(two[2]) / total_ms(one[2]):.2f}x")
    print("cores needed for N moves/s (the closed loop's CPU a move, everything: the busy case; at a third of "
          "capacity, the open loop, a move costs more, each process and backend waking for fewer events):")
    for n in (250, 1000, 2500, 5000):
        print(f"  {n:5d} moves/s: {n * total_ms(one[1]) / 1000:5.2f} cores with one worker, "
              f"{n * total_ms(two[1]) / 1000:5.2f} with two")
    print("\na new pool connection's first move against its second (warm-up before each PostgreSQL phase, outside "
          "the timed window; asyncpg prepares each statement once a connection), p50 / max ms:")
    for label, thr, lat in rows[1:]:
        cold = thr["cold"] + lat["cold"]
        print(f"{label:24} first {pct([a for a, _ in cold], 0.5):.1f} / {pct([a for a, _ in cold], 1.0):.1f}, "
              f"second {pct([b for _, b in cold], 0.5):.1f} / {pct([b for _, b in cold], 1.0):.1f} "
              f"({len(cold)} connections)")
    print("\nwhere a move's time went in the open loop (worker side, p50 / p99 ms; loop lag: a 5 ms sleep's lateness)")
    for label, _, lat in rows:
        print(f"{label:24} " + "  ".join(f"{k} {a:.1f}/{b:.1f}" for k, (a, b) in lat["parts"].items()))
        print(f"{'':24} p99 by second of the phase: " + " ".join(f"{x:.0f}" for x in lat["p99_by_second"]))
    for label, thr, lat in rows[1:]:
        for name, r in (("closed", thr), ("open", lat)):
            watch = r["watch"]
            print(f"\n{label}, {name} loop: the backends' time per move by state (pg_stat_activity every "
                  f"{1000 * watch.interval:g} ms, {watch.samples} samples)")
            for state, n, ms in watch.per_move(r["moves"])[:7]:
                print(f"  {ms:7.2f} ms a move ({n:5d} samples)  {state}")
            if watch.locks:
                print("  locks waited for (pg_locks not granted, samples): " +
                      ", ".join(f"{k} x{n}" for k, n in watch.locks.most_common(4)))
            for what, n in watch.blocked_by.most_common(3):
                print(f"  {n:5d} x waiting: {what}")

if __name__ == "__main__":
    main()
