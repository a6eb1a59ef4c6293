"""Klaberjass (Клаберас): two players, 32 cards, a two-round trump auction, game to 500.

Rules: RULES.md (the team rules digest) section 3 (seed 002, part 1). In short: 6 cards each and a turned
card proposing trump; round 1 ``take`` / ``pass`` / ``schmeiss`` (non-dealer first), round 2
name another suit or pass; 3 more cards each and the bottom card of the stock shown; the holder of
the trump 7 may swap it for the turned card (the "dix") while the turned suit is trump; sequences
(3 cards = 20, 4+ = 50) compared automatically; bella (trump K+Q played by one player) = 20;
9 tricks with follow / trump / over-trump duties; card points plus 10 for the last trick.

Only 18 of the 32 cards are played (9 each): the turned card, the bottom card and the rest of
the stock stay out. The 152 card points of the pack plus the 10 for the last trick are the 162
of RULES.md: what the tricks take plus what stays out of play always makes 162.

Action verbs (canonical text):
- ``take``: accept the turned suit as trump (round 1) and become the maker;
- ``pass``: round 1 or round 2;
- ``schmeiss``: round 1, an offer to annul the deal; the other seat answers
  ``accept`` (the deal is thrown in, the next dealer deals) or ``refuse`` (the schmeisser
  becomes the maker with the turned suit);
- ``name H``: round 2, name a suit other than the turned one as trump (S H D C);
- ``dix``: swap the trump 7 for the turned card (only when the turned suit became trump in
  round 1, and only before the holder has played to the first trick; it is his own turn then);
- ``keep``: the dealer's answer when he does not exchange before the lead (phase ``dix``).

Phase ``dix`` (RULES.md 3.2 and 3.3.8): when the turned suit became trump and the turned card is
not itself the trump 7, the dealer acts once before the non-dealer leads: ``dix`` (if he holds
the 7) or ``keep``. He gets this turn whether or not he holds the 7, so that the turn itself
tells the non-dealer nothing about his hand. Sequences declared at the lead then count the
dealer's hand after the exchange. After ``keep`` he may still exchange later, until he plays to
the first trick (the sequences are settled by then).
- ``play C``: play a card, e.g. ``play JH``, ``play 10S``.

Deals alternate. Both passing twice, or an accepted schmeiss, annuls the deal (recorded on the
sheet with 0 points) and the other player deals. Sequences are settled at the first lead from
both hands as they are then (a dealer's dix made before the lead counts; one made after the
lead does not change them); only the
holder of the best sequence scores all of his, and they are shown to both players.
Scoring: maker above the opponent: both score their own totals; equal: the opponent only;
below: the maker is bete and the opponent scores both totals (option ``bete: double_own``:
twice his own). The game ends after a deal in which someone reached ``target`` (default 500)
with a single leader; ties at the top play on.

Explicit deal (``deals[k]``): ``{"dealer": 0, "hands": [[9 cards], [9 cards]], "upcard": "JC",
"stock": [13 cards]}``: the first 6 cards of each hand are dealt first, the last 3 after the
auction; the last stock card is the bottom card shown. ``stock`` may be omitted (the unused
cards in pack order); ``dealer`` may be omitted (the deal alternates).
"""

from __future__ import annotations

import random
from typing import Any, Literal

from pydantic import Field
from typing_extensions import TypedDict

from engine.cards import KING, QUEEN, SUITS, card_str, cards_str, deck, make, parse_card, rank_of, suit_of
from engine.core import Event, Game, GameError, Options, State, ViewPart, deal_rng, register
from engine.events import DealEndEvent, DealEvent, OtherEvent, TrickView
from engine.tricks import follow_options, order_from, plays_view, sort_hand, take_trick, trump_letter, winning_index


class AuctionBid(TypedDict):
    seat: int
    bid: str
    round: int  # 1: take, pass or schmeiss the turned suit; 2: name another suit


class Dix(TypedDict):
    """The trump 7 exchanged for the turned card."""

    seat: int
    took: str
    gave: str


class Declaration(TypedDict):
    """The sequences that count: the ``seat`` holding the best (None: nobody), its runs and their points."""

    seat: int | None
    sequences: list[list[str]]
    points: int


class KlaberjassDeal(DealEvent):
    trump_card: str  # the turned card


class DixEvent(OtherEvent):
    """``type`` "dix": ``seat`` took the turned card and gave the trump 7."""

    took: str
    gave: str


class TrumpEvent(OtherEvent):
    """``type`` "trump": ``maker`` settled ``trump`` (``turned``: the turned card's suit)."""

    maker: int
    trump: str
    turned: bool
    bottom_card: str


class SequencesEvent(OtherEvent):
    """``type`` "sequences": the first lead's declaration (``seat`` None: no sequence counts)."""

    sequences: list[list[str]]
    points: int


class AnnulledDealEnd(DealEndEvent):
    annulled: str  # "schmeiss" (accepted) or "passed" (both passed twice)
    points: list[int]


class KlaberjassDealEnd(DealEndEvent):
    card_points: list[int]
    last_trick: int  # the seat that took it
    sequences: list[int]
    bella: list[int]
    counted: list[int]
    maker: int
    result: str  # made, tie or bete
    points: list[int]


class KlaberjassView(ViewPart):
    leader: int
    hand_size: int
    trump: str | None
    trump_card: str
    bottom_card: str | None
    bids: None
    auction: list[AuctionBid]
    maker: int | None
    schmeisser: int | None
    tricks: list[int]
    card_points: list[int]
    declarations: Declaration | None
    bella: int | None
    dix: Dix | None
    target: int
    sheet: dict[str, Any]

PLAIN_ORDER = order_from([14, 10, 13, 12, 11, 9, 8, 7])
TRUMP_ORDER = order_from([11, 9, 14, 10, 13, 12, 8, 7])
PLAIN_POINTS = {14: 11, 10: 10, 13: 4, 12: 3, 11: 2}
TRUMP_POINTS = {11: 20, 9: 14, 14: 11, 10: 10, 13: 4, 12: 3}
LAST_TRICK = 10
SEQ3, SEQ4 = 20, 50
BELLA = 20
TOTAL = 162
TRICKS = 9


def card_points(card: int, trump: int) -> int:
    """Trick points of one card: jass 20, menel 14, A 11, 10 10, K 4, Q 3, plain J 2."""
    table = TRUMP_POINTS if suit_of(card) == trump else PLAIN_POINTS
    return table.get(rank_of(card), 0)


def sequences(hand: list[int]) -> list[list[int]]:
    """Maximal runs of 3+ cards of one suit in natural order (A K Q J 10 9 8 7), highest first."""
    runs = []
    for suit in range(4):
        ranks = sorted((rank_of(c) for c in hand if suit_of(c) == suit), reverse=True)
        run: list[int] = []
        for r in ranks:
            if run and run[-1] == r + 1:
                run.append(r)
            else:
                if len(run) >= 3:
                    runs.append([make(x, suit) for x in run])
                run = [r]
        if len(run) >= 3:
            runs.append([make(x, suit) for x in run])
    return runs


def sequence_value(run: list[int]) -> int:
    return SEQ4 if len(run) >= 4 else SEQ3


def best_sequence_key(hand: list[int], trump: int) -> tuple[int, int, int] | None:
    """(value, top rank, is trump) of the best sequence, or None: 50 beats 20, then the higher
    top card, then a trump sequence beats a plain one."""
    keys = [(sequence_value(r), rank_of(r[0]), int(suit_of(r[0]) == trump)) for r in sequences(hand)]
    return max(keys) if keys else None


def sequence_winner(hands: list[list[int]], trump: int, dealer: int) -> int | None:
    """The seat that scores sequences (fully equal best sequences: the non-dealer), or None."""
    keys = [best_sequence_key(h, trump) for h in hands]
    if keys[0] is None and keys[1] is None:
        return None
    if keys[1] is None or (keys[0] is not None and keys[0] > keys[1]):
        return 0
    if keys[0] is None or keys[1] > keys[0]:
        return 1
    return 1 - dealer


class KlaberjassOptions(Options):
    target: int = Field(500, ge=10, le=10000, description="points that end the game")
    bete: Literal["both_totals", "double_own"] = Field(
        "both_totals", description="what the opponent of a losing maker scores"
    )


class KlaberjassState(State):
    GAME_ID = "klaberjass"
    FIELDS = (
        "phase", "dealer", "deal_no", "deal_index", "hands", "extra", "upcard", "stock", "auction",
        "round", "schmeisser", "maker", "trump", "turned_trump", "dix", "trick", "trick_leader",
        "last_trick", "tricks", "taken", "played", "bella_seat", "declaration", "totals", "history",
    )

    options: KlaberjassOptions

    # -- dealing -------------------------------------------------------------
    def _setup(self) -> None:
        self.totals = [0, 0]
        self.history: list[dict[str, Any]] = []
        self.deal_index = 0
        self.deal_no = 0
        self.dealer = 0
        self._deal(first=True)

    def _deal(self, first: bool = False) -> KlaberjassDeal:
        k = self.deal_index
        if not first:
            self.dealer = 1 - self.dealer
        nd = 1 - self.dealer
        if k < len(self.deals):
            spec = self.deals[k]
            if not isinstance(spec, dict):
                raise GameError(f"klaberjass explicit deal {k}: must be an object, not {spec!r}")
            if spec.get("dealer") is not None:
                if spec["dealer"] not in (0, 1) or isinstance(spec["dealer"], bool):
                    raise GameError(f"klaberjass explicit deal {k}: dealer {spec['dealer']!r} is not a seat (0..1)")
                self.dealer = spec["dealer"]
                nd = 1 - self.dealer
            hands9, upcard, stock = self._explicit(spec)
        else:
            cards = deck(32)
            deal_rng(self.seed, k).shuffle(cards)
            hands9 = [[], []]
            hands9[nd] = cards[0:3] + cards[6:9] + cards[13:16]
            hands9[self.dealer] = cards[3:6] + cards[9:12] + cards[16:19]
            upcard, stock = cards[12], cards[19:]
        self.deal_index = k + 1
        self.deal_no += 1
        self.hands = [h[:6] for h in hands9]
        self.extra = [h[6:] for h in hands9]
        self.upcard = upcard
        self.stock = stock
        self.auction: list[AuctionBid] = []
        self.round = 1
        self.schmeisser: int | None = None
        self.maker: int | None = None
        self.trump: int | None = None
        self.turned_trump = False
        self.dix: Dix | None = None
        self.trick: list[list[int]] = []
        self.trick_leader = nd
        self.last_trick: TrickView | None = None
        self.tricks = [0, 0]
        self.taken: list[list[int]] = [[], []]
        self.played: list[list[int]] = [[], []]
        self.bella_seat: int | None = None
        self.declaration: Declaration | None = None
        self.phase = "bid1"
        return {"type": "deal", "deal_no": self.deal_no, "dealer": self.dealer, "trump_card": card_str(upcard)}

    def _explicit(self, spec: dict[str, Any]) -> tuple[list[list[int]], int, list[int]]:
        try:
            hands = [[parse_card(c) for c in h] for h in spec["hands"]]
            upcard = parse_card(spec["upcard"])
            used = [c for h in hands for c in h] + [upcard]
            if spec.get("stock") is not None:
                stock = [parse_card(c) for c in spec["stock"]]
            else:
                stock = [c for c in deck(32) if c not in used]
        except (KeyError, TypeError, ValueError) as exc:
            raise GameError(f"klaberjass explicit deal: {exc}") from None
        if len(hands) != 2 or any(len(h) != 9 for h in hands):
            raise GameError("klaberjass explicit deal: two hands of 9 cards (6 + 3) are needed")
        if sorted(used + stock) != sorted(deck(32)):
            raise GameError("klaberjass explicit deal: hands, upcard and stock must be the 32-card pack")
        return hands, upcard, stock

    # -- whose turn, what is legal --------------------------------------------
    def _to_act(self) -> int | None:
        if self.phase == "over":
            return None
        nd = 1 - self.dealer
        if self.phase == "bid1" or self.phase == "bid2":
            return nd if len(self.auction) % 2 == 0 else self.dealer
        if self.phase == "schmeiss":
            schmeisser = self.schmeisser
            assert schmeisser is not None
            return 1 - schmeisser
        if self.phase == "dix":
            return self.dealer
        return (self.trick_leader + len(self.trick)) % 2

    def _legal(self) -> list[str]:
        if self.phase == "bid1":
            return ["take", "pass", "schmeiss"]
        if self.phase == "schmeiss":
            return ["accept", "refuse"]
        if self.phase == "bid2":
            turned = suit_of(self.upcard)
            return [f"name {s}" for i, s in enumerate(SUITS) if i != turned] + ["pass"]
        if self.phase == "dix":
            return (["dix"] if self._dix_allowed(self.dealer) else []) + ["keep"]
        seat = self._to_act()
        assert seat is not None
        actions = []
        if self._dix_allowed(seat):
            actions.append("dix")
        actions.extend(f"play {card_str(c)}" for c in self._playable(seat))
        return actions

    def _dix_allowed(self, seat: int) -> bool:
        return (
            self.turned_trump
            and self.dix is None
            and sum(self.tricks) == 0
            and not any(s == seat for s, _ in self.trick)
            and make(7, self._settled_trump()) in self.hands[seat]
        )

    def _settled_trump(self) -> int:
        """The trump suit, once the bidding has settled it (the dix and the play)."""
        trump = self.trump
        assert trump is not None, "the trump is not settled yet"
        return trump

    def _playable(self, seat: int) -> list[int]:
        trump = self._settled_trump()
        hand = sort_hand(self.hands[seat], trump)
        if not self.trick:
            return hand
        led = self.trick[0][1]
        best_trump = led if suit_of(led) == trump else None
        return follow_options(
            hand, suit_of(led), trump,
            must_trump=True, must_overtrump=True, best_trump=best_trump, trump_strength=TRUMP_ORDER,
        )

    def why_illegal(self, action: str) -> str:
        seat = self._to_act()
        if seat is None:
            return "the game is over"
        verb = action.split(" ", 1)[0]
        if self.phase in ("bid1", "bid2", "schmeiss") and verb in ("play", "dix", "keep"):
            return "the trump is not settled yet"
        if self.phase == "dix" and verb == "play":
            return "the dealer first says dix or keep (before the lead)"
        if verb == "keep" and self.phase != "dix":
            return "keep is the dealer's answer before the lead only"
        if verb == "name" and self.phase == "bid2":
            return "name a suit other than the turned card's (S H D C)"
        if verb == "play" and self.phase == "play" and self.trick:
            led = self.trick[0][1]
            if suit_of(led) == self.trump:
                return "a trump was led: follow with a higher trump if you can, else any trump"
            return "follow suit; if void, you must trump"
        if verb == "dix":
            return "the dix is only for the holder of the trump 7, when the turned suit was taken, before he plays"
        return "not a legal action now"

    # -- applying ----------------------------------------------------------------
    def _apply(self, action: str) -> list[Event]:
        seat = self._to_act()
        assert seat is not None
        verb, _, arg = action.partition(" ")
        if self.phase in ("bid1", "bid2", "schmeiss"):
            return self._bid(seat, verb, arg)
        if verb == "keep":
            self.phase = "play"
            keep: OtherEvent = {"type": "keep", "seat": seat}
            return [keep]
        if verb == "dix":
            self.phase = "play"
            seven = make(7, self._settled_trump())
            self.hands[seat].remove(seven)
            self.hands[seat].append(self.upcard)
            dix: Dix = {"seat": seat, "took": card_str(self.upcard), "gave": card_str(seven)}
            self.dix = dix
            self.upcard = seven
            exchanged: DixEvent = {"type": "dix", **dix}
            return [exchanged]
        return self._play(seat, parse_card(arg))

    def _bid(self, seat: int, verb: str, arg: str) -> list[Event]:
        self.auction.append({"seat": seat, "bid": verb if not arg else f"{verb} {arg}", "round": self.round})
        events: list[Event] = [{"type": "bid", "seat": seat, "bid": self.auction[-1]["bid"]}]
        if verb in ("take", "refuse"):
            maker = seat if verb == "take" else self.schmeisser
            assert maker is not None, "a refusal answers a schmeiss"
            return events + self._settle(maker, suit_of(self.upcard), turned=True)
        if verb == "name":
            return events + self._settle(seat, SUITS.index(arg), turned=False)
        if verb == "schmeiss":
            self.schmeisser = seat
            self.phase = "schmeiss"
            return events
        if verb == "accept":
            return events + self._annul("schmeiss")
        # pass
        passes = [a for a in self.auction if a["round"] == self.round]
        if len(passes) == 2:
            if self.round == 1:
                self.round, self.phase = 2, "bid2"
            else:
                return events + self._annul("passed")
        return events

    def _settle(self, maker: int, trump: int, turned: bool) -> list[Event]:
        self.maker, self.trump, self.turned_trump = maker, trump, turned
        for s in (0, 1):
            self.hands[s].extend(self.extra[s])
            self.extra[s] = []
        self.phase = "play"
        if turned and rank_of(self.upcard) != 7:
            self.phase = "dix"  # the dealer may exchange before the lead (see the module docstring)
        self.trick_leader = 1 - self.dealer
        settled: TrumpEvent = {"type": "trump", "maker": maker, "trump": SUITS[trump], "turned": turned,
                               "bottom_card": card_str(self.stock[-1])}
        return [settled]

    def _annul(self, reason: str) -> list[Event]:
        self.history.append({
            "deal_no": self.deal_no, "dealer": self.dealer, "annulled": reason,
            "auction": [a["bid"] for a in self.auction], "points": [0, 0],
        })
        end: AnnulledDealEnd = {"type": "deal_end", "annulled": reason, "points": [0, 0], "scores": [0, 0],
                                "totals": list(self.totals)}
        return [end, self._deal()]

    def _play(self, seat: int, card: int) -> list[Event]:
        events: list[Event] = []
        if not self.trick and sum(self.tricks) == 0:
            events.append(self._declare_sequences())
        self.hands[seat].remove(card)
        self.played[seat].append(card)
        self.trick.append([seat, card])
        events.append({"type": "play", "seat": seat, "card": card_str(card), "cards": [card_str(card)]})
        if suit_of(card) == self.trump and rank_of(card) == QUEEN:
            king = make(KING, self.trump)
            if king in self.hands[seat] or king in self.played[seat]:
                self.bella_seat = seat
                bella: OtherEvent = {"type": "bella", "seat": seat}
                events.append(bella)
        if len(self.trick) < 2:
            return events
        cards = [c for _, c in self.trick]
        trump = self._settled_trump()
        win = self.trick[winning_index(cards, trump, strength=PLAIN_ORDER, trump_strength=TRUMP_ORDER)][0]
        events.append(take_trick(self, win))
        if sum(self.tricks) == TRICKS:
            events.extend(self._end_deal(win))
        return events

    def _declare_sequences(self) -> SequencesEvent:
        trump = self._settled_trump()
        win = sequence_winner(self.hands, trump, self.dealer)
        declaration: Declaration
        if win is None:
            declaration = {"seat": None, "sequences": [], "points": 0}
        else:
            runs = sequences(self.hands[win])
            declaration = {
                "seat": win,
                "sequences": [cards_str(r) for r in runs],
                "points": sum(sequence_value(r) for r in runs),
            }
        self.declaration = declaration
        return {"type": "sequences", **declaration}

    def _end_deal(self, last_winner: int) -> list[Event]:
        trump = self._settled_trump()
        cp = [sum(card_points(c, trump) for c in self.taken[s]) for s in (0, 1)]
        seq = [0, 0]
        decl = self.declaration
        if decl is not None and decl["seat"] is not None:
            seq[decl["seat"]] = decl["points"]
        bella = [0, 0]
        for s in (0, 1):
            if {make(KING, trump), make(QUEEN, trump)} <= set(self.played[s]):
                bella[s] = BELLA
        last = [LAST_TRICK if s == last_winner else 0 for s in (0, 1)]
        totals = [cp[s] + last[s] + seq[s] + bella[s] for s in (0, 1)]
        maker = self.maker
        assert maker is not None
        opp = 1 - maker
        points = [0, 0]
        if totals[maker] > totals[opp]:
            points = list(totals)
            result = "made"
        elif totals[maker] == totals[opp]:
            points[opp] = totals[opp]
            result = "tie"
        else:
            both = totals[maker] + totals[opp]
            points[opp] = both if self.options.bete == "both_totals" else 2 * totals[opp]
            result = "bete"
        for s in (0, 1):
            self.totals[s] += points[s]
        out_of_play = [c for c in deck(32) if c not in self.taken[0] and c not in self.taken[1]]
        self.history.append({
            "deal_no": self.deal_no, "dealer": self.dealer, "auction": [a["bid"] for a in self.auction],
            "maker": maker, "trump": SUITS[trump], "tricks": list(self.tricks), "card_points": cp,
            "last_trick": last_winner, "out_of_play_points": sum(card_points(c, trump) for c in out_of_play),
            "sequences": seq, "declaration": self.declaration, "bella": bella, "totals": totals,
            "result": result, "points": points,
        })
        end: KlaberjassDealEnd = {"type": "deal_end", "card_points": cp, "last_trick": last_winner, "sequences": seq,
                                  "bella": bella, "counted": totals, "maker": maker, "result": result,
                                  "points": points, "scores": list(points), "totals": list(self.totals)}
        events: list[Event] = [end]
        top = max(self.totals)
        if top >= self.options.target and self.totals.count(top) == 1:
            self.phase = "over"
            events.append({"type": "game_over", "scores": list(self.totals), "totals": list(self.totals),
                           "winners": self.winners()})
        else:
            events.append(self._deal())
        return events

    # -- views -------------------------------------------------------------------

    # -- the fast path (engine.core: integer actions) ---------------------------------------------
    # ``play C`` is C's code; the words have the fixed codes of ``_WORD_CODES`` (64 up). Legal sets
    # are made without text; the step is ``_apply``'s.
    def fast_legal(self) -> list[int]:
        """The actions of ``_legal`` as ints, in the same order."""
        phase = self.phase
        if phase == "over":
            return []
        if phase == "bid1":
            return [_WORD_CODES["take"], _WORD_CODES["pass"], _WORD_CODES["schmeiss"]]
        if phase == "schmeiss":
            return [_WORD_CODES["accept"], _WORD_CODES["refuse"]]
        if phase == "bid2":
            turned = suit_of(self.upcard)
            return [_WORD_CODES["name " + s] for i, s in enumerate(SUITS) if i != turned] + [_WORD_CODES["pass"]]
        if phase == "dix":
            return ([_WORD_CODES["dix"]] if self._dix_allowed(self.dealer) else []) + [_WORD_CODES["keep"]]
        seat = self._to_act()
        assert seat is not None
        playable = self._playable(seat)
        return [_WORD_CODES["dix"], *playable] if self._dix_allowed(seat) else playable

    def _view(self, seat: int | None) -> KlaberjassView:
        trump = self.trump
        view: KlaberjassView = {
            "phase": self.phase,
            "hand_counts": [len(h) for h in self.hands],
            "dealer": self.dealer,
            "leader": 1 - self.dealer,
            "deal_no": self.deal_no,
            "hand_size": 6 if self.phase in ("bid1", "bid2", "schmeiss") else TRICKS,
            "trump": trump_letter(trump) if trump is not None else None,
            "trump_card": card_str(self.upcard),
            "bottom_card": card_str(self.stock[-1]) if self.phase in ("dix", "play") else None,
            "bids": None,
            "auction": [a.copy() for a in self.auction],
            "maker": self.maker,
            "schmeisser": self.schmeisser if self.phase == "schmeiss" else None,
            "tricks": list(self.tricks),
            "trick": None,
            "last_trick": self.last_trick,
            "card_points": [sum(card_points(c, trump) for c in t) for t in self.taken] if trump is not None else [0, 0],
            "declarations": self.declaration,
            "bella": self.bella_seat,
            "dix": self.dix,
            "target": self.options.target,
            "sheet": self.sheet(),
        }
        if self.phase == "play":
            best = None
            if self.trick:
                cards = [c for _, c in self.trick]
                best = self.trick[winning_index(cards, self._settled_trump(), strength=PLAIN_ORDER,
                                                trump_strength=TRUMP_ORDER)][0]
            view["trick"] = {"leader": self.trick_leader, "plays": plays_view(self.trick), "best": best}
        if seat is not None and 0 <= seat < 2:
            view["hand"] = cards_str(sort_hand(self.hands[seat], trump if trump is not None else -1))
        return view

    def scores(self) -> list[int]:
        return list(self.totals)

    def sheet(self) -> dict[str, Any]:
        return {"deals": [dict(d) for d in self.history], "target": self.options.target, "totals": list(self.totals)}

    # -- invariants ----------------------------------------------------------------
    def check_invariants(self) -> None:
        everything = self.hands[0] + self.hands[1] + self.extra[0] + self.extra[1] + self.taken[0] + self.taken[1]
        everything += [c for _, c in self.trick] + [self.upcard] + self.stock
        assert sorted(everything) == sorted(deck(32)), "the 32 cards are not all accounted for"
        played = self.played[0] + self.played[1]
        assert sorted(played) == sorted(self.taken[0] + self.taken[1] + [c for _, c in self.trick]), "played != taken"
        if self.phase in ("dix", "play"):
            assert len(self.hands[0]) + len(self.hands[1]) + len(played) == 2 * TRICKS, "hand sizes"
            assert abs(len(self.hands[0]) - len(self.hands[1])) <= 1, "hand sizes differ by more than one"
            trump = self._settled_trump()
            pool = self.taken[0] + self.taken[1] + [c for _, c in self.trick] + self.hands[0] + self.hands[1]
            rest = self.stock + [self.upcard]
            assert sum(card_points(c, trump) for c in pool + rest) + LAST_TRICK == TOTAL, "162 per deal"
        assert sum(d["points"][0] for d in self.history) == self.totals[0], "sheet != totals"
        assert sum(d["points"][1] for d in self.history) == self.totals[1], "sheet != totals"
        for d in self.history:
            if "annulled" in d:
                continue
            assert d["card_points"][0] + d["card_points"][1] + LAST_TRICK + d["out_of_play_points"] == TOTAL
            assert d["tricks"][0] + d["tricks"][1] == TRICKS

    # -- AI: determinised search --------------------------------------------------------
    def determinize(self, seat: int, rng: random.Random) -> KlaberjassState:
        """The opponent's hand, both undealt threes and the stock (but the bottom card, once shown)
        dealt afresh. Kept: the cards he declared in sequences and the card he took with the dix
        while unplayed, and the voids his plays show (follow, then trump: both are duties)."""
        from engine.ai.sampling import Slot, deal_hidden, hide_future, merge_voids, voids_from_trick

        opp = 1 - seat
        voids: dict[int, set[int]] = {}
        trump = self.trump
        if self.phase == "play" and trump is not None:  # no trick is played in the dix phase
            leader = 1 - self.dealer
            for i in range(sum(self.tricks)):
                plays = [(leader, self.played[leader][i]), (1 - leader, self.played[1 - leader][i])]
                merge_voids(voids, voids_from_trick(plays, trump, must_trump=True))
                cards = [c for _, c in plays]
                leader = plays[winning_index(cards, trump, strength=PLAIN_ORDER, trump_strength=TRUMP_ORDER)][0]
            merge_voids(voids, voids_from_trick([(s, c) for s, c in self.trick], trump, must_trump=True))
        known: list[int] = []
        decl = self.declaration
        if decl and decl.get("seat") == opp:
            known += [parse_card(t) for run in decl["sequences"] for t in run]
        if self.dix and self.dix["seat"] == opp:
            known.append(parse_card(self.dix["took"]))
        known = [c for c in dict.fromkeys(known) if c in self.hands[opp]]
        shown = 1 if self.phase in ("dix", "play") else 0  # the bottom card is shown from the dealer's dix turn
        hidden_stock = self.stock[:len(self.stock) - shown]
        slots = [Slot(len(self.hands[opp]), known=known, void=voids.get(opp, set())),
                 Slot(len(self.extra[0])), Slot(len(self.extra[1])), Slot(len(hidden_stock))]
        pool = [c for c in self.hands[opp] if c not in known] + self.extra[0] + self.extra[1] + hidden_stock
        hand, extra0, extra1, stock = deal_hidden(slots, pool, rng)
        new = self.clone()
        new.hands[opp] = hand
        new.extra = [extra0, extra1]
        new.stock = stock + self.stock[len(hidden_stock):]
        new._legal_cache = None
        hide_future(new, rng)
        return new


_WORD_CODES = {word: 64 + i for i, word in enumerate(
    ["take", "pass", "schmeiss", "accept", "refuse", "dix", "keep", "name S", "name H", "name D", "name C"])}
for _word, _code in _WORD_CODES.items():
    KlaberjassState.ACTIONS.fix(_code, _word)
for _card in deck(32):
    KlaberjassState.ACTIONS.fix(_card, "play " + card_str(_card))


GAME = register(Game(options=KlaberjassOptions, state=KlaberjassState))  # id, name and players: the declaration
