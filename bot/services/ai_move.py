"""The move the table plays for a player whose time ran out: the AI's (``engine.ai.choose_action``,
issue 19) when the engine has it, else a random legal move; the caller says which in the group."""

from __future__ import annotations

import logging
from typing import Any

from engine.ai.random import RandomPlayer
from engine.core import State

log = logging.getLogger(__name__)
LEVEL = "normal"


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
            action = choose(state.clone(), seat, LEVEL)
            if action in state.legal_actions(seat):
                return action, True
            log.warning("engine.ai.choose_action gave an illegal move; playing a random one")
        except Exception:
            log.warning("engine.ai.choose_action failed; playing a random move", exc_info=True)
    return RandomPlayer(seed).choose(state, seat), False
