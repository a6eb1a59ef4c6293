"""Karusele (Karuselė): the Lithuanian fishing game of seed 003, part 1 (RULES.md section 7).

2-4 players (option ``teams``: 2 v 2, partners opposite, shared pile; 4 players only), the
56-card pack: 52 + jokers J11, J15, J20 + the broom BR. Values: A = 1, 2..10 face value,
jokers 11/15/20; J Q K have no value. Each deal: 4 cards each and 8 face up (a joker or the
broom turned up goes back into the middle of the stock and is replaced); when every hand is
empty, 4 more each until the stock is out. Seat left of the dealer starts; each turn one hand
card is played: a capture, a build or a trail. At the end the last capturer takes the table.

Actions (canonical text; cards in ``engine.cards`` notation):

- ``take H G1 G2 ...``: hand card ``H`` captures the groups ``G``. A group is one card (``6D``),
  loose cards summing to H's value (``AH+5C``, sorted by value then suit) or a build in
  parentheses (``(AH+5C)``, stacking order). Groups are sorted: single cards, builds, sums
  (by size). A court card takes one court of its rank (``take JS JD``) or all three
  (``take JS JD JH JC``). A number card takes every table card or build equal to its value,
  plus any disjoint sum groups the player chooses (at least one group or equal card in all);
  it need not take every group that fits (a product decision, over RULES.md 7.3).
  Legality is checked on the cards written (``_karusele_moves.read_take``), in any order and
  grouping; single loose cards written apart are grouped by the engine. A set of cards is one
  move: ``act`` applies it under its canonical text.
- ``sweep BR``: the broom takes the whole table (nothing, if it is empty); never trailed.
- ``build H B [X1 X2 ...]``: place number card H on the base ``B`` (a number card ``5S`` or a
  build ``(AH+5C)``), making a build of total T = value(H) + value(B); the player must hold
  another card of value T. Optional extra groups ``X`` of loose cards summing to T become
  more builds of T at once (the seed's 4+6 and 5+5 example: ``build 5H 5S 4D+6C``); when
  any are grouped, every group that fits is (saturated, as with captures). Raising a build
  is allowed to anyone holding the new total; the build's owner becomes the raiser.
- ``trail H``: put H face up on the table.

Builds count as one card of their total and are taken only whole, by a card of that value
(never as part of a sum). Their builder can only take them on a later turn, which the
one-card-per-turn structure already guarantees.

``legal_actions()`` is a *sample* for Karusele (``_karusele_moves.legal_sample``): every trail,
sweep, court capture and plain build, but only the largest captures of each hand card and a few
multi-builds. ``act`` and ``is_legal`` accept every legal move, listed or not; a refusal's
``IllegalAction`` carries ``template`` and ``params`` (the bot translates the template).

Scoring per deal (per side: a seat, or a partnership): J20 10, J15 5, J11 3, 10D 2, 2S 2,
most spades 2 and most cards 2 (two-way tie 1 each, three or more tied: nobody), 1 per spade
(option ``point_per``: ``ace`` scores 1 per ace instead): 39 per deal (30 with aces).
Deals go on until a side reaches ``target`` (120) with a strictly higher total than every
other side; an exact tie at the top plays another deal.

View: ``phase``, ``hand`` (own), ``hand_counts``, ``dealer``, ``deal_no``, ``table`` (items
``{"cards": [...], "value": v}``, builds add ``"build": true, "owner": seat, "since_turn": n``,
n = the deal's move number when it was made or last raised), ``stock_count``, ``captured``
(per seat: cards, spades, aces, specials, the side's points if the deal ended now),
``last_capturer``, ``teams``, ``target``, ``point_per``, ``sheet``. The words for people (an action
as text) are the bot's: ``games/karusele/present.py``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Literal, NotRequired

from pydantic import Field
from typing_extensions import TypedDict

from engine.cards import (
    BROOM,
    JOKER11,
    JOKER15,
    JOKER20,
    card_str,
    cards_str,
    deck,
    is_joker,
    make,
    parse_card,
    parse_cards,
    rank_of,
    sort_key,
    suit_of,
)
from engine.core import (
    Event,
    Game,
    GameError,
    IllegalAction,
    Options,
    State,
    TurnIsCurrent,
    ViewPart,
    deal_rng,
    explicit_stock,
    register,
    shuffle,
)
from engine.events import DealEndEvent, DealEvent, OtherEvent
from games.karusele.moves import (
    Item,
    Refusal,
    is_build,
    item_value,
    legal_sample,
    parse,
    parsed_move,
    read_build,
    read_take,
    value,
)

DECK = 56
HAND = 4
TABLE = 8
ACE = 14
TEN_D = make(10, 2)
TWO_S = make(2, 0)
SPECIAL_POINTS = {JOKER20: ("J20", 10), JOKER15: ("J15", 5), JOKER11: ("J11", 3), TEN_D: ("10D", 2), TWO_S: ("2S", 2)}



class KaruseleDeal(DealEvent):
    table: list[str]  # the four cards dealt face up
    stock_count: int


class RedealEvent(OtherEvent):
    """``type`` "redeal": every hand was empty, the stock dealt new ones."""

    stock_count: int


class TrailEvent(OtherEvent):
    """``type`` "trail": ``seat`` laid ``card`` on the table."""

    card: str
    action: str


class BuildEvent(OtherEvent):
    """``type`` "build": ``seat`` built ``card`` into ``builds`` worth ``value`` each."""

    card: str
    value: int
    builds: list[list[str]]
    action: str


class TakeEvent(OtherEvent):
    """``type`` "take" or "sweep": ``seat``'s ``card`` took ``cards`` (as written in ``groups``)."""

    card: str
    groups: list[list[str]]
    cards: list[str]
    action: str


class RestEvent(OtherEvent):
    """``type`` "rest": the cards left on the table at the deal's end go to the last capturer."""

    cards: list[str]


class KaruseleDealEnd(DealEndEvent):
    points: list[int]


class TableItemView(TypedDict):
    cards: list[str]
    value: int | None
    build: NotRequired[bool]
    owner: NotRequired[int | None]
    since_turn: NotRequired[int | None]


class CapturedView(TypedDict):
    cards: int
    spades: int
    aces: int
    specials: list[str]
    side_points: int


class KaruseleView(ViewPart):
    table: list[TableItemView]
    stock_count: int
    captured: list[CapturedView]
    last_capturer: int | None
    teams: list[list[int]] | None
    target: int
    point_per: str
    sheet: dict[str, Any]


class Refused(IllegalAction):
    """A refusal with the English ``template`` and its ``params``, which the bot translates."""

    def __init__(self, action: str, refusal: Refusal) -> None:
        super().__init__(action, str(refusal))
        self.template = refusal.template
        self.params = refusal.params


class KaruseleOptions(Options):
    teams: bool = Field(False, description="2 v 2, partners opposite, shared pile (4 players only)")
    point_per: Literal["spade", "ace"] = Field("spade", description="1 point per spade (seed) or per ace")
    target: int = Field(120, ge=10, le=1000, description="the game ends when a side reaches this")


class KaruseleState(TurnIsCurrent, State):
    GAME_ID = "karusele"
    LEGAL_ACTIONS_ARE_A_SAMPLE = True  # legal_actions() lists some captures; act() accepts all (see above)
    FIELDS = (
        "phase", "deal_no", "dealer", "turn", "move_no", "hands", "table", "stock",
        "piles", "last_capturer", "totals", "history",
    )
    options: KaruseleOptions

    phase: str
    deal_no: int
    dealer: int
    turn: int | None
    move_no: int
    hands: list[list[int]]
    table: list[Item]
    stock: list[int]
    piles: list[list[int]]
    last_capturer: int | None
    totals: list[int]
    history: list[dict[str, Any]]

    # -- sides -----------------------------------------------------------------------
    def sides(self) -> list[list[int]]:
        """Scoring units: a partnership each with ``teams``, otherwise one seat each."""
        return [[0, 2], [1, 3]] if self.options.teams else [[s] for s in range(self.n)]

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.options.teams else seat

    # -- dealing -----------------------------------------------------------------------
    def _setup(self) -> None:
        if self.options.teams and self.n != 4:
            raise GameError("karusele: teams (2 v 2) needs exactly 4 players")
        for k, explicit in enumerate(self.deals):
            self._explicit_deal(k, explicit)  # validate every explicit deal up front
        self.totals = [0] * self.n
        self.history = []
        self.deal_no = 0
        self.dealer = self.n - 1  # so that seat 0 (P1) leads the first deal
        self._start_deal(first=True)

    def _explicit_deal(self, k: int, deal: dict[str, Any]) -> tuple[int | None, list[list[int]], list[int], list[int]]:
        if not isinstance(deal, dict):
            raise GameError(f"karusele deal {k}: must be an object, not {deal!r}")
        try:
            hands = [parse_cards(h) for h in deal["hands"]]
            table = parse_cards(deal["table"])
            stock = parse_cards(deal["stock"]) if "stock" in deal else None
        except (KeyError, TypeError, ValueError) as exc:
            raise GameError(f"karusele deal {k}: {exc}") from None
        if len(hands) != self.n or any(len(h) != HAND for h in hands):
            raise GameError(f"karusele deal {k}: need {self.n} hands of {HAND} cards")
        if len(table) != TABLE or any(is_joker(c) for c in table):
            raise GameError(f"karusele deal {k}: the table needs {TABLE} cards, no joker or broom")
        stock = explicit_stock(deck(DECK), [c for h in hands for c in h] + table, stock, self.seed, k,
                               f"karusele deal {k}", "hands, table and stock must make the 56-card pack")
        dealer = deal.get("dealer")
        if dealer is not None and (isinstance(dealer, bool) or not (isinstance(dealer, int) and 0 <= dealer < self.n)):
            raise GameError(f"karusele deal {k}: bad dealer {dealer!r}")
        return dealer, hands, table, stock

    def _start_deal(self, first: bool = False) -> KaruseleDeal:
        k = self.deal_no
        self.deal_no += 1
        self.dealer = (self.dealer + 1) % self.n if not first else self.dealer
        if k < len(self.deals):
            dealer, hands, table, stock = self._explicit_deal(k, self.deals[k])
            if dealer is not None:
                self.dealer = dealer
        else:
            cards = deck(DECK)
            shuffle(deal_rng(self.seed, k), cards)  # rng.shuffle's permutation, faster
            hands = [cards[HAND * i: HAND * (i + 1)] for i in range(self.n)]
            order = [(self.dealer + 1 + i) % self.n for i in range(self.n)]
            hands = [hands[order.index(s)] for s in range(self.n)]
            stock = cards[HAND * self.n:]
            table = []
            while len(table) < TABLE:
                card = stock.pop(0)
                if is_joker(card):
                    stock.insert(len(stock) // 2, card)  # back into the middle of the stock
                else:
                    table.append(card)
        self.hands = [sorted(h, key=sort_key) for h in hands]
        self.table = [{"cards": [c], "owner": None, "since": None} for c in table]
        self.stock = stock
        self.piles = [[] for _ in range(self.n)]
        self.last_capturer = None
        self.move_no = 0
        self.phase = "play"
        self.turn = (self.dealer + 1) % self.n
        return {"type": "deal", "deal_no": self.deal_no, "dealer": self.dealer,
                "table": cards_str(table), "stock_count": len(self.stock)}

    def _redeal(self) -> RedealEvent:
        for i in range(self.n):
            seat = (self.dealer + 1 + i) % self.n
            self.hands[seat] = sorted(self.stock[:HAND], key=sort_key)
            self.stock = self.stock[HAND:]
        return {"type": "redeal", "stock_count": len(self.stock)}

    # -- turn structure ----------------------------------------------------------------
    def _to_act(self) -> int | None:
        return None if self.phase == "over" else self.turn

    def _legal(self) -> list[str]:
        """A sample of the legal moves (see the module docstring); ``act`` accepts every legal one."""
        assert self.turn is not None
        return legal_sample(self.hands[self.turn], self.table)

    def act(self, seat: int, action: str) -> list[Event]:
        """Apply any legal move however it is written (card order, grouping, letter case), under
        its canonical text; IllegalAction naming what is wrong otherwise, changing nothing."""
        self._check_turn(seat, action)
        canonical = self.canonical(action)
        self._legal_cache = None
        return self._apply(canonical)

    def is_legal(self, seat: int, action: str) -> bool:
        if seat != self._to_act():
            return False
        try:
            self.canonical(action)
        except IllegalAction:
            return False
        return True

    def why_illegal(self, action: str) -> str:
        try:
            self.canonical(action)
        except IllegalAction as exc:
            return exc.reason
        return "legal"

    def canonical(self, action: str) -> str:
        """The one text of the move ``action`` writes, for the seat to act; IllegalAction (with
        ``template`` and ``params`` for translation) when it is not legal now."""
        try:
            return self._read(action)
        except Refusal as exc:
            raise Refused(action, exc) from None

    def _read(self, action: str) -> str:
        words = action.upper().split()
        if self.turn is None:
            raise Refusal("the game is over")
        if len(words) < 2:
            raise Refusal("not a Karusele action: write take / sweep / build / trail and a card")
        verb, card_text, rest = words[0].lower(), words[1], words[2:]
        if verb not in ("take", "sweep", "build", "trail"):
            raise Refusal("unknown verb {verb} (take / sweep / build / trail)", verb=words[0].lower())
        try:
            card = parse_card(card_text)
        except ValueError:
            raise Refusal("{card} is not a card", card=card_text) from None
        if card not in self.hands[self.turn]:
            raise Refusal("{card} is not in your hand", card=card_str(card))
        if card == BROOM:
            if verb != "sweep":
                raise Refusal("the broom is never trailed: it sweeps the table")
            if rest:
                raise Refusal("the broom takes the whole table: write just sweep BR")
            return "sweep BR"
        if verb == "sweep":
            raise Refusal("only the broom sweeps")
        if verb == "trail":
            if rest:
                raise Refusal("a trail is one card: write just trail {card}", card=card_str(card))
            return f"trail {card_str(card)}"
        if verb == "build":
            return read_build(card, self.hands[self.turn], rest, self.table)
        return read_take(card, rest, self.table)

    def _apply(self, action: str) -> list[Event]:
        seat = self.turn
        assert seat is not None
        verb, card_text, groups = parse(action)
        card = parse_card(card_text)
        self.hands[seat].remove(card)
        self.move_no += 1
        events: list[Event] = []
        if verb == "trail":
            self.table.append({"cards": [card], "owner": None, "since": None})
            trail: TrailEvent = {"type": "trail", "seat": seat, "card": card_text, "action": action}
            events.append(trail)
        elif verb == "build":
            events.append(self._build(seat, card, groups, action))
        else:
            events.append(self._take(seat, card, verb, groups, action))
        events.extend(self._advance())
        return events

    def _build(self, seat: int, card: int, groups: list[tuple[list[str], bool]], action: str) -> BuildEvent:
        made = self._build_cards(seat, card, [parse_cards(texts) for texts, _ in groups])
        return {"type": "build", "seat": seat, "card": card_str(card), "value": sum(value(c) or 0 for c in made[0]),
                "builds": [cards_str(b) for b in made], "action": action}

    def _build_cards(self, seat: int, card: int, groups: Sequence[Sequence[int]]) -> list[list[int]]:
        """The first group is the base (a card or a build) that ``card`` goes onto; the rest are
        loose cards grouped into further builds of the same total. Returns the builds made."""
        made: list[list[int]] = []
        table = self.table
        for k, cards in enumerate(groups):
            positions = [i for i, it in enumerate(table) if it["cards"][0] in cards]
            new_cards = [*table[positions[0]]["cards"], card] if k == 0 else list(cards)
            for i in reversed(positions):
                del table[i]
            table.insert(positions[0], {"cards": new_cards, "owner": seat, "since": self.move_no})
            made.append(new_cards)
        return made

    def _take(self, seat: int, card: int, verb: str, groups: list[tuple[list[str], bool]], action: str) -> TakeEvent:
        taken = self._take_cards(seat, card, verb, [parse_cards(texts) for texts, _ in groups])
        return {"type": "sweep" if verb == "sweep" else "take", "seat": seat, "card": card_str(card),
                "groups": [texts for texts, _ in groups], "cards": cards_str(taken), "action": action}

    def _take_cards(self, seat: int, card: int, verb: str, groups: Sequence[Sequence[int]]) -> list[int]:
        """``card`` takes the groups (the whole table for the broom); returns the table cards taken."""
        if verb == "sweep":
            taken = [c for it in self.table for c in it["cards"]]
            self.table = []
        else:
            wanted = {c for cards in groups for c in cards}
            taken = [c for it in self.table for c in it["cards"] if c in wanted]
            self.table = [it for it in self.table if it["cards"][0] not in wanted]
        self.piles[seat].extend([*taken, card])
        if taken:
            self.last_capturer = seat
        return taken

    # -- the fast path (engine.core): the sample's texts as codes, a step without events ----------------
    def fast_legal(self) -> list[int]:
        """``legal_actions()`` as codes (the codec's memo read directly: the sample is a dozen texts a step)."""
        seat = self.current
        if seat is None:
            return []
        codec = self.ACTIONS
        texts = legal_sample(self.hands[seat], self.table)
        known, code = codec._memo_codes.get, codec.code  # the codec makes the missing ones (and remembers them)
        return [found if (found := known(text)) is not None else code(text) for text in texts]

    def fast_apply(self, action: int) -> None:
        """``act`` for a code from ``fast_legal``: the same state, no events; the move's text read once
        into cards (``parsed_move``, cached: moves recur)."""
        self._legal_cache = None
        verb, card, groups = parsed_move(self.ACTIONS.text(action))
        seat = self.current
        assert seat is not None
        hands = self.hands
        hands[seat].remove(card)
        self.move_no += 1
        if verb == "trail":
            self.table.append({"cards": [card], "owner": None, "since": None})
        elif verb == "build":
            self._build_cards(seat, card, groups)
        else:
            self._take_cards(seat, card, verb, groups)
        after = seat + 1 if seat + 1 < self.n else 0
        if hands[after]:  # the common case of ``_advance``: the next seat still has cards
            self.current = after
        else:
            self._advance()

    def _advance(self) -> list[Event]:
        """Pass the turn; re-deal when every hand is empty; end the deal when the stock is out too."""
        assert self.turn is not None
        if any(self.hands):
            self.turn = (self.turn + 1) % self.n
            return []
        if self.stock:
            event = self._redeal()
            self.turn = (self.dealer + 1) % self.n
            return [event]
        return self._end_deal()

    # -- scoring -------------------------------------------------------------------------
    def _deal_points(self) -> dict[str, Any]:
        """Points by category per side for the piles as they stand."""
        sides = self.sides()
        piles = [[c for s in side for c in self.piles[s]] for side in sides]
        count = [len(p) for p in piles]
        spades = [sum(map(_SPADE.__getitem__, p)) for p in piles]
        aces = [sum(map(_ACE.__getitem__, p)) for p in piles]
        cats: dict[str, list[int]] = {}
        for code, (name, pts) in SPECIAL_POINTS.items():
            cats[name] = [pts if code in p else 0 for p in piles]
        cats["most_spades"] = _most(spades)
        cats["most_cards"] = _most(count)
        per = "spades" if self.options.point_per == "spade" else "aces"
        cats[per] = spades if per == "spades" else aces
        side_points = [sum(cat[i] for cat in cats.values()) for i in range(len(sides))]
        return {"cards": count, "spades": spades, "aces": aces, "categories": cats, "side_points": side_points}

    def _end_deal(self) -> list[Event]:
        events: list[Event] = []
        rest = [c for it in self.table for c in it["cards"]]
        if rest:
            assert self.last_capturer is not None, "table cards left and nobody captured"
            self.piles[self.last_capturer].extend(rest)
            self.table = []
            left: RestEvent = {"type": "rest", "seat": self.last_capturer, "cards": cards_str(rest)}
            events.append(left)
        detail = self._deal_points()
        points = [detail["side_points"][self.side_of(s)] for s in range(self.n)]
        self.totals = [t + p for t, p in zip(self.totals, points, strict=True)]
        self.history.append({"deal_no": self.deal_no, "dealer": self.dealer, **detail,
                             "points": points, "totals": list(self.totals)})
        end: KaruseleDealEnd = {"type": "deal_end", "points": points, "scores": list(points),
                                "totals": list(self.totals)}
        events.append(end)
        side_totals = [self.totals[side[0]] for side in self.sides()]
        best = max(side_totals)
        if best >= self.options.target and side_totals.count(best) == 1:
            self.phase = "over"
            self.turn = None
            events.append({"type": "game_over", "scores": list(self.totals), "totals": list(self.totals),
                           "winners": self.winners()})
        else:
            events.append(self._start_deal())
        return events

    def scores(self) -> list[int]:
        return list(self.totals)

    def sheet(self) -> dict[str, Any]:
        return {"deals": self.history, "sides": self.sides(), "target": self.options.target,
                "point_per": self.options.point_per, "teams": self.options.teams}

    # -- views ---------------------------------------------------------------------------
    def _view(self, seat: int | None) -> KaruseleView:
        detail = self._deal_points()
        captured: list[CapturedView] = []
        for s in range(self.n):
            side = self.side_of(s)
            pile = self.piles[s]
            captured.append({
                "cards": len(pile),
                "spades": sum(1 for c in pile if suit_of(c) == 0),
                "aces": sum(1 for c in pile if rank_of(c) == ACE),
                "specials": [card_str(c) for c in pile if c in SPECIAL_POINTS],
                "side_points": detail["side_points"][side],
            })
        view: KaruseleView = {
            "phase": self.phase,
            "dealer": self.dealer,
            "deal_no": self.deal_no,
            "hand_counts": [len(h) for h in self.hands],
            "table": [table_item_view(it) for it in self.table],
            "stock_count": len(self.stock),
            "captured": captured,
            "last_capturer": self.last_capturer,
            "teams": self.sides() if self.options.teams else None,
            "target": self.options.target,
            "point_per": self.options.point_per,
            "sheet": self.sheet(),
        }
        if seat is not None:
            view["hand"] = cards_str(self.hands[seat])
        return view

    # -- checks --------------------------------------------------------------------------
    def check_invariants(self) -> None:
        everything = [c for h in self.hands for c in h] + [c for it in self.table for c in it["cards"]]
        everything += self.stock + [c for p in self.piles for c in p]
        assert sorted(everything) == sorted(deck(DECK)), "the 56 cards are not all accounted for"
        assert BROOM not in [c for it in self.table for c in it["cards"]], "the broom lies on the table"
        for it in self.table:
            if is_build(it):
                assert it["owner"] is not None and 0 <= it["owner"] < self.n, f"build without owner: {it}"
                assert all(value(c) is not None for c in it["cards"]), f"court card in a build: {it}"
                assert 2 <= (item_value(it) or 0) <= 20, f"build total out of range: {it}"
                assert it["since"] is not None and 1 <= it["since"] <= self.move_no, f"bad build turn: {it}"
            else:
                assert it["owner"] is None and it["since"] is None, f"loose card with an owner: {it}"
        sizes = [len(h) for h in self.hands]
        assert max(sizes) <= HAND and max(sizes) - min(sizes) <= 1, f"hand sizes {sizes}"
        assert len(self.stock) % (HAND * self.n) == 0, "the stock does not divide into full rounds"
        summed = [sum(d["points"][s] for d in self.history) for s in range(self.n)]
        assert summed == self.totals, "totals disagree with the score sheet"
        for side in self.sides():
            assert len({self.totals[s] for s in side}) == 1, "partners' totals differ"
        if self.phase == "over":
            assert self.turn is None and not any(self.hands) and not self.stock and not self.table
        else:
            assert self.turn is not None and self.hands[self.turn], "the seat to act has no card"

    # -- AI: determinised search --------------------------------------------------------
    def determinize(self, seat: int, rng: random.Random) -> KaruseleState:
        """Other hands and the stock dealt afresh from the unseen cards (everything captured or on
        the table was seen face up)."""
        from engine.ai.sampling import Slot, deal_hidden, hide_future

        others = [s for s in range(self.n) if s != seat]
        slots = [Slot(len(self.hands[s])) for s in others] + [Slot(len(self.stock))]
        pool = [c for s in others for c in self.hands[s]] + self.stock
        dealt = deal_hidden(slots, pool, rng)
        new = self.clone()
        for s, hand in zip(others, dealt, strict=False):
            new.hands[s] = sorted(hand, key=sort_key)
        new.stock = dealt[-1]
        new._legal_cache = None
        hide_future(new, rng)
        return new


_SPADE = [int(suit_of(c) == 0) for c in range(128)]  # 1 for a spade, by card code: every deal's end counts them
_ACE = [int(rank_of(c) == ACE) for c in range(128)]


def _most(counts: list[int]) -> list[int]:
    """2 to the single leader, 1 each to two tied leaders, nothing when three or more tie."""
    best = max(counts)
    leaders = [i for i, c in enumerate(counts) if c == best]
    share = {1: 2, 2: 1}.get(len(leaders), 0)
    return [share if i in leaders else 0 for i in range(len(counts))]


def table_item_view(item: Item) -> TableItemView:
    out: TableItemView = {"cards": cards_str(item["cards"]), "value": item_value(item)}
    if is_build(item):
        out["build"] = True
        out["owner"] = item["owner"]
        out["since_turn"] = item["since"]
    return out


GAME = register(Game(options=KaruseleOptions, state=KaruseleState))  # id, name and players: the declaration
