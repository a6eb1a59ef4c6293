"""A seeded random player: fills empty seats and drives self-play and simulation tests."""

from __future__ import annotations

import random
from typing import Literal

from engine.core import State

Policy = Literal["uniform", "first", "last"]


class RandomPlayer:
    """Picks a legal action: uniformly at random, or always the first or the last one."""

    def __init__(self, seed: int = 0, policy: Policy = "uniform") -> None:
        self.rng = random.Random(seed)
        self.policy = policy

    def choose(self, state: State, seat: int | None = None) -> str:
        actions = state.legal_actions(seat)
        if not actions:
            raise ValueError("no legal action for this seat")
        if self.policy == "first":
            return actions[0]
        if self.policy == "last":
            return actions[-1]
        return actions[self.rng.randrange(len(actions))]
