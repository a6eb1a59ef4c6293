"""``python -m bot.league recompute [--db FILE] [--chat ID] [--check]``: rebuild every rating from the matches.

The database is DATABASE_URL's (as the bot uses it) unless ``--db`` names one. ``--check`` writes
nothing and exits 1 when the stored ratings differ from what the log implies. Stop the bot first,
or run it while the bot runs: the rebuild is one transaction either way.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

from bot.config import Settings
from bot.league.recompute import check, recompute
from bot.store.sqlite import Store


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.league", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    cmd = sub.add_parser("recompute", help="rebuild every rating from the stored matches")
    cmd.add_argument("--db", type=Path, help="the SQLite file (default: DATABASE_URL)")
    cmd.add_argument("--chat", type=int, help="only this chat's league")
    cmd.add_argument("--check", action="store_true", help="compare with the stored ratings; write nothing")
    args = parser.parse_args(argv)
    path = args.db or Settings().database_path
    if not path.exists():
        print(f"no database at {path}", file=sys.stderr)
        return 2
    store = await Store(path).open()
    try:
        started = time.perf_counter()
        if args.check:
            async with store.read() as tx:
                diffs = await check(tx, args.chat)
            for line in diffs[:20]:
                print(line)
            print(f"{len(diffs)} stored values differ from the log ({time.perf_counter() - started:.2f} s)")
            return 1 if diffs else 0
        async with store.transaction() as tx:
            count = await recompute(tx, args.chat)
        print(f"recomputed {count} matches in {time.perf_counter() - started:.2f} s")
        return 0
    finally:
        await store.close()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
