"""Vatican (Vatikan), the manipulation rummy of Pennycook's Book of Card Games (RULES.md 9.4;
seed 003 part 7).

2-5 players, 106 cards (two 52-card packs + 2 jokers), 13 cards each. A turn is EITHER draw one
card OR one lay-down, never both. Melds and jokers as in Carousel (a joker's card is fixed once
played; it is released only by putting its real card in its place, from hand or from another
meld, and the released joker must be used at once), except that a joker never moves from one
meld to another unless first replaced (the ``vatican`` variant of ``engine.melds``).
A player's FIRST lay-down must contain a 3-card run of one suit from his own hand (three real
cards; they may be combined with more cards and rearrangements in the same lay-down). The first
player out wins outright: no points, the winner scores 1 and everyone else 0.
DECISION (the sources are silent): with the stock out a player who cannot lay down passes; if
everybody passes in succession the game ends and the fewest cards in hand win (ties all win).

Actions: ``lay CARDS [/ LAYOUT]`` (notation in ``engine.rummy.base``), ``draw``, ``pass``.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from engine import melds
from engine.cards import rank_of, suit_of
from engine.core import Event, Game, Options, register
from engine.events import DealEndEvent
from engine.melds import Variant
from engine.rummy.turns import PlayOrDrawState

# Its meld rules and its pack (106 cards).
MELDS = Variant("vatican", jokers_allowed=True, released_joker_used_at_once=True, joker_stays_in_meld=True, pack=106)


class VaticanDealEnd(DealEndEvent):
    """One point to whoever went out (or, with no one out, to the fewest cards left)."""

    out: int | None
    points: list[int]


class VaticanOptions(Options):
    """Vatican has no house rules."""


def opening_run(cards: list[int]) -> list[int] | None:
    """Three real cards among ``cards`` that make a valid Vatican run, or None."""
    variant = MELDS
    real = sorted({c for c in cards if c < 64}, key=lambda c: (suit_of(c), rank_of(c)))
    for trio in combinations(real, 3):
        if len({suit_of(c) for c in trio}) != 1:
            continue
        for order in (list(trio), [trio[2], trio[0], trio[1]]):  # the second: a low ace first
            if melds.is_valid(variant, order):
                return order
    return None


class VaticanState(PlayOrDrawState):
    GAME_ID = "vatican"
    MELD_VARIANTS = (MELDS,)
    HAND = 13
    options: VaticanOptions

    def _lay_rule(self, seat: int, hand_cards: list[int], layout: list[list[int]]) -> str | None:
        if self.opened[seat] or opening_run(hand_cards) is not None:
            return None
        return "your first lay-down must include a run of 3 cards of one suit from your hand"

    def _may_add_singly(self, seat: int) -> bool:
        return self.opened[seat]

    def _end_deal(self, out: int | None) -> list[Event]:
        if out is not None:
            winners = [out]
        else:
            fewest = min(len(h) for h in self.hands)
            winners = [s for s in range(self.n) if len(self.hands[s]) == fewest]
        points = [1 if s in winners else 0 for s in range(self.n)]
        self.totals = points
        for s in winners:
            self.wins[s] += 1
        self.history.append({"deal_no": self.deal_no, "dealer": self.dealer, "out": out,
                             "cards_left": [len(h) for h in self.hands], "points": points,
                             "totals": list(points)})
        self.phase = "over"
        self.turn = None
        end: VaticanDealEnd = {"type": "deal_end", "out": out, "points": points, "scores": list(points),
                               "totals": list(points)}
        return [end, {"type": "game_over", "scores": self.scores(), "totals": self.scores(), "winners": self.winners()}]

    def sheet(self) -> dict[str, Any]:
        return {"deals": self.history, "totals": list(self.totals), "no_scoring": True}


GAME = register(Game(options=VaticanOptions, state=VaticanState))  # id, name and players: the declaration
