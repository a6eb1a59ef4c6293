"""What PostgreSQL's backends of one bench phase spend their time on, and their CPU, read from outside.

Why: on a machine whose cores other programs share, wall-clock latency says little; what the server's
backends were doing when they were not running (waiting for a row lock, for the WAL flush, for the worker
to send its next statement) says where a move's time goes, and their CPU per move is a count that load
does not bend. Every ``interval`` seconds one query reads ``pg_stat_activity`` for the backends whose
``application_name`` is the phase's, and for those waiting on a lock, who holds it (``pg_blocking_pids``)
and which lock (``pg_locks`` not granted). A sample of a backend in a state stands for ``interval`` seconds
of it in that state, so the counts become backend-milliseconds per move.

pg_stat_statements would give the server's CPU per statement, but it must be preloaded (a server restart);
the CPU here is the backends' own from /proc/<pid>/stat (utime + stime), the server on this machine.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

TICK = os.sysconf("SC_CLK_TCK")

SAMPLE = """
SELECT a.pid, a.application_name AS app, a.state, a.wait_event_type, a.wait_event,
       left(regexp_replace(a.query, '\\s+', ' ', 'g'), 70) AS query,
       CASE WHEN a.wait_event_type = 'Lock' THEN pg_blocking_pids(a.pid) END AS blockers,
       (SELECT string_agg(l.locktype || ' ' || l.mode, ',') FROM pg_locks l WHERE l.pid = a.pid AND NOT l.granted)
         AS waiting_for
FROM pg_stat_activity a WHERE a.application_name LIKE $1 || '%'
"""
BACKGROUND = "SELECT pid FROM pg_stat_activity WHERE backend_type <> 'client backend'"


def state_of(row: Any) -> str:
    """One label per sampled backend: on CPU, waiting on something (type:event), or waiting for the worker."""
    if row["state"] == "idle":
        return "idle (between transactions)"
    if row["state"] == "idle in transaction":
        return "idle in transaction (waiting for the worker)"
    if row["wait_event_type"] is None:
        return "running (CPU)"
    return f"{row['wait_event_type']}:{row['wait_event']}"


class Watch:
    """Samples the backends whose application_name starts with ``app`` for ``seconds``; keeps their pids by
    name for the CPU count. The states are counted for the backends named exactly ``app`` + ``counted``
    (the moves'); what they wait for may be held by any of them (the outbox senders' too)."""

    def __init__(self, url: str, app: str, counted: str, interval: float = 0.01) -> None:
        self.url, self.app, self.counted, self.interval = url, app, app + counted, interval
        self.states: Counter[str] = Counter()
        self.blocked_by: Counter[str] = Counter()  # "waiter's statement <- holder's statement (holder's state)"
        self.locks: Counter[str] = Counter()  # the lock waited for (pg_locks, not granted)
        self.pids: dict[int, str] = {}  # pid: application_name
        self.background: set[int] = set()
        self.samples = 0
        self.start_cpu: dict[int, float] = {}  # the backends' and background processes' CPU when sampling began

    async def run(self, seconds: float) -> None:
        import asyncpg

        conn = await asyncpg.connect(self.url, server_settings={"application_name": "kozyr-bench-watch"})
        try:
            self.background = {r[0] for r in await conn.fetch(BACKGROUND)}
            self.pids = {r["pid"]: r["app"] for r in await conn.fetch(SAMPLE, self.app)}
            self.start_cpu = cpu_seconds(set(self.pids) | self.background)
            end = time.monotonic() + seconds
            nxt = time.monotonic()
            while nxt < end:
                rows = await conn.fetch(SAMPLE, self.app)
                self.samples += 1
                by_pid = {r["pid"]: r for r in rows}
                for row in rows:
                    self.pids[row["pid"]] = row["app"]
                    if row["app"] != self.counted:
                        continue
                    label = state_of(row)
                    self.states[label] += 1
                    if row["waiting_for"]:
                        self.locks[row["waiting_for"]] += 1
                    for holder in row["blockers"] or []:
                        held = by_pid.get(holder)
                        what = f"{held['query']} ({held['state']})" if held is not None else "another client"
                        self.blocked_by[f"{row['query']}  <-  {what}"] += 1
                nxt += self.interval
                await asyncio.sleep(max(0.0, nxt - time.monotonic()))
        finally:
            await conn.close()

    def per_move(self, moves: int) -> list[tuple[str, int, float]]:
        """Each state's samples and backend-milliseconds per move, most first (idle backends left out)."""
        scale = 1000 * self.interval / moves if moves else float("nan")
        return [(k, n, n * scale) for k, n in self.states.most_common() if not k.startswith("idle (")]


    def cpu(self) -> dict[str, float]:
        """CPU seconds since sampling began of the phase's backends by application_name, and ("background") of
        the server's background processes (WAL writer, checkpointer, autovacuum: they serve every client of
        this server, not only the bench)."""
        now = cpu_seconds(set(self.pids) | self.background)
        out = {"background": spent(self.start_cpu, {p: t for p, t in now.items() if p in self.background})}
        for name in set(self.pids.values()):
            out[name] = spent(self.start_cpu, {p: t for p, t in now.items() if self.pids.get(p) == name})
        return out


def cpu_seconds(pids: set[int] | list[int], tick: int = TICK) -> dict[int, float]:
    """User + system CPU seconds of each live process (one that has ended is missing)."""
    out = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[pid] = (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return out


def spent(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds spent between two readings; a process first seen after the first reading started at 0."""
    return sum(t - before.get(pid, 0.0) for pid, t in after.items())
