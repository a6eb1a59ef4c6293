"""Manipulation (Finagle), Paul Welty's manipulation rummy (RULES.md 9.6; seed 003 part 9).

3-5 players on two 52-card packs (104); 6-8 players add a third pack (156). 7 cards each; the
player left of the dealer starts; the deal rotates left. Sets are 3+ cards of one rank in
different suits (so at most 4), runs 3+ of one suit, the ace HIGH only (Q-K-A valid, K-A-2 and
A-2-3 not). A player who can lay down must (at least one card); one who cannot draws one card at
a time (``draw``) until able, then stops and lays down. With the stock out, a player who cannot
lay down passes; a full round of passes ends the deal (decision, as Shanghai). The first out wins
the deal; the others take penalties: A 15; 10, J, Q, K 10; other cards 5 (A, 10, Q, 4 cost 40).
The match ends when someone's total reaches ``target`` (200; 300 is the other agreed length) and
the lowest total wins (``scores()`` are minus the penalties).

Actions: ``lay CARDS [/ LAYOUT]`` (notation in ``engine.rummy.base``), ``draw``, ``pass``.
"""

from __future__ import annotations

from pydantic import Field

from engine.cards import deck, rank_of
from engine.core import Game, register
from engine.melds import Variant
from engine.rummy.turns import MustMeldState, PenaltyOptions, PenaltyState

MELDS = Variant("manipulation", ace="high")  # its meld rules

ACE = 14


def manipulation_points(card: int) -> int:
    """Ace 15; ten and picture cards 10; every other card 5."""
    rank = rank_of(card)
    return 15 if rank == ACE else 10 if rank >= 10 else 5


class ManipulationOptions(PenaltyOptions):
    """Defaults: play to 200 penalty points, no fixed number of deals."""

    deals: int = Field(0, ge=0, le=100, description="deals in the match (0: until the target)")
    target: int = Field(
        200, ge=0, le=10000, description="the match ends when someone's penalties reach this (200 or 300)")


class ManipulationState(MustMeldState, PenaltyState):
    GAME_ID = "manipulation"
    MELD_VARIANTS = (MELDS,)
    HAND = 7
    options: ManipulationOptions

    def pack(self) -> list[int]:
        return deck(104) + (deck(52) if self.n > 5 else [])

    def card_points(self, card: int) -> int:
        return manipulation_points(card)


GAME = register(Game(options=ManipulationOptions, state=ManipulationState))  # id, name and players: the declaration
