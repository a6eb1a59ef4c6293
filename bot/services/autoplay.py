"""Whose move the table plays by itself: AI seats, seats handed to the AI, and moves nobody could choose
otherwise (a game of forced moves, a rummy's forced draw).

Its own module because the play service (which plays those moves) and publishing (which notifies a player
only when they have something to do) must agree on it, and neither imports the other."""

from __future__ import annotations

from collections.abc import Sequence

import games
from bot.services.handover import on_autopilot
from bot.services.ports import ForcedRule
from bot.store.rows import SeatRow, TableRow
from engine.core import State


def table_plays(row: TableRow, seat: SeatRow, legal: Sequence[str], state: State | None = None,
                forced: Sequence[ForcedRule] = ()) -> bool:
    """Whether the table plays ``seat``'s move (its ``legal`` actions) without asking anybody: AI seats and
    seats on autopilot always; a move a ``forced`` rule names; and the only move in a game of forced moves,
    unless the table chose buttons (Pyanitsa's ``flip=button``)."""
    if seat.is_ai or on_autopilot(row, seat.seat):
        return True
    if state is not None and any(rule(row.game, state) for rule in forced):
        return True
    declared = games.declaration(row.game)
    if not declared.forced_moves_play or len(legal) != 1:
        return False
    return not declared.forced_option or row.options.get(declared.forced_option) != declared.forced_off
