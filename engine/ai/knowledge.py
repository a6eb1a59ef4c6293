"""What the AI knows of a game, as one typed value: the game declares it (``games/<id>/ai.py:
KNOWLEDGE``), the AI machinery reads it and knows no game by name.

Every field has a default that plays a game the AI knows nothing about: the only legal move when
there is one, otherwise a random one at every level (no heuristic, no deal counter, so no search).
A game fills in what it knows: the easy level's rule of thumb, the field that counts its deals
(which makes it searchable when it can deal hidden cards afresh), the search's scale and horizon,
its roll-out policy... The registry (``engine.core.ai_module``) imports ``games.<id>.ai`` lazily.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from engine.core import State, ai_module

# The easy level's move for (state, seat, legal moves), or None for a random one (the rule has no opinion).
Heuristic = Callable[[State, int, list[str]], str | None]
# The move to make without thinking (state, legal moves), or None when there is a choice.
Forced = Callable[[State, list[str]], str | None]
# A fixed policy that plays every level but random (state, seat): a family that search cannot help.
Player = Callable[[State, int], str]
# A roll-out move on the integer fast path (state, seat, legal ints, rng).
RolloutPolicy = Callable[[State, int, list[int], random.Random], int]
# The scores as if the deal ended now (search's horizon).
Outlook = Callable[[State], list[int]]
# At most k root moves worth searching (state, seat, legal, k), or None for the default shortlist.
Shortlist = Callable[[State, int, list[str], int], list[str] | None]


def single_move(state: State, legal: list[str]) -> str | None:
    """The default forced move: the only legal action."""
    return legal[0] if len(legal) == 1 else None


@dataclass(frozen=True)
class Horizon:
    """Deals too long to play out at random every iteration: the roll-out stops after ``plies`` moves
    per player and the position is scored by ``outlook`` instead."""

    plies: int
    outlook: Outlook


@dataclass(frozen=True)
class Knowledge:
    """A game's AI knowledge; the defaults know nothing of it.

    ``heuristic``: the easy level (and the fallback where search does not play).
    ``forced``: the move to make without thinking (a rummy lists a sample of its lay-downs, so a lone
    legal action is not always forced there).
    ``player``: a fixed policy for the easy, normal and strong levels (the rummies' largest lay-down).
    ``deal_field``: the state field that counts deals; search stops when it changes. None: not searched.
    ``scale``: a deal's typical swing in points (puts UCB's exploration on the results' scale).
    ``heuristic_phases``: phases search leaves to the heuristic (random roll-outs judge them by noise).
    ``horizon``: cut roll-outs short and score the position by an outlook.
    ``greedy``: roll-out moves preferred when legal (action text prefixes).
    ``rollout``: the roll-out policy (random when None).
    ``root_shortlist``: search the root among the heuristic's best few moves only (how many).
    ``shortlist``: the game's own choice of root moves worth searching.
    """

    heuristic: Heuristic | None = None
    forced: Forced = single_move
    player: Player | None = None
    deal_field: str | None = None
    scale: float = 10.0
    heuristic_phases: frozenset[str] = frozenset()
    horizon: Horizon | None = None
    greedy: tuple[str, ...] = ()
    rollout: RolloutPolicy | None = None
    root_shortlist: int | None = None
    shortlist: Shortlist | None = None


DEFAULT = Knowledge()


@cache
def knowledge(game_id: str) -> Knowledge:
    """The registered game's knowledge (``games/<id>/ai.py: KNOWLEDGE``), the defaults without an ai.py."""
    module = ai_module(game_id)
    if module is None:
        return DEFAULT
    found = getattr(module, "KNOWLEDGE", None)
    if not isinstance(found, Knowledge):
        raise TypeError(f"games/{game_id}/ai.py must define KNOWLEDGE = Knowledge(...)")
    return found


def knowledge_of(state: State) -> Knowledge:
    return knowledge(state.GAME_ID)
