"""Пьяница (Pyanitsa, "Drunkard"), 2-8 players: the Russian War; nobody decides anything.

Rules: RULES.md (the team rules digest) section 6 and product decision 5.

- Pack: 32 cards (7-A) for 2 players, 36 (6-A) for 3, 52 for 4+ (option ``deck``: "auto", "32", "36",
  "52"). The whole pack is dealt face down in equal shares; a remainder is set aside (out of play).
  Suits do not matter; A is high.
- A round: every player with cards turns the top card of his pile, the dealer (seat 0) first, then
  clockwise. The highest card takes every card on the table to the bottom of its owner's pile. The seed
  does not say in which order; by default (option ``gather``: "shuffled") the taken cards go under the
  pile in a random order drawn from the seed (round ``k`` uses ``deal_rng(seed, k)``), as hands gathering
  cards do; "in_order" keeps the order they were turned, which makes endless loops common (the round cap
  then decides).
- Tie for the highest: if the tied cards are Aces, the Ace turned first wins. Otherwise the tied players
  turn one more card each (a "war", in the same order) and the highest of these takes everything; if the
  war ties again, the earliest of the tied players wins (RULES 6.3.2, so every round ends). A tied player
  with no card left cannot fight the war; if only one can, he takes the table; if none can, the first of
  the tied players does.
- Option ``winner``: "first_out" (the seed, the default): after a round, the player(s) with no card left
  win and the game ends. "collects_all": a player with no card is out; the last one holding cards wins.
- Option ``max_rounds`` (default 1000): when that many rounds are over, card counts decide: the fewest
  cards win under first_out, the most under collects_all (ties share).

Scores are live card counts: minus the pile size under first_out, the pile size under collects_all, so the
highest total wins either way. Explicit deal (``deals[0]``): ``{"piles": [[card texts, top first] per seat],
"aside": [...]}``.

Action verb: ``flip`` (the only one): the seat to act turns its top card. ``to_act`` runs through the
players who still have to turn a card this round (or this war), so the bot can give each player a button
or call ``flip`` itself.

Events: ``flip`` (seat, card, war), ``war`` (seats, rank, fighters), ``round`` (round, cards, war, winner,
taken, counts), ``out`` (seats), ``game_over`` (scores, winners, reason: first_out|collects_all|cap, places).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator
from typing_extensions import TypedDict

from engine.cards import ACE, JOKER, RANK_NAMES, CardError, card_str, deck, parse_card, rank_of
from engine.core import Event, Game, GameError, Options, State, ViewPart, deal_rng, register
from engine.events import GameOverEvent, OtherEvent


class FlipEvent(OtherEvent):
    """``type`` "flip": ``seat`` turned ``card`` (``war``: face down, in a war)."""

    card: str
    war: bool


class WarEvent(OtherEvent):
    """``type`` "war": ``seats`` tied on ``rank``; ``fighters`` still have cards to fight with."""

    seats: list[int]
    rank: str
    fighters: list[int]


class TurnedCard(TypedDict):
    seat: int
    card: str
    war: bool


class RoundEvent(OtherEvent):
    """``type`` "round": ``winner`` took the ``taken`` cards turned this round."""

    round: int
    cards: list[TurnedCard]
    war: bool
    winner: int
    taken: int
    counts: list[int]


class OutEvent(OtherEvent):
    """``type`` "out": ``seats`` ran out of cards (collects_all)."""

    seats: list[int]


class PyanitsaGameOver(GameOverEvent):
    reason: str  # first_out, collects_all or cap
    places: list[int]


class PyanitsaView(ViewPart):
    round: int
    max_rounds: int
    winner_rule: str
    table: list[TurnedCard]
    to_flip: list[int]
    last_round: RoundEvent | None
    aside: int
    out: list[list[int]]
    wars: int
    forced: str | None
    winners: list[int]


class PyanitsaOptions(Options):
    """House rules; defaults follow the seed and RULES.md 6.3."""

    deck: Literal["auto", "32", "36", "52"] = Field(
        "auto", description="auto: 32 cards for 2 players, 36 for 3, 52 for 4 or more")
    winner: Literal["first_out", "collects_all"] = Field(
        "first_out", description="first_out: the first to run out of cards wins; collects_all: the last holder")
    max_rounds: int = Field(1000, ge=1, le=100_000, description="rounds before card counts decide")
    gather: Literal["shuffled", "in_order"] = Field(
        "shuffled", description="how the taker puts the won cards under his pile: in no set order, or as turned")
    flip: Literal["auto", "button"] = Field(
        "auto", description="auto: the table turns the cards by itself; button: each player presses Flip "
                            "(a table setting for the bot: the rules are the same either way)")

    @field_validator("deck", mode="before")
    @classmethod
    def _deck_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) else value


def deck_size(option: str, players: int) -> int:
    """RULES 6.2/6.3.1: 32 for two, 36 for three, 52 for four or more, unless the option says."""
    if option == "auto":
        return {2: 32, 3: 36}.get(players, 52)
    return int(option)


def _places(keys: list[tuple[int, ...]]) -> list[int]:
    """Competition ranking (1, 2, 2, 4) of seats by ``keys`` (smaller is better)."""
    return [1 + sum(1 for other in keys if other < key) for key in keys]


class PyanitsaState(State):
    GAME_ID = "pyanitsa"
    FIELDS = ("size", "piles", "aside", "table", "queue", "stage", "rounds", "wars", "won", "out", "winner_seats",
              "reason", "last", "all_cards")

    options: PyanitsaOptions
    size: int
    piles: list[list[int]]  # the top card is the FIRST item
    aside: list[int]
    table: list[list[int]]  # [seat, card, 1 if turned in a war else 0], in the order turned
    queue: list[int]  # seats still to turn a card in this stage, the seat to act first
    stage: str  # "flip", "war" or "over"
    rounds: int  # rounds finished
    wars: int
    won: list[int]  # rounds taken per seat
    out: list[list[int]]  # collects_all: the seats that ran out, round by round
    winner_seats: list[int]
    reason: str | None
    last: RoundEvent | None  # the last finished round, as its event
    all_cards: list[int]

    def _setup(self) -> None:
        n = self.n
        self.size = deck_size(self.options.deck, n)
        explicit = self.deals[0] if self.deals else None
        if explicit is not None:
            self._setup_explicit(explicit)
        else:
            cards = deck(self.size)
            deal_rng(self.seed, 0).shuffle(cards)
            share = len(cards) // n
            self.piles = [cards[s * share:(s + 1) * share] for s in range(n)]
            self.aside = cards[n * share:]
        self.table, self.queue, self.stage = [], [], "flip"
        self.all_cards = sorted(self._every_card())
        self.rounds, self.wars, self.won, self.out = 0, 0, [0] * n, []
        self.winner_seats, self.reason, self.last = [], None, None
        if sum(1 for p in self.piles if p) < 2:
            raise GameError("explicit deal: at least two players need cards")
        if self.options.winner == "first_out" and not all(self.piles):
            raise GameError("explicit deal: under winner=first_out every player needs cards")
        self._start_round()

    def _setup_explicit(self, data: dict[str, Any]) -> None:
        piles = data.get("piles")
        if not isinstance(piles, list) or len(piles) != self.n:
            raise GameError(f"explicit deal: piles needs one list per seat ({self.n})")
        try:
            self.piles = [[parse_card(t) for t in pile] for pile in piles]
            self.aside = [parse_card(t) for t in data.get("aside", [])]
        except (CardError, TypeError, AttributeError) as exc:
            raise GameError(f"explicit deal: {exc}") from None
        seen: set[int] = set()
        for card in [c for pile in self.piles for c in pile] + self.aside:  # a plain pack: no joker, no card twice
            if card >= JOKER:
                raise GameError(f"explicit deal: piles: {card_str(card)} is a joker: Pyanitsa has none")
            if card in seen:
                raise GameError(f"explicit deal: piles: {card_str(card)} appears twice")
            seen.add(card)

    def _every_card(self) -> list[int]:
        cards = list(self.aside) + [card for _, card, _ in self.table]
        for pile in self.piles:
            cards.extend(pile)
        return cards

    # -- the contract --------------------------------------------------------------------
    def _to_act(self) -> int | None:
        return None if self.stage == "over" else self.queue[0]

    def _legal(self) -> list[str]:
        return ["flip"]

    def why_illegal(self, action: str) -> str:
        return "the only move in Pyanitsa is flip"

    def _apply(self, action: str) -> list[Event]:
        seat = self.queue.pop(0)
        card = self.piles[seat].pop(0)
        war = 1 if self.stage == "war" else 0
        self.table.append([seat, card, war])
        flip: FlipEvent = {"type": "flip", "seat": seat, "card": card_str(card), "war": bool(war)}
        events: list[Event] = [flip]
        if not self.queue:
            self._resolve(events)
        return events

    # -- flow -----------------------------------------------------------------------------
    def _start_round(self) -> None:
        self.stage = "flip"
        self.table = []
        self.queue = [s for s in range(self.n) if self.piles[s]]  # the dealer, seat 0, turns first

    def _resolve(self, events: list[Event]) -> None:
        """Every card of this stage is turned: find the taker, or call a war."""
        war = 1 if self.stage == "war" else 0
        turned = [(seat, card) for seat, card, w in self.table if w == war]
        top = max(rank_of(card) for _, card in turned)
        tied = [seat for seat, card in turned if rank_of(card) == top]
        if len(tied) == 1 or war or top == ACE:
            winner = tied[0]  # a single best card, the earlier Ace, or the earlier player after a war
        else:
            self.wars += 1
            fighters = [s for s in tied if self.piles[s]]
            called: WarEvent = {"type": "war", "seats": tied, "rank": RANK_NAMES[top], "fighters": fighters}
            events.append(called)
            if len(fighters) >= 2:
                self.stage = "war"
                self.queue = fighters
                return
            winner = fighters[0] if fighters else tied[0]
        self._take(winner, events)

    def _take(self, winner: int, events: list[Event]) -> None:
        cards = [card for _, card, _ in self.table]
        if self.options.gather == "shuffled":
            deal_rng(self.seed, self.rounds + 1).shuffle(cards)
        self.piles[winner].extend(cards)
        self.rounds += 1
        self.won[winner] += 1
        event: RoundEvent = {
            "type": "round", "round": self.rounds,
            "cards": [{"seat": s, "card": card_str(c), "war": bool(w)} for s, c, w in self.table],
            "war": any(w for _, _, w in self.table), "winner": winner, "taken": len(cards),
            "counts": [len(p) for p in self.piles],
        }
        events.append(event)
        self.last = event
        self.table = []
        self.queue = []
        counts = [len(p) for p in self.piles]
        if self.options.winner == "first_out":
            empty = [s for s in range(self.n) if not counts[s]]
            if empty:
                self._finish(empty, "first_out", events)
                return
        else:
            gone = {s for group in self.out for s in group}
            newly = [s for s in range(self.n) if not counts[s] and s not in gone]
            if newly:
                self.out.append(newly)
                out: OutEvent = {"type": "out", "seats": newly}
                events.append(out)
            holders = [s for s in range(self.n) if counts[s]]
            if len(holders) == 1:
                self._finish(holders, "collects_all", events)
                return
        if self.rounds >= self.options.max_rounds:
            keyed = counts if self.options.winner == "collects_all" else [-k for k in counts]
            best = max(keyed)
            self._finish([s for s in range(self.n) if keyed[s] == best], "cap", events)
            return
        self._start_round()

    def _finish(self, winners: list[int], reason: str, events: list[Event]) -> None:
        self.stage = "over"
        self.winner_seats = winners
        self.reason = reason
        over: PyanitsaGameOver = {"type": "game_over", "scores": self.scores(), "totals": self.scores(),
                                  "winners": list(winners), "reason": reason, "places": self.places()}
        events.append(over)

    # -- views and results -----------------------------------------------------------------
    def scores(self) -> list[int]:
        counts = [len(p) for p in self.piles]
        return counts if self.options.winner == "collects_all" else [-k for k in counts]

    def places(self) -> list[int]:
        """First the winners, then by cards (fewer under first_out, more under collects_all), then
        under collects_all the later a player ran out the better."""
        n = self.n
        counts = [len(p) for p in self.piles]
        out_at = {s: i for i, group in enumerate(self.out) for s in group}
        keys: list[tuple[int, ...]]
        if self.options.winner == "first_out":
            keys = [(0 if s in self.winner_seats else 1, counts[s]) for s in range(n)]
        else:
            keys = [(0 if s in self.winner_seats else 1, -counts[s], -out_at.get(s, len(self.out))) for s in range(n)]
        return _places(keys)

    def _view(self, seat: int | None) -> PyanitsaView:
        return {
            "phase": self.stage,
            "round": self.rounds + (0 if self.stage == "over" else 1),
            "max_rounds": self.options.max_rounds,
            "winner_rule": self.options.winner,
            "dealer": 0,
            "hand_counts": [len(p) for p in self.piles],
            "table": [{"seat": s, "card": card_str(c), "war": bool(w)} for s, c, w in self.table],
            "to_flip": list(self.queue),
            "last_round": self.last,
            "aside": len(self.aside),
            "out": [list(g) for g in self.out],
            "wars": self.wars,
            "forced": None if self.stage == "over" else "flip",
            "winners": list(self.winner_seats),
        }

    def sheet(self) -> dict[str, Any]:
        sheet: dict[str, Any] = {"rounds": self.rounds, "wars": self.wars, "counts": [len(p) for p in self.piles],
                                 "rounds_won": list(self.won), "deals": []}
        if self.stage == "over":
            sheet["deals"].append({
                "dealer": 0, "rounds": self.rounds, "wars": self.wars, "reason": self.reason,
                "counts": [len(p) for p in self.piles], "rounds_won": list(self.won),
                "out": [list(g) for g in self.out], "places": self.places(), "winners": list(self.winner_seats),
                "points": self.scores(),
            })
        return sheet

    def check_invariants(self) -> None:
        cards = self._every_card()
        assert sorted(cards) == self.all_cards, "cards appeared or vanished"
        assert self.rounds <= self.options.max_rounds, "played past the round cap"
        if self.stage == "over":
            assert self.winner_seats and not self.queue and not self.table
            return
        assert self.stage in ("flip", "war") and self.queue, "nobody to act in a running game"
        assert all(self.piles[s] for s in self.queue), "a seat without cards is to turn one"
        assert len(set(self.queue)) == len(self.queue)
        assert not self.winner_seats
        if self.options.winner == "first_out":
            turned = {s for s, _, _ in self.table}
            assert all(self.piles[s] or s in turned for s in range(self.n)), "an empty pile in a running game"
        if self.stage == "war":
            assert any(w for _, _, w in self.table) or self.queue, "war without fighters"


# Fast path (engine.core): the one action, ``flip``, is the int 0.
PyanitsaState.ACTIONS.fix(0, "flip")


GAME = register(Game(options=PyanitsaOptions, state=PyanitsaState))  # id, name and players: the declaration
