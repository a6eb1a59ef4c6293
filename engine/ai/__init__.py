"""Seat-fillers and AI players: random, the easy heuristic, and ISMCTS search (normal, strong).

``choose_action`` is the one door the bot and the arena use: a state, a seat, a level, a seed and a
thinking budget in, a legal action out. It is pure and synchronous (the bot runs it in a worker
process, or a thread: ``KOZYR_AI_WORKER``). Games search cannot handle (no ``determinize`` or no deal
counter) fall back to the heuristic.
What the AI knows of a game is the game's (``games/<id>/ai.py: KNOWLEDGE``, a ``Knowledge`` read through
the registry); nothing here names a game.
"""

from __future__ import annotations

import random as _random  # engine.ai.random (the module) would shadow it
import time
from typing import Literal

from engine.ai.heuristic import HeuristicPlayer, heuristic_action, shortlist
from engine.ai.knowledge import Knowledge, knowledge, knowledge_of
from engine.ai.random import RandomPlayer
from engine.ai.search import MAX_BRANCH, MAX_ITERATIONS, ROOT_KEEP, ismcts, searched_phase, supports
from engine.core import State

Level = Literal["random", "easy", "normal", "strong"]
LEVELS: tuple[Level, ...] = ("random", "easy", "normal", "strong")
# Thinking time per decision, in milliseconds, shortlisting included (normal must stay under 300 ms at
# p99, strong under 2 s: the margin is for the last iteration, which may run over, on a loaded machine).
BUDGET_MS: dict[str, float] = {"normal": 180.0, "strong": 1500.0}
# "heuristic" is accepted as a synonym of "easy" (the arena's seat kinds).
ALIASES: dict[str, str] = {"heuristic": "easy", "search": "normal"}


def only_action(state: State, legal: list[str]) -> str | None:
    """The move to make without thinking, if there is one: by default the only legal action; a game
    whose legal list is a sample (a rummy's lay-downs) says which moves are forced (``Knowledge.forced``)."""
    return knowledge_of(state).forced(state, legal)


def choose_action(
    state: State,
    seat: int,
    level: str = "normal",
    seed: int | _random.Random = 0,
    budget_ms: float | None = None,
    max_iterations: int | None = None,
) -> str:
    """A legal action for ``seat`` (the seat to act) at ``level``: random, easy (the heuristic),
    normal or strong (ISMCTS within ``budget_ms``, by default the level's)."""
    level = ALIASES.get(level, level)
    if level not in LEVELS:
        raise ValueError(f"unknown AI level {level!r}; known: {', '.join(LEVELS)}")
    started = time.perf_counter()
    rng = seed if isinstance(seed, _random.Random) else _random.Random(seed)
    legal = state.legal_actions(seat)
    if not legal:
        raise ValueError(f"seat {seat} has no legal action now")
    only = only_action(state, legal)
    if only is not None:
        return only
    if level == "random":
        return legal[rng.randrange(len(legal))]
    knows = knowledge_of(state)
    if knows.player is not None:  # a fixed policy plays every level but random (the rummies' lay-downs)
        return knows.player(state, seat)
    if level == "easy" or not supports(state) or not searched_phase(state):
        return heuristic_action(state, seat, rng)
    budget = BUDGET_MS[level] if budget_ms is None else budget_ms
    keep = knows.root_shortlist
    if keep is not None:
        candidates: list[str] | None = shortlist(state, seat, legal, keep, rng)
    else:
        candidates = shortlist(state, seat, legal, ROOT_KEEP, rng) if len(legal) > MAX_BRANCH else None
    cap = MAX_ITERATIONS if max_iterations is None else max_iterations
    left = budget - 1000 * (time.perf_counter() - started)  # the shortlist's time counts too
    return ismcts(state, seat, budget_ms=max(left, 1.0), max_iterations=cap, rng=rng, candidates=candidates).action


__all__ = ["BUDGET_MS", "LEVELS", "HeuristicPlayer", "Knowledge", "RandomPlayer", "choose_action", "heuristic_action",
           "knowledge", "knowledge_of", "only_action"]
