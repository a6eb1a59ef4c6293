"""Oh Hell (Черт побери), 3-7 players, 52 cards: bid the exact number of tricks you will take.

Rules: RULES.md (the team rules digest) section 4 (the Hoyle version the seed describes). A game is a series
of deals; deal ``d`` gives every player ``hand_sizes[d]`` cards (by default 1, 2, ... up to 15/13/10/8/7
deals for 3/4/5/6/7 players). The card after the hands is turned for trump; the last deal of the game
is played at no trump (option ``last_deal_no_trump``), and so is a deal that uses the whole pack.
Everyone bids 0..k from the dealer's left (no hook unless option ``hook``: then the dealer, who bids
last, may not make the total equal k). The dealer's left leads; follow suit if able, otherwise any card
(no duty to trump). Exact bid: 10 + bid (option ``zero_bonus``: a made 0 scores 5 + k); missed: 0.

Seats are clockwise. The last seat deals first, so seat 0 (P1) bids and leads first; the deal then
passes to the left. Explicit deals (``deals[d]``): ``{"dealer": s, "hands": [[card texts] per seat],
"trump": "C" | "QH" | null}`` (a suit letter, the turned card, or null for no trump).

Action verbs (canonical notation):
- ``bid N``: bid N tricks, 0 <= N <= the hand size;
- ``play C``: play card C (e.g. ``play 10H``).

Events: ``deal`` (deal_no, dealer, hand_size, trump, trump_card), ``bid`` (seat, bid), ``bidding_done``
(bids, total, hand_size, ``balance``: "over" | "under" | "even", for the scorekeeper's announcement),
``play`` (seat, card), ``trick`` (leader, cards, winner), ``deal_end`` (bids, tricks, points, scores),
``game_over`` (scores, winners).
"""

from __future__ import annotations

import random
from functools import partial
from itertools import starmap
from operator import add, getitem
from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field, field_validator

from engine.cards import CARD_TEXT, card_str, deck, parse_card, suit_of
from engine.core import (
    Event,
    Game,
    GameError,
    Options,
    OptionsError,
    State,
    TurnIsCurrent,
    ViewPart,
    deal_rng,
    register,
)
from engine.events import DealEndEvent, DealEvent, OtherEvent, TrickEvent
from engine.tricks import (
    NO_TRUMP,
    PLAIN_WIN_KEYS,
    PLAY_CARD,
    PLAY_TEXT,
    TakenTrick,
    follow_suit_plays,
    hook_forbidden_bid,
    open_trick_view,
    plain_winning_index,
    seated_plays,
    sort_key_fn,
    sort_key_table,
    taken_trick_view,
    trump_from_letter,
    trump_letter,
    why_card_refused,
)

PACK = 52
MAX_HAND = PACK // 3  # the largest hand any player count allows (3 players)
STANDARD_DEALS = {3: 15, 4: 13, 5: 10, 6: 8, 7: 7}

FULL_PACK = deck(PACK)
BID_TEXT = [f"bid {b}" for b in range(MAX_HAND + 1)]
BID_VALUE = {text: b for b, text in enumerate(BID_TEXT)}
BID_CODE = 64  # fast path: bid b is the int BID_CODE + b (card plays are the card codes, all below 64)
_BID_CODES = [list(range(BID_CODE, BID_CODE + k + 1)) for k in range(MAX_HAND + 1)]
TRUMP_LETTER = [trump_letter(trump) for trump in (0, 1, 2, 3, NO_TRUMP)]  # by trump; NO_TRUMP (-1) is last
_ORDER = [sort_key_fn(trump) for trump in (0, 1, 2, 3, NO_TRUMP)]  # the hand's sort key, by trump likewise
# SUIT[card] is ``card >> 4`` for the 52 cards: on the fast path a look-up in a list is a specialised
# bytecode, while ``>>`` is a generic number operation in Python 3.11 (several times the cost).
SUIT = [card >> 4 for card in range(64)]
# POINTS[b][t], ZERO_POINTS[k][b][t]: a deal's points for bid b and t tricks taken (``deal_points``; the
# zero bonus depends on the hand size k), as tables: scoring every simulated deal is two C-level maps.
POINTS = [[10 + b if b == t else 0 for t in range(MAX_HAND + 1)] for b in range(MAX_HAND + 1)]
ZERO_POINTS = [[[0 if b != t else 10 + b if b else 5 + k for t in range(MAX_HAND + 1)] for b in range(MAX_HAND + 1)]
               for k in range(MAX_HAND + 1)]
# NEXT_SEAT[n][seat]: the seat to the left (one look-up on the fast path instead of an add and a test)
NEXT_SEAT: list[tuple[int, ...]] = [tuple((seat + 1) % n for seat in range(n)) for n in range(8)]


class OhHellDeal(DealEvent):
    hand_size: int
    trump: str | None  # a suit letter, None for no trumps
    trump_card: str | None


class BiddingDone(OtherEvent):
    """``type`` "bidding_done": every bid is in; their ``total`` is over, under or even with the tricks."""

    bids: list[int]
    total: int
    hand_size: int
    balance: str


class OhHellDealEnd(DealEndEvent):
    bids: list[int]
    tricks: list[int]
    points: list[int]


class OhHellView(ViewPart):
    leader: int
    deals_total: int
    hand_size: int
    trump: str | None
    trump_card: str | None
    bids: list[int | None]
    tricks: list[int]
    sheet: dict[str, Any]
    bid_total: NotRequired[int]  # once bidding is over
    balance: NotRequired[str]
    forbidden_bid: NotRequired[int | None]  # the hook, while the dealer bids


class OhHellOptions(Options):
    """House rules; defaults follow the seed (RULES.md 4.2-4.3)."""

    hook: bool = Field(False, description="the dealer may not bid so that the bids total the hand size")
    zero_bonus: bool = Field(False, description="a made 0 bid scores 5 + the number of cards dealt")
    hand_sizes: Literal["ascending", "up_and_down"] | list[Annotated[int, Field(ge=1, le=MAX_HAND)]] = Field(
        "ascending",
        description="ascending (1, 2, ... 15/13/10/8/7 deals), up_and_down (1 .. max .. 1) or a list of hand sizes",
    )
    last_deal_no_trump: bool = Field(True, description="the last deal of the game is played without trumps")

    @field_validator("hand_sizes", mode="before")
    @classmethod
    def _sizes_from_text(cls, value: Any) -> Any:
        """Accept "5,4,3" (the CLI and chat settings pass text) as a list."""
        if isinstance(value, str) and value.replace(",", " ").replace(" ", "").isdigit():
            return [int(part) for part in value.replace(",", " ").split()]
        return value

    @field_validator("hand_sizes")
    @classmethod
    def _sizes_length(cls, value: Any) -> Any:
        if isinstance(value, list) and not 1 <= len(value) <= 60:
            raise ValueError("give between 1 and 60 hand sizes")
        return value


_SIZES_SEEN: dict[tuple[int, int], tuple[OhHellOptions, list[int]]] = {}


def hand_sizes_for(options: OhHellOptions, players: int) -> list[int]:
    """The hand size of every deal of the game, validated against the pack for ``players``. The list is
    shared (states never change it in place) and remembered per options object: every simulated deal
    starts a game."""
    seen = _SIZES_SEEN.get((id(options), players))
    if seen is not None and seen[0] is options:
        return seen[1]
    sizes = _hand_sizes(options, players)
    if len(_SIZES_SEEN) >= 64:
        _SIZES_SEEN.clear()
    _SIZES_SEEN[id(options), players] = (options, sizes)
    return sizes


def _hand_sizes(options: OhHellOptions, players: int) -> list[int]:
    top = STANDARD_DEALS[players]
    sizes = options.hand_sizes
    if sizes == "ascending":
        return list(range(1, top + 1))
    if sizes == "up_and_down":
        return list(range(1, top + 1)) + list(range(top - 1, 0, -1))
    limit = PACK // players
    too_big = [k for k in sizes if k > limit]
    if too_big:
        raise OptionsError(f"hand_sizes: {players} players can be dealt at most {limit} cards each, not {too_big[0]}")
    return list(sizes)


_NO_ARGS = ((),) * PACK  # one empty argument tuple per card: ``starmap(rng.random, _NO_ARGS)`` draws 52 floats


def shuffled_pack(rng: random.Random) -> list[int]:
    """A shuffled 52-card pack: sorting by i.i.d. random floats is a uniform permutation and about
    twice as fast as ``random.shuffle`` (dealing is a hot path of simulations). ``sorted`` asks for the
    keys once per card in pack order; the key is ``next(draws, card)`` on a lazy stream of ``rng.random()``
    calls: the same floats as ``key=lambda _card: rng.random()``, drawn in C with no Python call per card."""
    return sorted(FULL_PACK, key=partial(next, starmap(rng.random, _NO_ARGS)))


def deal_points(bid: int, took: int, hand_size: int, zero_bonus: bool) -> int:
    """Points for one player's deal: exact bid 10 + bid (or 5 + hand size for a made 0 with the bonus)."""
    if bid != took:
        return 0
    if bid == 0 and zero_bonus:
        return 5 + hand_size
    return 10 + bid


def balance(total: int, hand_size: int) -> str:
    """What the scorekeeper announces after bidding: the bids are over, under or even with the tricks."""
    return "over" if total > hand_size else "under" if total < hand_size else "even"


class OhHellState(TurnIsCurrent, State):
    GAME_ID = "oh_hell"
    FIELDS = (
        "sizes", "deal_index", "phase", "dealer", "turn", "hands", "trump", "trump_card", "bids",
        "won", "trick_leader", "trick", "played", "last_trick", "totals", "history",
    )

    options: OhHellOptions
    sizes: list[int]
    deal_index: int
    phase: str
    dealer: int
    turn: int | None
    hands: list[list[int]]
    trump: int
    trump_card: int | None
    bids: list[int | None]
    won: list[int]
    trick_leader: int
    trick: list[int]
    totals: list[int]
    history: list[dict[str, Any]]

    # -- setup and dealing ------------------------------------------------------
    def _setup(self) -> None:
        self.sizes = hand_sizes_for(self.options, self.n)
        self.deal_index = 0
        self.dealer = self.n - 1
        self.totals = [0] * self.n
        self.history = []
        self.last_trick = None
        self._check_no_trump_deals()
        self._deal(0)

    def _check_no_trump_deals(self) -> None:
        """An explicit deal may not name a trump for a deal the rules play at no trump (the last deal
        with ``last_deal_no_trump``, a deal of the whole pack): checked up front, before any play."""
        if len(self.deals) > len(self.sizes):
            raise GameError(f"oh_hell: {len(self.deals)} explicit deals, but this game has {len(self.sizes)}")
        for index, spec in enumerate(self.deals):
            last = self.options.last_deal_no_trump and index == len(self.sizes) - 1
            whole_pack = self.n * self.sizes[index] >= PACK
            trump = spec.get("trump") if isinstance(spec, dict) else None
            if (last or whole_pack) and trump is not None and str(trump).upper() != "NT":
                raise GameError(f"oh_hell: explicit deal {index + 1} names trump {trump!r}, but that deal is "
                                "played at no trump (write NT or null)")

    def _deal(self, index: int, pack: list[int] | None = None) -> None:
        n = self.n
        sizes = self.sizes
        k = sizes[index]
        dealer = (self.dealer + 1) % n if index else n - 1
        deals = self.deals
        spec = deals[index] if index < len(deals) else None
        if spec:
            dealer, hands, trump, trump_card = self._explicit(spec, dealer, k)
        else:
            if pack is None:
                pack = shuffled_pack(deal_rng(self.seed, index))
            first = dealer + 1
            dealt = n * k
            # one card at a time clockwise from the dealer's left
            hands = [pack[(s - first) % n: dealt: n] for s in range(n)]
            if dealt < PACK and not (index == len(sizes) - 1 and self.options.last_deal_no_trump):
                trump_card = pack[dealt]
                trump = trump_card >> 4
            else:
                trump_card, trump = None, NO_TRUMP
        order = _ORDER[trump]
        suits = []
        for hand in hands:
            hand.sort(key=order)
            by_suit: list[list[int]] = [[], [], [], []]
            for card in hand:
                by_suit[SUIT[card]].append(card)
            suits.append(by_suit)
        self._suits = suits
        self._next_seat = NEXT_SEAT[n]
        self._next_legal = None if self.options.hook else _BID_CODES[k]
        self.deal_index = index
        self.dealer = dealer
        self.hands = hands
        self.trump = trump
        self.trump_card = trump_card
        self.bids = [None] * n
        self.won = [0] * n
        self.phase = "bid"
        self.current = self.trick_leader = dealer + 1 if dealer + 1 < n else 0
        self.trick = []
        self._done = []

    def _deal_event(self) -> OhHellDeal:
        """The "deal" event of the deal just dealt (the public path's; the fast path skips it)."""
        trump_card = self.trump_card
        return {
            "type": "deal", "deal_no": self.deal_index + 1, "dealer": self.dealer,
            "hand_size": self.sizes[self.deal_index], "trump": trump_letter(self.trump),
            "trump_card": card_str(trump_card) if trump_card is not None else None,
        }

    def _explicit(self, spec: dict[str, Any], dealer: int, k: int) -> tuple[int, list[list[int]], int, int | None]:
        """Validate an explicit deal: seats, hand sizes, distinct cards, the trump."""
        n = self.n
        try:
            dealer = int(spec.get("dealer", dealer))
            hands = [[parse_card(c) for c in hand] for hand in spec["hands"]]
            trump_text = spec.get("trump")
            trump_card = None
            if trump_text is None or str(trump_text).upper() in ("S", "H", "D", "C", "NT"):
                trump = trump_from_letter(trump_text)
            else:
                trump_card = parse_card(str(trump_text))
                trump = suit_of(trump_card)
        except (KeyError, TypeError, ValueError) as exc:
            raise GameError(f"oh_hell: malformed explicit deal: {exc}") from None
        if not 0 <= dealer < n or len(hands) != n or any(len(h) != k for h in hands):
            raise GameError(f"oh_hell: an explicit deal needs a dealer 0..{n - 1} and {n} hands of {k} cards")
        cards = [c for h in hands for c in h] + ([trump_card] if trump_card is not None else [])
        if len(set(cards)) != len(cards) or any(suit_of(c) < 0 for c in cards):
            raise GameError("oh_hell: an explicit deal repeats a card or uses a joker")
        return dealer, hands, trump, trump_card

    # -- turn and legal actions -------------------------------------------------------
    def _to_act(self) -> int | None:
        return self.turn

    def _forbidden_bid(self) -> int | None:
        """The bid the hook forbids the seat to act (None: no restriction)."""
        if not self.options.hook:
            return None
        n = self.n
        order = [self.bids[(self.dealer + 1 + i) % n] for i in range(n)]
        return hook_forbidden_bid(order, self.sizes[self.deal_index], n)

    def _legal(self) -> list[str]:
        if self.phase == "bid":
            k = self.sizes[self.deal_index]
            forbidden = self._forbidden_bid() if self.options.hook else None
            if forbidden is None:
                return BID_TEXT[: k + 1]
            return [BID_TEXT[b] for b in range(k + 1) if b != forbidden]
        seat = self.turn
        assert seat is not None
        return follow_suit_plays(self.hands[seat], self.trick)

    def why_illegal(self, action: str) -> str:
        seat = self.turn
        if seat is None:
            return "the game is over"
        if self.phase == "bid":
            if action in BID_VALUE:
                bid = BID_VALUE[action]
                if bid == self._forbidden_bid():
                    k = self.sizes[self.deal_index]
                    return f"hook: the dealer may not bid {bid} (the bids would total the {k} tricks)"
                return f"bids go from 0 to {self.sizes[self.deal_index]}"
            return "it is time to bid: 'bid N'"
        return why_card_refused(PLAY_CARD.get(action), self.hands[seat], self.trick)

    # -- applying actions ---------------------------------------------------------------

    def _bid(self, bid: int) -> list[Event]:
        self._next_legal = None
        seat = self.turn
        assert seat is not None
        self.bids[seat] = bid
        events: list[Event] = [{"type": "bid", "seat": seat, "bid": bid}]
        self.turn = (seat + 1) % self.n
        if seat == self.dealer:
            k = self.sizes[self.deal_index]
            bids = self._all_bids()
            total = sum(bids)
            done: BiddingDone = {"type": "bidding_done", "bids": bids, "total": total, "hand_size": k,
                                 "balance": balance(total, k)}
            events.append(done)
            self.phase = "play"
        return events

    def _apply(self, action: str) -> list[Event]:
        card = PLAY_CARD.get(action)
        if card is None:
            return self._bid(BID_VALUE[action])
        seat = self.turn
        assert seat is not None
        n = self.n
        self.hands[seat].remove(card)
        self._suits = self._next_legal = None
        trick = self.trick
        keys = self._win_keys
        if not trick:
            keys = self._win_keys = PLAIN_WIN_KEYS[self.trump][card >> 4]
            self._best_key, self._best_seat = keys[card], seat
        elif keys is None:
            self._track_best(seat, card)  # a trick set up without _note_best
        elif keys[card] > self._best_key:
            self._best_key, self._best_seat = keys[card], seat
        trick.append(card)
        events: list[Event] = [{"type": "play", "seat": seat, "card": CARD_TEXT[card], "cards": [CARD_TEXT[card]]}]
        if len(trick) < n:
            self.turn = (seat + 1) % n
            return events
        leader = self.trick_leader
        winner = (leader + plain_winning_index(trick, self.trump)) % n
        self.won[winner] += 1
        self.last_trick = {"leader": leader, "cards": trick, "winner": winner}
        self._done += trick
        self.trick = []
        self.trick_leader = winner
        self.turn = winner
        taken: TrickEvent = {"type": "trick", "leader": leader, "cards": [CARD_TEXT[c] for c in trick],
                             "winner": winner, "plays": seated_plays(leader, n, trick)}
        events.append(taken)
        if not self.hands[winner]:
            events.extend(self._end_deal())
        return events

    def _all_bids(self) -> list[int]:
        """The bids once every seat has bid (the play phase and after): a new list."""
        bids = [b for b in self.bids if b is not None]
        assert len(bids) == self.n, "a seat has not bid"
        return bids

    def _score_deal(self) -> list[int]:
        """Score the deal just played into ``totals`` and ``history``; returns its points per seat
        (``deal_points`` per seat as table look-ups: it runs at the end of every simulated deal)."""
        k = self.sizes[self.deal_index]
        bids = self._all_bids()
        won = self.won
        table = ZERO_POINTS[k] if self.options.zero_bonus else POINTS
        points = list(map(getitem, map(table.__getitem__, bids), won))
        totals = self.totals
        totals[:] = map(add, totals, points)
        trump_card = self.trump_card
        self.history.append({
            "deal_no": self.deal_index + 1, "dealer": self.dealer, "hand_size": k,
            "trump": TRUMP_LETTER[self.trump], "trump_card": None if trump_card is None else CARD_TEXT[trump_card],
            "bids": bids[:], "tricks": won[:], "points": points, "totals": totals[:],
        })
        return points

    def _next_deal_or_over(self) -> bool:
        """Deal the next hand, or end the game; True when the game is over."""
        if self.deal_index + 1 < len(self.sizes):
            self._deal(self.deal_index + 1)
            return False
        self.phase = "over"
        self.current = None
        return True

    def _end_deal(self) -> list[Event]:
        points = self._score_deal()
        totals = self.totals
        end: OhHellDealEnd = {"type": "deal_end", "bids": self._all_bids(), "tricks": list(self.won),
                              "points": points, "scores": list(points), "totals": list(totals)}
        events: list[Event] = [end]
        if not self._next_deal_or_over():
            events.append(self._deal_event())
        else:
            best = max(totals)
            events.append({"type": "game_over", "scores": list(totals), "totals": list(totals),
                           "winners": [s for s, t in enumerate(totals) if t == best]})
        return events

    def clone(self) -> OhHellState:
        """A copy for search: the generic field-by-field copy, unrolled (AI search clones a lot).
        ``sizes``, ``last_trick`` and the history entries are never changed in place, so they are shared."""
        new = object.__new__(OhHellState)
        new.n, new.seed, new.options, new.deals = self.n, self.seed, self.options, self.deals
        new._legal_cache = self._legal_cache
        new.sizes = self.sizes
        new.deal_index, new.phase, new.dealer, new.turn = self.deal_index, self.phase, self.dealer, self.turn
        new.hands = [list(h) for h in self.hands]
        new.trump, new.trump_card = self.trump, self.trump_card
        new.bids, new.won = list(self.bids), list(self.won)
        new.trick_leader, new.trick, new._done = self.trick_leader, list(self.trick), list(self._done)
        new._last = self._last
        new._next_seat = self._next_seat
        new.totals, new.history = list(self.totals), list(self.history)
        new._suits = new._next_legal = None
        new._win_keys, new._best_key, new._best_seat = self._win_keys, self._best_key, self._best_seat
        return new

    # -- the fast path (engine.core: integer actions, no events) -----------------------------
    # A card play is the card's code (2..62), a bid ``b`` is ``BID_CODE + b``.
    # The seat to act is stored as the plain attribute ``current``; ``turn`` (the JSON field name the
    # rest of the class uses) reads and writes it. (This class attribute hides State.current's property.)
    # ``_suits[seat][suit]``: the seat's cards of each suit in hand order, derived from ``hands`` (not a
    # field): following suit is then a look-up, not a scan of the hand. Built with each deal; a change of
    # ``hands`` outside the fast step (``act``, ``clone``, ``from_json``) drops it and the next follow rebuilds it.
    # ``_led``: the trick's led suit, set by the fast lead and by ``_index_suits`` (a public lead drops
    # ``_suits``, so the next follow rebuilds both). ``_next_seat``: ``NEXT_SEAT[n]``.
    # ``_last``: ``last_trick``, kept by the fast step as a tuple (one dict fewer a trick). ``_done``: see ``played``.

    # ``_win_keys``, ``_best_key``, ``_best_seat``: the trick's winner so far (``PLAIN_WIN_KEYS`` of its lead),
    # kept as the cards come by both paths (``_note_best``), copied by ``clone``, rebuilt by ``from_json``.
    # ``_next_legal``: what ``fast_legal`` returns next, found by the fast step (it knows the trick and the
    # seat), or the deal's shared bid list; None (then ``fast_legal`` works it out) after a public step, a
    # clone, or with the hook before the dealer's bid.
    _suits: list[list[list[int]]] | None = None
    _led = 0
    _next_legal: list[int] | None = None
    _next_seat: tuple[int, ...] = ()
    _last: tuple[int, list[int], int] | TakenTrick | None = None
    _done: list[int]
    _win_keys: list[int] | None = None
    _best_key = 0
    _best_seat = 0

    @property
    def last_trick(self) -> TakenTrick | None:
        """The last trick taken (leader, cards, winner); the fast step keeps it as a tuple (``_last``)
        and the dict is made the first time it is asked for."""
        last = self._last
        if isinstance(last, tuple):
            leader, cards, winner = last
            last = self._last = {"leader": leader, "cards": cards, "winner": winner}
        return last

    @last_trick.setter
    def last_trick(self, value: TakenTrick | None) -> None:
        self._last = value

    @property
    def played(self) -> list[int]:
        """The cards played this deal, in order: the finished tricks' (``_done``, extended as each trick is
        taken: no append per card) and the trick on the table's. A new list."""
        return self._done + self.trick

    @played.setter
    def played(self, value: list[int]) -> None:
        """Set with ``trick`` already set (``from_json`` sets the fields in ``FIELDS`` order): ``value``
        ends with the trick on the table."""
        done = len(value) - len(self.trick)
        if done < 0 or value[done:] != self.trick:
            raise GameError("oh_hell: the cards played this deal must end with the trick on the table")
        self._done = list(value[:done])

    def _note_best(self) -> None:
        """Bring the trick's best card up to date with the trick (the public path, after each card)."""
        trick = self.trick
        if not trick:
            self._win_keys = None
            return
        keys = self._win_keys = PLAIN_WIN_KEYS[self.trump][trick[0] >> 4]
        at = max(range(len(trick)), key=lambda i: keys[trick[i]])
        self._best_key = keys[trick[at]]
        self._best_seat = (self.trick_leader + at) % self.n

    def _track_best(self, seat: int, card: int) -> None:
        """``card`` from ``seat`` is about to join the trick: the best so far (the fast step inlines this)."""
        if self.trick:
            keys = self._win_keys
            if keys is None:
                self._note_best()
                keys = self._win_keys
                assert keys is not None, "a trick on the table has its keys"
            key = keys[card]
            if key > self._best_key:
                self._best_key = key
                self._best_seat = seat
        else:
            keys = self._win_keys = PLAIN_WIN_KEYS[self.trump][card >> 4]
            self._best_key = keys[card]
            self._best_seat = seat

    def _after_load(self) -> None:
        self._note_best()
        self._next_seat = NEXT_SEAT[self.n]

    def _index_suits(self) -> list[list[list[int]]]:
        """Rebuild ``_suits`` from ``hands`` (and ``_led`` from the trick on the table)."""
        suits = []
        for hand in self.hands:
            by_suit: list[list[int]] = [[], [], [], []]
            for card in hand:
                by_suit[card >> 4].append(card)
            suits.append(by_suit)
        self._suits = suits
        if self.trick:
            self._led = SUIT[self.trick[0]]
        return suits

    def fast_legal(self) -> list[int]:
        """Legal actions as ints, without allocation: the hand itself (leading or void), the seat's
        cards of the led suit (``_suits``) or a shared list of bids. The fast step has usually found the
        list already (``_next_legal``, never an empty list)."""
        return self._next_legal or self._find_legal()

    def _find_legal(self) -> list[int]:
        """``fast_legal`` when the fast step did not leave the list (after a public step, a clone, a
        load, with the hook before the dealer's bid, or at the end of the game)."""
        trick = self.trick
        if trick:
            turn = self.current
            assert turn is not None, "a trick on the table: someone is to act"
            suits = self._suits
            if suits is None:  # no index yet (after a public step, a clone or a load)
                suits = self._index_suits()
            return suits[turn][SUIT[trick[0]]] or self.hands[turn]
        turn_or_none = self.current
        if turn_or_none is None:
            return []
        if self.phase == "play":
            return self.hands[turn_or_none]
        if not self.options.hook:
            return _BID_CODES[self.sizes[self.deal_index]]
        return self._hook_bids()

    def _hook_bids(self) -> list[int]:
        """The bids with the hook (a function of its own: the comprehension's closure cell would
        otherwise be made on every ``fast_legal`` call)."""
        forbidden = self._forbidden_bid()
        k = self.sizes[self.deal_index]
        return [BID_CODE + b for b in range(k + 1) if b != forbidden]

    def fast_apply(self, action: int) -> None:
        """``act`` for an int from ``fast_legal``: the same state, no events, no checks."""
        self._legal_cache = None
        seat = self.current
        assert seat is not None, "fast_apply on a finished game"
        if action >= 64:  # BID_CODE
            self.bids[seat] = action - 64
            self.current = self._next_seat[seat]
            if seat == self.dealer:
                self.phase = "play"
                self._next_legal = self.hands[self.current]
            # otherwise _next_legal stays: the deal's bid list, or None with the hook (never set while bidding)
            return
        self.hands[seat].remove(action)
        suits = self._suits
        if suits is not None:  # no index (after a public step or a clone): fast_legal builds it when needed
            suits[seat][SUIT[action]].remove(action)
        trick = self.trick
        if trick:
            keys = self._win_keys
            if keys is None:  # a trick set up without _note_best: catch up
                self._note_best()
                keys = self._win_keys
                assert keys is not None, "a trick on the table has its keys"
            key = keys[action]
            if key > self._best_key:
                self._best_key = key
                self._best_seat = seat
        else:
            led = SUIT[action]
            keys = self._win_keys = PLAIN_WIN_KEYS[self.trump][led]
            self._best_key = keys[action]
            self._best_seat = seat
            self._led = led
        trick.append(action)
        seat = self._next_seat[seat]
        if seat != self.trick_leader:  # the trick goes on
            self.current = seat
            # no index: fast_legal works it out
            self._next_legal = None if suits is None else suits[seat][self._led] or self.hands[seat]
            return
        winner = self._best_seat  # seat is the trick's leader again
        self.won[winner] += 1
        self._last = (seat, trick, winner)  # ``last_trick`` makes the dict when asked
        self._done += trick
        self.trick = []
        self.trick_leader = winner
        self.current = winner
        hand = self.hands[winner]
        if hand:
            self._next_legal = hand
        else:
            self._next_legal = None
            self._score_deal()
            self._next_deal_or_over()

    @classmethod
    def from_pack(cls, players: int, options: OhHellOptions, pack: list[int], seed: int = 0) -> OhHellState:
        """A game whose first deal comes from ``pack`` (a shuffled 52-card pack, dealt as the seeded
        shuffle would be), not from the seed: chance as an input, like OpenSpiel's chance nodes, for
        simulations that sample deals. Later deals come from ``seed``; a record of this state does not
        replay (the seed does not give this first deal), so it is for simulation only."""
        new = object.__new__(cls)
        new.n, new.seed, new.options, new.deals, new._legal_cache = players, seed, options, [], None
        new.sizes = hand_sizes_for(options, players)
        new.deal_index, new.dealer, new.totals, new.history = 0, players - 1, [0] * players, []  # no last trick: _last
        new._deal(0, pack)
        return new

    def action_to_text(self, action: int) -> str:
        return BID_TEXT[action - BID_CODE] if action >= BID_CODE else PLAY_TEXT[action]

    def text_to_action(self, text: str) -> int:
        card = PLAY_CARD.get(text)
        return card if card is not None else BID_CODE + BID_VALUE[text]

    # -- views, scores, checks --------------------------------------------------------------
    def _view(self, seat: int | None) -> OhHellView:
        n = self.n
        k = self.sizes[self.deal_index]
        view: OhHellView = {
            "phase": self.phase,
            "hand_counts": [len(h) for h in self.hands],
            "dealer": self.dealer,
            "leader": (self.dealer + 1) % n,
            "deal_no": self.deal_index + 1,
            "deals_total": len(self.sizes),
            "hand_size": k,
            "trump": trump_letter(self.trump),
            "trump_card": card_str(self.trump_card) if self.trump_card is not None else None,
            "bids": list(self.bids),
            "tricks": list(self.won),
            "trick": open_trick_view(self.trick_leader, n, self.trick, self.trump),
            "last_trick": taken_trick_view(self.last_trick, n),
            "sheet": self.sheet(),
        }
        if seat is not None:
            view["hand"] = [card_str(c) for c in self.hands[seat]]
        if self.phase != "bid":
            total = sum(b for b in self.bids if b is not None)
            view["bid_total"] = total
            view["balance"] = balance(total, k)
        elif self.options.hook and self.turn == self.dealer:
            view["forbidden_bid"] = self._forbidden_bid()
        return view

    def scores(self) -> list[int]:
        return list(self.totals)

    def sheet(self) -> dict[str, Any]:
        return {"deals": [dict(d) for d in self.history], "totals": list(self.totals),
                "deals_total": len(self.sizes)}

    def check_invariants(self) -> None:
        n = self.n
        k = self.sizes[self.deal_index]
        # card conservation: hands + played this deal are the n*k dealt cards, all distinct
        cards = [c for h in self.hands for c in h] + self.played
        assert len(cards) == n * k, f"{len(cards)} cards in play, expected {n * k}"
        assert len(set(cards)) == len(cards), "a card appears twice"
        assert self.trump_card is None or self.trump_card not in cards, "the trump card is in play"
        assert self.trump == (suit_of(self.trump_card) if self.trump_card is not None else self.trump)
        completed = sum(self.won)
        assert len(self.played) == completed * n + len(self.trick), "played cards and tricks disagree"
        if self.phase == "bid":
            assert not self.played and all(len(h) == k for h in self.hands)
        for s, hand in enumerate(self.hands):
            in_trick = 1 if (s - self.trick_leader) % n < len(self.trick) else 0
            if self.phase != "bid":
                assert len(hand) == k - completed - in_trick, f"seat {s} holds {len(hand)} cards"
        for b in self.bids:
            assert b is None or 0 <= b <= k
        if self.phase == "over":
            assert self.turn is None
        for d in self.history:
            assert sum(d["tricks"]) == d["hand_size"], "tricks taken do not add up to the hand size"
            for b, t, p in zip(d["bids"], d["tricks"], d["points"], strict=True):
                assert p == deal_points(b, t, d["hand_size"], self.options.zero_bonus)
            if self.options.hook:
                assert sum(d["bids"]) != d["hand_size"], "the hook was broken"
        assert [sum(d["points"][s] for d in self.history) for s in range(n)] == self.totals

    # -- AI: determinised search --------------------------------------------------------
    def determinize(self, seat: int, rng: random.Random) -> OhHellState:
        """Other hands dealt afresh from the unseen cards, keeping the voids the play so far shows."""
        from engine.ai.sampling import hide_future, merge_voids, redeal_other_hands, voids_from_trick

        n = self.n
        voids: dict[int, set[int]] = {}
        leader = (self.dealer + 1) % n
        played = self.played
        for start in range(0, len(played), n):
            cards = played[start:start + n]
            merge_voids(voids, voids_from_trick(((leader + i) % n, c) for i, c in enumerate(cards)))
            if len(cards) == n:
                leader = (leader + plain_winning_index(cards, self.trump)) % n
        new = redeal_other_hands(self, seat, voids, rng, sort_key_table(self.trump).__getitem__)
        new._legal_cache = None if new.turn != seat else new._legal_cache
        hide_future(new, rng)
        return new


GAME = register(Game(options=OhHellOptions, state=OhHellState))  # id, name and players: the declaration
