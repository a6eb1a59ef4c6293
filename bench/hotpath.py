"""The bot's hot path in one run: the numbers its targets name (CPU per move, p99, late
answers, memory, pictures), side by side.

Run from the repository root (about 10 minutes; use ``nice``, the machine may be shared)::

    nice -n 10 python bench/hotpath.py
    nice -n 10 python bench/hotpath.py --quick      # 50 and 500 tables, a smoke run
    nice -n 10 python bench/hotpath.py --vacation   # only the vacation read's cost per move (below)

What it runs, all with the real bot against the fake Bot API (bench/bot.py; pictures off unless said):

1. 200 tables, 20 moves each, 2 s mean think time: CPU per move, update -> commit p99, late answers.
2. 2,000 tables, a few moves each: CPU per move, and its ratio to the figure at 200 tables.
3. Memory per idle table: Python memory the bot holds per table in play and waiting for a move,
   traced with tracemalloc (the fake server's and the simulated players' allocations left out), as the growth
   from 20 to 100 tables.
4. Pictures: CPU p95 and size of every kind of picture (bench/render.py).

``--vacation`` measures one read of the clock update alone: every human turn's clock asks the store whether
the player is away (``tx.away``, a primary-key read; bot/services/vacation.py). It times that read directly
(CPU per call on a store of 2,000 users, some away), counts the calls per move during play, and plays the
same run (the size of run 1) with the read and with it answered without the store, alternately, so the
machine's drift falls on both.

By default (``--split``, bench/bot.py) the fake server and the simulated players run in a child process
and the bot long-polls it over HTTP, as it does Telegram: CPU per move is then the bot's process's own CPU
time during play over the moves played, and the fake's process is reported apart. ``--one-process``
runs everything on one event loop as before: CPU per move is then the whole process (an upper bound for the
bot), and the second figure takes out the fake server's own request handling (measured), not the players.
Memory per idle table (3) is always measured in one process (tracemalloc sees the bot's allocations there).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib.util
import os
import sys
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _load(name: str) -> Any:
    """A sibling script as a module (bench/bot.py cannot be imported as ``bot``: that is the bot)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


bot_bench = _load("bot")
render_bench = _load("render")

TARGET_CPU_MS = 4.0
TARGET_P99_MS = 20.0
TARGET_RATIO = 1.3
TARGET_IDLE_KB = 50.0
TARGET_PICTURE_MS = 10.0
TARGET_PICTURE_BYTES = 60_000


def play(tables: int, moves: int, think_ms: float, split: bool = False) -> dict[str, Any]:
    config = bot_bench.Config(tables=tables, moves=moves, think_ms=think_ms, timeout=300.0, split=split,
                              feed="polling" if split else "direct")
    return asyncio.run(bot_bench.run_bench(config))


def idle_memory(few: int, many: int) -> float:
    """Bytes the bot holds per table in play, waiting for a move: the growth from ``few`` tables to
    ``many`` (first uses fill caches that do not grow with the tables), per table."""
    return (held_by(many) - held_by(few)) / (many - few)


def held_by(tables: int) -> float:
    """Bytes the bot holds after setting up ``tables`` tables and one move each (traced, the fake server's
    allocations excluded)."""
    held: dict[str, int] = {}
    original = bot_bench.Bench.setup

    async def setup(self: Any, rng: Any) -> Any:
        gc.collect()
        before = tracemalloc.take_snapshot()
        runs = await original(self, rng)
        await self.settle()
        gc.collect()
        after = tracemalloc.take_snapshot()
        # Not the bot's: the fake server's allocations (its handlers' stacks pass through tests/fakebot; its
        # connections' buffers are made by aiohttp's web server, which the bot does not run when it polls)
        # and the simulated players' own objects (made by bench/bot.py's code itself: a generator per table).
        # The bot's handling runs under bench/bot.py's frames (it feeds the updates), so only allocations
        # whose innermost frame is the bench's are left out.
        ours = [tracemalloc.Filter(False, "*tests/fakebot*", all_frames=True),
                tracemalloc.Filter(False, "*aiohttp/web_*", all_frames=True),
                tracemalloc.Filter(False, "*bench/bot.py"),
                tracemalloc.Filter(False, tracemalloc.__file__)]
        diff = after.filter_traces(ours).compare_to(before.filter_traces(ours), "filename")
        held["bytes"] = sum(d.size_diff for d in diff)
        return runs

    bot_bench.Bench.setup = setup
    tracemalloc.start(15)  # deep enough to see the fake server under its requests; deeper is too slow
    try:
        play(tables, 1, 0.0)
    finally:
        tracemalloc.stop()
        bot_bench.Bench.setup = original
    return held["bytes"]


async def away_read_cpu(calls: int) -> float:
    """CPU microseconds per ``tx.away`` call in a read transaction, on a store of 2,000 users (one in ten
    away): the read the clock update makes on every human turn."""
    import tempfile
    import time

    from bot.store.sqlite import Store

    with tempfile.TemporaryDirectory() as folder:
        store = await Store(Path(folder) / "k.sqlite3").open()
        try:
            async with store.transaction() as tx:
                for user in range(1, 2001):
                    await tx.upsert_user(user, f"P{user}", None, "en")
                    if user % 10 == 0:
                        await tx.set_away(user, 0.0, 1e10)
            start = time.process_time()
            for i in range(calls):
                async with store.read() as tx:
                    await tx.away(1 + i % 2000)
            with_read = time.process_time() - start
            start = time.process_time()
            for _ in range(calls):  # the same transactions without the read: what the read itself adds
                async with store.read() as tx:
                    pass
            bare = time.process_time() - start
        finally:
            await store.close()
    return (with_read - bare) / calls * 1e6


def vacation(tables: int, moves: int, pairs: int, split: bool) -> None:
    """The vacation read's cost per move: measured directly, and as the difference of runs with and without."""
    from bot.store.queries import SharedQueries

    load0 = os.getloadavg()
    per_call = asyncio.run(away_read_cpu(20000))
    original = SharedQueries.away
    calls = {"n": 0}

    async def counted(self: Any, user_id: int) -> tuple[float, float] | None:
        calls["n"] += 1
        return await original(self, user_id)

    async def skipped(self: Any, user_id: int) -> tuple[float, float] | None:
        calls["n"] += 1
        return None  # nobody is away in the bench: the same answer, without the store

    runs: dict[str, list[dict[str, Any]]] = {"with": [], "without": []}
    counts: dict[str, list[int]] = {"with": [], "without": []}
    try:
        for _ in range(pairs):
            for mode, patch in (("with", counted), ("without", skipped)):
                SharedQueries.away = patch  # type: ignore[method-assign]
                calls["n"] = 0
                runs[mode].append(play(tables, moves, 2000.0, split))
                counts[mode].append(calls["n"])
    finally:
        SharedQueries.away = original  # type: ignore[method-assign]
    print(f"\n== the vacation read in the clock update; load average before {' '.join(f'{x:.2f}' for x in load0)}, "
          f"after {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)")
    print(f"tx.away alone: {per_call:.1f} us CPU per call (20,000 calls, SQLite inline, 2,000 users)")
    for mode in ("with", "without"):
        cpu = [r["cpu_ms_per_move"] for r in runs[mode]]
        moved = [r["moves"] for r in runs[mode]]
        shown = " ".join(f"{c:.3f}" for c in cpu)
        print(f"{mode:>7} the read: CPU per move {shown} ms (mean {sum(cpu) / len(cpu):.3f}); "
              f"moves {moved}; away() calls {counts[mode]}")
    per_move = sum(counts["with"]) / max(1, sum(r["moves"] for r in runs["with"]))
    diff = sum(a["cpu_ms_per_move"] - b["cpu_ms_per_move"] for a, b in zip(runs["with"], runs["without"], strict=True))
    diff /= pairs
    print(f"away() calls per move {per_move:.2f}: the read's share by its own cost {per_call * per_move / 1000:.4f} ms "
          f"per move; the runs' difference {diff:+.3f} ms per move (CPU time of the bot's process)")


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="50 and 500 tables, fewer moves")
    p.add_argument("--runs", type=int, default=40, help="renders per picture kind")
    p.add_argument("--one-process", action="store_true",
                   help="the fake server and the players in the bot's process (the old measurement)")
    p.add_argument("--vacation", action="store_true", help="only the vacation read's cost per move")
    p.add_argument("--pairs", type=int, default=3, help="--vacation: runs with and without the read, alternately")
    a = p.parse_args(argv)
    small, large = (50, 500) if a.quick else (200, 2000)
    split = not a.one_process
    if a.vacation:
        vacation(small, 8 if a.quick else 20, a.pairs, split)
        return 0
    load0 = os.getloadavg()
    r1 = play(small, 8 if a.quick else 20, 2000.0, split)
    print(bot_bench.report(r1), flush=True)
    r2 = play(large, 3, 2000.0, split)
    print(bot_bench.report(r2), flush=True)
    per_table = idle_memory(*((20, 50) if a.quick else (20, 100)))
    picture = [render_bench.cost(name, make, a.runs) for name, make in render_bench.all_pictures().items()]
    worst_ms = max(c[1] for c in picture)
    worst_bytes = max(c[2] for c in picture)
    ratio = r2["cpu_ms_per_move"] / r1["cpu_ms_per_move"] if r1["cpu_ms_per_move"] else float("nan")
    p99 = r1["commit_ms"].get("p99", float("nan"))
    lines = [
        "",
        f"== the bot's hot path; load average before {' '.join(f'{x:.2f}' for x in load0)}, "
        f"after {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)",
        (f"CPU per move at {small} tables: {r1['cpu_ms_per_move']:.2f} ms (the bot's process alone; the fake's "
         f"process {r1['fake_cpu_ms_per_move']:.2f} ms)" if split else
         f"CPU per move at {small} tables: {r1['cpu_ms_per_move']:.2f} ms (process), "
         f"{r1['bot_cpu_ms_per_move']:.2f} ms without the fake server")
        + f"   target <= {TARGET_CPU_MS:.0f}  {verdict(r1['cpu_ms_per_move'] <= TARGET_CPU_MS)}",
        f"CPU per move at {large} tables: {r2['cpu_ms_per_move']:.2f} ms ({ratio:.2f}x)   target <= {TARGET_RATIO}x  "
        f"{verdict(ratio <= TARGET_RATIO)}",
        f"update -> commit p99 at {small} tables: {p99:.2f} ms (p50 {r1['commit_ms'].get('p50', 0):.2f})   "
        f"target <= {TARGET_P99_MS:.0f}  {verdict(p99 <= TARGET_P99_MS)}",
        f"late callback answers: {r1['late_answers']} at {small} tables, {r2['late_answers']} at {large}   "
        f"target 0  {verdict(r1['late_answers'] + r2['late_answers'] == 0)}",
        f"memory per idle table: {per_table / 1024:.1f} KB   target <= {TARGET_IDLE_KB:.0f}  "
        f"{verdict(per_table / 1024 <= TARGET_IDLE_KB)}",
        f"pictures: worst CPU p95 {worst_ms:.1f} ms, largest {worst_bytes / 1000:.1f} KB   "
        f"target <= {TARGET_PICTURE_MS:.0f} ms, <= {TARGET_PICTURE_BYTES // 1000} KB  "
        f"{verdict(worst_ms <= TARGET_PICTURE_MS and worst_bytes <= TARGET_PICTURE_BYTES)}",
        f"group commit: {r1['commits']} commits in {r1['fsyncs']} fsyncs at {small} tables; getChatMember calls "
        f"during setup {r1['setup_get_chat_member']} and {r2['setup_get_chat_member']} (every Start by its creator)",
    ]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
