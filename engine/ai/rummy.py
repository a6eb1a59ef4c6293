"""The rummies' AI (issue 16): lay down the largest part of the hand that goes down now, otherwise
draw (or pass, knock, end the turn as the rules allow).

Why not the search: a rummy turn's choices are the subsets of a hand times the arrangements of the
table, and a random roll-out says little about them; the largest lay-down is what a sound player
does in every one of the seven games (the fewer cards held, the smaller the penalty). Pure and
deterministic: the solver's best subset is deterministic, the fallbacks are picked in a fixed order.
"""

from __future__ import annotations

from engine.cards import card_str
from engine.core import IllegalAction
from engine.rummy.base import RummyState, is_lay, parse_lay
from engine.rummy.sample import best_subset

VERB_ORDER = ("knock", "end", "draw", "pass", "abandon")  # a knock ends the deal while the hand is low


def largest_lay(state: RummyState) -> str | None:
    """The explicit lay-down of the largest subset of the hand that goes down now, or None."""
    seat = state.turn
    if seat is None or not state.may_lay():
        return None
    table = tuple(tuple(m) for m in state.table)
    subset = best_subset(state.variant, table, tuple(state.hands[seat]))
    if not subset:
        return None
    try:
        return state.canonical_action("lay " + " ".join(card_str(c) for c in subset))
    except IllegalAction:  # a game's own rule refuses it (Vatican's opening run): the sample decides
        return None


def rummy_action(state: RummyState, seat: int) -> str:
    """A legal action for ``seat`` (the seat to act)."""
    legal = state.legal_actions(seat)
    lay = largest_lay(state)
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
