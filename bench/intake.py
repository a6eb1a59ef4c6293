"""What the inbox costs per update: store it (before Telegram is told it arrived), hand it to the
dispatcher, mark it handled and drop it; on a real SQLite file in WAL mode, with no handlers, so
the figure is the at-least-once bookkeeping alone (bench/bot.py --feed polling shows it in a game).

    python bench/intake.py               # 5000 updates
    python bench/intake.py --updates 500
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aiogram import Bot, Dispatcher  # noqa: E402
from aiogram.types import Update  # noqa: E402

from bot.intake import Intake  # noqa: E402
from bot.store.sqlite import Store  # noqa: E402


def update(i: int) -> Update:
    return Update.model_validate({"update_id": i, "message": {
        "message_id": i, "date": 0, "chat": {"id": -100, "type": "group", "title": "Cards"},
        "from": {"id": 5, "is_bot": False, "first_name": "Ann"}, "text": "/games"}})


async def main(n: int, driver: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = await Store(Path(tmp) / "bench.sqlite3", driver).open()
        bot = Bot("1:" + "x" * 35)
        intake = Intake(store, Dispatcher(), bot)
        updates = [update(i) for i in range(1, n + 1)]
        latencies = []
        start = time.perf_counter()
        for u in updates:
            t0 = time.perf_counter()
            await intake.accept(u)
            await intake.drain(60)
            latencies.append((time.perf_counter() - t0) * 1000)
        wall = time.perf_counter() - start
        repeat0 = time.perf_counter()
        for u in updates[:1000]:
            await intake.accept(u)  # a redelivery: refused by its update id
        repeat = (time.perf_counter() - repeat0) / min(n, 1000) * 1000
        await store.close()
        await bot.session.close()
    q = statistics.quantiles(latencies, n=100)
    print(f"inbox ({driver}): {n} updates in {wall:.2f} s = {n / wall:.0f} updates/s; "
          f"per update p50 {q[49]:.3f} ms, p99 {q[98]:.3f} ms; a refused redelivery {repeat:.3f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--updates", type=int, default=5000)
    parser.add_argument("--driver", choices=("inline", "thread"), default="inline")
    args = parser.parse_args()
    asyncio.run(main(args.updates, args.driver))
