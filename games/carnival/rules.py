"""Carnival (Карнавал, seed 000): exact bidding on a 76-card double pack with four jokers.

Rules as RULES.md section 1 gives them. 3–6 players; 4 quarters of n deals each (n = players),
6, 8, 10 and 12 cards a hand in quarters 1..4. In deal k of a quarter seat k−1 leads and the seat
before it deals; the card after the hands is turned up for trump (a joker turned up: option
``joker_trump``: ``next_card`` turns cards until a non-joker, ``no_trump`` plays the deal without
trump). Bids go round from the leader; the last bidder (the dealer) may not make the total equal
the hand size. The leader leads one card or a Carnival (two identical cards, worth two tricks).
(With ``next_card``, if only jokers are left to turn — possible with 6 players and 12 cards — the deal
has no trump.)

Action verbs (cards in engine.cards notation; a pair is written in display order: jokers first,
then S H D C, high rank first):

- ``bid N``: bid N tricks (0..hand size; the last bidder's hook value is missing).
- ``play C``: lead or follow with an ordinary card.
- ``play JK high`` / ``play JK low``: lead a joker announcing the highest / the lowest card.
- ``play JK over`` / ``play JK under``: follow with a joker as the highest card / as nothing.
- ``play C over`` / ``play C under``: follow with a card equal to the current best card (its twin,
  or after a low joker lead a card of the same rank in another non-trump suit), taking the lead
  or leaving it to the earlier card.
- ``carnival C C``: lead a pair of identical cards; ``carnival JK JK`` with three or four jokers;
  ``carnival JK C`` with all four jokers (the pair is worth C C).
- ``give C C``: answer a Carnival with any two cards. A pair that outranks the best pair so far
  (same suit and higher, a trump pair over a plain one, a higher trump pair, two jokers) takes it.

State data are plain JSON (cards are ints). ``last_trick``, ``stock``, ``turned`` and the log entries
are never mutated in place, only replaced, so :meth:`CarnivalState.clone` can share them (the fast path
changes the trick in play in place, so ``clone`` copies it).
"""

from __future__ import annotations

import marshal
import random
from collections import Counter
from collections.abc import Mapping
from typing import Any, Literal, NotRequired

from pydantic import Field
from typing_extensions import TypedDict

from engine.cards import CARD_TEXT, JOKER, SUITS, deck, parse_card
from engine.core import Event, Game, GameError, Options, State, TurnIsCurrent, ViewPart, deal_rng, register, shuffle
from engine.events import DealEndEvent, DealEvent, OtherEvent, Play, PlayEvent, TrickEvent, TrickView
from engine.tricks import hook_forbidden_bid


class CarnivalTrick(TypedDict):
    """The trick in play as the state keeps it (``last_trick`` adds its ``winner``): ``plays`` are
    ``[seat, [cards], place]`` (JSON keeps them lists, so no tuple type: ``list[Any]``), ``best`` the seat
    winning so far with its key ``bkey`` (and ``bsuit``, the best pair's suit, in a Carnival)."""

    leader: int
    kind: str  # "single" or "carnival"
    mode: str | None  # a joker led "high" or "low"
    led: int
    plays: list[list[Any]]
    best: int
    bkey: int
    bsuit: int
    winner: NotRequired[int]


class QuarterResult(TypedDict):
    """A finished quarter per seat: the deals' points, the exact-bids premium, the penalty, their sum."""

    quarter: int
    raw: list[int]
    premium: list[int]
    penalty: list[int]
    final: list[int]


class CarnivalDeal(DealEvent):
    quarter: int
    deal_in_quarter: int
    hand_size: int
    leader: int
    trump: str | None
    trump_card: str | None
    turned_up: list[str]


class CarnivalPlay(PlayEvent):
    place: str | None  # "over" or "under" a card equal to the best one
    mode: str | None  # a joker led "high" or "low"
    kind: str  # the trick's: "single" or "carnival"
    takes: NotRequired[bool]  # a follower's card (or pair) that wins the trick so far


class PlacedPlay(Play):
    place: str | None


class CarnivalTrickEvent(TrickEvent):
    """``plays`` are ``PlacedPlay``s; a Carnival trick ``count``s two tricks."""

    count: int
    kind: str


class CarnivalDealEnd(DealEndEvent):
    deal_no: int
    quarter: int
    bids: list[int]
    tricks: list[int]
    points: list[int]


class QuarterEndEvent(OtherEvent, QuarterResult):
    """``type`` "quarter_end": the quarter's result."""


class CarnivalTrickView(TrickView):
    """``plays`` are ``PlacedPlay``s; a taken trick says how many tricks it ``count``s."""

    kind: str
    lead_mode: str | None
    count: NotRequired[int]


class CarnivalView(ViewPart):
    quarter: int
    deal_in_quarter: int
    deals_total: int
    hand_size: int
    leader: int
    trump: str | None
    trump_card: str | None
    turned_up: list[str]
    bids: list[int | None]
    tricks: list[int]
    forbidden_bid: int | None
    sheet: dict[str, Any]

JK = JOKER
HAND_SIZES = (6, 8, 10, 12)
PACK: list[int] = deck(76)
PACK_COUNTS: Counter[int] = Counter(PACK)
PREMIUM = 60
PENALTY = -60

_TEXT = CARD_TEXT
_NOT_AN_ACTION = "not a Carnival action (see the verbs: bid N, play C, carnival C C, give C C)"
_CODE = {text: code for code, text in CARD_TEXT.items() if code in PACK_COUNTS}
_SUIT_NAMES = {0: "spades", 1: "hearts", 2: "diamonds", 3: "clubs"}

# Trick keys: a play becomes the best when its key is higher, or equal and placed over.
_KEY_JOKER = 1000  # a joker over (or a high joker lead, or a pair of jokers)
_KEY_TRUMP = 200  # + rank
_KEY_PLAIN = 100  # + rank: a card of the led suit (any non-trump suit after a low joker lead)


# Fast-path action codes (see CarnivalState.fast_legal)
_OVER, _UNDER, _HIGH, _LOW = 128, 256, 384, 512
_PLACES = (None, "over", "under", "high", "low")  # by code // 128, below _CARNIVAL
_PLACE_WORDS = ("", " over", " under", " high", " low")
_CARNIVAL, _GIVE, _BID = 1024, 16384, 32768


def display_key(card: int) -> int:
    """Jokers first, then spades, hearts, diamonds, clubs, high rank first."""
    return -1 if card >= 64 else (card >> 4) * 16 + 15 - (card & 15)


_DISPLAY = [display_key(card) for card in range(JK + 1)]
_DISPLAY_KEY = _DISPLAY.__getitem__
_BIDS = [[_BID + b for b in range(size + 1)] for size in range(max(HAND_SIZES) + 1)]  # fast path: no hook


def deal_points(bid: int, tricks: int) -> int:
    """Points of one deal: exact 10 per trick (5 for an exact zero), short 1 per trick,
    over 10 per bid trick minus 20 per extra trick."""
    if tricks == bid:
        return 10 * bid if bid else 5
    if tricks < bid:
        return tricks
    return 10 * bid - 20 * (tricks - bid)


def quarter_result(quarter: int, deals: list[dict[str, Any]], players: int) -> QuarterResult:
    """Sum a quarter's deals; +60 to a seat exact in every deal, −60 to a negative raw total."""
    raw = [sum(d["points"][s] for d in deals) for s in range(players)]
    premium = [PREMIUM if all(d["bids"][s] == d["tricks"][s] for d in deals) else 0 for s in range(players)]
    penalty = [PENALTY if raw[s] < 0 else 0 for s in range(players)]
    final = [raw[s] + premium[s] + penalty[s] for s in range(players)]
    return {"quarter": quarter, "raw": raw, "premium": premium, "penalty": penalty, "final": final}


def single_key(card: int, place: str | None, led: int, mode: str | None, trump: int) -> int:
    """Strength of a card in a single-card trick (a joker under: -1, counts for nothing)."""
    if card == JK:
        return _KEY_JOKER if place in ("over", "high") else -1
    if mode == "high":
        return 0
    suit = card >> 4
    if suit == trump:
        return _KEY_TRUMP + (card & 15)
    if mode == "low" or suit == led:
        return _KEY_PLAIN + (card & 15)
    return 0


def lead_pair_key(a: int, b: int, trump: int) -> tuple[int, int]:
    """(key, suit) of the pair that opens a Carnival: two jokers top everything, a joker stands for
    its partner's card (the play and the invariant check's replay of a trick both ask)."""
    if a == JK and b == JK:
        return _KEY_JOKER, -1
    value = b if a == JK else a
    suit = value >> 4
    return (_KEY_TRUMP if suit == trump else _KEY_PLAIN) + (value & 15), suit


def pair_key(a: int, b: int, best_suit: int, trump: int) -> tuple[int, int]:
    """(key, suit) of two cards given to a Carnival, against a best pair of ``best_suit``."""
    if a == JK and b == JK:
        return _KEY_JOKER, -1
    if a != b or a == JK:
        return 0, -1
    suit = a >> 4
    if suit == trump:
        return _KEY_TRUMP + (a & 15), suit
    if suit == best_suit:
        return _KEY_PLAIN + (a & 15), suit
    return 0, -1


def follow_cards(hand: list[int], led: int, trump: int) -> set[int]:
    """Cards that may follow a single-card lead of suit ``led`` (Note В: pairs may be kept back).

    An unpaired card of the led suit forces the suit; if every led-suit card is one of an identical
    pair the player may play one of them or act as void. When void, an unpaired trump forces a
    trump; all trumps paired or no trump: any card. A joker may always be played.
    """
    # A card is held at most twice (jokers, of no suit, up to four times): a list of cards holds an
    # unpaired one exactly when it is shorter than twice its distinct cards.
    same = [c for c in hand if c >> 4 == led]
    allowed = set(same)
    if len(same) == 2 * len(allowed):  # no card of the led suit, or only pairs
        trumps = [c for c in hand if c >> 4 == trump] if trump >= 0 else []
        if len(trumps) == 2 * len(distinct_trumps := set(trumps)):
            return set(hand)
        allowed |= distinct_trumps
    if JK in hand:
        allowed.add(JK)
    return allowed


class CarnivalOptions(Options):
    """House rules of Carnival."""

    quarters: int = Field(4, ge=1, le=4, description="quarters to play (4 = the full game)")
    joker_trump: Literal["next_card", "no_trump"] = Field(
        "next_card", description="a joker turned up for trump: turn the next card, or play without trump"
    )


class CarnivalState(TurnIsCurrent, State):
    """One Carnival game. Cards are ints; the trick in play is a dict whose ``bkey`` is the strength
    of the best play so far (see ``single_key``/``pair_key``), so each play is judged in O(1)."""

    GAME_ID = "carnival"
    FIELDS = (
        "phase", "deal_index", "hand_size", "dealer", "leader", "trump", "trump_card", "turned",
        "hands", "stock", "bids", "tricks", "turn", "trick", "last_trick", "pile", "log",
    )

    options: CarnivalOptions
    phase: str
    deal_index: int
    hand_size: int
    dealer: int
    leader: int
    trump: int
    trump_card: int | None
    turned: list[int]
    hands: list[list[int]]
    stock: list[int]
    bids: list[int | None]
    tricks: list[int]
    turn: int | None
    trick: CarnivalTrick | None
    last_trick: CarnivalTrick | None
    pile: list[int]
    log: list[list[int]]  # per finished deal: [dealer, trump, trump_card (-1: none), *bids, *tricks]

    # -- setup and dealing ----------------------------------------------------------
    @property
    def deals_total(self) -> int:
        return self.options.quarters * self.n

    def _setup(self) -> None:
        if len(self.deals) > self.deals_total:
            raise GameError(f"{len(self.deals)} explicit deals for a game of {self.deals_total} deals")
        for index, spec in enumerate(self.deals):
            if spec:
                self._explicit_deal(index, spec)
        self.log = []
        self._start_deal(0)

    def _explicit_deal(self, index: int, spec: dict[str, Any]) -> tuple[int, list[list[int]], list[int], list[int]]:
        """Validate an explicit deal; returns (dealer, hands, turned cards, stock)."""
        n = self.n
        size = HAND_SIZES[index // n]
        where = f"explicit deal #{index + 1}"
        if not isinstance(spec, dict) or not isinstance(spec.get("hands"), list):
            raise GameError(f"{where}: expected {{'dealer': seat, 'hands': [[cards], ...], 'trump': ...}}")
        try:
            hands = [[parse_card(t) for t in hand] for hand in spec["hands"]]
        except (ValueError, TypeError) as exc:
            raise GameError(f"{where}: {exc}") from None
        if len(hands) != n or any(len(h) != size for h in hands):
            raise GameError(f"{where}: needs {n} hands of {size} cards")
        left = Counter(PACK_COUNTS)
        for hand in hands:
            for card in hand:
                left[card] -= 1
                if left[card] < 0:
                    raise GameError(f"{where}: too many {_TEXT.get(card, card)} (the pack has {PACK_COUNTS[card]})")
        dealer = spec.get("dealer", (index % n - 1) % n)
        if not isinstance(dealer, int) or not 0 <= dealer < n:
            raise GameError(f"{where}: dealer must be a seat 0..{n - 1}")
        trump = spec.get("trump")
        turned: list[int] = []
        if trump not in (None, "", "-", "N", "NT", "none") and not (
            isinstance(trump, str) and trump.upper() in SUITS and len(trump) == 1
        ):
            try:
                card = parse_card(str(trump))
            except ValueError:
                raise GameError(f"{where}: trump must be a suit letter (S H D C), a card or null") from None
            if left[card] <= 0:
                raise GameError(f"{where}: the turned-up {trump} is not left in the stock")
            if card == JK and self.options.joker_trump == "next_card":
                raise GameError(f"{where}: with joker_trump=next_card give the non-joker card finally turned up")
            left[card] -= 1
            turned = [card]
        stock = [c for c in sorted(left, key=display_key) for _ in range(left[c])]
        return dealer, hands, turned, stock

    def _start_deal(self, index: int) -> list[Event]:
        """Deal deal ``index``; returns its "deal" event."""
        self._deal(index)
        trump_card = self.trump_card
        deal: CarnivalDeal = {
            "type": "deal", "deal_no": index + 1, "quarter": index // self.n + 1, "deal_in_quarter": index % self.n + 1,
            "hand_size": self.hand_size, "dealer": self.dealer, "leader": self.leader, "trump": self._trump_letter(),
            "trump_card": _TEXT[trump_card] if trump_card is not None else None,
            "turned_up": [_TEXT[c] for c in self.turned],
        }
        return [deal]

    def _deal(self, index: int) -> None:
        """Deal deal ``index`` (the fast step's deal: no event)."""
        n = self.n
        size = HAND_SIZES[index // n]
        spec = self.deals[index] if index < len(self.deals) else None
        trump, trump_card = -1, None
        if spec:
            dealer, hands, turned, stock = self._explicit_deal(index, spec)
            letter = spec.get("trump")
            if turned:
                trump_card = turned[0]
                trump = -1 if trump_card == JK else trump_card >> 4
            elif isinstance(letter, str) and len(letter) == 1 and letter.upper() in SUITS:
                trump = SUITS.index(letter.upper())
        else:
            dealer = (index % n - 1) % n
            cards = list(PACK)
            shuffle(deal_rng(self.seed, index), cards)
            first = dealer + 1  # the leader gets the first cards, and so on round the table
            hands = [cards[((s - first) % n) * size:((s - first) % n + 1) * size] for s in range(n)]
            rest = cards[n * size:]
            turned = []
            for card in rest:
                turned.append(card)
                if card != JK:
                    trump, trump_card = card >> 4, card
                    break
                if self.options.joker_trump == "no_trump":
                    trump_card = JK
                    break
            stock = rest[len(turned):]
        self.phase = "bid"
        self.deal_index = index
        self.hand_size = size
        self.dealer = dealer
        self.leader = (dealer + 1) % n
        self.trump = trump
        self.trump_card = trump_card
        self.turned = turned
        self.hands = hands
        self.stock = stock
        self.bids = [None] * n
        self.tricks = [0] * n
        self.turn = self.leader
        self.trick = None
        self.last_trick = None
        self.pile = []

    def _trump_letter(self) -> str | None:
        return SUITS[self.trump] if self.trump >= 0 else None

    # -- the contract ---------------------------------------------------------------
    def _to_act(self) -> int | None:
        return self.turn

    def forbidden_bid(self) -> int | None:
        """The bid the seat to act may not make now (the hook), or None."""
        if self.phase != "bid":
            return None
        return hook_forbidden_bid(self.bids, self.hand_size, self.n)

    def _legal(self) -> list[str]:
        if self.phase == "bid":
            forbidden = self.forbidden_bid()
            return [f"bid {b}" for b in range(self.hand_size + 1) if b != forbidden]
        seat = self.turn
        assert seat is not None
        hand = self.hands[seat]
        distinct = sorted(set(hand), key=display_key)
        trick = self.trick
        if trick is None:
            return self._lead_actions(hand, distinct)
        if trick["kind"] == "carnival":
            out = []
            for i, a in enumerate(distinct):
                ta = _TEXT[a]
                if hand.count(a) > 1:
                    out.append(f"give {ta} {ta}")
                for b in distinct[i + 1:]:
                    out.append(f"give {ta} {_TEXT[b]}")
            return out
        mode = trick["mode"]
        allowed = set(hand) if mode else follow_cards(hand, trick["led"], self.trump)
        best = trick["bkey"]
        led, trump = trick["led"], self.trump
        out = []
        for card in distinct:
            if card not in allowed:
                continue
            text = _TEXT[card]
            if card == JK or single_key(card, None, led, mode, trump) == best:
                out.append(f"play {text} over")
                out.append(f"play {text} under")
            else:
                out.append(f"play {text}")
        return out

    def _lead_actions(self, hand: list[int], distinct: list[int]) -> list[str]:
        out = []
        for card in distinct:
            if card == JK:
                out.append("play JK high")
                out.append("play JK low")
            else:
                out.append(f"play {_TEXT[card]}")
        if len(hand) >= 2:
            jokers = hand.count(JK)
            for card in distinct:
                if card != JK and hand.count(card) > 1:
                    out.append(f"carnival {_TEXT[card]} {_TEXT[card]}")
            if jokers >= 3:
                out.append("carnival JK JK")
            if jokers == 4:
                out.extend(f"carnival JK {_TEXT[c]}" for c in distinct if c != JK)
        return out

    def _apply(self, action: str) -> list[Event]:
        verb, _, rest = action.partition(" ")
        seat = self.turn
        assert seat is not None
        if verb == "bid":
            return self._bid(seat, int(rest))
        args = rest.split(" ")
        if verb == "play":
            place = args[1] if len(args) > 1 else None
            return self._play(seat, [_CODE[args[0]]], place)
        return self._play(seat, [_CODE[args[0]], _CODE[args[1]]], None)

    def _bid(self, seat: int, bid: int) -> list[Event]:
        bids = self.bids[:]
        bids[seat] = bid
        self.bids = bids
        nxt = (seat + 1) % self.n
        if nxt == self.leader:
            self.phase = "play"
        self.turn = nxt
        return [{"type": "bid", "seat": seat, "bid": bid}]

    def _play(self, seat: int, cards: list[int], place: str | None) -> list[Event]:
        hand = self.hands[seat][:]
        for card in cards:
            hand.remove(card)
        hands = self.hands[:]
        hands[seat] = hand
        self.hands = hands
        trick = self.trick
        texts = [_TEXT[c] for c in cards]
        event: CarnivalPlay
        if trick is None:
            trick = self._lead(seat, cards, place)
            event = {"type": "play", "seat": seat, "cards": texts, "place": None, "mode": trick["mode"],
                     "kind": trick["kind"]}
        else:
            before = trick["best"]
            trick = self._follow(trick, seat, cards, place)
            event = {"type": "play", "seat": seat, "cards": texts, "place": place, "mode": None,
                     "kind": trick["kind"], "takes": trick["best"] == seat and before != seat}
        self.trick = trick
        events: list[Event] = [event]
        nxt = (seat + 1) % self.n
        if nxt != trick["leader"]:
            self.turn = nxt
            return events
        return events + self._finish_trick(trick)

    def _lead(self, seat: int, cards: list[int], place: str | None) -> CarnivalTrick:
        trump = self.trump
        if len(cards) == 1:
            card = cards[0]
            if card == JK:
                return {"leader": seat, "kind": "single", "mode": place, "led": -1, "plays": [[seat, cards, None]],
                        "best": seat, "bkey": _KEY_JOKER if place == "high" else 0, "bsuit": -1}
            return {"leader": seat, "kind": "single", "mode": None, "led": card >> 4, "plays": [[seat, cards, None]],
                    "best": seat, "bkey": single_key(card, None, card >> 4, None, trump), "bsuit": -1}
        key, suit = lead_pair_key(cards[0], cards[1], trump)
        return {"leader": seat, "kind": "carnival", "mode": None, "led": -1, "plays": [[seat, cards, None]],
                "best": seat, "bkey": key, "bsuit": suit}

    def _follow(self, trick: CarnivalTrick, seat: int, cards: list[int], place: str | None) -> CarnivalTrick:
        best, bkey, bsuit = trick["best"], trick["bkey"], trick["bsuit"]
        if trick["kind"] == "carnival":
            key, suit = pair_key(cards[0], cards[1], bsuit, self.trump)
            if key > bkey or key == _KEY_JOKER:
                best, bkey, bsuit = seat, key, suit
        else:
            key = single_key(cards[0], place, trick["led"], trick["mode"], self.trump)
            if key > bkey or (key == bkey and place == "over"):
                best, bkey = seat, key
        new = trick.copy()
        new["plays"] = [*trick["plays"], [seat, cards, place]]
        new["best"], new["bkey"], new["bsuit"] = best, bkey, bsuit
        return new

    def _finish_trick(self, trick: CarnivalTrick) -> list[Event]:
        winner = trick["best"]
        count = 2 if trick["kind"] == "carnival" else 1
        tricks = self.tricks[:]
        tricks[winner] += count
        self.tricks = tricks
        self.pile = self.pile + [c for play in trick["plays"] for c in play[1]]
        self.last_trick = {**trick, "winner": winner}
        self.trick = None
        self.turn = winner
        taken: CarnivalTrickEvent = {"type": "trick", "leader": trick["leader"], "winner": winner, "count": count,
                                     "kind": trick["kind"], "plays": _plays_view(trick["plays"]),
                                     "cards": [_TEXT[c] for play in trick["plays"] for c in play[1]]}
        events: list[Event] = [taken]
        if not self.hands[winner]:
            events.extend(self._finish_deal())
        return events

    def _finish_deal(self) -> list[Event]:
        n = self.n
        index = self.deal_index
        bids = self._all_bids()
        points = [deal_points(bids[s], self.tricks[s]) for s in range(n)]
        last = self._log_deal()
        end: CarnivalDealEnd = {"type": "deal_end", "deal_no": index + 1, "quarter": index // n + 1,
                                "bids": list(bids), "tricks": list(self.tricks), "points": points,
                                "scores": list(points), "totals": self.scores()}
        events: list[Event] = [end]
        if index % n == n - 1:
            result = self.quarter_results()[-1]
            quarter: QuarterEndEvent = {"type": "quarter_end", "quarter": result["quarter"], "raw": result["raw"],
                                        "premium": result["premium"], "penalty": result["penalty"],
                                        "final": result["final"]}
            events.append(quarter)
        if last:
            events.append({"type": "game_over", "scores": self.scores(), "totals": self.scores(),
                           "winners": self.winners()})
            return events
        return events + self._start_deal(index + 1)

    def _all_bids(self) -> list[int]:
        """The bids once every seat has bid (the play phase and after): a new list."""
        bids = [b for b in self.bids if b is not None]
        assert len(bids) == self.n, "a seat has not bid"
        return bids

    def _log_deal(self) -> bool:
        """Write the finished deal into the log; end the game after its last deal (True then)."""
        card = -1 if self.trump_card is None else self.trump_card
        self.log = [*self.log, [self.dealer, self.trump, card, *self._all_bids(), *self.tricks]]
        if self.deal_index + 1 < self.deals_total:
            return False
        self.phase = "over"
        self.turn = None
        self.trick = None
        return True

    # -- reasons ------------------------------------------------------------------------
    def why_illegal(self, action: str) -> str:
        try:
            return self._why(action)
        except (ValueError, KeyError, IndexError, TypeError):
            return _NOT_AN_ACTION

    def _why(self, action: str) -> str:
        verb, _, rest = action.partition(" ")
        args = rest.split()
        if self.phase == "bid":
            if verb != "bid":
                return "everyone bids before play starts"
            bid = int(rest)
            if not 0 <= bid <= self.hand_size:
                return f"a bid is 0..{self.hand_size}"
            if bid == self.forbidden_bid():
                return f"the last bidder may not bid {bid}: the bids would add up to {self.hand_size}"
            return "not a legal bid"
        if verb == "bid":
            return "bidding is over"
        cards = [parse_card(a) for a in args if a not in ("over", "under", "high", "low")]
        seat = self.turn
        if seat is None:
            return _NOT_AN_ACTION
        hand = list(self.hands[seat])
        for card in cards:
            if card not in hand:
                return f"you do not hold {_TEXT[card]}" + (" twice" if cards.count(card) > 1 else "")
            hand.remove(card)
        trick = self.trick
        if trick is None:
            if verb == "give":
                return "you lead: play one card or a Carnival pair"
            if verb == "carnival":
                if cards == [JK, JK]:
                    return "two jokers make a Carnival only for a leader holding three or four"
                if JK in cards:
                    return "a joker pairs with another card only for a leader holding all four jokers"
                return "a Carnival is two identical cards"
            if cards == [JK]:
                return "leading a joker, say high or low"
            return "a card is led without over/under"
        if trick["kind"] == "carnival":
            return "answer the Carnival with two cards: give C C (in display order)"
        if verb != "play" or len(cards) != 1:
            return "follow with one card: play C"
        card = cards[0]
        if not trick["mode"] and card not in follow_cards(self.hands[seat], trick["led"], self.trump):
            led = trick["led"]
            same = [c for c in self.hands[seat] if c >> 4 == led]
            if any(same.count(c) == 1 for c in same):
                return f"you must follow suit ({_SUIT_NAMES[led]}) or play a joker"
            return f"you must play a trump ({_SUIT_NAMES[self.trump]}), a joker or a {_SUIT_NAMES[led][:-1]} of a pair"
        if card == JK:
            return "a joker follows over or under"
        return "say over or under for a card equal to the best card" if len(args) == 1 else "no over/under here"

    # -- views and scores ---------------------------------------------------------------
    def deal_records(self) -> list[dict[str, Any]]:
        """The finished deals, as the score sheet shows them."""
        n = self.n
        out = []
        for i, entry in enumerate(self.log):
            dealer, trump, card = entry[0], entry[1], entry[2]
            bids, tricks = entry[3:3 + n], entry[3 + n:3 + 2 * n]
            out.append({
                "quarter": i // n + 1, "deal_no": i + 1, "deal_in_quarter": i % n + 1,
                "hand_size": HAND_SIZES[i // n], "dealer": dealer, "leader": (dealer + 1) % n,
                "trump": SUITS[trump] if trump >= 0 else None, "trump_card": _TEXT[card] if card >= 0 else None,
                "bids": bids, "tricks": tricks,
                "points": [deal_points(b, t) for b, t in zip(bids, tricks, strict=True)],
            })
        return out

    def quarter_results(self, deals: list[dict[str, Any]] | None = None) -> list[QuarterResult]:
        """Raw, premium, penalty and final per seat for every finished quarter."""
        n = self.n
        deals = self.deal_records() if deals is None else deals
        return [quarter_result(q + 1, deals[q * n:(q + 1) * n], n) for q in range(len(deals) // n)]

    def scores(self) -> list[int]:
        """Finished quarters' finals plus the points of the current quarter's finished deals."""
        n = self.n
        deals = self.deal_records()
        totals = [0] * n
        for result in self.quarter_results(deals):
            for s in range(n):
                totals[s] += result["final"][s]
        for deal in deals[len(deals) // n * n:]:
            for s in range(n):
                totals[s] += deal["points"][s]
        return totals

    def sheet(self) -> dict[str, Any]:
        """Finished deals and quarters; ``totals`` is the sum of finished quarters (the grid's last row)."""
        deals = self.deal_records()
        quarters = self.quarter_results(deals)
        return {
            "players": self.n,
            "quarters": self.options.quarters,
            "joker_trump": self.options.joker_trump,
            "deals": deals,
            "quarter_results": quarters,
            "totals": [sum(q["final"][s] for q in quarters) for s in range(self.n)],
        }

    def _view(self, seat: int | None) -> CarnivalView:
        n = self.n
        view: CarnivalView = {
            "phase": self.phase,
            "quarter": self.deal_index // n + 1,
            "deal_in_quarter": self.deal_index % n + 1,
            "deal_no": self.deal_index + 1,
            "deals_total": self.deals_total,
            "hand_size": self.hand_size,
            "dealer": self.dealer,
            "leader": self.leader,
            "trump": self._trump_letter(),
            "trump_card": _TEXT[self.trump_card] if self.trump_card is not None else None,
            "turned_up": [_TEXT[c] for c in self.turned],
            "bids": list(self.bids),
            "tricks": list(self.tricks),
            "forbidden_bid": self.forbidden_bid(),
            "hand_counts": [len(h) for h in self.hands],
            "trick": _trick_view(self.trick),
            "last_trick": _trick_view(self.last_trick),
            "sheet": self.sheet(),
        }
        if seat is not None:
            view["hand"] = [_TEXT[c] for c in sorted(self.hands[seat], key=display_key)]
        return view

    # -- speed and checks ---------------------------------------------------------------
    def clone(self) -> CarnivalState:
        new = object.__new__(CarnivalState)
        new.n, new.seed, new.options, new.deals = self.n, self.seed, self.options, self.deals
        new._legal_cache = self._legal_cache
        new.phase, new.deal_index, new.hand_size = self.phase, self.deal_index, self.hand_size
        new.dealer, new.leader, new.trump, new.trump_card = self.dealer, self.leader, self.trump, self.trump_card
        new.turn, new.trick, new.last_trick = self.turn, self.trick, self.last_trick
        if new.trick is not None:  # the fast path changes the trick in play in place
            new.trick = {**new.trick, "plays": new.trick["plays"][:]}
        new.hands = [h[:] for h in self.hands]
        new.turned, new.stock, new.pile = self.turned[:], self.stock[:], self.pile[:]
        new.bids, new.tricks = self.bids[:], self.tricks[:]
        new.log = self.log[:]
        return new

    # -- the fast path (engine.core: integer actions, no events) ---------------------------
    # Codes: ``play C`` is C's code, + _OVER / _UNDER / _HIGH / _LOW with a word; a pair A B is
    # _CARNIVAL or _GIVE + A * 128 + B; ``bid N`` is _BID + N. The fast step changes the hands, the
    # bids, the tricks, the pile and the trick in play in place (``clone`` copies all of them).
    # The seat to act is the plain attribute ``current``; ``turn`` reads and writes it.

    def fast_legal(self) -> list[int]:
        """The actions of ``_legal`` as ints, in the same order. The common cases go first, each without
        the general sort: a follow that must stay in the led suit (an unpaired card of it is held), a
        lead, a bid before the last bidder's (no hook yet: a shared list)."""
        seat = self.current
        if seat is None:
            return []
        hand = self.hands[seat]
        trick = self.trick
        if trick is not None:
            if trick["mode"] is None and trick["kind"] == "single":
                return self._fast_follows(hand, trick["led"], trick["bkey"])
        elif self.phase == "bid":
            if seat != self.dealer:
                return _BIDS[self.hand_size]
            forbidden = hook_forbidden_bid(self.bids, self.hand_size, self.n)
            return [_BID + b for b in range(self.hand_size + 1) if b != forbidden]
        else:
            return self._fast_leads(hand)
        distinct = sorted(set(hand), key=_DISPLAY_KEY)
        out: list[int] = []
        if trick["kind"] == "carnival":
            for i, a in enumerate(distinct):
                base = _GIVE + a * 128
                if hand.count(a) > 1:
                    out.append(base + a)
                out.extend(base + b for b in distinct[i + 1:])
            return out
        mode = trick["mode"]  # a joker led high or low: any card, over and under where it ties the best
        led, trump, best = trick["led"], self.trump, trick["bkey"]
        for card in distinct:
            if card == JK or single_key(card, None, led, mode, trump) == best:
                out += (_OVER + card, _UNDER + card)
            else:
                out.append(card)
        return out

    def _fast_follows(self, hand: list[int], led: int, best: int) -> list[int]:
        """A follower's actions as ints after a plain lead of suit ``led``, the best key so far ``best``:
        the cards ``follow_cards`` allows in display order, a joker and the one card whose
        ``single_key`` equals ``best`` (if allowed) both over and under."""
        low = led << 4
        high = low + 16
        same = [c for c in hand if low <= c < high]
        allowed = set(same)
        if len(same) != 2 * len(allowed):  # an unpaired card of the led suit: the suit is forced
            out = sorted(allowed, reverse=True)  # one suit: display order is high rank first
            if JK in hand:
                allowed.add(JK)
                out.insert(0, JK)
        else:
            allowed = follow_cards(hand, led, self.trump)
            out = sorted(allowed, key=_DISPLAY_KEY)
        # keys in a plain trick: 100 + rank a card of the led suit, 200 + rank a trump, 1000 a joker over
        if best < _KEY_TRUMP:
            equal = low + best - _KEY_PLAIN
        elif best < _KEY_JOKER:
            equal = (self.trump << 4) + best - _KEY_TRUMP
        else:
            equal = -1
        if equal in allowed:
            at = out.index(equal)
            out[at:at + 1] = (_OVER + equal, _UNDER + equal)
        if out[0] == JK:
            out[0:1] = (_OVER + JK, _UNDER + JK)
        return out

    @staticmethod
    def _fast_leads(hand: list[int]) -> list[int]:
        """A leader's actions as ints: every distinct card (a joker high and low), then the Carnivals
        (a pair of identical cards; two jokers with three or four; a joker and any card with four)."""
        cards = sorted(hand, key=_DISPLAY_KEY)  # jokers first; a card held twice lies next to its twin
        distinct = list(dict.fromkeys(cards))
        out = distinct[:]
        if distinct[0] == JK:
            out[0:1] = (_HIGH + JK, _LOW + JK)
        if len(distinct) < len(cards):
            out += [_CARNIVAL + a * 129 for a, b in zip(cards, cards[1:], strict=False) if a == b and a != JK]
            jokers = cards.count(JK)
            if jokers >= 3:
                out.append(_CARNIVAL + JK * 129)
            if jokers == 4:
                out += [_CARNIVAL + JK * 128 + c for c in distinct[1:]]
        return out

    def fast_apply(self, action: int) -> None:
        """``act`` for an int from ``fast_legal``: the same state, no events, no checks. A plain card
        following a plain lead (most actions) goes first."""
        self._legal_cache = None
        seat = self.current
        assert seat is not None, "fast_apply on a finished game"
        trick = self.trick
        if action < _OVER and trick is not None and trick["mode"] is None:
            self.hands[seat].remove(action)
            # single_key(action, None, led, None, trump), inline
            suit = action >> 4
            key = (_KEY_TRUMP + (action & 15) if suit == self.trump else
                   _KEY_PLAIN + (action & 15) if suit == trick["led"] else 0)
            if key > trick["bkey"]:
                trick["best"], trick["bkey"] = seat, key
            trick["plays"].append([seat, [action], None])
        elif action >= _BID:
            self.bids[seat] = action - _BID
            seat = seat + 1 if seat + 1 < self.n else 0
            if seat == self.leader:
                self.phase = "play"
            self.current = seat
            return
        else:
            trick = self._fast_card_or_pair(seat, action, trick)
        seat += 1
        if seat == self.n:
            seat = 0
        if seat != trick["leader"]:
            self.current = seat
            return
        winner = trick["best"]
        self.tricks[winner] += 2 if trick["kind"] == "carnival" else 1
        pile = self.pile
        for play in trick["plays"]:
            pile += play[1]
        trick["winner"] = winner  # the trick in play is this state's own (``clone`` copies it): it becomes last_trick
        self.last_trick = trick
        self.trick = None
        self.current = winner
        if not self.hands[winner] and not self._log_deal():  # the deal is over: no events, no score sheet
            self._deal(self.deal_index + 1)

    def _fast_card_or_pair(self, seat: int, action: int, trick: CarnivalTrick | None) -> CarnivalTrick:
        """The fast step's other plays: a lead, a Carnival and its answers, a card after a joker lead,
        a card or joker placed over or under; returns the trick in play."""
        hand = self.hands[seat]
        if action < _CARNIVAL:
            card = action & 127
            cards = [card]
            place = _PLACES[action >> 7]
            hand.remove(card)
        else:
            pair = action - (_GIVE if action >= _GIVE else _CARNIVAL)
            cards = [pair >> 7, pair & 127]
            place = None
            hand.remove(cards[0])
            hand.remove(cards[1])
        if trick is None:
            trick = self.trick = self._lead(seat, cards, place)
            return trick
        if trick["kind"] == "carnival":
            key, suit = pair_key(cards[0], cards[1], trick["bsuit"], self.trump)
            if key > trick["bkey"] or key == _KEY_JOKER:
                trick["best"], trick["bkey"], trick["bsuit"] = seat, key, suit
        else:
            key = single_key(cards[0], place, trick["led"], trick["mode"], self.trump)
            if key > trick["bkey"] or (key == trick["bkey"] and place == "over"):
                trick["best"], trick["bkey"] = seat, key
        trick["plays"].append([seat, cards, place])
        return trick

    def action_to_text(self, action: int) -> str:
        if action >= _BID:
            return f"bid {action - _BID}"
        if action < _CARNIVAL:
            return "play " + _TEXT[action & 127] + _PLACE_WORDS[action >> 7]
        verb, pair = ("give", action - _GIVE) if action >= _GIVE else ("carnival", action - _CARNIVAL)
        return f"{verb} {_TEXT[pair >> 7]} {_TEXT[pair & 127]}"

    def text_to_action(self, text: str) -> int:
        verb, *args = text.split(" ")
        if verb == "bid":
            return _BID + int(args[0])
        if verb == "play":
            return _PLACE_WORDS.index(" " + args[1] if len(args) > 1 else "") * 128 + _CODE[args[0]]
        base = _GIVE if verb == "give" else _CARNIVAL
        return base + _CODE[args[0]] * 128 + _CODE[args[1]]

    def to_json(self) -> dict[str, Any]:
        """As ``State.to_json``; the copy is made by marshal (C speed, exact for plain JSON data)."""
        return {
            "game": self.GAME_ID,
            "players": self.n,
            "seed": self.seed,
            "options": _options_json(self.options),
            "deals": _copy(self.deals),
            "state": _copy({name: getattr(self, name) for name in self.FIELDS}),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> State:
        if data.get("game") != cls.GAME_ID:
            return State.from_json(data)
        new = object.__new__(cls)
        new.n = int(data["players"])
        new.seed = int(data["seed"])
        options = GAME.parse_options(data.get("options") or {})
        assert isinstance(options, CarnivalOptions)  # GAME's options class
        new.options = options
        new.deals = _copy(list(data.get("deals") or []))
        new._legal_cache = None
        fields = _copy(dict(data["state"]))
        for name in cls.FIELDS:
            setattr(new, name, fields[name])
        return new

    def check_invariants(self) -> None:
        n = self.n
        in_trick = [c for play in self.trick["plays"] for c in play[1]] if self.trick else []
        everything = Counter(self.stock) + Counter(self.turned) + Counter(self.pile) + Counter(in_trick)
        for hand in self.hands:
            everything.update(hand)
        assert everything == PACK_COUNTS, f"cards not conserved: {_diff(everything)}"
        assert (self.turn is None) == (self.phase == "over"), "turn/phase mismatch"
        size = self.hand_size
        assert size == HAND_SIZES[self.deal_index // n]
        assert self.leader == (self.dealer + 1) % n
        assert len(self.stock) + len(self.turned) == 76 - n * size, "stock size"
        done = sum(self.tricks)
        assert len(self.pile) == n * done, "pile size"
        played = [0] * n
        if self.trick:
            for seat, cards, _ in self.trick["plays"]:
                played[seat] += len(cards)
            assert _replay_best(self.trick, self.trump) == self.trick["best"], "trick winner drifted"
            assert self.trick["best"] in [p[0] for p in self.trick["plays"]]
        for s in range(n):
            assert len(self.hands[s]) == size - done - played[s], f"seat {s} holds {len(self.hands[s])} cards"
        if self.phase == "bid":
            assert done == 0 and self.trick is None
            assert self.turn is not None and self.bids[self.turn] is None
        elif self.phase == "play":
            assert sum(self._all_bids()) != size, "bids"
        finished = self.deal_index + (1 if self.phase == "over" else 0)
        assert len(self.log) == finished, "deal log length"
        if self.phase == "over":
            assert finished == self.deals_total and not any(self.hands)
        for i, entry in enumerate(self.log):
            size = HAND_SIZES[i // n]
            assert len(entry) == 3 + 2 * n and 0 <= entry[0] < n
            bids, tricks = entry[3:3 + n], entry[3 + n:]
            assert all(0 <= b <= size for b in bids) and sum(bids) != size, f"deal {i + 1}: bids {bids}"
            assert sum(tricks) == size and min(tricks) >= 0, f"deal {i + 1}: tricks {tricks} != hand size"

    # -- AI: determinised search --------------------------------------------------------
    def determinize(self, seat: int, rng: random.Random) -> CarnivalState:
        """Other hands and the stock dealt afresh from the unseen cards. Voids come from the visible
        tricks (in play and the last one): off the led suit and off trumps means no unpaired card of
        either (taken as a void; a held-back pair is rare, and the sampler relaxes if it must)."""
        from engine.ai.sampling import Slot, deal_hidden, hide_future, merge_voids, voids_from_trick

        voids: dict[int, set[int]] = {}
        for trick in (self.trick, self.last_trick):
            if trick and trick["kind"] == "single" and trick["mode"] is None:
                plays = [(p[0], p[1][0]) for p in trick["plays"]]
                merge_voids(voids, voids_from_trick(plays, self.trump, must_trump=True))
        others = [s for s in range(self.n) if s != seat]
        slots = [Slot(len(self.hands[s]), void=voids.get(s, set())) for s in others]
        slots.append(Slot(len(self.stock)))
        pool = [c for s in others for c in self.hands[s]] + self.stock
        dealt = deal_hidden(slots, pool, rng)
        new = self.clone()
        hands = new.hands
        for s, hand in zip(others, dealt, strict=False):
            hands[s] = hand
        new.stock = dealt[-1]
        new._legal_cache = None
        hide_future(new, rng)
        return new


_OPTIONS_JSON: dict[CarnivalOptions, dict[str, Any]] = {}


def _options_json(options: CarnivalOptions) -> dict[str, Any]:
    """``options.model_dump(mode="json")``, cached (options are frozen)."""
    dumped = _OPTIONS_JSON.get(options)
    if dumped is None:
        dumped = _OPTIONS_JSON[options] = options.model_dump(mode="json")
    return dict(dumped)


def _copy(value: Any) -> Any:
    """Deep copy of plain JSON data."""
    return marshal.loads(marshal.dumps(value))


def _replay_best(trick: CarnivalTrick, trump: int) -> int:
    """Recompute a trick's current winner from its plays (an invariant check)."""
    plays = trick["plays"]
    seat: int
    cards: list[int]
    seat, cards, _ = plays[0]
    if trick["kind"] == "carnival":
        key, suit = lead_pair_key(cards[0], cards[1], trump)
        best = seat
        for seat, cards, _ in plays[1:]:
            k, s = pair_key(cards[0], cards[1], suit, trump)
            if k > key or k == _KEY_JOKER:
                best, key, suit = seat, k, s
        return best
    mode, led = trick["mode"], trick["led"]
    key = (_KEY_JOKER if mode == "high" else 0) if mode else single_key(cards[0], None, led, None, trump)
    best = seat
    for seat, cards, place in plays[1:]:
        k = single_key(cards[0], place, led, mode, trump)
        if k > key or (k == key and place == "over"):
            best, key = seat, k
    return best


def _diff(found: Counter[int]) -> str:
    extra = {_TEXT.get(c, str(c)): v for c, v in (found - PACK_COUNTS).items()}
    missing = {_TEXT.get(c, str(c)): v for c, v in (PACK_COUNTS - found).items()}
    return f"extra {extra}, missing {missing}"


def _placed_play(seat: int, cards: list[int], place: str | None) -> PlacedPlay:
    return {"seat": seat, "cards": [_TEXT[c] for c in cards], "place": place}


def _plays_view(plays: list[list[Any]]) -> list[Play]:
    return [_placed_play(seat, cards, place) for seat, cards, place in plays]


def _trick_view(trick: CarnivalTrick | None) -> CarnivalTrickView | None:
    if trick is None:
        return None
    view: CarnivalTrickView = {"leader": trick["leader"], "kind": trick["kind"], "lead_mode": trick["mode"],
                               "plays": _plays_view(trick["plays"]), "best": trick["best"]}
    if "winner" in trick:
        view["winner"] = trick["winner"]
        view["count"] = 2 if trick["kind"] == "carnival" else 1
    return view


GAME = register(Game(options=CarnivalOptions, state=CarnivalState))  # id, name and players: the declaration
