"""The rummies' AI: lay down the largest part of the hand that goes down now, otherwise draw (or pass,
knock, end the turn as the rules allow). Each rummy's ``games/<id>/ai.py`` uses ``KNOWLEDGE``.

Why not the search: a rummy turn's choices are the subsets of a hand times the arrangements of the
table, and a random roll-out says little about them; the largest lay-down is what a sound player
does in every one of the seven games (the fewer cards held, the smaller the penalty). Pure and
deterministic: the solver's best subset is deterministic, the fallbacks are picked in a fixed order.
"""

from __future__ import annotations

from engine.ai.knowledge import Knowledge
from engine.core import State
from engine.rummy.base import RummyState, is_lay, parse_lay
from engine.rummy.largest import largest_lay

VERB_ORDER = ("knock", "end", "draw", "pass", "abandon")  # a knock ends the deal while the hand is low


def _rummy(state: State) -> RummyState:
    if not isinstance(state, RummyState):
        raise TypeError(f"{type(state).__name__} is not a rummy")
    return state


def rummy_action(state: State, seat: int) -> str:
    """A legal action for ``seat`` (the seat to act)."""
    legal = state.legal_actions(seat)
    lay = largest_lay(_rummy(state))
    if lay is not None:
        return lay
    lays = [a for a in legal if is_lay(a)]
    if lays:
        return max(lays, key=lambda a: (len(parse_lay(a)[0]), a))
    verbs = [a for a in legal if not is_lay(a)]
    for verb in VERB_ORDER:
        if verb in verbs:
            return verb
    return legal[0]


def forced_move(state: State, legal: list[str]) -> str | None:
    """A rummy lists a sample of its lay-downs, not all of them (a lone ``end`` may hide a lay-down
    that rearranges the table): only a move the rules force is one (``forced_action``)."""
    return _rummy(state).forced_action()


KNOWLEDGE = Knowledge(forced=forced_move, player=rummy_action)
