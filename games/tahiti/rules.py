"""Tahiti, Machiavelli with four jokers (RULES.md 9.2; seed 003 part 5, Fantini & Santelia).

2-5 players, 108 cards (two 52-card packs + 4 jokers), 5 cards each and 4 cards face up on the
table as loose singles (a joker turned up goes back into the middle of the stock and the next
card is turned). The singles lie on the table as one-card "melds" (``9H`` in a layout); any
lay-down may use them and they stay loose until used; at least one card of every lay-down comes
from the hand. Turn as in Machiavelli: one
lay-down OR draw one card (``pass`` only with the stock out and nothing to lay; a full round of
passes ends the deal).

Jokers (enforced by ``engine.melds`` for the ``tahiti`` variant): at most one per meld; a
joker's card is fixed once played; a holder of that card may swap it in FROM HAND and use the
joker elsewhere on the table at once; a meld holding a joker cannot be rearranged until its
joker is replaced.

Penalties for cards left when someone goes out: 2-10 face value, J Q K 10, A 11, joker 30 (a
hand A, K, 7, JK costs 58). Options ``deals`` (1) / ``target`` (0: off); the lowest total wins.
See ``engine.rummy.base`` for the lay-down notation and the sample ``legal_actions`` lists.
"""

from __future__ import annotations

from engine.cards import JOKER, rank_of
from engine.core import Game, register
from engine.melds import Variant
from engine.rummy.turns import PenaltyOptions, PenaltyState, PlayOrDrawState

# Its meld rules and its pack (108 cards).
MELDS = Variant("tahiti", jokers_allowed=True, max_jokers_per_meld=1, joker_meld_frozen=True, swap_from_hand_only=True,
                table_singles=True, pack=108)

ACE = 14


def tahiti_points(card: int) -> int:
    """2-10 face value, pictures 10, ace 11, joker 30."""
    if card == JOKER:
        return 30
    rank = rank_of(card)
    return 11 if rank == ACE else min(rank, 10)


class TahitiOptions(PenaltyOptions):
    """Defaults: one deal."""


class TahitiState(PlayOrDrawState, PenaltyState):
    GAME_ID = "tahiti"
    MELD_VARIANTS = (MELDS,)
    HAND = 5
    SINGLES = 4
    options: TahitiOptions

    def card_points(self, card: int) -> int:
        return tahiti_points(card)


GAME = register(Game(options=TahitiOptions, state=TahitiState))  # id, name and players: the declaration
