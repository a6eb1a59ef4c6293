"""Guadalupe, Machiavelli without jokers and with small hands (RULES.md 9.3; seed 003 part 6).

2-5 players, 104 cards (two 52-card packs), 5 cards each. A turn: one lay-down (any
rearrangement, every table card in a valid meld) and then, unless the hand is empty, draw 1 card
at the end of the turn; OR lay nothing and draw 2 cards (``draw``; just 1 when only 1 is left).
With the stock out, ``pass`` is legal only when no lay-down exists; a full round of passes ends
the deal. The first out ends the deal; the others score 1 penalty point per card left.

Actions: ``lay CARDS [/ LAYOUT]`` (notation in ``engine.rummy.base``), ``draw``, ``pass``.
Options ``deals`` (1) / ``target`` (0: off); the lowest total wins. ``legal_actions`` lists a
sample of lay-downs; any legal lay-down is accepted.
"""

from __future__ import annotations

from engine.core import Game, register
from engine.melds import Variant
from engine.rummy.turns import PenaltyOptions, PenaltyState, PlayOrDrawState

MELDS = Variant("guadalupe")  # its meld rules and its pack (Variant's default: two packs, 104 cards)


class GuadalupeOptions(PenaltyOptions):
    """Defaults: one deal."""


class GuadalupeState(PlayOrDrawState, PenaltyState):
    GAME_ID = "guadalupe"
    MELD_VARIANTS = (MELDS,)
    HAND = 5
    DRAW_IDLE = 2
    DRAW_AFTER_LAY = 1
    options: GuadalupeOptions


GAME = register(Game(options=GuadalupeOptions, state=GuadalupeState))  # id, name and players: the declaration
