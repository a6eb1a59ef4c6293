"""Machiavelli, the Italian manipulation rummy (RULES.md 9.1; seed 003 part 4).

2-5 players, two 52-card packs without jokers (104), 13 cards each, one at a time from the
dealer's left; the rest is the stock. Melds: sets of 3-4 cards of one rank in different suits,
runs of 3+ of one suit, the ace high or low but not both (Q-K-A and A-2-3, never K-A-2).
A turn is EITHER one lay-down (any number of hand cards, any rearrangement of the table, every
table card ending in a valid meld) OR drawing one card. The first player to empty his hand ends
the deal; every other player scores 1 penalty point per card left.

Actions (see ``engine.rummy.base`` for the lay-down notation):

- ``lay CARDS [/ LAYOUT]``: lay down (the explicit form fixes the new table);
- ``draw``: take the top card of the stock; the turn passes;
- ``abandon``: take back a started manipulation and draw 3 cards as the penalty (RULES.md 9.1
  decision: the bot validates a layout atomically, so a refused lay-down costs nothing; only an
  explicit abandon is punished);
- ``pass``: only with the stock out and no lay-down possible; when everybody passes in
  succession the deal ends and all hands count.

Options: ``deals`` (1) deals in the match or ``target`` (0: off) penalty points that end it; the
lowest total wins. ``legal_actions`` lists a sample of lay-downs (see ``_rummy``).
"""

from __future__ import annotations

from engine.core import Game, register
from engine.melds import Variant
from engine.rummy.turns import PenaltyOptions, PenaltyState, PlayOrDrawState

MELDS = Variant("machiavelli")  # its meld rules and its pack (Variant's default: two packs, 104 cards)


class MachiavelliOptions(PenaltyOptions):
    """Defaults: one deal (RULES.md 9.1 gives no match length)."""


class MachiavelliState(PlayOrDrawState, PenaltyState):
    GAME_ID = "machiavelli"
    MELD_VARIANTS = (MELDS,)
    HAND = 13
    ABANDON = 3
    options: MachiavelliOptions


GAME = register(Game(options=MachiavelliOptions, state=MachiavelliState))  # id, name and players: the declaration
