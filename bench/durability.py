"""What synchronous=FULL costs: commit latency of a move-sized transaction, FULL against NORMAL.

Run from the repository root::

    python bench/durability.py               # 2000 commits each, on a temp file next to ./data
    python bench/durability.py --commits 500 --dir /some/disk

A move's transaction (bot/services/tables.py) writes the action, the table snapshot and a few outbox
rows, then COMMITs. With the default inline driver the commit runs on the event loop, so its fsync
is time the loop is blocked. The transaction here writes the same kind and size of rows through the
real ``Store``; the store is reopened with each ``synchronous`` setting on a fresh file.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.services import outbox as out  # noqa: E402
from bot.store.sqlite import Store  # noqa: E402

SNAPSHOT = {"hands": [["AS", "KD", "10H"] * 6] * 6, "history": [{"bids": [1, 2, 3], "points": [10, -5, 0]}] * 20}


async def measure(path: Path, synchronous: str, commits: int) -> list[float]:
    store = await Store(path).open()
    try:
        await store._db.execute(f"PRAGMA synchronous={synchronous}")  # the store opens with FULL
        async with store.transaction() as tx:
            table_id = await tx.create_table(-1, 0, "carnival", 1, {}, 7)
        times = []
        state = json.dumps(SNAPSHOT)
        for i in range(commits):
            start = time.perf_counter()
            async with store.transaction() as tx:
                await tx.append_action(table_id, i, i % 3, f"play card{i}")
                await tx.db.execute("UPDATE tables SET version = ?, state = ? WHERE id = ?", (i, state, table_id))
                await out.edit_text(tx, -1, f"t{table_id}:1", f"table text {i}")
                await out.edit_text(tx, 1000 + i % 3, f"h{table_id}:{i % 3}:1", f"hand text {i}")
                await out.log_line(tx, -1, f"log line {i}")
            times.append(time.perf_counter() - start)
        return times
    finally:
        await store.close()


def report(name: str, times: list[float]) -> str:
    ms = sorted(t * 1000 for t in times)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return (f"{name:7s} commits {len(ms)}: mean {statistics.fmean(ms):.3f} ms, p50 {ms[len(ms) // 2]:.3f} ms, "
            f"p99 {p99:.3f} ms, max {ms[-1]:.3f} ms, {len(ms) / (sum(ms) / 1000):.0f} commits/s")


async def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--commits", type=int, default=2000)
    p.add_argument("--dir", default="data", help="directory for the temp databases (the disk to measure)")
    args = p.parse_args()
    Path(args.dir).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        for mode in ("NORMAL", "FULL"):
            times = await measure(Path(tmp) / f"{mode}.sqlite3", mode, args.commits)
            print(report(mode, times))


if __name__ == "__main__":
    asyncio.run(main())
