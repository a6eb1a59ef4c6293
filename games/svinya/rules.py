"""Свинья (Svinya, "the pig"), 2-8 players: shed your cards on the pig and on your neighbours' shops.

Rules: RULES.md (the team rules digest) section 5 (the seed is a fragment; the turn structure is the
reconstruction RULES.md approves as the default, product decision 6).

- Pack: 2-3 players use 36 cards (the pig starts with a 6), 4+ players 52 (the pig starts with a 2);
  option ``deck`` ("auto", "36", "52") overrides. A is high and is never placed anywhere.
- Set-up (automatic): the first card of the pig's base rank in the shuffled pack starts the pig.
  Each seat from 0 in turn takes the top card of the stock as its shop; a card that fits the pig must
  go on the pig (priority), and that seat takes another. An Ace may be a shop's first card.
- The pig grows upward by one rank in the suit of its base card and ends with its King; a finished pig
  is set aside and the next card of the base rank that turns up (from the stock, a reserve or a shop top
  lifted by its owner) starts a new pig. Only one pig is open at a time.
- A shop grows downward by one rank in any suit; a King goes on an Ace; nothing goes below the lowest
  rank. Cards go only on the shops of your two neighbours (one opponent with 2 players), never on your
  own. An emptied shop (see ``lift``) takes any card but an Ace.
- Priority: a card that fits the pig must go on the pig, never on a shop.
- Stock phase: on your turn you draw; the card goes on the pig if it fits, else on a neighbour's shop
  if it fits one (your choice when both fit), else you keep it face down in your reserve and your turn
  ends. After placing a card you draw again. Reserve cards are not played while the stock lasts.
- Reserve phase (stock empty): your reserve is an open hand; you must place cards (pig first) while
  you can; your turn ends when none fits. A seat with nothing to place is skipped.
- Option ``lift`` (default on, RULES 5.3.2): on your turn you may move your own shop's top card onto the
  pig when it fits (never an Ace).
- The end: when the stock runs out every player whose reserve holds only Aces (or nothing) wins; later
  the first player left with only Aces wins. If nobody can place a card any more, the fewest non-Ace
  cards win (ties share). Scores are 0 during play; at the end each seat scores minus its non-Ace
  reserve cards, so the winners have the highest total.

Seats are 0-based and clockwise; seat 0 starts. Explicit deal (``deals[0]``), either
``{"deck": [card texts, top first]}`` (the normal set-up from that order) or a position
``{"stock": [top first], "pig": [bottom..top], "pigs_done": [[...]], "shops": [[bottom..top] per seat],
"reserves": [[...] per seat], "turn": seat}`` (all keys but "stock" optional; phase follows from the stock).

Action verbs (canonical notation):
- ``draw``: take the top card of the stock (stock phase);
- ``pig C``: put C on the pig (the drawn card, or a reserve card in the reserve phase); forced when C fits;
- ``shop N C``: put C on seat N's shop (N a neighbour);
- ``keep``: the drawn card fits nowhere: keep it face down (ends the turn);
- ``lift``: move your own shop's top card onto the pig (option ``lift``);
- ``pass``: reserve phase, only when your sole moves are lifts: end your turn.
Many moves are forced; the view's ``forced`` names the only legal action (or is None) so the bot can
play it by itself.

Events: ``draw`` (seat, stock), ``pig`` (seat, card, source: stock|reserve|shop, new), ``pig_done`` (suit,
cards), ``shop`` (seat, target, card, source), ``keep`` (seat), ``pass`` (seat), ``stock_out``,
``game_over`` (scores, winners, reason: only_aces|blocked).
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from pydantic import Field, field_validator
from typing_extensions import TypedDict

from engine.cards import ACE, CARD_TEXT, KING, SUITS, CardError, card_str, cards_str, deck, parse_card, rank_of, suit_of
from engine.core import Event, Game, GameError, Options, State, ViewPart, deal_rng, register
from engine.events import DrawEvent, GameOverEvent, OtherEvent

PHASES = ("draw", "place", "reserve", "over")


class SvinyaDraw(DrawEvent):
    stock: int  # cards left in the stock


class ShopEvent(OtherEvent):
    """``type`` "shop": ``seat`` put ``card`` (from ``source``) on seat ``target``'s shop."""

    target: int
    card: str
    source: str


class PigEvent(OtherEvent):
    """``type`` "pig": ``seat`` put ``card`` on the pig (``new``: it started one)."""

    card: str
    source: str
    new: bool


class PigDoneEvent(OtherEvent):
    """``type`` "pig_done": a king closed the pig of ``suit``."""

    suit: str
    cards: list[str]


class SvinyaGameOver(GameOverEvent):
    reason: str  # "only_aces" or "blocked"


class PigView(TypedDict):
    suit: str
    cards: list[str]


class ShopView(TypedDict):
    top: str | None
    size: int


class SvinyaView(ViewPart):
    turn: int | None
    base: int
    deck_size: int
    stock: int
    pig: PigView | None
    pigs_done: list[str]
    shops: list[ShopView]
    pending: bool
    neighbours: list[list[int]]
    forced: str | None
    winners: list[int]
    drawn: NotRequired[str | None]  # a seated viewer: the card it drew, while it places it
    reserves: NotRequired[list[list[str]]]  # every reserve, once the game is over


class SvinyaOptions(Options):
    """House rules; defaults follow RULES.md 5.2-5.3."""

    deck: Literal["auto", "36", "52"] = Field(
        "auto", description="auto: 36 cards (pig from a 6) for 2-3 players, 52 (pig from a 2) for 4+")
    lift: bool = Field(True, description="a player may move his own shop's top card onto the pig when it fits")

    @field_validator("deck", mode="before")
    @classmethod
    def _deck_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) else value


def deck_size(option: str, players: int) -> int:
    """The pack for this table: RULES 5.3.5 (36 for 2-3 players, 52 for 4+) unless the option says."""
    if option == "auto":
        return 36 if players <= 3 else 52
    return int(option)


def fits_shop(card: int, shop: list[int]) -> bool:
    """Downward by one rank in any suit; a King on an Ace; an Ace never; an empty shop takes any other card."""
    rank = rank_of(card)
    if rank == ACE:
        return False
    if not shop:
        return True
    top = rank_of(shop[-1])
    return rank == KING if top == ACE else rank == top - 1


def fits_pig(card: int, pig: list[int], base: int) -> bool:
    """Upward by one rank in the pig's suit; with no open pig, a card of the base rank starts one."""
    rank = rank_of(card)
    if rank == ACE:
        return False
    if not pig:
        return rank == base
    top = pig[-1]
    return suit_of(card) == suit_of(top) and rank == rank_of(top) + 1


def neighbours(seat: int, n: int) -> list[int]:
    """The seats whose shops ``seat`` may use: left and right, one opponent at a table of two."""
    return sorted({(seat - 1) % n, (seat + 1) % n})


def _parse_list(texts: Any, what: str) -> list[int]:
    if not isinstance(texts, list):
        raise GameError(f"explicit deal: {what} must be a list of cards")
    try:
        return [parse_card(t) for t in texts]
    except (CardError, AttributeError) as exc:
        raise GameError(f"explicit deal: {what}: {exc}") from None


def _places(keys: list[tuple[int, ...]]) -> list[int]:
    """Competition ranking (1, 2, 2, 4) of seats by ``keys`` (smaller is better)."""
    return [1 + sum(1 for other in keys if other < key) for key in keys]


class SvinyaState(State):
    GAME_ID = "svinya"
    FIELDS = ("base", "size", "stock", "pig", "pigs_done", "shops", "reserves", "pending", "turn", "phase",
              "idle", "moved", "winner_seats", "reason", "moves", "all_cards")

    options: SvinyaOptions
    base: int
    size: int
    stock: list[int]  # the top card is the LAST item
    pig: list[int]
    pigs_done: list[list[int]]
    shops: list[list[int]]
    reserves: list[list[int]]
    pending: int | None
    turn: int
    phase: str
    idle: int
    moved: bool
    winner_seats: list[int]
    reason: str | None
    moves: int
    all_cards: list[int]

    # -- set-up ------------------------------------------------------------------
    def _setup(self) -> None:
        n = self.n
        self.size = deck_size(self.options.deck, n)
        self.base = 6 if self.size == 36 else 2
        self.pig, self.pigs_done, self.pending = [], [], None
        self.shops = [[] for _ in range(n)]
        self.reserves = [[] for _ in range(n)]
        self.turn, self.phase, self.idle, self.moved = 0, "draw", 0, False
        self.winner_seats, self.reason, self.moves = [], None, 0
        explicit = self.deals[0] if self.deals else None
        if explicit is not None and "stock" in explicit:
            self._setup_position(explicit)
        else:
            if explicit is not None:
                order = _parse_list(explicit.get("deck"), "deck")
            else:
                order = deck(self.size)
                deal_rng(self.seed, 0).shuffle(order)
            self._setup_from(order)
        self.all_cards = sorted(self._every_card())
        if len(set(self.all_cards)) != len(self.all_cards):
            raise GameError("explicit deal: a card appears twice")
        if not self.stock and self.phase != "over":
            self._stock_out([], continuing=False, first=self.turn)

    def _setup_from(self, order: list[int]) -> None:
        """The seed's set-up: the pig's first card, then one shop card per seat (pig priority applies)."""
        self.stock = list(reversed(order))
        base_at = [i for i, c in enumerate(self.stock) if rank_of(c) == self.base]
        if not base_at:
            raise GameError(f"explicit deal: no card of rank {self.base} to start the pig")
        self.pig = [self.stock.pop(base_at[-1])]
        for seat in range(self.n):
            while self.stock:
                card = self.stock.pop()
                if fits_pig(card, self.pig, self.base):
                    self._to_pig(card, [])
                    continue
                self.shops[seat].append(card)
                break

    def _setup_position(self, data: dict[str, Any]) -> None:
        n = self.n
        if "base" in data:
            self.base = int(data["base"])
        self.stock = list(reversed(_parse_list(data["stock"], "stock")))
        self.pig = _parse_list(data.get("pig", []), "pig")
        self.pigs_done = [_parse_list(p, "pigs_done") for p in data.get("pigs_done", [])]
        for key in ("shops", "reserves"):
            rows = data.get(key, [[] for _ in range(n)])
            if not isinstance(rows, list) or len(rows) != n:
                raise GameError(f"explicit deal: {key} needs one list per seat ({n})")
            setattr(self, key, [_parse_list(row, key) for row in rows])
        self.turn = int(data.get("turn", 0)) % n

    def _every_card(self) -> list[int]:
        cards = list(self.stock) + list(self.pig)
        for group in (self.pigs_done, self.shops, self.reserves):
            for pile in group:
                cards.extend(pile)
        if self.pending is not None:
            cards.append(self.pending)
        return cards

    # -- rules helpers ---------------------------------------------------------------
    def _fits_pig(self, card: int) -> bool:
        return fits_pig(card, self.pig, self.base)

    def _can_lift(self, seat: int) -> bool:
        shop = self.shops[seat]
        return bool(self.options.lift and shop and self._fits_pig(shop[-1]))

    def _placements(self, seat: int) -> list[str]:
        """Reserve-phase placements of ``seat``: a card that fits the pig may only go there."""
        out: list[str] = []
        for card in sorted(set(self.reserves[seat]), key=lambda c: (rank_of(c), suit_of(c))):
            text = card_str(card)
            if self._fits_pig(card):
                out.append(f"pig {text}")
                continue
            for target in neighbours(seat, self.n):
                if fits_shop(card, self.shops[target]):
                    out.append(f"shop {target} {text}")
        return out

    def _has_move(self, seat: int) -> bool:
        return bool(self._placements(seat)) or self._can_lift(seat)

    def _only_aces(self, seat: int) -> bool:
        return all(rank_of(c) == ACE for c in self.reserves[seat])

    def non_aces(self) -> list[int]:
        return [sum(1 for c in r if rank_of(c) != ACE) for r in self.reserves]

    # -- the contract -------------------------------------------------------------------
    def _to_act(self) -> int | None:
        return None if self.phase == "over" else self.turn

    def _legal(self) -> list[str]:
        seat = self.turn
        if self.phase == "draw":
            return ["draw", "lift"] if self._can_lift(seat) else ["draw"]
        if self.phase == "place":
            card = self.pending
            assert card is not None
            text = card_str(card)
            if self._fits_pig(card):
                return [f"pig {text}"]
            shops = [f"shop {t} {text}" for t in neighbours(seat, self.n) if fits_shop(card, self.shops[t])]
            return shops or ["keep"]
        placements = self._placements(seat)
        if self._can_lift(seat):
            return [*placements, "lift"] if placements else ["lift", "pass"]
        return placements

    def why_illegal(self, action: str) -> str:
        words = action.split()
        verb = words[0] if words else ""
        seat = self.turn
        if verb in ("pig", "shop") and len(words) >= 2:
            try:
                card = parse_card(words[-1])
            except CardError:
                return f"{words[-1]!r} is not a card"
            if self.phase == "draw":
                return "draw a card first"
            if self.phase == "place" and card != self.pending:
                return "you may only place the card you drew (reserve cards wait until the stock is empty)"
            if self.phase == "reserve" and card not in self.reserves[seat]:
                return "that card is not in your reserve"
            if verb == "pig":
                return "that card does not fit the pig (same suit, one rank higher)"
            if self._fits_pig(card):
                return "a card that fits the pig must go on the pig"
            if len(words) == 3 and words[1].isdigit() and int(words[1]) not in neighbours(seat, self.n):
                return "you may only use your neighbours' shops"
            return "that card does not fit that shop (one rank lower, a King on an Ace, never an Ace)"
        if verb == "lift":
            if not self.options.lift:
                return "lifting is off at this table (option lift)"
            return "your shop's top card does not fit the pig"
        if verb == "keep":
            return "the card must be placed: it fits the pig or a neighbour's shop"
        if verb == "pass":
            return "you must place a card while one fits"
        if verb == "draw":
            return "the stock is empty" if not self.stock else "place the drawn card first"
        return "not a legal action now"

    def _apply(self, action: str) -> list[Event]:
        seat = self.turn
        words = action.split()
        verb = words[0]
        events: list[Event] = []
        self.moves += 1
        if verb == "draw":
            self.pending = self.stock.pop()
            self.phase = "place"
            draw: SvinyaDraw = {"type": "draw", "seat": seat, "stock": len(self.stock)}
            return [draw]
        if verb == "keep":
            assert self.pending is not None
            self.reserves[seat].append(self.pending)
            self.pending = None
            events.append({"type": "keep", "seat": seat})
            if self.stock:
                self.turn = (seat + 1) % self.n
                self.phase = "draw"
            else:
                self._stock_out(events, continuing=False)
            return events
        if verb == "pass":
            events.append({"type": "pass", "seat": seat})
            self._end_turn(events)
            return events
        if verb == "lift":
            card = self.shops[seat].pop()
            self._to_pig(card, events, seat, "shop")
        else:
            card = parse_card(words[-1])
            if self.phase == "place":
                source = "stock"
                self.pending = None
            else:
                source = "reserve"
                self.reserves[seat].remove(card)
            if verb == "pig":
                self._to_pig(card, events, seat, source)
            else:
                target = int(words[1])
                self.shops[target].append(card)
                shop: ShopEvent = {"type": "shop", "seat": seat, "target": target, "card": card_str(card),
                                   "source": source}
                events.append(shop)
        self.moved = True
        self._continue(events)
        return events

    # -- flow ---------------------------------------------------------------------------
    def _to_pig(self, card: int, events: list[Event], seat: int | None = None, source: str = "setup") -> None:
        new = not self.pig
        self.pig.append(card)
        if seat is not None:
            pig: PigEvent = {"type": "pig", "seat": seat, "card": card_str(card), "source": source, "new": new}
            events.append(pig)
        if rank_of(card) == KING:
            done: PigDoneEvent = {"type": "pig_done", "suit": SUITS[suit_of(card)], "cards": cards_str(self.pig)}
            events.append(done)
            self.pigs_done.append(self.pig)
            self.pig = []

    def _continue(self, events: list[Event]) -> None:
        """After a card moved for the seat to act: its turn goes on while it can."""
        seat = self.turn
        if self.phase in ("draw", "place"):
            if self.stock:
                self.phase = "draw"
            else:
                self._stock_out(events, continuing=True)
            return
        if self._only_aces(seat):
            self._finish([seat], "only_aces", events)
        elif not self._has_move(seat):
            self._end_turn(events)

    def _stock_out(self, events: list[Event], continuing: bool, first: int | None = None) -> None:
        """The stock is empty: reserves become open hands (or the game is won already). The seat to act
        goes on if ``continuing`` and it can; else the turn passes on (to ``first`` or later, if given)."""
        events.append({"type": "stock_out"})
        self.phase = "reserve"
        self.pending = None
        self.idle = 0
        winners = [s for s in range(self.n) if self._only_aces(s)]
        if winners:
            self._finish(winners, "only_aces", events)
        elif not (continuing and self._has_move(self.turn)):
            self.moved = False
            self._next_turn(events, self.turn if first is None else (first - 1) % self.n)

    def _end_turn(self, events: list[Event]) -> None:
        self.idle = 0 if self.moved else self.idle + 1
        self._next_turn(events, self.turn)

    def _next_turn(self, events: list[Event], seat: int) -> None:
        """Give the turn to the next seat that can move; ``n`` idle turns in a row end the game."""
        self.moved = False
        while self.idle < self.n:
            seat = (seat + 1) % self.n
            if self._has_move(seat):
                self.turn = seat
                return
            self.idle += 1
        fewest = min(self.non_aces())
        self._finish([s for s, k in enumerate(self.non_aces()) if k == fewest], "blocked", events)

    def _finish(self, winners: list[int], reason: str, events: list[Event]) -> None:
        self.phase = "over"
        self.winner_seats = winners
        self.reason = reason
        over: SvinyaGameOver = {"type": "game_over", "scores": self.scores(), "totals": self.scores(),
                                "winners": list(winners), "reason": reason}
        events.append(over)

    # -- views and results --------------------------------------------------------------------
    def _view(self, seat: int | None) -> SvinyaView:
        legal = self.legal_actions()
        view: SvinyaView = {
            "phase": self.phase,
            "turn": None if self.phase == "over" else self.turn,
            "base": self.base,
            "deck_size": self.size,
            "stock": len(self.stock),
            "pig": {"suit": SUITS[suit_of(self.pig[0])], "cards": cards_str(self.pig)} if self.pig else None,
            "pigs_done": [SUITS[suit_of(p[0])] for p in self.pigs_done],
            "shops": [{"top": card_str(s[-1]) if s else None, "size": len(s)} for s in self.shops],
            "hand_counts": [len(r) for r in self.reserves],
            "pending": self.pending is not None,
            "neighbours": [neighbours(s, self.n) for s in range(self.n)],
            "forced": legal[0] if len(legal) == 1 else None,
            "winners": list(self.winner_seats),
        }
        if seat is not None:
            view["hand"] = cards_str(sorted(self.reserves[seat], key=lambda c: (suit_of(c), -rank_of(c))))
            view["drawn"] = card_str(self.pending) if self.pending is not None and seat == self.turn else None
        if self.phase == "over":
            view["reserves"] = [cards_str(r) for r in self.reserves]
        return view

    def scores(self) -> list[int]:
        if self.phase != "over":
            return [0] * self.n
        return [-k for k in self.non_aces()]

    def places(self) -> list[int]:
        non_aces = self.non_aces()
        return _places([(0 if s in self.winner_seats else 1, non_aces[s]) for s in range(self.n)])

    def sheet(self) -> dict[str, Any]:
        sheet: dict[str, Any] = {"moves": self.moves, "deck": self.size, "pigs_done": len(self.pigs_done),
                                 "deals": []}
        if self.phase == "over":
            sheet["deals"].append({
                "dealer": None,
                "first": 0,
                "reason": self.reason,
                "reserves": [cards_str(r) for r in self.reserves],
                "non_aces": self.non_aces(),
                "aces": [len(r) - k for r, k in zip(self.reserves, self.non_aces(), strict=True)],
                "places": self.places(),
                "winners": list(self.winner_seats),
                "points": self.scores(),
            })
        return sheet

    def check_invariants(self) -> None:
        assert self.phase in PHASES, f"unknown phase {self.phase!r}"
        cards = self._every_card()
        assert sorted(cards) == self.all_cards, "cards appeared or vanished"
        assert len(set(cards)) == len(cards), "a card is in two places"
        if self.pig:
            assert rank_of(self.pig[0]) == self.base, f"the pig starts with {card_str(self.pig[0])}"
            assert rank_of(self.pig[-1]) != KING, "a finished pig was not set aside"
            for low, high in zip(self.pig, self.pig[1:], strict=False):
                assert suit_of(high) == suit_of(low) and rank_of(high) == rank_of(low) + 1, \
                    f"pig out of order: {cards_str(self.pig)}"
        for done in self.pigs_done:
            suit = suit_of(done[0])
            assert [rank_of(c) for c in done] == list(range(self.base, KING + 1)), f"bad pig {cards_str(done)}"
            assert all(suit_of(c) == suit for c in done), f"mixed pig {cards_str(done)}"
        for shop in self.shops:
            for i in range(1, len(shop)):
                assert fits_shop(shop[i], shop[:i]), f"shop out of order: {cards_str(shop)}"
        assert (self.pending is not None) == (self.phase == "place"), "drawn card and phase disagree"
        if self.phase in ("draw", "place"):
            assert self.stock or self.pending is not None, "stock phase without a stock"
        else:
            assert not self.stock, "reserve phase with cards in the stock"
        if self.phase == "over":
            assert self.winner_seats, "game over without a winner"
            non_aces = self.non_aces()
            best = min(non_aces)
            assert all(non_aces[w] == best for w in self.winner_seats), "a winner holds more than the fewest"
        else:
            assert not self.winner_seats
            assert 0 <= self.idle < self.n
            if self.phase == "reserve":
                assert self._has_move(self.turn), "a seat without a move is to act"


# Fast path (engine.core): fixed small action codes, the same in every process: the four words 0..3,
# ``pig C`` 256 + C, ``shop T C`` 1024 + 128 * T + C. The legal sets and the step stay the text ones.
for _i, _word in enumerate(("draw", "lift", "keep", "pass")):
    SvinyaState.ACTIONS.fix(_i, _word)
for _card, _text in CARD_TEXT.items():
    SvinyaState.ACTIONS.fix(256 + _card, f"pig {_text}")
    for _seat in range(8):
        SvinyaState.ACTIONS.fix(1024 + 128 * _seat + _card, f"shop {_seat} {_text}")


GAME = register(Game(options=SvinyaOptions, state=SvinyaState))  # id, name and players: the declaration
