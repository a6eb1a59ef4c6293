"""The bot's hot path in one run: the numbers its targets name (CPU per move, p99, late
answers, memory, pictures), side by side.

Run from the repository root (about 10 minutes; use ``nice``, the machine may be shared)::

    nice -n 10 python bench/hotpath.py
    nice -n 10 python bench/hotpath.py --quick      # 50 and 500 tables, a smoke run

What it runs, all with the real bot against the fake Bot API (bench/bot.py; pictures off unless said):

1. 200 tables, 20 moves each, 2 s mean think time: CPU per move, update -> commit p99, late answers.
2. 2,000 tables, a few moves each: CPU per move, and its ratio to the figure at 200 tables.
3. Memory per idle table: Python memory the bot holds per table in play and waiting for a move,
   traced with tracemalloc (the fake server's and the simulated players' allocations left out), as the growth
   from 20 to 100 tables.
4. Pictures: CPU p95 and size of every kind of picture (bench/render.py).

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


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="50 and 500 tables, fewer moves")
    p.add_argument("--runs", type=int, default=40, help="renders per picture kind")
    p.add_argument("--one-process", action="store_true",
                   help="the fake server and the players in the bot's process (the old measurement)")
    a = p.parse_args(argv)
    small, large = (50, 500) if a.quick else (200, 2000)
    split = not a.one_process
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
