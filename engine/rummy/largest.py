"""The largest lay-down a rummy hand has now: what the rummies' AI plays and what a player's hint shows."""

from __future__ import annotations

from engine.cards import card_str
from engine.core import IllegalAction
from engine.rummy.base import RummyState
from engine.rummy.sample import best_subset


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
