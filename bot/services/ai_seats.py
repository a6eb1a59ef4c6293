"""AI moves for AI seats and absent players, thought out off the event loop.

``engine.ai.choose_action`` is pure CPU work (up to the level's budget: 180 ms at normal, 1.5 s at
strong). It runs in a worker **process** by default: in a thread of the bot's own process it would
hold the GIL, and every other table's press would wait for it in slices of Python's 5 ms switch
interval (at 200 tables with AI seats that made a move's p99 several times the time of the move
itself; ``bench/deadlines.py --ai-worker thread`` against ``process`` shows it). ``thread`` stays for
hosts where starting processes is not wanted (``KOZYR_AI_WORKER``). Callers think with no store
transaction open (the store serialises transactions, so thinking inside one would stall every table)
and apply the move in a fresh transaction afterwards.

The process pool is one per bot process, shared by every ``AiSeats`` (tests build many apps in one
process; each would otherwise start interpreters of its own). It is started with ``spawn``: forking an
event loop with threads running is unsafe. A worker that dies is replaced and the move asked again;
where workers cannot start at all (a main module that spawn cannot import), the seats fall back to a
thread and say so in the log.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import multiprocessing
import signal
import threading
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from engine.ai import LEVELS, choose_action, only_action
from engine.core import State

DEFAULT_LEVEL = "normal"
WORKERS = ("process", "thread")

log = logging.getLogger(__name__)


class _SharedProcessPool:
    """The bot process's AI worker processes: started on first use, replaced when broken."""

    def __init__(self, workers: int = 1) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def get(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(max_workers=self.workers, initializer=_worker_started,
                                                 mp_context=multiprocessing.get_context("spawn"))
            return self._pool

    def replace(self, broken: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pool is broken:
                self._pool = None
        broken.shutdown(wait=False, cancel_futures=True)


_PROCESSES = _SharedProcessPool()


def _worker_started() -> None:
    """In the worker: Ctrl-C reaches the whole terminal's process group, and the bot stops gracefully on
    it; the worker must not die with a traceback first (it ends when the bot process does)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _ready() -> bool:
    """Nothing: submitted once to start the worker (and its imports) before the first real move."""
    return True


class AiSeats:
    """Chooses moves at a level (AI seats: the table's level; the autopilot for absent players: normal)."""

    def __init__(self, level: str = DEFAULT_LEVEL, think_ms: float = 0.0, workers: int = 1,
                 worker: str = "process") -> None:
        if level not in LEVELS:
            raise ValueError(f"KOZYR_AI_LEVEL must be one of {', '.join(LEVELS)}, not {level!r}")
        if worker not in WORKERS:
            raise ValueError(f"KOZYR_AI_WORKER must be one of {', '.join(WORKERS)}, not {worker!r}")
        self.level = level
        self.think_ms = think_ms or None  # 0: the level's own budget
        self.worker = worker
        self._threads = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kozyr-ai") \
            if worker == "thread" else None

    def _executor(self) -> Executor:
        if self._threads is None:
            try:
                return _PROCESSES.get()
            except (OSError, ImportError, NotImplementedError):  # no process pool on this host (no sem_open)
                self._to_threads("cannot be started")
        assert self._threads is not None
        return self._threads

    def _to_threads(self, why: str) -> None:
        log.error("AI worker processes %s here; AI seats think in a thread of the bot's process", why)
        self.worker = "thread"
        self._threads = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kozyr-ai")

    def warm_up(self) -> None:
        """Start the worker process now, so the first AI move does not wait for its interpreter."""
        if self._threads is None:
            self._executor().submit(_ready)

    async def choose(self, state: State, seat: int, seed: int, level: str | None = None) -> str:
        """A legal move for ``seat``; ``state`` is the caller's own copy (it is read in another thread,
        or pickled to the worker process)."""
        only = only_action(state, state.legal_actions(seat))  # no worker for a move nobody could choose otherwise
        if only is not None:
            return only
        think = functools.partial(choose_action, state, seat, level or self.level, seed, self.think_ms)
        loop = asyncio.get_running_loop()
        for attempt in range(2):
            executor = self._executor()
            try:
                return await loop.run_in_executor(executor, think)
            except BrokenProcessPool:
                assert isinstance(executor, ProcessPoolExecutor)
                _PROCESSES.replace(executor)
                if attempt == 0:
                    log.warning("the AI worker process died; starting another and asking again")
                else:  # a worker that cannot even start (spawn cannot import the main module): threads from now on
                    self._to_threads("die at start")
        return await loop.run_in_executor(self._executor(), think)

    def close(self) -> None:
        """Stop this instance's threads; the shared worker process lives as long as the bot process."""
        if self._threads is not None:
            self._threads.shutdown(wait=False, cancel_futures=True)
