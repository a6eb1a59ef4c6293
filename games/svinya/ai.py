"""Svinya's AI knowledge: the easy level calls "pig" whenever it may, then shops, then lifts; otherwise
a random move (the game has no hidden deal to search)."""

from __future__ import annotations

from engine.ai.knowledge import Knowledge
from engine.core import State

PREFERRED = ("pig", "shop", "lift")


def move(state: State, seat: int, legal: list[str]) -> str | None:
    for verb in PREFERRED:
        moves = [a for a in legal if a.startswith(verb)]
        if moves:
            return moves[0]
    return None


KNOWLEDGE = Knowledge(heuristic=move)
