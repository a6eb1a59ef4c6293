"""Carousel, the manipulation rummy of Scarne and Culbertson (RULES.md section 8; seed 003 part 2).

2 players use 52 cards + 1 joker (53); 3-5 players two packs + 2 jokers (106). 10 cards each,
one at a time from the dealer's left; the rest is the stock; no discard pile. The deal passes
to the left. Melds: sets of 3-4 of one rank in different suits, runs of 3+ of one suit, the ace
high or low but never around the corner. A joker stands for the card it is given when played;
it moves between melds keeping that meaning and is released only by putting that real card in
its place (from hand or from the table); a released joker is used again at once, never taken
into a hand (the ``carousel`` variant of ``engine.melds``).

Turn (Scarne, the default): ``draw`` one card; then lay down or ``draw`` a 2nd; then lay down or
``draw`` a 3rd, which ends the turn (no lay-down after a 3rd card). After a lay-down the player
may lay down again, ``knock`` or ``end`` the turn. After drawing 1 or 2 cards (and any lay-down)
a player whose hand is worth 5 or less may ``knock`` (RULES.md 8.3 decision 2: with or without a
lay-down this turn): the deal ends at once. The first lay-down on an empty table is complete
melds from hand, as every lay-down there must be.
Culbertson's variant (option ``culbertson``): draw up to 4 cards, laying down allowed after the
1st, 2nd or 3rd (the 4th ends the turn); ``knock`` only at the START of a turn, instead of
drawing, with a hand worth 10 or less.

Stock out: when the player who drew the last card ends his turn without knocking, every player
in turn, ending with him, has one more turn to lay down (``lay`` ... then ``end``; no drawing,
no knocking); then the hands are counted with no knocker.

Hand values: joker 25; K, Q, J 10; 2-10 face value; A 1. Going out (a lay-down that empties the
hand) ends the deal: +25 plus the full values of the other hands. Otherwise the lowest hand wins:
- Scarne: the sum of its differences with every other hand (4 v 6, 12, 17 -> 23); undercut +10
  when the winner is not the knocker (-> 33); a knocker tied lowest loses to the tied player(s),
  who take the undercut bonus; tied non-knockers both score as winners (each with the bonus if
  somebody knocked; with no knocker there is no undercut, a decision: nobody was undercut).
- Culbertson: the winner scores the total of the other hands, his own not subtracted; tied
  winners split it (integer division, the odd points dropped); the undercut bonus as Scarne.
The game ends when someone's total reaches ``target`` (150): +100 to whoever reached it, then
(Scarne only) +25 per hand won to every player, the winner included (RULES.md 8.3 decision 1).
``sheet()["settlement"]`` then settles each pair of players by the difference of their scores.

Actions: ``lay CARDS [/ LAYOUT]`` (notation in ``engine.rummy.base``), ``draw``, ``knock``,
``end``. ``legal_actions`` lists a sample of lay-downs; any legal lay-down is accepted.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from engine.cards import JOKER, deck, rank_of
from engine.core import Event, Game, Options, register
from engine.events import DealEndEvent, GameOverEvent, OtherEvent
from engine.melds import Variant
from engine.rummy.base import RummyState

# Its meld rules, and Culbertson's (the same rules under their own name).
MELDS = Variant("carousel", jokers_allowed=True, released_joker_used_at_once=True, pack=106)
CULBERTSON_MELDS = Variant("carousel_culbertson", jokers_allowed=True, released_joker_used_at_once=True, pack=106)

ACE = 14
UNDERCUT = 10
OUT_BONUS = 25
GAME_BONUS = 100
HAND_BONUS = 25


class KnockEvent(OtherEvent):
    """``type`` "knock": the seat's hand value when it knocked."""

    value: int


class FinalRoundEvent(OtherEvent):
    """``type`` "final_round": the stock ran out after ``last_drawer``; everyone plays once more."""

    last_drawer: int
    order: list[int]


class CarouselDealEnd(DealEndEvent):
    knocker: int | None
    out: int | None
    values: list[int]
    winners: list[int]
    points: list[int]


class CarouselGameOver(GameOverEvent):
    game_bonus: list[int]
    hand_bonus: list[int]
    settlement: list[int]


class CarouselOptions(Options):
    """Scarne's rules by default; ``culbertson`` switches to Culbertson's earlier version."""

    culbertson: bool = Field(
        False, description="Culbertson's variant: draw up to 4, knock at 10 or less at the start of a turn")
    target: int = Field(150, ge=10, le=10000, description="the game ends when someone's total reaches this")


def carousel_value(card: int) -> int:
    """Joker 25; K, Q, J 10; 2-10 face value; ace 1."""
    if card == JOKER:
        return 25
    rank = rank_of(card)
    return 1 if rank == ACE else min(rank, 10)


def deal_points(values: list[int], knocker: int | None, out: int | None,
                culbertson: bool = False) -> tuple[list[int], list[int]]:
    """Points of one deal per seat, and the deal's winners (RULES.md 8.2).

    ``values``: hand values at the end (the out player's is 0); ``knocker``: who knocked;
    ``out``: who went out."""
    n = len(values)
    points = [0] * n
    if out is not None:
        points[out] = OUT_BONUS + sum(v for s, v in enumerate(values) if s != out)
        return points, [out]
    low = min(values)
    winners = [s for s in range(n) if values[s] == low]
    if knocker is not None and knocker in winners and len(winners) > 1:
        winners.remove(knocker)
    bonus = UNDERCUT if knocker is not None and knocker not in winners else 0
    if culbertson:
        pot = sum(values[s] for s in range(n) if s not in winners)
        for w in winners:
            points[w] = pot // len(winners) + bonus
    else:
        for w in winners:
            points[w] = sum(values[s] - values[w] for s in range(n)) + bonus
    return points, winners


def settlement(totals: list[int]) -> list[int]:
    """Each pair of players settles by the difference of their scores."""
    return [sum(t - u for u in totals) for t in totals]


class CarouselState(RummyState):
    GAME_ID = "carousel"
    HAND = 10
    options: CarouselOptions

    MELD_VARIANTS = (MELDS, CULBERTSON_MELDS)

    def variant_key(self) -> str:
        return CULBERTSON_MELDS.name if self.options.culbertson else MELDS.name

    def pack(self) -> list[int]:
        return deck(53) if self.n == 2 else deck(106)

    def card_points(self, card: int) -> int:
        return carousel_value(card)

    # -- turn structure -----------------------------------------------------------------------------
    @property
    def max_draw(self) -> int:
        return 4 if self.options.culbertson else 3

    def _may_lay(self) -> bool:
        if self.final_left is not None:
            return True
        return 1 <= self.drawn < self.max_draw

    def _verbs(self, can_lay: bool) -> list[str]:
        assert self.turn is not None
        if self.final_left is not None:
            return ["end"]
        value = self.hand_value(self.turn)
        if self.drawn == 0:
            if self.options.culbertson and value <= 10:
                return ["draw", "knock"]
            return ["draw"]
        verbs = []
        if not self.laid and self.stock:
            verbs.append("draw")
        if not self.options.culbertson and value <= 5:
            verbs.append("knock")
        if self.laid or not self.stock:
            verbs.append("end")
        return verbs

    def _apply_verb(self, verb: str) -> list[Event]:
        seat = self.turn
        assert seat is not None
        if verb == "knock":
            self.knocker = seat
            knock: KnockEvent = {"type": "knock", "seat": seat, "value": self.hand_value(seat)}
            return [knock, *self._end_deal(None)]
        if verb == "end":  # every action reports what happened, even a quiet end of turn
            end_turn: OtherEvent = {"type": "end_turn", "seat": seat}
            return [end_turn, *self._end_turn(seat)]
        events: list[Event] = [self._draw(seat, 1)]
        if self.drawn >= self.max_draw:
            events += self._end_turn(seat)
        return events

    def _after_lay(self) -> list[Event]:
        return []

    def _end_turn(self, seat: int) -> list[Event]:
        if self.final_left is not None:
            self.final_left = self.final_left[1:]
            if not self.final_left:
                return self._end_deal(None)
            self.turn = self.final_left[0]
            self.drawn = self.laid = 0
            return []
        if not self.stock:
            self.final_left = [(seat + 1 + i) % self.n for i in range(self.n)]
            self.turn = self.final_left[0]
            self.drawn = self.laid = 0
            final: FinalRoundEvent = {"type": "final_round", "last_drawer": seat, "order": list(self.final_left)}
            return [final]
        self._next_turn()
        return []

    # -- scoring ------------------------------------------------------------------------------------
    def _end_deal(self, out: int | None) -> list[Event]:
        values = [0 if s == out else self.hand_value(s) for s in range(self.n)]
        points, winners = deal_points(values, self.knocker, out, self.options.culbertson)
        for w in winners:
            self.wins[w] += 1
        self.totals = [t + p for t, p in zip(self.totals, points, strict=True)]
        self.history.append({"deal_no": self.deal_no, "dealer": self.dealer, "knocker": self.knocker,
                             "out": out, "values": values, "winners": winners, "points": points,
                             "totals": list(self.totals)})
        end: CarouselDealEnd = {"type": "deal_end", "knocker": self.knocker, "out": out, "values": values,
                                "winners": winners, "points": points, "scores": list(points),
                                "totals": list(self.totals)}
        events: list[Event] = [end]
        if max(self.totals) < self.options.target:
            return events + [self._start_deal()]
        game_bonus = [GAME_BONUS if t >= self.options.target else 0 for t in self.totals]
        hand_bonus = [0 if self.options.culbertson else HAND_BONUS * w for w in self.wins]
        self.totals = [t + g + h for t, g, h in zip(self.totals, game_bonus, hand_bonus, strict=True)]
        self.history.append({"bonus": True, "game_bonus": game_bonus, "hand_bonus": hand_bonus,
                             "points": [g + h for g, h in zip(game_bonus, hand_bonus, strict=True)],
                             "totals": list(self.totals)})
        self.phase = "over"
        self.turn = None
        over: CarouselGameOver = {"type": "game_over", "game_bonus": game_bonus, "hand_bonus": hand_bonus,
                                  "scores": self.scores(), "totals": self.scores(),
                                  "settlement": settlement(self.totals), "winners": self.winners()}
        return [*events, over]

    def sheet(self) -> dict[str, Any]:
        return {"deals": self.history, "totals": list(self.totals), "wins": list(self.wins),
                "target": self.options.target, "culbertson": self.options.culbertson,
                "settlement": settlement(self.totals) if self.phase == "over" else None}


GAME = register(Game(options=CarouselOptions, state=CarouselState))  # id, name and players: the declaration
