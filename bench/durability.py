"""What durability costs: latency of a move-sized transaction, per-commit fsync against group commit.

Run from the repository root::

    python bench/durability.py               # 2000 commits each, on a temp file next to ./data
    python bench/durability.py --commits 500 --dir /some/disk

A move's transaction (``Play.apply``, bot/services/play.py) writes the action, the table snapshot and a few outbox
rows, then COMMITs. With the default inline driver the commit runs on the event loop, so its fsync
is time the loop is blocked. The transaction here writes the same kind and size of rows through the
real ``Store``; the store is reopened for each mode on a fresh file. Modes:

- FULL: ``synchronous=FULL``, each COMMIT fsyncs while it holds the store's lock (the bot before group commit);
- GROUP: the store as it runs (bot/store/walsync.py): NORMAL, then a shared fsync outside the lock;
- GROUP xN: the same with N moves in flight at once (tables playing concurrently): commits per fsync;
- NORMAL: no fsync at all (what power loss could take back), for reference.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.services import outbox as out  # noqa: E402
from bot.store.sqlite import Store  # noqa: E402

SNAPSHOT = {"hands": [["AS", "KD", "10H"] * 6] * 6, "history": [{"bids": [1, 2, 3], "points": [10, -5, 0]}] * 20}


async def measure(path: Path, mode: str, commits: int, concurrency: int = 1) -> tuple[list[float], int]:
    """Latencies of ``commits`` move transactions, and the fsyncs the group commit made."""
    store = await Store(path).open()
    try:
        if mode in ("FULL", "NORMAL"):
            await store._db.execute(f"PRAGMA synchronous={mode}")
        durable = mode.startswith("GROUP")  # FULL syncs inside COMMIT; NORMAL not at all
        async with store.transaction() as tx:
            tables = [await tx.create_table(-1 - t, 0, "carnival", 1, {}, 7) for t in range(concurrency)]
        times: list[float] = []
        state = json.dumps(SNAPSHOT)
        syncs = store.wal.syncs

        async def table(table_id: int, n: int) -> None:
            for i in range(n):
                start = time.perf_counter()
                async with store.transaction(durable=durable) as tx:
                    await tx.append_action(table_id, i, i % 3, f"play card{i}")
                    await tx.db.execute("UPDATE tables SET version = ?, state = ? WHERE id = ?", (i, state, table_id))
                    await out.edit_text(tx, -1, f"t{table_id}:1", f"table text {i}")
                    await out.edit_text(tx, 1000 + i % 3, f"h{table_id}:{i % 3}:1", f"hand text {i}")
                    await out.log_line(tx, -1, f"log line {i}")
                times.append(time.perf_counter() - start)

        await asyncio.gather(*(table(t, commits // concurrency) for t in tables))
        return times, store.wal.syncs - syncs
    finally:
        await store.close()


def report(name: str, times: list[float], syncs: int) -> str:
    ms = sorted(t * 1000 for t in times)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    shared = f", {len(ms) / syncs:.1f} commits per fsync" if syncs else ""
    return (f"{name:9s} commits {len(ms)}: mean {statistics.fmean(ms):.3f} ms, p50 {ms[len(ms) // 2]:.3f} ms, "
            f"p99 {p99:.3f} ms, max {ms[-1]:.3f} ms{shared}")


async def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--commits", type=int, default=2000)
    p.add_argument("--dir", default="data", help="directory for the temp databases (the disk to measure)")
    args = p.parse_args()
    Path(args.dir).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        for mode, concurrency in (("NORMAL", 1), ("FULL", 1), ("GROUP", 1), ("FULL", 50), ("GROUP", 50)):
            times, syncs = await measure(Path(tmp) / f"{mode}{concurrency}.sqlite3", mode, args.commits, concurrency)
            print(report(mode if concurrency == 1 else f"{mode} x{concurrency}", times, syncs))
        print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    asyncio.run(main())
