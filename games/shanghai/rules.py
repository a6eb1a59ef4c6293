"""Shanghai, Doug Stein's manipulation rummy (RULES.md 9.5; seed 003 part 8). Not the contract
rummy called "Shanghai Rummy".

3-5 players, 104 cards (two 52-card packs, no jokers), 10 cards each dealt 3-3-3-1 from the
dealer's left; the deal rotates left. The ace is LOW only (A-2-3 valid; Q-K-A and K-A-2 not).
A player who can lay down at least one card MUST (one lay-down, of any size, then the turn
passes: RULES.md 9.5 decision, "at least one", not "as many as possible"); one who cannot draws
one card at a time (``draw``) until able, then lays down. With the stock out, a player who
cannot lay down passes; a full round of passes ends the deal. Whether a lay-down exists is
decided exactly by the solver (``engine.melds.best_subset``). Going out scores 0; the others 1
penalty point per card. ``one_card`` events announce a player down to one card.

Actions: ``lay CARDS [/ LAYOUT]`` (notation in ``engine.rummy.base``), ``draw``, ``pass``.
Options ``deals`` (1) / ``target`` (0: off): the match length (RULES.md 9.5 decision); the lowest
total wins.
"""

from __future__ import annotations

from engine.core import Game, register
from engine.melds import Variant
from engine.rummy.turns import MustMeldState, PenaltyOptions, PenaltyState

MELDS = Variant("shanghai", ace="low")  # its meld rules and its pack (Variant's default: two packs, 104 cards)


class ShanghaiOptions(PenaltyOptions):
    """Defaults: one deal."""


class ShanghaiState(MustMeldState, PenaltyState):
    GAME_ID = "shanghai"
    MELD_VARIANTS = (MELDS,)
    HAND = 10
    PACKETS = (3, 3, 3, 1)
    options: ShanghaiOptions


GAME = register(Game(options=ShanghaiOptions, state=ShanghaiState))  # id, name and players: the declaration
