"""AI moves for AI seats and absent players, thought out off the event loop.

``engine.ai.choose_action`` is pure CPU work (up to the level's budget: 180 ms at normal, 1.5 s at
strong), so it runs in a small thread pool: the event loop keeps serving every other table while an
AI thinks. Callers think with no store transaction open (the store serialises transactions, so
thinking inside one would stall every table) and apply the move in a fresh transaction afterwards.
"""

from __future__ import annotations

import asyncio
import functools
from concurrent.futures import ThreadPoolExecutor

from engine.ai import LEVELS, choose_action, only_action
from engine.core import State

DEFAULT_LEVEL = "normal"


class AiSeats:
    """Chooses moves at a level (AI seats: the table's level; the autopilot for absent players: normal)."""

    def __init__(self, level: str = DEFAULT_LEVEL, think_ms: float = 0.0, workers: int = 1) -> None:
        if level not in LEVELS:
            raise ValueError(f"KOZYR_AI_LEVEL must be one of {', '.join(LEVELS)}, not {level!r}")
        self.level = level
        self.think_ms = think_ms or None  # 0: the level's own budget
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kozyr-ai")

    async def choose(self, state: State, seat: int, seed: int, level: str | None = None) -> str:
        """A legal move for ``seat``; ``state`` is the caller's own copy (it is read in another thread)."""
        only = only_action(state, state.legal_actions(seat))  # no thread for a move nobody could choose otherwise
        if only is not None:
            return only
        think = functools.partial(choose_action, state, seat, level or self.level, seed, self.think_ms)
        return await asyncio.get_running_loop().run_in_executor(self._pool, think)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
