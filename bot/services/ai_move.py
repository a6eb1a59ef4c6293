"""The move the table plays for a player whose time ran out: the AI's (``engine.ai.choose_action``),
else (should the AI fail) a random legal move; the caller says which in the group.

The deadline's move is chosen inside the deadline's transaction on the event loop, so it plays the
heuristic level ("easy": well under a millisecond), not the search, which would hold the loop for
its whole budget; AI seats and /leave hand-overs search in a worker process (bot/services/ai_seats.py)."""

from __future__ import annotations

import logging
from typing import Any

from engine.ai.random import RandomPlayer
from engine.core import State

log = logging.getLogger(__name__)
LEVEL = "easy"


def _chooser() -> Any:
    try:
        from engine import ai
    except ImportError:  # pragma: no cover - engine.ai always exists
        return None
    return getattr(ai, "choose_action", None)


def deadline_move(state: State, seat: int, seed: int) -> tuple[str, bool]:
    """(action, True) from the AI, or (action, False) when the move is random."""
    choose = _chooser()
    if choose is not None:
        try:
            action = choose(state.clone(), seat, LEVEL, seed)
            if action in state.legal_actions(seat):
                return action, True
            log.warning("engine.ai.choose_action gave an illegal move; playing a random one")
        except Exception:
            log.warning("engine.ai.choose_action failed; playing a random move", exc_info=True)
    return RandomPlayer(seed).choose(state, seat), False
