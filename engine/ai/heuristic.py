"""The easy level: each game's rule of thumb (``Knowledge.heuristic``), a random move where it has none.

The rules themselves live with the games (``games/<id>/ai.py``); what trick games share is in
``engine.ai.tricks``. Here: the player, the seat-filler and the shortlist of root moves search uses
when a position has too many (the heuristic's pick plus a few others).
"""

from __future__ import annotations

import random

from engine.ai.knowledge import knowledge_of
from engine.core import State


def heuristic_action(state: State, seat: int, rng: random.Random | None = None) -> str:
    """The easy level's move for ``seat`` (which must be the seat to act)."""
    legal = state.legal_actions(seat)
    if not legal:
        raise ValueError("no legal action for this seat")
    if len(legal) == 1:
        return legal[0]
    rule = knowledge_of(state).heuristic
    if rule is not None:
        chosen = rule(state, seat, legal)
        if chosen is not None:
            return chosen
    return legal[(rng or random.Random(0)).randrange(len(legal))]


class HeuristicPlayer:
    """The easy level as a seat-filler with the same interface as ``RandomPlayer``."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: State, seat: int | None = None) -> str:
        if seat is None:
            seat = state.to_act
            if seat is None:
                raise ValueError("the game is over")
        return heuristic_action(state, seat, self.rng)


def shortlist(state: State, seat: int, legal: list[str], k: int, rng: random.Random) -> list[str]:
    """At most ``k`` moves worth searching: the game's own choice when it makes one; else all when they
    are few, or the heuristic's move and a random few others."""
    own = knowledge_of(state).shortlist
    if own is not None:
        chosen = own(state, seat, legal, k)
        if chosen is not None:
            return chosen
    if len(legal) <= k:
        return list(legal)
    pick = heuristic_action(state, seat, rng)
    rest = [a for a in legal if a != pick]
    return [pick, *rng.sample(rest, k - 1)]
