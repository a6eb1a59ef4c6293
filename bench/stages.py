"""Where a press's time goes between the update and its durable COMMIT (bench/bot.py --split --stages).

Instrumentation of the bot's instances only (no bot code changes), for every timed move:

- queued -> served: in the fake until a getUpdates answer handed the update out (the fake's process clock,
  CLOCK_MONOTONIC like the bot's): the bot's polling cycle, and the fake's own delay.
- served -> recv: until the bot's intake got the parsed batch (the HTTP answer read and parsed).
- recv -> spawn: the inbox transaction's COMMIT, then the handler task is created.
- spawn -> handle: the handler task waiting for its first turn of the event loop.
- handle -> press -> locked -> commit: the dispatcher and middlewares; the table's and the store's locks;
  the move's transaction up to its COMMIT.
- commit -> done: the wait for the fsync that makes it durable (bot/store/walsync.py).

Then the event loop: the callbacks that took its time (by task coroutine or callback, with counts and the
longest), and its iterations (the callbacks' time only, the select() wait left out; callbacks ready at
the start). Timing every callback costs CPU: compare latencies with runs without ``--stages``.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from typing import Any

clock = time.monotonic
_UPDATE: contextvars.ContextVar[int | None] = contextvars.ContextVar("stages_update", default=None)


class Stages:
    """``hook(app)`` once; ``on`` during play; ``report`` with the fake's served and queued times."""

    def __init__(self) -> None:
        self.marks: dict[int, dict[str, float]] = {}
        self.iterations: list[tuple[float, int, float]] = []  # (start, ready callbacks, seconds)
        self.on = False

    def mark(self, update_id: int | None, stage: str) -> None:
        if self.on and update_id is not None:
            self.marks.setdefault(update_id, {}).setdefault(stage, clock())

    def hook(self, app: Any) -> None:
        intake, store, play = app.intake, app.store, app.services.play
        accept_all, spawn, handle = intake.accept_all, intake._spawn, intake._handle
        begin, committed_one, press = store._begin, store.wal.committed_one, play.press
        stages = self

        async def s_accept_all(updates: list[Any]) -> int:
            for u in updates:
                stages.mark(u.update_id, "recv")
            return await accept_all(updates)

        def s_spawn(update: Any) -> None:
            stages.mark(update.update_id, "spawn")
            spawn(update)

        async def s_handle(update: Any) -> None:
            _UPDATE.set(update.update_id)
            stages.mark(update.update_id, "handle")
            await handle(update)

        def in_press(stage: str) -> None:
            uid = _UPDATE.get()
            m = stages.marks.get(uid) if uid is not None else None
            if m is not None and "press" in m and "commit" not in m:
                m[stage] = clock()

        async def s_begin(call: Any, sql: str) -> None:
            in_press("locked")
            await begin(call, sql)

        def s_committed_one(durable: bool) -> int:
            in_press("commit")
            return committed_one(durable)

        async def s_press(*args: Any, **kwargs: Any) -> Any:
            stages.mark(_UPDATE.get(), "press")
            try:
                return await press(*args, **kwargs)
            finally:
                stages.mark(_UPDATE.get(), "done")

        intake.accept_all, intake._spawn, intake._handle = s_accept_all, s_spawn, s_handle
        store._begin, store.wal.committed_one, play.press = s_begin, s_committed_one, s_press

        loop = asyncio.get_running_loop()
        run_once = loop._run_once  # type: ignore[attr-defined]
        ready = loop._ready  # type: ignore[attr-defined]
        iterations = self.iterations
        selector = loop._selector  # type: ignore[attr-defined]
        select = selector.select
        waited = [0.0]

        def s_select(timeout: Any = None) -> Any:
            t0 = clock()
            try:
                return select(timeout)
            finally:
                waited[0] = clock() - t0

        selector.select = s_select

        def s_run_once() -> None:
            t0 = clock()
            waited[0] = 0.0
            n = len(ready)
            run_once()
            if stages.on:
                iterations.append((t0, n, clock() - t0 - waited[0]))

        kinds: dict[str, list[Any]] = {}
        self.kinds = kinds
        handle_run = asyncio.events.Handle._run

        def s_run(handle: Any) -> None:
            t0 = clock()
            handle_run(handle)
            if stages.on:
                cb = handle._callback
                name = getattr(cb, "__qualname__", None) or type(cb).__name__
                owner = getattr(cb, "__self__", None)
                if owner is not None and hasattr(owner, "get_name"):
                    coro = owner.get_coro()
                    name += ":" + getattr(coro, "__qualname__", "?")
                k = kinds.setdefault(name, [0, 0.0, 0.0])
                d = clock() - t0
                k[0] += 1
                k[1] += d
                k[2] = max(k[2], d)

        asyncio.events.Handle._run = s_run  # type: ignore[method-assign]  # this process is the bench's
        loop._run_once = s_run_once  # type: ignore[attr-defined]

    def report(self, served: dict[int, float], queued: dict[int, float], ids: list[int]) -> str:
        order = ["queued", "served", "recv", "spawn", "handle", "press", "locked", "commit", "done"]
        gaps: dict[str, list[float]] = {}
        totals = []
        for uid in ids:
            m = dict(self.marks.get(uid, {}))
            if uid in served:
                m["served"] = served[uid]
            if uid in queued:
                m["queued"] = queued[uid]
            if "done" not in m or "queued" not in m:
                continue
            present = [s for s in order if s in m]
            for a, b in zip(present, present[1:], strict=False):
                gaps.setdefault(f"{a}->{b}", []).append((m[b] - m[a]) * 1000)
            totals.append((m["done"] - m["queued"]) * 1000)

        def pct(v: list[float], q: float) -> float:
            s = sorted(v)
            return s[min(len(s) - 1, round(q * (len(s) - 1)))]

        lines = [f"{'stage (ms)':20} {'n':>6} {'p50':>8} {'p90':>8} {'p99':>8} {'max':>8} {'mean':>8}"]
        for key, v in [*gaps.items(), ("total", totals)]:
            if v:
                lines.append(f"{key:20} {len(v):6d} {pct(v, .5):8.2f} {pct(v, .9):8.2f} {pct(v, .99):8.2f} "
                             f"{max(v):8.2f} {sum(v) / len(v):8.2f}")
        it = self.iterations
        if it:
            durs = [d * 1000 for _, _, d in it]
            readies = [n for _, n, _ in it]
            busy = sum(durs)
            lines.append(f"callbacks' time {busy / 1000:.1f} s")
            top = sorted(self.kinds.items(), key=lambda kv: -kv[1][1])[:25]
            lines += [f"    {n:70.70} {c:7d} {t:7.2f} s  max {m * 1000:6.1f} ms" for n, (c, t, m) in top]
            lines.append(f"loop iterations {len(it)} (callbacks only): ms p50 {pct(durs, .5):.2f} "
                         f"p90 {pct(durs, .9):.2f} p99 {pct(durs, .99):.2f} max {max(durs):.2f}; "
                         f"ready callbacks p50 {pct(readies, .5)} "
                         f"p90 {pct(readies, .9)} p99 {pct(readies, .99)} max {max(readies)}; "
                         f">5 ms: {sum(1 for d in durs if d > 5)}, >20 ms: {sum(1 for d in durs if d > 20)}")
        return "\n".join(lines)
