"""What giving a connection back to asyncpg's pool costs: its default reset (advisory unlock, CLOSE ALL,
UNLISTEN, RESET ALL: a round trip after every transaction) against the store's (bot/store/postgres.py
``_kept``: nothing to reset, no round trip). Process CPU (/proc/<pid>/stat) of this client and of its
backend per transaction (BEGIN, SELECT 1, COMMIT), so a loaded machine does not bend the figures much.

    python3 bench/pg_release.py [--transactions 3000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pg_watch  # noqa: E402  (bench/, the script's own folder)

from bot.store.postgres import _kept  # noqa: E402

PG_URL = os.environ.get("KOZYR_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")


async def measure(n: int, reset: object) -> tuple[float, float]:
    import asyncpg

    pool = await asyncpg.create_pool(PG_URL, min_size=1, max_size=1, reset=reset)
    try:
        async with pool.acquire() as conn:
            pid = await conn.fetchval("SELECT pg_backend_pid()")
        b0, w0 = pg_watch.cpu_seconds([pid])[pid], time.process_time()
        for _ in range(n):
            async with pool.acquire() as conn, conn.transaction():
                await conn.fetchval("SELECT 1")
        b1, w1 = pg_watch.cpu_seconds([pid])[pid], time.process_time()
    finally:
        await pool.close()
    return 1e6 * (w1 - w0) / n, 1e6 * (b1 - b0) / n


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--transactions", type=int, default=3000)
    args = ap.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; CPU per transaction, microseconds")
    for _ in range(2):
        for label, reset in (("asyncpg's default reset", None), ("the store's (no reset)", _kept)):
            client, backend = await measure(args.transactions, reset)
            print(f"{label:26} client {client:6.0f}  backend {backend:6.0f}  both {client + backend:6.0f}")


if __name__ == "__main__":
    asyncio.run(main())
